"""``dealerless resume [TABLE]``: carry on with a table after a crash or restart."""

from __future__ import annotations

import argparse
from pathlib import Path

import trio

from dealerless.client.bots.driver import BotDriver
from dealerless.client.commands.play import (
    add_screen_arguments,
    plain_mode,
    run_on_screen,
    screen_node_options,
)
from dealerless.node.app import EventLog, logged_say, resume_table, stderr_say
from dealerless.node.cli_common import add_common, load_identity_or_say, node_options
from dealerless.node.identity import Identity

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


def run(args: argparse.Namespace) -> int:
    loaded = load_identity_or_say(args.home)
    if loaded is None:
        return 1
    identity, home = loaded
    log = EventLog(args.event_log) if args.event_log else None
    try:
        if not args.bot and not plain_mode(args):
            return _full_screen(args, identity, home, log)
        return trio.run(
            lambda: resume_table(
                identity,
                home,
                args.table,
                bot=True if args.bot else None,
                bot_driver=BotDriver,
                say=stderr_say(),
                log=log,
                options=node_options(args),
            )
        )
    finally:
        if log is not None:
            log.close()


def _full_screen(
    args: argparse.Namespace, identity: Identity, home: Path, log: EventLog | None
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
        )

    return run_on_screen(session, node_main, args, data_dir=home)
