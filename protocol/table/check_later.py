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
as evidence, exactly as if it had refused it on arrival (spec/protocol.md §2). A part of
:class:`~dealerless.protocol.table.machine.TableMachine` that owns the pending check and our
stored shuffle; the machine asks it and carries out what it answers.
"""

from __future__ import annotations

from dataclasses import dataclass

from dealerless.protocol.crypto import CryptoError, PlayerSecret
from dealerless.protocol.messages import MessageError, SignedMessage, decode_message
from dealerless.protocol.table.chain import Chain
from dealerless.protocol.table.hand_deck import HandDeck
from dealerless.protocol.table.hand_state import HandState
from dealerless.protocol.table.kinds import TABLE_REGISTRY
from dealerless.protocol.table.mode import Mode
from dealerless.protocol.table.steps import Phase


@dataclass
class Unchecked:
    """A peer's shuffle taken before its proof was verified."""

    message: SignedMessage
    records_from: int  # where it starts in the records not yet taken by the node


@dataclass(frozen=True)
class ShuffleRefused:
    """The proof of a shuffle taken unchecked failed: roll back to its head, vote against it."""

    message: SignedMessage
    reason: str


class CheckLater:
    def __init__(self) -> None:
        self.pending: Unchecked | None = None  # a peer's shuffle taken before its proof check
        self.stored_shuffle: bytes | None = None  # ours, stored before a crash

    def may_check_later(
        self, author: int, *, own: bool, mode: Mode, seat: int | None, hand: HandState
    ) -> bool:
        """We write the shuffle that follows this peer's one, now."""
        rnd = hand.round
        return (
            not own
            and mode is Mode.LIVE
            and self.pending is None
            and seat is not None
            and hand.secret is not None
            and rnd is not None
            and len(rnd.seats) >= 2
            and rnd.seats[0] == author
            and rnd.seats[1] == seat
        )

    def note_appended(self, message: SignedMessage, deck: HandDeck | None, chain: Chain) -> None:
        """Called when a peer's element is appended (its record is the last one not taken)."""
        if deck is not None and deck.unchecked is not None and self.pending is None:
            self.pending = Unchecked(message, chain.unsaved_count - 1)

    def own_shuffle_secret(self, hand: HandState) -> PlayerSecret | None:
        """Our shuffle on a head not yet checked: the key share to store with it, before it
        leaves (None: our shuffle follows a checked head, nothing to store)."""
        if self.pending is None:
            return None
        return hand.secret

    def records_to_persist(self, chain: Chain) -> list[bytes]:
        pending = self.pending
        if pending is None:
            return chain.take_unsaved()
        out = chain.take_unsaved(pending.records_from)
        pending.records_from = 0
        return out

    def check(self, deck: HandDeck | None) -> ShuffleRefused | None:
        """Verify the pending proof, if any (once: the check is no longer pending after)."""
        pending, self.pending = self.pending, None
        if pending is None or deck is None or deck.unchecked is None:
            return None  # nothing pending, or the hand was left meanwhile
        try:
            deck.check_unchecked()
        except CryptoError as exc:
            return ShuffleRefused(pending.message, f"{pending.message.kind}: {exc}")
        return None

    # ---------------------------------------------------------------- after a crash
    def stored_shuffle_due(
        self, hand: HandState, head: bytes, seq: int, seen: set[bytes]
    ) -> SignedMessage | None:
        """Our shuffle stored before a crash, when the head it was built on is the current
        one: to be sent again (the same bytes, never a second shuffle there)."""
        frame, self.stored_shuffle = self.stored_shuffle, None
        if frame is None or hand.phase is not Phase.SHUFFLE or frame in seen:
            return None
        try:
            message = decode_message(frame, registry=TABLE_REGISTRY)
        except MessageError:
            return None
        if message.hand != hand.number:
            return None  # of a hand that is over
        if message.prev != head or message.seq != seq:
            self.stored_shuffle = frame  # built on a head we have not reached yet
            return None
        return message
