"""Tables under a random schedule, in memory, on a simulated clock (issue 23's randomized
schedule test): every frame reaches each peer after its own random delay, or twice, or never;
a seat may go deaf for a while (a late seat); the seats catch up the way a node does (a peer
that holds more records sends those the other lacks, and with ``fork_aware`` a peer whose
record at the other's count differs serves it from where a roll-back can reach, node.md §6)
and resend their open round frame (node.md §3); timeouts run on each seat's clock; bots play.
Real keys, deck and signatures. What a run must show: every seat ends with one transcript."""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass, field

from dealerless.client.bots import lineup_bot
from dealerless.client.protocol_sim import make_table
from dealerless.protocol.messages import decode_message
from dealerless.protocol.rules.base import GameConfig
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.events import LocalProtocolError
from dealerless.protocol.table.kinds import TABLE_REGISTRY

TICK = 0.05  # s of simulated time per step
VOTE_KINDS = ("timeout-vote", "abort-vote")


@dataclass(frozen=True)
class Schedule:
    """What the network does; delays are one way, in seconds of simulated time."""

    step_timeout: float = 3.0
    delay: tuple[float, float] = (0.005, 0.2)
    drop: float = 0.05
    duplicate: float = 0.05
    deaf: float = 0.0  # chance per second that a seat goes deaf (hears nothing) for a while
    deaf_for: tuple[float, float] = (1.0, 8.0)
    catch_up_every: float = 1.0
    think: tuple[float, float] = (0.0, 0.3)  # a bot's time to choose


@dataclass(order=True)
class _Delivery:
    at: float
    n: int
    to: int = field(compare=False)
    frame: bytes = field(compare=False)


@dataclass
class Outcome:
    seed: int
    finished: bool
    same_transcript: bool
    clock: float
    hands: list[int]
    records: list[int]
    certificates: int  # timeout and abort certificates in the first seat's transcript
    detail: str = ""


class ScheduledTable:
    def __init__(
        self, game: GameConfig, seed: int, schedule: Schedule, *, fork_aware: bool = False
    ) -> None:
        self.fork_aware = fork_aware
        self.rng = random.Random(seed)
        self.seed, self.schedule = seed, schedule
        table, keys = make_table(
            game, step_timeout_ms=int(schedule.step_timeout * 1000), table_id=self.rng.randbytes(16)
        )
        self.machines = [TableMachine(table, key, now=0.0) for key in keys]
        self.secrets: list[dict[int, bytes]] = [{} for _ in keys]
        self.bot = lineup_bot(game.game, None)
        self.clock = 0.0
        self.queue: list[_Delivery] = []
        self.sent = 0
        self.deaf_until = [0.0 for _ in keys]
        self.move_at: list[float | None] = [None for _ in keys]
        self.next_catch_up = schedule.catch_up_every
        for seat in range(len(keys)):
            self._flush(seat)

    # ---------------------------------------------------------------- the network
    def _send(self, sender: int, frames: list[bytes]) -> None:
        low, high = self.schedule.delay
        for frame in frames:
            for to in range(len(self.machines)):
                if to == sender or self.rng.random() < self.schedule.drop:
                    continue
                copies = 2 if self.rng.random() < self.schedule.duplicate else 1
                for _ in range(copies):
                    self.sent += 1
                    at = self.clock + self.rng.uniform(low, high)
                    heapq.heappush(self.queue, _Delivery(at, self.sent, to, frame))

    def _flush(self, seat: int) -> None:
        machine = self.machines[seat]
        self.secrets[seat].update(machine.take_secrets())
        machine.take_records()
        self._send(seat, machine.take_outgoing())

    def _deliver_due(self) -> None:
        while self.queue and self.queue[0].at <= self.clock:
            item = heapq.heappop(self.queue)
            if self.clock < self.deaf_until[item.to]:
                continue  # a late seat: lost, it catches up later
            self.machines[item.to].receive(item.frame, self.clock)
            self._flush(item.to)

    def _catch_up(self) -> None:
        """Each seat sends a peer the records it holds past the peer's count, and resends its
        own open round frame and its frames of a prepared deck (a node's ``have``/``recs`` and
        its resend, simplified)."""
        for seat, machine in enumerate(self.machines):
            pending = machine.pending_round_frame()
            if pending is not None:
                self._send(seat, [pending])
            self._send(seat, machine.pending_prepared_frames())
            for peer, other in enumerate(self.machines):
                if peer == seat:
                    continue
                start = _serve_from(machine, other, fork_aware=self.fork_aware)
                if start is not None:
                    self._send_one(seat, peer, machine.records[start:])

    def _send_one(self, sender: int, to: int, frames: list[bytes]) -> None:
        low, high = self.schedule.delay
        for frame in frames:
            if self.rng.random() < self.schedule.drop:
                continue
            self.sent += 1
            at = self.clock + self.rng.uniform(low, high)
            heapq.heappush(self.queue, _Delivery(at, self.sent, to, frame))

    # ---------------------------------------------------------------- the seats
    def _moves(self) -> None:
        low, high = self.schedule.think
        for seat, machine in enumerate(self.machines):
            if not machine.my_turn_to_act():
                self.move_at[seat] = None
                continue
            if self.move_at[seat] is None:
                self.move_at[seat] = self.clock + self.rng.uniform(low, high)
            due = self.move_at[seat]
            if due is None or self.clock < due or self.clock < self.deaf_until[seat]:
                continue
            self.move_at[seat] = None
            action = self.bot(machine.engine, seat, self.rng, True)
            if action is None:
                continue
            try:
                machine.act(action, self.clock)
            except LocalProtocolError:
                continue  # the table moved on meanwhile (a timeout): the bot asks again
            self._flush(seat)

    def _deafness(self) -> None:
        chance = self.schedule.deaf * TICK
        low, high = self.schedule.deaf_for
        for seat in range(len(self.machines)):
            if self.clock >= self.deaf_until[seat] and self.rng.random() < chance:
                self.deaf_until[seat] = self.clock + self.rng.uniform(low, high)

    def run(self, max_clock: float) -> Outcome:
        while self.clock < max_clock:
            # Over, with nothing in flight, no certificate waiting for a seat's own clock and
            # every seat holding the same records, by count and last record (a node lingers for
            # those: node/seat_end.py).
            if (
                not self.queue
                and all(m.over and not m.certificate_waits() for m in self.machines)
                and len({(m.chain_count, m.record_tag(m.chain_count)) for m in self.machines}) == 1
            ):
                break
            self.clock += TICK
            self._deafness()
            self._deliver_due()
            for seat, machine in enumerate(self.machines):
                if self.clock >= self.deaf_until[seat]:
                    machine.tick(self.clock)
                    self._flush(seat)
            self._moves()
            if self.clock >= self.next_catch_up:
                self.next_catch_up += self.schedule.catch_up_every
                self._catch_up()
        return self.outcome()

    def outcome(self) -> Outcome:
        records = [m.records for m in self.machines]
        same = all(r == records[0] for r in records)
        detail = ""
        if not same:
            fork = next(
                i
                for i in range(max(len(r) for r in records))
                if len({r[i] if i < len(r) else b"" for r in records}) > 1
            )
            detail = f"the transcripts differ from record {fork} on"
        return Outcome(
            self.seed,
            all(m.over for m in self.machines),
            same,
            round(self.clock, 2),
            [m.hand for m in self.machines],
            [len(r) for r in records],
            _certificates(records[0]),
            detail,
        )


def _serve_from(server: TableMachine, peer: TableMachine, *, fork_aware: bool) -> int | None:
    """Where a node's catch-up (node/catch_up.py) serves ``peer`` from, given its count (and,
    ``fork_aware``, the tag of its last record, or for a peer ahead of it on another branch
    the records it was served): None when it serves nothing."""
    n = peer.chain_count
    if fork_aware:
        ours, last = server.record_tag(n), peer.record_tag(n)
        if ours is not None and last is not None and ours != last:
            return max(0, min(n - 1, server.rollback_floor_count))
        # The peer is ahead on another branch: the server learns it from the records the peer
        # serves it (their record at its own count differs), and sends its branch back.
        mine = server.chain_count
        if mine < n and server.record_tag(mine) != peer.record_tag(mine):
            return max(0, min(mine - 1, server.rollback_floor_count))
    return n if server.chain_count > n else None


def _certificates(records: list[bytes]) -> int:
    """Runs of vote frames in a transcript (each run is one certificate)."""
    count, in_run = 0, False
    for frame in records:
        vote = decode_message(frame, registry=TABLE_REGISTRY).kind in VOTE_KINDS
        count += vote and not in_run
        in_run = vote
    return count
