"""`make mutants`: plant each rule mutant of the catalogue in a copy of the tree, run the tests
that guard that rule, and report which mutants the tests kill.

Usage: python -m mutants.run [--only ID_OR_PROCEDURE ...] [--jobs N] [--timeout S] [--list]
       [--tests "PYTEST ARGS"]

Each entry of ``mutants/catalogue.yaml`` is one plausible misreading of a rule: a ``find`` text
that must stand exactly once in ``file``, the ``replace`` text, the ``procedure``, ``why`` (the
misreading, in words) and the ``tests`` to run. A mutant is *killed* when those tests fail,
*survives* when they pass, and is *stale* when its ``find`` text is no longer in the file (the code
moved: the entry must be updated — a stale mutant fails the run like a survivor). An entry may
say ``equivalent: REASON`` when the mutation cannot change any result; it is run all the same and
reported apart.

Why a catalogue rather than a generic mutation tool (mutmut, cosmic-ray): those generate every
syntactic mutant of every line (hundreds per kernel), and each mutant of a Numba kernel costs a
cold compile (seconds to over a minute for the council), so a run would take days; and most of
their mutants are not rule misreadings. Each catalogue mutant costs one compile of the kernels its
tests touch, in a copy of the tree with its own Numba cache, so the working tree and its cache are
never touched.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = Path(__file__).with_name("catalogue.yaml")
#: What a copy of the tree needs to import the package and run the tests.
COPIED = ("simulator", "tests", "scenarios", "reports", "pyproject.toml")


@dataclass(frozen=True)
class Mutant:
    id: str
    procedure: str
    file: str
    find: str
    replace: str
    why: str
    tests: tuple[str, ...]
    equivalent: str = ""


@dataclass
class Outcome:
    mutant: Mutant
    status: str  # killed, survived, stale, error
    seconds: float
    detail: str = ""


def load_catalogue(path: Path = CATALOGUE) -> list[Mutant]:
    """The catalogue's entries; every field checked."""
    entries = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    out, seen = [], set()
    for i, e in enumerate(entries):
        missing = {"id", "procedure", "file", "find", "replace", "why", "tests"} - set(e)
        if missing:
            raise SystemExit(f"{path}: entry {i + 1}: missing {sorted(missing)}")
        if e["id"] in seen:
            raise SystemExit(f"{path}: entry {i + 1}: duplicate id {e['id']!r}")
        if e["find"] == e["replace"]:
            raise SystemExit(f"{path}: {e['id']}: replace equals find")
        seen.add(e["id"])
        out.append(
            Mutant(
                e["id"],
                e["procedure"],
                e["file"],
                e["find"],
                e["replace"],
                " ".join(str(e["why"]).split()),
                tuple(e["tests"]),
                str(e.get("equivalent", "")),
            )
        )
    return out


def _copy_tree(dest: Path) -> None:
    for name in COPIED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(
                src,
                dest / name,
                ignore=shutil.ignore_patterns("__pycache__", "out", ".pytest_cache"),
            )
        elif src.exists():
            shutil.copy2(src, dest / name)


def run_one(m: Mutant, timeout: float) -> Outcome:
    """Plant ``m`` in a fresh copy of the tree and run its tests there."""
    t0 = time.perf_counter()
    source = (ROOT / m.file).read_text(encoding="utf-8")
    count = source.count(m.find)
    if count != 1:
        return Outcome(m, "stale", 0.0, f"find text occurs {count} times in {m.file}")
    with tempfile.TemporaryDirectory(prefix=f"mutant-{m.id}-") as tmp:
        work = Path(tmp)
        _copy_tree(work)
        (work / m.file).write_text(source.replace(m.find, m.replace), encoding="utf-8")
        env = {
            **os.environ,
            "PYTHONPATH": str(work),
            "NUMBA_CACHE_DIR": str(work / ".numba_cache"),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider"]
        cmd += ["-m", "not dask", *m.tests]
        try:
            proc = subprocess.run(
                cmd, cwd=work, env=env, capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            return Outcome(m, "error", time.perf_counter() - t0, f"timed out after {timeout:.0f} s")
    elapsed = time.perf_counter() - t0
    tail = (proc.stdout.strip().splitlines() or [""])[-1]
    if proc.returncode == 1:
        failed = [ln for ln in proc.stdout.splitlines() if ln.startswith("FAILED")]
        return Outcome(m, "killed", elapsed, failed[0][7:] if failed else tail)
    if proc.returncode == 0:
        return Outcome(m, "survived", elapsed, tail)
    # Collection errors, usage errors, crashes: the tests did not judge the mutant.
    return Outcome(m, "error", elapsed, (proc.stdout + proc.stderr).strip()[-300:])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*", default=[], help="mutant ids or procedure names")
    ap.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2))
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per mutant")
    ap.add_argument("--list", action="store_true", help="list the catalogue and stop")
    ap.add_argument(
        "--tests",
        default="",
        help="pytest arguments replacing every entry's tests, as one string (e.g. "
        "'tests/test_x.py -k name': does that test alone kill the mutant?)",
    )
    ap.add_argument("--out", type=Path, default=ROOT / "reports" / "out" / "mutants.json")
    args = ap.parse_args()
    mutants = load_catalogue()
    if args.only:
        mutants = [m for m in mutants if m.id in args.only or m.procedure in args.only]
    if args.tests:
        mutants = [dataclasses.replace(m, tests=tuple(shlex.split(args.tests))) for m in mutants]
    if args.list:
        for m in mutants:
            print(f"{m.id:45} {m.procedure:22} {m.why}")
        return 0
    print(f"{len(mutants)} mutants, {args.jobs} at a time", flush=True)
    outcomes: list[Outcome] = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for o in pool.map(lambda m: run_one(m, args.timeout), mutants):
            outcomes.append(o)
            print(f"{o.status:9} {o.seconds:6.1f} s  {o.mutant.id}: {o.detail}", flush=True)
    return report(outcomes, args.out)


def report(outcomes: list[Outcome], out: Path) -> int:
    """Print the score per procedure and in all; write the JSON; exit 1 on any survivor (not
    marked equivalent), stale entry or error."""
    by_proc: dict[str, list[Outcome]] = {}
    for o in outcomes:
        by_proc.setdefault(o.mutant.procedure, []).append(o)
    print()
    print(f"{'procedure':24} mutants  killed")
    for proc, os_ in sorted(by_proc.items()):
        killed = sum(o.status == "killed" for o in os_)
        print(f"{proc:24} {len(os_):7}  {killed:6}")
    judged = [o for o in outcomes if not o.mutant.equivalent]
    killed = sum(o.status == "killed" for o in judged)
    rate = killed / len(judged) if judged else 1.0
    print(
        f"\nkill rate: {killed}/{len(judged)} = {rate:.0%} (equivalent mutants apart: "
        f"{len(outcomes) - len(judged)})"
    )
    bad = [o for o in judged if o.status != "killed"]
    for o in bad:
        print(f"  {o.status.upper()}: {o.mutant.id} ({o.mutant.procedure}): {o.mutant.why}")
    for o in outcomes:
        if o.mutant.equivalent:
            print(f"  equivalent ({o.status}): {o.mutant.id}: {o.mutant.equivalent}")
    out.parent.mkdir(parents=True, exist_ok=True)
    doc: dict[str, Any] = {
        "kill_rate": rate,
        "killed": killed,
        "judged": len(judged),
        "mutants": [
            {
                "id": o.mutant.id,
                "procedure": o.mutant.procedure,
                "why": o.mutant.why,
                "status": o.status,
                "seconds": round(o.seconds, 1),
                "detail": o.detail,
                "equivalent": o.mutant.equivalent,
            }
            for o in outcomes
        ],
    }
    out.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
