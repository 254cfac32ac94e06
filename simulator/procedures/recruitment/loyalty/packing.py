"""The kernel's packed row of ``recruitment.loyalty``: its layout (``PACKED``) and ``pack``.

One float64 row per variant, written by name (:meth:`simulator.layout.Layout.row`) and read in
the kernel through the ``P_*`` offsets taken from the layout. The metric row's size and the
start of each of its families (a counter's total and its seat 1, the win shares, each tail
metric) depend on the players, so ``pack`` writes them too (``metric_count``, ``first_metric``,
in the order of :data:`FAMILIES`), from the metric layout of the parameters.
"""

from __future__ import annotations

import numpy as np

from simulator.agents.spec import AGENT_ROW, pack_agents, seat_agents
from simulator.layout import Layout
from simulator.procedures.base import metric_layout
from simulator.procedures.recruitment.loyalty.cases import code
from simulator.procedures.recruitment.loyalty.metrics import COUNTER_METRICS, TAIL, metrics
from simulator.procedures.recruitment.loyalty.params import (
    MAX_CARDS,
    MAX_PLAYERS,
    NO_CAP,
    WIN_RULES,
    DeckGenerator,
    LoyaltyParams,
    span_of,
)

#: A character's printed fields in the deck piece, in this order.
CARD_FIELDS = 4  # wage, base_loyalty, home, equipped

#: The metric families whose first slot the kernel needs: each counter's total, then each
#: counter's seat 1, the win share of seat 1, and every tail metric (metrics.py's order).
FAMILIES = Layout(
    *(name for name, _ in COUNTER_METRICS),
    *(f"{name}_seat1" for name, _ in COUNTER_METRICS),
    "wins_seat1",
    *TAIL,
)
F_TOTALS = FAMILIES.at(COUNTER_METRICS[0][0])
F_SEATS = FAMILIES.at(f"{COUNTER_METRICS[0][0]}_seat1")
F_WINS = FAMILIES.at("wins_seat1")
F_TAIL = FAMILIES.at(TAIL[0])

#: The packed row: the knobs and the rule cases (coded, cases.py), the user step's number and
#: address (userstep.py), each seat's agent row, the deck generator's spans or the printed
#: deck, each seat's extra starting gold, and the metric row's size and families' starts.
PACKED = Layout(
    "players",
    "rounds",
    "multi_tie",
    "tokens_per_empire",
    "tokens_per_round",
    "starting_gold",
    "income",
    "loyalty_die",
    "debug",
    "shuffle_deck",
    "generated",
    "cards",
    "to_bank",
    "bank_refill",
    "rotate",
    "pass_final",
    "win",
    "zero_tokens",
    "equipment",
    "removed_to_bank",
    "user_step",
    "step_address",
    "base_at_number",
    "cheap_first",
    ("agents", MAX_PLAYERS * AGENT_ROW),  # MAX_PLAYERS rows (simulator.agents.spec.pack_agents)
    ("generator", 2 * CARD_FIELDS),  # (low, high) of wage, base_loyalty, home, equipped
    ("deck", CARD_FIELDS * MAX_CARDS),  # MAX_CARDS rows of (wage, base_loyalty, home, equipped)
    ("seat_gold", MAX_PLAYERS),  # extra starting gold, seat 1 first
    "metric_count",
    ("first_metric", FAMILIES.size),
)
P_PLAYERS, P_ROUNDS, P_MULTI_TIE = PACKED.at("players"), PACKED.at("rounds"), PACKED.at("multi_tie")
P_TOKENS, P_PER_ROUND = PACKED.at("tokens_per_empire"), PACKED.at("tokens_per_round")
P_GOLD, P_INCOME, P_DIE = PACKED.at("starting_gold"), PACKED.at("income"), PACKED.at("loyalty_die")
P_DEBUG, P_SHUFFLE = PACKED.at("debug"), PACKED.at("shuffle_deck")
P_GENERATED, P_CARDS = PACKED.at("generated"), PACKED.at("cards")
P_TO_BANK, P_BANK_REFILL = PACKED.at("to_bank"), PACKED.at("bank_refill")
P_ROTATE, P_PASS_FINAL, P_WIN = PACKED.at("rotate"), PACKED.at("pass_final"), PACKED.at("win")
P_ZERO_TOKENS, P_EQUIPMENT = PACKED.at("zero_tokens"), PACKED.at("equipment")
P_REMOVED_TO_BANK = PACKED.at("removed_to_bank")
P_USER_STEP, P_STEP_ADDRESS = PACKED.at("user_step"), PACKED.at("step_address")
P_BASE_AT_NUMBER, P_CHEAP_FIRST = PACKED.at("base_at_number"), PACKED.at("cheap_first")
P_AGENTS, P_GEN, P_DECK = PACKED.at("agents"), PACKED.at("generator"), PACKED.at("deck")
P_SEAT_GOLD = PACKED.at("seat_gold")
P_METRIC_COUNT, P_FIRST_METRIC = PACKED.at("metric_count"), PACKED.at("first_metric")


def first_metrics(p: LoyaltyParams) -> list[int]:
    """Where each metric family (:data:`FAMILIES`) starts in the metric row of ``p``."""
    layout = metric_layout(metrics(p))
    return [layout.at(family) for family in FAMILIES.names]


def _deck(p: LoyaltyParams) -> tuple[float, list[float], list[float]]:
    """The deck's pieces: generated (1.0 or 0.0), the generator's spans, the printed cards."""
    spans = [0.0] * (2 * CARD_FIELDS)
    cards = [0.0] * (CARD_FIELDS * MAX_CARDS)
    if isinstance(p.deck, DeckGenerator):
        fields = (p.deck.wage, p.deck.base_loyalty, p.deck.home, p.deck.equipped)
        spans = [float(x) for d in fields for x in span_of(d)]
        return 1.0, spans, cards
    printed = [float(x) for c in p.deck for x in (c.wage, c.base_loyalty, c.home, c.equipped)]
    return 0.0, spans, printed + cards[len(printed) :]


def pack(p: LoyaltyParams) -> np.ndarray:
    """The kernel's row of ``p`` (:data:`PACKED`)."""
    cases = p.rule_cases()
    agents = pack_agents(seat_agents(p.policies, p.players)).reshape(-1)
    generated, spans, cards = _deck(p)
    return PACKED.row(
        players=p.players,
        rounds=p.rounds,
        multi_tie=code("multi_tie", cases["multi_tie"]),
        tokens_per_empire=p.tokens_per_empire,
        tokens_per_round=NO_CAP if p.tokens_per_round is None else p.tokens_per_round,
        starting_gold=p.starting_gold,
        income=p.income,
        loyalty_die=p.loyalty_die,
        debug=1.0 if p.debug else 0.0,
        shuffle_deck=1.0 if p.shuffle_deck else 0.0,
        generated=generated,
        cards=p.deck.count if isinstance(p.deck, DeckGenerator) else len(p.deck),
        to_bank=1.0 if p.returned_tokens == "bank" else 0.0,
        bank_refill=p.bank_refill,
        rotate=1.0 if p.first_player == "rotate" else 0.0,
        pass_final=1.0 if p.passing == "final" else 0.0,
        win=WIN_RULES.index(p.win),
        zero_tokens=code("zero_tokens", cases["zero_tokens"]),
        equipment=code("equipment", cases["equipment"]),
        removed_to_bank=1.0 if cases["removed_tokens"] == "bank" else 0.0,
        user_step=0.0,  # a run with designers' steps numbers them (userstep.StepPack)
        step_address=0.0,  # written in the process that runs them (userstep.StepKernel)
        base_at_number=1.0 if p.base_loyalty_counts == "at_its_number" else 0.0,
        cheap_first=1.0 if p.wage_order == "cheap_first" else 0.0,
        agents=np.concatenate([agents, np.zeros(MAX_PLAYERS * AGENT_ROW - agents.size)]),
        generator=spans,
        deck=cards,
        seat_gold=[*p.seat_gold, *[0] * (MAX_PLAYERS - len(p.seat_gold))],
        metric_count=len(metrics(p)),
        first_metric=first_metrics(p),
    )


def metric_layout_of(p: LoyaltyParams) -> Layout:
    """The metric row of ``p`` (one slot per metric of ``metrics(p)``)."""
    return metric_layout(metrics(p))
