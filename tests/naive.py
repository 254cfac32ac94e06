"""Plain-Python twins of the kernels, reading the same random words.

Each twin plays one trial at a time with ordinary Python integers, as a person would read the rules,
and returns the trial's metric values in the order of the procedure's ``metrics()``. Tests fold the
twin's values the same way the kernel does and demand equality, not closeness.
"""

from __future__ import annotations

MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
STRIDE = 4096


def mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def word(key: int, trial: int, j: int) -> int:
    """The j-th random word of a trial, as in simulator.rng.word."""
    return mix64((key + ((trial * STRIDE + j + 1) * GAMMA)) & MASK)


def halves(w: int) -> tuple[int, int]:
    return w & 0xFFFFFFFF, w >> 32


def d6(u32: int) -> int:
    """A d6 face from a 32-bit word: the same multiply-shift as the kernels."""
    return (u32 * 6 >> 32) + 1


class Stream:
    """A trial's own SplitMix64 stream, as in simulator.rng.trial_state / next_word."""

    def __init__(self, key: int, trial: int) -> None:
        self.state = mix64(key ^ mix64((trial + 1) & MASK))

    def next(self) -> int:
        self.state = (self.state + GAMMA) & MASK
        return mix64(self.state)


def dice_of_words(key: int, trial: int, first_word: int, n: int) -> list[int]:
    """n d6 read two per word from words first_word, first_word+1, ... (low half first)."""
    faces = []
    for k in range(n):
        lo, hi = halves(word(key, trial, first_word + k // 2))
        faces.append(d6(lo if k % 2 == 0 else hi))
    return faces


def binomial_hits(u: int, dice: int, hit_on: int) -> int:
    """Hits of ``dice`` d6 (a hit is ``hit_on`` or more) from one uniform 64-bit word ``u``:
    the number of k >= 1 with ``u >= floor(2**64 * P(fewer than k hits))``. Plain integers."""
    from fractions import Fraction
    from math import comb

    p = Fraction(7 - hit_on, 6)
    hits, below = 0, Fraction(0)
    for k in range(1, dice + 1):
        below += comb(dice, k - 1) * p ** (k - 1) * (1 - p) ** (dice - k + 1)
        if u >= int(below * 2**64):
            hits += 1
    return hits


def his_field_battle(p: dict, key: int, trial: int) -> list[int]:
    """One Here I Stand field battle (Here I Stand rules §5.4), returning the kernel's metric
    values.

    Each side's hits come from one word (word 0 for the attacker, word 1 for the defender)
    inverted through the binomial distribution of its dice, as in the kernel."""
    att, dfd = p["attacker"], p["defender"]
    hit_on = p.get("hit_on", 5)
    a_lead, d_lead = att.get("leader", "none"), dfd.get("leader", "none")
    a_dice = att["units"] + (0 if a_lead == "none" else a_lead)
    d_dice = dfd["units"] + (0 if d_lead == "none" else d_lead) + p.get("defender_extra_dice", 1)
    a_hits = binomial_hits(word(key, trial, 0), a_dice, hit_on)
    d_hits = binomial_hits(word(key, trial, 1), d_dice, hit_on)
    a_left = max(att["units"] - d_hits, 0)
    d_left = max(dfd["units"] - a_hits, 0)
    if a_hits != d_hits:
        attacker_wins = a_hits > d_hits
    else:
        attacker_wins = p.get("ties_to", "defender") == "attacker"
    both_wiped_out = a_left == 0 and d_left == 0
    if both_wiped_out:
        if attacker_wins:
            a_left = 1
        else:
            d_left = 1
    # §5.4 ⑤: the loser retreats, destroyed if into a space it does not control; §5.6: a beaten
    # defender may first put up to fortress_withdraw units inside the fortress.
    a_after, d_after, inside = a_left, d_left, 0
    attacker_destroyed = defender_destroyed = False
    if attacker_wins:
        inside = min(d_left, p.get("fortress_withdraw", 0))
        if p.get("defender_retreats_to", "controlled") == "uncontrolled" and d_left > inside:
            defender_destroyed, d_after = True, inside
    elif p.get("attacker_retreats_to", "controlled") == "uncontrolled" and a_left > 0:
        attacker_destroyed, a_after = True, 0
    # §5.4 ⑥: a side with no units left loses its leaders; after a retreat that destroyed the
    # rest too, unless leaders_destroyed_in_retreat is "escape".
    escape = p.get("leaders_destroyed_in_retreat", "captured") == "escape"
    a_captured = a_left == 0 or (a_after == 0 and not escape)
    d_captured = d_left == 0 or (d_after == 0 and not escape)
    return [
        int(attacker_wins),
        a_hits,
        d_hits,
        a_left,
        d_left,
        int(a_captured and a_lead != "none"),  # a leader rated 0 is captured too
        int(d_captured and d_lead != "none"),
        int(both_wiped_out),
        a_after,
        d_after,
        inside,
        int(attacker_destroyed),
        int(defender_destroyed),
    ]
