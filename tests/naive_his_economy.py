"""Plain-Python twins of the Here I Stand economy kernels (piracy, New World, pregnancy, chateaux).

Each twin plays one trial as a person reads Here I Stand rules §11.2 and §5.9-5.11, reading the same
random words as the kernel, and returns the metric values in the order of the procedure's
``metrics()``.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from simulator.procedures.his.new_world import DISCOVERIES as GAME_DISCOVERIES
from simulator.procedures.his.new_world import POWERS as GAME_POWERS
from tests.naive import Stream, d6, dice_of_words, halves, word
from tests.naive_agents import _argmax_random_ties, below, decision_seed

UNDEFINED = -(2**62)


# --- Here I Stand rules §13.1 Henry VIII ----------------------------------------------------------


def his_pregnancy(p: dict, key: int, trial: int) -> list[int]:
    """One game of Henry VIII's marriages."""
    wives_at = set(p["wife_steps"])
    step = 0
    seen: set[str] = set()
    wives = 0
    edward_by_turn = []
    for _turn in range(p["turns"]):
        extra_advance_pending = False
        advances_left = p["uses_per_turn"]
        while advances_left > 0 and "healthy Edward" not in seen:
            advances_left -= 1
            step += 1
            if step in wives_at:
                face = d6(halves(word(key, trial, wives))[0])
                wives += 1
                result = _pregnancy_chart(face, seen, p["nothing_repeats"])
                seen.add(result)
                if result == "advance again":
                    extra_advance_pending = True
            if advances_left == 0 and extra_advance_pending:
                # England's first pass comes after the turn's uses of the home card.
                extra_advance_pending = False
                advances_left = 1
        edward_by_turn.append(int("sickly Edward" in seen or "healthy Edward" in seen))
    edward = "sickly Edward" in seen or "healthy Edward" in seen
    if edward:
        vp = 5
    elif "Elizabeth" in seen:
        vp = 2
    else:
        vp = 0
    return [
        int(edward),
        int("healthy Edward" in seen),
        int("Elizabeth" in seen),
        vp,
        wives,
        *edward_by_turn,
    ]


CHART = {
    1: "nothing",
    2: "nothing",
    3: "advance again",
    4: "Elizabeth",
    5: "sickly Edward",
    6: "healthy Edward",
}


def _pregnancy_chart(face: int, seen: set[str], nothing_repeats: bool) -> str:
    while True:
        result = CHART[face]
        if result not in seen or (result == "nothing" and nothing_repeats):
            return result
        face = max(face, 2) + 1


# --- Here I Stand rules §11.2 Piracy --------------------------------------------------------------


def his_piracy(p: dict, key: int, trial: int) -> list[int]:
    """One turn of Ottoman raids."""
    hit_on = p.get("hit_on", 5)
    x = p.get("pirate_rating", 0)
    order = p.get("choice_order", ["squadron", "card", "vp"])
    per_raid = []
    for r, raid in enumerate(p["raids"]):
        target = raid["target"]
        resistance = (
            2 * target.get("squadrons_in_sea", 0)
            + target.get("adjacent_squadrons", 0)
            + raid.get("enemy_adjacent_squadrons", 0)
            + target.get("adjacent_fortress_ports", 0)
            + (1 if target.get("knights_adjacent", False) else 0)
        )
        resistance_dice = dice_of_words(key, trial, 64 * r, resistance)
        corsairs_sunk = min(sum(f >= hit_on for f in resistance_dice), raid["corsairs"])
        survivors = raid["corsairs"] - corsairs_sunk
        result = {"squadron": 0, "card": 0, "vp": 0}
        hits = 0
        if survivors > 0:
            one_port = target.get("ports_on_sea", 2) == 1
            dice = (1 if survivors == 1 or one_port else 2) + x
            hits = sum(f >= hit_on for f in dice_of_words(key, trial, 64 * r + 48, dice))
            squadrons = target.get("squadrons_available")
            if squadrons is None:
                squadrons = target.get("squadrons_in_sea", 0) + target.get("adjacent_squadrons", 0)
            cards = target.get("cards_in_hand", 5)
            chosen_this_round: set[str] = set()
            for _ in range(hits):
                possible = [
                    o
                    for o in order
                    if not (o == "squadron" and result["squadron"] == squadrons)
                    and not (o == "card" and result["card"] == cards)
                ]
                if all(o in chosen_this_round for o in possible):
                    chosen_this_round = set()
                choice = next(o for o in possible if o not in chosen_this_round)
                chosen_this_round.add(choice)
                result[choice] += 1
        per_raid.append(
            [
                corsairs_sunk,
                int(survivors > 0),
                hits,
                result["vp"],
                result["card"],
                result["squadron"],
                int(result["vp"] + result["card"] + result["squadron"] == 0),  # gained nothing
                int(result["vp"] >= 1),
            ]
        )
    totals = [sum(raid[k] for raid in per_raid) for k in range(8)]
    turn = [int(all(raid[6] for raid in per_raid)), int(any(raid[7] for raid in per_raid))]
    return totals + [x for raid in per_raid for x in raid] + turn


# --- Here I Stand rules §12 New World -------------------------------------------------------------

# The names are data shared with the kernel (their order is the packed encoding).
POWERS, DISCOVERIES = GAME_POWERS, GAME_DISCOVERIES
VP = {
    "st_lawrence": 1,
    "great_lakes": 1,
    "mississippi": 1,
    "amazon": 2,
    "pacific_strait": 1,
    "circumnavigation": 3,
    "maya": 1,
    "aztecs": 2,
    "inca": 2,
}


def _bought(schedule, turn: int) -> bool:
    return schedule == "every" or turn in schedule


def _two_dice(stream: Stream) -> int:
    lo, hi = halves(stream.next())
    return d6(lo) + d6(hi)


def _draw(stream: Stream, pool: list[int]) -> int:
    """Index of a uniformly drawn member of pool (the kernels' multiply-shift)."""
    lo, _ = halves(stream.next())
    return lo * len(pool) >> 32


def _leave(pool: list[int], index: int) -> None:
    """Take pool[index] out (the last member fills its place, as in the kernel)."""
    pool[index] = pool[-1]
    pool.pop()


def _explore(total: int, claimed: set[str], choice: str) -> str:
    if total <= 4:
        return "lost"
    if total in (5, 6):
        return "returns"
    result = {7: "st_lawrence", 8: "great_lakes", 9: "mississippi"}.get(total, "south america")
    while True:
        if result == "south america":
            options = {
                "amazon": ["amazon", "pacific_strait"],
                "pacific_strait": ["pacific_strait", "amazon"],
                "safe_north_america": [
                    "amazon",
                    "mississippi",
                    "great_lakes",
                    "st_lawrence",
                    "pacific_strait",
                ],
            }[choice]
            options = [o for o in options if o not in claimed]
            if options:
                return options[0]
            result = "mississippi"  # any North American discovery: step down from 9
        if result == "returns":
            return result
        if result not in claimed:
            return result
        result = {
            "mississippi": "great_lakes",
            "great_lakes": "st_lawrence",
            "st_lawrence": "returns",
        }[result]


def _conquer(total: int, claimed: set[str]) -> str:
    if total <= 6:
        return "lost"
    if total <= 8:
        return "returns"
    result = {9: "maya", 10: "aztecs"}.get(total, "inca")
    while result != "returns" and result in claimed:
        result = {"inca": "aztecs", "aztecs": "maya", "maya": "returns"}[result]
    return result


def _open_options(claimed: set[str]) -> list[str]:
    """What an explorer on 10+ may take (Here I Stand rules §12.2 (1)): the Amazon, the Strait, or
    instead a North American discovery (the first the step-down from 9 reaches)."""
    options = [d for d in ("amazon", "pacific_strait") if d not in claimed]
    north = [d for d in ("mississippi", "great_lakes", "st_lawrence") if d not in claimed]
    return options + north[:1]


def _standing(vp: dict, w: str, gain: int, objective: str) -> Fraction:
    """What power w's objective is worth once it gained ``gain`` VP."""
    if objective == "vp":
        return Fraction(gain)
    after = {**vp, w: vp[w] + gain}
    if objective == "vp_share":
        return Fraction(after[w], sum(after.values()))
    top = max(after.values())
    if after[w] < top:
        return Fraction(0)
    return Fraction(1, sum(v == top for v in after.values()))


def _greedy_value(option: str, vp: dict, w: str, rating: int, objective: str) -> Fraction:
    if option == "pacific_strait":
        # 1 VP now; the circumnavigation (2d6 + rating >= 10) adds 3 more.
        success = Fraction(sum(a + b + rating >= 10 for a in range(1, 7) for b in range(1, 7)), 36)
        return success * _standing(vp, w, 4, objective) + (1 - success) * _standing(
            vp, w, 1, objective
        )
    return _standing(vp, w, VP[option], objective)


def _agent_choice(agent: str, objective: str, options, vp, w, rating, seed: int) -> str:
    """The random or greedy agent's option, its randomness from decision sub-stream ``seed``."""
    rng = np.array([seed], dtype=np.uint64)
    if agent == "random":
        return options[below(rng, len(options))]
    values = [_greedy_value(option, vp, w, rating, objective) for option in options]
    return _argmax_random_ties(values, options, rng)  # exact fractions: ties are exact


def his_new_world(p: dict, key: int, trial: int) -> list[int]:
    """One whole game of the New World race."""
    stream = Stream(key, trial)
    trial_seed = stream.state
    decisions = 0
    policies = p.get("policies")
    if policies is None:
        agents = dict.fromkeys(POWERS)
    else:
        listed = policies if isinstance(policies, list) else [policies] * 3
        names = [a if isinstance(a, str) else a["agent"] for a in listed]
        agents = dict(zip(POWERS, names, strict=True))
    chose = {(o, w): 0 for o in ("amazon", "pacific_strait", "north_america") for w in POWERS}
    riches = {t: row["outcome"] for row in p["riches"] for t in range(row["low"], row["high"] + 1)}
    plans = {w: p[w] for w in POWERS}
    explorers = {w: list(plans[w]["explorers"]) for w in POWERS}
    conquistadors = list(plans["habsburg"].get("conquistadors", []))
    # England's and France's conquest marker, a conquistador of rating 0 (Here I Stand rules
    # §12.2 (2)): in play until the conquest_marker reading takes it out.
    marker = {"england": True, "france": True}
    colonies = {w: plans[w]["colonies"] for w in POWERS}
    # Each conquest held, by the VP it gave (those held at the start gave none counted here).
    conquests = {w: [0] * plans[w]["conquests"] for w in POWERS}
    vp = dict.fromkeys(POWERS, 0)
    cards = dict.fromkeys(POWERS, 0)  # from riches
    circ_cards = dict.fromkeys(POWERS, 0)
    cp = dict.fromkeys(POWERS, 0)
    lost = dict.fromkeys(POWERS, 0)
    skipped = dict.fromkeys(POWERS, 0)
    explored_before = set(p["already_explored"])
    claimed = set(p["already_claimed"])
    first: dict[str, tuple[str, int]] = {}
    gap_conquest = gap_colony = 0

    def claim(d: str, w: str, turn: int) -> None:
        claimed.add(d)
        first[d] = (w, turn)
        vp[w] += VP[d]

    for turn in range(1, p["turns"] + 1):
        # Card draw phase: riches.
        galleons_out = p["galleons_turn"] is not None and turn >= p["galleons_turn"]
        for w in POWERS:
            galleons = galleons_out and w in p["galleons_powers"]
            colonies_gone = 0
            for _ in range(colonies[w]):
                outcome = riches[_two_dice(stream)]
                if outcome == "destroyed":
                    colonies_gone += 1
                elif outcome == "card_depleted":
                    gap_colony += 1
                    cards[w] += 1
                    if p["colony_depleted"] == "card_removed":
                        colonies_gone += 1
                elif outcome == "card" or (outcome == "galleons_card" and galleons):
                    cards[w] += 1
            still_held = []
            for conquest_vp in conquests[w]:
                outcome = riches[_two_dice(stream)]
                if outcome == "destroyed":
                    gap_conquest += 1
                    if p["conquest_destroyed"] == "removed":
                        continue
                elif outcome == "card_depleted":
                    cards[w] += 1
                    if p.get("depleted_conquest_vp", "kept") == "lost":
                        vp[w] -= conquest_vp
                    continue
                elif outcome == "card" or (outcome == "galleons_card" and galleons):
                    cards[w] += 1
                still_held.append(conquest_vp)
            colonies[w] -= colonies_gone
            conquests[w] = still_held
        # Action phase.
        for w in POWERS:
            if _bought(plans[w]["colonize"], turn):
                colonies[w] += 1
                cp[w] += 2 if w == "habsburg" else 3
        # New World phase: explorations.
        exploring = []
        for w in POWERS:
            if _bought(plans[w]["explore"], turn):
                if not explorers[w]:
                    skipped[w] += 1
                    continue
                index = _draw(stream, explorers[w])
                exploring.append((w, index, explorers[w][index]))
                cp[w] += 2
        exploring.sort(key=lambda e: (-e[2], POWERS.index(e[0])))
        for w, index, rating in exploring:
            total = _two_dice(stream) + rating
            if w not in explored_before:
                total -= p["first_exploration_penalty"]
                explored_before.add(w)
            result = _explore(total, claimed, p["south_america"])
            options = _open_options(claimed) if total >= 10 else []
            if len(options) >= 2:
                if agents[w] is not None:
                    seed = decision_seed(trial_seed, decisions)
                    decisions += 1
                    result = _agent_choice(
                        agents[w], p.get("objective", "vp"), options, vp, w, rating, seed
                    )
                kind = result if result in ("amazon", "pacific_strait") else "north_america"
                chose[(kind, w)] += 1
            leaves = result != "returns"
            if result == "lost":
                lost[w] += 1
            elif result != "returns":
                claim(result, w, turn)
                leaves = not p["discoverers_return"]
                if result == "pacific_strait":
                    circumnavigation = _two_dice(stream) + rating
                    if circumnavigation <= 9:
                        lost[w] += 1
                        leaves = True
                    else:
                        claim("circumnavigation", w, turn)
                        if circumnavigation >= 12:
                            circ_cards[w] += 1
            if leaves:
                _leave(explorers[w], index)
        # ... conquests.
        conquering = []
        for w in POWERS:
            if _bought(plans[w]["conquer"], turn):
                if w != "habsburg":
                    if not marker[w]:
                        skipped[w] += 1
                        continue
                    conquering.append((w, None, 0))
                    cp[w] += 4
                elif not conquistadors:
                    skipped[w] += 1
                else:
                    index = _draw(stream, conquistadors)
                    conquering.append((w, index, conquistadors[index]))
                    cp[w] += 4
        tie = ("habsburg", "england", "france")
        conquering.sort(key=lambda c: (-c[2], tie.index(c[0])))
        for w, index, rating in conquering:
            result = _conquer(_two_dice(stream) + rating, claimed)
            leaves = result == "lost"
            if result not in ("lost", "returns"):
                claim(result, w, turn)
                conquests[w].append(VP[result])
                leaves = not p["discoverers_return"]
            if w == "habsburg" and leaves:
                _leave(conquistadors, index)
            elif w != "habsburg":
                mode = p.get("conquest_marker", "conquistador")
                if (mode == "conquistador" and leaves) or (mode == "returns" and result == "lost"):
                    marker[w] = False
    out = [vp[w] for w in POWERS] + [cards[w] + circ_cards[w] for w in POWERS]
    out += [lost[w] for w in POWERS]
    out += [int(d in first and first[d][0] == w) for d in DISCOVERIES for w in POWERS]
    out += [first[d][1] if d in first else UNDEFINED for d in DISCOVERIES]
    out += [gap_conquest, gap_colony]
    out += [skipped[w] for w in POWERS]
    out += [colonies[w] for w in POWERS] + [len(conquests[w]) for w in POWERS]
    out += [cards[w] for w in POWERS] + [circ_cards[w] for w in POWERS]
    out += [cp[w] for w in POWERS]
    top = max(vp.values())
    n_top = sum(v == top for v in vp.values())
    out += [6 // n_top if vp[w] == top else 0 for w in POWERS]
    out += [int(n_top > 1)]
    out += [chose[(o, w)] for o in ("amazon", "pacific_strait", "north_america") for w in POWERS]
    return out


# --- Here I Stand rules §14.1 Chateaux ------------------------------------------------------------


def his_chateaux(p: dict, key: int, trial: int) -> list[int]:
    """One game of French chateaux."""
    vp = cards = 0
    cap = p["vp_cap"]
    cap_turn = UNDEFINED
    by_turn = []
    for turn in range(1, p["turns"] + 1):
        modifier = sum(
            m["value"] for m in p["modifiers"] if m["when"] == "always" or turn in m["when"]
        )
        for use in range(p["uses_per_turn"]):
            total = d6(halves(word(key, trial, 8 * (turn - 1) + use))[0]) + modifier
            row = next(r for r in p["table"] if r["low"] <= total <= r["high"])
            vp += row["vp"]
            cards += row["cards"]
        if vp >= cap and cap_turn == UNDEFINED:
            cap_turn = turn
        by_turn.append(min(vp, cap))
    return [min(vp, cap), cards, int(vp >= cap), max(vp - cap, 0), cap_turn, *by_turn]
