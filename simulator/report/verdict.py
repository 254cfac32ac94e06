"""The verdict: a few lines in words, generated from the report's numbers and nothing else.

Lines, in order (each only when it has something to say):

1. a degenerate game first: most games end without a winner, or one seat takes everything — then
   seat and variant answers are not meaningful, and the verdict says so before anything else;
2. fairness across variants: which variant's seats are fairer, in one sentence, or that none is
   (identical on every deal, equivalent within the margin, or cannot tell below a size)
   (:mod:`simulator.report.fairness`);
3. what the answer rests on: the invented values and readings of unclear rules in force;
4. what held under other play and other readings (the robustness run, when there was one);
5. did the changed rule fire: per variant, how often the rule cases its knobs change arose
   (:mod:`simulator.report.grounds`); a comparison whose case never arose cannot see the change;
6. per variant after the first, how many summary metrics changed significantly and the largest of
   them ranked by standardized effect (Cohen's d over the pooled per-trial standard deviation for
   means, Cohen's h for proportions), the first with its Holm-adjusted interval; or, when none
   did, the smallest changes the run would have seen;
7. seat balance per variant: the spread of the seats' win shares and the chi-square test of equal
   seats; "no difference found" carries the smallest spread the test would have seen;
8. draws and game length, where the procedure reports them;
9. what did not move: summary metrics with no significant difference in any variant, with the
   smallest change each comparison would have seen;
10. metrics outside the summary that changed significantly (in the full tables: ``--detail``,
    and report.html below its summary).

Every "no change" or "balanced" carries its detectable size: 80% power at the level its test
used. A size is given in the metric's units (proportions in percentage points) and for ten times
the trials (sizes shrink as one over the square root of the trials).
"""

from __future__ import annotations

import math
from typing import Any

from simulator.equivalence import DIFFERENT, EQUIVALENT, IDENTICAL
from simulator.report.fairness import answer, seat_detectable
from simulator.report.format import fmt_difference, fmt_estimate, fmt_p, fmt_share, row_digits
from simulator.report.grounds import Case, Grounds
from simulator.report.summary import ALPHA, Row, SeatRow, Summary

#: Changes named per variant.
TOP_CHANGES = 3
#: Metrics named in the "did not move" line before "and N more".
MAX_LISTED = 8
#: Whole-game metrics that get a line of their own.
GAME_METRICS = ("draws", "length")

_COUNT_WORDS = {2: "both", 3: "all three", 4: "all four"}
#: A game is called degenerate when at least this share of games has no winner, or one seat wins
#: at least this share of the games someone won.
DEGENERATE = 0.8
DOMINANT = 0.95
#: Sizes are also given for this many times the trials.
MORE = 10


def _all(n: int) -> str:
    return _COUNT_WORDS.get(n, f"all {n}")


def _pp(x: float) -> str:
    return f"{100 * x:.1f} pp"


def _spp(x: float) -> str:
    """A signed difference in percentage points."""
    return f"{100 * x:+.1f} pp".replace("-", "\u2212")


def _size(x: float, kind: str) -> str:
    """A detectable size in the metric's units (proportions in percentage points)."""
    if not math.isfinite(x):
        return "∞"
    if kind == "proportion":
        return f"{100 * x:.2g} pp" if 100 * x < 1 else f"{100 * x:.1f} pp"
    return f"{x:.2g}" if x < 1 else f"{x:.2f}"


def _games(n: int) -> str:
    return f"{n:,} games" if n != 1 else "1 game"


def _listed(names: list[str]) -> str:
    if len(names) <= MAX_LISTED:
        return ", ".join(names)
    return ", ".join(names[:MAX_LISTED]) + f" and {len(names) - MAX_LISTED} more"


def _rank_key(effect: float | None) -> float:
    return -abs(effect) if effect is not None and not math.isnan(effect) else 0.0


def _compared(summary: Summary) -> list[Row]:
    return [r for r in summary.rows if r.role != "spread"]


def _seen(rows: list[Row], v: str, still: set[str], limit: int = TOP_CHANGES) -> str:
    """The smallest changes of ``rows`` variant ``v``'s comparison would have seen; metrics in
    ``still`` (no variant moved them) get theirs in the "no significant change" line."""
    own = [r for r in rows if r.metric not in still and r.cells[v].detectable is not None]
    sizes = [f"{r.metric} {_size(r.cells[v].detectable or math.inf, r.kind)}" for r in own]
    rest = "; the others below" if len(own) < len(rows) else ""
    if not sizes:
        return " (what it would have seen: below)" if rest else ""
    more = f" and {len(sizes) - limit} more" if len(sizes) > limit else ""
    return f" (it would have seen {', '.join(sizes[:limit])}{more}{rest})"


def _still(summary: Summary) -> list[str]:
    """Summary metrics no variant changed significantly (draws and length have their line)."""
    if len(summary.variants) < 2:
        return []
    return [
        r.metric
        for r in _compared(summary)
        if r.metric not in GAME_METRICS
        and any(r.cells[v].p_holm is not None for v in summary.variants[1:])
        and not any(r.cells[v].significant for v in summary.variants[1:])
    ]


def changes(summary: Summary, unseen: set[str] | None = None, ties: Any = None) -> list[str]:
    """One line per variant after the first: its significant changes, largest first; when none,
    that it plays every metric identically on every deal (``ties``), or the smallest changes it
    would have seen. Variants in ``unseen`` (their changed rule never fired) get no "no change"
    line: the rule line says why."""
    lines = []
    rows = _compared(summary)
    still = set(_still(summary))
    for v in summary.variants[1:]:
        tested = [r for r in rows if r.cells[v].p_holm is not None]
        moved = [r for r in tested if r.cells[v].significant]
        if not tested:
            continue
        if not moved:
            if v in (unseen or set()):
                continue
            many = "metric" if len(tested) == 1 else "metrics"
            mine = (ties or {}).get(v, {})
            same = [r for r in tested if r.metric in mine and mine[r.metric].verdict == IDENTICAL]
            # Metrics not compared deal by deal (a conditional mean) cannot be called identical.
            rest = [r for r in tested if r.metric not in mine]
            if same and len(same) + len(rest) == len(tested):
                every = _all(len(same)) if len(same) > 1 else "its"
                if rest:
                    every = f"{len(same)} of its {len(tested)}"
                text = f"{v}: identical to {summary.baseline} on every deal in {every} {many}"
                if len(rest) == 1:
                    r = rest[0]
                    size = _size(r.cells[v].detectable or math.inf, r.kind)
                    text += f"; no significant change in {r.metric} (it would have seen {size})"
                elif rest:
                    names = ", ".join(r.metric for r in rest)
                    text += f"; no significant change in {names}{_seen(rest, v, set())}"
                lines.append(text)
                continue
            seen = _seen(tested, v, still)
            lines.append(f"{v}: no significant change in {len(tested)} {many}{seen}")
            continue
        moved.sort(key=lambda r: _rank_key(r.cells[v].effect))
        parts = []
        for i, r in enumerate(moved[:TOP_CHANGES]):
            d = row_digits(r)
            style = "interval" if i == 0 else "bare"
            parts.append(f"{r.metric} {fmt_difference(r.cells[v], r.kind, d, style)}")
        lines.append(f"{v}: {len(moved)} of {len(tested)} metrics changed; " + ", ".join(parts))
    return lines


def seat_balance(summary: Summary, grounds: Grounds | None = None) -> list[str]:
    """Seat balance of every variant from the seat table."""
    if not summary.seats:
        return []
    tested = [s for s in summary.seats if math.isfinite(s.p_value)]
    untested = [s for s in summary.seats if not math.isfinite(s.p_value)]
    balanced = [s for s in tested if not s.p_value < ALPHA]
    unequal = [s for s in tested if s.p_value < ALPHA]
    lines = []
    if untested:
        wins = "; ".join(
            f"{s.variant}: {round(sum(s.shares) * s.games):,} wins in {s.games:,} games"
            if s.games > 0 and math.isfinite(sum(s.shares))
            else f"{s.variant}: no game finished"  # an interrupted run: shares of 0 games
            for s in untested
        )
        lines.append(f"too few wins to test the seats ({wins})")
    if not tested:
        return lines
    f = grounds.fairness if grounds is not None else None
    interval = ""
    if f is not None and f.variants:
        lo, hi = f.variants[0].spread.lo, f.variants[0].spread.hi
        interval = f" (spread 95% [{100 * lo:.1f}, {100 * hi:.1f}] pp)"
    same = _identical_seats(tested, interval)
    if same:
        return lines + same
    return lines + _tested_seats(balanced, unequal, everyone=not untested)


def _identical_seats(tested: list[SeatRow], interval: str = "") -> list[str]:
    """One line when every variant has exactly the same seat shares (identical games)."""
    first = tested[0]
    if len(tested) < 2 or any(s.shares != first.shares for s in tested[1:]):
        return []
    lines = _tested_seats(
        [first] if not first.p_value < ALPHA else [],
        [first] if first.p_value < ALPHA else [],
        everyone=False,
    )
    where = f" in {first.variant}"
    text = lines[0].replace(where, "", 1) if lines else ""
    return [f"{text}, alike in every variant{interval}"] if text else []


def _unseen_spread(balanced: list[SeatRow]) -> str:
    """What spread the test of equal seats could have missed, at this run's games and at ten
    times as many (the largest over the variants)."""
    sizes = [
        seat_detectable(s.games, len(s.shares), sum(s.shares))
        for s in balanced
        if s.games > 0 and sum(s.shares) > 0
    ]
    if not sizes or not all(math.isfinite(x) for x in sizes):
        return ""
    games = max(s.games for s in balanced)
    size = max(sizes)
    return (
        f"; a spread below {_pp(size)} would go unseen at {_games(games)} "
        f"({MORE * games:,} would see {_pp(size / math.sqrt(MORE))})"
    )


def _tested_seats(balanced: list[SeatRow], unequal: list[SeatRow], everyone: bool) -> list[str]:
    n = len(balanced) + len(unequal)
    if not unequal:
        spread = max(s.spread for s in balanced)
        p = min(s.p_value for s in balanced)
        unseen = _unseen_spread(balanced)
        if n == 1:
            where = "" if everyone else f" in {balanced[0].variant}"
            return [
                f"seats: no difference found{where} (spread {_pp(spread)}, p = {fmt_p(p)})" + unseen
            ]
        where = _all(n) if everyone else ", ".join(s.variant for s in balanced)
        return [
            f"seats: no difference found in {where} (spread ≤ {_pp(spread)}, p ≥ {fmt_p(p)})"
            + unseen
        ]
    parts = []
    for s in unequal:
        hi = max(range(len(s.shares)), key=lambda k: s.shares[k])
        lo = min(range(len(s.shares)), key=lambda k: s.shares[k])
        parts.append(
            f"{s.variant} (seat {hi + 1} {fmt_share(s.shares[hi])} vs seat {lo + 1} "
            f"{fmt_share(s.shares[lo])}, spread {_pp(s.spread)}, p = {fmt_p(s.p_value)})"
        )
    line = "seats unequal in " + "; ".join(parts)
    if balanced:
        names = ", ".join(s.variant for s in balanced)
        spread = max(s.spread for s in balanced)
        p = min(s.p_value for s in balanced)
        line += f"; no difference found in {names} (spread ≤ {_pp(spread)}, p ≥ {fmt_p(p)})"
        line += _unseen_spread(balanced)
    return [line]


def game_lines(summary: Summary, ties: Any = None) -> list[str]:
    """Draws and length, where the summary has them."""
    lines = []
    rows = {r.metric: r for r in _compared(summary)}
    for name in GAME_METRICS:
        r = rows.get(name)
        if r is None:
            continue
        d = row_digits(r)
        base = summary.variants[0]
        text = f"{name}: {fmt_estimate(r.cells[base].estimate, r.kind, d)}"
        if len(summary.variants) > 1:
            text += f" in {base}"
        later = summary.variants[1:]
        if later and _tie_of(ties, summary, name) == IDENTICAL:
            lines.append(f"{text}; identical on every deal in every variant")
            continue
        if later and not any(r.cells[v].significant for v in later):
            seen = [x for x in (r.cells[v].detectable for v in later) if x is not None]
            size = f" (it would have seen {_size(max(seen), r.kind)})" if seen else ""
            lines.append(f"{text}; no significant change in any variant{size}")
            continue
        for v in later:
            c = r.cells[v]
            est = fmt_estimate(c.estimate, r.kind, d)
            if c.significant:
                change = fmt_difference(c, r.kind, d, "interval")
                text += f"; {v} {est} ({change})"
            else:
                text += f"; {v} {est} (no significant change)"
        lines.append(text)
    return lines


def _tie_of(ties: Any, summary: Summary, metric: str) -> str:
    """``identical`` when every later variant plays ``metric`` identically on every deal,
    ``equivalent`` when each is identical or equivalent within the margin, else ``""``."""
    found = [(ties or {}).get(v, {}).get(metric) for v in summary.variants[1:]]
    if not found or any(t is None for t in found):
        return ""
    verdicts = {t.verdict for t in found}
    if verdicts == {IDENTICAL}:
        return IDENTICAL
    return EQUIVALENT if verdicts <= {IDENTICAL, EQUIVALENT} else ""


def unmoved(summary: Summary, ties: Any = None) -> list[str]:
    """Summary metrics no variant changed significantly: those identical on every deal in
    every variant, those equivalent within their margins (:mod:`simulator.report.ties`), and the
    rest each with the smallest change the comparisons would have seen (the largest over the
    variants)."""
    still = _still(summary)
    if not still:
        return []
    rows = {r.metric: r for r in _compared(summary)}
    listed, same, close = [], [], []
    for name in still:
        tie = _tie_of(ties, summary, name)
        if tie == IDENTICAL:
            same.append(name)
            continue
        if tie == EQUIVALENT:
            margin = max(ties[v][name].margin for v in summary.variants[1:])
            close.append(f"{name} ±{_size(margin, rows[name].kind)}")
            continue
        r = rows[name]
        seen = [x for x in (r.cells[v].detectable for v in summary.variants[1:]) if x is not None]
        listed.append(f"{name} {_size(max(seen), r.kind)}" if seen else name)
    lines = []
    if same:
        lines.append(f"identical on every deal in every variant: {_listed(same)}")
    if close:
        lines.append(f"equivalent within their margins in every variant: {_listed(close)}")
    if listed:
        lines.append(
            "no significant change in any variant (each with the smallest change it would have "
            f"seen): {_listed(listed)}"
        )
    return lines


def elsewhere(summary: Summary, detail: bool = False) -> list[str]:
    """Metrics outside the summary that changed; where to read them depends on whether the full
    tables are shown after the verdict (``detail``)."""
    if not summary.other_changes:
        return []
    where = "in the full tables below" if detail else "see --detail"
    return [f"also changed (not in the summary, {where}): {_listed(summary.other_changes)}"]


def degenerate(summary: Summary) -> list[str]:
    """A first line when most games have no winner, or one seat takes nearly every win."""
    lines = []
    for s in summary.seats:
        won = sum(s.shares)
        where = f" in {s.variant}" if len(summary.seats) > 1 else ""
        if s.games > 0 and 1 - won >= DEGENERATE:
            lines.append(
                f"{fmt_share(1 - won)} of games end without a winner{where}: these players do "
                "not play to win; seat and variant answers are not meaningful"
            )
        elif won > 0 and len(s.shares) > 1 and max(s.shares) / won >= DOMINANT:
            top = max(range(len(s.shares)), key=lambda k: s.shares[k])
            lines.append(
                f"seat {top + 1} wins {fmt_share(s.shares[top] / won)} of the games someone "
                f"won{where}: one seat takes everything; seat answers are not meaningful"
            )
    return lines


def fairness_lines(summary: Summary, grounds: Grounds | None) -> list[str]:
    """One plain sentence: which variant is fairer (its seat spread told apart below the
    others'), or that none is — identical on every deal, equivalent within the margin, or
    cannot tell (with the difference that would go unseen) — then the spreads it rests on."""
    f = grounds.fairness if grounds is not None else None
    if f is None or len(f.variants) < 2:
        return []
    base = f.variants[0]
    later = f.variants[1:]

    def spread(v: Any) -> str:
        return f"{_pp(v.spread.mean)} [{100 * v.spread.lo:.1f}, {100 * v.spread.hi:.1f}]"

    def diff(v: Any) -> str:
        t = v.tie
        if t is None:
            return v.variant
        if t.verdict == IDENTICAL:
            return f"{v.variant} identical on every deal"

        def signed(x: float) -> str:
            return f"{100 * x:+.1f}".replace("-", "\u2212")

        text = f"{v.variant} {_spp(t.difference)} [{signed(t.lo)}, {signed(t.hi)}]"
        inside = -f.margin < t.eq_lo and t.eq_hi < f.margin
        if t.verdict == EQUIVALENT:
            text += f", 90% [{signed(t.eq_lo)}, {signed(t.eq_hi)}] within ±{_pp(f.margin)}"
        elif t.verdict == DIFFERENT and inside:
            # Told apart, and yet inside the margin: a real difference too small to matter.
            text += f", inside ±{_pp(f.margin)}"
        return text

    said = answer(f)
    tiers = f.tiers
    if len(tiers) == 1 and f.alike(tiers[0]) == IDENTICAL:
        return [f"fairness: {said} (seat spread {spread(base)})"]
    diffs = "; ".join(diff(v) for v in later)
    rest = f"seat spread {base.variant} {spread(base)}; from it: {diffs}"
    if len(tiers) > 1:
        first = [v for v in f.variants if v.variant in tiers[0] and v is not base]
        if not first:
            return [f"fairness: {said} ({rest})"]
        spreads = ", ".join(f"{v.variant} {spread(v)}" for v in first)
        return [f"fairness: {said} (seat spread {spreads}; {rest})"]
    if f.alike(tiers[0]) == EQUIVALENT:
        return [f"fairness: {said} ({rest})"]
    size = f.unseen(tiers[0])
    more = f" ({MORE * f.games:,} would see {_pp(size / math.sqrt(MORE))})" if size else ""
    return [f"fairness: {said}{more} ({rest})"]


def _case_line(base: str, variant: str, found: list[Case]) -> str:
    knobs = ", ".join(dict.fromkeys(c.knob for c in found))
    names = list(dict.fromkeys(m for c in found for m in c.metrics))
    metrics = ", ".join(names[:2]) + (f" and {len(names) - 2} more" if len(names) > 2 else "")
    trials = found[0].trials
    if all(c.never for c in found):
        return (
            f"{variant} vs {base}: the cases where {knobs} differs ({metrics}) arose 0 times "
            f"in {_games(trials)} under either; this comparison cannot see the change"
        )
    before = sum(c.base_count for c in found)
    after = sum(c.count for c in found)
    return (
        f"{variant} vs {base}: the cases where {knobs} differs ({metrics}) arose "
        f"{before:,.0f} times under {base} and {after:,.0f} under {variant} in {_games(trials)}"
    )


def fired(summary: Summary, grounds: Grounds | None) -> tuple[list[str], set[str]]:
    """The lines on how often each variant's changed rule cases arose, and the variants whose
    cases never did."""
    if grounds is None or not grounds.cases:
        return [], set()
    lines, never = [], set()
    for v in summary.variants[1:]:
        found = [c for c in grounds.cases if c.variant == v]
        if not found:
            continue
        if all(c.never for c in found):
            never.add(v)
        # A variant whose changes the verdict lists next has shown that its rule fired; the
        # count matters where it says nothing changed (or could not see a change).
        moved = any(r.cells[v].significant for r in _compared(summary))
        if v in never or not moved:
            lines.append(_case_line(summary.baseline, v, found))
    return lines, never


def rests_on(grounds: Grounds | None) -> list[str]:
    """The invented values and readings of unclear rules the answer rests on."""
    if grounds is None or not grounds.assumptions:
        return []
    invented = [a.name for a in grounds.assumptions if a.tag == "invented"]
    readings = [a.name for a in grounds.assumptions if a.tag != "invented"]
    parts = []

    def short(names: list[str]) -> str:
        return ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")

    if invented:
        parts.append(
            f"{len(invented)} invented value{'s' * (len(invented) > 1)} ({short(invented)})"
        )
    if readings:
        parts.append(f"{len(readings)} reading{'s' * (len(readings) > 1)} ({short(readings)})")
    return ["rests on " + " and ".join(parts) + " (--robustness assumptions moves each)"]


def verdict(
    summary: Summary,
    detail: bool = False,
    grounds: Grounds | None = None,
    held: list[str] | None = None,
) -> list[str]:
    """The verdict lines (see the module docstring); ``detail``: the full tables follow it;
    ``grounds``: the fairness, rule cases and assumptions of the run, when known; ``held``: what
    held under other play and other readings (:mod:`simulator.report.robustness`).

    The designer's three questions come first: which variant is fairer (or that none is), what
    the answer rests on, and which findings hold across play levels; the lines they qualify
    follow."""
    case_lines, never = fired(summary, grounds)
    return (
        degenerate(summary)
        + fairness_lines(summary, grounds)
        + rests_on(grounds)
        + list(held or [])
        + case_lines
        + changes(summary, never, grounds.ties if grounds is not None else None)
        + seat_balance(summary, grounds)
        + game_lines(summary, grounds.ties if grounds is not None else None)
        + unmoved(summary, grounds.ties if grounds is not None else None)
        + elsewhere(summary, detail)
    )


def why(summary: Summary, explanations: list[Any] | None) -> list[str]:
    """The "why" lines (``sim explain``, ``--explain``, a scenario's ``explain: true``): for each
    summary metric an explained variant changed significantly (as the summary says), each
    clause's share of its change (:mod:`simulator.explain.render`)."""
    if not explanations:
        return []
    from simulator.explain.render import why_lines

    changed = {
        (variant, r.metric) for r in summary.rows for variant, c in r.cells.items() if c.significant
    }
    return why_lines(explanations, changed)
