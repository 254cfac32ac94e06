"""root.hirelings as a whole game: the game interface, the search agents, the ladder."""

from __future__ import annotations

import numpy as np
import pytest

from simulator import procedures
from simulator.agents.spec import AgentSpec, pack_agents
from simulator.procedures.root.hirelings import choose_move, pack
from simulator.procedures.root.hirelings.game import GAME, GREEDY, legacy_move
from simulator.procedures.root.hirelings.state import (
    H_FIRST,
    H_INFLUENCE,
    H_RANK,
    H_ROUND,
    H_ROUNDS,
    H_SEAT,
    H_TURN,
    MAX_SEATS,
    PASS,
    S_HOLDER,
    S_SCORE,
    STATE_SIZE,
    start_game,
)
from tests import naive_agents as twin
from tests.agent_checks import (
    assert_ladder_same_on_threads_and_chunks,
    assert_legal_and_untouched,
    random_positions,
)

LADDER = "scenarios/root/ladder.yaml"
PROC = procedures.get("root.hirelings")
SEARCH = {
    "rollout": AgentSpec(agent="rollout", playouts=4, horizon=0),
    "mcts": AgentSpec(agent="mcts", iterations=64, horizon=0),
}
RUNGS = {"random": AgentSpec(agent="random"), "greedy": AgentSpec(agent="greedy"), **SEARCH}


def _row(raw: dict) -> np.ndarray:
    return pack(PROC.params_model.model_validate(raw))


def _positions(count: int, players: int = 3) -> list[np.ndarray]:
    """Positions of random play (uniform over legal_moves) from fresh deals."""
    row = _row({"players": players, "rounds": 6, "hireling_points": 1})

    def start(rng: np.ndarray) -> np.ndarray:
        s = np.zeros(STATE_SIZE, dtype=np.int64)
        start_game(s, row, rng)
        return s

    return random_positions(GAME, start, count, 30)


@pytest.mark.parametrize("players", [2, 3, 5])
@pytest.mark.parametrize("rung", RUNGS)
def test_every_rung_plays_only_legal_moves_and_leaves_the_position_alone(rung, players):
    row = pack_agents([RUNGS[rung]])[0]

    def decide(s: np.ndarray, k: int) -> int:
        game_rng = np.array([twin.mix64(77 + k)], dtype=np.uint64)
        return choose_move(s, row, game_rng, np.array([twin.decision_seed(5, k)], np.uint64))

    assert_legal_and_untouched(GAME, decide, _positions(25, players))


def test_a_decision_always_has_a_purchase_besides_the_pass():
    moves = np.empty(GAME.max_moves, dtype=np.int64)
    for s in _positions(40):
        n = GAME.legal_moves(s, moves)
        assert n >= 2 and moves[n - 1] == PASS and PASS not in moves[: n - 1]


def _last_evening() -> np.ndarray:
    """2 players, last round, seat 2's Evening (the last of the game) with 2 influence; both on
    10 points. Hireling 0 (cost 1) is free, hireling 1 (cost 2) is seat 1's, unprotected. Each
    hireling held at the round's end scores 1 (hireling_points)."""
    hires = [{"name": "a", "cost": 1}, {"name": "b", "cost": 2}, {"name": "c", "cost": 5}]
    row = _row({"players": 2, "rounds": 3, "hireling_points": 1, "hirelings": hires})
    s = np.zeros(STATE_SIZE, dtype=np.int64)
    start_game(s, row, np.array([1], dtype=np.uint64))
    s[H_ROUND] = s[H_ROUNDS] - 1
    s[H_FIRST], s[H_TURN], s[H_SEAT] = 0, 1, 1
    s[H_INFLUENCE], s[H_RANK] = 2, 2
    s[S_SCORE], s[S_SCORE + 1] = 10, 10
    s[S_HOLDER : S_HOLDER + 4] = [-1, 0, -1, -1]
    return s


TAKE_B = (0 * 6 + 1) * MAX_SEATS  # take hireling 1


def test_search_agents_take_the_leaders_hireling_where_greedy_takes_the_cheapest():
    # Taking the cheap free hireling leaves both on 11 (a shared win, 1/2); taking seat 1's
    # hireling for 2 makes it 11 to 10 (the win). The hand-written greedy buys the cheapest.
    s = _last_evening()
    assert legacy_move(s, GREEDY, np.array([3], dtype=np.uint64)) != TAKE_B
    out = np.zeros(2)
    t = s.copy()
    GAME.apply_move(t, TAKE_B, np.array([3], dtype=np.uint64))
    GAME.returns(t, out)
    assert GAME.is_over(t) and out[1] > 0.999
    for rung, spec in SEARCH.items():
        row = pack_agents([spec])[0]
        for k in range(5):
            decision = np.array([twin.decision_seed(11, k)], dtype=np.uint64)
            assert choose_move(s, row, np.array([3], np.uint64), decision) == TAKE_B, rung


def test_hireling_points_zero_never_moves_a_score_by_hirelings():
    # Every seat scores exactly 1 a round; with hireling_points 0 all tie at `rounds`.
    raw = {"players": 3, "rounds": 4, "score_gain": [[{"points": 1}]], "policies": "random"}
    from tests.test_root_hirelings import means

    out = means(raw, trials=300)
    assert out["draws"] == 1 and out["wins.seat1"] == pytest.approx(1 / 3)
    scored = means({**raw, "hireling_points": 1}, trials=300)
    assert scored["draws"] < 1


def test_the_ladder_tournament_is_the_same_on_one_and_two_threads():
    assert_ladder_same_on_threads_and_chunks(LADDER, PROC, 4, 6, (6, 4))
