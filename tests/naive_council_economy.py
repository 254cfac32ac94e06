"""Plain-Python twin of council.game, part 3: the economy (Council rules).

Income (with mood and the Land powers), spending on tokens and Mercenaries, and the tax.
"""

from __future__ import annotations

from simulator.procedures.council.game import heuristic as H
from tests.naive_council_state import KINDS, Card


class Economy:
    """Income, spending and tax of ``Game`` (a mixin over ``GameState``)."""

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
        if self.p["mood"] and self.mood <= -3 and self.p["cowardly_leaves"] == "income":
            self.cowards_flee()  # the old reading: the Cowardly leave at each income of it
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
            q = self.combined_top(land)
            if q >= 0:
                self.coins[q] += 1
                self.issued += 1
        for q in range(self.n):
            if give_up[q] >= 0:
                self.civ[give_up[q]] += 1
        if any(x >= 0 for x in give_up):
            self.check_victory()  # civilians added: a Will of the People may be reached now

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

    def spending_order(self) -> list[int]:
        """Poorest first; players with the same coins by lot (a shuffle of each tied run, the
        kernel's Fisher-Yates) or the lower seat first (``spending_ties``)."""
        order = sorted(range(self.n), key=lambda q: self.coins[q])
        runs = [[q for q in order if self.coins[q] == c] for c in sorted(set(self.coins))]
        if any(len(run) > 1 for run in runs):
            self.spending_ties += 1
        out = []
        for run in runs:
            if self.p["spending_ties"] == "lot":
                for i in range(len(run) - 1, 0, -1):
                    j = self.pick(i + 1)
                    run[i], run[j] = run[j], run[i]
            out += run
        return out

    def spending(self) -> None:
        cap = self.p["max_buys"]
        for q in self.spending_order():
            buys = 0
            while True:
                if cap is not None and buys >= cap:
                    self.gaps["buy_cap"] += 1
                    break
                buys += 1
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
                could = self.p["mercenaries"] and self.coins[q] >= cost
                max_hand = self.p["max_hand"]
                if could and max_hand is not None and hand >= max_hand:
                    self.gaps["hand_cap"] += 1
                elif could and None not in self.cards[: self.p["mercenary_deck"]]:
                    self.gaps["deck_cap"] += 1
                elif could:
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

    # -- tax ---------------------------------------------------------------------------------------

    def land_rate(self, land: int, half: int) -> int:
        """A Land's tax in half coins under the laws: the Brown Plains leave out the ignored law."""
        if self.p["lands"][land]["effect"] == "ignore_law" and self.ignored >= 0:
            half -= round(self.p["laws"][self.ignored]["tax_delta"] * 2)
        return max(half, 0)

    def tax(self) -> None:
        half = round(self.p["tax_rate"] * 2) + self.tax_delta_halves()
        prio = [self.land_priority(land) for land in range(7)]
        rate = [self.land_rate(land, half) for land in range(7)]
        for land in range(7):
            if self.p["lands"][land]["effect"] != "warlord_tax" or prio[land][0] < 0:
                continue
            w = self.holder("warlord")
            q = self.char_owner(w) if w >= 0 else -1
            if q >= 0:  # the Valley of Arrows: the Warlord's player sets 1, 2 or 3 coins
                mine = prio[land][0] == q
                rate[land] = 2 * (self.choose(q, [-x if mine else x for x in (1, 2, 3)]) + 1)
        for q in range(self.n):
            paid = 0
            for land, (o, tied) in enumerate(prio):
                if o == q:
                    due = (paid + rate[land]) // 2 - paid // 2
                    paid += rate[land]
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
                    self.check_victory()  # tokens left a Land: a rival may win at once

    def tax_delta_halves(self) -> int:
        return sum(round(self.p["laws"][i]["tax_delta"] * 2) for i in self.active.values())
