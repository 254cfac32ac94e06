"""The documentation cannot drift: generated pages match the code, links resolve, and the
README's two commands are the ones CI uses."""

from __future__ import annotations

import re
from pathlib import Path

from simulator import docgen
from tests.console_examples import commands

ROOT = Path(__file__).resolve().parents[1]


def test_the_generated_reference_pages_match_the_code():
    stale = [
        str(p.relative_to(ROOT))
        for p, text in docgen.pages().items()
        if not p.exists() or p.read_text(encoding="utf-8") != text
    ]
    assert stale == [], "run `make docs` (python -m simulator.docgen) and commit the pages"


def test_every_procedure_has_a_reference_section():
    from simulator import procedures

    text = "".join(docgen.pages().values())
    for name in procedures.names():
        assert f"(`{name}`)" in text


def test_console_blocks_parse_into_commands_and_outputs():
    block = "$ sim validate a.yaml\nok a.yaml\n$ sim list x\n...\n[exit 2]\n"
    assert commands(block) == [
        ("sim validate a.yaml", "ok a.yaml\n"),
        ("sim list x", "...\n[exit 2]\n"),
    ]


def test_the_readme_commands_are_the_ones_ci_runs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "make run" in readme and "make test" in readme
    assert re.search(r"^make test$", ci, re.M)


def test_links_between_docs_pages_resolve():
    docs = ROOT / "docs"
    missing = []
    for page in docs.rglob("*.md"):
        for target in re.findall(
            r"\]\(([^)#:]+\.md)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")
        ):
            if not (page.parent / target).resolve().exists():
                missing.append(f"{page.relative_to(ROOT)} -> {target}")
    assert missing == []
