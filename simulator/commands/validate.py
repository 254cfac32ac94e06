"""Body of ``sim validate``: check scenario files (and their ``tune:`` sections) without running
them, one ``ok`` line per valid file, every problem of the others."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from simulator.commands.common import EXIT_INVALID, command, print_problems, say


@command
def validate(scenarios: list[Path], *, force: bool = False, out: Any, err: Any) -> int:
    """Load every file; the exit code is 2 if any is invalid."""
    from simulator.scenario import ScenarioError, load
    from simulator.yaml_loader import printable

    bad = False
    for path in scenarios:
        try:
            s = load(path, force=force)
        except ScenarioError as e:
            bad = True
            print_problems(err, e.problems)
            continue
        if s.raw.get("tune") is not None:
            from simulator.tune import parse_tune

            try:
                spec = parse_tune(s)
            except ScenarioError as e:
                bad = True
                print_problems(err, e.problems)
                continue
            if spec.outside:
                count = "some" if spec.outside < 0 else f"{spec.outside:,} of {spec.space_size:,}"
                say(
                    err,
                    f"note {printable(str(path))}: tune: {count} candidates are outside the "
                    f"rules and will be skipped: e.g. {spec.outside_example}",
                )
        for note in s.notes:
            say(err, f"note {printable(str(path))}: {note}")
        points = f", {len(s.points):,} sweep points" if s.sweep else ""
        illegal = sum(1 for pt in s.points if pt.illegal)
        points += f" ({illegal} illegal by the rules, shown as such)" if illegal else ""
        out.print(
            f"ok {printable(str(path))}: {s.procedure.name}, {len(s.variants)} variant(s)"
            f"{points}, {s.trials:,} trials",
            highlight=False,
            markup=False,
        )
    return EXIT_INVALID if bad else 0
