"""``scripts/soak`` (``python -m dealerless.client.bench.soak``): many hands between 4 bot nodes
through a hub that injects random faults (loss, duplication, delay/reorder, a partition per
table; node/hostile.py ``FaultyHub``).

Tables are played one after another (each node a Trio task of this process, talking over
loopback TCP through the host's hub) until ``--seconds`` have passed. After each table every
node's transcript file is audited; a *divergence* is a table whose peers' audited final states
differ, or whose transcript does not audit as a complete game, or a node that did not exit 0.
Reports tables, hands played, divergences, caught cheats (should be none: everyone is honest)
and the faults injected. Exit status 1 on any divergence.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from dealerless.node.hostile import FaultyHub, run_table
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table.audit import audit_records

HELP = "many hands between 4 bot nodes with random faults: hands played and divergences"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, default=300.0, help="how long (default 300)")
    parser.add_argument("--players", type=int, default=4, help="seats per table (default 4)")
    parser.add_argument("--hands", type=int, default=5, help="hands per table (default 5)")
    parser.add_argument("--game", default="limit-tuppen", help="game (default limit-tuppen)")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: random)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def one_table(root: Path, args: argparse.Namespace, rng: random.Random) -> dict[str, Any]:
    faults = {
        "drop": rng.choice([0.0, 0.05, 0.1]),
        "duplicate": rng.choice([0.0, 0.1, 0.2]),
        "delay": rng.choice([0.0, 0.1, 0.2]),
        "max_delay": 0.3,
        "partition": (rng.uniform(0.5, 5.0), rng.uniform(0.5, 3.0)) if rng.random() < 0.5 else None,
    }
    hub = FaultyHub(rng.randrange(2**32), **faults)  # type: ignore[arg-type]
    options: dict[str, Any] = {"hands": args.hands} if args.game != "belote" else {}
    game = make_config(args.game, args.players, options)
    started = time.monotonic()
    result: dict[str, Any] = {"faults": faults}
    try:
        run = run_table(
            root, game, None, hub=hub, step_timeout_ms=30_000, timeout=600, seed=rng.randrange(999)
        )
    except AssertionError as exc:  # the table did not finish in time
        result.update(diverged=True, why=str(exc).splitlines()[0], hands=0)
        return result
    result["seconds"] = round(time.monotonic() - started, 1)
    result["injected"] = dict(hub.stats)
    why = ""
    hashes = set()
    hands = 0
    caught = 0
    if run.config is None:
        why = "no configuration"
    else:
        for seat in range(game.players):
            report = audit_records(run.config, run.records(seat))
            if not (report.ok and report.complete):
                why = f"seat {seat}: transcript does not audit as a complete game"
            hashes.add(report.state_hash)
            hands = max(hands, len(report.hands))
            caught += len(report.caught)
        if len(hashes) > 1:
            why = "peers' final states differ"
        bad = {i: c for i, c in run.codes.items() if c != 0}
        if bad:
            why = why or f"node exit codes {bad}"
    result.update(diverged=bool(why), why=why, hands=hands, caught=caught)
    return result


def run(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)  # noqa: S311 - fault choices are not secrets
    start = time.monotonic()
    tables: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="dealerless-soak-") as tmp:
        while time.monotonic() - start < args.seconds:
            result = one_table(Path(tmp) / f"t{len(tables)}", args, rng)
            tables.append(result)
            if not args.json:
                print(
                    f"table {len(tables)}: {result['hands']} hands"
                    + (f", DIVERGED: {result['why']}" if result["diverged"] else "")
                    + f" ({result.get('seconds', '?')} s, {result.get('injected', {})})",
                    flush=True,
                )
    injected: Counter[str] = Counter()
    for t in tables:
        injected.update(t.get("injected", {}))
    report = {
        "seed": seed,
        "seconds": round(time.monotonic() - start, 1),
        "game": args.game,
        "players": args.players,
        "tables": len(tables),
        "hands": sum(t["hands"] for t in tables),
        "divergences": sum(1 for t in tables if t["diverged"]),
        "caught": sum(t.get("caught", 0) for t in tables),
        "injected": dict(injected),
        "diverged_tables": [t for t in tables if t["diverged"]][:5],
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"soak: {report['tables']} tables, {report['hands']} hands, "
            f"{report['divergences']} divergence(s), {report['caught']} cheat(s) caught; "
            f"faults injected {dict(injected)}; seed {seed}"
        )
    return 1 if report["divergences"] else 0


def main() -> int:
    parser = argparse.ArgumentParser(prog="scripts/soak", description=HELP)
    add_arguments(parser)
    return run(parser.parse_args())


if __name__ == "__main__":
    raise SystemExit(main())
