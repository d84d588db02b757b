"""The fuzzer of every reader of untrusted bytes (tests/fuzz_readers.py), briefly: a few dozen
inputs per reader, derandomised (the same inputs every run). `make fuzz` runs it long."""

from __future__ import annotations

import os
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings

from tests.fuzz_readers import READERS, check, inputs

LONG = "PARLEY_FUZZ_EXAMPLES" in os.environ
EXAMPLES = int(os.environ.get("PARLEY_FUZZ_EXAMPLES", "20"))
OUTCOMES: dict[str, Counter] = {}


@pytest.mark.parametrize("reader", READERS, ids=[r.name for r in READERS])
def test_a_reader_returns_or_says_why_within_its_budget(reader, tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    outcomes = OUTCOMES.setdefault(reader.name, Counter())

    @settings(max_examples=EXAMPLES, derandomize=not LONG, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(inputs(reader))
    def run(data: bytes) -> None:
        outcomes[check(reader, data, folder)] += 1

    run()
    if LONG:
        print(f"\n{reader.name}: {sum(outcomes.values())} inputs: {dict(outcomes)}")
