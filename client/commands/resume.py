"""``dealerless resume [TABLE]``: carry on with a table after a crash or restart."""

from __future__ import annotations

import argparse
import shutil
import subprocess
from pathlib import Path

import trio

from dealerless.client.bots.driver import BotDriver
from dealerless.client.commands.play import (
    add_screen_arguments,
    dealerless_command,
    plain_mode,
    run_on_screen,
    screen_node_options,
)
from dealerless.node.app import EventLog, logged_say, resume_table, stderr_say
from dealerless.node.cli_common import add_common, load_identity_or_say, node_options
from dealerless.node.identity import Identity
from dealerless.node.local_game import bot_homes_dir, start_kept_bots, stop_bots
from dealerless.node.store import TableMeta

HELP = "resume a table after a crash (default: the most recent unfinished one)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "table",
        nargs="?",
        default=None,
        metavar="TABLE",
        help="the table id, or its first characters",
    )
    add_common(parser)
    add_screen_arguments(parser)


class KeptBots:
    """The bot seats of a local game (``dealerless play``) stopped before its end: resumed
    with it, each a ``dealerless resume --bot`` process in the home the game kept for it."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.table_id = ""
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self, meta: TableMeta) -> None:
        # A bot still running since the crash holds its seat (one node per seat): the copy
        # started here then stops at once, and the running one carries on.
        self.table_id = meta.table_id
        self.procs = start_kept_bots(self.home, meta.table_id, dealerless_command())

    def stop(self, code: int) -> None:
        stop_bots(self.procs, 10.0)
        if code == 0 and self.procs:  # the game is over: the bots' copies are not needed
            shutil.rmtree(bot_homes_dir(self.home, self.table_id), ignore_errors=True)


def run(args: argparse.Namespace) -> int:
    loaded = load_identity_or_say(args.home)
    if loaded is None:
        return 1
    identity, home = loaded
    log = EventLog(args.event_log) if args.event_log else None
    bots = KeptBots(home)
    code = 1
    try:
        if not args.bot and not plain_mode(args):
            code = _full_screen(args, identity, home, log, bots)
            return code
        code = trio.run(
            lambda: resume_table(
                identity,
                home,
                args.table,
                bot=True if args.bot else None,
                bot_driver=BotDriver,
                say=stderr_say(),
                log=log,
                options=node_options(args),
                on_chosen=bots.start,
            )
        )
        return code
    finally:
        bots.stop(code)
        if log is not None:
            log.close()


def _full_screen(
    args: argparse.Namespace, identity: Identity, home: Path, log: EventLog | None, bots: KeptBots
) -> int:
    """The lobby while the node catches up with its peers, then the table screen."""
    from dealerless.client.tui.node_session import DriverSession, LobbyState

    options = screen_node_options(args)
    session = DriverSession(
        options=options, lobby=LobbyState(role="join", fingerprint=identity.fingerprint)
    )

    async def node_main() -> int:
        return await resume_table(
            identity,
            home,
            args.table,
            driver=session,
            say=logged_say(session.say),
            log=log,
            options=options,
            on_chosen=bots.start,
        )

    return run_on_screen(session, node_main, args, data_dir=home)
