"""``dealerless play``: a local game against bots, on the real protocol.

This process hosts the table and plays seat 0; every bot is a separate node process
(``dealerless join CODE --bot``) over loopback, so even a local game is the networked protocol
with the mental-poker deck. Deals come from that deck (every seat's secret shuffle), so a game
cannot be replayed from a seed: save the transcript (``s`` on the table screen) and use
``dealerless replay FILE`` instead.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from dealerless.node.portable import data_dir, user_name
from dealerless.protocol.rules.base import ConfigError
from dealerless.protocol.rules.registry import game_names, game_spec, make_config, parse_rule_args
from dealerless.protocol.table.config import MAX_STEP_TIMEOUT_MS

if TYPE_CHECKING:
    from dealerless.client.tui.node_session import DriverSession
    from dealerless.node.drivers import Driver

HELP = "play a local game against bots (full screen; --plain for line mode)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--game",
        default="tuppen",
        choices=game_names(),
        metavar="GAME",
        help=f"one of: {', '.join(game_names())} (default tuppen)",
    )
    parser.add_argument(
        "--bots", type=int, default=None, help="number of bot opponents (default: 3)"
    )
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a house-rule option; see `dealerless rules GAME`",
    )
    parser.add_argument("--name", default="", help="your name at the table")
    parser.add_argument(
        "--timeout",
        type=int,
        default=None,
        metavar="SECONDS",
        help="a seat silent this long at its step is timed out "
        "(default: time_per_move of the settings file, 120)",
    )
    parser.add_argument(
        "--bot", action="store_true", help="a bot plays your seat too (a demo; with --plain)"
    )
    parser.add_argument(
        "--home",
        metavar="DIR",
        default=None,
        help="data directory: your identity, and where the game is saved "
        "(default: $DEALERLESS_HOME, else the platform's user data dir)",
    )
    add_screen_arguments(parser)


def dealerless_command() -> list[str]:
    """The command line that runs ``dealerless`` with this interpreter (for child nodes)."""
    return [sys.executable, "-m", "dealerless"]


def games_home(args: argparse.Namespace) -> Path:
    """Seat 0 plays from the real data directory, so the game is stored and listed by
    ``dealerless games`` like any other table."""
    return data_dir(getattr(args, "home", None))


def add_screen_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the full-screen client (shared by play, host and join)."""
    from dealerless.client.tui.i18n import LANGUAGES

    parser.add_argument(
        "--plain",
        action="store_true",
        help="line mode: moves as numbers on stdin (automatic when not on a terminal)",
    )
    parser.add_argument("--lang", choices=LANGUAGES, default=None, help="screen language")
    parser.add_argument("--ascii", action="store_true", help="suit letters instead of symbols")
    parser.add_argument("--mono", action="store_true", help="no colours")


def run_on_screen(
    session: DriverSession, node_main: Callable[[], Awaitable[int]], args: argparse.Namespace
) -> int:
    """The lobby, then the table screen, of a seat played by ``node_main``, with the screen
    options of :func:`add_screen_arguments`."""
    from dealerless.client.logs import screen_mode
    from dealerless.client.tui.i18n import detect_language
    from dealerless.client.tui.lobby import run_node_client

    with screen_mode():
        return run_node_client(
            session,
            node_main,
            lang=detect_language(args.lang),
            unicode=not args.ascii,
            mono=args.mono,
        )


def plain_mode(args: argparse.Namespace) -> bool:
    return bool(args.plain) or not (sys.stdin.isatty() and sys.stdout.isatty())


def run(args: argparse.Namespace) -> int:
    from dealerless.client.config import apply_config

    apply_config(args)
    spec = game_spec(args.game)
    bots = args.bots if args.bots is not None else min(3, spec.max_players - 1)
    try:
        config = make_config(args.game, bots + 1, parse_rule_args(args.game, args.rule))
        step_ms = args.timeout * 1000
        if args.timeout < 1 or step_ms > MAX_STEP_TIMEOUT_MS:
            raise ConfigError(f"--timeout must be 1..{MAX_STEP_TIMEOUT_MS // 1000} s")
    except ConfigError as exc:
        print(f"dealerless play: {exc}", file=sys.stderr)
        return 2
    name = args.name or user_name("you")
    if plain_mode(args) or args.bot:
        from dealerless.client.bots.driver import BotDriver
        from dealerless.node.app import stderr_say
        from dealerless.node.line_driver import LineDriver
        from dealerless.node.local_game import run_local_game

        driver: Driver = BotDriver() if args.bot else LineDriver(unicode=not args.ascii)
        return run_local_game(
            config,
            bots,
            driver,
            cli=dealerless_command(),
            home=games_home(args),
            name=name,
            say=stderr_say(),
            step_timeout_ms=step_ms,
        )

    from dealerless.client.tui.node_session import DriverSession, LobbyState
    from dealerless.node.app import logged_say
    from dealerless.node.local_game import local_game

    session = DriverSession(
        lobby=LobbyState(role="host", name=name, game=args.game, seats=config.players)
    )

    async def node_main() -> int:
        return await local_game(
            config,
            bots,
            session,
            cli=dealerless_command(),
            home=games_home(args),
            name=name,
            say=logged_say(session.say),
            step_timeout_ms=step_ms,
            on_ready=session.on_ready,
        )

    return run_on_screen(session, node_main, args)
