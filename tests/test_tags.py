"""Nothing is silent: every parameter of every procedure carries one tag, declared once.

A parameter's tag (rulebook, reading, invented, or setting: the question a run asks) comes from one
declaration on its procedure: an ``Assumption`` whose knob covers it (or whose alternatives move
it), else a ``Given`` (simulator/procedures/base.py, ``declarations_of``). ``sim list`` and the
reference pages print it from there; docs/rules/ carries a generated tag table per game and its
prose may not say another tag beside a parameter's name; the robustness run moves exactly the
declared assumptions, each to alternatives that change its knob. A new parameter without a
declaration fails here; how to declare one: the docstrings of ``Assumption`` and ``Given``.
"""

from __future__ import annotations

import re
from io import StringIO
from pathlib import Path

import pytest
from rich.console import Console

from simulator import docgen, procedures
from simulator.describe import describe, parameter_rows, parameter_tags
from simulator.procedures.base import Assumption, Given, Procedure, declarations_of
from simulator.robustness.spec import RobustnessSpec, levels

ROOT = Path(__file__).resolve().parents[1]

NAMES = procedures.names()
CHECKED = NAMES


def test_every_procedure_has_a_rules_page():
    for prefix in {n.split(".")[0] for n in NAMES}:
        assert prefix in docgen.RULE_PAGES, f"no docs/rules page for the {prefix} procedures"


def _untagged(proc: Procedure) -> list[str]:
    """The parameters of ``proc`` without a declaration; fails where declarations disagree."""
    out = []
    for path, *_ in parameter_rows(proc.params_model):
        found = declarations_of(proc, path)
        if not found:
            out.append(path)
        assert len({d.tag for d in found}) <= 1, f"{proc.name}.{path}: tags disagree: {found}"
    return out


@pytest.mark.parametrize("name", CHECKED)
def test_every_parameter_has_exactly_one_tag(name):
    untagged = _untagged(procedures.get(name))
    assert untagged == [], (
        f"{name}: parameters without a tag {untagged}: declare each as an Assumption (invented "
        "value or reading, with alternatives) or a Given (rulebook text or setting) on the "
        "procedure (simulator/procedures/base.py, Given)"
    )


@pytest.mark.parametrize("name", CHECKED)
def test_every_declaration_names_a_parameter(name):
    proc = procedures.get(name)
    paths = [row[0] for row in parameter_rows(proc.params_model)]
    decls: list[Assumption | Given] = [*proc.assumptions, *proc.given]
    for d in decls:
        if not d.knob:
            continue
        assert any(p == d.knob or p.startswith(d.knob + ".") for p in paths), (
            f"{name}: {d} declares {d.knob!r}, which is no parameter"
        )
    knobs = [g.knob for g in proc.given]
    assert len(knobs) == len(set(knobs)), f"{name}: a Given declared twice"
    for g in proc.given:
        assert g.tag in ("rulebook", "setting")
        if g.tag == "rulebook":
            assert g.rule, f"{name}.{g.knob}: a rulebook value cites where the rulebook says it"
        shadowed = [a.name for a in proc.assumptions if a.knob == g.knob]
        assert not shadowed, f"{name}.{g.knob}: both a Given and the assumption {shadowed}"


@pytest.mark.parametrize("name", CHECKED)
def test_every_invented_value_and_reading_is_moved_by_the_robustness_run(name):
    proc = procedures.get(name)
    moved = levels(RobustnessSpec(assumptions=True), proc)
    by_name: dict[str, set[str]] = {}
    for level in moved:
        by_name.setdefault(level.assumption, set()).update(level.overrides)
    for a in proc.assumptions:
        # A point with no knob says so; one whose alternatives cannot change a result says why.
        if not a.knob:
            assert "not yet a knob" in a.text, f"{name}.{a.name}: a point with no knob says so"
            continue
        if a.tag in ("invented", "reading") and "not moved" not in a.text:
            assert a.name in by_name, f"{name}.{a.name} ({a.tag}) has no alternative to move to"
        if a.name in by_name:
            assert a.knob in by_name[a.name], f"{name}.{a.name}: its alternatives leave {a.knob}"
    assert set(by_name) <= {a.name for a in proc.assumptions}


def _listed(name: str) -> str:
    out = StringIO()
    console = Console(file=out, width=400, color_system=None)
    for renderable in describe(procedures.get(name)):
        console.print(renderable)
    return out.getvalue()


@pytest.mark.parametrize("name", CHECKED)
def test_sim_list_shows_each_parameter_with_its_declared_tag(name):
    text = _listed(name)
    proc = procedures.get(name)
    for path, tag in parameter_tags(proc).items():
        row = next(line for line in text.splitlines() if line.startswith(f"│ {path} "))
        cells = [c.strip() for c in row.split("│")]
        assert tag in cells, (path, tag, row)
        assert tag != "UNTAGGED"


def _rules_page(prefix: str) -> str:
    return (ROOT / "docs" / "rules" / docgen.RULE_PAGES[prefix]).read_text(encoding="utf-8")


@pytest.mark.parametrize("prefix", sorted({n.split(".")[0] for n in CHECKED}))
def test_each_rules_page_carries_its_generated_tag_table(prefix):
    text = _rules_page(prefix)
    assert docgen.TAGS_OPEN.format(prefix=prefix) in text, (
        f"docs/rules/{docgen.RULE_PAGES[prefix]}: add the markers "
        f"{docgen.TAGS_OPEN.format(prefix=prefix)} and {docgen.TAGS_CLOSE}, then run "
        "python -m simulator.docgen"
    )
    assert docgen.rules_page(prefix, text) == text, "run python -m simulator.docgen"
    for name in CHECKED:
        if name.split(".")[0] == prefix:
            for a in procedures.get(name).assumptions:
                assert f"`{a.name}` | **{_shown(a.tag)}**" in text, (name, a.name)


def _shown(tag: str) -> str:
    return "INVENTED" if tag == "invented" else tag


#: A tag said in prose: **invented**, **reading**, **rulebook** (any case).
SAID = re.compile(r"\*\*(rulebook|reading|invented)\*\*", re.IGNORECASE)


def _clauses(text: str) -> list[str]:
    """The page's prose (its generated table left out) cut at sentence ends, semicolons and
    dashes: a tag said in a clause belongs to the parameters that clause names."""
    prose = re.sub(r"<!-- tags: .*?<!-- /tags -->", "", text, flags=re.DOTALL)
    out = []
    for para in prose.split("\n\n"):
        out += re.split(r"(?<=[.;])\s+|\s+—\s+", " ".join(para.split()))
    return out


@pytest.mark.parametrize("prefix", sorted({n.split(".")[0] for n in CHECKED}))
def test_rules_page_prose_says_no_other_tag_than_the_declared_one(prefix):
    """Where a clause of docs/rules/ names a parameter (in backticks) and says a tag, the tag is
    the parameter's (issue 44 item 5: the page called `loyalty_die` a reading, `sim list`
    invented)."""
    tags: dict[str, set[str]] = {}
    for name in CHECKED:
        if name.split(".")[0] == prefix:
            for path, tag in parameter_tags(procedures.get(name)).items():
                if tag != "setting":  # a rule applied to a setting may be said "rulebook"
                    tags.setdefault(path, set()).add(tag.lower())
    wrong = []
    for clause in _clauses(_rules_page(prefix)):
        said = {t.lower() for t in SAID.findall(clause)}
        if not said:
            continue
        named = {m.group(1) for m in re.finditer(r"`([\w.]+)[`:= ]", clause)}
        for path in sorted(named & set(tags)):
            if not tags[path] <= said:
                wrong.append(f"`{path}` is {sorted(tags[path])}, the page says {sorted(said)}")
    assert wrong == [], f"docs/rules/{docgen.RULE_PAGES[prefix]}: {wrong}"


def test_a_new_untagged_parameter_fails():
    from dataclasses import replace

    from pydantic import Field, create_model

    proc = procedures.get("template.pig")
    grown = create_model("Grown", __base__=proc.params_model, bonus=(int, Field(default=3)))
    bigger = replace(proc, params_model=grown)
    assert _untagged(proc) == []
    assert _untagged(bigger) == ["bonus"]
    assert parameter_tags(bigger)["bonus"] == "UNTAGGED"


def test_the_recruitment_verdict_names_the_game_length_and_the_deck():
    # Issue 44 items 1-2: what every win share rests on is named, not counted among "N more".
    from simulator.report.grounds import Grounds
    from simulator.report.verdict import rests_on

    proc = procedures.get("recruitment.loyalty")
    in_force = [a for a in proc.assumptions if a.tag != "rulebook"]
    (line,) = rests_on(Grounds(assumptions=in_force))
    assert "(rounds, deck," in line, line
    tags = parameter_tags(proc)
    assert tags["rounds"] == tags["deck"] == "INVENTED"
    assert tags["base_loyalty_counts"] == "rulebook"
    text = (ROOT / "scenarios" / "recruitment" / "revisions.yaml").read_text(encoding="utf-8")
    for key in ("rounds", "deck"):
        line = next(x for x in text.splitlines() if x.startswith(f"  {key}:"))
        assert "invented" in line, line


SCENARIOS = sorted((ROOT / "scenarios" / "recruitment").glob("*.yaml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_a_recruitment_scenario_marks_each_invented_value_it_sets(path):
    """A scenario that sets an invented parameter says so on its line or in the comment lines
    just above it (issue 44: "tagged INVENTED ... in the scenario files that set it")."""
    import yaml

    proc = procedures.get("recruitment.loyalty")
    tags = parameter_tags(proc)
    lines = path.read_text(encoding="utf-8").splitlines()
    params = yaml.safe_load("\n".join(lines)).get("params", {})
    unmarked = []
    for key in params:
        if tags.get(key) != "INVENTED":
            continue
        i = next(k for k, x in enumerate(lines) if x.startswith(f"  {key}:"))
        said = [lines[i]]
        j = i - 1
        while j >= 0 and lines[j].lstrip().startswith("#"):
            said.append(lines[j])
            j -= 1
        if not any("invented" in x.lower() for x in said):
            unmarked.append(key)
    assert unmarked == [], f"{path.name}: mark {unmarked} invented (a # comment on the line)"
