"""Plain-Python twin of council.game, part 2: the Mercenaries (Council rules).

Hidden cards revealed at the start of a turn (Messenger, Assassin, Spy, Thief and the Guard's
answer), the Land powers they use, a kill and the Hand of Order it may bring, and the sends of the
action phase.
"""

from __future__ import annotations

from tests.naive_council_state import KINDS, MAX_CARDS, MAX_MOVES, Card


class Mercenaries:
    """The Mercenary rules of ``Game`` (a mixin over ``GameState``)."""

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

    def greedy_fee(self, target: int) -> int:
        """The coin a Greedy target takes from its briber (greedy_bribe: briber_pays)."""
        if self.p["greedy_bribe"] != "briber_pays" or self.has(target, "incorruptible"):
            return 0
        return int(self.has(target, "greedy"))

    def toll(self, q: int, trait: str, k: int) -> None:
        """q takes k tokens off every Character not killed with this trait."""
        for c in range(11):
            if self.seat_of[c] != "dead" and self.has(c, trait):
                self.take(q, ("char", c), k)

    def presented(self, q: int, target: int, gift: bool) -> None:
        """A revealed gift or bribe reached target: Fanatics (to an Atheist), Incorruptibles (a
        gift to a Bribable) cost its sender a token each."""
        if self.has(target, "atheist"):
            self.toll(q, "fanatic", 1)
        if gift and self.has(target, "bribable"):
            self.toll(q, "incorruptible", 1)

    def reveal(self) -> None:
        sweeps = (("spy", "thief"), ("messenger", "assassin"))
        if not self.p["spy_thief_first"]:
            sweeps = (KINDS,)
        for kinds in sweeps:
            for k in range(MAX_CARDS):
                card = self.cards[k]
                if card is None or not card.face_down or card.turn >= self.turn:
                    continue
                if card.kind == "guard" or card.kind not in kinds:
                    continue
                self.reveal_card(k, card)

    def reveal_card(self, k: int, card) -> None:
        q, target = card.owner, card.target
        options: list = [None]
        scores = [0]
        if card.kind == "messenger":
            fee = self.greedy_fee(target) if card.bribe else 0
            if card.bribe:
                cap = self.p.get("bribe_cap")  # None: "by any amount"
                budget = (self.coins[q] - fee) // 3  # a Greedy target's coin first
                extra = budget if cap is None else min(budget, cap)
            else:  # 1: the gift may be made rare (Golden Coast)
                extra = 1 if self.rare_gift_open(q) else 0
            for j in range(extra + 1):
                gain = 1 + j if card.bribe else self.gift_size(target) + j
                if card.bribe and self.has(target, "incorruptible"):
                    gain = 0
                options.append(j)
                paid = -3 * j - fee if card.bribe else -self.p["rare_gift_cost"] * j
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
            return
        self.played[card.kind] += 1
        self.phase_reveals += self.window
        if card.kind == "messenger":
            self.discard(k)
            if not card.bribe:
                if choice == 1:
                    self.use_rare_gift(q)
                self.give(q, ("char", target), self.gift_size(target) + choice)
            else:
                fee = self.greedy_fee(target)
                self.coins[q] -= 3 * choice + fee
                self.to_bank += 3 * choice + fee
                if not self.has(target, "incorruptible"):
                    self.give(q, ("char", target), 1 + choice)
                    if self.p["greedy_bribe"] == "holder_gains" and self.has(target, "greedy"):
                        holder = self.char_owner(target)
                        if holder >= 0:
                            self.coins[holder] += 1
                            self.issued += 1
            self.presented(q, target, not card.bribe)
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
                    self.presented(owner, tm, True)
                elif other.kind == "messenger":
                    if not self.has(tm, "bribable"):  # a Bribable keeps the briber's token
                        self.take(owner, ("char", tm), 1)
                    self.toll(owner, "incorruptible", 1)
                    self.toll(owner, "cautious", 1)
                elif other.kind == "thief":
                    self.take(owner, ("char", tm), 1)
                    self.toll(owner, "cautious", 1)
                elif other.kind == "assassin":
                    self.take(owner, ("char", tm), self.on_char[owner][tm])
                    self.toll(owner, "cautious", 2)
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
                    return
                take_card = True
                if other.bribe:
                    self.toll(owner, "cautious", 1)
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
                if other.kind in ("thief", "assassin"):  # exposed: Cautious Characters
                    self.toll(owner, "cautious", 1 if other.kind == "thief" else 2)
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

    # -- sends (action phase) ----------------------------------------------------------------------

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
