"""Numba's compiler flags as cache keys: hashed and compared cheaply, and only what matters.

Every call Numba types looks its overload up in a cache keyed by the compiler flags in force
(``numba.core.typing.templates._get_impl``). ``TargetConfig.__hash__`` and ``__eq__`` build
``values()``, a dict of all forty-odd options read one property at a time, for every lookup: in
the New World's cold compile that was 42,000 hashes and 38,000 comparisons, about a tenth of the
compile's Python time under a profiler.

:func:`install` gives ``TargetConfig`` the same three methods computed from what the properties
read: a property returns ``self._values.get(name, option.default)``, so ``values()`` is the
class's defaults overlaid with ``_values``. The hash is that of the sorted option names, as
Numba's (it hashes the sorted keys of ``values()``, the same for every instance of a class).
Equality and ``values()`` give what Numba's give; tests/test_flagkeys.py compares them.

The same lookup keyed an overload's implementation (``np.zeros``, ``max``, ...) by *all* the
flags of the function being compiled, so a helper's twin (compiled without a Python entry,
:mod:`simulator.jit`) and a kernel calling ``np.zeros`` with the same types each compiled their
own: 11 of the New World's 42 compiles of Numba's implementations were such copies. An
implementation's compile reads its caller's flags only through the four options a nested compile
inherits (``nrt``, ``fastmath``, ``error_model``, ``forceinline``: ``CPUTargetOptions.finalize``),
so :func:`install` keys the lookup by those.
"""

from __future__ import annotations

from typing import Any

_defaults: dict[type, dict[str, Any]] = {}
_hashes: dict[type, int] = {}


def _class_defaults(cls: type) -> dict[str, Any]:
    found = _defaults.get(cls)
    if found is None:
        found = {name: option.default for name, option in cls.options.items()}  # type: ignore[attr-defined]
        _defaults[cls] = found
    return found


def values(self: Any) -> dict[str, Any]:
    """Every option's value, in the class's option order (``TargetConfig.values``)."""
    set_ = self._values
    return {name: set_.get(name, default) for name, default in _class_defaults(type(self)).items()}


def _hash(self: Any) -> int:
    cls = type(self)
    found = _hashes.get(cls)
    if found is None:
        found = hash(tuple(sorted(cls.options)))
        _hashes[cls] = found
    return found


def _eq(self: Any, other: Any) -> Any:
    from numba.core.targetconfig import TargetConfig

    if not isinstance(other, TargetConfig):
        return NotImplemented
    if type(self) is type(other) and self._values == other._values:
        return True
    return values(self) == values(other)


#: The options a nested compile takes from the function being compiled (numba.core.cpu).
INHERITED = ("nrt", "fastmath", "error_model", "forceinline")


def inherited(flags: Any) -> Any:
    """What an overload's implementation compiled under ``flags`` (the caller's, or None when
    nothing is being compiled) takes from them: the key of its cache entry."""
    if flags is None:
        return None
    key = []
    for name in INHERITED:
        value = getattr(flags, name)
        key.append(frozenset(value.flags) if hasattr(value, "flags") else value)
    return tuple(key)


def _get_impl(self: Any, args: Any, kws: Any) -> Any:
    """``_OverloadFunctionTemplate._get_impl`` keyed by :func:`inherited` flags."""
    from numba.core.targetconfig import ConfigStack

    cache_key = self.context, tuple(args), tuple(kws.items()), inherited(ConfigStack.top_or_none())
    try:
        impl, args = self._impl_cache[cache_key]
        return impl, args
    except KeyError:
        pass
    return self._build_impl(cache_key, args, kws)


def install() -> None:
    """Give ``TargetConfig`` the cheap ``__hash__``, ``__eq__`` and ``values``, and overload
    lookups their key (once)."""
    from numba.core.targetconfig import TargetConfig
    from numba.core.typing import templates

    if TargetConfig.__hash__ is _hash:
        return
    TargetConfig.__hash__ = _hash  # type: ignore[method-assign]
    TargetConfig.__eq__ = _eq  # type: ignore[method-assign]
    TargetConfig.values = values  # type: ignore[method-assign]
    templates._OverloadFunctionTemplate._get_impl = _get_impl  # type: ignore[method-assign]
