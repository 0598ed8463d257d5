"""The ``dealerless`` command: one argparse front end, one module per subcommand.

Each subcommand lives in ``dealerless.client.commands.<name>`` and defines ``HELP: str``,
``add_arguments(parser)`` and ``run(args) -> int`` (the exit code). A bad argument exits 2 with
a message that says what was wrong.

Start-up is lazy: the one-line summaries of :data:`COMMANDS` are all that ``dealerless --help``
needs, so only the command being run is imported (``bench cli`` measures this). Everything that
is not a command's promised output goes to stderr and the log file (client/logs.py).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dealerless.client.tui.settings import Settings
    from dealerless.client.tui.start import Launcher, StartChoice

# name -> one-line summary; each command module's HELP says the same (tests/test_cli_lazy.py).
COMMANDS: dict[str, str] = {
    "play": "play a local game against bots (full screen; --plain for line mode)",
    "host": "create a table, show the invite code for the other players, and play a seat",
    "join": "join a table with an invite code (the same command resumes it after a crash)",
    "resume": "resume a table after a crash (default: the most recent unfinished one)",
    "tables": "list this node's unfinished tables (what `resume` can carry on)",
    "games": "list the finished games saved here (replay N / audit N take a number from it)",
    "ratings": "rank the players met here from verified transcripts (--import: others' games)",
    "relay": "run a relay: forwards signed messages for many tables; holds no game keys",
    "relays": "ask Nostr relays whether they can carry a table: limits, test events, echo time",
    "id": "show this node's identity fingerprint and key file (created on first run)",
    "config": "show the settings file, or set a value in it",
    "rules": "list the games, their options and defaults",
    "simulate": "play complete games between bots and print the standings",
    "audit": "re-check a game transcript offline: signatures, chain, rules, every proof",
    "spec": "check a folder of transcripts against the spec: schema, audit, expected audit JSON",
    "replay": "re-verify a saved game (transcript file) and step through it",
    "bench": "measure speed and robustness: cli, crypto, hand, end, relay, fuzz, soak, bots",
    "completion": "print a shell completion script (bash, zsh or fish)",
}

Run = Callable[[argparse.Namespace], int]


class _VersionAction(argparse.Action):
    """``--version``; reads the installed version only when asked (importlib.metadata is slow
    to import)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_args: object, **_kw: object) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            text = version("dealerless")
        except PackageNotFoundError:
            text = "unknown (not installed)"
        print(f"dealerless {text}")
        parser.exit()


def _add_log_options(parser: argparse.ArgumentParser, *, top: bool) -> None:
    # On a subcommand the defaults are SUPPRESS so that `dealerless -v play` keeps its -v.
    default: object = 0 if top else argparse.SUPPRESS
    group = parser.add_argument_group("output")
    group.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=default,
        help="more detail on stderr (-vv: debug); the log file always has everything",
    )
    group.add_argument(
        "-q",
        "--quiet",
        action="count",
        default=default,
        help="only errors on stderr",
    )


def command_module(name: str) -> object:
    return importlib.import_module(f"dealerless.client.commands.{name}")


def _find_command(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv`` (the first word that is not an option), if any."""
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def build_parser(only: str | None = None, *, full: bool = True) -> argparse.ArgumentParser:
    """The parser. With ``full`` every command's arguments are defined (completion, tests);
    otherwise only those of ``only`` (what :func:`main` parses), the others show their
    summary alone."""
    parser = argparse.ArgumentParser(
        prog="dealerless",
        description="Card games peer to peer, with no trusted dealer. "
        "`dealerless` alone on a terminal opens the start screen.",
        epilog="Settings: `dealerless config`. Every command has --help.",
    )
    parser.add_argument("--version", action=_VersionAction)
    _add_log_options(parser, top=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, summary in COMMANDS.items():
        cmd = sub.add_parser(name, help=summary, description=summary)
        if full or name == only:
            module = command_module(name)
            module.add_arguments(cmd)  # type: ignore[attr-defined]
            cmd.set_defaults(_run=module.run)  # type: ignore[attr-defined]
            _add_log_options(cmd, top=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    command = _find_command(words)
    parser = build_parser(command, full=False)
    args = parser.parse_args(words)
    run: Run | None = getattr(args, "_run", None)
    if run is None:
        if sys.stdin.isatty() and sys.stdout.isatty():
            return _logged(args, lambda _args: start_screen(), "dealerless")
        parser.print_help(sys.stderr)
        return 2
    return _logged(args, run, f"dealerless {command}")


def _logged(args: argparse.Namespace, run: Run, who: str) -> int:
    """Run a command with logging set up; an unexpected exception is logged with its traceback
    and shown as one line that says where the details are."""
    from dealerless.client.logs import innermost, report_crash, setup_logging

    log_file = setup_logging(
        verbose=getattr(args, "verbose", 0), quiet=getattr(args, "quiet", 0), home=_home(args)
    )
    try:
        return run(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # the last line of defence: one line on screen, all in the log
        from dealerless.client.config import ConfigFileError
        from dealerless.node.store_db import StoreError

        leaf = innermost(exc)
        if isinstance(leaf, BrokenPipeError):
            return _reader_gone()
        if isinstance(leaf, StoreError | ConfigFileError):  # the message says what to do
            print(f"{who}: {leaf}", file=sys.stderr)
            return 2 if isinstance(leaf, ConfigFileError) else 1
        report_crash(who, exc, log_file)
        return 1
    except BaseExceptionGroup as group:
        # Trio delivers Ctrl-C inside the group of the tasks it cancelled: still Ctrl-C.
        # (A group of ordinary errors is an Exception and was handled above.)
        interrupted, rest = group.split(KeyboardInterrupt)
        if interrupted is None or rest is not None:
            raise
        print("interrupted", file=sys.stderr)
        return 130


def _reader_gone() -> int:
    """Our output was piped into a reader that stopped (``| head``): nothing went wrong here,
    so no message. What is still buffered goes nowhere (Python would complain at exit), and
    the status is a SIGPIPE's, as any Unix tool's in a pipe."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 128 + 13


def _home(args: argparse.Namespace) -> str | None:
    home = getattr(args, "home", None)
    return str(home) if home else None


def start_screen() -> int:
    """``dealerless`` alone on a terminal: the start screen (play, host, join, rules, settings);
    each entry runs the same command a user could type."""
    from dealerless.client.logs import screen_mode
    from dealerless.client.start_launch import host_argv, join_argv, play_argv
    from dealerless.client.tui.start import run_client

    with screen_mode():  # the start screen owns the terminal; the log file keeps recording
        return run_client(
            play=start_launcher(play_argv),
            host=start_launcher(host_argv),
            join=start_launcher(join_argv),
        )


def start_launcher(build: Callable[[Settings, StartChoice], list[str]]) -> Launcher:
    """A start-screen entry that runs the command line ``build`` makes from the choice."""

    def launch(settings: Settings, choice: StartChoice) -> int:
        try:
            return main(build(settings, choice))
        except SystemExit as exc:  # a bad argument: argparse has printed why
            return int(exc.code or 2)

    return launch


def entry_point() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry_point()
