"""Bodies of ``sim baseline`` and ``sim check``: the regression gate's commands (the gate itself
is :mod:`simulator.gate`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from simulator.commands.common import (
    EXIT_INVALID,
    EXIT_REGRESSION,
    Progress,
    command,
    load_all,
    say,
)


class _ScenarioBar:
    """``notify(text)`` for the gate's runs: says each scenario's line and moves a bar over the
    scenarios with the time left (which says up front when it passes a minute).

    Each scenario counts as one step, or, once :meth:`expect` is given how long each should
    take (``sim check``: from the seconds the baseline's own run took), as its share of the
    time: a gate whose first scenarios are whole games and whose others are dice rules ran an
    estimate from the first few that was five times too long."""

    def __init__(self, label: str, scenarios: list[Any], err: Any) -> None:
        self.err = err
        self.weights = [1.0] * len(scenarios)
        self.done = 0
        self.bar = Progress(bool(getattr(err, "is_terminal", False)), label, err, announce=True)
        self.bar(0, self._steps(len(self.weights)))

    def expect(self, seconds: list[float | None]) -> None:
        """The expected seconds of each scenario, in order (None: not known, counted as the
        mean of the known ones)."""
        known = [s for s in seconds if s is not None]
        if len(seconds) != len(self.weights) or not known:
            return
        mean = sum(known) / len(known)
        self.weights = [max(mean if s is None else s, 1e-3) for s in seconds]
        self.bar.counted = False  # the bar shows a share of the time, not a count of steps

    def _steps(self, n: int) -> int:
        """The bar's position after ``n`` scenarios: a count, or milliseconds expected."""
        if self.bar.counted:
            return n
        return round(1000 * sum(self.weights[:n]))

    def __call__(self, text: str) -> None:
        say(self.err, text)
        self.done += 1
        self.bar(self._steps(self.done), self._steps(len(self.weights)))

    def close(self) -> None:
        self.bar.close()


@command
def baseline(
    scenarios: list[Path],
    *,
    output: Path = Path("reports/baseline.json"),
    trials: int | None = None,
    threads: int | None = None,
    force: bool = False,
    out: Any,
    err: Any,
) -> int:
    """Run, write the baseline, say what was stored; the exit code."""
    from simulator.gate.run import make
    from simulator.gate.store import BaselineError, read, write
    from simulator.output import check_file_target, refuse_clashes

    check_file_target(output, "--out")
    refuse_clashes({f"scenario {p}": p for p in scenarios}, {"--out": output})
    previous = None
    if output.is_file() and output.stat().st_size > 0:
        # Writing some scenarios into an existing baseline updates their entries and keeps
        # the others: a baseline is never shrunk to the scenarios of one command.
        try:
            previous = read(output)
        except BaselineError as e:
            say(
                err,
                f"sim baseline: --out {output} exists and is not a baseline this version can "
                f"update ({e}); remove it first to write a new one",
            )
            return EXIT_INVALID
    loaded = load_all(scenarios, err, force)
    notify = _ScenarioBar("sim baseline", loaded, err)
    try:
        stored = make(loaded, trials=trials, threads=threads, notify=notify)
    except BaselineError as e:
        say(err, f"sim baseline: {e}")
        return EXIT_INVALID
    finally:
        notify.close()
    fresh = len(stored.scenarios)
    others = {}
    if previous is not None:
        others = {k: v for k, v in previous.scenarios.items() if k not in stored.scenarios}
        stored.scenarios = {**others, **stored.scenarios}
    write(stored, output)
    n = sum(len(s.entries) for s in stored.scenarios.values())
    kept = sum(e.outcomes is not None for s in stored.scenarios.values() for e in s.entries)
    size = output.stat().st_size if output.is_file() else 0
    where = (
        f"{fresh} scenario(s) updated in {output}, the entries of {len(others)} other(s) kept as "
        f"they were: {len(stored.scenarios)} scenario(s), "
        if previous is not None
        else f"{fresh} scenario(s) written to {output}: "
    )
    say(
        out,
        f"baseline: {where}{n:,} metrics ({kept:,} gated, per-trial outcomes kept)"
        + (f", {size / 2**20:.2f} MiB" if size else ""),
    )
    return 0


@command
def check(
    scenarios: list[Path],
    *,
    baseline_file: Path = Path("reports/baseline.json"),
    trials: int | None = None,
    alpha: float = 1e-4,
    junit: Path | None = None,
    markdown: Path | None = None,
    threads: int | None = None,
    force: bool = False,
    out: Any,
    err: Any,
) -> int:
    """Rerun against the baseline, write the reports, print the verdict; the exit code."""
    from simulator.gate import output
    from simulator.gate.compare import check
    from simulator.gate.store import BaselineError
    from simulator.output import check_file_target, refuse_clashes, safe_write

    for path, option in ((junit, "--junit"), (markdown, "--markdown")):
        if path is not None:
            check_file_target(path, option)
    refuse_clashes(
        {**{f"scenario {p}": p for p in scenarios}, "--baseline": baseline_file},
        {"--junit": junit, "--markdown": markdown},
    )
    loaded = load_all(scenarios, err, force)
    notify = _ScenarioBar("sim check", loaded, err)
    try:
        result = check(
            loaded, baseline_file, trials=trials, alpha=alpha, threads=threads, notify=notify
        )
    except BaselineError as e:
        say(err, f"sim check: {e}")
        return EXIT_INVALID
    finally:
        notify.close()
    if junit is not None:
        text = output.junit_xml(result)
        safe_write(junit, lambda f: f.write(text))
    summary = output.markdown(result)
    if markdown is not None:
        safe_write(markdown, lambda f: f.write(summary))
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        with open(step_summary, "a", encoding="utf-8") as f:
            f.write(summary)
    if os.environ.get("GITHUB_ACTIONS"):
        for line in output.github_annotations(result):
            print(line, flush=True)
    for note in result.notes:
        say(err, f"note: {note}")
    out.print(output.scenario_table(result))
    moved = output.moved_rows(result)
    if not moved.empty:
        out.print(output.moved_table(moved))
    for n in output.notices(result):
        say(out, f"notice: {n}")
    say(out, output.verdict(result))
    return 0 if result.ok else EXIT_REGRESSION
