"""Issue 17: the scenario loader fuzzed with Hypothesis. Any bytes, any YAML structure, any edit
of a real scenario: `sim validate` exits 0 or 2, never anything else, never a traceback, and
answers within a time bound. Examples are bounded (and derandomised) so CI stays quick.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulator import cli

ROOT = Path(__file__).resolve().parents[1]
VALID = (ROOT / "scenarios/his/defender_bonus.yaml").read_text()
SECONDS = 5.0
FUZZ = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "60")),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.fixture(autouse=True, scope="module")
def _loaded_once():
    """Import the procedures before any example is timed."""
    from simulator import scenario

    scenario.load(ROOT / "scenarios/his/defender_bonus.yaml")


def validate(data: bytes) -> tuple[int, str]:
    """Exit code and stderr of `sim validate` on a file holding ``data``."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fuzz.yaml"
        path.write_bytes(data)
        out, err = io.StringIO(), io.StringIO()
        argv = sys.argv
        sys.argv = ["sim", "validate", str(path)]
        t0 = time.perf_counter()
        try:
            with (
                contextlib.redirect_stdout(out),
                contextlib.redirect_stderr(err),
                mock.patch.object(cli.interrupts, "install", lambda: None),  # pytest's signals
            ):
                cli.main()
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else -1
        finally:
            sys.argv = argv
        elapsed = time.perf_counter() - t0
    message = err.getvalue()
    assert code in (0, 2), (code, message)
    assert "Traceback" not in message and "sim: error:" not in message, message
    assert elapsed < SECONDS, elapsed
    return code, message


@FUZZ
@given(st.binary(max_size=4000))
def test_any_bytes_are_a_scenario_or_exit_2(data):
    validate(data)


scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
    | st.sampled_from(["1:30", "0x10", "017", "yes", "~", "1e6", "<<", "*x", "&y", "!!python/x"])
)
trees = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(
            st.text(max_size=12) | st.sampled_from(["attacker", "units"]), inner, max_size=5
        )
    ),
    max_leaves=40,
)
top_keys = st.sampled_from(
    ["name", "procedure", "trials", "seed", "params", "variants", "sweep", "check", "description"]
)


@FUZZ
@given(
    st.dictionaries(top_keys, trees, max_size=9),
    st.sampled_from(["his.field_battle", "his.assault", "nope"]),
)
def test_any_structure_is_a_scenario_or_exit_2(tree, procedure):
    if "procedure" in tree:
        tree["procedure"] = procedure
    text = yaml.safe_dump(tree, allow_unicode=True, default_flow_style=None)
    validate(text.encode())


@FUZZ
@given(
    st.integers(min_value=0, max_value=len(VALID)),
    st.integers(min_value=0, max_value=40),
    st.text(
        alphabet=st.sampled_from(list(":-[]{}&*!|>'\"#%@`,?\n\t 0123456789abc~<")), max_size=12
    ),
)
def test_any_edit_of_a_real_scenario_is_a_scenario_or_exit_2(at, cut, insert):
    validate((VALID[:at] + insert + VALID[at + cut :]).encode())


# -- Issue 31: the sections added since — policies, tournament, tune, robustness, check -----------

agent_names = st.sampled_from(["random", "greedy", "rollout", "mcts", "MCTS", "greddy", "", "x"])
budgets = (
    st.integers(min_value=-3, max_value=200_000) | st.booleans() | st.floats() | st.text(max_size=4)
)
agents = agent_names | st.fixed_dictionaries(
    {"agent": agent_names},
    optional={
        "iterations": budgets,
        "playouts": budgets,
        "horizon": budgets,
        "candidates": budgets,
        "prior": budgets,
        "fallback": budgets,
        "exploration": budgets,
        "budget": budgets,
    },
)
policies = agents | st.lists(agents, max_size=7) | trees
tournaments = st.fixed_dictionaries(
    {},
    optional={
        "agents": st.dictionaries(
            st.text(max_size=8) | st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "h"]),
            agents,
            max_size=9,
        )
        | trees,
        "seatings": st.sampled_from(["auto", "all", "balanced", "rotation", "every", 3]),
        "seats": trees,
    },
)
paths = st.sampled_from(
    [
        "hit_on",
        "defender_extra_dice",
        "ties_to",
        "attacker",
        "attacker.units",
        "attacker.leader",
        "defender.units",
        "seat_gold.2",
        "seat_gold.02",
        "seat_gold.0",
        "players",
        "nope",
        "",
    ]
)
axis_values = (
    st.lists(scalars, max_size=5)
    | st.fixed_dictionaries(
        {"from": scalars | st.floats(), "to": scalars | st.floats()},
        optional={"step": scalars | st.floats()},
    )
    | trees
)
metrics = st.sampled_from(
    ["attacker_wins", "seat_spread", "draws", "wins.seat1", "both_wiped_out", "nope"]
)
tunes = st.fixed_dictionaries(
    {},
    optional={
        "search": st.dictionaries(paths, axis_values, max_size=4) | trees,
        "target": st.dictionaries(metrics, scalars | st.floats(), max_size=3) | trees,
        "minimize": metrics | st.lists(metrics, max_size=3) | trees,
        "maximize": metrics | trees,
        "budget": budgets,
    },
)
checks = (
    st.dictionaries(
        metrics | st.sampled_from(["trials"]),
        scalars | st.dictionaries(st.sampled_from(["tolerance", "detect", "gate", "x"]), scalars),
        max_size=4,
    )
    | trees
)


def _section_scenario(procedure: str, extra: dict) -> bytes:
    tree = {"name": "fuzz", "procedure": procedure, "trials": 20, "seed": 1, **extra}
    if procedure == "recruitment.loyalty":
        tree.setdefault("params", {"players": 4, "seat_gold": [0, 0, 0, 0]})
    else:
        tree.setdefault("params", {"attacker": {"units": 4}, "defender": {"units": 4}})
    return yaml.safe_dump(tree, allow_unicode=True, default_flow_style=None).encode()


@FUZZ
@given(
    st.sampled_from(["recruitment.loyalty", "root.hirelings", "his.field_battle"]),
    st.fixed_dictionaries(
        {},
        optional={
            "tournament": tournaments,
            "variants": st.dictionaries(
                st.sampled_from(["v", "w"]),
                st.fixed_dictionaries({}, optional={"policies": policies}),
            ),
        },
    ),
    policies,
)
def test_any_policies_and_tournament_are_a_scenario_or_exit_2(procedure, extra, seats):
    data = _section_scenario(procedure, extra)
    tree = yaml.safe_load(data)
    tree["params"]["policies"] = seats
    validate(yaml.safe_dump(tree, allow_unicode=True, default_flow_style=None).encode())


@FUZZ
@given(
    st.sampled_from(["his.field_battle", "recruitment.loyalty"]),
    tunes,
    st.fixed_dictionaries({}, optional={"check": checks, "robustness": trees, "sweep": trees}),
)
def test_any_tune_check_and_robustness_sections_are_a_scenario_or_exit_2(procedure, tune, extra):
    validate(_section_scenario(procedure, {"tune": tune, **extra}))
