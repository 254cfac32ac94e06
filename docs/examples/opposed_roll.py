"""Opposed roll: the attacker rolls 3d6, the defender 2d6 + 2; the higher total wins, ties to the
defender."""

from itertools import product

METRICS = {
    "attacker_wins": "the attacker's total beats the defender's (a tie is the defender's)",
    "margin": "the attacker's total minus the defender's",
}


def opposed_roll(dice, attacker_dice: int = 3, defender_dice: int = 2, defender_bonus: int = 2):
    """Opposed roll: attacker Nd6 against defender Md6 + bonus.

    Args:
        attacker_dice: d6 the attacker rolls
        defender_dice: d6 the defender rolls
        defender_bonus: added to the defender's total
    """
    attack = dice.roll(attacker_dice, 6)
    dice.part(1)  # the defender's dice: the same whatever the attacker rolls
    defence = dice.roll(defender_dice, 6) + defender_bonus
    return {"attacker_wins": attack > defence, "margin": attack - defence}


def opposed_roll_exact(attacker_dice, defender_dice, defender_bonus):
    """Every roll of the dice, counted."""
    wins = margin = count = 0
    for faces in product(range(1, 7), repeat=attacker_dice + defender_dice):
        attack = sum(faces[:attacker_dice])
        defence = sum(faces[attacker_dice:]) + defender_bonus
        wins += attack > defence
        margin += attack - defence
        count += 1
    return {"attacker_wins": wins / count, "margin": margin / count}
