"""``python -m tests.times FILE``: where a test run's time went, by test file, from the lines
``SIM_TEST_TIMES=FILE`` had the run append (tests/conftest.py); the slowest tests after.

``python -m tests.times --compiles FILE``: the same for the compiles ``SIM_COMPILE_LOG=FILE``
logged: CPU seconds by test file and by function (a function listed twice compiled twice)."""

from __future__ import annotations

import sys
from collections import defaultdict


def _largest(seconds_by_name: dict[str, float], top: int) -> None:
    for name, seconds in sorted(seconds_by_name.items(), key=lambda kv: -kv[1])[:top]:
        print(f"{seconds:8.1f} s  {name}")


def main(path: str, top: int = 25) -> None:
    by_file: dict[str, float] = defaultdict(float)
    by_test: dict[str, float] = defaultdict(float)
    failed: list[str] = []
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            node, _, seconds, outcome = line.rstrip("\n").split("\t")
            if outcome == "failed":
                failed.append(node)
            by_file[node.split("::")[0]] += float(seconds)
            by_test[node] += float(seconds)
    total = sum(by_file.values())
    print(f"{total:.0f} s of test time in {len(by_file)} files")
    _largest(by_file, top)
    print("failed:", *failed, sep="\n  ")
    print("slowest tests:")
    _largest(by_test, top)


def compiles(path: str, top: int = 25) -> None:
    by_file: dict[str, float] = defaultdict(float)
    by_function: dict[str, list[float]] = defaultdict(list)
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            node, function, seconds = line.rstrip("\n").split("\t")
            by_file[node.split("::")[0]] += float(seconds)
            by_function[function].append(float(seconds))
    total = sum(by_file.values())
    print(f"{total:.0f} CPU-s of compiling, {sum(map(len, by_function.values()))} compiles")
    _largest(by_file, top)
    print("by function (times compiled):")
    for name, each in sorted(by_function.items(), key=lambda kv: -sum(kv[1]))[:top]:
        print(f"{sum(each):8.1f} s  {len(each):3d}x  {name}")


if __name__ == "__main__":
    if sys.argv[1] == "--compiles":
        compiles(sys.argv[2], *(int(a) for a in sys.argv[3:4]))
    else:
        main(sys.argv[1], *(int(a) for a in sys.argv[2:3]))
