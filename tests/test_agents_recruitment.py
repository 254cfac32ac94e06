"""The generic search agents wired into recruitment.loyalty (policy.choose_move).

The game's own random and greedy are tested with the game; here: rollout and mcts reach the
kernel, return only legal moves, leave the position alone, and never read the deck order (the
only hidden information of the game).
"""

from __future__ import annotations

import numpy as np
import pytest
import yaml

from simulator import procedures
from simulator.agents.spec import AgentSpec, pack_agents
from simulator.procedures.recruitment.loyalty.game import GAME
from simulator.procedures.recruitment.loyalty.params import pack
from simulator.procedures.recruitment.loyalty.phases import start_game
from simulator.procedures.recruitment.loyalty.policy import choose_move
from simulator.procedures.recruitment.loyalty.state import H_DECK_LEN, S_DECK, STATE_SIZE
from simulator.runner import run_scenario
from simulator.scenario import load
from tests import naive_agents as twin

LADDER = "scenarios/recruitment/ladder.yaml"
SEARCH = {
    "rollout": AgentSpec(agent="rollout", playouts=2, horizon=1),
    "mcts": AgentSpec(agent="mcts", iterations=16, horizon=1),
}


def _params():
    with open(LADDER) as f:
        data = yaml.safe_load(f)["params"]
    return procedures.get("recruitment.loyalty").params_model.model_validate(data)


def _positions(count: int) -> list[np.ndarray]:
    """Positions of random play from fresh deals of the ladder scenario's game."""
    row = pack(_params())
    moves = np.empty(GAME.max_moves, dtype=np.int64)
    out = []
    k = 0
    while len(out) < count:
        rng = np.array([twin.mix64(k + 1)], dtype=np.uint64)
        k += 1
        s = np.zeros(STATE_SIZE, dtype=np.int64)
        start_game(s, row, rng)
        for _ in range(twin.below(rng, 60)):
            if GAME.is_over(s):
                break
            n = GAME.legal_moves(s, moves)
            GAME.apply_move(s, moves[twin.below(rng, n)], rng)
        if not GAME.is_over(s):
            out.append(s)
    return out


@pytest.mark.parametrize("rung", SEARCH)
def test_search_agents_play_legal_moves_and_leave_the_position_alone(rung):
    row = pack_agents([SEARCH[rung]])[0]
    moves = np.empty(GAME.max_moves, dtype=np.int64)
    for k, s in enumerate(_positions(30)):
        before = s.copy()
        move = choose_move(s, row, np.array([twin.decision_seed(5, k)], dtype=np.uint64))
        n = GAME.legal_moves(s, moves)
        assert move in moves[:n]
        assert np.array_equal(s, before)


@pytest.mark.parametrize("rung", SEARCH)
def test_search_agents_never_read_the_deck_order(rung):
    row = pack_agents([SEARCH[rung]])[0]
    for k, s in enumerate(_positions(12)):
        other = s.copy()
        deck = other[S_DECK : S_DECK + s[H_DECK_LEN]]
        if len(deck) < 2 or len(set(deck)) < 2:
            continue
        other[S_DECK : S_DECK + s[H_DECK_LEN]] = deck[::-1]
        rng_a = np.array([twin.decision_seed(9, k)], dtype=np.uint64)
        rng_b = rng_a.copy()
        assert choose_move(s, row, rng_a) == choose_move(other, row, rng_b)


def test_the_ladder_tournament_is_the_same_on_one_and_two_threads():
    scenario = load(LADDER)
    cheap = {
        "random": "random",
        "greedy": "greedy",
        "rollout": {"agent": "rollout", "playouts": 1, "horizon": 1},
        "mcts": {"agent": "mcts", "iterations": 4, "horizon": 1},
    }
    from simulator.tournament.procedure import tournament_procedure
    from simulator.tournament.spec import TournamentSpec

    scenario.procedure = tournament_procedure(
        procedures.get("recruitment.loyalty"), TournamentSpec.model_validate({"agents": cheap})
    )
    one = run_scenario(scenario, trials=12, threads=1, chunk_size=12)
    two = run_scenario(scenario, trials=12, threads=2, chunk_size=5)
    np.testing.assert_array_equal(one.outcome.stats, two.outcome.stats)
    assert {m for m in one.estimates["metric"] if m.startswith("agent_wins.")} == {
        f"agent_wins.{e}" for e in cheap
    }
