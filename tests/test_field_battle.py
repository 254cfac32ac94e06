"""Here I Stand field battle (Here I Stand rules §5.4): kernel against its twin and against exact
values."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.engine import make_plan, run_range, simulate
from simulator.procedures import get
from simulator.rng import scenario_key
from tests import naive
from tests.exactness import assert_within_standard_errors
from tests.fold import fold

PROC = get("his.field_battle")


def params(**kw):
    base = {"attacker": {"units": 4, "leader": 2}, "defender": {"units": 3, "leader": 0}}
    base.update(kw)
    return base


@pytest.mark.parametrize(
    "raw",
    [
        params(),
        params(ties_to="attacker", hit_on=4),
        params(attacker={"units": 1, "leader": 0}, defender={"units": 1, "leader": 1}),
        params(defender_extra_dice=0, attacker={"units": 7, "leader": 3}),
        params(attacker={"units": 2, "leader": "none"}, defender={"units": 2, "leader": 0}),
        params(attacker_retreats_to="uncontrolled", defender={"units": 3, "leader": 1}),
        params(defender_retreats_to="uncontrolled", fortress_withdraw=2),
        params(fortress_withdraw=4, defender={"units": 6, "leader": 0}),
        params(
            attacker_retreats_to="uncontrolled",
            defender_retreats_to="uncontrolled",
            leaders_destroyed_in_retreat="escape",
        ),
    ],
)
def test_kernel_equals_plain_python_twin(raw):
    single = {"base": PROC.params_model.model_validate(raw)}
    plan = make_plan(PROC, single, seed=7)
    key = int(scenario_key(7))
    twin = [[naive.his_field_battle(raw, key, t) for t in range(300, 900)]]
    np.testing.assert_array_equal(run_range(plan, -1, 300, 600), fold(plan, twin))


@pytest.mark.parametrize(
    "raw",
    [
        params(),
        params(ties_to="attacker", hit_on=4),
        params(attacker={"units": 1, "leader": 0}, defender={"units": 1, "leader": 1}),
        params(
            defender_retreats_to="uncontrolled",
            fortress_withdraw=1,
            attacker_retreats_to="uncontrolled",
        ),
    ],
)
def test_kernel_with_variants_equals_plain_python_twin(raw):
    variants = {
        "base": PROC.params_model.model_validate(raw),
        "other": PROC.params_model.model_validate({**raw, "defender_extra_dice": 2}),
    }
    plan = make_plan(PROC, variants, seed=99)
    key = int(scenario_key(99))
    first, n = 1000, 700
    got = run_range(plan, -1, first, n)
    twin = [
        [naive.his_field_battle(p.model_dump(), key, t) for t in range(first, first + n)]
        for p in variants.values()
    ]
    np.testing.assert_array_equal(got, fold(plan, twin))


GRID = [(a, al, d, dl) for a in (1, 2, 4) for al in (0, 1) for d in (1, 3) for dl in (0, 2)]


@pytest.mark.parametrize(("a", "al", "d", "dl"), GRID)
def test_estimates_within_five_standard_errors_of_exact(a, al, d, dl):
    p = PROC.params_model.model_validate(
        {"attacker": {"units": a, "leader": al}, "defender": {"units": d, "leader": dl}}
    )
    plan = make_plan(PROC, {"base": p}, seed=1517)
    out = simulate(plan, 40_000, threads=1)
    exact = PROC.exact(p)
    assert_within_standard_errors(plan, out.stats, exact)


def _icepool_battle(a, al, d, dl, extra=1, hit_on=5):
    """The battle written directly in icepool: an independent exact oracle."""
    import icepool

    hit = icepool.d6 >= hit_on
    att = (a + al) @ hit
    dfd = (d + dl + extra) @ hit

    def outcome(ah, dh):
        a_left, d_left = max(a - dh, 0), max(d - ah, 0)
        wins = ah > dh
        if a_left == 0 and d_left == 0:
            a_left, d_left = (1, 0) if wins else (0, 1)
        return int(wins), a_left, d_left

    joint = icepool.map(outcome, att, dfd)
    return {
        "attacker_wins": float(joint.marginals[0].mean()),
        "attacker_units_left": float(joint.marginals[1].mean()),
        "defender_units_left": float(joint.marginals[2].mean()),
    }


@pytest.mark.parametrize(("a", "al", "d", "dl"), [(4, 2, 3, 0), (1, 0, 1, 0), (6, 1, 5, 2)])
def test_exact_values_agree_with_icepool(a, al, d, dl):
    p = PROC.params_model.model_validate(
        {"attacker": {"units": a, "leader": al}, "defender": {"units": d, "leader": dl}}
    )
    ours = PROC.exact(p)
    oracle = _icepool_battle(a, al, d, dl)
    for name, value in oracle.items():
        assert ours[name] == pytest.approx(value, abs=1e-12), name


def test_tie_goes_to_the_defender_unless_the_knob_says_attacker():
    one_v_one = {"attacker": {"units": 1}, "defender": {"units": 1}, "defender_extra_dice": 0}
    by_rules = PROC.exact(PROC.params_model.model_validate(one_v_one))
    knob = PROC.exact(PROC.params_model.model_validate({**one_v_one, "ties_to": "attacker"}))
    # 1 die each: P(attacker hits, defender misses) = 2/9; ties (both or neither) = 5/9.
    assert by_rules["attacker_wins"] == pytest.approx(2 / 9)
    assert knob["attacker_wins"] == pytest.approx(2 / 9 + 5 / 9)


def test_when_both_sides_are_wiped_out_the_winner_keeps_one_unit():
    key = int(scenario_key(5))
    raw = {"attacker": {"units": 1, "leader": 3}, "defender": {"units": 1, "leader": 0}}
    seen = 0
    for t in range(3000):
        wins, ah, dh, a_left, d_left, *_ = naive.his_field_battle(raw, key, t)
        if ah >= 1 and dh >= 1:
            seen += 1
            assert (a_left, d_left) == ((1, 0) if wins else (0, 1))
    assert seen > 100


def test_leader_is_captured_only_when_its_side_has_no_units_left():
    p = PROC.params_model.model_validate(
        {"attacker": {"units": 1, "leader": 1}, "defender": {"units": 5, "leader": 1}}
    )
    e = PROC.exact(p)
    assert e["attacker_leader_captured"] > 0.3
    assert e["defender_leader_captured"] == 0.0  # 2 attacker dice cannot remove 5 units


def test_cross_terms_make_paired_differences_exact():
    """With shared streams the paired difference of a variant with itself is exactly zero."""
    raw = params()
    same = PROC.params_model.model_validate(raw)
    plan = make_plan(PROC, {"base": same, "copy": same}, seed=3)
    stats = run_range(plan, -1, 0, 5000)
    np.testing.assert_array_equal(stats[0], stats[1])
    for m in range(len(plan.metrics)):
        assert stats[1, 4 * m + 3] == stats[0, 4 * m + 2]  # sum x*y == sum x^2


@pytest.mark.parametrize(("dice", "hit_on"), [(1, 5), (4, 5), (11, 5), (7, 2), (46, 6)])
def test_hit_thresholds_reproduce_the_binomial_distribution_of_rolled_dice(dice, hit_on):
    """One word inverted through the thresholds has the distribution of rolling the dice."""
    import icepool

    from simulator.procedures.his.field_battle import hit_thresholds

    t = hit_thresholds(dice, hit_on) + [2**64]
    rolled = dice @ (icepool.d6 >= hit_on)
    for k in range(dice + 1):
        exact = rolled.probability(k)
        assert abs((t[k + 1] - t[k]) / 2**64 - exact) <= 2**-63


def test_more_dice_never_give_fewer_hits_from_the_same_word():
    """Variants are coupled monotonically: the paired comparison sees only the rule's effect."""
    key = int(scenario_key(1))
    for trial in range(200):
        u = naive.word(key, trial, 1)
        hits = [naive.binomial_hits(u, n, 5) for n in range(1, 12)]
        assert hits == sorted(hits)


def test_a_leader_rated_0_is_captured_and_none_means_no_leader():
    # Here I Stand rules §5.4 ⑥: a side that lost every unit and has a leader loses it; the rating
    # is not the question. Three units against one: the lone attacker is often wiped out.
    rated_0 = PROC.params_model.model_validate(
        {"attacker": {"units": 1, "leader": 0}, "defender": {"units": 3}}
    )
    nobody = PROC.params_model.model_validate({"attacker": {"units": 1}, "defender": {"units": 3}})
    # By hand: the attacker (1 die) is wiped out when the defender (4 dice) hits at least once
    # and the attacker does not win (winning needs its one hit against none).
    p_def_hits = 1 - (2 / 3) ** 4
    assert PROC.exact(rated_0)["attacker_leader_captured"] == pytest.approx(p_def_hits, abs=1e-12)
    assert PROC.exact(nobody)["attacker_leader_captured"] == 0
    for p, want in ((rated_0, p_def_hits), (nobody, 0.0)):
        plan = make_plan(PROC, {"base": p}, seed=41)
        out = simulate(plan, 40_000, threads=1)
        assert_within_standard_errors(
            plan, out.stats, {"attacker_leader_captured": want}, partial=True
        )


def test_both_sides_wiped_out_by_hand():
    # One unit each, no leaders, no extra die: both hit with probability 1/9.
    p = PROC.params_model.model_validate(
        {"attacker": {"units": 1}, "defender": {"units": 1}, "defender_extra_dice": 0}
    )
    assert PROC.exact(p)["both_wiped_out"] == pytest.approx(1 / 9, abs=1e-12)
    plan = make_plan(PROC, {"base": p}, seed=3)
    out = simulate(plan, 60_000, threads=1)
    assert_within_standard_errors(plan, out.stats, {"both_wiped_out": 1 / 9}, partial=True)


def _scenario(params_yaml, extra=""):
    return (
        "name: f\nprocedure: his.field_battle\ntrials: 10\nseed: 1\nparams:\n" + params_yaml + extra
    )


def test_validation_refuses_an_attack_by_more_than_one_formation():
    # Here I Stand rules §5.2: without a leader at most 4 units; §5.4: one formation attacks.
    from simulator.scenario import ScenarioError, parse

    with pytest.raises(ScenarioError) as err:
        parse(_scenario("  attacker: {units: 5}\n  defender: {units: 9}\n"), "f.yaml")
    (problem,) = err.value.problems
    assert (problem.line, problem.path) == (6, "params.attacker.units")
    assert "at most 4 units" in problem.message
    # The defender fights with every unit in the space: 9 defenders are fine.
    assert parse(_scenario("  attacker: {units: 4}\n  defender: {units: 9}\n"), "f.yaml")
    # Two leaders: the two highest command ratings summed (Francis I + Montmorency = 14).
    ok = "  attacker: {units: 14, leader: 1, command: 14}\n  defender: {units: 9}\n"
    assert parse(_scenario(ok), "f.yaml")
    with pytest.raises(ScenarioError, match="at most 14 units"):
        parse(_scenario(ok.replace("units: 14", "units: 15")), "f.yaml")
    lifted = _scenario(
        "  attacker: {units: 9}\n  defender: {units: 9}\n", "  formation_cap: false\n"
    )
    assert parse(lifted, "f.yaml")


def test_a_sweep_marks_its_illegal_cells_and_shows_them_as_illegal():
    from rich.console import Console

    from simulator.report import sweep
    from simulator.runner import run_scenario
    from simulator.scenario import parse

    text = (
        "name: t\nprocedure: his.field_battle\ntrials: 2000\nseed: 1\nparams:\n"
        "  attacker: {leader: none}\n  defender: {leader: none}\n"
        "sweep:\n  attacker.units: [3, 4, 5]\n  defender.units: [1, 2]\n"
    )
    scenario = parse(text, "t.yaml")
    assert [bool(pt.illegal) for pt in scenario.points] == [False] * 4 + [True] * 2
    assert "at most 4 units" in scenario.points[-1].illegal
    result = run_scenario(scenario, threads=1)
    g = sweep.grid(result, "attacker_wins", "base")
    assert g.loc["5"].isna().all() and g.loc["4"].notna().all()
    console = Console(record=True, width=120)
    sweep.print_tables(result, console)
    text_out = console.export_text()
    assert text_out.count("illegal") >= 2 and "2 of 6 points are illegal" in text_out
    doc = result.document()
    assert [("illegal" in p) for p in doc["points"]] == [False] * 4 + [True] * 2
    frame = sweep.frame(result)
    assert set(frame[frame["attacker.units"] == 5]["illegal"]) == {scenario.points[-1].illegal}


# The rule branches on the KERNEL against values worked out by hand from the rule text (the tests
# above check some of them on exact() or the twin only).


def _kernel_near(raw: dict, want: dict, trials: int = 40_000, seed: int = 29) -> None:
    p = PROC.params_model.model_validate(raw)
    plan = make_plan(PROC, {"base": p}, seed=seed)
    out = simulate(plan, trials, threads=1)
    assert_within_standard_errors(plan, out.stats, want, partial=True)


ONE_V_ONE = {"attacker": {"units": 1}, "defender": {"units": 1}, "defender_extra_dice": 0}


def test_kernel_gives_a_tie_to_the_defender():
    # One die each: the attacker wins only by hitting while the defender misses: 1/3 * 2/3.
    _kernel_near(ONE_V_ONE, {"attacker_wins": 2 / 9})


def test_kernel_gives_a_tie_to_the_attacker_when_the_knob_says_so():
    _kernel_near({**ONE_V_ONE, "ties_to": "attacker"}, {"attacker_wins": 2 / 9 + 5 / 9})


def test_kernel_hits_on_five_or_six():
    # 4 attacker dice, 3 + 1 defender dice: a third of them hit.
    raw = {"attacker": {"units": 4}, "defender": {"units": 3}}
    _kernel_near(raw, {"attacker_hits": 4 / 3, "defender_hits": 4 / 3})


def test_kernel_gives_the_defender_its_extra_die():
    raw = {"attacker": {"units": 1}, "defender": {"units": 1}}
    _kernel_near(raw, {"defender_hits": 2 / 3})


def test_kernel_keeps_one_unit_for_the_winner_when_both_sides_are_wiped_out():
    # One unit each, both hit (1/9): a tie, which the defender wins, so the defender keeps one.
    # The attacker keeps its unit only when the defender misses (2/3); the defender keeps its
    # unit when the attacker misses (2/3) and after the double wipe-out (1/9).
    _kernel_near(ONE_V_ONE, {"attacker_units_left": 2 / 3, "defender_units_left": 7 / 9})


def test_by_default_the_loser_retreats_to_a_space_it_controls_and_keeps_its_units():
    # Here I Stand rules §5.4 ⑤: the retreat destroys only a side retreating into a space it does
    # not control; by default both retreat spaces are controlled and there is no fortress.
    p = PROC.params_model.model_validate(params())
    e = PROC.exact(p)
    assert e["attacker_units_after_retreat"] == pytest.approx(e["attacker_units_left"], abs=1e-12)
    assert e["defender_units_after_retreat"] == pytest.approx(e["defender_units_left"], abs=1e-12)
    for name in ("attacker_destroyed_in_retreat", "defender_destroyed_in_retreat"):
        assert e[name] == 0.0
    assert e["defender_units_in_fortress"] == 0.0


def test_a_beaten_attacker_retreating_into_a_space_it_does_not_control_is_destroyed_by_hand():
    # One unit and one die each (no extra die, no leaders): a hit on 5-6, p = 1/3. The attacker
    # wins only with a hit against none (2/9). It loses with its unit left when the defender
    # misses: a tie of misses (4/9); that unit is then destroyed.
    one = {"attacker": {"units": 1}, "defender": {"units": 1}, "defender_extra_dice": 0}
    home = PROC.params_model.model_validate(one)
    away = PROC.params_model.model_validate({**one, "attacker_retreats_to": "uncontrolled"})
    by_hand = {
        home: {"attacker_destroyed_in_retreat": 0, "attacker_units_after_retreat": 2 / 3},
        away: {"attacker_destroyed_in_retreat": 4 / 9, "attacker_units_after_retreat": 2 / 9},
    }
    for p, want in by_hand.items():
        for name, value in want.items():
            assert PROC.exact(p)[name] == pytest.approx(value, abs=1e-12), name
        plan = make_plan(PROC, {"base": p}, seed=1525)
        out = simulate(plan, 40_000, threads=1)
        assert_within_standard_errors(plan, out.stats, PROC.exact(p))
        assert_within_standard_errors(plan, out.stats, want, partial=True)


def _icepool_after_retreat(a, d, dl, withdraw, cut_off):
    """The defender's units after §5.4 ⑤ and §5.6, written directly in icepool: units left
    after the dice; beaten, up to ``withdraw`` go inside, the rest retreat, destroyed if
    ``cut_off`` (no space it controls)."""
    import icepool

    hit = icepool.d6 >= 5
    att, dfd = a @ hit, (d + dl + 1) @ hit

    def outcome(ah, dh):
        d_left = max(d - ah, 0)
        if max(a - dh, 0) == 0 and d_left == 0:
            d_left = 0 if ah > dh else 1
        if ah <= dh:  # the defender won: no retreat
            return d_left, 0, 0
        inside = min(d_left, withdraw)
        if cut_off and d_left > inside:
            return inside, inside, 1
        return d_left, inside, 0

    joint = icepool.map(outcome, att, dfd)
    after = joint.marginals[0]
    return {
        "defender_units_after_retreat": float(after.mean()),
        "defender_units_in_fortress": float(joint.marginals[1].mean()),
        "defender_destroyed_in_retreat": float(joint.marginals[2].mean()),
        "defender_leader_captured": float(after.probability(0)),
    }


@pytest.mark.parametrize(
    ("withdraw", "retreat"),
    [(0, "uncontrolled"), (2, "uncontrolled"), (4, "uncontrolled"), (4, "controlled")],
)
def test_a_beaten_defender_withdraws_up_to_four_into_the_fortress_and_retreats_the_rest(
    withdraw, retreat
):
    # Here I Stand rules §5.6: beaten in a fortified space, the defender may put up to 4 units
    # inside and retreat the rest (§5.4 ⑤: destroyed when it controls no space to go to). Seven
    # attackers against six defenders with a leader: icepool gives the exact values.
    raw = {
        "attacker": {"units": 7},
        "defender": {"units": 6, "leader": 1},
        "fortress_withdraw": withdraw,
        "defender_retreats_to": retreat,
        "formation_cap": False,
    }
    p = PROC.params_model.model_validate(raw)
    oracle = _icepool_after_retreat(7, 6, 1, withdraw, retreat == "uncontrolled")
    ours = PROC.exact(p)
    for name, value in oracle.items():
        assert ours[name] == pytest.approx(value, abs=1e-12), name
    plan = make_plan(PROC, {"base": p}, seed=1529)
    out = simulate(plan, 40_000, threads=1)
    assert_within_standard_errors(plan, out.stats, ours)
    if withdraw == 0 and retreat == "uncontrolled":
        assert ours["defender_destroyed_in_retreat"] > 0.3  # the case the knob is about arises


def test_leaders_of_an_army_destroyed_in_its_retreat_are_captured_unless_they_escape():
    # §5.4 ⑥ read after ⑤ (the default): a side whose retreat destroyed its last units has lost
    # all its units and its leader. One unit each with leaders rated 0, no extra die: the attacker
    # loses its unit to a defender hit (1/3), or loses the battle with its unit and is destroyed
    # retreating (a tie of misses, 4/9): 1/3 + 4/9 = 7/9. If leaders escape a retreat: 1/3.
    one = {
        "attacker": {"units": 1, "leader": 0},
        "defender": {"units": 1, "leader": 0},
        "defender_extra_dice": 0,
        "attacker_retreats_to": "uncontrolled",
    }
    captured = PROC.params_model.model_validate(one)
    escape = PROC.params_model.model_validate({**one, "leaders_destroyed_in_retreat": "escape"})
    assert PROC.exact(captured)["attacker_leader_captured"] == pytest.approx(7 / 9, abs=1e-12)
    assert PROC.exact(escape)["attacker_leader_captured"] == pytest.approx(1 / 3, abs=1e-12)
    for p in (captured, escape):
        plan = make_plan(PROC, {"base": p}, seed=1521)
        out = simulate(plan, 40_000, threads=1)
        assert_within_standard_errors(plan, out.stats, PROC.exact(p))
