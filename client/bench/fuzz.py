"""``dealerless bench fuzz --seconds N``: a longer fuzzing run of the message decoder, the node's
seat-message decoder and the table state machine than the CI tests do (spec/security.md §6).

Setup: one complete Limit Tuppen game (3 seats, 2 hands) is played in memory; its transcript
gives valid frames, and machines of seat 0 (with its key) resumed at several points of the game
are the targets. Then, until the time is up, inputs are generated round robin:

* ``random``: random bytes (0-2000 long);
* ``mutated``: a valid frame with bit flips, cuts, insertions, deletions or a splice of two;
* ``resigned``: a valid envelope packed with plain msgpack with random header fields and/or a
  random body (random msgpack values: huge and negative integers, floats, text, bytes, deep
  nesting), validly signed by the author's key, so only the content is wrong;
* ``wire``: random or mutated seat messages for ``dealerless.node.wire.decode``.

Every table input goes to ``decode_message`` (which may only raise ``MessageError``) and to a
target machine's ``receive`` (which may never raise). A *crash* is any other exception; a *hang*
is one input that takes longer than ``--hang`` seconds (the run cannot be interrupted inside one
input; the figure is reported, the input kept). When an input changes a target's state (a
re-signed frame that the machine accepts as a violation, with its abort vote), the target is
rebuilt. Exit status 1 if there was any crash or hang.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

import msgpack

from dealerless.client.bench.fuzz_audit import AuditFuzzer, memoised_proofs
from dealerless.client.bench.fuzz_inputs import mutate, random_value, resigned
from dealerless.client.protocol_sim import play_protocol_game
from dealerless.node.wire import WireError
from dealerless.node.wire import decode as wire_decode
from dealerless.node.wire import encode as wire_encode
from dealerless.protocol.messages import MessageError, decode_message
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.kinds import TABLE_REGISTRY

HELP = "fuzz the message decoder, the node's decoder and the table state machine for N seconds"


TARGETS = ("random", "mutated", "resigned", "wire", "audit")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--targets",
        default=",".join(TARGETS),
        help=f"comma-separated inputs to generate, round robin (default {','.join(TARGETS)})",
    )
    parser.add_argument("--seconds", type=float, default=60.0, help="how long (default 60)")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: random)")
    parser.add_argument(
        "--hang",
        type=float,
        default=2.0,
        metavar="SECONDS",
        help="an input slower than this is a hang (default 2)",
    )
    parser.add_argument("--out", default="", help="directory to keep crashing inputs in")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


class Fuzzer:
    def __init__(self, seed: int, hang_ms: float, out: Path | None) -> None:
        self.rng = random.Random(seed)  # noqa: S311 - fuzz inputs are not secrets
        self.hang_ms, self.out = hang_ms, out
        sim = play_protocol_game(make_config("limit-tuppen", 3, {"hands": 2}), seed)
        self.config, self.keys = sim.table, sim.keys
        self.secrets = dict(sim.secrets[0])
        self.records = list(sim.machines[0].records)
        self.by_author = {k.peer_id.raw: k for k in self.keys}
        n = len(self.records)
        self.points = sorted({0, n // 8, n // 4, n // 2, 3 * n // 4, n - 1})
        self.targets: dict[int, TableMachine] = {}
        self.hashes: dict[int, bytes] = {}
        for point in self.points:
            self._rebuild(point)
        self.counts: Counter[str] = Counter()
        self.crashes: list[dict[str, Any]] = []
        self.hangs: list[dict[str, Any]] = []
        self.rebuilds = 0
        self.slowest_ms = 0.0
        self.violations = 0
        self.audits = AuditFuzzer(self.rng, seed)
        self.verdicts: Counter[str] = Counter()

    def _rebuild(self, point: int) -> None:
        machine = TableMachine.resume(
            self.config, self.keys[0], self.records[:point], secrets=self.secrets, now=0.0
        )
        machine.take_outgoing()
        machine.take_records()
        machine.take_secrets()
        self.targets[point] = machine
        self.hashes[point] = machine.state_hash()

    def _frame(self) -> bytes:
        return self.rng.choice(self.records)

    def resigned(self) -> bytes:
        return resigned(self.rng, self._frame(), self.by_author)

    def table_input(self, kind: str) -> bytes:
        if kind == "random":
            return self.rng.randbytes(self.rng.randrange(2000))
        if kind == "mutated":
            return mutate(self.rng, self._frame(), self._frame())
        try:
            return self.resigned()
        except (ValueError, TypeError, OverflowError):  # msgpack cannot pack the value
            return self.rng.randbytes(64)

    def wire_input(self) -> bytes:
        if self.rng.random() < 0.5:
            base = wire_encode({"t": "f", "f": self._frame()})
            return mutate(self.rng, base, wire_encode({"t": "have", "n": 3, "ask": True}))
        try:
            return msgpack.packb(random_value(self.rng), use_bin_type=True)  # type: ignore[no-any-return]
        except (ValueError, TypeError, OverflowError):
            return self.rng.randbytes(32)

    def _record(self, kind: str, data: bytes, exc: BaseException) -> None:
        entry = {
            "target": kind,
            "error": f"{type(exc).__name__}: {exc}"[:300],
            "input": data[:2000].hex(),
            "trace": traceback.format_exc(limit=6)[-1500:],
        }
        self.crashes.append(entry)
        if self.out is not None:
            self.out.mkdir(parents=True, exist_ok=True)
            (self.out / f"crash-{len(self.crashes)}.bin").write_bytes(data)

    def one(self, kind: str) -> None:
        start = time.monotonic()
        if kind == "audit":
            data = b""
            try:
                how, report, trace = self.audits.one()
                self.verdicts["refused-header" if report is None else str(report.verdict)] += 1
                if trace is not None:
                    self.crashes.append(
                        {
                            "target": f"audit/{how}",
                            "error": trace[-300:],
                            "input": "",
                            "trace": trace[-1500:],
                        }
                    )
            except Exception as exc:
                self._record("audit", data, exc)
        elif kind == "wire":
            data = self.wire_input()
            try:
                wire_decode(data)
            except WireError:
                pass
            except Exception as exc:
                self._record(kind, data, exc)
        else:
            data = self.table_input(kind)
            try:
                decode_message(data, registry=TABLE_REGISTRY)
            except MessageError:
                pass
            except Exception as exc:
                self._record("decode_message/" + kind, data, exc)
            point = self.rng.choice(self.points)
            machine = self.targets[point]
            try:
                events = machine.receive(data, 0.0)
                self.violations += sum(1 for e in events if type(e).__name__ == "Violation")
            except Exception as exc:
                self._record("machine/" + kind, data, exc)
            machine.take_outgoing()
            machine.take_records()
            machine.take_secrets()
            if machine.state_hash() != self.hashes[point]:
                self.rebuilds += 1
                self._rebuild(point)
        elapsed = (time.monotonic() - start) * 1000
        self.slowest_ms = max(self.slowest_ms, elapsed)
        if elapsed > self.hang_ms:
            self.hangs.append({"target": kind, "ms": round(elapsed), "input": data[:2000].hex()})
        self.counts[kind] += 1


def run(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    kinds = [k for k in getattr(args, "targets", ",".join(TARGETS)).split(",") if k]
    unknown = set(kinds) - set(TARGETS)
    if unknown or not kinds:
        print(
            f"dealerless bench fuzz: unknown target(s) {sorted(unknown)}; "
            f"choose from {','.join(TARGETS)}",
            file=sys.stderr,
        )
        return 2
    setup = time.monotonic()
    fuzzer = Fuzzer(seed, args.hang * 1000.0, Path(args.out) if args.out else None)
    setup_s = time.monotonic() - setup
    start = time.monotonic()
    i = 0
    with memoised_proofs():
        while time.monotonic() - start < args.seconds:
            fuzzer.one(kinds[i % len(kinds)])
            i += 1
    elapsed = time.monotonic() - start
    total = sum(fuzzer.counts.values())
    report = {
        "seed": seed,
        "seconds": round(elapsed, 1),
        "setup_s": round(setup_s, 2),
        "inputs": total,
        "inputs_per_s": round(total / elapsed) if elapsed else 0,
        "by_kind": dict(fuzzer.counts),
        "crashes": len(fuzzer.crashes),
        "hangs": len(fuzzer.hangs),
        "slowest_ms": round(fuzzer.slowest_ms, 1),
        "violations_reported": fuzzer.violations,
        "audit_verdicts": dict(fuzzer.verdicts),
        "targets_rebuilt": fuzzer.rebuilds,
        "crash_examples": fuzzer.crashes[:5],
        "hang_examples": fuzzer.hangs[:5],
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"fuzz: {total} inputs in {elapsed:.1f} s ({report['inputs_per_s']}/s; "
            + ", ".join(f"{k} {v}" for k, v in fuzzer.counts.items())
            + f"); crashes {len(fuzzer.crashes)}, hangs {len(fuzzer.hangs)} "
            f"(slowest input {fuzzer.slowest_ms:.0f} ms); seed {seed}"
        )
        for crash in fuzzer.crashes[:5]:
            print(f"  crash in {crash['target']}: {crash['error']}")
    return 1 if fuzzer.crashes or fuzzer.hangs else 0
