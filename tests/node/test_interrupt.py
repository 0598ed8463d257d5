"""Ctrl-C stops a node with one line, never a traceback: Trio delivers the interrupt inside an
exception group of the tasks it cancelled, and the command still reads it as Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

CLI = [sys.executable, "-m", "dealerless"]


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_a_host_waiting_for_players_stops_on_ctrl_c_with_one_line(tmp_path: Path) -> None:
    invite = tmp_path / "invite"
    args = ["host", "--game", "tuppen", "--seats", "2", "--bot", "--home", str(tmp_path / "h")]
    args += ["--listen", "127.0.0.1:0", "--invite-file", str(invite)]
    proc = subprocess.Popen(
        CLI + args,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
        # A test run started in the background (`nohup ... &`) ignores SIGINT, and so would the
        # host it starts (seen here: the host ran on for 90 s after the signal): a terminal's
        # Ctrl-C reaches a process with the default disposition, which is what is tested.
        preexec_fn=_default_sigint,
    )
    try:
        deadline = time.monotonic() + 60
        while not invite.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        assert invite.exists(), "the host never wrote its invite"
        time.sleep(0.5)  # its tasks are running: the interrupt meets a nursery
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=90)  # a loaded CI machine
    finally:
        proc.kill()
    text = (out + err).decode(errors="replace")
    assert "Traceback" not in text, text
    assert proc.returncode == 130 and "interrupted" in text, (proc.returncode, text)
