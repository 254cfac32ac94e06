"""The council game of the Russian homebrew rules (Council rules)."""
