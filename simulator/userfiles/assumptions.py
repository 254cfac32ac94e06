"""What a designer's rule rests on, declared in their own file: ``ASSUMPTIONS``.

A value the designer made up (a turn limit, a starting purse) or a reading of a line they are not
sure of is declared beside the rule, so that ``sim list FILE.py`` shows it, the report's verdict
says the answer rests on it, and ``robustness: {assumptions: true}`` moves it::

    ASSUMPTIONS = {
        "max_turns": {
            "tag": "invented",
            "text": "a game that reaches 200 turns is drawn (the rules give no end)",
            "alternatives": {"100 turns": 100, "400 turns": 400},
        },
    }

Each key is a parameter of the rule; ``tag`` is ``invented``, ``reading`` or ``rulebook``;
``text`` is one line; ``alternatives`` (optional) names other values a robustness run tries. A
dice procedure's file declares them at module level (like ``METRICS``); a whole game's class may
declare them on the class. A mistake is an error at the file's line, exit 2.
"""

from __future__ import annotations

from typing import Any, cast, get_args

from simulator.procedures.base import Alternative, Assumption, AssumptionTag
from simulator.userfiles.loading import Ref, UserFileError, _line_of_name
from simulator.yaml_loader import Problem

TAGS = get_args(AssumptionTag)
KEYS = ("tag", "text", "alternatives")


def declared(owner: Any, ref: Ref, parameters: list[str]) -> tuple[Assumption, ...]:
    """The ``ASSUMPTIONS`` that ``owner`` (the designer's module or class) declares, checked
    against the rule's ``parameters``."""
    table = getattr(owner, "ASSUMPTIONS", None)
    if table is None:
        return ()
    line = _line_of_name(ref.path, "ASSUMPTIONS")

    def problem(message: str) -> UserFileError:
        return UserFileError([Problem(ref.shown, line, 1, "ASSUMPTIONS", message)])

    if not isinstance(table, dict):
        raise problem("ASSUMPTIONS must be a dict: parameter name -> {tag, text, alternatives}")
    out = []
    for name, entry in table.items():
        if name not in parameters:
            known = ", ".join(parameters) or "none"
            raise problem(f"ASSUMPTIONS[{name!r}]: not a parameter of {ref.name} ({known})")
        if not isinstance(entry, dict) or set(entry) - set(KEYS):
            raise problem(f"ASSUMPTIONS[{name!r}]: a dict with {', '.join(KEYS)}")
        tag, text = entry.get("tag"), entry.get("text")
        if tag not in TAGS:
            raise problem(f"ASSUMPTIONS[{name!r}]: tag is one of {', '.join(TAGS)}, not {tag!r}")
        if not isinstance(text, str) or not text.strip():
            raise problem(f"ASSUMPTIONS[{name!r}]: text is one line saying what the value does")
        others = entry.get("alternatives", {})
        if not isinstance(others, dict) or not all(isinstance(k, str) for k in others):
            raise problem(f"ASSUMPTIONS[{name!r}]: alternatives maps a label to a value")
        alternatives = tuple(
            Alternative(label, {name: value}, "invented" if tag == "invented" else "reading")
            for label, value in others.items()
        )
        rule = f"{ref.shown}, the designer's own file"
        kind = cast(AssumptionTag, tag)
        out.append(Assumption(name, name, kind, rule, text.strip(), alternatives))
    return tuple(out)
