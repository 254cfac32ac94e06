"""Citations of the Here I Stand rules for declared assumptions (private).

``cite("5.4 ⑤")`` is ``"Here I Stand rules §5.4 ⑤ (docs/rules/here-i-stand.md#s5-4)"``: the
rulebook by name and section, and the project's page that summarises it.
"""

from __future__ import annotations


def cite(section: str) -> str:
    """The citation of ``section`` ("5.4 ⑤", "12.2 (2)"), with its docs/rules anchor."""
    number = section.split()[0]
    return f"Here I Stand rules §{section} (docs/rules/here-i-stand.md#s{number.replace('.', '-')})"
