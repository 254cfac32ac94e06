"""Citations of the Root rulebooks for declared assumptions (private).

Three rulebooks share one page, docs/rules/root.md: the Root rules (the FAQ, anchors ``#sN-M``),
the module's advanced setup (``#setup-N``) and its hirelings rules (``#hirelings-N``).
"""

from __future__ import annotations

PAGE = "docs/rules/root.md"


def _anchor(prefix: str, section: str, chapter_only: bool) -> str:
    number = section.split()[0]
    return prefix + (number.split(".")[0] if chapter_only else number.replace(".", "-"))


def cite(section: str) -> str:
    """A section of the Root rules (the FAQ): ``cite("1.8")``; items under a chapter heading
    (``"4.6"``) link to the chapter."""
    number = section.split()[0]
    chapter_only = number.split(".")[0] != "1"  # only the general chapter heads its items
    return f"Root rules §{section} ({PAGE}#{_anchor('s', section, chapter_only)})"


def cite_hirelings(section: str) -> str:
    """A section of the Root hirelings rules: ``cite_hirelings("4.4")``."""
    return f"Root hirelings rules §{section} ({PAGE}#{_anchor('hirelings-', section, True)})"


def cite_setup(section: str) -> str:
    """A section of the Root advanced setup: ``cite_setup("3.8")``."""
    return f"Root advanced setup §{section} ({PAGE}#{_anchor('setup-', section, True)})"
