"""``dealerless join CODE``: take a seat at a table from its invite code."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import trio

from dealerless.client.bots.driver import BotDriver
from dealerless.client.commands.play import (
    add_level_argument,
    add_screen_arguments,
    line_driver,
    line_say,
    plain_mode,
    run_on_screen,
    screen_node_options,
)
from dealerless.client.config import apply_config
from dealerless.node.app import EventLog, join_table, logged_say, stderr_say
from dealerless.node.cli_common import (
    add_common,
    add_floor,
    default_name,
    load_identity_or_say,
    node_options,
    read_invite_code,
)
from dealerless.node.identity import Identity
from dealerless.node.invite import Invite, InviteError
from dealerless.node.options import NodeOptions

# How long a rematch's joiner waits for its host to open the table: the host may still be
# reading the final scoreboard (the player leaves the lobby with q at any time).
REMATCH_WAIT = 600.0
HELP = "join a table with an invite code (the same command resumes it after a crash)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "code",
        metavar="CODE",
        nargs="?",
        default=None,
        help="the invite code (dl3:...); '-' or none: read it from stdin. A code on the command "
        "line is visible to other users of this machine",
    )
    parser.add_argument(
        "--invite-file", default="", metavar="PATH", help="read the invite code from this file"
    )
    parser.add_argument("--name", default="", help="your name at the table")
    add_common(parser)
    add_floor(parser)
    add_level_argument(parser, "with --bot: the bot's level")
    add_screen_arguments(parser)


def run(args: argparse.Namespace) -> int:
    apply_config(args)
    try:
        # white space dropped: a code pasted over two lines (the lobby's quoted join command)
        args.code = "".join(read_invite_code(args.code, args.invite_file).split())
        invite = Invite.decode(args.code)
    except (InviteError, ValueError) as exc:
        print(f"dealerless join: {exc}", file=sys.stderr)
        return 2
    loaded = load_identity_or_say(args.home)
    if loaded is None:
        return 1
    identity, home = loaded
    if not args.bot and not plain_mode(args):
        return _full_screen(args, identity, home, invite)
    say = stderr_say()
    say(f"table {invite.table_id.hex()[:12]}: {invite.describe()}")
    log = EventLog(args.event_log) if args.event_log else None
    try:
        return trio.run(
            lambda: join_table(
                identity,
                home,
                invite,
                name=args.name or (bot_name(identity) if args.bot else default_name()),
                bot=args.bot,
                bot_driver=lambda: BotDriver(level=args.level),
                transcript=args.transcript,
                driver=None if args.bot else line_driver(args),
                say=say if args.bot else line_say(args, say),
                log=log,
                options=node_options(args),
            )
        )
    finally:
        if log is not None:
            log.close()


def bot_name(identity: Identity) -> str:
    """A ``--bot`` seat's name when none is given: "bot" and its fingerprint's first letters
    (so two bots can be told apart), never the login name or "player"."""
    return f"bot-{identity.fingerprint[:4].lower()}"


def _full_screen(args: argparse.Namespace, identity: Identity, home: Path, invite: Invite) -> int:
    """The lobby (who is at the table, how many are missing), then the table screen; after the
    game, as often as the player chooses a rematch (r), the same at the rematch's table, whose
    invite we derive from this one (``Invite.rematch``): it opens when the host chooses the
    rematch too, so we wait longer for it than for a table we were invited to."""
    from dealerless.client.tui.node_session import DriverSession, LobbyState

    name = args.name or default_name()
    code = args.code.strip()
    rematch = False
    log = EventLog(args.event_log) if args.event_log else None
    try:
        while True:
            options = screen_node_options(args)
            if rematch:
                options.first_join_wait = REMATCH_WAIT
            session = DriverSession(
                options=options,
                lobby=LobbyState(
                    role="join",
                    name=name,
                    game=invite.game,
                    seats=invite.seats,
                    invite=code,
                    table_id=invite.table_id.hex(),
                    fingerprint=identity.fingerprint,
                    rematch=rematch,
                ),
            )

            async def node_main(
                session: DriverSession = session,
                invite: Invite = invite,
                options: NodeOptions = options,
            ) -> int:
                return await join_table(
                    identity,
                    home,
                    invite,
                    name=name,
                    transcript=args.transcript,
                    driver=session,
                    say=logged_say(session.say),
                    log=log,
                    options=options,
                )

            result = run_on_screen(session, node_main, args, data_dir=home, rematch=True)
            if not session.rematch:
                return result
            invite, rematch = invite.rematch(), True
            code = invite.encode()
    finally:
        if log is not None:
            log.close()
