"""Plain-Python twin of council.game (RULES.md §3): one game as a person reads the rules.

It keeps the position in dictionaries and lists, not the kernel's arrays, and reads the same
stream (``Stream``): a word for every choice with two or more options, in the same order as the
kernel. ``play`` returns the metric values in the order of ``metrics()``.
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
)
UNDEFINED = -(2**62)  # the kernel's mark of a value a game does not define
MAX_HAND = 6
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
class Game:
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

    def char_owner(self, c: int) -> int:
        return self.strict_top([self.on_char[q][c] for q in range(self.n)])

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
        self.civ = [land["civilians"] for land in p["lands"]]
        self.sol = [land["soldiers"] for land in p["lands"]]
        self.cards = [None] * MAX_CARDS
        self.mood = p["mood_start"]
        self.treasury = p["start_treasury"]
        for _ in range(p["start_tokens"]):
            for q in range(self.n):
                if self.supply[q] == 0:
                    continue
                options = [("land", land) for land in range(7)]
                options += [("char", c) for c in range(11) if self.in_play(c)]
                scores = [self.delta(q, o, 1) if self.greedy(q) else 0 for o in options]
                self.give(q, options[self.choose(q, scores)], 1)
                self.check_victory()

    # -- start of a turn: hidden mercenaries revealed ---------------------------------------------

    def guard_answers(self, target: int, bonus: int) -> int:
        for m, card in enumerate(self.cards):
            if card is None or not card.face_down or card.kind != "guard" or card.target != target:
                continue
            r = card.owner
            scores = [
                self.delta(r, ("char", target), min(bonus, self.supply[r] + 1))
                if self.greedy(r)
                else 0,
                -1 if self.char_owner(target) == r else 0,
            ]
            if self.choose(r, scores) == 0:
                return m
        return -1

    def power_user(self, q: int, effect: str) -> bool:
        """Priority on the Head of a Land with this power, or 3+ tokens on that Land."""
        for land, data in enumerate(self.p["lands"]):
            if data["effect"] != effect:
                continue
            head = self.head_of(land)
            if (head >= 0 and self.char_owner(head) == q) or self.on_land[q][land] >= 3:
                return True
        return False

    def power_holder(self, effect: str) -> int:
        """The player with priority on the Head of the first Land with this power, or -1."""
        for land, data in enumerate(self.p["lands"]):
            if data["effect"] == effect:
                head = self.head_of(land)
                if head >= 0:
                    return self.char_owner(head)
        return -1

    def rare_gift_open(self, q: int) -> bool:
        """The Golden Coast: a gift made rare for 2 coins, once a turn (table or player)."""
        if self.coins[q] < self.p["rare_gift_cost"] or not self.power_user(q, "rare_gift"):
            return False
        used = self.rare_used.get(self.turn, set())
        return not used if self.p["rare_gift_once"] == "table" else q not in used

    def use_rare_gift(self, q: int) -> None:
        self.rare_used.setdefault(self.turn, set()).add(q)
        self.coins[q] -= self.p["rare_gift_cost"]
        self.to_bank += self.p["rare_gift_cost"]

    def gift_size(self, c: int) -> int:
        return 2 if self.has(c, "collector") else 1

    def reveal(self) -> None:
        for k in range(MAX_CARDS):
            card = self.cards[k]
            if card is None or not card.face_down or card.turn >= self.turn:
                continue
            if card.kind == "guard":
                continue
            q, target = card.owner, card.target
            options: list = [None]
            scores = [0]
            if card.kind == "messenger":
                if card.bribe:
                    extra = min(self.coins[q] // 3, 2)
                else:  # 1: the gift may be made rare (Golden Coast)
                    extra = 1 if self.rare_gift_open(q) else 0
                for j in range(extra + 1):
                    gain = 1 + j if card.bribe else self.gift_size(target) + j
                    if card.bribe and self.has(target, "incorruptible"):
                        gain = 0
                    options.append(j)
                    paid = -3 * j if card.bribe else -self.p["rare_gift_cost"] * j
                    put = min(gain, self.supply[q] + 1)
                    greedy = self.greedy(q)
                    scores.append(self.delta(q, ("char", target), put, paid) if greedy else 0)
            elif card.kind == "assassin":
                options.append(0)
                scores.append(-1 if self.char_owner(target) == q else 0)
            else:
                for m, other in enumerate(self.cards):
                    if other is not None and other.face_down and other.owner != q:
                        options.append(m)
                        scores.append(0)
            choice = options[self.choose(q, scores)]
            if choice is None:
                continue
            self.played[card.kind] += 1
            if card.kind == "messenger":
                self.discard(k)
                if not card.bribe:
                    if choice == 1:
                        self.use_rare_gift(q)
                    self.give(q, ("char", target), self.gift_size(target) + choice)
                else:
                    self.coins[q] -= 3 * choice
                    self.to_bank += 3 * choice
                    if not self.has(target, "incorruptible"):
                        self.give(q, ("char", target), 1 + choice)
            elif card.kind == "assassin":
                m = self.guard_answers(target, 2)
                if m >= 0:
                    r = self.cards[m].owner
                    self.played["guard"] += 1
                    self.discard(m)
                    self.discard(k)
                    self.give(r, ("char", target), 2)
                    for _ in range(3):
                        chars = [c for c in range(11) if self.on_char[q][c] > 0]
                        if not chars:
                            break
                        greedy = self.greedy(q)
                        scores = [self.delta(q, ("char", c), -1) if greedy else 0 for c in chars]
                        self.take(q, ("char", chars[self.choose(q, scores)]), 1)
                else:
                    self.kill(target)
                    if self.killed >= 5:
                        self.hand_of_order()
            else:
                m = choice
                other = self.cards[m]
                owner, tm = other.owner, other.target
                if card.kind == "spy":
                    self.discard(k)
                    self.discard(m)
                    if other.kind == "messenger" and not other.bribe:
                        self.give(owner, ("char", tm), self.gift_size(tm))
                    elif other.kind == "messenger":
                        self.take(owner, ("char", tm), 1)
                        for c in range(11):
                            if self.seat_of[c] != "dead" and self.has(c, "incorruptible"):
                                self.take(owner, ("char", c), 1)
                    elif other.kind == "thief":
                        self.take(owner, ("char", tm), 1)
                    elif other.kind == "assassin":
                        self.take(owner, ("char", tm), self.on_char[owner][tm])
                        for c in range(11):
                            if self.seat_of[c] != "dead" and any(
                                self.has(c, t) for t in ("peaceful", "believer", "humane")
                            ):
                                self.take(owner, ("char", c), 1)
                    elif other.kind == "guard":
                        self.take(q, ("char", tm), 1)
                elif other.kind == "messenger":  # a thief exposes a messenger
                    gm = self.guard_answers(tm, 1)
                    if gm >= 0:
                        r = self.cards[gm].owner
                        self.played["guard"] += 1
                        self.discard(gm)
                        self.discard(k)
                        self.give(r, ("char", tm), 1)
                        self.check_victory()
                        continue
                    take_card = True
                    if other.bribe:
                        take_card = self.choose(q, [0, 0]) == 0
                    self.discard(k)
                    self.discard(m)
                    if take_card:
                        self.cards[m] = Card("messenger", q, self.turn)
                    else:
                        self.coins[q] += 2
                        self.issued += 2
                else:
                    self.discard(k)
                    self.discard(m)
            self.check_victory()

    def kill(self, c: int) -> None:
        self.vacate(c)
        self.seat_of[c] = "dead"
        for q in range(self.n):
            self.take(q, ("char", c), self.on_char[q][c])
        for k, card in enumerate(self.cards):
            if card is not None and card.face_down and card.target == c:
                self.discard(k)
        self.killed += 1

    def hand_of_order(self) -> None:
        self.fill_vacancies()
        self.choose_representative()
        alive = list(range(self.n))
        members = [self.council_member(k) for k in range(5)]
        tiers = [
            lambda q: sum(self.on_char[q][c] for c in members if c >= 0),
            lambda q: sum(self.on_char[q]),
            lambda q: sum(self.on_char[q]) + sum(self.on_land[q]),
        ]
        for tier in tiers:
            top = max(tier(q) for q in alive)
            alive = [q for q in alive if tier(q) == top]
        if len(alive) > 1:
            self.gaps["hand_of_order_tie"] += 1
        self.end(alive, "hand_of_order")

    # -- income ------------------------------------------------------------------------------------

    def income_value(self, land: int, base: int, controlled: bool) -> int:
        head = self.head_of(land)
        v = base
        if controlled and head >= 0:
            v += self.has(head, "thrifty") - self.has(head, "wasteful")
        if self.p["mood"] and self.p["lands"][land]["effect"] != "mood_immune":
            if self.mood <= -3:
                return 0
            unrest = self.mood == -2 and self.sol[land] < self.civ[land]
            if unrest and (head < 0 or not self.has(head, "domineering")):
                return 0
            if self.mood >= 3:
                v += 1
        return max(v, 0)

    def income(self) -> None:
        if self.p["mood"] and self.mood <= -3:  # an uprising: the Cowardly leave their seats
            for c in range(11):
                if self.in_play(c) and self.has(c, "cowardly"):
                    self.vacate(c)
        prio = [self.land_priority(land) for land in range(7)]
        give_up = [-1] * self.n
        for q in range(self.n):
            options = [None] + [
                land
                for land in range(7)
                if prio[land][0] == q
                and self.civ[land] + self.sol[land] < self.p["lands"][land]["size"]
            ]
            give_up[q] = options[self.choose(q, [0] * len(options))] if len(options) else None
            if give_up[q] is None:
                give_up[q] = -1
        for land, (o, tied) in enumerate(prio):
            if o >= 0:
                if give_up[o] == land:
                    continue
                v = self.income_value(land, self.civ[land], True)
                self.coins[o] += v
                self.issued += v
            elif o == -2:
                self.contested += 1
                v = self.income_value(land, 1, False)
                for q in tied:
                    self.coins[q] += v
                    self.issued += v
        for land in range(7):
            if self.p["lands"][land]["effect"] != "income_bonus":
                continue
            # Black Harbour: +1 in any conditions to the one player with most Land + Head tokens;
            # a tie on that total gives it to nobody (no tie-break on the Head).
            head = self.head_of(land)
            total = [
                self.on_land[q][land] + (self.on_char[q][head] if head >= 0 else 0)
                for q in range(self.n)
            ]
            q = self.strict_top(total)
            if q >= 0:
                self.coins[q] += 1
                self.issued += 1
        for q in range(self.n):
            if give_up[q] >= 0:
                self.civ[give_up[q]] += 1

    # -- spending ----------------------------------------------------------------------------------

    def mercenary_cost(self, q: int) -> int:
        """1 less with priority on a Zalesye-like Land's Head or 3+ tokens on that Land."""
        for land, data in enumerate(self.p["lands"]):
            if data["effect"] != "mercenary_discount":
                continue
            head = self.head_of(land)
            if (head >= 0 and self.char_owner(head) == q) or self.on_land[q][land] >= 3:
                return max(self.p["mercenary_cost"] - 1, 1)
        return self.p["mercenary_cost"]

    def spending(self) -> None:
        order = sorted(range(self.n), key=lambda q: self.coins[q])
        for q in order:
            for _ in range(MAX_BUYS):
                options: list = [None]
                scores = [0]
                if self.coins[q] >= self.p["influence_cost"] and self.supply[q] > 0:
                    for land in range(7):
                        options.append(("land", land))
                        cost = -self.p["influence_cost"]
                        greedy = self.greedy(q)
                        scores.append(self.delta(q, ("land", land), 1, cost) if greedy else 0)
                hand = sum(
                    1 for c in self.cards if c is not None and not c.face_down and c.owner == q
                )
                cost = self.mercenary_cost(q)
                if (
                    self.p["mercenaries"]
                    and self.coins[q] >= cost
                    and None in self.cards
                    and hand < MAX_HAND
                ):
                    paid = self.delta(q, None, 0, -cost) if self.greedy(q) else 0
                    for kind in KINDS:
                        options.append(kind)
                        # a card is worth CARD; a Messenger, a gift to come, more
                        worth = H.CARD + (H.MESSENGER_CARD if kind == "messenger" else 0.0)
                        scores.append(paid + round(worth * H.SCALE) if self.greedy(q) else 0)
                choice = options[self.choose(q, scores)]
                if choice is None:
                    break
                if isinstance(choice, tuple):
                    self.coins[q] -= self.p["influence_cost"]
                    self.to_bank += self.p["influence_cost"]
                    self.give(q, choice, 1)
                    self.check_victory()
                else:
                    self.coins[q] -= cost
                    self.to_bank += cost
                    self.cards[self.cards.index(None)] = Card(choice, q, self.turn)

    # -- actions -----------------------------------------------------------------------------------

    def appointer(self, council_seat: bool) -> int:
        """The Privy Councillor's player; the Treasurer's only for a tied Council-seat vote."""
        h = self.holder("privy_councillor")
        if h < 0 and council_seat:
            h = self.holder("treasurer")
        return self.char_owner(h) if h >= 0 else -1

    def choose_among(self, cands: list[int], council_seat: bool = False) -> int:
        q = self.appointer(council_seat)
        if q < 0:
            if len(cands) > 1:
                self.gaps["no_appointer"] += 1
            return cands[self.pick(len(cands))]
        return cands[self.choose(q, [self.on_char[q][c] for c in cands])]

    def fill_vacancies(self) -> None:
        for seat in COUNCIL:
            if self.holder(seat) >= 0:
                continue
            heads = [self.head_of(land) for land in range(7) if self.head_of(land) >= 0]
            if not heads:
                continue
            votes = [0] * len(heads)
            for voter in heads:
                q = self.char_owner(voter)
                if q >= 0:
                    votes[self.choose(q, [self.on_char[q][c] for c in heads])] += 1
            s = self.power_holder("sway_head")
            if s >= 0 and any(self.char_owner(h) < 0 for h in heads):
                # the Sapphire Lakes: one neutral Head votes as s says (or s leaves it)
                i = self.choose(s, [0] + [self.on_char[s][c] for c in heads])
                if i > 0:
                    votes[i - 1] += 1
            top = max(votes)
            tied = [c for c, v in zip(heads, votes, strict=True) if v == top]
            chosen = tied[0] if len(tied) == 1 else self.choose_among(tied, council_seat=True)
            self.vacate(chosen)
            self.seat_of[chosen] = seat
        for land in range(7):
            if self.head_of(land) >= 0:
                continue
            pool = [c for c in range(11) if self.seat_of[c] == "pool"]
            if pool:
                self.seat_of[self.choose_among(pool)] = ("head", land)

    def choose_representative(self) -> None:
        best, cands = None, []
        for land in range(7):
            h = self.head_of(land)
            if h < 0:
                continue
            on_head = sum(self.on_char[q][h] for q in range(self.n))
            key = (
                on_head,
                on_head + sum(self.on_land[q][land] for q in range(self.n)),
                self.p["lands"][land]["size"],
                self.civ[land] + self.sol[land],
                self.civ[land],
                self.sol[land],
            )
            if best is None or key > best:
                best, cands = key, [h]
            elif key == best:
                cands.append(h)
        if not cands:
            self.representative = -1
        elif len(cands) == 1:
            self.representative = cands[0]
        else:
            self.representative = self.choose_among(cands)

    def acting_order(self) -> list[int]:
        keys = {}
        for c in range(11):
            if not self.in_play(c):
                continue
            tokens = [self.on_char[q][c] for q in range(self.n)]
            council = not self.is_head(c) or c == self.representative
            with_land = sum(tokens)
            if self.is_head(c):
                with_land += sum(self.on_land[q][self.seat_of[c][1]] for q in range(self.n))
            lot = self.stream.next() >> 2
            keys[c] = (0 if council else 1, -max(tokens), sum(tokens), with_land, lot)
        return sorted(keys, key=lambda c: keys[c])

    def stance(self, c: int, category: str) -> int:
        if category == "none":
            return 0
        yes, no = CATEGORY_TRAITS[category]
        return int(self.has(c, yes)) - int(self.has(c, no))

    def council_vote(self, proposer: int, category: str) -> int:
        """Each member's controlling player (or each tied player of a neutral member) declares;
        the proposer is always for."""
        declared: list[dict[int, int]] = []
        for k in range(5):
            c = self.council_member(k)
            declared.append({})
            if c < 0:
                continue
            tokens = [self.on_char[q][c] for q in range(self.n)]
            if max(tokens) == 0:
                continue
            stance = self.stance(c, category)
            cost = 2 if self.has(c, "proud") else 1
            for q in range(self.n):
                if tokens[q] != max(tokens):
                    continue
                if q == proposer:
                    declared[k][q] = 1
                    continue
                scores = []
                for for_it in (True, False):
                    against_trait = stance < 0 if for_it else stance > 0
                    scores.append(
                        self.delta(q, ("char", c), -min(cost, tokens[q]))
                        if against_trait and self.greedy(q)
                        else 0
                    )
                declared[k][q] = 1 if self.choose(q, scores) == 0 else -1
        advice = self.advise(proposer, declared)
        return self.tally(category, declared, advice)

    def advise(self, proposer: int, declared: list[dict[int, int]]) -> list[int]:
        """Each Head's player (Land order) may advise one neutral Councillor for or against,
        discarding a token from the Head; through the Brothers' Head for free."""
        advice = [0] * 5
        if not self.p["advice"]:
            return advice
        for land in range(7):
            h = self.head_of(land)
            if h < 0:
                continue
            q = self.char_owner(h)
            if q < 0:
                continue
            free = self.p["lands"][land]["effect"] == "sway_council"
            loss = 0 if free or not self.greedy(q) else self.delta(q, ("char", h), -1)
            options: list = [None]
            scores = [0]
            for k in range(5):
                c = self.council_member(k)
                if c < 0 or c == h or self.char_owner(c) >= 0:
                    continue
                pref = 1 if q == proposer else declared[k].get(q, 0)
                for side in (1, -1):
                    options.append((k, side))
                    scores.append(2 * loss + side * pref * H.ADVICE_VALUE)
            choice = options[self.choose(q, scores)]
            if choice is None:
                continue
            advice[choice[0]] += choice[1]
            if not free:
                self.take(q, ("char", h), 1)
        return advice

    def tally(self, category: str, declared: list[dict[int, int]], advice=None) -> int:
        """The seed's Council vote: 3 of 5 for. A controlled member votes as declared; a neutral
        one with the side that weighs more (its tied players' tokens plus the advice; the winning
        side's players pay for going against a trait), else by its traits, else it abstains."""
        advice = advice or [0] * 5
        yes = 0
        for k in range(5):
            c = self.council_member(k)
            if c < 0:
                continue
            stance = self.stance(c, category)
            tokens = [self.on_char[q][c] for q in range(self.n)]
            owner = self.char_owner(c)
            if owner >= 0:
                payers = [owner]
                vote = declared[k][owner]
            else:
                tied = [q for q in range(self.n) if tokens[q] == max(tokens) and tokens[q] > 0]
                weight = advice[k] + sum(tokens[q] * declared[k].get(q, 0) for q in tied)
                if weight != 0:
                    vote = 1 if weight > 0 else -1
                    payers = [q for q in tied if declared[k].get(q, 0) == vote]
                else:
                    payers, vote = [], stance
            if stance != 0 and vote != 0 and vote != stance:
                for q in payers:
                    self.take(q, ("char", c), 2 if self.has(c, "proud") else 1)
            yes += vote > 0
        return yes

    def land_vote(self, proposer: int) -> int:
        yes = 0
        for land in range(7):
            h = self.head_of(land)
            if h < 0:
                continue
            q = self.char_owner(h)
            if q < 0:
                continue
            yes += q == proposer or self.choose(q, [0, 0]) == 0
        s = self.power_holder("sway_head")
        heads = [self.head_of(land) for land in range(7)]
        if s >= 0 and any(h >= 0 and self.char_owner(h) < 0 for h in heads):
            yes += self.choose(s, [0, 1 if s == proposer else 0]) == 1
        if yes == 4:
            self.gaps["removal_four_votes"] += 1
        return yes

    def pass_law(self, i: int, slot: int) -> None:
        law = self.p["laws"][i]
        if slot < 0:
            slot = min(s for s in range(3) if s not in self.active)
        self.active[slot] = i
        self.treasury -= law["cost"]
        self.to_bank += law["cost"]
        self.mood = min(max(self.mood + law["mood"], -3), 3)
        for land in range(7):
            if law["militarise"] > 0 and self.civ[land] > 0:
                self.civ[land] -= 1
                self.sol[land] += 1
            elif law["militarise"] < 0 and self.sol[land] > 0:
                self.sol[land] -= 1
                self.civ[land] += 1
        self.laws_passed += 1

    def tax_delta_halves(self) -> int:
        return sum(round(self.p["laws"][i]["tax_delta"] * 2) for i in self.active.values())

    def act(self, c: int, q: int) -> None:
        seat = self.seat_of[c]
        head = self.is_head(c)
        in_council = not head or self.representative == c
        moves: list[tuple] = [("pass",)]
        if seat == "warlord":
            for a in range(7):
                if self.sol[a] == 0:
                    continue
                for b in range(7):
                    if b != a and self.civ[b] + self.sol[b] < self.p["lands"][b]["size"]:
                        moves.append(("warlord", a, b))
        if seat == "bishop" and self.supply[q] > 0:
            moves += [("bishop", land) for land in range(7)]
        if in_council:
            for i, law in enumerate(self.p["laws"]):
                if i in self.active.values() or law["cost"] > self.treasury:
                    continue
                if len(self.active) < 3:
                    moves.append(("law", i, -1))
                else:
                    moves += [("law", i, j) for j in range(3)]
            for land in range(7):
                h = self.head_of(land)
                if h >= 0 and h != c:
                    moves.append(("remove_head", h))
        if head:
            moves += [("remove_councillor", s) for s in COUNCIL if self.holder(s) >= 0]
        self.add_sends(moves, c, q)
        scores = [0] * len(moves)
        if self.greedy(q):
            for i, mv in enumerate(moves):
                if mv[0] == "bishop":
                    scores[i] = self.delta(q, ("land", mv[1]), 1)
                elif mv[0] == "send":
                    scores[i] = self.send_score(q, mv)
                elif mv[0] == "warlord":
                    before = self.edge(q)
                    self.sol[mv[1]] -= 1
                    self.sol[mv[2]] += 1
                    scores[i] = round((self.edge(q) - before) * H.SCALE)
                    self.sol[mv[1]] += 1
                    self.sol[mv[2]] -= 1
        mv = moves[self.choose(q, scores)]
        if mv[0] == "warlord":
            self.sol[mv[1]] -= 1
            self.sol[mv[2]] += 1
        elif mv[0] == "bishop":
            self.give(q, ("land", mv[1]), 1)
        elif mv[0] == "law":
            self.check_election()
            law = self.p["laws"][mv[1]]
            tr = self.holder("treasurer")
            if not self.veto_used and tr >= 0 and self.treasury - law["cost"] <= 3:
                qt = self.char_owner(tr)
                if qt >= 0 and qt != q and self.choose(qt, [0, 0]) == 0:
                    self.veto_used = True
                    return
            if self.council_vote(q, law["category"]) >= self.p["council_votes"]:
                self.pass_law(mv[1], mv[2])
        elif mv[0] == "remove_head":
            self.check_election()
            if self.council_vote(q, "none") >= self.p["council_votes"]:
                self.vacate(mv[1])
        elif mv[0] == "remove_councillor":
            if self.land_vote(q) >= self.p["remove_councillor_votes"]:
                self.vacate(self.holder(mv[1]))
        elif mv[0] == "send":
            self.send(q, mv)
            while True:  # any number of Mercenaries in one action
                more: list[tuple] = [("stop",)]
                self.add_sends(more, c, q)
                if len(more) == 1:
                    break
                scores = [0] * len(more)
                if self.greedy(q):
                    scores = [0] + [self.send_score(q, mv) for mv in more[1:]]
                mv = more[self.choose(q, scores)]
                if mv[0] == "stop":
                    break
                self.send(q, mv)

    def sources(self, c: int, q: int) -> list[tuple[str, int]]:
        """Where the sender's token may come from: the acting Character, or a Head's Land."""
        out = [("char", c)] if self.on_char[q][c] > 0 else []
        if self.is_head(c) and self.on_land[q][self.seat_of[c][1]] > 0:
            out.append(("land", self.seat_of[c][1]))
        return out

    def add_sends(self, moves: list, c: int, q: int) -> None:
        sources = self.sources(c, q)
        for k, card in enumerate(self.cards):
            if card is None or card.face_down or card.owner != q:
                continue
            for t in range(11):
                if t == c or not self.in_play(t):
                    continue
                for bribe in (False, True) if card.kind == "messenger" else (False,):
                    for source in sources:
                        if len(moves) < MAX_MOVES:
                            moves.append(("send", k, t, bribe, source))

    def send_score(self, q: int, mv) -> int:
        """Greedy: the token a send costs, plus what a Messenger will bring its target."""
        score = self.delta(q, mv[4], -1)
        card, t, bribe = self.cards[mv[1]], mv[2], mv[3]
        if card.kind == "messenger" and not (bribe and self.has(t, "incorruptible")):
            score += self.delta(q, ("char", t), 1 if bribe else self.gift_size(t))
        return score

    def send(self, q: int, mv) -> None:
        source = mv[4]
        table = self.on_land if source[0] == "land" else self.on_char
        table[q][source[1]] -= 1
        card = self.cards[mv[1]]
        card.face_down = True
        card.target = mv[2]
        card.bribe = mv[3]
        card.turn = self.turn

    def sycophants(self) -> int:
        """Each Sycophant in play takes a token of the Council's leader when the leader changes."""
        on_council = [0] * self.n
        for k in range(5):
            c = self.council_member(k)
            if c >= 0:
                for q in range(self.n):
                    on_council[q] += self.on_char[q][c]
        leader = self.strict_top(on_council)
        if leader < 0:
            return 0
        put = 0
        for c in range(11):
            if not self.in_play(c) or not self.has(c, "sycophant"):
                continue
            if self.sycophant_leader.get(c, -1) != leader:
                self.sycophant_leader[c] = leader
                before = self.supply[leader]
                self.give(leader, ("char", c), 1)
                put += before - self.supply[leader]
        return put

    def actions(self) -> None:
        self.veto_used = False
        self.fill_vacancies()
        self.choose_representative()
        order = self.acting_order()
        if self.p["sycophant_count"] == "phase" and self.sycophants():
            self.check_victory()
        for c in order:
            if not self.in_play(c):
                continue
            if self.p["sycophant_count"] == "action" and self.sycophants():
                self.check_victory()
            q = self.char_owner(c)
            if q < 0:
                tokens = [self.on_char[r][c] for r in range(self.n)]
                most = max(tokens)
                if most == 0 or not self.is_head(c):
                    continue
                land = self.seat_of[c][1]
                best, count = 0, 0
                for r in range(self.n):
                    if tokens[r] != most:
                        continue
                    top_bid = min(self.on_land[r][land], 2)
                    bid = min(top_bid, 1) if self.greedy(r) else self.pick(top_bid + 1)
                    self.take(r, ("land", land), bid)
                    if bid > best:
                        best, count, q = bid, 1, r
                    elif bid == best and bid > 0:
                        count += 1
                self.check_victory()
                if best == 0:
                    continue
                if count > 1:
                    self.gaps["tip_tie"] += 1
                    continue
            self.act(c, q)
            self.check_victory()
        for k, card in enumerate(self.cards):
            if card is not None and not card.face_down:
                self.cards[k] = None

    # -- tax ---------------------------------------------------------------------------------------

    def tax(self) -> None:
        half = max(round(self.p["tax_rate"] * 2) + self.tax_delta_halves(), 0)
        prio = [self.land_priority(land) for land in range(7)]
        for q in range(self.n):
            k = 0
            for land, (o, tied) in enumerate(prio):
                if o == q:
                    k += 1
                    due = half * k // 2 - half * (k - 1) // 2
                elif o == -2 and q in tied:
                    due = 1
                else:
                    continue
                if self.coins[q] >= due:
                    self.coins[q] -= due
                    self.treasury += due
                else:
                    self.take(q, ("land", land), 1)
                    h = self.head_of(land)
                    if h >= 0:
                        self.take(q, ("char", h), 1)

    # -- the game ----------------------------------------------------------------------------------

    def play(self) -> None:
        self.issued = 0
        self.to_bank = 0
        try:
            self.setup()
            for t in range(1, self.p["max_turns"] + 1):
                self.turn = t
                if self.p["mercenaries"]:
                    self.reveal()
                self.income()
                self.spending()
                self.actions()
                self.tax()
                self.record_round(t)
                self.check_victory()
        except GameOver:
            self.record_round(self.turn)
            return
        self.turn = self.p["max_turns"]
        self.victory = "draw"
        self.winners = []
        if not any(any(row) for row in self.on_land):
            self.gaps["stalled_draw"] += 1  # no token on any Land: no income can return
        self.record_round(self.turn)

    def record_round(self, t: int) -> None:
        """The leader (most Lands and Characters with priority; a tie names none) after turn t."""
        counts = [self.priority_count(q) for q in range(self.n)]
        top = max(counts)
        w = counts.index(top) if counts.count(top) == 1 else -1
        if w >= 0:
            if self.leader >= 0 and self.leader != w:
                self.lead_changes += 1
            self.leader = w
        if w != self.run:
            self.run, self.run_since = w, t

    def values(self) -> list[int]:
        out = [60 // len(self.winners) if q in self.winners else 0 for q in range(self.n)]
        out += [int(self.victory == v) for v in VICTORIES]
        decided = UNDEFINED
        if len(self.winners) == 1:
            decided = self.run_since if self.run == self.winners[0] else self.turn
        out += [int(self.victory == "draw"), self.turn, self.lead_changes, decided]
        out += [self.laws_passed, self.killed]
        out += [self.played[k] for k in KINDS]
        out += [self.contested]
        out += [self.gaps[g] for g in GAPS]
        return out


def play(p: dict, key: int, trial: int) -> list[int]:
    """One council game (RULES.md §3) from trial ``trial``'s stream: the kernel's metric values."""
    game = Game(p, Stream(key, trial))
    game.play()
    return game.values()


def play_game(p: dict, key: int, trial: int) -> Game:
    """The finished game itself, for tests that look at the position."""
    game = Game(p, Stream(key, trial))
    game.play()
    return game
