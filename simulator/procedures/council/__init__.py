"""The council game of the Russian homebrew rules (RULES.md §3)."""
