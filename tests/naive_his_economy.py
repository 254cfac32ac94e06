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
    return [int(edward), int("healthy Edward" in seen), int("Elizabeth" in seen), vp, wives,
            *edward_by_turn]


CHART = {1: "nothing", 2: "nothing", 3: "advance again", 4: "Elizabeth", 5: "sickly Edward",
         6: "healthy Edward"}


def _pregnancy_chart(face: int, seen: set[str], nothing_repeats: bool) -> str:
    while True:
        result = CHART[face]
        if result not in seen or (result == "nothing" and nothing_repeats):
            return result
        face = max(face, 2) + 1
