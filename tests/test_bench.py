"""Every bench file of ``make bench`` imports and has the ``rows(quick)`` that bench/run.py calls:
a bench broken by a renamed function or module is seen here, not only in the next ``make bench``
(running them is ``make bench``'s job: they time kernels for minutes)."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
NAMES = sorted(p.stem for p in BENCH.glob("bench_*.py"))


def test_the_bench_files_are_found() -> None:
    assert len(NAMES) >= 18 and "bench_startup" in NAMES and "bench_compile" in NAMES


@pytest.mark.parametrize("name", NAMES)
def test_a_bench_file_imports_with_its_rows(name: str) -> None:
    module = importlib.import_module(f"bench.{name}")
    assert module.__doc__, f"bench/{name}.py says what it measures"
    rows = module.rows
    assert list(inspect.signature(rows).parameters) == ["quick"]
