"""The table machine across seat changes: the next host starts the next segment, every other
seat checks the host's ``next-config`` and follows (spec/protocol.md §9). A mixin of
:class:`~dealerless.protocol.table.machine.TableMachine`; the plan and the checks themselves
are in :mod:`segments`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dealerless.protocol.messages import IdentityKey, SignedMessage
from dealerless.protocol.rules.base import ConfigError
from dealerless.protocol.table.chain import Chain
from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.table.events import (
    Accepted,
    LocalProtocolError,
    SeatSilent,
    SegmentStarted,
    TableEvent,
    Violation,
)
from dealerless.protocol.table.future import FutureFrames
from dealerless.protocol.table.hand_cycle import HandCycle
from dealerless.protocol.table.mode import Mode
from dealerless.protocol.table.segments import (
    Newcomer,
    SeatPlan,
    SegmentError,
    open_next_config,
    sign_next_config,
)
from dealerless.protocol.table.steps import Phase
from dealerless.protocol.table.votes import TIMEOUT_LABEL, VoteBook, certificate_digest


class SegmentSwitch:
    # Owned here: the table went on after a seat change without us (set once, never reset).
    left_table = False
    # State of the table machine this mixin reads.
    key: IdentityKey | None
    config: TableConfig
    chain: Chain
    cycle: HandCycle
    now: float
    seen: set[bytes]
    future: FutureFrames
    _outbox: list[bytes]
    events: list[TableEvent]
    segments: list[TableConfig]
    earlier_heads: frozenset[bytes]
    follow_away: bool
    arriving: bool
    seat: int | None
    votes: VoteBook
    timeout: float
    mode: Mode

    def _receive(self, frame: bytes, *, again: bool = False) -> None:
        raise NotImplementedError

    def _enter(self, config: TableConfig, now: float) -> None:
        raise NotImplementedError

    def _report(self, event: Violation) -> None:
        raise NotImplementedError

    def _append(self, frames: Sequence[bytes], digest: bytes) -> None:
        raise NotImplementedError

    def _release_future(self) -> None:
        raise NotImplementedError

    def own_deadline_passed(self, head: bytes | None = None) -> bool:
        raise NotImplementedError

    def state_hash(self) -> bytes:
        raise NotImplementedError

    def _sign(self, kind: str, body: dict[str, Any], *, at: bytes | None = None) -> SignedMessage:
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
        return self.chain_base + len(self.chain.records)

    def seat_plan(self) -> SeatPlan:
        """Who stays, sits out and stands up now that the segment ended (SegmentError if not)."""
        return SeatPlan.of(self)  # type: ignore[arg-type]  # a TableMachine is an EndedSegment

    # ---------------------------------------------------------------- a silent next host
    def _boundary(self) -> tuple[int, set[int]] | None:
        """At the end of a segment, if the table goes on: the seat that must sign the next
        configuration (the next host) and the seats that would vote it silent, every other
        seat that stays (those standing up or sitting out may be gone). None elsewhere."""
        if (
            self.cycle.seat_change is None
            or self.cycle.hand.phase is not Phase.OVER
            or self.left_table
        ):
            return None
        try:
            plan = self.seat_plan()
        except SegmentError:
            return None
        host = None if plan.host is None else self.config.seat_of(plan.host)
        return None if host is None else (host, {s for s in plan.stays if s != host})

    def boundary_timeouts(self) -> None:
        """A seat that stays votes the next host silent once its deadline for the next
        configuration passed on our clock (spec/protocol.md §9); every seat, a voter or not,
        then takes a complete certificate that waited for that deadline."""
        boundary = self._boundary()
        if boundary is None or self.mode.replaying or self.mode.held:
            return
        host, voters = boundary
        if not self.own_deadline_passed():
            return
        if self.seat in voters and self.seat not in self.votes.timeout.get(
            (host, self.chain.head), {}
        ):
            self.votes.cast_timeout(host)
        self.boundary_certificate()

    def boundary_certificate_waits(self) -> bool:
        """A complete certificate that the next host is silent waits only for our own deadline
        (a node that would leave the ended segment, or a simulation that would stop, first
        lets it pass)."""
        boundary = self._boundary()
        if boundary is None or self.seat is None:
            return False
        host, voters = boundary
        votes = self.votes.timeout.get((host, self.chain.head), {})
        return bool(voters) and voters <= set(votes) and not self.own_deadline_passed()

    def boundary_certificate(self) -> None:
        """Carry out a complete certificate that the next host is silent: its votes become one
        chain element at the segment's last head, that seat sits out (silence, not cheating:
        its ledger is kept) and the next seat that stays is the host."""
        boundary = self._boundary()
        if boundary is None:
            return
        host, voters = boundary
        key = (host, self.chain.head)
        votes = self.votes.timeout.get(key, {})
        if not voters or not voters <= set(votes):
            return
        if self.seat is not None and not self.own_deadline_passed():
            return  # not yet silent on our own clock; checked again on every tick
        frames = [votes[s].frame for s in sorted(voters)]
        del self.votes.timeout[key]
        self._append(frames, certificate_digest(TIMEOUT_LABEL, frames))
        self.cycle.note_boundary_silent(host)
        self.events.append(
            Accepted("timeout-certificate", None, self.chain.seq - 1, self.state_hash())
        )
        self.events.append(SeatSilent(host, "next-config", self.cycle.hand.number))
        self._release_future()  # the next host's configuration may be here already

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
        if message.prev != self.chain.head or self.cycle.seat_change is None:
            if message.prev not in self.chain.history:  # early: the segment has not ended here yet
                dropped = self.future.add(message, (self.cycle.hand.number, self.chain.seq))
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
        if message.prev in self.chain.history and message.prev not in self.earlier_heads:
            return False  # built on a head of this segment: judged as usual
        if message.prev in self.earlier_heads:
            return True
        if self.cycle.seat_change is not None:  # ended here: the next segment's frames come early
            if not self.left_table:
                dropped = self.future.add(message, (self.cycle.hand.number, self.chain.seq))
                if dropped is not None:
                    self.seen.discard(dropped)
            return True
        # Before this segment's first hand only its configuration round and votes exist.
        first = self.cycle.first_hand - 1
        early_kinds = ("config-sign", "timeout-vote", "abort-vote", "chat")
        return message.hand < first or (message.hand == first and message.kind not in early_kinds)

    def _switch(self, config: TableConfig, frame: bytes) -> None:
        seated = self.key is None or config.seat_of(self.key.peer_id.raw) is not None
        self.events.append(SegmentStarted(config, seated))
        # A seat sat out for its own silence follows too: it is back if it reads this.
        change = self.cycle.seat_change
        silent = change is not None and change.silent is not None and change.silent == self.seat
        following = (self.follow_away or silent) and self.sitting_out_in(config)
        if not seated and not following and not self.arriving:
            # We stood up: the table goes on without us. Our transcript ends with the hands we
            # were part of (the audit calls it complete), this machine stays over.
            self.left_table = True
            return
        # Seated, sitting out, or a newcomer's replay before its seat: a seat that sits out
        # follows the table as an observer (its transcript stays the whole chain) until a
        # later change seats it again.
        self.chain.add_record(frame)
        self.segments.append(config)
        early = [f for f in self.future.frames() if f != frame]
        self._enter(config, self.now)
        for waiting in early:  # the next segment's frames that came before its configuration
            self._receive(waiting, again=True)
