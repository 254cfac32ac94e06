"""What held across a robustness run: one line per level, and a bottom line.

A comparison's **findings** are read off each run's folded summary: for every variant after the
first and every summary metric, the sign of a significant difference (0 when none), and for every
variant the seat answer (seats unequal, or no difference found, with the spread). A finding
*holds* when every level gives it the same value.

- **Play levels** (``robustness: {policies: [...]}``): a line per level with its significant
  changes and seat answer, then "holds at every level" or "depends on skill", naming each finding
  that moves and its value at each level.
- **Assumptions** (``robustness: {assumptions: true}``): each alternative's findings against the
  default run's; the verdict lines that change (a sign, a significance, the seat answer, the
  fairest variant) are listed largest change first, and the bottom line names what the answer
  rests on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from simulator.report.format import fmt_difference, row_digits
from simulator.report.summary import ALPHA, Summary
from simulator.report.verdict import DEGENERATE

#: Findings named per line before "and N more".
SHOWN = 2


@dataclass
class Finding:
    """One verdict finding: a metric's change in a variant, or a variant's seat answer."""

    label: str
    #: -1, 0 or +1 for a change (0: not significant); for seats 1 unequal, 0 no difference.
    value: int
    text: str
    #: A size to rank changes by: a standardized effect, or a seat spread.
    size: float


@dataclass
class LevelLine:
    """One level of a robustness run as reports show it."""

    label: str
    kind: str
    text: str
    refused: str = ""
    findings: dict[str, Finding] = field(default_factory=dict)


@dataclass
class RobustnessReport:
    """A robustness run turned into lines: per level, the changes against the default for
    assumptions, and the bottom lines."""

    trials: int
    complete: bool
    levels: list[LevelLine]
    #: Assumption alternatives whose findings differ from the default run's, largest first.
    changed: list[str]
    bottom: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {
            "trials": self.trials,
            "complete": self.complete,
            "levels": [
                {
                    "label": lv.label,
                    "kind": lv.kind,
                    "text": lv.text,
                    "refused": lv.refused or None,
                    "findings": {k: f.value for k, f in lv.findings.items()},
                }
                for lv in self.levels
            ],
            "changed": self.changed,
            "bottom": self.bottom,
        }


def findings(summary: Summary) -> dict[str, Finding]:
    """The findings of one run (see the module docstring)."""
    out: dict[str, Finding] = {}
    for row in summary.rows:
        if row.role == "spread":
            continue
        for v in summary.variants[1:]:
            c = row.cells[v]
            if c.p_holm is None:
                continue
            sign = 0 if not c.significant else (1 if (c.difference or 0) > 0 else -1)
            text = fmt_difference(c, row.kind, row_digits(row), "bare") if sign else "no change"
            size = abs(c.effect) if c.effect is not None and math.isfinite(c.effect) else 0.0
            label = row.metric if len(summary.variants) == 2 else f"{row.metric} ({v})"
            out[label] = Finding(label, sign, text, size if sign else 0.0)
    for s in summary.seats:
        where = "" if len(summary.seats) == 1 else f" ({s.variant})"
        won = sum(s.shares)
        # A game nobody wins is a verdict of its own (the seats cannot be tested then).
        label = f"games without a winner{where}"
        out[label] = Finding(
            label, int(1 - won >= DEGENERATE), f"{100 * (1 - won):.0f}%", abs(1 - won)
        )
        if not math.isfinite(s.p_value):
            label = "seats" + where
            out[label] = Finding(label, -1, f"too few wins to test ({won * s.games:.0f})", 0.0)
            continue
        unequal = int(s.p_value < ALPHA)
        label = "seats" if len(summary.seats) == 1 else f"seats ({s.variant})"
        word = "unequal" if unequal else "no difference found"
        out[label] = Finding(label, unequal, f"{word}, spread {100 * s.spread:.1f} pp", s.spread)
    return out


def _compact(found: dict[str, Finding]) -> str:
    moved = sorted((f for f in found.values() if f.value), key=lambda f: -f.size)
    parts = [f"{f.label} {f.text}" for f in moved if not f.label.startswith("seats")][:SHOWN]
    seats = [f"{f.label} {f.text}" for f in found.values() if f.label.startswith("seats")]
    return "; ".join((parts or ["no significant change"]) + seats[:1])


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


def _runs(values: list[str], names: list[str]) -> str:
    """``+3.9 with random; no change from greedy up``: consecutive levels with one value."""
    groups: list[tuple[str, list[str]]] = []
    for v, n in zip(values, names, strict=True):
        if groups and groups[-1][0] == v:
            groups[-1][1].append(n)
        else:
            groups.append((v, [n]))
    parts = []
    for i, (v, ns) in enumerate(groups):
        if i == len(groups) - 1 and len(ns) > 1 and len(groups) > 1:
            parts.append(f"{v} from {ns[0]} up")
        else:
            parts.append(f"{v} with {', '.join(ns)}")
    return "; ".join(parts)


def _depends(lines: list[LevelLine]) -> list[str]:
    """Findings whose value differs between levels, each with its value per level. A metric a
    level does not show is zero in every variant there (the summary hides it): no change."""
    ran = [lv for lv in lines if not lv.refused]
    names = short_labels([lv.label for lv in ran])
    keys = list(dict.fromkeys(k for lv in ran for k in lv.findings))
    # Findings of one metric that move alike in several variants are named once.
    moving: dict[tuple[str, str], tuple[float, list[str]]] = {}
    for k in keys:
        values = [lv.findings[k].value if k in lv.findings else 0 for lv in ran]
        if len(set(values)) > 1:
            texts = [lv.findings[k].text if k in lv.findings else "no change" for lv in ran]
            size = max((lv.findings[k].size for lv in ran if k in lv.findings), default=0.0)
            metric, _, variant = k.partition(" (")
            key = (metric, _runs(texts, names))
            old = moving.get(key, (0.0, []))
            moving[key] = (max(old[0], size), [*old[1], variant.rstrip(")")])
    out = []
    for (metric, runs), (size, variants) in moving.items():
        named = [v for v in variants if v]
        label = f"{metric} ({', '.join(named)})" if named else metric
        out.append((size, f"{label} {runs}"))
    return [text for _, text in sorted(out, key=lambda x: -x[0])]


def _seat_word(f: Finding) -> str:
    if f.value < 0:
        return f"seats {f.text}"
    return f"seats {'unequal' if f.value else 'even'} ({100 * f.size:.1f} pp)"


def _focus(plays: list[LevelLine]) -> None:
    """Each play level's line names first what differs between the levels (one metric moved
    alike in several variants is named once), then its seat answer: one line a level."""
    ran = [lv for lv in plays if not lv.refused]
    keys = list(dict.fromkeys(k for lv in ran for k in lv.findings if not k.startswith("seats")))
    moving = [
        k for k in keys if len({lv.findings[k].value if k in lv.findings else 0 for lv in ran}) > 1
    ]
    if not moving:
        return
    for lv in ran:
        merged: dict[tuple[str, str], list[str]] = {}
        for k in moving:
            f = lv.findings.get(k)
            metric, _, variant = k.partition(" (")
            merged.setdefault((metric, f.text if f else "no change"), []).append(
                variant.rstrip(")")
            )
        parts = []
        everyone = {k.partition(" (")[2].rstrip(")") for k in moving}
        for (metric, text), variants in list(merged.items())[:SHOWN]:
            named = [v for v in variants if v]
            # Variants are named only where a finding is not every compared variant's.
            label = f" ({', '.join(named)})" if named and set(named) != everyone else ""
            parts.append(f"{metric} {text}{label}")
        seats = [f for k, f in lv.findings.items() if k.startswith("seats")]
        lv.text = "; ".join(parts + [_seat_word(f) for f in seats[:1]])


def _against(default: dict[str, Finding], alt: dict[str, Finding]) -> list[tuple[float, str]]:
    """How an alternative's findings differ from the default run's: (size, text) pairs."""
    out = []
    for k in dict.fromkeys([*default, *alt]):
        a, b = default.get(k), alt.get(k)
        if a is None or b is None:
            continue
        seats = k.startswith("seats")
        if a.value != b.value or (seats and abs(a.size - b.size) >= 0.02):
            size = abs(b.size - a.size) if seats else max(a.size, b.size)
            out.append((size, f"{k} {a.text} → {b.text}"))
    return sorted(out, key=lambda x: -x[0])


def analyse(
    default: Summary, levels: list[tuple[Any, Summary | None, str]], trials: int, complete: bool
) -> RobustnessReport:
    """The report of a robustness run: ``levels`` holds (level, its summary or None, why it was
    refused), ``default`` the summary of the scenario as written."""
    base = findings(default)
    lines: list[LevelLine] = []
    changed: list[tuple[float, str]] = []
    for level, summary, refused in levels:
        if summary is None:
            lines.append(LevelLine(level.label, level.kind, f"not run: {refused}", refused))
            continue
        found = findings(summary)
        text = _compact(found)
        if level.kind == "assumption":
            diffs = _against(base, found)
            text = "; ".join(t for _, t in diffs[:SHOWN]) if diffs else "same verdict"
            name, _, alt = level.label.partition(": ")
            changed += [(size, f"{name} ({alt}: {t})") for size, t in diffs]
        lines.append(LevelLine(level.label, level.kind, text, findings=found))
    bottom = []
    plays = [lv for lv in lines if lv.kind == "policies"]
    _focus(plays)
    if plays:
        names = short_labels([lv.label for lv in plays if not lv.refused])
        moving = _depends(plays)
        span = f"{names[0]} → {names[-1]}" if len(names) > 1 else (names[0] if names else "")
        if not moving:
            bottom.append(f"holds at every play level ({span})")
        else:
            more = f" (and {len(moving) - 1} more)" if len(moving) > 1 else ""
            bottom.append("depends on skill: " + moving[0] + more)
    alts = [lv for lv in lines if lv.kind == "assumption"]
    if alts:
        ranked = [t for _, t in sorted(changed, key=lambda x: -x[0])]
        if ranked:
            more = f" (and {len(ranked) - SHOWN} more)" if len(ranked) > SHOWN else ""
            bottom.append("rests on " + "; ".join(ranked[:SHOWN]) + more)
        else:
            bottom.append(f"holds under every declared alternative ({len(alts)} reruns)")
    return RobustnessReport(trials, complete, lines, [t for _, t in changed], bottom)
