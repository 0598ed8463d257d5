"""``dealerless play``: a local game against bots."""

from __future__ import annotations

import argparse
import secrets
import sys

from dealerless.client.line_play import LinePlayer
from dealerless.protocol.rules.base import ConfigError
from dealerless.protocol.rules.registry import game_names, game_spec, make_config, parse_rule_args

HELP = "play a local game against bots"


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
    parser.add_argument("--seed", type=int, default=None, help="deal a reproducible game")
    parser.add_argument("--ascii", action="store_true", help="suit letters instead of symbols")


def run(args: argparse.Namespace) -> int:
    spec = game_spec(args.game)
    bots = args.bots if args.bots is not None else min(3, spec.max_players - 1)
    try:
        config = make_config(args.game, bots + 1, parse_rule_args(args.game, args.rule))
    except ConfigError as exc:
        print(f"dealerless play: {exc}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else secrets.randbits(32)

    def read(prompt: str) -> str:
        try:
            return input(prompt)
        except EOFError:
            raise KeyboardInterrupt from None

    player = LinePlayer(config, 0, seed, read, print, unicode=not args.ascii)
    return player.run()
