"""The balance regression gate: ``sim baseline`` stores every metric's counts and the per-trial
outcomes of gated metrics; ``sim check`` reruns and compares, paired where it can.

The code lives in :mod:`simulator.gate` (see docs/gate.md); this module keeps the names other
code and tests import.
"""

from __future__ import annotations

from simulator.gate.compare import CheckResult, check, match
from simulator.gate.output import (
    fmt_p,
    fmt_value,
    github_annotations,
    junit_xml,
    markdown,
    point_label,
    reasons,
)
from simulator.gate.run import DEFAULT_ALPHA, entries_of, inputs_of, make
from simulator.gate.store import (
    FORMAT,
    BaselineError,
    BaselineFile,
    Entry,
    ScenarioBaseline,
    read,
    write,
)

__all__ = [
    "DEFAULT_ALPHA",
    "FORMAT",
    "BaselineError",
    "BaselineFile",
    "CheckResult",
    "Entry",
    "ScenarioBaseline",
    "check",
    "entries_of",
    "fmt_p",
    "fmt_value",
    "github_annotations",
    "inputs_of",
    "junit_xml",
    "make",
    "markdown",
    "match",
    "point_label",
    "read",
    "reasons",
    "write",
]
