"""Plain-Python twin of ``recruitment.loyalty`` (Recruitment rules): one whole game as a person
plays it.

Cards are objects, piles are lists, seats are 0-based inside and 1-based in metric names. The
game reads the same streams as the kernel: the trial's stream for chance (deck generation, deck
shuffle, then per round the reshuffle position of each unclaimed zone card left without tokens and
one loyalty die per checked character), and one stream per decision for the agents. Rule steps
are methods so tests can run them on hand-built positions with scripted dice. Nothing here is
imported from the kernel's package except nothing: the layout of metrics and the heuristic's
formula are written out again from the documentation.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from tests.naive import GAMMA, MASK, Stream, mix64
from tests.naive_agents import decision_seed

REVISIONS = ("1.0", "1.1", "1.2")
#: What each revision sets of the ownership check's rule cases (docs/recruitment.md, "Rule cases
#: and revisions"): several rivals tied above the owner, no tokens left, the equipped cards of a
#: character that leaves, where tokens removed from it go.
PRESETS = {
    "1.0": {"multi_tie": "stays", "zero_tokens": "removed", "equipment": "kept"},
    "1.1": {"multi_tie": "removed", "zero_tokens": "removed", "equipment": "kept"},
    "1.2": {"multi_tie": "removed", "zero_tokens": "removed", "equipment": "discarded"},
}
for _cases in PRESETS.values():
    _cases["removed_tokens"] = "bank"
COUNTERS = (
    "characters_owned",
    "defections",
    "removed_no_tokens",
    "removed_multi_tie",
    "gap_multi_tie",
    "gap_zero_tie",
    "gap_equipped",
    "tokens_lost",
    "equipment_discarded",
    "given_multi_tie",
)
WIN_SCALE = 60
UNDEFINED = -(2**62)
PASS = "pass"
# The heuristic's constants (docs/recruitment.md): loyalty checks looked ahead, a weight of one
# character, a placeable supply token's worth, the soft win share's sharpness.
HORIZON = 3
WEIGHT_ONE = 1 << 20
SUPPLY_WEIGHT = WEIGHT_ONE // 50
NO_CAP = 1_000_000  # tokens_per_round: none (no cap) is packed as this
BETA = 2.0


class Words(Protocol):
    def next(self) -> int: ...


class Script:
    """A stream that returns given words (for hand-built positions), then fails loudly."""

    def __init__(self, words: list[int]) -> None:
        self.words = list(words)
        self.used = 0

    def next(self) -> int:
        if self.used >= len(self.words):
            raise AssertionError("the rule drew more random words than scripted")
        self.used += 1
        return self.words[self.used - 1]


class Raw:
    """A SplitMix64 stream from a raw state (a decision's stream)."""

    def __init__(self, state: int) -> None:
        self.state = state

    def next(self) -> int:
        self.state = (self.state + GAMMA) & MASK
        return mix64(self.state)


def word_for_face(face: int, sides: int = 6) -> int:
    """A word whose low half rolls ``face`` on a die of ``sides`` (the kernel's multiply-shift)."""
    return -(-(face - 1) * 2**32 // sides)


def below(words: Words, n: int) -> int:
    """A uniform integer 0..n-1 from the next word: the kernel's multiply-shift on the low half."""
    return ((words.next() & 0xFFFFFFFF) * n) >> 32


def decision_stream(trial_key: int, k: int) -> Raw:
    """Decision ``k``'s stream: the agents' one scheme (tests/naive_agents.py)."""
    return Raw(decision_seed(trial_key, k))


@dataclass
class Card:
    wage: int = 0
    base: int = 0
    home: int | None = None  # 0-based seat
    equipped: int = 0
    tokens: list[int] = field(default_factory=list)
    owner: int | None = None
    place: str = "deck"  # deck | zone | owned | removed
    first: list[int] = field(default_factory=list)  # seats by their first token on it


class Game:
    """State of one game; ``p`` is the model_dump() of LoyaltyParams."""

    def __init__(self, p: dict, words: Words, cards: list[Card]) -> None:
        self.p = p
        self.players: int = p["players"]
        self.cases = cases_of(p)
        #: A designer's ownership check (loyalty, tokens, owner) -> holder or -1, or None.
        self.step: Callable[..., int] | None = None
        self.die: int = p["loyalty_die"]
        self.words = words
        self.cards = cards
        for card in cards:
            if len(card.tokens) < self.players:
                card.tokens = card.tokens + [0] * (self.players - len(card.tokens))
        self.deck: list[int] = []  # card numbers, top card last
        self.zone: list[int] = []
        self.supply = [p["tokens_per_empire"]] * self.players
        self.bank = [0] * self.players
        extra = p.get("seat_gold") or [0] * self.players
        self.gold = [p["starting_gold"] + extra[e] for e in range(self.players)]
        self.placed = [0] * self.players
        self.out = [False] * self.players
        self.passes = 0
        self.turn = 0
        self.round = 0
        self.over = False
        self.count = {name: [0] * self.players for name in COUNTERS}
        self.gold_issued = sum(self.gold)
        self.gold_paid = 0
        self.violations = 0
        self.leader = -1  # last sole leader at a round's end
        self.leader_now = -1  # sole leader at the last round's end (-1: a tie)
        self.streak_start = 0
        self.lead_changes = 0

    # ---- helpers ---------------------------------------------------------------------------

    def loyalty(self, card: Card, empire: int, tokens: int | None = None) -> int:
        """Tokens, plus the printed base loyalty once it counts: once the empire's tokens on the
        card reach it (``at_its_number``), or once the home empire has a token there."""
        t = card.tokens[empire] if tokens is None else tokens
        if self.p["base_loyalty_counts"] == "at_its_number":
            return t + card.base if t >= 1 and t >= card.base else t
        if t >= 1 and card.home == empire:
            return t + card.base
        return t

    def owned_by(self, empire: int) -> list[int]:
        return [i for i, c in enumerate(self.cards) if c.place == "owned" and c.owner == empire]

    def give_back(self, empire: int, n: int, where: str | None = None) -> None:
        """Tokens leaving a card: lost ones where ``returned_tokens`` says, removed ones
        where ``removed_tokens`` does (``where``)."""
        if (where or self.p["returned_tokens"]) == "bank":
            self.bank[empire] += n
        else:
            self.supply[empire] += n
        self.count["tokens_lost"][empire] += n

    def lose_loyalty(self, card: Card, empire: int) -> None:
        if card.tokens[empire] > 0:
            card.tokens[empire] -= 1
            self.give_back(empire, 1)

    # ---- recruitment phase -----------------------------------------------------------------

    def start_round(self) -> None:
        for e in range(self.players):
            self.gold[e] += self.p["income"]
            back = min(self.p["bank_refill"], self.bank[e])
            self.bank[e] -= back
            self.supply[e] += back
        self.gold_issued += self.p["income"] * self.players
        self.placed = [0] * self.players
        self.out = [False] * self.players
        while len(self.zone) < self.players + 1 and self.deck:
            i = self.deck.pop()
            self.cards[i].place = "zone"
            self.zone.append(i)
        rotate = self.p["first_player"] == "rotate"
        self.turn = self.round % self.players if rotate else 0
        self.passes = 0

    def per_round(self) -> int:
        """The most tokens an empire may place a round (none: no cap, packed as NO_CAP)."""
        per = self.p["tokens_per_round"]
        return NO_CAP if per is None else per

    def can_place(self, e: int) -> bool:
        if self.placed[e] >= self.per_round() or self.supply[e] <= 0:
            return False
        return bool(self.zone) or bool(self.owned_by(e))

    def legal_moves(self) -> list:
        """Zone cards in zone order, own characters by card number, then the pass."""
        return [*self.zone, *self.owned_by(self.turn), PASS]

    def apply(self, move: int | str) -> None:
        e = self.turn
        if move == PASS:
            self.passes += 1
            self.out[e] = True
        else:
            assert move in self.legal_moves()
            card = self.cards[move]  # type: ignore[index]
            card.tokens[e] += 1
            if self.cases["multi_tie"] == "first_placed" and e not in card.first:
                card.first.append(e)
            self.supply[e] -= 1
            self.placed[e] += 1
            if self.p["passing"] == "until_all_pass":
                self.passes = 0
        self.turn = (e + 1) % self.players
        self.advance()

    def advance(self) -> None:
        """Forced passes until a seat can decide; the end of the placement starts the rest."""
        final = self.p["passing"] == "final"
        while not self.over:
            if self.passes >= self.players:
                self.end_round()
                continue
            e = self.turn
            if final and self.out[e]:
                self.turn = (e + 1) % self.players
                continue
            if self.can_place(e):
                return
            self.passes += 1
            self.out[e] = True
            self.turn = (e + 1) % self.players

    def resolve(self) -> None:
        stay = []
        for i in self.zone:
            card = self.cards[i]
            top = max(card.tokens)
            leaders = [f for f in range(self.players) if card.tokens[f] == top]
            if top == 0:
                # Shuffled back in: a uniformly random position in a shuffled deck; a deck in a
                # set order is shuffled whole, the card on top first.
                if self.p["shuffle_deck"]:
                    self.deck.insert(below(self.words, len(self.deck) + 1), i)
                else:
                    self.deck.append(i)
                    for k in range(len(self.deck) - 1, 0, -1):
                        j = below(self.words, k + 1)
                        self.deck[k], self.deck[j] = self.deck[j], self.deck[k]
                card.place = "deck"
            elif len(leaders) == 1:
                card.place, card.owner = "owned", leaders[0]
            else:
                stay.append(i)
        self.zone = stay

    # ---- maintenance phase -----------------------------------------------------------------

    def loyalty_check(self) -> None:
        for empire in range(self.players):
            mine = self.owned_by(empire)
            if len(mine) < 2:
                continue  # an empire with a single character skips the check
            for i in mine:
                roll = below(self.words, self.die) + 1
                if roll > self.loyalty(self.cards[i], empire):
                    self.lose_loyalty(self.cards[i], empire)

    def pay_wages(self) -> None:
        for empire in range(self.players):
            cheap = self.p["wage_order"] == "cheap_first"
            mine = sorted(
                self.owned_by(empire),
                key=lambda i: (
                    self.cards[i].wage if cheap else 0,
                    -self.loyalty(self.cards[i], empire),
                    self.cards[i].wage,
                    i,
                ),
            )
            for i in mine:
                card = self.cards[i]
                if self.gold[empire] >= card.wage:
                    self.gold[empire] -= card.wage
                    self.gold_paid += card.wage
                else:
                    self.lose_loyalty(card, empire)

    def strip(self, card: Card) -> None:
        """Every token leaves ``card``, where ``removed_tokens`` says."""
        for f in range(self.players):
            if card.tokens[f]:
                self.give_back(f, card.tokens[f], self.cases["removed_tokens"])
                card.tokens[f] = 0

    def remove(self, card: Card, cause: str | None) -> None:
        owner = card.owner
        assert owner is not None
        if cause is not None:
            self.count[cause][owner] += 1
        if self.cases["equipment"] == "discarded":
            self.count["equipment_discarded"][owner] += card.equipped
        elif card.equipped:
            self.count["gap_equipped"][owner] += 1
        card.place, card.owner = "removed", None

    def user_check(self, card: Card, owner: int) -> None:
        """Maintenance ③ by a designer's step (``self.step``), counted by the situation."""
        import numpy as np

        loyalty = [self.loyalty(card, f) for f in range(self.players)]
        zero = sum(card.tokens) == 0
        best = max(v for f, v in enumerate(loyalty) if f != owner)
        above = [f for f, v in enumerate(loyalty) if f != owner and v == best]
        several = not zero and loyalty[owner] < best and len(above) > 1
        if zero:
            self.count["gap_zero_tie"][owner] += 1
        assert self.step is not None
        holder = int(self.step(np.array(loyalty), np.array(card.tokens), owner))
        if holder < -1 or holder >= self.players:
            self.violations += 1
        elif holder == owner:
            if several:
                self.count["gap_multi_tie"][owner] += 1
        elif holder >= 0:
            card.owner = holder
            self.count["defections"][owner] += 1
            if several:
                self.count["given_multi_tie"][owner] += 1
        else:
            self.strip(card)
            cause = "removed_no_tokens" if zero else "removed_multi_tie" if several else None
            self.remove(card, cause)

    def ownership_check(self) -> None:
        for card in self.cards:
            if card.place != "owned":
                continue
            owner = card.owner
            assert owner is not None
            if self.step is not None:
                self.user_check(card, owner)
                continue
            if sum(card.tokens) == 0:
                self.count["gap_zero_tie"][owner] += 1
                if self.cases["zero_tokens"] == "removed":
                    self.remove(card, "removed_no_tokens")
                continue
            own = self.loyalty(card, owner)
            others = {f: self.loyalty(card, f) for f in range(self.players) if f != owner}
            best = max(others.values())
            if own >= best:
                continue
            top = [f for f, v in others.items() if v == best]
            if len(top) == 1:
                card.owner = top[0]
                self.count["defections"][owner] += 1
            elif self.cases["multi_tie"] == "stays":
                self.count["gap_multi_tie"][owner] += 1
            elif self.cases["multi_tie"] == "first_placed":
                card.owner = first_placed(card, top)
                self.count["defections"][owner] += 1
                self.count["given_multi_tie"][owner] += 1
            else:
                self.strip(card)
                self.remove(card, "removed_multi_tie")

    def check_conservation(self) -> None:
        for e in range(self.players):
            on_cards = sum(c.tokens[e] for c in self.cards)
            if (
                self.supply[e] < 0
                or self.bank[e] < 0
                or on_cards + self.supply[e] + self.bank[e] != self.p["tokens_per_empire"]
            ):
                self.violations += 1
            if self.gold[e] < 0:
                self.violations += 1
        if sum(self.gold) + self.gold_paid != self.gold_issued:
            self.violations += 1
        if sum(c.place == "deck" for c in self.cards) != len(self.deck) or sum(
            c.place == "zone" for c in self.cards
        ) != len(self.zone):
            self.violations += 1

    # ---- standing and the end of a round ---------------------------------------------------

    def standing(self, e: int) -> tuple[int, int]:
        mine = self.owned_by(e)
        if self.p["win"] == "most_characters_then_loyalty":
            return len(mine), sum(self.loyalty(self.cards[i], e) for i in mine)
        return len(mine), 0

    def winners(self) -> list[int]:
        scores = [self.standing(e) for e in range(self.players)]
        return [e for e in range(self.players) if scores[e] == max(scores)]

    def end_round(self) -> None:
        self.resolve()
        self.loyalty_check()
        self.pay_wages()
        self.ownership_check()
        if self.p["debug"]:
            self.check_conservation()
        top = self.winners()
        leader = top[0] if len(top) == 1 else -1
        if leader >= 0:
            if leader != self.leader_now:
                self.streak_start = self.round
            if self.leader >= 0 and leader != self.leader:
                self.lead_changes += 1
            self.leader = leader
        self.leader_now = leader
        self.round += 1
        if self.round >= self.p["rounds"]:
            self.over = True
        else:
            self.start_round()

    # ---- the heuristic and the agents ------------------------------------------------------

    def keep_chance(self, holder: int, card: Card, rival: int) -> float:
        """Chance ``holder`` keeps ``card`` through the next loyalty checks (at most HORIZON)
        if nobody places more: its loyalty must stay at least ``rival`` with a token left."""
        checks = min(self.p["rounds"] - self.round, HORIZON)
        tokens = card.tokens[holder]
        least = 1
        while self.loyalty(card, holder, least) < rival:
            least += 1
        if tokens < least:
            return 0.0
        slack = tokens - least
        if slack >= checks:
            return 1.0

        def lose(k: int) -> float:  # chance a check costs a token after k losses
            return max(0, self.die - self.loyalty(card, holder, tokens - k)) / self.die

        p = [1.0] + [0.0] * slack  # p[k]: chance of k losses so far (k > slack: lost)
        for _ in range(checks):
            for k in range(slack, 0, -1):
                p[k] = p[k] * (1.0 - lose(k)) + p[k - 1] * lose(k - 1)
            p[0] = p[0] * (1.0 - lose(0))
        total = 0.0
        for x in p:
            total += x
        return total

    def project(self, card: Card) -> tuple[int, int]:
        """(holder, weight in 1/WEIGHT_ONE) of a card: resolve and check ownership now, then
        the chance its holder keeps it (heuristic)."""
        if card.place == "owned":
            h = card.owner
        elif card.place == "zone":
            top = max(card.tokens)
            leaders = [f for f in range(self.players) if card.tokens[f] == top]
            if top == 0 or len(leaders) > 1:
                return -1, 0
            h = leaders[0]
        else:
            return -1, 0
        assert h is not None
        if self.step is not None:
            return self.project_by_step(card, h)
        if sum(card.tokens) == 0:
            if card.place == "owned" and self.cases["zero_tokens"] == "stays":
                return h, WEIGHT_ONE  # it stays for good
            return -1, 0
        best = max(self.loyalty(card, f) for f in range(self.players) if f != h)
        if self.loyalty(card, h) < best:
            top = [f for f in range(self.players) if f != h and self.loyalty(card, f) == best]
            if len(top) > 1 and self.cases["multi_tie"] == "stays":
                best = 0  # 1.0's gap: it stays while several tie above, while it has a token
            elif len(top) > 1 and self.cases["multi_tie"] == "removed":
                return -1, 0
            else:
                h = first_placed(card, top)
                best = max(self.loyalty(card, f) for f in range(self.players) if f != h)
        return h, int(self.keep_chance(h, card, best) * WEIGHT_ONE + 0.5)

    def project_by_step(self, card: Card, h: int) -> tuple[int, int]:
        """:meth:`project` under a designer's ownership check: the step names the holder after
        the check (out of range: unchanged), who keeps it against the best other loyalty; kept
        below a rival reads as 1.0's gap (while it has a token), with no tokens as for good."""
        import numpy as np

        loyalty = [self.loyalty(card, f) for f in range(self.players)]
        assert self.step is not None
        holder = int(self.step(np.array(loyalty), np.array(card.tokens), h))
        if holder < -1 or holder >= self.players:
            holder = h
        if holder < 0:
            return -1, 0
        if sum(card.tokens) == 0:
            return holder, WEIGHT_ONE
        best = max([0] + [v for f, v in enumerate(loyalty) if f != holder])
        if holder == h and loyalty[h] < best:
            best = 0
        return holder, int(self.keep_chance(holder, card, best) * WEIGHT_ONE + 0.5)

    def worth(self) -> list[int]:
        """Each seat's projected characters plus its placeable supply (1/WEIGHT_ONE units)."""
        x = [0] * self.players
        for card in self.cards:
            h, w = self.project(card)
            if h >= 0:
                x[h] += w
        per = self.per_round()
        for e in range(self.players):
            room = per - self.placed[e] + per * (self.p["rounds"] - self.round - 1)
            x[e] += SUPPLY_WEIGHT * max(min(self.supply[e], room), 0)
        return x

    def heuristic(self, e: int) -> float:
        if self.over:
            top = self.winners()
            return 1 / len(top) if e in top else 0.0
        terms = [math.exp(BETA * x / WEIGHT_ONE) for x in self.worth()]
        total = 0.0
        for term in terms:  # in seat order, as the kernel adds them
            total += term
        return terms[e] / total

    def value_after(self, move: int | str) -> float:
        """The mover's heuristic right after ``move``, before any chance event."""
        e = self.turn
        if move == PASS:
            return self.heuristic(e)
        card = self.cards[move]  # type: ignore[index]
        card.tokens[e] += 1
        self.supply[e] -= 1
        self.placed[e] += 1
        v = self.heuristic(e)
        card.tokens[e] -= 1
        self.supply[e] += 1
        self.placed[e] -= 1
        return v

    def choose(self, agent: str, words: Words) -> int | str:
        moves = self.legal_moves()
        if agent == "random":
            return moves[below(words, len(moves))]
        assert agent == "greedy"
        best, ties, pick = -1.0, 0, moves[-1]
        for m in moves:
            v = self.value_after(m)
            if v > best:
                best, ties, pick = v, 1, m
            elif v == best:
                ties += 1
                if below(words, ties) == 0:
                    pick = m
        return pick

    # ---- a whole game ----------------------------------------------------------------------

    def returns(self) -> list[float]:
        top = self.winners()
        n = len(self.cards)
        return [
            (1 / len(top) if e in top else 0.0) + 1e-3 * len(self.owned_by(e)) / (n + 1)
            for e in range(self.players)
        ]

    def metric_values(self) -> list[int]:
        owned = [len(self.owned_by(e)) for e in range(self.players)]
        self.count["characters_owned"] = owned
        out: list[int] = []
        for name in COUNTERS:
            out.append(sum(self.count[name]))
            out.extend(self.count[name])
        top = self.winners()
        out.extend(WIN_SCALE // len(top) if e in top else 0 for e in range(self.players))
        decided = UNDEFINED
        if len(top) == 1 and self.leader_now == top[0]:
            decided = self.streak_start + 1
        out += [
            int(len(top) > 1),
            self.round,
            self.lead_changes,
            decided,
            int(sum(self.count["gap_multi_tie"]) > 0),
            int(sum(self.count["gap_zero_tie"]) > 0),
            int(sum(self.count["gap_equipped"]) > 0),
            sum(c.place != "removed" for c in self.cards),
            sum(self.bank),
            self.violations,
        ]
        return out


def cases_of(p: dict) -> dict[str, str]:
    """The rule cases in force: each set in ``p``, else by its revision (a scenario's own
    revision, under ``revisions``, changes the one it is based on)."""
    chain = []
    name = p["revision"]
    while name not in PRESETS:
        chain.append(p["revisions"][name])
        name = p["revisions"][name]["based_on"]
    cases = dict(PRESETS[name])
    for preset in reversed(chain):
        cases.update({k: v for k, v in preset.items() if k in cases and v is not None})
    cases.update({k: p[k] for k in cases if p.get(k) is not None})
    return cases


def first_placed(card: Card, tied: list[int]) -> int:
    """Of the ``tied`` seats, the one whose first token on ``card`` came first (a seat with no
    recorded token, in a hand-built position, after those, lowest first)."""
    return min(tied, key=lambda f: (card.first.index(f) if f in card.first else len(card.first), f))


def seat_agents(p: dict) -> list[str]:
    pol = p["policies"]
    pol = pol if isinstance(pol, list) else [pol] * p["players"]
    return [a if isinstance(a, str) else a["agent"] for a in pol]


def deal_deck(p: dict, words: Words) -> tuple[list[Card], list[int]]:
    """The printed cards (generated: wage, base, home, equipped per card) and the shuffled deck."""
    deck = p["deck"]
    cards = []
    if isinstance(deck, list):
        for c in deck:
            home = c["home"] - 1 if c["home"] else None
            cards.append(Card(c["wage"], c["base_loyalty"], home, c["equipped"]))
    else:

        def draw(d: int | dict) -> int:
            lo, hi = (d, d) if isinstance(d, int) else (d["low"], d["high"])
            return lo + below(words, hi - lo + 1)

        for _ in range(deck["count"]):
            wage, base, home, equipped = (
                draw(deck[f]) for f in ("wage", "base_loyalty", "home", "equipped")
            )
            cards.append(Card(wage, base, home - 1 if home else None, equipped))
    order = list(range(len(cards)))
    if p["shuffle_deck"]:
        for i in range(len(order) - 1, 0, -1):
            j = below(words, i + 1)
            order[i], order[j] = order[j], order[i]
    return cards, order


def new_game(
    p: dict, key: int, trial: int, step: Callable[..., int] | None = None
) -> tuple[Game, int]:
    """A game of trial ``trial`` set up to its first decision, and the trial's key (``step``: a
    designer's ownership check, see :meth:`Game.user_check`)."""
    words = Stream(key, trial)
    trial_key = words.state
    cards, order = deal_deck(p, words)
    game = Game(p, words, cards)
    game.step = step
    game.deck = order
    game.start_round()
    game.advance()
    return game, trial_key


def play(p: dict, key: int, trial: int, step: Callable[..., int] | None = None) -> list[int]:
    """One whole game of trial ``trial``: the metric values in ``metrics()`` order."""
    game, trial_key = new_game(p, key, trial, step)
    agents = seat_agents(p)
    k = 0
    while not game.over:
        move = game.choose(agents[game.turn], decision_stream(trial_key, k))
        k += 1
        game.apply(move)
    return game.metric_values()


def clone(game: Game) -> Game:
    return copy.deepcopy(game)
