"""What held across a robustness run: the bottom lines of the verdict, and one line per level.

Every finding is a test of its own (:mod:`simulator.robustness.interaction`): a comparison the
verdict reports, seen under one level, against the main run, on the same deals. Its verdict is
``depends`` (the interaction's Holm-adjusted interval excludes 0), ``holds`` (the level's own
effect has the main effect's sign, or the interaction lies within the equivalence margin) or
``cannot tell`` (neither: the rerun was too small to say, with the deals that would).

The bottom lines name each finding the main run saw exactly once: in "same direction at every
play level, size depends on skill" when some level's interaction excludes 0 but every level's own
effect keeps the main effect's sign, in "depends on skill" (on the assumptions' names) when some
level's interaction excludes 0 otherwise, else in "cannot tell" when a level could not say, else
in "holds". A finding the main run did not see (no change) is named
only where a level's interaction excludes 0: it changes there. The seat line of a level never
says "even": a level whose test does not find unequal seats "cannot tell" at its games, with the
spread it would have seen.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from simulator.report.fairness import seat_detectable
from simulator.report.summary import ALPHA, Summary
from simulator.robustness.interaction import Finding
from simulator.stats import holm_adjusted

#: Findings named per line before "and N more".
SHOWN = 2
_WORD = {"policies": "skill", "assumption": "assumptions"}


@dataclass
class LevelLine:
    """One level of a robustness run as reports show it."""

    label: str
    kind: str
    text: str
    refused: str = ""
    trials: int = 0
    needed: float = 0.0
    capped: bool = False
    findings: list[Finding] = field(default_factory=list)


@dataclass
class SeatFinding:
    """A variant's seat answer under one level: its chi-square test of equal seats, Holm-adjusted
    over every level and variant, against the main run's answer."""

    level: str
    variant: str
    p_value: float
    p_holm: float
    spread: float
    games: int
    #: The smallest spread the level's test sees with 80% power.
    detectable: float
    main_unequal: bool
    main_spread: float
    main_games: int
    verdict: str = ""

    @property
    def needed(self) -> float:
        """Games that would see the main run's spread (as the detectable spread shrinks)."""
        if not self.main_unequal or not self.main_spread > 0 or not math.isfinite(self.detectable):
            return 0.0
        return self.games * (self.detectable / self.main_spread) ** 2

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "variant": self.variant,
            "finding": "seats",
            "verdict": self.verdict,
            "spread": self.spread,
            "p_value": self.p_value if math.isfinite(self.p_value) else None,
            "p_holm": self.p_holm if math.isfinite(self.p_holm) else None,
            "detectable_spread": self.detectable if math.isfinite(self.detectable) else None,
            "main_unequal": self.main_unequal,
            "trials": self.games,
            "trials_needed": round(self.needed) if self.needed else None,
        }


@dataclass
class RobustnessReport:
    """A robustness run turned into lines: per level, and the bottom lines of the verdict."""

    trials: int
    complete: bool
    levels: list[LevelLine]
    #: Assumption alternatives some finding depends on.
    changed: list[str]
    bottom: list[str]
    #: The time budget, the estimate announced for the sized reruns and the seconds taken.
    seconds: float = 0.0
    estimate: float = 0.0
    elapsed: float = 0.0
    findings: list[Finding] = field(default_factory=list)
    seats: list[SeatFinding] = field(default_factory=list)

    @property
    def sizes(self) -> str:
        """How many games each level played: ``sized by power: random 2,400 games, ...``."""
        ran = [lv for lv in self.levels if not lv.refused]
        games = ", ".join(f"{lv.label} {lv.trials:,}" for lv in ran[:4])
        more = f" and {len(ran) - 4} more" if len(ran) > 4 else ""
        return f"reruns sized by power on the same deals ({games}{more} games)"

    def to_dict(self) -> dict[str, Any]:
        return {
            "trials": self.trials,
            "complete": self.complete,
            "seconds_budget": self.seconds,
            "seconds_estimated": round(self.estimate, 2),
            "seconds_taken": round(self.elapsed, 2),
            "levels": [
                {
                    "label": lv.label,
                    "kind": lv.kind,
                    "text": lv.text,
                    "refused": lv.refused or None,
                    "trials": lv.trials,
                    "trials_needed": lv.needed if math.isfinite(lv.needed) else None,
                    "cut_by_budget": lv.capped,
                }
                for lv in self.levels
            ],
            "findings": [f.to_dict() for f in self.findings] + [s.to_dict() for s in self.seats],
            "changed": self.changed,
            "bottom": self.bottom,
        }


def _num(x: float, kind: str) -> str:
    if kind == "proportion":
        return f"{100 * x:+.1f} pp".replace("-", "\u2212")
    digits = 2 if abs(x) < 10 else 1
    return f"{x:+.{digits}f}".replace("-", "\u2212")


def _name(f: Finding, variants: int) -> str:
    return f.metric if variants <= 2 else f"{f.metric} ({f.variant})"


def _games(n: float) -> str:
    return f"{n:,.0f}" if n < 1000 else f"{float(f'{n:.2g}'):,.0f}"


def _depends_text(f: Finding, label: str) -> str:
    return (
        f"{_num(f.own.mean, f.kind)} with {label} vs {_num(f.main.mean, f.kind)} "
        f"(interaction {_num(f.interaction, f.kind)} [{_num(f.low, f.kind)}, "
        f"{_num(f.high, f.kind)}])"
    )


def _unseen(f: Finding) -> str:
    if not f.needed:
        return ""
    if math.isinf(f.needed):
        return "; no rerun could: the main run's own precision is the limit"
    if f.needed <= f.own.n:
        return f"; sized to see it (about {_games(f.needed)}), its deals did not show it"
    return f"; about {_games(f.needed)} would see it"


def _seat_text(s: SeatFinding) -> str:
    if not math.isfinite(s.p_value):
        return "seats: too few wins to test"
    if s.verdict in ("holds", "depends"):
        return f"seats unequal (spread {100 * s.spread:.1f} pp, Holm p = {s.p_holm:.2g})"
    seen = (
        f"; a spread below {100 * s.detectable:.1f} pp would go unseen"
        if math.isfinite(s.detectable)
        else ""
    )
    return f"seats: cannot tell at {s.games:,} games (spread {100 * s.spread:.1f} pp{seen})"


def _seats_text(seats: list[SeatFinding]) -> str:
    """Every variant's seat answer at one level, in one phrase when they agree."""
    if len({f.verdict for f in seats}) > 1 or len(seats) == 1:
        texts = [_seat_text(f) for f in seats]
        if len(seats) == 1:
            return texts[0]
        return "; ".join(f"{f.variant}: {t}" for f, t in zip(seats, texts, strict=True))
    top = max(seats, key=lambda f: f.spread)
    if top.verdict == "cannot tell" and math.isfinite(top.p_value):
        size = max(f.detectable for f in seats)
        seen = (
            f"; a spread below {100 * size:.1f} pp would go unseen" if math.isfinite(size) else ""
        )
        return (
            f"seats: cannot tell at {top.games:,} games (spread ≤ {100 * top.spread:.1f} pp{seen})"
        )
    return _seat_text(top)


def seat_findings(default: Summary, levels: list[tuple[str, Summary]]) -> list[SeatFinding]:
    """Every variant's seat answer under every level, Holm-adjusted over all of them."""
    main = {s.variant: s for s in default.seats}
    out = []
    for label, summary in levels:
        for s in summary.seats:
            m = main.get(s.variant)
            if m is None:
                continue
            won = sum(s.shares)
            size = seat_detectable(s.games, len(s.shares), won) if won > 0 else math.nan
            out.append(
                SeatFinding(
                    label,
                    s.variant,
                    s.p_value,
                    math.nan,
                    s.spread,
                    s.games,
                    size,
                    math.isfinite(m.p_value) and m.p_value < ALPHA,
                    m.spread,
                    m.games,
                )
            )
    tested = [f for f in out if math.isfinite(f.p_value)]
    if tested:
        for f, p in zip(tested, holm_adjusted([f.p_value for f in tested]), strict=True):
            f.p_holm = float(p)
    for f in out:
        unequal = f.p_holm < ALPHA
        f.verdict = ("holds" if f.main_unequal else "depends") if unequal else "cannot tell"
    return out


def _level_text(line: LevelLine, variants: int, seats: list[SeatFinding]) -> str:
    merged: dict[tuple[str, str], tuple[float, list[str]]] = {}
    for f in line.findings:
        if f.verdict == "depends":
            key = (f.metric, _depends_text(f, "it"))
            rank, named = merged.get(key, (0.0, []))
            size = abs(f.interaction) / max(f.se, 1e-300) + (1e9 if f.sign else 0.0)
            merged[key] = (max(rank, size), [*named, f.variant])
    depends = sorted(merged.items(), key=lambda x: -x[1][0])
    seen = [f for f in line.findings if f.sign]
    parts = []
    if depends:
        named = [
            (m if variants <= 2 else f"{m} ({', '.join(vs)})") + f" {text}"
            for (m, text), (_, vs) in depends[:SHOWN]
        ]
        more = f" and {len(depends) - SHOWN} more" if len(depends) > SHOWN else ""
        parts.append("differs: " + "; ".join(named) + more)
    holds = [_name(f, variants) for f in seen if f.verdict == "holds"]
    if holds:
        parts.append("holds: " + ", ".join(holds))
    unsure = [f for f in seen if f.verdict == "cannot tell"]
    if unsure:
        tail = _unseen(max(unsure, key=lambda f: f.needed))
        parts.append(
            f"cannot tell at {line.trials:,} games: "
            + ", ".join(_name(f, variants) for f in unsure)
            + tail
        )
    if seats:
        parts.append(_seats_text(seats))
    return "; ".join(parts) or "no finding to test"


def _same_sign(f: Finding) -> bool:
    """Whether the level's own effect excludes 0 on the main effect's side."""
    return (f.sign > 0 and f.own_low > 0) or (f.sign < 0 and f.own_high < 0)


def _span(names: list[str]) -> str:
    return f"{names[0]} → {names[-1]}" if len(names) > 1 else (names[0] if names else "")


def bottom_lines(
    kind: str,
    lines: list[LevelLine],
    names: list[str],
    variants: int,
    seats: list[SeatFinding] | None = None,
) -> list[str]:
    """The verdict's lines for one kind of level (see the module docstring)."""
    ran = [lv for lv in lines if not lv.refused]
    if not ran:
        return []
    seat_holds, seat_depends, seat_unsure = _seat_items(ran, names, seats or [], variants)
    word = _WORD[kind]
    keys = list(dict.fromkeys((f.metric, f.variant) for lv in ran for f in lv.findings))
    by_key = {k: [(lv, n) for lv, n in zip(ran, names, strict=True)] for k in keys}
    depends: dict[tuple[str, str], tuple[bool, float, list[str]]] = {}
    unsure: list[str] = []
    holds: list[str] = []
    steady: list[str] = []
    for key in keys:
        cells = [
            (f, n) for lv, n in by_key[key] for f in lv.findings if (f.metric, f.variant) == key
        ]
        if not cells:
            continue
        first = cells[0][0]
        label = _name(first, variants)
        moved = [(f, n) for f, n in cells if f.verdict == "depends"]
        if moved and first.sign and all(_same_sign(f) for f, _ in cells):
            # The direction holds everywhere; only the size moves.
            sized = "; ".join(_depends_text(f, n) for f, n in moved[:SHOWN])
            more = f" (and at {_levels(len(moved) - SHOWN)})" if len(moved) > SHOWN else ""
            steady.append(f"{label} {sized}{more}")
        elif moved:
            size = max(abs(f.interaction) / max(f.se, 1e-300) for f, _ in moved)
            text = "; ".join(_depends_text(f, n) for f, n in moved[:SHOWN])
            if len(moved) > SHOWN:
                text += f" (and at {_levels(len(moved) - SHOWN)})"
            # One metric that moves alike in several variants is named once.
            seen, old, named = depends.get((first.metric, text), (False, 0.0, []))
            depends[(first.metric, text)] = (
                seen or bool(first.sign),
                max(old, size),
                [*named, first.variant],
            )
        elif not first.sign:
            continue
        elif any(f.verdict == "cannot tell" for f, _ in cells):
            f, n = max(
                ((f, n) for f, n in cells if f.verdict == "cannot tell"), key=lambda x: x[0].needed
            )
            unsure.append(f"{label} with {n} at {f.own.n:,} games{_unseen(f)}")
        else:
            holds.append(f"{label} {_num(first.main.mean, first.kind)}")
    ranked = []
    for (metric, text), (seen, size, named) in depends.items():
        label = metric if variants <= 2 else f"{metric} ({', '.join(named)})"
        ranked.append((not seen, -size, f"{label} {text}"))
    ranked.sort()
    holds += seat_holds
    ranked += seat_depends
    unsure += seat_unsure
    out = []
    every = "play level" if kind == "policies" else "declared alternative"
    if (ranked or steady) and kind == "assumption":
        moved_levels = {f.level for lv in ran for f in lv.findings if f.verdict == "depends"}
        moved_levels |= {f.level for f in seats or [] if f.verdict == "depends"}
        word = ", ".join(dict.fromkeys(lb.split(": ")[0] for lb in names if lb in moved_levels))
    if holds:
        span = f" ({_span(names)})" if kind == "policies" else f" ({len(ran)} reruns)"
        out.append(f"holds at every {every}{span}: " + ", ".join(holds))
    if steady:
        more = f" (and {len(steady) - SHOWN} more)" if len(steady) > SHOWN else ""
        out.append(
            f"same direction at every {every}, size depends on {word}: "
            + "; ".join(steady[:SHOWN])
            + more
        )
    if ranked:
        texts = [t for _, _, t in ranked]
        more = f" (and {len(texts) - SHOWN} more)" if len(texts) > SHOWN else ""
        out.append(f"depends on {word}: " + "; ".join(texts[:SHOWN]) + more)
    if unsure:
        more = f" (and {len(unsure) - SHOWN} more)" if len(unsure) > SHOWN else ""
        out.append("cannot tell whether it holds: " + "; ".join(unsure[:SHOWN]) + more)
    if not out:
        out.append(f"nothing to test at any {every}: the main run saw no change")
    return out


def _levels(n: int) -> str:
    """``1 more level``, ``3 more levels``."""
    return f"{n} more level" if n == 1 else f"{n} more levels"


def _seat_items(
    ran: list[LevelLine], names: list[str], seats: list[SeatFinding], variants: int
) -> tuple[list[str], list[tuple[bool, float, str]], list[str]]:
    """The seat answers' share of the bottom lines: holds, depends (ranked like the findings'),
    cannot tell (only where the main run saw unequal seats)."""
    named = {lv.label: n for lv, n in zip(ran, names, strict=True)}
    mine = [f for f in seats if f.level in named]
    if not mine:
        return [], [], []
    groups: dict[str, list[SeatFinding]] = {}
    for f in mine:
        groups.setdefault(f.variant, []).append(f)
    items: dict[tuple[str, str], list[str]] = {}
    for variant, found in groups.items():
        moved = [f for f in found if f.verdict == "depends"]
        unsure = [f for f in found if f.verdict == "cannot tell" and f.main_unequal]
        if moved:
            text = "; ".join(
                f"unequal with {named[f.level]} (spread {100 * f.spread:.1f} pp, Holm p = "
                f"{f.p_holm:.2g}) where the main run found no difference"
                for f in moved[:SHOWN]
            )
            items.setdefault(("depends", text), []).append(variant)
        elif unsure:
            f = max(unsure, key=lambda f: f.needed)
            if f.needed > f.games:
                text = (
                    f"unequal: {f.games:,} games of {named[f.level]} cannot see the main run's "
                    f"{100 * f.main_spread:.1f} pp (about {_games(f.needed)} would)"
                )
            else:  # it could have seen the main run's spread, and did not find unequal seats
                text = (
                    f"unequal in the main run ({100 * f.main_spread:.1f} pp), not found with "
                    f"{named[f.level]} at {f.games:,} games (spread {100 * f.spread:.1f} pp; its "
                    f"test sees {100 * f.detectable:.1f} pp or more)"
                )
            items.setdefault(("unsure", text), []).append(variant)
        elif all(f.verdict == "holds" for f in found):
            items.setdefault(("holds", "unequal"), []).append(variant)
    holds, depends, unsure_out = [], [], []
    for (what, text), vs in items.items():
        label = "seats" if variants == 1 or len(vs) == len(groups) else f"seats ({', '.join(vs)})"
        if what == "holds":
            holds.append(f"{label} {text}")
        elif what == "depends":
            depends.append((False, 0.0, f"{label} {text}"))
        else:
            unsure_out.append(f"{label} {text}")
    return holds, depends, unsure_out


def short_labels(labels: list[str]) -> list[str]:
    """Level names for the bottom line: the agent's name, numbered when several levels share it
    (``rollout 1``, ``rollout 2``)."""
    heads = [lb.split("(")[0] for lb in labels]
    seen: dict[str, int] = {}
    out = []
    for h in heads:
        if heads.count(h) > 1:
            seen[h] = seen.get(h, 0) + 1
            out.append(f"{h} {seen[h]}")
        else:
            out.append(h)
    return out


def analyse(
    default: Summary,
    robustness: Any,
    summaries: list[Summary | None],
    found: list[Finding],
) -> RobustnessReport:
    """The report of a robustness run (:class:`simulator.robustness.run.Robustness`):
    ``summaries`` holds each rerun's folded summary (None when refused), ``found`` the tested
    family (:func:`simulator.robustness.findings.family`), in level order."""
    variants = len(default.variants)
    ran = [
        (r.level.label, summary)
        for r, summary in zip(robustness.reruns, summaries, strict=True)
        if r.result is not None and summary is not None
    ]
    seats = seat_findings(default, ran)
    lines: list[LevelLine] = []
    for rerun in robustness.reruns:
        level = rerun.level
        if rerun.result is None:
            text = f"not run: {rerun.refused}" if rerun.refused else "not run"
            lines.append(LevelLine(level.label, level.kind, text, rerun.refused or "interrupted"))
            continue
        own = [f for f in found if f.level == level.label]
        line = LevelLine(
            level.label,
            level.kind,
            "",
            trials=rerun.result.outcome.trials,
            needed=rerun.needed,
            capped=rerun.capped,
            findings=own,
        )
        line.text = _level_text(line, variants, [f for f in seats if f.level == level.label])
        lines.append(line)
    bottom: list[str] = []
    plays = [lv for lv in lines if lv.kind == "policies"]
    if plays:
        names = short_labels([lv.label for lv in plays if not lv.refused])
        bottom += bottom_lines("policies", plays, names, variants, seats)
    alts = [lv for lv in lines if lv.kind == "assumption"]
    changed = []
    if alts:
        done = [lv for lv in alts if not lv.refused]
        bottom += bottom_lines("assumption", alts, [lv.label for lv in done], variants, seats)
        moved = {f.level for f in seats if f.verdict == "depends"}
        changed = [
            lv.label
            for lv in done
            if lv.label in moved or any(f.verdict == "depends" for f in lv.findings)
        ]
    trials = max((lv.trials for lv in lines), default=0)
    return RobustnessReport(
        trials,
        robustness.complete,
        lines,
        changed,
        bottom,
        seconds=robustness.seconds,
        estimate=robustness.estimate,
        elapsed=robustness.elapsed,
        findings=found,
        seats=seats,
    )
