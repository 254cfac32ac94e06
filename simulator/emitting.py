"""Machine code emitted only for what is called from Python.

Numba compiles each function into a code library: its LLVM IR, with the IR of every function it
calls linked in (so that LLVM can inline across them), optimised, then emitted as machine code by
the JIT. A helper that only compiled code calls (``jit.inline``, and Numba's own helpers) is never
run from its own library: its callers carry their own copy of its code. Emitting it is wasted, and
in a whole game it is most of the machine code emitted: each helper's library holds the code of
everything below it, so the game's rules were emitted once per layer above them.

:func:`install` makes a library emit its code when something first asks for the address of a
function it defines (the Python entry of a kernel, a C callback) or for its object code, and never
otherwise. A library of a helper without a Python entry (``no_cpython_wrapper``) is linked into
its callers from its optimised IR and is cached on disk as that IR (Numba's "bitcode" form, which
its callers link just as they link the object form's IR). Its environment (Numba's per-function
runtime data, which only a Python entry reads) is set if it is ever emitted.

The module passes (Numba's cheap then full optimisation of a library's module with everything it
links) wait for emission too: a helper's library is only linked into its callers, whose module
passes optimise its code again with theirs, so running them at each helper did the same work once
per layer of the call tree. A library is optimised whole, once, when it is emitted; a helper is
kept and cached with its functions optimised (Numba's function passes, as each is added).
"""

from __future__ import annotations

from typing import Any

_installed = False


def install() -> None:
    """Teach Numba's JIT code libraries to emit lazily (once, when Numba loads)."""
    global _installed
    if _installed:
        return
    _installed = True
    from numba.core import codegen, cpu
    from numba.core.environment import lookup_environment

    library_class: Any = codegen.JITCodeLibrary
    context_class: Any = cpu.CPUContext
    codegen_class: Any = codegen.JITCPUCodegen
    finalize_final_module = library_class._finalize_final_module
    optimize_final_module = library_class._optimize_final_module
    finalize = library_class.finalize
    get_pointer = library_class.get_pointer_to_function
    serialize_object = library_class.serialize_using_object_code
    unserialize = library_class._unserialize.__func__
    get_executable = context_class.get_executable
    set_env = codegen_class.set_env

    def set_env_if_emitted(self: Any, env_name: str, env: Any) -> None:
        """Numba's ``set_env``, except for an environment no emitted code has (a helper's,
        loaded from the disk cache as IR): there is nothing to set, and its address is 0."""
        if self._engine.get_global_value_address(env_name):
            set_env(self, env_name, env)

    def emit(self: Any) -> None:
        """Add the optimised module to the JIT and emit it (what Numba does at finalising),
        then point every environment its code refers to (its own, its callees') at the live
        one, as Numba does for a library it loads from the disk cache."""
        if not getattr(self, "_sim_lazy", False):
            return
        self._sim_lazy = False
        if getattr(self, "_sim_unoptimised", False):
            self._sim_unoptimised = False
            optimize_final_module(self)
            self._final_module.verify()
            # Found again in the optimised module (finalising scanned the module before).
            self._dynamic_globals = []
        finalize_final_module(self)
        for gv in self._final_module.global_variables:
            if gv.name.startswith("_ZN08NumbaEnv"):
                env = lookup_environment(gv.name)
                if env is not None:
                    self.codegen.set_env(gv.name, env)

    def lazy_finalize(self: Any) -> None:
        self._sim_lazy = True
        finalize(self)

    def lazy_optimize_final_module(self: Any) -> None:
        """Numba's module passes, put off until the library is emitted: a helper's library is
        only ever linked into its callers, whose own module passes optimise its code with
        theirs, so optimising it here too did the same work once per layer above it."""
        if getattr(self, "_sim_lazy", False):
            self._sim_unoptimised = True
            return
        optimize_final_module(self)

    def lazy_finalize_final_module(self: Any) -> None:
        if not getattr(self, "_sim_lazy", False):
            finalize_final_module(self)
            return
        # What Numba does before it adds the module to the JIT, without adding it.
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True

    def defines(self: Any, name: str) -> bool:
        try:
            return not self._final_module.get_function(name).is_declaration
        except NameError:
            return False

    def get_pointer_to_function(self: Any, name: str) -> int:
        self._ensure_finalized()
        if getattr(self, "_sim_lazy", False):
            if not defines(self, name):
                return 0
            emit(self)
        return get_pointer(self, name)

    def serialize_using_object_code(self: Any) -> Any:
        self._ensure_finalized()
        if getattr(self, "_sim_lazy", False):
            return self.serialize_using_bitcode()
        return serialize_object(self)

    def lazy_unserialize(cls: Any, codegen_: Any, state: Any) -> Any:
        name, kind, data = state
        if kind != "bitcode":
            return unserialize(cls, codegen_, state)
        self = codegen_.create_library(name)
        self._sim_lazy = True
        self._sim_unoptimised = True
        self._final_module = codegen.ll.parse_bitcode(data)
        self._finalize_final_module()
        return self

    def lazy_get_executable(self: Any, library: Any, fndesc: Any, env: Any) -> Any:
        library._ensure_finalized()
        if getattr(library, "_sim_lazy", False) and not defines(
            library, fndesc.llvm_cpython_wrapper_name
        ):
            from numba import _dynfunc  # type: ignore[attr-defined]

            doc = f"compiled wrapper for {fndesc.qualname!r}"
            name = fndesc.qualname.split(".")[-1]
            # Its environment is set when code that refers to it is emitted (emit above).
            return _dynfunc.make_function(fndesc.lookup_module(), name, doc, 0, env, (library,))
        return get_executable(self, library, fndesc, env)

    library_class.finalize = lazy_finalize
    library_class._optimize_final_module = lazy_optimize_final_module
    library_class._finalize_final_module = lazy_finalize_final_module
    library_class.get_pointer_to_function = get_pointer_to_function
    library_class.serialize_using_object_code = serialize_using_object_code
    library_class._unserialize = classmethod(lazy_unserialize)
    context_class.get_executable = lazy_get_executable
    codegen_class.set_env = set_env_if_emitted
