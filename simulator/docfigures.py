"""The figures the documentation shows, drawn from real scenario runs by the report writers.

Nothing here draws by hand: each figure is a committed scenario run, the run of the console
example the page shows beside it (at a modest trial count), through
:func:`simulator.run_scenario`, and the PNG is the one ``sim run`` writes into its report folder
(the same writers: ``report.figures``, ``report.sweep``, ``report.tournament``), copied
under the name the pages embed. ``python -m simulator.docfigures`` writes them to
``docs/figures/`` (not committed; ``make docs`` and ``.ci/run`` regenerate them before
``mkdocs build --strict``).

The README is read on GitHub, where nothing is generated, so its one picture is committed:
``python -m simulator.docfigures --readme`` (``make readme-figure``) rewrites it from the same
run, and a test holds that the README shows exactly that file.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "docs" / "figures"
#: The README's picture: committed, written only with ``--readme``.
README_FIGURE = ROOT / "docs" / "assets" / "field-battle.png"


def _plots(result: Any, out_dir: Path) -> list[Path]:
    from simulator.report.figures import write_plots
    from simulator.report.model import build

    return write_plots(build(result), out_dir)


def _matchups(result: Any, out_dir: Path) -> list[Path]:
    from simulator.report.model import build
    from simulator.report.tournament import write_plots

    return write_plots(build(result), out_dir)


@dataclass(frozen=True)
class Figure:
    """One docs figure: the PNG that ``writer`` makes as ``source`` from ``scenario``'s run, at
    ``trials`` (None: the scenario's own) — the run of the console example beside it."""

    name: str
    scenario: str
    trials: int | None
    source: str
    writer: Callable[[Any, Path], list[Path]] = _plots


FIGURE_LIST = (
    Figure("field-battle.png", "scenarios/his/field_battle.yaml", None, "distributions.png"),
    Figure("forest.png", "scenarios/recruitment/revisions.yaml", 2_000, "forest.png"),
    Figure("seats.png", "scenarios/recruitment/revisions.yaml", 2_000, "seats.png"),
    Figure("battle-table.png", "scenarios/his/battle_table.yaml", None, "heatmap.png"),
    Figure("root-ladder.png", "scenarios/root/ladder.yaml", 10, "matchup.png", _matchups),
)


def write(figures: Iterable[Figure], out_dir: Path) -> list[Path]:
    """Run each figure's scenario once (figures of one run share it) and copy its PNG into
    ``out_dir``. Returns the paths written."""
    from simulator import run_scenario

    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    runs: dict[tuple[str, int | None], Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for fig in figures:
            key = (fig.scenario, fig.trials)
            if key not in runs:
                runs[key] = run_scenario(ROOT / fig.scenario, trials=fig.trials)
            scratch = Path(tmp) / f"{len(written)}"
            scratch.mkdir()
            made = {p.name: p for p in fig.writer(runs[key], scratch)}
            if fig.source not in made:
                raise RuntimeError(f"{fig.scenario} drew {sorted(made)}, not {fig.source}")
            target = out_dir / fig.name
            shutil.copyfile(made[fig.source], target)
            written.append(target)
    return written


def readme_figure() -> Figure:
    """The figure the README shows: the docs' field-battle distribution."""
    return next(f for f in FIGURE_LIST if f.name == README_FIGURE.name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m simulator.docfigures", description=__doc__)
    parser.add_argument("--out", type=Path, default=FIGURES, help="folder of the docs figures")
    parser.add_argument(
        "--readme", action="store_true", help=f"rewrite the committed {README_FIGURE.name} only"
    )
    args = parser.parse_args(argv)
    if args.readme:
        paths = write([readme_figure()], README_FIGURE.parent)
    else:
        paths = write(FIGURE_LIST, args.out)
    for path in paths:
        print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
