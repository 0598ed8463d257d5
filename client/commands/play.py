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

from dealerless.node.cli_common import node_options
from dealerless.node.notices import Notice
from dealerless.node.options import NodeOptions
from dealerless.node.portable import data_dir, user_name
from dealerless.protocol.rules.base import ConfigError
from dealerless.protocol.rules.registry import game_names, game_spec, make_config, parse_rule_args

if TYPE_CHECKING:
    from dealerless.client.line_mode import TextLineDriver
    from dealerless.client.tui.node_session import DriverSession
    from dealerless.client.tui.settings import Settings
    from dealerless.node.drivers import Driver

Say = Callable[[Notice], None]

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
    parser.add_argument(
        "--name", default="", help="your name at the table (default: from the settings)"
    )
    add_level_argument(parser, "the bots' level")
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


def add_level_argument(parser: argparse.ArgumentParser, what: str) -> None:
    from dealerless.client.bots import DEFAULT_LEVEL, LEVELS

    parser.add_argument(
        "--level",
        choices=LEVELS,
        default=None,
        help=f"{what}: {', '.join(LEVELS)} (default: the settings file's, else {DEFAULT_LEVEL})",
    )


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
    # the start screen runs the commands with this: the game-over panel goes back to its menu
    parser.add_argument("--from-menu", action="store_true", help=argparse.SUPPRESS)


def saved_settings() -> Settings:
    """The start screen's settings (name, language, time per move, suit letters, result
    panel): the commands use them where no option is given."""
    from dealerless.client.tui.settings import Settings

    return Settings.load()


def screen_language(args: argparse.Namespace) -> str:
    """--lang, else the language saved in the settings, else the locale's."""
    from dealerless.client.tui.i18n import detect_language
    from dealerless.client.tui.settings import Settings

    if args.lang:
        return detect_language(args.lang)
    if Settings.default_path().is_file():
        return detect_language(saved_settings().lang)
    return detect_language(None)


def screen_node_options(args: argparse.Namespace) -> NodeOptions:
    """The node options of a seat a person plays on the table screen: sitting out, it keeps
    following the table, so the screen can show it and bring the person back (``o``)."""
    options = node_options(args)
    options.follow_away = True
    return options


def run_on_screen(
    session: DriverSession,
    node_main: Callable[[], Awaitable[int]],
    args: argparse.Namespace,
    *,
    data_dir: Path | None = None,
    rematch: bool = False,
) -> int:
    """The lobby, then the table screen, of a seat played by ``node_main``, with the screen
    options of :func:`add_screen_arguments`; ``data_dir``: where the node keeps the table's
    transcript (the game-over panel says so); ``rematch``: the game-over panel offers r."""
    from dealerless.client.logs import screen_mode
    from dealerless.client.tui.lobby import run_node_client

    settings = saved_settings()
    with screen_mode():
        return run_node_client(
            session,
            node_main,
            lang=screen_language(args),
            unicode=not (args.ascii or settings.ascii),
            mono=args.mono,
            result_pause=float(settings.result_pause_s),
            data_dir=data_dir,
            rematch=rematch,
            menu=bool(getattr(args, "from_menu", False)),
        )


def line_driver(args: argparse.Namespace) -> TextLineDriver:
    """The line-mode driver of a seat played by a person (``--plain``)."""
    from dealerless.client.line_mode import TextLineDriver

    return TextLineDriver(screen_language(args), unicode=not args.ascii)


def line_say(args: argparse.Namespace, write: Callable[[str], None] | None = None) -> Say:
    """The node's messages in line mode, in the screen's words (stderr by default)."""
    from dealerless.client.line_mode import plain_say

    return plain_say(screen_language(args), write)


def plain_mode(args: argparse.Namespace) -> bool:
    return bool(args.plain) or not (sys.stdin.isatty() and sys.stdout.isatty())


def run(args: argparse.Namespace) -> int:
    from dealerless.client.config import apply_config

    apply_config(args)
    spec = game_spec(args.game)
    bots = args.bots if args.bots is not None else min(3, spec.max_players - 1)
    settings = saved_settings()
    timeout = args.timeout if args.timeout is not None else settings.timeout_s
    try:
        config = make_config(args.game, bots + 1, parse_rule_args(args.game, args.rule))
        step_ms = timeout * 1000
        from dealerless.protocol.table.config import MAX_STEP_TIMEOUT_MS  # heavy: not for --help

        if timeout < 1 or step_ms > MAX_STEP_TIMEOUT_MS:
            raise ConfigError(f"--timeout must be 1..{MAX_STEP_TIMEOUT_MS // 1000} s")
    except ConfigError as exc:
        print(f"dealerless play: {exc}", file=sys.stderr)
        return 2
    name = args.name or settings.name or user_name("you")
    if plain_mode(args) or args.bot:
        from dealerless.client.bots.driver import BotDriver
        from dealerless.node.local_game import run_local_game

        driver: Driver = BotDriver(level=args.level) if args.bot else line_driver(args)
        return run_local_game(
            config,
            bots,
            driver,
            cli=dealerless_command(),
            home=games_home(args),
            name=name,
            say=line_say(args),
            step_timeout_ms=step_ms,
            bot_level=args.level,
        )

    from dealerless.client.tui.node_session import DriverSession, LobbyState
    from dealerless.node.app import logged_say
    from dealerless.node.local_game import local_game

    while True:  # another game with the same settings while the player presses r at the end
        # Sitting out, the person's node follows the table, so `o` brings them back.
        options = NodeOptions(linger=5.0, follow_away=True)
        session = DriverSession(
            options=options,
            lobby=LobbyState(role="host", name=name, game=args.game, seats=config.players),
        )

        async def node_main(
            session: DriverSession = session, options: NodeOptions = options
        ) -> int:
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
                bot_level=args.level,
                options=options,
            )

        code = run_on_screen(session, node_main, args, rematch=True)
        if not session.rematch:
            return code
