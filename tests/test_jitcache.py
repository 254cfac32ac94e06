"""simulator.jitcache: cached kernels are dropped when any source they compile in changes — the
random words, accumulation and flags every kernel inlines, a split package's own modules, the
shared agents — and kept otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulator import jitcache


@pytest.fixture
def package(tmp_path, monkeypatch):
    monkeypatch.setattr(jitcache, "numba_cache_dir", lambda: "")
    game = tmp_path / "game"
    (game / "__pycache__").mkdir(parents=True)
    (game / "__init__.py").write_text("")
    (game / "kernel.py").write_text("def kernel(): return 1\n")
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "mcts.py").write_text("C = 1.4\n")
    return game, agents


def _cache(game: Path) -> list[str]:
    for name in ("kernel.kernel-1.py312.nbi", "kernel.kernel-1.py312.1.nbc"):
        (game / "__pycache__" / name).write_bytes(b"x")
    return sorted(p.name for p in (game / "__pycache__").glob("*.nb?"))


def _left(game: Path) -> list[str]:
    return sorted(p.name for p in (game / "__pycache__").glob("*.nb?"))


def test_unchanged_sources_keep_the_cache(package):
    game, agents = package
    jitcache.drop_now(str(game / "__init__.py"), (agents,))
    cached = _cache(game)
    jitcache.drop_now(str(game / "__init__.py"), (agents,))
    assert _left(game) == cached


@pytest.mark.parametrize("edited", ["kernel.py", "agents/mcts.py"])
def test_an_edit_to_the_package_or_a_shared_agent_drops_the_cache(package, edited):
    game, agents = package
    jitcache.drop_now(str(game / "__init__.py"), (agents,))
    _cache(game)
    target = agents / "mcts.py" if edited.startswith("agents") else game / edited
    target.write_text(target.read_text() + "# edited\n")
    jitcache.drop_now(str(game / "__init__.py"), (agents,))
    assert _left(game) == []


def test_every_game_package_with_agents_guards_its_cache():
    root = Path(jitcache.__file__).parent / "procedures"
    for init in (
        root / "council" / "game" / "__init__.py",
        root / "recruitment" / "loyalty" / "__init__.py",
        root / "his" / "new_world" / "__init__.py",
        root / "root" / "__init__.py",
    ):
        assert "drop_stale(__file__)" in init.read_text(), init


def test_with_numba_cache_dir_the_folder_dropped_is_the_one_numba_writes(tmp_path, monkeypatch):
    """Under NUMBA_CACHE_DIR (mutants/run.py sets it) Numba writes a package's cache to a folder
    named after the source directory and a hash of its path: the one drop_stale must clear."""
    import numba
    from numba.core import config

    cache_dir = tmp_path / "numba-cache"
    monkeypatch.setattr(config, "CACHE_DIR", str(cache_dir), raising=False)
    game = tmp_path / "game"
    game.mkdir()
    (game / "__init__.py").write_text("")
    (game / "kernel.py").write_text("def kernel(x):\n    return x + 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import game.kernel as module  # type: ignore[import-not-found]

    numba.njit(cache=True)(module.kernel)(1)
    written = {p.parent for p in cache_dir.rglob("*.nbi")}
    assert written == set(jitcache._cache_dirs(game))
    jitcache.drop_now(str(game / "__init__.py"), ())
    assert not list(cache_dir.rglob("*.nbi"))


def test_drop_stale_waits_for_numba_and_then_drops(package, monkeypatch):
    """A game package imported for its parameters (``sim list``) loads no Numba: its stale
    cache is dropped when the first kernel loads Numba, before any kernel reads the cache."""
    from simulator import jit

    game, agents = package
    jitcache.drop_now(str(game / "__init__.py"), (agents,))
    _cache(game)
    (game / "kernel.py").write_text("def kernel(): return 2\n")
    monkeypatch.setattr(jit, "_loaded", False)
    monkeypatch.setattr(jit, "_on_load", [])
    monkeypatch.setattr(jitcache, "_loaded", False)
    monkeypatch.setattr(jitcache, "_pending", [])
    monkeypatch.setattr(jitcache, "guarded", lambda root: [])  # not the real tree's caches
    jitcache.drop_stale(str(game / "__init__.py"), (agents,))
    assert _left(game) != []  # not yet: Numba is not loaded
    jit._load_numba()
    assert _left(game) == []


def test_what_every_kernel_compiles_in_counts_everywhere():
    names = {p.name for p in jitcache.COMMON}
    assert {"rng.py", "accumulate.py", "jit.py", "stopflag.py", "layout.py", "agents"} <= names
    assert {"emitting.py", "inlining.py"} <= names  # they decide what a cached library holds
    folders = {f.relative_to(jitcache._SIMULATOR).as_posix() for f, _ in jitcache.guarded()}
    assert {".", "agents", "procedures/his", "procedures/council/game"} <= folders


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A package like simulator/: shared rng.py and agents/, a dice rule in procedures/his/,
    a game in procedures/his/new_world/ and one in procedures/root/, each folder with a cache."""
    monkeypatch.setattr(jitcache, "numba_cache_dir", lambda: "")
    root = tmp_path / "simulator"
    files = {
        "rng.py": "M = 1\n",
        "agents/mcts.py": "C = 1.4\n",
        "procedures/his/field_battle.py": "def kernel(): return 1\n",
        "procedures/his/new_world/game.py": "def kernel(): return 2\n",
        "procedures/root/battle.py": "def kernel(): return 3\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    common = (root / "rng.py", root / "agents")
    jitcache.drop_all_stale(root, common)
    folders = [root, root / "agents", *((root / n).parent for n in files if "procedures" in n)]
    for folder in folders:
        _cache(folder)
    return root, common


def _cached(root: Path) -> set[str]:
    return {p.parent.parent.relative_to(root).as_posix() for p in root.rglob("*.nbi")}


_EVERY = {".", "agents", "procedures/his", "procedures/his/new_world", "procedures/root"}


@pytest.mark.parametrize(
    ("edited", "dropped"),
    [
        ("rng.py", _EVERY),
        ("agents/mcts.py", _EVERY),
        ("procedures/his/field_battle.py", {"procedures/his", "procedures/his/new_world"}),
        ("procedures/his/new_world/game.py", {"procedures/his/new_world"}),
        ("procedures/root/battle.py", {"procedures/root"}),
        (None, set()),
    ],
)
def test_an_edit_drops_exactly_the_caches_that_compile_it_in(tree, edited, dropped):
    root, common = tree
    everything = _cached(root)
    assert len(everything) == 5
    if edited is not None:
        target = root / edited
        target.write_text(target.read_text() + "# edited\n")
    jitcache.drop_all_stale(root, common)
    assert _cached(root) == everything - dropped
