"""``dealerless bench fuzz``: a short run finds no crash or hang and reports its counts; plus a
hypothesis property over the node's seat-message decoder (the table decoder and machine are
fuzzed in tests/protocol/test_violations_fuzz.py and tests/messages/test_fuzz.py)."""

from __future__ import annotations

import argparse
import contextlib
import io
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from dealerless.client.bench import fuzz
from dealerless.node.wire import WireError, decode


def test_bench_fuzz_short_run_reports_no_crash() -> None:
    out = io.StringIO()
    args = argparse.Namespace(
        seconds=3.0, seed=5, hang=10.0, out="", json=True, targets=",".join(fuzz.TARGETS)
    )
    with contextlib.redirect_stdout(out):
        code = fuzz.run(args)
    report = json.loads(out.getvalue())
    assert code == 0, report["crash_examples"]
    assert report["crashes"] == 0 and report["hangs"] == 0
    assert report["inputs"] > 100
    assert set(report["by_kind"]) == {"random", "mutated", "resigned", "wire", "audit"}
    assert sum(report["audit_verdicts"].values()) == report["by_kind"]["audit"]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=600))
def test_node_wire_decode_random_bytes(data: bytes) -> None:
    try:
        message = decode(data)
    except WireError:
        return
    assert isinstance(message, dict) and isinstance(message["t"], str)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_bench_fuzz_generators_are_total(seed: int) -> None:
    """The input generators themselves never raise (they feed a long unattended run)."""
    import random

    rng = random.Random(seed)
    for _ in range(5):
        fuzz.random_value(rng)
        fuzz.mutate(rng, rng.randbytes(rng.randrange(50)), rng.randbytes(20))
