"""Games through the full table protocol among in-memory peers.

Real identity keys, real signatures, the real mental-poker deck; bots decide for their seats on
their own machine's view. A :class:`Bus` carries frames between the machines; tests can make it
deliver in a shuffled order, duplicate frames, or drop a seat's traffic.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from dealerless.client.bots import lineup_bot
from dealerless.protocol.messages import IdentityKey
from dealerless.protocol.rules.base import GameConfig
from dealerless.protocol.table import SeatInfo, TableConfig, TableMachine
from dealerless.protocol.table.events import LocalProtocolError, TableEvent, Violation

Filter = Callable[[int, int, bytes], bool]  # (from seat, to seat, frame) -> deliver?


class ProtocolSimError(RuntimeError):
    """The simulated table stalled or diverged."""


@dataclass
class Bus:
    """Per-recipient queues of frames; ``shuffle`` delivers in a random order."""

    players: int
    rng: random.Random
    shuffle: bool = False
    duplicate: float = 0.0
    allow: Filter | None = None
    queues: list[list[bytes]] = field(default_factory=list)
    delivered: int = 0

    def __post_init__(self) -> None:
        self.queues = [[] for _ in range(self.players)]

    def broadcast(self, sender: int, frames: list[bytes]) -> None:
        for frame in frames:
            for seat in range(self.players):
                if seat == sender or (self.allow and not self.allow(sender, seat, frame)):
                    continue
                self.queues[seat].append(frame)
                if self.duplicate and self.rng.random() < self.duplicate:
                    self.queues[seat].append(frame)

    def pending(self) -> bool:
        return any(self.queues)

    def pop(self) -> tuple[int, bytes]:
        seats = [s for s in range(self.players) if self.queues[s]]
        seat = self.rng.choice(seats) if self.shuffle else seats[0]
        queue = self.queues[seat]
        index = self.rng.randrange(len(queue)) if self.shuffle else 0
        self.delivered += 1
        return seat, queue.pop(index)


@dataclass
class ProtocolGame:
    table: TableConfig
    keys: list[IdentityKey]
    machines: list[TableMachine]
    bus: Bus
    events: list[list[TableEvent]]
    clock: float = 0.0
    secrets: list[dict[int, bytes]] = field(default_factory=list)

    def flush(self, seat: int) -> None:
        """Store what a node must keep (its key shares), then send what it wrote."""
        machine = self.machines[seat]
        while len(self.secrets) <= seat:
            self.secrets.append({})
        self.secrets[seat].update(machine.take_secrets())
        machine.take_records()
        self.bus.broadcast(seat, machine.take_outgoing())

    def restart(self, seat: int) -> None:
        """Replace a seat's machine by one rebuilt from its transcript, as after a crash."""
        old = self.machines[seat]
        self.machines[seat] = TableMachine.resume(
            self.table,
            self.keys[seat],
            list(old.records),
            secrets=self.secrets[seat],
            now=self.clock,
        )
        self.flush(seat)
        self.resend_prepared(seat)

    def resend_prepared(self, to: int) -> None:
        """The frames of the next hand's prepared deck the others hold, sent to a seat back
        from a crash (a node's answer to a seat that waits for proof, node/catch_up.py)."""
        for seat, machine in enumerate(self.machines):
            if seat != to:
                self.bus.queues[to].extend(machine.prepared_frames())

    def deliver_all(self) -> None:
        while self.bus.pending():
            seat, frame = self.bus.pop()
            self.events[seat].extend(self.machines[seat].receive(frame, self.clock))
            self.flush(seat)

    def violations(self) -> list[Violation]:
        return [e for evs in self.events for e in evs if isinstance(e, Violation)]


def make_table(
    game: GameConfig, *, step_timeout_ms: int = 60_000, table_id: bytes | None = None
) -> tuple[TableConfig, list[IdentityKey]]:
    keys = [IdentityKey.generate() for _ in range(game.players)]
    seats = tuple(SeatInfo(f"bot{i}", k.peer_id.raw) for i, k in enumerate(keys))
    tid = table_id if table_id is not None else secrets.token_bytes(16)
    return TableConfig(tid, game, seats, step_timeout_ms), keys


def start_game(
    game: GameConfig, rng: random.Random, *, shuffle: bool = False, duplicate: float = 0.0
) -> ProtocolGame:
    table, keys = make_table(game, table_id=rng.randbytes(16))
    machines = [TableMachine(table, key, now=0.0) for key in keys]
    bus = Bus(game.players, rng, shuffle=shuffle, duplicate=duplicate)
    sim = ProtocolGame(table, keys, machines, bus, [[] for _ in keys])
    for seat in range(game.players):
        sim.flush(seat)
    return sim


def run_game(
    sim: ProtocolGame,
    rng: random.Random,
    *,
    max_moves: int = 20_000,
    lineup: Sequence[str] | None = None,
) -> None:
    """Deliver and let the bots move until every machine has finished the game; ``lineup``:
    the bot kind of every seat (default: basic)."""
    bot = lineup_bot(sim.table.game.game, lineup)
    moves = 0
    tried: set[tuple[int, bytes]] = set()
    while not all(m.over for m in sim.machines):
        sim.deliver_all()
        if all(m.over for m in sim.machines):
            break
        moved = False
        for seat, machine in enumerate(sim.machines):
            # Optional out-of-turn moves (any-time knocks) go out as requests; one try per head.
            if (
                machine.may_act()
                and not machine.my_turn_to_act()
                and (seat, machine.head) not in tried
            ):
                tried.add((seat, machine.head))
                optional = bot(machine.engine, seat, rng, False)
                if optional is not None:
                    try:
                        sim.events[seat].extend(machine.act(optional, sim.clock))
                    except LocalProtocolError as exc:
                        raise ProtocolSimError(f"seat {seat}: {exc}") from exc
                    sim.flush(seat)
                    moved = True
                    break
        for seat, machine in enumerate(sim.machines):
            if moved:
                break
            if machine.my_turn_to_act():
                action = bot(machine.engine, seat, rng, True)
                if action is None:
                    raise ProtocolSimError(f"bot for seat {seat} gave no action")
                try:
                    sim.events[seat].extend(machine.act(action, sim.clock))
                except LocalProtocolError as exc:
                    raise ProtocolSimError(f"seat {seat}: {exc}") from exc
                sim.flush(seat)
                moved = True
                break
        if not moved:
            raise ProtocolSimError(
                "the table stalled: "
                + "; ".join(
                    f"seat {s}: {m.phase} waits for {m.arbiter()}"
                    for s, m in enumerate(sim.machines)
                )
            )
        moves += 1
        if moves > max_moves:
            raise ProtocolSimError("too many moves")


def play_protocol_game(
    game: GameConfig, seed: int, *, shuffle: bool = False, duplicate: float = 0.0
) -> ProtocolGame:
    """A complete game; the seed fixes delivery order and bot choices (keys stay random)."""
    rng = random.Random(seed)
    sim = start_game(game, rng, shuffle=shuffle, duplicate=duplicate)
    run_game(sim, rng)
    return sim
