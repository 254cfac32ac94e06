"""The cyclic garbage collector held off through a command's first seconds and every compile
(simulator.collector), and given back as it was."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import pytest

from simulator import collector

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _collector_as_it_was():
    assert collector.held() == 0 and gc.isenabled()
    yield
    while collector.held():
        collector.release()
    gc.enable()


def test_holds_nest_and_the_last_release_gives_it_back() -> None:
    collector.hold()
    collector.hold()
    assert not gc.isenabled()
    collector.release()
    assert not gc.isenabled()
    collector.release()
    assert gc.isenabled()
    collector.release()  # one release too many changes nothing
    assert gc.isenabled() and collector.held() == 0


def test_a_collector_turned_off_by_the_program_stays_off() -> None:
    gc.disable()
    collector.hold()
    collector.release()
    assert not gc.isenabled()


def test_a_timed_hold_ends_by_itself() -> None:
    timer = collector.hold_for(0.2)
    assert timer.daemon and not gc.isenabled()
    timer.join(10)
    assert gc.isenabled() and collector.held() == 0


def test_a_compile_holds_it_and_gives_it_back() -> None:
    code = """
import gc
from simulator import collector, jit
seen = []
jit._load_numba()  # as a kernel's first call does: installs the collector's listener
from numba.core import event
class Spy(event.Listener):
    def on_start(self, ev):
        seen.append(gc.isenabled())
    def on_end(self, ev):
        pass
event.register("numba:compile", Spy())
import numba
g = numba.njit(cache=False)(lambda x: x * 2)
print(g(3), seen[-1], gc.isenabled(), collector.held())
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    # Off when the compile starts (the collector's listener came first), on again after it.
    assert done.stdout.split() == ["6", "False", "True", "0"], done.stderr
