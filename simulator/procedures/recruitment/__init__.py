"""Recruitment and loyalty, the homebrew empire game's character rule (Recruitment rules)."""
