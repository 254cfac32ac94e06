"""Recruitment and loyalty, the homebrew empire game's character rule (RULES.md §1)."""
