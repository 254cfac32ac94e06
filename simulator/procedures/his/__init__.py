"""Here I Stand procedures (RULES.md §5)."""
