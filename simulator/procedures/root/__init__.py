"""Root (Leder Games) and the fan-made hirelings module: Root hirelings rules and §4."""

from simulator.jitcache import drop_stale

drop_stale(__file__)  # before the modules load their cached kernels (agents' edits count too)
