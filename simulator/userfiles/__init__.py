"""A designer's own rules in their own Python files (issue 29).

- :func:`compile_step`: one rule step of a built-in game from ``file.py:NAME`` (a Numba dispatcher);
- :func:`procedure_of`: a whole dice procedure from ``file.py:NAME``, one trial written as a plain
  function, run with everything a built-in procedure has (:mod:`simulator.userfiles.procedure`);
- :func:`~simulator.userfiles.listing.declared_procedure`: a trial function or a game class as
  its file declares it, nothing compiled (``sim list FILE.py``);
- :class:`UserFileError`: every problem located in the designer's file (exit 2).

A file runs only when it is named: nothing here imports a designer's file on its own.
"""

from __future__ import annotations

from simulator.userfiles.jitting import compile_step
from simulator.userfiles.loading import UserFileError, is_ref, load_function, parse_ref

__all__ = ["UserFileError", "compile_step", "is_ref", "load_function", "parse_ref"]
