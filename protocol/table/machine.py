"""The table state machine every peer runs (sans-IO: bytes and a clock in, bytes and events out).

One writer at every head (spec/protocol.md): the machine always knows the single seat that may
extend the chain and the kinds it may send. Automatic steps (config signature, key commit and
reveal, shuffle, decryption shares, reveals, result signatures) are written by the machine
itself when it is this peer's turn; rules actions come from the driver through :meth:`act`.

Driver loop::

    machine = TableMachine(config, identity_key, now=clock())
    send(machine.take_outgoing())
    on frame:   events = machine.receive(frame, now);  send(machine.take_outgoing())
    on a move:  machine.act(action, now)               (LocalProtocolError if not allowed)
    on a timer: machine.tick(now)
    persist machine.take_records() before acting on the events.

This module is where the parts meet: the driver's API, the readers, signing and writing,
accepting one element at the head, the transitions between segments, and roll-back. Parts
with their own state: :mod:`chain` (records and heads), :mod:`hand_cycle` (the running hand,
the rules engine, the hands' transitions), :mod:`elements` and :mod:`moves` (each kind's body,
rules actions), :mod:`round_frames` (parallel rounds), :mod:`intake` (a peer's frame decoded,
placed and its author checked), :mod:`segment_switch` (the segments followed; a silent next
host), :mod:`check_later` (a shuffle taken before its proof check), :mod:`next_hand` (the next
hand's deck, prepared while this one is played), :mod:`key_shares` and
:mod:`votes`; those of one segment are built anew in :meth:`TableMachine._enter`.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from dealerless.protocol.crypto import CryptoError
from dealerless.protocol.messages import (
    IdentityKey,
    MessageError,
    SignedMessage,
    sign_message,
)
from dealerless.protocol.rules.base import (
    Action,
    ConfigError,
    Engine,
    IllegalAction,
)
from dealerless.protocol.table.chain import Chain
from dealerless.protocol.table.check_later import CheckLater
from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.table.elements import ElementBodies
from dealerless.protocol.table.events import (
    Accepted,
    LocalProtocolError,
    RemoteProtocolError,
    SeatsChanging,
    SegmentStarted,
    SegmentVoided,
    ShareMissing,
    Stale,
    TableEvent,
    TranscriptCut,
    Violation,
)
from dealerless.protocol.table.future import FutureFrames
from dealerless.protocol.table.hand_cycle import HandCycle
from dealerless.protocol.table.hand_deck import HandDeck
from dealerless.protocol.table.hand_state import HandState
from dealerless.protocol.table.intake import Dropped, Equivocated, FrameIntake, Kept, Refused
from dealerless.protocol.table.key_shares import KeyShares
from dealerless.protocol.table.kinds import NEXT_CONFIG, SEAT_CHANGES, SIDE_KINDS, TABLE_REGISTRY
from dealerless.protocol.table.mode import Mode
from dealerless.protocol.table.next_deck import SETUP_KINDS
from dealerless.protocol.table.next_hand import NextHandSetup
from dealerless.protocol.table.round_frames import RoundFrames
from dealerless.protocol.table.segment_switch import LineState, SegmentEnd, SegmentLine
from dealerless.protocol.table.segments import (
    Newcomer,
    SeatPlan,
    SegmentError,
    open_next_config,
    sign_next_config,
)
from dealerless.protocol.table.step_clock import StepClock
from dealerless.protocol.table.steps import Phase
from dealerless.protocol.table.switch_undo import (
    EndedSegment,
    SegmentParts,
    SwitchUndo,
    TableState,
)
from dealerless.protocol.table.votes import VoteBook

RECORD_TAG_BYTES = 8  # a record's tag in a node's count (catch-up finds forks by it)
MAX_FUTURE = 512  # buffered frames (in all) whose predecessor has not arrived yet
MAX_VIOLATIONS = 256  # violations kept with their evidence (a flood must not grow memory)
END_HOLD_STEPS = 0.5  # how long a next host holds its next configuration, at most (P-31)
MAX_ANONYMOUS_EVIDENCE = 1024  # bytes kept of a frame nobody can be blamed for


class TableMachine:
    def __init__(
        self,
        config: TableConfig,
        key: IdentityKey | None,
        *,
        now: float = 0.0,
        secrets: Mapping[int, bytes] | None = None,
        replay: bool = False,
        proofs_checked: bool = False,
    ) -> None:
        # What lasts for the whole table, across seat changes (segments).
        self.keys = KeyShares(secrets)
        self.mode = Mode.REPLAY if replay else Mode.LIVE
        self.proofs_checked = proofs_checked  # only TableMachine.confirm sets it
        self.key = key
        self.chain = Chain()
        self._outbox: list[bytes] = []
        self.events: list[TableEvent] = []
        self.seen: set[bytes] = set()
        self.violations: list[Violation] = []
        self.now = now
        self.line = SegmentLine(config, key, replay=replay)  # every segment, and our place
        self.check_later = CheckLater()  # a peer's shuffle taken before its proof check
        self.undo = SwitchUndo()  # the segment our last switch ended, while it may be undone
        self._enter(config, now)

    def _enter(self, config: TableConfig, now: float) -> None:
        """Start a segment: the table's first, or the next one after a seat change."""
        self.config = config
        self.seat: int | None = self.line.enter(config, self.chain.history)
        self.players = config.players
        self.timeout = config.step_timeout_ms / 1000.0
        self.chain.enter_segment(config.digest())
        self.votes = VoteBook(self)
        # The next hand's deck, prepared while a hand is played (P-53).
        self.next_hand = NextHandSetup(
            config,
            self.seat,
            keys=self.keys,
            sign=None if self.key is None else self._sign_prepared,
            chain=self.chain,
            replaying=lambda: self.mode.replaying,
        )
        # The hands of this segment: their state, the rules engine, how the segment ended.
        self.cycle = HandCycle(
            config,
            self.seat,
            chain=self.chain,
            keys=self.keys,
            events=self.events,
            proofs_checked=self.proofs_checked,
            replaying=lambda: self.mode.replaying,
            on_new_hand=self._new_hand,
            prepared_secret=self.next_hand.secret,
        )
        # What each element does to this segment's hands (the bodies we write, the checks).
        self.elements = ElementBodies(
            config,
            self.seat,
            cycle=self.cycle,
            chain=self.chain,
            events=self.events,
            check_later=self.check_later,
        )
        self._change_wanted: str | None = None
        self.future = FutureFrames(MAX_FUTURE)
        # Decoding, seat and segment checks and equivocations of the frames peers send.
        self.intake = FrameIntake(config, chain=self.chain, line=self.line, cycle=self.cycle)
        self.clock = StepClock(self.timeout, now)
        # The open parallel round's frames (key commits and reveals, shares, results).
        self.rounds = RoundFrames(
            self.seat,
            cycle=self.cycle,
            chain=self.chain,
            clock=self.clock,
            keys=self.keys,
            check_later=self.check_later,
            elements=self.elements,
            events=self.events,
            append=self._append,
            refuse=self._refuse,
            state_hash=self._reported_hash,
            moved_on=self._moved_on,
            taken=self._keep_prepared,
        )
        # The segment's end: a silent next host is timed out.
        self.segment_end = SegmentEnd(
            self.seat,
            line=self.line,
            cycle=self.cycle,
            chain=self.chain,
            votes=self.votes,
            events=self.events,
            plan=self.seat_plan,
            config=config,
            deadline_at=lambda head, steps: self.own_deadline_passed(head, steps=steps),
            moved_in_time=self.moved_in_time,
            quiet=lambda: self.mode.replaying or self.mode.held,
            append=self._append,
            state_hash=self._reported_hash,
            release_future=self._release_future,
        )
        self._note_head()
        self._drive()

    @property
    def heard_up_to(self) -> tuple[int, int]:
        """The furthest (hand, seq) a seat's signed frame of this segment named, applied or
        not: a follower far behind sees by it that the table is alive."""
        return self.intake.heard_up_to

    @property
    def held(self) -> bool:
        """Back from a crash, writing nothing until a peer is heard (see :meth:`resume`)."""
        return self.mode.held

    # What the running hand holds, for readers (the hand cycle alone moves it).
    @property
    def hand(self) -> int:
        return self.cycle.hand.number

    @property
    def phase(self) -> Phase:
        return self.cycle.hand.phase

    @property
    def deck(self) -> HandDeck | None:
        return self.cycle.hand.deck

    @property
    def participants(self) -> tuple[int, ...]:
        return self.cycle.hand.participants

    @property
    def this_hand(self) -> HandState:
        return self.cycle.hand

    @property
    def engine(self) -> Engine:
        return self.cycle.engine

    @property
    def first_hand(self) -> int:
        """The number of this segment's first hand (1 unless seats changed)."""
        return self.cycle.first_hand

    @property
    def seat_change(self) -> SeatsChanging | None:
        """This segment ended for a seat change (or None)."""
        return self.cycle.seat_change

    @property
    def boundary_silent(self) -> tuple[int, ...]:
        """Next hosts timed out at the segment's end."""
        return self.cycle.boundary_silent

    # The chain's position, for readers (the chain part alone moves it).
    @property
    def head(self) -> bytes:
        return self.chain.head

    @property
    def seq(self) -> int:
        return self.chain.seq

    @property
    def records(self) -> list[bytes]:
        return self.chain.records

    @property
    def history(self) -> set[bytes]:
        return self.chain.history

    @property
    def sitting_out(self) -> bool:
        """We follow this segment without a seat in it, sitting out (its carry keeps our
        ledger), and may be seated again at a later change."""
        return self.seat is None and self.line.sitting_out_in(self.config)

    @classmethod
    def resume(
        cls,
        config: TableConfig,
        key: IdentityKey | None,
        records: Sequence[bytes],
        *,
        secrets: Mapping[int, bytes] | None = None,
        now: float = 0.0,
        hold: bool = False,
    ) -> TableMachine:
        """Rebuild a machine from its transcript (and its stored key shares), verifying every
        record again; then carry on (write our next automatic element if it is due).

        With ``hold`` the machine writes nothing and takes no move until :meth:`release`: a
        node back from a crash that has not heard from any peer yet may be far behind them,
        and what it wrote at its old head would only be refused. It still receives, and it
        still votes on violations it sees. An auditor passes ``key=None``. Raises
        LocalProtocolError if a record does not fit: a transcript that does not replay is
        corrupt and nothing is written.
        """
        machine = cls(config, key, now=now, secrets=secrets, replay=True)
        machine._replay_records(records)
        machine._take_stored_round_frame()
        machine.mode = Mode.LIVE
        machine.follow_away = machine.sitting_out  # following already, else as the node says
        machine.clock.resumed_at(machine.head)
        machine._outbox.clear()
        machine.chain.forget_unsaved()
        machine.events.clear()
        machine._after_replay()
        machine.next_hand.resumed(machine.hand)
        resend = machine.pending_round_frame()
        if resend is not None:
            machine._outbox.append(resend)  # it may never have left before the crash
        machine.mode = Mode.HELD if hold else Mode.LIVE
        machine._drive()
        return machine

    @classmethod
    def confirm(cls, config: TableConfig, records: Sequence[bytes]) -> TableMachine:
        """The check at the end of a game by a seat that checked every record as it came:
        the records replayed by a machine with no key, every signature, chain link, rule,
        commitment, seat and position checked again, but not the zero-knowledge proofs, which
        this process verified when each record arrived (or made itself). The proofs are the
        dearest part (about 70 % of a replay); ``dealerless audit`` redoes them all. Raises
        LocalProtocolError if a record does not fit."""
        machine = cls(config, None, replay=True, proofs_checked=True)
        machine._replay_records(records)
        machine.mode = Mode.LIVE
        return machine

    def _replay_records(self, records: Sequence[bytes]) -> None:
        for number, frame in enumerate(records):
            before = len(self.records)
            self._receive(frame)
            self.votes.check_certificates()
            replayed = len(self.records) > before or frame in self.records
            waiting = self.votes.is_pending(frame) or self.in_open_round(frame)
            if not replayed and not waiting:
                raise LocalProtocolError(f"transcript record {number} does not replay")

    def _after_replay(self) -> None:
        """A hand we are in but whose key share is missing: if nothing of ours is on its chain
        yet (we crashed before storing a share), a fresh share is safe; else we play it blind."""
        if self.cycle.hand.lost_share is None or self.seat is None or self.over:
            return
        if not self.cycle.hand.wrote_in_hand and self.cycle.hand.deck is not None:
            self.cycle.fresh_share(self.seat)
            return
        self.events.append(ShareMissing(self.hand, self.cycle.hand.lost_share))

    @property
    def blind(self) -> bool:
        """We are in this hand without its key share: we can only sign its result."""
        return (
            self.cycle.hand.lost_share is not None
            and self.seat in self.participants
            and self.phase not in (Phase.CONFIG, Phase.OVER)
        )

    def release(self, now: float) -> list[TableEvent]:
        """End the hold of :meth:`resume`: write what is due now."""
        self.now = now
        self._check_pending()
        if self.mode.held:
            self.mode = Mode.LIVE
            self.clock.head_reached(now)
            self._drive()
        return self.take_events()

    def moved_in_time(self, head: bytes, seat: int) -> bool:
        """``seat``'s element at ``head`` was signed by us, or reached us, before our own
        deadline."""
        return self.clock.moved_in_time(head, seat)

    def own_deadline_passed(self, head: bytes | None = None, *, steps: float = 1) -> bool:
        """The deadline at ``head`` (default the current one; ``steps`` step timeouts after
        we reached it) passed on our clock. A head we resumed at counts as passed (we were
        away for an unknown time), and so does one whose arrival we never saw (replayed)."""
        head = self.head if head is None else head
        since = self.step_since if head == self.head else self.chain.reached_at(head)
        return self.clock.deadline_passed(head, self.now, since, steps=steps)

    @property
    def step_since(self) -> float:
        """When the current head was reached, on our clock."""
        return self.clock.since

    def _note_head(self) -> None:
        self.chain.note_head(self._writers_here(), None if self.mode.replaying else self.step_since)

    def _moved_on(self) -> None:
        """The head moved: note who writes there, and write what is ours."""
        self._note_head()
        self._drive()

    # ---------------------------------------------------------------- who writes
    def writers(self) -> list[int]:
        """Every seat that still has to write at the current head, in seat order."""
        return self.rounds.writers(self.arbiter())

    def _writers_here(self) -> frozenset[int]:
        return self.rounds.writers_here(self.arbiter())

    def writers_at(self, head: bytes) -> frozenset[int]:
        """The seats that had to write at ``head`` (the current one or an earlier one the
        chain keeps): one, or every seat of a parallel round; empty where unknown."""
        if head == self.chain.head:
            return self._writers_here()
        return self.chain.writers_at(head) or frozenset()

    def in_open_round(self, frame: bytes) -> bool:
        """``frame`` was taken into the round that is open at the current head."""
        return self.rounds.in_open_round(frame)

    def pending_round_frame(self) -> bytes | None:
        """Our own frame of the round open at the current head (a node resends it)."""
        return self.rounds.pending_round_frame()

    def prepared_frames(self) -> list[bytes]:
        """Every frame we hold of the next hand's prepared setup, the others' and ours: a seat
        back from a crash gets them with our answer to its count (one of its own that it no
        longer holds tells it that its share of that hand is lost)."""
        return self.next_hand.held_frames(self.cycle.hand)

    def pending_prepared_frames(self) -> list[bytes]:
        """Our frames of a prepared setup (P-53) that is not complete here, the running hand's
        while its setup is open and the next hand's: a node resends them with its count (a
        hub may have dropped them, and no record holds them before the hand starts)."""
        return self.next_hand.own_open_frames(self.cycle.hand)

    def frame_ahead(self, frame: bytes) -> bool:
        """``frame`` is ours of the next hand's prepared setup (P-53): no seat needs it before
        this hand ends, so a transport that must ration its writes sends it after the
        running hand's frames."""
        return frame in self.next_hand.own_next(self.cycle.hand)

    def _take_stored_round_frame(self) -> None:
        frame = self.rounds.stored_round_frame(self.seen)
        if frame is not None:
            self._receive(frame)

    def take_secrets(self) -> list[tuple[int, bytes]]:
        """Key shares created since the last call: store them (0600) before sending anything."""
        return self.keys.take()

    # ---------------------------------------------------------------- driver API
    def take_outgoing(self) -> list[bytes]:
        out, self._outbox = self._outbox, []
        return out

    def take_records(self) -> list[bytes]:
        """Records to persist now (never a shuffle whose proof is not checked yet)."""
        return self.check_later.records_to_persist(self.chain)

    @property
    def unchecked(self) -> bool:
        """A shuffle was taken before its proof was checked (check_later.py): call
        :meth:`check_now` once our own frame is on its way (every other call checks first)."""
        return self.check_later.pending is not None

    def check_now(self, now: float) -> list[TableEvent]:
        self.now = now
        self._check_pending()
        return self.take_events()

    def _check_pending(self) -> None:
        if self.check_later.pending is None:
            return
        refused = self.check_later.check(self.cycle.hand.deck)
        if refused is None:
            self._drive()  # what waited for the check (the last shuffler's shares)
            return
        message = refused.message
        assert message.seat is not None
        # Honest peers refused the bad shuffle on arrival: our frame built on it is void.
        self.rollback_to(message.prev)
        self._violation(message.seat, refused.reason, (message.frame,))

    def _resend_stored_shuffle(self) -> bool:
        """Our shuffle stored before a crash, at the head it was built on: the same bytes
        again (True), never a second shuffle there."""
        message = self.check_later.stored_shuffle_due(
            self.cycle.hand, self.head, self.seq, self.seen
        )
        if message is None:
            return False
        self.seen.add(message.frame)
        self._outbox.append(message.frame)
        self._accept(message, own=True)
        return True

    def take_events(self) -> list[TableEvent]:
        out = list(self.events)
        self.events.clear()  # the same list: the parts append to it
        return out

    def state_hash(self) -> bytes:
        return hashlib.sha256(self.head + self.cycle.engine.public_digest()).digest()

    def _reported_hash(self) -> bytes:
        """The state hash an Accepted event reports; none in the check at the end of a game
        (its events are read by nobody, and hashing the public state after every element was
        a quarter of that check)."""
        return b"" if self.proofs_checked else self.state_hash()

    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def end_may_move(self) -> bool:
        """The segment ended here, but timeout votes at a head of its last hand wait for the
        rest of their certificate (or a complete one for our deadline): it may still roll the
        end back (P-31). The next host does not sign the next configuration meanwhile, since
        its switch could not be undone; for half a step after the end at most, so that the
        seats that saw the element in time do not time it out at the boundary (§9)."""
        return (
            self.over
            and not self.own_deadline_passed(steps=END_HOLD_STEPS)
            and self.votes.votes_wait_in_last_hand()  # the dearest check last
        )

    @property
    def unconfirmed_last_round(self) -> frozenset[int] | None:
        """The segment ended here with our own frame in its last round, and votes against it
        could still reach us: the seats of that round whose word that they hold the round
        settles the end (None: nothing waits). The next host signs the next configuration
        once one of them said so (P-51)."""
        return self.segment_end.unconfirmed_last_round(END_HOLD_STEPS)

    @property
    def own_vote_waits(self) -> bool:
        """The segment is over here, and our own timeout vote at a head of its last hand
        waits for its certificate: a node says so with its count (P-51)."""
        return self.over and self.votes.own_vote_waits()

    def certificate_waits(self) -> bool:
        """A complete timeout certificate of this hand, or against the next host at a seat
        change, waits for our own deadline: the end may still move (a late last result of the
        game, protocol.md §5; a silent next host, §9)."""
        return self.votes.certificate_waits() or self.segment_end.certificate_waits()

    @property
    def hand_start_count(self) -> int:
        """How many records of the table's chain (counted as :attr:`chain_count` counts) came
        before the running hand, or the last one once the segment is over: a peer that holds
        them is at most this hand behind us."""
        mark = self.chain.hand_mark
        if mark is None:
            return self.chain_count
        return self.chain_base + mark.records

    @property
    def rollback_floor_count(self) -> int:
        """How many records of the table's chain come before the earliest hand a roll-back
        can reach: a peer whose transcript forks after them can still be brought onto ours.
        In the first hand after a switch that may still be undone, that reaches into the ended
        segment (P-52): a peer that went on into a void segment (a newcomer the void
        configuration seated) meets the certificate there."""
        floor = self.chain.rollback_floor()
        ended = self.undo.ended
        if ended is not None and self.hand <= self.first_hand:
            floor = min(floor, ended.state.chain.rollback_floor())
        return self.chain_base + floor

    def record_tag(self, count: int) -> bytes | None:
        """A short tag of the record that ends the table's first ``count`` records (None if
        we do not hold it): two peers with the same count and different tags have forked."""
        index = count - 1 - self.chain_base
        if count <= 0 or not 0 <= index < len(self.records):
            return None
        return hashlib.sha256(self.records[index]).digest()[:RECORD_TAG_BYTES]

    def arbiter(self) -> int | None:
        """The seat that may extend the chain now (in a parallel round: the lowest of those
        that still owe their frame; see :meth:`writers`)."""
        if self.phase is Phase.OVER:
            return None
        if self.cycle.hand.round is not None:
            owing = self.cycle.hand.round.owing()
            return owing[0] if owing else None
        if self.phase is Phase.REVEAL:
            assert self.cycle.hand.reveal_due is not None
            return self.cycle.hand.reveal_due.seat
        waiting = self.cycle.engine.to_act()
        return waiting[0] if waiting else None

    def my_turn_to_act(self) -> bool:
        """True when the driver must choose a rules action for this seat."""
        return (
            self.phase is Phase.PLAY
            and self.seat is not None
            and not self.mode.held
            and not self.blind
            and self.arbiter() == self.seat
        )

    def may_act(self) -> bool:
        return (
            self.phase is Phase.PLAY
            and self.seat is not None
            and not self.mode.held
            and self.seat in self.cycle.engine.may_act()
        )

    def receive(self, frame: bytes, now: float) -> list[TableEvent]:
        self.now = now
        self._check_pending()
        self._receive(frame)
        self.votes.check_timeouts()
        self._try_undo()
        return self.take_events()

    def tick(self, now: float) -> list[TableEvent]:
        self.now = now
        self._check_pending()
        if self.over:
            self.segment_end.timeouts()  # the end of a segment: is the next host silent?
            self.votes.check_certificates()  # the game's last result came late? (§5)
        else:
            self.votes.check_timeouts()
        self._try_undo()
        return self.take_events()

    def act(self, action: Action, now: float) -> list[TableEvent]:
        """Send a rules action of this seat. Raises LocalProtocolError (nothing sent) if the
        rules or the protocol do not allow it now."""
        self.now = now
        self._check_pending()
        if self.seat is None or action.seat != self.seat:
            raise LocalProtocolError("a peer can only act for its own seat")
        if self.mode.held:
            raise LocalProtocolError("back after a restart: waiting to hear from the peers")
        if self.blind:
            raise LocalProtocolError(f"cannot play this hand: {self.cycle.hand.lost_share}")
        if self.phase is not Phase.PLAY:
            raise LocalProtocolError(f"no moves now: the table is in the {self.phase} phase")
        try:
            self.cycle.engine.verify(action)
        except IllegalAction as exc:
            raise LocalProtocolError(str(exc)) from None
        if self.arbiter() == self.seat:
            body = self.elements.moves.action_body(action)
            self._write("action", body)
        elif self.seat in self.cycle.engine.may_act():
            message = self._sign("request", {"action": action.to_wire()})
            self._outbox.append(message.frame)
        else:
            raise LocalProtocolError("it is not your turn")
        return self.take_events()

    def want_change(self, change: str) -> None:
        """Ask for a seat change (``stand``, ``sit-out`` or ``reseat``) in the next result this
        seat signs: the table's segment ends after that hand (spec/protocol.md §9)."""
        if change not in SEAT_CHANGES:
            raise LocalProtocolError(f"no seat change {change!r}: one of {', '.join(SEAT_CHANGES)}")
        if not self.cycle.engine.seat_changes:
            raise LocalProtocolError(
                f"{self.config.game.game} keeps its seats for the whole game: no {change}"
            )
        if self.seat is None or self.over:
            raise LocalProtocolError(f"no {change} now: the table is over or we have no seat")
        self._change_wanted = change

    @property
    def change_wanted(self) -> str | None:
        return self._change_wanted

    def chat(self, text: str, now: float) -> None:
        """Send a signed line of table chat to every peer (a side message, not recorded)."""
        self.now = now
        if self.seat is None:
            raise LocalProtocolError("an observer cannot chat")
        line = " ".join(text.split())[:500]
        if not line:
            raise LocalProtocolError("an empty chat line")
        try:
            message = self._sign("chat", {"text": line})
        except MessageError as exc:
            raise LocalProtocolError(f"chat line refused: {exc}") from None
        self.seen.add(message.frame)
        self._outbox.append(message.frame)

    # ---------------------------------------------------------------- seat changes (§9)
    @property
    def segments(self) -> list[TableConfig]:
        """The configuration of every segment we followed, the running one last."""
        return self.line.configs

    @property
    def follow_away(self) -> bool:
        """Sitting out at a change, we follow the table as an observer rather than stop."""
        return self.line.follow_away

    @follow_away.setter
    def follow_away(self, follow: bool) -> None:
        self.line.follow_away = follow

    @property
    def left_table(self) -> bool:
        """The table went on after a seat change without us."""
        return self.line.left_table

    @property
    def chain_base(self) -> int:
        """Where our first record stands in the whole table's chain (see SegmentLine)."""
        return self.line.chain_base

    @property
    def chain_count(self) -> int:
        """How many records of the table's chain we hold, counted from its very start."""
        return self.chain_base + len(self.chain.records)

    def seat_plan(self) -> SeatPlan:
        """Who stays, sits out and stands up now that the segment ended (SegmentError if not)."""
        return SeatPlan.of(self)

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
            if self.end_may_move:
                raise SegmentError(
                    "a timeout certificate of the last hand may still complete (try again)"
                )
            config = plan.next_config(newcomers, returning)
        except (SegmentError, ConfigError) as exc:
            raise LocalProtocolError(f"no next segment: {exc}") from None
        frame = sign_next_config(self.key, self, config)
        self.seen.add(frame)
        self._outbox.append(frame)
        self._switch(config, frame)
        return config

    def _on_next_config(self, message: SignedMessage, author: int) -> None:
        """A ``next-config`` from a seat of this segment (signature already checked)."""
        if message.prev != self.chain.head or self.cycle.seat_change is None:
            if message.prev not in self.chain.history:  # early: the segment has not ended here yet
                self._keep_for_later(message)
            return
        plan = self.seat_plan()
        try:
            config = open_next_config(self, message.frame)
        except SegmentError as exc:
            blamed = author if message.author.raw == plan.host else None
            self._report(Violation(blamed, f"next configuration refused: {exc}", (message.frame,)))
            return
        self._switch(config, message.frame)

    def _switch(self, config: TableConfig, frame: bytes) -> None:
        seated = self.key is None or config.seat_of(self.key.peer_id.raw) is not None
        self.events.append(SegmentStarted(config, seated))
        change = self.cycle.seat_change
        silent = change is not None and change.silent is not None and change.silent == self.seat
        line = self.line.state()
        self.undo.keep(None)
        if not self.line.follows(config, seated=seated, sat_out_for_silence=silent):
            # We stood up: our transcript ends with the hands we were part of (the audit calls
            # it complete), this machine stays over.
            return
        if self.key is not None:
            # A seat's machine (not an auditor's) keeps the segment this switch ends, also in
            # a replay (a newcomer's, a resume): a late certificate there may still void it.
            ended = self._table_state(line)
            heads = frozenset(self.chain.hand_walk())
            self.undo.keep(EndedSegment(ended, config, self.hand, heads))
        # Seated, sitting out, or a newcomer's replay before its seat: a seat that sits out
        # follows the table as an observer (its transcript stays the whole chain) until a
        # later change seats it again.
        self.chain.add_record(frame)
        early = [f for f in self.future.frames() if f != frame]
        self._enter(config, self.now)
        for waiting in early:  # the next segment's frames that came before its configuration
            self._receive(waiting, again=True)

    @property
    def arriving(self) -> bool:
        """A newcomer's machine that follows the table until a configuration seats it (after
        a void switch, P-52, the next one may seat it again)."""
        return self.line.arriving

    @property
    def undoable_from(self) -> TableConfig | None:
        """The configuration of the segment our last switch ended, while that switch may still
        be undone by a late certificate there (P-52); else None."""
        ended = self.undo.ended
        return None if ended is None else ended.state.parts.config

    @property
    def seat_keys(self) -> frozenset[bytes]:
        """The keys whose table frames this machine takes: the running segment's seats, and
        while our last switch may still be undone (P-52) those of the segment it ended (a seat
        that stood up there may hold a vote that undoes it)."""
        keys = frozenset(s.key for s in self.config.seats)
        ended = self.undoable_from
        return keys if ended is None else keys | {s.key for s in ended.seats}

    def _table_state(self, line: LineState | None = None) -> TableState:
        """The running segment's parts, a copy of the chain and the line of segments
        (``line``: as it stood before a switch changed it)."""
        parts = SegmentParts(
            self.config,
            self.seat,
            self.votes,
            self.cycle,
            self.elements,
            self._change_wanted,
            self.future,
            self.intake,
            self.clock,
            self.rounds,
            self.segment_end,
            self.next_hand,
        )
        return TableState(parts, self.chain.state(), line or self.line.state())

    def _put_back(self, state: TableState) -> None:
        """Hold ``state``'s segment, chain and line of segments again."""
        p = state.parts
        self.config, self.seat, self.votes, self.cycle = p.config, p.seat, p.votes, p.cycle
        self.players, self.timeout = p.config.players, p.config.step_timeout_ms / 1000.0
        self.elements, self._change_wanted, self.future = p.elements, p.change_wanted, p.future
        self.intake, self.clock, self.rounds = p.intake, p.clock, p.rounds
        self.segment_end, self.next_hand = p.segment_end, p.next_hand
        self.chain.restore(state.chain)
        self.line.restore(state.line)

    def _try_undo(self) -> None:
        """Late timeout votes of the segment our last switch ended: tried there. If they
        complete a certificate it takes, the switch is void (P-52): the table is back in that
        segment with the certificate, and that segment ends again. Else all is as before."""
        if self.mode is not Mode.LIVE:
            return  # kept for when it is (a held node hears from a peer first)
        due = self.undo.to_try(self.now, self.timeout / 4)
        if due is None:
            return
        ended, late = due
        now, end = self._table_state(), ended.state.chain.head
        reported = len(self.events)
        # The node stored the records up to the switch (and perhaps past it): after an undo
        # it keeps those up to the switch and stores what the certificate adds.
        switched = len(ended.state.chain.records)
        stored = min(switched, self.chain.saved_count)
        self._put_back(ended.state)
        self.chain.unsaved_from(stored)
        for frame in late:
            self._receive(frame)
        self.votes.check_certificates()
        if self.over:
            self.segment_end.take_certificate()  # the next host silent at the boundary
        if self.chain.head == end:
            self._put_back(now)  # nothing taken: the votes wait in the ended segment's book
            return
        self.undo.keep(None)
        cuts = [e.keep for e in self.events[reported:] if isinstance(e, TranscriptCut)]
        kept = min([stored, *cuts])
        # Reported before what the certificate did: the node drops the void segment (its
        # configuration, the records from the switch on) first.
        voided = SegmentVoided(ended.next_config, ended.hand, kept)
        self.events[reported:reported] = [voided, TranscriptCut(stored)]
        # Built on the others' heads, which may be ours now.
        for frame in [*ended.after, *now.parts.future.frames()]:
            self._receive(frame, again=True)

    # ---------------------------------------------------------------- certificates, rollback
    def apply_certificate(
        self, frames: list[bytes], digest: bytes, effect: str, culprit: int, reason: str
    ) -> None:
        """Append a complete certificate (votes in seat order) and carry out its effect
        (:meth:`HandCycle.certificate_effect`)."""
        self._append(frames, digest)
        self.events.append(
            Accepted(f"{effect}-certificate", None, self.chain.seq - 1, self._reported_hash())
        )
        self.cycle.certificate_effect(effect, culprit, reason)
        self._note_head()
        self._drive()

    def seq_after(self, head: bytes) -> int:
        """The sequence number of the element that follows ``head`` (current or of this hand)."""
        return self.chain.seq_after(head)

    def can_rollback_to(self, anchor: bytes, *, across_hand: bool = False) -> bool:
        """True when ``anchor`` is an earlier head of the running hand (with ``across_hand``
        also of the hand before it, in this segment)."""
        return self.chain.can_rollback_to(anchor, across_hand=across_hand)

    def rollback_to(self, anchor: bytes) -> None:
        """Undo the hand's chain back to ``anchor`` (a fork point proven by equivocation).

        The hand is replayed from its start up to the anchor with the records we hold; the
        transcript is cut there (a :class:`TranscriptCut` event tells the node to truncate).
        Elements signed on the void branch are forgotten, so their authors may sign that step
        again without being taken for equivocators.
        """
        if anchor == self.chain.head:
            return
        if self.proofs_checked:
            # The check at the end of a game replays our own records, one chain: nothing there
            # rolls back, and it keeps no hand's start to roll back to (HandCycle).
            raise LocalProtocolError("the check at the end of a game found a fork in our records")
        before = list(self.chain.records)
        back = self.chain.hands_back(anchor)
        elements = self.chain.cut_to_hand_start(anchor)
        if back:
            self.cycle.restart_previous(back)
        else:
            self.cycle.restart_hand()
        mode, self.mode = self.mode, Mode.ROLLBACK
        reported = len(self.events)
        try:
            for frames in elements:
                # A certificate we took is carried out again as it stands in our records (no
                # clock, no vote count: the votes waiting in the book are not replayed).
                if self.votes.replay_certificate(frames):
                    continue
                for frame in frames:
                    self._receive(frame, again=True)
        finally:
            self.mode = mode
        # The replay's events were all reported when those elements first came: a node would
        # say "hand N starts" again, and a bench would count their trips twice.
        del self.events[reported:]
        assert self.chain.head == anchor, "a roll-back replays our own records up to the anchor"
        # What we hold now is a prefix of what the node stored: it cuts its file there.
        self.chain.forget_unsaved()
        self.events.append(TranscriptCut(len(self.chain.records)))
        self.next_hand.feed_due = True
        void = before[len(self.chain.records) :]
        again = {m.frame: m for m in self.next_hand.votes_again(void)}
        for frame in void:
            self.seen.discard(frame)  # the frame may come again from its author
            message = again.get(frame)
            if message is not None:
                self.votes.undo_carried_out(message)  # its vote goes back into the book
                self._receive(frame, again=True)

    # ---------------------------------------------------------------- signing and writing
    def _sign(
        self,
        kind: str,
        body: dict[str, Any],
        *,
        at: bytes | None = None,
        hand: int | None = None,
        seq: int | None = None,
    ) -> SignedMessage:
        """Sign a message at the current head, or at ``at``, an earlier head of this hand (or,
        with ``hand`` and ``seq``, a head of the next hand's prepared setup, P-53)."""
        assert self.key is not None
        prev = self.head if at is None else at
        return sign_message(
            self.key,
            table_id=self.config.table_id,
            hand=self.hand if hand is None else hand,
            seq=self.seq_after(prev) if seq is None else seq,
            prev=prev,
            seat=self.seat,
            kind=kind,
            body=body,
            registry=TABLE_REGISTRY,
        )

    def _write(self, kind: str, body: dict[str, Any]) -> None:
        """Sign a chain element of ours, accept it locally and queue it for every peer."""
        message = self._sign(kind, body)
        self.seen.add(message.frame)
        if self.seat is not None:
            self.clock.note_own(self.seat, self.head, self.now)
        # Queue it first: accepting it may trigger our next automatic element, which must follow.
        self._outbox.append(message.frame)
        self._accept(message, own=True)

    def _drive(self) -> None:
        """Take a prepared hand's frames onto the chain at its start, write every automatic
        step that is ours, admit pending requests, and prepare the next deck."""
        if self.next_hand.feed_due and not self.mode.replaying:
            self.next_hand.feed_due = False
            self._feed_prepared()
        self._drive_hand()
        self._prepare()

    def _drive_hand(self) -> None:
        while self.seat is not None and not self.over and self.mode is Mode.LIVE:
            if self.seat not in self.writers():
                return
            if self.blind and self.phase is not Phase.RESULT:
                return
            if self.phase is Phase.PLAY:
                request = self.elements.moves.admissible_request()
                if request is None:
                    return
                self._write("admit", {"request": request.frame})
                continue
            if self.check_later.pending is not None and self.phase is not Phase.SHUFFLE:
                return  # nothing but our shuffle before the check (shares reveal): check_now
            if self.check_later.stored_shuffle is not None and self._resend_stored_shuffle():
                continue
            if self.head in self.future:
                # Frames that waited for this head go first: among them may be our own frame
                # of this round, stored before a crash (its share was stored, the records that
                # closed the round before were not); signing another would be a second frame.
                self._release_future()
                continue
            self._write(*self.elements.automatic_body(self._change_wanted))

    # ---------------------------------------------------------------- the next deck (P-53)
    def _sign_prepared(
        self, number: int, seq: int, prev: bytes, kind: str, body: dict[str, Any]
    ) -> SignedMessage:
        return self._sign(kind, body, at=prev, hand=number, seq=seq)

    def _new_hand(self) -> None:
        self.votes.new_hand()
        if not self.mode.replaying:
            # The frames of this hand that came while the last one was played.
            self.next_hand.feed_due = True

    def _prepare(self) -> None:
        """Send our frames of the next hand's setup that are due (next_hand.py), never while
        a check waits (check_later.py)."""
        if self.mode is not Mode.LIVE or self.check_later.pending is not None:
            return
        for frame in self.next_hand.due(self.cycle.hand):
            self.seen.add(frame)
            self._outbox.append(frame)

    def _keep_prepared(self, message: SignedMessage, own: bool) -> None:
        self.next_hand.keep_taken(self.cycle.hand, message, own)

    def _feed_prepared(self) -> None:
        """A hand started: the frames of its setup that came while the hand before was played
        go onto its chain as they fit, reported as prepared."""
        for message in self.next_hand.start_frames(self.cycle.hand):
            self.future.add(message, (self.hand, self.seq))
        reported = len(self.events)
        self._release_future()
        for index in range(reported, len(self.events)):
            event = self.events[index]
            if isinstance(event, Accepted) and event.kind in SETUP_KINDS:
                self.events[index] = dataclasses.replace(event, prepared=True)

    # ---------------------------------------------------------------- receiving
    def _receive(self, frame: bytes, *, again: bool = False) -> None:
        if frame in self.seen and not again:
            return
        taken = self.intake.take(frame)
        if isinstance(taken, Refused):
            if taken.once:
                self.seen.add(frame)
            evidence = (taken.evidence,)
            self._violation(taken.culprit, taken.reason, evidence, taken.vote, taken.anchor)
            return
        if isinstance(taken, Kept):
            self._keep_for_later(taken.message)
            return
        if isinstance(taken, Dropped):
            message = taken.message
            if message is not None and frame not in self.seen:  # may undo our switch (P-52)
                # A certificate at the segment's last head waits for our deadline there.
                until = self.now + 2 * self.timeout
                self.undo.note(message, known_head=message.prev in self.history, retry_until=until)
            return
        self.seen.add(frame)
        if isinstance(taken, Equivocated):
            self.votes.equivocation(taken.seat, taken.earlier, taken.frame)
            return
        message, culprit = taken.message, taken.seat
        if message.kind == NEXT_CONFIG:
            self._on_next_config(message, culprit)
        elif message.kind in SIDE_KINDS:
            self.votes.side_message(message)
            if self.over:
                self.segment_end.take_certificate()
        elif self.next_hand.takes(message, self.cycle.hand):
            self._prepare()  # ours may follow it
        elif message.prev == self.head:
            self._accept(message, own=False)
            self._release_future()
        elif message.prev in self.history:
            self._stale(message, culprit)
        else:
            self._keep_for_later(message)

    def _keep_for_later(self, message: SignedMessage) -> None:
        """A frame built on a head we have not reached (yet): kept for that head."""
        dropped = self.future.add(message, (self.hand, self.seq))
        if dropped is not None:
            self.seen.discard(dropped)  # so that a later copy is taken

    def _stale(self, message: SignedMessage, culprit: int) -> None:
        """A frame built on a head we have left. Written by a seat that did not have to write
        there, it is still that seat's violation (every peer knows who wrote at each head);
        otherwise it lost its place (a late element, a void branch) and nobody is blamed."""
        writers = self.chain.writers_at(message.prev)
        if writers is not None and culprit not in writers:
            named = ", ".join(str(s) for s in sorted(writers)) or "no seat"
            self._violation(
                culprit,
                f"out of turn: seat {named} wrote next there, not seat {culprit}",
                (message.frame,),
                anchor=message.prev,
            )
            return
        self.events.append(Stale(culprit, message.kind))

    def _release_future(self) -> None:
        while self.head in self.future:
            for frame in self.future.take(self.head):
                self._receive(frame, again=True)

    def _violation(
        self,
        culprit: int | None,
        reason: str,
        evidence: tuple[bytes, ...],
        vote: bool = True,
        anchor: bytes | None = None,
    ) -> None:
        """Our own checks refused a frame: report it and, when it is signed by a seat, note the
        violation as proven and vote to abort the hand with the frame as evidence."""
        kept = evidence
        if culprit is None:
            kept = tuple(e[:MAX_ANONYMOUS_EVIDENCE] for e in evidence)
        self._report(Violation(culprit, reason, kept, {"hand": self.hand, "seq": self.seq}))
        if vote and culprit is not None:
            self.votes.vote_abort(culprit, reason, evidence, anchor=anchor)

    def _report(self, event: Violation) -> None:
        self.violations.append(event)
        if len(self.violations) > MAX_VIOLATIONS:
            del self.violations[: len(self.violations) - MAX_VIOLATIONS]
        self.events.append(event)

    # ---------------------------------------------------------------- accepting chain elements
    def _accept(self, message: SignedMessage, *, own: bool) -> None:
        if self.cycle.hand.round is not None and self.cycle.hand.round.parallel:
            self.rounds.accept(message, own=own, mode=self.mode, now=self.now)
            return
        seat = message.seat
        assert seat is not None
        try:
            self.rounds.check_step(message, seat)
            if self.arbiter() != seat:
                raise RemoteProtocolError(
                    f"out of turn: seat {self.arbiter()} writes next, not seat {seat}", seat
                )
            self.elements.apply(message, seat, own, self.mode)
        except RemoteProtocolError as exc:
            self._refuse(message, seat, exc.reason, own)
            return
        except (CryptoError, IllegalAction, ValueError) as exc:
            self._refuse(message, seat, f"{message.kind}: {exc}", own)
            return
        if not own and not self.mode.replaying:
            self.clock.note_arrival(seat, self.head, self.now)
        if seat == self.seat:
            self.cycle.hand.wrote_in_hand = True
        self._keep_prepared(message, own)
        self._append([message.frame], message.digest)
        if own and message.kind == "shuffle":
            secret = self.check_later.own_shuffle_secret(self.cycle.hand)
            if secret is not None:
                self.keys.keep_with_round_frame(secret, message.frame)
        elif not own:
            self.check_later.note_appended(message, self.cycle.hand.deck, self.chain)
        self.events.append(Accepted(message.kind, seat, message.seq, self._reported_hash()))
        self.cycle.advance()
        self._note_head()
        self._drive()

    def _refuse(self, message: SignedMessage, seat: int, reason: str, own: bool) -> None:
        if own:
            # Our own element failed our own checks: never let it leave.
            if message.frame in self._outbox:
                self._outbox.remove(message.frame)
            raise LocalProtocolError(f"refused before sending: {reason}")
        self._violation(seat, reason, (message.frame,))

    def _append(self, frames: Sequence[bytes], digest: bytes) -> None:
        """Add one chain element (a message, or a certificate's votes) and move the head."""
        self.chain.append(frames, digest)
        self.clock.head_reached(self.now)
        self.cycle.hand.requests = [r for r in self.cycle.hand.requests if r.prev == self.head]
