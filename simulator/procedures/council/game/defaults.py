"""The council game's default data set: seven Lands, eleven Characters and the laws deck, as
plain dictionaries (the parameters model validates them, :mod:`.params`). Names and powers are
the rulebook's; the numbers are invented but where its examples give them (scenarios/council/
game.yaml marks each; the procedure declares them: land_data, character_data, law_data)."""

from __future__ import annotations

# The default data set (scenarios/council/game.yaml repeats it with each invented value marked).
# Names and powers are the rulebook's; sizes, populations, seats and traits are invented except
# where the rulebook's examples fix them (Valley of Arrows: 8 cells, 7 occupied; Gustav is Warlike;
# Matej heads the Golden Coast, Gunter the Brown Plains, Irena the Brothers).
DEFAULT_LANDS: list[dict] = [
    {
        "name": "Golden Coast",
        "size": 7,
        "civilians": 4,
        "soldiers": 2,
        "power": "rare gift for 2 coins",
        "effect": "rare_gift",
    },
    {
        "name": "Valley of Arrows",
        "size": 8,
        "civilians": 3,
        "soldiers": 4,
        "power": "the Warlord sets the tax",
        "effect": "warlord_tax",
    },
    {
        "name": "Brown Plains",
        "size": 6,
        "civilians": 4,
        "soldiers": 1,
        "power": "ignore one law",
        "effect": "ignore_law",
    },
    {
        "name": "Black Harbour",
        "size": 6,
        "civilians": 2,
        "soldiers": 2,
        "power": "+1 income",
        "effect": "income_bonus",
    },
    {
        "name": "Sapphire Lakes",
        "size": 5,
        "civilians": 3,
        "soldiers": 1,
        "power": "sway a neutral Head",
        "effect": "sway_head",
    },
    {
        "name": "Zalesye",
        "size": 6,
        "civilians": 2,
        "soldiers": 3,
        "power": "Mercenaries cost 1 less",
        "effect": "mercenary_discount",
    },
    {
        "name": "Brothers",
        "size": 5,
        "civilians": 2,
        "soldiers": 2,
        "power": "sway the Council without losing tokens",
        "effect": "sway_council",
    },
]
DEFAULT_CHARACTERS: list[dict] = [
    {"name": "Edmar the Dark", "traits": ["warlike", "proud"], "seat": "warlord"},
    {"name": "Eliza of the Evening", "traits": ["egoist", "greedy"], "seat": "treasurer"},
    {"name": "Mark the Broad-Shouldered", "traits": ["believer", "sycophant"], "seat": "bishop"},
    {"name": "Gustav the Wise", "traits": ["warlike", "humane"], "seat": "privy_councillor"},
    {"name": "Matej the Verbose", "traits": ["thrifty", "collector"], "seat": "Golden Coast"},
    {"name": "Thomas the Firm", "traits": ["warlike", "domineering"], "seat": "Valley of Arrows"},
    {"name": "Gunter the Fisherman", "traits": ["peaceful", "humane"], "seat": "Brown Plains"},
    {"name": "Arthur the Handsome", "traits": ["wasteful", "bribable"], "seat": "Black Harbour"},
    {"name": "Josette the Fiery", "traits": ["atheist", "proud"], "seat": "Sapphire Lakes"},
    {"name": "Vera the Silent", "traits": ["incorruptible", "peaceful"], "seat": "Zalesye"},
    {"name": "Irena the Tall", "traits": ["believer", "egoist"], "seat": "Brothers"},
]
DEFAULT_LAWS: list[dict] = [
    {
        "name": "Military mobilisation",
        "category": "military",
        "cost": 4,
        "mood": -1,
        "militarise": 1,
    },
    {"name": "Border levy", "category": "military", "cost": 3, "mood": -1, "tax_delta": 0.5},
    {"name": "Temple tithe", "category": "religious", "cost": 2, "mood": -1, "tax_delta": 0.5},
    {"name": "Freedom of worship", "category": "religious", "cost": 3, "mood": 1},
    {"name": "Poor relief", "category": "social", "cost": 5, "mood": 2},
    {"name": "Workhouses", "category": "social", "cost": 2, "mood": -1, "tax_delta": -0.5},
    {"name": "Demobilisation", "category": "military", "cost": 3, "mood": 1, "militarise": -1},
    {"name": "Grain tariff", "category": "none", "cost": 2, "mood": -1, "tax_delta": 0.5},
]
