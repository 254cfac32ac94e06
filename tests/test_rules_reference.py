"""The project's rules reference (docs/rules/): every `§` citation resolves, no outside file named.

A citation names its rulebook ("Here I Stand rules §5.4", "Root hirelings rules §4.4") or sits in
a file of one game (simulator/procedures/his/... cites the Here I Stand rules); the section must
be a heading of that rulebook's page (anchor ``#sN-M``, ``#setup-N-M``, ``#hirelings-N-M``), or
an item the page names under its chapter's heading (``§4.6`` in the text of ``## §4``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from simulator import procedures

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules"

#: Rulebook name -> (page, anchor prefix). Longer names first: "Root hirelings rules" before
#: "Root rules" would not matter for the regex, but the order documents the scheme.
BOOKS: dict[str, tuple[str, str]] = {
    "Here I Stand rules": ("here-i-stand.md", "s"),
    "Root advanced setup": ("root.md", "setup-"),
    "Root hirelings rules": ("root.md", "hirelings-"),
    "Root rules": ("root.md", "s"),
    "Recruitment rules": ("recruitment.md", "s"),
    "Council rules": ("council.md", "s"),
    "Pig rules": ("pig.md", "s"),
}
#: A name may be wrapped over lines, comments, string literals ("Here I "\n    "Stand rules") or
#: the rows of a table that `sim list` prints ("Here I │\n│ ... │ Stand rules").
BOOK = re.compile("|".join(r'[\s"#:│]+'.join(map(re.escape, b.split())) for b in BOOKS))
SECTION = re.compile(r"§\s?(\S)")
NUMBER = re.compile(r"§\s?(\d+(?:\.\d+)?)")
#: How far back (characters) a citation looks for the rulebook it belongs to.
REACH = 400

#: The rulebook a file cites when a `§` does not name one.
DEFAULTS: list[tuple[str, str]] = [
    ("simulator/procedures/his/", "Here I Stand rules"),
    ("simulator/procedures/root/", "Root rules"),
    ("simulator/procedures/recruitment/", "Recruitment rules"),
    ("simulator/procedures/council/", "Council rules"),
    ("scenarios/his/", "Here I Stand rules"),
    ("scenarios/root/", "Root rules"),
    ("scenarios/recruitment/", "Recruitment rules"),
    ("scenarios/council/", "Council rules"),
    ("docs/games/here-i-stand.md", "Here I Stand rules"),
    ("docs/his-rules-as-written.md", "Here I Stand rules"),
    ("docs/reference/here-i-stand.md", "Here I Stand rules"),
    ("docs/games/root.md", "Root rules"),
    ("docs/root.md", "Root rules"),
    ("docs/reference/root.md", "Root rules"),
    ("docs/games/recruitment.md", "Recruitment rules"),
    ("docs/recruitment.md", "Recruitment rules"),
    ("docs/reference/recruitment.md", "Recruitment rules"),
    ("docs/games/council.md", "Council rules"),
    ("docs/council.md", "Council rules"),
    ("docs/reference/council.md", "Council rules"),
]


def _sections(page: str, prefix: str) -> set[str]:
    """Section numbers ("5.4", "1") the page heads with ``{#<prefix>N-M}``, and the items "N.M" it
    names in the text under the heading of their chapter ``{#<prefix>N}``."""
    found: set[str] = set()
    chapter = None
    for line in (RULES / page).read_text(encoding="utf-8").splitlines():
        heading = (
            re.search(r"\{#([a-z-]*?)(\d+(?:-\d+)?)\}\s*$", line) if line.startswith("#") else None
        )
        if heading:
            chapter = heading.group(2).split("-")[0] if heading.group(1) == prefix else None
            if heading.group(1) == prefix:
                found.add(heading.group(2).replace("-", "."))
            continue
        if line.startswith("#"):
            chapter = None if "{#" in line else chapter
        if chapter is not None:
            found.update(i for i in re.findall(r"§(\d+\.\d+)", line) if i.split(".")[0] == chapter)
    return found


def _default_book(rel: str) -> str | None:
    return next((book for start, book in DEFAULTS if rel.startswith(start)), None)


def _texts() -> list[tuple[str, str]]:
    paths = [
        *(ROOT / "simulator").rglob("*.py"),
        *(ROOT / "scenarios").rglob("*.yaml"),
        *(p for p in (ROOT / "docs").rglob("*.md") if RULES not in p.parents),
        ROOT / "README.md",
    ]
    return [(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")) for p in sorted(paths)]


def _citations(rel: str, text: str) -> list[tuple[int, str | None, str]]:
    """(line, rulebook, what follows the §) for every § in ``text``."""
    out = []
    for m in SECTION.finditer(text):
        if m.group(1) == "{":
            continue  # a template (``f"...§{section}"``): its citations are checked filled in
        before = text[max(0, m.start() - REACH) : m.start()]
        names = BOOK.findall(before)
        book = re.sub(r'[\s"#:│]+', " ", names[-1]) if names else _default_book(rel)
        number = NUMBER.match(text, m.start())
        out.append(
            (text.count("\n", 0, m.start()) + 1, book, number.group(1) if number else m.group(0))
        )
    return out


def _unresolved(rel: str, text: str) -> list[str]:
    bad = []
    for line, book, section in _citations(rel, text):
        if book is None:
            bad.append(f"{rel}:{line}: §{section} names no rulebook")
            continue
        page, prefix = BOOKS[book]
        if section not in _sections(page, prefix):
            bad.append(f"{rel}:{line}: {book} §{section} is not a section of docs/rules/{page}")
    return bad


def test_every_rules_page_has_numbered_sections():
    for page, prefix in set(BOOKS.values()):
        assert _sections(page, prefix), f"docs/rules/{page} has no {prefix}N heading"


def test_every_section_citation_resolves_to_a_rules_page():
    bad = [b for rel, text in _texts() for b in _unresolved(rel, text)]
    assert not bad, "\n".join(bad)


def test_a_citation_to_a_missing_section_is_caught():
    # The check above can fail: a section no page heads, and a § with no rulebook.
    assert _unresolved("simulator/x.py", '"Here I Stand rules §42.7"')
    assert _unresolved("simulator/x.py", '"Root hirelings rules §9"')
    assert _unresolved("simulator/x.py", '"§5.4"')
    assert _unresolved("simulator/x.py", '"Here I Stand rules §五.4"')
    assert not _unresolved("simulator/x.py", '"Here I Stand rules §5.4, §5.2"')
    assert not _unresolved("simulator/x.py", '"Root rules §4.6"')


@pytest.mark.parametrize("name", procedures.names())
def test_sim_list_cites_the_rulebook_by_name_and_page(name):
    proc = procedures.get(name)
    for text in [proc.rules, *(a.rule for a in proc.assumptions)]:
        assert BOOK.search(text), f"{name}: {text!r} names no rulebook"
        assert "docs/rules/" in text, f"{name}: {text!r} points to no docs/rules page"
        assert not _unresolved(name, text), _unresolved(name, text)
    # sim list prints an assumption's rule before its text: a § in the text is that rulebook's.
    for a in proc.assumptions:
        assert not _unresolved(name, f"{a.rule}: {a.text}"), _unresolved(
            name, f"{a.rule}: {a.text}"
        )


#: What a clone of the repository does not contain, or means nothing to a user: the working files'
#: names and "seed" meaning the rulebook (the random seed of a scenario is another word).
FORBIDDEN = re.compile(
    r"RULES\.md|\.\./shared|shared/seeds|GAME_INTERFACE|ARCHITECTURE\.md"
    r"|\bseed §|\bseeds?/|\bseeds? `?0\d\d\b|\b[Tt]he seed's|\b[Tt]he seeds\b|\bseed says"
    r"|(?<![\w.])\(seed[):;,⑩③]|#\s*seed\s*$|#\s*seed:(?!\s*\d)"
    r"|\bseed (?:is silent|names|gives no|prints)"
    r"|[0-9a-f]{3}_[0-9a-f]{16}\.txt|\b00[0-4]_\*\.txt",
    re.MULTILINE,
)


def _project_files() -> list[Path]:
    roots = ("simulator", "scenarios", "docs", "tests", "bench", "mutants")
    files = [p for r in roots for p in (ROOT / r).rglob("*") if p.suffix in {".py", ".yaml", ".md"}]
    here = Path(__file__).resolve()
    return [p for p in [*files, ROOT / "README.md"] if p.resolve() != here]


def test_no_working_file_or_seed_citation_in_the_project():
    bad = []
    for path in _project_files():
        text = path.read_text(encoding="utf-8")
        for m in FORBIDDEN.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            bad.append(f"{path.relative_to(ROOT)}:{line}: {m.group(0)!r}")
    assert not bad, "\n".join(bad)


def test_the_forbidden_words_are_caught_and_the_random_seed_is_not():
    for text in (
        "(seed §五.2)",
        "see RULES.md §5.1",
        "`../shared/seeds/004_*.txt`",
        "GAME_INTERFACE.md",
        "the seed's reading",
        "cost: 3  # seed",
    ):
        assert FORBIDDEN.search(text), text
    for text in ("seed: 1517", "on the scenario's seed", "--seed 7", "same seed, same numbers"):
        assert not FORBIDDEN.search(text), text
