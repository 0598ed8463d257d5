"""The next hand's deck, prepared while this hand is played (spec/protocol.md P-53).

Nothing in a hand's key commitments, key reveals and shuffles depends on how the hand before it
ends, only on which seats play it. When the next hand deals in the seats of the running one,
its setup is signed on from the running hand's start (the *anchor*) instead of its own start:
every seat writes its key commitment, its reveal and its shuffle for the next hand as soon as
the step before is in, while this hand is played. Once this hand's result is signed only the
deal's shares remain.

This part checks and keeps those frames as they come, with the same checks the hand's setup
makes (every proof verified), writes nothing itself (the machine signs what :meth:`own_due`
names) and opens nothing: decryption shares are written only in the hand itself. When the hand
starts, the machine takes these frames onto its chain in order, through its usual checks (the
proofs verified here are not verified again); a frame this part refused is judged there, so a
seat that cheats in the prepared deck is convicted in the hand whose deck it is, as before. A
part of :class:`~dealerless.protocol.table.machine.TableMachine`; it owns its frames, its deck
and its heads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from dealerless.protocol.crypto import CryptoError, HandDeckContext, PlayerSecret
from dealerless.protocol.messages import MessageError, SignedMessage, decode_message
from dealerless.protocol.table.chain import ROLLBACK_HANDS, HandMark, prepare_anchor
from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.table.hand_deck import HandDeck, stored_share
from dealerless.protocol.table.key_shares import KeyShares
from dealerless.protocol.table.kinds import TABLE_REGISTRY
from dealerless.protocol.table.round_frames import ROUND_LABEL
from dealerless.protocol.table.steps import Phase
from dealerless.protocol.table.votes import certificate_digest

SETUP_KINDS = {
    "key-commit": Phase.KEY_COMMIT,
    "key-reveal": Phase.KEY_REVEAL,
    "shuffle": Phase.SHUFFLE,
}
# Decks kept: the next hand's and those of the hands a roll-back can reach back into, which
# start again from the same deck (a second, different frame there would be an equivocation).
PREPARED_KEPT = ROLLBACK_HANDS + 2
MAX_WAITING = 64  # frames built on setup heads not reached yet (a flood cannot grow memory)


class NextDeck:
    def __init__(
        self,
        hctx: HandDeckContext,
        participants: tuple[int, ...],
        anchor: bytes,
        anchor_seq: int,
        secret: PlayerSecret | None,
        own_stored: list[bytes] | None = None,
        *,
        seat: int | None = None,
    ) -> None:
        """``seat``: ours (also when we hold no share for this setup: a frame of ours that
        comes back then says the share is lost)."""
        self.number = hctx.hand
        self.our_seat = seat if secret is None else secret.seat
        self.anchor, self.anchor_seq = anchor, anchor_seq
        self.participants = participants
        self.deck = HandDeck(hctx, participants, secret)
        self.phase = Phase.KEY_COMMIT
        self.head, self.seq = anchor, anchor_seq
        self.heads = {anchor}  # every head of the setup so far
        self.round: dict[int, SignedMessage] = {}  # the open parallel round's frames
        self.shufflers = list(participants)
        self.elements: list[list[SignedMessage]] = []  # in chain order, a round's in seat order
        self.checked: set[bytes] = set()  # digests of frames whose proofs were verified here
        self.waiting: list[SignedMessage] = []  # built on a head not reached yet
        self.refused: list[SignedMessage] = []  # failed a check: judged when the hand starts
        self.own: list[bytes] = list(own_stored or ())  # ours, stored before they were sent
        self.signed: dict[tuple[int | None, bytes], bytes] = {}  # (seat, head) -> its frame
        # Why our share of this setup is lost (a frame of ours we do not hold came back, or the
        # stored share is damaged): we write nothing here and play the hand blind (P-41).
        self.lost: str | None = None

    @property
    def seat(self) -> int | None:
        """Our seat when we write in this setup (we hold its share), else None."""
        return self.deck.seat

    @property
    def done(self) -> bool:
        return self.phase is Phase.PLAY

    @property
    def broken(self) -> bool:
        """A frame failed its checks: nothing more is built here (the hand judges it)."""
        return bool(self.refused)

    def frames(self) -> Iterator[SignedMessage]:
        """Every frame kept, for the hand's chain: the setup in order, then the rest, and our
        own frames (stored before a crash, some may be built on heads not reached here)."""
        kept = [m for element in self.elements for m in element]
        kept += [*self.round.values(), *self.refused, *self.waiting]
        yield from kept
        held = {m.frame for m in kept}
        for frame in self.own:
            if frame not in held:
                yield decode_message(frame, registry=TABLE_REGISTRY)

    # ---------------------------------------------------------------- taking a peer's frame
    def take(self, message: SignedMessage, *, own: bool = False, verified: bool = False) -> None:
        """A frame of the prepared hand (its ``hand`` is ours); ``verified``: the hand's chain
        took it already (its proofs verified there), kept here for a roll-back that starts the
        hand again."""
        if (
            not own
            and self.our_seat is not None
            and message.seat == self.our_seat
            and message.frame not in self.own
        ):
            self.lost = (
                f"a frame of ours for hand {self.number}'s prepared deck came back that this "
                "node no longer holds (its key share was lost in a crash)"
            )
        earlier = self.signed.get((message.seat, message.prev))
        if earlier is not None and earlier != message.frame:
            self.refused.append(message)  # a second frame at one head: the hand sees both
            return
        if message.prev == self.head and message.seq == self.seq and not self.broken:
            self._apply(message, own, verified)
            self._release()
        elif message.prev in self.heads and message.prev != self.head:
            return  # built on a setup head we left (a copy, or late): the hand judges nothing
        elif not any(m.frame == message.frame for m in self.waiting):
            if len(self.waiting) >= MAX_WAITING:
                return
            self.waiting.append(message)

    def _release(self) -> None:
        while not self.broken:
            ready = [m for m in self.waiting if m.prev == self.head and m.seq == self.seq]
            if not ready:
                return
            for message in ready:
                self.waiting.remove(message)
                if message.prev == self.head and message.seq == self.seq:
                    self._apply(message, own=False)

    def _apply(self, message: SignedMessage, own: bool, verified: bool = False) -> None:
        seat = message.seat
        phase = SETUP_KINDS.get(message.kind)
        if seat is None or phase is not self.phase:
            self.refused.append(message)
            return
        if phase is Phase.SHUFFLE:
            if seat != self.shufflers[0]:
                self.refused.append(message)
                return
        elif seat in self.round:
            if self.round[seat].frame != message.frame:
                self.refused.append(message)  # a second frame at one head: the hand sees both
            return
        elif seat not in self.participants:
            self.refused.append(message)
            return
        try:
            self._check(message, seat, own, verified)
        except (CryptoError, MessageError, ValueError, KeyError):
            self.refused.append(message)
            return
        self.signed[(seat, message.prev)] = message.frame
        if not own:
            self.checked.add(message.digest)
        if phase is Phase.SHUFFLE:
            self.shufflers.pop(0)
            self._moved([message], message.digest)
            if not self.shufflers:
                self.phase = Phase.PLAY
            return
        self.round[seat] = message
        if len(self.round) == len(self.participants):
            element = [self.round[s] for s in self.participants]
            self.round = {}
            self._moved(element, certificate_digest(ROUND_LABEL, [m.frame for m in element]))
            self.phase = Phase.KEY_REVEAL if phase is Phase.KEY_COMMIT else Phase.SHUFFLE

    def _check(self, message: SignedMessage, seat: int, own: bool, verified: bool) -> None:
        body: Any = message.body
        if message.kind == "key-commit":
            self.deck.accept_commit(seat, body["commit"])
        elif message.kind == "key-reveal":
            self.deck.accept_reveal(seat, body["reveal"], checked=verified)
        else:
            self.deck.accept_shuffle(seat, body["shuffle"], trusted=own, checked=verified)

    def _moved(self, element: list[SignedMessage], head: bytes) -> None:
        self.elements.append(element)
        self.head, self.seq = head, self.seq + 1
        self.heads.add(head)

    # ---------------------------------------------------------------- our own frames
    def own_due(self) -> tuple[str, dict[str, Any]] | bytes | None:
        """What we write next in the setup: a frame we stored before a crash for this head
        (the same bytes again), the kind and body of a new one, or None."""
        seat = self.seat
        if seat is None or self.broken or self.done or self.lost or seat not in self.participants:
            return None
        if self.phase is Phase.SHUFFLE:
            if self.shufflers[0] != seat:
                return None
        elif seat in self.round:
            return None
        if self.own:
            taken = {m.frame for element in self.elements for m in element}
            for frame in self.own:
                if frame not in taken:
                    return frame  # the machine takes it if it is for this head, else holds it
        if self.phase is Phase.KEY_COMMIT:
            return "key-commit", {"commit": self.deck.make_commit()}
        if self.phase is Phase.KEY_REVEAL:
            return "key-reveal", {"reveal": self.deck.make_reveal()}
        return "shuffle", {"shuffle": self.deck.make_shuffle()}


class Preparations:
    """The prepared decks of a segment, by the hand start they are signed on from (a roll-back
    into a hand starts the next one again from the same deck), and our key shares for them."""

    def __init__(
        self,
        config: TableConfig,
        seat: int | None,
        *,
        keys: KeyShares,
        sign: Callable[[int, int, bytes, str, dict[str, Any]], SignedMessage] | None,
    ) -> None:
        self.config, self.seat, self.keys, self._sign = config, seat, keys, sign
        self.decks: dict[bytes, NextDeck] = {}
        # The hand a machine resumed into after a crash: without a stored share for the hand
        # after it, we may have prepared it before and lost that share, so we prepare nothing
        # of it (its setup is written at its start; a frame of ours coming back says it is lost).
        self.resumed_hand: int | None = None

    def next_deck(
        self, mark: HandMark | None, hand: int, participants: tuple[int, ...], *, make: bool
    ) -> NextDeck | None:
        """The deck of the hand after ``hand`` (which started at ``mark``), prepared while it
        is played, dealing in the same ``participants`` (``make``: begin it if there is none,
        else None)."""
        if mark is None:
            return None
        anchor = prepare_anchor(mark.head)
        deck = self.decks.get(anchor)
        if deck is not None and deck.number == hand + 1:
            return deck
        return self.deck_for(anchor, mark.seq, hand + 1, participants) if make else None

    def for_hand(self, number: int) -> list[NextDeck]:
        """The decks prepared for hand ``number`` (on whatever start the hand before had)."""
        return [deck for deck in self.decks.values() if deck.number == number]

    def own_frames(
        self, running_from: tuple[bytes, int] | None, mark: HandMark | None, hand: int
    ) -> list[bytes]:
        """Our frames of the running hand's prepared setup (``running_from``: where it was
        prepared from, while it is open) and of the next hand's (prepared from ``mark``), while
        the setup is not complete here (once it is, every seat that took part had ours)."""
        if self.seat is None:
            return []
        anchors = [] if running_from is None else [running_from[0]]
        if mark is not None:
            anchors.append(prepare_anchor(mark.head))
        out: list[bytes] = []
        for anchor in anchors:
            deck = self.decks.get(anchor)
            if deck is not None and deck.number in (hand, hand + 1) and not deck.done:
                out.extend(deck.own)
        return out

    def keep_taken(
        self, running_from: tuple[bytes, int] | None, hand: int, message: SignedMessage, own: bool
    ) -> None:
        """A setup frame of the running hand, prepared from ``running_from``, that its chain
        took after the hand started: its deck keeps it too. A roll-back into the hand before
        starts this hand again from the same setup (the same heads): what it took, ours
        included, must come again, never a second frame of ours."""
        if running_from is None or message.kind not in SETUP_KINDS or message.hand != hand:
            return
        deck = self.decks.get(running_from[0])
        if deck is None or deck.number != hand:
            return
        if own and message.frame not in deck.own:
            deck.own.append(message.frame)
        deck.take(message, own=own, verified=True)

    def secret(self, number: int, anchor: bytes) -> PlayerSecret | str | None:
        """Our share of hand ``number`` if it was prepared on from ``anchor``; why it is lost
        (a text) if it was and we no longer hold it; else None."""
        deck = self.decks.get(anchor)
        if deck is None or deck.number != number:
            return None
        return deck.lost if deck.lost is not None else deck.deck.secret

    def deck_for(
        self, anchor: bytes, anchor_seq: int, number: int, participants: tuple[int, ...]
    ) -> NextDeck:
        """The deck of hand ``number`` prepared on from ``anchor`` (made on first use: with a
        key share of ours if we are dealt in, the one stored before a crash if there is one)."""
        deck = self.decks.get(anchor)
        if deck is not None and deck.number == number:
            return deck
        hctx = HandDeckContext(self.config.table_id, number, self.config.digest())
        secret, own, lost = None, None, None
        if self._sign is not None and self.seat is not None and self.seat in participants:
            secret, own, lost = self._stored(hctx, anchor)
            if secret is None and lost is None and number - 1 != self.resumed_hand:
                secret = PlayerSecret.generate(hctx, self.seat)
                self.keys.keep_prepared(secret, anchor, ())
        deck = NextDeck(hctx, participants, anchor, anchor_seq, secret, own, seat=self.seat)
        deck.lost = lost
        self.decks[anchor] = deck
        for old in list(self.decks)[:-PREPARED_KEPT]:
            del self.decks[old]
        return deck

    def _stored(
        self, hctx: HandDeckContext, anchor: bytes
    ) -> tuple[PlayerSecret | None, list[bytes] | None, str | None]:
        """Our share and frames for this setup, stored before a crash (else None), or why the
        stored share is of no use (damaged: we prepared this hand and cannot go on with it)."""
        assert self.seat is not None
        stored = stored_share(self.keys.stored(hctx.hand), hctx, self.seat, anchor)
        if stored.damaged is not None or stored.prepared is None:
            return None, None, stored.damaged  # a share made at its hand's start is not this
        return stored.secret, stored.prepared, None

    def write(self, deck: NextDeck, *, shuffle: bool = True) -> list[bytes]:
        """Our frames due in ``deck``'s setup (with ``shuffle`` False: not our shuffle yet),
        signed, taken and stored with the share (the node stores it before it sends them)."""
        out: list[bytes] = []
        while self._sign is not None:
            due = deck.own_due()
            if due is None or (deck.phase is Phase.SHUFFLE and not shuffle):
                return out
            if isinstance(due, bytes):
                message = decode_message(due, registry=TABLE_REGISTRY)
                if message.prev != deck.head or message.seq != deck.seq:
                    return out  # stored for a head this setup did not reach: write nothing
            else:
                message = self._sign(deck.number, deck.seq, deck.head, *due)
                deck.own.append(message.frame)
                assert deck.deck.secret is not None
                self.keys.keep_prepared(deck.deck.secret, deck.anchor, deck.own)
            head = deck.head
            deck.take(message, own=True)
            out.append(message.frame)
            if deck.head == head and message.kind == "shuffle":
                return out  # not taken (our own check failed): nothing follows
        return out
