"""Plain-Python twins of the Here I Stand religious struggle (Here I Stand rules.6-5.8).

Each twin plays one trial as a person reads the rules, reading the same random words as the kernel,
and returns the metric values in ``metrics()`` order.
"""

from __future__ import annotations

from tests.naive import d6, dice_of_words, halves, word

HIT_ON = 5


def _protestant_dice(t: dict) -> int:
    s = t.get("protestant", {})
    return (
        s.get("adjacent_spaces", 0)
        + s.get("adjacent_units", 0)
        + 2 * s.get("units_in_target", False)
        + s.get("adjacent_reformers", 0)
        + 2 * s.get("reformer_in_target", False)
    )


def _papal_dice(t: dict) -> int:
    s = t.get("papal", {})
    return (
        s.get("adjacent_spaces", 0)
        + s.get("adjacent_units", 0)
        + 2 * s.get("units_in_target", False)
    )


def highest_d6(u32: int, n: int) -> int:
    """The highest of n d6 drawn from one 32-bit word by its law: the face is the smallest k with
    u32 < ceil(k**n * 2**32 / 6**n), i.e. P(highest <= k) = (k/6)**n to within 2**-32."""
    for k in range(1, 6):
        if u32 * 6**n < k**n * 2**32:
            return k
    return 6


def his_reformation(p: dict, key: int, trial: int) -> list[int]:
    """One reformation (or counter-reformation) action over its targets (Here I Stand rules §16.1).

    Target k reads word k: the Protestant's highest die from its low half, the Papacy's from its
    high half.
    """
    acting = p.get("side", "protestant")
    protestant_acts = acting == "protestant"
    chain_bonus = 0
    zero_dice = 0
    won_each = []
    for k, t in enumerate(p["targets"]):
        counts = {"protestant": _protestant_dice(t), "papacy": _papal_dice(t)}
        # chain: the space just converted is next to this target and was the defender's.
        defending = "papacy" if protestant_acts else "protestant"
        counts[acting] += chain_bonus
        counts[defending] = max(counts[defending] - chain_bonus, 0)
        halves_k = dict(zip(("protestant", "papacy"), halves(word(key, trial, k)), strict=True))
        highest = {}
        for side in ("protestant", "papacy"):
            n = counts[side]
            if n == 0:
                zero_dice += 1  # the gap: the rulebook does not say what a side with no dice does
                if p.get("zero_dice", "roll_one") == "roll_one":
                    n = 1
            if n == 0:
                highest[side] = 0  # no die at all
                continue
            highest[side] = highest_d6(halves_k[side], n)
            if side == "protestant" and p.get("bible_bonus", False):
                highest[side] += 1
        defender = "papacy" if protestant_acts else "protestant"
        if highest[acting] != highest[defender]:
            winner = acting if highest[acting] > highest[defender] else defender
        elif t.get("in_named_zone", True) and protestant_acts:
            winner = "protestant"
        elif t.get("in_named_zone", True) and not protestant_acts and p.get("paul_iii", False):
            winner = "papacy"
        else:
            winner = defender
        won = winner == acting
        won_each.append(int(won))
        chain_bonus = 1 if (won and p.get("chain", False)) else 0
    s = sum(won_each)
    return [s, int(s == len(won_each)), int(s > 0), *won_each, zero_dice]


def _pick(u32: int, candidates: list) -> object:
    """A uniform draw among candidates with the kernel's multiply-shift."""
    return candidates[(u32 * len(candidates)) >> 32]


def _hits(key: int, trial: int, first_word: int, n: int) -> int:
    return sum(f >= HIT_ON for f in dice_of_words(key, trial, first_word, n))


def his_debate(p: dict, key: int, trial: int) -> list[int]:
    """One theological debate, with its second round after a tie (Here I Stand rules §16.2)."""
    caller = p["caller"]
    zone = p["zone"]
    pools = {
        "protestant": [dict(d) for d in p["protestant_debaters"] if d["zone"] == zone],
        "papacy": [dict(d) for d in p["papal_debaters"]],
    }
    opponent = "papacy" if caller == "protestant" else "protestant"
    names = [d["name"] for d in p["protestant_debaters"]] + [d["name"] for d in p["papal_debaters"]]
    chosen = dict.fromkeys(names, 0)
    removed = dict.fromkeys(names, 0)
    flipped = {"protestant": 0, "papacy": 0}
    vp = {"protestant": 0, "papacy": 0}
    outcome = "none"
    second_round = 0
    # The caller's choice of pool for the first defender (§16.2 ③); caller_choice is a policy the
    # module decides by exact values, taken from there.
    want_committed = {
        "uncommitted": False,
        "committed": True,
        "caller_choice": None,
    }[p.get("defender_from", "caller_choice")]
    if want_committed is None:
        from simulator.procedures.his.debate import DebateParams, defender_pool

        want_committed = defender_pool(DebateParams.model_validate(p)) == 1
    for rnd in range(2):
        w = 32 * rnd
        lo, hi = halves(word(key, trial, w))
        free = [d for d in pools[caller] if not d.get("committed", False)]
        attacker = _pick(lo, free or pools[caller])
        wanted = want_committed and rnd == 0  # the second round draws uncommitted (§16.2 ⑩)
        free = [d for d in pools[opponent] if d.get("committed", False) == wanted]
        defender = _pick(hi, free or pools[opponent])
        chosen[attacker["name"]] = 1
        chosen[defender["name"]] = 1
        a_hits = _hits(key, trial, w + 1, attacker["rating"] + 3)
        d_dice = defender["rating"] + (1 if defender.get("committed", False) else 2)
        d_hits = _hits(key, trial, w + 9, d_dice)
        attacker["committed"] = True
        defender["committed"] = True
        if a_hits == d_hits:
            if rnd == 0:
                second_round = 1
                continue
            break
        if a_hits > d_hits:
            win_side, loser = caller, defender
        else:
            win_side, loser = opponent, attacker
        x = abs(a_hits - d_hits)
        flipped[win_side] += x
        if x > loser["rating"]:
            removed[loser["name"]] = 1  # burned or disgraced
            vp[win_side] += loser["rating"]
        outcome = "caller" if win_side == caller else "opponent"
        break
    return [
        int(outcome == "caller"),
        int(outcome == "opponent"),
        int(outcome == "none"),
        flipped["protestant"],
        flipped["papacy"],
        vp["protestant"],
        vp["papacy"],
        second_round,
        *(chosen[n] for n in names),
        *(removed[n] for n in names),
    ]


def _draw_cp(spec: object, u32: int) -> int:
    """A card's CP: a fixed number, or one of ``values`` with integer thresholds from weights."""
    if isinstance(spec, int):
        return spec
    assert isinstance(spec, dict)
    from fractions import Fraction

    weights = [Fraction(w) for w in spec["weights"]]
    total = sum(weights)
    cum = Fraction(0)
    for value, wt in zip(spec["values"], weights, strict=True):
        cum += wt
        if u32 < (cum * 2**32 // total):
            return int(value)
    return int(spec["values"][-1])


def his_diet_of_worms(p: dict, key: int, trial: int) -> list[int]:
    """The Diet of Worms on turn 1 (Here I Stand rules §20.3)."""
    lo, hi = halves(word(key, trial, 0))
    habsburg = _draw_cp(p["habsburg_cp"], lo)
    papal = _draw_cp(p["papal_cp"], hi)
    protestant = _draw_cp(p["protestant_cp"], halves(word(key, trial, 1))[0])
    papal_hits = _hits(key, trial, 2, habsburg + papal)
    protestant_hits = _hits(key, trial, 12, protestant + p.get("protestant_bonus_dice", 4))
    diff = protestant_hits - papal_hits
    if p.get("spaces_flipped", "hit_difference") == "winner_hits":
        flips = (protestant_hits if diff > 0 else 0, papal_hits if diff < 0 else 0)
    else:
        flips = (max(diff, 0), max(-diff, 0))
    return [int(diff > 0), int(diff < 0), int(diff == 0), *flips]


__all__ = ["d6", "his_debate", "his_diet_of_worms", "his_reformation"]
