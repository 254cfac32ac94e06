"""The baseline file: its models, writing it, and reading it back validated field by field.

A baseline is checked like a scenario: every field against its type, range and the counts it
must agree with (an estimate against its sums, a proportion's sum against its trials, stored
outcomes against the counts they fold into). Anything wrong is a :class:`BaselineError` naming
the place (``scenarios.NAME.entries[i].FIELD``) and the value: exit 2, never a pass.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from simulator.accumulate import UNDEFINED
from simulator.gate.outcomes import MAX_KEPT_TRIALS, OutcomeError, Packed, decode
from simulator.limits import MAX_TRIALS

FORMAT = "sim-baseline/2"
INT64 = 2**63 - 1
#: Largest baseline file read (the committed one of all scenarios is a few MiB).
MAX_BYTES = 256 * 2**20
MetricKind = Literal["proportion", "mean", "distribution", "conditional_mean"]


class BaselineError(Exception):
    """The baseline cannot be used for this check (missing, corrupt, or for something else)."""


class Entry(BaseModel):
    """One metric of one variant at one sweep point."""

    model_config = ConfigDict(extra="forbid", strict=True)

    variant: str = Field(max_length=200)
    point: dict[str, Any] = Field(default_factory=dict)
    metric: str = Field(max_length=200)
    kind: MetricKind
    scale: int = Field(ge=1, le=10**6)
    estimate: float | None = Field(allow_inf_nan=False)
    se: float | None = Field(ge=0, allow_inf_nan=False)
    n: int = Field(ge=0, le=MAX_TRIALS)
    sum: int = Field(ge=-INT64, le=INT64)
    sum_sq: int = Field(ge=0, le=INT64)
    #: In the gate's family (a headline metric, or named by the scenario's ``check:``).
    gated: bool = False
    #: Per-trial outcomes of a gated metric (:mod:`simulator.gate.outcomes`).
    outcomes: Packed | None = None

    def key(self) -> str:
        return key_of(self.variant, self.point, self.metric)


class ScenarioBaseline(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    file: str
    procedure: str = Field(max_length=200)
    seed: int = Field(ge=0, le=2**64 - 1)
    trials: int = Field(ge=1, le=MAX_TRIALS)
    #: Why this many trials: ``--trials``, the scenario's trials, ``check.trials`` or ``detect``.
    trials_from: str = ""
    #: The scenario's params, variants and sweep as written in the file: what the numbers are for.
    inputs: dict[str, Any]
    entries: list[Entry]
    #: Wall seconds its run took when the baseline was made, a compile included if its kernel
    #: was not cached (none in older files): how ``sim check`` weighs the scenarios in its
    #: progress bar and its estimate of the time left.
    seconds: float | None = Field(default=None, ge=0, allow_inf_nan=False)


class BaselineFile(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    format: Literal["sim-baseline/2"]
    created: str
    simulator: str
    versions: dict[str, str]
    scenarios: dict[str, ScenarioBaseline]


def key_of(variant: str, point: dict[str, Any], metric: str) -> str:
    return json.dumps([variant, point, metric], sort_keys=True, default=str)


def write(baseline: BaselineFile, path: Path) -> None:
    from simulator.output import safe_write

    text = json.dumps(baseline.model_dump(mode="json"), indent=1, sort_keys=False) + "\n"
    safe_write(Path(path), lambda f: f.write(text))


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not a number a baseline may hold")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


def read(path: Path) -> BaselineFile:
    """Load and validate a baseline file; BaselineError says what is wrong and where."""
    path = Path(path)
    fix = "regenerate it with `make baseline` (sim baseline SCENARIO... --out FILE)"
    if not path.exists():
        raise BaselineError(f"{path}: no such baseline file; {fix}")
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_BYTES + 1)
        if len(raw) > MAX_BYTES:
            raise BaselineError(f"{path}: larger than {MAX_BYTES // 2**20} MiB: not a baseline")
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise BaselineError(f"{path}: cannot be read ({e}); {fix}") from e
    try:
        data = json.loads(text, parse_constant=_no_constants, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as e:
        raise BaselineError(
            f"{path}:{e.lineno}:{e.colno}: not valid JSON ({e.msg}): corrupt baseline; {fix}"
        ) from e
    except (ValueError, RecursionError) as e:
        # Python's own limits (integers over 4300 digits, deep nesting), NaN and duplicates.
        raise BaselineError(f"{path}: corrupt baseline: {str(e)[:200]}; {fix}") from e
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        got = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise BaselineError(f"{path}: not a {FORMAT} baseline (format {str(got)[:80]!r}); {fix}")
    try:
        baseline = BaselineFile.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(f"[{x}]" if isinstance(x, int) else str(x) for x in first["loc"])
        where = where.replace(".[", "[")
        value = json.dumps(first.get("input"), default=str)
        value = value if len(value) <= 80 else value[:77] + "..."
        raise BaselineError(
            f"{path}: corrupt baseline at {where}: {first['msg']} (got {value}); {fix}"
        ) from e
    problems = problems_of(baseline)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise BaselineError(f"{path}: corrupt baseline at {problems[0]}{more}; {fix}")
    return baseline


_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def problems_of(baseline: BaselineFile) -> list[str]:
    """Every field checked against the others: ``place: message (got value)`` for each fault."""
    out: list[str] = []
    for name, sb in baseline.scenarios.items():
        where = f"scenarios.{name}"
        if not _NAME.match(name) or len(name) > 100:
            out.append(f"{where}: not a scenario name (got {name[:80]!r})")
        seen: set[str] = set()
        for i, e in enumerate(sb.entries):
            place = f"{where}.entries[{i}]"
            k = e.key()
            if k in seen:
                out.append(f"{place}: duplicate entry for {e.variant} {e.point} {e.metric}")
            seen.add(k)
            out += [f"{place}.{p}" for p in _entry_problems(e, sb.trials)]
    return out


def _entry_problems(e: Entry, trials: int) -> list[str]:
    out = []
    if e.n > trials:
        out.append(f"n: more than the scenario's {trials} trials (got {e.n})")
    elif e.kind != "conditional_mean" and e.n != trials:
        out.append(f"n: a {e.kind} is defined in every one of the {trials} trials (got {e.n})")
    if e.n == 0:
        if e.sum or e.sum_sq:
            out.append(f"sum: no trials but sums {e.sum}, {e.sum_sq}")
        if e.estimate is not None or e.se is not None:
            out.append(f"estimate: no trials but an estimate (got {e.estimate})")
        return out
    if e.kind == "proportion" and not 0 <= e.sum <= e.n:
        out.append(f"sum: a proportion's successes must be 0..n = {e.n} (got {e.sum})")
    elif e.kind == "proportion" and e.sum_sq != e.sum:
        out.append(f"sum_sq: must equal sum for 0/1 values (got {e.sum_sq}, sum {e.sum})")
    elif e.n * e.sum_sq < e.sum * e.sum:
        out.append(f"sum_sq: too small for sum {e.sum} over {e.n} trials (got {e.sum_sq})")
    mean = e.sum / e.n / e.scale
    if e.estimate is None or not _close(e.estimate, mean):
        out.append(f"estimate: contradicts sum / n = {mean:.12g} (got {e.estimate})")
    var = max(e.n * e.sum_sq - e.sum * e.sum, 0) / (e.n * (e.n - 1)) if e.n > 1 else 0.0
    se = math.sqrt(var / e.n) / e.scale
    if e.se is None or abs(e.se - se) > 1e-9 * max(1.0, se):
        out.append(f"se: contradicts the sums, {se:.12g} (got {e.se})")
    if e.outcomes is not None:
        out += [f"outcomes: {p}" for p in _outcome_problems(e, trials)]
    elif e.gated and trials <= MAX_KEPT_TRIALS:
        out.append("outcomes: a gated metric keeps its per-trial outcomes (missing)")
    return out


def _outcome_problems(e: Entry, trials: int) -> list[str]:
    assert e.outcomes is not None
    try:
        vals = decode(e.outcomes, trials)
    except OutcomeError as err:
        return [str(err)]
    defined = vals[vals != UNDEFINED]
    big = len(defined) and int(np.abs(defined).max()) >= 2**20
    v = defined.astype(object) if big else defined
    n, s, ss = len(defined), int(v.sum()), int((v * v).sum())
    if (n, s, ss) != (e.n, e.sum, e.sum_sq):
        return [
            f"contradict the counts (n, sum, sum_sq: {n}, {s}, {ss} vs {e.n}, {e.sum}, {e.sum_sq})"
        ]
    return []
