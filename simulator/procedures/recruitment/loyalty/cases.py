"""The rule cases of recruitment's maintenance ownership check, and the revisions as presets.

Where the revisions 1.0, 1.1 and 1.2 (Recruitment rules, maintenance phase ③ and its last note)
differ, or where one text reads two ways, the rule is a named *case* with its options; a
revision is a named preset of every case. A scenario picks a revision, may change any case on
top of it (``revision: "1.1"`` with ``multi_tie: first_placed``), and may name its own presets
under ``revisions`` (``"1.3": {based_on: "1.2", multi_tie: first_placed}``).

The cases (options in the order their codes are packed; the first is the revision 1.0 reading):

- ``multi_tie``: several other empires tie above the owner. ``stays`` (1.0 says nothing: a gap,
  counted ``gap_multi_tie``; the character stays), ``removed`` (1.1 and 1.2 ⑶: every token on it
  is removed and it leaves the game), ``first_placed`` (in no revision: the tied rival who placed
  a token on it first gains it, keeping every token, like ⑵);
- ``zero_tokens``: no empire tokens left on the card. ``removed`` (1.0 ⑶, 1.1 and 1.2 ⑷: it leaves
  the game), ``stays`` (the other reading of the same words: the owner's loyalty, 0, is still
  "tied for the highest", ⑴). Either way counted ``gap_zero_tie``;
- ``equipment``: the equipped cards of a character that leaves the game. ``kept`` (1.0 and 1.1 say
  nothing: a gap, counted ``gap_equipped``; they stay with the empire), ``discarded`` (1.2);
- ``removed_tokens``: where the tokens removed from a character that leaves the game go (1.1's
  note: "lost or removed tokens go back to the bank"). ``bank`` (every revision), ``supply`` (in no
  revision: straight back to their empire's supply). Lost tokens (a failed loyalty check, an unpaid
  wage) are the ``returned_tokens`` knob.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Literal

MultiTie = Literal["stays", "removed", "first_placed"]
ZeroTokens = Literal["removed", "stays"]
Equipment = Literal["kept", "discarded"]
RemovedTokens = Literal["bank", "supply"]


@dataclass(frozen=True)
class Case:
    """One point where revisions or readings differ.

    Attributes:
        name: the parameter that holds it.
        options: its values, in the order of their packed codes.
        question: when the case arises, in a few words.
        meaning: what each option does, and which revision (if any) reads it so.
        fires: per option, the metrics that count the trials where it differs from the first
            option (``Procedure.fires``'s per-value form).
    """

    name: str
    options: tuple[str, ...]
    question: str
    meaning: dict[str, str]
    fires: dict[str, tuple[str, ...]]

    def describe(self) -> str:
        """One line for the parameter's description: the question, then every option."""
        said = "; ".join(f"{o}: {self.meaning[o]}" for o in self.options)
        return f"{self.question} — {said}. Unset: as the revision sets it"


CASES = (
    Case(
        "multi_tie",
        typing.get_args(MultiTie),
        "several other empires tie above the owner at the ownership check (maintenance ③)",
        {
            "stays": "the character stays with its owner (1.0, which says nothing: a gap)",
            "removed": "every token on it is removed and it leaves the game (1.1, 1.2 ⑶)",
            "first_placed": "the tied rival who placed a token on it first gains it with every "
            "token (in no revision)",
        },
        {
            "stays": (),
            "removed": ("gap_multi_tie", "removed_multi_tie"),
            "first_placed": ("gap_multi_tie", "given_multi_tie"),
        },
    ),
    Case(
        "zero_tokens",
        typing.get_args(ZeroTokens),
        "no empire tokens are left on an owned character",
        {
            "removed": "it leaves the game (1.0 ⑶, 1.1 and 1.2 ⑷)",
            "stays": "it stays: the owner's loyalty, 0, is still tied for the highest (⑴, the "
            "other reading of the same words)",
        },
        {"removed": (), "stays": ("gap_zero_tie",)},
    ),
    Case(
        "equipment",
        typing.get_args(Equipment),
        "a character with equipped cards leaves the game",
        {
            "kept": "its equipped cards stay with the empire (1.0, 1.1, which say nothing: a gap)",
            "discarded": "its equipped cards are discarded (1.2)",
        },
        {"kept": (), "discarded": ("equipment_discarded", "gap_equipped")},
    ),
    Case(
        "removed_tokens",
        typing.get_args(RemovedTokens),
        "tokens are removed from a character that leaves the game",
        {
            "bank": "they go to the bank (1.1's note, every revision)",
            "supply": "they go straight back to their empire's supply (in no revision)",
        },
        {"bank": (), "supply": ("removed_multi_tie",)},
    ),
)
CASE_NAMES = tuple(c.name for c in CASES)
BY_NAME = {c.name: c for c in CASES}

#: The rulebook's revisions, each a preset of every case.
REVISIONS: dict[str, dict[str, str]] = {
    "1.0": {
        "multi_tie": "stays",
        "zero_tokens": "removed",
        "equipment": "kept",
        "removed_tokens": "bank",
    },
    "1.1": {
        "multi_tie": "removed",
        "zero_tokens": "removed",
        "equipment": "kept",
        "removed_tokens": "bank",
    },
    "1.2": {
        "multi_tie": "removed",
        "zero_tokens": "removed",
        "equipment": "discarded",
        "removed_tokens": "bank",
    },
}
#: What each revision changed, as its text says (Recruitment rules, the revisions' headers).
REVISION_TEXT = {
    "1.0": "the first text",
    "1.1": "adds maintenance ③ case ⑶ (several others tie above the owner: removed with its "
    "tokens) and says removed tokens go to the bank too",
    "1.2": "cases ⑶ and ⑷ also discard the character's equipped cards",
}
assert all(set(r) == set(CASE_NAMES) for r in REVISIONS.values())


def code(case: str, option: str) -> int:
    """The packed code of ``option`` of ``case`` (its index in the case's options)."""
    return BY_NAME[case].options.index(option)


def revision_fires() -> dict[str, tuple[str, ...]]:
    """Per built-in revision, the case metrics where it differs from 1.0 (its cases' own)."""
    first = REVISIONS["1.0"]
    out: dict[str, tuple[str, ...]] = {}
    for name, cases in REVISIONS.items():
        metrics: list[str] = []
        for c in CASES:
            mine, theirs = c.fires[cases[c.name]], c.fires[first[c.name]]
            metrics += [m for m in (*mine, *theirs) if (m in mine) != (m in theirs)]
        out[name] = tuple(dict.fromkeys(metrics))
    return out


def preset_lines() -> list[str]:
    """``sim list``'s lines: every case with its options, then what each revision sets."""
    lines = []
    for c in CASES:
        options = "; ".join(f"{o} = {c.meaning[o]}" for o in c.options)
        lines.append(f"case {c.name} ({c.question}): {options}")
    for name, cases in REVISIONS.items():
        set_ = ", ".join(f"{k}: {v}" for k, v in cases.items())
        lines.append(f"revision {name} ({REVISION_TEXT[name]}): {set_}")
    return lines
