"""A local game: this process hosts and plays one seat, bots join as separate OS processes.

Each bot is a real node (``dealerless join CODE --bot``) with its own identity key in its own
temporary home, talking to the host over loopback TCP through the secure channel. This is what
``dealerless play`` runs.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import trio

from dealerless.node.app import host_table
from dealerless.node.identity import load_or_create_identity
from dealerless.node.seat import BotDriver, Driver, NodeOptions
from dealerless.node.store import TableMeta
from dealerless.protocol.rules.base import GameConfig

__all__ = ["run_local_game"]


def run_local_game(
    game_config: GameConfig,
    bots: int,
    human_driver: Driver | None = None,
    *,
    home: str | Path | None = None,
    say: Callable[[str], None] = print,
    step_timeout_ms: int = 60_000,
    bot_output: int | None = subprocess.DEVNULL,
) -> int:
    """Play one game: seat 0 in this process (``human_driver``, or a bot when None), ``bots``
    bot seats as separate processes. Returns 0 for a complete game whose transcript verified.

    ``home``: data directory of seat 0 (default: a temporary one, removed afterwards).
    """
    if bots + 1 != game_config.players:
        raise ValueError(f"{game_config.players} seats need {game_config.players - 1} bots")
    with tempfile.TemporaryDirectory(prefix="dealerless-local-") as tmp:
        root = Path(tmp)
        identity, _ = load_or_create_identity(home if home is not None else root / "seat0")
        seat_home = Path(home) if home is not None else root / "seat0"
        procs: list[subprocess.Popen[bytes]] = []

        def start_bots(meta: TableMeta) -> None:
            for number in range(1, bots + 1):
                args = [
                    sys.executable,
                    "-m",
                    "dealerless.client.cli",
                    "join",
                    meta.invite,
                    "--home",
                    str(root / f"bot{number}"),
                    "--bot",
                    "--name",
                    f"bot{number}",
                    "--linger",
                    "5",
                ]
                procs.append(subprocess.Popen(args, stdout=bot_output, stderr=bot_output))  # noqa: S603

        driver = human_driver or BotDriver()
        try:
            code = trio.run(
                lambda: host_table(
                    identity,
                    seat_home,
                    game_config,
                    name="you",
                    listen=("127.0.0.1", 0),
                    step_timeout_ms=step_timeout_ms,
                    driver=driver,
                    say=say,
                    options=NodeOptions(linger=5.0),
                    on_ready=start_bots,
                )
            )
        finally:
            for proc in procs:
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        bot_codes = [proc.returncode for proc in procs]
        if code == 0 and any(c != 0 for c in bot_codes):
            say(f"a bot process failed: exit codes {bot_codes}")
            return 1
        return code
