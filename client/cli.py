"""The ``dealerless`` command: one argparse front end, one module per subcommand.

Each subcommand lives in ``dealerless.client.commands.<name>`` and defines
``HELP: str``, ``add_arguments(parser)`` and ``run(args) -> int`` (the exit code). A bad
argument exits 2 with a message that says what was wrong.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Sequence

COMMANDS = (
    "play",
    "host",
    "join",
    "resume",
    "relay",
    "id",
    "rules",
    "simulate",
    "audit",
    "replay",
    "bench",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dealerless",
        description="Card games peer to peer, with no trusted dealer.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module_name = f"dealerless.client.commands.{name.replace('-', '_')}"
        if importlib.util.find_spec(module_name) is None:
            continue
        module = importlib.import_module(module_name)
        cmd = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(cmd)
        cmd.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    run = getattr(args, "_run", None)
    if run is None:
        if sys.stdin.isatty() and sys.stdout.isatty():
            return start_screen()
        parser.print_help()
        return 2
    try:
        code: int = run(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return code


def start_screen() -> int:
    """``dealerless`` alone on a terminal: the start screen (play, host, join, rules, settings)."""
    from dealerless.client.start_launch import launch_host, launch_join, launch_play
    from dealerless.client.tui.start import run_client

    return run_client(play=launch_play, host=launch_host, join=launch_join)


def entry_point() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry_point()
