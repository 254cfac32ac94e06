"""A peer on the same rules: OpenSpiel's Pig beside ``sim``'s, each measured against the optimum.

OpenSpiel's Pig lets a turn open with a stop; ``sim`` plays it with ``opening: stop`` (Pig rules
§2 read as OpenSpiel reads it), so both play one game: 2 players, to 100. Rows:

- random games per CPU-second: ``sim``'s kernel (the engine, one thread) against OpenSpiel's
  games played from Python through ``pyspiel`` (its C++ state, one call per action);
- MCTS at equal budgets (200 iterations, random playouts to the end: OpenSpiel's ``MCTSBot``
  with a ``RandomRolloutEvaluator``, ``sim``'s ``mcts`` with ``horizon: 0``) against a random
  seat, both seat orders, beside optimal play's exact share against random under these rules
  (the solver's), and the CPU each spends per game;
- ``sim``'s mcts at OpenSpiel's CPU per game (its iterations scaled to spend as much), head to
  head against optimal play;
- each MCTS head to head against optimal play (the solved table; for OpenSpiel, a bot that looks
  the table up from the OpenSpiel state): 1/2 is as good as optimal.

Needs the ``bench`` extra (``pip install -e .[bench]``: ``open-spiel``); without it the rows say
so. OpenSpiel's MCTS is Python and spends seconds per game: ``quick`` plays a handful of games.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from bench.harness import Row

TARGET = 100
ITERATIONS = 200


def _rules(policies: Any) -> dict[str, Any]:
    return {"players": 2, "target": TARGET, "opening": "stop", "policies": policies}


def _sim_share(policies: list[Any], games: int, seed: int = 1) -> tuple[float, float]:
    """Seat-averaged share of ``policies[0]``'s rung against ``policies[1]``'s (both orders)
    and the CPU seconds per game."""
    from bench.harness import plan_for
    from simulator.engine import run_range

    wins = 0.0
    start = time.process_time()
    for order, seat in ((policies, 0), (policies[::-1], 1)):
        stats = run_range(plan_for("template.pig", _rules(order), seed), -1, 0, games)
        wins += stats[0, 4 * seat + 1]
    return wins / (2 * games), (time.process_time() - start) / (2 * games)


def _interval(p: float, n: int) -> str:
    half = 1.96 * math.sqrt(max(p * (1 - p), 1e-12) / n)
    return f"{p:.3f} ± {half:.3f} ({n} games)"


class _TableBot:
    """Optimal play in OpenSpiel's Pig: the solved move at the state's key."""

    def __init__(self, moves: np.ndarray) -> None:
        self.moves = moves

    def step(self, state: Any) -> int:
        from simulator.solver.values import key_of

        text = str(state).split()
        a, b, k = int(text[1]), int(text[2].rstrip(",")), int(text[5])
        seat = state.current_player()
        mine = a if seat == 0 else b
        return int(self.moves[key_of(seat, a, b, min(k, TARGET - mine), TARGET)])


class _RandomBot:
    def __init__(self, rng: np.random.RandomState) -> None:
        self.rng = rng

    def step(self, state: Any) -> int:
        return int(self.rng.choice(state.legal_actions()))


def _os_play(game: Any, bots: list[Any], rng: np.random.RandomState) -> tuple[int, list[float]]:
    """One OpenSpiel game: the winner's seat (-1 for none) and each seat's CPU seconds."""
    state = game.new_initial_state()
    spent = [0.0, 0.0]
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        seat = state.current_player()
        start = time.process_time()
        action = bots[seat].step(state)
        spent[seat] += time.process_time() - start
        state.apply_action(action)
    returns = state.returns()
    return (int(np.argmax(returns)) if max(returns) > 0 else -1), spent


def _os_share(game: Any, make: Any, rival: Any, games: int) -> tuple[float, float]:
    """OpenSpiel: the share of ``make()``'s bot against ``rival()``'s, both seat orders, and
    its CPU seconds per game."""
    rng = np.random.RandomState(7)
    wins, spent = 0.0, 0.0
    for g in range(games):
        first = g % 2 == 0
        bot, other = make(rng), rival(rng)
        seat = 0 if first else 1
        winner, cpu = _os_play(game, [bot, other] if first else [other, bot], rng)
        wins += winner == seat
        spent += cpu[seat]
    return wins / games, spent / games


def _os_random_rate(game: Any, games: int) -> float:
    rng = np.random.RandomState(3)
    start = time.process_time()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(rng.randint(6)))
            else:
                state.apply_action(int(rng.randint(2)))
    return games / (time.process_time() - start)


def rows(quick: bool) -> list[Row]:
    from bench.harness import plan_for
    from simulator.engine import run_range
    from simulator.solver.pig import solve
    from simulator.solver.pig_exact import win_probability

    try:
        import pyspiel
        from open_spiel.python.algorithms import mcts
    except ImportError:
        return [Row("peer_pig: OpenSpiel not installed (pip install -e .[bench])", 0.0, "-")]
    game = pyspiel.load_game("pig", {"players": 2, "winscore": TARGET})
    out = []

    trials = 2_000 if quick else 20_000
    plan = plan_for("template.pig", _rules("random"))
    run_range(plan, -1, 0, 10)  # compiled or loaded before the clock starts
    start = time.process_time()
    run_range(plan, -1, 0, trials)
    sim_rate = trials / (time.process_time() - start)
    os_rate = _os_random_rate(game, 200 if quick else 2_000)
    out.append(
        Row("peer_pig random games/CPU-s (sim | OpenSpiel from Python)", sim_rate, "games/s",
            os_rate, "OpenSpiel", ">= 5x OpenSpiel", sim_rate >= 5 * os_rate)
    )  # fmt: skip

    first = win_probability(TARGET, ("optimal", "random"), opening_stop=True)
    second = 1 - win_probability(TARGET, ("random", "optimal"), opening_stop=True)
    exact = (first + second) / 2
    os_games = 4 if quick else 40  # OpenSpiel's MCTS(200): ~8 CPU-s a game
    sim_games = 200 if quick else 2_000
    eq_games = 2 if quick else 20  # per seat order, at OpenSpiel's CPU per game

    def os_bot(rng: np.random.RandomState, sims: int = ITERATIONS) -> Any:
        return mcts.MCTSBot(game, 1.4, sims, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)

    os_share, os_cpu = _os_share(game, os_bot, _RandomBot, os_games)
    spec = {"agent": "mcts", "iterations": ITERATIONS, "horizon": 0}
    sim_share, sim_cpu = _sim_share([spec, "random"], sim_games)
    out.append(
        Row(f"peer_pig MCTS({ITERATIONS}) vs random, share (sim | OpenSpiel); optimal "
            f"{exact:.3f} exact; sim {_interval(sim_share, 2 * sim_games)}, OpenSpiel "
            f"{_interval(os_share, os_games)}", sim_share, "share", os_share, "OpenSpiel")
    )  # fmt: skip
    out.append(
        Row(f"peer_pig MCTS({ITERATIONS}) CPU per game vs random (sim | OpenSpiel)",
            sim_cpu, "s", os_cpu, "OpenSpiel")
    )  # fmt: skip
    scaled = int(min(50_000, max(ITERATIONS, ITERATIONS * os_cpu / max(sim_cpu, 1e-9))))
    spec_cpu = {"agent": "mcts", "iterations": scaled, "horizon": 0}
    eq_share, eq_cpu = _sim_share([spec_cpu, "optimal"], eq_games)
    out.append(
        Row(f"peer_pig sim mcts({scaled}) at OpenSpiel's CPU per game ({eq_cpu:.2f} s), "
            f"head to head vs optimal {_interval(eq_share, 2 * eq_games)}",
            eq_share, "share")
    )  # fmt: skip

    table = solve(TARGET, True).moves
    h2h_sim, _ = _sim_share([spec, "optimal"], sim_games)
    h2h_os, _ = _os_share(game, os_bot, lambda rng: _TableBot(table), os_games)
    out.append(
        Row(f"peer_pig MCTS({ITERATIONS}) head to head vs optimal (1/2 = optimal; sim "
            f"{_interval(h2h_sim, 2 * sim_games)}, OpenSpiel {_interval(h2h_os, os_games)})",
            h2h_sim, "share", h2h_os, "OpenSpiel")
    )  # fmt: skip
    return out
