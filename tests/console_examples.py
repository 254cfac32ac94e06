"""Console examples in the docs and the README are run, and their printed output compared, by Sybil.

A fenced block marked ``console`` holds one or more commands, each a line starting ``$ sim ...``,
each followed by the output it prints. The command runs through the Typer app (as ``sim`` would,
from the repository root), and its output must match, with ``...`` standing for any text
(doctest's ELLIPSIS; runs of white space compare equal, so a line rich wraps still matches). An
exit code other than 0 is written as a last line ``[exit N]``. Blocks marked ``text`` or ``sh`` are
shown, not run.

The commands run in a sandbox folder that looks like the repository (every top-level entry is a
symbolic link to it, ``reports/`` a copy of the committed files) but has its own ``reports/out/``:
the examples write their reports there, never over the reports of the developer running the tests
or the committed baseline.

When a rule change moves the numbers of a page, ``python -m tests.console_examples --refresh
PAGE...`` rewrites the outputs that no longer match (:func:`refresh`).
"""

from __future__ import annotations

import argparse
import atexit
import doctest
import os
import re
import shlex
import shutil
import sys
import tempfile
from functools import cache
from pathlib import Path

from sybil import Example, Sybil
from sybil.parsers.markdown import CodeBlockParser

ROOT = Path(__file__).resolve().parents[1]
_CHECKER = doctest.OutputChecker()
_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
#: The two lines of a compile notice (simulator/compiling.py).
_NOTICE = re.compile(
    r"compiling .*: once per (machine|version of the file), then read|compiled in .*; cached$"
)


def commands(source: str) -> list[tuple[str, str]]:
    """(command line, expected output) pairs of one console block."""
    out: list[tuple[str, list[str]]] = []
    for line in source.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line)
        elif line.strip():
            raise ValueError(f"console block must start with '$ sim ...', got {line!r}")
    return [(cmd, "\n".join(lines).strip() + "\n") for cmd, lines in out]


@cache
def sandbox() -> Path:
    """A folder that reads like the repository root but writes its own ``reports/``."""
    box = Path(tempfile.mkdtemp(prefix="sim-docs-"))
    atexit.register(shutil.rmtree, box, ignore_errors=True)
    for entry in ROOT.iterdir():
        if entry.name not in {"reports", ".git"}:
            (box / entry.name).symlink_to(entry)
    # Copies, not links: an example writing `--out reports/baseline.json` must not write
    # through a link into the committed file.
    shutil.copytree(ROOT / "reports", box / "reports", ignore=shutil.ignore_patterns("out"))
    return box


def printed(line: str) -> str:
    """What ``sim ...`` prints (stdout and stderr), and ``[exit N]`` when N != 0."""
    from typer.testing import CliRunner

    from simulator.cli import app

    argv = shlex.split(line)
    if argv[0] != "sim":
        raise ValueError(f"only sim commands run in docs examples: {line!r}")
    here = Path.cwd()
    os.chdir(sandbox())
    try:
        result = CliRunner().invoke(app, argv[1:])
    finally:
        os.chdir(here)
    # What Numba's cache holds is the machine's, not the page's: a compile notice (stderr) is
    # printed only by the first run on a cold cache, so the pages never show one.
    kept = [row for row in result.output.splitlines() if not _NOTICE.match(row)]
    got = "\n".join(kept).strip() + "\n"
    if result.exit_code != 0:
        got += f"[exit {result.exit_code}]\n"
    return got


def matches(expected: str, got: str) -> bool:
    """Whether ``got`` is what the page shows. A leading ``...`` (compile notices on a cold
    cache) may stand for nothing at all, where doctest would still want a line break after it."""
    return _CHECKER.check_output(re.sub(r"\A\.\.\.\s+", "...", expected), got, _FLAGS)


def run_console(example: Example) -> str | None:
    """Sybil evaluator: None when every command prints what the block says, else the reason."""
    for line, expected in commands(example.parsed):
        try:
            got = printed(line)
        except ValueError as e:
            return str(e)
        if not matches(expected, got):
            return f"`{line}` printed:\n{got}\nthe docs say:\n{expected}"
    return None


#: The docs pages (docs/conftest.py) and the README (tests/test_docs.py) are parsed alike.
CONSOLE = Sybil(
    parsers=[CodeBlockParser(language="console", evaluator=run_console)],
    path=str(ROOT / "docs"),
    patterns=["*.md"],
)


def refresh(path: Path) -> list[str]:
    """Rewrite, in the page at ``path``, the output of every command whose example no longer
    matches with what ``sim`` prints now (timings become ``...``); returns those command lines.

    For a page whose numbers moved with a rule change. The rewritten blocks lose the page's own
    elisions (``...``): read the diff and put back what the page meant to leave out.
    """
    document = CONSOLE.parse(path)
    text = document.text
    changed: list[str] = []
    pieces: list[str] = []
    done = 0
    for example in document:
        block = ["```console"]
        for line, expected in commands(example.parsed):
            got = printed(line)
            if not matches(expected, got):
                changed.append(line)
                got = "\n".join(row.rstrip() for row in got.splitlines())
                # A time and its qualifier ("under 1 s", "about 62 s") vary from run to run.
                expected = re.sub(r"\b(?:(?:under|about) )?\d+(?:\.\d+)? s\b", "... s", got)
            block += [f"$ {line}", expected.rstrip("\n")]
        pieces += [text[done : example.start], "\n".join([*block, "```"])]
        done = example.end
    if changed:
        path.write_text("".join([*pieces, text[done:]]), encoding="utf-8")
    return changed


def main(argv: list[str] | None = None) -> int:
    """``python -m tests.console_examples --refresh PAGE...``: see :func:`refresh`."""
    parser = argparse.ArgumentParser(prog="python -m tests.console_examples")
    parser.add_argument("--refresh", nargs="+", type=Path, required=True, metavar="PAGE")
    for path in parser.parse_args(argv).refresh:
        for line in refresh(path):
            print(f"{path}: refreshed `{line}`")
    return 0


if __name__ == "__main__":
    sys.exit(main())
