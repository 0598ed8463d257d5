"""One seat's node: drives the table state machine over a link to the hub.

Lifecycle: connect (retrying), the join handshake (hello -> lobby -> signed configuration), the
game (frames in and out, persisted before anything is acted on), catch-up after a reconnect or
a restart (``have``/``recs``), the step timeout (``tick``), and a short linger at the end so
that every peer has every record. See spec/node.md. The node is built of parts that each own
their state and know only the node's narrow interface (a Protocol) and the parts below them:
the catch-up (:mod:`catch_up`), the join handshake (:mod:`join_handshake`), the seat changes
(:mod:`seat_changes`), the direct links (:mod:`seat_direct`), the dispatch of what the hub
delivers (:mod:`seat_messages`), the end (:mod:`seat_end`) and the reports of the table's
events (:mod:`seat_report`).
"""

from __future__ import annotations

import collections
import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from dealerless.node.arrival import Offer
from dealerless.node.catch_up import CatchUp
from dealerless.node.drivers import Driver
from dealerless.node.identity import Identity, PeerId
from dealerless.node.join_handshake import JoinHandshake, config_signature_ok
from dealerless.node.links import FatalLinkError, Link, LinkError
from dealerless.node.mesh import Mesh
from dealerless.node.notices import Notice, Who, notice, print_say
from dealerless.node.options import NodeOptions
from dealerless.node.seat_changes import SeatChanges, away_keys
from dealerless.node.seat_direct import DirectLinks
from dealerless.node.seat_end import SeatEnd
from dealerless.node.seat_messages import SeatMessages
from dealerless.node.seat_report import SeatReports
from dealerless.node.store import TableMeta, TableStore
from dealerless.node.ways import MultiLink
from dealerless.node.wire import encode, seal
from dealerless.protocol.rules.base import ActionKind, GameConfig
from dealerless.protocol.table import TableConfig, TableMachine
from dealerless.protocol.table.events import (
    HandSigned,
    LocalProtocolError,
    SeatsChanging,
    SeatSilent,
    SegmentVoided,
    TableEvent,
    TranscriptCut,
)
from dealerless.protocol.transcript import TranscriptError

__all__ = ["Driver", "NodeOptions", "SeatNode", "config_signature_ok"]

Connector = Callable[[], Awaitable[tuple[Link, dict[str, Any]]]]
Say = Callable[[Notice], None]
_EVENTS = logging.getLogger("dealerless.node.events")  # every emit(), at DEBUG
MAX_OWN_QUEUED = 100_000  # own messages waiting for the link: past this the node fails loudly
RECS_QUEUED_BYTES = 16 << 20  # records for others waiting for the link: past this, not queued
CHECK_AFTER_SEND = 0.002  # s: the sender and the transport run first (a few scheduler passes)


class SeatNode:
    changes: SeatChanges  # made after the catch-up, which asks it through two callables

    def __init__(
        self,
        identity: Identity,
        store: TableStore,
        meta: TableMeta,
        connector: Connector,
        driver: Driver | None,
        *,
        game: GameConfig | None = None,
        say: Say = print_say,
        log: Callable[[dict[str, Any]], None] | None = None,
        options: NodeOptions | None = None,
        mesh: Mesh | None = None,
    ) -> None:
        self.identity, self.store, self.meta = identity, store, meta
        self.key = identity.public_key
        self.host_key = bytes.fromhex(meta.host_key)
        self.is_host = meta.role == "host"
        self.connector, self.driver = connector, driver
        self.say, self.log = say, log
        self.opt = options or NodeOptions()
        self.config: TableConfig | None = None
        self.config_sig = b""
        self.machine: TableMachine | None = None
        self.link: Link | None = None
        # The parts, each owning its state (lower ones first: a part knows only those before it).
        self.catch_up = CatchUp(
            self,
            self.opt,
            waits_for_seat=lambda key: key in self.changes.waiting,
            coming_back=lambda: self.changes.coming_back,
        )
        self.handshake = JoinHandshake(
            self, self.catch_up, identity=identity, meta=meta, table_id=store.table_id,
            opt=self.opt, driver=driver, game=game,
        )  # fmt: skip
        self.changes = SeatChanges(
            self, self.handshake, self.catch_up, key=self.key, sign=identity.sign,
            is_host=self.is_host, opt=self.opt,
        )  # fmt: skip
        self.direct = DirectLinks(
            self, mesh, identity=identity, table_id=store.table_id, opt=self.opt, say=say
        )
        self.messages = SeatMessages(
            self, self.handshake, self.catch_up, self.changes, self.direct, key=self.key,
            table_id=store.table_id, is_host=self.is_host,
        )  # fmt: skip
        self.ending = SeatEnd(self, self.catch_up, store=store, meta=meta, linger=self.opt.linger)
        self.reports = SeatReports(
            self, self.catch_up, self.changes, self.ending, store_dir=store.dir,
            is_host=self.is_host,
        )  # fmt: skip
        # Never dropped from: our own frames and messages; records for others are bounded.
        self.outbox: collections.deque[tuple[dict[str, Any], int]] = collections.deque()
        self.outbox_bytes = 0
        self.wake = trio.Event()
        self.done = False
        self.acting = False
        self.sent_bytes = 0
        self.exit_code = 1
        self.nursery: trio.Nursery | None = None
        loaded = store.load_config()
        if loaded is not None:
            self.config, self.config_sig = loaded

    # ---------------------------------------------------------------- helpers
    @property
    def seating(self) -> TableConfig | None:
        """The running segment's configuration (seats change between hands), else ours."""
        return self.machine.config if self.machine is not None else self.config

    def name_of(self, seat: int | None) -> Who:
        config = self.seating
        if seat is None or config is None or not 0 <= seat < len(config.seats):
            return Who()
        return Who(seat=seat, name=config.seats[seat].name)

    def seat_of_key(self, key: bytes) -> int | None:
        config = self.seating
        return None if config is None else config.seat_of(key)

    def now(self) -> float:
        return trio.current_time()

    def seat_keys(self) -> frozenset[bytes]:
        """The keys whose table frames we take (TableMachine.seat_keys once it runs)."""
        if self.machine is not None:
            return self.machine.seat_keys
        config = self.config
        return frozenset() if config is None else frozenset(s.key for s in config.seats)

    def _audience(self) -> frozenset[bytes]:
        """Whom a message to every member is for: the seats, the seats away that follow the
        table, the newcomers waiting to sit down (never ourselves)."""
        return (self.seat_keys() | self.away_keys() | frozenset(self.changes.waiting)) - {self.key}

    def away_keys(self) -> frozenset[bytes]:
        """The keys sitting out at the running segment: they follow the table."""
        return away_keys(self.machine)

    def hosting(self) -> bool:
        """Do we admit joiners (node/seat_changes.py)?"""
        return self.changes.hosting()

    def wants(self, key: bytes) -> bool:
        """Must we be able to hear ``key`` (node/seat_changes.py)?"""
        return self.changes.wants(key)

    def who(self, key: bytes) -> Who:
        seat = self.seat_of_key(key)
        if seat is not None:
            return self.name_of(seat)
        name = self.handshake.lobby_name(key)
        if name is not None:
            return Who(name=name)
        try:
            return Who(fingerprint=PeerId(key).fingerprint[:9])
        except ValueError:
            return Who(invalid=True)

    def admit(self) -> None:
        """Host: tell the hub which keys may hear the table (node/seat_changes.py)."""
        self.queue_hub({"t": "admit", "keys": self.changes.admitted()})

    def adopt_config(self, config: TableConfig, signature: bytes) -> None:
        """The table's (first) configuration, signed by its host: stored, and ours."""
        self.store.save_config(config, signature)
        self.config, self.config_sig = config, signature

    def queue_hub(self, message: dict[str, Any], size: int = 0) -> None:
        if len(self.outbox) >= MAX_OWN_QUEUED:
            # Never drop our own messages silently: a link this stuck is a failure to report.
            self._stop(notice("outbox_full", n=len(self.outbox)))
            return
        self.outbox.append((message, size))
        self.outbox_bytes += size
        self.wake.set()

    def queue(
        self,
        payload: dict[str, Any],
        to: bytes | None = None,
        *,
        keep: bool = False,
        ahead: bool = False,
    ) -> None:
        """``keep``: for readers to come (stored by Nostr relays), never only direct links.
        ``ahead``: a frame of the next hand's prepared setup (a paced relay sends the running
        hand's frames first)."""
        message: dict[str, Any] = {"t": "send", "data": encode(payload)}
        if to is not None:
            message["to"] = to
        if keep:
            message["keep"] = True
        if ahead:
            message["ahead"] = True
        self.queue_hub(message)
        if payload["t"] != "sig":
            self.emit(ev="out", t=payload["t"])

    def queue_signed(
        self, payload: dict[str, Any], to: bytes | None = None, *, keep: bool = False
    ) -> None:
        self.queue(seal(self.identity, self.store.table_id, payload), to, keep=keep)
        self.emit(ev="out", t=payload["t"])

    def queue_records(self, payload: dict[str, Any], to: bytes, size: int) -> bool:
        """Records for another seat, unless too many already wait (it will ask again)."""
        if self.outbox_bytes + size > RECS_QUEUED_BYTES:
            return False
        self.queue_hub({"t": "send", "data": encode(payload), "to": to}, size)
        self.emit(ev="out", t="recs")
        return True

    def give_up(self, reason: Notice) -> None:
        """Stop with exit code 1, saying ``reason`` (from outside: the ways in)."""
        self._stop(reason)

    def _stop(self, reason: Notice) -> None:
        self.say(reason)
        self.exit_code = 1
        self.done = True
        self.wake.set()
        if self.nursery is not None:
            self.nursery.cancel_scope.cancel()

    def emit(self, **fields: Any) -> None:
        _EVENTS.debug("%s", fields)
        if self.log is not None:
            self.log(fields)

    # ---------------------------------------------------------------- main loop
    async def run(self) -> int:
        async with trio.open_nursery() as nursery:
            self.nursery = nursery
            nursery.start_soon(self._ticker)
            if self.config is not None:
                # The wait for the peers' records starts when the first link is up; a table
                # that finished here resumes at once (its signed results end the chain: no
                # peer can add to it), lingers for the peers that may lack its last records,
                # and exits, also when no peer is left to answer.
                wait = -math.inf if self.meta.finished else math.inf
                try:
                    carry = self.config.carry  # a newcomer's records start later in the chain
                    base = 0 if carry is None else carry.records
                    self.catch_up.start_resync(wait, base + self.store.stored_count())
                except (TranscriptError, OSError) as exc:
                    self._cannot_resume(exc)
            backoff = 0.2
            while not self.done:
                try:
                    link, joined = await self.connector()
                except FatalLinkError as exc:
                    self.say(exc.notice)
                    self.exit_code = 1
                    break
                except LinkError as exc:
                    self.say(notice("retrying", error=str(exc), seconds=backoff))
                    await trio.sleep(backoff)
                    backoff = min(backoff * 2, self.opt.reconnect_cap)
                    continue
                backoff = 0.2
                try:
                    await self._session(link, joined)
                except LinkError as exc:
                    if self.machine is not None and self.machine.over:
                        # The hub went away after the end. While a peer may still lack our last
                        # records (the host died before it stored them) we keep reconnecting
                        # until the linger ends, or it would settle that step without us.
                        self._linger(self.now())
                        if not self.done:
                            self.say(notice("link_lost_after_end", error=str(exc)))
                    elif not self.done:
                        self.say(notice("link_lost", error=str(exc)))
                finally:
                    self.link = None
                    self.sent_bytes += link.sent_bytes
                    link.sent_bytes = 0
                    with trio.CancelScope(shield=True), trio.move_on_after(2):
                        await link.aclose()
            nursery.cancel_scope.cancel()
        self.store.close()
        return self.exit_code

    async def _session(self, link: Link, joined: dict[str, Any]) -> None:
        self.link = link
        if isinstance(link, MultiLink):
            link.audience = self._audience  # a message for all of them may skip the relays
        self.host_key = bytes.fromhex(self.meta.host_key)  # a joiner's connector checked it
        self.messages.connected(joined)
        self.say(notice("connected", peers=len(self.messages.peers_up)))
        failures: list[LinkError] = []
        async with trio.open_nursery() as nursery:

            async def sender() -> None:
                try:
                    while True:
                        while self.outbox:
                            message, size = self.outbox.popleft()
                            self.outbox_bytes -= size
                            await link.send(message)
                        self.wake = trio.Event()
                        await self.wake.wait()
                except LinkError as exc:
                    failures.append(exc)
                    nursery.cancel_scope.cancel()

            nursery.start_soon(sender)
            resync = self.catch_up.resync
            if self.is_host:
                self.admit()
            if self.machine is not None:
                self.catch_up.announce()
            elif self.config is not None and resync is not None:
                self.catch_up.resync_by(self.now() + self.opt.sync_wait)
                self.catch_up.have(resync.stored, True)
            elif not self.is_host:
                self.handshake.hello(self.messages.peers_up)
            try:
                while not self.done:
                    message = await link.receive()
                    self.messages.on_hub(message)
                    if self.machine is not None and self.machine.unchecked:
                        await self._check_after_sending()
            except LinkError as exc:
                failures.append(exc)
            nursery.cancel_scope.cancel()
        if failures:
            raise failures[0]

    async def _check_after_sending(self) -> None:
        """We shuffled on a peer's shuffle whose proof is not checked yet (protocol/table/
        check_later.py): let the sender put our frame on the wire, then check it."""
        await trio.sleep(CHECK_AFTER_SEND)
        machine = self.machine
        if machine is not None and machine.unchecked:
            self.after(machine.check_now(self.now()))

    async def _ticker(self) -> None:
        while not self.done:
            await trio.sleep(self.opt.tick)
            self.tick(self.now())

    def tick(self, now: float) -> None:
        """One beat of the node's clock (every ``opt.tick`` seconds): time-outs, asks, and
        whether our part of the table is over."""
        machine = self.machine
        if machine is None:
            if self.catch_up.resync is not None and self.config is not None:
                self._maybe_resume()
            elif self.link is not None and not self.is_host and self.config is None:
                self.handshake.tick(now, self.messages.admitted, self.messages.peers_up)
            return
        self.direct.tick(self.seat_keys(), now)
        if not machine.over:
            self.after(machine.tick(now))
            self.reports.report_slow(machine)
        elif not machine.left_table:
            # The next host may be silent (a certificate), or the game's last result came
            # late and the others' certificate wins over it (protocol.md §5).
            self.after(machine.tick(now))
            self.after(self.changes.host_when_settled(machine))
        self.catch_up.pace(machine, now, linked=self.link is not None)
        self.changes.ask_back(now)
        self.messages.say_bye(machine, leaving=getattr(self.driver, "leaving", False))
        if machine.over and not self.changes.segment_pending(machine, now):
            self._linger(now)
        elif machine.sitting_out and not self.changes.follows_away():
            self._linger(now)  # sitting out for good: our part of the table is over
        elif self.ending.until is not None or self.changes.away_quiet(
            machine, now, self.catch_up.moved_at()
        ):
            self._linger(now)

    # ---------------------------------------------------------------- starting and resuming
    def start(self, extension: list[bytes]) -> None:
        """Create or rebuild the machine from the transcript (+ records fetched from peers)."""
        config = self.config
        assert config is not None
        records = self.store.open_transcript(config)
        key = self.identity.wire_key()
        now = self.now()
        seat = config.seat_of(self.key)
        self.say(
            notice("ready", game=config.game.game, seats=config.players, who=self.name_of(seat))
        )
        if not records and not extension:
            machine = TableMachine(config, key, now=now)
        else:
            machine = self.catch_up.resume(config, key, self.store, records, extension, now)
        self._begin(machine)

    def sit_down(self, offer: Offer, machine: TableMachine) -> None:
        """Newcomer: the chain from the table's start checked and seats us; it is our transcript
        from now on (our file audits from the table's start, and we can serve it)."""
        self.adopt_config(offer.first, offer.first_sig)
        self.store.open_transcript(offer.first)
        self.store.append(offer.records)
        seat = machine.seat or 0
        self.say(
            notice(
                "ready",
                game=machine.config.game.game,
                seats=machine.config.players,
                who=Who(seat=machine.seat, name=offer.config.seats[seat].name),
            )
        )
        self._begin(machine)

    def _begin(self, machine: TableMachine) -> None:
        now = self.now()
        # Sitting out later, follow the table if we may come back (or follow already).
        machine.follow_away = machine.follow_away or self.changes.follows_away()
        self.machine = machine
        self.catch_up.end_resync()
        self.catch_up.began(machine, now)
        self.emit(ev="start", hand=machine.hand)
        self.after([])
        for frame in self.messages.take_prestart():
            self.after(machine.receive(frame, self.now()))
        self.catch_up.announce()

    def _maybe_resume(self) -> None:
        sync = self.catch_up.resync
        assert sync is not None and self.config is not None
        others = {s.key for s in self.config.seats if s.key != self.key}
        if self.now() < sync.deadline and not others <= sync.answered:
            return
        try:
            self.start(sync.best)
        except (TranscriptError, LocalProtocolError, OSError) as exc:
            self._cannot_resume(exc)
        except Exception as exc:  # e.g. a stored key share that does not load
            self._stop(
                notice(
                    "share_damaged",
                    path=str(self.store.dir / "secrets"),
                    error=f"{type(exc).__name__}: {exc}",
                )
            )

    def _cannot_resume(self, exc: Exception) -> None:
        self.say(
            notice("transcript_unusable", path=str(self.store.transcript_path), error=str(exc))
        )
        self.catch_up.end_resync()
        self.exit_code = 1
        self.done = True
        if self.nursery is not None:
            self.nursery.cancel_scope.cancel()

    # ---------------------------------------------------------------- after every machine call
    def after(self, events: list[TableEvent]) -> None:
        """After every machine call: store, send, report, and let the driver act."""
        machine = self.machine
        assert machine is not None
        for event in list(events):
            if isinstance(event, SegmentVoided):
                self.changes.segment_voided(event.config, event.kept)
            elif isinstance(event, SeatsChanging):
                self.reports.segment_ended(SeatChanges.ended_config(machine, event.hand))
                events = events + self.changes.seats_changing(machine, event)
            elif (
                isinstance(event, SeatSilent)
                and event.phase == "next-config"
                and machine.seat_change is not None
            ):
                # The next host was timed out at the boundary: the next seat that stays is the
                # host now (perhaps we are), and everyone waits for it afresh.
                events = events + self.changes.seats_changing(machine, machine.seat_change)
        for hand, data in machine.take_secrets():
            self.store.save_secret(hand, data)
        for event in events:
            if isinstance(event, TranscriptCut):
                self.store.truncate(event.keep)
                self.ending.moved()
        self.store.append(machine.take_records())
        for event in events:
            # The hand's result is signed by every seat and on disk: resume no longer needs
            # this hand's key share, and with a shared transcript it would open its hidden cards.
            if isinstance(event, HandSigned):
                self.store.delete_secrets(event.hand)
        for frame in machine.take_outgoing():
            self.queue({"t": "f", "f": frame}, ahead=machine.frame_ahead(frame))
        for event in events:
            self.reports.report(event)
        hook = getattr(self.driver, "on_events", None)
        if hook is not None and events:
            hook(machine, events)
        if not machine.over and machine.my_turn_to_act() and self.driver and not self.acting:
            self.acting = True
            assert self.nursery is not None
            self.nursery.start_soon(self._act, machine)

    async def _act(self, machine: TableMachine) -> None:
        try:
            assert self.driver is not None
            action = await self.driver.choose(machine)
            if action is None or not machine.my_turn_to_act():
                return
            if action.kind is ActionKind.PLAY and action.card is not None:
                self.emit(ev="play", hand=machine.hand, seat=machine.seat, card=action.card.index)
            try:
                events = machine.act(action, self.now())
            except LocalProtocolError as exc:
                self.say(notice("move_refused", reason=str(exc)))
                return
            self.after(events)
        finally:
            self.acting = False
        if not machine.over and machine.my_turn_to_act():
            self.after([])

    # ---------------------------------------------------------------- the end
    def _linger(self, now: float) -> None:
        machine = self.machine
        assert machine is not None and self.config is not None
        if self.ending.over(machine, now):
            self.done = True
            if self.nursery is not None:
                self.nursery.cancel_scope.deadline = now + 0.5
            self.wake.set()
        else:
            self.catch_up.linger_ask(machine, now)

    def end_checked(self, code: int) -> None:
        """The end was checked and reported (the ending part): exit with ``code``."""
        self.exit_code = code
        self.wake.set()

    def sent_total(self) -> int:
        """The bytes we sent over every link so far."""
        return self.sent_bytes + (self.link.sent_bytes if self.link is not None else 0)
