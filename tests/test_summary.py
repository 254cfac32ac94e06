"""The folded summary and the verdict: one screen that says what a rule change does."""

from __future__ import annotations

import dataclasses
import io
import json
import math
import os
import re
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from rich.console import Console
from typer.testing import CliRunner

from simulator.cli import app
from simulator.procedures.base import Metric
from simulator.report.markdown import folded_markdown as markdown
from simulator.report.model import build as build_report
from simulator.report.summary import (
    NoMetricsMatch,
    build,
    restrict,
    seat_families,
)
from simulator.report.terminal import print_report
from simulator.report.verdict import verdict
from simulator.runner import RunResult, run_scenario

ROOT = Path(__file__).resolve().parents[1]
REVISIONS = ROOT / "scenarios" / "recruitment" / "revisions.yaml"
runner = CliRunner()

# ---------------------------------------------------------------------------------------------
# A hand-built result: three revisions of a three-seat game with known differences and p-values.

N = 10_000
VARIANTS = ("1.0", "1.1", "1.2")
SEATS = ("characters_owned.seat1", "characters_owned.seat2", "characters_owned.seat3")
WINS = ("wins.seat1", "wins.seat2", "wins.seat3")

#: variant → metric → (mean, standard error)
ESTIMATES: dict[str, dict[str, tuple[float, float]]] = {
    "1.0": {
        "characters_owned": (12.9, 0.04),
        SEATS[0]: (4.4, 0.02),
        SEATS[1]: (4.3, 0.02),
        SEATS[2]: (4.2, 0.02),
        "removed": (0.0, 0.0),
        "length": (20.0, 0.05),
        "draws": (0.05, 0.0022),
        "quiet": (3.0, 0.01),
        "zero": (0.0, 0.0),
        "debug": (1.0, 0.01),
        WINS[0]: (0.34, 0.0047),
        WINS[1]: (0.33, 0.0047),
        WINS[2]: (0.33, 0.0047),
    },
    "1.1": {
        "characters_owned": (9.7, 0.03),
        SEATS[0]: (3.3, 0.02),
        SEATS[1]: (3.2, 0.02),
        SEATS[2]: (3.2, 0.02),
        "removed": (4.0, 0.02),
        "length": (20.1, 0.05),
        "draws": (0.05, 0.0022),
        "quiet": (3.0, 0.01),
        "zero": (0.0, 0.0),
        "debug": (1.5, 0.01),
        WINS[0]: (0.36, 0.0048),
        WINS[1]: (0.32, 0.0047),
        WINS[2]: (0.32, 0.0047),
    },
    "1.2": {
        "characters_owned": (9.7, 0.03),
        SEATS[0]: (3.3, 0.02),
        SEATS[1]: (3.2, 0.02),
        SEATS[2]: (3.2, 0.02),
        "removed": (4.0, 0.02),
        "length": (21.0, 0.05),
        "draws": (0.06, 0.0024),
        "quiet": (3.0, 0.01),
        "zero": (0.0, 0.0),
        "debug": (1.0, 0.01),
        WINS[0]: (0.335, 0.0047),
        WINS[1]: (0.333, 0.0047),
        WINS[2]: (0.332, 0.0047),
    },
}

#: (variant, metric) → (difference, ci_low, ci_high, p (Holm), significant)
DIFFERENCES = {
    ("1.1", "characters_owned"): (-3.2, -3.25, -3.15, 1e-10, True),
    ("1.1", "removed"): (4.0, 3.96, 4.04, 0.0, True),
    ("1.1", "length"): (0.1, -0.02, 0.22, 0.2, False),
    ("1.1", "draws"): (0.0, -0.003, 0.003, 1.0, False),
    ("1.1", "quiet"): (0.0, -0.01, 0.01, 1.0, False),
    ("1.1", "debug"): (0.5, 0.48, 0.52, 1e-20, True),
    ("1.2", "characters_owned"): (-3.2, -3.25, -3.15, 1e-10, True),
    ("1.2", "removed"): (4.0, 3.96, 4.04, 0.0, True),
    ("1.2", "length"): (1.0, 0.9, 1.1, 1e-6, True),
    ("1.2", "draws"): (0.01, 0.005, 0.015, 0.001, True),
    ("1.2", "quiet"): (0.001, -0.01, 0.012, 0.9, False),
    ("1.2", "debug"): (0.0, -0.02, 0.02, 1.0, False),
}


def hand_built() -> RunResult:
    metrics = [
        Metric("characters_owned", "mean", "all seats"),
        *(Metric(s, "mean", "one seat", headline=False) for s in SEATS),
        Metric("removed", "mean", "removed characters"),
        Metric("length", "mean", "rounds played"),
        Metric("draws", "proportion", "games without a winner"),
        Metric("quiet", "mean", "never changes"),
        Metric("zero", "mean", "always zero"),
        Metric("debug", "mean", "not headline", headline=False),
        *(Metric(w, "mean", "win share", scale=6) for w in WINS),
    ]
    rows = []
    for v in VARIANTS:
        for m in metrics:
            mean, se = ESTIMATES[v][m.name]
            rows.append(
                {
                    "variant": v,
                    "metric": m.name,
                    "kind": m.kind,
                    "mean": mean,
                    "se": se,
                    "ci_low": mean - 1.96 * se,
                    "ci_high": mean + 1.96 * se,
                    "n": N,
                }
            )
    cmp = [
        {
            "variant": v,
            "baseline": "1.0",
            "metric": m,
            "difference": d,
            "ci_low": lo,
            "ci_high": hi,
            "p_value": p,
            "p_holm": p,
            "significant": sig,
            "test": "paired t",
        }
        for (v, m), (d, lo, hi, p, sig) in DIFFERENCES.items()
    ]
    plan = SimpleNamespace(
        variant_names=VARIANTS, metrics=tuple(metrics), independent=False, n_variants=3
    )
    scenario = SimpleNamespace(name="hand-built", sweep={})
    outcome = SimpleNamespace(trials=N, complete=True)
    return RunResult(
        scenario,  # type: ignore[arg-type]
        plan,  # type: ignore[arg-type]
        outcome,  # type: ignore[arg-type]
        pd.DataFrame(rows),
        pd.DataFrame(),
        pd.DataFrame(cmp),
    )


def test_the_verdict_of_a_hand_built_comparison_is_exactly_this():
    # Ranked by difference over the pooled per-trial SD (se × √n): removed 4.00 / √((0² + 2²)/2)
    # = 2.83 before characters_owned 3.20 / √((4² + 3²)/2) = 0.91 before length 1.00 / 5 = 0.20
    # before draws, Cohen's h = 2·asin√0.06 − 2·asin√0.05 = 0.044.
    # Seats: summed shares as counts; 1.0 has χ² = 2.0 on 2 df, p = e^-1 = 0.37; 1.1 has
    # χ² = 32, p = e^-16 = 1.1e-07; 1.2 has χ² = 0.14, p = 0.93.
    assert verdict(build(hand_built())) == [
        "1.1: 2 of 5 metrics changed; removed +4.00 [+3.96, +4.04], characters_owned −3.20",
        "1.2: 4 of 5 metrics changed; removed +4.00 [+3.96, +4.04], characters_owned −3.20, "
        "length +1.00",
        # "No difference found" says what the test could have seen: noncentrality 9.64 (2 df,
        # 5%, 80% power) = games · seats · s² / 2 gives s = 2.5 pp at 10,000 games.
        "seats unequal in 1.1 (seat 1 36.0% vs seat 2 32.0%, spread 4.0 pp, p = 1.1e-07); "
        "no difference found in 1.0, 1.2 (spread ≤ 1.0 pp, p ≥ 0.37); a spread below 2.5 pp "
        "would go unseen at 10,000 games (100,000 would see 0.8 pp)",
        "draws: 5.0% in 1.0; 1.1 5.0% (no significant change); 1.2 6.0% (+1.0 pp [+0.5, +1.5])",
        "length: 20.00 in 1.0; 1.1 20.10 (no significant change); 1.2 21.00 (+1.00 [+0.90, +1.10])",
        # quiet's differences have se 0.0051 (a 95% half-width of 0.01): 80% power at 5% / 6
        # metrics (Holm's first step) needs about (2.64 + 0.84) · 0.0051 = 0.018, a little more
        # with the touched trials' own spread (the gate's power model): 0.02.
        "no significant change in any variant (each with the smallest change it would have "
        "seen): quiet 0.02",
        "also changed (not in the summary, see --detail): debug",
    ]


def test_with_the_full_tables_shown_the_verdict_points_to_them_not_to_detail(tmp_path):
    # `sim run --detail` prints every metric's table after the verdict, and report.html has them
    # below its summary: "see --detail" would send the reader to what is already there.
    assert verdict(build(hand_built()), detail=True)[-1] == (
        "also changed (not in the summary, in the full tables below): debug"
    )
    # At 2,000 trials revision 1.2 moves games_with_gap_equipped, outside the summary
    # (docs/comparisons.md shows the run without --detail).
    # (The robustness reruns, 35 s of search agents here, are tested in tests/test_robustness.py.)
    args = ["run", str(REVISIONS), "--trials", "2000", "-q", "--out", str(tmp_path / "o")]
    shown = runner.invoke(app, [*args, "--detail", "--robustness", "none"])
    assert shown.exit_code == 0, shown.stderr
    text = " ".join(shown.stdout.split())
    assert "also changed (not in the summary, in the full tables below): games_with_gap" in text
    assert "see --detail" not in text


@pytest.mark.parametrize(
    "shares", [(0.34, 0.33, 0.33), (0.36, 0.32, 0.32), (0.25, 0.2, 0.3, 0.2), (0.5, 0.45)]
)
def test_the_test_of_equal_seats_is_scipys_chi_square(shares):
    from scipy.stats import chisquare

    from simulator.report.summary import _chi2_equal

    expected = chisquare([s * 1000 for s in shares])
    chi2, p = _chi2_equal(list(shares), 1000)
    assert chi2 == pytest.approx(expected.statistic, rel=1e-12)
    assert p == pytest.approx(expected.pvalue, rel=1e-9)


def test_seats_are_not_tested_on_fewer_than_five_wins_expected_per_seat():
    result = hand_built()
    est = result.estimates
    for w in WINS:
        est.loc[(est["variant"] == "1.2") & (est["metric"] == w), "mean"] = 0.0003
    s = build(result)
    assert math.isnan(s.seats[2].p_value)  # 3 wins expected per seat: no chi-square
    lines = verdict(s)
    # 99.9% of 1.2's games have no winner: the verdict says so first.
    assert lines[0] == (
        "99.9% of games end without a winner in 1.2: these players do not play to win; seat and "
        "variant answers are not meaningful"
    )
    assert lines[3:5] == [
        "too few wins to test the seats (1.2: 9 wins in 10,000 games)",
        "seats unequal in 1.1 (seat 1 36.0% vs seat 2 32.0%, spread 4.0 pp, p = 1.1e-07); "
        "no difference found in 1.0 (spread ≤ 1.0 pp, p ≥ 0.37); a spread below 2.5 pp would go "
        "unseen at 10,000 games (100,000 would see 0.8 pp)",
    ]


def test_one_variant_gets_intervals_and_the_seats_but_no_changes():
    result = hand_built()
    result.plan.variant_names = ("1.0",)
    result.plan.n_variants = 1
    result.estimates = result.estimates[result.estimates["variant"] == "1.0"]
    result.comparisons = result.comparisons.iloc[0:0]
    s = build(result)
    assert verdict(s) == [
        "seats: no difference found (spread 1.0 pp, p = 0.37); a spread below 2.5 pp would go "
        "unseen at 10,000 games (100,000 would see 0.8 pp)",
        "draws: 5.0%",
        "length: 20.00",
    ]
    text = markdown(s, verdict(s))
    assert "| metric | 1.0 | 95% interval |" in text
    assert "| removed | 0.00 | [0.00, 0.00] |" not in text  # zero everywhere: hidden
    assert "| length | 20.00 | [19.90, 20.10] |" in text


def test_seats_balanced_everywhere_read_as_one_line():
    result = hand_built()
    est = result.estimates
    for v, shares in (("1.0", (0.34, 0.33, 0.33)), ("1.1", (0.335, 0.333, 0.332))):
        for w, share in zip(WINS, shares, strict=True):
            est.loc[(est["variant"] == v) & (est["metric"] == w), "mean"] = share
    lines = verdict(build(result))
    assert (
        "seats: no difference found in all three (spread ≤ 1.0 pp, p ≥ 0.37); a spread below "
        "2.5 pp would go unseen at 10,000 games (100,000 would see 0.8 pp)"
    ) in lines


def test_the_summary_folds_seat_families_and_hides_metrics_zero_everywhere():
    s = build(hand_built())
    assert [(r.metric, r.role) for r in s.rows] == [
        ("characters_owned", "total"),
        ("characters_owned", "spread"),
        ("removed", "metric"),
        ("length", "metric"),
        ("draws", "metric"),
        ("quiet", "metric"),
    ]
    assert s.hidden == ["zero"]
    assert s.other_changes == ["debug"]
    spread = s.rows[1].cells
    assert spread["1.0"].estimate == pytest.approx(0.2)
    assert spread["1.1"].estimate == pytest.approx(0.1)
    assert [r.variant for r in s.seats] == list(VARIANTS)
    assert s.seats[1].shares == [0.36, 0.32, 0.32]
    assert s.seats[1].chi2 == pytest.approx(32.0)
    assert s.seats[1].p_value == pytest.approx(math.exp(-16))
    assert json.loads(json.dumps(s.to_dict()))["rows"][0]["cells"]["1.0"]["difference"] is None


def test_a_family_without_a_total_is_summed_from_its_seats():
    result = hand_built()
    keep = result.estimates["metric"] != "characters_owned"
    result.estimates = result.estimates[keep]
    result.comparisons = result.comparisons[result.comparisons["metric"] != "characters_owned"]
    # Seats of a family without a total are headline themselves (else the family is not shown).
    result.plan.metrics = tuple(
        Metric(m.name, m.kind, m.description)
        for m in result.plan.metrics
        if m.name != "characters_owned"
    )
    row = build(result).rows[0]
    assert (row.metric, row.role) == ("characters_owned", "total")
    assert row.cells["1.0"].estimate == pytest.approx(12.9)
    assert row.cells["1.1"].difference == pytest.approx(9.7 - 12.9)
    assert row.cells["1.1"].diff_low is None  # no interval without the seats' covariances


def test_seat_families_need_two_seats():
    names = ["wins.seat1", "wins.seat2", "gold.seat1", "seat1", "a.b.seat10", "a.b.seat9"]
    assert seat_families(names) == {"wins": ["wins.seat1", "wins.seat2"], "a.b": names[5:3:-1]}


def test_markdown_holds_the_summary_the_seats_and_the_verdict():
    s = build(hand_built())
    text = markdown(s, verdict(s))
    lines = text.splitlines()
    assert lines[0] == "### hand-built"
    assert "| metric | 1.0 | 1.1 | Δ ±95% | 1.2 | Δ ±95% |" in lines
    assert "| characters_owned | 12.90 | 9.70 | −3.20±0.05* | 9.70 | −3.20±0.05* |" in lines
    assert "| ↳ seat spread | 0.20 | 0.10 |  | 0.10 |  |" in lines
    assert "| 1.1 | 36.0% | 32.0% | 32.0% | 4.0 pp | 1.1e-07 |" in lines
    assert (
        "- no significant change in any variant (each with the smallest change it would have "
        "seen): quiet 0.02"
    ) in lines


# ---------------------------------------------------------------------------------------------
# A real run: recruitment revisions 1.0, 1.1, 1.2 on shared streams.


@pytest.fixture(scope="module")
def revisions() -> RunResult:
    return run_scenario(REVISIONS, trials=600, threads=1)


def test_the_folded_table_equals_the_full_one_where_they_overlap(revisions):
    s = build(revisions)
    est = revisions.estimates.set_index(["variant", "metric"])
    cmp = revisions.comparisons.set_index(["variant", "metric"])
    assert s.rows
    for row in s.rows:
        for v, cell in row.cells.items():
            if row.role == "spread":
                seats = [est.loc[(v, m), "mean"] for m in row.seats]
                assert cell.estimate == max(seats) - min(seats)
                continue
            full = est.loc[(v, row.metric)]
            assert (cell.estimate, cell.ci_low, cell.ci_high) == (
                full["mean"],
                full["ci_low"],
                full["ci_high"],
            )
            if v == "base":
                assert cell.difference is None
                continue
            c = cmp.loc[(v, row.metric)]
            # The summary shows the Holm-adjusted interval; the unadjusted one is kept beside it.
            assert (cell.difference, cell.diff_low, cell.diff_high, cell.p_holm) == (
                c["difference"],
                c["adj_low"],
                c["adj_high"],
                c["p_holm"],
            )
            assert (cell.raw_low, cell.raw_high) == (c["ci_low"], c["ci_high"])
            assert cell.significant == bool(c["significant"])
    for seat_row in s.seats:
        for k, share in enumerate(seat_row.shares):
            assert share == est.loc[(seat_row.variant, f"wins.seat{k + 1}"), "mean"]
    # Every headline metric is either shown, folded into a family, or zero everywhere.
    shown = {r.metric for r in s.rows} | set(s.hidden)
    for m in revisions.plan.metrics:
        if m.headline and not m.name.startswith("wins.seat"):
            assert m.name in shown or any(m.name in r.seats for r in s.rows), m.name


def test_a_100_column_terminal_shows_the_summary_without_wrapping(revisions):
    buffer = io.StringIO()
    console = Console(file=buffer, width=100, color_system=None, legacy_windows=False)
    print_report(build_report(revisions), console)
    lines = buffer.getvalue().splitlines()
    assert all(len(line.rstrip()) <= 100 for line in lines), max(lines, key=len)
    s = build(revisions)
    # One line per row: each metric's row starts with its name and holds all its cells.
    for row in s.rows:
        if row.role == "spread":
            continue
        (line,) = [ln for ln in lines if ln.startswith(row.metric + " ")]
        assert len(line.split()) == 1 + 1 + 2 * (len(s.variants) - 1)
    # The three revisions play identical games here: one seat row stands for every variant.
    assert all(r.shares == s.seats[0].shares for r in s.seats)
    (line,) = [ln for ln in lines if ln.startswith("every variant ")]
    assert len(line.split()) == 2 + len(s.seats[0].shares) + 2 + 1
    assert "Verdict (full tables: --detail):" in lines
    # The designer's question in one screen.
    assert len(lines) < 40, "\n".join(lines)


def test_metrics_patterns_restrict_every_table(revisions):
    narrowed = restrict(revisions, ["wins.*", "characters_owned*"])
    names = {m.name for m in narrowed.plan.metrics}
    assert names == {f"wins.seat{k}" for k in range(1, 5)} | {
        "characters_owned",
        *(f"characters_owned.seat{k}" for k in range(1, 5)),
    }
    assert set(narrowed.estimates["metric"]) == names
    assert set(narrowed.comparisons["metric"]) <= names
    s = build(narrowed)
    assert [r.metric for r in s.rows] == ["characters_owned", "characters_owned"]
    assert len(s.seats) == 3
    with pytest.raises(NoMetricsMatch, match="matches none of the metrics"):
        restrict(revisions, ["nothing*"])
    # A row derived after reduction (not among the plan's metrics) follows the patterns too.
    extra = revisions.estimates.iloc[:1].assign(metric="seat_spread")
    derived = dataclasses.replace(
        revisions, estimates=pd.concat([revisions.estimates, extra], ignore_index=True)
    )
    assert set(restrict(derived, ["seat_*"]).estimates["metric"]) == {"seat_spread"}
    assert "seat_spread" not in set(restrict(derived, ["wins.*"]).estimates["metric"])


def test_run_prints_the_summary_and_writes_verdict_summary_and_markdown(tmp_path):
    md = tmp_path / "pr.md"
    args = ["run", str(REVISIONS), "--trials", "600", "--out", str(tmp_path / "o"), "-q"]
    # Two of the scenario's four play levels: its rollout agents add 50 s (tests/test_robustness.py
    # runs them); the verdict still reads what the levels found.
    levels = ["--robustness", "policies=random,greedy"]
    result = runner.invoke(app, [*args, *levels, "--markdown", str(md)])
    assert result.exit_code == 0, result.stderr
    assert "Robustness (reruns sized by power on the same deals (random " in result.stdout
    # Both changes of 1.2 keep their sign under random and greedy play (paired by deal, Holm).
    flat_out = " ".join(result.stdout.split())
    assert "holds at every play level (random → greedy): gap_equipped (revision-1.2)" in flat_out
    # The verdict opens with the designer's questions: which is fairer, what it rests on.
    verdict_lines = flat_out.split("Verdict (full tables: --detail): ")[1]
    assert verdict_lines.startswith("fairness: no variant is fairer: all three play identical")
    assert verdict_lines.index("rests on") < verdict_lines.index("holds at every play level")
    # Identical games under the three revisions: the seat line says so, with the spread's interval.
    flat = " ".join(result.stdout.split())  # the seat line wraps where it is long
    assert "Verdict" in flat and "alike in every variant (spread 95%" in flat
    assert "Differences from 'base'" not in result.stdout  # the full tables wait for --detail
    doc = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert doc["verdict"] and all(isinstance(line, str) for line in doc["verdict"])
    assert doc["summary"]["variants"] == ["base", "revision-1.1", "revision-1.2"]
    assert doc["summary"]["seats"][0]["variant"] == "base"
    text = md.read_text()
    assert text.startswith("### recruitment-revisions") and "**Verdict**" in text
    assert all(line in text for line in doc["verdict"])
    assert (tmp_path / "o" / "forest.png").exists() and (tmp_path / "o" / "seats.png").exists()

    args = [*args, "--robustness", "none"]  # the tables alone from here (35 s a run otherwise)
    detail = runner.invoke(app, [*args, "--detail"])
    assert detail.exit_code == 0, detail.stderr
    assert "Differences from 'base'" in detail.stdout
    assert "characters_owned.seat3" in detail.stdout
    assert detail.stdout.index("Verdict:") < detail.stdout.index("Differences from 'base'")

    only = runner.invoke(app, [*args, "--metrics", "wins.*", "--metrics", "draws"])
    assert only.exit_code == 0, only.stderr
    assert "characters_owned" not in only.stdout and "seat 4" in only.stdout

    bad = runner.invoke(app, [*args, "--metrics", "nothing*"])
    assert bad.exit_code == 2
    assert "--metrics nothing*: matches none of the metrics" in bad.stderr


#: Reports, after load, whether the forest plot and the seat bars decoded (their pixel widths).
FOREST_PROBE = (
    "<script>window.addEventListener('load', () => { const w = (alt) => { const i = "
    'document.querySelector(`img[alt="${alt}"]`); return i && i.complete ? i.naturalWidth : 0; };'
    " document.body.setAttribute('data-forest', w('forest') + ':' + w('seats')); });</script>"
)


def test_the_html_summary_renders_in_headless_chromium_with_the_forest_plot(tmp_path):
    from tests.test_html_report import _browser, _chromium

    chromium = _chromium()
    if chromium is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing in CI: .ci/run installs Debian's `chromium` package")
        pytest.skip("chromium is not installed (apt-get install chromium); CI always runs this")
    out = tmp_path / "out"
    args = [
        "run",
        str(REVISIONS),
        "--trials",
        "600",
        "--out",
        str(out),
        "-q",
        "--robustness",
        "none",
    ]
    assert runner.invoke(app, args).exit_code == 0
    page = (out / "report.html").read_text(encoding="utf-8")
    # The page opens with the summary: verdict, folded table, seats, plots; full tables below.
    order = [page.index(x) for x in ('id="verdict"', 'id="summary"', 'id="seats"', 'alt="forest"')]
    assert order == sorted(order) and order[-1] < page.index('id="estimates"')
    assert page.count('alt="forest"') == 1  # not repeated in the plot gallery
    probe = tmp_path / "probe.html"
    probe.write_text(
        page.replace(
            "default-src 'none';", "default-src 'none'; script-src 'unsafe-inline';"
        ).replace("</body>", FOREST_PROBE + "</body>"),
        encoding="utf-8",
    )
    dom = _browser(chromium, tmp_path / "profile", "--dump-dom", probe.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    decoded = re.search(r'data-forest="(\d+):(\d+)"', dom.stdout)
    assert decoded, "the probe did not run"
    assert int(decoded[1]) > 300 and int(decoded[2]) > 300, "forest or seat plot did not decode"
    for table in ("verdict", "summary", "seats"):
        assert f'id="{table}"' in dom.stdout


@pytest.fixture(scope="module")
def many_variants() -> RunResult:
    # Eleven variants of one metric: side by side they need about 250 columns.
    return run_scenario(ROOT / "scenarios" / "his" / "interception.yaml", trials=2_000, threads=1)


def _printed(result: RunResult, width: int) -> list[str]:
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, legacy_windows=False)
    print_report(build_report(result), console)
    return buffer.getvalue().splitlines()


@pytest.mark.parametrize("width", [100, 140])
def test_many_variants_turn_the_summary_on_its_side_instead_of_squeezing_names(
    many_variants, width
):
    lines = _printed(many_variants, width)
    table = lines[: lines.index(next(ln for ln in lines if ln.startswith("Δ:")))]
    assert not any("…" in ln for ln in table), "\n".join(table)
    assert table[1].split() == ["variant", "success", "Δ", "±95%"]
    s = build(many_variants)
    for v in s.variants:
        (line,) = [ln for ln in table if ln.startswith(v + " ")]
        assert len(line.split()) == (2 if v == s.variants[0] else 3), line


def test_a_summary_too_wide_either_way_prints_a_line_per_metric_and_variant(revisions):
    lines = _printed(revisions, 64)
    table = lines[: lines.index(next(ln for ln in lines if ln.startswith("Δ:")))]
    assert table[1].split() == ["metric", "variant", "estimate", "Δ", "±95%"]
    assert not any("…" in ln for ln in table), "\n".join(table)
    s = build(revisions)
    for row in s.rows:
        if row.role != "spread":
            (line,) = [ln for ln in table if ln.startswith(row.metric + " ")]
            assert line.split()[1] == s.variants[0]
    # The terminal leaves the families' seat-spread rows to --detail and report.html.
    totals = [r for r in s.rows if r.role != "spread"]
    assert sum(ln.lstrip().startswith(s.variants[-1] + " ") for ln in table) == len(totals)
