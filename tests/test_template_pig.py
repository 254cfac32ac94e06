"""Pig, the template whole game (Pig rules): the rules one test each, the kernel against its
plain-Python twin, and the agents' ladder on it."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.engine import make_plan, run_range
from simulator.procedures import get
from simulator.procedures.template.pig.game import GAME, deal
from simulator.procedures.template.pig.state import (
    H_OVER,
    H_SEAT,
    H_TURN,
    H_TURN_TOTAL,
    H_WINNER,
    HOLD,
    ROLL,
    S_SCORE,
)
from simulator.rng import scenario_key
from tests import naive_pig
from tests.fold import fold

PROC = get("template.pig")


def validate(raw: dict):
    return PROC.params_model.model_validate(raw)


def _position(seat_points: int, turn_total: int, target: int = 100, seed: int = 3):
    """A dealt 2-player game with seat 1 to move holding ``turn_total`` unbanked points."""
    s = deal(PROC.pack(validate({"target": target})), np.array([seed], dtype=np.uint64))
    s[H_SEAT] = 0
    s[S_SCORE] = seat_points
    s[H_TURN_TOTAL] = turn_total
    return s


def test_a_decision_offers_roll_and_hold():
    s = _position(0, 4)
    moves = np.empty(GAME.max_moves, dtype=np.int64)
    assert GAME.legal_moves(s, moves) == 2
    assert sorted(moves.tolist()) == [ROLL, HOLD]


def test_holding_banks_the_turns_points_and_passes_the_die():
    s = _position(10, 7)
    GAME.apply_move(s, HOLD, np.array([5], dtype=np.uint64))
    assert s[S_SCORE] == 17
    assert s[H_TURN] >= 1 and (s[H_OVER] or s[H_SEAT] == 1)


def test_banking_the_target_wins_at_once():
    s = _position(95, 5)
    GAME.apply_move(s, HOLD, np.array([5], dtype=np.uint64))
    assert s[H_OVER] == 1 and s[H_WINNER] == 0


def test_a_one_loses_the_turns_points():
    # Roll from many streams: whenever the turn ends, seat 1 banked nothing of its 9 points.
    lost = 0
    for seed in range(200):
        s = _position(0, 9, seed=seed)
        turn = s[H_TURN]
        GAME.apply_move(s, ROLL, np.array([seed + 1000], dtype=np.uint64))
        if s[H_TURN] > turn:
            assert s[S_SCORE] == 0
            lost += 1
        else:
            assert s[H_SEAT] == 0 and s[H_TURN_TOTAL] > 9
    assert 15 <= lost <= 55  # about one roll in six is a 1


def test_the_metric_row_starts_each_family_where_metrics_put_it():
    for players in (2, 3, 4):
        p = validate({"players": players})
        names = [m.name for m in PROC.metrics(p)]
        assert names[:players] == [f"wins.seat{o + 1}" for o in range(players)]
        assert names[players:] == ["draws", "length", "pigs"]


@pytest.mark.parametrize(
    "raw",
    [{"players": 2, "target": 30}, {"players": 3, "target": 20, "max_turns": 12}],
)
def test_kernel_equals_plain_python_twin(raw):
    raw = {**raw, "policies": "random"}
    variants = {"base": validate(raw), "short": validate({**raw, "max_turns": 5})}
    plan = make_plan(PROC, variants, seed=8)
    key = int(scenario_key(8))
    first, n = 100, 700
    twin = [
        [naive_pig.template_pig(p.model_dump(), key, t) for t in range(first, first + n)]
        for p in variants.values()
    ]
    np.testing.assert_array_equal(run_range(plan, -1, first, n), fold(plan, twin))


def test_greedy_beats_random_on_the_same_deals():
    """The ladder's first rung holds on the template: greedy (hold when the heuristic says so)
    wins more than half its games against random, seated both ways."""
    wins = 0.0
    for policies in (["greedy", "random"], ["random", "greedy"]):
        p = validate({"players": 2, "target": 50, "policies": policies})
        plan = make_plan(PROC, {"base": p}, seed=21)
        stats = run_range(plan, -1, 0, 400)[0]
        greedy_seat = policies.index("greedy")
        wins += stats[4 * greedy_seat + 1] / stats[4 * greedy_seat] / 2
    assert wins > 0.55, wins
