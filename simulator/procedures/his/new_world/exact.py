"""Exact values of a one-turn New World race (``exact``), and the step-down rules in plain Python
(``exploration_outcome``, ``conquest_outcome``), written apart from the compiled tables so each
checks the other."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

from simulator.agents.spec import AGENT_CODES
from simulator.procedures.his.new_world.choice import OPTION_NAMES
from simulator.procedures.his.new_world.params import (
    DISCOVERIES,
    FIXED,
    MAX_RATING,
    POWERS,
    VP_OF,
    NewWorldParams,
    Power,
    PowerPlan,
    Schedule,
)

TWO_D6 = {s: Fraction(6 - abs(s - 7), 36) for s in range(2, 13)}


def exploration_outcome(
    total: int, claimed: frozenset[str], strait_first: bool = False, choice: str = ""
) -> str:
    """What an exploration total reaches after the first-claim and step-down rules: a discovery's
    name, ``lost`` or ``returns``. ``choice`` is the ``south_america`` knob (``strait_first``
    the older spelling of ``pacific_strait``)."""
    choice = choice or ("pacific_strait" if strait_first else "amazon")
    if total <= 4:
        return "lost"
    r = total
    while r >= 7:
        if r >= 10:
            prefs = {
                "amazon": ["amazon", "pacific_strait"],
                "pacific_strait": ["pacific_strait", "amazon"],
                # The rulebook's third option, any North American discovery, before the Strait.
                "safe_north_america": ["amazon", "mississippi", "great_lakes", "st_lawrence"]
                + ["pacific_strait"],
            }[choice]
            free = [d for d in prefs if d not in claimed]
            if free:
                return free[0]
            r = 9
            continue
        d = {7: "st_lawrence", 8: "great_lakes", 9: "mississippi"}[r]
        if d not in claimed:
            return d
        r -= 1
    return "returns"


def conquest_outcome(total: int, claimed: frozenset[str]) -> str:
    """What a conquest total reaches after the first-claim and step-down rules."""
    if total <= 6:
        return "lost"
    r = min(total, 11)
    while r >= 9:
        d = {9: "maya", 10: "aztecs", 11: "inca"}[r]
        if d not in claimed:
            return d
        r -= 1
    return "returns"


def exact(p: NewWorldParams) -> dict[str, float]:
    """Exact values of a one-turn game (``turns == 1``): every draw from the pools is enumerated
    and the claims and VP are carried as a distribution through the resolution order, the choice
    on 10+ made by the fixed plan or by greedy on ``vp`` (a fixed order per explorer rating).
    Other games, and other agents, have no exact values (an empty dict)."""
    choices = _fixed_choices(p)
    if p.turns != 1 or choices is None:
        return {}
    wins = {w: Fraction(0) for w in POWERS}
    tied = Fraction(0)
    chose = {(o, w): Fraction(0) for o in OPTION_NAMES for w in POWERS}
    vp = {w: Fraction(0) for w in POWERS}
    cards = {w: Fraction(0) for w in POWERS}
    lost = {w: Fraction(0) for w in POWERS}
    first: dict[tuple[str, str], Fraction] = {
        (d, w): Fraction(0) for d in DISCOVERIES for w in POWERS
    }
    skipped = {w: Fraction(0) for w in POWERS}
    gap_conquest = Fraction(0)
    gap_colony = Fraction(0)
    circ_cards = {w: Fraction(0) for w in POWERS}
    colonies = {w: Fraction(getattr(p, w).colonies) for w in POWERS}
    conquests = {w: Fraction(getattr(p, w).conquests) for w in POWERS}
    cp = {w: 0 for w in POWERS}
    # Riches of the colonies and conquests held at the start (turn 1's card draw).
    outcome_of = {t: r.outcome for r in p.riches for t in range(r.low, r.high + 1)}
    galleons_out = p.galleons_turn == 1
    for w in POWERS:
        plan: PowerPlan = getattr(p, w)
        for s, q in TWO_D6.items():
            rich = outcome_of[s]
            card = rich in ("card", "card_depleted") or (
                rich == "galleons_card" and galleons_out and w in p.galleons_powers
            )
            cards[w] += q * card * (plan.colonies + plan.conquests)
            gap_colony += q * (rich == "card_depleted") * plan.colonies
            gap_conquest += q * (rich == "destroyed") * plan.conquests
            colony_goes = rich == "destroyed" or (
                rich == "card_depleted" and p.colony_depleted == "card_removed"
            )
            conquest_goes = rich == "card_depleted" or (
                rich == "destroyed" and p.conquest_destroyed == "removed"
            )
            colonies[w] -= q * colony_goes * plan.colonies
            conquests[w] -= q * conquest_goes * plan.conquests
    riches_cards = dict(cards)
    # Actions bought on turn 1 (Here I Stand rules §12.1): exploration 2 CP, colony 2 (Habsburg) / 3
    # CP, conquest 4 CP; an exploration or conquest with an empty pool is not bought.
    for w in POWERS:
        plan = getattr(p, w)
        if 1 in _turns(plan.colonize, 1):
            colonies[w] += 1
            cp[w] += 2 if w == "habsburg" else 3
    explorers: dict[Power, list[int]] = {}
    for w in POWERS:
        plan = getattr(p, w)
        if 1 in _turns(plan.explore, 1):
            if plan.explorers:
                explorers[w] = plan.explorers
                cp[w] += 2
            else:
                skipped[w] += 1
    conquerors: dict[Power, list[int]] = {}
    for w in POWERS:
        plan = getattr(p, w)
        if 1 in _turns(plan.conquer, 1):
            if w != "habsburg":
                conquerors[w] = [0]
                cp[w] += 4
            elif p.habsburg.conquistadors:
                conquerors[w] = p.habsburg.conquistadors
                cp[w] += 4
            else:
                skipped[w] += 1
    tie_explore = {w: i for i, w in enumerate(("england", "france", "habsburg"))}
    tie_conquer = {w: i for i, w in enumerate(("habsburg", "england", "france"))}
    claimed0 = frozenset(p.already_claimed)
    ex_powers = list(explorers)
    co_powers = list(conquerors)
    draws = list(product(*(explorers[w] for w in ex_powers), *(conquerors[w] for w in co_powers)))
    weight = Fraction(1, max(len(draws), 1))
    for draw in draws or [()]:
        ratings = dict(zip(ex_powers, draw[: len(ex_powers)], strict=True))
        c_ratings = dict(zip(co_powers, draw[len(ex_powers) :], strict=True))
        steps = [
            ("explore", w, ratings[w])
            for w in sorted(ex_powers, key=lambda w: (-ratings[w], tie_explore[w]))
        ]
        steps += [
            ("conquer", w, c_ratings[w])
            for w in sorted(co_powers, key=lambda w: (-c_ratings[w], tie_conquer[w]))
        ]
        # A position is the claims and each power's VP so far.
        dist: dict[Position, Fraction] = {(claimed0, (0, 0, 0)): weight}
        for kind, w, r in steps:
            nxt: dict[Position, Fraction] = {}
            me = POWERS.index(w)
            for (claimed, gains), q0 in dist.items():
                for s, qs in TWO_D6.items():
                    q = q0 * qs
                    if kind == "explore":
                        first_time = w not in p.already_explored
                        total = s + r - (p.first_exploration_penalty if first_time else 0)
                        o = exploration_outcome(total, claimed, choice=choices[(w, r)])
                        if total >= 10 and len(_open_options(claimed)) >= 2:
                            chose[(_option_kind(o), w)] += q
                    else:
                        o = conquest_outcome(s + r, claimed)
                    if o == "lost" and kind == "explore":
                        lost[w] += q
                    if o in ("lost", "returns"):
                        _add(nxt, claimed, gains, me, 0, q)
                        continue
                    gain = VP_OF[DISCOVERIES.index(o)]
                    vp[w] += q * gain
                    first[(o, w)] += q
                    after = claimed | {o}
                    if o != "pacific_strait":
                        _add(nxt, after, gains, me, gain, q)
                        continue
                    for c, qc in TWO_D6.items():
                        if c + r <= 9:
                            lost[w] += q * qc
                            _add(nxt, after, gains, me, gain, q * qc)
                        else:
                            vp[w] += q * qc * 3
                            first[("circumnavigation", w)] += q * qc
                            cards[w] += q * qc * (c + r >= 12)
                            circ_cards[w] += q * qc * (c + r >= 12)
                            _add(nxt, after | {"circumnavigation"}, gains, me, gain + 3, q * qc)
            dist = nxt
        for (_, gains), q in dist.items():
            top = max(gains)
            n_top = sum(g == top for g in gains)
            tied += q * (n_top > 1)
            for k, w in enumerate(POWERS):
                wins[w] += q * Fraction(gains[k] == top, n_top)
    out: dict[str, float] = {}
    for w in POWERS:
        out[f"vp.{w}"] = float(vp[w])
        out[f"cards.{w}"] = float(cards[w])
        out[f"explorers_lost.{w}"] = float(lost[w])
        out[f"skipped.{w}"] = float(skipped[w])
        gained = sum((first[(d, w)] for d in ("maya", "aztecs", "inca")), Fraction(0))
        out[f"colonies.{w}"] = float(colonies[w])
        out[f"conquests.{w}"] = float(conquests[w] + gained)
        out[f"cards_riches.{w}"] = float(riches_cards[w])
        out[f"cards_circumnavigation.{w}"] = float(circ_cards[w])
        out[f"cp_spent.{w}"] = float(cp[w])
    for d in DISCOVERIES:
        for w in POWERS:
            out[f"first.{d}.{w}"] = float(first[(d, w)])
        if any(first[(d, w)] for w in POWERS):
            out[f"turn_of.{d}"] = 1.0
    out["gap.conquest_rolls_destroyed"] = float(gap_conquest)
    out["gap.colony_rolls_depleted"] = float(gap_colony)
    for w in POWERS:
        out[f"wins.seat{POWERS.index(w) + 1}"] = float(wins[w])
        for o in OPTION_NAMES:
            out[f"chose.{o}.{w}"] = float(chose[(o, w)])
    out["draws"] = float(tied)
    return out


Position = tuple[frozenset[str], tuple[int, ...]]


def _add(
    dist: dict[Position, Fraction],
    claimed: frozenset[str],
    gains: tuple[int, ...],
    me: int,
    gain: int,
    q: Fraction,
) -> None:
    """Add probability ``q`` to the position where power ``me`` has gained ``gain`` VP more."""
    key = (claimed, tuple(g + gain * (k == me) for k, g in enumerate(gains)))
    dist[key] = dist.get(key, Fraction(0)) + q


def _open_options(claimed: frozenset[str]) -> list[str]:
    """The options open on 10+: the Amazon, the Strait, the first North American discovery."""
    north = [d for d in ("mississippi", "great_lakes", "st_lawrence") if d not in claimed]
    return [d for d in ("amazon", "pacific_strait") if d not in claimed] + north[:1]


def _option_kind(o: str) -> str:
    return o if o in ("amazon", "pacific_strait") else "north_america"


def _fixed_choices(p: NewWorldParams) -> dict[tuple[str, int], str] | None:
    """The preference order each (power, explorer rating) follows on 10+, or None when an agent
    chooses in a way no fixed order gives. Greedy on ``vp`` is one: it weighs the Amazon's 2 VP
    against the Strait's 1 + 3 x P(2d6 + rating >= 10), and a North American 1 VP never beats
    the Strait, so it is the Amazon-first order below rating 2 and the Strait-first order from 2."""
    agents = p.power_agents()
    out: dict[tuple[str, int], str] = {}
    for k, w in enumerate(POWERS):
        for r in range(MAX_RATING + 1):
            if agents[k] == FIXED:
                out[(w, r)] = p.south_america
            elif agents[k] == AGENT_CODES["greedy"] and p.objective == "vp":
                success = sum((q for t, q in TWO_D6.items() if t + r >= 10), Fraction(0))
                out[(w, r)] = "amazon" if 1 + 3 * success < 2 else "pacific_strait"
            else:
                return None
    return out


def _turns(s: Schedule, turns: int) -> list[int]:
    return list(range(1, turns + 1)) if s == "every" else list(s)
