"""The soak run (``dealerless bench soak``, client/bench/soak.py) in miniature: one 4-seat table
through a faulty hub, one joining node SIGKILLed mid-game and restarted, audited on every peer,
no divergence."""

from __future__ import annotations

import argparse
import contextlib
import io
import json

import pytest

from dealerless.client.bench import soak


def soak_args(**changes: object) -> argparse.Namespace:
    args = argparse.Namespace(
        seconds=0.01, players=4, hands=2, game="limit-tuppen", kill=1.0, seed=11, json=True
    )
    vars(args).update(changes)
    return args


def test_soak_one_table_with_a_kill() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = soak.run(soak_args())
    report = json.loads(out.getvalue())
    assert code == 0, report
    assert report["tables"] == 1 and report["hands"] == 2 and report["divergences"] == 0
    assert report["injected"]["killed"] == 1, report  # the kill happened and the seat came back
    assert report["caught"] == 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"kill": 1.5}, "--kill is a chance between 0 and 1"),
        ({"seconds": 0}, "--seconds must be positive"),
        ({"hands": 0}, "--hands must be at least 1"),
        ({"players": 1}, "players"),
        ({"game": "poker"}, "poker"),
    ],
)
def test_soak_refuses_bad_arguments(
    change: dict[str, object], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert soak.run(soak_args(**change)) == 2
    assert message in capsys.readouterr().err


def test_the_cli_runs_it_as_a_bench_target() -> None:
    import subprocess
    import sys

    cli = [sys.executable, "-m", "dealerless.client.cli", "bench", "soak"]
    shown = subprocess.run([*cli, "--help"], capture_output=True, text=True, check=False)
    assert shown.returncode == 0 and "--kill" in shown.stdout
    refused = subprocess.run([*cli, "--kill", "2"], capture_output=True, text=True, check=False)
    assert refused.returncode == 2
    assert "--kill is a chance between 0 and 1, not 2.0" in refused.stderr
