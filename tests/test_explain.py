"""`sim explain`: clauses found, every combination played on the same deals, each change split
into the clauses' shares with intervals (simulator/explain, docs/why.md)."""

from __future__ import annotations

import dataclasses
import json
import shutil
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from simulator.cli import app
from simulator.explain.clauses import ExplainError
from simulator.explain.decompose import decompose
from simulator.explain.design import FULL_UP_TO, design
from simulator.explain.render import lines, why_lines
from simulator.explain.run import explain, prepare
from simulator.scenario import load

ROOT = Path(__file__).resolve().parents[1]
PLANTED = ROOT / "tests" / "data" / "planted_clauses.py"
runner = CliRunner()


def _planted(tmp_path: Path, variants: str, extra: str = "") -> Path:
    shutil.copy(PLANTED, tmp_path / "planted_clauses.py")
    path = tmp_path / "planted.yaml"
    path.write_text(
        "name: planted\nprocedure: planted_clauses.py:planted\ntrials: 4000\nseed: 11\n"
        f"{extra}variants:\n{variants}"
    )
    return path


# --- the design -------------------------------------------------------------------------------


@pytest.mark.parametrize("k", [1, 2, 3, 4, FULL_UP_TO, 8])
def test_shapley_values_and_mobius_terms_each_add_up_to_the_total(k):
    d = design(k)
    for parts in (d.shapley, [t.weights for t in d.terms]):
        summed: dict[int, Fraction] = {}
        for w in parts:
            for cell, x in w.items():
                summed[cell] = summed.get(cell, Fraction(0)) + x
        assert {c: x for c, x in summed.items() if x} == d.total
    assert d.cells[0] == 0 and d.cells[-1] == (1 << k) - 1
    assert d.full == (k <= FULL_UP_TO)
    if not d.full:
        assert len(d.cells) == 1 + k + k * (k - 1) // 2 + 1
        assert "not separated" in d.describe()


def test_two_clause_shapley_values_split_the_interaction_equally():
    d = design(2)
    v = {0: Fraction(0), 1: Fraction(3), 2: Fraction(-1), 3: Fraction(4)}  # A×B = +2
    shap = [sum(w[c] * v[c] for c in w) for w in d.shapley]
    assert shap == [Fraction(4), Fraction(0)]  # 3 + 2/2, −1 + 2/2
    terms = {t.mask: sum(w * v[c] for c, w in t.weights.items()) for t in d.terms}
    assert terms == {1: 3, 2: -1, 3: 2}


# --- the decomposition, on simulated deals -----------------------------------------------------


def _simulated(rng: np.random.Generator, trials: int) -> tuple[np.ndarray, list]:
    """Per-deal outcomes of 4 clauses: A adds a d6 (+3.5), B takes the 5s and 6s of 3d6 (−1), C
    and D together add a d3 (+2); one trial a batch, as the engine's batches of one deal."""
    d = design(4)
    base = rng.integers(1, 7, trials) + rng.integers(1, 7, trials)
    extra = rng.integers(1, 7, trials)
    lost = (rng.integers(1, 7, (trials, 3)) >= 5).sum(axis=1)
    pair = rng.integers(1, 4, trials)
    stats = np.zeros((trials, len(d.cells), 4), dtype=np.int64)
    for j, cell in enumerate(d.cells):
        value = base + (cell & 1) * extra - (cell >> 1 & 1) * lost
        value = value + (cell >> 2 & 1) * (cell >> 3 & 1) * pair
        stats[:, j, 0] = 1
        stats[:, j, 1] = value
        stats[:, j, 2] = value * value
    return stats, [("score", "mean", 1)]


def test_planted_effects_are_covered_by_their_intervals_over_200_runs():
    shapley_true = [3.5, -1.0, 1.0, 1.0]
    terms_true = {1: 3.5, 2: -1.0, 12: 2.0}  # every other term is 0
    covered = np.zeros(4 + 15)
    for seed in range(200):
        stats, metrics = _simulated(np.random.default_rng(seed), 400)
        (m,) = decompose(design(4), stats, metrics)
        assert sum(s.exact for s in m.shapley) == m.total.exact
        for i, s in enumerate(m.shapley):
            covered[i] += s.low <= shapley_true[i] <= s.high
        for j, (mask, _, t) in enumerate(m.terms):
            covered[4 + j] += t.low <= terms_true.get(mask, 0.0) <= t.high
    rates = covered / 200
    assert rates.min() >= 0.93, rates
    # Terms that are zero deal by deal (A×B, A×C...) are exactly 0 with a zero-width interval.
    stats, metrics = _simulated(np.random.default_rng(0), 400)
    (m,) = decompose(design(4), stats, metrics)
    for mask, _, t in m.terms:
        if mask in (3, 5, 6, 9, 10):
            assert t.exact == 0 and t.low == t.high == 0.0, mask


def test_identical_cells_give_an_exact_zero_and_a_zero_width_interval():
    rng = np.random.default_rng(3)
    stats, metrics = _simulated(rng, 300)
    d = design(2)
    # Clause 2 of two: cells {2} and {1, 2} repeat cells {} and {1} (a clause that never fired).
    two = stats[:, [0, 1, 0, 1], :]
    (m,) = decompose(d, two, metrics)
    assert m.shapley[1].exact == 0 and m.shapley[1].low == m.shapley[1].high == 0.0
    assert m.shapley[0].exact == m.total.exact


# --- clauses found ------------------------------------------------------------------------------


def test_the_revisions_are_split_into_the_cases_they_change():
    s = load(ROOT / "scenarios" / "recruitment" / "revisions.yaml")
    found = prepare(s, "revision-1.2", trials=10).difference.clauses
    assert [(c.path, c.before, c.after, c.kind) for c in found] == [
        ("multi_tie", "stays", "removed", "case"),
        ("equipment", "kept", "discarded", "case"),
    ]
    assert "tie above the owner" in found[0].words
    assert found[1].fires == ("equipment_discarded", "gap_equipped")
    one = prepare(s, "revision-1.1", trials=10).difference.clauses
    assert [c.path for c in one] == ["multi_tie"]
    # A revision preset against another: 1.2 against 1.1 differs in the equipment case only.
    assert [c.path for c in prepare(s, "revision-1.2", "revision-1.1", 10).difference.clauses] == [
        "equipment"
    ]


def test_a_designers_own_revision_and_step_are_clauses():
    s = load(ROOT / "docs" / "examples" / "revisions-1.3.yaml")
    own = prepare(s, "rules-1.3", trials=10).difference.clauses
    assert [(c.path, c.before, c.after) for c in own] == [
        ("multi_tie", "removed", "first_placed"),
        ("equipment", "kept", "discarded"),
    ]
    both = prepare(s, "rules-1.2-supply", trials=10).difference.clauses
    assert [c.path for c in both] == ["equipment", "removed_tokens"]
    steps = load(ROOT / "docs" / "examples" / "own-ownership.yaml")
    (step,) = prepare(steps, "most-tokens", trials=10).difference.clauses
    assert step.kind == "step" and step.path == "ownership"
    assert "ownership.py:most_tokens_breaks_the_tie" in step.change()


def test_a_plain_parameter_is_a_clause_named_by_its_description(tmp_path):
    s = load(_planted(tmp_path, "  both:\n    bonus: true\n    loss: true\n"))
    clauses = prepare(s, "both", trials=10).difference.clauses
    assert [(c.path, c.before, c.after, c.words) for c in clauses] == [
        ("bonus", False, True, "add a d6 to the score"),
        ("loss", False, True, "take away the 5s and 6s of 3d6"),
    ]


def test_what_cannot_be_explained_is_refused(tmp_path):
    s = load(_planted(tmp_path, "  both:\n    bonus: true\n"))
    with pytest.raises(ExplainError, match="no variant 'nope'"):
        prepare(s, "nope")
    with pytest.raises(ExplainError, match="not itself"):
        prepare(s, "both", "both")
    result = runner.invoke(app, ["explain", str(tmp_path / "planted.yaml"), "--variant", "x"])
    assert result.exit_code == 2 and "no variant 'x'" in result.output


# --- played on the same deals --------------------------------------------------------------------


def test_planted_clauses_are_recovered_from_a_designers_file(tmp_path):
    s = load(
        _planted(
            tmp_path, "  all:\n    bonus: true\n    loss: true\n    left: true\n    right: true\n"
        )
    )
    ex = explain(s, "all", threads=2)
    score = ex.by_metric()["score"]
    assert sum(v.exact for v in score.shapley) == score.total.exact  # exactly
    truth = {"bonus": 3.5, "loss": -1.0, "left": 1.0, "right": 1.0}
    for name, value in zip(ex.names, score.shapley, strict=True):
        assert value.low <= truth[name] <= value.high, name
        assert value.significant
    terms = {m: t for m, _, t in score.terms}
    assert terms[0b0011].exact == 0 and terms[0b0011].high == 0.0  # bonus × loss: additive
    assert terms[0b1100].significant and terms[0b1100].low <= 2 <= terms[0b1100].high
    assert terms[0b0100].exact == 0 and terms[0b1000].exact == 0  # either half alone: nothing
    said = "\n".join(lines(ex))
    assert "interactions: score left × right +1.9" in said
    assert "bonus: false → true (add a d6 to the score)" in said
    assert ex.fired == [None] * 4  # the file declares no case metrics


def test_one_and_two_threads_give_the_same_explanation(tmp_path):
    s = load(_planted(tmp_path, "  both:\n    bonus: true\n    left: true\n    right: true\n"))
    one = explain(s, "both", trials=3000, threads=1).to_dict()
    two = explain(s, "both", trials=3000, threads=2).to_dict()
    one.pop("seconds"), two.pop("seconds")
    assert one == two


def test_a_clause_that_never_fires_gets_exactly_zero_and_is_named(tmp_path):
    s = load(_planted(tmp_path, "  both:\n    bonus: true\n    never: true\n"))
    s.procedure = dataclasses.replace(s.procedure, fires={"never": ("never_fired",)})
    ex = explain(s, "both", trials=2000)
    assert [c.path for c in ex.never_fired()] == ["never"]
    for m in ex.effects:
        never = m.shapley[ex.names.index("never")]
        assert never.exact == 0 and never.low == never.high == 0.0, m.metric
    assert "never arose" in "\n".join(lines(ex))
    assert any("never 0 (never arose)" in line for line in why_lines([ex]))


# --- where the designer meets it -------------------------------------------------------------


def test_sim_explain_gives_every_equipment_change_to_the_equipment_case(tmp_path):
    out = tmp_path / "out"
    result = runner.invoke(
        app,
        [
            "explain",
            "scenarios/recruitment/revisions.yaml",
            "--variant",
            "revision-1.2",
            "--trials",
            "400",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    text = result.output
    assert "combinations × 400 trials = 1,600 games, about" in text
    assert "multi_tie: stays → removed" in text and "equipment: kept → discarded" in text
    assert "never arose (gap_multi_tie, removed_multi_tie 0 in every combination)" in text
    assert "why equipment_discarded +" in text
    doc = json.loads((out / "summary.json").read_text())
    (entry,) = doc["explain"]
    assert [c["path"] for c in entry["clauses"]] == ["multi_tie", "equipment"]
    assert [c["fired"] for c in entry["clauses"]] == [False, True]
    metric = next(m for m in entry["metrics"] if m["metric"] == "equipment_discarded")
    assert metric["shapley"]["multi_tie"]["estimate"] == 0
    assert metric["shapley"]["equipment"]["estimate"] == metric["total"]["estimate"] > 0
    page = (out / "report.html").read_text()
    assert "Why did it change?" in page and "<svg" in page


def test_compare_explain_and_a_scenarios_explain_key(tmp_path):
    result = runner.invoke(
        app,
        [
            "compare",
            "scenarios/recruitment/rules-1.0.yaml",
            "scenarios/recruitment/rules-1.2.yaml",
            "--explain",
            "--trials",
            "300",
            "-q",
            "--out",
            str(tmp_path / "cmp"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "Why rules-1.2 differs from rules-1.0" in result.output
    path = _planted(tmp_path, "  both:\n    bonus: true\n    loss: true\n", "explain: true\n")
    result = runner.invoke(app, ["run", str(path), "-q", "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    assert "why score +2.5" in result.output and "bonus +3." in result.output
    doc = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert doc["explain"][0]["variant"] == "both"


def test_a_whole_game_and_a_designers_copy_of_it_explain_alike(tmp_path):
    """The template Pig built in and its copy in a designer's file (tests/data/pig_game.py) play
    the same games: their explanations agree number for number, on 1 and 2 threads."""
    found = {}
    for name, procedure in (
        ("built-in", "template.pig"),
        ("copy", str(ROOT / "tests" / "data" / "pig_game.py") + ":Pig"),
    ):
        path = tmp_path / f"{name}.yaml"
        path.write_text(
            f"name: pig\nprocedure: {procedure}\ntrials: 400\nseed: 29\n"
            "params: {players: 2, target: 100, policies: [greedy, random]}\n"
            "variants:\n  short-greedy: {target: 30, policies: greedy}\n"
        )
        s = load(path)
        for threads in (1, 2):
            ex = explain(s, "short-greedy", threads=threads)
            assert ex.names == ["target", "policies"]
            found[name, threads] = {m.metric: m.to_dict(ex.names) for m in ex.effects}
    shared = set(found["built-in", 1]) & set(found["copy", 1])  # the built-in reports more
    assert {"wins.seat1", "wins.seat2", "draws"} <= shared
    same = {json.dumps({k: v[k] for k in shared}, sort_keys=True) for v in found.values()}
    assert len(same) == 1
    assert found["built-in", 1]["wins.seat2"]["total"]["significant"]  # greedy seat 2 wins more


def test_ctrl_c_keeps_the_trials_every_combination_finished(tmp_path):
    s = load(_planted(tmp_path, "  both:\n    bonus: true\n    loss: true\n"))
    prepared = prepare(s, "both", trials=4000)
    calls: list[int] = []

    def ctrl_c(done: int, planned: int) -> None:
        calls.append(done)
        if len(calls) == 20:
            raise KeyboardInterrupt

    from simulator.explain.run import play

    ex = play(prepared, threads=1, on_progress=ctrl_c)
    assert not ex.complete and 0 < ex.trials < 4000
    score = ex.by_metric()["score"]
    assert sum(v.exact for v in score.shapley) == score.total.exact
    assert ex.outcome is not None and len(ex.outcome.batch_stats) * 16 == ex.trials
    assert "(interrupted: the trials every combination finished)" in lines(ex)[0]


def test_values_valid_only_together_are_one_clause(tmp_path):
    """A range's low and high moved together (3..5 from 0..2): neither alone is a valid range,
    so the clause is the range."""
    path = tmp_path / "wages.yaml"
    path.write_text(
        "name: wages\nprocedure: recruitment.loyalty\ntrials: 100\nseed: 1\n"
        "params: {deck: {count: 30, wage: {low: 0, high: 2}}, starting_gold: 3}\n"
        "variants:\n  dear: {deck: {wage: {low: 3, high: 5}}, starting_gold: 5}\n"
    )
    clauses = prepare(load(path), "dear").difference.clauses
    assert [(c.change(), c.words) for c in clauses] == [
        ("deck.wage: {low: 0, high: 2} → {low: 3, high: 5}", "wage of each character"),
        ("starting_gold: 3 → 5", "invented: gold of each empire at the start"),
    ]


def test_beyond_six_clauses_one_at_a_time_pairs_and_all_add_up_exactly():
    """8 clauses: 38 of 256 combinations; the rest of three or more clauses is one remainder
    term, shared equally, and the shares still add up to the total exactly."""
    d = design(8)
    rng = np.random.default_rng(5)
    trials = 200
    noise = rng.integers(0, 10, trials)
    stats = np.zeros((trials, len(d.cells), 4), dtype=np.int64)
    for j, cell in enumerate(d.cells):
        value = noise + 3 * (cell & 1) + 5 * (cell.bit_count() >= 3)  # a third-order jump
        stats[:, j, 0], stats[:, j, 1], stats[:, j, 2] = 1, value, value * value
    (m,) = decompose(d, stats, [("x", "mean", 1)])
    assert sum(s.exact for s in m.shapley) == m.total.exact == 8
    remainder = next(t for mask, r, t in m.terms if r)
    assert remainder.exact == 5
    assert m.shapley[0].exact == 3 + Fraction(5, 8)


def test_planted_effects_are_covered_in_200_real_runs(tmp_path):
    """The same, end to end: 200 runs of the designer's file, each on its own random streams
    (about 10 s)."""
    s = load(_planted(tmp_path, "  both:\n    bonus: true\n    loss: true\n"))
    covered = np.zeros(2)
    for seed in range(200):
        s.seed = seed
        ex = explain(s, "both", trials=1000, threads=2)
        score = ex.by_metric()["score"]
        for i, truth in enumerate((3.5, -1.0)):
            covered[i] += score.shapley[i].low <= truth <= score.shapley[i].high
    assert (covered / 200).min() >= 0.93, covered
