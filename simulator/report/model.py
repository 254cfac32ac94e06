"""The report model: a run's result turned once into everything its outputs show.

:func:`build` folds the result into the summary, writes the verdict (short, and the detailed one
report.html shows), and analyses a tournament, once. Every output is a renderer of the
:class:`Report` it returns — :mod:`~simulator.report.terminal`, :mod:`~simulator.report.files`
(CSV, JSON, Parquet), :mod:`~simulator.report.figures`, :mod:`~simulator.report.html`,
:mod:`~simulator.report.markdown` — and none of them computes a number again.

The import order inside the package runs one way: ``summary`` → ``format`` → ``verdict`` →
``model`` → the renderers (``terminal``, ``figures``, ``html``, ``markdown``) → ``files``, which
writes the folder (it calls the figure and page renderers).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from simulator.report.grounds import Grounds, grounds
from simulator.report.robustness import RobustnessReport
from simulator.report.summary import Summary, restrict, wants_summary
from simulator.report.verdict import verdict
from simulator.runner import RunResult


@dataclass
class Report:
    """What every output of one run shows.

    Attributes:
        result: the run (narrowed to ``--metrics`` when given).
        summary: the folded summary (``None`` for sweeps and plain single runs; a tournament's
            terminal output shows its own tables instead, its page and JSON carry both).
        verdict: the verdict's lines as the terminal, summary.json and Markdown show them.
        verdict_detail: the same with the full tables in view (report.html, ``--detail``).
        tournament: a tournament's analysis per variant (``None`` when the run is not one).
        grounds: what the answer rests on: fairness across variants, how often the changed rule
            cases arose, the assumptions in force (:mod:`simulator.report.grounds`).
    """

    result: RunResult
    summary: Summary | None
    verdict: list[str] = field(default_factory=list)
    verdict_detail: list[str] = field(default_factory=list)
    tournament: dict[str, dict[str, Any]] | None = None
    grounds: Grounds = field(default_factory=Grounds)
    #: What held when the comparison was rerun under other play levels and assumptions.
    robustness: RobustnessReport | None = None
    #: Why each explained variant changed: its clauses' shares (:mod:`simulator.explain`).
    explanations: list[Any] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.result.scenario.name


def build(
    result: RunResult,
    metrics: list[str] | None = None,
    robustness: Any = None,
    explanations: list[Any] | None = None,
) -> Report:
    """The report of ``result``, narrowed to the metrics matching ``metrics`` (glob patterns);
    ``robustness`` is the run's :class:`simulator.robustness.run.Robustness`, when it had one;
    ``explanations`` the variants explained (:class:`simulator.explain.run.Explanation`).

    Raises:
        simulator.report.summary.NoMetricsMatch: no metric matches the patterns.
    """
    from simulator.report.summary import build as fold
    from simulator.report.verdict import why
    from simulator.tournament.analysis import summaries

    result = restrict(result, metrics or [])
    tournament = summaries(result)
    summary = fold(result) if wants_summary(result) else None
    if summary is None:
        return Report(result, None, tournament=tournament)
    found = grounds(result)
    held = _robustness(summary, robustness, metrics) if robustness is not None else None
    # What held under other play and other readings qualifies every line below it.
    bottom = held.bottom if held is not None else None
    short = verdict(summary, grounds=found, held=bottom)
    long = verdict(summary, detail=True, grounds=found, held=bottom)
    short += why(summary, explanations)
    long += why(summary, explanations)
    return Report(
        result,
        summary,
        verdict=short,
        verdict_detail=long,
        tournament=tournament,
        grounds=found,
        robustness=held,
        explanations=list(explanations or []),
    )


def _robustness(default: Summary, robustness: Any, metrics: list[str] | None) -> RobustnessReport:
    from simulator.report.robustness import analyse
    from simulator.report.summary import build as fold
    from simulator.robustness.findings import family

    summaries = [
        None if r.result is None else fold(restrict(r.result, metrics or []))
        for r in robustness.reruns
    ]
    ran = [(r.level.label, r.result) for r in robustness.reruns if r.result is not None]
    found = family(robustness.main, ran) if robustness.main is not None else []
    return analyse(default, robustness, summaries, found)
