"""The page's form and what it edits: a procedure's parameter model as JSON Schema (types, ranges,
choices, descriptions, lists) with its assumption marks; a draft (the file as loaded, one variant
of knob changes, trials and seed) composed into scenario text; and that text checked exactly as
`sim validate` checks a file, each problem placed beside its field.

Every edit becomes a variant beside the base (paired on shared streams), so each change is a
comparison. The composed text is what runs and what is saved, so a saved file reruns to the same
numbers.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml

from simulator import procedures
from simulator.scenario import BASE_VARIANT, Scenario, ScenarioError, parse
from simulator.yaml_loader import Problem, compose, to_python

#: The variant that holds the page's knob changes, unless the designer names it otherwise.
EDIT_VARIANT = "edit"
_VARIANT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass
class Draft:
    """What the page sends: the file as loaded and the changes made to it.

    Attributes:
        source: the scenario text as read from its file.
        file: the file's path as shown (problems name it, as `sim validate` would).
        variant: the name of the variant holding the knob changes.
        overrides: the knob changes (nested like ``params:``), empty for none.
        trials: trials per variant, None to keep the file's.
        seed: the seed, None to keep the file's.
    """

    source: str
    file: str
    variant: str = EDIT_VARIANT
    overrides: dict[str, Any] = field(default_factory=dict)
    trials: int | None = None
    seed: int | None = None

    @classmethod
    def of(cls, body: dict[str, Any], file: str, source: str) -> Draft:
        """A draft from the page's JSON (types checked here; values by the scenario loader)."""
        overrides = body.get("overrides") or {}
        if not isinstance(overrides, dict):
            raise ValueError("overrides must be a mapping of parameters")
        variant = body.get("variant") or EDIT_VARIANT
        if not isinstance(variant, str):
            raise ValueError("variant must be a name")
        numbers = {}
        for key in ("trials", "seed"):
            value = body.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise ValueError(f"{key} must be a whole number")
            numbers[key] = value
        return cls(source, file, variant, overrides, numbers["trials"], numbers["seed"])


def raw_values(text: str, file: str) -> dict[str, Any]:
    """The file's values as the scenario loader reads them (YAML 1.1 surprises refused)."""
    raw, _, problems = to_python(compose(text, file), file)
    if problems:
        raise ScenarioError(problems)
    return dict(raw)


def _edited(source: str, change: Callable[[Any], bool]) -> str | None:
    """``source`` with ``change`` applied to its mapping in place, every comment, key order and
    quoting of the untouched lines kept (ruamel.yaml's round trip); None if nothing changed.

    The source has already passed the scenario loader's bounds (``raw_values``), so the round trip
    reads only text of bounded size, depth and aliases."""
    from ruamel.yaml import YAML  # the serve extra; only saving and running an edit need it

    rt = YAML(typ="rt")
    rt.width = 100
    rt.preserve_quotes = True
    data = rt.load(source)
    if not change(data):
        return None
    out = io.StringIO()
    rt.dump(data, out)
    return out.getvalue()


def compose_text(draft: Draft) -> str:
    """The scenario text of ``draft``: the source with the changes written into it, its
    comments, key order and layout kept; the source itself when nothing changed.

    Raises:
        ScenarioError: the source is not YAML the loader reads, or the variant name is not one.
    """
    raw = raw_values(draft.source, draft.file)
    if not _VARIANT_NAME.fullmatch(draft.variant) or draft.variant == BASE_VARIANT:
        problem = Problem(
            draft.file,
            1,
            1,
            f"variants.{draft.variant}",
            f"variant name must be letters, digits, '.', '_', '-' and not {BASE_VARIANT!r}",
        )
        raise ScenarioError([problem])

    def change(data: Any) -> bool:
        changed = False
        variants = data.get("variants")
        if isinstance(variants, dict) or variants is None:
            if draft.overrides:
                if variants is None:
                    data["variants"] = variants = {}
                if (raw.get("variants") or {}).get(draft.variant) != draft.overrides:
                    variants[draft.variant] = dict(draft.overrides)
                    changed = True
            elif variants is not None and draft.variant in variants:
                del variants[draft.variant]
                changed = True
                if not variants:
                    del data["variants"]
        for key in ("trials", "seed"):
            value = getattr(draft, key)
            if value is not None and value != raw.get(key):
                data[key] = value
                changed = True
        return changed

    edited = _edited(draft.source, change)
    if edited is None:
        return draft.source
    mark = f"# Edited in sim serve from {draft.file}."
    return edited if mark in edited.splitlines() else f"{mark}\n{edited}"


def validate(text: str, file: str) -> Scenario:
    """Load ``text`` as `sim validate` loads a file: the scenario, then its ``tune:`` section.

    Raises:
        ScenarioError: every problem, each with file, line, column and field.
    """
    scenario = parse(text, file)
    if scenario.raw.get("tune") is not None:
        from simulator.tune import parse_tune

        parse_tune(scenario)
    return scenario


def placed(problems: list[Problem], variant: str) -> list[dict[str, Any]]:
    """Each problem with the form field it belongs to: a parameter of the edited variant or of
    the base (``attacker.units``), ``trials``, ``seed``, ``variant``, or None (shown above)."""
    out = []
    for p in problems:
        where: str | None = None
        for prefix in (f"variants.{variant}.", "params."):
            if p.path.startswith(prefix):
                where = p.path.removeprefix(prefix)
        if p.path in ("trials", "seed"):
            where = p.path
        elif p.path == f"variants.{variant}":
            where = "variant"
        out.append({"field": where, "text": str(p), "message": p.message})
    return out


def _marks(procedure: Any) -> dict[str, dict[str, Any]]:
    """The declared assumptions by knob: what the default is (rulebook, reading, invented)."""
    return {
        a.knob: {
            "name": a.name,
            "tag": a.tag,
            "rule": a.rule,
            "text": a.text,
            "alternatives": [alt.label for alt in a.alternatives],
        }
        for a in procedure.assumptions
    }


def _mapping(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def form(text: str, file: str, variant: str = EDIT_VARIANT) -> dict[str, Any]:
    """Everything the page needs to draw the form of a scenario file, and its problems.

    The base values are the validated base variant's (defaults filled in); the changes already
    in the file's ``variant`` are the form's starting edits, so a saved file opens as it was left.
    """
    raw: dict[str, Any] = {}
    problems: list[Problem] = []
    scenario: Scenario | None = None
    try:
        raw = raw_values(text, file)
        scenario = validate(text, file)
    except ScenarioError as e:
        problems = e.problems
    name = raw.get("procedure")
    try:
        procedure = scenario.procedure if scenario else procedures.get(str(name))
    except KeyError:
        procedure = None
    base: dict[str, Any] = _mapping(raw.get("params"))
    if scenario is not None:
        base = scenario.variants[BASE_VARIANT].model_dump(mode="json")
    variants = _mapping(raw.get("variants"))
    edits = _mapping(variants.get(variant))
    return {
        "file": file,
        "name": raw.get("name"),
        "description": raw.get("description", ""),
        "trials": raw.get("trials"),
        "seed": raw.get("seed"),
        "procedure": None
        if procedure is None
        else {
            "name": procedure.name,
            "title": procedure.title,
            "rules": procedure.rules,
            "notes": list(procedure.notes),
            "schema": procedure.params_model.model_json_schema(),
            "marks": _marks(procedure),
            "exact": procedure.exact is not None,
        },
        "base": base,
        "variant": variant,
        "edits": edits,
        "others": [k for k in variants if k != variant],
        "swept": list(scenario.sweep) if scenario else [],
        "problems": placed(problems, variant),
    }


def params_fragment(scenario: Scenario, variant: str) -> str:
    """The ``params:`` block of ``variant`` (the base with its changes), to paste into a file."""
    chosen = scenario.variants.get(variant) or scenario.variants[BASE_VARIANT]
    return yaml.safe_dump({"params": chosen.model_dump(mode="json")}, sort_keys=False)
