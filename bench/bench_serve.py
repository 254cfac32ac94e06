"""`sim serve`: time from a knob change (a run of the edited field battle posted to the server)
to the first estimate the page can show, warm, beside a plain `run_scenario` of the same scenario
in the same process; and the page's weight (its HTML, script and stylesheet as shipped)."""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bench.harness import Row
from simulator.runner import run_scenario
from simulator.scenario import load

ROOT = Path(__file__).resolve().parents[1]
FIELD_BATTLE = ROOT / "scenarios" / "his" / "field_battle.yaml"
STATIC = ROOT / "simulator" / "serve" / "static"


def _first_estimate(session, client, body: dict) -> float:
    t0 = time.perf_counter()
    job = client.post("/api/run", json=body).json()["job"]
    while True:
        for event in session.jobs[job].events_from(0):
            if "view" in event:
                elapsed = time.perf_counter() - t0
                client.post(f"/api/jobs/{job}/stop")
                return elapsed
        time.sleep(0.002)


def rows(quick: bool) -> list[Row]:
    from starlette.testclient import TestClient

    from simulator.serve.app import Session, create_app
    from simulator.serve.paths import Folders

    base = Path(tempfile.mkdtemp(prefix="sim-bench-serve-"))
    folder = base / "served"
    folder.mkdir()
    shutil.copy(FIELD_BATTLE, folder / "field_battle.yaml")
    session = Session(Folders.of([folder], base=base), max_trials=10**12, threads=2)
    client = TestClient(create_app(session, ["127.0.0.1"]), base_url="http://127.0.0.1")
    client.headers["X-Sim-Token"] = session.token
    try:
        data = client.get("/api/scenario", params={"path": "served/field_battle.yaml"}).json()
        body = {"path": data["path"], "source": data["source"], "trials": 10**9}
        times = []
        for _ in range(2 if quick else 5):
            times.append(_first_estimate(session, client, body))
            while session.running():
                time.sleep(0.01)
    finally:
        session.close()
        shutil.rmtree(base, ignore_errors=True)
    scenario = load(FIELD_BATTLE)
    t0 = time.perf_counter()
    run_scenario(scenario, trials=100_000)
    plain = time.perf_counter() - t0
    weight = sum(p.stat().st_size for p in STATIC.rglob("*") if p.is_file()) / 1024
    return [
        Row(
            "sim serve: knob change to first estimate (field battle, warm)",
            statistics.median(times),
            "s",
            plain,
            "run_scenario of 1e5 trials",
            "within a second",
            statistics.median(times) < 1.0,
        ),
        Row("sim serve: page weight (HTML, script, stylesheet)", weight, "KiB"),
    ]
