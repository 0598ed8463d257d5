"""The table machine across seat changes (spec/protocol.md §9), as two parts with their own
state: :class:`SegmentLine` follows the table's segments for the whole table (their
configurations, the heads of the earlier ones, whether we left or follow while sitting out),
and :class:`SegmentEnd`, one per segment, times out a silent next host at its end. The plan
and the checks of a next configuration are in :mod:`segments`; the machine signs, opens and
enters it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

from dealerless.protocol.messages import IdentityKey, SignedMessage
from dealerless.protocol.table.chain import Chain
from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.table.events import (
    Accepted,
    LocalProtocolError,
    SeatSilent,
    TableEvent,
)
from dealerless.protocol.table.hand_cycle import HandCycle
from dealerless.protocol.table.segments import SeatPlan, SegmentError
from dealerless.protocol.table.steps import Phase
from dealerless.protocol.table.votes import (
    LONE_VOTER_WAIT,
    TIMEOUT_LABEL,
    VoteBook,
    certificate_digest,
)

# Before a segment's first hand only its configuration round and votes exist.
EARLY_KINDS = ("config-sign", "timeout-vote", "abort-vote", "chat")


class Placement(Enum):
    """Where a frame belongs, by the head it names."""

    JUDGE = "judge"  # built on a head of this segment: judged as usual
    DROP = "drop"  # of an earlier segment, or before our seat: nobody's violation
    KEEP = "keep"  # of the next segment, before its configuration reached us: kept for it


@dataclass(frozen=True)
class LineState:
    """What a :class:`SegmentLine` holds that a switch changes (to undo the switch)."""

    segments: int
    earlier_heads: frozenset[bytes]
    arriving: bool


class SegmentLine:
    """The segments of the table as this machine follows them."""

    def __init__(self, first: TableConfig, key: IdentityKey | None, *, replay: bool) -> None:
        self.key = key
        self.configs: list[TableConfig] = [first]  # the configuration of every segment
        # Sitting out at a change: follow the table as an observer (to come back later) rather
        # than stop. A node sets it; a replay always follows (its file may go on past that).
        self.follow_away = replay
        # A newcomer's machine is rebuilt from the chain it verified, which starts at the
        # table's first configuration where its key has no seat yet: it follows the table
        # until the next configuration that seats it (only in a replay, see resume).
        self.arriving = (
            replay
            and key is not None
            and first.seat_of(key.peer_id.raw) is None
            and first.carry is None
        )
        # The table went on after a seat change without us (set once, never reset).
        self.left_table = False
        self.earlier_heads: frozenset[bytes] = frozenset()  # of the segments before this one

    def state(self) -> LineState:
        return LineState(len(self.configs), self.earlier_heads, self.arriving)

    def restore(self, state: LineState) -> None:
        del self.configs[state.segments :]
        self.earlier_heads, self.arriving = state.earlier_heads, state.arriving

    def seated_before(self, key: bytes) -> bool:
        """``key`` had a seat in the segment before the one we follow."""
        return len(self.configs) > 1 and self.configs[-2].seat_of(key) is not None

    def sitting_out_in(self, config: TableConfig) -> bool:
        """Our key sits out in ``config`` (its carry keeps our ledger): we follow that segment
        as an observer and may be seated again at a later change."""
        key, carry = self.key, config.carry
        return (
            key is not None
            and carry is not None
            and any(d.key == key.peer_id.raw for d in carry.away)
        )

    def enter(self, config: TableConfig, history: set[bytes]) -> int | None:
        """A segment starts with the chain's heads so far: our seat in it (None if we follow
        without one). LocalProtocolError if our key has no business at this table."""
        seat = None
        if self.key is not None:
            seat = config.seat_of(self.key.peer_id.raw)
            if seat is not None:
                self.arriving = False
            elif not self.arriving and not self.sitting_out_in(config):
                raise LocalProtocolError("this identity key has no seat at the table")
        self.earlier_heads = frozenset(history)
        return seat

    @property
    def chain_base(self) -> int:
        """Where our first record stands in the whole table's chain (a newcomer's file starts
        with the segment it joined): every seat counts records the same way (catch-up)."""
        carry = self.configs[0].carry
        return 0 if carry is None else carry.records

    def place(
        self, message: SignedMessage, *, history: set[bytes], ended: bool, first_hand: int
    ) -> Placement:
        """Frames of another segment than ours are nobody's violation: late copies from an
        earlier segment (seats are numbered anew at every change), from before a newcomer sat
        down, or frames of the next segment that reach us before its configuration does (kept
        for it, unless we left the table). ``ended``: this segment ended for a seat change."""
        if message.prev in history and message.prev not in self.earlier_heads:
            return Placement.JUDGE
        if message.prev in self.earlier_heads:
            return Placement.DROP
        if ended:
            return Placement.DROP if self.left_table else Placement.KEEP
        first = first_hand - 1
        early = message.hand < first or (message.hand == first and message.kind not in EARLY_KINDS)
        return Placement.DROP if early else Placement.JUDGE

    def follows(self, config: TableConfig, *, seated: bool, sat_out_for_silence: bool) -> bool:
        """The next segment starts: True if we go on with it (seated, sitting out and
        following, or a newcomer's replay before its seat), and then it is ours; else we stood
        up and the table goes on without us. A seat sat out for its own silence follows too:
        it is back if it reads this. ``seated``: our key has a seat in ``config`` (or we
        audit, with no key)."""
        following = (self.follow_away or sat_out_for_silence) and self.sitting_out_in(config)
        if not seated and not following and not self.arriving:
            self.left_table = True
            return False
        self.configs.append(config)
        return True


class SegmentEnd:
    """The end of one segment: a seat that stays votes the next host silent once its deadline
    for the next configuration passed, and every seat takes the complete certificate."""

    def __init__(
        self,
        seat: int | None,
        *,
        line: SegmentLine,
        cycle: HandCycle,
        chain: Chain,
        votes: VoteBook,
        events: list[TableEvent],
        plan: Callable[[], SeatPlan],
        config: TableConfig,
        deadline_at: Callable[[bytes, float], bool],
        moved_in_time: Callable[[bytes, int], bool],
        quiet: Callable[[], bool],
        append: Callable[[Sequence[bytes], bytes], None],
        state_hash: Callable[[], bytes],
        release_future: Callable[[], None],
    ) -> None:
        """``deadline_at(head, steps)``: ``steps`` step timeouts passed since we reached
        ``head``, on our clock;
        ``moved_in_time(head, seat)``: that seat's element there was in time for us; ``quiet``: the
        machine writes nothing now (a replay, or held after a restart); ``append`` adds an
        element to the chain; ``release_future``: take frames that waited for the new head."""
        self.seat, self.line, self.cycle, self.chain = seat, line, cycle, chain
        self.votes, self.events, self.config = votes, events, config
        self._plan, self._quiet = plan, quiet
        self._deadline_at, self._moved_in_time = deadline_at, moved_in_time
        self._append, self._state_hash, self._release_future = append, state_hash, release_future

    def _deadline_passed(self) -> bool:
        """Our deadline at the current head (the segment's last) passed."""
        return self._deadline_at(self.chain.head, 1)

    def boundary(self) -> tuple[int, set[int]] | None:
        """At the end of a segment, if the table goes on: the seat that must sign the next
        configuration (the next host) and the seats that would vote it silent, every other
        seat that stays (those standing up or sitting out may be gone). None elsewhere."""
        if (
            self.cycle.seat_change is None
            or self.cycle.hand.phase is not Phase.OVER
            or self.line.left_table
        ):
            return None
        try:
            plan = self._plan()
        except SegmentError:
            return None
        host = None if plan.host is None else self.config.seat_of(plan.host)
        return None if host is None else (host, {s for s in plan.stays if s != host})

    def unconfirmed_last_round(self, hold_steps: float) -> frozenset[int] | None:
        """At the end of a segment, when our own frame was part of the last hand's last
        element (a parallel round: the results), and timeout votes against our frame could
        still reach us (until ``hold_steps`` after the voters' deadline): the seats of that
        round whose word that they hold it settles the end, those that have not voted against
        our frame (the certificate would need each one's vote). None when nothing waits: no
        such frame, the time passed, or one other seat's vote alone would be the certificate
        and we wrote in time (we would refuse it, P-26).

        A seat whose own frame reached every other seat late closes the round itself, and no
        vote against it has come when the segment ends here: the next host waits (P-51). A
        voter's word does not count: it may have taken our late frame after it voted, and the
        certificate may still complete there."""
        ended = self.cycle.seat_change is not None and self.cycle.hand.phase is Phase.OVER
        if not ended or not self.chain.hand_heads() or self.seat is None:
            return None
        walk = self.chain.hand_walk()
        at = walk[-2] if len(walk) > 1 else b""  # where the last element was written
        writers = self.chain.writers_at(at) or frozenset()
        if self.seat not in writers or len(writers) < 2:  # not ours, or not a round
            return None
        others = writers - {self.seat}
        if len(others) == 1 and self._moved_in_time(at, self.seat):
            return None
        wait = (LONE_VOTER_WAIT if len(others) == 1 else 1) + hold_steps
        if self._deadline_at(at, wait):
            return None
        return others - set(self.votes.timeout.get((self.seat, at), {}))

    def timeouts(self) -> None:
        """A seat that stays votes the next host silent once its deadline for the next
        configuration passed on our clock (spec/protocol.md §9); every seat, a voter or not,
        then takes a complete certificate that waited for that deadline."""
        boundary = self.boundary()
        if boundary is None or self._quiet():
            return
        host, voters = boundary
        if not self._deadline_passed():
            return
        if self.seat in voters and self.seat not in self.votes.timeout.get(
            (host, self.chain.head), {}
        ):
            self.votes.cast_timeout(host)
        self._take(host, voters)

    def certificate_waits(self) -> bool:
        """A complete certificate that the next host is silent waits only for our own deadline
        (a node that would leave the ended segment, or a simulation that would stop, first
        lets it pass)."""
        boundary = self.boundary()
        if boundary is None or self.seat is None:
            return False
        host, voters = boundary
        votes = self.votes.timeout.get((host, self.chain.head), {})
        return bool(voters) and voters <= set(votes) and not self._deadline_passed()

    def take_certificate(self) -> None:
        """Carry out a complete certificate that the next host is silent: its votes become one
        chain element at the segment's last head, that seat sits out (silence, not cheating:
        its ledger is kept) and the next seat that stays is the host."""
        boundary = self.boundary()
        if boundary is not None:
            self._take(*boundary)

    def _take(self, host: int, voters: set[int]) -> None:
        key = (host, self.chain.head)
        votes = self.votes.timeout.get(key, {})
        if not voters or not voters <= set(votes):
            return
        if self.seat is not None and not self._deadline_passed():
            return  # not yet silent on our own clock; checked again on every tick
        frames = [votes[s].frame for s in sorted(voters)]
        del self.votes.timeout[key]
        self._append(frames, certificate_digest(TIMEOUT_LABEL, frames))
        self.cycle.note_boundary_silent(host)
        self.events.append(
            Accepted("timeout-certificate", None, self.chain.seq - 1, self._state_hash())
        )
        self.events.append(SeatSilent(host, "next-config", self.cycle.hand.number))
        self._release_future()  # the next host's configuration may be here already
