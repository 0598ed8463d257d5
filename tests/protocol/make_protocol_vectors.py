"""Write spec/vectors/protocol/*.dlt and their audit JSON (run:
.venv/bin/python tests/protocol/make_protocol_vectors.py [NAME...]).

Every vector is a whole transcript file written from in-memory peers (real keys, deck, proofs
and signatures: client/protocol_sim.py) and the ``dealerless audit --json`` report of it.

Deterministic: the product draws its randomness from ``secrets`` only through the ``rand``
default of the crypto functions (protocol/crypto: ``rand: RandBelow = secrets.randbelow``) and
its identity keys from ``IdentityKey.generate``. :func:`seeded` swaps both for seeded ones
(SHA-256 counter mode, as tests/crypto/make_vectors.py records the crypto vectors) while a
vector is made; Ed25519 signatures are deterministic, and the bus and bots follow a seeded
``random.Random``. test_protocol_vectors.py checks that this script writes the checked-in files
byte for byte. :func:`vector_keys` gives a vector's private keys back (tests re-sign frames).
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import pkgutil
import random
import secrets
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "crypto"))

from crypto_table import DetRand

import dealerless.protocol.crypto as crypto_package
from dealerless.protocol.messages import IdentityKey
from dealerless.protocol.rules.base import Action, ActionKind
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table.audit import audit_records
from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.transcript import encode_header, encode_record

OUT_DIR = Path(__file__).resolve().parents[2] / "spec" / "vectors" / "protocol"
SEED = b"dealerless protocol vectors v1/"
CASH = {"mode": "cash", "hands": 4, "max_buy_in": 10}


# --- the seams: seeded randomness and keys while a vector is made -----------------------------


def vector_key(name: str, number: int) -> IdentityKey:
    """The ``number``-th identity key made for vector ``name``."""
    seed = hashlib.sha256(SEED + f"{name}/key/{number}".encode()).digest()
    return IdentityKey.from_private_bytes(seed)


def vector_keys(name: str, count: int = 16) -> dict[bytes, IdentityKey]:
    """Public key -> private key of the keys a vector can have made."""
    keys = (vector_key(name, n) for n in range(count))
    return {k.peer_id.raw: k for k in keys}


def _rand_users() -> Iterator[tuple[Any, str]]:
    """Every function (or method) of protocol/crypto whose defaults hold ``secrets.randbelow``,
    with the name of the attribute that holds them."""
    for info in pkgutil.iter_modules(crypto_package.__path__):
        module = importlib.import_module(f"{crypto_package.__name__}.{info.name}")
        found = [v for v in vars(module).values() if inspect.isfunction(v)]
        for value in vars(module).values():
            if inspect.isclass(value) and value.__module__ == module.__name__:
                for member in vars(value).values():  # staticmethods too (PlayerSecret.generate)
                    member = getattr(member, "__func__", member)
                    if inspect.isfunction(member):
                        found.append(member)
        for function in found:
            if secrets.randbelow in (function.__defaults__ or ()):
                yield function, "__defaults__"
            if secrets.randbelow in (function.__kwdefaults__ or {}).values():
                yield function, "__kwdefaults__"


@contextmanager
def seeded(name: str) -> Iterator[None]:
    rand = DetRand(SEED + name.encode())
    made = iter(range(1 << 16))
    saved = [(f, attr, getattr(f, attr)) for f, attr in _rand_users()]
    assert saved, "no crypto function takes secrets.randbelow: the seam moved"

    def swap(value: object) -> object:
        return rand if value is secrets.randbelow else value

    for function, attr, old in saved:
        if attr == "__defaults__":
            setattr(function, attr, tuple(swap(d) for d in old))
        else:
            setattr(function, attr, {k: swap(d) for k, d in old.items()})
    generate = IdentityKey.generate
    made_key = classmethod(lambda cls: vector_key(name, next(made)))
    IdentityKey.generate = made_key  # type: ignore[assignment,method-assign]
    try:
        yield
    finally:
        IdentityKey.generate = generate  # type: ignore[method-assign]
        for function, attr, old in saved:
            setattr(function, attr, old)


# --- the scenarios: each returns the transcript (configuration, records) ----------------------

Transcript = tuple[TableConfig, list[bytes]]


def game(name: str, players: int, options: dict[str, Any], seed: int) -> Callable[[], Transcript]:
    def make() -> Transcript:
        from dealerless.client.protocol_sim import play_protocol_game

        sim = play_protocol_game(make_config(name, players, options), seed)
        return sim.table, list(sim.machines[0].records)

    return make


def limit_seat_change() -> Transcript:
    """Limit Tuppen, cash, 3 seats: after hand 1 seat 1 sits out (segment 2: two seats, where
    seat 0 asks to re-form the table), then comes back with its chips (segment 3)."""
    from seat_change_sim import next_segment, play_segment, start

    rng = random.Random(3)
    sim = start(make_config("limit-tuppen", 3, CASH), rng)
    play_segment(sim, rng, {1: "sit-out"})
    away = sim.table.seats[1].key
    second = next_segment(sim, rng)
    play_segment(second, rng, {0: "reseat"})
    third = next_segment(second, rng, returning=[(away, sim.keys[1])])
    play_segment(third, rng, {})
    return sim.table, list(sim.machines[0].records)


def limit_next_config() -> Transcript:
    """Limit Tuppen, cash: seat 2 stands up and seat 0 asks to re-form after hand 1; the next
    host's next-config seats a newcomer, dora, and the second segment plays hands 2-3."""
    from seat_change_sim import next_segment, play_segment, start

    rng = random.Random(7)
    sim = start(make_config("limit-tuppen", 3, {**CASH, "hands": 3}), rng)
    play_segment(sim, rng, {2: "stand", 0: "reseat"})
    second = next_segment(sim, rng, newcomers=[("dora", 7)])
    play_segment(second, rng, {})
    return sim.table, list(sim.machines[0].records)


def timeout_certificate() -> Transcript:
    """Limit Tuppen, 3 seats, 2 hands: seat 1 never shuffles in hand 1; the others' timeout
    votes (a timeout certificate) end the hand, and the table plays on without it."""
    from hostile import HostileTable

    ht = HostileTable(make_config("limit-tuppen", 3, {"hands": 2}), 21, 1)
    ht.hold_when(lambda m: m.kind == "shuffle")
    ht.play(lambda t: False)
    ht.tick_past_deadline()
    ht.play(lambda t: False)
    for _ in range(8):  # every later step of the silent seat times out too
        if ht.ref.over:
            break
        ht.tick_past_deadline()
        ht.play(lambda t: False)
    return ht.sim.table, list(ht.ref.records)


def abort_with_evidence() -> Transcript:
    """Tuppen, 3 seats: seat 1 signs a move that names seat 2 inside its action; the others'
    abort votes carry that frame as evidence, the hand is voided and seat 1 is caught."""
    from hostile import HostileTable

    for seed in range(20):
        ht = HostileTable(make_config("tuppen", 3), seed, 1)
        if not ht.play(lambda t: t.hostile_to_act()):
            continue
        legal = ht.ref.engine.legal_actions(1)
        move = next((a for a in legal if a.kind is not ActionKind.PLAY), None)
        if move is None:
            continue
        forged = Action(move.kind, 2, move.card, move.amount, move.suit, move.cards)
        ht.hold_now()
        ht.send(ht.craft("action", {"action": forged.to_wire()}))
        return ht.sim.table, list(ht.ref.records)
    raise AssertionError("the hostile seat never had a move but a card play")


SCENARIOS: dict[str, tuple[str, Callable[[], Transcript]]] = {
    "tuppen-2p": ("Tuppen, 2 seats: the first example, a whole game", game("tuppen", 2, {}, 5)),
    "tuppen-3p": ("Tuppen, 3 seats, every extra rule", game("tuppen", 3, {}, 0)),
    "limit-3p-seatchange": ("Limit Tuppen: a seat sits out and returns", limit_seat_change),
    "limit-3p-nextconfig": ("Limit Tuppen: a newcomer's next-config", limit_next_config),
    "no-limit-2p": ("No Limit Tuppen, 2 seats", game("no-limit-tuppen", 2, {"hands": 3}, 1)),
    "pot-limit-3p": ("Pot Limit Tuppen, 3 seats", game("pot-limit-tuppen", 3, {"hands": 2}, 2)),
    "pottuppen-3p": ("Pottuppen, 3 seats", game("pottuppen", 3, {"hands": 2}, 3)),
    "belote-4p": ("Belote with bidding, to 50", game("belote", 4, {"target": 50}, 4)),
    "timeout-3p": ("a timeout certificate", timeout_certificate),
    "abort-3p": ("an abort certificate with evidence", abort_with_evidence),
}


def make(name: str) -> tuple[bytes, str]:
    """The transcript file's bytes and its audit JSON text."""
    with seeded(name):
        config, records = SCENARIOS[name][1]()
    data = encode_header(config.to_wire()) + b"".join(encode_record(r) for r in records)
    report = audit_records(config, records).to_json()
    return data, json.dumps(report, indent=2) + "\n"


def main(names: list[str]) -> None:
    for name in names or list(SCENARIOS):
        data, report = make(name)
        (OUT_DIR / f"{name}.dlt").write_bytes(data)
        (OUT_DIR / f"{name}.audit.json").write_text(report)
        verdict = json.loads(report)["verdict"]
        print(f"{name}: {len(data)} bytes, {verdict}")


if __name__ == "__main__":
    main(sys.argv[1:])
