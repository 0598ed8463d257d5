"""One seat's node: drives the table state machine over a link to the hub.

Lifecycle: connect (retrying), the join handshake (hello -> lobby -> signed configuration), the
game (frames in and out, persisted before anything is acted on), catch-up after a reconnect or
a restart (``have``/``recs``), the step timeout (``tick``), and a short linger at the end so
that every peer has every record. See spec/node.md. The node is built of parts that each own
their state and know only the node's narrow interface (a Protocol) and the parts below them:
the catch-up (:mod:`catch_up`), the join handshake (:mod:`join_handshake`), the seat changes
(:mod:`seat_changes`), the dispatch of what the hub delivers (:mod:`seat_messages`) and the
end (:mod:`seat_end`).
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
from dealerless.node.mesh import CandidateOffers, Mesh
from dealerless.node.mesh_punch import Punches
from dealerless.node.options import NodeOptions
from dealerless.node.seat_changes import SeatChanges, away_keys
from dealerless.node.seat_end import SeatEnd
from dealerless.node.seat_messages import SeatMessages
from dealerless.node.store import TableMeta, TableStore
from dealerless.node.stun_servers import DEFAULT_STUN_SERVERS, parse_stun_servers
from dealerless.node.ways import MultiLink
from dealerless.node.wire import encode, seal
from dealerless.protocol.rules.base import ActionKind, GameConfig, Outcome
from dealerless.protocol.table import TableConfig, TableMachine
from dealerless.protocol.table.events import (
    Accepted,
    ActionApplied,
    CardsDealt,
    GameOver,
    HandEnded,
    HandSigned,
    HandStarted,
    LocalProtocolError,
    SeatsChanging,
    SeatSilent,
    SegmentStarted,
    ShareMissing,
    TableEvent,
    TimeoutVoted,
    TranscriptCut,
    Violation,
)
from dealerless.protocol.transcript import TranscriptError

__all__ = ["Driver", "NodeOptions", "SeatNode", "config_signature_ok"]

Connector = Callable[[], Awaitable[tuple[Link, dict[str, Any]]]]
Say = Callable[[str], None]
_EVENTS = logging.getLogger("dealerless.node.events")  # every emit(), at DEBUG
MAX_OWN_QUEUED = 100_000  # own messages waiting for the link: past this the node fails loudly
RECS_QUEUED_BYTES = 16 << 20  # records for others waiting for the link: past this, not queued
CHECK_AFTER_SEND = 0.002  # s: the sender and the transport run first (a few scheduler passes)
PUNCH_MESSAGE = 2048  # bytes of a rendezvous message (node/punch bounds its own at 1,024)


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
        say: Say = print,
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
        # our candidates for direct links, told when the seats are known (node/mesh.py), and
        # the punches of the pairs behind home routers (node/mesh_punch.py)
        self.offers = CandidateOffers(mesh) if mesh is not None else None
        self.punches: Punches | None = None
        if mesh is not None and self.opt.punch:
            servers = parse_stun_servers(self.opt.stun_servers or DEFAULT_STUN_SERVERS)
            self.punches = Punches(
                mesh, identity, store.table_id, self._send_punch, stun_servers=servers, say=say
            )
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
            self, self.handshake, self.catch_up, identity=identity, is_host=self.is_host,
            opt=self.opt,
        )  # fmt: skip
        self.messages = SeatMessages(
            self, self.handshake, self.catch_up, self.changes, key=self.key,
            table_id=store.table_id, is_host=self.is_host,
        )  # fmt: skip
        self.ending = SeatEnd(self, self.catch_up, store=store, meta=meta, linger=self.opt.linger)
        # Never dropped from: our own frames and messages; records for others are bounded.
        self.outbox: collections.deque[tuple[dict[str, Any], int]] = collections.deque()
        self.outbox_bytes = 0
        self.quiet = self.opt.stall  # the announce interval while nothing changes
        self.wake = trio.Event()
        self.done = False
        self.acting = False
        self.ask_now = False
        self.sent_bytes = 0
        self.last_count = -1
        self.last_progress = 0.0
        self.grew_at = 0.0  # when our transcript last grew
        self.heard_up_to = (0, 0)  # the machine's furthest step heard of a seat's frame ...
        self.heard_at = 0.0  # ... and when it last moved
        self.bye_said = False  # we told the table that our player quits
        self.game_over_said = False
        self.slow_said: tuple[bytes, int] | None = None
        self.exit_code = 1
        self.nursery: trio.Nursery | None = None
        self.ended_names: tuple[str, ...] = ()
        loaded = store.load_config()
        if loaded is not None:
            self.config, self.config_sig = loaded

    # ---------------------------------------------------------------- helpers
    @property
    def seating(self) -> TableConfig | None:
        """The running segment's configuration (seats change between hands), else ours."""
        return self.machine.config if self.machine is not None else self.config

    def name_of(self, seat: int | None) -> str:
        config = self.seating
        if seat is None or config is None or not 0 <= seat < len(config.seats):
            return "?"
        return f"seat {seat} ({config.seats[seat].name})"

    def _game_over_words(self, outcome: Outcome) -> tuple[str, str]:
        """Who won and every seat's final score, in words (``host --plain`` prints the line,
        so never a Python repr)."""
        seats = self.seating.seats if self.seating is not None else ()
        winners = " and ".join(self.name_of(w) for w in outcome.winners) or "nobody"
        scores = ", ".join(
            f"{seats[i].name if i < len(seats) else f'seat {i}'} {score}"
            for i, score in enumerate(outcome.standings)
        )
        return winners, scores

    def seat_of_key(self, key: bytes) -> int | None:
        config = self.seating
        return None if config is None else config.seat_of(key)

    def now(self) -> float:
        return trio.current_time()

    def seat_keys(self) -> frozenset[bytes]:
        config = self.seating
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
        """Is ``key`` someone this node must be able to hear (the host, a seat of the table
        or of the running segment, a seat sitting out, the lobby, a newcomer waiting)? A
        transport keeps such keys bound whatever strangers do."""
        if key == self.host_key or key in self.changes.waiting:
            return True
        if self.handshake.lobby_name(key) is not None:
            return True
        configs = [c for c in (self.config, self.machine and self.machine.config) if c]
        return any(s.key == key for c in configs for s in c.seats) or key in self.away_keys()

    def who(self, key: bytes) -> str:
        seat = self.seat_of_key(key)
        if seat is not None:
            return self.name_of(seat)
        name = self.handshake.lobby_name(key)
        if name is not None:
            return repr(name)
        try:
            return PeerId(key).fingerprint[:9]
        except ValueError:
            return "an invalid key"

    def admit(self) -> None:
        """Host: tell the hub which keys may hear the table (the lobby, then the seats; after
        seat changes also every seat of the running segment and the newcomers waiting)."""
        if self.config is not None:
            keys = [s.key for s in self.config.seats]
            if self.machine is not None:
                keys += [s.key for s in self.machine.config.seats if s.key not in keys]
            keys += [k for k in self.changes.waiting if k not in keys]
            keys += [k for k in self.away_keys() if k not in keys]  # they follow the table
        else:
            keys = [self.key, *(k for k, _ in self.handshake.lobby)]
        self.queue_hub({"t": "admit", "keys": keys})

    def adopt_config(self, config: TableConfig, signature: bytes) -> None:
        """The table's (first) configuration, signed by its host: stored, and ours."""
        self.store.save_config(config, signature)
        self.config, self.config_sig = config, signature

    def _offer(self, payload: dict[str, Any] | None) -> None:
        if payload is not None:
            self.queue_signed(payload)

    def _send_punch(self, peer: bytes, data: bytes) -> None:
        self.queue_signed({"t": "punch", "d": data}, to=peer)

    def on_punch(self, sender: bytes, payload: dict[str, Any]) -> None:
        """A seat's rendezvous message for a punch (node/punch opens and checks it)."""
        data = payload.get("d")
        if self.punches is not None and isinstance(data, bytes) and len(data) <= PUNCH_MESSAGE:
            self.punches.heard(sender, data, self.now())

    def on_candidates(self, sender: bytes, payload: dict[str, Any]) -> None:
        """A seat's signed candidates for a direct link (node/mesh.py)."""
        if self.offers is None:
            return
        try:
            self._offer(self.offers.heard(sender, payload, self.now()))
        except ValueError as exc:
            self.say(f"refused the direct-link addresses of {self.who(sender)}: {exc}")

    def queue_hub(self, message: dict[str, Any], size: int = 0) -> None:
        if len(self.outbox) >= MAX_OWN_QUEUED:
            # Never drop our own messages silently: a link this stuck is a failure to report.
            self._stop(f"{len(self.outbox)} of our own messages wait for the link; giving up")
            return
        self.outbox.append((message, size))
        self.outbox_bytes += size
        self.wake.set()

    def queue(
        self, payload: dict[str, Any], to: bytes | None = None, *, keep: bool = False
    ) -> None:
        """``keep``: for readers to come (stored by Nostr relays), never only direct links."""
        message: dict[str, Any] = {"t": "send", "data": encode(payload)}
        if to is not None:
            message["to"] = to
        if keep:
            message["keep"] = True
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

    def give_up(self, reason: str) -> None:
        """Stop with exit code 1, saying ``reason`` (from outside: the ways in)."""
        self._stop(reason)

    def _stop(self, reason: str) -> None:
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
                    self.say(str(exc))
                    self.exit_code = 1
                    break
                except LinkError as exc:
                    self.say(f"{exc}; retrying in {backoff:.1f} s")
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
                            self.say(f"link lost after the end ({exc}); reconnecting")
                    elif not self.done:
                        self.say(f"link lost ({exc}); reconnecting")
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
        self.say(f"connected; {len(self.messages.peers_up)} other peer(s) present")
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
                if self.handshake.arrival_tick(now):
                    return  # fetching a running table's chain: no hello meanwhile
                if self.handshake.unanswered():
                    self._stop(
                        f"nobody at the table answered for {self.opt.first_join_wait:.0f} s "
                        "(the game may be over, or its host gone)"
                    )
                elif self.handshake.hello_due(now, self.messages.admitted):
                    self.handshake.hello(self.messages.peers_up)
            return
        if self.offers is not None:
            self._offer(self.offers.table(self.seat_keys(), now))
        if self.punches is not None:
            self.punches.tick(self.seat_keys(), now)
        if not machine.over:
            self.after(machine.tick(now))
            self._report_slow(machine)
        elif not machine.left_table:
            # The next host may be silent (a certificate), or the game's last result came
            # late and the others' certificate wins over it (protocol.md §5).
            self.after(machine.tick(now))
        if len(machine.records) != self.last_count:
            self.last_count, self.last_progress = len(machine.records), now
            self.grew_at = now
            self.catch_up.grew(machine.chain_count, now)
            self.quiet = self.opt.stall
        if machine.heard_up_to != self.heard_up_to:
            self.heard_up_to, self.heard_at = machine.heard_up_to, now
        if self.link is not None and (self.ask_now or now - self.last_progress >= self.quiet):
            # Nothing changed: announce, then less and less often while nothing is
            # missing (an idle table is quiet); at once again when a seat is ahead of us.
            behind = self.catch_up.behind(machine.chain_count)
            self.ask_now = False
            self.last_progress = now
            self.catch_up.announce(ask=behind or self.catch_up.waiting_for_records())
            self.quiet = self.opt.stall if behind else min(self.quiet * 2, self.opt.quiet_every)
        self.changes.ask_back(now)
        self._maybe_bye(machine)
        if machine.over and not self.changes.segment_pending(machine, now):
            self._linger(now)
        elif machine.sitting_out and not self.changes.follows_away():
            self._linger(now)  # sitting out for good: our part of the table is over
        elif self.ending.until is not None or self.changes.away_quiet(
            machine, now, max(self.grew_at, self.heard_at)
        ):
            self._linger(now)

    def _maybe_bye(self, machine: TableMachine) -> None:
        """The player quits (the driver's ``leaving``) while the game runs: tell the table once,
        signed, so every seat can say so at once instead of waiting out a step timeout."""
        if self.bye_said or not getattr(self.driver, "leaving", False):
            return
        self.bye_said = True
        if machine.seat is not None and not machine.over and not machine.left_table:
            self.queue_signed({"t": "bye", "hand": machine.hand})

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
            f"table ready: {config.game.game}, {config.players} seats; we are {self.name_of(seat)}"
        )
        if not records and not extension:
            machine = TableMachine(config, key, now=now)
        else:
            secrets = self.store.load_secrets()
            # No peer answered (yet): we may be far behind, so write nothing until one does.
            resync = self.catch_up.resync
            hold = resync is not None and not resync.answered
            resumed: TableMachine | None = None
            if extension:
                try:
                    resumed = TableMachine.resume(
                        config, key, records + extension, secrets=secrets, now=now, hold=hold
                    )
                except LocalProtocolError as exc:
                    self.say(f"records from the peers do not replay ({exc}); using our own")
            if resumed is None:
                resumed = TableMachine.resume(
                    config, key, records, secrets=secrets, now=now, hold=hold
                )
                extension = []
            machine = resumed
            self.store.append(extension)
            self.say(
                f"resumed from {len(records)} stored record(s)"
                + (f" and {len(extension)} from the peers" if extension else "")
                + f": hand {machine.hand}, {machine.phase}"
                + ("; no peer has answered yet, so we wait for one before we write" if hold else "")
            )
        self._begin(machine)

    def sit_down(self, offer: Offer, machine: TableMachine) -> None:
        """Newcomer: the chain from the table's start checked and seats us; it is our transcript
        from now on (our file audits from the table's start, and we can serve it)."""
        self.adopt_config(offer.first, offer.first_sig)
        self.store.open_transcript(offer.first)
        self.store.append(offer.records)
        self.say(
            f"table ready: {machine.config.game.game}, {machine.config.players} seats; we are "
            f"seat {machine.seat} ({offer.config.seats[machine.seat or 0].name})"
        )
        self._begin(machine)

    def _begin(self, machine: TableMachine) -> None:
        now = self.now()
        # Sitting out later, follow the table if we may come back (or follow already).
        machine.follow_away = machine.follow_away or self.changes.follows_away()
        self.machine = machine
        self.catch_up.end_resync()
        self.last_count, self.last_progress = len(machine.records), now
        self.grew_at = now
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
                f"cannot resume: a stored key share in {self.store.dir / 'secrets'} is missing "
                f"or damaged ({type(exc).__name__}: {exc}); the transcript was left untouched"
            )

    def _cannot_resume(self, exc: Exception) -> None:
        self.say(
            f"cannot resume: the stored transcript {self.store.transcript_path} is unusable "
            f"({exc}); it was left untouched"
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
            if isinstance(event, SeatsChanging):
                ended = SeatChanges.ended_config(machine, event.hand)
                self.ended_names = tuple(s.name for s in ended.seats)
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
            self.queue({"t": "f", "f": frame})
        for event in events:
            self._report(event)
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
                self.say(f"move refused: {exc}")
                return
            self.after(events)
        finally:
            self.acting = False
        if not machine.over and machine.my_turn_to_act():
            self.after([])

    def _report(self, event: TableEvent) -> None:
        machine = self.machine
        assert machine is not None
        if isinstance(event, HandStarted):
            self.say(f"hand {event.hand} starts; dealer {self.name_of(event.dealer)}")
            self.emit(ev="hand", hand=event.hand)
            self.changes.wish_at_hand(event.hand)
        elif isinstance(event, SeatsChanging):
            # Named by the seats of the segment that ended (the next one may have started).
            seated = self.ended_names

            def ended(seat: int) -> str:
                return f"seat {seat} ({seated[seat]})" if 0 <= seat < len(seated) else "?"

            asked = ", ".join(f"{ended(s)}: {c}" for s, c in event.changes)
            silent = "" if event.silent is None else f"; {ended(event.silent)} was silent"
            self.say(f"seats change after hand {event.hand} ({asked or 'nobody asked'}{silent})")
            self.emit(ev="change", hand=event.hand)
        elif isinstance(event, SegmentStarted):
            config = event.config
            assert isinstance(config, TableConfig)
            names = ", ".join(s.name for s in config.seats)
            if event.seated:
                self.changes.segment_started(seated=True)
                self.say(f"the table goes on with {config.players} seats: {names}")
            elif machine.sitting_out:
                self.changes.segment_started(seated=False)
                self.say(f"we sit out and follow the table: {names}")
            else:
                self.say(f"the table goes on without us: {names}")
        elif isinstance(event, CardsDealt):
            self.emit(ev="dealt", hand=machine.hand)
        elif isinstance(event, HandEnded):
            how = "aborted" if event.aborted else "ended"
            self.say(f"hand {event.result.hand_number} {how}: {event.result.reason}")
        elif isinstance(event, ShareMissing):
            self.say(
                f"our stored key share of hand {event.hand} (store of "
                f"{self.store.dir.parent.parent}) is missing or damaged ({event.reason}): "
                "we cannot play that hand, the others will "
                "time us out of it (silence: at most the bounded settlement), then we play on"
            )
        elif isinstance(event, SeatSilent):
            self.say(f"{self.name_of(event.seat)} was timed out ({event.phase}, hand {event.hand})")
        elif isinstance(event, TimeoutVoted):
            self.say(f"{self.name_of(event.silent)} is too slow: we voted to time them out")
        elif isinstance(event, Violation):
            if event.culprit is None:
                self.say(f"refused a damaged or misrouted message: {event.reason}")
                self.ask_now = True  # ask the peers for the real one at the next tick
            else:
                who = self.name_of(event.culprit)
                self.say(f"refused a message from {who}: {event.reason}")
                self.ending.caught(event)  # kept to the end, whatever junk follows
        elif isinstance(event, GameOver) and not self.game_over_said:
            self.game_over_said = True  # again after a late last result's certificate: same end
            outcome = event.outcome
            winners, scores = self._game_over_words(outcome)
            self.say(f"game over: {outcome.reason}; won by {winners}; final scores: {scores}")
            if self.is_host:
                # Stored by Nostr relays: whoever joins with the invite later hears that the
                # table is finished instead of waiting for a host that is gone (spec/node.md §3).
                self.queue_signed({"t": "closed", "hands": machine.hand}, keep=True)
        elif isinstance(event, Accepted):
            self.emit(ev="acc", kind=event.kind, seat=event.seat, seq=event.seq)
        elif isinstance(event, ActionApplied):
            action = event.action
            if action.kind is ActionKind.PLAY and action.card is not None:
                self.emit(ev="seen", hand=machine.hand, seat=action.seat, card=action.card.index)

    def _report_slow(self, machine: TableMachine) -> None:
        arbiter = machine.arbiter()
        if arbiter is None or arbiter == machine.seat:
            return
        waited = self.now() - machine.step_since
        marker = (machine.head, arbiter)
        if waited >= max(5.0, machine.timeout / 2) and self.slow_said != marker:
            self.slow_said = marker
            self.say(f"waiting for {self.name_of(arbiter)} ({waited:.0f} s)")

    # ---------------------------------------------------------------- the end
    def _linger(self, now: float) -> None:
        machine = self.machine
        assert machine is not None and self.config is not None
        if self.ending.over(machine, now):
            self.done = True
            if self.nursery is not None:
                self.nursery.cancel_scope.deadline = now + 0.5
            self.wake.set()
        elif now - self.last_progress >= 0.3:
            self.last_progress = now
            self.catch_up.have(machine.chain_count, True)

    def end_checked(self, code: int) -> None:
        """The end was checked and reported (the ending part): exit with ``code``."""
        self.exit_code = code
        self.wake.set()

    def sent_total(self) -> int:
        """The bytes we sent over every link so far."""
        return self.sent_bytes + (self.link.sent_bytes if self.link is not None else 0)
