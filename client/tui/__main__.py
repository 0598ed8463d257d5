"""Developer entry point: ``python -m dealerless.client.tui --game tuppen --bots 3 --seed N``.

Starts the table screen against bots on a :class:`LocalSession` (what ``dealerless play``
will call).
"""

from __future__ import annotations

import argparse
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path

from dealerless.client.tui.app import run_table_app
from dealerless.client.tui.i18n import LANGUAGES, detect_language
from dealerless.client.tui.session import LocalSession
from dealerless.node.portable import user_name
from dealerless.protocol.rules.base import ConfigError
from dealerless.protocol.rules.registry import game_names, game_spec, make_config, parse_rule_args


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m dealerless.client.tui")
    parser.add_argument("--game", default="tuppen", choices=game_names())
    parser.add_argument("--bots", type=int, default=None)
    parser.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--name", default=user_name())
    parser.add_argument("--start", action="store_true", help="show the start screen first")
    parser.add_argument("--lang", choices=LANGUAGES, default=None)
    parser.add_argument("--ascii", action="store_true", help="suit letters instead of symbols")
    parser.add_argument("--mono", action="store_true", help="no colours")
    parser.add_argument("--bot-delay", type=float, default=0.4, help="seconds between bot moves")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per move")
    parser.add_argument("--save-dir", type=Path, default=None)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.start:
        from dealerless.client.tui.settings import Settings
        from dealerless.client.tui.start import run_client

        settings = Settings.load()
        if args.lang:
            settings.lang = args.lang
        return run_client(settings, save_dir=args.save_dir)
    spec = game_spec(args.game)
    bots = args.bots if args.bots is not None else min(3, spec.max_players - 1)
    try:
        config = make_config(args.game, bots + 1, parse_rule_args(args.game, args.rule))
    except ConfigError as exc:
        print(f"dealerless: {exc}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    session = LocalSession(
        config,
        seed=seed,
        human_name=args.name,
        step_timeout_ms=args.timeout * 1000,
        bot_delay=args.bot_delay,
    )
    return run_table_app(
        session,
        lang=detect_language(args.lang),
        unicode=not args.ascii,
        mono=args.mono,
        save_dir=args.save_dir,
    )


if __name__ == "__main__":
    sys.exit(main())
