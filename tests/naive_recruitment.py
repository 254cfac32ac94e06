"""Plain-Python twin of ``recruitment.loyalty`` (RULES.md §1): one whole game as a person plays it.

Cards are objects, piles are lists, seats are 0-based inside and 1-based in metric names. The
game reads the same stream as the kernel in the same order: deck generation, deck shuffle, then
per round the random policies' tokens, the reshuffle position of each unclaimed zone card, and one
loyalty die per checked character. Rule steps are methods so tests can run them on hand-built
positions with scripted dice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Protocol

from tests.naive import Stream

REVISIONS = ("1.0", "1.1", "1.2")
COUNTERS = (
    "characters_owned",
    "defections",
    "removed_no_tokens",
    "removed_multi_tie",
    "gap_multi_tie",
    "gap_zero_tie",
    "tokens_returned",
    "equipment_discarded",
)
WIN_SCALE = 60


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


def word_for_face(face: int, sides: int = 6) -> int:
    """A word whose low half rolls ``face`` on a die of ``sides`` (the kernel's multiply-shift)."""
    return -(-(face - 1) * 2**32 // sides)


def below(words: Words, n: int) -> int:
    """A uniform integer 0..n-1 from the next word: the kernel's multiply-shift on the low half."""
    return ((words.next() & 0xFFFFFFFF) * n) >> 32


@dataclass
class Card:
    wage: int = 0
    base: int = 0
    home: int | None = None  # 0-based seat
    equipped: int = 0
    tokens: list[int] = field(default_factory=list)
    owner: int | None = None
    place: str = "deck"  # deck | zone | owned | removed


class Game:
    """State of one game; ``p`` is the model_dump() of LoyaltyParams."""

    def __init__(self, p: dict, words: Words, cards: list[Card]) -> None:
        self.p = p
        self.players: int = p["players"]
        self.revision: str = p["revision"]
        self.words = words
        self.cards = cards
        for card in cards:
            if len(card.tokens) < self.players:
                card.tokens = card.tokens + [0] * (self.players - len(card.tokens))
        self.deck: list[int] = []  # card numbers, top card last
        self.zone: list[int] = []
        self.supply = [p["tokens_per_empire"]] * self.players
        self.gold = [p["starting_gold"]] * self.players
        self.count = {name: [0] * self.players for name in COUNTERS}
        self.gold_issued = p["starting_gold"] * self.players
        self.gold_paid = 0
        self.violations = 0

    # ---- helpers ---------------------------------------------------------------------------

    def loyalty(self, card: Card, empire: int) -> int:
        """Tokens, plus the printed base loyalty once the home empire has a token on the card."""
        t = card.tokens[empire]
        if t >= 1 and card.home == empire:
            return t + card.base
        return t

    def owned_by(self, empire: int) -> list[int]:
        return [i for i, c in enumerate(self.cards) if c.place == "owned" and c.owner == empire]

    def lose_loyalty(self, card: Card, empire: int) -> None:
        if card.tokens[empire] > 0:
            card.tokens[empire] -= 1
            self.supply[empire] += 1
            self.count["tokens_returned"][empire] += 1

    def place(self, card: Card, empire: int, n: int = 1) -> None:
        card.tokens[empire] += n
        self.supply[empire] -= n

    # ---- recruitment phase -----------------------------------------------------------------

    def refill(self) -> None:
        while len(self.zone) < self.players + 1 and self.deck:
            i = self.deck.pop()
            self.cards[i].place = "zone"
            self.zone.append(i)

    def place_random(self, empire: int, budget: int) -> None:
        targets = list(self.zone) + self.owned_by(empire)
        if not targets:
            return
        for _ in range(budget):
            self.place(self.cards[targets[below(self.words, len(targets))]], empire)

    def place_greedy(self, empire: int, budget: int) -> None:
        margin = self.p["greedy_defend_margin"]
        left = budget
        while left > 0:
            candidates = []
            for i in self.owned_by(empire):
                card = self.cards[i]
                own = self.loyalty(card, empire)
                rival = max(self.loyalty(card, f) for f in range(self.players) if f != empire)
                candidates.append((own - rival, own, i))
            if not candidates:
                break
            lead, _, i = min(candidates)
            if lead > margin:
                break
            self.place(self.cards[i], empire)
            left -= 1
        while left > 0:
            offers = []
            for pos, i in enumerate(self.zone):
                card = self.cards[i]
                mine = card.tokens[empire]
                rival = max(card.tokens[f] for f in range(self.players) if f != empire)
                cost = rival - mine + 1  # tokens to become the sole leader
                if cost <= 0 or cost > left:
                    continue
                value = mine + cost + (card.base if card.home == empire else 0)
                # Most loyalty per token, then the cheaper, then earlier in the zone.
                offers.append((-Fraction(value, cost), cost, pos, i))
            if not offers:
                break
            _, cost, _, i = min(offers)
            self.place(self.cards[i], empire, cost)
            left -= cost

    def resolve(self) -> None:
        stay = []
        for i in self.zone:
            card = self.cards[i]
            top = max(card.tokens)
            leaders = [f for f in range(self.players) if card.tokens[f] == top]
            if top == 0:
                # Shuffled back in: a uniformly random position in the deck.
                self.deck.insert(below(self.words, len(self.deck) + 1), i)
                card.place = "deck"
            elif len(leaders) == 1:
                card.place, card.owner = "owned", leaders[0]
            else:
                stay.append(i)
        self.zone = stay

    # ---- maintenance phase -----------------------------------------------------------------

    def loyalty_check(self) -> None:
        die = self.p["loyalty_die"]
        for empire in range(self.players):
            mine = self.owned_by(empire)
            if len(mine) == 1:
                continue  # an empire with a single character skips the check
            for i in mine:
                roll = below(self.words, die) + 1
                if roll > self.loyalty(self.cards[i], empire):
                    self.lose_loyalty(self.cards[i], empire)

    def pay_wages(self) -> None:
        for empire in range(self.players):
            mine = sorted(
                self.owned_by(empire),
                key=lambda i: (-self.loyalty(self.cards[i], empire), self.cards[i].wage, i),
            )
            for i in mine:
                card = self.cards[i]
                if self.gold[empire] >= card.wage:
                    self.gold[empire] -= card.wage
                    self.gold_paid += card.wage
                else:
                    self.lose_loyalty(card, empire)

    def remove(self, card: Card, cause: str) -> None:
        owner = card.owner
        assert owner is not None
        self.count[cause][owner] += 1
        if self.revision == "1.2":
            self.count["equipment_discarded"][owner] += card.equipped
        card.place, card.owner = "removed", None

    def ownership_check(self) -> None:
        for card in self.cards:
            if card.place != "owned":
                continue
            owner = card.owner
            assert owner is not None
            if sum(card.tokens) == 0:
                if self.revision == "1.0":
                    self.count["gap_zero_tie"][owner] += 1
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
            elif self.revision == "1.0":
                self.count["gap_multi_tie"][owner] += 1
            else:
                for f in range(self.players):
                    self.supply[f] += card.tokens[f]
                    self.count["tokens_returned"][f] += card.tokens[f]
                    card.tokens[f] = 0
                self.remove(card, "removed_multi_tie")

    def check_conservation(self) -> None:
        for e in range(self.players):
            on_cards = sum(c.tokens[e] for c in self.cards)
            if self.supply[e] < 0 or on_cards + self.supply[e] != self.p["tokens_per_empire"]:
                self.violations += 1
            if self.gold[e] < 0:
                self.violations += 1
        if sum(self.gold) + self.gold_paid != self.gold_issued:
            self.violations += 1
        if sum(c.place == "deck" for c in self.cards) != len(self.deck) or sum(
            c.place == "zone" for c in self.cards
        ) != len(self.zone):
            self.violations += 1

    # ---- a whole game ----------------------------------------------------------------------

    def play_round(self) -> None:
        for e in range(self.players):
            self.gold[e] += self.p["income"]
        self.gold_issued += self.p["income"] * self.players
        self.refill()
        policies = seat_policies(self.p)
        for e in range(self.players):
            budget = min(self.p["tokens_per_round"], self.supply[e])
            if policies[e] == "greedy":
                self.place_greedy(e, budget)
            else:
                self.place_random(e, budget)
        self.resolve()
        self.loyalty_check()
        self.pay_wages()
        self.ownership_check()
        if self.p["debug"]:
            self.check_conservation()

    def metric_values(self) -> list[int]:
        owned = [len(self.owned_by(e)) for e in range(self.players)]
        self.count["characters_owned"] = owned
        out: list[int] = []
        for name in COUNTERS:
            out.append(sum(self.count[name]))
            out.extend(self.count[name])
        most = max(owned)
        winners = [e for e in range(self.players) if owned[e] == most]
        out.extend(WIN_SCALE // len(winners) if e in winners else 0 for e in range(self.players))
        out.append(int(sum(self.count["gap_multi_tie"]) > 0))
        out.append(int(sum(self.count["gap_zero_tie"]) > 0))
        out.append(sum(c.place != "removed" for c in self.cards))
        out.append(self.violations)
        return out


def seat_policies(p: dict) -> list[str]:
    pol = p["policy"]
    return [pol] * p["players"] if isinstance(pol, str) else list(pol)


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


def play(p: dict, key: int, trial: int) -> list[int]:
    """One whole game of trial ``trial``: the metric values in ``metrics()`` order."""
    words = Stream(key, trial)
    cards, order = deal_deck(p, words)
    game = Game(p, words, cards)
    game.deck = order
    for _ in range(p["rounds"]):
        game.play_round()
    return game.metric_values()
