"""``dealerless simulate``: bots play complete games and the standings are printed (or JSON).

``--lineup KIND,KIND,...`` names the bot kind of every seat (strong, normal, basic, random,
passive); ``--rotate`` shifts the lineup one seat further each game; the summary gives per kind
the games won, the mean final standing and its standard error (:mod:`lineup_stats`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from dealerless.client.bots import KINDS
from dealerless.client.lineup_stats import rotated, summarise
from dealerless.client.protocol_run import simulate_game
from dealerless.client.protocol_sim import ProtocolSimError
from dealerless.client.simulate import SimulationError, play_game
from dealerless.protocol.rules.base import ConfigError
from dealerless.protocol.rules.registry import game_names, game_spec, make_config, parse_rule_args

HELP = "play complete games between bots and print the standings"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--game",
        required=True,
        choices=game_names(),
        metavar="GAME",
        help=f"one of: {', '.join(game_names())}",
    )
    parser.add_argument("--players", type=int, default=None, help="seats (default: 4)")
    parser.add_argument("--games", type=int, default=1, help="how many games (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed for the deck and the bots")
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a house-rule option; see `dealerless rules GAME`",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument(
        "--engine-only",
        action="store_true",
        help="rules engine only (no keys, signatures or mental-poker deck)",
    )
    parser.add_argument(
        "--transcripts", metavar="DIR", help="write one signed transcript per game (protocol path)"
    )
    parser.add_argument(
        "--lineup",
        metavar="KIND,KIND,...",
        default=None,
        help=f"bot kind of every seat, one of {', '.join(KINDS)} (default: basic everywhere)",
    )
    parser.add_argument(
        "--rotate",
        action="store_true",
        help="shift the lineup one seat further each game (every kind in every seat)",
    )


def _fail(message: str) -> int:
    print(f"dealerless simulate: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    if args.games < 1 or args.games > 1_000_000:
        return _fail(f"--games must be 1..1000000, got {args.games}")
    spec = game_spec(args.game)
    players = (
        args.players
        if args.players is not None
        else max(spec.min_players, min(4, spec.max_players))
    )
    try:
        options = parse_rule_args(args.game, args.rule)
        config = make_config(args.game, players, options)
    except ConfigError as exc:
        return _fail(str(exc))
    lineup: list[str] | None = None
    if args.lineup is not None:
        lineup = [k.strip() for k in args.lineup.split(",")]
        unknown = [k for k in lineup if k not in KINDS]
        if unknown:
            return _fail(f"--lineup: unknown kind {unknown[0]!r}; use {', '.join(KINDS)}")
        if len(lineup) != players:
            return _fail(f"--lineup names {len(lineup)} kinds for {players} seats")
    elif args.rotate:
        return _fail("--rotate needs --lineup")
    if args.transcripts and args.engine_only:
        return _fail("--transcripts needs the protocol path; drop --engine-only")
    transcript_dir = None
    if args.transcripts:
        transcript_dir = Path(args.transcripts)
        try:
            transcript_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return _fail(f"cannot use --transcripts {args.transcripts}: {exc}")

    games: list[dict[str, Any]] = []
    started = time.perf_counter()
    for number in range(args.games):
        seed = args.seed + number
        seats = rotated(lineup, number, args.rotate) if lineup is not None else None
        if args.engine_only:
            try:
                record = play_game(config, seed, lineup=seats)
            except SimulationError as exc:
                return _fail(f"game {number + 1} (seed {seed}) failed: {exc}")
            assert record.outcome is not None
            games.append(
                {
                    "game": number + 1,
                    "seed": seed,
                    "hands": len(record.hands),
                    "standing": list(record.outcome.standings),
                    "winners": list(record.outcome.winners),
                    "lineup": seats or ["basic"] * players,
                }
            )
            continue
        try:
            one = simulate_game(config, seed, transcript_dir, number + 1, seats)
            one["lineup"] = seats or ["basic"] * players
            games.append(one)
        except (ProtocolSimError, OSError) as exc:
            return _fail(f"game {number + 1} (seed {seed}) failed: {exc}")
    elapsed = time.perf_counter() - started
    kinds = summarise(games)
    doc: dict[str, Any] = {
        "game": config.game,
        "players": config.players,
        "options": dict(config.options),
        "score": spec.score_kind,
        "path": "engine-only" if args.engine_only else "protocol",
        "seconds": round(elapsed, 3),
        "lineup": lineup or ["basic"] * players,
        "rotate": bool(args.rotate),
        "kinds": kinds,
        "games": games,
    }
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    for g in games:
        print(
            f"game {g['game']}: {g['hands']} hands, {spec.score_kind}: {g['standing']},"
            f" winners: {g['winners']}"
            + (f", lineup: {','.join(g['lineup'])}" if lineup is not None else "")
        )
    if lineup is not None:
        for kind, f in kinds.items():
            print(
                f"{kind}: won {f['wins']} of {f['seat_games']} seat-games"
                f" ({100 * f['win_rate']:.1f} %), mean {spec.score_kind}"
                f" {f['mean_standing']:+.2f} (standard error {f['standard_error']:.2f})"
            )
    return 0
