"""Votes and appointments: vacancies, the Representative, Council votes on laws and Heads,
Land votes on Councillors, passing a law."""

from __future__ import annotations

import numpy as np

from simulator.jit import inline, kernel
from simulator.procedures.council.game.context import wants_scores
from simulator.procedures.council.game.heuristic import (
    ADVICE_VALUE,
    choose,
    gain,
    pick,
)
from simulator.procedures.council.game.params import (
    ACTIVE_LAWS,
    E_IGNORE_LAW,
    E_SWAY_COUNCIL,
    E_SWAY_HEAD,
    GAP_ADVICE_TIE,
    GAP_APPOINT,
    GAP_FOUR_VOTES,
    HEAD0,
    MAX_PLAYERS,
    N_CHARS,
    N_LANDS,
    PRIVY,
    T_HOMEBODY,
    T_PROUD,
    T_TRAVELLER,
    TREASURER,
)
from simulator.procedures.council.game.state import (
    ADVICE,
    C_HOME,
    C_SEAT,
    G_ADVICE,
    G_ADVICE_BY_INFLUENCE,
    G_ADVICE_NO_PRIORITY,
    G_GAP0,
    G_HOLDER0,
    G_IGNORED,
    G_LAWS_PASSED,
    G_MOOD,
    G_N_LAWS,
    G_PLAYERS,
    G_REP,
    G_TAX_DELTA,
    G_TO_BANK,
    G_TRANSFER,
    G_TREASURY,
    L_CIV,
    L_EFFECT,
    L_SIZE,
    L_SOL,
    MV_ADVISE,
    MV_LAW,
    MV_PASS,
    char_owner,
    char_total,
    combined_top,
    council_member,
    give_tokens,
    has_trait,
    land_total,
    power_holder,
    remove_tokens,
    vacate,
)


@kernel
def appointer(tok, g, council_seat):
    """The player who chooses for the Privy Councillor, or -1. The Treasurer stands in for an
    absent Privy Councillor only when a tied vote for a Council seat is decided (rulebook: "the
    Privy Councillor (or the Treasurer in his absence)" appoints the Councillor); Heads and the
    Representative are the Privy Councillor's alone."""
    h = g[G_HOLDER0 + PRIVY]
    if h < 0 and council_seat:
        h = g[G_HOLDER0 + TREASURER]
    if h >= 0:
        return char_owner(tok, g, h)
    return np.int64(-1)


@kernel
def choose_among(st, tok, pl, g, cand, n, score, council_seat):
    """The appointer chooses among n candidates (greedy: most own tokens); by lot if nobody can."""
    q = appointer(tok, g, council_seat)
    if q < 0:
        if n > 1:
            g[G_GAP0 + GAP_APPOINT] += 1
        return cand[pick(st, n)]
    for i in range(n):
        score[i] = tok[q, N_LANDS + cand[i]]
    return cand[choose(st, pl, q, n, score)]


@kernel
def neutral_head(tok, g):
    """A Head in play that no player has priority on (the first by Land), or -1."""
    for li in range(N_LANDS):
        h = g[G_HOLDER0 + HEAD0 + li]
        if h >= 0 and char_owner(tok, g, h) < 0:
            return h
    return np.int64(-1)


@kernel
def fill_vacancies(st, tok, pl, g, ch, land, cand, votes, score):
    """Council seats by a vote of the Heads (one neutral Head swayed by the Sapphire Lakes'
    player), then Head seats by the Privy Councillor's choice."""
    for s in range(4):
        if g[G_HOLDER0 + s] >= 0:
            continue
        n = 0
        for li in range(N_LANDS):
            h = g[G_HOLDER0 + HEAD0 + li]
            if h >= 0:
                cand[n] = h
                votes[n] = 0
                n += 1
        if n == 0:
            continue
        for li in range(N_LANDS):
            h = g[G_HOLDER0 + HEAD0 + li]
            if h < 0:
                continue
            q = char_owner(tok, g, h)
            if q < 0:
                continue
            for i in range(n):
                score[i] = tok[q, N_LANDS + cand[i]]
            votes[choose(st, pl, q, n, score)] += 1
        sway = power_holder(tok, g, land, E_SWAY_HEAD)
        if sway >= 0 and neutral_head(tok, g) >= 0:
            # 0: leave it; i + 1: the neutral Head votes for candidate i.
            for i in range(n, 0, -1):
                score[i] = tok[sway, N_LANDS + cand[i - 1]]
            score[0] = 0
            i = choose(st, pl, sway, n + 1, score)
            if i > 0:
                votes[i - 1] += 1
        top = 0
        for i in range(n):
            top = max(top, votes[i])
        m = 0
        for i in range(n):
            if votes[i] == top:
                cand[m] = cand[i]
                m += 1
        chosen = cand[0] if m == 1 else choose_among(st, tok, pl, g, cand, m, score, True)
        vacate(g, ch, chosen)
        ch[chosen, C_SEAT] = s
        g[G_HOLDER0 + s] = chosen
    for li in range(N_LANDS):
        if g[G_HOLDER0 + HEAD0 + li] >= 0:
            continue
        n = 0
        for c in range(N_CHARS):
            if ch[c, C_SEAT] == -1:
                cand[n] = c
                n += 1
        if n == 0:
            continue
        chosen = choose_among(st, tok, pl, g, cand, n, score, False)
        ch[chosen, C_SEAT] = HEAD0 + li
        g[G_HOLDER0 + HEAD0 + li] = chosen
        transferred(tok, pl, g, ch, chosen, li)


@kernel
def transferred(tok, pl, g, ch, c, li):
    """Character c was appointed to head Land li: if a player chose it (the Privy Councillor's;
    not a lot) and li is not the Land it headed last, that player puts one of its tokens on a
    Traveller and takes one off a Homebody (traits 13, 14; ``transfer``)."""
    if g[G_TRANSFER] == 1 and ch[c, C_HOME] != li:
        q = appointer(tok, g, False)
        if q >= 0:
            if has_trait(ch, c, T_TRAVELLER) == 1:
                give_tokens(tok, pl, q, N_LANDS + c, 1)
            if has_trait(ch, c, T_HOMEBODY) == 1:
                remove_tokens(tok, pl, q, N_LANDS + c, 1)
    ch[c, C_HOME] = li


@kernel
def choose_representative(st, tok, pl, g, ch, land, cand, score):
    """The Head with most tokens; ties by Land + Head, Land size, population, civilians,
    soldiers, then the Privy Councillor's choice."""
    n = 0
    best = np.zeros(6, dtype=np.int64)
    key = np.zeros(6, dtype=np.int64)
    for li in range(N_LANDS):
        h = g[G_HOLDER0 + HEAD0 + li]
        if h < 0:
            continue
        key[0] = char_total(tok, g, h)
        key[1] = key[0] + land_total(tok, g, li)
        key[2] = land[li, L_SIZE]
        key[3] = land[li, L_CIV] + land[li, L_SOL]
        key[4] = land[li, L_CIV]
        key[5] = land[li, L_SOL]
        cmp = 0
        if n > 0:
            for i in range(6):
                if key[i] != best[i]:
                    cmp = 1 if key[i] > best[i] else -1
                    break
        if n == 0 or cmp > 0:
            best[:] = key
            cand[0] = h
            n = 1
        elif cmp == 0:
            cand[n] = h
            n += 1
    if n == 0:
        g[G_REP] = -1
    elif n == 1:
        g[G_REP] = cand[0]
    else:
        g[G_REP] = choose_among(st, tok, pl, g, cand, n, score, False)


@kernel
def trait_stance(ch, c, category):
    """+1 if Character c's traits vote for a law of this category, -1 against, 0 abstain."""
    if category == 0:
        return 0
    yes = has_trait(ch, c, 2 * (category - 1))
    no = has_trait(ch, c, 2 * (category - 1) + 1)
    return np.int64(yes - no)


@kernel
def tally_council(tok, pl, g, ch, category, decl):
    """Count a Council vote from the players' declarations ``decl[k, p]`` (+1 for, -1 against,
    0 none) for Council place k and the advice ``decl[k, ADVICE]`` (net, + for). A controlled
    member votes as its player declares. A neutral member votes with the side that weighs more:
    the tokens of its tied players on each side plus the advice (the rulebook's example: Mark, 2
    green for and 2 red against, advised once for and twice against, votes against); with equal
    weight it votes by its traits (or abstains). Voting against a trait under influence costs each
    influencing player on the winning side 1 token (Proud: 2). Returns the votes for."""
    n_players = g[G_PLAYERS]
    yes = 0
    for k in range(5):
        c = council_member(g, k)
        if c < 0:
            continue
        stance = trait_stance(ch, c, category)
        cost = 2 if has_trait(ch, c, T_PROUD) == 1 else 1
        q = char_owner(tok, g, c)
        most = np.int64(0)
        for p in range(n_players):
            most = max(most, tok[p, N_LANDS + c])
        vote = stance
        if q >= 0:
            vote = decl[k, q]
        else:
            net = decl[k, ADVICE]
            if most > 0:
                for p in range(n_players):
                    if tok[p, N_LANDS + c] == most:
                        net += most * decl[k, p]
            if net != 0:
                vote = np.int64(1 if net > 0 else -1)
            else:
                most = 0  # no side weighs more: the trait vote, nobody pays
        if vote != 0 and stance != 0 and vote != stance:
            for p in range(n_players):
                if (q >= 0 and p == q) or (
                    q < 0 and most > 0 and tok[p, N_LANDS + c] == most and decl[k, p] == vote
                ):
                    remove_tokens(tok, pl, p, N_LANDS + c, cost)
        if vote > 0:
            yes += 1
    return yes


@kernel
def council_vote(st, tok, pl, g, ch, land, proposer, category, mv, score, tied, decl):
    """A Council vote: the controlling player of each member (or each tied player of a neutral
    one) declares for or against, in Council order then seat order; the proposer always for;
    greedy avoids trait costs that lose it priority. Then the Heads advise neutral members
    (:func:`advise`). Returns the votes for."""
    n_players = g[G_PLAYERS]
    for k in range(5):
        for p in range(n_players):
            decl[k, p] = 0
        c = council_member(g, k)
        if c < 0:
            continue
        stance = trait_stance(ch, c, category)
        cost = 2 if has_trait(ch, c, T_PROUD) == 1 else 1
        most = np.int64(0)
        for p in range(n_players):
            most = max(most, tok[p, N_LANDS + c])
        if most == 0:
            continue
        for p in range(n_players):
            if tok[p, N_LANDS + c] != most:
                continue
            if p == proposer:
                decl[k, p] = 1
                continue
            # move 0 = for, 1 = against; greedy scores the trait cost on its priority.
            for i in range(2):
                against_trait = (stance < 0) if i == 0 else (stance > 0)
                score[i] = 0
                if against_trait and wants_scores(st, pl, p):
                    lost = -min(cost, tok[p, N_LANDS + c])
                    score[i] = gain(tok, pl, g, ch, land, p, N_LANDS + c, lost, 0, tied)
            decl[k, p] = 1 if choose(st, pl, p, 2, score) == 0 else -1
    advise(st, tok, pl, g, ch, land, proposer, mv, score, tied, decl)
    return tally_council(tok, pl, g, ch, category, decl)


@kernel
def next_adviser(tok, g, li, h, asked):
    """The next player in line to advise through Head h of Land li (Voting: "first the player
    with priority on it, then the other players by their influence; equal influence: Land + Head
    tokens"): the most tokens on h among those not yet ``asked`` with a token on it, ties by Land
    + Head; -1 when nobody is left, -2 when the next in line tie on both."""
    best = np.int64(-1)
    best_head = np.int64(0)
    best_total = np.int64(0)
    tie = False
    for p in range(g[G_PLAYERS]):
        head = tok[p, N_LANDS + h]
        if asked[p] == 1 or head == 0:
            continue
        total = head + tok[p, li]
        if best < 0 or head > best_head or (head == best_head and total > best_total):
            best, best_head, best_total, tie = p, head, total, False
        elif head == best_head and total == best_total:
            tie = True
    return np.int64(-2) if tie else best


@kernel
def advise(st, tok, pl, g, ch, land, proposer, mv, score, tied, decl):
    """Advice through Heads (rulebook: "players may sway [neutral Councillors] by advice through the
    Heads; each Head may advise only once"). In Land order, each Head advises at most once: one
    neutral Council member for or against, its adviser discarding a token from the Head (the
    Brothers' power, ``sway_council``, lets the player with priority on its Head advise without
    losing it). The adviser is the player with priority on the Head; under ``advice_by:
    influence``, when it passes (or there is none) the others in line by their tokens on it
    (:func:`next_adviser`; a tie for the next place leaves the Head silent: ``gap.advice_tie``).
    Greedy pays only what keeps its priority, for the side it declared (the proposer: for). The
    net advice per member is left in ``decl[k, ADVICE]``."""
    for k in range(5):
        decl[k, ADVICE] = 0
    if g[G_ADVICE] == 0:
        return
    asked = np.zeros(MAX_PLAYERS, dtype=np.int64)
    for li in range(N_LANDS):
        h = g[G_HOLDER0 + HEAD0 + li]
        if h < 0:
            continue
        holder = char_owner(tok, g, h)
        asked[:] = 0
        while True:
            if g[G_ADVICE_BY_INFLUENCE] == 1:
                q = next_adviser(tok, g, li, h, asked)
                if q == -2:
                    g[G_GAP0 + GAP_ADVICE_TIE] += 1
                    break
            elif holder >= 0 and asked[holder] == 0:
                q = holder
            else:
                q = np.int64(-1)
            if q < 0:
                break
            asked[q] = 1
            prio = q == holder
            if advise_through(
                st, tok, pl, g, ch, land, proposer, mv, score, tied, decl, li, h, q, prio
            ):
                if not prio:
                    g[G_ADVICE_NO_PRIORITY] += 1
                break


@kernel
def advise_through(st, tok, pl, g, ch, land, proposer, mv, score, tied, decl, li, h, q, prio):
    """Player q may advise one neutral Council member through Head h of Land li (``prio``: q has
    priority on h, the Brothers' power then spares its token). Returns whether it advised."""
    free = prio and land[li, L_EFFECT] == E_SWAY_COUNCIL
    loss = np.int64(0)
    if not free and wants_scores(st, pl, q):
        loss = gain(tok, pl, g, ch, land, q, N_LANDS + h, -1, 0, tied)
    n = 1
    mv[0, 0] = MV_PASS
    score[0] = 0
    for k in range(5):
        c = council_member(g, k)
        if c < 0 or c == h or char_owner(tok, g, c) >= 0:
            continue
        pref = np.int64(1) if q == proposer else decl[k, q]
        for side in range(2):
            mv[n, 0] = MV_ADVISE
            mv[n, 1] = k
            mv[n, 2] = 1 if side == 0 else -1
            score[n] = 2 * loss + mv[n, 2] * pref * ADVICE_VALUE
            n += 1
    i = choose(st, pl, q, n, score)
    if i == 0:
        return False
    decl[mv[i, 1], ADVICE] += mv[i, 2]
    if not free:
        remove_tokens(tok, pl, q, N_LANDS + h, 1)
    return True


@kernel
def land_vote(st, tok, pl, g, land, proposer, score):
    """Heads vote to remove a Councillor: neutral Heads do not count, except one the Sapphire
    Lakes' player (``sway_head``) makes vote as it says. Returns the votes for."""
    yes = 0
    for li in range(N_LANDS):
        h = g[G_HOLDER0 + HEAD0 + li]
        if h < 0:
            continue
        q = char_owner(tok, g, h)
        if q < 0:
            continue
        if q == proposer:
            yes += 1
        else:
            score[0] = 0
            score[1] = 0
            if choose(st, pl, q, 2, score) == 0:
                yes += 1
    s = power_holder(tok, g, land, E_SWAY_HEAD)
    if s >= 0 and neutral_head(tok, g) >= 0:
        # 0: leave it, 1: the neutral Head votes for (against counts as not voting).
        score[0] = 0
        score[1] = 1 if s == proposer else 0
        if choose(st, pl, s, 2, score) == 1:
            yes += 1
    if yes == 4:
        g[G_GAP0 + GAP_FOUR_VOTES] += 1
    return yes


@kernel
def active_in_slot(law, n_laws, j):
    for i in range(n_laws):
        if law[i, 5] == j:
            return np.int64(i)
    return np.int64(-1)


@kernel
def ignore_choice(st, tok, pl, g, land, law, i, score):
    """A law i has passed: the player with strictly most Land + Head tokens on the Brown Plains
    (``ignore_law``) may name it as the law that does not apply there, the one it ignored so far
    coming into force again (move 1) or keep its choice (move 0); greedy ignores the law that
    raises the tax more."""
    for li in range(N_LANDS):
        if land[li, L_EFFECT] != E_IGNORE_LAW:
            continue
        q = combined_top(tok, g, li)
        if q < 0:
            return
        old = g[G_IGNORED]
        score[0] = 0
        score[1] = law[i, 4] - (law[old, 4] if old >= 0 else 0)
        if choose(st, pl, q, 2, score) == 1:
            g[G_IGNORED] = i
        return


@inline
def ignored_here(g, land, li, i):
    """Whether law i does not apply on Land li (the Brown Plains' ignored law)."""
    return land[li, L_EFFECT] == E_IGNORE_LAW and g[G_IGNORED] == i


@kernel
def pass_law(st, tok, pl, g, land, law, i, j, score):
    """Law i takes slot j (or a free slot when j is -1): Treasury pays, mood, militarise (not on
    a Land that ignores it), tax."""
    n_laws = g[G_N_LAWS]
    if j < 0:
        for s in range(ACTIVE_LAWS):
            if active_in_slot(law, n_laws, s) < 0:
                j = s
                break
    old = active_in_slot(law, n_laws, j)
    if old >= 0:
        law[old, 5] = -1
        if g[G_IGNORED] == old:
            g[G_IGNORED] = -1  # a law no longer in force is ignored no more
    law[i, 5] = j
    ignore_choice(st, tok, pl, g, land, law, i, score)
    g[G_TREASURY] -= law[i, 1]
    g[G_TO_BANK] += law[i, 1]
    g[G_MOOD] = min(max(g[G_MOOD] + law[i, 2], -3), 3)
    for li in range(N_LANDS):
        if ignored_here(g, land, li, i):
            continue
        if law[i, 3] > 0 and land[li, L_CIV] > 0:
            land[li, L_CIV] -= 1
            land[li, L_SOL] += 1
        elif law[i, 3] < 0 and land[li, L_SOL] > 0:
            land[li, L_SOL] -= 1
            land[li, L_CIV] += 1
    delta = 0
    for k in range(n_laws):
        if law[k, 5] >= 0:
            delta += law[k, 4]
    g[G_TAX_DELTA] = delta
    g[G_LAWS_PASSED] += 1


@kernel
def law_moves(g, law, mv, n):
    n_laws = g[G_N_LAWS]
    active = 0
    for i in range(n_laws):
        if law[i, 5] >= 0:
            active += 1
    for i in range(n_laws):
        if law[i, 5] >= 0 or law[i, 1] > g[G_TREASURY]:
            continue
        if active < ACTIVE_LAWS:
            mv[n, 0] = MV_LAW
            mv[n, 1] = i
            mv[n, 2] = -1
            n += 1
        else:
            for j in range(ACTIVE_LAWS):
                mv[n, 0] = MV_LAW
                mv[n, 1] = i
                mv[n, 2] = j
                n += 1
    return n
