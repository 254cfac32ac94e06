"""Plain-Python twins of the Root kernels (Root hirelings rules and §4), reading the same random
words.

Each plays one trial the way a person reads the rules and returns the trial's metric values in the
order of the procedure's ``metrics()``.
"""

from __future__ import annotations

from tests.naive import halves, word

UNDEFINED = -(2**62)


def root_die(u32: int) -> int:
    """A Root battle die (faces 0,0,0,1,1,1,2,2,2,3,3,3): uniform on 0..3."""
    return (u32 * 4 >> 32) + 1 - 1


class Pieces:
    """One side's pieces in the clearing."""

    def __init__(self, side: dict, cards: int) -> None:
        self.faction = side.get("faction", "other")
        self.warriors = side.get("warriors", 0)
        self.buildings = side.get("buildings", 0)
        self.tokens = side.get("tokens", 0)
        self.swords = side.get("vagabond_swords", 0)
        self.exhausted = side.get("vagabond_exhausted_swords", 0)  # undamaged, exhausted
        self.items = side.get("vagabond_items", 0)
        self.extra_hits = side.get("extra_hits", 0)
        self.tokens_first = side.get("removes_first", "tokens") == "tokens"
        self.ambush_cards = cards
        self.mercenaries = side.get("mercenaries", 0)
        self.allies = side.get("allied_warriors", 0)
        self.allied = True

    @property
    def is_vagabond(self) -> bool:
        return self.faction == "vagabond"

    @property
    def ready_swords(self) -> int:
        return self.swords - self.exhausted

    def can_battle(self) -> bool:
        if self.is_vagabond:
            return self.ready_swords > 0
        return self.warriors + self.mercenaries > 0

    def battling_allies(self) -> int:
        return self.allies if self.allied else 0

    def hit_cap(self) -> int:
        if self.is_vagabond:
            return self.swords + self.battling_allies()
        return self.warriors + self.mercenaries

    def defenceless(self) -> bool:
        return (self.swords if self.is_vagabond else self.warriors) == 0

    def rule_strength(self) -> int:
        return self.warriors + self.buildings + self.mercenaries

    def take_hits(self, hits: int) -> dict[str, int]:
        """Warriors (a Vagabond: items, swords last, exhausted ones first) and mercenaries or
        allied warriors share the hits evenly, the side taking the odd one; then buildings and
        tokens as the owner chooses."""
        lost = dict.fromkeys(("warriors", "buildings", "tokens", "items", "swords", "helpers"), 0)
        own = self.warriors + self.items + self.swords
        helpers = self.mercenaries + self.battling_allies()
        shared = min(hits, own + helpers)
        mine, theirs = (shared + 1) // 2, shared // 2
        if mine > own:
            mine, theirs = own, shared - own
        if theirs > helpers:
            mine, theirs = shared - helpers, helpers
        for kind in ("warriors", "items", "swords"):
            n = min(mine, getattr(self, kind))
            if kind == "swords":
                self.exhausted -= min(n, self.exhausted)
            setattr(self, kind, getattr(self, kind) - n)
            lost[kind] += n
            mine -= n
        lost["helpers"] = theirs
        if self.mercenaries:
            self.mercenaries -= theirs
        else:
            self.allies -= theirs
        rest = hits - shared
        for kind in ["tokens", "buildings"] if self.tokens_first else ["buildings", "tokens"]:
            n = min(rest, getattr(self, kind))
            setattr(self, kind, getattr(self, kind) - n)
            lost[kind] += n
            rest -= n
        return lost


def root_battle(p: dict, key: int, trial: int, step=None) -> list[int]:
    """A Root battle campaign (Root rules §1.5) as the kernel's metric values; ``step``: a
    designer's rolled-hits step (``step(roll, cap, attacking) -> hits``), None for the rule's."""
    att = Pieces(p["attacker"], p["attacker"].get("counter_ambush", 0))
    dfd = Pieces(p["defender"], p["defender"].get("ambush", 0))
    if p.get("removal_chooser", "defender") == "defender":
        # The defending side chooses which pieces go (Root rules §1.8), the attacker's too.
        att.tokens_first = p["defender"].get("removes_attackers_first", "buildings") == "tokens"
    start_a = (att.warriors, att.buildings, att.tokens)
    start_a_warriors, start_d = att.warriors, (dfd.warriors, dfd.buildings, dfd.tokens)
    start_a_items, start_d_items = att.items + att.swords, dfd.items + dfd.swords
    start_mercs, start_allies = att.mercenaries, att.allies
    hostile = p["attacker"].get("hostile", False)
    plot = p["defender"].get("corvid_plot_face_down", False)
    a_vp = d_vp = ambush_hits = fought = acolytes = 0
    for b in range(p.get("battles", 1)):
        anyone_to_battle = dfd.is_vagabond or dfd.warriors + dfd.buildings + dfd.tokens > 0
        if not (att.can_battle() and anyone_to_battle):
            break
        fought += 1
        if att.is_vagabond:
            att.exhausted += 1  # exhaust a sword to battle
        to_allies = to_self = 0
        # Ambush!
        if dfd.ambush_cards > 0:
            dfd.ambush_cards -= 1
            if att.ambush_cards > 0:
                att.ambush_cards -= 1  # counter-ambush: both cards spent, nothing happens
            else:
                lost = att.take_hits(p["defender"].get("ambush_hits", 2))
                ambush_hits += sum(lost.values())
                d_vp += lost["buildings"] + lost["tokens"]
                if att.is_vagabond:
                    to_allies += lost["helpers"]
                    to_self += lost["items"] + lost["swords"]
                if not att.is_vagabond and att.warriors + att.mercenaries == 0:
                    break
        lo, hi = halves(word(key, trial, b))
        dice = sorted([root_die(lo), root_die(hi)])
        if dfd.faction == "alliance":
            a_roll, d_roll = dice[0], dice[1]
        else:
            a_roll, d_roll = dice[1], dice[0]
        if step is None:
            a_hits = min(a_roll, att.hit_cap())
            d_hits = min(d_roll, dfd.hit_cap())
        else:
            a_hits = max(step(a_roll, att.hit_cap(), 1), 0)
            d_hits = max(step(d_roll, dfd.hit_cap(), 0), 0)
        if dfd.defenceless():
            a_hits += 1
        a_hits += att.extra_hits
        d_hits += dfd.extra_hits
        if plot and dfd.tokens > 0:
            d_hits += 1
        d_lost = dfd.take_hits(a_hits)
        a_lost = att.take_hits(d_hits)
        a_vp += d_lost["buildings"] + d_lost["tokens"]
        d_vp += a_lost["buildings"] + a_lost["tokens"]
        if att.is_vagabond:
            to_allies += a_lost["helpers"]
            to_self += a_lost["items"] + a_lost["swords"]
            if att.allied and to_allies > to_self:
                att.allied = False
        if att.is_vagabond and hostile:
            a_vp += d_lost["warriors"] + d_lost["buildings"] + d_lost["tokens"]
        if att.is_vagabond and d_lost["warriors"]:
            hostile = True
        if dfd.faction == "lizards":
            acolytes += d_lost["warriors"]
        if p.get("stop_when_cleared", True) and dfd.defenceless():
            break
    garden = p.get("lizard_garden", False)
    strengths = {0: att.rule_strength(), 1: dfd.rule_strength(), 3: att.allies}
    top = max(strengths.values())
    leaders = [k for k, x in strengths.items() if x == top and top > 0]
    if garden and att.faction == "lizards" and att.buildings:
        control = 0
    elif garden and dfd.faction == "lizards" and dfd.buildings:
        control = 1
    elif len(leaders) == 1:
        control = leaders[0]
    elif 0 in leaders and att.faction == "eyrie":
        control = 0
    elif 1 in leaders and dfd.faction == "eyrie":
        control = 1
    else:
        control = 2
    cleared = not dfd.is_vagabond and dfd.warriors + dfd.buildings + dfd.tokens == 0
    return [
        start_a_warriors - att.warriors,
        start_d[0] - dfd.warriors,
        start_d[1] - dfd.buildings,
        start_d[2] - dfd.tokens,
        a_vp,
        int(cleared),
        ambush_hits,
        control,
        d_vp,
        fought,
        acolytes,
        start_a_items - att.items - att.swords,
        start_d_items - dfd.items - dfd.swords,
        start_mercs - att.mercenaries,
        start_allies - att.allies,
        int(start_allies > 0 and not att.allied),
        *faction_effects(att, start_a, dfd, start_d),
    ]


def faction_effects(att: Pieces, start_a: tuple, dfd: Pieces, start_d: tuple) -> list[int]:
    """Marquise warriors, Alliance bases and sympathy, Riverfolk trade posts, Lizard gardens and
    Duchy buildings removed, whichever side they were on."""
    lost = {}
    for side, start in ((att, start_a), (dfd, start_d)):
        now = (side.warriors, side.buildings, side.tokens)
        lost[side.faction] = [was - left for was, left in zip(start, now, strict=True)]
    nothing = [0, 0, 0]
    return [
        lost.get("marquise", nothing)[0],
        lost.get("alliance", nothing)[1],
        lost.get("alliance", nothing)[2],
        lost.get("riverfolk", nothing)[2],
        lost.get("lizards", nothing)[1],
        lost.get("duchy", nothing)[1],
    ]


DEFAULT_FACES = [
    {"amount": 0},
    {"amount": 1},
    {"amount": 1},
    {"amount": 1, "behind": 1},
    {"amount": 2, "behind": 3},
    {"amount": 3, "behind": 5},
]


def root_influence(p: dict, key: int, trial: int) -> list[int]:
    """Influence dice at the end of an Evening (Root hirelings rules §1) as the kernel's metric
    values."""
    faces = p.get("faces") or DEFAULT_FACES
    players = p.get("players", 4)
    behind = p.get("behind", 0)
    lo, hi = halves(word(key, trial, 0))
    rolled = [faces[lo * len(faces) >> 32], faces[hi * len(faces) >> 32]]
    if players >= 4:
        rolled = rolled[:1]
    qualifying = [f["amount"] for f in rolled if behind >= f.get("behind", 0)]
    if not qualifying:
        gained = 0
    elif players == 2:
        gained = sum(qualifying)
    else:
        gained = max(qualifying)
    return [gained, int(gained > 0)]


def root_setup(p: dict, key: int, trial: int) -> list[int]:
    """The advanced setup draft (Root advanced setup §3) as the kernel's metric values."""
    from tests.naive import Stream

    stream = Stream(key, trial)

    def uniform(n: int) -> int:
        return (stream.next() & 0xFFFFFFFF) * n >> 32

    cards = p["factions"]
    players = p.get("players", 4)
    reds = [k for k, f in enumerate(cards) if f["colour"] == "red"]
    pool = [reds[uniform(len(reds))]]
    rest = [
        k for k, f in enumerate(cards) if k != pool[0] and (f["colour"] == "red" or players > 2)
    ]
    for d in range(players):  # deal one per player from a shuffled deck
        j = d + uniform(len(rest) - d)
        rest[d], rest[j] = rest[j], rest[d]
        pool.append(rest[d])
    last = len(pool) - 1
    locked = cards[pool[last]]["colour"] == "white"
    prefs = list(p.get("preferences", ()))
    names = [f["name"] for f in cards]
    rank = sorted(
        range(len(cards)),
        key=lambda k: (prefs.index(names[k]) if names[k] in prefs else len(prefs), k),
    )
    taken: list[int] = []
    red_chosen = False
    for _ in range(players):
        open_cards = [
            c
            for c in range(len(pool))
            if c not in taken and not (locked and c == last and not red_chosen)
        ]
        if p.get("policy", "random") == "preference":
            c = min(open_cards, key=lambda c: rank.index(pool[c]))
        else:
            c = open_cards[uniform(len(open_cards))]
        taken.append(c)
        red_chosen = red_chosen or cards[pool[c]]["colour"] == "red"
    chosen_names = {names[pool[c]] for c in taken}
    chosen = {pool[c] for c in taken}
    hirelings = p["hirelings"]
    # Never the minor faction of a chosen faction; unaffiliated ones are always in the pool.
    candidates = [
        k
        for k, h in enumerate(hirelings)
        if not h.get("faction") or h["faction"] not in chosen_names
    ]
    dealt = min(3, len(candidates))
    for d in range(dealt):
        j = d + uniform(len(candidates) - d)
        candidates[d], candidates[j] = candidates[j], candidates[d]
    hired = set(candidates[:dealt])
    demoted = min({2: 0, 3: 1, 4: 2}.get(players, 3), dealt)
    out = [int(k in chosen) for k in range(len(cards))]
    out += [int(locked), demoted]
    out += [int(k in hired) for k in range(len(hirelings))]
    out += [int(dealt < 3)]
    return out


def root_hirelings(p: dict, key: int, trial: int) -> list[int]:
    """A game of hirelings (Root hirelings rules §1) as the kernel's metric values."""
    from tests.naive import Stream

    stream = Stream(key, trial)

    def uniform(n: int) -> int:
        return (stream.next() & 0xFFFFFFFF) * n >> 32

    players, rounds = p.get("players", 3), p.get("rounds", 10)
    policies = p.get("policies", "greedy")
    if not isinstance(policies, list):
        policies = [policies] * players
    seat_greedy = [(a if isinstance(a, str) else a["agent"]) == "greedy" for a in policies]
    faces = p.get("faces") or DEFAULT_FACES
    hires = [
        {"cost": h.get("cost", 1), "protectable": h.get("protectable", True), "kind": "normal"}
        for h in p["hirelings"]
    ]
    if players == 2:
        hires.append({"cost": p.get("veteran_cost", 3), "protectable": False, "kind": "veteran"})
    else:
        hires += [
            {"cost": p.get("diplomat_cost", 2), "protectable": False, "kind": "diplomat"}
            for _ in range(2)
        ]
    for h in hires:
        h.update(holder=None, protected=False, exhausted=False)
    gains = p["score_gain"]
    score = [0] * players
    controlled = [0] * players
    controlled_rank = [0] * players
    spent = [0] * players
    spent_rank = [0] * players
    changes = protections = catch_up = 0
    points = p.get("hireling_points", 0)  # INVENTED: points per hireling held at a round's end
    leader, streak, lead_changes = None, 0, 0

    def rank(s: int) -> int:
        return 1 + sum(
            score[o] > score[s] or (score[o] == score[s] and o < s) for o in range(players)
        )

    first = 0  # seat 1 starts with the first-player card
    for rnd in range(rounds):
        # Before the first player's turn the Veteran's holder takes the first-player card, and
        # the Veteran goes back to the supply.
        for h in hires:
            if h["kind"] == "veteran" and h["holder"] is not None:
                first, h["holder"] = h["holder"], None
        for s in [(first + t) % players for t in range(players)]:
            greedy = seat_greedy[s]
            dist = gains[s] if len(gains) > 1 else gains[0]
            u = uniform(sum(g.get("weight", 1) for g in dist))
            for g in dist:
                if u < g.get("weight", 1):
                    score[s] += g["points"]
                    break
                u -= g.get("weight", 1)
            behind = max(score) - score[s]
            lo, hi = halves(stream.next())
            rolled = [faces[lo * len(faces) >> 32], faces[hi * len(faces) >> 32]]
            amounts = [f["amount"] if behind >= f.get("behind", 0) else 0 for f in rolled]
            influence = (
                sum(amounts) if players == 2 else max(amounts) if players == 3 else amounts[0]
            )
            my_rank = rank(s)
            while True:
                legal = []
                for k, h in enumerate(hires):
                    mine, free = h["holder"] == s, h["holder"] is None
                    can_take = free or (not mine and not h["protected"])
                    if h["kind"] in ("veteran", "diplomat"):
                        can_take = free  # never taken while controlled
                    if can_take and not mine and h["cost"] <= influence:
                        legal.append(("take", k))
                    if mine and h["protectable"] and not h["protected"] and influence >= 1:
                        legal.append(("protect", k))
                    if not mine and not free and h["protected"] and influence >= 1:
                        legal.append(("unprotect", k))
                if not legal:
                    break
                if greedy:
                    takes = [a for a in legal if a[0] == "take"]
                    protects = [a for a in legal if a[0] == "protect"]
                    if takes:

                        def worth(a):
                            h = hires[a[1]]
                            owner = -1 if h["holder"] is None else score[h["holder"]]
                            return (-h["cost"], owner)

                        best = max(worth(a) for a in takes)
                        action = next(a for a in takes if worth(a) == best)
                    elif protects:
                        action = protects[0]
                    else:
                        options = [a for a in legal if influence >= 1 + hires[a[1]]["cost"]]
                        if not options:
                            break
                        best_score = max(score[hires[a[1]]["holder"]] for a in options)
                        action = next(
                            a for a in options if score[hires[a[1]]["holder"]] == best_score
                        )
                else:
                    action = legal[uniform(len(legal))]
                what, k = action
                h = hires[k]
                price = h["cost"] if what == "take" else 1
                influence -= price
                spent[s] += price
                spent_rank[my_rank - 1] += price
                if what == "take":
                    h["holder"], h["protected"] = s, False
                    changes += 1
                    if h["kind"] == "diplomat":
                        enemies = [o for o in range(players) if o != s]
                        if greedy:
                            gift = min(enemies, key=lambda o: (score[o], o))
                        else:
                            gift = enemies[uniform(players - 1)]
                        for other in hires:
                            if other is not h and other["kind"] == "diplomat":
                                other["holder"] = gift
                                changes += 1
                elif what == "protect":
                    h["protected"] = True
                    protections += 1
                else:
                    h["protected"] = False
            diplomats = [h for h in hires if h["kind"] == "diplomat"]
            for h in diplomats:
                if h["holder"] == s:
                    h["exhausted"] = True
            if diplomats and all(h["exhausted"] for h in diplomats):
                for h in diplomats:
                    h["holder"], h["exhausted"] = None, False
        held = [sum(h["holder"] == o for h in hires) for o in range(players)]
        for o in range(players):
            controlled[o] += held[o]
            controlled_rank[rank(o) - 1] += held[o]
        last = min(range(players), key=lambda o: (score[o], o))
        if held[last] > 0 and all(held[last] >= x for x in held):
            catch_up += 1
        for o in range(players):
            score[o] += points * held[o]
        top = [o for o in range(players) if score[o] == max(score)]
        now = top[0] if len(top) == 1 else None
        if now != leader:
            lead_changes += now is not None and leader is not None
            leader, streak = now, rnd
    top = [o for o in range(players) if score[o] == max(score)]
    wins = [60 // len(top) if o in top else 0 for o in range(players)]
    decided_at = streak + 1 if len(top) == 1 else UNDEFINED
    return [
        *[*controlled, *controlled_rank, changes, *spent, *spent_rank, protections, catch_up],
        *[*wins, int(len(top) > 1), rounds, lead_changes, decided_at],
    ]
