"""The balance regression gate (`sim baseline`, `sim check`): see docs/gate.md.

Modules: :mod:`.settings` (a scenario's ``check:`` section), :mod:`.outcomes` (per-trial outcomes:
running and packing them), :mod:`.store` (the baseline file, validated field by field),
:mod:`.power` (detectable effects and trial counts), :mod:`.compare` (the paired check) and
:mod:`.output` (terminal, JUnit, Markdown).
"""
