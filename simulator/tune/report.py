"""What ``sim tune`` shows and writes: the answer with its confirmed interval, the ties, every
candidate (``tune.csv``), the ``--json`` document (``tune.json``), a plot of the search
(``tune.png``) and a self-contained ``report.html``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import yaml
from rich.console import Console
from rich.table import Table

from simulator.stats import Z95, smallest_detectable
from simulator.tune.objectives import metric_values
from simulator.tune.search import Candidate, TuneResult


@dataclass(frozen=True)
class Answer:
    """What the search says to do: ``change`` (paste the best), ``current`` (today's values are
    among the best), ``constant`` (every candidate gives the same objective) or ``none``."""

    kind: str
    text: str

    @property
    def paste(self) -> bool:
        return self.kind == "change"


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def current_values(result: TuneResult) -> dict[str, Any]:
    """Today's values (the scenario's params) at every searched path."""
    return {a.path: _current_value(result, a.path) for a in result.spec.axes}


def answer(result: TuneResult) -> Answer:
    """The honest answer at the edges (issue: a search whose best is today's values, or whose
    objective never moves, must not ask for a change)."""
    rated = [c for c in result.candidates if c.objectives]
    if not result.best:
        return Answer("none", "no candidate was evaluated: nothing to paste")
    spread = [
        max(c.objectives[k][0] for c in rated) - min(c.objectives[k][0] for c in rated)
        for k in range(len(result.spec.objectives))
    ]
    if len(rated) > 1 and all(x <= 1e-12 for x in spread):
        best = result.best[0]
        shown = ", ".join(
            f"{o.label()} = {best.objectives[k][0]:.4g}"
            for k, o in enumerate(result.spec.objectives)
        )
        wins = [v.mean for k, v in best.metrics.items() if k.startswith("wins.seat")]
        why = " (no game has a winner)" if wins and max(wins) == 0 else ""
        return Answer(
            "constant",
            f"the objective is constant: {shown} for all {len(rated)} candidates evaluated{why}, "
            "so no value can be preferred: nothing to change; the question needs other players "
            "or rules",
        )
    today = current_values(result)
    current = next((c for c in rated if _same(c.values, today)), None)
    if current is None or current not in [*result.best, *result.ties]:
        return Answer("change", "")
    o = result.spec.objectives[0]
    best = result.best[0]
    other = current if current is not best else best
    se = math.hypot(best.metrics[o.metric].se, other.metrics[o.metric].se)
    unseen = smallest_detectable(se)
    trials = current.trials
    return Answer(
        "current",
        f"the current values are among the best: nothing to change ({o.label()}: a "
        f"difference below {unseen:.2g} from the best would go unseen at {trials:,} trials; "
        f"{4 * trials:,} would see {unseen / 2:.2g})",
    )


def _num(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def _metrics_doc(estimates: pd.DataFrame, variant: str) -> dict[str, Any]:
    """A variant's metrics in the shape of ``sim run --json``."""
    rows = estimates[estimates["variant"] == variant]
    return {
        str(r.metric): {
            "mean": _num(r.mean),
            "se": _num(r.se),
            "ci_low": _num(r.ci_low),
            "ci_high": _num(r.ci_high),
            "n": int(r.n),
        }
        for r in rows.itertuples()
    }


def _search_metrics(c: Candidate) -> dict[str, Any]:
    return {
        k: {"mean": v.mean, "se": v.se, "ci_low": v.low, "ci_high": v.high, "n": v.n}
        for k, v in c.metrics.items()
    }


def _candidate_doc(c: Candidate) -> dict[str, Any]:
    return {
        "candidate": c.number,
        "params": c.values,
        "status": c.status,
        "rung": c.rung + 1,
        "trials": c.trials,
        "trials_spent": c.spent,
        "objectives": [{"value": o[0], "ci_low": o[1], "ci_high": o[2]} for o in c.objectives],
        "metrics": _search_metrics(c),
    }


def _target_doc(result: TuneResult) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    for o in result.spec.objectives:
        if o.target is not None:
            doc[o.metric] = o.target
        else:
            doc.setdefault("maximize" if o.maximize else "minimize", []).append(o.metric)
    return doc


def _confirmed_variant(result: TuneResult, k: int) -> str:
    return "best" if len(result.best) == 1 else f"front{k + 1}"


def document(result: TuneResult) -> dict[str, Any]:
    """The ``sim tune --json`` document (and ``tune.json``).

    ``best`` holds the answer's searched ``params`` and its ``metrics`` from the confirmation
    run (as in ``sim run --json``); ``ties`` the same for candidates that could not be told
    apart from it; ``candidates`` everything the search evaluated.
    """
    conf = result.confirmation

    def entry(c: Candidate, k: int | None) -> dict[str, Any]:
        doc: dict[str, Any] = {"params": c.values}
        if conf is not None and k is not None and conf.complete:
            doc["metrics"] = _metrics_doc(conf.estimates, _confirmed_variant(result, k))
            doc["confirmed"] = True
        else:
            doc["metrics"] = _search_metrics(c)
            doc["confirmed"] = False
        doc["search_trials"] = c.trials
        return doc

    confirmed = len(conf.variants) - 1 if conf is not None else 0
    best = [entry(c, k if k < confirmed else None) for k, c in enumerate(result.best)]
    said = answer(result)
    doc: dict[str, Any] = {
        "scenario": result.scenario.name,
        "procedure": result.scenario.procedure.name,
        "seed": result.seed,
        "target": _target_doc(result),
        "objectives": [o.label() for o in result.spec.objectives],
        "best": best[0] if best else None,
        "answer": said.kind,
        "answer_text": said.text,
        "paste": params_fragment(result) if said.paste else None,
        "ties": [entry(c, None) for c in result.ties],
        "outside_rules": {
            "count": len(result.skipped),
            "examples": [{"params": v, "reason": why} for v, why in result.skipped[:5]],
        },
        "candidates": [_candidate_doc(c) for c in result.candidates],
        "method": result.method,
        "budget": result.spec.budget,
        "trials": result.trials,
        "rungs": result.rungs,
        "trials_spent": result.trials_spent,
        "trials_full": result.trials_full,
        "complete": result.complete,
        "elapsed_seconds": round(result.elapsed, 3),
    }
    if len(result.best) > 1:
        doc["front"] = best
    if conf is not None:
        doc["confirmation"] = {
            "seed": conf.seed,
            "trials": conf.trials,
            "complete": conf.complete,
            "current": {
                "params": current_values(result),
                "metrics": _metrics_doc(conf.estimates, "current")
                if not conf.estimates.empty
                else {},
            },
            "differences": [
                {k: (_num(v) if isinstance(v, float) else v) for k, v in row.items()}
                for row in conf.comparisons.to_dict(orient="records")
            ],
        }
    return doc


def _current_value(result: TuneResult, path: str) -> Any:
    value: Any = result.scenario.variants["base"].model_dump(mode="json")
    head, _, last = path.rpartition(".")
    parts = path.split(".")
    if head and last.isdigit():
        parts = [*head.split("."), last]
    for part in parts:
        if isinstance(value, list):
            value = value[int(part) - 1]
        elif isinstance(value, dict):
            value = value.get(part)
    return value


def candidates_frame(result: TuneResult) -> pd.DataFrame:
    """``tune.csv``: one row per candidate: its values, status, trials, objective metrics with
    intervals, and objectives."""
    rows = []
    metrics = [o.metric for o in result.spec.objectives]
    for c in result.candidates:
        row: dict[str, Any] = {"candidate": c.number, **c.values, "status": c.status}
        row["rung"] = c.rung + 1
        row["trials"] = c.trials
        row["trials_spent"] = c.spent
        for m in metrics:
            v = c.metrics.get(m)
            row[m] = v.mean if v else math.nan
            row[f"{m}.ci_low"] = v.low if v else math.nan
            row[f"{m}.ci_high"] = v.high if v else math.nan
        for k in range(len(result.spec.objectives)):
            point = c.objectives[k] if c.objectives else (math.nan,) * 3
            row[f"objective{k + 1}"] = point[0]
            row[f"objective{k + 1}.ci_low"] = point[1]
            row[f"objective{k + 1}.ci_high"] = point[2]
        rows.append(row)
    return pd.DataFrame(rows)


def params_fragment(result: TuneResult, k: int = 0) -> str:
    """The answer's values as a YAML ``params:`` fragment to paste into the scenario."""
    tree: dict[str, Any] = {}
    for path, value in result.best[k].values.items():
        head, _, last = path.rpartition(".")
        if head and last.isdigit():
            current = _current_value(result, head)
            items = list(current) if isinstance(current, list) else []
            node_path = head.split(".")
            node = tree
            for part in node_path[:-1]:
                node = node.setdefault(part, {})
            existing = node.get(node_path[-1], items)
            existing[int(last) - 1] = value
            node[node_path[-1]] = existing
            continue
        node = tree
        parts = path.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return yaml.safe_dump({"params": tree}, sort_keys=False, default_flow_style=False).rstrip()


def _fmt(x: Any, digits: int = 4) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}g}"


def _interval(mean: Any, lo: Any, hi: Any) -> str:
    return f"{_fmt(mean)} [{_fmt(lo)}, {_fmt(hi)}]"


def print_result(result: TuneResult, console: Console) -> None:
    """The answer on the terminal: candidates near the best, the confirmation beside the current
    values, the ties, and the YAML to paste."""
    spec = result.spec
    status = "" if result.complete else " · INCOMPLETE (interrupted): best so far"
    title = f"{result.scenario.name}: {', '.join(o.label() for o in spec.objectives)}{status}"
    table = Table(title=title, title_justify="left")
    table.add_column("#", justify="right")
    for a in spec.axes:
        table.add_column(a.path, justify="right")
    for o in spec.objectives:
        table.add_column(f"{o.metric} [95%]", justify="right")
    table.add_column("trials", justify="right")
    table.add_column("status")
    shown = [*result.best, *result.ties]
    rest = sorted(
        (c for c in result.candidates if c not in shown and c.objectives),
        key=lambda c: tuple(o[0] for o in c.objectives),
    )
    for c in [*shown, *rest[: max(0, 10 - len(shown))]]:
        cells = [str(c.number), *(str(v) for v in c.values.values())]
        for o in spec.objectives:
            v = c.metrics[o.metric]
            cells.append(_interval(v.mean, v.low, v.high))
        table.add_row(*cells, f"{c.trials:,}", c.status, style="bold" if c in result.best else None)
    console.print(table)
    conf = result.confirmation
    if conf is not None and conf.complete:
        _print_confirmation(result, console)
    spent, full = result.trials_spent, result.trials_full
    console.print(
        f"{len(result.candidates)} candidates ({result.method}) in {result.elapsed:.1f} s; "
        f"{spent:,} trials spent, {spent / max(full, 1):.0%} of the {full:,} that every "
        f"candidate at {result.trials:,} trials would take (rungs: "
        f"{', '.join(f'{n:,}' for n in result.rungs)})",
        highlight=False,
    )
    if result.best and len(result.spec.objectives) == 1:
        o, best = result.spec.objectives[0], result.best[0]
        high = best.objectives[0][2]
        band = (
            f"{o.metric} within [{o.target - high:.4g}, {o.target + high:.4g}]"
            if o.target is not None
            else (
                f"{o.metric} at least {-high:.4g}"
                if o.maximize
                else f"{o.metric} at most {high:.4g}"
            )
        )
        console.print(
            f"ties: {len(result.ties)} other candidate(s) estimated inside the best's 95% "
            f"interval ({band}): the data cannot rank them"
            + (" (marked 'tie' above)" if result.ties else ""),
            highlight=False,
        )
    elif result.ties:
        console.print(
            f"{len(result.ties)} candidate(s) off the front that no front member surely beats "
            "(marked 'tie' above)",
            highlight=False,
        )
    if result.skipped:
        first, why = result.skipped[0]
        example = ", ".join(f"{k}={v}" for k, v in first.items())
        console.print(
            f"{len(result.skipped)} candidate(s) outside the rules were skipped, never run "
            f"(e.g. {example}: {why})",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    said = answer(result)
    if said.paste:
        console.print("Paste into the scenario:", highlight=False)
        console.print(params_fragment(result), markup=False, highlight=False)
    elif said.text:
        console.print(said.text, markup=False, highlight=False, soft_wrap=True)


def _print_confirmation(result: TuneResult, console: Console) -> None:
    conf = result.confirmation
    assert conf is not None
    est = conf.estimates
    headline = [
        m.name
        for m in result.scenario.procedure.metrics(result.best[0].params)
        if m.headline and m.kind != "distribution"
    ]
    objective_metrics = [o.metric for o in result.spec.objectives]
    metrics = list(dict.fromkeys([*objective_metrics, *headline]))
    table = Table(
        title=f"Confirmed on a fresh seed ({conf.seed}), {conf.trials:,} trials each",
        title_justify="left",
    )
    table.add_column("metric")
    for v in conf.variants:
        table.add_column(v, justify="right")
    table.add_column("change [95%]", justify="right")
    comp = conf.comparisons
    values = {v: metric_values(est, v) for v in conf.variants}
    for m in metrics:
        cells = [m]
        for v in conf.variants:
            got = values[v].get(m)
            cells.append(_interval(got.mean, got.low, got.high) if got is not None else "—")
        diff = (
            comp[(comp["metric"] == m) & (comp["variant"] == conf.variants[1])]
            if not comp.empty
            else comp
        )
        if diff is not None and not diff.empty:
            d = diff.iloc[0]
            mark = " *" if bool(d["significant"]) else ""
            cells.append(f"{d['difference']:+.4g} [{d['ci_low']:+.4g}, {d['ci_high']:+.4g}]{mark}")
        else:
            cells.append("")
        table.add_row(*cells)
    console.print(table)
    for o in result.spec.objectives:
        if o.target is None:
            continue
        row = est[(est["variant"] == conf.variants[1]) & (est["metric"] == o.metric)]
        if row.empty:
            continue
        _print_unseen(conf, o.metric, console)
        lo, hi = float(row["ci_low"].iloc[0]), float(row["ci_high"].iloc[0])
        where = "inside" if lo <= o.target <= hi else "outside"
        console.print(
            f"target {o.metric} = {o.target:g} is {where} the confirmed 95% interval "
            f"[{lo:.4g}, {hi:.4g}]",
            highlight=False,
        )


def _print_unseen(conf: Any, metric: str, console: Console) -> None:
    """When the confirmation cannot tell the answer from the current values on ``metric``, say
    so with the smallest difference it could have seen."""
    comp = conf.comparisons
    if comp.empty:
        return
    rows = comp[(comp["metric"] == metric) & (comp["variant"] == conf.variants[1])]
    if rows.empty or bool(rows["significant"].iloc[0]):
        return
    d = rows.iloc[0]
    unseen = smallest_detectable((float(d["ci_high"]) - float(d["ci_low"])) / (2 * Z95))
    console.print(
        f"{metric}: no difference found between {conf.variants[1]} and current on the fresh seed "
        f"({d['difference']:+.4g}); a difference below {unseen:.2g} would go unseen at "
        f"{conf.trials:,} trials ({4 * conf.trials:,} would see {unseen / 2:.2g})",
        highlight=False,
        soft_wrap=True,
    )


def write_plot(result: TuneResult, path: Path) -> Path:
    """``tune.png``: the first objective by candidate (in the order evaluated, coloured by how
    far each got) and against each searched parameter."""
    from simulator.report.drawing import new_figure, save_figure

    rated = [c for c in result.candidates if c.objectives]
    axes_count = 1 + len(result.spec.axes)
    fig = new_figure(4.2 * axes_count, 3.6)
    colours = {"best": "#d62728", "front": "#d62728", "tie": "#ff7f0e"}
    first = result.spec.objectives[0]
    ax = fig.add_subplot(1, axes_count, 1)
    for c in rated:
        point, lo, hi = c.objectives[0]
        colour = colours.get(c.status, "#1f77b4" if c.status == "finalist" else "#9aa4b2")
        ax.errorbar(c.number, point, yerr=[[point - lo], [hi - point]], fmt="o", ms=4, color=colour)
    ax.set_xlabel("candidate (order evaluated)")
    ax.set_ylabel(first.label())
    ax.set_title("search: red best, orange ties, grey dropped", fontsize=9)
    for k, a in enumerate(result.spec.axes):
        axk = fig.add_subplot(1, axes_count, k + 2)
        labels = [str(v) for v in a.values]
        for c in rated:
            x = labels.index(str(c.values[a.path]))
            colour = colours.get(c.status, "#1f77b4" if c.status == "finalist" else "#9aa4b2")
            axk.plot(x, c.objectives[0][0], "o", ms=4, color=colour)
        axk.set_xticks(range(len(labels)), labels, rotation=45 if len(labels) > 6 else 0)
        axk.set_xlabel(a.path)
    fig.tight_layout()
    return save_figure(fig, path)


def render_html(result: TuneResult, plot: Path | None) -> str:
    """A self-contained page: the answer, the confirmation, the ties and every candidate."""
    import base64

    from simulator.report.html import CSP, CSS, _e, _table

    doc = document(result)
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        f"<title>{_e(result.scenario.name)}: sim tune</title><style>{CSS}</style></head><body>",
        f"<h1>{_e(result.scenario.name)}: tuning</h1>",
        f"<p class='lead'>{_e(result.scenario.procedure.name)} · "
        f"{_e(', '.join(o.label() for o in result.spec.objectives))} · seed {result.seed} · "
        f"{len(result.candidates)} candidates ({_e(result.method)})"
        + ("" if result.complete else " · <span class='badge bad'>INCOMPLETE</span>")
        + "</p>",
        "<h2>Answer</h2>",
        f"<pre><code>{_e(params_fragment(result))}</code></pre>"
        if answer(result).paste
        else f"<p>{_e(answer(result).text)}</p>",
    ]
    conf = doc.get("confirmation")
    if conf:
        rows = []
        for m, cur in conf["current"]["metrics"].items():
            best = doc["best"]["metrics"].get(m, {}) if doc["best"] else {}
            rows.append(
                [
                    _e(m),
                    _e(_interval(cur["mean"], cur["ci_low"], cur["ci_high"])),
                    _e(_interval(best.get("mean"), best.get("ci_low"), best.get("ci_high")))
                    if best
                    else "",
                ]
            )
        parts.append(f"<h2>Confirmed on a fresh seed ({conf['seed']})</h2>")
        parts.append(_table(["metric", "current", "best"], rows))
    frame = candidates_frame(result)
    parts.append("<h2>Every candidate</h2>")
    parts.append(
        _table(
            [_e(c) for c in frame.columns],
            (
                [_e(_fmt(v) if isinstance(v, float) else v) for v in row]
                for row in frame.itertuples(index=False)
            ),
        )
    )
    if plot is not None and plot.exists():
        data = base64.b64encode(plot.read_bytes()).decode()
        parts.append(
            f"<h2>The search</h2><figure><img alt='search' src='data:image/png;base64,{data}'>"
            "</figure>"
        )
    parts.append("</body></html>")
    return "".join(parts)


def write_reports(result: TuneResult, out_dir: Path) -> list[Path]:
    """tune.csv, tune.json, tune.png and report.html in ``out_dir``."""
    from simulator.output import safe_write

    written = []
    csv_path = out_dir / "tune.csv"
    frame = candidates_frame(result)
    safe_write(csv_path, lambda f: frame.to_csv(f, index=False))
    written.append(csv_path)
    json_path = out_dir / "tune.json"
    text = json.dumps(document(result), indent=2, default=str) + "\n"
    safe_write(json_path, lambda f: f.write(text))
    written.append(json_path)
    plot = (
        write_plot(result, out_dir / "tune.png")
        if any(c.objectives for c in result.candidates)
        else None
    )
    if plot is not None:
        written.append(plot)
    html_path = out_dir / "report.html"
    page = render_html(result, plot)
    safe_write(html_path, lambda f: f.write(page))
    written.append(html_path)
    return written
