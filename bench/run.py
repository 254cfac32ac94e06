"""`make bench`: every bench/bench_*.py module's rows, candidates beside baselines in one run.

Usage: python -m bench.run [--quick] [NAME ...]   (NAME filters modules, e.g. field_battle)
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.harness import Row


def _fmt(x: float | None, unit: str = "") -> str:
    if x is None:
        return ""
    if unit == "s":
        return f"{x:.3f}"
    if unit == "MiB":
        return f"{x:.1f}"
    return f"{x:.3g}"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller runs (a few seconds each)")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    here = Path(__file__).parent
    modules = sorted(p.stem for p in here.glob("bench_*.py"))
    if args.names:
        modules = [m for m in modules if any(n in m for n in args.names)]
    console = Console(width=160)
    cpu = platform.processor() or platform.machine()
    console.print(
        f"sim bench · {time.strftime('%Y-%m-%d %H:%M')} · {os.cpu_count()} cores · {cpu} · "
        f"Python {platform.python_version()}"
    )
    table = Table(
        title="speed (median of repeats; baselines measured in the same run)", title_justify="left"
    )
    for col in ("bench", "value", "unit", "baseline", "baseline value", "ratio", "target", "met"):
        table.add_column(col, justify="left" if col in ("bench", "baseline", "target") else "right")
    failed = 0
    for name in modules:
        mod = importlib.import_module(f"bench.{name}")
        try:
            rows: list[Row] = mod.rows(args.quick)
        except Exception as e:
            failed += 1
            table.add_row(name, "error", "", "", "", "", str(e)[:60], "")
            continue
        for r in rows:
            ratio = f"{r.value / r.baseline:.1f}×" if r.baseline else ""
            met = "" if r.met is None else ("yes" if r.met else "NO")
            table.add_row(
                r.bench,
                _fmt(r.value, r.unit),
                r.unit,
                r.baseline_name,
                _fmt(r.baseline, r.unit),
                ratio,
                r.target,
                met,
            )
        console.print(f"  {name} done")
    console.print(table)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
