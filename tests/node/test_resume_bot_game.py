"""``dealerless resume`` brings back a game against bots (``dealerless play``) that stopped in
the middle: the bots' homes are kept until the game ends, and resume starts each bot again
(issue 25 item 4: the bots were not restarted and the table waited forever). One node per seat:
a second process for a seat that is open already stops at once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from dealerless.node.portable import hold_lock

CLI = [sys.executable, "-m", "dealerless.client.cli"]


def _hands_started(home: Path) -> int:
    log = home / "logs" / "dealerless.log"
    return log.read_text(errors="replace").count("'ev': 'hand'") if log.exists() else 0


def test_a_bot_game_stopped_midway_is_resumed_with_its_bots(tmp_path: Path) -> None:
    home = tmp_path / "home"
    game = subprocess.Popen(
        [*CLI, "play", "--plain", "--bot", "--game", "limit-tuppen", "--bots", "2",
         "--rule", "hands=20", "--home", str(home)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,  # the bots are in its process group
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while _hands_started(home) < 3 and time.monotonic() < deadline:
            assert game.poll() is None, "the game ended before it could be stopped"
            time.sleep(0.2)
        assert _hands_started(home) >= 3
        os.killpg(game.pid, signal.SIGKILL)  # the computer went down: the bots with it
        game.wait(timeout=30)
    finally:
        if game.poll() is None:
            os.killpg(game.pid, signal.SIGKILL)
    kept = list((home / "bots" / "tables").iterdir())
    assert len(kept) == 1 and sorted(p.name for p in kept[0].iterdir()) == ["bot1", "bot2"]
    resumed = subprocess.run(
        [*CLI, "resume", "--bot", "--home", str(home)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    out = resumed.stdout + resumed.stderr
    assert resumed.returncode == 0, out
    assert "game over: 20 hands played" in out and "verified by replay" in out, out
    assert not kept[0].exists()  # the game is over: the bots' copies went
    listed = subprocess.run(
        [*CLI, "games", "--json", "--home", str(home)],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    (saved,) = json.loads(listed.stdout)["games"]
    assert saved["verified"] and saved["game"] == "limit-tuppen", saved


def test_a_seat_open_in_one_process_is_refused_to_another(tmp_path: Path) -> None:
    lock = tmp_path / "node.lock"
    release = hold_lock(lock)
    assert release is not None
    probe = [sys.executable, "-c",
             "import sys; from pathlib import Path; from dealerless.node.portable import hold_lock;"
             " sys.exit(0 if hold_lock(Path(sys.argv[1])) is None else 3)", str(lock)]  # fmt: skip
    assert subprocess.run(probe, timeout=60, check=False).returncode == 0  # refused
    release()
    assert subprocess.run(probe, timeout=60, check=False).returncode == 3  # free again
