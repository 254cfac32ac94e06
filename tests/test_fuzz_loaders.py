"""Issue 17: the scenario loader fuzzed with Hypothesis. Any bytes, any YAML structure, any edit
of a real scenario: `sim validate` exits 0 or 2, never anything else, never a traceback, and
answers within a time bound. Examples are bounded (and derandomised) so CI stays quick.
"""

from __future__ import annotations

import contextlib
import io
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
    max_examples=60,
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
