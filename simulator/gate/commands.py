"""Bodies of ``sim baseline`` and ``sim check`` (the CLI parses options and calls these)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from simulator.gate import output
from simulator.gate.compare import check
from simulator.gate.run import make
from simulator.gate.store import BaselineError, write
from simulator.scenario import Scenario

EXIT_INVALID, EXIT_REGRESSION = 2, 3


def _say(console: Any, text: str) -> None:
    console.print(text, markup=False, highlight=False, soft_wrap=True)


def baseline_command(
    loaded: Sequence[Scenario],
    out_path: Path,
    trials: int | None,
    threads: int | None,
    out: Any,
    err: Any,
) -> int:
    """Run, write the baseline, say what was stored; the exit code."""
    try:
        stored = make(loaded, trials=trials, threads=threads, notify=lambda t: _say(err, t))
    except BaselineError as e:
        _say(err, f"sim baseline: {e}")
        return EXIT_INVALID
    write(stored, out_path)
    n = sum(len(s.entries) for s in stored.scenarios.values())
    kept = sum(e.outcomes is not None for s in stored.scenarios.values() for e in s.entries)
    size = out_path.stat().st_size if out_path.is_file() else 0
    _say(
        out,
        f"baseline of {n:,} metrics ({kept:,} gated, per-trial outcomes kept) in "
        f"{len(stored.scenarios)} scenario(s) written to {out_path}"
        + (f" ({size / 2**20:.2f} MiB)" if size else ""),
    )
    return 0


def check_command(
    loaded: Sequence[Scenario],
    baseline_file: Path,
    trials: int | None,
    alpha: float,
    threads: int | None,
    junit: Path | None,
    markdown: Path | None,
    out: Any,
    err: Any,
) -> int:
    """Rerun against the baseline, write the reports, print the verdict; the exit code."""
    try:
        result = check(
            loaded,
            baseline_file,
            trials=trials,
            alpha=alpha,
            threads=threads,
            notify=lambda t: _say(err, t),
        )
    except BaselineError as e:
        _say(err, f"sim check: {e}")
        return EXIT_INVALID
    from simulator.report import atomic_write

    if junit is not None:
        text = output.junit_xml(result)
        atomic_write(junit, lambda f: f.write(text))
    summary = output.markdown(result)
    if markdown is not None:
        atomic_write(markdown, lambda f: f.write(summary))
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        with open(step_summary, "a", encoding="utf-8") as f:
            f.write(summary)
    if os.environ.get("GITHUB_ACTIONS"):
        for line in output.github_annotations(result):
            print(line, flush=True)
    for note in result.notes:
        _say(err, f"note: {note}")
    out.print(output.scenario_table(result))
    moved = output.moved_rows(result)
    if not moved.empty:
        out.print(output.rich_table(result, moved))
    for n in output.notices(result):
        _say(out, f"notice: {n}")
    if result.ok:
        _say(out, output.verdict(result))
        return 0
    _say(out, output.verdict(result))
    return EXIT_REGRESSION
