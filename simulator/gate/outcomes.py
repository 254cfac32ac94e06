"""Per-trial outcomes of gated metrics: how they are obtained, and how they are stored.

**Obtaining them without touching the kernels.** A kernel folds its trials into integer sums, so
the gate calls it one trial at a time (``n_trials = 1``): the count slot of a metric says whether
it is defined in that trial and the sum slot is its value. The sums of these one-trial statistics
are exactly the statistics of the whole run (the kernel contract makes a result independent of how
trials are split), so one pass gives both the per-trial outcomes and every metric's counts. The
price is the kernel's set-up per call: measured (docs/gate.md) at roughly 10-100 µs a trial on
this machine, against 0.02-3 µs a trial in blocks; whole games, which cost milliseconds a trial
anyway, barely notice. A generic ``@njit`` driver taking the kernel as an argument halved the
call overhead of the cheapest kernel but cannot be cached by Numba (it recompiled, ~15 s, for
every procedure in every process), and exposing the block buffer would have meant editing every
kernel; so calls are made from Python, on a thread pool (kernels release the GIL).

**Storing them.** One series per (variant, point, metric), ``trials`` values long: a proportion
as bits (``numpy.packbits``), any other metric as the smallest unsigned integer type that holds
its values minus their minimum, with a bit mask of defined trials where a conditional metric is
sometimes undefined; then zlib-compressed and base64-encoded into the baseline's JSON. Inline
base64 (a third larger than the bytes) rather than a sidecar file: one file is written atomically
and validated as one, and can never be out of step with its counts.
"""

from __future__ import annotations

import base64
import binascii
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from simulator.accumulate import UNDEFINED
from simulator.engine import Plan, default_threads, simulate

Codec = Literal["bits", "u8", "u16", "u32", "u64"]
_CODECS: tuple[Codec, ...] = ("u8", "u16", "u32", "u64")
_DTYPES: dict[str, type[np.unsignedinteger]] = {
    "u8": np.uint8,
    "u16": np.uint16,
    "u32": np.uint32,
    "u64": np.uint64,
}


#: Most trials whose outcomes a baseline keeps (memory of a check stays bounded: 8 bytes a trial,
#: variant and metric while comparing); a scenario run for more is compared from its counts.
MAX_KEPT_TRIALS = 2**22


class OutcomeError(ValueError):
    """Stored outcomes that cannot be decoded, or that contradict their counts."""


class Packed(BaseModel):
    """One series of per-trial outcomes, packed (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    codec: Codec
    #: Added to every stored value (the series' minimum); 0 for bits.
    low: int = Field(ge=-(2**63), le=2**63 - 1)
    #: Whether a bit mask of defined trials precedes the values.
    mask: bool
    data: str = Field(max_length=2**28)


@dataclass
class PointOutcomes:
    """One plan run for the gate: every metric's statistics, and the kept metrics' per-trial
    values ``values[variant, k, trial]`` (``UNDEFINED`` where not defined)."""

    plan: Plan
    stats: np.ndarray
    kept: tuple[int, ...]
    values: np.ndarray
    trials: int
    elapsed: float


def _one_by_one(plan: Plan, key: np.uint64, first: int, n: int) -> np.ndarray:
    """The statistics row of each trial ``first .. first + n - 1``: shape (n, variants, slots)."""
    kernel = plan.procedure.kernel
    one = np.int64(1)
    slots = np.int64(plan.n_slots)
    rows = np.empty((n, plan.n_variants, plan.n_slots), dtype=np.int64)
    for i in range(n):
        rows[i] = kernel(
            plan.packed, key, np.int64(first + i), one, plan.hist_offset, plan.hist_max, slots
        )
    return rows


def run_point(
    plan: Plan, trials: int, kept: tuple[int, ...], threads: int | None = None
) -> PointOutcomes:
    """Run ``trials`` trials of ``plan`` on shared streams; per trial for ``kept`` metrics."""
    t0 = time.perf_counter()
    if not kept:
        out = simulate(plan, trials, threads=threads)
        if not out.complete:
            raise KeyboardInterrupt
        empty = np.zeros((plan.n_variants, 0, trials), dtype=np.int64)
        return PointOutcomes(plan, out.stats, kept, empty, trials, time.perf_counter() - t0)
    threads = threads or default_threads()
    # At least 64 trials a job for the cheap kernels (the call overhead), but a few trials of
    # searching agents (a second or more each) are spread over the threads too.
    chunk = int(min(max(trials // (4 * threads), 64 if trials >= 64 * threads else 1), 2048))
    starts = range(0, trials, chunk)
    key = plan.key(0)
    stats = np.zeros((plan.n_variants, plan.n_slots), dtype=np.int64)
    values = np.empty((plan.n_variants, len(kept), trials), dtype=np.int64)
    n_idx = np.array([4 * m for m in kept], dtype=np.int64)
    with ThreadPoolExecutor(max_workers=threads) as pool:
        jobs = [pool.submit(_one_by_one, plan, key, a, min(chunk, trials - a)) for a in starts]
        try:
            for a, job in zip(starts, jobs, strict=True):
                rows = job.result()
                stats += rows.sum(axis=0)
                defined = rows[:, :, n_idx]
                if ((defined != 0) & (defined != 1)).any():
                    raise RuntimeError(
                        f"{plan.procedure.name}: the kernel counted a metric more than once in "
                        "a single trial (breaks the kernel contract)"
                    )
                vals = np.where(defined == 1, rows[:, :, n_idx + 1], UNDEFINED)
                values[:, :, a : a + len(rows)] = vals.transpose(1, 2, 0)
        except BaseException:
            for job in jobs:
                job.cancel()
            raise
    return PointOutcomes(plan, stats, kept, values, trials, time.perf_counter() - t0)


def encode(series: np.ndarray, kind: str) -> Packed:
    """Pack one metric's per-trial values (int64, ``UNDEFINED`` where not defined)."""
    defined = series != UNDEFINED
    mask = not bool(defined.all())
    vals = series[defined]
    head = np.packbits(defined).tobytes() if mask else b""
    if kind == "proportion" and not mask and ((vals == 0) | (vals == 1)).all():
        codec: Codec = "bits"
        low, body = 0, np.packbits(vals.astype(np.uint8)).tobytes()
    else:
        low = int(vals.min()) if len(vals) else 0
        span = int(vals.max()) - low if len(vals) else 0
        codec = next(c for c in _CODECS if span <= np.iinfo(_DTYPES[c]).max)
        body = (vals - low).astype(_DTYPES[codec]).tobytes()
    data = base64.b64encode(zlib.compress(head + body, 9)).decode("ascii")
    return Packed(codec=codec, low=low, mask=mask, data=data)


def _inflate(data: str, limit: int) -> bytes:
    try:
        raw = base64.b64decode(data.encode("ascii"), validate=True)
        d = zlib.decompressobj()
        out = d.decompress(raw, limit)
    except (binascii.Error, zlib.error, ValueError) as e:
        raise OutcomeError(f"not valid packed outcomes ({e})") from e
    if d.unconsumed_tail or not d.eof:
        raise OutcomeError("packed outcomes longer than the trial count, or truncated")
    return out


def decode(p: Packed, trials: int) -> np.ndarray:
    """The per-trial values packed in ``p`` (int64, ``UNDEFINED`` where not defined).

    Raises OutcomeError when the data is corrupt or does not hold exactly ``trials`` trials; the
    decompressed size is bounded before anything is inflated (no decompression bomb).
    """
    if not 1 <= trials <= MAX_KEPT_TRIALS:
        raise OutcomeError(f"outcomes are kept for 1 to {MAX_KEPT_TRIALS:,} trials (got {trials})")
    if p.codec == "bits" and p.mask:
        raise OutcomeError("bits never carry a mask")
    head_len = (trials + 7) // 8 if p.mask else 0
    width = 1 if p.codec == "bits" else np.dtype(_DTYPES[p.codec]).itemsize
    limit = head_len + ((trials + 7) // 8 if p.codec == "bits" else trials * width)
    raw = _inflate(p.data, limit + 1)
    if not p.mask and len(raw) != limit:
        raise OutcomeError(f"{len(raw)} bytes of {p.codec} for {trials} trials (expected {limit})")
    if p.mask:
        if len(raw) < head_len:
            raise OutcomeError("packed outcomes shorter than the trial count")
        defined = np.unpackbits(np.frombuffer(raw[:head_len], np.uint8), count=trials) == 1
    else:
        defined = np.ones(trials, dtype=bool)
    body = raw[head_len:]
    k = int(defined.sum())
    if p.codec == "bits":
        if p.mask or len(body) != (k + 7) // 8:
            raise OutcomeError(f"{len(body)} bytes of bits for {k} trials")
        vals = np.unpackbits(np.frombuffer(body, np.uint8), count=k).astype(np.int64)
    else:
        if len(body) != k * width:
            raise OutcomeError(f"{len(body)} bytes of {p.codec} values for {k} defined trials")
        stored = np.frombuffer(body, _DTYPES[p.codec])
        if p.codec == "u64" and len(stored) and int(stored.max()) > 2**63 - 1 - max(p.low, 0):
            raise OutcomeError("values out of range")
        vals = stored.astype(np.int64) + np.int64(p.low)
    out = np.full(trials, UNDEFINED, dtype=np.int64)
    out[defined] = vals
    return out
