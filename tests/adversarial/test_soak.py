"""The soak run (scripts/soak, client/bench/soak.py) in miniature: one 4-seat table through a
faulty hub, audited on every peer, no divergence."""

from __future__ import annotations

import argparse
import contextlib
import io
import json

from dealerless.client.bench import soak


def test_soak_one_table() -> None:
    args = argparse.Namespace(
        seconds=0.01, players=4, hands=2, game="limit-tuppen", seed=11, json=True
    )
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = soak.run(args)
    report = json.loads(out.getvalue())
    assert code == 0, report
    assert report["tables"] == 1 and report["hands"] == 2 and report["divergences"] == 0
