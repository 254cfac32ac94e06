"""The position of a council game: its declared layout, move codes, the accessors every rule uses.

The whole position is ONE flat int64 array (``POSITION``, named pieces with sizes; ``simulator
.layout``), so an agent copies it in one call and a compiled function receives one reference;
the scratch the phases share is a second flat array (``SCRATCH``), never copied with the
position. The offsets are module constants generated from the layouts."""

from __future__ import annotations

import numpy as np

from simulator.jit import kernel, leaf
from simulator.layout import Layout
from simulator.procedures.council.game.params import (
    HEAD0,
    MAX_CARDS,
    MAX_LAWS,
    MAX_MOVES,
    MAX_PLAYERS,
    N_CHARS,
    N_GAPS,
    N_LANDS,
    N_SEATS,
    T_COLLECTOR,
    T_COWARDLY,
)

#: The position: ONE flat int64 array, its pieces declared once (offsets below are plain ints
#: Numba folds). The scalars come first; then per piece one slot per player, Character, Land,
#: law or card. Tokens of player p at column col (Lands 0..6, then Character c at 7 + c):
#: ``TOKENS + p * N_COL + col``.
N_COL = N_LANDS + N_CHARS
SCALARS = (
    "mood",
    "treasury",
    "turn",
    "winners",  # bit p: player p won
    "victory",
    "laws_passed",
    "killed",
    "contested",
    "representative",
    "tax_delta",
    "veto_used",
    "players",
    "issued",
    "to_bank",
    "done",
    "tokens_each",
    "violations",
    "check",
    "laws_in_deck",
    "mood_on",
    "mercenaries_on",
    "influence_cost",
    "mercenary_cost",
    "tax_halves",
    "remove_votes",
    "council_votes",
    "max_turns",
    "start_coins",
    "start_treasury",
    "rare_cost",
    "rare_scope",
    "rare_turn",
    "rare_mask",
    "sycophant_phase",
    "advice_on",
    "advised",
    "leader",
    "lead_changes",
    "decided_at",
    "run",
    "tip_empty",
    "tip_cap",
    "bribe_cap",
    "empty_chances",
    "greedy_bribe",
    "transfer",
    "reveal_phases",
    "spy_thief_first",
    "advice_by_influence",
    "ignored_law",
    "window",
    "phase_reveals",
    "advice_no_priority",
    "spending_lot",
    "max_hand",
    "mercenary_deck",
    "max_buys",
    "appoint_action",
    "cowardly_income",
    "spending_tied",
    "vacant_heads",
    "cowardly_left",
)
POSITION = Layout(
    *SCALARS,
    ("played", 5),  # Mercenary cards revealed, by kind
    ("gap_counts", N_GAPS),
    ("holders", N_SEATS),  # the Character in each seat (Council 0-3, Head of Land li at 4 + li)
    ("tokens", MAX_PLAYERS * N_COL),
    ("coins", MAX_PLAYERS),
    ("supply", MAX_PLAYERS),
    ("policy", MAX_PLAYERS),
    ("character_traits", N_CHARS),  # a bitmask of params.TRAITS
    ("seats", N_CHARS),  # -1 the pool, -2 killed
    ("lot_keys", N_CHARS),
    ("sycophant_leaders", N_CHARS),  # the last Council leader a Sycophant followed
    ("last_land", N_CHARS),  # the Land a Character headed last (-1: none)
    ("land_size", N_LANDS),
    ("civilians", N_LANDS),
    ("soldiers", N_LANDS),
    ("land_effect", N_LANDS),
    ("law_category", MAX_LAWS),
    ("law_cost", MAX_LAWS),
    ("law_mood", MAX_LAWS),
    ("law_militarise", MAX_LAWS),
    ("law_tax", MAX_LAWS),  # the tax change in half coins
    ("law_slot", MAX_LAWS),  # the active slot, or -1
    ("card_kind", MAX_CARDS),
    ("card_owner", MAX_CARDS),
    ("card_target", MAX_CARDS),
    ("card_status", MAX_CARDS),  # 0 free, 1 in hand, 2 face down
    ("card_mode", MAX_CARDS),  # a Messenger's: 0 gift, 1 bribe
    ("card_turn", MAX_CARDS),
)
MOOD = POSITION.at("mood")
TREASURY = POSITION.at("treasury")
TURN = POSITION.at("turn")
WINNERS = POSITION.at("winners")
VICTORY = POSITION.at("victory")
LAWS_PASSED = POSITION.at("laws_passed")
KILLED = POSITION.at("killed")
CONTESTED = POSITION.at("contested")
REPRESENTATIVE = POSITION.at("representative")
TAX_DELTA = POSITION.at("tax_delta")
VETO_USED = POSITION.at("veto_used")
PLAYERS = POSITION.at("players")
ISSUED = POSITION.at("issued")
TO_BANK = POSITION.at("to_bank")
DONE = POSITION.at("done")
TOKENS_EACH = POSITION.at("tokens_each")
VIOLATIONS = POSITION.at("violations")
CHECK = POSITION.at("check")
LAWS_IN_DECK = POSITION.at("laws_in_deck")
MOOD_ON = POSITION.at("mood_on")
MERCENARIES_ON = POSITION.at("mercenaries_on")
INFLUENCE_COST = POSITION.at("influence_cost")
MERCENARY_COST = POSITION.at("mercenary_cost")
TAX_HALVES = POSITION.at("tax_halves")
REMOVE_VOTES = POSITION.at("remove_votes")
COUNCIL_VOTES = POSITION.at("council_votes")
MAX_TURNS = POSITION.at("max_turns")
START_COINS = POSITION.at("start_coins")
START_TREASURY = POSITION.at("start_treasury")
RARE_COST = POSITION.at("rare_cost")
RARE_SCOPE = POSITION.at("rare_scope")
RARE_TURN = POSITION.at("rare_turn")
RARE_MASK = POSITION.at("rare_mask")
SYCOPHANT_PHASE = POSITION.at("sycophant_phase")
ADVICE_ON = POSITION.at("advice_on")
ADVISED = POSITION.at("advised")
LEADER = POSITION.at("leader")
LEAD_CHANGES = POSITION.at("lead_changes")
DECIDED_AT = POSITION.at("decided_at")
RUN = POSITION.at("run")
TIP_EMPTY = POSITION.at("tip_empty")
TIP_CAP = POSITION.at("tip_cap")
BRIBE_CAP = POSITION.at("bribe_cap")
EMPTY_CHANCES = POSITION.at("empty_chances")
GREEDY_BRIBE = POSITION.at("greedy_bribe")
TRANSFER = POSITION.at("transfer")
REVEAL_PHASES = POSITION.at("reveal_phases")
SPY_THIEF_FIRST = POSITION.at("spy_thief_first")
ADVICE_BY_INFLUENCE = POSITION.at("advice_by_influence")
IGNORED_LAW = POSITION.at("ignored_law")
WINDOW = POSITION.at("window")
PHASE_REVEALS = POSITION.at("phase_reveals")
ADVICE_NO_PRIORITY = POSITION.at("advice_no_priority")
SPENDING_LOT = POSITION.at("spending_lot")
MAX_HAND = POSITION.at("max_hand")
MERCENARY_DECK = POSITION.at("mercenary_deck")
MAX_BUYS = POSITION.at("max_buys")
APPOINT_ACTION = POSITION.at("appoint_action")
COWARDLY_INCOME = POSITION.at("cowardly_income")
SPENDING_TIED = POSITION.at("spending_tied")
VACANT_HEADS = POSITION.at("vacant_heads")
COWARDLY_LEFT = POSITION.at("cowardly_left")
PLAYED = POSITION.at("played")
GAP_COUNTS = POSITION.at("gap_counts")
HOLDERS = POSITION.at("holders")
TOKENS = POSITION.at("tokens")
COINS = POSITION.at("coins")
SUPPLY = POSITION.at("supply")
POLICY = POSITION.at("policy")
CHARACTER_TRAITS = POSITION.at("character_traits")
SEATS = POSITION.at("seats")
LOT_KEYS = POSITION.at("lot_keys")
SYCOPHANT_LEADERS = POSITION.at("sycophant_leaders")
LAST_LAND = POSITION.at("last_land")
LAND_SIZE = POSITION.at("land_size")
CIVILIANS = POSITION.at("civilians")
SOLDIERS = POSITION.at("soldiers")
LAND_EFFECT = POSITION.at("land_effect")
LAW_CATEGORY = POSITION.at("law_category")
LAW_COST = POSITION.at("law_cost")
LAW_MOOD = POSITION.at("law_mood")
LAW_MILITARISE = POSITION.at("law_militarise")
LAW_TAX = POSITION.at("law_tax")
LAW_SLOT = POSITION.at("law_slot")
CARD_KIND = POSITION.at("card_kind")
CARD_OWNER = POSITION.at("card_owner")
CARD_TARGET = POSITION.at("card_target")
CARD_STATUS = POSITION.at("card_status")
CARD_MODE = POSITION.at("card_mode")
CARD_TURN = POSITION.at("card_turn")
POSITION_SIZE = POSITION.size

#: Scratch the phases share (not part of the position: never copied with it): the legal moves
#: (``MOVE_FIELDS`` slots each: kind and up to four arguments), their scores, tied players,
#: candidates and votes, the acting order, each Land's owner and contesting players, and the
#: Council vote's declarations (``DECLARED_WIDTH`` a Council place: one per player, then the
#: net advice, ``ADVICE_COLUMN``).
MOVE_FIELDS = 5
DECLARED_WIDTH = MAX_PLAYERS + 1
ADVICE_COLUMN = MAX_PLAYERS
SCRATCH = Layout(
    ("moves", MAX_MOVES * MOVE_FIELDS),
    ("scores", MAX_MOVES),
    ("tied", MAX_PLAYERS),
    ("candidates", N_CHARS + 1),
    ("votes", N_CHARS + 1),
    ("order", N_CHARS),
    ("owners", N_LANDS),
    ("contest", N_LANDS * MAX_PLAYERS),
    ("declared", 5 * DECLARED_WIDTH),
)
MOVES = SCRATCH.at("moves")
SCORES = SCRATCH.at("scores")
TIED = SCRATCH.at("tied")
CANDIDATES = SCRATCH.at("candidates")
VOTES = SCRATCH.at("votes")
ORDER = SCRATCH.at("order")
OWNERS = SCRATCH.at("owners")
CONTEST = SCRATCH.at("contest")
DECLARED = SCRATCH.at("declared")
SCRATCH_SIZE = SCRATCH.size

# Move kinds of the legal-move lists.
(
    MOVE_PASS,
    MOVE_LAND_TOKEN,
    MOVE_CHAR_TOKEN,
    MOVE_BUY_MERC,
    MOVE_WARLORD,
    MOVE_BISHOP,
    MOVE_LAW,
    MOVE_REMOVE_HEAD,
    MOVE_REMOVE_COUNCILLOR,
    MOVE_SEND,
    MOVE_GIVE_UP,
    MOVE_REVEAL,
    MOVE_ADVISE,
    MOVE_APPOINT,
) = range(14)


@leaf
def head_tok(state, p, li):
    h = state[HOLDERS + HEAD0 + li]
    if h < 0:
        return np.int64(0)
    return state[TOKENS + p * N_COL + N_LANDS + h]


@leaf
def land_owner(state, li, scratch):
    """Priority on Land li by Land + Head tokens (ties: more on the Head). Returns the player, -1
    when nobody has tokens, -2 when contested (``tied[p]`` then marks the contesting players).
    Each player's Head tokens are read in place (:func:`head_tok`'s rule): this is pasted into
    every recount of greedy's scores, and each pasted helper is typed again."""
    n_players = state[PLAYERS]
    h = state[HOLDERS + HEAD0 + li]
    head_column = N_LANDS + h
    top = np.int64(0)
    for p in range(n_players):
        head = state[TOKENS + p * N_COL + head_column] if h >= 0 else np.int64(0)
        top = max(top, state[TOKENS + p * N_COL + li] + head)
    if top == 0:
        return np.int64(-1)
    count = 0
    who = -1
    head_top = np.int64(-1)
    for p in range(n_players):
        head = state[TOKENS + p * N_COL + head_column] if h >= 0 else np.int64(0)
        if state[TOKENS + p * N_COL + li] + head == top:
            count += 1
            who = p
            head_top = max(head_top, head)
    if count == 1:
        return np.int64(who)
    count = 0
    for p in range(n_players):
        scratch[TIED + p] = 0
        head = state[TOKENS + p * N_COL + head_column] if h >= 0 else np.int64(0)
        if state[TOKENS + p * N_COL + li] + head == top and head == head_top:
            count += 1
            who = p
            scratch[TIED + p] = 1
    if count == 1:
        return np.int64(who)
    return np.int64(-2)


@leaf
def top_and_second(state, n_players, col):
    """The player with strictly most tokens at col (or -1: nobody has any, or a tie) and its lead
    over the next highest count."""
    top = np.int64(0)
    second = np.int64(0)
    who = np.int64(-1)
    for q in range(n_players):
        x = state[TOKENS + q * N_COL + col]
        if x > top:
            second = top
            top = x
            who = q
        elif x == top:
            second = x
            who = -1
        elif x > second:
            second = x
    return who, top - second


@leaf
def strict_top(state, n_players, col):
    """The player with strictly most tokens at col, or -1 (:func:`top_and_second`)."""
    return top_and_second(state, n_players, col)[0]


@kernel
def combined_top(state, li):
    """The one player with strictly most tokens on Land li and its Head together, or -1."""
    top = np.int64(0)
    who = -1
    count = 0
    for p in range(state[PLAYERS]):
        x = state[TOKENS + p * N_COL + li] + head_tok(state, p, li)
        if x > top:
            top = x
            who = p
            count = 1
        elif x == top and x > 0:
            count += 1
    return np.int64(who) if count == 1 else np.int64(-1)


@kernel
def power_user(state, p, effect):
    """Whether p may use a Land power of this kind (Zalesye, the Golden Coast): priority on the
    Land's Head or 3+ tokens on the Land."""
    for li in range(N_LANDS):
        if state[LAND_EFFECT + li] != effect:
            continue
        h = state[HOLDERS + HEAD0 + li]
        if (h >= 0 and strict_top(state, state[PLAYERS], N_LANDS + h) == p) or state[
            TOKENS + p * N_COL + li
        ] >= 3:
            return True
    return False


@kernel
def power_holder(state, effect):
    """The player with priority on the Head of the (first) Land with this power, or -1."""
    for li in range(N_LANDS):
        if state[LAND_EFFECT + li] != effect:
            continue
        h = state[HOLDERS + HEAD0 + li]
        if h >= 0:
            return strict_top(state, state[PLAYERS], N_LANDS + h)
    return np.int64(-1)


@kernel
def char_owner(state, c):
    """The player with strictly most tokens on Character c, or -1 (neutral)."""
    return strict_top(state, state[PLAYERS], N_LANDS + c)


@leaf
def council_member(state, k):
    """Character in Council place k (0-3 the permanent seats, 4 the Representative), or -1."""
    if k < 4:
        return state[HOLDERS + k]
    return state[REPRESENTATIVE]


@kernel
def remove_tokens(state, p, col, n):
    """Player p takes up to n of its tokens from column col back to its supply."""
    k = min(n, state[TOKENS + p * N_COL + col])
    state[TOKENS + p * N_COL + col] -= k
    state[SUPPLY + p] += k
    return k


@kernel
def discard_card(state, k):
    """A card leaves play; the token on a face-down card returns to its owner's supply."""
    if state[CARD_STATUS + k] == 2:
        state[SUPPLY + state[CARD_OWNER + k]] += 1
    state[CARD_STATUS + k] = 0


@kernel
def give_tokens(state, p, col, n):
    """Player p puts up to n tokens from its supply on column col."""
    k = min(n, state[SUPPLY + p])
    state[TOKENS + p * N_COL + col] += k
    state[SUPPLY + p] -= k
    return k


@kernel
def vacate(state, c):
    """Character c leaves its seat (to the pool)."""
    s = state[SEATS + c]
    if s >= 0:
        state[HOLDERS + s] = -1
    if state[REPRESENTATIVE] == c:
        state[REPRESENTATIVE] = -1
    state[SEATS + c] = -1


@kernel
def kill(state, c):
    """Character c is killed: out of the game, its tokens back to their supplies, cards on it
    discarded."""
    vacate(state, c)
    state[SEATS + c] = -2
    for p in range(state[PLAYERS]):
        remove_tokens(state, p, N_LANDS + c, state[TOKENS + p * N_COL + N_LANDS + c])
    for k in range(MAX_CARDS):
        if state[CARD_STATUS + k] == 2 and state[CARD_TARGET + k] == c:
            discard_card(state, k)
    state[KILLED] += 1


@leaf
def char_total(state, c):
    t = np.int64(0)
    for p in range(state[PLAYERS]):
        t += state[TOKENS + p * N_COL + N_LANDS + c]
    return t


@leaf
def land_total(state, li):
    t = np.int64(0)
    for p in range(state[PLAYERS]):
        t += state[TOKENS + p * N_COL + li]
    return t


@leaf
def has_trait(state, c, t):
    return (state[CHARACTER_TRAITS + c] >> t) & 1


@kernel
def cowards_flee(state):
    """An uprising: every Cowardly Character in play leaves its seat for the pool (trait 16);
    counted as ``cowardly_left``."""
    for c in range(N_CHARS):
        if state[SEATS + c] >= 0 and has_trait(state, c, T_COWARDLY) == 1:
            vacate(state, c)
            state[COWARDLY_LEFT] += 1


@kernel
def gift_size(state, c):
    return np.int64(2 if has_trait(state, c, T_COLLECTOR) == 1 else 1)


@kernel
def free_card(state):
    """A card of the Mercenary deck not in play (the first ``mercenary_deck`` slots), or -1."""
    for k in range(state[MERCENARY_DECK]):
        if state[CARD_STATUS + k] == 0:
            return np.int64(k)
    return np.int64(-1)


@kernel
def hand_size(state, p):
    n = 0
    for k in range(MAX_CARDS):
        if state[CARD_STATUS + k] == 1 and state[CARD_OWNER + k] == p:
            n += 1
    return n
