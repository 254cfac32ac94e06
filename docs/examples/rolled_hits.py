"""Rolled-hits steps of Root's battle, written by a designer (docs/own-rules.md, "A step of Root's
battle"). A scenario names one as `rolled_hits: rolled_hits.py:NAME`.

Each takes the die a side took (0..3), its hit cap (its warriors in the clearing; a Vagabond: its
undamaged swords and allied warriors) and whether it attacks (1) or defends (0), and returns the
hits it deals from its roll. Extra hits are added after it.
"""


def rulebook(roll, cap, attacking):
    """Root rules §1.5 as written: each warrior deals at most one hit (the built-in step)."""
    return min(roll, cap)


def last_stand(roll, cap, attacking):
    """A house rule: a defender with a warrior left always deals at least one hit."""
    hits = min(roll, cap)
    if attacking == 0 and cap > 0 and hits == 0:
        return 1
    return hits
