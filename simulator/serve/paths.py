"""The folders `sim serve` may read and write: scenario files under the folders it was started on,
nothing else.

A path from the page is taken relative to the folder the server was started in (``base``) and
refused when it, or the file a symlink in it points to, lies outside every root; when it does not
end in ``.yaml``/``.yml``; when it is not a regular file (a pipe would block a read, a device never
ends); or when its top level is not a scenario (a mapping with a ``procedure:`` key).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from simulator.limits import MAX_BYTES

SUFFIXES = (".yaml", ".yml")
#: Files listed on the page at most (a root holding a whole disk must not stall the server).
MAX_LISTED = 2000


class PathRefused(Exception):
    """A path the server will not touch; the message says why (shown on the page, HTTP 403)."""


@dataclass(frozen=True)
class Folders:
    """The roots a session may use, and the folder relative paths are read from."""

    roots: tuple[Path, ...]
    base: Path

    @classmethod
    def of(cls, roots: Iterable[Path | str], base: Path | str | None = None) -> Folders:
        """Roots as real paths (symlinks resolved once, at start)."""
        real = tuple(dict.fromkeys(Path(os.path.realpath(r)) for r in roots))
        return cls(real, Path(os.path.realpath(base or os.getcwd())))

    def shown(self, path: Path) -> str:
        """``path`` as the page shows it: relative to ``base`` when under it."""
        try:
            return str(path.relative_to(self.base))
        except ValueError:
            return str(path)

    def root_of(self, path: Path) -> Path | None:
        """The served folder ``path`` (a real, absolute path) lies in, or None."""
        for root in self.roots:
            if path == root or root in path.parents:
                return root
        return None

    def resolve(self, given: str, *, must_exist: bool = True) -> Path:
        """The real path of ``given`` inside a root, or :class:`PathRefused`."""
        if not given or "\x00" in given:
            raise PathRefused("no path given")
        lexical = Path(os.path.normpath(self.base / given))
        if self.root_of(lexical) is None:
            raise PathRefused(f"{given}: outside the folders this server was started on")
        if not lexical.name.endswith(SUFFIXES):
            raise PathRefused(f"{given}: not a scenario file (.yaml or .yml)")
        real = Path(os.path.realpath(lexical))
        if self.root_of(real) is None:
            raise PathRefused(f"{given}: a symlink to a place outside the served folders")
        if must_exist and not real.exists():
            raise PathRefused(f"{given}: no such file")
        if real.exists() and not stat.S_ISREG(os.stat(real).st_mode):
            raise PathRefused(f"{given}: not a regular file")
        if not real.parent.is_dir():
            raise PathRefused(f"{given}: its folder does not exist")
        return real

    def scenario_file(self, given: str) -> tuple[Path, str]:
        """The real path of a scenario file the page names (it need not exist yet), and the
        name to give the scenario loader: ``given`` itself when it names the same file from the
        working folder (so problems read as `sim validate` words them), else the real path. The
        loader reads the files a scenario names relative to that name's folder.

        Raises:
            PathRefused: ``..`` in the path, or what :meth:`resolve` refuses.
        """
        if ".." in Path(given).parts:
            raise PathRefused(f"{given}: '..' is not allowed; name the file inside its folder")
        real = self.resolve(given, must_exist=False)
        lexical = os.path.normpath(self.base / given)
        return real, given if os.path.abspath(given) == lexical else str(real)

    def save_target(self, given: str) -> Path:
        """The real path Save may write: a scenario file (``.yaml``/``.yml``) inside a served
        folder, in no hidden folder and not hidden itself (``.github/``, ``.ci.yml``), and not
        a symlink; a file that exists is replaced only when it is a scenario itself.

        Raises:
            PathRefused: why the file may not be written.
        """
        real, _ = self.scenario_file(given)
        lexical = Path(os.path.normpath(self.base / given))
        for path in (lexical, real):
            root = self.root_of(path)
            hidden = [p for p in path.relative_to(root).parts if p.startswith(".")] if root else []
            if hidden:
                raise PathRefused(
                    f"{given}: {hidden[0]} is hidden; sim serve saves only plain scenario files"
                )
        if lexical.is_symlink():
            raise PathRefused(f"{given}: a symlink; save to a plain file")
        if real.exists():
            try:
                self.read(given)
            except PathRefused as e:
                raise PathRefused(f"{e}; sim serve replaces only scenario files") from None
        return real

    def read(self, given: str) -> tuple[Path, str]:
        """The real path and text of a scenario file (at most ``MAX_BYTES``)."""
        real = self.resolve(given)
        try:
            # O_NOFOLLOW: a symlink swapped in after the check is refused, not followed;
            # O_NONBLOCK: a pipe swapped in does not hang the server.
            fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError as e:
            why = "changed while being opened" if e.errno == errno.ELOOP else e.strerror
            raise PathRefused(f"{given}: {why}") from e
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise PathRefused(f"{given}: not a regular file")
            data = f.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise PathRefused(f"{given}: larger than the {MAX_BYTES >> 20} MiB limit")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise PathRefused(f"{given}: not UTF-8 text, so not a scenario") from e
        if not looks_like_scenario(text):
            raise PathRefused(f"{given}: not a scenario (no top-level procedure: key)")
        return real, text

    def scenarios(self) -> list[str]:
        """Scenario files under the roots (hidden folders and symlinks out skipped), as shown."""
        found: list[str] = []
        for root in self.roots:
            for folder, dirs, files in os.walk(root):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if not name.endswith(SUFFIXES) or name.startswith("."):
                        continue
                    path = Path(folder) / name
                    if self.root_of(Path(os.path.realpath(path))) is None:
                        continue
                    found.append(self.shown(path))
                    if len(found) >= MAX_LISTED:
                        return found
        return list(dict.fromkeys(found))


def looks_like_scenario(text: str) -> bool:
    """A top-level ``procedure:`` key: the mark of a scenario file, checked before showing it."""
    return any(line.startswith("procedure:") for line in text.splitlines())
