"""The council game's kernel over whole games: invariants over thousands of games, the kernel
against its plain-Python twin, inconsistent data rejected by name, and the rows it writes (the
metric row, the flat position). The rules on hand-built positions: tests/test_council_phases.py,
tests/test_council_mercenaries.py and the other test_council files."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from pydantic import ValidationError

from simulator.engine import make_plan, run_range
from simulator.procedures.council.game.kernel import invariant_violations, play_one
from simulator.procedures.council.game.params import (
    DEFAULT_CHARACTERS,
    DEFAULT_LANDS,
    MAX_PLAYERS,
    METRICS,
    metric_slot,
    pack,
)
from simulator.procedures.council.game.setup import violations
from simulator.procedures.council.game.state import N_COL, POSITION, POSITION_SIZE, SUPPLY, TOKENS
from simulator.rng import scenario_key
from tests import naive_council
from tests.council_positions import BLUE, P_COINS, PROC, RED, land, on_land, position
from tests.fold import fold

# --- Invariants --------------------------------------------------------------------------------


@pytest.mark.parametrize("policies", ["random", ["greedy", "random", "greedy", "random"]])
def test_tokens_coins_population_and_seats_stay_consistent_over_thousands_of_games(policies):
    p = PROC.params_model(policies=policies)
    n = 3000 if policies == "random" else 1000
    assert invariant_violations(pack(p), scenario_key(77), 0, n) == 0


def test_the_invariant_audit_catches_a_token_out_of_nowhere():
    s = position(players=3)
    assert violations(s.state) == 0
    s.tok[RED, land("Zalesye")] += 1  # not taken from the supply
    assert violations(s.state) == 1
    s.pl[BLUE, P_COINS] += 2  # coins from nowhere
    assert violations(s.state) == 2


def test_without_mercenaries_nobody_is_killed_and_no_card_is_played():
    p = PROC.params_model(mercenaries=False, max_turns=15)
    plan = make_plan(PROC, {"base": p}, seed=3)
    stats = run_range(plan, -1, 0, 300)
    for m, metric in enumerate(plan.metrics):
        if metric.name.startswith("mercenaries_played") or metric.name in (
            "characters_killed",
            "victory.hand_of_order",
        ):
            assert stats[0, 4 * m + 1] == 0, metric.name


# --- Kernel against the plain-Python twin ------------------------------------------------------


def _cowardly_characters() -> list[dict]:
    chars = [dict(c) for c in DEFAULT_CHARACTERS]
    for i in (1, 5, 8):
        chars[i]["traits"] = [*chars[i]["traits"], "cowardly"]
    return chars


def _far_garrison() -> list[dict]:
    lands = [dict(x) for x in DEFAULT_LANDS]
    lands[6] = {
        "name": "Far Garrison",
        "size": 6,
        "civilians": 2,
        "soldiers": 3,
        "power": "the mood does not touch it",
        "effect": "mood_immune",
    }
    return lands


@pytest.mark.parametrize(
    ("raw", "n"),
    [
        ({}, 100),
        ({"policies": ["greedy", "greedy", "random", "greedy"], "max_turns": 15}, 30),
        ({"players": 3, "mood_start": -2, "start_tokens": 5, "max_turns": 25}, 60),
        ({"players": 6, "policies": ["greedy"] * 6, "max_turns": 8}, 16),
        ({"mood_start": -3, "characters": "cowardly", "lands": "garrison", "max_turns": 20}, 40),
        (
            {
                "mood_start": -2,
                "characters": "cowardly",
                "lands": "garrison",
                "cowardly_leaves": "income",
                "max_turns": 20,
            },
            30,
        ),
        (
            {
                "start_laws": 3,
                "head_appointment": "phase_start",
                "spending_ties": "seat",
                "max_hand": 2,
                "mercenary_deck": 6,
                "max_buys": 3,
                "max_turns": 20,
            },
            40,
        ),
        ({"policies": "greedy", "max_hand": None, "max_buys": None, "max_turns": 20}, 30),
    ],
)
def test_kernel_equals_plain_python_twin(raw, n):
    if raw.get("characters") == "cowardly":
        raw = {**raw, "characters": _cowardly_characters(), "lands": _far_garrison()}
        raw["characters"][10]["seat"] = "Far Garrison"
    base = PROC.params_model.model_validate(raw)
    other = PROC.params_model.model_validate({**raw, "remove_councillor_votes": 4, "tax_rate": 2.0})
    variants = {"base": base, "four-of-seven": other}
    plan = make_plan(PROC, variants, seed=2002)
    key = int(scenario_key(2002))
    first = 500
    got = run_range(plan, -1, first, n)
    twin = [
        [naive_council.play(v.model_dump(), key, t) for t in range(first, first + n)]
        for v in variants.values()
    ]
    np.testing.assert_array_equal(got, fold(plan, twin))


def test_the_twin_and_the_kernel_end_a_game_in_the_same_position():
    p = PROC.params_model(policies=["greedy", "random", "random", "greedy"])
    key = int(scenario_key(11))
    for trial in range(20):
        game = naive_council.play_game(p.model_dump(), key, trial)
        assert game.values() == play_one(p, key, trial)
        assert all(x >= 0 for x in game.coins) and game.treasury >= 0


# --- Inconsistent data ----------------------------------------------------------------------------


def _lands(**change):
    lands = [dict(x) for x in DEFAULT_LANDS]
    lands[2].update(change)
    return lands


def test_a_land_with_more_population_than_cells_is_rejected_naming_it():
    with pytest.raises(ValidationError) as err:
        PROC.params_model(lands=_lands(civilians=5, soldiers=3))
    e = err.value.errors()[0]
    assert e["loc"] == ("lands", 2, "soldiers")
    assert "must be at most size (6)" in e["msg"]


def test_an_unknown_trait_is_rejected_naming_the_character():
    chars = [dict(c) for c in DEFAULT_CHARACTERS]
    chars[4]["traits"] = ["thrifty", "sneaky"]
    with pytest.raises(ValidationError) as err:
        PROC.params_model(characters=chars)
    e = err.value.errors()[0]
    assert e["loc"] == ("characters", 4, "traits")
    assert "unknown trait 'sneaky'" in e["msg"]


def test_fewer_than_seven_lands_are_rejected():
    with pytest.raises(ValidationError) as err:
        PROC.params_model(lands=DEFAULT_LANDS[:6])
    e = err.value.errors()[0]
    assert e["loc"] == ("lands",)
    assert "exactly 7 Lands, got 6" in e["msg"]


def test_two_characters_in_one_seat_are_rejected():
    chars = [dict(c) for c in DEFAULT_CHARACTERS]
    chars[1]["seat"] = "warlord"
    with pytest.raises(ValidationError) as err:
        PROC.params_model(characters=chars)
    assert err.value.errors()[0]["loc"] == ("characters",)
    assert "both start in seat 'warlord'" in err.value.errors()[0]["msg"]


def test_metric_names_cover_seats_victories_mercenaries_and_gaps():
    names = PROC.metric_names(PROC.params_model(players=5))
    assert names[:5] == [f"wins.seat{k}" for k in range(1, 6)]
    for v in ("election", "coup", "will_of_people", "hand_of_order", "draw"):
        assert f"victory.{v}" in names
    assert "length" in names and "decided_at" in names and "contested_lands" in names
    assert "mercenaries_played.assassin" in names and "gap.removal_four_votes" in names
    assert len(names) == len(PROC.metrics(PROC.params_model(players=5)))


@pytest.mark.parametrize("players", [3, 4, 6])
def test_the_metric_row_is_written_by_the_names_of_metrics(players):
    """game_values writes by name into params.METRICS; the slot reported as metric k is named as
    metric k: a family's (``wins.seat3``, ``victory.coup``) by its piece and its place in the
    family (``wins[2]``, ``victory[1]``), any other by its own name."""
    names = [m.name for m in PROC.metrics(PROC.params_model(players=players))]
    slots = METRICS.slots()
    in_family: Counter[str] = Counter()
    for k, name in enumerate(names):
        slot = slots[metric_slot(k, players)]
        family, dot, _ = name.partition(".")
        expected = f"{family}[{in_family[family]}]" if dot else name
        in_family[family] += 1
        assert slot == expected
    assert slots[metric_slot(players, players)] == "victory[0]"  # victory.election
    assert len(slots) == MAX_PLAYERS + len(names) - players


def test_the_position_is_one_flat_array_of_declared_pieces():
    s = position(players=4)
    assert s.state.shape == (POSITION.size,) and s.state.dtype == np.int64
    assert POSITION.at("tokens") == TOKENS and POSITION.size == POSITION_SIZE
    on_land(s, BLUE, "Zalesye", 2)  # the table views write the flat array
    assert s.state[TOKENS + BLUE * N_COL + land("Zalesye")] == 2
    assert s.state[SUPPLY + BLUE] == s.p.tokens_per_player - 2


@pytest.mark.parametrize(
    ("old", "new", "where"),
    [
        (
            "{name: Brown Plains, size: 6, civilians: 4, soldiers: 1,",
            "{name: Brown Plains, size: 6, civilians: 4, soldiers: 3,",
            "params.lands[2].soldiers",
        ),
        (
            "traits: [thrifty, collector]",
            "traits: [thrifty, sneaky]",
            "params.characters[4].traits",
        ),
    ],
)
def test_sim_validate_exits_2_naming_the_inconsistent_entry(tmp_path, old, new, where):
    from pathlib import Path

    from typer.testing import CliRunner

    from simulator.cli import app

    text = (Path(__file__).resolve().parents[1] / "scenarios/council/game.yaml").read_text()
    assert old in text
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace(old, new))
    result = CliRunner().invoke(app, ["validate", str(bad)])
    assert result.exit_code == 2
    line = next(i for i, s in enumerate(text.splitlines(), 1) if old in s)
    assert f"bad.yaml:{line}:" in result.output and where in result.output
