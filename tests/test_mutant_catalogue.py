"""The rule-mutant catalogue (mutants/catalogue.yaml) stays applicable and covers every rule.

`make mutants` plants the mutants and runs their tests (long: a compile per mutant); this test,
which runs in every `make test`, only checks the catalogue itself, so a change that moves a
mutant's code fails here and the entry is updated with it.
"""

from __future__ import annotations

import shlex

import pytest

from mutants.run import ROOT, load_catalogue
from simulator import procedures

CATALOGUE = load_catalogue()


@pytest.mark.parametrize("mutant", CATALOGUE, ids=[m.id for m in CATALOGUE])
def test_every_mutant_finds_its_code_exactly_once(mutant):
    source = (ROOT / mutant.file).read_text(encoding="utf-8")
    assert source.count(mutant.find) == 1, f"{mutant.id}: find text is stale in {mutant.file}"
    assert mutant.replace != mutant.find
    for arg in mutant.tests:
        path = shlex.split(arg)[0].split("::")[0]
        if not path.startswith("-"):
            assert (ROOT / path).exists(), f"{mutant.id}: no test file {path}"


def test_every_procedure_has_at_least_three_rule_mutants():
    counts = {name: 0 for name in procedures.names()}
    for m in CATALOGUE:
        assert m.procedure in counts, f"{m.id}: unknown procedure {m.procedure}"
        counts[m.procedure] += 1
    assert {k: v for k, v in counts.items() if v < 3} == {}
