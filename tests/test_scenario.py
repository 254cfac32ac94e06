"""Bad scenario input: every problem names file, line, column and field, and exits 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from simulator.cli import app
from simulator.scenario import MAX_BYTES, ScenarioError, load

GOOD = """\
name: t
procedure: his.field_battle
trials: 1000
seed: 1
params:
  attacker: {units: 4, leader: 2}
  defender: {units: 3, leader: 0}
"""


def write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def problems(path: Path) -> list[str]:
    with pytest.raises(ScenarioError) as info:
        load(path)
    return [str(p) for p in info.value.problems]


def test_a_good_file_loads(tmp_path):
    s = load(write(tmp_path, GOOD))
    assert s.name == "t" and list(s.variants) == ["base"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            GOOD.replace("units: 4", "units: -3"),
            ":6:21: params.attacker.units: must be between 1 and 40 (got -3)",
        ),
        (
            GOOD.replace("leader: 2", "leadr: 2"),
            ":6:24: params.attacker.leadr: unknown key; did you mean 'leader'?",
        ),
        (
            GOOD.replace("seed: 1\n", "seed: 1\nsede: 2\n"),
            ":5:1: sede: unknown key; did you mean 'seed'?",
        ),
        (
            GOOD.replace("leader: 0", "leader: '0'"),
            ":7:32: params.defender.leader: Input should be a valid integer (got '0')",
        ),
        (
            GOOD + "  hit_on: 5\n  hit_on: 4\n",
            ":9:3: params.hit_on: duplicate key (first at line 8)",
        ),
        (
            GOOD.replace("his.field_battle", "his.field_batle"),
            ":2:12: procedure: unknown procedure; did you mean 'his.field_battle'?",
        ),
        (GOOD.replace("trials: 1000", "trials: 0"), ":3:9: trials: must be between 1 and"),
        (
            GOOD.replace("trials: 1000", "trials: many"),
            ":3:9: trials: Input should be a valid integer",
        ),
        (
            GOOD + "variants:\n  v: {defender: {units: 99}}\n",
            ":9:25: variants.v.defender.units: must be between 1 and 40 (got 99)",
        ),
        (
            GOOD + "variants:\n  v: {ties_to: nobody}\n",
            ":9:16: variants.v.ties_to: must be one of 'defender' or 'attacker' (got 'nobody')",
        ),
        (GOOD + "variants:\n  base: {hit_on: 4}\n", "variants: 'base' is the name"),
        (
            GOOD.replace("  defender: {units: 3, leader: 0}\n", ""),
            "params.defender: required key is missing",
        ),
        ("name: t\nprocedure: [1\n", ":3:1: yaml: not valid YAML"),
        ("- just\n- a list\n", ":1:1: file: must be a mapping"),
        ("", ":1:1: file: is empty"),
    ],
)
def test_bad_input_is_reported_with_file_line_column_and_field(tmp_path, text, expected):
    path = write(tmp_path, text)
    found = problems(path)
    assert any(p.startswith(str(path)) and expected in p for p in found), found


def test_scientific_notation_for_trials_is_accepted(tmp_path):
    assert load(write(tmp_path, GOOD.replace("trials: 1000", "trials: 1e6"))).trials == 1_000_000


def test_a_missing_file_a_directory_and_binary_data_are_clear_errors(tmp_path):
    assert problems(tmp_path / "nope.yaml") == [f"{tmp_path / 'nope.yaml'}:1:1: file: no such file"]
    assert "is a directory" in problems(tmp_path)[0]
    binary = tmp_path / "b.yaml"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    assert "not UTF-8" in problems(binary)[0]


def test_files_over_one_mebibyte_are_refused_before_parsing(tmp_path):
    path = write(tmp_path, GOOD + "#" * MAX_BYTES)
    assert "larger than the 1 MiB limit" in problems(path)[0]


def test_unsafe_yaml_tags_are_not_executed(tmp_path):
    path = write(
        tmp_path, GOOD.replace("name: t", "name: !!python/object/apply:os.system ['true']")
    )
    assert (
        "YAML tag 'tag:yaml.org,2002:python/object/apply:os.system' is not allowed"
        in problems(path)[0]
    )


def test_a_bad_value_in_params_is_reported_once_not_once_per_variant(tmp_path):
    text = GOOD.replace("units: 4", "units: 0") + "variants:\n  a: {hit_on: 4}\n  b: {hit_on: 6}\n"
    found = problems(write(tmp_path, text))
    assert len([p for p in found if "params.attacker.units" in p]) == 1


@pytest.mark.parametrize("command", ["run", "validate", "exact"])
def test_the_cli_exits_2_without_a_traceback(tmp_path, command):
    path = write(tmp_path, GOOD.replace("units: 4", "units: -3"))
    result = CliRunner().invoke(app, [command, str(path)])
    assert result.exit_code == 2
    assert f"{path}:6:21: params.attacker.units: must be between 1 and 40 (got -3)" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_validate_reports_every_file(tmp_path):
    good = write(tmp_path, GOOD, "good.yaml")
    bad = write(tmp_path, GOOD.replace("seed: 1", "seed: -1"), "bad.yaml")
    result = CliRunner().invoke(app, ["validate", str(good), str(bad)])
    assert result.exit_code == 2
    assert f"ok {good}" in result.stdout
    assert f"{bad}:4:7: seed: must be between 0 and" in result.stderr


def test_bad_options_exit_2(tmp_path):
    path = write(tmp_path, GOOD)
    for args in (["--trials", "0"], ["--threads", "0"], ["--precision", "-1"], ["--seed", "x"]):
        result = CliRunner().invoke(app, ["run", str(path), *args])
        assert result.exit_code == 2, args
