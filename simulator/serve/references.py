"""The Python files a scenario names, checked before the scenario is read: `sim serve` imports
nothing outside the folders it was started on.

A scenario names a designer's file as ``path/to/file.py:NAME``: its ``procedure:``, or a rule step
such as ``rolled_hits:`` or ``ownership:`` in ``params:``, a variant or a sweep. Reading the
scenario imports that file (its top-level code runs, and Python and Numba write ``__pycache__``
beside it). So before the scenario loader sees a text from the page, every such reference in it
(any value, anywhere in the document) must be a relative path without ``..`` or ``~`` whose real
path, symbolic links followed, lies inside a served folder; the scenario's own path likewise.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from simulator.serve.paths import Folders, PathRefused
from simulator.userfiles.loading import REF


def _strings(value: Any, depth: int = 0) -> list[str]:
    """Every string of a document read from YAML: keys and values, at any depth."""
    if depth > 200:  # the loader refuses deeper documents before this is reached
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        out = []
        for key, item in value.items():
            out += _strings(key, depth + 1) + _strings(item, depth + 1)
        return out
    if isinstance(value, list | tuple):
        return [s for item in value for s in _strings(item, depth + 1)]
    return []


def check_reference(text: str, folder: Path, folders: Folders) -> None:
    """Refuse ``path/to/file.py:NAME`` unless its file lies inside a served folder.

    ``folder`` is the scenario's folder (relative references are read from it, as the loader
    reads them).

    Raises:
        PathRefused: an absolute path, ``..``, ``~``, or a file (symbolic links followed)
            outside every served folder.
    """
    match = REF.match(text)
    if match is None:
        return
    path = match["path"]
    fix = "sim serve imports a file only by a path relative to the scenario's folder"
    if "\x00" in path:
        raise PathRefused(f"{text!r}: a NUL character in a file name")
    if path.startswith("~") or Path(path).is_absolute() or os.path.isabs(path):
        raise PathRefused(f"{text}: an absolute path; {fix}, inside the served folders")
    if ".." in Path(path).parts:
        raise PathRefused(f"{text}: '..' is not allowed; {fix}, inside the served folders")
    real = Path(os.path.realpath(folder / path))
    if folders.root_of(real) is None:
        raise PathRefused(
            f"{text}: outside the folders this server was started on (a symbolic link out); "
            "keep the file inside them, or add its folder with sim serve --root"
        )


def check_references(raw: Any, folder: Path, folders: Folders) -> None:
    """:func:`check_reference` for every string of the document ``raw`` (as read from YAML,
    nothing imported) of a scenario in ``folder``.

    Raises:
        PathRefused: the first reference outside the served folders.
    """
    if folders.root_of(Path(os.path.realpath(folder))) is None:
        raise PathRefused(f"{folder}: outside the folders this server was started on")
    for text in _strings(raw):
        if ".py" in text:
            check_reference(text, folder, folders)
