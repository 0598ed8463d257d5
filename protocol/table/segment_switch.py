"""The table machine across seat changes: the next host starts the next segment, every other
seat checks the host's ``next-config`` and follows (spec/protocol.md §9). A mixin of
:class:`~dealerless.protocol.table.machine.TableMachine`; the plan and the checks themselves
are in :mod:`segments`."""

from __future__ import annotations

from collections.abc import Sequence

from dealerless.protocol.messages import IdentityKey, SignedMessage
from dealerless.protocol.rules.base import ConfigError
from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.table.events import (
    LocalProtocolError,
    SeatsChanging,
    SegmentStarted,
    TableEvent,
    Violation,
)
from dealerless.protocol.table.future import FutureFrames
from dealerless.protocol.table.segments import (
    Newcomer,
    SeatPlan,
    SegmentError,
    open_next_config,
    sign_next_config,
)


class SegmentSwitch:
    # State of the table machine this mixin reads and moves on.
    key: IdentityKey | None
    config: TableConfig
    head: bytes
    hand: int
    seq: int
    now: float
    history: set[bytes]
    seen: set[bytes]
    future: FutureFrames
    records: list[bytes]
    _new_records: list[bytes]
    _outbox: list[bytes]
    events: list[TableEvent]
    segments: list[TableConfig]
    seat_change: SeatsChanging | None
    earlier_heads: frozenset[bytes]
    first_hand: int
    left_table: bool
    follow_away: bool
    seat: int | None

    def _receive(self, frame: bytes, *, again: bool = False) -> None:
        raise NotImplementedError

    def _enter(self, config: TableConfig, now: float) -> None:
        raise NotImplementedError

    def _report(self, event: Violation) -> None:
        raise NotImplementedError

    def sitting_out_in(self, config: TableConfig) -> bool:
        raise NotImplementedError

    @property
    def chain_base(self) -> int:
        """Where our first record stands in the whole table's chain (a newcomer's file starts
        with the segment it joined): every seat counts records the same way (catch-up)."""
        carry = self.segments[0].carry
        return 0 if carry is None else carry.records

    @property
    def chain_count(self) -> int:
        """How many records of the table's chain we hold, counted from its very start."""
        return self.chain_base + len(self.records)

    def seat_plan(self) -> SeatPlan:
        """Who stays, sits out and stands up now that the segment ended (SegmentError if not)."""
        return SeatPlan.of(self)  # type: ignore[arg-type]  # a TableMachine is an EndedSegment

    def next_segment(
        self, newcomers: Sequence[Newcomer] = (), returning: Sequence[bytes] = ()
    ) -> TableConfig:
        """The next host: sign the next segment's configuration, queue it for every peer and
        start the segment. LocalProtocolError if we are not the next host or the seats to add
        are not allowed."""
        try:
            plan = self.seat_plan()
            if self.key is None or plan.host != self.key.peer_id.raw:
                raise SegmentError("only the next host signs the next configuration")
            config = plan.next_config(newcomers, returning)
        except (SegmentError, ConfigError) as exc:
            raise LocalProtocolError(f"no next segment: {exc}") from None
        frame = sign_next_config(self.key, self, config)  # type: ignore[arg-type]
        self.seen.add(frame)
        self._outbox.append(frame)
        self._switch(config, frame)
        return config

    def _on_next_config(self, message: SignedMessage, author: int) -> None:
        """A ``next-config`` from a seat of this segment (signature already checked)."""
        if message.prev != self.head or self.seat_change is None:
            if message.prev not in self.history:  # early: the segment has not ended here yet
                dropped = self.future.add(message, (self.hand, self.seq))
                if dropped is not None:
                    self.seen.discard(dropped)
            return
        plan = self.seat_plan()
        try:
            config = open_next_config(self, message.frame)  # type: ignore[arg-type]
        except SegmentError as exc:
            blamed = author if message.author.raw == plan.host else None
            self._report(Violation(blamed, f"next configuration refused: {exc}", (message.frame,)))
            return
        self._switch(config, message.frame)

    def _not_for_this_segment(self, message: SignedMessage) -> bool:
        """Frames of another segment than ours are nobody's violation: late copies from an
        earlier segment (seats are numbered anew at every change), from before a newcomer sat
        down, or frames of the next segment that reach us before its configuration does (kept
        for it). Dropped, or kept, without a word."""
        if message.prev in self.history and message.prev not in self.earlier_heads:
            return False  # built on a head of this segment: judged as usual
        if message.prev in self.earlier_heads:
            return True
        if self.seat_change is not None:  # ended here: the next segment's frames come early
            if not self.left_table:
                dropped = self.future.add(message, (self.hand, self.seq))
                if dropped is not None:
                    self.seen.discard(dropped)
            return True
        # Before this segment's first hand only its configuration round and votes exist.
        first = self.first_hand - 1
        early_kinds = ("config-sign", "timeout-vote", "abort-vote", "chat")
        return message.hand < first or (message.hand == first and message.kind not in early_kinds)

    def _switch(self, config: TableConfig, frame: bytes) -> None:
        seated = self.key is None or config.seat_of(self.key.peer_id.raw) is not None
        self.events.append(SegmentStarted(config, seated))
        # A seat sat out for its own silence follows too: it is back if it reads this.
        change = self.seat_change
        silent = change is not None and change.silent is not None and change.silent == self.seat
        if not seated and not ((self.follow_away or silent) and self.sitting_out_in(config)):
            # We stood up: the table goes on without us. Our transcript ends with the hands we
            # were part of (the audit calls it complete), this machine stays over.
            self.left_table = True
            return
        # Seated, or sitting out: a seat that sits out follows the table as an observer (its
        # transcript stays the whole chain) until a later change seats it again.
        self.records.append(frame)
        self._new_records.append(frame)
        self.segments.append(config)
        early = [f for f in self.future.frames() if f != frame]
        self._enter(config, self.now)
        for waiting in early:  # the next segment's frames that came before its configuration
            self._receive(waiting, again=True)
