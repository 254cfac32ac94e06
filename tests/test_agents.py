"""The generic agents (simulator/agents) on a small hidden-information test game.

tests/toy_game.py is hand-hidden Nim: its rules are small enough to check by hand, it has chance
events and hidden cards, and its heuristic misleads a one-step lookahead on purpose.
"""

from __future__ import annotations

import numpy as np
import pytest

from simulator.agents.spec import AgentSpec, pack_agents
from tests import naive_agents as twin
from tests import toy_game as nim

RUNGS = {
    "random": AgentSpec(agent="random"),
    "greedy": AgentSpec(agent="greedy"),
    "rollout": AgentSpec(agent="rollout", playouts=8, horizon=2),
    "mcts": AgentSpec(agent="mcts", iterations=60, horizon=2),
    # Leaning on greedy (simulator/agents/prior.py): pruning, prior and fallback together.
    "rollout_guided": AgentSpec(
        agent="rollout", playouts=8, horizon=2, candidates=2, prior=2.0, fallback=1.0
    ),
    "mcts_guided": AgentSpec(
        agent="mcts", iterations=60, horizon=2, candidates=3, prior=4.0, fallback=0.5
    ),
}


def _row(spec: AgentSpec) -> np.ndarray:
    return pack_agents([spec])[0]


def _rng(seed: int) -> np.ndarray:
    return np.array([twin.decision_seed(12345, seed)], dtype=np.uint64)


def _legal_by_the_rules(s: np.ndarray) -> list[int]:
    """Hand-hidden Nim's legal moves, read off the rules (not the compiled legal_moves)."""
    p = int(s[nim.TO_MOVE])
    pile = int(s[nim.PILE])
    moves = [k for k in (1, 2, 3) if k <= pile]
    hand = int(s[nim.HAND + p])
    if 0 < hand <= pile:
        moves.append(nim.PLAY_CARD)
    return moves


def _positions(count: int) -> list[np.ndarray]:
    """Positions reached by random play from random deals (2 or 3 seats, cards, chance)."""
    out = []
    for i in range(count):
        rng = np.array([twin.mix64(i + 1)], dtype=np.uint64)
        seats = 2 + i % 2
        row = np.array([seats, 6 + i % 17, 30, 250 * (i % 3), i % 9], dtype=np.float64)
        s = nim.deal(row, rng)
        for _ in range(twin.below(rng, 6)):
            if nim.is_over(s):
                break
            s_moves = _legal_by_the_rules(s)
            nim.apply_move(s, s_moves[twin.below(rng, len(s_moves))], rng)
        if not nim.is_over(s):
            out.append(s)
    return out


@pytest.mark.parametrize("rung", RUNGS)
def test_every_rung_plays_only_legal_moves(rung):
    row = _row(RUNGS[rung])
    for k, s in enumerate(_positions(80)):
        before = s.copy()
        move = nim.choose(s, row, _rng(k))
        assert move in _legal_by_the_rules(s)
        assert np.array_equal(s, before), "an agent must not change the position it is shown"


@pytest.mark.parametrize("rung", RUNGS)
def test_every_rung_makes_the_move_of_its_plain_python_twin(rung):
    spec = RUNGS[rung]
    row = _row(spec)
    for k, s in enumerate(_positions(40)):
        compiled = nim.choose(s, row, _rng(k))
        r = _rng(k)
        if rung == "random":
            expected = twin.random_move(nim.GAME, s, r)
        elif rung == "greedy":
            expected = twin.greedy_move(nim.GAME, s, r)
        elif spec.agent == "rollout":
            expected = twin.rollout_move(nim.GAME, s, spec.playouts, spec.horizon, r, _guide(spec))
        else:
            expected = twin.mcts_move(
                nim.GAME, s, spec.iterations, spec.horizon, spec.exploration, r, _guide(spec)
            )
        assert compiled == expected, f"position {k}"


def _guide(spec: AgentSpec) -> tuple[int, float, float]:
    return spec.candidates, spec.prior, spec.fallback


def _five_stones() -> np.ndarray:
    """Two seats, five stones, no cards, no chance: only taking one (leaving four) wins."""
    return nim.new_state(2, 5, 30, 0)


def test_greedy_grabs_three_stones_and_loses_the_nim_position():
    s = _five_stones()
    assert {nim.choose(s, _row(RUNGS["greedy"]), _rng(k)) for k in range(20)} == {3}


@pytest.mark.parametrize(
    "spec",
    [
        AgentSpec(agent="rollout", playouts=400, horizon=0),
        AgentSpec(agent="mcts", iterations=1000, horizon=0),
    ],
    ids=["rollout", "mcts"],
)
def test_search_finds_the_move_that_leaves_four_stones(spec):
    # Under random play from 4 stones the mover wins 1/3, from 3 or 2 stones 1/2: taking one is
    # worth 2/3 to the rollout agent against 1/2 for the others (4.7 standard errors at 400
    # playouts); the tree search sees that every reply to 4 stones loses.
    s = _five_stones()
    assert {nim.choose(s, _row(spec), _rng(k)) for k in range(20)} == {1}


@pytest.mark.parametrize(
    "spec",
    [
        AgentSpec(agent="rollout", playouts=400, horizon=0, prior=1.0, fallback=2.0),
        AgentSpec(agent="mcts", iterations=1000, horizon=0, prior=10.0, fallback=2.0),
    ],
    ids=["rollout", "mcts"],
)
def test_search_leaning_on_greedy_still_finds_the_move_greedy_calls_a_trap(spec):
    # Greedy's one-step values rank taking three (0.8) over two (0.75) over one (0.67): the prior
    # pulls towards the trap and the fallback keeps greedy's move unless search is sure. Rollout:
    # one stone beats three by 2/3 - 1/2 in 400 paired playouts, about 4.7 standard errors of the
    # paired difference, against a prior worth one playout; mcts's tree sees every reply lose.
    s = _five_stones()
    assert {nim.choose(s, _row(spec), _rng(k)) for k in range(20)} == {1}


@pytest.mark.parametrize("agent", ["rollout", "mcts"])
def test_pruning_to_greedys_two_best_moves_cuts_the_winning_one(agent):
    # candidates: 2 keeps greedy's two best (three and two stones); one stone is never searched.
    spec = AgentSpec(agent=agent, playouts=400, iterations=1000, horizon=0, candidates=2)
    s = _five_stones()
    assert {nim.choose(s, _row(spec), _rng(k)) for k in range(20)} <= {2, 3}


@pytest.mark.parametrize(
    "spec",
    [
        AgentSpec(agent="rollout", playouts=8, candidates=1),
        AgentSpec(agent="mcts", iterations=60, candidates=1),
        # One playout cannot separate two moves: the fallback keeps greedy's.
        AgentSpec(agent="rollout", playouts=1, horizon=0, fallback=0.1),
        AgentSpec(agent="mcts", iterations=60, horizon=0, fallback=100.0),
    ],
    ids=["rollout_k1", "mcts_k1", "rollout_one_playout", "mcts_sure"],
)
def test_search_plays_greedys_move_when_told_to_keep_only_it_or_cannot_beat_it(spec):
    greedy = _row(RUNGS["greedy"])
    for k, s in enumerate(_positions(40)):
        assert nim.choose(s, _row(spec), _rng(k)) == nim.choose(s, greedy, _rng(k)), k


def _hidden_pair() -> tuple[np.ndarray, np.ndarray]:
    """Two positions that differ only in what seat 0 cannot see: seat 1's card and the deck
    order (the same cards, 1, 2, 3, placed differently)."""
    a = nim.new_state(2, 9, 30, 200)
    b = nim.new_state(2, 9, 30, 200)
    for s, (hand1, deck) in ((a, (3, (1, 2))), (b, (1, (2, 3)))):
        s[nim.HAND + 0] = 2
        s[nim.HAND + 1] = hand1
        s[nim.DECK : nim.DECK + 2] = deck
        s[nim.DECK_LEN] = 2
    return a, b


def test_the_hidden_pair_differs_in_play():
    # The test below has power only if the hidden difference matters: seat 1 can remove three
    # stones and skip seat 0 in one position, one stone in the other.
    a, b = _hidden_pair()
    assert a[nim.HAND + 1] != b[nim.HAND + 1]
    assert sorted([a[nim.HAND + 1], *a[nim.DECK : nim.DECK + 2]]) == sorted(
        [b[nim.HAND + 1], *b[nim.DECK : nim.DECK + 2]]
    )


@pytest.mark.parametrize("rung", RUNGS)
def test_no_rung_reads_what_the_mover_cannot_see(rung):
    a, b = _hidden_pair()
    row = _row(RUNGS[rung])
    for k in range(25):
        assert nim.choose(a, row, _rng(k)) == nim.choose(b, row, _rng(k))


def test_determinize_keeps_the_movers_view_and_resamples_the_rest():
    a, b = _hidden_pair()
    seen = set()
    for k in range(50):
        da = nim.determinize(a, 0, _rng(k))
        assert np.array_equal(da, nim.determinize(b, 0, _rng(k)))
        assert da[nim.HAND + 0] == 2 and da[nim.PILE] == 9
        seen.add((int(da[nim.HAND + 1]), *map(int, da[nim.DECK : nim.DECK + 2])))
    assert len(seen) == 6, "every arrangement of the three unseen cards is sampled"


def test_a_decision_is_reproducible_bit_for_bit():
    s = _positions(10)[3]
    for spec in RUNGS.values():
        row = _row(spec)
        assert nim.choose(s, row, _rng(7)) == nim.choose(s, row, _rng(7))


def test_each_decision_reads_its_own_sub_stream():
    from simulator.agents.streams import decision_seed

    assert decision_seed(np.uint64(99), 5) == np.uint64(twin.decision_seed(99, 5))
    assert decision_seed(np.uint64(99), 5) != decision_seed(np.uint64(99), 6)


def test_the_soft_win_share_is_the_plain_softmax_bit_for_bit():
    # The heuristics' shared softmax (root.hirelings, template.pig): exp((x - best) / t) added
    # and divided in seat order, as the twin computes it; unused slots past ``players`` stay.
    import math

    from simulator.agents.softmax import soft_shares

    x = [3.0, 7.5, -1.25, 7.5]
    out = np.array([*x, 99.0])
    soft_shares(out, 4, 7.5, 2.5)
    terms = [math.exp((v - 7.5) / 2.5) for v in x]
    total = 0.0
    for term in terms:
        total += term
    assert list(out[:4]) == [term / total for term in terms]
    assert out[4] == 99.0


def test_one_agent_or_a_list_of_one_per_seat_is_the_shared_policies_rule():
    from pydantic import ValidationError

    from simulator.procedures import get

    for name in ("root.hirelings", "template.pig"):
        model = get(name).params_model
        assert model.model_validate({"players": 2, "policies": ["greedy", "random"]})
        assert model.model_validate({"players": 3, "policies": "greedy"})
        with pytest.raises(ValidationError, match=r"one agent per seat \(3 seats, got 2\)"):
            model.model_validate({"players": 3, "policies": ["greedy", "random"]})
