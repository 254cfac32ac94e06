"""Recruitment's rule cases and revisions as presets of them (issue 29 item 1).

Each case's options on the kernel's own ownership check beside the plain-Python twin (the first
placer gains a multi-tie, removed tokens go back to the supply, a character stays at zero tokens,
the equipment either way); whole games kernel == twin under every new option and a scenario's own
revision; a revision is its preset of cases, trial for trial.
"""

from __future__ import annotations

import numpy as np
import pytest

from simulator.engine import make_plan, run_range
from simulator.procedures.recruitment.loyalty import state as S
from simulator.procedures.recruitment.loyalty.game import GAME
from simulator.procedures.recruitment.loyalty.ownership import ownership_check
from simulator.procedures.recruitment.loyalty.packing import pack
from simulator.procedures.recruitment.loyalty.phases import PASS, pay_wages
from simulator.rng import scenario_key
from tests import naive_recruitment as nr
from tests.fold import fold
from tests.recruitment_positions import kernel_state, owned, params, position
from tests.test_recruitment_loyalty import (
    PROC,
    REVISIONS,
    assert_same,
    counter,
    mean,
    placement_game,
    run_ownership,
    status,
    tok,
    validated,
)

#: The rule cases' new options, set on a revision and gathered in a scenario's own revision.
CASE_VARIANTS = {
    "first_placed": {"revision": "1.1", "multi_tie": "first_placed"},
    "zero_stays": {"revision": "1.0", "zero_tokens": "stays"},
    "removed_to_supply": {"revision": "1.2", "removed_tokens": "supply"},
    "own_revision": {
        "revisions": {
            "1.3": {"based_on": "1.2", "multi_tie": "first_placed"},
            "1.3b": {"based_on": "1.3", "equipment": "kept", "zero_tokens": "stays"},
        },
        "revision": "1.3b",
    },
}


@pytest.mark.parametrize("policies", ["random", ["greedy", "random", "greedy", "random"]])
def test_kernel_equals_plain_python_twin_under_the_cases_new_options(policies):
    raw = {"players": 4, "rounds": 8, "policies": policies, "debug": True}
    variants = {k: validated(**raw, **v) for k, v in CASE_VARIANTS.items()}
    plan = make_plan(PROC, variants, seed=5)
    key = int(scenario_key(5))
    n = 80 if policies == "random" else 40
    got = run_range(plan, -1, 0, n)
    twin = [[nr.play(p.model_dump(), key, t) for t in range(n)] for p in variants.values()]
    np.testing.assert_array_equal(got, fold(plan, twin))
    if policies == "random":
        # Random play ties rivals above owners: each new option is reached.
        assert mean(plan, got, 0, "given_multi_tie") > 0
        assert mean(plan, got, 1, "gap_zero_tie") > 0
        assert mean(plan, got, 1, "removed_no_tokens") == 0
        assert mean(plan, got, 2, "removed_multi_tie") > 0
        assert mean(plan, got, 3, "given_multi_tie") > 0
    for v in range(len(variants)):
        assert mean(plan, got, v, "invariant_violations") == 0


def test_a_revision_is_its_preset_of_cases_trial_for_trial():
    # revision 1.1 == the same cases set one by one on 1.0 == a scenario's own preset based on 1.1
    # that changes nothing: the same packed row, so the same games.
    by_hand = validated(revision="1.0", multi_tie="removed", equipment="kept")
    own = validated(revisions={"mine": {"based_on": "1.1"}}, revision="mine")
    for other in (by_hand, own):
        np.testing.assert_array_equal(pack(other), pack(validated(revision="1.1")))
    assert validated(revision="1.2").rule_cases() == {
        "multi_tie": "removed",
        "zero_tokens": "removed",
        "equipment": "discarded",
        "removed_tokens": "bank",
    }
    for revision, cases in nr.PRESETS.items():
        assert validated(revision=revision).rule_cases() == cases, revision


def test_a_case_set_in_the_params_overrides_the_revision_and_its_own_presets():
    p = validated(
        revisions={"1.3": {"based_on": "1.2", "multi_tie": "first_placed"}},
        revision="1.3",
        multi_tie="stays",
    )
    assert p.rule_cases()["multi_tie"] == "stays"
    assert p.rule_cases()["equipment"] == "discarded"
    assert nr.cases_of(p.model_dump()) == p.rule_cases()


def test_with_removed_tokens_supply_removed_tokens_go_back_to_their_empires_supply():
    # Lost tokens still go to the bank (returned_tokens), removed ones to the supply.
    _, s = run_ownership("1.1", [owned(0, [1, 2, 2])], removed_tokens="supply")
    assert [int(s[S.S_SUPPLY + e]) for e in range(3)] == [20, 20, 20]
    assert [int(s[S.S_BANK + e]) for e in range(3)] == [0, 0, 0]
    assert [counter(s, "tokens_lost", e) for e in range(3)] == [1, 2, 2]
    assert counter(s, "removed_multi_tie", 0) == 1


def test_with_returned_tokens_supply_only_lost_tokens_skip_the_bank():
    cards = [owned(0, [1, 2, 2]), owned(1, [0, 1, 0], wage=5)]
    game = position(
        params(players=3, revision="1.1", returned_tokens="supply"), cards, gold=[0] * 3
    )
    s = kernel_state(game)
    pay_wages(s)  # card 1's wage goes unpaid: its owner loses a token, to the supply
    ownership_check(s)  # card 0 is removed: its tokens to the bank (removed_tokens: bank)
    game.pay_wages()
    game.ownership_check()
    assert_same(game, s)
    assert [int(s[S.S_BANK + e]) for e in range(3)] == [1, 2, 2]
    assert int(s[S.S_SUPPLY + 1]) == 20 - 2 - 1 + 1


@pytest.mark.parametrize(("first", "gainer"), [([2, 1], 2), ([1, 2], 1), ([0, 2, 1], 2)])
def test_multi_tie_first_placed_gives_the_character_to_the_tied_rival_who_placed_first(
    first, gainer
):
    # Empires 1 and 2 tie above owner 0; the one whose first token came first gains it, with
    # every token (empire 0 placed too, in the third case, and is not a rival).
    card = owned(0, [1, 2, 2], equipped=1)
    card.first = first
    _, s = run_ownership("1.2", [card], multi_tie="first_placed")
    assert status(s, 0) == gainer
    assert [tok(s, 0, e) for e in range(3)] == [1, 2, 2]
    assert counter(s, "given_multi_tie", 0) == 1 and counter(s, "defections", 0) == 1
    assert counter(s, "removed_multi_tie", 0) == 0 and counter(s, "gap_multi_tie", 0) == 0


def first_order(s, c):
    order, seats = int(s[S.S_FIRST_PLACED + c]), []
    while order:
        seats.append((order & 7) - 1)
        order >>= 3
    return seats


@pytest.mark.parametrize(("multi_tie", "want"), [("first_placed", [2, 0, 1]), ("removed", [])])
def test_the_first_placement_order_is_kept_as_tokens_are_placed_only_under_first_placed(
    multi_tie, want
):
    game = placement_game(multi_tie=multi_tie)
    s = kernel_state(game)
    rng = np.array([1], dtype=np.uint64)
    # Seats 0, 1, 2, 0, 1, 2 to move: seats 2, 0 and 1 place their first tokens on card 0 in
    # that order, then seat 2 a second one.
    for move in (PASS, PASS, 0, 0, 0, 0):
        game.apply(nr.PASS if move == PASS else move)
        GAME.apply_move(s, move, rng)
    assert first_order(s, 0) == want
    assert game.cards[0].first == want
    assert tok(s, 0, 2) == 2


@pytest.mark.parametrize("revision", REVISIONS)
def test_zero_tokens_stays_keeps_a_character_with_no_tokens_left(revision):
    _, s = run_ownership(revision, [owned(2, [0, 0, 0], equipped=2)], zero_tokens="stays")
    assert status(s, 0) == 2
    assert counter(s, "gap_zero_tie", 2) == 1 and counter(s, "removed_no_tokens", 2) == 0
    assert counter(s, "equipment_discarded", 2) == 0 and counter(s, "gap_equipped", 2) == 0


@pytest.mark.parametrize(("equipment", "discarded", "gap"), [("kept", 0, 1), ("discarded", 3, 0)])
def test_the_equipment_case_overrides_the_revisions(equipment, discarded, gap):
    for revision in REVISIONS[1:]:
        _, s = run_ownership(revision, [owned(0, [1, 2, 2], equipped=3)], equipment=equipment)
        assert counter(s, "equipment_discarded", 0) == discarded
        assert counter(s, "gap_equipped", 0) == gap


def test_a_comparison_with_a_revision_of_ones_own_says_how_often_its_changed_cases_arose():
    # rules-1.1 against the designer's 1.3 (1.2 with multi_tie: first_placed): the verdict reads
    # the revisions through their cases, equipment (1.2's) and multi_tie (1.3's own); greedy
    # never ties two rivals above an owner, so the multi-tie case arose 0 times.
    from pathlib import Path

    from simulator.compare import run_compare
    from simulator.report.grounds import cases

    root = Path(__file__).resolve().parents[1]
    files = [
        root / "scenarios" / "recruitment" / "rules-1.1.yaml",
        root / "docs" / "examples" / "revision-1.3.yaml",
    ]
    result, _ = run_compare(files, trials=300)
    found = {c.knob: c for c in cases(result)}
    assert set(found) == {"equipment", "multi_tie"}
    assert found["multi_tie"].metrics == ["given_multi_tie", "removed_multi_tie"]
    assert found["multi_tie"].never and not found["equipment"].never
