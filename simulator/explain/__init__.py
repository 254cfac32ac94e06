"""Why it changed: a variant's effect attributed to the clauses it changed (docs/why.md).

:mod:`~simulator.explain.clauses` finds the clauses in which two parameter sets differ,
:mod:`~simulator.explain.design` picks the combinations to play and the effects read from them,
:mod:`~simulator.explain.run` plays them on the same deals, :mod:`~simulator.explain.decompose`
splits every metric's change into the clauses' shares with paired intervals, and
:mod:`~simulator.explain.render` shows them (terminal, verdict, report.html).
"""
