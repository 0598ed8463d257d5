"""``scripts/soak`` (``python -m dealerless.client.bench.soak``): many hands between 4 bot nodes
through a hub that injects random faults (loss, duplication, delay/reorder, a partition per
table; node/hostile.py ``FaultyHub``).

Also ``dealerless bench soak``. Tables are played one after another until ``--seconds`` have
passed: the host is a node in this process (its hub injects the faults), every other seat is a
``dealerless join --bot`` process talking to it over loopback TCP. With chance ``--kill`` a table
SIGKILLs one joining process at a random moment and starts the same command again, which
resumes the seat from its store. After each table every node's transcript file is audited; a
*divergence* is a table whose peers' audited final states differ, or whose transcript does not
audit as a complete game, or a node that did not exit 0 (a node that was killed counts by the
exit code of its restart). Reports tables, hands played, divergences, caught cheats (should be
none: everyone is honest), the faults injected and the kills. Exit status 1 on any divergence,
2 on a bad argument.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from dealerless.client.bots.driver import BotDriver
from dealerless.node.app import host_table
from dealerless.node.cli_common import write_private
from dealerless.node.hostile import FaultyHub
from dealerless.node.identity import Identity
from dealerless.node.options import NodeOptions
from dealerless.node.portable import killed_by_kill
from dealerless.node.store import TableMeta, TableStore
from dealerless.protocol.rules.base import ConfigError, GameConfig
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table.audit import audit_records

HELP = "many hands between 4 bot nodes with random faults: hands played and divergences"
CLI = [sys.executable, "-m", "dealerless.client.cli"]
STEP_TIMEOUT_MS = 30_000  # faults delay steps; a SIGKILLed node needs time to come back
TABLE_DEADLINE = 600.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, default=300.0, help="how long (default 300)")
    parser.add_argument("--players", type=int, default=4, help="seats per table (default 4)")
    parser.add_argument("--hands", type=int, default=5, help="hands per table (default 5)")
    parser.add_argument("--game", default="limit-tuppen", help="game (default limit-tuppen)")
    parser.add_argument(
        "--kill",
        type=float,
        default=0.5,
        help="chance that a table SIGKILLs one joining node mid-game and restarts it (default 0.5)",
    )
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: random)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


@dataclass
class Played:
    """One soak table as it ended: every node's exit code, home, and the SIGKILLs dealt."""

    table_id: bytes
    homes: list[Path]
    codes: dict[int, int] = field(default_factory=dict)
    killed: list[int] = field(default_factory=list)
    finished: bool = False


async def _play(
    root: Path, game: GameConfig, hub: FaultyHub, seed: int, kill: tuple[int, float] | None
) -> Played:
    """Seat 0 hosts in this process (its hub injects the faults); every other seat is a
    ``dealerless join --bot`` process. ``kill`` = (joiner, seconds): SIGKILL that joiner then,
    and start the same command again (it resumes from its store)."""
    homes = [root / f"node{i}" for i in range(game.players)]
    for home in homes:
        home.mkdir(parents=True, exist_ok=True)
    played = Played(b"", homes)  # the table id comes with the invite
    invite: list[str] = []
    ready = trio.Event()

    def on_ready(meta: TableMeta) -> None:
        invite.append(meta.invite)
        played.table_id = bytes.fromhex(meta.table_id)
        ready.set()

    async def host() -> None:
        played.codes[0] = await host_table(
            Identity.generate(),
            homes[0],
            game,
            name="n0",
            bot=True,
            step_timeout_ms=STEP_TIMEOUT_MS,
            driver=BotDriver(seed),
            say=lambda _s: None,
            options=NodeOptions(linger=5.0),
            on_ready=on_ready,
            hub=hub,
        )

    async def joiner(i: int) -> None:
        await ready.wait()
        command = [*CLI, "join", "--bot", "--home", str(homes[i]), "--name", f"n{i}"]
        invite_file = homes[i] / "invite"  # the code holds the join token: a 0600 file, not argv
        write_private(str(invite_file), invite[0] + "\n")
        command += ["--linger", "5", "--invite-file", str(invite_file)]
        with open(homes[i] / "node.log", "ab") as log:
            while True:
                proc = await trio.lowlevel.open_process(
                    command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
                )
                try:
                    async with trio.open_nursery() as nursery:
                        if kill is not None and kill[0] == i and i not in played.killed:
                            nursery.start_soon(_kill_later, proc, kill[1])
                        code = await proc.wait()
                        nursery.cancel_scope.cancel()
                finally:
                    if proc.returncode is None:
                        proc.kill()
                        await proc.wait()
                if killed_by_kill(code) and i not in played.killed:
                    played.killed.append(i)
                    continue  # restart the killed node: the same command resumes it
                played.codes[i] = code
                return

    with trio.move_on_after(TABLE_DEADLINE):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host)
            for i in range(1, game.players):
                nursery.start_soon(joiner, i)
        played.finished = True
    return played


async def _kill_later(proc: trio.Process, after: float) -> None:
    await trio.sleep(after)
    if proc.returncode is None:
        proc.kill()  # SIGKILL: no clean-up, whatever was not on disk is lost


def _bad_argument(args: argparse.Namespace) -> str:
    if not 0.0 <= args.kill <= 1.0:
        return f"--kill is a chance between 0 and 1, not {args.kill}"
    if args.seconds <= 0:
        return f"--seconds must be positive, not {args.seconds}"
    if args.hands < 1:
        return f"--hands must be at least 1, not {args.hands}"
    return ""


def game_config(args: argparse.Namespace) -> GameConfig:
    """The game of every table (Belote has no number of hands: it is played to its target)."""
    return make_config(
        args.game, args.players, {"hands": args.hands} if args.game != "belote" else {}
    )


def one_table(
    root: Path, args: argparse.Namespace, game: GameConfig, rng: random.Random
) -> dict[str, Any]:
    faults = {
        "drop": rng.choice([0.0, 0.05, 0.1]),
        "duplicate": rng.choice([0.0, 0.1, 0.2]),
        "delay": rng.choice([0.0, 0.1, 0.2]),
        "max_delay": 0.3,
        "partition": (rng.uniform(0.5, 5.0), rng.uniform(0.5, 3.0)) if rng.random() < 0.5 else None,
    }
    hub = FaultyHub(rng.randrange(2**32), **faults)  # type: ignore[arg-type]
    kill = None
    if rng.random() < args.kill:
        kill = (rng.randrange(1, args.players), rng.uniform(1.0, 4.0 * args.hands))
    started = time.monotonic()
    result: dict[str, Any] = {"faults": faults}
    played = trio.run(_play, root, game, hub, rng.randrange(999), kill)
    result["seconds"] = round(time.monotonic() - started, 1)
    result["injected"] = dict(hub.stats) | {"killed": len(played.killed)}
    if not played.finished:
        result.update(diverged=True, why=f"not finished in {TABLE_DEADLINE} s", hands=0)
        return result
    why = ""
    hashes = set()
    hands = 0
    caught = 0
    silent_hands: list[dict[str, Any]] = []
    loaded = TableStore(played.homes[0], played.table_id).load_config()
    if loaded is None:
        why = "no configuration"
    else:
        config = loaded[0]
        for i, home in enumerate(played.homes):
            report = audit_records(config, TableStore(home, played.table_id).stored_records())
            if not (report.ok and report.complete):
                why = f"node {i}: transcript does not audit as a complete game"
            hashes.add(report.state_hash)
            hands = max(hands, len(report.hands))
            caught += len(report.caught)
            if i == 0:  # every honest transcript has the same hands; one is enough
                silent_hands = [
                    {"hand": h.hand, "seat": h.silent, "lost": -h.deltas[h.silent]}
                    for h in report.hands
                    if h.silent is not None
                ]
        if len(hashes) > 1:
            why = "peers' final states differ"
        bad = {i: c for i, c in played.codes.items() if c != 0}
        if bad:
            why = why or f"node exit codes {bad}"
    result.update(
        diverged=bool(why), why=why, hands=hands, caught=caught, silent_hands=silent_hands
    )
    return result


def run(args: argparse.Namespace) -> int:
    problem = _bad_argument(args)
    if not problem:
        try:
            game = game_config(args)
        except (ConfigError, KeyError) as exc:
            problem = str(exc)
    if problem:
        print(f"dealerless bench soak: {problem}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)  # noqa: S311 - fault choices are not secrets
    start = time.monotonic()
    tables: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="dealerless-soak-") as tmp:
        while time.monotonic() - start < args.seconds:
            result = one_table(Path(tmp) / f"t{len(tables)}", args, game, rng)
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
        # hands that ended for silence, and what each silent seat lost (score change, sign
        # by the game: penalty points count up)
        "hands_ended_by_timeout": sum(len(t.get("silent_hands", [])) for t in tables),
        "silent_losses": [h for t in tables for h in t.get("silent_hands", [])][:50],
        "injected": dict(injected),
        "diverged_tables": [t for t in tables if t["diverged"]][:5],
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"soak: {report['tables']} tables, {report['hands']} hands, "
            f"{report['divergences']} divergence(s), {report['caught']} cheat(s) caught, "
            f"{report['hands_ended_by_timeout']} hand(s) ended by timeout; "
            f"faults injected {dict(injected)}; seed {seed}"
        )
    return 1 if report["divergences"] else 0


def main() -> int:
    parser = argparse.ArgumentParser(prog="scripts/soak", description=HELP)
    add_arguments(parser)
    return run(parser.parse_args())


if __name__ == "__main__":
    raise SystemExit(main())
