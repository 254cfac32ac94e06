"""Root (Leder Games) and the fan-made hirelings module: RULES.md §2 and §4."""
