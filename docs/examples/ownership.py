"""Ownership checks of the recruitment rule, written by a designer (docs/recruitment.md, "Your own
ownership check"). A scenario names one as `ownership: ownership.py:NAME`.

Each takes every seat's loyalty to one owned character and its tokens on it (one entry per seat,
seat 1 at index 0) and the owner's index, and returns the seat that holds the character after
maintenance ③, or -1 to remove it from the game.
"""


def revision_1_1(loyalty, tokens, owner):
    """Revision 1.1's check, as the rulebook words it (the built-in one plays the same games)."""
    if tokens.sum() == 0:
        return -1  # no tokens left: it leaves the game
    best, tied, rival = -1, 0, owner
    for seat in range(len(loyalty)):
        if seat != owner:
            if loyalty[seat] > best:
                best, tied, rival = loyalty[seat], 1, seat
            elif loyalty[seat] == best:
                tied += 1
    if loyalty[owner] >= best:
        return owner  # still the highest, or tied for it
    if tied == 1:
        return rival  # one other empire strictly highest
    return -1  # several tie above the owner: removed


def most_tokens_breaks_the_tie(loyalty, tokens, owner):
    """1.1, except that when several rivals tie above the owner, the one of them with the most
    tokens on the character gains it; if they tie on tokens too, it stays with its owner."""
    if tokens.sum() == 0:
        return -1
    best = -1
    for seat in range(len(loyalty)):
        if seat != owner and loyalty[seat] > best:
            best = loyalty[seat]
    if loyalty[owner] >= best:
        return owner
    winner, most, tied = owner, -1, 0
    for seat in range(len(loyalty)):
        if seat != owner and loyalty[seat] == best:
            if tokens[seat] > most:
                winner, most, tied = seat, tokens[seat], 1
            elif tokens[seat] == most:
                tied += 1
    return winner if tied == 1 else owner
