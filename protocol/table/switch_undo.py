"""Undoing a seat change's switch (spec/protocol.md P-52).

A seat that started the next segment keeps the one that ended: its parts as they were at the
switch, and a copy of the chain there. A timeout vote of that segment's last hand that comes
after the switch is nobody's violation and is not judged in the new segment; it is kept here.
The machine then tries those votes in the ended segment, put back for the try: if they
complete a certificate that segment would take (its own frame in the last round reached no
other seat in time, and the next host signed before their votes reached it), the table's
decision wins over the switch, as it does within a segment; else the new segment is put back as
it was. Pure bookkeeping: the machine swaps its parts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from dealerless.protocol.messages import SignedMessage
from dealerless.protocol.table.chain import ChainState
from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.table.segment_switch import LineState

if TYPE_CHECKING:
    from dealerless.protocol.table.elements import ElementBodies
    from dealerless.protocol.table.future import FutureFrames
    from dealerless.protocol.table.hand_cycle import HandCycle
    from dealerless.protocol.table.intake import FrameIntake
    from dealerless.protocol.table.next_hand import NextHandSetup
    from dealerless.protocol.table.round_frames import RoundFrames
    from dealerless.protocol.table.segment_switch import SegmentEnd
    from dealerless.protocol.table.step_clock import StepClock
    from dealerless.protocol.table.votes import VoteBook

# Frames of an ended segment kept at most: every seat's vote against every seat of the last
# round at a few heads, and the others' round signed again, are far fewer; a flood of valid
# late frames is dropped beyond it.
MAX_LATE_VOTES = 128


@dataclass(frozen=True)
class SegmentParts:
    """The parts a segment owns while it runs (the machine's, swapped as one)."""

    config: TableConfig
    seat: int | None
    votes: VoteBook
    cycle: HandCycle
    elements: ElementBodies
    change_wanted: str | None
    future: FutureFrames
    intake: FrameIntake
    clock: StepClock
    rounds: RoundFrames
    segment_end: SegmentEnd
    next_hand: NextHandSetup


@dataclass(frozen=True)
class TableState:
    """A segment's parts with the chain and the line of segments as they stood."""

    parts: SegmentParts
    chain: ChainState
    line: LineState


@dataclass
class EndedSegment:
    """The segment a switch ended, as it stood at the switch."""

    state: TableState
    next_config: TableConfig  # the segment the switch started: void if undone
    hand: int  # its last hand
    heads: frozenset[bytes]  # that hand's start and heads: where a late vote may undo it
    late: list[bytes] = field(default_factory=list)  # late votes not tried yet
    # Frames of that hand built on heads we never had (the others' branch: their round
    # signed again after the certificate): taken if the switch is undone.
    after: list[bytes] = field(default_factory=list)
    tried_at: float = -1e9  # when the kept votes were last tried (a tick tries again)
    retry_until: float = -1e9  # a tick tries the kept votes again until then
    noted: int = 0  # late votes kept so far (bounded)


class SwitchUndo:
    """The one ended segment a seat may still go back to: the last switch's."""

    def __init__(self) -> None:
        self.ended: EndedSegment | None = None

    def keep(self, ended: EndedSegment | None) -> None:
        """A switch: the segment it ended replaces any earlier one (which can no longer be
        reached: a roll-back never crosses two switches)."""
        self.ended = ended

    def note(self, message: SignedMessage, *, known_head: bool, retry_until: float) -> None:
        """A frame our segment does not judge (and that we never took): kept if it is of the
        ended segment's last hand, a timeout vote at one of its heads (tried there, and on
        ticks until ``retry_until``: a certificate there may wait for our own deadline) or a
        frame built on a head we never had (``known_head`` False: taken if the switch is
        undone)."""
        ended = self.ended
        if ended is None or message.hand != ended.hand or ended.noted >= MAX_LATE_VOTES:
            return
        if message.kind == "timeout-vote" and message.prev in ended.heads:
            kept = ended.late
            ended.retry_until = max(ended.retry_until, retry_until)
        elif not known_head:
            kept = ended.after
        else:
            return
        if message.frame not in kept:
            kept.append(message.frame)
            ended.noted += 1

    def to_try(self, now: float, every: float) -> tuple[EndedSegment, list[bytes]] | None:
        """The ended segment and the late votes to try in it now: new ones at once, and
        those kept (a certificate waits for our deadline there) once every ``every`` s for a
        while after the last one came."""
        ended = self.ended
        if ended is None:
            return None
        again = now <= ended.retry_until and now - ended.tried_at >= every
        if not ended.late and not again:
            return None
        late, ended.late = ended.late, []
        ended.tried_at = now
        return ended, late
