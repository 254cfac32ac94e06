"""Limits that keep hostile input bounded, in one place (no heavy imports: the CLI reads them).

Every limit is refused with exit 2 and where it was hit (docs/reliability.md).
"""

from __future__ import annotations

#: Trials per variant (and sweep point), on the command line, in a scenario file, in a baseline.
MAX_TRIALS = 10**12
#: Bytes read from a scenario file (counted while reading, so /dev/zero stops here too).
MAX_BYTES = 1 << 20
#: Nesting depth of a YAML document (mappings and lists inside each other).
MAX_DEPTH = 64
#: Values a YAML document may expand to, counting each use of an alias (``*name``) in full:
#: a "billion laughs" file is refused here instead of eating the machine.
MAX_NODES = 50_000
#: Problems printed for invalid input; the rest are counted in one line.
MAX_SHOWN_PROBLEMS = 25


class InvalidInput(ValueError):
    """Input that cannot be used (a file, an option, a limit): the CLI exits 2 with the message."""
