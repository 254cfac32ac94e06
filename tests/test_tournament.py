"""Tournaments (simulator/tournament) on the hand-hidden Nim test game (tests/toy_game.py)."""

from __future__ import annotations

import itertools
import json
from collections import Counter

import numpy as np
import pytest

from simulator import procedures
from simulator.agents.spec import pack_agents
from simulator.report.files import document
from simulator.report.model import build
from simulator.runner import run_scenario
from simulator.scenario import Scenario, ScenarioError, parse
from simulator.tournament.analysis import bradley_terry, summaries
from simulator.tournament.procedure import tournament_of, tournament_procedure, with_policies
from simulator.tournament.spec import TournamentSpec, seatings, williams
from tests import toy_game as nim

ENTRANTS = {
    "random": "random",
    "greedy": "greedy",
    "rollout": {"agent": "rollout", "playouts": 2, "horizon": 0},
    "mcts": {"agent": "mcts", "iterations": 12, "horizon": 0},
}


def _scenario(seats: int = 2, entrants=ENTRANTS, design: str = "auto", **params) -> Scenario:
    spec = TournamentSpec.model_validate({"agents": entrants, "seatings": design})
    proc = tournament_procedure(nim.PROCEDURE, spec)
    base = nim.NimParams(seats=seats, pile=13, deck=6, add_permille=150, **params)
    return Scenario("toy.yaml", "toy-ladder", proc, 60, 7, "", {"base": base}, {})


def _document(result) -> str:
    doc = document(build(result))
    for k in ("versions", "elapsed_seconds", "threads", "backend"):
        doc.pop(k, None)
    return json.dumps(doc, sort_keys=True, default=str)


@pytest.mark.parametrize(
    ("design", "entrants", "seats"),
    [("all", 4, 2), ("all", 3, 3), ("balanced", 4, 4), ("balanced", 3, 3), ("rotation", 2, 3)],
)
def test_every_entrant_sits_in_every_seat_equally_often(design, entrants, seats):
    table = seatings(design, entrants, seats)
    for k in range(seats):
        counts = Counter(row[k] for row in table)
        assert sorted(counts) == list(range(entrants))
        assert len(set(counts.values())) == 1


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_a_williams_square_lets_each_entrant_follow_each_other_equally_often(n):
    follows = Counter((r[k], r[k + 1]) for r in williams(n) for k in range(n - 1))
    assert set(follows) == {(a, b) for a in range(n) for b in range(n) if a != b}
    assert len(set(follows.values())) == 1


def test_auto_seatings_pick_a_balanced_square_or_all_orders():
    assert seatings("auto", 4, 4) == williams(4)
    assert seatings("auto", 4, 2) == list(itertools.permutations(range(4), 2))
    assert len(seatings("auto", 2, 4)) == 2


def test_per_deal_values_match_games_played_one_seating_at_a_time():
    sc = _scenario(seats=3, entrants=dict(list(ENTRANTS.items())[:3]))
    result = run_scenario(sc, trials=24, threads=1)
    t = tournament_of(sc.procedure)
    params = sc.variants["base"]
    table = t.seatings(params)
    metrics = nim.metrics(params)
    from simulator.accumulate import layout

    off, top, slots = layout([m.max_value if m.kind == "distribution" else -1 for m in metrics])
    key = result.plan.key(0)
    held = Counter()
    won = Counter()
    for deal in range(24):
        for seating in table:
            row = nim.pack(with_policies(nim.PROCEDURE, params, [t.specs[e] for e in seating]))
            stats = nim.nim_kernel(row[None], key, deal, 1, off, top, slots)
            for seat, e in enumerate(seating):
                held[e] += 1
                won[e] += stats[0, 4 * seat + 1] / 6
    est = result.estimates.set_index("metric")["mean"]
    for e, name in enumerate(t.entrants):
        assert est[f"agent_wins.{name}"] == pytest.approx(won[e] / held[e], abs=1e-12)
    seat_total = sum(est[f"seat_wins.seat{k + 1}"] for k in range(3))
    assert seat_total == pytest.approx(1.0, abs=1e-12), "every game has exactly one winner"


def test_tournament_output_is_the_same_for_any_thread_count_and_chunk_size():
    sc = _scenario()
    runs = [
        run_scenario(sc, trials=40, threads=1, chunk_size=40),
        run_scenario(sc, trials=40, threads=2, chunk_size=16),
        run_scenario(sc, trials=40, threads=2, chunk_size=7),
    ]
    docs = {_document(r) for r in runs}
    assert len(docs) == 1


def test_the_search_rungs_beat_random_play_at_hand_hidden_nim():
    result = run_scenario(_scenario(), trials=60, threads=2)
    s = summaries(result)["base"]
    wins = {e: v["mean"] for e, v in s["agent_wins"].items()}
    assert wins["mcts"] > wins["random"] and wins["rollout"] > wins["random"]
    assert s["skill_gap"]["weakest"] in ("random", "greedy")
    assert s["matchup"]["mcts"]["random"]["mean"] == pytest.approx(
        1 - s["matchup"]["random"]["mcts"]["mean"], abs=2e-6
    )
    assert sum(s["ratings"].values()) == pytest.approx(1500 * 4)


def test_bradley_terry_recovers_strengths_from_exact_pair_records():
    strength = np.array([0.0, 1.0, -0.5])
    p = 1 / (1 + np.exp(-(strength[:, None] - strength[None, :])))
    wins = 1e5 * p
    np.fill_diagonal(wins, 0)
    fitted = bradley_terry(wins)
    np.testing.assert_allclose(fitted - fitted[0], strength - strength[0], atol=1e-4)


def test_reports_show_the_matchup_heatmap_and_table(tmp_path, monkeypatch):
    from rich.console import Console

    from simulator.report.files import write_reports
    from simulator.report.terminal import print_tables
    from simulator.tournament import analysis

    result = run_scenario(_scenario(), trials=16, threads=1)
    fits = Counter()
    analyse = analysis.analyse
    monkeypatch.setattr(analysis, "analyse", lambda t, e, v: fits.update([v]) or analyse(t, e, v))
    names = {p.name for p in write_reports(build(result), tmp_path)}
    # Four files show the tournament; its summary (a Bradley-Terry fit) is computed once.
    assert fits == {"base": 1}
    assert {"tournament.csv", "matchup.png", "summary.json", "report.html"} <= names
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert set(summary["tournament"]["base"]["agent_wins"]) == set(ENTRANTS)
    assert "Matchups" in (tmp_path / "report.html").read_text()
    console = Console(record=True, width=140)
    print_tables(build(result), console)
    text = console.export_text()
    assert "Matchup" in text and "Skill gap" in text


def test_sim_run_of_a_tournament_opens_with_win_shares_matchup_and_skill_gap():
    """What `sim run` prints without --detail: the tournament's own answer, not 40 metric rows."""
    from rich.console import Console

    from simulator.report.terminal import print_report

    result = run_scenario(_scenario(), trials=16, threads=1)
    console = Console(record=True, width=140)
    print_report(build(result), console)
    short = console.export_text()
    s = summaries(result)["base"]
    best = max(s["agent_wins"], key=lambda e: s["agent_wins"][e]["mean"])
    assert f"{s['agent_wins'][best]['mean']:.3f} [" in short
    assert "Matchup" in short and "Ladder:" in short and "Skill gap:" in short
    assert "h2h." not in short and "gap.random" not in short
    console = Console(record=True, width=140)
    print_report(build(result), console, detail=True)
    full = console.export_text()
    assert "h2h." in full and full.count("Skill gap:") == 1


# ---------------------------------------------------------------------------------------------
# The tournament: section of a scenario file


TEXT = """\
name: toy
procedure: toy.nim
trials: 10
seed: 1
params: {seats: 2}
tournament:
  agents:
    a: random
    b: {agent: mcts, iterations: 5}
"""


@pytest.fixture
def toy_registered(monkeypatch):
    real_get, real_names = procedures.get, procedures.names
    monkeypatch.setattr(
        procedures, "get", lambda n: nim.PROCEDURE if n == "toy.nim" else real_get(n)
    )
    monkeypatch.setattr(procedures, "names", lambda: [*real_names(), "toy.nim"])


def test_a_scenario_with_a_tournament_section_plays_it(toy_registered):
    sc = parse(TEXT, "toy.yaml")
    t = tournament_of(sc.procedure)
    assert t is not None and t.entrants == ["a", "b"]
    assert "agent_wins.b" in sc.procedure.metric_names(sc.variants["base"])


def test_an_unknown_key_in_the_tournament_section_is_located(toy_registered):
    with pytest.raises(ScenarioError) as err:
        parse(TEXT + "  sitting: all\n", "toy.yaml")
    assert str(err.value).startswith("toy.yaml:10:3: tournament.sitting: unknown key")


def test_a_balanced_square_needs_as_many_entrants_as_seats(toy_registered):
    with pytest.raises(ScenarioError) as err:
        parse(TEXT.replace("seats: 2", "seats: 3") + "  seatings: balanced\n", "toy.yaml")
    shown = str(err.value)
    assert (
        "toy.yaml:10:13: tournament.seatings: seatings 'balanced' needs as many entrants" in shown
    )


def test_every_point_of_a_swept_tournament_is_shown_labelled(toy_registered, capsys):
    """Issue 31 case 22: a sweep over the seats is one tournament per point, each labelled in
    the terminal and in summary.json (not the first point's alone)."""
    from rich.console import Console

    from simulator.report.terminal import print_report

    sc = parse(TEXT + "sweep: {seats: [2, 3]}\n", "toy.yaml")
    result = run_scenario(sc, threads=1)
    assert list(summaries(result)) == ["seats=2", "seats=3"]
    assert list(document(build(result))["tournament"]) == ["seats=2", "seats=3"]
    assert len(summaries(result)["seats=3"]["seat_wins"]) == 3
    console = Console(width=120, record=True)
    print_report(build(result), console, False)
    text = console.export_text()
    assert "Tournament · seats=2" in text and "Tournament · seats=3" in text


def test_a_single_entrant_is_no_tournament(toy_registered):
    text = TEXT.replace("    b: {agent: mcts, iterations: 5}\n", "")
    with pytest.raises(ScenarioError, match="at least two entrants"):
        parse(text, "toy.yaml")


def test_packed_agents_of_a_seating_reach_the_game():
    sc = _scenario()
    t = tournament_of(sc.procedure)
    p = with_policies(nim.PROCEDURE, sc.variants["base"], [t.specs[3], t.specs[0]])
    row = nim.pack(p)
    np.testing.assert_array_equal(
        row[nim.HEAD :].reshape(2, -1), pack_agents([t.specs[3], t.specs[0]])
    )


# ---------------------------------------------------------------------------------------------
# Dask


def _toy_fingerprint(procedure: str) -> dict[str, str]:
    """The workers' code is this checkout's (the toy game is not in the registry)."""
    return {"code": "toy"}


@pytest.mark.dask
def test_a_tournament_on_dask_gives_the_local_result(monkeypatch):
    pytest.importorskip("distributed", reason="the dask extra is not installed")
    from simulator import dask_backend

    monkeypatch.setattr(dask_backend, "fingerprint", _toy_fingerprint)
    sc = _scenario()
    local = run_scenario(sc, trials=40, threads=2)
    with dask_backend.connect(workers=2) as backend:
        backend.client.wait_for_workers(2, timeout=120)
        on_dask = run_scenario(sc, trials=40, chunk_size=8, backend=backend)
    assert on_dask.outcome.backend == "dask"
    assert _document(on_dask) == _document(local)


def test_win_share_intervals_stay_inside_zero_and_one_with_few_deals():
    """Two deals: the normal interval of a per-deal share can reach below 0; a share cannot."""
    result = run_scenario(_scenario(), trials=2, threads=1)
    raw = result.estimates[result.estimates["metric"].str.startswith("agent_wins.")]
    s = summaries(result)["base"]
    shown = [e for d in (s["agent_wins"], s["seat_wins"]) for e in d.values()]
    shown += [e for row in s["matchup"].values() for e in row.values()]
    assert all(0 <= e["ci_low"] <= e["mean"] <= e["ci_high"] <= 1 for e in shown)
    # The raw estimates are left alone (what --json reports as the engine computed it).
    assert len(raw) == len(ENTRANTS)
