"""Who comes and goes (issue 25, item 3), end to end: ann plays in a real terminal (tmux, 80x24)
at a table of two bot node processes over a real Nostr relay, and quits in the middle of a
hand (``q``, ``y``). Over Nostr nobody sees a connection drop: her node tells the table with a
signed ``bye`` before it stops, and the others say at once that she quit, long before her
step timeout (60 s) could."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_e2e_seat_change_tmux import _bot
from test_e2e_tmux import TMUX, Terminal, terminal  # noqa: F401 - the fixture

from dealerless.client.bench.nostr_relay import RelayProcess

pytestmark = [
    pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install tmux)"),
    pytest.mark.slow,
]


def _said(tmp_path: Path, name: str, text: str) -> bool:
    path = tmp_path / f"{name}.log"
    return path.exists() and text in path.read_text(errors="replace")


def test_the_others_hear_at_once_that_a_player_quit(
    terminal: Terminal,  # noqa: F811
    tmp_path: Path,
) -> None:
    term = terminal
    relay = RelayProcess(tmp_path / "relay").start()
    invite = tmp_path / "invite"
    bots: list[subprocess.Popen[bytes]] = []
    try:
        host = _bot(
            tmp_path, "bot0", "host", "--game", "limit-tuppen", "--seats", "3",
            "--rule", "hands=20", "--nostr", relay.url, "--invite-file", str(invite),
            "--step-timeout", "60",
        )  # fmt: skip
        bots.append(host)
        for _ in range(600):
            if invite.exists() and invite.read_text().strip():
                break
            time.sleep(0.05)
        term.tmux(
            "new-session", "-d", "-s", term.name, "-x", "80", "-y", "24",
            f"{sys.executable} -m dealerless.client.cli join --invite-file {invite} --name ann"
            f" --home {tmp_path / 'ann'} --ascii --lang en --linger 2; echo EXIT=$?; sleep 60",
        )  # fmt: skip
        term.wait_for(lambda s: "At the table" in s or "Your hand:" in s, limit=60)
        bots.append(_bot(tmp_path, "bot2", "join", "--invite-file", str(invite)))
        term.wait_for(lambda s: "Your hand:" in s and "Your moves:" in s, limit=120)
        term.press("q")
        term.wait_for(lambda s: "Quit? (y/n)" in s, limit=20)
        term.press("y")
        term.wait_for(lambda s: "EXIT=" in s, limit=30)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if all(_said(tmp_path, b, "(ann) quit the table") for b in ("bot0", "bot2")):
                break
            time.sleep(0.2)
        logs = {b: (tmp_path / f"{b}.log").read_text(errors="replace") for b in ("bot0", "bot2")}
        for name, text in logs.items():
            assert "(ann) quit the table; if they do not come back they are timed out" in text, (
                name,
                text[-1500:],
            )
            said_quit = text.index("(ann) quit the table")
            timed_out = text.find("(ann) was timed out")
            assert timed_out == -1 or timed_out > said_quit, text[-1500:]
    finally:
        for bot in bots:
            if bot.poll() is None:
                bot.kill()
        relay.kill()
