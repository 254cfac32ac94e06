"""`make bench`: speed figures of kernels, agents and backends, each beside a baseline measured in
the same run (run.py collects the bench_*.py modules; harness.py times them)."""
