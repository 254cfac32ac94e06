"""Tournaments: every entrant in every seat equally often, on the same deals.

A scenario with a ``tournament:`` section runs its game's kernel under every seating of the
entrants on each deal (``spec``: the section and the seatings; ``procedure``: the tournament as a
procedure the engine runs like any other, with per-deal metrics; ``analysis``: the matchup matrix,
ratings and skill gap after reduction; ``report``: terminal, files and HTML). See
docs/agents.md.
"""
