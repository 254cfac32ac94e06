"""Ties called ties: equivalence by two one-sided tests, "identical on every deal", rankings only
where intervals separate, and the report pieces that show them."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from simulator import equivalence as eq
from simulator.report.fairness import answer, fairness, group_words
from simulator.runner import run_scenario
from tests import seat_toy as toy
from tests.test_fairness import _batched

MARGIN = eq.SEAT_SPREAD


def _paired_tie(rng: np.random.Generator, n: int, delta: float, margin: float) -> eq.Tie:
    """Per-deal outcomes of two variants on shared deals, with a known true difference: a
    proportion of 30% under the first; the second turns 10% of its ones into zeros and as many
    of its zeros into ones as make the mean difference ``delta`` (0.7 a − 0.3 · 0.1 = delta)."""
    x0 = (rng.random(n) < 0.3).astype(np.int64)
    a = (delta + 0.03) / 0.7
    u = rng.random(n)
    x1 = np.where(x0 == 1, (u >= 0.1).astype(np.int64), (u < a).astype(np.int64))
    sums = (int(x0.sum()), int(x0.sum()), int(x1.sum()), int(x1.sum()), int((x0 * x1).sum()))
    return eq.paired(n, *sums, margin)


def _inside(tie: eq.Tie) -> bool:
    """Whether the two one-sided tests reject: the 90% interval inside the margin."""
    return -tie.margin < tie.eq_lo and tie.eq_hi < tie.margin


@pytest.mark.parametrize(("outside", "most"), [(1.1, 10), (-1.1, 10), (1.0, 16), (-1.0, 16)])
def test_equivalence_is_claimed_for_a_true_difference_outside_the_margin_in_at_most_5_percent(
    outside: float, most: int
):
    """A true difference beyond the margin: the two one-sided tests claim equivalence in at most
    5% of 200 runs (at the margin itself their error rate is alpha, 5%: at most 16 of 200 leaves
    two standard errors of room). The verdict's "equivalent" never claims more than they do."""
    ties = [
        _paired_tie(np.random.default_rng(seed), 20_000, outside * MARGIN, MARGIN)
        for seed in range(200)
    ]
    claimed = sum(_inside(t) for t in ties)
    # Measured: 4 and 0 of 200 at 1.1 times the margin, 12 and 8 at the margin.
    assert claimed <= most, claimed
    assert sum(t.verdict == eq.EQUIVALENT for t in ties) <= claimed


def test_the_planted_difference_is_the_true_one():
    tie = _paired_tie(np.random.default_rng(0), 2_000_000, MARGIN, MARGIN)
    assert tie.difference == pytest.approx(MARGIN, abs=0.0005)


def test_a_true_difference_well_inside_the_margin_is_called_equivalent_most_of_the_time():
    """The test can pass: with no true difference, 20,000 deals claim equivalence within 1 pp."""
    claimed = sum(
        _paired_tie(np.random.default_rng(seed), 20_000, 0.0, MARGIN).verdict == eq.EQUIVALENT
        for seed in range(50)
    )
    assert claimed >= 45, claimed


def test_the_equivalence_claim_is_exactly_the_90_percent_interval_inside_the_margin():
    rng = np.random.default_rng(5)
    for _ in range(300):
        d, se, m = rng.normal(0, 0.01), rng.uniform(0.0005, 0.01), rng.uniform(0.001, 0.03)
        tie = eq.tost(d, se, m)
        inside = -m < tie.eq_lo and tie.eq_hi < m
        excludes = tie.lo > 0 or tie.hi < 0
        assert (tie.verdict == eq.EQUIVALENT) == (inside and not excludes)
        assert (tie.verdict == eq.DIFFERENT) == excludes
        if not excludes:
            # The two one-sided tests' p-value is below alpha exactly when the interval is in.
            assert (tie.p_equivalent < eq.ALPHA) == inside


def test_the_tost_p_value_is_statsmodels_one():
    from statsmodels.stats.weightstats import ttost_paired

    rng = np.random.default_rng(3)
    x0 = rng.integers(0, 7, 400)
    x1 = x0 + rng.integers(-1, 2, 400)
    tie = eq.paired(
        400,
        int(x0.sum()),
        int((x0 * x0).sum()),
        int(x1.sum()),
        int((x1 * x1).sum()),
        int((x0 * x1).sum()),
        0.15,
    )
    p, _, _ = ttost_paired(x1.astype(float), x0.astype(float), -0.15, 0.15)
    assert tie.p_equivalent == pytest.approx(float(p), rel=1e-9)


def test_identical_outcomes_on_every_deal_are_read_exactly_from_the_sums():
    x = np.arange(100) % 3
    s, ss = int(x.sum()), int((x * x).sum())
    assert eq.paired(100, s, ss, s, ss, ss, 0.01).verdict == eq.IDENTICAL
    # The same totals on other deals are not identical: one deal's 2 swapped with another's 0.
    y = x.copy()
    y[0], y[2] = x[2], x[0]
    tie = eq.paired(100, s, ss, int(y.sum()), int((y * y).sum()), int((x * y).sum()), 0.5)
    assert tie.verdict != eq.IDENTICAL and tie.difference == 0


@pytest.mark.parametrize(
    ("second", "most"),
    [([0.295, 0.25, 0.25, 0.205], 16), ([0.2945, 0.25, 0.25, 0.2055], 10)],
)
def test_the_spread_equivalence_claim_errs_at_most_5_percent_outside_the_margin(second, most):
    """Bootstrap TOST of the seat spread: spreads of 10 pp and 9 pp (a difference of exactly
    the margin) or 8.9 pp (1.1 times it) are called equivalent in at most alpha of 200 runs."""
    first = [0.30, 0.25, 0.25, 0.20]
    claimed = 0
    for seed in range(200):
        f = fairness(_batched([first, second], 20_000, seed))  # type: ignore[arg-type]
        assert f is not None and f.variants[1].tie is not None
        claimed += _inside(f.variants[1].tie)
    # Measured: 9 of 200 at the margin, 0 at 1.1 times it.
    assert claimed <= most, claimed


def _toy(variants: dict[str, list[int]], trials: int = 4000, seed: int = 11):
    params = {k: toy.ToyParams(shares=v) for k, v in variants.items()}
    return run_scenario(toy.scenario(params, trials, seed), threads=1)


UNEVEN = [300_000, 250_000, 250_000, 200_000]
EVEN = [260_000, 250_000, 250_000, 240_000]


def test_variants_that_cannot_differ_are_identical_on_every_deal_and_none_is_fairer():
    r = _toy({"base": UNEVEN, "same": UNEVEN, "again": UNEVEN})
    f = fairness(r)
    assert f is not None
    assert all(p.tie.verdict == eq.IDENTICAL for p in f.pairs)
    assert f.tiers == [["base", "same", "again"]] and f.fairest == []
    assert answer(f) == "no variant is fairer: all three play identical seat shares on every deal"
    doc = f.to_dict()
    assert doc["variants"]["same"]["detectable"] == 0.0
    assert "every deal" in doc["variants"]["same"]["tie"]["why"]
    assert doc["pairs"][0]["margin"] == MARGIN and doc["pairs"][0]["trials"] == 4000


def test_only_variants_whose_intervals_separate_are_ranked():
    """base and its copy are identical; the even variant is fairer than both: it is ranked
    above them, and they are not ranked against each other."""
    r = _toy({"base": UNEVEN, "copy": UNEVEN, "even": EVEN}, trials=8000)
    f = fairness(r)
    assert f is not None
    assert f.tiers == [["even"], ["base", "copy"]]
    assert answer(f) == (
        "even is fairer than base and copy; by seat spread: even < base and copy (identical on "
        "every deal)"
    )
    assert group_words(f, ["base", "copy"]) == "base and copy (identical on every deal)"


def test_a_run_too_small_to_tell_says_so_with_the_size_it_would_miss():
    r = _toy({"base": UNEVEN, "mirrored": [200_000, 250_000, 250_000, 300_000]}, trials=500)
    f = fairness(r)
    assert f is not None and f.tiers == [["base", "mirrored"]]
    said = answer(f)
    assert said.startswith("cannot tell which variant is fairer: a difference in seat spread below")
    assert "would go unseen at 500 games" in said


def test_tiers_never_claim_an_order_an_interval_does_not_show():
    """Random spreads and runs: every variant of an earlier group is told apart below every
    variant of each later group."""
    rng = np.random.default_rng(2)
    for seed in range(30):
        shares = []
        for _ in range(4):
            d = rng.uniform(0, 0.06)
            shares.append([0.25 + d, 0.25, 0.25, 0.25 - d])
        f = fairness(_batched(shares, 3000, seed))  # type: ignore[arg-type]
        assert f is not None
        tiers = f.tiers
        assert sorted(v for g in tiers for v in g) == sorted(v.variant for v in f.variants)
        for i, g in enumerate(tiers):
            for later in tiers[i + 1 :]:
                assert all(f.below(a, b) for a in g for b in later)


def test_the_verdict_and_the_page_say_none_is_fairer_and_fill_delta_seen(tmp_path):
    from simulator.report.files import write_reports
    from simulator.report.model import build

    report = build(_toy({"base": UNEVEN, "same": UNEVEN}))
    line = next(x for x in report.verdict if x.startswith("fairness:"))
    assert line.startswith("fairness: no variant is fairer: both play identical seat shares")
    assert not any(x.startswith("fairest") for x in report.verdict)
    assert "same: identical to base on every deal in its metric" in report.verdict
    write_reports(report, tmp_path)
    page = (tmp_path / "report.html").read_text()
    table = page[page.index('id="fairness"') :]
    table = table[: table.index("</table>")]
    assert '<td class=""></td>' not in table and "<td></td>" not in table
    assert "identical on every deal" in table and "By spread" not in page
    doc = json.loads((tmp_path / "summary.json").read_text())
    assert doc["fairness"]["answer"].startswith("no variant is fairer")
    assert doc["fairness"]["pairs"][0]["verdict"] == "identical"


def test_variants_png_is_small_multiples_readable_at_1400_px(tmp_path):
    from PIL import Image

    from simulator.report.files import write_reports
    from simulator.report.model import build

    write_reports(build(_toy({"base": UNEVEN, "even": EVEN}, trials=1000)), tmp_path)
    with Image.open(tmp_path / "variants.png") as im:
        width, height = im.size
    assert width <= 1400 and height < 1000, (width, height)


def test_figure_text_the_font_lacks_is_replaced_by_what_it_has():
    from simulator.report.drawing import drawable

    assert drawable("no tokens left (⑴, ⑶ and ⑷)") == "no tokens left ((1), (3) and (4))"
    assert drawable("maintenance ③ −0.2 ≤ Δ") == "maintenance ③ −0.2 ≤ Δ"
    assert "\ufffd" not in drawable("\U0001f3b2 die")  # a die emoji: no glyph, no fallback
    assert drawable("\U0001f3b2 die") == "? die"


def test_a_margin_for_a_metric_the_procedure_lacks_is_refused_at_its_line(tmp_path):
    from simulator.scenario import ScenarioError, parse

    text = (
        "name: t\nprocedure: his.field_battle\ntrials: 100\nseed: 1\n"
        "params: {attacker: {units: 4}, defender: {units: 3}}\n"
        "equivalence:\n  proportion: 0.02\n  metrics:\n    atacker_wins: 0.01\n"
    )
    with pytest.raises(ScenarioError) as e:
        parse(text, "t.yaml")
    message = str(e.value)
    assert "t.yaml:9:5: equivalence.metrics.atacker_wins: unknown metric" in message
    assert "did you mean 'attacker_wins'?" in message
    good = parse(text.replace("atacker_wins", "attacker_wins"), "t.yaml")
    assert good.equivalence.proportion == 0.02
    assert good.equivalence.margin("attacker_wins", "proportion") == 0.01
    assert good.equivalence.margin("defender_hits", "mean", sd=2.0) == pytest.approx(0.2)
    assert math.isnan(good.equivalence.margin("defender_hits", "mean"))


def test_fairness_reads_the_same_slots_when_the_report_is_narrowed_to_some_metrics():
    """``--metrics`` narrows the plan's metric list but not the statistics: the seat wins are
    still read from their own slots (they were read from the first metrics' before)."""
    from types import SimpleNamespace

    from simulator.procedures.base import Metric

    r = _batched([[0.30, 0.25, 0.25, 0.20], [0.26, 0.25, 0.25, 0.24]], 2000, 4)
    # A metric ahead of the seat wins, its slots full of something else.
    stats = r.outcome.batch_stats
    ahead = np.full(stats.shape[:2] + (4,), 7, dtype=stats.dtype)
    whole = SimpleNamespace(
        outcome=SimpleNamespace(batch_stats=np.concatenate([ahead, stats], axis=2)),
        plan=SimpleNamespace(
            metrics=(Metric("ahead", "mean", ""), *r.plan.metrics),
            variant_names=r.plan.variant_names,
        ),
        scenario=SimpleNamespace(
            seed=4,
            variants={"v0": None},
            procedure=SimpleNamespace(
                metric_names=lambda p: ["ahead", *(m.name for m in r.plan.metrics)]
            ),
        ),
    )
    narrow = SimpleNamespace(**vars(whole))
    narrow.plan = SimpleNamespace(metrics=r.plan.metrics, variant_names=r.plan.variant_names)
    a, b = fairness(whole), fairness(narrow)  # type: ignore[arg-type]
    assert a is not None and b is not None
    assert b.to_dict() == a.to_dict()
    assert a.variants[0].spread.mean == pytest.approx(0.10, abs=0.03)


def test_sim_compare_of_two_revisions_that_play_the_same_calls_them_identical(tmp_path):
    """Recruitment rules 1.1 and 1.2 differ only where no greedy game goes at this size: the
    comparison says no revision is fairer, ranks nothing, and says why its sizes are zero."""
    from typer.testing import CliRunner

    from simulator.cli import app

    args = [
        "compare",
        "scenarios/recruitment/rules-1.1.yaml",
        "scenarios/recruitment/rules-1.2.yaml",
    ]
    args += ["--trials", "300", "--out", str(tmp_path), "-q"]
    ran = CliRunner().invoke(app, args)
    assert ran.exit_code == 0, ran.stderr
    out = " ".join(ran.stdout.split())
    assert "fairness: no variant is fairer: both play identical seat shares on every deal" in out
    assert "fairest" not in out
    doc = json.loads((tmp_path / "summary.json").read_text())
    f = doc["fairness"]
    assert f["fairest"] == [] and f["tiers"] == [["rules-1.1", "rules-1.2"]]
    tie = f["variants"]["rules-1.2"]["tie"]
    assert tie["verdict"] == "identical" and tie["detectable"] == 0.0 and tie["why"]
    assert tie["margin"] == MARGIN and tie["trials"] == 300
    page = (tmp_path / "report.html").read_text()
    assert "By spread" not in page and "no variant is fairer" in page


def test_the_tournament_page_shows_the_ladder_line_the_terminal_prints(tmp_path):
    import html

    from rich.console import Console

    from simulator.report.files import write_reports
    from simulator.report.model import build
    from simulator.report.terminal import print_tables
    from tests.test_tournament import _scenario

    report = build(run_scenario(_scenario(), trials=16, threads=1))
    write_reports(report, tmp_path)
    console = Console(record=True, width=400)
    print_tables(report, console)
    (line,) = [x for x in console.export_text().splitlines() if x.startswith("Ladder: ")]
    assert " > " in line
    assert html.escape(line.strip()) in (tmp_path / "report.html").read_text()


def test_metrics_that_do_not_move_are_called_identical_or_equivalent_in_the_verdict(tmp_path):
    """The toy's flag: unchanged in one variant (identical on every deal), churned both ways
    with no net change in another (equivalent within 1 pp at 20,000 deals), shifted 3 pp in a
    third (different): each named so, and summary.json carries each finding."""
    from simulator.report.files import write_reports
    from simulator.report.model import build

    def run(**flag: int):
        variants = {"base": toy.ToyParams(), "other": toy.ToyParams(**flag)}
        return build(run_scenario(toy.scenario(variants, 20_000, 8), threads=1))

    same = run(shares=[260_000, 250_000, 250_000, 240_000])
    assert "identical on every deal in every variant: flag" in same.verdict
    churned = run(churn_ppm=100_000)
    assert "equivalent within their margins in every variant: flag ±1.0 pp" in churned.verdict
    tie = churned.grounds.ties["other"]["flag"]
    assert tie.verdict == eq.EQUIVALENT and -0.01 < tie.eq_lo < tie.eq_hi < 0.01
    shifted = run(shift_ppm=30_000)
    assert shifted.grounds.ties["other"]["flag"].verdict == eq.DIFFERENT
    write_reports(churned, tmp_path)
    doc = json.loads((tmp_path / "summary.json").read_text())
    found = doc["equivalence"]["other"]["flag"]
    assert found["verdict"] == "equivalent" and found["margin"] == 0.01
    assert found["trials"] == 20_000 and len(found["interval_90"]) == 2
    assert "equivalent within ±0.01" in (tmp_path / "report.html").read_text()


def test_saved_figures_draw_the_rulebook_numbers_the_font_lacks_as_plain_text(tmp_path):
    from matplotlib.text import Text

    from simulator.report.drawing import new_figure, save_figure

    fig = new_figure(3, 2)
    ax = fig.subplots()
    ax.set_title("zero_tokens: stays (⑴)")
    ax.set_yticks([0], ["1.0 ⑶ / 1.1 ⑷"])
    save_figure(fig, tmp_path / "f.png")
    texts = {t.get_text() for t in fig.findobj(Text)}
    assert "zero_tokens: stays ((1))" in texts and "1.0 (3) / 1.1 (4)" in texts
    assert not any(ch in t for t in texts for ch in "⑴⑶⑷")


def test_a_difference_told_apart_but_inside_the_margin_is_named_so():
    """Two near-even variants on the same deals: the pairing tells a 0.4 pp difference in spread
    apart, and the line says it is inside the 1 pp margin."""
    from simulator.report.model import build

    report = build(_toy({"base": EVEN, "near": [258_000, 250_000, 250_000, 242_000]}, 8000))
    line = report.verdict[0]
    assert line.startswith("fairness: near is fairer than base (seat spread near")
    assert line.endswith("inside ±1.0 pp)"), line
