"""``dealerless play --plain`` as a subprocess: the line-mode client on the real protocol (this
process hosts seat 0, the bot is a separate ``dealerless join --bot`` process over loopback),
moves answered from a scripted stdin."""

from __future__ import annotations

import subprocess
import sys

import pytest


def play(*args: str, answers: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dealerless.client.cli", "play", "--plain", *args],
        input=answers,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    "args",
    [
        ("--game", "pottuppen", "--bots", "1", "--rule", "hands=1"),
        ("--game", "limit-tuppen", "--bots", "1", "--rule", "hands=1"),
    ],
)
def test_play_plain_against_a_bot_process(args: tuple[str, ...]) -> None:
    done = play(*args, "--ascii", answers="1\n" * 400)  # always the first listed move
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "your move (a number from 1 to " in out and "  1) " in out
    assert "Game over: " in out and "Standings (" in out
    # no developer text: no repr, no Python lists, seats by name
    assert "Outcome(" not in out and "scores: [" not in out and "seat 0" not in out
    assert "verified by replay" in out
    # the bot leaving after the end is the normal end, not a lost connection
    assert "lost the connection" not in out and "disconnected" not in out, out


def test_play_rejects_a_bad_rule_and_has_no_seed() -> None:
    done = play("--game", "pottuppen", "--rule", "nope=1", answers="")
    assert done.returncode == 2 and "dealerless play:" in done.stderr
    done = play("--seed", "3", answers="")
    assert done.returncode == 2 and "--seed" in done.stderr
