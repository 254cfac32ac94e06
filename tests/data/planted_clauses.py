"""A dice rule whose clauses change its score by known amounts (tests/test_explain.py).

The base score is 2d6. Clause `bonus` adds a d6 (+3.5 on average), clause `loss` takes away the
number of 3d6 showing 5 or 6 (-1 on average); each reads its own part of the trial's words, so
every combination rolls the same dice and the two add up exactly, deal by deal. Clauses `left`
and `right` matter only together: both add a d3 (+2 on average), either alone nothing. Clause
`never` would add 100 to a 2d6 above 12, which never happens.
"""

METRICS = {
    "score": "the final score",
    "high": "the score is 10 or more",
    "never_fired": "the never clause's case arose (2d6 above 12)",
}


def planted(
    dice,
    bonus: bool = False,
    loss: bool = False,
    left: bool = False,
    right: bool = False,
    never: bool = False,
):
    """A score with planted clauses.

    Args:
        bonus: add a d6 to the score
        loss: take away the 5s and 6s of 3d6
        left: half of a pair that adds a d3 together
        right: the other half of the pair
        never: add 100 to a 2d6 above 12
    """
    base = dice.roll(2, 6)
    dice.part(1)
    extra = dice.d(6)
    dice.part(2)
    lost = dice.count(3, 6, 5)
    dice.part(3)
    pair = dice.d(3)
    score = base
    if bonus:
        score += extra
    if loss:
        score -= lost
    if left and right:
        score += pair
    odd = base > 12
    if never and odd:
        score += 100
    return {"score": score, "high": score >= 10, "never_fired": never and odd}
