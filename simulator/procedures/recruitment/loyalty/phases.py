"""The rounds of ``recruitment.loyalty``: setup, the recruitment phase (placement turns, zone
resolution) and the maintenance phase (loyalty check, wages, ownership check), as the game
interface's ``legal_moves`` and ``apply_move`` (Recruitment rules §1.2, §2).

Placement (「招募阶段」②; the rulebook: "只有在各玩家均不需要放置本国影响力指示物后，
才检查招募区的人物牌", the zone is checked only once no player needs to place more): the seat to
move places ONE token on a zone card or on one of its own characters, or passes. Turns go round
the table from the round's first player until every empire has passed in succession
(``passing: final``: until every empire has passed once). The first player rotates each round
(``first_player: fixed``: seat 1 always). An empire that cannot place (its round's
``tokens_per_round`` placed, supply empty, or no target) passes without a decision. Then every
zone card is resolved, and maintenance follows.

Randomness: ``apply_move`` and :func:`start_game` draw the game's chance events from the
``uint64[1]`` SplitMix64 state they are given, in this order: deck generation (generator decks),
the deck shuffle, then per round, for every zone card left without tokens, its position in the
deck (one word; with ``shuffle_deck: false`` the card goes on top and the whole deck is shuffled,
one word per swap) and one loyalty die per checked character. Decisions draw nothing here
(agents have their own streams), so two variants of a scenario replay the same chance words as
long as their positions agree.
"""

from __future__ import annotations

import numpy as np

from simulator.agents.spec import AGENT_CODES, AGENT_KIND, AGENT_ROW
from simulator.jit import borrowed, inline, kernel
from simulator.procedures.recruitment.loyalty.ownership import (
    effective_loyalty,
    lose_loyalty,
    note_placement,
    ownership_check,
)
from simulator.procedures.recruitment.loyalty.packing import (
    CARD_FIELDS,
    P_AGENTS,
    P_BANK_REFILL,
    P_BASE_AT_NUMBER,
    P_CARDS,
    P_CHEAP_FIRST,
    P_DEBUG,
    P_DECK,
    P_DIE,
    P_EQUIPMENT,
    P_GEN,
    P_GENERATED,
    P_GOLD,
    P_INCOME,
    P_MULTI_TIE,
    P_PASS_FINAL,
    P_PER_ROUND,
    P_PLAYERS,
    P_REMOVED_TO_BANK,
    P_ROTATE,
    P_ROUNDS,
    P_SEAT_GOLD,
    P_SHUFFLE,
    P_STEP_ADDRESS,
    P_TO_BANK,
    P_TOKENS,
    P_USER_STEP,
    P_WIN,
    P_ZERO_TOKENS,
)
from simulator.procedures.recruitment.loyalty.params import MAX_CARDS, MAX_PLAYERS
from simulator.procedures.recruitment.loyalty.projection import reproject, retally
from simulator.procedures.recruitment.loyalty.state import (
    ANY_HOME,
    H_BANK_REFILL,
    H_CHEAP_FIRST,
    H_DEBUG,
    H_DECK_LEN,
    H_DIE,
    H_EQUIPMENT,
    H_FIRST,
    H_GOLD_ISSUED,
    H_GOLD_PAID,
    H_INCOME,
    H_LEAD_CHANGES,
    H_LEADER,
    H_LEADER_NOW,
    H_MULTI_TIE,
    H_N_CARDS,
    H_PASS_FINAL,
    H_PASSES,
    H_PER_ROUND,
    H_PHASE,
    H_PLAYERS,
    H_REMOVED_TO_BANK,
    H_ROTATE,
    H_ROUND,
    H_ROUNDS,
    H_SHUFFLE,
    H_STEP_ADDRESS,
    H_STREAK_START,
    H_TO_BANK,
    H_TOKENS_PER_EMPIRE,
    H_TRACK,
    H_TURN,
    H_USER_STEP,
    H_VIOLATIONS,
    H_WIN,
    H_ZERO_TOKENS,
    H_ZONE_LEN,
    IN_DECK,
    IN_ZONE,
    OVER,
    PLACE,
    REMOVED,
    S_BANK,
    S_BASE,
    S_DECK,
    S_EQUIPPED,
    S_GOLD,
    S_HOME,
    S_OUT,
    S_PLACED,
    S_SCRATCH,
    S_STATUS,
    S_SUPPLY,
    S_TOKENS,
    S_WAGE,
    S_ZONE,
    STATE_SIZE,
)
from simulator.rng import GAMMA, die_of, low32, mix64

RANDOM_AGENT = AGENT_CODES["random"]

#: The move code of a pass; any other move is the index of the card a token goes on.
PASS = MAX_CARDS
#: Most legal moves in any position: every card (zone and own characters) and the pass.
MAX_MOVES = MAX_CARDS + 1

# The stream is advanced in place (``rng[0] += GAMMA; mix64(rng[0])``, exactly rng.next_word)
# rather than through a call: each array passed to a helper costs atomic reference counting.


@inline
def uniform_below(word, n):
    """A uniform integer in 0..n-1 from a random word (multiply-shift on its low half)."""
    return die_of(low32(word), n) - 1


# --------------------------------------------------------------------------------------------
# Setup
# --------------------------------------------------------------------------------------------


@inline
def deal_deck(s, row, rng):
    """The game's deck: printed data (drawn per card for a generator, 4 words per card in the
    order wage, base loyalty, home, equipped), then a Fisher-Yates shuffle (one word per swap)."""
    n_cards = s[H_N_CARDS]
    generated = row[P_GENERATED] > 0.5
    for c in range(n_cards):
        for f in range(CARD_FIELDS):
            if generated:
                lo = np.int64(row[P_GEN + 2 * f])
                hi = np.int64(row[P_GEN + 2 * f + 1])
                rng[0] += GAMMA
                v = lo + uniform_below(mix64(rng[0]), hi - lo + 1)
            else:
                v = np.int64(row[P_DECK + CARD_FIELDS * c + f])
            if f == 0:
                s[S_WAGE + c] = v
            elif f == 1:
                s[S_BASE + c] = v
            elif f == 2:
                s[S_HOME + c] = v - 1  # seat k -> index k-1, none (0) -> -1
            else:
                s[S_EQUIPPED + c] = v
        s[S_DECK + c] = c
        s[S_STATUS + c] = IN_DECK
    if row[P_SHUFFLE] > 0.5:
        for i in range(n_cards - 1, 0, -1):
            rng[0] += GAMMA
            j = uniform_below(mix64(rng[0]), i + 1)
            a = s[S_DECK + i]
            s[S_DECK + i] = s[S_DECK + j]
            s[S_DECK + j] = a


@kernel
def start_game(s, row, rng):
    """Set ``s`` (a zeroed state of ``STATE_SIZE``) up for the game of packed ``row``, deal, and
    play up to the first decision."""
    s = borrowed(s)
    row = borrowed(row)
    rng = borrowed(rng)
    for i in range(STATE_SIZE):
        s[i] = 0
    players = np.int64(row[P_PLAYERS])
    s[H_PLAYERS] = players
    s[H_ROUNDS] = np.int64(row[P_ROUNDS])
    s[H_MULTI_TIE] = np.int64(row[P_MULTI_TIE])
    s[H_ZERO_TOKENS] = np.int64(row[P_ZERO_TOKENS])
    s[H_EQUIPMENT] = np.int64(row[P_EQUIPMENT])
    s[H_REMOVED_TO_BANK] = np.int64(row[P_REMOVED_TO_BANK])
    s[H_USER_STEP] = np.int64(row[P_USER_STEP])
    s[H_STEP_ADDRESS] = np.int64(row[P_STEP_ADDRESS])
    s[H_SHUFFLE] = np.int64(row[P_SHUFFLE])
    s[H_CHEAP_FIRST] = np.int64(row[P_CHEAP_FIRST])
    s[H_N_CARDS] = np.int64(row[P_CARDS])
    s[H_PER_ROUND] = np.int64(row[P_PER_ROUND])
    s[H_INCOME] = np.int64(row[P_INCOME])
    s[H_DIE] = np.int64(row[P_DIE])
    s[H_TO_BANK] = np.int64(row[P_TO_BANK])
    s[H_BANK_REFILL] = np.int64(row[P_BANK_REFILL])
    s[H_ROTATE] = np.int64(row[P_ROTATE])
    s[H_PASS_FINAL] = np.int64(row[P_PASS_FINAL])
    s[H_WIN] = np.int64(row[P_WIN])
    s[H_DEBUG] = np.int64(row[P_DEBUG])
    s[H_TOKENS_PER_EMPIRE] = np.int64(row[P_TOKENS])
    s[H_LEADER] = -1
    s[H_LEADER_NOW] = -1
    # Keep the heuristic's projection only when a seat reads it (not random).
    for e in range(players):
        if row[P_AGENTS + e * AGENT_ROW + AGENT_KIND] != RANDOM_AGENT:
            s[H_TRACK] = 1
    deal_deck(s, row, rng)
    if row[P_BASE_AT_NUMBER] > 0.5:  # base_loyalty_counts: at_its_number (ownership.loyalty_of)
        for c in range(s[H_N_CARDS]):
            s[S_HOME + c] = ANY_HOME
    s[H_DECK_LEN] = s[H_N_CARDS]
    gold = np.int64(row[P_GOLD])
    s[H_GOLD_ISSUED] = 0
    for e in range(players):
        s[S_SUPPLY + e] = s[H_TOKENS_PER_EMPIRE]
        s[S_GOLD + e] = gold + np.int64(row[P_SEAT_GOLD + e])
        s[H_GOLD_ISSUED] += s[S_GOLD + e]
    start_round(s)
    advance(s, rng)


# --------------------------------------------------------------------------------------------
# Recruitment phase
# --------------------------------------------------------------------------------------------


@inline
def start_round(s):
    """Income, tokens back from the bank (``bank_refill``), the zone refilled, the round's first
    player to move."""
    players = s[H_PLAYERS]
    income = s[H_INCOME]
    refill = s[H_BANK_REFILL]
    for e in range(players):
        s[S_GOLD + e] += income
        back = min(refill, s[S_BANK + e])
        s[S_BANK + e] -= back
        s[S_SUPPLY + e] += back
        s[S_PLACED + e] = 0
        s[S_OUT + e] = 0
    s[H_GOLD_ISSUED] += income * players
    refill_zone(s)
    if s[H_TRACK] != 0:
        retally(s)
    first = s[H_ROUND] % players if s[H_ROTATE] != 0 else 0
    s[H_FIRST] = first
    s[H_TURN] = first
    s[H_PASSES] = 0
    s[H_PHASE] = PLACE


@inline
def refill_zone(s):
    """Deal from the top of the deck until the zone holds players + 1 cards (「招募阶段」①; cards
    left from earlier rounds stay and count; a short deck deals what it has)."""
    players = s[H_PLAYERS]
    while s[H_ZONE_LEN] < players + 1 and s[H_DECK_LEN] > 0:
        s[H_DECK_LEN] -= 1
        c = s[S_DECK + s[H_DECK_LEN]]
        s[S_STATUS + c] = IN_ZONE
        s[S_ZONE + s[H_ZONE_LEN]] = c
        s[H_ZONE_LEN] += 1


@inline
def owns_any(s, e):
    found = False
    for c in range(s[H_N_CARDS]):
        if s[S_STATUS + c] == e:
            found = True
            break
    return found


@inline
def can_place(s, e):
    """Whether seat ``e`` has a token it may place now (budget, supply and a target)."""
    if s[S_PLACED + e] >= s[H_PER_ROUND] or s[S_SUPPLY + e] <= 0:
        return False
    return s[H_ZONE_LEN] > 0 or owns_any(s, e)


@kernel
def legal_moves(s, out):
    """The moves of the seat to move into ``out[:n]``; returns ``n`` (0 when the game is over).

    Order: the zone cards in zone order, then the seat's own characters by card index, then the
    pass. Positions where a seat cannot place never reach a decision (it passes by force)."""
    if s[H_PHASE] == OVER:
        return 0
    e = s[H_TURN]
    n = 0
    for k in range(s[H_ZONE_LEN]):
        out[n] = s[S_ZONE + k]
        n += 1
    for c in range(s[H_N_CARDS]):
        if s[S_STATUS + c] == e:
            out[n] = c
            n += 1
    out[n] = PASS
    return n + 1


@inline
def play_move(s, move, rng):
    """Play ``move`` for the seat to move, then everything up to the next decision: forced
    passes, the end of the placement, zone resolution, maintenance, the next round's start.
    (Inlined into the kernel's play loop; ``apply_move`` is the same, compiled on its own for the
    game interface.)"""
    e = s[H_TURN]
    players = s[H_PLAYERS]
    if move == PASS:
        s[H_PASSES] += 1
        s[S_OUT + e] = 1
    else:
        s[S_TOKENS + move * MAX_PLAYERS + e] += 1
        note_placement(s, move, e)
        s[S_SUPPLY + e] -= 1
        s[S_PLACED + e] += 1
        if s[H_TRACK] != 0:
            reproject(s, move, e)
        if s[H_PASS_FINAL] == 0:
            s[H_PASSES] = 0
    s[H_TURN] = (e + 1) % players
    advance(s, rng)


@kernel
def apply_move(s, move, rng):
    """The game interface's ``apply_move``: :func:`play_move` (on borrowed views, jit.py)."""
    play_move(borrowed(s), move, borrowed(rng))


@inline
def advance(s, rng):
    """Run forced steps until a seat must decide or the game is over."""
    players = s[H_PLAYERS]
    pass_final = s[H_PASS_FINAL] != 0
    while s[H_PHASE] != OVER:
        if s[H_PASSES] >= players:
            end_round(s, rng)
            continue
        e = s[H_TURN]
        if pass_final and s[S_OUT + e] != 0:
            s[H_TURN] = (e + 1) % players
            continue
        if can_place(s, e):
            return
        s[H_PASSES] += 1
        s[S_OUT + e] = 1
        s[H_TURN] = (e + 1) % players


@inline
def resolve_zone(s, rng):
    """「招募阶段」③, by token count only: a sole leader gains the card (tokens stay on it); a tie
    at the top leaves it in the zone; a card with no tokens is shuffled back into the deck (③⑶):
    at a uniformly random position (one word) when the deck was shuffled (the rest of it is in
    random order, so this is shuffling it back in), else put on top and the whole deck shuffled
    (a deck in a set order, ``shuffle_deck: false``, keeps its order only until then)."""
    players = s[H_PLAYERS]
    kept = 0
    for k in range(s[H_ZONE_LEN]):
        c = s[S_ZONE + k]
        top = 0
        n_top = 0
        who = -1
        for f in range(players):
            t = s[S_TOKENS + c * MAX_PLAYERS + f]
            if t > top:
                top = t
                n_top = 1
                who = f
            elif t == top:
                n_top += 1
        if top == 0:
            deck_len = s[H_DECK_LEN]
            if s[H_SHUFFLE] != 0:
                rng[0] += GAMMA
                pos = uniform_below(mix64(rng[0]), deck_len + 1)
                for j in range(deck_len, pos, -1):
                    s[S_DECK + j] = s[S_DECK + j - 1]
                s[S_DECK + pos] = c
            else:
                s[S_DECK + deck_len] = c
                for i in range(deck_len, 0, -1):
                    rng[0] += GAMMA
                    j = uniform_below(mix64(rng[0]), i + 1)
                    a = s[S_DECK + i]
                    s[S_DECK + i] = s[S_DECK + j]
                    s[S_DECK + j] = a
            s[H_DECK_LEN] = deck_len + 1
            s[S_STATUS + c] = IN_DECK
        elif n_top == 1:
            s[S_STATUS + c] = who
        else:
            s[S_ZONE + kept] = c
            kept += 1
    s[H_ZONE_LEN] = kept


# --------------------------------------------------------------------------------------------
# Maintenance phase
# --------------------------------------------------------------------------------------------


@inline
def loyalty_check(s, rng):
    """Maintenance ①: one die per owned character, in seat order then card order; a roll above
    its loyalty to the owner costs one loyalty. Skipped (no dice) for an empire that owns only
    one character."""
    players = s[H_PLAYERS]
    n_cards = s[H_N_CARDS]
    die = s[H_DIE]
    for e in range(players):
        owned = 0
        for c in range(n_cards):
            if s[S_STATUS + c] == e:
                owned += 1
        if owned < 2:
            continue
        for c in range(n_cards):
            if s[S_STATUS + c] != e:
                continue
            rng[0] += GAMMA
            roll = die_of(low32(mix64(rng[0])), die)
            if roll > effective_loyalty(s, c, e):
                lose_loyalty(s, c, e)


@inline
def _pays_before(loyalty_a, wage_a, a, loyalty_b, wage_b, b, cheap_first):
    """Wage order (``wage_order``, invented): descending loyalty, then ascending wage; or
    (``cheap_first``) ascending wage, then descending loyalty; then card index."""
    if cheap_first and wage_a != wage_b:
        return wage_a < wage_b
    if loyalty_a != loyalty_b:
        return loyalty_a > loyalty_b
    if wage_a != wage_b:
        return wage_a < wage_b
    return a < b


@inline
def pay_wages(s):
    """Maintenance ②: each empire pays its characters by descending loyalty, then ascending wage
    (then card index; an assumption: the rulebook gives no order); one it cannot pay loses one
    loyalty instead, and its gold is not spent. Paid gold goes to the bank."""
    players = s[H_PLAYERS]
    n_cards = s[H_N_CARDS]
    for e in range(players):
        n = 0
        for c in range(n_cards):
            if s[S_STATUS + c] != e:
                continue
            loyalty = effective_loyalty(s, c, e)
            wage = s[S_WAGE + c]
            j = n
            while j > 0:
                b = s[S_SCRATCH + j - 1]
                if not _pays_before(
                    loyalty,
                    wage,
                    c,
                    effective_loyalty(s, b, e),
                    s[S_WAGE + b],
                    b,
                    s[H_CHEAP_FIRST] != 0,
                ):
                    break
                s[S_SCRATCH + j] = b
                j -= 1
            s[S_SCRATCH + j] = c
            n += 1
        for k in range(n):
            c = s[S_SCRATCH + k]
            w = s[S_WAGE + c]
            if s[S_GOLD + e] >= w:
                s[S_GOLD + e] -= w
                s[H_GOLD_PAID] += w
            else:
                lose_loyalty(s, c, e)


@inline
def conservation_failures(s):
    """Number of broken invariants: per empire, tokens on cards + supply + bank =
    tokens_per_empire, supply and bank >= 0, gold >= 0; gold held + gold paid = gold issued;
    deck and zone lengths match the cards' statuses."""
    players = s[H_PLAYERS]
    n_cards = s[H_N_CARDS]
    bad = 0
    held = 0
    for e in range(players):
        on_cards = 0
        for c in range(n_cards):
            on_cards += s[S_TOKENS + c * MAX_PLAYERS + e]
        supply = s[S_SUPPLY + e]
        bank = s[S_BANK + e]
        if supply < 0 or bank < 0 or on_cards + supply + bank != s[H_TOKENS_PER_EMPIRE]:
            bad += 1
        if s[S_GOLD + e] < 0:
            bad += 1
        held += s[S_GOLD + e]
    if held + s[H_GOLD_PAID] != s[H_GOLD_ISSUED]:
        bad += 1
    in_deck = 0
    in_zone = 0
    for c in range(n_cards):
        if s[S_STATUS + c] == IN_DECK:
            in_deck += 1
        elif s[S_STATUS + c] == IN_ZONE:
            in_zone += 1
    if in_deck != s[H_DECK_LEN] or in_zone != s[H_ZONE_LEN]:
        bad += 1
    return bad


# --------------------------------------------------------------------------------------------
# Standing (the win criterion, an assumption) and the end of a round
# --------------------------------------------------------------------------------------------

#: ``win`` codes (params.WIN_RULES).
WIN_MOST_CHARACTERS = 0
WIN_CHARACTERS_THEN_LOYALTY = 1
#: Loyalty totals are far below this, so ``characters * LOYALTY_SCALE + loyalty`` orders by
#: characters first.
LOYALTY_SCALE = 1 << 20


@inline
def standing(s, e):
    """Seat ``e``'s score under the win criterion: its characters (most_characters), or its
    characters then the total loyalty of its characters to it (most_characters_then_loyalty)."""
    n = 0
    loyalty = 0
    with_loyalty = s[H_WIN] == WIN_CHARACTERS_THEN_LOYALTY
    for c in range(s[H_N_CARDS]):
        if s[S_STATUS + c] == e:
            n += 1
            if with_loyalty:
                loyalty += effective_loyalty(s, c, e)
    return n * LOYALTY_SCALE + loyalty


@inline
def sole_leader(s):
    """The seat with the strictly highest standing, -1 on a tie at the top."""
    best = -1
    who = -1
    for e in range(s[H_PLAYERS]):
        v = standing(s, e)
        if v > best:
            best = v
            who = e
        elif v == best:
            who = -1
    return who


@kernel
def end_round(s, rng):
    """Resolve the zone, run maintenance, track the lead, then start the next round or end the
    game."""
    s = borrowed(s)
    rng = borrowed(rng)
    resolve_zone(s, rng)
    loyalty_check(s, rng)
    pay_wages(s)
    ownership_check(s)
    if s[H_DEBUG] != 0:
        s[H_VIOLATIONS] += conservation_failures(s)
    leader = sole_leader(s)
    if leader >= 0:
        if leader != s[H_LEADER_NOW]:
            s[H_STREAK_START] = s[H_ROUND]
        if s[H_LEADER] >= 0 and leader != s[H_LEADER]:
            s[H_LEAD_CHANGES] += 1
        s[H_LEADER] = leader
    s[H_LEADER_NOW] = leader
    s[H_ROUND] += 1
    if s[H_ROUND] >= s[H_ROUNDS]:
        s[H_PHASE] = OVER
    else:
        start_round(s)


#: Statuses other than an owner seat (re-exported for tests and the twin).
CARD_PLACES = {IN_ZONE: "zone", IN_DECK: "deck", REMOVED: "removed"}
