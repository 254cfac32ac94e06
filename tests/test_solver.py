"""The exact solver (simulator.solver) and the optimal rung: Pig worked by hand, the table agent
against the solved values, reproducibility, and a game too large refused."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from simulator.agents.table import pack_moves, table_move
from simulator.cli import app
from simulator.engine import make_plan, run_range, simulate
from simulator.procedures import get
from simulator.procedures.template.pig.game import GAME, deal
from simulator.procedures.template.pig.state import H_SEAT, H_TURN_TOTAL, S_SCORE
from simulator.solver import STATE_LIMIT
from simulator.solver.pig import solve, state_count
from simulator.solver.pig_exact import greedy_holds, win_probability
from simulator.solver.values import key_of

PROC = get("template.pig")
#: The smallest target a scenario takes: its games are short, its table 17,640 keys.
TARGET = 20


def _plan(policies, target=TARGET, seed=45):
    p = PROC.params_model.model_validate({"target": target, "policies": policies})
    return make_plan(PROC, {"base": p}, seed=seed)


def _seat1_share(stats: np.ndarray, trials: int) -> tuple[float, float]:
    """Seat 1's win share (``wins.seat1``, the first metric) and its standard error."""
    share = stats[0, 1] / trials
    return share, float(np.sqrt(share * (1 - share) / trials))


def test_pig_to_three_worked_by_hand():
    """Pig to 3. Banked scores are 0 or 2 (a banked turn is at least 2). ``W(a, b)``: the chance
    that the seat starting its turn with ``a`` against ``b`` wins. With 2 banked any face but a 1
    wins: ``W(2, b) = 5/6 + (1 - W(b, 2))/6``, so ``W(2, 2) = 6/7``. From 0, a 2 leaves the choice
    of banking it or rolling on (a bust 1/6, else a win), a 3 to 6 wins at once:
    ``W(0, b) = (1 - W(b, 0))/6 + max(1 - W(b, 2), 5/6 + (1 - W(b, 0))/6)/6 + 4/6``. Rolling on is
    better in both cases, which leaves two linear equations: ``W(0, 2) = 174/209`` and
    ``W(0, 0) = 36/43``."""
    w22 = Fraction(6, 7)
    x = Fraction(174, 209)  # W(0, 2): x = x/36 + 5/36 + x/216 + 2/3
    assert x == x / 36 + Fraction(5, 36) + x / 216 + Fraction(2, 3)
    w20 = 1 - x / 6
    y = Fraction(36, 43)  # W(0, 0): y = (1 - y)/6 + (5/6 + (1 - y)/6)/6 + 4/6
    assert y == (1 - y) / 6 + (Fraction(5, 6) + (1 - y) / 6) / 6 + Fraction(4, 6)
    assert 1 - w22 < Fraction(5, 6) + (1 - w20) / 6  # rolling on beats banking the 2
    v = solve(3).values
    seat2 = 1 - v  # seat 2's chance where seat 2 is to move
    assert v[key_of(0, 0, 0, 0, 3)] == pytest.approx(float(y), abs=1e-9)
    assert v[key_of(0, 0, 2, 0, 3)] == pytest.approx(float(x), abs=1e-9)
    assert v[key_of(0, 2, 0, 0, 3)] == pytest.approx(float(w20), abs=1e-9)
    assert v[key_of(0, 2, 2, 0, 3)] == pytest.approx(float(w22), abs=1e-9)
    assert seat2[key_of(1, 0, 0, 0, 3)] == pytest.approx(float(y), abs=1e-9), "the seats alike"
    assert solve(3).moves[key_of(0, 0, 0, 2, 3)] == 0, "with 2 unbanked, roll on"
    assert solve(3).moves[key_of(0, 0, 0, 3, 3)] == 1, "with 3 unbanked, hold and win"


def test_pig_to_two_worked_by_hand():
    """Pig to 2: any face but a 1 is enough. Optimal seats: ``W = 5/6 + (1 - W)/6``, so 6/7.
    Random seats hold or roll on half the time each: with ``X`` seat 1's chance at its decision
    and ``S`` at its turn's start, ``X = 1/2 + (1/6 (1 - S) + 5/6 X)/2`` and
    ``S = (1 - S)/6 + 5/6 X``, so ``S = 7/9``. Optimal seat 1 against random: seat 1 holds at
    once, ``S = 5/6 + R/6``, and from seat 2's start ``R = S/6 + 5/6 X2`` with
    ``X2 = (S/6 + 5/6 X2)/2`` (seat 2 holds and wins half the time), so ``X2 = S/7``,
    ``R = 2S/7`` and ``S = 7/8``."""
    assert solve(2).first_player == pytest.approx(6 / 7, abs=1e-9)
    assert win_probability(2, ("random", "random")) == pytest.approx(7 / 9, abs=1e-9)
    assert win_probability(2, ("optimal", "random")) == pytest.approx(7 / 8, abs=1e-9)


def test_pig_to_100_is_neller_and_pressers_value():
    """Neller and Presser (2004): under optimal play to 100 the first player wins 0.5306."""
    assert solve(100).first_player == pytest.approx(0.5306, abs=5e-5)


def test_the_state_key_is_the_solvers_key():
    """The game interface's ``state_key`` of dealt positions equals the solver's key, the turn's
    points capped at what the mover needs."""
    p = PROC.params_model.model_validate({"target": TARGET})
    s = deal(PROC.pack(p), np.array([5], dtype=np.uint64))
    for seat, a, b, k in [(0, 0, 0, 2), (1, 7, 19, 4), (0, 19, 3, 30), (1, 0, 12, 8)]:
        s[H_SEAT], s[S_SCORE], s[S_SCORE + 1], s[H_TURN_TOTAL] = seat, a, b, k
        mine = a if seat == 0 else b
        assert GAME.state_key(s) == key_of(seat, a, b, min(k, TARGET - mine), TARGET)


def test_packed_moves_read_back():
    rng = np.random.default_rng(1)
    for bits in (1, 2, 3):
        moves = rng.integers(0, 1 << bits, size=1000)
        table = pack_moves(moves, bits)
        assert [table_move(table, k) for k in range(1000)] == moves.tolist()


def test_optimal_self_play_matches_the_exact_value():
    """Both seats optimal at target 20: seat 1's share is the solved value within 5 SE."""
    trials = 4000
    share, se = _seat1_share(run_range(_plan("optimal"), -1, 0, trials), trials)
    exact = solve(TARGET).first_player
    assert abs(share - exact) < 5 * se, (share, exact, se)


@pytest.mark.parametrize(
    "policies", [["optimal", "random"], ["greedy", "optimal"], ["greedy", "random"]]
)
def test_policy_evaluation_matches_play(policies):
    """The exact share of fixed policies (random; greedy's move summed over the dice it compares
    on) equals the kernel's estimate within 5 SE."""
    trials = 4000
    share, se = _seat1_share(run_range(_plan(policies), -1, 0, trials), trials)
    exact = win_probability(TARGET, tuple(policies))
    assert abs(share - exact) < 5 * se, (share, exact, se)


def test_greedy_holds_where_a_hold_wins_and_where_its_dice_say():
    """Greedy always holds when a hold wins. With 2 points at the game's start it holds exactly
    when the dice it compares both moves on make the roll lose the turn and give the hold's
    turn back: a 1 first (the roll's bust, the next seat's bust after the hold), then an even
    number of 1s before another face, 1/6 · 6/7 = 1/7 (the one-step lookahead sees the dice)."""
    holds = greedy_holds(TARGET)
    assert holds[key_of(0, 15, 0, 5, TARGET)] == pytest.approx(1.0, abs=1e-12)
    assert holds[key_of(1, 0, 18, 2, TARGET)] == pytest.approx(1.0, abs=1e-12)
    assert holds[key_of(0, 0, 0, 2, TARGET)] == pytest.approx(1 / 7, abs=1e-12)
    assert holds.min() >= 0.0 and holds.max() <= 1.0 + 1e-12


@pytest.mark.parametrize(
    "rival",
    ["random", "greedy", {"agent": "rollout", "playouts": 4}, {"agent": "mcts", "iterations": 50}],
)
def test_optimal_never_loses_in_expectation_head_to_head(rival):
    """From either seat on the same deals, optimal's mean share against a rung is at least 1/2
    within 5 SE."""
    trials = 1500
    a, _ = _seat1_share(run_range(_plan(["optimal", rival]), -1, 0, trials), trials)
    b, _ = _seat1_share(run_range(_plan([rival, "optimal"]), -1, 0, trials), trials)
    mean = (a + (1 - b)) / 2
    se = np.sqrt(0.25 / (2 * trials))  # at most, for shares of independent games
    assert mean > 0.5 - 5 * se, (a, b)


def test_the_same_numbers_on_one_and_two_threads():
    plan = _plan(["optimal", "greedy"])
    one = simulate(plan, 600, threads=1, chunk_size=600).stats
    two = simulate(plan, 600, threads=2, chunk_size=50).stats
    np.testing.assert_array_equal(one, two)


def test_a_game_too_large_is_refused_with_its_state_count(tmp_path):
    assert state_count(2, 200) > STATE_LIMIT
    with pytest.raises(ValidationError, match="16,080,000"):
        PROC.params_model.model_validate({"target": 200, "policies": "optimal"})
    with pytest.raises(ValidationError, match="two-player"):
        PROC.params_model.model_validate({"players": 3, "target": 20, "policies": "optimal"})
    path = tmp_path / "big.yaml"
    path.write_text(
        "name: big\nprocedure: template.pig\ntrials: 10\nseed: 1\n"
        "params: {players: 2, target: 200, policies: optimal}\n"
    )
    result = CliRunner().invoke(app, ["run", str(path), "-q"], catch_exceptions=False)
    assert result.exit_code == 2
    assert "16,080,000" in result.stderr


def test_optimal_is_refused_in_a_game_without_a_solver():
    with pytest.raises(ValidationError, match="exact solver"):
        get("root.hirelings").params_model.model_validate({"policies": "optimal"})


def test_opening_stop_opens_a_turn_with_a_choice_and_a_hold_at_zero_passes_the_die():
    """``opening: stop`` (OpenSpiel's Pig): the first decision is at 0 points, no die read; a
    hold there banks nothing and passes the die, and the next seat decides at 0 too."""
    p = PROC.params_model.model_validate({"target": TARGET, "opening": "stop"})
    rng = np.array([11], dtype=np.uint64)
    s = deal(PROC.pack(p), rng)
    assert (s[H_SEAT], s[H_TURN_TOTAL], s[S_SCORE], rng[0]) == (0, 0, 0, 11)
    GAME.apply_move(s, 1, rng)
    assert (s[H_SEAT], s[H_TURN_TOTAL], s[S_SCORE], rng[0]) == (1, 0, 0, 11)


def test_opening_stop_changes_nothing_under_optimal_play_and_matches_play():
    """Optimal play never holds at 0, so the first player's value is the same under both
    openings; random holds there half the time, and optimal against it plays as solved."""
    assert solve(TARGET, True).first_player == pytest.approx(solve(TARGET).first_player, abs=1e-12)
    trials = 4000
    p = PROC.params_model.model_validate(
        {"target": TARGET, "opening": "stop", "policies": ["optimal", "random"]}
    )
    stats = run_range(make_plan(PROC, {"base": p}, seed=9), -1, 0, trials)
    share, se = _seat1_share(stats, trials)
    exact = win_probability(TARGET, ("optimal", "random"), opening_stop=True)
    assert exact != pytest.approx(win_probability(TARGET, ("optimal", "random")), abs=1e-3)
    assert abs(share - exact) < 5 * se, (share, exact, se)


def test_a_tournament_reports_each_entrants_gap_to_optimal():
    """With an optimal entrant, the tournament summary holds each entrant's share against it and,
    against random and greedy, optimal's exact share (both seat orders averaged)."""
    from simulator.runner import run_scenario
    from simulator.scenario import Scenario
    from simulator.tournament.analysis import summaries
    from simulator.tournament.procedure import tournament_procedure
    from simulator.tournament.spec import TournamentSpec

    spec = TournamentSpec.model_validate(
        {"agents": {"random": "random", "greedy": "greedy", "optimal": "optimal"}}
    )
    proc = tournament_procedure(PROC, spec)
    base = PROC.params_model.model_validate({"target": TARGET})
    result = run_scenario(Scenario("t.yaml", "t", proc, 300, 5, "", {"base": base}, {}), threads=1)
    gaps = summaries(result)["base"]["optimal"]
    assert gaps["entrant"] == "optimal"
    assert set(gaps["head_to_head"]) == {"random", "greedy"}
    for rival in ("random", "greedy"):
        first = win_probability(TARGET, ("optimal", rival))
        second = 1 - win_probability(TARGET, (rival, "optimal"))
        against = gaps["against"][rival]
        assert against["optimal_exact"] == pytest.approx((first + second) / 2, abs=1e-12)
        measured = against["optimal_measured"]
        assert measured["ci_low"] - 0.05 < against["optimal_exact"] < measured["ci_high"] + 0.05
    row = gaps["against"]["random"]["entrants"]["greedy"]
    assert row["gap"] == pytest.approx(gaps["against"]["random"]["optimal_exact"] - row["mean"])
    assert gaps["head_to_head"]["random"]["mean"] < 0.5
