"""Plain-Python twins of the Here I Stand economy kernels (piracy, New World, pregnancy, chateaux).

Each twin plays one trial as a person reads RULES.md §5.5 and §5.9-5.11, reading the same random
words as the kernel, and returns the metric values in the order of the procedure's ``metrics()``.
"""

from __future__ import annotations

from tests.naive import Stream, d6, dice_of_words, halves, word

UNDEFINED = -(2**62)


# --- §5.10 Henry VIII ------------------------------------------------------------------------


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


# --- §5.5 Piracy -------------------------------------------------------------------------------


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
            ]
        )
    totals = [sum(raid[k] for raid in per_raid) for k in range(6)]
    return totals + [x for raid in per_raid for x in raid]
