"""The template a new whole game copies: Pig, a push-your-luck dice game (Pig rules).

Copy ``pig/`` to ``simulator/procedures/<game>/<rule>/``, rename, and replace the rules: the
walk-through is docs/architecture.md, "Adding a whole game". Every piece a whole game needs is
here once, in the smallest form that runs: a declared state layout, the game interface the
agents play, packed and metric rows by name, a kernel over blocks of trials, a procedure.
"""

from simulator.jitcache import drop_stale

drop_stale(__file__)  # before the modules load their cached kernels (a split package's edits count)
