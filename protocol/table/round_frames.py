"""Parallel rounds: the steps of a hand that do not depend on each other (the seats' key
commitments, their key reveals, their decryption shares, their signed results) are written by
every seat at once.

Every seat that owes a frame signs it with ``prev`` = the round's head and ``seq`` = the
round's sequence number; peers check and keep each frame as it arrives, in any order. When the
last one is in, the round becomes one chain element: its frames go into the transcript in seat
order and the new head is ``SHA-256(ROUND_LABEL ‖ SHA-256 of each frame, in seat order)``, so
every peer (and an auditor) records the same bytes whatever order the frames came in
(spec/protocol.md §2). A part of :class:`~dealerless.protocol.table.machine.TableMachine`, one
per segment: it judges and keeps the open round's frames in the running hand (the segment's hand
cycle owns it) and hands a closed round to the machine's chain through the calls it was given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from dealerless.protocol.crypto import CryptoError
from dealerless.protocol.messages import SignedMessage
from dealerless.protocol.rules.base import IllegalAction
from dealerless.protocol.table.chain import Chain
from dealerless.protocol.table.check_later import CheckLater
from dealerless.protocol.table.elements import ElementBodies
from dealerless.protocol.table.events import Accepted, RemoteProtocolError, TableEvent
from dealerless.protocol.table.hand_cycle import HandCycle
from dealerless.protocol.table.hand_deck import stored_round_frame
from dealerless.protocol.table.hand_state import HandState
from dealerless.protocol.table.key_shares import KeyShares
from dealerless.protocol.table.mode import Mode
from dealerless.protocol.table.round import Round
from dealerless.protocol.table.step_clock import StepClock
from dealerless.protocol.table.steps import STEP_BY_PHASE, Phase
from dealerless.protocol.table.votes import certificate_digest

ROUND_LABEL = b"dealerless/round"


class RoundFrames:
    def __init__(
        self,
        seat: int | None,
        *,
        cycle: HandCycle,
        chain: Chain,
        clock: StepClock,
        keys: KeyShares,
        check_later: CheckLater,
        elements: ElementBodies,
        events: list[TableEvent],
        append: Callable[[Sequence[bytes], bytes], None],
        refuse: Callable[[SignedMessage, int, str, bool], None],
        state_hash: Callable[[], bytes],
        moved_on: Callable[[], None],
        taken: Callable[[SignedMessage, bool], None] = lambda _m, _own: None,
    ) -> None:
        """``append``: adds a chain element to the machine's chain; ``refuse``: a frame that
        failed its checks (ours: never sent; a peer's: its violation); ``moved_on``: the head
        moved (the machine notes it and writes what is due)."""
        self.seat = seat
        self.cycle, self.chain, self.clock, self.keys = cycle, chain, clock, keys
        self.check_later, self.elements, self.events = check_later, elements, events
        self._append, self._refuse = append, refuse
        self._state_hash, self._moved_on = state_hash, moved_on
        self._taken = taken  # a frame judged and kept in the round (the machine notes it)

    @property
    def hand(self) -> HandState:
        return self.cycle.hand

    # ---------------------------------------------------------------- queries
    def writers(self, arbiter: int | None) -> list[int]:
        """Every seat that still has to write at the current head, in seat order (the
        machine's ``arbiter`` where no round is open)."""
        if self.hand.round is not None and self.hand.phase is not Phase.OVER:
            return self.hand.round.owing()
        return [] if arbiter is None else [arbiter]

    def writers_here(self, arbiter: int | None) -> frozenset[int]:
        """Who had to write at the current head: every seat of a parallel round."""
        if self.hand.round is not None and self.hand.round.parallel:
            return frozenset(self.hand.round.seats)
        return frozenset(self.writers(arbiter))

    def in_open_round(self, frame: bytes) -> bool:
        """``frame`` was taken into the round that is open at the current head."""
        rnd = self.hand.round
        return rnd is not None and any(m.frame == frame for m in rnd.frames.values())

    def pending_round_frame(self) -> bytes | None:
        """Our own frame of the round open at the current head (a node resends it: until the
        round is complete it is in no transcript record a peer could fetch)."""
        rnd = self.hand.round
        if rnd is None or not rnd.parallel or self.seat is None:
            return None
        mine = rnd.frames.get(self.seat)
        return None if mine is None else mine.frame

    # ---------------------------------------------------------------- accepting
    def check_step(self, message: SignedMessage, seat: int) -> None:
        """The frame is for this hand and step and of a kind the phase allows (every chain
        element, in a round or not)."""
        if message.hand != self.hand.number or message.seq != self.chain.seq:
            raise RemoteProtocolError(
                f"hand {message.hand} seq {message.seq}, "
                f"expected {self.hand.number}/{self.chain.seq}",
                seat,
            )
        step = STEP_BY_PHASE.get(self.hand.phase)
        if step is None or message.kind not in step.kinds:
            raise RemoteProtocolError(
                f"{message.kind!r} is not allowed in the {self.hand.phase} phase", seat
            )

    def accept(self, message: SignedMessage, *, own: bool, mode: Mode, now: float) -> None:
        """A frame at the head of a parallel round: check it on its own (it depends on no
        other frame of the round), keep it, and close the round when it is the last."""
        seat = message.seat
        rnd = self.hand.round
        assert seat is not None and rnd is not None
        if seat in rnd.frames and rnd.frames[seat].frame == message.frame:
            return  # taken already (a prepared deck's frames are offered again, P-53)
        try:
            self.check_step(message, seat)
            if seat not in rnd.seats:
                phase = self.hand.phase
                raise RemoteProtocolError(
                    f"out of turn: seat {seat} writes nothing in this {phase} round", seat
                )
            if seat in rnd.frames:
                raise RemoteProtocolError(f"a second {message.kind} in one round", seat)
            self.elements.apply_body(message, seat, own, mode)
        except RemoteProtocolError as exc:
            self._refuse(message, seat, exc.reason, own)
            return
        except (CryptoError, IllegalAction, ValueError) as exc:
            self._refuse(message, seat, f"{message.kind}: {exc}", own)
            return
        rnd.frames[seat] = message
        self._taken(message, own)
        if not own and not mode.replaying:
            self.clock.note_arrival(seat, self.chain.head, now)
        if seat == self.seat:
            self.hand.wrote_in_hand = True
            if own and self.hand.secret is not None:
                # Stored (with the key share) before it is sent: after a crash the machine
                # takes it again instead of signing the step anew (its proofs are randomised,
                # and a second frame at the same head would be an equivocation).
                self.keys.keep_with_round_frame(self.hand.secret, message.frame)
        if not rnd.owing():
            self._close(rnd)

    def _close(self, rnd: Round) -> None:
        messages = [rnd.frames[s] for s in rnd.seats]
        frames = [m.frame for m in messages]
        seq = self.chain.seq
        self._append(frames, certificate_digest(ROUND_LABEL, frames))
        rnd.seats = []
        for m in messages:
            self.events.append(Accepted(m.kind, m.seat, seq, self._state_hash()))
        self.cycle.advance()
        self._moved_on()

    # ---------------------------------------------------------------- resuming
    def stored_round_frame(self, seen: set[bytes]) -> bytes | None:
        """After a replay: our own frame of the open round, stored with the key share before
        it was sent, for the machine to take again (it may never have reached anyone; it is
        resent). Our shuffle, sent before the previous proof was checked (check_later.py) and
        not yet in the transcript, is kept to be sent again when its head comes back."""
        frame = stored_round_frame(self.keys.stored(self.hand.number))
        rnd = self.hand.round
        if frame is None or rnd is None or frame in seen:
            return None
        if not rnd.parallel:
            self.check_later.stored_shuffle = frame
            return None
        return frame
