"""The ``sim`` script (``simulator.script:console``) leaves without Python's teardown: what it
wrote is all there, and its exit codes are those of the commands."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = [sys.executable, "-c", "from simulator.script import console; console()"]


def _sim(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*SCRIPT, *args], cwd=cwd, capture_output=True, text=True, timeout=600)


def test_the_script_is_the_console_entry() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    assert 'sim = "simulator.script:console"' in text


def test_a_run_s_output_and_files_are_whole(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = _sim(
        "run", "scenarios/his/field_battle.yaml", "--trials", "5000", "--json", "--quiet",
        "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)  # the last byte flushed before the process left
    assert document["trials"] == 5000
    for name in ("summary.csv", "summary.json", "report.html"):
        assert (out / name).stat().st_size > 0
    assert json.loads((out / "summary.json").read_text())


def test_exit_codes_are_the_commands() -> None:
    refused = _sim("validate", "docs/examples/bad_battle.yaml")
    assert refused.returncode == 2
    assert "bad_battle.yaml:7:21: params.attacker.units" in refused.stderr
    helped = _sim("--help")
    assert helped.returncode == 0
    assert "run" in helped.stdout
    unknown = _sim("no-such-command")
    assert unknown.returncode == 2


def test_a_command_starts_without_the_collector() -> None:
    code = (
        "import gc; from simulator import collector; collector.hold_for(60); "
        "from simulator.cli import main; print(gc.isenabled(), gc.get_count()[0] > 700)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.stdout.split() == ["False", "True"], done.stderr  # the imports piled up uncollected
