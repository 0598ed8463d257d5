"""A local game: this process hosts and plays one seat, bots join as separate OS processes.

Each bot is a real node (``dealerless join CODE --bot``) with its own identity key in its own
temporary home, talking to the host over loopback TCP through the secure channel. The caller
chooses both drivers: the one of seat 0, and (``cli``) the command that starts a bot process,
so node/ never depends on the client that plays. This is what
``dealerless play`` runs: :func:`run_local_game` in a plain terminal (``trio.run``), and
:func:`local_game` (the same, async) inside the full-screen client, which runs Trio in guest
mode.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import trio

from dealerless.node.app import host_table
from dealerless.node.identity import KEY_FILE_NAME, load_or_create_identity
from dealerless.node.notices import Notice, notice, print_say
from dealerless.node.options import NodeOptions
from dealerless.node.seat import Driver
from dealerless.node.store import TableMeta
from dealerless.protocol.rules.base import GameConfig

__all__ = ["BotJoiners", "local_game", "run_local_game"]


def stop_bots(procs: list[subprocess.Popen[bytes]], wait: float) -> list[int]:
    """Wait up to ``wait`` seconds for each bot, then kill it; their exit codes."""
    for proc in procs:
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return [proc.returncode for proc in procs]


def _lend_bot_key(player_home: Path, level: str, number: int, bot_home: Path) -> None:
    """Give a bot the same identity key in every game of this player at this level (kept in
    ``<home>/bots/<level>-<n>``): its games, ratings and fingerprint stay one opponent, not a
    new ``bot1`` each game."""
    keep = player_home / "bots" / f"{level}-{number}"
    load_or_create_identity(keep)
    bot_home.mkdir(mode=0o700, parents=True, exist_ok=True)
    shutil.copy2(keep / KEY_FILE_NAME, bot_home / KEY_FILE_NAME)  # keeps its 0600 mode


class BotJoiners:
    """The bot seats of a table we host: each a real node process (``cli join - --bot``) that
    joins with the invite code (on its stdin, never in argv) once the table is ready. With a
    ``player_home`` each bot keeps its identity per level (``<home>/bots/<level>-<n>``) and
    its copy of the table under ``<home>/bots/tables/<id>`` until the game ends (for
    ``dealerless resume``); else it lives in ``scratch``."""

    def __init__(
        self,
        cli: Sequence[str],
        count: int,
        *,
        level: str,
        step_timeout_ms: int,
        output: int | None = subprocess.DEVNULL,
        player_home: Path | None = None,
        scratch: Path | None = None,
    ) -> None:
        if player_home is None and scratch is None:
            raise ValueError("bots need a player home or a scratch directory")
        self.cli, self.count, self.level = list(cli), count, level
        self.step_timeout_ms, self.output = step_timeout_ms, output
        self.player_home, self.scratch = player_home, scratch
        self.procs: list[subprocess.Popen[bytes]] = []
        self.kept: Path | None = None  # the bots' homes of this table, kept for a resume

    def start(self, meta: TableMeta) -> None:
        for number in range(1, self.count + 1):
            if self.player_home is not None:
                self.kept = bot_homes_dir(self.player_home, meta.table_id)
                bot_home = self.kept / f"bot{number}"
                _lend_bot_key(self.player_home, self.level, number, bot_home)
            else:
                assert self.scratch is not None
                bot_home = self.scratch / f"bot{number}"
            args = [
                *self.cli, "join", "-",
                # our own table: the step-timeout floor is ours to lower
                "--min-step-timeout", str(self.step_timeout_ms / 1000),
                "--home", str(bot_home), "--bot", "--name", f"bot{number}",
                "--linger", "5", "--level", self.level,
            ]  # fmt: skip
            proc = subprocess.Popen(  # noqa: S603
                args, stdin=subprocess.PIPE, stdout=self.output, stderr=self.output
            )
            self.procs.append(proc)
            assert proc.stdin is not None
            proc.stdin.write(meta.invite.encode() + b"\n")
            proc.stdin.close()

    async def stop(self, finished: bool) -> list[int]:
        """After the game (``finished``: wait for them to finish too), or when we left it
        (kill them); their exit codes."""
        if not self.procs:
            return []
        if not finished:
            for proc in self.procs:
                proc.kill()
        codes: list[int] = []
        with trio.CancelScope(shield=True):
            wait = 10.0 if finished else 2.0
            codes = await trio.to_thread.run_sync(stop_bots, self.procs, wait)
        return codes

    def forget_kept(self) -> None:
        """The game is over: the bots' copies of it are not needed (ours is the record).
        Stopped before its end, they stay for ``dealerless resume``."""
        if self.kept is not None:
            shutil.rmtree(self.kept, ignore_errors=True)


async def local_game(
    game_config: GameConfig,
    bots: int,
    driver: Driver,
    *,
    cli: Sequence[str],
    home: str | Path | None = None,
    name: str = "you",
    say: Callable[[Notice], None] = print_say,
    log: Callable[[dict[str, Any]], None] | None = None,
    step_timeout_ms: int = 60_000,
    bot_output: int | None = subprocess.DEVNULL,
    on_ready: Callable[[TableMeta], None] | None = None,
    bot_level: str = "strong",
    options: NodeOptions | None = None,
) -> int:
    """Play one game (async; see :func:`run_local_game`). If cancelled (the player left),
    the bot processes are killed. ``cli``: the command line that runs ``dealerless`` (for
    example ``[sys.executable, "-m", "dealerless"]``); each bot runs ``cli + ["join", ...]``
    at ``bot_level``. ``options``: our node's (default: a 5 s linger)."""
    if bots + 1 != game_config.players:
        raise ValueError(f"{game_config.players} seats need {game_config.players - 1} bots")
    with tempfile.TemporaryDirectory(prefix="dealerless-local-") as tmp:
        root = Path(tmp)
        seat_home = Path(home) if home is not None else root / "seat0"
        identity, _ = load_or_create_identity(seat_home)

        joiners = BotJoiners(
            cli, bots, level=bot_level, step_timeout_ms=step_timeout_ms, output=bot_output,
            player_home=seat_home if home is not None else None, scratch=root,
        )  # fmt: skip

        def start_bots(meta: TableMeta) -> None:
            joiners.start(meta)
            if on_ready is not None:
                on_ready(meta)

        finished = False
        try:
            code = await host_table(
                identity,
                seat_home,
                game_config,
                name=name,
                listen=("127.0.0.1", 0),
                step_timeout_ms=step_timeout_ms,
                driver=driver,
                say=say,
                log=log,
                options=options or NodeOptions(linger=5.0),
                on_ready=start_bots,
            )
            finished = True
        finally:
            bot_codes = await joiners.stop(finished)
        if finished and code == 0:
            joiners.forget_kept()
        if code == 0 and any(c != 0 for c in bot_codes):
            say(notice("bot_failed", codes=", ".join(str(c) for c in bot_codes)))
            return 1
        return code


def bot_homes_dir(player_home: Path, table_id: str) -> Path:
    """Where the bots of a local game at ``table_id`` keep their tables until it ends."""
    return player_home / "bots" / "tables" / table_id


def start_kept_bots(
    player_home: Path, table_id: str, cli: Sequence[str], output: int | None = subprocess.DEVNULL
) -> list[subprocess.Popen[bytes]]:
    """Resume the bot seats of a local game stopped before its end (each ``cli resume TABLE
    --bot`` in its own kept home); none if this table has no kept bots."""
    folder = bot_homes_dir(player_home, table_id)
    homes = sorted(p for p in folder.glob("bot*") if p.is_dir()) if folder.is_dir() else []
    procs = []
    for bot_home in homes:
        args = [*cli, "resume", table_id, "--bot", "--home", str(bot_home), "--linger", "5"]
        procs.append(
            subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=output, stderr=output)  # noqa: S603
        )
    return procs


def run_local_game(
    game_config: GameConfig,
    bots: int,
    driver: Driver,
    *,
    cli: Sequence[str],
    home: str | Path | None = None,
    name: str = "you",
    say: Callable[[Notice], None] = print_say,
    step_timeout_ms: int = 60_000,
    bot_output: int | None = subprocess.DEVNULL,
    bot_level: str = "strong",
) -> int:
    """Play one game: seat 0 in this process (``driver``), ``bots`` bot seats as separate
    processes started with ``cli``. Returns 0 for a complete game whose transcript verified.

    ``home``: data directory of seat 0 (default: a temporary one, removed afterwards).
    """
    return trio.run(
        lambda: local_game(
            game_config,
            bots,
            driver,
            cli=cli,
            home=home,
            name=name,
            say=say,
            step_timeout_ms=step_timeout_ms,
            bot_output=bot_output,
            bot_level=bot_level,
        )
    )
