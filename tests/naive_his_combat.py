"""Plain-Python twins of the Here I Stand combat kernels (Here I Stand rules.2-5.4).

Each plays one trial as a person reads the rules, reading the same random words as the kernel, and
returns the trial's metric values in the order of the procedure's ``metrics()``.
"""

from __future__ import annotations

from tests.naive import binomial_hits, d6, dice_of_words, halves, word


def _rating(leader: int | str) -> int:
    return 0 if leader == "none" else int(leader)


def _hits(faces: list[int], hit_on: int) -> int:
    return sum(f >= hit_on for f in faces)


def his_assault(p: dict, key: int, trial: int) -> list[int]:
    """A siege campaign of up to max_assaults assaults (one assault by default)."""
    att, dfd = p["attacker"], p["defender"]
    hit_on = p.get("hit_on", 5)
    extra = p.get("defender_extra_dice", 1)
    cavalry_first = p.get("lose_cavalry_first", True)
    units, cavalry = att["units"], att.get("cavalry", 0)
    leader = _rating(att.get("leader", "none"))
    defenders, d_leader = dfd["units"], _rating(dfd.get("leader", "none"))
    falls = broken = False
    assaults = a_total = d_total = 0
    port = p.get("port")
    protected = port is not None and (
        port.get("squadrons_adjacent", 0) > 0
        or (
            port.get("squadrons_in_port", 0) > 0
            and port.get("enemy_squadrons_adjacent", 0) <= port.get("squadrons_in_port", 0)
        )
    )  # §6.7: squadrons protect the port fortress, no assault
    if units <= defenders:
        broken = True  # the siege breaks at once: no assault
    while not (falls or broken or protected) and assaults < p.get("max_assaults", 1):
        k = assaults
        assaults += 1
        infantry = units - cavalry  # cavalry roll no dice in any assault
        if defenders > 0:
            a_dice = (infantry + 1) // 2 + leader
        else:
            a_dice = infantry + leader  # an empty fortress
        d_dice = defenders + d_leader + extra
        a_hits = _hits(dice_of_words(key, trial, 64 * k, a_dice), hit_on)
        d_hits = _hits(dice_of_words(key, trial, 64 * k + 32, d_dice), hit_on)
        a_total += a_hits
        d_total += d_hits
        had_defenders = defenders > 0
        # The attacker removes d_hits units, cavalry first if it chooses so.
        for _ in range(min(d_hits, units)):
            infantry = units - cavalry
            if cavalry > 0 and (cavalry_first or infantry == 0):
                cavalry -= 1
            units -= 1
        defenders = max(defenders - a_hits, 0)
        if defenders == 0 and units > 0 and (had_defenders or a_hits >= 1):
            falls = True
        elif units <= defenders:
            broken = True
    captured = falls and dfd.get("leader", "none") != "none"  # a rating-0 leader too
    fell_at = assaults if falls else 0
    return [
        int(falls),
        assaults,
        int(broken),
        units,
        defenders,
        a_total,
        d_total,
        fell_at,
        int(captured),
        int(units == 0 and att.get("leader", "none") != "none"),  # wiped out: leader lost
        int(protected),
    ]


def _fleet_losses(
    hits: int, squadrons: int, corsairs: int, losses: str, loser: bool
) -> tuple[int, int]:
    """(squadrons, corsairs) sunk by ``hits``: two hits per squadron, one per corsair, a hit that
    a corsair can take sinks it, and the loser also loses a squadron to a winner's single hit left
    over. ``losses``: a fixed order, or ``cheapest`` (each way of choosing, least strength lost,
    squadrons kept on a tie)."""

    def apply(corsairs_hit: int) -> tuple[int, int] | None:
        sunk_c = corsairs_hit
        left = hits - corsairs_hit
        sunk_s = 0
        while left >= 2 and sunk_s < squadrons:
            sunk_s += 1
            left -= 2
        if left >= 1 and sunk_c < corsairs:
            return None  # a corsair could have taken that hit
        if loser and left >= 1 and sunk_s < squadrons:
            sunk_s += 1
        return sunk_s, sunk_c

    if losses == "corsairs_first":
        return apply(min(corsairs, hits))  # type: ignore[return-value]
    if losses == "squadrons_first":
        pairs = min(squadrons, hits // 2)
        return apply(min(corsairs, hits - 2 * pairs))  # type: ignore[return-value]
    choices = [apply(c) for c in range(min(corsairs, hits) + 1)]
    legal = [x for x in choices if x is not None]
    return min(legal, key=lambda x: (2 * x[0] + x[1], x[0]))


def his_naval(p: dict, key: int, trial: int) -> list[int]:
    """One naval battle in a sea zone or a port."""
    att, dfd = p["attacker"], p["defender"]
    hit_on = p.get("hit_on", 5)
    in_port = p.get("in_port", False)
    losses = p.get("losses", "cheapest")
    a_s, a_c = att.get("squadrons", 0), att.get("corsairs", 0)
    d_s, d_c = dfd.get("squadrons", 0), dfd.get("corsairs", 0)
    a_l, d_l = _rating(att.get("leader", "none")), _rating(dfd.get("leader", "none"))
    a_dice = 2 * a_s + a_c + a_l
    d_dice = 2 * d_s + d_c + d_l + (p.get("port_extra_dice", 1) if in_port else 0)
    # Each side's hits from one word inverted through its binomial, as in the field battle.
    a_hits = binomial_hits(word(key, trial, 0), a_dice, hit_on)
    d_hits = binomial_hits(word(key, trial, 1), d_dice, hit_on)
    attacker_wins = a_hits > d_hits  # ties go to the defender
    a_sunk_s, a_sunk_c = _fleet_losses(d_hits, a_s, a_c, losses, loser=not attacker_wins)
    d_sunk_s, d_sunk_c = _fleet_losses(a_hits, d_s, d_c, losses, loser=attacker_wins)
    both_sunk = a_sunk_s + a_sunk_c == a_s + a_c and d_sunk_s + d_sunk_c == d_s + d_c
    if both_sunk and p.get("winner_keeps_one", True):
        # As in a field battle, the winner keeps one ship: a squadron if it had any.
        if attacker_wins:
            if a_sunk_s > 0:
                a_sunk_s -= 1
            else:
                a_sunk_c -= 1
        elif d_sunk_s > 0:
            d_sunk_s -= 1
        else:
            d_sunk_c -= 1
    attacker_afloat = a_sunk_s + a_sunk_c < a_s + a_c
    withdraws = attacker_afloat and (in_port or not attacker_wins)
    return [
        int(attacker_wins),
        a_sunk_s,
        a_sunk_c,
        d_sunk_s,
        d_sunk_c,
        int(withdraws),
        a_hits,
        d_hits,
        int(both_sunk),
        2 * a_sunk_s + a_sunk_c,
        2 * d_sunk_s + d_sunk_c,
        int(att.get("leader", "none") != "none" and a_sunk_s + a_sunk_c == a_s + a_c),
        int(dfd.get("leader", "none") != "none" and d_sunk_s + d_sunk_c == d_s + d_c),
    ]


def his_interception(p: dict, key: int, trial: int) -> list[int]:
    """One interception or avoid-battle roll: 2d6 + leader + cavalry modifiers >= target; at sea
    none into or from a port, and a beaten fleet still rolls (§6.3)."""
    lo, hi = halves(word(key, trial, 0))
    roll = d6(lo) + d6(hi)
    modifier = p.get("leader", 0)
    if p.get("with_cavalry", False):
        modifier += 1
    if p.get("against_cavalry", False):
        modifier -= 1
    naval = p.get("forces", "land") == "naval"
    if naval and p.get("port", False):
        return [0]  # §6.3: no interception into a port, no avoiding from a port
    avoid = p.get("kind", "intercept") == "avoid"
    if avoid and p.get("lost_battle_this_impulse", False) and not naval:
        return [1]  # a formation that lost a field battle this impulse avoids at once (land only)
    return [int(roll + modifier >= p.get("target", 9))]
