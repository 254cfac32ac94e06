"""Sybil collects the console examples of every docs page (tests/console_examples.py)."""

from sybil import Sybil
from sybil.parsers.markdown import CodeBlockParser

from tests.console_examples import run_console

pytest_collect_file = Sybil(
    parsers=[CodeBlockParser(language="console", evaluator=run_console)],
    patterns=["*.md"],
).pytest()
