"""The opposed roll with a mistake: a metric that is a fraction (docs/own-rules.md)."""


def opposed_roll(dice, attacker_dice: int = 3, defender_dice: int = 2, defender_bonus: int = 2):
    attack = dice.roll(attacker_dice, 6)
    dice.part(1)
    defence = dice.roll(defender_dice, 6) + defender_bonus
    return {"attacker_wins": attack > defence, "ratio": attack / defence}
