"""Parallel rounds: the steps of a hand that do not depend on each other (the seats' key
commitments, their key reveals, their decryption shares, their signed results) are written by
every seat at once.

Every seat that owes a frame signs it with ``prev`` = the round's head and ``seq`` = the
round's sequence number; peers check and keep each frame as it arrives, in any order. When the
last one is in, the round becomes one chain element: its frames go into the transcript in seat
order and the new head is ``SHA-256(ROUND_LABEL ‖ SHA-256 of each frame, in seat order)``, so
every peer (and an auditor) records the same bytes whatever order the frames came in
(spec/protocol.md §2). A mixin of :class:`~dealerless.protocol.table.machine.TableMachine`.
"""

from __future__ import annotations

from collections.abc import Sequence

from dealerless.protocol.crypto import CryptoError
from dealerless.protocol.messages import SignedMessage
from dealerless.protocol.rules.base import IllegalAction
from dealerless.protocol.table.chain import Chain
from dealerless.protocol.table.check_later import CheckLater
from dealerless.protocol.table.events import Accepted, RemoteProtocolError, TableEvent
from dealerless.protocol.table.hand_cycle import HandCycle
from dealerless.protocol.table.hand_deck import encode_secret, stored_round_frame
from dealerless.protocol.table.key_shares import KeyShares
from dealerless.protocol.table.mode import Mode
from dealerless.protocol.table.round import Round
from dealerless.protocol.table.step_clock import StepClock
from dealerless.protocol.table.steps import STEP_BY_PHASE, Phase
from dealerless.protocol.table.votes import certificate_digest

ROUND_LABEL = b"dealerless/round"


class RoundFrames:
    # State and primitives of the table machine this mixin reads and calls.
    cycle: HandCycle
    chain: Chain
    seat: int | None
    now: float
    clock: StepClock
    seen: set[bytes]
    events: list[TableEvent]
    mode: Mode
    keys: KeyShares
    check_later: CheckLater

    def arbiter(self) -> int | None:
        raise NotImplementedError

    def _apply_body(self, message: SignedMessage, seat: int, own: bool) -> None:
        raise NotImplementedError

    def _refuse(self, message: SignedMessage, seat: int, reason: str, own: bool) -> None:
        raise NotImplementedError

    def _append(self, frames: Sequence[bytes], digest: bytes) -> None:
        raise NotImplementedError

    def _receive(self, frame: bytes, *, again: bool = False) -> None:
        raise NotImplementedError

    def _note_head(self) -> None:
        raise NotImplementedError

    def _drive(self) -> None:
        raise NotImplementedError

    def state_hash(self) -> bytes:
        raise NotImplementedError

    # ---------------------------------------------------------------- queries
    def writers_at(self, head: bytes) -> frozenset[int]:
        """The seats that had to write at ``head`` (the current one or an earlier one of this
        hand): one, or every seat of a parallel round; empty where unknown."""
        if head == self.chain.head:
            return self._writers_here()
        return self.chain.writers_at(head) or frozenset()

    def writers(self) -> list[int]:
        """Every seat that still has to write at the current head, in seat order."""
        if self.cycle.hand.round is not None and self.cycle.hand.phase is not Phase.OVER:
            return self.cycle.hand.round.owing()
        arbiter = self.arbiter()
        return [] if arbiter is None else [arbiter]

    def _writers_here(self) -> frozenset[int]:
        """Who had to write at the current head: every seat of a parallel round."""
        if self.cycle.hand.round is not None and self.cycle.hand.round.parallel:
            return frozenset(self.cycle.hand.round.seats)
        return frozenset(self.writers())

    def in_open_round(self, frame: bytes) -> bool:
        """``frame`` was taken into the round that is open at the current head."""
        rnd = self.cycle.hand.round
        return rnd is not None and any(m.frame == frame for m in rnd.frames.values())

    def pending_round_frame(self) -> bytes | None:
        """Our own frame of the round open at the current head (a node resends it: until the
        round is complete it is in no transcript record a peer could fetch)."""
        rnd = self.cycle.hand.round
        if rnd is None or not rnd.parallel or self.seat is None:
            return None
        mine = rnd.frames.get(self.seat)
        return None if mine is None else mine.frame

    # ---------------------------------------------------------------- accepting
    def _check_step(self, message: SignedMessage, seat: int) -> None:
        """The frame is for this hand and step and of a kind the phase allows (every chain
        element, in a round or not)."""
        if message.hand != self.cycle.hand.number or message.seq != self.chain.seq:
            raise RemoteProtocolError(
                f"hand {message.hand} seq {message.seq}, "
                f"expected {self.cycle.hand.number}/{self.chain.seq}",
                seat,
            )
        step = STEP_BY_PHASE.get(self.cycle.hand.phase)
        if step is None or message.kind not in step.kinds:
            raise RemoteProtocolError(
                f"{message.kind!r} is not allowed in the {self.cycle.hand.phase} phase", seat
            )

    def _accept_round_frame(self, message: SignedMessage, *, own: bool) -> None:
        """A frame at the head of a parallel round: check it on its own (it depends on no
        other frame of the round), keep it, and close the round when it is the last."""
        seat = message.seat
        rnd = self.cycle.hand.round
        assert seat is not None and rnd is not None
        try:
            self._check_step(message, seat)
            if seat not in rnd.seats:
                phase = self.cycle.hand.phase
                raise RemoteProtocolError(
                    f"out of turn: seat {seat} writes nothing in this {phase} round", seat
                )
            if seat in rnd.frames:
                raise RemoteProtocolError(f"a second {message.kind} in one round", seat)
            self._apply_body(message, seat, own)
        except RemoteProtocolError as exc:
            self._refuse(message, seat, exc.reason, own)
            return
        except (CryptoError, IllegalAction, ValueError) as exc:
            self._refuse(message, seat, f"{message.kind}: {exc}", own)
            return
        rnd.frames[seat] = message
        if not own and not self.mode.replaying:
            self.clock.note_arrival(seat, self.chain.head, self.now)
        if seat == self.seat:
            self.cycle.hand.wrote_in_hand = True
            if own and self.cycle.hand.secret is not None:
                # Stored (with the key share) before it is sent: after a crash the machine
                # takes it again instead of signing the step anew (its proofs are randomised,
                # and a second frame at the same head would be an equivocation).
                blob = encode_secret(self.cycle.hand.secret, frame=message.frame)
                self.keys.keep(self.cycle.hand.number, blob)
        if not rnd.owing():
            self._close_round(rnd)

    def _close_round(self, rnd: Round) -> None:
        messages = [rnd.frames[s] for s in rnd.seats]
        frames = [m.frame for m in messages]
        seq = self.chain.seq
        self._append(frames, certificate_digest(ROUND_LABEL, frames))
        rnd.seats = []
        for m in messages:
            self.events.append(Accepted(m.kind, m.seat, seq, self.state_hash()))
        self.cycle.advance()
        self._note_head()
        self._drive()

    # ---------------------------------------------------------------- resuming
    def _take_stored_round_frame(self) -> None:
        """After a replay: our own frame of the open round, stored with the key share before
        it was sent, is taken again (it may never have reached anyone; it is resent)."""
        frame = stored_round_frame(self.keys.stored(self.cycle.hand.number))
        rnd = self.cycle.hand.round
        if frame is None or rnd is None or frame in self.seen:
            return
        if not rnd.parallel:
            # Our shuffle, sent before the previous proof was checked (check_later.py) and
            # not yet in the transcript: sent again when its head comes back.
            self.check_later.stored_shuffle = frame
            return
        self._receive(frame)
