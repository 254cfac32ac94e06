"""Root battle: exact distributions by enumerating every roll of every battle.

Written from the rule text with its own piece-by-piece removal (no kernel helper), so the tests'
exact checks are independent of the kernel. See :mod:`simulator.procedures.root.battle`.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from simulator.procedures.root.battle.params import (
    ALLY,
    ATTACKER,
    DEFENDER,
    NOBODY,
    BattleParams,
    attacker_tokens_first,
)


def _finish(p: BattleParams, s: dict[str, int]) -> dict[str, int]:
    """The metric values of one finished campaign state (used by the exact enumeration)."""
    a, d = p.attacker, p.defender
    presence = {
        ATTACKER: s["aw"] + s["ab"] + s["mercs"],  # mercenaries rule for their buyer
        DEFENDER: s["dw"] + s["db"],
        ALLY: s["allies"],
    }
    top = max(presence.values())
    leaders = [k for k, x in presence.items() if x == top and top > 0]
    faction_of = {ATTACKER: a.faction, DEFENDER: d.faction, ALLY: "ally"}
    eyrie = [k for k in leaders if faction_of[k] == "eyrie"]
    if p.lizard_garden and a.faction == "lizards" and s["ab"] > 0:
        control = ATTACKER
    elif p.lizard_garden and d.faction == "lizards" and s["db"] > 0:
        control = DEFENDER
    elif len(leaders) == 1:
        control = leaders[0]
    elif eyrie:
        control = eyrie[0]
    else:
        control = NOBODY
    return {
        "attacker_warriors_lost": a.warriors - s["aw"],
        "defender_warriors_lost": d.warriors - s["dw"],
        "buildings_removed": d.buildings - s["db"],
        "tokens_removed": d.tokens - s["dt"],
        "attacker_vp": s["a_vp"],
        "defender_cleared": int(d.faction != "vagabond" and s["dw"] + s["db"] + s["dt"] == 0),
        "ambush_hits": s["ambush_hits"],
        "control_after": control,
        "defender_vp": s["d_vp"],
        "battles_fought": s["fought"],
        "acolytes": s["acolytes"],
        "attacker_items_damaged": a.vagabond_items
        + a.vagabond_swords
        - s["a_items"]
        - s["a_swords"],
        "defender_items_damaged": d.vagabond_items
        + d.vagabond_swords
        - s["d_items"]
        - s["d_swords"],
        "mercenaries_lost": a.mercenaries - s["mercs"],
        "allied_warriors_lost": a.allied_warriors - s["allies"],
        "ally_turned_hostile": int(a.allied_warriors > 0 and not s["allied"]),
        **_faction_effects(p, s),
    }


def _faction_effects(p: BattleParams, s: dict[str, int]) -> dict[str, int]:
    """The pieces whose removal costs their faction something afterwards (counted, not played)."""
    a, d = p.attacker, p.defender
    lost = {
        a.faction: (a.warriors - s["aw"], a.buildings - s["ab"], a.tokens - s["at"]),
        d.faction: (d.warriors - s["dw"], d.buildings - s["db"], d.tokens - s["dt"]),
    }
    nothing = (0, 0, 0)
    return {
        "marquise_warriors_removed": lost.get("marquise", nothing)[0],
        "alliance_bases_removed": lost.get("alliance", nothing)[1],
        "sympathy_removed": lost.get("alliance", nothing)[2],
        "trade_posts_removed": lost.get("riverfolk", nothing)[2],
        "gardens_removed": lost.get("lizards", nothing)[1],
        "duchy_buildings_removed": lost.get("duchy", nothing)[1],
    }


def _hits_taken(hits: int, s: dict[str, int], side: str, tokens_first: bool) -> dict[str, int]:
    """Pieces of ``side`` ('a' or 'd') lost to ``hits``, one hit at a time, as the rules say.

    Warriors go first. Hits on warriors are split evenly with Riverfolk mercenaries, the buyer
    taking the odd one (a Vagabond's items likewise with its allied warriors); when one has
    nothing left the other takes the rest. Then tokens and buildings in the owner's order; a
    Vagabond damages its other items before its swords, exhausted swords before ready ones.
    """
    lost = dict.fromkeys(("w", "b", "t", "items", "swords", "ready", "helpers"), 0)
    helpers = s["mercs"] + s["allies"] * s["allied"] if side == "a" else 0
    own_left = s[side + "w"] + s[f"{side}_items"] + s[f"{side}_swords"]
    order = ["t", "b"] if tokens_first else ["b", "t"]
    for n in range(hits):
        own_turn = n % 2 == 0  # the side itself takes hits 1, 3, 5, ... of the shared ones
        if own_left > 0 and (own_turn or helpers == 0):
            own_left -= 1
            if s[side + "w"] > lost["w"]:
                lost["w"] += 1
            elif s[f"{side}_items"] > lost["items"]:
                lost["items"] += 1
            else:
                lost["swords"] += 1
                exhausted = s[f"{side}_swords"] - s.get(f"{side}_ready", s[f"{side}_swords"])
                if lost["swords"] > exhausted:
                    lost["ready"] += 1
        elif helpers > 0:
            helpers -= 1
            lost["helpers"] += 1
        else:
            for kind in order:
                if s[side + kind] > lost[kind]:
                    lost[kind] += 1
                    break
    return lost


def _apply_losses(s: dict[str, int], side: str, lost: dict[str, int]) -> None:
    """Take ``lost`` (from :func:`_hits_taken`) off ``side``'s pieces in ``s``."""
    for kind in ("w", "b", "t"):
        s[side + kind] -= lost[kind]
    s[f"{side}_items"] -= lost["items"]
    s[f"{side}_swords"] -= lost["swords"]
    if side == "a":
        s["a_ready"] -= lost["ready"]
        mercs = min(lost["helpers"], s["mercs"])
        s["mercs"] -= mercs
        s["allies"] -= lost["helpers"] - mercs


def _battle_outcomes(
    p: BattleParams, s: dict[str, int], step: Callable[[int, int, int], int] | None
) -> list[tuple[Fraction, dict[str, int]]]:
    """The states after one more battle from state ``s``, with their probabilities; ``step``:
    a designer's rolled-hits step (their plain Python function), or None for the rulebook's."""
    a, d = p.attacker, p.defender
    a_vb, d_vb = a.faction == "vagabond", d.faction == "vagabond"
    s = dict(s)
    s["fought"] += 1
    if a_vb:
        s["a_ready"] -= 1  # the Vagabond exhausts a sword to battle
    dealt = 0
    if s["d_cards"] > 0:
        s["d_cards"] -= 1
        if s["a_cards"] > 0:
            s["a_cards"] -= 1
        else:
            dealt = d.ambush_hits
    ambush = _hits_taken(dealt, s, "a", attacker_tokens_first(p))
    allied_before = s["allied"]
    _apply_losses(s, "a", ambush)
    s["ambush_hits"] += sum(v for k, v in ambush.items() if k != "ready")
    s["d_vp"] += ambush["b"] + ambush["t"]
    if not a_vb and s["aw"] + s["mercs"] == 0:
        return [(Fraction(1), s)]
    out = []
    for high in range(4):
        for low in range(4):
            if low > high:
                continue
            prob = Fraction(1 if low == high else 2, 16)
            a_roll, d_roll = (low, high) if d.faction == "alliance" else (high, low)
            allies = s["allies"] * s["allied"]
            a_cap = s["a_swords"] + allies if a_vb else s["aw"] + s["mercs"]
            d_cap = s["d_swords"] if d_vb else s["dw"]
            if step is None:
                a_rolled, d_rolled = min(a_roll, a_cap), min(d_roll, d_cap)
            else:
                a_rolled = max(int(step(a_roll, a_cap, 1)), 0)
                d_rolled = max(int(step(d_roll, d_cap, 0)), 0)
            a_hits = a_rolled + a.extra_hits + int(d_cap == 0)
            d_hits = d_rolled + d.extra_hits
            d_hits += int(d.corvid_plot_face_down and s["dt"] > 0)
            n = dict(s)
            dl = _hits_taken(a_hits, s, "d", d.removes_first == "tokens")
            al = _hits_taken(d_hits, s, "a", attacker_tokens_first(p))
            _apply_losses(n, "d", dl)
            _apply_losses(n, "a", al)
            n["a_vp"] += dl["b"] + dl["t"] + (dl["w"] + dl["b"] + dl["t"]) * (a_vb and s["hostile"])
            n["d_vp"] += al["b"] + al["t"]
            n["hostile"] = int(s["hostile"] or (a_vb and dl["w"] > 0))
            if a_vb and allied_before:
                to_allies = (s["allies"] - n["allies"]) + ambush["helpers"]
                to_self = ambush["items"] + ambush["swords"] + al["items"] + al["swords"]
                if to_allies > to_self:
                    n["allied"] = 0  # more hits to its allies than to itself: hostile to them
            if d.faction == "lizards":
                n["acolytes"] += dl["w"]
            if p.stop_when_cleared and (n["d_swords"] if d_vb else n["dw"]) == 0:
                n["stopped"] = 1
            out.append((prob, n))
    return out


def outcomes(p: BattleParams) -> dict[tuple[tuple[str, int], ...], Fraction]:
    """Exact distribution of the metric values of a campaign (enumerating every roll, with a
    designer's rolled-hits step if ``p`` names one)."""
    a, d = p.attacker, p.defender
    step = None
    if p.rolled_hits is not None:
        from simulator.procedures.root.battle.userstep import plain_step

        step = plain_step(p.rolled_hits)
    start = {
        "aw": a.warriors,
        "ab": a.buildings,
        "at": a.tokens,
        "a_items": a.vagabond_items,
        "a_swords": a.vagabond_swords,
        "a_ready": a.vagabond_swords - a.vagabond_exhausted_swords,
        "a_cards": a.counter_ambush,
        "mercs": a.mercenaries,
        "allies": a.allied_warriors,
        "allied": 1,
        "dw": d.warriors,
        "db": d.buildings,
        "dt": d.tokens,
        "d_items": d.vagabond_items,
        "d_swords": d.vagabond_swords,
        "d_cards": d.ambush,
        "hostile": int(a.hostile),
        "a_vp": 0,
        "d_vp": 0,
        "ambush_hits": 0,
        "fought": 0,
        "acolytes": 0,
        "stopped": 0,
    }
    states: dict[tuple[tuple[str, int], ...], Fraction] = {tuple(start.items()): Fraction(1)}
    for _ in range(p.battles):
        nxt: dict[tuple[tuple[str, int], ...], Fraction] = {}
        for key, prob in states.items():
            s = dict(key)
            can_fight = s["a_ready"] > 0 if a.faction == "vagabond" else s["aw"] + s["mercs"] > 0
            there = d.faction == "vagabond" or s["dw"] + s["db"] + s["dt"] > 0
            if s["stopped"] or not (can_fight and there):
                nxt[key] = nxt.get(key, Fraction(0)) + prob
                continue
            for q, n in _battle_outcomes(p, s, step):
                k = tuple(n.items())
                nxt[k] = nxt.get(k, Fraction(0)) + prob * q
        states = nxt
    dist: dict[tuple[tuple[str, int], ...], Fraction] = {}
    for key, prob in states.items():
        k = tuple(_finish(p, dict(key)).items())
        dist[k] = dist.get(k, Fraction(0)) + prob
    return dist


def exact(p: BattleParams) -> dict[str, float]:
    """Exact means of every metric, by enumerating the 16 equally likely rolls of each battle."""
    means: dict[str, Fraction] = {}
    for key, prob in outcomes(p).items():
        for name, value in key:
            means[name] = means.get(name, Fraction(0)) + prob * value
    return {name: float(x) for name, x in means.items()}
