"""Seat changes between hands: how one segment of a table leads to the next (spec/protocol.md §9).

In the hand-by-hand games a seat asks for a change in its signed hand result (``stand``,
``sit-out`` or ``reseat``), or the hand ends for a seat's silence; after that hand the segment is
over (:class:`~dealerless.protocol.table.events.SeatsChanging`). Everything that follows from the
chain alone is fixed here, so no host can bend it:

* who stays (every seat that asked nothing or asked to re-form, in seat order), who sits out
  (asked to, or was silent: silence is not cheating, the seat keeps its chips), who stands up
  (asked to, taking its ledger; in a tournament also a seat already out of chips);
* every ledger, the table's ledger and the hand count, exactly as the segment ended.

The next host (the first seat that stays) may add only seats coming back from sitting out and
newcomers with a buy-in the rules allow, and only if a seat asked to re-form or too few seats
stay for the game. It signs the next
configuration in a ``next-config`` message at the segment's last head; every seat that stays,
and the auditor, re-derives the plan and refuses any other configuration, naming the field.

    plan = SeatPlan.of(machine)                       # after SeatsChanging
    config = plan.next_config(newcomers, returning)   # the next host
    frame = sign_next_config(key, machine, config)
    config = open_next_config(machine, frame)         # every other seat, and the audit
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from dealerless.protocol.messages import (
    IdentityKey,
    MessageError,
    decode_message,
    sign_message,
)
from dealerless.protocol.rules.base import ConfigError, Engine
from dealerless.protocol.rules.registry import game_spec, make_config
from dealerless.protocol.table.carry import Carry, Departed, Ledger, ledger_of
from dealerless.protocol.table.config import SeatInfo, TableConfig
from dealerless.protocol.table.events import SeatsChanging
from dealerless.protocol.table.kinds import NEXT_CONFIG, TABLE_REGISTRY


class EndedSegment(Protocol):
    """What the plan reads of a table machine whose segment ended (no import of the machine:
    the machine imports this module)."""

    @property
    def seat_change(self) -> SeatsChanging | None: ...
    @property
    def over(self) -> bool: ...
    @property
    def engine(self) -> Engine: ...
    @property
    def config(self) -> TableConfig: ...
    @property
    def head(self) -> bytes: ...
    @property
    def hand(self) -> int: ...
    @property
    def seq(self) -> int: ...
    @property
    def chain_count(self) -> int: ...
    @property
    def boundary_silent(self) -> tuple[int, ...]: ...


class SegmentError(Exception):
    """A next configuration that does not follow from the segment that ended (says why)."""


@dataclass(frozen=True)
class Newcomer:
    seat: SeatInfo
    buy_in: int


@dataclass(frozen=True)
class SeatPlan:
    """What the end of a segment fixes for the next one (see the module docstring)."""

    config: TableConfig  # the segment that ended
    head: bytes  # its last head
    hands: int  # hands played so far
    records: int  # where the next segment's first record stands in the table's chain
    stays: tuple[int, ...]  # its seats that play on, in seat order
    away: tuple[Departed, ...]  # sitting out: those still away from before, then the new ones
    left: tuple[Departed, ...]  # standing up at this change, with their ledgers
    ledgers: tuple[Ledger, ...]  # every seat's ledger as the segment ended
    table: Ledger
    reseat: bool  # a seat asked to re-form the table, or too few stay: seats may be added
    engine: Engine

    @staticmethod
    def of(machine: EndedSegment) -> SeatPlan:
        change = machine.seat_change
        if change is None or not machine.over:
            raise SegmentError("this segment has not ended for a seat change")
        engine, config = machine.engine, machine.config
        asked = dict(change.changes)
        in_game = set(engine.in_game())
        stays: list[int] = []
        away_now: list[Departed] = []
        left: list[Departed] = []
        ledgers = tuple(ledger_of(engine.seat_ledger(s)) for s in range(config.players))
        for number, seat in enumerate(config.seats):
            gone = Departed(seat.name, seat.key, ledgers[number])
            silent = number == change.silent or number in machine.boundary_silent
            wish = "sit-out" if silent else asked.get(number)
            if wish == "stand" or number not in in_game:
                left.append(gone)
            elif wish == "sit-out":
                away_now.append(gone)
            else:
                stays.append(number)
        before = config.carry.away if config.carry is not None else ()
        return SeatPlan(
            config,
            machine.head,
            machine.hand,
            machine.chain_count + 1,  # after our records, the next-config itself
            tuple(stays),
            (*before, *away_now),
            tuple(left),
            ledgers,
            ledger_of(engine.table_ledger()),
            # Seats may be added when a seat asked to re-form the table, or when too few stay
            # for the game (a newcomer whose hello came too late for the last result would
            # otherwise end the table).
            "reseat" in asked.values() or len(stays) < game_spec(config.game.game).min_players,
            engine,
        )

    @property
    def host(self) -> bytes | None:
        """The key of the next host: the first seat that stays (None: nobody stays)."""
        return self.config.seats[self.stays[0]].key if self.stays else None

    @property
    def segment(self) -> int:
        return 1 if self.config.carry is None else self.config.carry.segment + 1

    def next_config(
        self, newcomers: Sequence[Newcomer] = (), returning: Sequence[bytes] = ()
    ) -> TableConfig:
        """The next segment's configuration: the seats that stay, then those coming back (in
        the order given), then the newcomers. ConfigError/SegmentError say what is not allowed."""
        if (newcomers or returning) and not self.reseat:
            raise SegmentError("seats are added only when a seat asked to re-form the table")
        away = {d.key: d for d in self.away}
        seats = [self.config.seats[s] for s in self.stays]
        ledgers = [self.ledgers[s] for s in self.stays]
        for key in returning:
            if key not in away:
                raise SegmentError(f"{key.hex()[:16]} is not sitting out at this table")
            seats.append(SeatInfo(away[key].name, key))
            ledgers.append(away.pop(key).ledger)
        known = {s.key for s in self.config.seats} | {d.key for d in (*self.away, *self.left)}
        for newcomer in newcomers:
            if newcomer.seat.key in known:
                raise SegmentError(f"{newcomer.seat.name!r} has been at this table: not new")
            seats.append(newcomer.seat)
            ledgers.append(ledger_of(self.engine.newcomer_ledger(newcomer.buy_in)))
        if not seats:
            raise SegmentError("nobody stays at the table")
        old = self.config
        game = make_config(old.game.game, len(seats), dict(old.game.options))
        carry = Carry(
            self.head,
            self.segment,
            self.hands,
            self.records,
            tuple(ledgers),
            self.table,
            tuple(away.values()),
            self.left,
        )
        return TableConfig(
            old.table_id, game, tuple(seats), old.step_timeout_ms, old.version, carry
        )

    def check(self, config: TableConfig) -> None:
        """Refuse (SegmentError, naming what differs) any configuration but the one that follows
        from this plan with the seats the next host may add."""
        old, carry = self.config, config.carry
        if config.table_id != old.table_id:
            raise SegmentError("the next configuration is for another table")
        if config.game.game != old.game.game or dict(config.game.options) != dict(old.game.options):
            raise SegmentError("the next configuration changes the game or its house rules")
        if config.step_timeout_ms != old.step_timeout_ms:
            raise SegmentError("the next configuration changes the step timeout")
        if carry is None:
            raise SegmentError("the next configuration carries nothing over (no carry)")
        n = len(self.stays)
        if tuple(config.seats[:n]) != tuple(old.seats[s] for s in self.stays):
            raise SegmentError("the next configuration does not seat, first and in order, "
                               "every seat that stays")  # fmt: skip
        away = {d.key: d for d in self.away}
        returning: list[bytes] = []
        newcomers: list[Newcomer] = []
        for seat, ledger in zip(config.seats[n:], carry.ledgers[n:], strict=True):
            if seat.key in away:
                returning.append(seat.key)
            else:
                newcomers.append(Newcomer(seat, self._buy_in(seat, ledger)))
        try:
            expected = self.next_config(newcomers, returning)
        except ConfigError as exc:
            raise SegmentError(f"the next configuration is not allowed: {exc}") from None
        mine = expected.carry
        assert mine is not None
        for name in ("previous", "segment", "hands", "records", "ledgers", "table", "away", "left"):
            if getattr(carry, name) != getattr(mine, name):
                raise SegmentError(f"carry.{name} does not follow from the segment that ended")
        if config.to_wire() != expected.to_wire():
            raise SegmentError("the next configuration does not follow from the segment")

    def _buy_in(self, seat: SeatInfo, ledger: Ledger) -> int:
        """A newcomer's buy-in: the value whose newcomer ledger is exactly ``ledger``."""
        errors: list[str] = []
        for value in sorted({0, *(v for _, v in ledger)}):
            try:
                if ledger_of(self.engine.newcomer_ledger(value)) == ledger:
                    return value
            except ConfigError as exc:
                errors.append(str(exc))
        why = errors[-1] if errors else "its ledger is not what a new seat sits down with"
        raise SegmentError(f"newcomer {seat.name!r}: {why}")


def sign_next_config(key: IdentityKey, machine: EndedSegment, config: TableConfig) -> bytes:
    """The next host's signed ``next-config`` at the segment's last head."""
    seat = machine.config.seat_of(key.peer_id.raw)
    return sign_message(
        key,
        table_id=machine.config.table_id,
        hand=machine.hand,
        seq=machine.seq,
        prev=machine.head,
        seat=seat,
        kind=NEXT_CONFIG,
        body={"config": config.to_wire()},
        registry=TABLE_REGISTRY,
    ).frame


def open_next_config(machine: EndedSegment, frame: bytes) -> TableConfig:
    """Check a ``next-config`` against the segment that ended; its configuration, or
    SegmentError saying what is wrong."""
    plan = SeatPlan.of(machine)
    try:
        message = decode_message(frame, registry=TABLE_REGISTRY)
    except MessageError as exc:
        raise SegmentError(f"the next configuration does not decode: {exc}") from None
    if message.kind != NEXT_CONFIG:
        raise SegmentError(f"a {message.kind} where the next configuration belongs")
    if message.table_id != machine.config.table_id or message.prev != machine.head:
        raise SegmentError("the next configuration is not signed at this segment's last head")
    if message.author.raw != plan.host:
        raise SegmentError("the next configuration is not signed by the next host")
    if message.hand != machine.hand or message.seq != machine.seq:
        raise SegmentError("the next configuration names the wrong hand or sequence number")
    if message.seat != machine.config.seat_of(message.author.raw):
        raise SegmentError("the next configuration claims another seat")
    try:
        config = TableConfig.from_wire(message.body["config"])
    except ConfigError as exc:
        raise SegmentError(f"the next configuration is not valid: {exc}") from None
    plan.check(config)
    return config
