"""``dealerless bench bots``: how long a bot takes to decide, per game and level.

Engine-only games (4 seats) with one seat of the measured level against three basic bots, the
level's seat rotating over the games. Every call of that seat's bot is timed with
``time.perf_counter``: the decisions the game waits for (``required``) and the optional
out-of-turn polls separately. Reports the count, median, 95th percentile and maximum in
milliseconds. Targets (issue 14): a strong decision at most 50 ms median and 200 ms p95 on the
2-core machine. This is a measurement, never a timed test.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Sequence
from typing import Any

from dealerless.client.bots import LEVELS, Bot, bot_for
from dealerless.client.lineup_stats import rotated
from dealerless.client.simulate import SimulationError, play_game
from dealerless.protocol.rules.base import Action, Engine
from dealerless.protocol.rules.registry import game_names, make_config

HELP = "decision time of the bots per game and level (median, p95)"
TARGETS_MS = {"strong_median": 50.0, "strong_p95": 200.0}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=4, help="games per game and level (4)")
    parser.add_argument(
        "--game", action="append", default=None, choices=game_names(), help="(default: all)"
    )
    parser.add_argument(
        "--level", action="append", default=None, choices=LEVELS, help="(default: all)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def _figures(times: Sequence[float]) -> dict[str, Any]:
    if not times:
        return {"count": 0}
    return {
        "count": len(times),
        "median_ms": round(1000 * statistics.median(times), 3),
        "p95_ms": round(1000 * _percentile(times, 0.95), 3),
        "max_ms": round(1000 * max(times), 3),
    }


def measure(game: str, level: str, games: int, seed: int) -> dict[str, Any]:
    config = make_config(game, 4, {})
    measured = bot_for(game, level)
    waited: list[float] = []  # decisions the game waits for
    optional: list[float] = []

    def timed(engine: Engine, seat: int, rng: random.Random, required: bool) -> Action | None:
        started = time.perf_counter()
        action = measured(engine, seat, rng, required)
        (waited if required else optional).append(time.perf_counter() - started)
        return action

    timed_bot: Bot = timed
    for number in range(games):
        lineup = rotated([level, "basic", "basic", "basic"], number, True)
        seat = lineup.index(level)
        bots = [timed_bot if s == seat else bot_for(game) for s in range(4)]
        try:
            play_game(config, seed + number, lineup=None, bots=bots)
        except SimulationError as exc:
            raise SystemExit(f"dealerless bench bots: {game} game {number} failed: {exc}") from exc
    return {"required": _figures(waited), "optional": _figures(optional)}


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.games <= 10_000:
        print(f"dealerless bench bots: --games must be 1..10000, got {args.games}")
        return 2
    games = args.game or game_names()
    levels = args.level or list(LEVELS)
    started = time.perf_counter()
    results: dict[str, dict[str, Any]] = {}
    for game in games:
        results[game] = {level: measure(game, level, args.games, args.seed) for level in levels}
    strong = [r["strong"]["required"] for r in results.values() if "strong" in r]
    median_cap, p95_cap = TARGETS_MS["strong_median"], TARGETS_MS["strong_p95"]
    verdict = {
        "strong_median_ok": all(f.get("median_ms", 0) <= median_cap for f in strong),
        "strong_p95_ok": all(f.get("p95_ms", 0) <= p95_cap for f in strong),
    }
    doc = {
        "games_per_cell": args.games,
        "seconds": round(time.perf_counter() - started, 2),
        "targets_ms": TARGETS_MS,
        "verdict": verdict,
        "results": results,
    }
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    for game, by_level in results.items():
        for level, figures in by_level.items():
            f = figures["required"]
            print(
                f"{game:18} {level:7} {f['count']:6} decisions  median {f.get('median_ms', 0):7.2f}"
                f" ms  p95 {f.get('p95_ms', 0):7.2f} ms  max {f.get('max_ms', 0):7.2f} ms"
            )
    print(f"targets: {TARGETS_MS}  verdict: {verdict}")
    return 0
