"""Here I Stand theological debate (Here I Stand rules §16.2).

The caller names a language zone and draws its attacker at random from its uncommitted debaters
(Protestant: of that zone). The caller then draws the defender at random from the opponent's
uncommitted debaters **or** from its committed ones (Protestant: of that zone), its choice (Here I
Stand rules §16.2 ③; knob ``defender_from``: by default the caller takes the pool that gives it the
better exact chance to win the first round; ``uncommitted`` and ``committed`` fix the pool, the
other one used only when it is empty). The attacker rolls ``rating + 3`` dice, an uncommitted
defender ``rating + 2``, a committed one ``rating + 1``; hits are 5-6. More hits wins and flips
``X`` spaces in the zone (X = the hit difference). If X exceeds the loser's rating the loser is
burned (Protestant) or disgraced (Papal) and the winner gains VP equal to the loser's rating. Both
debaters become committed. A tie is debated once more at once with freshly drawn uncommitted
debaters (committed if none); a second tie ends with no result.

Assumptions: a committed attacker drawn for the second round (its side had no uncommitted debater
left) still rolls ``rating + 3``; a winner flips its whole X (the zone is assumed to hold enough
spaces it can flip).
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb
from typing import Literal

import numpy as np
from pydantic import Field, model_validator

from simulator.accumulate import BLOCK, accumulate_block, block_count, new_stats, trial_block
from simulator.jit import inline, kernel
from simulator.layout import Layout
from simulator.procedures.base import Alternative, Assumption, Metric, Params, Procedure, settings
from simulator.procedures.his._rules import cite
from simulator.procedures.his._validation import fail
from simulator.rng import high32, low32, word

MAX_DEBATERS = 16
MAX_RATING = 5
#: Words of round r start at r * ROUND_WORDS: the draws, then attacker dice, then defender dice.
ROUND_WORDS = 32
ATTACKER_WORDS = 1
DEFENDER_WORDS = 9
HIT_THRESHOLD = 2863311531  # rng.hit_threshold(5)

Zone = Literal["german", "french", "english"]


class PapalDebater(Params):
    name: str = Field(min_length=1, max_length=40, description="the debater's name")
    rating: int = Field(ge=1, le=MAX_RATING, description="printed debate rating")
    committed: bool = Field(default=False, description="already committed this turn")


class ProtestantDebater(PapalDebater):
    zone: Zone = Field(description="the language zone the debater belongs to")


class DebateParams(Params):
    caller: Literal["protestant", "papacy"] = Field(description="the side calling the debate")
    zone: Zone = Field(description="the language zone of the debate")
    defender_from: Literal["caller_choice", "uncommitted", "committed"] = Field(
        default="caller_choice",
        description="the opponent's pool the caller draws the first defender from (rulebook: its "
        "choice of uncommitted or committed; caller_choice takes the one with the better exact "
        "chance to win the first round); a fixed pool falls back on the other when empty",
    )
    protestant_debaters: list[ProtestantDebater] = Field(
        min_length=1, max_length=MAX_DEBATERS, description="the Protestant debaters in play"
    )
    papal_debaters: list[PapalDebater] = Field(
        min_length=1, max_length=MAX_DEBATERS, description="the Papal debaters in play"
    )

    @model_validator(mode="after")
    def _pools(self) -> DebateParams:
        title = "DebateParams"
        seen: set[str] = set()
        for field in ("protestant_debaters", "papal_debaters"):
            for i, d in enumerate(getattr(self, field)):
                if d.name in seen:
                    fail(
                        title,
                        (field, i, "name"),
                        f"debater name {d.name!r} is used twice: names must be unique across "
                        "both sides",
                        d.name,
                    )
                seen.add(d.name)
        in_zone = [d for d in self.protestant_debaters if d.zone == self.zone]
        if not in_zone:
            fail(
                title,
                ("protestant_debaters",),
                f"no Protestant debater in the {self.zone} zone: add one with zone: "
                f"{self.zone} or debate in another zone",
                self.zone,
            )
        caller_pool, field = (
            (in_zone, "protestant_debaters")
            if self.caller == "protestant"
            else (self.papal_debaters, "papal_debaters")
        )
        if all(d.committed for d in caller_pool):
            fail(
                title,
                (field,),
                f"the {self.caller} calls the debate but has no uncommitted debater"
                f"{' in the ' + self.zone + ' zone' if self.caller == 'protestant' else ''}: "
                "set committed: false on one",
                self.caller,
            )
        return self


def _names(p: DebateParams) -> list[str]:
    return [d.name for d in p.protestant_debaters] + [d.name for d in p.papal_debaters]


#: The metric row: ``chosen.<name>`` and ``removed.<name>`` run over the debaters (Protestant
#: debaters first, then Papal ones) in pieces declared at their largest; the row holds one slot
#: per debater in each and closes up, so ``removed.<name>`` starts at ``CHOSEN + debaters``.
METRICS = Layout(
    "caller_wins",
    "opponent_wins",
    "no_result",
    "spaces_flipped_protestant",
    "spaces_flipped_papal",
    "protestant_vp",
    "papal_vp",
    "went_to_second_round",
    ("chosen", 2 * MAX_DEBATERS),
    ("removed", 2 * MAX_DEBATERS),
)
CALLER_WINS, OPPONENT_WINS, NO_RESULT = (
    METRICS.at(n) for n in ("caller_wins", "opponent_wins", "no_result")
)
FLIP_P, FLIP_C = METRICS.at("spaces_flipped_protestant"), METRICS.at("spaces_flipped_papal")
VP_P, VP_C = METRICS.at("protestant_vp"), METRICS.at("papal_vp")
SECOND, CHOSEN = METRICS.at("went_to_second_round"), METRICS.at("chosen")

#: Packed row: the debate, then the pool rows (the Protestant debaters in the zone, then the Papal
#: ones), each a debater's metric slot, rating and committed flag, zero-padded.
PACKED = Layout(
    "protestant_calls",
    "debaters",
    "protestant_pool",
    "papal_pool",
    "first_pool",
    ("slot", 2 * MAX_DEBATERS),
    ("rating", 2 * MAX_DEBATERS),
    ("committed", 2 * MAX_DEBATERS),
)
PROTESTANT_CALLS, N_DEBATERS, PROTESTANT_POOL, PAPAL_POOL, FIRST_POOL = (
    PACKED.at(n)
    for n in ("protestant_calls", "debaters", "protestant_pool", "papal_pool", "first_pool")
)
SLOT, RATING, COMMITTED = (PACKED.at(n) for n in ("slot", "rating", "committed"))


def metrics(p: DebateParams) -> list[Metric]:
    out = [
        Metric("caller_wins", "proportion", "the caller's debater wins"),
        Metric("opponent_wins", "proportion", "the opponent's debater wins"),
        Metric("no_result", "proportion", "two ties: nothing happens"),
        Metric(
            "spaces_flipped_protestant",
            "distribution",
            "spaces the Protestant flips",
            max_value=MAX_RATING + 3,
        ),
        Metric(
            "spaces_flipped_papal",
            "distribution",
            "spaces the Papacy flips",
            max_value=MAX_RATING + 3,
        ),
        Metric("protestant_vp", "mean", "VP the Protestant gains (a Papal debater disgraced)"),
        Metric("papal_vp", "mean", "VP the Papacy gains (a Protestant debater burned)"),
        Metric("went_to_second_round", "proportion", "the first round was a tie", headline=False),
    ]
    names = _names(p)
    out += [
        Metric(f"chosen.{n}", "proportion", f"{n} is drawn to debate", headline=False)
        for n in names
    ]
    out += [
        Metric(f"removed.{n}", "proportion", f"{n} is burned or disgraced", headline=False)
        for n in names
    ]
    return out


def _pool_rows(
    p: DebateParams,
) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]:
    """(metric slot, rating, committed) of the debaters that can take part, per side."""
    prot = [
        (i, d.rating, int(d.committed))
        for i, d in enumerate(p.protestant_debaters)
        if d.zone == p.zone
    ]
    off = len(p.protestant_debaters)
    pap = [(off + i, d.rating, int(d.committed)) for i, d in enumerate(p.papal_debaters)]
    return prot, pap


def _both_pools(p: DebateParams) -> bool:
    """The opponent has both uncommitted and committed debaters (in the zone): a real choice."""
    if p.caller == "papacy":
        pool = [d.committed for d in p.protestant_debaters if d.zone == p.zone]
    else:
        pool = [d.committed for d in p.papal_debaters]
    return any(pool) and not all(pool)


def _first_round_chance(p: DebateParams, committed_pool: bool) -> Fraction:
    """Exact chance that the caller wins the first round when it draws the defender from the
    opponent's committed (or uncommitted) debaters."""
    prot = [d for d in p.protestant_debaters if d.zone == p.zone]
    mine, theirs = (
        (prot, p.papal_debaters) if p.caller == "protestant" else (p.papal_debaters, prot)
    )
    attackers = [d for d in mine if not d.committed]
    defenders = [d for d in theirs if d.committed == committed_pool] or theirs
    total = Fraction(0)
    for a in attackers:
        a_pmf = _hits_pmf(a.rating + 3)
        for d in defenders:
            d_pmf = _hits_pmf(d.rating + (1 if d.committed else 2))
            total += sum(
                (a_pmf[x] * d_pmf[y] for x in range(len(a_pmf)) for y in range(min(x, len(d_pmf)))),
                Fraction(0),
            )
    return total / (len(attackers) * len(defenders))


def defender_pool(p: DebateParams) -> int:
    """The first defender's pool: 0 uncommitted, 1 committed (each falls back on the other when
    empty). ``caller_choice`` takes the pool that gives the caller the higher exact chance to win
    the first round (the uncommitted one on a tie)."""
    if p.defender_from != "caller_choice":
        return int(p.defender_from == "committed")
    if not _both_pools(p):
        return 0  # one pool is empty: both choices draw from the other
    return int(_first_round_chance(p, True) > _first_round_chance(p, False))


def pack(p: DebateParams) -> np.ndarray:
    """The first defender's pool is 0 uncommitted, 1 committed (:func:`defender_pool`)."""
    prot, pap = _pool_rows(p)
    rows = prot + pap
    pad = [0] * (2 * MAX_DEBATERS - len(rows))
    return PACKED.row(
        protestant_calls=p.caller == "protestant",
        debaters=len(_names(p)),
        protestant_pool=len(prot),
        papal_pool=len(pap),
        first_pool=defender_pool(p),
        slot=[r[0] for r in rows] + pad,
        rating=[r[1] for r in rows] + pad,
        committed=[r[2] for r in rows] + pad,
    )


@inline
def _hits(key, trial, word0, dice):
    hits = np.int64(0)
    thr = np.uint64(HIT_THRESHOLD)
    for d in range(dice):
        x = word(key, trial, word0 + d // 2)
        u = high32(x) if d % 2 == 1 else low32(x)
        hits += np.int64(u >= thr)
    return hits


@inline
def _draw(u32, start, count, committed, want):
    """Index of a debater drawn uniformly among those of pool rows start..start+count-1 whose
    committed flag is ``want``, or among all of them if there is none such."""
    free = np.int64(0)
    for j in range(start, start + count):
        free += committed[j] == want
    pick_from_free = free > 0
    size = free if pick_from_free else count
    target = np.int64((u32 * np.uint64(size)) >> np.uint64(32))
    seen = np.int64(0)
    for j in range(start, start + count):
        if (committed[j] == want) or not pick_from_free:
            if seen == target:
                return j
            seen += 1
    return start


@kernel
def debate_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    n_metrics = hist_offset.shape[0]
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, n_metrics, BLOCK), dtype=np.int64)
    slot = np.zeros(2 * MAX_DEBATERS, dtype=np.int64)
    rating = np.zeros(2 * MAX_DEBATERS, dtype=np.int64)
    committed0 = np.zeros(2 * MAX_DEBATERS, dtype=np.int64)
    committed = np.zeros(2 * MAX_DEBATERS, dtype=np.int64)
    for block in range(block_count(n_trials)):
        start, m = trial_block(first_trial, n_trials, block)
        for v in range(n_variants):
            protestant_calls = packed[v, PROTESTANT_CALLS] > 0.5
            n_names = np.int64(packed[v, N_DEBATERS])
            n_prot = np.int64(packed[v, PROTESTANT_POOL])
            n_pap = np.int64(packed[v, PAPAL_POOL])
            first_pool = np.int64(packed[v, FIRST_POOL])
            for j in range(n_prot + n_pap):
                slot[j] = np.int64(packed[v, SLOT + j])
                rating[j] = np.int64(packed[v, RATING + j])
                committed0[j] = np.int64(packed[v, COMMITTED + j])
            # Caller's pool rows and opponent's pool rows.
            c_start = 0 if protestant_calls else n_prot
            c_count = n_prot if protestant_calls else n_pap
            o_start = n_prot if protestant_calls else 0
            o_count = n_pap if protestant_calls else n_prot
            for i in range(m):
                t = start + i
                for mm in range(n_metrics):
                    values[v, mm, i] = 0
                for j in range(n_prot + n_pap):
                    committed[j] = committed0[j]
                outcome = NO_RESULT
                for rnd in range(2):
                    w = ROUND_WORDS * rnd
                    x = word(key, t, w)
                    a = _draw(low32(x), c_start, c_count, committed, 0)
                    # Round 1: the caller's choice of pool; round 2: uncommitted (§16.2 ⑩).
                    d = _draw(high32(x), o_start, o_count, committed, first_pool if rnd == 0 else 0)
                    values[v, CHOSEN + slot[a], i] = 1
                    values[v, CHOSEN + slot[d], i] = 1
                    a_hits = _hits(key, t, w + ATTACKER_WORDS, rating[a] + 3)
                    d_hits = _hits(key, t, w + DEFENDER_WORDS, rating[d] + 2 - committed[d])
                    committed[a] = 1
                    committed[d] = 1
                    if a_hits == d_hits:
                        # A tie: a first-round tie goes to a second round, a second one ends it.
                        values[v, SECOND, i] = 1
                        continue
                    caller_won = a_hits > d_hits
                    x_flip = abs(a_hits - d_hits)
                    loser = d if caller_won else a
                    protestant_won = caller_won == protestant_calls
                    values[v, FLIP_P if protestant_won else FLIP_C, i] = x_flip
                    if x_flip > rating[loser]:
                        values[v, CHOSEN + n_names + slot[loser], i] = 1
                        values[v, VP_P if protestant_won else VP_C, i] = rating[loser]
                    outcome = CALLER_WINS if caller_won else OPPONENT_WINS
                    break
                values[v, outcome, i] = 1
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats


# --- exact values -------------------------------------------------------------------------------


def _hits_pmf(n: int) -> list[Fraction]:
    """Exact law of hits (5-6) of n d6: binomial(n, 1/3) with integer weights."""

    return [Fraction(comb(n, k) * 2 ** (n - k), 3**n) for k in range(n + 1)]


def _draw_law(
    pool: list[int], committed: dict[int, bool], want: bool = False
) -> list[tuple[int, Fraction]]:
    free = [j for j in pool if committed[j] == want]
    src = free or pool
    return [(j, Fraction(1, len(src))) for j in src]


def exact(p: DebateParams) -> dict[str, float]:
    """Exact values by enumerating both rounds' draws and hit counts."""
    names = _names(p)
    prot_rows, pap_rows = _pool_rows(p)
    rating = {s: r for s, r, _ in prot_rows + pap_rows}
    committed0 = {s: bool(c) for s, _, c in prot_rows + pap_rows}
    prot_pool = [s for s, _, _ in prot_rows]
    pap_pool = [s for s, _, _ in pap_rows]
    caller_pool, opp_pool = (
        (prot_pool, pap_pool) if p.caller == "protestant" else (pap_pool, prot_pool)
    )
    acc = dict.fromkeys([m.name for m in metrics(p)], Fraction(0))
    # The caller's choice of pool is a policy (the first round's better chance), then exact.
    first_committed = defender_pool(p) == 1

    def play(rnd: int, committed: dict[int, bool], weight: Fraction, chosen: frozenset) -> None:
        for a, pa in _draw_law(caller_pool, committed):
            for d, pd in _draw_law(opp_pool, committed, first_committed and rnd == 0):
                w = weight * pa * pd
                ch = chosen | {a, d}
                a_pmf = _hits_pmf(rating[a] + 3)
                d_pmf = _hits_pmf(rating[d] + (1 if committed[d] else 2))
                after = {**committed, a: True, d: True}
                tie = sum(
                    (a_pmf[k] * d_pmf[k] for k in range(min(len(a_pmf), len(d_pmf)))), Fraction(0)
                )
                for s in ch:
                    acc[f"chosen.{names[s]}"] += w * (1 - tie) if rnd == 0 else w
                for ah, dh in itertools.product(range(len(a_pmf)), range(len(d_pmf))):
                    if ah == dh:
                        continue
                    q = w * a_pmf[ah] * d_pmf[dh]
                    caller_won = ah > dh
                    x = abs(ah - dh)
                    loser = d if caller_won else a
                    protestant_won = caller_won == (p.caller == "protestant")
                    acc["caller_wins" if caller_won else "opponent_wins"] += q
                    side = "protestant" if protestant_won else "papal"
                    acc[f"spaces_flipped_{side}"] += q * x
                    if x > rating[loser]:
                        acc[f"removed.{names[loser]}"] += q
                        acc[f"{side}_vp"] += q * rating[loser]
                if rnd == 0:
                    acc["went_to_second_round"] += w * tie
                    play(1, after, w * tie, ch)
                else:
                    acc["no_result"] += w * tie

    play(0, committed0, Fraction(1), frozenset())
    return {k: float(v) for k, v in acc.items()}


def single_round(
    attacker_rating: int, defender_rating: int, defender_committed: bool = False
) -> dict[str, float]:
    """Exact law of one round between fixed debaters: P(attacker wins), P(tie), P(defender wins),
    and the expected flips of each."""
    a_pmf = _hits_pmf(attacker_rating + 3)
    d_pmf = _hits_pmf(defender_rating + (1 if defender_committed else 2))
    out = dict.fromkeys(
        [
            "attacker_wins",
            "tie",
            "defender_wins",
            "attacker_flips",
            "defender_flips",
            "defender_removed",
            "attacker_removed",
        ],
        Fraction(0),
    )
    for ah, pa in enumerate(a_pmf):
        for dh, pd in enumerate(d_pmf):
            q = pa * pd
            if ah > dh:
                out["attacker_wins"] += q
                out["attacker_flips"] += q * (ah - dh)
                out["defender_removed"] += q * (ah - dh > defender_rating)
            elif ah < dh:
                out["defender_wins"] += q
                out["defender_flips"] += q * (dh - ah)
                out["attacker_removed"] += q * (dh - ah > attacker_rating)
            else:
                out["tie"] += q
    return {k: float(v) for k, v in out.items()}


ASSUMPTIONS = (
    Assumption(
        name="defender_pool",
        knob="defender_from",
        tag="reading",
        rule=cite("16.2 ③"),
        text="'from the opponent's uncommitted or committed debaters' read as the caller's "
        "choice: it takes the pool with the better exact chance to win the first round",
        alternatives=(
            Alternative("uncommitted first", {"defender_from": "uncommitted"}),
            Alternative("committed", {"defender_from": "committed"}),
        ),
    ),
    Assumption(
        name="second_round_attacker",
        knob="",
        tag="reading",
        rule=cite("16.2 ⑩"),
        text="a committed debater drawn as the second round's attacker still rolls rating + 3; "
        "not yet a knob",
    ),
    Assumption(
        name="whole_difference",
        knob="",
        tag="reading",
        rule=cite("16.2 ⑦"),
        text="the winner converts its whole hit difference (the zone is assumed to have room); "
        "not yet a knob",
    ),
)


PROCEDURE = Procedure(
    name="his.debate",
    title="Here I Stand theological debate",
    rules="Here I Stand rules §16.2 (docs/rules/here-i-stand.md#s16-2)",
    assumptions=ASSUMPTIONS,
    given=settings("caller", "zone", "protestant_debaters", "papal_debaters"),
    params_model=DebateParams,
    metrics=metrics,
    pack=pack,
    kernel=debate_kernel,
    exact=exact,
    example={
        "caller": "papacy",
        "zone": "german",
        "protestant_debaters": [
            {"name": "Luther", "rating": 4, "zone": "german"},
            {"name": "Carlstadt", "rating": 1, "zone": "german"},
        ],
        "papal_debaters": [{"name": "Eck", "rating": 3}, {"name": "Tetzel", "rating": 1}],
    },
    notes=(
        "the first defender comes from the pool the caller chooses (defender_from); the second "
        "round draws from the uncommitted debaters, committed ones if none (Here I Stand rules "
        "§16.2 ⑩)",
    ),
)
