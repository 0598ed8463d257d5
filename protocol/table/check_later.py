"""The next shuffler shuffles first and checks the previous shuffle's proof right after.

On the critical path of a hand's setup every shuffle waits for the one before it. The seat that
shuffles next need not have verified the previous proof to shuffle: a re-encryption shuffle of
any deck of valid group elements reveals nothing of its permutation (crypto.md §6), and nothing
secret leaves before the check (decryption shares come only after every shuffle is verified).
So that seat checks the shape of the previous shuffle at once (signature, chain position, seat,
every point a valid group element, the counts), writes and sends its own shuffle, and verifies
the previous proof as soon as its frame is out: the verification leaves the critical path.

Until the check the two elements stay out of the transcript the node persists
(:meth:`take_records` holds them back), the machine writes nothing more (in particular no
decryption share when ours was the last shuffle: it writes them once the check has passed) and
takes nothing else: every call into the machine checks first. Our own shuffle is stored with
the hand's key share before it is sent, so a machine rebuilt after a crash sends the same frame
again rather than a second one at that head (an equivocation). If the proof fails, the machine
rolls back to the head before the bad shuffle (our frame on it is void, and honest peers, who
refused the bad shuffle on arrival, never take it) and votes against its author with the frame
as evidence, exactly as if it had refused it on arrival (spec/protocol.md §2). A mixin of
:class:`~dealerless.protocol.table.machine.TableMachine`.
"""

from __future__ import annotations

from dataclasses import dataclass

from dealerless.protocol.crypto import CryptoError
from dealerless.protocol.messages import MessageError, SignedMessage, decode_message
from dealerless.protocol.table.chain import Chain
from dealerless.protocol.table.events import TableEvent
from dealerless.protocol.table.hand_deck import encode_secret
from dealerless.protocol.table.hand_state import HandState
from dealerless.protocol.table.kinds import TABLE_REGISTRY
from dealerless.protocol.table.mode import Mode
from dealerless.protocol.table.steps import Phase


@dataclass
class Unchecked:
    """A peer's shuffle taken before its proof was verified."""

    message: SignedMessage
    records_from: int  # where it starts in the records not yet taken by the node


class CheckLater:
    # State and primitives of the table machine this mixin reads and calls.
    seat: int | None
    this_hand: HandState
    chain: Chain
    mode: Mode
    now: float
    seen: set[bytes]
    events: list[TableEvent]
    _new_secrets: list[tuple[int, bytes]]
    _outbox: list[bytes]
    _unchecked: Unchecked | None
    _stored_shuffle: bytes | None

    def rollback_to(self, anchor: bytes) -> None:
        raise NotImplementedError

    def _violation(
        self,
        culprit: int | None,
        reason: str,
        evidence: tuple[bytes, ...],
        vote: bool = True,
        anchor: bytes | None = None,
    ) -> None:
        raise NotImplementedError

    def _accept(self, message: SignedMessage, *, own: bool) -> None:
        raise NotImplementedError

    def _drive(self) -> None:
        raise NotImplementedError

    def take_events(self) -> list[TableEvent]:
        raise NotImplementedError

    @property
    def unchecked(self) -> bool:
        """A shuffle was taken before its proof was checked: call :meth:`check_now` once our
        own frame is on its way (every other call checks first anyway)."""
        return self._unchecked is not None

    def check_now(self, now: float) -> list[TableEvent]:
        self.now = now
        self._check_pending()
        return self.take_events()

    def _may_check_later(self, seat: int, own: bool) -> bool:
        """We write the shuffle that follows this peer's one, now."""
        rnd = self.this_hand.round
        return (
            not own
            and not self.mode.replaying
            and not self.mode.rolling_back
            and not self.mode.held
            and self._unchecked is None
            and self.seat is not None
            and self.this_hand.secret is not None
            and rnd is not None
            and len(rnd.seats) >= 2
            and rnd.seats[0] == seat
            and rnd.seats[1] == self.seat
        )

    def _note_unchecked(self, message: SignedMessage) -> None:
        """Called when the element is appended (its record is the last one not yet taken)."""
        deck = self.this_hand.deck
        if deck is not None and deck.unchecked is not None and self._unchecked is None:
            self._unchecked = Unchecked(message, self.chain.unsaved_count - 1)

    def _keep_own_shuffle(self, frame: bytes) -> None:
        """Our shuffle on a head not yet checked: stored with the key share before it leaves."""
        if self._unchecked is not None and self.this_hand.secret is not None:
            self._new_secrets.append(
                (self.this_hand.number, encode_secret(self.this_hand.secret, frame=frame))
            )

    def _records_to_persist(self) -> list[bytes]:
        pending = self._unchecked
        if pending is None:
            return self.chain.take_unsaved()
        out = self.chain.take_unsaved(pending.records_from)
        pending.records_from = 0
        return out

    def _check_pending(self) -> None:
        pending, deck = self._unchecked, self.this_hand.deck
        if pending is None:
            return
        self._unchecked = None
        if deck is None or deck.unchecked is None:
            return  # the hand was left meanwhile (a certificate, a rollback)
        try:
            deck.check_unchecked()
        except CryptoError as exc:
            message = pending.message
            assert message.seat is not None
            self.rollback_to(message.prev)
            self._violation(message.seat, f"{message.kind}: {exc}", (message.frame,))
            return
        self._drive()  # what waited for the check (the last shuffler's shares)

    # ---------------------------------------------------------------- after a crash
    def _resend_stored_shuffle(self) -> bool:
        """Our shuffle stored before a crash, at the head it was built on: the same bytes
        again (True), never a second shuffle there."""
        frame, self._stored_shuffle = self._stored_shuffle, None
        if frame is None or self.this_hand.phase is not Phase.SHUFFLE or frame in self.seen:
            return False
        try:
            message = decode_message(frame, registry=TABLE_REGISTRY)
        except MessageError:
            return False
        if message.hand != self.this_hand.number:
            return False  # of a hand that is over
        if message.prev != self.chain.head or message.seq != self.chain.seq:
            self._stored_shuffle = frame  # built on a head we have not reached yet
            return False
        self.seen.add(frame)
        self._outbox.append(frame)
        self._accept(message, own=True)
        return True
