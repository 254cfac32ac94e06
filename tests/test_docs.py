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


def test_a_leading_ellipsis_stands_for_compile_notices_or_for_nothing():
    from tests.console_examples import matches

    want = "...\nown · 2,000 trials\nrow 1\n"
    assert matches(want, "own · 2,000 trials\nrow 1\n")  # warm cache: nothing before
    assert matches(want, "compiling x: once\ncompiled in 3 s\nown · 2,000 trials\nrow 1\n")
    assert not matches(want, "own · 3,000 trials\nrow 1\n")


def test_a_compile_notice_is_not_part_of_what_a_page_shows():
    from tests.console_examples import _NOTICE

    notice = "compiling his.field_battle (kernel): once per machine, then read from Numba's"
    assert _NOTICE.match(notice) and _NOTICE.match("compiled in 1 min 5 s; cached")
    assert not _NOTICE.match("his-field-battle-4v3") and not _NOTICE.match("compiled: 3 runs")


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


# --- the README: a landing page whose example is what `sim` prints ---------------------------

README = ROOT / "README.md"


def _readme_examples():
    from tests.console_examples import CONSOLE

    return list(CONSOLE.parse(README))


def test_the_readme_example_prints_what_sim_prints():
    examples = _readme_examples()
    assert examples, "the README shows one real `sim` example in a console block"
    for example in examples:
        example.evaluate()  # raises SybilFailure with both outputs when they differ


def test_a_console_example_that_no_longer_matches_fails():
    from types import SimpleNamespace

    from tests.console_examples import run_console

    block = "$ sim validate scenarios/his/field_battle.yaml\nok scenarios/his/x.yaml: x\n"
    reason = run_console(SimpleNamespace(parsed=block))
    assert reason is not None and "his.field_battle, 1 variant(s)" in reason
    assert run_console(SimpleNamespace(parsed="$ make run\n")) is not None


def test_make_run_runs_the_readme_example():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    scenario = re.search(r"^SCENARIO \?= (\S+)$", makefile, re.M)
    assert scenario and re.search(r"^\t\$\(BIN\)/sim run \$\(SCENARIO\)$", makefile, re.M)
    (example,) = _readme_examples()
    assert commands(example.parsed)[0][0] == f"sim run {scenario.group(1)}"


def test_the_readme_is_a_short_landing_page_whose_links_resolve():
    # Its table of procedures and its commands at a glance: tests/test_cli.py.
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 250
    links = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text)
    assert any(link.startswith("docs/") for link in links)
    for target in links:
        assert (ROOT / target).exists(), target


def test_the_readme_picture_is_the_committed_output_of_the_figures_script(tmp_path):
    from simulator import docfigures

    text = README.read_text(encoding="utf-8")
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert pictures == [str(docfigures.README_FIGURE.relative_to(ROOT))]
    assert docfigures.readme_figure() in docfigures.FIGURE_LIST
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "python -m simulator.docfigures --readme" in makefile  # how to refresh it
    (fresh,) = docfigures.write([docfigures.readme_figure()], tmp_path)
    committed = docfigures.README_FIGURE.read_bytes()
    # Same PNG signature and size in pixels (IHDR): the same figure, whatever matplotlib version
    # drew the committed copy.
    assert committed[:24] == fresh.read_bytes()[:24]


# --- the site: every page in the navigation, every figure drawn by the script -----------------


def _nav_pages(nav) -> list[str]:
    pages = []
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        pages += _nav_pages(value) if isinstance(value, list) else [value]
    return pages


def test_every_docs_page_is_in_the_navigation():
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    nav = _nav_pages(config["nav"])
    pages = sorted(str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md"))
    assert sorted(nav) == pages


def test_every_figure_a_page_shows_is_drawn_by_the_figures_script():
    from simulator import docfigures

    drawn = {f.name for f in docfigures.FIGURE_LIST}
    shown = set()
    for page in (ROOT / "docs").rglob("*.md"):
        shown |= set(re.findall(r"\]\((?:\.\./)?figures/([^)]+)\)", page.read_text("utf-8")))
    assert shown and shown <= drawn


# --- the GitHub Actions example of docs/gate.md -----------------------------------------------


def test_the_github_actions_example_runs_real_make_targets_and_keeps_the_gate_reports():
    import yaml

    path = ROOT / "docs" / "examples" / "balance-gate.yml"
    assert f'--8<-- "{path.relative_to(ROOT)}"' in (ROOT / "docs" / "gate.md").read_text("utf-8")
    workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
    (job,) = workflow["jobs"].values()
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([a-z][\w-]*):", makefile, re.M))
    made = []
    for step in job["steps"]:
        for line in step.get("run", "").splitlines():
            for command in re.split(r"\s*&&\s*", line.strip()):
                if command.startswith("make "):
                    (target,) = command.split()[1:]
                    assert target in targets, command
                    made.append(target)
    assert made == ["test", "gate"]
    gate_recipe = makefile.split("\ngate:", 1)[1].split("\n\n", 1)[0]
    (upload,) = [s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact")]
    for report in upload["with"]["path"].split():
        assert report in gate_recipe, report  # the files `make gate` writes
    assert upload["if"] == "${{ !cancelled() }}"  # kept when the gate fails


def test_refresh_rewrites_only_the_outputs_that_moved(tmp_path):
    from tests.console_examples import CONSOLE, refresh

    page = tmp_path / "page.md"
    kept = "$ sim validate scenarios/his/fair_battle.yaml\nok ...\n"
    stale = "$ sim validate scenarios/his/field_battle.yaml\nok, 3 variants\n"
    page.write_text(f"Text.\n\n```console\n{kept}```\n\n```console\n{stale}```\n\nEnd.\n")
    assert refresh(page) == ["sim validate scenarios/his/field_battle.yaml"]
    text = page.read_text()
    assert text.startswith(f"Text.\n\n```console\n{kept}```\n") and text.endswith("```\n\nEnd.\n")
    assert "ok scenarios/his/field_battle.yaml: his.field_battle, 1 variant(s)" in text
    for example in CONSOLE.parse(page):
        example.evaluate()
    assert refresh(page) == []
