"""``dealerless bench end``: the check at the end of a game (issue 27).

Plays one Limit Tuppen game in memory (real keys, deck and proofs; 4 seats, 20 hands by
default), then times what a seat runs when the game ends, ``TableMachine.confirm`` (every
record replayed, the proofs it verified as they came not redone), against the full replay
an auditor runs (``TableMachine.resume`` with no key). Wall-clock seconds, min of ``--rounds``;
the target is the confirm within 0.5 s.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable

HELP = "the end-of-game check: confirm against a full audit replay (20-hand Limit game)"
TARGET_SECONDS = 0.5


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hands", type=int, default=20, help="hands of the game (default 20)")
    parser.add_argument("--players", type=int, default=4, help="seats (default 4)")
    parser.add_argument("--rounds", type=int, default=3, help="timings of each (min reported)")
    parser.add_argument("--seed", type=int, default=1, help="the simulation's seed")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _best(run: Callable[[], object], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def run(args: argparse.Namespace) -> int:
    from dealerless.client.protocol_sim import run_game, start_game
    from dealerless.protocol.rules.base import ConfigError
    from dealerless.protocol.rules.registry import make_config
    from dealerless.protocol.table import TableMachine

    if not 1 <= args.rounds <= 100 or not 1 <= args.hands <= 200:
        print("dealerless bench end: --rounds must be 1..100, --hands 1..200", file=sys.stderr)
        return 2
    try:
        game = make_config("limit-tuppen", args.players, {"hands": args.hands})
    except ConfigError as exc:
        print(f"dealerless bench end: {exc}", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)  # noqa: S311 - bot choices and delivery order only
    sim = start_game(game, rng)
    run_game(sim, rng)
    machine = sim.machines[0]
    records = list(machine.records)
    for check in (
        TableMachine.confirm(sim.table, records),
        TableMachine.resume(sim.table, None, records),
    ):
        if not check.over or check.state_hash() != machine.state_hash():
            print("dealerless bench end: a replay did not end in the game's state", file=sys.stderr)
            return 1
    confirm = _best(lambda: TableMachine.confirm(sim.table, records), args.rounds)
    full = _best(lambda: TableMachine.resume(sim.table, None, records), args.rounds)
    ok = confirm <= TARGET_SECONDS
    doc = {
        "game": "limit-tuppen",
        "players": args.players,
        "hands": args.hands,
        "records": len(records),
        "confirm_s": round(confirm, 3),
        "full_replay_s": round(full, 3),
        "ratio": round(confirm / full, 3),
        "target_s": TARGET_SECONDS,
        "ok": ok,
    }
    if args.json:
        print(json.dumps(doc, indent=1))
    else:
        print(f"{args.players} seats, {args.hands} hands, {len(records)} records")
        print(f"end check (confirm)   {confirm:6.3f} s  ({'within' if ok else 'OVER'} 0.5 s)")
        print(f"full audit replay     {full:6.3f} s  (confirm is x{confirm / full:.2f} of it)")
    return 0 if ok else 1
