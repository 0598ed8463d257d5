"""Real frames of every table kind for the message schema test (in memory, real keys, deck and
proofs): one game of each of the six games, a seat change, a timeout and an abort certificate,
and the two generic kinds the table machine never writes (join, leave), signed by hand.

Card deals come from the real deck's randomness, so a fixed seed fixes the bots and the delivery
order but not the cards: a game that must show a kind that depends on the cards (a reveal after a
dirty-laundry check or a Tupp claim, an out-of-turn knock's request) is replayed with the next
seed until it does. Every scenario is cached: the test module builds each once.
"""

from __future__ import annotations

import random
from functools import cache
from typing import Any

from hostile import HostileTable
from seat_change_sim import next_segment, play_segment, start

from dealerless.client.protocol_sim import ProtocolGame, run_game, start_game
from dealerless.protocol.messages import GENESIS_PREV, IdentityKey, decode_message, sign_message
from dealerless.protocol.rules.base import Action, ActionKind
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table.kinds import TABLE_REGISTRY

# One game of each game; a game, its seats, its options (few hands: the test stays fast) and
# the kinds it must show besides the ones every hand has.
GAMES: dict[str, tuple[int, dict[str, Any], frozenset[str]]] = {
    "tuppen": (3, {}, frozenset({"reveal", "request", "admit"})),
    "limit-tuppen": (
        3,
        {"hands": 2, "dirty_laundry": True, "knock_timing": "any-time"},
        frozenset({"request", "admit"}),
    ),
    "no-limit-tuppen": (2, {"hands": 2}, frozenset()),
    "pot-limit-tuppen": (3, {"hands": 2}, frozenset()),
    "pottuppen": (3, {"hands": 2}, frozenset()),
    "belote": (4, {"target": 50}, frozenset({"chat"})),
}
EVERY_HAND = frozenset(
    {"config-sign", "key-commit", "key-reveal", "shuffle", "shares", "action", "result"}
)
TRIES = 20  # seeds per game before giving up on a card-dependent kind
HOSTILE = 1


def kind_of(frame: bytes) -> str:
    return decode_message(frame, registry=TABLE_REGISTRY).kind


def tap(sim: ProtocolGame, into: dict[bytes, None]) -> None:
    """Keep every frame the table's bus carries from now on (side messages too: requests and
    chat are in no transcript), and the ones already queued."""
    for queue in sim.bus.queues:
        into.update(dict.fromkeys(queue))
    send = sim.bus.broadcast

    def broadcast(sender: int, frames: list[bytes]) -> None:
        into.update(dict.fromkeys(frames))
        send(sender, frames)

    sim.bus.broadcast = broadcast  # type: ignore[method-assign]


def _keep_records(sim: ProtocolGame, into: dict[bytes, None]) -> None:
    for machine in sim.machines:
        into.update(dict.fromkeys(machine.records))


def play(game: str, seed: int, *, chat: bool = False) -> list[bytes]:
    """Every frame of one complete game."""
    players, options, _ = GAMES[game]
    rng = random.Random(seed)
    sim = start_game(make_config(game, players, options), rng)
    frames: dict[bytes, None] = {}
    tap(sim, frames)
    if chat:
        sim.machines[0].chat("good luck, all", sim.clock)
        sim.flush(0)
    run_game(sim, rng)
    _keep_records(sim, frames)
    return list(frames)


@cache
def game_frames(game: str) -> tuple[bytes, ...]:
    """One game of ``game`` showing every kind GAMES asks of it (the first seed that does)."""
    _, _, wanted = GAMES[game]
    missing: set[str] = set()
    for seed in range(TRIES):
        frames = play(game, seed, chat="chat" in wanted)
        missing = set(wanted | EVERY_HAND) - {kind_of(f) for f in frames}
        if not missing:
            return tuple(frames)
    raise AssertionError(f"{game}: no game in {TRIES} seeds showed {sorted(missing)}")


@cache
def seat_change_frames() -> tuple[bytes, ...]:
    """Limit Tuppen, cash: after hand 1 seat 2 stands up and seat 0 asks to re-form the table;
    the next host writes the next segment's configuration (next-config), a newcomer sits down
    and the second segment plays its hand."""
    rng = random.Random(7)
    sim = start(make_config("limit-tuppen", 3, {"mode": "cash", "hands": 2, "max_buy_in": 10}), rng)
    frames: dict[bytes, None] = {}
    tap(sim, frames)
    play_segment(sim, rng, {2: "stand", 0: "reseat"})
    second = next_segment(sim, rng, newcomers=[("dora", 7)])
    tap(second, frames)
    play_segment(second, rng, {})
    _keep_records(sim, frames)
    _keep_records(second, frames)
    return tuple(frames)


def _hostile_frames(ht: HostileTable, *extra: bytes) -> tuple[bytes, ...]:
    frames: dict[bytes, None] = dict.fromkeys(extra)
    frames.update(dict.fromkeys(ht.held))
    _keep_records(ht.sim, frames)
    return tuple(frames)


@cache
def timeout_certificate_frames() -> tuple[bytes, ...]:
    """Tuppen: seat 1 never shuffles; the others' timeout votes end the hand."""
    ht = HostileTable(make_config("tuppen", 3), 21, HOSTILE)
    ht.hold_when(lambda m: m.kind == "shuffle")
    ht.play(lambda t: False)
    ht.tick_past_deadline()
    return _hostile_frames(ht)


@cache
def abort_certificate_frames() -> tuple[bytes, ...]:
    """Tuppen: seat 1 sends a move naming seat 2 inside its action; the others vote to abort
    the hand, carrying the frame as evidence."""
    for seed in range(TRIES):
        ht = HostileTable(make_config("tuppen", 3), seed, HOSTILE)
        if not ht.play(lambda t: t.hostile_to_act()):
            continue
        legal = ht.ref.engine.legal_actions(HOSTILE)
        move = next((a for a in legal if a.kind is not ActionKind.PLAY), None)
        if move is None:
            continue
        forged = Action(move.kind, 2, move.card, move.amount, move.suit, move.cards)
        ht.hold_now()
        frame = ht.craft("action", {"action": forged.to_wire()})
        ht.send(frame)
        return _hostile_frames(ht, frame)
    raise AssertionError("the hostile seat never had a move but a card play")


@cache
def hand_signed_frames() -> tuple[bytes, ...]:
    """join and leave: registered generic kinds no table machine writes; sign_message checks
    them against the code's registry, as it does every frame it signs."""
    key = IdentityKey.generate()

    def sign(kind: str, body: dict[str, Any]) -> bytes:
        return sign_message(
            key,
            table_id=bytes(range(16)),
            hand=0,
            seq=0,
            prev=GENESIS_PREV,
            seat=None,
            kind=kind,
            body=body,
            registry=TABLE_REGISTRY,
        ).frame

    return (
        sign("join", {"name": "Ann", "client": "dealerless 0.1.0", "invite": b"\x01\x02"}),
        sign("join", {"name": "Bea"}),
        sign("leave", {"reason": "bed time"}),
        sign("leave", {}),
    )


SCENARIOS = {
    "seat change": seat_change_frames,
    "timeout certificate": timeout_certificate_frames,
    "abort certificate": abort_certificate_frames,
    "join and leave": hand_signed_frames,
}


def embedded_frames(frame: bytes) -> list[bytes]:
    """The whole frames a frame carries as bin: an admit's request, an abort vote's evidence."""
    message = decode_message(frame, registry=TABLE_REGISTRY)
    if message.kind == "admit":
        return [message.body["request"]]
    if message.kind == "abort-vote":
        return list(message.body.get("evidence", []))
    return []


def all_frames() -> list[bytes]:
    out: dict[bytes, None] = {}
    for game in GAMES:
        out.update(dict.fromkeys(game_frames(game)))
    for make in SCENARIOS.values():
        out.update(dict.fromkeys(make()))
    return list(out)
