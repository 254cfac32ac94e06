"""The options and arguments of the ``sim`` commands: each an ``Annotated`` type carrying its
flag, range, help text and metavar, named for what it is (pip keeps its ``cmdoptions`` apart
from its commands the same way). ``simulator/cli.py`` assembles the commands from these; the
command bodies in :mod:`simulator.commands` receive the parsed values. Imports nothing heavy:
``sim --help`` reads this."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from simulator.limits import MAX_TRIALS


class BackendName(StrEnum):
    threads = "threads"
    dask = "dask"


# Shared by several commands.
ScenarioPath = Annotated[Path, typer.Argument(help="scenario YAML file", show_default=False)]
ScenarioPaths = Annotated[
    list[Path], typer.Argument(help="scenario YAML files", show_default=False)
]
Force = Annotated[
    bool, typer.Option("--force", help="allow a sweep grid of more than 10,000 points")
]
Trials = Annotated[
    int | None,
    typer.Option(min=1, max=MAX_TRIALS, help="trials per variant (overrides the file)"),
]
Seed = Annotated[int | None, typer.Option(min=0, max=2**64 - 1, help="seed (overrides the file)")]
Threads = Annotated[
    int | None, typer.Option(min=1, max=1024, help="worker threads [default: all cores]")
]
FewThreads = Annotated[int | None, typer.Option(min=1, max=1024, help="worker threads")]
AsJson = Annotated[bool, typer.Option("--json", help="print the result document as JSON on stdout")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="no progress bar")]
OutDir = Annotated[
    Path | None,
    typer.Option("--out", help="report folder [default: reports/out/<scenario name>]"),
]
Detail = Annotated[
    bool,
    typer.Option("--detail", help="also print every variant's full table and every difference"),
]
Metrics = Annotated[
    list[str] | None,
    typer.Option(
        "--metrics",
        metavar="PATTERN",
        help="only metrics matching this glob (repeatable): every table, plot and the verdict",
    ),
]
RobustnessOption = Annotated[
    str | None,
    typer.Option(
        "--robustness",
        metavar="WHAT",
        help="rerun the comparison on the same deals: 'policies' (the scenario's play levels, "
        "or policies=random,greedy,...), 'assumptions' (every declared assumption moved), "
        "'all', or 'none' [default: the scenario's robustness: section]",
    ),
]
RobustnessSeconds = Annotated[
    float | None,
    typer.Option(
        "--robustness-seconds",
        metavar="N",
        min=0.001,
        max=86_400.0,
        help="time budget of the robustness reruns, in seconds; each rerun is sized by power to "
        "see the main effects within it [default: the section's seconds:, else 120]",
    ),
]
SummaryMarkdown = Annotated[
    Path | None,
    typer.Option("--markdown", help="write the summary and the verdict as Markdown here"),
]

# sim run
ChunkSize = Annotated[
    int | None,
    typer.Option(min=1, help="trials per job [default: sized to ~50 ms]; never changes results"),
]
Independent = Annotated[
    bool,
    typer.Option(
        "--independent", help="give each variant its own random stream instead of shared ones"
    ),
]
Precision = Annotated[
    float | None,
    typer.Option(
        min=1e-12,
        help="keep running until every headline metric's 95% half-width is at most this",
    ),
]
MaxTrials = Annotated[
    int | None,
    typer.Option(
        min=1, max=MAX_TRIALS, help="cap on trials with --precision [default: 100 × --trials]"
    ),
]
RunOutDir = Annotated[
    str | None,
    typer.Option("--out", help="report folder [default: reports/out/<scenario name>]"),
]
Backend = Annotated[
    BackendName | None,
    typer.Option(
        help="where jobs run: threads here, or a Dask cluster (needs the dask extra); "
        "default threads, dask with --scheduler or --workers; never changes results",
        show_default=False,
    ),
]
Workers = Annotated[
    int | None,
    typer.Option(
        min=1,
        max=1024,
        help="--backend dask: start a local cluster of this many single-threaded worker "
        "processes (default: one per core)",
    ),
]
Scheduler = Annotated[
    str | None,
    typer.Option(
        metavar="tcp://HOST:PORT",
        help="--backend dask: run on the existing cluster of this scheduler",
    ),
]
ConnectTimeout = Annotated[
    float,
    typer.Option(
        min=0.1,
        max=3600,
        help="--backend dask: seconds to wait for the scheduler and a first worker",
    ),
]

# sim compare
ComparedFiles = Annotated[
    list[Path],
    typer.Argument(
        help="scenario files of one procedure; the first is the baseline", show_default=False
    ),
]
CompareTrials = Annotated[
    int | None, typer.Option(min=1, help="trials per variant [default: the first file's]")
]
CompareSeed = Annotated[
    int | None,
    typer.Option(min=0, max=2**64 - 1, help="seed [default: the first file's]"),
]
CompareChunkSize = Annotated[
    int | None, typer.Option(min=1, help="trials per job; never changes results")
]
CompareOutDir = Annotated[
    Path | None,
    typer.Option("--out", help="report folder [default: reports/out/<A>-vs-<B>]"),
]

Explain = Annotated[
    bool,
    typer.Option(
        "--explain",
        help="also play every combination of the clauses each file changes, and say which "
        "clause moved each changed metric (docs/why.md)",
    ),
]

# sim explain
ExplainVariant = Annotated[
    str | None,
    typer.Option("--variant", help="the variant to explain [default: every later one]"),
]
ExplainAgainst = Annotated[
    str | None,
    typer.Option("--against", help="the variant it is explained against [default: the first]"),
]

# sim baseline, sim check
BaselineOut = Annotated[Path, typer.Option("--out", help="baseline file to write")]
BaselineTrials = Annotated[
    int | None,
    typer.Option(min=1, max=MAX_TRIALS, help="trials per variant and point (overrides the files)"),
]
BaselineFile = Annotated[
    Path, typer.Option("--baseline", help="baseline written by `sim baseline`")
]
CheckTrials = Annotated[
    int | None,
    typer.Option(
        min=1, max=MAX_TRIALS, help="trials per variant and point [default: the baseline's]"
    ),
]
Alpha = Annotated[
    float,
    typer.Option(min=1e-300, max=0.5, help="family-wise significance level (Holm, gated metrics)"),
]
JUnit = Annotated[Path | None, typer.Option("--junit", help="write a JUnit XML report here")]
CheckMarkdown = Annotated[
    Path | None, typer.Option("--markdown", help="write a markdown summary here")
]

# sim tune
TuneTrials = Annotated[
    int | None,
    typer.Option(min=1, help="trials of the finalists and the confirmation (overrides the file)"),
]
Budget = Annotated[
    int | None, typer.Option(min=1, max=10_000, help="candidates at most (overrides the file)")
]
TuneJson = Annotated[
    bool, typer.Option("--json", help="print the tuning document as JSON on stdout")
]
TuneQuiet = Annotated[bool, typer.Option("--quiet", "-q", help="no progress line")]
TuneBackend = Annotated[
    BackendName | None,
    typer.Option(help="where candidates run: threads here, or a Dask cluster", show_default=False),
]
TuneWorkers = Annotated[
    int | None, typer.Option(min=1, max=1024, help="--backend dask: local worker processes")
]
TuneScheduler = Annotated[
    str | None,
    typer.Option(metavar="tcp://HOST:PORT", help="--backend dask: an existing cluster"),
]

# sim list, sim schema
ProcedureName = Annotated[str | None, typer.Argument(help="show one procedure only")]
ProcedureNames = Annotated[
    list[str] | None,
    typer.Argument(help="procedures to compile (default: every one)", show_default=False),
]
SchemaOut = Annotated[
    Path | None, typer.Option("--out", help="write to this file instead of stdout")
]
