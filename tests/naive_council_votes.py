"""Plain-Python twin of council.game, part 4: the Council and the action phase (Council rules).

Vacancies, the Representative, the acting order, the Council and Land votes with advice, laws,
each Character's action and the Sycophants.
"""

from __future__ import annotations

from simulator.procedures.council.game import heuristic as H
from tests.naive_council_state import CATEGORY_TRAITS, COUNCIL


class Votes:
    """The Council, its votes and the action phase of ``Game`` (a mixin over ``GameState``)."""

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

    def vacant_heads_now(self) -> int:
        """Head seats vacant while a Character waits in the pool (0 when the pool is empty)."""
        if "pool" not in self.seat_of:
            return 0
        return sum(self.head_of(land) < 0 for land in range(7))

    def fill_vacancies(self, head_seats: bool = True) -> None:
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
        if head_seats:
            self.appoint_heads()

    def appoint_heads(self) -> None:
        """The Privy Councillor's player fills each vacant Head seat from the pool."""
        for land in range(7):
            if self.head_of(land) >= 0:
                continue
            pool = [c for c in range(11) if self.seat_of[c] == "pool"]
            if pool:
                chosen = self.choose_among(pool)
                self.seat_of[chosen] = ("head", land)
                self.transferred(chosen, land)

    def transferred(self, c: int, land: int) -> None:
        """Traveller and Homebody: the appointing player (not a lot) puts a token on / takes one
        off a Character it moves to a Land other than the one it headed last."""
        if self.p["transfer"] == "other_land" and self.home[c] != land:
            q = self.appointer(False)
            if q >= 0:
                if self.has(c, "traveller"):
                    self.give(q, ("char", c), 1)
                if self.has(c, "homebody"):
                    self.take(q, ("char", c), 1)
        self.home[c] = land

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
        """Each Head (Land order) advises at most once: one neutral Councillor for or against,
        its adviser discarding a token from the Head; through the Brothers' Head for free. The
        adviser: its priority player, then (advice_by: influence) the others in line."""
        advice = [0] * 5
        if not self.p["advice"]:
            return advice
        for land in range(7):
            h = self.head_of(land)
            if h < 0:
                continue
            holder = self.char_owner(h)
            if self.p["advice_by"] == "priority":
                line = [holder] if holder >= 0 else []
            else:
                # the priority player first, then the others by tokens on the Head, then Land +
                # Head; a tie for the next place leaves the Head silent
                with_tokens = [q for q in range(self.n) if self.on_char[q][h] > 0]
                key = {
                    q: (self.on_char[q][h], self.on_char[q][h] + self.on_land[q][land])
                    for q in with_tokens
                }
                line = sorted(with_tokens, key=lambda q: key[q], reverse=True)
            for i, q in enumerate(line):
                nxt = line[i + 1] if i + 1 < len(line) else None
                if nxt is not None and self.p["advice_by"] != "priority" and key[nxt] == key[q]:
                    self.gaps["advice_tie"] += 1
                    break
                if self.advise_through(proposer, declared, advice, land, h, q, q == holder):
                    if q != holder:
                        self.advice_without_priority += 1
                    break
        return advice

    def advise_through(self, proposer, declared, advice, land, h, q, prio) -> bool:
        """q may advise one neutral Councillor through Head h (free through the Brothers' Head
        for its priority player). Returns whether it advised."""
        free = prio and self.p["lands"][land]["effect"] == "sway_council"
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
            return False
        advice[choice[0]] += choice[1]
        if not free:
            self.take(q, ("char", h), 1)
        return True

    def tally(self, category: str, declared: list[dict[int, int]], advice=None) -> int:
        """The rulebook's Council vote: 3 of 5 for. A controlled member votes as declared; a neutral
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
        for _, _, q in self.heads_held():
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
        if self.active.get(slot) == self.ignored:
            self.ignored = -1  # a law no longer in force is ignored no more
        self.active[slot] = i
        self.ignore_choice(i)
        self.treasury -= law["cost"]
        self.to_bank += law["cost"]
        before = self.mood
        self.mood = min(max(self.mood + law["mood"], -3), 3)
        uprising = self.p["mood"] and self.mood <= -3 < before
        if uprising and self.p["cowardly_leaves"] == "uprising":
            self.cowards_flee()  # the uprising starts: the Cowardly leave at once
        for land in range(7):
            if self.p["lands"][land]["effect"] == "ignore_law" and self.ignored == i:
                continue
            if law["militarise"] > 0 and self.civ[land] > 0:
                self.civ[land] -= 1
                self.sol[land] += 1
            elif law["militarise"] < 0 and self.sol[land] > 0:
                self.sol[land] -= 1
                self.civ[land] += 1
        self.laws_passed += 1

    def ignore_choice(self, i: int) -> None:
        """The Brown Plains: the player with most Land + Head tokens may ignore the new law."""
        for land in range(7):
            if self.p["lands"][land]["effect"] != "ignore_law":
                continue
            q = self.combined_top(land)
            if q >= 0:
                delta = [round(law["tax_delta"] * 2) for law in self.p["laws"]]
                old = delta[self.ignored] if self.ignored >= 0 else 0
                if self.choose(q, [0, delta[i] - old]) == 1:
                    self.ignored = i
            return

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
        appointing = self.p["head_appointment"] == "action" and self.vacant_heads_now() > 0
        if seat == "privy_councillor" and appointing:
            moves.append(("appoint",))  # the Privy Councillor's power as its action
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
        elif mv[0] == "appoint":
            self.appoint_heads()
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
        self.vacant_heads += self.vacant_heads_now()
        self.fill_vacancies(head_seats=self.p["head_appointment"] == "phase_start")
        self.check_victory()  # a new Warlord or Privy Councillor may complete a victory
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
                if not self.is_head(c):
                    continue
                land = self.seat_of[c][1]
                if most == 0:
                    # No token on it: neutral, every player tied at zero (Council rules §3).
                    if not any(self.on_land[r][land] for r in range(self.n)):
                        continue
                    self.empty_head_chances += 1
                    if not self.p.get("tip_empty_heads", True):
                        continue
                cap = self.p.get("tip_cap")  # None: any number of the Land's tokens
                best, count = 0, 0
                for r in range(self.n):
                    if tokens[r] != most:
                        continue
                    held = self.on_land[r][land]
                    top_bid = held if cap is None else min(held, cap)
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
