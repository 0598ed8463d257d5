"""Where a frame from a peer enters the table machine: it is decoded, placed in a segment,
its author's seat is checked, and a second frame of one seat at one head is caught. A part of
:class:`~dealerless.protocol.table.machine.TableMachine`, one per segment: it owns the frames
signed at each head and how far the table was heard of, and returns what became of the frame;
the machine carries that out (votes, the chain)."""

from __future__ import annotations

from dataclasses import dataclass

from dealerless.protocol.messages import MessageError, SignedMessage, decode_message, unpack
from dealerless.protocol.table.chain import Chain
from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.table.hand_cycle import HandCycle
from dealerless.protocol.table.kinds import NEXT_CONFIG, SIDE_KINDS, TABLE_REGISTRY
from dealerless.protocol.table.segment_switch import Placement, SegmentLine


@dataclass(frozen=True)
class Refused:
    """A frame our checks refused before its kind was judged. ``culprit``: the seat that
    signed it, if any (then it is proven and voted on, at ``anchor`` if known); ``once``: never
    judge a copy of it again."""

    culprit: int | None
    reason: str
    evidence: bytes
    vote: bool
    anchor: bytes | None = None
    once: bool = False


@dataclass(frozen=True)
class Dropped:
    """Of another segment (nobody's violation) or of a key we do not judge here: ignored.
    ``message``: when it is of an earlier segment (a late vote there may undo our switch,
    P-52)."""

    message: SignedMessage | None = None


@dataclass(frozen=True)
class Kept:
    """Built on a head we have not reached, or of the next segment: kept for that head."""

    message: SignedMessage


@dataclass(frozen=True)
class Equivocated:
    """A second, different chain frame of one seat at one head."""

    seat: int
    earlier: bytes
    frame: bytes


@dataclass(frozen=True)
class Admitted:
    """Signed by ``seat`` of this segment, to be judged by its kind and head."""

    message: SignedMessage
    seat: int


Intake = Refused | Dropped | Kept | Equivocated | Admitted


class FrameIntake:
    def __init__(
        self, config: TableConfig, *, chain: Chain, line: SegmentLine, cycle: HandCycle
    ) -> None:
        self.config, self.chain, self.line, self.cycle = config, chain, line, cycle
        # (seat, hand, prev) -> the first chain frame of that seat at that known head: a second
        # one is an equivocation (two signed frames of one seat at one head). The hand is part
        # of the key: the next hand's setup is signed on from this hand's start (P-53).
        self.signed_at: dict[tuple[int, int, bytes], bytes] = {}
        # The furthest (hand, seq) a seat's signed frame of this segment named, applied or
        # not: a follower far behind sees by it that the table is alive (replays move nothing).
        self.heard_up_to: tuple[int, int] = (cycle.hand.number, chain.seq)

    def take(self, frame: bytes) -> Intake:
        try:
            message = decode_message(frame, registry=TABLE_REGISTRY)
        except MessageError as exc:
            return self._undecodable(frame, exc)
        placement = self.line.place(
            message,
            history=self.chain.history,
            ended=self.cycle.seat_change is not None,
            first_hand=self.cycle.first_hand,
        )
        if placement is Placement.KEEP:
            return Kept(message)
        if placement is Placement.DROP:
            return Dropped(message)
        if message.table_id != self.config.table_id:
            return Refused(None, "message for another table", frame, vote=False)
        seat = self.config.seat_of(message.author.raw)
        if seat is None:
            if self.line.seated_before(message.author.raw):
                # A seat of the segment before ours (it stood up there): its late frame of that
                # segment is nobody's violation, and may undo our switch (P-52).
                return Dropped(message)
            return Refused(None, "message signed by a key with no seat", frame, vote=False)
        if message.seat != seat:
            history = self.chain.history
            if message.prev in history and message.prev not in self.line.earlier_heads:
                return Refused(seat, f"message claims seat {message.seat}", frame, vote=True)
            # Else it may be of another segment, whose seats are numbered otherwise (we are
            # behind: its records come by catch-up; or it is late): nobody's violation.
            return Dropped(message)
        self.heard_up_to = max(self.heard_up_to, (message.hand, message.seq))
        if message.kind == NEXT_CONFIG or message.kind in SIDE_KINDS:
            return Admitted(message, seat)
        if message.prev in self.chain.history:
            key = (seat, message.hand, message.prev)
            earlier = self.signed_at.get(key)
            if earlier is not None and earlier != frame:
                return Equivocated(seat, earlier, frame)
            self.signed_at[key] = frame
        return Admitted(message, seat)

    def _undecodable(self, frame: bytes, exc: MessageError) -> Refused:
        blamed, prev = self._signed_author(frame, exc)
        anchor = prev if prev is not None and prev in self.chain.history else None
        # Refused once when signed: a copy (a relay, a catch-up) must not be blamed again at a
        # later head, where it would void a hand the frame was never part of.
        reason = f"undecodable message: {exc}"
        return Refused(blamed, reason, frame, blamed is not None, anchor, once=blamed is not None)

    def _signed_author(self, frame: bytes, exc: MessageError) -> tuple[int | None, bytes | None]:
        """The seat that signed a frame which decodes no further, if it claims this table, and
        the head it names (``prev``, where it was signed) if that field is readable."""
        if exc.signed_by is None:
            return None, None
        seat = self.config.seat_of(exc.signed_by)
        if seat is None:
            return None, None
        try:
            header = unpack(frame[:-64])
        except MessageError:
            return None, None
        if not isinstance(header, list) or len(header) < 2 or header[1] != self.config.table_id:
            return None, None
        prev = header[4] if len(header) > 4 and isinstance(header[4], bytes) else None
        return seat, prev
