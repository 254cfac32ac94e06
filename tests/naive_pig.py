"""A plain-Python twin of the Pig kernel (Pig rules) under random play, reading the same words.

It plays one trial the way a person reads the rules (docs/rules/pig.md) and returns the trial's
metric values in the order of ``metrics()``: each seat's win, the draw, the turns played, the
turns lost to a 1.
"""

from __future__ import annotations

import numpy as np

from tests.naive import MASK, mix64
from tests.naive_agents import below, decision_seed

ROLL, HOLD = 0, 1


def template_pig(p: dict, key: int, trial: int) -> list[int]:
    """One game of Pig with every seat random: the metric values."""
    players, target = p.get("players", 2), p.get("target", 100)
    max_turns = p.get("max_turns", 200)
    seed = mix64(key ^ mix64((trial + 1) & MASK))
    dice = np.array([seed], dtype=np.uint64)  # the game's stream: every die
    scores = [0] * players
    winner, pigs, turn, seat, decisions = -1, 0, 0, 0, 0
    while turn < max_turns and winner < 0:
        points = 0
        rolling = True
        while rolling:
            face = 1 + below(dice, 6)  # §2: a turn starts with a roll
            if face == 1:
                pigs += 1
                break
            points += face
            choice = np.array([decision_seed(seed, decisions)], dtype=np.uint64)
            decisions += 1
            if below(choice, 2) == HOLD:  # random: roll or hold, evenly
                scores[seat] += points
                rolling = False
                if scores[seat] >= target:  # §3: the target wins at once
                    winner = seat
        if winner >= 0:
            turn += 1
            break
        turn += 1
        seat = (seat + 1) % players
    wins = [int(winner == o) for o in range(players)]
    return [*wins, int(winner < 0), turn, pigs]
