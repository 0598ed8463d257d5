"""``dealerless resume [TABLE]``: carry on with a table after a crash or restart."""

from __future__ import annotations

import argparse

import trio

from dealerless.node.app import EventLog, resume_table, stderr_say
from dealerless.node.cli_common import add_common, load_identity_or_say, node_options

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


def run(args: argparse.Namespace) -> int:
    loaded = load_identity_or_say(args.home)
    if loaded is None:
        return 1
    identity, home = loaded
    log = EventLog(args.event_log) if args.event_log else None
    try:
        return trio.run(
            lambda: resume_table(
                identity,
                home,
                args.table,
                bot=True if args.bot else None,
                say=stderr_say(),
                log=log,
                options=node_options(args),
            )
        )
    finally:
        if log is not None:
            log.close()
