"""A hostile-peer toolkit for negative tests of the table protocol (in memory).

One seat of a :mod:`dealerless.client.protocol_sim` table is *hostile*: the test holds its
identity key and decides what the other (honest) machines receive from it. Until the test says
so (:meth:`HostileTable.hold_when`) the hostile seat's own machine plays honestly; from the
first frame matching the predicate on, every frame its machine produces is *held* (kept in
:attr:`HostileTable.held`, delivered to nobody) and the test sends crafted frames instead with
:meth:`HostileTable.send`, to all honest seats or to chosen ones.

Crafting: :meth:`HostileTable.craft` signs any kind and body (or any header, another table,
another hand...) with a seat's real key; :meth:`HostileTable.resign` re-signs a decoded message
with some fields changed; :func:`sign_packed` signs raw bytes (malformed bodies, huge integers,
deep nesting) so the signature is valid and only the content is wrong.

Checks shared by the tests: :meth:`HostileTable.assert_refused`, :meth:`honest_hashes`,
:meth:`audit`, :meth:`aborted_results`, :func:`assert_settled`.

Relaying: the machine itself never forwards other peers' frames (the node will). With
``relay=True`` the bus models that node behaviour: every frame a machine appends to its
transcript is forwarded to every other seat once.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dealerless.client.bots import bot_for
from dealerless.client.protocol_sim import Bus, ProtocolGame, make_table
from dealerless.protocol.messages import (
    DOMAIN,
    VERSION,
    IdentityKey,
    SignedMessage,
    decode_message,
    sign_message,
)
from dealerless.protocol.rules.base import Action, Engine, GameConfig
from dealerless.protocol.rules.registry import game_spec, new_engine
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.events import (
    HandEnded,
    TableEvent,
    Violation,
)
from dealerless.protocol.table.kinds import TABLE_REGISTRY

MessagePredicate = Callable[[SignedMessage], bool]


def decode(frame: bytes) -> SignedMessage:
    return decode_message(frame, registry=TABLE_REGISTRY)


def sign_packed(key: IdentityKey, packed: bytes) -> bytes:
    """A frame with a valid signature over arbitrary ``packed`` bytes."""
    return packed + key.sign(DOMAIN + packed)


def raw_frame(
    key: IdentityKey,
    *,
    table_id: bytes,
    hand: Any,
    seq: Any,
    prev: Any,
    seat: Any,
    kind: Any,
    body: Any,
    version: Any = VERSION,
    author: bytes | None = None,
) -> bytes:
    """Pack an envelope with plain msgpack (no schema, no limits) and sign it."""
    import msgpack

    envelope = [
        version,
        table_id,
        hand,
        seq,
        prev,
        seat,
        key.peer_id.raw if author is None else author,
        kind,
        body,
    ]
    packed: bytes = msgpack.packb(envelope, use_bin_type=True)
    return sign_packed(key, packed)


def flip_signature(frame: bytes) -> bytes:
    """The same frame with one bit of its signature flipped."""
    return frame[:-1] + bytes([frame[-1] ^ 0x01])


@dataclass
class HostileTable:
    """A protocol_sim table with one hostile seat under the test's control."""

    game: GameConfig
    seed: int
    hostile: int
    step_timeout_ms: int = 60_000
    relay: bool = False
    sim: ProtocolGame = field(init=False)
    rng: random.Random = field(init=False)
    held: list[bytes] = field(default_factory=list)
    passing: bool = True
    hold_from_hand: int | None = None
    stop: MessagePredicate | None = None
    _decided: dict[bytes, bool] = field(default_factory=dict)
    _relayed: set[tuple[int, bytes]] = field(default_factory=set)
    _recorded: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        table, keys = make_table(
            self.game, step_timeout_ms=self.step_timeout_ms, table_id=self.rng.randbytes(16)
        )
        machines = [TableMachine(table, key, now=0.0) for key in keys]
        bus = Bus(self.game.players, self.rng, allow=self._allow)
        self.sim = ProtocolGame(table, keys, machines, bus, [[] for _ in keys])
        self._recorded = [0] * self.game.players
        for seat in range(self.game.players):
            self.sim.flush(seat)

    # ------------------------------------------------------------------ who is who
    @property
    def honest(self) -> list[int]:
        return [s for s in range(self.game.players) if s != self.hostile]

    @property
    def machines(self) -> list[TableMachine]:
        return self.sim.machines

    @property
    def ref(self) -> TableMachine:
        """The first honest machine: the reference view of the table."""
        return self.machines[self.honest[0]]

    @property
    def key(self) -> IdentityKey:
        return self.sim.keys[self.hostile]

    @property
    def clock(self) -> float:
        return self.sim.clock

    # ------------------------------------------------------------------ the bus
    def _allow(self, sender: int, to: int, frame: bytes) -> bool:
        if sender != self.hostile:
            return True
        decided = self._decided.get(frame)
        if decided is None and not self.passing and self.hold_from_hand is not None:
            decided = decode(frame).hand < self.hold_from_hand  # an earlier hand goes on
            if not decided:
                self.held.append(frame)
            self._decided[frame] = decided
        if decided is None:
            decided = self.passing
            if decided and self.stop is not None and self.stop(decode(frame)):
                decided = self.passing = False
            if not decided:
                self.held.append(frame)
            self._decided[frame] = decided
        return decided

    def hold_when(self, predicate: MessagePredicate, *, from_hand: int | None = None) -> None:
        """From the first hostile frame matching ``predicate`` on, hold all its frames (with
        ``from_hand``: only those of that hand and later, so that the hand being played goes on
        while the next one's deck is prepared, P-53)."""
        self.stop = predicate
        self.hold_from_hand = from_hand

    def _plays_on(self, machine: TableMachine) -> bool:
        """The hostile seat still plays the hand before the one whose frames are held."""
        return self.hold_from_hand is not None and machine.hand < self.hold_from_hand

    def hold_now(self) -> None:
        self.passing = False

    def pump(self) -> None:
        """Deliver every queued frame (relaying accepted chain frames when ``relay``)."""
        sim = self.sim
        while True:
            while sim.bus.pending():
                seat, frame = sim.bus.pop()
                sim.events[seat].extend(sim.machines[seat].receive(frame, sim.clock))
                sim.flush(seat)
                if self.relay:
                    self.relay_from(seat)
            if not sim.bus.pending():
                return

    def relay_from(self, seat: int) -> None:
        machine = self.machines[seat]
        new = machine.records[self._recorded[seat] :]
        self._recorded[seat] = len(machine.records)
        if seat == self.hostile:
            return
        for frame in new:
            for to in range(self.game.players):
                if to == seat or (to, frame) in self._relayed:
                    continue
                self._relayed.add((to, frame))
                self.sim.bus.queues[to].append(frame)

    def send(self, frames: bytes | Iterable[bytes], to: Iterable[int] | None = None) -> None:
        """Deliver hostile frames to the given seats (default: every honest seat), then pump."""
        batch = [frames] if isinstance(frames, bytes) else list(frames)
        targets = list(self.honest if to is None else to)
        for frame in batch:
            for seat in targets:
                self.sim.bus.queues[seat].append(frame)
        self.pump()

    def deliver(self, seat: int, frame: bytes) -> list[TableEvent]:
        """Feed one frame to one machine directly; returns its events (outgoing stays queued)."""
        events = self.machines[seat].receive(frame, self.sim.clock)
        self.sim.events[seat].extend(events)
        return events

    def tick(self, now: float) -> None:
        """Advance the clock of every machine (deadlines → timeout votes), then pump."""
        self.sim.clock = now
        for seat, machine in enumerate(self.machines):
            self.sim.events[seat].extend(machine.tick(now))
            self.sim.flush(seat)
        self.pump()

    def tick_past_deadline(self, rounds: int = 1) -> None:
        for _ in range(rounds):
            self.tick(self.sim.clock + self.step_timeout_ms / 1000.0 + 1.0)

    # ------------------------------------------------------------------ playing
    def play(self, until: Callable[[HostileTable], bool], *, max_moves: int = 2_000) -> bool:
        """Let the bots move (the hostile seat only while its frames pass) until ``until``
        holds (True) or nobody can move (False)."""
        bot = bot_for(self.game.game)
        for _ in range(max_moves):
            self.pump()
            if until(self):
                return True
            for seat, machine in enumerate(self.machines):
                if seat == self.hostile and not self.passing and not self._plays_on(machine):
                    continue
                if machine.my_turn_to_act():
                    action = bot(machine.engine, seat, self.rng, True)
                    if action is None:
                        return False
                    self.sim.events[seat].extend(machine.act(action, self.sim.clock))
                    self.sim.flush(seat)
                    break
            else:
                self.pump()
                return until(self)
        raise RuntimeError("too many moves")

    def hostile_to_act(self) -> bool:
        """The rules wait for the hostile seat (on the reference view)."""
        return self.ref.phase == "play" and self.ref.arbiter() == self.hostile

    # ------------------------------------------------------------------ crafting
    def craft(
        self,
        kind: str,
        body: dict[str, Any],
        *,
        seat: int | None = None,
        key: IdentityKey | None = None,
        claimed_seat: int | None = -1,
        table_id: bytes | None = None,
        hand: int | None = None,
        seq: int | None = None,
        prev: bytes | None = None,
    ) -> bytes:
        """Sign a message as ``seat`` (default the hostile seat) at the reference machine's head,
        with any header field overridden. The body must fit the kind's schema."""
        seat = self.hostile if seat is None else seat
        ref = self.ref
        return sign_message(
            self.sim.keys[seat] if key is None else key,
            table_id=self.sim.table.table_id if table_id is None else table_id,
            hand=ref.hand if hand is None else hand,
            seq=ref.seq if seq is None else seq,
            prev=ref.head if prev is None else prev,
            seat=seat if claimed_seat == -1 else claimed_seat,
            kind=kind,
            body=body,
            registry=TABLE_REGISTRY,
        ).frame

    def craft_action(self, action: Action, **extra: Any) -> bytes:
        body: dict[str, Any] = {"action": action.to_wire(), **extra}
        return self.craft("action", body, seat=action.seat)

    def resign(self, frame: bytes, *, key: IdentityKey | None = None, **changes: Any) -> bytes:
        """Re-sign a frame's message with some envelope fields or its body changed."""
        message = decode(frame)
        fields: dict[str, Any] = {
            "table_id": message.table_id,
            "hand": message.hand,
            "seq": message.seq,
            "prev": message.prev,
            "seat": message.seat,
            "kind": message.kind,
            "body": message.body,
        }
        fields.update(changes)
        signer = key
        if signer is None:
            signer = next(k for k in self.sim.keys if k.peer_id == message.author)
        return sign_message(signer, registry=TABLE_REGISTRY, **fields).frame

    # ------------------------------------------------------------------ checks
    def events(self, seat: int) -> list[TableEvent]:
        return self.sim.events[seat]

    def violations(self, seat: int) -> list[Violation]:
        return [e for e in self.sim.events[seat] if isinstance(e, Violation)]

    def assert_refused(
        self, frame: bytes, culprit: int | None, seats: Iterable[int] | None = None
    ) -> None:
        """Every honest seat (or the given ones) reported a Violation naming ``culprit`` with
        ``frame`` among the signed evidence."""
        for seat in self.honest if seats is None else seats:
            found = [v for v in self.violations(seat) if frame in v.evidence]
            assert found, f"seat {seat} reported no violation for the frame"
            assert any(v.culprit == culprit for v in found), (
                f"seat {seat} blamed {[v.culprit for v in found]}, not {culprit}"
            )

    def honest_hashes(self) -> set[bytes]:
        return {self.machines[s].state_hash() for s in self.honest}

    def assert_converged(self) -> None:
        hashes = self.honest_hashes()
        assert len(hashes) == 1, "honest peers diverged: " + ", ".join(
            f"seat {s} {self.machines[s].phase} h{self.machines[s].hand}/{self.machines[s].seq}"
            for s in self.honest
        )

    def audit(self, seat: int | None = None) -> None:
        """An auditor replaying an honest peer's transcript reaches the same state hash."""
        machine = self.machines[self.honest[0] if seat is None else seat]
        auditor = TableMachine.resume(self.sim.table, None, list(machine.records))
        assert auditor.state_hash() == machine.state_hash()

    def aborted_results(self, seat: int) -> list[HandEnded]:
        return [e for e in self.sim.events[seat] if isinstance(e, HandEnded) and e.aborted]

    def scores(self) -> tuple[int, ...]:
        """What each seat's standing is worth on the reference view (see :func:`worth`)."""
        return worth(self.ref.engine)

    def assert_hand_aborted(self, culprit: int, hand: int, before: Sequence[int]) -> None:
        """Every honest peer ended ``hand`` with an abort naming ``culprit``, settled without
        rewarding it or costing honest seats anything, and the auditor agrees."""
        for seat in self.honest:
            ends = [e for e in self.aborted_results(seat) if e.result.hand_number == hand]
            assert ends, f"seat {seat} did not abort hand {hand}"
            details = ends[0].result.details
            assert details.get("culprit", culprit) == culprit
        self.assert_converged()
        assert_settled(self.game.game, before, self.scores(), culprit)
        if hand == 1:  # also against the scores before the hand began (antes, blinds)
            assert_settled(self.game.game, initial_scores(self.game), self.scores(), culprit)
        self.audit()

    def refused_and_aborted(self, frame: bytes, before: Sequence[int], hand: int) -> None:
        """The full verdict for an attributable violation by the hostile seat."""
        self.assert_refused(frame, self.hostile)
        self.assert_hand_aborted(self.hostile, hand, before)


def worth(engine: Engine) -> tuple[int, ...]:
    """Every seat's score; in Pottuppen the balance plus an equal share of the common pot
    (spec/rules/pottuppen.md D14: antes stay in the pot, which is split evenly in the end),
    scaled by the seat count to stay whole."""
    scores = engine.scores()
    if engine.config.game != "pottuppen":
        return scores
    pot = int(engine.public_state()["pot"])
    return tuple(len(scores) * s + pot for s in scores)


def initial_scores(game: GameConfig) -> tuple[int, ...]:
    """Every seat's score before hand 1."""
    return worth(new_engine(game, 0))


def assert_settled(game: str, before: Sequence[int], after: Sequence[int], culprit: int) -> None:
    """The culprit never gains; no honest seat loses (score direction by the game)."""
    kind = game_spec(game).score_kind
    worse = (lambda a, b: a > b) if kind == "penalty points" else (lambda a, b: a < b)
    assert not worse(before[culprit], after[culprit]), (
        f"culprit {culprit} gained: {before} -> {after}"
    )
    for seat, (b, a) in enumerate(zip(before, after, strict=True)):
        if seat != culprit:
            assert not worse(a, b), f"honest seat {seat} lost: {before} -> {after}"
