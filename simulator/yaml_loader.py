"""Reading a YAML file safely, with the position of every value: the first half of the scenario
loader (:mod:`simulator.scenario` validates what this returns).

Hostile files are refused, with where and why, before they cost much (docs/reliability.md):
- at most ``MAX_BYTES`` are read, counted while reading (a ``stat`` size says nothing about
  ``/dev/zero`` or a pipe);
- only ``yaml.SafeLoader`` plain values; tags, merge keys (``<<``) and non-scalar keys are refused;
- at most ``MAX_DEPTH`` levels of nesting, and at most ``MAX_NODES`` values once every alias is
  expanded (a 600-byte "billion laughs" file would otherwise take gigabytes);
- YAML 1.1 readings that surprise (``1:30`` as 90, ``0x10`` as 16, ``yes`` as true, a key ``~`` as
  null) are refused instead of guessed.
"""

from __future__ import annotations

import errno
import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.resolver import Resolver

from simulator.limits import MAX_BYTES, MAX_DEPTH, MAX_NODES

Loc = tuple[str | int, ...]

_BIDI = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}


def printable(text: str, keep: str = "") -> str:
    """``text`` with control characters (and line separators, bidirectional overrides) escaped
    as ``\\xNN`` / ``\\uNNNN``, so input cannot move the cursor, recolour or hide text;
    characters in ``keep`` (e.g. a newline) are left as they are."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch in keep or not (unicodedata.category(ch) in ("Cc", "Zl", "Zp") or ch in _BIDI):
            out.append(ch)
        else:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
    return "".join(out)


def show(value: Any) -> str:
    """A value as it is quoted in a problem: JSON or repr, at most 80 characters."""
    if isinstance(value, str):
        text = repr(value)
    else:
        try:
            text = json.dumps(value, default=str)
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a scenario file, with where it is."""

    file: str
    line: int
    col: int
    path: str
    message: str
    value: Any = None
    has_value: bool = False

    def __str__(self) -> str:
        # A message that already says what it got (a validator's "..., got 4") is not followed
        # by a second "(got ...)".
        said = re.search(r"\bgot\b", self.message) is not None
        got = f" (got {show(self.value)})" if self.has_value and not said else ""
        return printable(f"{self.file}:{self.line}:{self.col}: {self.path}: {self.message}{got}")


class ScenarioError(Exception):
    """A scenario that cannot be run; ``problems`` lists everything found wrong."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = problems


class Positions:
    """Line and column (1-based) of every value and key, by path."""

    def __init__(self) -> None:
        self.values: dict[Loc, tuple[int, int]] = {}
        self.keys: dict[Loc, tuple[int, int]] = {}

    def nearest(self, loc: Loc, prefer_key: bool = False) -> tuple[int, int]:
        for i in range(len(loc), -1, -1):
            sub = loc[:i]
            if prefer_key and sub in self.keys:
                return self.keys[sub]
            if sub in self.values:
                return self.values[sub]
        return (1, 1)


def mark(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def dotted(loc: Loc) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def read_text(path: Path) -> str:
    """The UTF-8 text of ``path``, reading at most ``MAX_BYTES`` (+1 to know it is more)."""
    file = str(path)
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as e:
        reason = {
            errno.ENOENT: "no such file",
            errno.EISDIR: "is a directory, not a scenario file",
        }.get(e.errno or 0, f"cannot be read: {e.strerror or e}")
        raise ScenarioError([Problem(file, 1, 1, "file", reason)]) from e
    if len(data) > MAX_BYTES:
        raise ScenarioError(
            [Problem(file, 1, 1, "file", f"larger than the {MAX_BYTES >> 20} MiB limit")]
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError([Problem(file, 1, 1, "file", "is not UTF-8 text, so not YAML")]) from e


class _LimitHit(Exception):
    def __init__(self, where: Any, message: str) -> None:
        super().__init__(message)
        self.where = where


_Parser: Any
try:  # libyaml's event parser is 5× faster than PyYAML's; the composer stays Python (bounded)
    from yaml._yaml import CParser as _Parser
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml.parser import Parser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class _Parser(Reader, Scanner, Parser):  # type: ignore[no-redef]
        def __init__(self, stream: str) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            Parser.__init__(self)


class _BoundedLoader(Composer, _Parser, SafeConstructor, Resolver):
    """A safe loader that refuses deep nesting and documents that expand to too many values
    (PyYAML's composer, which does not recurse into aliases, with a depth and a size count)."""

    def __init__(self, stream: str) -> None:
        _Parser.__init__(self, stream)
        Composer.__init__(self)
        SafeConstructor.__init__(self)
        Resolver.__init__(self)
        self._depth = 0
        self._fresh = 0
        self._sizes: dict[int, int] = {}

    def compose_node(self, parent: Any, index: Any) -> Any:
        start: Any = self.peek_event().start_mark
        if self._depth >= MAX_DEPTH:
            raise _LimitHit(start, f"nested more than {MAX_DEPTH} levels deep")
        self._fresh += 1
        if self._fresh > MAX_NODES:
            raise _LimitHit(start, f"more than {MAX_NODES:,} values")
        self._depth += 1
        try:
            node = Composer.compose_node(self, parent, index)
        finally:
            self._depth -= 1
        if id(node) in self._sizes:  # an alias: its size is known
            return node
        size = 1
        if isinstance(node, yaml.SequenceNode):
            size += sum(self._sizes.get(id(c), 1) for c in node.value)
        elif isinstance(node, yaml.MappingNode):
            size += sum(
                self._sizes.get(id(k), 1) + self._sizes.get(id(v), 1) for k, v in node.value
            )
        self._sizes[id(node)] = size
        if size > MAX_NODES:
            raise _LimitHit(
                start,
                f"expands to more than {MAX_NODES:,} values (aliases counted in full); "
                "is it a YAML bomb?",
            )
        return node


def compose(text: str, file: str) -> yaml.MappingNode:
    """The node tree of ``text`` (one mapping), or ScenarioError with where it went wrong."""
    try:
        node = _BoundedLoader(text).get_single_node()
    except _LimitHit as e:
        line, col = e.where.line + 1, e.where.column + 1
        raise ScenarioError([Problem(file, line, col, "yaml", str(e))]) from None
    except yaml.MarkedYAMLError as e:
        where = e.problem_mark or e.context_mark
        line, col = (where.line + 1, where.column + 1) if where else (1, 1)
        msg = " ".join(str(x) for x in (e.context, e.problem) if x)
        raise ScenarioError([Problem(file, line, col, "yaml", f"not valid YAML: {msg}")]) from e
    except yaml.YAMLError as e:  # a character YAML does not allow (ReaderError)
        at = getattr(e, "position", None)
        line, col = 1, 1
        if isinstance(at, int):
            line = text.count("\n", 0, at) + 1
            col = at - (text.rfind("\n", 0, at) + 1) + 1
        reason = getattr(e, "reason", None) or str(e).partition("\n")[0]
        char = getattr(e, "character", None)
        got = f" (character {char!r})" if isinstance(char, int | str) else ""
        problem = Problem(file, line, col, "yaml", f"not valid YAML: {reason}{got}")
        raise ScenarioError([problem]) from e
    except RecursionError:
        raise ScenarioError([Problem(file, 1, 1, "yaml", "nested too deeply")]) from None
    if node is None:
        raise ScenarioError([Problem(file, 1, 1, "file", "is empty; expected a scenario mapping")])
    if not isinstance(node, yaml.MappingNode):
        line, col = mark(node)
        raise ScenarioError(
            [Problem(file, line, col, "file", "must be a mapping of scenario keys")]
        )
    return node


_TAG = "tag:yaml.org,2002:"
_PLAIN_TAGS = {
    f"{_TAG}{t}" for t in ("map", "seq", "str", "int", "float", "bool", "null", "timestamp")
}
#: Plain scalars that YAML 1.1 (PyYAML) reads as something few would expect: refused, not guessed.
_SURPRISES = (
    (re.compile(r"[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?"), "a base-60 (sexagesimal) number"),
    (re.compile(r"[-+]?0x[0-9a-fA-F_]+"), "a hexadecimal number"),
    (re.compile(r"[-+]?0b[01_]+"), "a binary number"),
    (re.compile(r"[-+]?0[0-7_]+"), "an octal number"),
    (re.compile(r"[-+]?[0-9.]*_[0-9_.]*([eE][-+]?[0-9]+)?"), "a number with '_' separators"),
)


def _surprise(node: yaml.ScalarNode) -> str | None:
    """Why YAML 1.1's reading of a plain scalar would surprise, or None."""
    if node.style:  # quoted or block text is a string (plain: None, or "" from libyaml)
        return None
    if node.tag == f"{_TAG}bool" and node.value.lower() not in ("true", "false"):
        return "a boolean (YAML 1.1 reads yes/no/on/off as true/false)"
    if node.tag in (f"{_TAG}int", f"{_TAG}float"):
        for pattern, what in _SURPRISES:
            if pattern.fullmatch(node.value):
                return what
    return None


class _Reader:
    """Turns a node tree into Python values, recording positions and problems."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.pos = Positions()
        self.problems: list[Problem] = []
        self._constructor = yaml.SafeLoader("")

    def problem(self, node: yaml.Node, loc: Loc, message: str, value: Any = None) -> None:
        line, col = mark(node)
        self.problems.append(
            Problem(self.file, line, col, dotted(loc) or "file", message, value, value is not None)
        )

    def scalar(self, node: yaml.ScalarNode, loc: Loc) -> Any:
        try:
            value = self._constructor.construct_object(node)
        except (yaml.YAMLError, ValueError, OverflowError) as e:
            reason = "too many digits" if "digits" in str(e) else str(e)
            self.problem(node, loc, f"cannot be read as a value: {reason}", node.value)
            return None
        finally:
            self._constructor.constructed_objects.clear()
        why = _surprise(node)
        if why is not None:
            self.problem(
                node,
                loc,
                f"YAML 1.1 reads this as {why}, {value!r}; write the value plainly, "
                "or quote it for text",
                node.value,
            )
        return value

    def key(self, node: yaml.Node, loc: Loc) -> str | None:
        if not isinstance(node, yaml.ScalarNode):
            self.problem(node, loc, "keys must be plain scalars")
            return None
        if node.tag == f"{_TAG}merge":
            self.problem(
                node,
                loc,
                "merge keys (<<) are not supported: write the keys out (variants are already "
                "deep-merged over params)",
            )
            return None
        if node.tag not in _PLAIN_TAGS:
            self.problem(node, loc, f"YAML tag {node.tag!r} is not allowed in a key")
            return None
        try:
            key = self._constructor.construct_object(node)
        except (yaml.YAMLError, ValueError, OverflowError):
            key = node.value
        finally:
            self._constructor.constructed_objects.clear()
        if not node.style and (key is None or isinstance(key, bool)):
            self.problem(
                node,
                loc,
                f"key {node.value!r} is read by YAML as {key!r}, not as a name; quote it "
                f"('{node.value}') if it is meant as text",
            )
            return None
        return key if isinstance(key, str) else str(key)

    def value(self, node: yaml.Node, loc: Loc) -> Any:
        self.pos.values[loc] = mark(node)
        if node.tag not in _PLAIN_TAGS:
            self.problem(
                node, loc, f"YAML tag {node.tag!r} is not allowed: only plain YAML values are read"
            )
            return None
        if isinstance(node, yaml.MappingNode):
            out: dict[Any, Any] = {}
            first_seen: dict[Any, int] = {}
            for key_node, value_node in node.value:
                key = self.key(key_node, loc)
                if key is None:
                    continue
                line, col = mark(key_node)
                if key in first_seen:
                    self.problems.append(
                        Problem(
                            self.file,
                            line,
                            col,
                            dotted((*loc, key)),
                            f"duplicate key (first at line {first_seen[key]})",
                        )
                    )
                    continue
                first_seen[key] = line
                self.pos.keys[(*loc, key)] = (line, col)
                out[key] = self.value(value_node, (*loc, key))
            return out
        if isinstance(node, yaml.SequenceNode):
            return [self.value(item, (*loc, i)) for i, item in enumerate(node.value)]
        assert isinstance(node, yaml.ScalarNode)
        return self.scalar(node, loc)


def to_python(node: yaml.Node, file: str) -> tuple[Any, Positions, list[Problem]]:
    """The Python value of ``node``, the position of every value and key, and the problems."""
    reader = _Reader(file)
    return reader.value(node, ()), reader.pos, reader.problems
