"""Here I Stand field battle (Here I Stand rules §5.4), written as a designer's own file.

The built-in procedure his.field_battle draws each side's hits from one random word; this file
rolls every die, as a designer would write it. Both follow docs/rules/here-i-stand.md#s5-4.
"""

METRICS = {
    "attacker_wins": "the attacker scores more hits (ties as ties_to_attacker)",
    "attacker_hits": {"description": "hits rolled by the attacker", "headline": False},
    "defender_hits": {"description": "hits rolled by the defender", "headline": False},
    "attacker_units_left": {"description": "attacker units after the battle", "max": 40},
    "defender_units_left": {"description": "defender units after the battle", "max": 40},
    "attacker_leader_captured": "the attacker has a leader and no units left",
    "defender_leader_captured": "the defender has a leader and no units left",
    "both_wiped_out": "the hits remove every unit of both sides (the winner then keeps one)",
}


def field_battle(
    dice,
    attacker_units: int = 4,
    attacker_leader: int = 2,
    attacker_has_leader: bool = True,
    defender_units: int = 3,
    defender_leader: int = 0,
    defender_has_leader: bool = False,
    defender_extra_dice: int = 1,
    hit_on: int = 5,
    ties_to_attacker: bool = False,
):
    """Field battle: units + leader dice a side, the defender one more; fewer hits loses."""
    attacker_hits = dice.count(attacker_units + attacker_leader, 6, hit_on)  # one word each
    defender_hits = dice.count(defender_units + defender_leader + defender_extra_dice, 6, hit_on)
    attacker_left = max(attacker_units - defender_hits, 0)
    defender_left = max(defender_units - attacker_hits, 0)
    wins = attacker_hits > defender_hits or (attacker_hits == defender_hits and ties_to_attacker)
    both = attacker_left == 0 and defender_left == 0
    if both:  # both wiped out: the winner keeps one unit
        if wins:
            attacker_left = 1
        else:
            defender_left = 1
    return {
        "attacker_wins": wins,
        "attacker_hits": attacker_hits,
        "defender_hits": defender_hits,
        "attacker_units_left": attacker_left,
        "defender_units_left": defender_left,
        "attacker_leader_captured": attacker_left == 0 and attacker_has_leader,
        "defender_leader_captured": defender_left == 0 and defender_has_leader,
        "both_wiped_out": both,
    }
