"""The regression gate: `sim baseline` stores counts and per-trial outcomes, `sim check` reruns
and compares trial by trial (docs/gate.md)."""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import json
import math
import re
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from simulator import procedures
from simulator.cli import app
from simulator.gate import power
from simulator.gate.compare import _two_sample, check
from simulator.gate.outcomes import decode, encode
from simulator.gate.store import MAX_BYTES, read
from simulator.scenario import load
from simulator.stats import _paired

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()
#: The committed baseline of every scenario must stay under this (docs/gate.md).
BUDGET_MIB = 5
_FIELD = procedures.get("his.field_battle")
#: Metrics of a field battle (each variant and sweep point of the scenarios below has them all).
FIELD_METRICS = len(_FIELD.metric_names(_FIELD.params_model.model_validate(_FIELD.example)))

BATTLE = """\
name: gate-battle
procedure: his.field_battle
trials: 20000
seed: 11
params:
  attacker: {units: 4, leader: 2}
  defender: {units: 3, leader: 0}
variants:
  no-defender-bonus: {defender_extra_dice: 0}
"""

TABLE = """\
name: gate-table
procedure: his.field_battle
trials: 2000
seed: 12
params:
  attacker: {leader: 0}
  defender: {leader: 0}
sweep:
  attacker.units: [2, 4]
  defender.units: [1, 3]
"""


def invoke(*args: str, env: dict[str, str] | None = None):
    return runner.invoke(app, list(args), catch_exceptions=False, env=env)


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """Two scenarios (one with variants, one with a sweep) and a baseline written for them."""
    where = tmp_path_factory.mktemp("gate")
    battle = where / "battle.yaml"
    battle.write_text(BATTLE)
    table = where / "table.yaml"
    table.write_text(TABLE)
    base = where / "baseline.json"
    result = invoke("baseline", str(battle), str(table), "--out", str(base))
    assert result.exit_code == 0, result.stderr
    return battle, table, base


@pytest.fixture
def gate(made, tmp_path):
    """A copy of ``made`` each test may edit."""
    out = []
    for path in made:
        copy = tmp_path / path.name
        copy.write_bytes(path.read_bytes())
        out.append(copy)
    return tuple(out)


def test_the_baseline_stores_counts_and_the_per_trial_outcomes_of_headline_metrics(gate):
    _battle, _table, base = gate
    stored = read(base)
    assert stored.simulator and stored.versions["numpy"]
    b = stored.scenarios["gate-battle"]
    assert (b.procedure, b.seed, b.trials) == ("his.field_battle", 11, 20000)
    wins = next(e for e in b.entries if e.variant == "base" and e.metric == "attacker_wins")
    assert wins.n == 20000 and wins.sum == round(wins.estimate * 20000)
    assert wins.se > 0 and wins.sum_sq == wins.sum  # 0/1 values
    assert wins.gated and wins.outcomes.codec == "bits"
    outcomes = decode(wins.outcomes, 20000)
    assert outcomes.sum() == wins.sum and set(np.unique(outcomes)) == {0, 1}
    hits = next(e for e in b.entries if e.metric == "attacker_hits")
    assert not hits.gated and hits.outcomes is None
    t = stored.scenarios["gate-table"]
    assert len(t.entries) == 4 * FIELD_METRICS  # points × field-battle metrics
    assert {json.dumps(e.point, sort_keys=True) for e in t.entries} == {
        json.dumps({"attacker.units": a, "defender.units": d}, sort_keys=True)
        for a in (2, 4)
        for d in (1, 3)
    }


def test_per_trial_outcomes_are_the_trials_the_engine_sums():
    """Calling a kernel one trial at a time gives exactly the engine's statistics."""
    from simulator.engine import make_plan, simulate
    from simulator.gate.outcomes import run_point

    s = load(ROOT / "scenarios" / "his" / "naval.yaml")
    plan = make_plan(s.procedure, s.variants, s.seed)
    kept = tuple(range(len(plan.metrics)))
    po = run_point(plan, 600, kept, threads=2)
    assert (po.stats == simulate(plan, 600, threads=1).stats).all()
    assert (po.values[:, :, :].sum(axis=2) == po.stats[:, 1 : 4 * len(kept) : 4]).all()
    # A few trials (a ladder's deals) go one a job, spread over the threads: the same trials.
    few = run_point(plan, 7, kept, threads=2)
    assert (few.stats == simulate(plan, 7, threads=1).stats).all()
    assert (few.values == po.values[:, :, :7]).all()


@pytest.mark.parametrize("kind", ["proportion", "mean", "conditional_mean"])
def test_packed_outcomes_round_trip(kind):
    rng = np.random.default_rng(1)
    n = 1001
    if kind == "proportion":
        values = rng.integers(0, 2, n)
    else:
        values = rng.integers(-3, 400, n)
    if kind == "conditional_mean":
        values[rng.random(n) < 0.3] = -(2**62)
    packed = encode(values.astype(np.int64), kind)
    assert (decode(packed, n) == values).all()


def test_unchanged_code_passes_as_unchanged_without_a_test_statistic(gate):
    battle, table, base = gate
    result = check([load(battle), load(table)], base)
    assert result.ok
    g = result.gated
    assert len(g) == 2 + 4 and (g["status"] == "unchanged").all()
    assert (g["test"] == "unchanged").all() and g["p_value"].isna().all()
    assert (g["changed_trials"] == 0).all() and (g["detectable"] > 0).all()
    cli = invoke("check", str(battle), str(table), "--baseline", str(base))
    assert cli.exit_code == 0, cli.stdout + cli.stderr
    assert "unchanged: 6 gated metrics in 2 scenario(s) reproduce the baseline" in cli.stdout
    assert "detectable" in cli.stdout
    # One row per scenario, not one per metric: nothing moved, so no metric is listed.
    rows = [line for line in cli.stdout.splitlines() if line.startswith("│")]
    assert len(rows) == 2 and all(" 0 │" in r for r in rows)
    assert "attacker_wins" not in cli.stdout


def _replace(monkeypatch, name, **changes):
    real_get = procedures.get
    real = real_get(name)
    changed = dataclasses.replace(real, **changes)
    monkeypatch.setattr(procedures, "get", lambda n: changed if n == name else real_get(n))


@pytest.fixture
def changed_rule(monkeypatch):
    """A code change to the field battle: hits on 4+ instead of 5+, whatever the params say."""
    real = procedures.get("his.field_battle")
    _replace(
        monkeypatch,
        "his.field_battle",
        pack=lambda p: real.pack(p.model_copy(update={"hit_on": 4})),
    )


@pytest.fixture
def no_hits_go_to_the_attacker(monkeypatch):
    """The planted result rule of issue 19: a battle where neither side scores a hit goes to the
    attacker. Hit counts are untouched; attacker_wins moves by under two points."""
    real = procedures.get("his.field_battle").kernel
    wins, a_hits, d_hits = 0, 1, 2

    def kernel(packed, key, first, n, hist_offset, hist_max, n_slots):
        total = np.zeros((packed.shape[0], n_slots), dtype=np.int64)
        for t in range(first, first + n):
            s = real(packed, key, np.int64(t), np.int64(1), hist_offset, hist_max, n_slots)
            for v in range(packed.shape[0]):
                if s[v, 4 * a_hits + 1] == 0 and s[v, 4 * d_hits + 1] == 0:
                    s[v, 4 * wins + 1] = s[v, 4 * wins + 2] = 1
            s[:, 4 * wins + 3] = s[:, 4 * wins + 1] * s[0, 4 * wins + 1]
            total += s
        return total

    _replace(monkeypatch, "his.field_battle", kernel=kernel)


def test_a_one_point_result_rule_change_fails_the_paired_gate_but_not_the_two_sample_test(
    gate, no_hits_go_to_the_attacker, tmp_path
):
    battle, _table, base = gate
    result = check([load(battle)], base)
    g = result.gated.set_index("variant")
    moved = g.loc["base"]
    assert 0.01 < moved["difference"] < 0.02
    assert moved["status"] == "drift" and moved["test"] == "McNemar"
    assert moved["ci_low"] > 0 and moved["changed_share"] == pytest.approx(moved["difference"])
    assert moved["detectable"] < moved["difference"]
    # The same counts through the two-sample test the gate used before: no drift.
    stored = {e.key(): e for e in read(base).scenarios["gate-battle"].entries}
    before = next(e for e in stored.values() if e.variant == "base" and e.metric == "attacker_wins")
    after = before.model_copy(
        update={"sum": round(moved["after"] * 20000), "sum_sq": round(moved["after"] * 20000)}
    )
    p = _two_sample(before, after)[3]
    assert p * len(g) > result.alpha  # Holm over the same family would not reject
    # What the user sees: the metric, the paired difference with its interval, trials changed.
    md = tmp_path / "check.md"
    junit = tmp_path / "check.xml"
    cli = invoke(
        "check", str(battle), "--baseline", str(base), "--markdown", str(md), "--junit", str(junit)
    )
    assert cli.exit_code == 3
    row = next(line for line in cli.stdout.splitlines() if "drift" in line and "base" in line)
    assert "attacker_wi" in row and "[0.0" in cli.stdout
    text = md.read_text()
    assert "drift: 2 of 2 gated metrics" in text and "(1." in text
    failure = ET.parse(junit).getroot().find(".//failure")
    assert "trials changed" in failure.text and "detectable effect" in failure.text


def test_a_changed_rule_in_code_is_flagged_with_exit_3_and_what_moved(gate, changed_rule, tmp_path):
    battle, table, base = gate
    junit = tmp_path / "junit.xml"
    md = tmp_path / "summary.md"
    result = invoke(
        "check",
        str(battle),
        str(table),
        "--baseline",
        str(base),
        "--junit",
        str(junit),
        "--markdown",
        str(md),
        env={"GITHUB_ACTIONS": "true"},
    )
    assert result.exit_code == 3
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error ")]
    assert errors and all("title=balance drift%3A gate-" in e for e in errors)
    assert any(f"file={battle}".replace(",", "%2C").replace(":", "%3A") in e for e in errors)
    suites = ET.parse(junit).getroot()
    assert int(suites.get("tests")) == (2 + 4) * FIELD_METRICS  # 2 variants, 4 sweep points
    failures = suites.findall(".//failure")
    assert 0 < len(failures) == int(suites.get("failures"))
    assert all("attacker_wins moved" in f.get("message") for f in failures)
    assert "gated metrics" in md.read_text() and "| gate-battle |" in md.read_text()


def test_a_refactor_that_reads_other_random_words_passes_with_a_notice(gate, monkeypatch):
    """Same distribution, every trial re-drawn (another key): outputs change, nothing drifts."""
    real = procedures.get("his.field_battle").kernel

    def kernel(packed, key, first, n, hist_offset, hist_max, n_slots):
        other = np.uint64(int(key) ^ 0x5BD1E9955BD1E995)
        return real(packed, other, first, n, hist_offset, hist_max, n_slots)

    _replace(monkeypatch, "his.field_battle", kernel=kernel)
    battle, _table, base = gate
    result = check([load(battle)], base)
    assert result.ok, result.drifted.to_string()
    g = result.gated
    assert (g["status"] == "changed").all() and (g["changed_share"] > 0.3).all()
    cli = invoke("check", str(battle), "--baseline", str(base))
    assert cli.exit_code == 0
    assert "pass with notice: outputs changed in 2 gated metric(s)" in cli.stdout
    assert "no metric drifted beyond its detectable effect" in cli.stdout
    assert "notice: gate-battle base attacker_wins:" in cli.stdout


@pytest.mark.parametrize("churn", [0.0, 0.3])
def test_the_stated_detectable_shift_of_a_proportion_is_caught_80_percent_of_the_time(churn):
    """Simulate the gate's McNemar decision (Holm over 10 metrics, one moving) at the stated
    shift: the share of runs that fail must be 80%, within 4 standard errors."""
    n, family, alpha, reps = 2000, 10, 1e-4, 1500
    shift = power.detectable_proportion(n, power.alpha_each(alpha, family), churn)
    rng = np.random.default_rng(7)
    failed = 0
    for _ in range(reps):
        old = rng.integers(0, 2, n)
        u = rng.random(n)
        up = (old == 0) & (u < (shift + churn / 2) / 0.5)
        down = (old == 1) & (u < (churn / 2) / 0.5)
        new = np.where(up, 1, np.where(down, 0, old))
        s0, s1 = int(old.sum()), int(new.sum())
        p = _paired("proportion", n, s0, s0, s1, s1, int(old @ new), 1)[3]
        failed += p * family <= alpha
    assert abs(failed / reps - power.POWER) < 4 * math.sqrt(0.16 / reps)


def test_the_stated_detectable_shift_of_a_mean_is_caught_80_percent_of_the_time():
    """Paired t-test after a refactor (background differences) plus a one-way move of some
    trials by the metric's spread."""
    n, family, alpha, reps, jump, spread = 2000, 10, 1e-4, 1500, 3, 4
    background = 2 * spread**2 / 3  # differences of -spread, 0, +spread, one third each
    shift = power.detectable_mean(n, power.alpha_each(alpha, family), jump, background)
    rng = np.random.default_rng(8)
    failed = 0
    for _ in range(reps):
        old = rng.integers(0, 10, n)
        noise = rng.integers(-1, 2, n) * spread
        new = old + noise + jump * (rng.random(n) < shift / jump)
        s0, ss0, s1, ss1 = int(old.sum()), int(old @ old), int(new.sum()), int(new @ new)
        p = _paired("mean", n, s0, ss0, s1, ss1, int(old @ new), 1)[3]
        failed += p * family <= alpha
    assert abs(failed / reps - power.POWER) < 4 * math.sqrt(0.16 / reps)


def test_detect_chooses_the_trials_and_says_so(tmp_path):
    battle = tmp_path / "battle.yaml"
    battle.write_text(BATTLE + "check:\n  attacker_wins: {detect: 0.02}\n")
    base = tmp_path / "baseline.json"
    result = invoke("baseline", str(battle), "--out", str(base), "--trials", "20000")
    assert result.exit_code == 0, result.stderr
    stored = read(base).scenarios["gate-battle"]
    expected = power.trials_for_proportion(0.02, power.alpha_each(1e-4, 2))
    assert stored.trials == expected < 20000
    assert stored.trials_from.startswith("detect attacker_wins 0.02")
    assert "detect attacker_wins 0.02" in result.stderr
    cli = invoke("check", str(battle), "--baseline", str(base), "--trials", "20000")
    assert cli.exit_code == 0, cli.stdout
    assert f"{expected:,} trials (detect attacker_wins 0.02" in cli.stderr
    assert "unchanged" in cli.stdout
    detectable = check([load(battle)], base).gated["detectable"]
    assert (detectable <= 0.02).all()


def test_check_trials_in_the_scenario_beats_the_gate_trial_count(tmp_path):
    battle = tmp_path / "battle.yaml"
    battle.write_text(BATTLE + "check:\n  trials: 300\n")
    base = tmp_path / "baseline.json"
    assert invoke("baseline", str(battle), "--out", str(base), "--trials", "20000").exit_code == 0
    assert read(base).scenarios["gate-battle"].trials == 300
    cli = invoke("check", str(battle), "--baseline", str(base), "--trials", "20000")
    assert cli.exit_code == 0 and "300 trials (check.trials 300)" in cli.stderr


def test_check_can_add_and_drop_gated_metrics(tmp_path):
    battle = tmp_path / "battle.yaml"
    battle.write_text(
        BATTLE + "check:\n  attacker_wins: {gate: false}\n  attacker_hits: {tolerance: 0.5}\n"
    )
    base = tmp_path / "baseline.json"
    assert invoke("baseline", str(battle), "--out", str(base)).exit_code == 0
    entries = read(base).scenarios["gate-battle"].entries
    assert {e.metric for e in entries if e.gated} == {"attacker_hits"}
    assert all((e.outcomes is not None) == e.gated for e in entries)
    result = check([load(battle)], base)
    assert set(result.gated["metric"]) == {"attacker_hits"}


def test_a_different_trial_count_uses_two_sample_tests_and_tolerances_still_apply(gate):
    battle, _table, base = gate
    result = invoke("check", str(battle), "--baseline", str(base), "--trials", "30000")
    assert result.exit_code == 0, result.stdout
    assert "two-sample tests are used" in result.stderr
    battle.write_text(BATTLE + "check:\n  attacker_wins: 0.0\n")
    # check: is not part of what the numbers are for, so the baseline still applies.
    result = invoke("check", str(battle), "--baseline", str(base), "--trials", "30000")
    assert result.exit_code == 3
    drifted = check([load(battle)], base, trials=30000).drifted
    assert drifted["beyond_tolerance"].all() and set(drifted["metric"]) == {"attacker_wins"}


def test_holm_runs_across_the_gated_metrics_only(gate):
    battle, table, base = gate
    result = check([load(battle), load(table)], base, trials=30000, alpha=0.05)
    t = result.table
    assert len(t) == (2 + 4) * FIELD_METRICS and t["gated"].sum() == 6
    g = result.gated
    assert t.loc[~t["gated"], "p_holm"].isna().all() and not t.loc[~t["gated"], "drifted"].any()
    smallest = g["p_value"].min()
    assert g.loc[g["p_value"].idxmin(), "p_holm"] == pytest.approx(min(1.0, 6 * smallest))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such baseline file"),
        ("{not json", ":1:2: not valid JSON"),
        ('{"format": "something-else"}', "not a sim-baseline/2 baseline"),
        ('{"format": "sim-baseline/1"}', "not a sim-baseline/2 baseline"),
        ("[1, 2]", "not a sim-baseline/2 baseline"),
        ('{"format": "sim-baseline/2", "scenarios": {}}', "corrupt baseline at created"),
        ('{"format": "sim-baseline/2", "format": "sim-baseline/2"}', "duplicate key 'format'"),
    ],
)
def test_a_missing_or_corrupt_baseline_is_exit_2_never_a_pass(gate, tmp_path, content, message):
    battle, _, _ = gate
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    result = invoke("check", str(battle), "--baseline", str(path))
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def _entry(data, metric="attacker_wins", variant="base"):
    entries = data["scenarios"]["gate-battle"]["entries"]
    return next(e for e in entries if e["metric"] == metric and e["variant"] == variant)


def _flip_a_trial(data):
    e = _entry(data)
    bits = bytearray(zlib.decompress(base64.b64decode(e["outcomes"]["data"])))
    bits[0] ^= 0x80
    e["outcomes"]["data"] = base64.b64encode(zlib.compress(bytes(bits))).decode()


def _bomb(data):
    e = _entry(data)
    e["outcomes"]["data"] = base64.b64encode(zlib.compress(b"\0" * 10**7)).decode()


def _set(metric, **fields):
    def edit(data):
        _entry(data, metric).update(fields)

    return edit


def _text_edit(old, new):
    def edit(text):
        assert old in text
        return text.replace(old, new, 1)

    return edit


@pytest.mark.parametrize(
    ("edit", "place"),
    [
        (_set("attacker_wins", estimate=float("nan")), "NaN is not a number"),
        (_set("attacker_hits", estimate=float("inf")), "Infinity is not a number"),
        (_set("attacker_wins", sum=60000, sum_sq=60000), "entries[0].sum: a proportion's"),
        (_set("attacker_wins", estimate=0.9), "entries[0].estimate: contradicts sum / n"),
        (_set("attacker_hits", se=0.5), "entries[1].se: contradicts the sums"),
        (_set("attacker_hits", sum_sq=0), "entries[1].sum_sq: too small"),
        (_set("attacker_hits", kind="bogus"), "entries[1].kind: Input should be"),
        (_set("attacker_hits", n=19999), "entries[1].n: a mean is defined in every one"),
        (_set("attacker_wins", outcomes=None), "entries[0].outcomes: a gated metric keeps"),
        (_flip_a_trial, "entries[0].outcomes: contradict the counts"),
        (_bomb, "entries[0].outcomes: packed outcomes longer than the trial count"),
        (_set("attacker_wins", sum=10**400), "entries[0].sum: Input should be less than"),
        (
            lambda d: d["scenarios"]["gate-battle"]["entries"].append(
                d["scenarios"]["gate-battle"]["entries"][1]
            ),
            f"entries[{2 * FIELD_METRICS}]: duplicate entry for base {{}} attacker_hits",
        ),
        (lambda d: d["scenarios"]["gate-battle"].update(seed=2**64), "gate-battle.seed: Input"),
        (lambda d: d["scenarios"]["gate-battle"].update(seed=-1), "gate-battle.seed: Input"),
        (lambda d: d["scenarios"]["gate-battle"].update(trials=1e30), "gate-battle.trials: Input"),
        (
            lambda d: d["scenarios"]["gate-battle"].update(trials=10**30),
            "gate-battle.trials: Input should be less than or equal",
        ),
        (
            lambda d: d["scenarios"]["gate-battle"].update(trials=30000),
            "entries[0].n: a proportion is defined in every one of the 30000 trials",
        ),
    ],
)
def test_a_baseline_wrong_in_any_field_is_exit_2_naming_the_place(gate, tmp_path, edit, place):
    battle, _, base = gate
    data = json.loads(base.read_text())
    edit(data)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    result = invoke("check", str(battle), "--baseline", str(bad))
    assert result.exit_code == 2, result.stdout
    assert "corrupt baseline" in result.stderr and place in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_a_sum_of_400_digits_or_a_huge_file_is_exit_2(gate, tmp_path):
    battle, _, base = gate
    text = base.read_text()
    bad = tmp_path / "bad.json"
    bad.write_text(re.sub(r'"sum": \d+', '"sum": 1' + "0" * 400, text, count=1))
    result = invoke("check", str(battle), "--baseline", str(bad))
    assert result.exit_code == 2 and "sum: Input should be less than" in result.stderr
    bad.write_text(re.sub(r'"sum": \d+', '"sum": 1' + "0" * 5000, text, count=1))
    result = invoke("check", str(battle), "--baseline", str(bad))
    assert result.exit_code == 2 and "corrupt baseline" in result.stderr
    with open(bad, "wb") as f:
        f.truncate(MAX_BYTES + 1)
    result = invoke("check", str(battle), "--baseline", str(bad))
    assert result.exit_code == 2 and "larger than 256 MiB" in result.stderr


def test_a_params_edit_in_a_copy_of_the_scenario_is_refused_as_another_scenario(gate):
    battle, _table, base = gate
    battle.write_text(BATTLE.replace("units: 3, leader: 0", "units: 2, leader: 0"))
    result = invoke("check", str(battle), "--baseline", str(base))
    assert result.exit_code == 2
    assert "was written for other inputs: params.defender.units: 3 → 2" in result.stderr
    assert "make baseline" in result.stderr


def test_a_changed_variant_is_refused_as_another_scenario(gate):
    battle, _table, base = gate
    battle.write_text(BATTLE.replace("defender_extra_dice: 0", "defender_extra_dice: 2"))
    result = invoke("check", str(battle), "--baseline", str(base))
    assert result.exit_code == 2
    assert "variants.no-defender-bonus.defender_extra_dice: 0 → 2" in result.stderr


def test_a_baseline_for_another_scenario_or_procedure_is_exit_2(gate, tmp_path):
    battle, _table, base = gate
    other = tmp_path / "other.yaml"
    other.write_text(BATTLE.replace("name: gate-battle", "name: gate-other"))
    result = invoke("check", str(other), "--baseline", str(base))
    assert result.exit_code == 2
    assert "no baseline for scenario 'gate-other'" in result.stderr
    data = json.loads(base.read_text())
    data["scenarios"]["gate-battle"]["procedure"] = "his.assault"
    base.write_text(json.dumps(data))
    result = invoke("check", str(battle), "--baseline", str(base))
    assert result.exit_code == 2
    assert "written for procedure 'his.assault'" in result.stderr


def test_a_metric_missing_from_the_baseline_is_exit_2(gate):
    battle, _table, base = gate
    data = json.loads(base.read_text())
    entries = data["scenarios"]["gate-battle"]["entries"]
    data["scenarios"]["gate-battle"]["entries"] = [
        e for e in entries if e["metric"] != "attacker_hits"
    ]
    base.write_text(json.dumps(data))
    result = invoke("check", str(battle), "--baseline", str(base))
    assert result.exit_code == 2
    assert "the metrics reported differ from the baseline" in result.stderr


def test_two_scenarios_with_one_name_cannot_share_a_baseline(tmp_path):
    a = tmp_path / "a.yaml"
    b = tmp_path / "b.yaml"
    a.write_text(BATTLE)
    b.write_text(BATTLE.replace("seed: 11", "seed: 12"))
    result = invoke("baseline", str(a), str(b), "--out", str(tmp_path / "x.json"))
    assert result.exit_code == 2
    assert "are both named 'gate-battle'" in result.stderr


def _registered(path: Path) -> bool:
    match = re.search(r"^procedure:\s*(\S+)", path.read_text(), re.MULTILINE)
    return bool(match) and match.group(1) in procedures.names()


def _committed() -> list[Path]:
    return [p for p in sorted((ROOT / "scenarios").rglob("*.yaml")) if _registered(p)]


def test_the_committed_baseline_is_valid_covers_every_scenario_and_fits_its_budget():
    """`make gate` (CI) reruns every scenario against it; here: it is whole and small."""
    base = ROOT / "reports" / "baseline.json"
    stored = read(base)
    loaded = [load(p) for p in _committed()]
    missing = [s.path for s in loaded if s.name not in stored.scenarios]
    assert not missing, f"not in reports/baseline.json: {missing}; run `make baseline`"
    assert base.stat().st_size <= BUDGET_MIB * 2**20
    assert f"{BUDGET_MIB} MiB" in (ROOT / "docs" / "gate.md").read_text()


def test_the_committed_baseline_passes_for_the_field_battle():
    """One committed scenario through the whole check (all of them: `make gate` in CI)."""
    s = load(ROOT / "scenarios" / "his" / "field_battle.yaml")
    result = check([s], ROOT / "reports" / "baseline.json")
    assert result.ok and (result.gated["status"] == "unchanged").all()


def test_ci_runs_the_tests_then_the_gate_with_the_trial_count_of_make_baseline():
    ci = (ROOT / ".ci" / "run").read_text()
    makefile = (ROOT / "Makefile").read_text()
    assert ci.index("make test") < ci.index("make gate")
    baseline_rule = re.search(r"^baseline:.*\n\t(.+)$", makefile, re.MULTILINE).group(1)
    gate_rule = re.search(r"^gate:.*\n\t(.+)$", makefile, re.MULTILINE).group(1)
    assert "--trials $(GATE_TRIALS)" in baseline_rule and "--trials $(GATE_TRIALS)" in gate_rule
    assert "sim check $(GATE_SCENARIOS) --baseline reports/baseline.json" in gate_rule
    trials = int(re.search(r"^GATE_TRIALS \?= (\d+)$", makefile, re.MULTILINE).group(1))
    stored = read(ROOT / "reports" / "baseline.json")
    for s in map(load, _committed()):
        chosen = stored.scenarios[s.name]
        if "trials" not in s.check and not any(
            getattr(v, "detect", None) for v in s.check.values()
        ):
            assert chosen.trials == trials, s.name
            assert chosen.trials_from == f"--trials {trials:,}"


def _paths(tree, prefix=()):
    """Every path to a value inside a JSON tree."""
    yield prefix
    if isinstance(tree, dict):
        for k, v in tree.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            yield from _paths(v, (*prefix, i))


def test_any_value_anywhere_in_a_baseline_is_read_or_refused_never_a_crash(made, tmp_path):
    """Fuzz the loader: replace one value of a real baseline by any JSON value."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from simulator.gate.store import BaselineError

    _battle, _table, base = made
    data = json.loads(base.read_text())
    paths = [p for p in _paths(data) if p]
    values = st.recursive(
        st.none()
        | st.booleans()
        | st.integers(min_value=-(2**70), max_value=2**70)
        | st.floats(allow_nan=True, allow_infinity=True)
        | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
        max_leaves=8,
    )

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(paths), values)
    def replaced(path, value):
        tree = json.loads(json.dumps(data))
        node = tree
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value
        bad = tmp_path / "fuzz.json"
        bad.write_text(json.dumps(tree))
        with contextlib.suppress(BaselineError):
            read(bad)

    replaced()


def test_detect_on_a_mean_sizes_the_gate_from_a_pilot_of_its_spread(tmp_path):
    battle = tmp_path / "battle.yaml"
    battle.write_text(
        BATTLE + "check:\n  attacker_hits: {detect: 0.05}\n  attacker_wins: {gate: false}\n"
    )
    base = tmp_path / "baseline.json"
    assert invoke("baseline", str(battle), "--out", str(base)).exit_code == 0
    stored = read(base).scenarios["gate-battle"]
    assert 100 < stored.trials < 2000 and stored.trials_from.startswith("detect attacker_hits")
    g = check([load(battle)], base).gated
    assert list(g["metric"]) == ["attacker_hits"] * 2 and (g["detectable"] <= 0.05).all()
