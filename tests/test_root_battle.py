"""Root battle (Root rules §1.5): one test per rule, the kernel against its twin and exact values.

Hand values use the two Root dice: the high die H has P(H=k) = (2k+1)/16, the low die L has
P(L=k) = (7-2k)/16 for k = 0..3, so E[H] = 34/16 and E[L] = 14/16.
"""

from __future__ import annotations

from fractions import Fraction

import icepool
import numpy as np
import pytest
from pydantic import ValidationError

from simulator.engine import make_plan, run_range
from simulator.procedures import get
from simulator.procedures.root.battle import outcomes
from simulator.rng import scenario_key
from tests import naive_root
from tests.fold import fold

PROC = get("root.battle")
ROOT_DIE = icepool.d4 - 1
HIGH = icepool.highest(ROOT_DIE, ROOT_DIE)
LOW = icepool.lowest(ROOT_DIE, ROOT_DIE)
E_HIGH = 34 / 16
E_LOW = 14 / 16


def validate(raw: dict):
    return PROC.params_model.model_validate(raw)


def estimate(raw: dict, trials: int = 20_000, seed: int = 404):
    """Kernel means and standard errors per metric, and the histograms of distributions."""
    plan = make_plan(PROC, {"base": validate(raw)}, seed)
    stats = run_range(plan, -1, 0, trials)[0]
    out = {}
    hists = {}
    for m, metric in enumerate(plan.metrics):
        n, s, ss = (int(x) for x in stats[4 * m : 4 * m + 3])
        mean = s / n
        var = max((n * ss - s * s) / (n * (n - 1)), 0.0)
        out[metric.name] = (mean, np.sqrt(var / n))
        if plan.hist_offset[m] >= 0:
            off = plan.hist_offset[m]
            hists[metric.name] = stats[off : off + plan.hist_max[m] + 1] / n
    return out, hists


def assert_near(est, name, value):
    mean, se = est[name]
    assert abs(mean - value) <= 5 * se + 1e-12, (name, mean, value, se)


def battle(attacker: dict, defender: dict, **kw) -> dict:
    return {"attacker": attacker, "defender": defender, **kw}


MARQUISE5 = {"warriors": 5, "faction": "marquise"}


# --- the roll -----------------------------------------------------------------------------------


def test_attacker_takes_the_high_die_and_defender_the_low():
    est, _ = estimate(battle(MARQUISE5, {"warriors": 5, "faction": "eyrie"}))
    assert_near(est, "defender_warriors_lost", E_HIGH)
    assert_near(est, "attacker_warriors_lost", E_LOW)


def test_defending_alliance_takes_the_high_die():
    est, _ = estimate(battle(MARQUISE5, {"warriors": 5, "faction": "alliance"}))
    assert_near(est, "defender_warriors_lost", E_LOW)
    assert_near(est, "attacker_warriors_lost", E_HIGH)


def test_attacking_alliance_still_takes_the_high_die():
    est, _ = estimate(battle({"warriors": 5, "faction": "alliance"}, MARQUISE5))
    assert_near(est, "defender_warriors_lost", E_HIGH)


# --- hit caps and extra hits --------------------------------------------------------------------


def test_hits_are_capped_by_warriors_in_the_clearing():
    est, hists = estimate(battle({"warriors": 1}, {"warriors": 5}))
    capped = HIGH.map(lambda h: min(h, 1))
    assert_near(est, "defender_warriors_lost", float(capped.mean()))
    assert hists["defender_warriors_lost"][2:].sum() == 0


def test_vagabond_hits_capped_by_undamaged_swords():
    for swords in (1, 2):
        vagabond = {"faction": "vagabond", "vagabond_swords": swords}
        est, hists = estimate(battle(vagabond, {"warriors": 5}))
        capped = HIGH.map(lambda h, s=swords: min(h, s))
        assert_near(est, "defender_warriors_lost", float(capped.mean()))
        assert hists["defender_warriors_lost"][swords + 1 :].sum() == 0


def test_defenceless_defender_takes_an_extra_hit():
    # No defending warriors: hits are the high die plus one; the attacker loses nothing.
    est, _ = estimate(battle({"warriors": 3}, {"buildings": 2}))
    assert_near(est, "buildings_removed", float((HIGH + 1).map(lambda h: min(h, 2)).mean()))
    assert est["attacker_warriors_lost"][0] == 0


def test_vagabond_without_a_sword_takes_an_extra_hit():
    armed = {"faction": "vagabond", "vagabond_swords": 1, "vagabond_items": 6}
    unarmed = {"faction": "vagabond", "vagabond_swords": 0, "vagabond_items": 6}
    est, _ = estimate(battle(MARQUISE5, armed))
    assert_near(est, "defender_items_damaged", E_HIGH)
    est, _ = estimate(battle(MARQUISE5, unarmed))
    assert_near(est, "defender_items_damaged", E_HIGH + 1)


def test_extra_hits_ignore_the_cap():
    est, _ = estimate(battle({"warriors": 1, "extra_hits": 2}, {"warriors": 5}))
    assert_near(est, "defender_warriors_lost", 15 / 16 + 2)
    est, _ = estimate(battle(MARQUISE5, {"warriors": 1, "extra_hits": 1}))
    assert_near(est, "attacker_warriors_lost", 9 / 16 + 1)


def test_corvids_defending_with_a_face_down_plot_deal_an_extra_hit():
    corvids = {"warriors": 1, "tokens": 1, "faction": "corvids"}
    est, _ = estimate(battle(MARQUISE5, {**corvids, "corvid_plot_face_down": True}))
    assert_near(est, "attacker_warriors_lost", 9 / 16 + 1)
    est, _ = estimate(battle(MARQUISE5, corvids))
    assert_near(est, "attacker_warriors_lost", 9 / 16)


def corvid_plot_campaign_loss(battles: int, plot_outlives_removal: bool = False) -> Fraction:
    """E[Marquise warriors lost] attacking Corvids (1 warrior, 1 building, its plot) with 5
    warriors for ``battles`` battles that go on after the Corvids are defenceless, the Corvids
    removing the plot before the building: a hand-written chain over (attacker, Corvid
    warriors, plot, building), from the rule text alone."""
    pair = {(h, lo): Fraction(1 if h == lo else 2, 16) for h in range(4) for lo in range(h + 1)}
    assert sum(pair.values()) == 1
    states = {(5, 1, 1, 1): Fraction(1)}
    for _ in range(battles):
        nxt: dict[tuple[int, int, int, int], Fraction] = {}
        for (aw, dw, plot, db), q in states.items():
            if aw == 0 or dw + plot + db == 0:
                nxt[(aw, dw, plot, db)] = nxt.get((aw, dw, plot, db), Fraction(0)) + q
                continue
            for (h, lo), r in pair.items():
                hits = min(h, aw) + (1 if dw == 0 else 0)  # +1: no Corvid warrior
                plot_hit = 1 if (plot or plot_outlives_removal) else 0
                lost = min(lo, dw) + plot_hit
                left = [dw, plot, db]  # removal order: warriors, the plot, the building
                for k in range(3):
                    n = min(hits, left[k])
                    left[k] -= n
                    hits -= n
                key = (max(aw - lost, 0), *left)
                nxt[key] = nxt.get(key, Fraction(0)) + q * r
        states = nxt
    return sum((5 - k[0]) * q for k, q in states.items())


def test_corvid_plot_extra_hit_ends_when_the_plot_is_removed():
    # Battles go on once the Corvid warrior is gone (their building is still there): the plot's
    # extra hit is dealt only while the plot stands. (With warriors and a plot only, the plot
    # is the last piece to go and the campaign ends with it.)
    corvids = {
        "warriors": 1,
        "buildings": 1,
        "tokens": 1,
        "faction": "corvids",
        "corvid_plot_face_down": True,
    }
    raw = battle(MARQUISE5, corvids, battles=3, stop_when_cleared=False)
    est, _ = estimate(raw, trials=40_000)
    expect = corvid_plot_campaign_loss(3)
    wrong = corvid_plot_campaign_loss(3, plot_outlives_removal=True)
    assert float(wrong - expect) > 20 * est["attacker_warriors_lost"][1]
    assert_near(est, "attacker_warriors_lost", float(expect))


def test_one_plot_per_clearing():
    corvids = {"warriors": 1, "tokens": 2, "faction": "corvids", "corvid_plot_face_down": True}
    assert _loc(battle(MARQUISE5, corvids)) == ("defender",)
    assert _loc(battle({"warriors": 2, "tokens": 2, "faction": "corvids"}, MARQUISE5)) == (
        "attacker",
    )


# --- the Vagabond's swords and allies, Riverfolk mercenaries -----------------------------------


def test_vagabond_exhausts_a_sword_to_battle():
    # Two ready swords, hits absorbed by 10 other items: exactly two battles of three; with one
    # already exhausted, one.
    vagabond = {"faction": "vagabond", "vagabond_swords": 2, "vagabond_items": 10}
    raw = battle(vagabond, {"warriors": 6}, battles=3)
    est, _ = estimate(raw)
    assert est["battles_fought"][0] == 2
    est, _ = estimate(battle({**vagabond, "vagabond_exhausted_swords": 1}, {"warriors": 6}))
    assert est["battles_fought"][0] == 1


def test_vagabond_damages_exhausted_swords_first():
    # Two swords, nothing else: after battle 1 one is exhausted. The defender's L hits damage the
    # exhausted sword first, so a ready one is left unless L >= 2: a second battle with
    # P = 12/16 (damaging the ready one first would leave it with P = 7/16).
    vagabond = {"faction": "vagabond", "vagabond_swords": 2}
    est, _ = estimate(battle(vagabond, {"warriors": 6}, battles=2))
    assert_near(est, "battles_fought", 1 + 12 / 16)


def test_exhausted_swords_still_count_for_the_hit_cap():
    vagabond = {"faction": "vagabond", "vagabond_swords": 3, "vagabond_exhausted_swords": 2}
    est, _ = estimate(battle(vagabond, {"warriors": 5}))
    assert_near(est, "defender_warriors_lost", E_HIGH)  # min(H, 3) = H


def test_riverfolk_mercenaries_add_to_the_hit_cap():
    # 1 Marquise warrior + 2 mercenaries: hits capped at 3, E[min(H,3)] = 34/16 (15/16 alone).
    est, _ = estimate(battle({"warriors": 1, "mercenaries": 2}, {"warriors": 5}))
    assert_near(est, "defender_warriors_lost", 34 / 16)


def test_mercenaries_split_hits_the_buyer_taking_the_odd_one():
    # The low die L hits 2 warriors + 2 mercenaries: the buyer loses ceil(L/2), E = 10/16;
    # the mercenaries floor(L/2), E = 4/16.
    est, _ = estimate(battle({"warriors": 2, "mercenaries": 2}, {"warriors": 5}))
    assert_near(est, "attacker_warriors_lost", 10 / 16)
    assert_near(est, "mercenaries_lost", 4 / 16)
    # 1 warrior + 3 mercenaries taking L + 2 hits: the buyer's one warrior goes, the mercenaries
    # take the rest of min(L+2, 4): E = (2*7 + 3*5 + 4*3 + 4*1)/16 - 1 = 29/16.
    est, _ = estimate(battle({"warriors": 1, "mercenaries": 3}, {"warriors": 5, "extra_hits": 2}))
    assert est["attacker_warriors_lost"][0] == 1
    assert_near(est, "mercenaries_lost", 29 / 16)


def test_mercenaries_rule_for_their_buyer():
    # 1 warrior + 3 mercenaries against 3 buildings (no defending hits): the buyer rules every
    # time, though its own warrior alone is outnumbered when the high die is 0 (P = 1/16).
    _, hists = estimate(battle({"warriors": 1, "mercenaries": 3}, {"buildings": 3}))
    np.testing.assert_array_equal(hists["control_after"], [1, 0, 0])


def test_vagabond_allied_warriors_add_to_its_hit_cap():
    vagabond = {"faction": "vagabond", "vagabond_swords": 1, "allied_warriors": 2}
    est, _ = estimate(battle(vagabond, {"warriors": 5}))
    assert_near(est, "defender_warriors_lost", 34 / 16)


def test_vagabond_shares_hits_with_its_allied_warriors():
    # L hits: the Vagabond damages ceil(L/2) items (E = 10/16), its allies lose floor(L/2).
    vagabond = {
        "faction": "vagabond",
        "vagabond_swords": 1,
        "vagabond_items": 4,
        "allied_warriors": 2,
    }
    est, _ = estimate(battle(vagabond, {"warriors": 5}))
    assert_near(est, "attacker_items_damaged", 10 / 16)
    assert_near(est, "allied_warriors_lost", 4 / 16)
    assert est["ally_turned_hostile"][0] == 0


def test_vagabond_giving_its_allies_more_hits_turns_hostile():
    # One sword, no other item, 3 allies, L + 2 hits: the sword takes one, the allies the rest
    # of min(L+2, 4): more than the Vagabond when L >= 1 (P = 9/16).
    vagabond = {"faction": "vagabond", "vagabond_swords": 1, "allied_warriors": 3}
    est, _ = estimate(battle(vagabond, {"warriors": 5, "extra_hits": 2}))
    assert_near(est, "ally_turned_hostile", 9 / 16)


# --- ambush -------------------------------------------------------------------------------------


def test_ambush_deals_two_hits_before_the_roll():
    est, _ = estimate(battle({"warriors": 4}, {"warriors": 5, "ambush": 1}))
    assert est["ambush_hits"][0] == 2
    # Two attacking warriors are left to roll: the attacker's hits are capped at 2.
    assert_near(est, "defender_warriors_lost", float(HIGH.map(lambda h: min(h, 2)).mean()))
    assert_near(est, "attacker_warriors_lost", 2 + float(LOW.map(lambda x: min(x, 2)).mean()))


def test_ambush_hits_is_a_knob_of_the_invented_card():
    # The published card deals 2; the rules this project follows give no number (invented).
    est, _ = estimate(battle({"warriors": 4}, {"warriors": 5, "ambush": 1, "ambush_hits": 1}))
    assert est["ambush_hits"][0] == 1
    assert_near(est, "defender_warriors_lost", float(HIGH.map(lambda h: min(h, 3)).mean()))
    assert_near(est, "attacker_warriors_lost", 1 + float(LOW.map(lambda x: min(x, 3)).mean()))


def test_ambush_is_cancelled_by_counter_ambush():
    est, _ = estimate(battle({"warriors": 4, "counter_ambush": 1}, {"warriors": 5, "ambush": 1}))
    assert est["ambush_hits"][0] == 0
    assert_near(est, "defender_warriors_lost", E_HIGH)
    assert_near(est, "attacker_warriors_lost", E_LOW)


def test_ambush_that_leaves_no_attacking_warrior_ends_the_battle():
    est, _ = estimate(battle({"warriors": 2}, {"warriors": 3, "ambush": 1}, battles=3))
    assert est["attacker_warriors_lost"][0] == 2
    assert est["defender_warriors_lost"][0] == 0
    assert est["battles_fought"][0] == 1


# --- removal and scoring ------------------------------------------------------------------------


def test_warriors_are_removed_before_buildings_and_tokens():
    est, _ = estimate(battle(MARQUISE5, {"warriors": 2, "buildings": 2}))
    assert_near(est, "defender_warriors_lost", float(HIGH.map(lambda h: min(h, 2)).mean()))
    assert_near(est, "buildings_removed", 7 / 16)  # only a 3 reaches a building


def test_the_owner_chooses_tokens_or_buildings_first():
    # One attacking warrior against no defending warriors: 1 or 2 hits (2 unless the high die is 0).
    tokens_first = battle({"warriors": 1}, {"buildings": 1, "tokens": 1})
    est, _ = estimate(tokens_first)
    assert est["tokens_removed"][0] == 1
    assert_near(est, "buildings_removed", 15 / 16)
    est, _ = estimate(
        battle({"warriors": 1}, {"buildings": 1, "tokens": 1, "removes_first": "buildings"})
    )
    assert est["buildings_removed"][0] == 1
    assert_near(est, "tokens_removed", 15 / 16)


# An Alliance attacker with one of each piece against a defenceless defender dealing 2 extra hits:
# it loses its warrior and exactly one of its base (building) and sympathy (token).
ALLIANCE_PIECES = {"warriors": 1, "buildings": 1, "tokens": 1, "faction": "alliance"}
DEFENCELESS_HITTER = {"buildings": 1, "extra_hits": 2}


def test_the_defending_side_chooses_which_attacker_pieces_go():
    # Root rules §1.8: "由防御方选择" — the defender removes the base first (default), whatever
    # the attacker would have chosen (tokens first).
    est, _ = estimate(battle(ALLIANCE_PIECES, DEFENCELESS_HITTER))
    assert est["alliance_bases_removed"][0] == 1
    assert est["sympathy_removed"][0] == 0
    est, _ = estimate(
        battle(ALLIANCE_PIECES, {**DEFENCELESS_HITTER, "removes_attackers_first": "tokens"})
    )
    assert est["alliance_bases_removed"][0] == 0
    assert est["sympathy_removed"][0] == 1


def test_the_owner_chooses_under_the_other_reading():
    est, _ = estimate(battle(ALLIANCE_PIECES, DEFENCELESS_HITTER, removal_chooser="owner"))
    assert est["sympathy_removed"][0] == 1  # the attacker's own order: tokens first
    assert est["alliance_bases_removed"][0] == 0
    owner_buildings = {**ALLIANCE_PIECES, "removes_first": "buildings"}
    est, _ = estimate(battle(owner_buildings, DEFENCELESS_HITTER, removal_chooser="owner"))
    assert est["alliance_bases_removed"][0] == 1
    assert est["defender_vp"][0] == 1


def test_what_a_removal_costs_a_faction_is_counted_on_either_side():
    # A defenceless defender loses 1 + the high die (capped by the attacker's 5 warriors).
    est, _ = estimate(battle(MARQUISE5, {"buildings": 3, "faction": "duchy"}))
    assert_near(est, "duchy_buildings_removed", float(HIGH.map(lambda h: min(h + 1, 3)).mean()))
    assert est["marquise_warriors_removed"][0] == 0  # a building deals no hits
    est, _ = estimate(battle({"warriors": 3, "faction": "riverfolk"}, MARQUISE5))
    assert_near(est, "marquise_warriors_removed", float(HIGH.map(lambda h: min(h, 3)).mean()))
    est, _ = estimate(battle(MARQUISE5, {"tokens": 2, "faction": "riverfolk"}))
    assert_near(est, "trade_posts_removed", float(HIGH.map(lambda h: min(h + 1, 2)).mean()))
    assert est["gardens_removed"][0] == 0


def test_attacker_scores_one_vp_per_building_or_token_removed():
    est, _ = estimate(battle({"warriors": 1}, {"buildings": 1, "tokens": 1}))
    assert_near(est, "attacker_vp", 1 + 15 / 16)
    est, _ = estimate(battle(MARQUISE5, {"warriors": 3}))
    assert est["attacker_vp"][0] == 0  # warriors score nothing


def test_defender_scores_for_the_attackers_buildings_and_tokens():
    est, _ = estimate(battle({"warriors": 1, "tokens": 2}, {"warriors": 5, "ambush": 1}))
    # The ambush's two hits remove the warrior and one token; the battle ends.
    assert est["defender_vp"][0] == 1
    assert est["ambush_hits"][0] == 2


def test_vagabond_scores_a_vp_per_piece_of_a_hostile_faction():
    hostile = {"faction": "vagabond", "vagabond_swords": 3, "hostile": True}
    est, _ = estimate(battle(hostile, {"warriors": 3}))
    assert_near(est, "attacker_vp", E_HIGH)
    est, _ = estimate(battle({**hostile, "hostile": False}, {"warriors": 3}))
    assert est["attacker_vp"][0] == 0


def test_vagabond_turns_a_faction_hostile_by_removing_its_warrior():
    vagabond = {"faction": "vagabond", "vagabond_swords": 3, "vagabond_items": 6}
    est, _ = estimate(battle(vagabond, {"warriors": 6}, battles=2))
    # The second battle scores 1 VP per warrior removed if the first removed any (P = 15/16).
    assert_near(est, "attacker_vp", 15 / 16 * E_HIGH)


def test_removed_lizard_defenders_become_acolytes():
    est, _ = estimate(battle(MARQUISE5, {"warriors": 5, "faction": "lizards"}))
    assert_near(est, "acolytes", E_HIGH)
    est, _ = estimate(battle({"warriors": 5, "faction": "lizards"}, MARQUISE5))
    assert est["acolytes"][0] == 0


# --- control ------------------------------------------------------------------------------------


def test_tokens_do_not_count_for_control():
    # The defender keeps at least one of three tokens, but tokens do not rule.
    _, hists = estimate(battle({"warriors": 1}, {"tokens": 3}))
    np.testing.assert_array_equal(hists["control_after"], [1, 0, 0])


def test_tied_clearing_is_ruled_by_nobody():
    # 2 v 3: a tie when min(H,2) - min(L,2) = 1, that is (H,L) in (1,0), (2,1), (3,1): 6/16.
    _, hists = estimate(battle({"warriors": 2, "faction": "marquise"}, {"warriors": 3}))
    assert abs(hists["control_after"][2] - 6 / 16) < 5 * np.sqrt(6 / 16 * 10 / 16 / 20_000)


def _near_p(x: float, q: float, n: int = 20_000) -> bool:
    return abs(x - q) <= 5 * np.sqrt(max(q * (1 - q), 1e-12) / n) + 1e-12


def test_attacking_eyrie_wins_a_tie():
    # 2 v 3: a tie (6/16, see above) goes to the attacking Eyrie: it rules with P = 10/16.
    _, hists = estimate(battle({"warriors": 2, "faction": "eyrie"}, {"warriors": 3}))
    assert hists["control_after"][2] == 0
    assert _near_p(hists["control_after"][0], 10 / 16)


def test_defending_eyrie_wins_a_tie():
    # Marquise 2 attack Eyrie 3. Left: attacker 2 - L, defender 3 - min(H, 2). A tie when
    # min(H,2) - L = 1: (H,L) in (1,0), (2,1), (3,1), P = 6/16; the defender is ahead when
    # min(H,2) <= L: H = L or (3,2), P = 6/16; so the defending Eyrie rules with P = 12/16 and
    # nobody never (a defender of no faction leaves the tie to nobody, as tested above).
    marquise = {"warriors": 2, "faction": "marquise"}
    _, hists = estimate(battle(marquise, {"warriors": 3, "faction": "eyrie"}))
    assert hists["control_after"][2] == 0
    assert _near_p(hists["control_after"][1], 12 / 16)
    assert _near_p(hists["control_after"][0], 4 / 16)


def test_eyrie_does_not_rule_an_empty_clearing():
    # Both sides wiped out: a 0-0 tie is nobody's, Eyrie or not. 1 v 1 with an extra hit each:
    # both warriors always go.
    eyrie = {"warriors": 1, "faction": "eyrie", "extra_hits": 1}
    _, hists = estimate(battle({"warriors": 1, "extra_hits": 1}, eyrie))
    np.testing.assert_array_equal(hists["control_after"], [0, 0, 1])


def test_attacking_lizards_garden_gives_them_control():
    # Lizards (1 warrior + a garden) attack 5 Marquise warriors. The defender's hits are the low
    # die: the garden goes only when L >= 2 (P = 4/16). While it stands the Lizards rule,
    # though 4+ Marquise warriors are left; without the garden they never would.
    lizards = {"warriors": 1, "buildings": 1, "faction": "lizards"}
    _, hists = estimate(battle(lizards, MARQUISE5, lizard_garden=True))
    assert _near_p(hists["control_after"][0], 12 / 16)
    assert hists["control_after"][2] == 0
    _, hists = estimate(battle(lizards, MARQUISE5))
    assert hists["control_after"][0] == 0


def test_defending_lizards_garden_gives_them_control():
    lizards = {"warriors": 1, "buildings": 1, "faction": "lizards"}
    _, hists = estimate(battle(MARQUISE5, lizards, lizard_garden=True))
    # The garden stands unless the high die is 2 or more (P = 4/16).
    assert abs(hists["control_after"][1] - 4 / 16) < 5 * np.sqrt(4 / 16 * 12 / 16 / 20_000)
    _, hists = estimate(battle(MARQUISE5, lizards))
    assert hists["control_after"][1] == 0


def test_attacking_lizards_garden_beats_the_defending_eyrie():
    # Lizards 3 + garden attack Eyrie 6: left 4 - L against 6 - min(H, 3), so the Eyrie is
    # ahead or tied (then it would win the tie: (H, L) = (2, 0) gives 4 v 4) unless H = 3 and
    # L = 0. The garden is never hit (at most 3 hits, on the 3 Lizard warriors first), so the
    # Lizards always rule; without it they would rule only with P = 2/16.
    lizards = {"warriors": 3, "buildings": 1, "faction": "lizards"}
    eyrie = {"warriors": 6, "faction": "eyrie"}
    _, hists = estimate(battle(lizards, eyrie, lizard_garden=True))
    np.testing.assert_array_equal(hists["control_after"], [1, 0, 0])
    _, hists = estimate(battle(lizards, eyrie))
    assert _near_p(hists["control_after"][0], 2 / 16)


def test_lizard_garden_beats_the_eyrie_tie():
    eyrie = {"warriors": 1, "faction": "eyrie"}
    lizards = {"warriors": 3, "buildings": 1, "faction": "lizards", "extra_hits": 1}
    _, hists = estimate(battle(eyrie, lizards, lizard_garden=True, stop_when_cleared=False))
    np.testing.assert_array_equal(hists["control_after"], [0, 1, 0])


# --- campaigns ----------------------------------------------------------------------------------


def test_campaign_stops_when_the_defender_is_cleared():
    est, _ = estimate(battle(MARQUISE5, {"warriors": 1}, battles=3))
    # Each battle clears the lone warrior unless the high die is 0 (1/16).
    assert_near(est, "battles_fought", 1 + 1 / 16 + 1 / 256)


def test_campaign_keeps_battling_buildings_unless_told_to_stop():
    defender = {"warriors": 1, "buildings": 3}
    stop, _ = estimate(battle(MARQUISE5, defender, battles=2))
    go_on, _ = estimate(battle(MARQUISE5, defender, battles=2, stop_when_cleared=False))
    assert go_on["buildings_removed"][0] > stop["buildings_removed"][0] + 0.5


# --- validation ---------------------------------------------------------------------------------


def _loc(raw: dict) -> tuple:
    with pytest.raises(ValidationError) as info:
        validate(raw)
    return info.value.errors()[0]["loc"]


def test_defender_with_nothing_in_the_clearing_is_rejected():
    assert _loc(battle(MARQUISE5, {"warriors": 0})) == ("defender",)


def test_more_swords_than_allowed_are_rejected():
    vagabond = {"faction": "vagabond", "vagabond_swords": 7}
    assert _loc(battle(vagabond, {"warriors": 2})) == ("attacker", "vagabond_swords")


def test_only_a_vagabond_has_swords():
    assert _loc(battle({"warriors": 2, "vagabond_swords": 1}, {"warriors": 2})) == (
        "attacker",
        "vagabond_swords",
    )


def test_negative_warriors_are_rejected():
    assert _loc(battle({"warriors": -1}, {"warriors": 2})) == ("attacker", "warriors")


@pytest.mark.parametrize(
    "attacker",
    [
        {"faction": "vagabond", "vagabond_swords": 2, "vagabond_exhausted_swords": 2},
        {"faction": "vagabond", "vagabond_swords": 2, "mercenaries": 1},
        {"warriors": 2, "allied_warriors": 1},
        {"warriors": 2, "vagabond_exhausted_swords": 1},
        {"warriors": 2, "faction": "riverfolk", "mercenaries": 1},
    ],
)
def test_swords_allies_and_mercenaries_only_where_the_rules_allow(attacker):
    assert _loc(battle(attacker, {"warriors": 2}))[0] == "attacker"


def test_mercenaries_do_not_battle_the_riverfolk():
    raw = battle({"warriors": 1, "mercenaries": 2}, {"warriors": 2, "faction": "riverfolk"})
    assert _loc(raw) == ("defender",)


def test_garden_needs_the_lizards():
    assert _loc(battle(MARQUISE5, {"warriors": 2}, lizard_garden=True)) == ("lizard_garden",)


# --- kernel against twin and exact values -------------------------------------------------------

TWIN_CASES = [
    battle(MARQUISE5, {"warriors": 2, "buildings": 1, "tokens": 1, "faction": "eyrie"}, battles=3),
    battle(
        {"warriors": 3, "tokens": 1, "counter_ambush": 1},
        {"warriors": 4, "faction": "alliance", "ambush": 2},
        battles=3,
    ),
    battle(
        {"faction": "vagabond", "vagabond_swords": 2, "vagabond_items": 2},
        {"warriors": 2, "buildings": 2, "faction": "lizards"},
        lizard_garden=True,
        battles=4,
        stop_when_cleared=False,
    ),
    battle(
        {"warriors": 2, "extra_hits": 1, "removes_first": "buildings"},
        {"faction": "vagabond", "vagabond_swords": 1, "vagabond_items": 3, "ambush": 1},
        battles=2,
    ),
    battle(
        {"warriors": 3, "faction": "eyrie"},
        {"warriors": 1, "tokens": 1, "faction": "corvids", "corvid_plot_face_down": True},
        battles=2,
    ),
    battle(
        {"warriors": 2, "buildings": 1, "mercenaries": 3, "counter_ambush": 1},
        {"warriors": 4, "faction": "eyrie", "ambush": 2, "extra_hits": 1},
        battles=3,
    ),
    battle(
        {
            "faction": "vagabond",
            "vagabond_swords": 3,
            "vagabond_exhausted_swords": 1,
            "vagabond_items": 1,
            "allied_warriors": 3,
            "hostile": True,
        },
        {"warriors": 3, "buildings": 1, "extra_hits": 1, "ambush": 1},
        battles=3,
        stop_when_cleared=False,
    ),
    battle(
        {"warriors": 3, "buildings": 1, "tokens": 1, "faction": "alliance"},
        {"warriors": 3, "buildings": 1, "tokens": 1, "faction": "marquise", "ambush": 1},
        battles=3,
        stop_when_cleared=False,
    ),
    battle(
        {"warriors": 2, "buildings": 2, "tokens": 1, "faction": "lizards", "extra_hits": 1},
        {
            "warriors": 2,
            "tokens": 2,
            "faction": "riverfolk",
            "ambush": 2,
            "ambush_hits": 1,
            "removes_attackers_first": "tokens",
        },
        lizard_garden=True,
        battles=2,
    ),
    battle(
        {
            "warriors": 3,
            "buildings": 1,
            "tokens": 1,
            "faction": "duchy",
            "removes_first": "buildings",
        },
        {"warriors": 1, "buildings": 2, "faction": "lizards", "extra_hits": 2},
        removal_chooser="owner",
        battles=2,
    ),
]


@pytest.mark.parametrize("raw", TWIN_CASES)
def test_kernel_equals_plain_python_twin(raw):
    other = {**raw, "battles": 1, "defender": {**raw["defender"], "extra_hits": 1}}
    variants = {"base": validate(raw), "other": validate(other)}
    plan = make_plan(PROC, variants, seed=6)
    key = int(scenario_key(6))
    first, n = 3000, 600
    got = run_range(plan, -1, first, n)
    twin = [
        [naive_root.root_battle(p.model_dump(), key, t) for t in range(first, first + n)]
        for p in variants.values()
    ]
    np.testing.assert_array_equal(got, fold(plan, twin))


EXACT_CASES = [
    battle({"warriors": a}, {"warriors": d, "buildings": b, "faction": f}, battles=k)
    for a, d, b, f in [
        (1, 1, 0, "other"),
        (3, 2, 1, "alliance"),
        (4, 0, 2, "eyrie"),
        (2, 3, 1, "lizards"),
        (6, 3, 1, "marquise"),
    ]
    for k in (1, 3)
] + TWIN_CASES


@pytest.mark.parametrize("raw", EXACT_CASES)
def test_estimates_within_five_standard_errors_of_exact(raw):
    p = validate(raw)
    est, hists = estimate(raw, trials=30_000, seed=1)
    exact = PROC.exact(p)
    for name, value in exact.items():
        assert_near(est, name, value)
    dist = outcomes(p)
    for k in range(3):
        q = float(sum(pr for key, pr in dist.items() if dict(key)["control_after"] == k))
        se = np.sqrt(max(q * (1 - q), 1e-12) / 30_000)
        assert abs(hists["control_after"][k] - q) <= 5 * se + 1e-12


def test_single_battle_exact_values_enumerate_sixteen_rolls():
    # 3 v 3: the defender loses the high die, the attacker the low one, exactly.
    dist = outcomes(validate(battle({"warriors": 3}, {"warriors": 3})))
    lost = {}
    for key, pr in dist.items():
        k = dict(key)["defender_warriors_lost"]
        lost[k] = lost.get(k, Fraction(0)) + pr
    assert lost == {k: Fraction(2 * k + 1, 16) for k in range(4)}
    assert [lost[k] for k in range(4)] == list(HIGH.probabilities())


@pytest.mark.parametrize("raw", TWIN_CASES[:3])
def test_numpy_bench_baseline_computes_the_same_statistics(raw):
    from bench.bench_root_battle import numpy_stats

    p = validate(raw)
    plan = make_plan(PROC, {"base": p}, seed=11)
    np.testing.assert_array_equal(
        run_range(plan, -1, 500, 3000)[0], numpy_stats(p, scenario_key(11), 500, 3000)
    )


@pytest.mark.parametrize("battles", [1, 3, 4, 5])
def test_single_variant_runs_equal_the_twin(battles):
    # One variant with at most 4 battles tallies roll sequences instead of playing each trial.
    raw = {**TWIN_CASES[1], "battles": battles}
    p = validate(raw)
    plan = make_plan(PROC, {"base": p}, seed=13)
    key = int(scenario_key(13))
    first, n = 777, 900
    twin = [[naive_root.root_battle(p.model_dump(), key, t) for t in range(first, first + n)]]
    np.testing.assert_array_equal(run_range(plan, -1, first, n), fold(plan, twin))


@pytest.mark.parametrize("raw", TWIN_CASES[1:4])
def test_long_campaigns_play_every_trial_and_equal_the_twin(raw):
    # More than 4 battles: every trial is played (die-major), variants paired trial by trial.
    variants = {
        "base": validate({**raw, "battles": 6}),
        "other": validate({**raw, "battles": 5, "stop_when_cleared": False}),
    }
    plan = make_plan(PROC, variants, seed=17)
    key = int(scenario_key(17))
    first, n = 40, 700
    twin = [
        [naive_root.root_battle(p.model_dump(), key, t) for t in range(first, first + n)]
        for p in variants.values()
    ]
    np.testing.assert_array_equal(run_range(plan, -1, first, n), fold(plan, twin))


def test_scenario_file_loads_strictly():
    from pathlib import Path

    from simulator.scenario import parse

    path = Path(__file__).parent.parent / "scenarios" / "root" / "battle.yaml"
    scenario = parse(path.read_text(), str(path))
    assert scenario.procedure.name == PROC.name
