"""Sybil collects the console examples of every docs page (tests/console_examples.py)."""

from tests.console_examples import CONSOLE

pytest_collect_file = CONSOLE.pytest()
