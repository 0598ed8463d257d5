"""Catch-up of a seat's node: peers tell each other how many transcript records they hold
(``have``) and send the ones the other lacks (``recs``, in chunks); the votes a certificate still
waits for are sent again; a node resumed without having heard from any peer holds its writes
until a peer shows it is not behind. A mixin of :class:`~dealerless.node.seat.SeatNode`; see
spec/node.md §3 and §6."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.events import TableEvent

RECS_CHUNK = 512 * 1024


@dataclass
class Resync:
    """Before resuming: what the peers offered beyond our stored records."""

    deadline: float
    stored: int
    best: list[bytes] = field(default_factory=list)
    answered: set[bytes] = field(default_factory=set)


class CatchUp:
    # State and helpers of the seat node.
    machine: TableMachine | None
    peer_counts: dict[bytes, int]
    resync: Resync | None
    say: Callable[[str], None]

    def now(self) -> float:
        raise NotImplementedError

    def queue(self, payload: dict[str, Any], to: bytes | None = None) -> None:
        raise NotImplementedError

    def _after(self, events: list[TableEvent]) -> None:
        raise NotImplementedError

    def _announce(self) -> None:
        """Tell every peer how many records we hold; resend our votes that wait for a
        certificate (a hub may have dropped them)."""
        machine = self.machine
        assert machine is not None
        self.queue({"t": "have", "n": len(machine.records), "ask": True})
        if machine.seat is None:
            return
        for book in (machine.votes.timeout, machine.votes.abort):
            for (_, head), votes in book.items():
                vote = votes.get(machine.seat)
                if head == machine.head and vote is not None:
                    self.queue({"t": "f", "f": vote.frame})

    def _on_have(self, sender: bytes, payload: dict[str, Any]) -> None:
        n = payload.get("n")
        if not isinstance(n, int) or n < 0:
            return
        self.peer_counts[sender] = n
        if self.machine is None:
            if self.resync is not None:
                stored = self.resync.stored
                if n <= stored:
                    self.resync.answered.add(sender)  # nothing more to get from this peer
                if payload.get("ask"):
                    self.queue({"t": "have", "n": stored, "ask": False}, to=sender)
            return
        records = self.machine.records
        if self.machine.held and n <= len(records):
            # A peer is not ahead of us (its records come before its count on the link).
            self._release()
        if len(records) > n:
            chunk: list[bytes] = []
            size, start = 0, n
            for frame in records[n:]:
                if chunk and size + len(frame) > RECS_CHUNK:
                    self.queue({"t": "recs", "start": start, "frames": chunk}, to=sender)
                    start, chunk, size = start + len(chunk), [], 0
                chunk.append(frame)
                size += len(frame)
            self.queue({"t": "recs", "start": start, "frames": chunk}, to=sender)
        if payload.get("ask"):
            self.queue({"t": "have", "n": len(records), "ask": False}, to=sender)

    def _on_recs(self, sender: bytes, payload: dict[str, Any]) -> None:
        frames = [f for f in payload.get("frames", []) if isinstance(f, bytes)]
        start = payload.get("start")
        if not isinstance(start, int):
            return
        if self.machine is None:
            sync = self.resync
            if sync is not None and start == sync.stored:
                sync.answered.add(sender)
                if len(frames) > len(sync.best):
                    sync.best = frames
            return
        for frame in frames:
            self._after(self.machine.receive(frame, self.now()))

    def _release(self) -> None:
        machine = self.machine
        assert machine is not None
        self.say("heard from a peer: writing again")
        self._after(machine.release(self.now()))
