"""What a seat's node tells its player (``say``) and its log (``emit``) about the table's
events: hands, seat changes, time-outs, refused messages, the end of the game. A part of
:class:`~dealerless.node.seat.SeatNode`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from dealerless.node.catch_up import CatchUp
from dealerless.node.notices import Notice, Who, notice
from dealerless.node.seat_changes import SeatChanges
from dealerless.node.seat_end import SeatEnd
from dealerless.protocol.rules.base import ActionKind, Outcome
from dealerless.protocol.table import TableConfig, TableMachine
from dealerless.protocol.table.events import (
    Accepted,
    ActionApplied,
    CardsDealt,
    GameOver,
    HandEnded,
    HandStarted,
    SeatsChanging,
    SeatSilent,
    SegmentStarted,
    SegmentVoided,
    ShareMissing,
    TableEvent,
    TimeoutVoted,
    Violation,
)


class ReportNode(Protocol):
    """What the reports use of their node."""

    say: Callable[[Notice], None]

    @property
    def machine(self) -> TableMachine | None: ...

    @property
    def seating(self) -> TableConfig | None: ...

    def now(self) -> float: ...

    def name_of(self, seat: int | None) -> Who: ...

    def emit(self, **fields: Any) -> None: ...

    def queue_signed(
        self, payload: dict[str, Any], to: bytes | None = None, *, keep: bool = False
    ) -> None: ...


class SeatReports:
    """It owns what was said already: the seats of the segment that ended, the end of the
    game, the last slow seat we named."""

    def __init__(
        self,
        node: ReportNode,
        catch_up: CatchUp,
        changes: SeatChanges,
        ending: SeatEnd,
        *,
        store_dir: Path,
        is_host: bool,
    ) -> None:
        self.node, self.catch_up, self.changes, self.ending = node, catch_up, changes, ending
        self.store_dir, self.is_host = store_dir, is_host
        self.ended_names: tuple[str, ...] = ()  # the seats of the segment that ended last
        self.game_over_said = False
        self.slow_said: tuple[bytes, int] | None = None

    def segment_ended(self, config: TableConfig) -> None:
        """A segment of ``config`` ended for a seat change (its events name its seats)."""
        self.ended_names = tuple(s.name for s in config.seats)

    def report(self, event: TableEvent) -> None:
        machine = self.node.machine
        assert machine is not None
        say, emit, name_of = self.node.say, self.node.emit, self.node.name_of
        if isinstance(event, HandStarted):
            say(notice("hand_starts", hand=event.hand, dealer=name_of(event.dealer)))
            emit(ev="hand", hand=event.hand)
            self.changes.wish_at_hand(event.hand)
        elif isinstance(event, SeatsChanging):
            # Named by the seats of the segment that ended (the next one may have started).
            seated = self.ended_names

            def ended(seat: int) -> str:
                return f"seat {seat} ({seated[seat]})" if 0 <= seat < len(seated) else "?"

            asked = ", ".join(f"{ended(s)}: {c}" for s, c in event.changes)
            silent = "" if event.silent is None else f"; {ended(event.silent)} was silent"
            say(
                notice(
                    "seats_change", hand=event.hand, asked=asked or "nobody asked", silent=silent
                )
            )
            emit(ev="change", hand=event.hand)
        elif isinstance(event, SegmentVoided):
            say(notice("segment_voided", hand=event.hand))
            emit(ev="voided", hand=event.hand)
        elif isinstance(event, SegmentStarted):
            config = event.config
            assert isinstance(config, TableConfig)
            names = tuple(s.name for s in config.seats)
            if event.seated:
                self.changes.segment_started(seated=True)
                say(notice("goes_on", seats=config.players, names=names))
            elif machine.sitting_out:
                self.changes.segment_started(seated=False)
                say(notice("sit_out_following", names=names))
            else:
                say(notice("goes_on_without_us", names=names))
        elif isinstance(event, CardsDealt):
            emit(ev="dealt", hand=machine.hand)
        elif isinstance(event, HandEnded):
            how = "aborted" if event.aborted else "ended"
            say(
                notice(
                    "hand_ended", hand=event.result.hand_number, how=how, reason=event.result.reason
                )
            )
        elif isinstance(event, ShareMissing):
            say(
                notice(
                    "share_missing",
                    hand=event.hand,
                    store=str(self.store_dir.parent.parent),
                    reason=event.reason,
                )
            )
        elif isinstance(event, SeatSilent):
            say(notice("timed_out", who=name_of(event.seat), phase=event.phase, hand=event.hand))
        elif isinstance(event, TimeoutVoted):
            say(notice("vote", who=name_of(event.silent)))
        elif isinstance(event, Violation):
            if event.culprit is None:
                say(notice("damaged", reason=event.reason))
                self.catch_up.ask_soon()  # ask the peers for the real one at the next tick
            else:
                say(notice("refused_from", who=name_of(event.culprit), reason=event.reason))
                self.ending.caught(event)  # kept to the end, whatever junk follows
        elif isinstance(event, GameOver) and not self.game_over_said:
            self.game_over_said = True  # again after a late last result's certificate: same end
            outcome = event.outcome
            winners, scores = self._game_over_words(outcome)
            say(notice("game_over", reason=outcome.reason, winners=winners, scores=scores))
            if self.is_host:
                # Stored by Nostr relays: whoever joins with the invite later hears that the
                # table is finished instead of waiting for a host that is gone (spec/node.md §3).
                self.node.queue_signed({"t": "closed", "hands": machine.hand}, keep=True)
        elif isinstance(event, Accepted):
            fields = {"prepared": True} if event.prepared else {}
            emit(ev="acc", kind=event.kind, seat=event.seat, seq=event.seq, **fields)
        elif isinstance(event, ActionApplied):
            action = event.action
            if action.kind is ActionKind.PLAY and action.card is not None:
                emit(ev="seen", hand=machine.hand, seat=action.seat, card=action.card.index)

    def _game_over_words(self, outcome: Outcome) -> tuple[str, str]:
        """Who won and every seat's final score, in words (``host --plain`` prints the line,
        so never a Python repr)."""
        seating = self.node.seating
        seats = seating.seats if seating is not None else ()
        winners = " and ".join(str(self.node.name_of(w)) for w in outcome.winners) or "nobody"
        scores = ", ".join(
            f"{seats[i].name if i < len(seats) else f'seat {i}'} {score}"
            for i, score in enumerate(outcome.standings)
        )
        return winners, scores

    def report_slow(self, machine: TableMachine) -> None:
        """Name the seat we wait for once it is slow (once per step)."""
        arbiter = machine.arbiter()
        if arbiter is None or arbiter == machine.seat:
            return
        waited = self.node.now() - machine.step_since
        marker = (machine.head, arbiter)
        if waited >= max(5.0, machine.timeout / 2) and self.slow_said != marker:
            self.slow_said = marker
            self.node.say(notice("waiting", who=self.node.name_of(arbiter), seconds=waited))
