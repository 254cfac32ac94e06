"""Body of ``sim tune``: search a scenario's ``tune:`` section on a backend, write the reports
whole, print the answer (the search itself is :mod:`simulator.tune`)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from simulator.commands.common import (
    LONG_RUN_SECONDS,
    backend_for,
    check_outputs,
    command,
    fail_invalid,
    finish_interrupted,
    load,
    long_run_note,
    say,
)


@command
def tune(
    scenario: Path,
    *,
    trials: int | None = None,
    seed: int | None = None,
    budget: int | None = None,
    threads: int | None = None,
    as_json: bool = False,
    out_dir: Path | None = None,
    quiet: bool = False,
    backend: str | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    out: Any,
    err: Any,
) -> int:
    """Run the search, write its reports, print the answer (or ``--json``); the exit code."""
    from simulator import interrupts
    from simulator.limits import MAX_TRIALS, InvalidInput
    from simulator.output import refuse_clashes, report_folder
    from simulator.scenario import ScenarioError
    from simulator.tune import parse_tune, run_tune
    from simulator.tune.report import answer, document, print_result, write_reports

    if trials is not None and not 1 <= trials <= MAX_TRIALS:
        raise InvalidInput(f"--trials {trials:,} is not between 1 and {MAX_TRIALS:,}")
    loaded = load(scenario, err)
    try:
        spec = parse_tune(loaded)
    except ScenarioError as e:
        fail_invalid(err, e.problems)
    # Its own folder: a tune and a run of one scenario never mix their files.
    target = out_dir or default_folder(loaded.name)
    check_outputs(target, None)
    refuse_clashes({f"scenario {scenario}": scenario}, {}, ("--out", target))
    if spec.outside:
        count = "some" if spec.outside < 0 else f"{spec.outside:,} of {spec.space_size:,}"
        say(
            err,
            f"note: {count} candidates are outside the rules, skipped: e.g. {spec.outside_example}",
        )
    status = TuneStatus(not quiet and sys.stderr.isatty(), err)
    try:
        with backend_for(
            "sim tune", err, backend, workers=workers, scheduler=scheduler, threads=threads
        ) as runs_on:
            result = run_tune(
                loaded,
                trials=trials,
                seed=seed,
                budget=budget,
                threads=threads,
                backend=runs_on,
                on_progress=status,
            )
    finally:
        status.close()
    with interrupts.held() as caught:  # a finished search is reported whole
        with report_folder(target) as folder:  # one whole run, swapped in
            written = [target / p.relative_to(folder) for p in write_reports(result, folder)]
        if as_json:
            sys.stdout.write(json.dumps(document(result), indent=2, default=str) + "\n")
        else:
            print_result(result, out)
            out.print(
                f"reports written to {target}/ ({', '.join(p.name for p in written)})",
                highlight=False,
            )
    if not result.complete:
        return finish_interrupted(err, "the best so far is written, marked incomplete")
    if caught:
        return finish_interrupted(err, "the search had finished: its reports are written, complete")
    said = answer(result)
    if said.kind == "constant":
        say(err, f"warning: {said.text}")
    return 0


def default_folder(name: str) -> Path:
    """Where ``sim tune`` writes by default: ``reports/tune/<name>/``, beside (never inside or
    equal to) the ``reports/out/<name>/`` of ``sim run``."""
    return Path("reports") / "tune" / name


class TuneStatus:
    """One line on stderr: the stage, candidates done, the time left at the rate so far, and the
    best so far."""

    def __init__(self, enabled: bool, err: Any) -> None:
        self.status: Any = None
        self.enabled = enabled
        self.err = err
        self.stage = ""
        self.started = time.monotonic()
        self.noted = False  # this stage said whether it takes more than a minute

    def __call__(self, stage: str, done: int, total: int, best: str) -> None:
        if not self.enabled:
            return
        if stage != self.stage:
            self.stage, self.started, self.noted = stage, time.monotonic(), False
        text = f"sim tune · {stage}: {done}/{total} candidates"
        elapsed = time.monotonic() - self.started
        if 0 < done < total and elapsed > 1:
            left = elapsed / done * (total - done)
            text += f" · about {_duration(left)} left in this stage"
            if not self.noted and left > LONG_RUN_SECONDS:
                self.err.print(long_run_note(f"sim tune · {stage}", left), highlight=False)
            self.noted = True
        text += f" · best so far {best}" if best else ""
        if self.status is None:
            self.status = self.err.status(text)
            self.status.start()
        else:
            self.status.update(text)

    def close(self) -> None:
        if self.status is not None:
            self.status.stop()


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
