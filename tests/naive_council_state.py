"""Plain-Python twin of council.game, part 1: the position and the rules every phase reads.

The twin's names (traits, Council seats, Mercenary kinds, victories, gaps), its ``Card`` and the
``GameState`` dataclass: the position in dictionaries and lists, the helpers that read it (holders,
priority, Council members), greedy's scores (``standings``, ``edge``, ``delta``), the victory checks
and the setup. ``tests/naive_council.py`` puts the whole ``Game`` together.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from simulator.procedures.council.game import heuristic as H
from simulator.procedures.council.game.params import TRAITS as GAME_TRAITS
from tests.naive import Stream

# The trait names are data shared with the kernel (their order is the packed encoding).
TRAITS = GAME_TRAITS
COUNCIL = ("warlord", "treasurer", "bishop", "privy_councillor")
CATEGORY_TRAITS = {
    "military": ("warlike", "peaceful"),
    "religious": ("believer", "atheist"),
    "social": ("humane", "egoist"),
}
KINDS = ("messenger", "spy", "thief", "guard", "assassin")
VICTORIES = ("election", "coup", "will_of_people", "hand_of_order", "draw")
GAPS = (
    "tip_tie",
    "no_appointer",
    "simultaneous_victory",
    "hand_of_order_tie",
    "removal_four_votes",
    "stalled_draw",
    "advice_tie",
    "hand_cap",
    "deck_cap",
    "buy_cap",
)
UNDEFINED = -(2**62)  # the kernel's mark of a value a game does not define
MAX_HAND = 6  # the invented defaults of max_hand and max_buys (the game reads the knobs)
MAX_BUYS = 40
MAX_CARDS = 48
MAX_MOVES = 512


class GameOver(Exception):
    pass


@dataclass
class Card:
    kind: str
    owner: int
    turn: int
    target: int = -1
    face_down: bool = False  # False: in its owner's hand
    bribe: bool = False


@dataclass
class GameState:
    p: dict
    stream: Stream
    n: int = 0
    coins: list[int] = field(default_factory=list)
    supply: list[int] = field(default_factory=list)
    on_land: list[list[int]] = field(default_factory=list)  # [player][land]
    on_char: list[list[int]] = field(default_factory=list)  # [player][character]
    seat_of: list = field(default_factory=list)  # seat name, ("head", l), "pool" or "dead"
    civ: list[int] = field(default_factory=list)
    sol: list[int] = field(default_factory=list)
    cards: list = field(default_factory=list)  # slots: Card or None
    active: dict = field(default_factory=dict)  # slot -> law index
    mood: int = 0
    treasury: int = 0
    turn: int = 0
    representative: int = -1
    veto_used: bool = False
    winners: list[int] = field(default_factory=list)
    victory: str = ""
    laws_passed: int = 0
    killed: int = 0
    contested: int = 0
    played: dict = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    gaps: dict = field(default_factory=lambda: dict.fromkeys(GAPS, 0))
    leader: int = -1  # the last player who led alone
    lead_changes: int = 0
    run: int = -1  # who leads (or -1) since turn run_since, without a break
    run_since: int = 0
    rare_used: dict = field(default_factory=dict)  # turn -> players who made a gift rare
    sycophant_leader: dict = field(default_factory=dict)  # Character -> last leader it followed
    empty_head_chances: int = 0  # a Head with no token came to act with tokens on its Land
    ignored: int = -1  # the law the Brown Plains ignore (-1: none)
    home: list = field(default_factory=list)  # the Land each Character headed last (-1: none)
    window: int = 0  # 1 in a reveal window after the turn's first
    phase_reveals: int = 0  # cards revealed in those windows
    advice_without_priority: int = 0  # advice through a Head by a player without priority on it
    spending_ties: int = 0  # spending phases with players tied on coins
    vacant_heads: int = 0  # Head seats vacant at an Action phase's start, the pool not empty
    cowardly_left: int = 0  # Cowardly Characters that left for an uprising

    # -- helpers ---------------------------------------------------------------------------------

    def pick(self, n: int) -> int:
        if n <= 1:
            return 0
        return ((self.stream.next() & 0xFFFFFFFF) * n) >> 32

    def greedy(self, player: int) -> bool:
        pol = self.p["policies"]
        agent = pol[player] if isinstance(pol, list) else pol
        return (agent if isinstance(agent, str) else agent["agent"]) == "greedy"

    def choose(self, player: int, scores: list[int]) -> int:
        """Random: uniformly; greedy: a best-scoring move, ties by lot."""
        if not self.greedy(player):
            return self.pick(len(scores))
        best = max(scores)
        tops = [i for i, s in enumerate(scores) if s == best]
        return tops[self.pick(len(tops))]

    def has(self, c: int, trait: str) -> bool:
        return trait in self.p["characters"][c]["traits"]

    def holder(self, seat) -> int:
        for c, s in enumerate(self.seat_of):
            if s == seat:
                return c
        return -1

    def head_of(self, land: int) -> int:
        return self.holder(("head", land))

    def in_play(self, c: int) -> bool:
        return self.seat_of[c] not in ("pool", "dead")

    def is_head(self, c: int) -> bool:
        return isinstance(self.seat_of[c], tuple)

    def strict_top(self, counts: list[int]) -> int:
        top = max(counts)
        if top == 0 or counts.count(top) > 1:
            return -1
        return counts.index(top)

    def combined_top(self, land: int) -> int:
        """The one player with most Land + Head tokens on ``land`` (no Head tie-break), or -1."""
        head = self.head_of(land)
        total = [
            self.on_land[q][land] + (self.on_char[q][head] if head >= 0 else 0)
            for q in range(self.n)
        ]
        return self.strict_top(total)

    def char_owner(self, c: int) -> int:
        return self.strict_top([self.on_char[q][c] for q in range(self.n)])

    def heads_held(self):
        """(land, its Head, the Head's player) for each Land whose Head a player holds, in Land
        order (who advises the Council, who votes on a Land law)."""
        for land in range(7):
            h = self.head_of(land)
            if h >= 0 and (q := self.char_owner(h)) >= 0:
                yield land, h, q

    def land_priority(self, land: int) -> tuple[int, list[int]]:
        """(owner, []) or (-1, []) for no tokens or (-2, contesting players): Land + Head tokens,
        ties to more tokens on the Head."""
        head = self.head_of(land)
        head_tok = [self.on_char[q][head] if head >= 0 else 0 for q in range(self.n)]
        comb = [self.on_land[q][land] + head_tok[q] for q in range(self.n)]
        top = max(comb)
        if top == 0:
            return -1, []
        tied = [q for q in range(self.n) if comb[q] == top]
        if len(tied) == 1:
            return tied[0], []
        htop = max(head_tok[q] for q in tied)
        tied = [q for q in tied if head_tok[q] == htop]
        if len(tied) == 1:
            return tied[0], []
        return -2, tied

    def priority_count(self, q: int) -> int:
        n = sum(self.land_priority(land)[0] == q for land in range(7))
        return n + sum(self.in_play(c) and self.char_owner(c) == q for c in range(11))

    # -- greedy's scores: how close each player is to winning (the weights are the kernel's) ------

    def standings(self) -> list[float]:
        """Priority count, the better of Coup / Will progress, Council members held, margins
        where the player leads, coins up to the coming tax and a token."""
        n = self.n
        held, prio, margin, council = [0] * n, [0] * n, [0] * n, [0] * n
        kinds = [[0] * n, [0] * n]  # Lands held by their own tokens: military, civil
        for land in range(7):
            owner = self.land_priority(land)[0]
            if owner >= 0:
                held[owner] += 1
            counts = [self.on_land[q][land] for q in range(n)]
            t = self.strict_top(counts)
            if t >= 0:
                margin[t] += min(counts[t] - max(counts[:t] + counts[t + 1 :]) - 1, 2)
                kinds[0][t] += self.sol[land] >= self.civ[land]
                kinds[1][t] += self.sol[land] <= self.civ[land]
        for c in range(11):
            counts = [self.on_char[q][c] for q in range(n)]
            t = self.strict_top(counts)
            if self.in_play(c) and t >= 0:
                prio[t] += 1
                margin[t] += min(counts[t] - max(counts[:t] + counts[t + 1 :]) - 1, 2)
        for k in range(5):
            c = self.council_member(k)
            if c >= 0 and self.char_owner(c) >= 0:
                council[self.char_owner(c)] += 1
        seats = []
        for seat in ("warlord", "privy_councillor"):
            h = self.holder(seat)
            seats.append(self.char_owner(h) if h >= 0 else -1)
        half = max(round(self.p["tax_rate"] * 2) + self.tax_delta_halves(), 0)
        out = []
        for q in range(n):
            v = float(prio[q] + held[q])
            best = 0.0
            for cond in range(2):
                lands = min(kinds[cond][q], 4)
                x = H.LAND_STEP * lands
                if seats[cond] == q:
                    x += H.SEAT_STEP + H.PAIR_STEP * lands
                best = max(best, x)
            v += best
            v += H.COUNCIL_STEP * council[q] + H.COUNCIL_NEAR * max(council[q] - 3, 0)
            v += H.MARGIN * margin[q]
            need = (half * held[q]) // 2 + self.p["influence_cost"]
            v += H.COIN * min(self.coins[q], need) + H.COIN_SPARE * max(self.coins[q] - need, 0)
            out.append(v)
        return out

    def edge(self, q: int) -> float:
        v = self.standings()
        return v[q] - H.RIVAL * max(v[r] for r in range(self.n) if r != q)

    def delta(self, q: int, where, d: int, coins: int = 0) -> int:
        """Greedy's score of changing q's tokens at ``where`` (None: nowhere) by d and its coins
        by ``coins``: the change of q's edge over the best rival, scaled to an integer."""
        before = self.edge(q)
        table = self.on_land if where is not None and where[0] == "land" else self.on_char
        if where is not None:
            table[q][where[1]] += d
        self.coins[q] += coins
        after = self.edge(q)
        if where is not None:
            table[q][where[1]] -= d
        self.coins[q] -= coins
        return round((after - before) * H.SCALE)

    def take(self, q: int, where: tuple[str, int], k: int) -> None:
        table = self.on_land if where[0] == "land" else self.on_char
        k = min(k, table[q][where[1]])
        table[q][where[1]] -= k
        self.supply[q] += k

    def give(self, q: int, where: tuple[str, int], k: int) -> None:
        table = self.on_land if where[0] == "land" else self.on_char
        k = min(k, self.supply[q])
        table[q][where[1]] += k
        self.supply[q] -= k

    def discard(self, k: int) -> None:
        card = self.cards[k]
        if card.face_down:
            self.supply[card.owner] += 1
        self.cards[k] = None

    def council_member(self, k: int) -> int:
        return self.holder(COUNCIL[k]) if k < 4 else self.representative

    def vacate(self, c: int) -> None:
        if self.representative == c:
            self.representative = -1
        self.seat_of[c] = "pool"

    def cowards_flee(self) -> None:
        """An uprising: every Cowardly Character in play leaves for the pool (trait 16)."""
        for c in range(11):
            if self.in_play(c) and self.has(c, "cowardly"):
                self.vacate(c)
                self.cowardly_left += 1

    def end(self, winners: list[int], victory: str) -> None:
        self.winners = winners
        self.victory = victory
        raise GameOver

    # -- victory -----------------------------------------------------------------------------------

    def check_victory(self) -> None:
        found = []
        for seat, victory, ok in (
            ("warlord", "coup", lambda land: self.sol[land] >= self.civ[land]),
            ("privy_councillor", "will_of_people", lambda land: self.sol[land] <= self.civ[land]),
        ):
            h = self.holder(seat)
            if h < 0:
                continue
            q = self.char_owner(h)
            if q < 0:
                continue
            lands = [
                land
                for land in range(7)
                if self.strict_top([self.on_land[r][land] for r in range(self.n)]) == q and ok(land)
            ]
            if len(lands) >= 4:
                found.append((q, victory))
        if found:
            if len(found) > 1:
                self.gaps["simultaneous_victory"] += 1
            self.end([found[0][0]], found[0][1])

    def check_election(self) -> None:
        owners = set()
        for k in range(5):
            c = self.council_member(k)
            if c < 0:
                return
            owners.add(self.char_owner(c))
        if len(owners) == 1 and -1 not in owners:
            self.end([owners.pop()], "election")

    # -- setup -------------------------------------------------------------------------------------

    def placements(self) -> list[int]:
        """Who places each setup token, in turn (an invented setup, ``setup_order``)."""
        n, how = self.n, self.p.get("setup_order", "fixed")
        seats = list(range(n))
        if how == "random":  # one order from the stream: Fisher-Yates, a lot per seat but one
            for i in range(n - 1, 0, -1):
                j = self.pick(i + 1)
                seats[i], seats[j] = seats[j], seats[i]
        out = []
        for r in range(self.p["start_tokens"]):
            if how == "rotating":
                out += [seats[(r + k) % n] for k in range(n)]
            elif how == "snake" and r % 2 == 1:
                out += seats[::-1]
            else:
                out += seats
        return out

    def setup(self) -> None:
        p = self.p
        self.n = p["players"]
        self.coins = [p["start_coins"]] * self.n
        self.supply = [p["tokens_per_player"]] * self.n
        self.on_land = [[0] * 7 for _ in range(self.n)]
        self.on_char = [[0] * 11 for _ in range(self.n)]
        names = [land["name"] for land in p["lands"]]
        self.seat_of = []
        for c in p["characters"]:
            s = c["seat"]
            self.seat_of.append(s if s in COUNCIL or s == "pool" else ("head", names.index(s)))
        self.home = [s[1] if isinstance(s, tuple) else -1 for s in self.seat_of]
        self.civ = [land["civilians"] for land in p["lands"]]
        self.sol = [land["soldiers"] for land in p["lands"]]
        self.cards = [None] * MAX_CARDS
        self.mood = p["mood_start"]
        self.treasury = p["start_treasury"]
        self.active = {i: i for i in range(p.get("start_laws", 0))}  # the deck's first laws
        if p["mood"] and self.mood <= -3 and p.get("cowardly_leaves") == "uprising":
            self.cowards_flee()  # an uprising from the start
        for q in self.placements():
            if self.supply[q] == 0:
                continue
            options = [("land", land) for land in range(7)]
            options += [("char", c) for c in range(11) if self.in_play(c)]
            scores = [self.delta(q, o, 1) if self.greedy(q) else 0 for o in options]
            self.give(q, options[self.choose(q, scores)], 1)
            self.check_victory()
