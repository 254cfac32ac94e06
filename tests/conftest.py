"""Fixtures shared by the test modules."""

from __future__ import annotations

import pytest

from simulator import engine


@pytest.fixture
def ctrl_c_on_third_wait(monkeypatch):
    """Simulate Ctrl-C: the engine's third wait for finished jobs raises KeyboardInterrupt."""
    calls = {"n": 0}
    real_wait = engine.wait

    def interrupting_wait(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real_wait(*args, **kwargs)

    monkeypatch.setattr(engine, "wait", interrupting_wait)
    return real_wait
