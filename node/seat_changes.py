"""Seats that change between hands, as a seat's node sees them (spec/node.md §9).

* Our player asks to stand up or sit out (``NodeOptions.change_after``, or a driver through
  :meth:`SeatChanges.want_change`): the request rides in our next signed hand result.
* A newcomer with the invite says hello to a running table: the host keeps it waiting (bounded)
  and asks to re-form the table at the end of the hand.
* When a segment ends: the next host starts the next one with the newcomers (and the seats
  coming back) and sends each newcomer the signed configuration; a seat that stays waits
  (bounded) for the next host's ``next-config``, which its machine checks; a seat that stood
  up finishes.
* A seat that sits out and may come back (``--back-after-hand``, an interactive player, or a
  seat sat out for its own silence, which is evidently back) follows the table as an observer
  and sends the seat hosting it a signed ``back``; the host seats it with its kept ledger at
  the next hand boundary. A seat that sits out for good finishes.

A part of :class:`~dealerless.node.seat.SeatNode`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from dealerless.node.catch_up import CatchUp
from dealerless.node.identity import format_fingerprint
from dealerless.node.join_handshake import (
    CONFIG_LABEL,
    JoinHandshake,
    default_buy_in,
    hello_name,
)
from dealerless.node.notices import Notice, Who, notice
from dealerless.node.options import NodeOptions
from dealerless.protocol.rules.base import ConfigError
from dealerless.protocol.table import SeatInfo, TableConfig, TableMachine
from dealerless.protocol.table.events import LocalProtocolError, SeatsChanging, TableEvent
from dealerless.protocol.table.segments import Newcomer, SegmentError

MAX_WAITING = 8  # newcomers a host keeps waiting for the next hand boundary
NEXT_HOST_WAIT = 3  # step timeouts a seat that stays waits for the next host's configuration
# Step timeouts without a new record or step heard before a seat sitting out stops following.
AWAY_QUIET = 3
BEHIND_FACTOR = 4  # ... times this while a peer says it holds more records than we do
BACK_EVERY = 2.0  # a seat coming back repeats its signed ask this often (a hub may drop one)


def away_keys(machine: TableMachine | None) -> frozenset[bytes]:
    """The keys sitting out at the running segment (its carry keeps their ledgers): they
    follow the table, may fetch its records and ask to come back."""
    carry = None if machine is None else machine.config.carry
    return frozenset() if carry is None else frozenset(d.key for d in carry.away)


class ChangesNode(Protocol):
    """What the seat-change part uses of its node."""

    say: Callable[[Notice], None]

    @property
    def host_key(self) -> bytes: ...

    @property
    def machine(self) -> TableMachine | None: ...

    @property
    def config(self) -> TableConfig | None: ...

    def now(self) -> float: ...

    def queue_signed(self, payload: dict[str, Any], to: bytes | None = None) -> None: ...

    def admit(self) -> None: ...

    def after(self, events: list[TableEvent]) -> None: ...


class SeatChanges:
    """The seat changes of a seat's node: it owns the newcomers and returners a host keeps
    waiting, our signatures on the segments we host, and our own way through a change (when
    our segment ended, whether we come back, the next host's silence)."""

    def __init__(
        self,
        node: ChangesNode,
        handshake: JoinHandshake,
        catch_up: CatchUp,
        *,
        key: bytes,
        sign: Callable[[bytes], bytes],
        is_host: bool,
        opt: NodeOptions,
    ) -> None:
        """``key``: ours; ``sign``: signs with it (the segments we host)."""
        self.node, self.handshake, self.catch_up = node, handshake, catch_up
        self.key, self.sign, self.is_host, self.opt = key, sign, is_host, opt
        # Newcomers waiting for the next hand boundary (key -> name, buy-in): the host's, which
        # it answered and asked to re-form the table for; and those a seat that does not host
        # heard (its host was leaving): if it hosts the next segment it seats them there.
        self.waiting: dict[bytes, tuple[str, int]] = {}
        self.heard: dict[bytes, tuple[str, int]] = {}
        self.segment_sigs: dict[bytes, bytes] = {}  # config digest -> our host signature
        # The segment we host: its digest, and the newcomers and returners it seated (they
        # wait again if a late certificate voids it, P-52).
        self.seated_by_us: tuple[bytes, dict[bytes, tuple[str, int]], dict[bytes, str]] | None
        self.seated_by_us = None
        # Those it seated wait again: the next hand's result asks to re-form the table (the
        # void segment's ask is gone with it; a newcomer seated there says no hello again).
        self.reseat_again = False
        self.change_since: float | None = None  # when our segment ended for a seat change
        self.next_host_missed = False
        self.returners: dict[bytes, str] = {}  # host: seats sitting out that asked to come back
        self.coming_back = False  # we sit out and asked to be seated again
        self.change_taken = False  # our own stand-up or sit-out took effect
        self.back_sent = 0.0
        # We host the next segment but too few seats stay for one: we wait (until the others
        # time us out) for a newcomer whose hello is late, and seat it then.
        self.too_few: SeatsChanging | None = None
        # We host the next segment, but a certificate of the last hand may still roll the end
        # back (TableMachine.end_may_move): we sign the next configuration once it cannot.
        self.end_moving: SeatsChanging | None = None

    def segment_started(self, seated: bool) -> None:
        """A segment started that seats us (``seated``) or that we sit out in."""
        self.change_since, self.next_host_missed, self.too_few = None, False, None
        self.end_moving = None
        machine = self.node.machine
        if machine is not None:  # those seated meanwhile, or known to the table, wait no more
            config, carry = machine.config, machine.config.carry
            known = {s.key for s in config.seats}
            if carry is not None:
                known |= {d.key for d in (*carry.away, *carry.left)}
            self._forget_newcomers(known.__contains__)
        if seated:
            self.coming_back = False

    def hosting(self) -> bool:
        """Do we admit joiners? The invite's host until the table starts; then the seat that
        hosts the running segment (seat 0: the first seat that stayed at every change)."""
        machine = self.node.machine
        if machine is None:
            return self.is_host
        return machine.config.seats[0].key == self.key and not machine.left_table

    def _forget_newcomers(self, seated: Callable[[bytes], bool]) -> None:
        """Newcomers that have a seat (or are known to the table) wait no more."""
        self.waiting = {k: v for k, v in self.waiting.items() if not seated(k)}
        self.heard = {k: v for k, v in self.heard.items() if not seated(k)}

    def hears_newcomers(self) -> bool:
        """Do we hear a newcomer's hello without hosting? A seat of the running segment does:
        when its host leaves after this hand (it answers no newcomer then), the seat that hosts
        the next segment seats those it heard, and a table that would be left with too few
        seats goes on with them instead of ending."""
        machine = self.node.machine
        return (
            machine is not None
            and machine.seat is not None
            and not machine.left_table
            and machine.engine.seat_changes
        )

    def wants(self, key: bytes) -> bool:
        """Is ``key`` someone this node must be able to hear (the host, a seat of the table
        or of the running segment, a seat sitting out, the lobby, a newcomer waiting)? A
        transport keeps such keys bound whatever strangers do."""
        if key == self.node.host_key or key in self.waiting or key in self.heard:
            return True
        if self.handshake.lobby_name(key) is not None:
            return True
        machine = self.node.machine
        config = self.node.config
        if config is not None and config.seat_of(key) is not None:
            return True
        # The running segment's seats, and those whose vote may still undo our switch (P-52).
        return (machine is not None and key in machine.seat_keys) or key in away_keys(machine)

    def admitted(self) -> list[bytes]:
        """Host: the keys the hub lets hear the table: the lobby, then the seats; after seat
        changes also every seat of the running segment and the newcomers waiting."""
        config, machine = self.node.config, self.node.machine
        if config is None:
            return [self.key, *(k for k, _ in self.handshake.lobby)]
        keys = [s.key for s in config.seats]
        if machine is not None:
            keys += [s.key for s in machine.config.seats if s.key not in keys]
        keys += [k for k in self.waiting if k not in keys]
        keys += [k for k in away_keys(machine) if k not in keys]  # they follow the table
        return keys

    def follows_away(self) -> bool:
        """Sitting out, do we follow the table (to come back) rather than finish?"""
        return self.coming_back or self.opt.back_after is not None or self.opt.follow_away

    def _sitting_out_now(self, machine: TableMachine) -> bool:
        """We sit out: in the running segment, or in the one that follows the change that just
        ended ours."""
        if machine.sitting_out:
            return True
        if machine.seat_change is None or not machine.over or machine.left_table:
            return False
        try:
            plan = machine.seat_plan()
        except SegmentError:
            return False
        return any(d.key == self.key for d in plan.away)

    # ---------------------------------------------------------------- our own player
    def come_back(self) -> None:
        """Sitting out: ask to be seated again (with our kept chips) at the next hand
        boundary of the table."""
        machine = self.node.machine
        if machine is None or not self._sitting_out_now(machine):
            raise LocalProtocolError("we are not sitting out")
        if not self.coming_back:
            self.coming_back = True
            machine.follow_away = True
            self.node.say(notice("coming_back"))
        self.back_sent = 0.0
        self.ask_back(self.node.now())

    def away_quiet(self, machine: TableMachine, now: float, since: float) -> bool:
        """Sitting out and following: the table made no progress for AWAY_QUIET step timeouts
        since ``since`` (our chain last grew, or a seat's signed frame named a step further
        than any before: the table plays on while our catch-up crawls behind it): its seats
        are gone, or we lost it, and we stop following, bounded like a seat that waits for
        the next host."""
        # A peer that told us it holds more than we do shows the table is alive and we are
        # only behind (catch-up over a paced relay, a loaded machine): wait longer, still bounded.
        behind = self.catch_up.behind(machine.chain_count)
        quiet = AWAY_QUIET * machine.timeout * (BEHIND_FACTOR if behind else 1)
        if not machine.sitting_out or now - since < quiet:
            return False
        self.node.say(notice("away_quiet", seconds=now - since))
        return True

    def ask_back(self, now: float) -> None:
        """Repeat our signed ``back`` to the table (its host takes it) until we are seated; on
        every tick, so a ``back_after`` the screen sets takes effect at once."""
        machine = self.node.machine
        if machine is None or not machine.sitting_out:
            return
        back = self.opt.back_after
        if not self.coming_back and back is not None and machine.hand >= back:
            self.come_back()
            return
        if not self.coming_back:
            return
        if now - self.back_sent >= BACK_EVERY:
            self.back_sent = now
            # Bound to the segment we sit out in: a copy replayed later seats nobody.
            # With our count: the host seats us only once we are at most a hand behind.
            n = machine.chain_count
            self.node.queue_signed({"t": "back", "config": machine.config.digest(), "n": n})

    def want_change(self, change: str) -> None:
        """Stand up (``stand``) or sit out (``sit-out``) after this hand."""
        machine = self.node.machine
        if machine is None:
            raise LocalProtocolError("the table has not started")
        machine.want_change(change)
        self.node.say(notice("asked_change", change=change.replace("-", " ")))

    def wish_at_hand(self, hand: int) -> None:
        machine = self.node.machine
        if machine is not None and machine.sitting_out:
            return  # coming back (back_after) is the ticker's: _ask_back
        if self.reseat_again and machine is not None:
            self.reseat_again = False
            if (self.waiting or self.returners) and machine.change_wanted is None:
                try:
                    machine.want_change("reseat")
                except LocalProtocolError as exc:
                    self.node.say(notice("cannot_reform", reason=str(exc)))
        wish = self.opt.change_after
        if wish is None or machine is None or machine.change_wanted == wish[0]:
            return
        if self.change_taken:
            return  # once: a seat back from sitting out plays on
        change, after = wish
        if machine.change_wanted == "reseat":
            return  # newcomers wait for their seats: they sit down first, we leave a hand later
        if hand >= after:
            try:
                self.want_change(change)
            except LocalProtocolError as exc:
                self.node.say(notice("cannot_change", change=change, reason=str(exc)))

    # ---------------------------------------------------------------- newcomers (host)
    def hello_at_table(self, sender: bytes, payload: dict[str, Any]) -> None:
        """A hello whose proof and signature were checked, once the table has started."""
        config = self.node.config
        assert config is not None
        later = self.segment_config(sender)
        if later is not None:  # a newcomer seated at a seat change
            if self.is_host:
                self.node.admit()
            self.node.queue_signed(self.handshake.offer_payload(*later), to=sender)
            carry = later[0].carry
            assert carry is not None
            self.catch_up.send_chain_tail(sender, carry.records)
        elif config.seat_of(sender) is None:
            if self.hosting():
                self.newcomer_hello(sender, hello_name(payload), payload)
            else:
                self.newcomer_heard(sender, hello_name(payload), payload)
        elif self.hosting():
            if self.is_host:
                self.node.admit()
            self.handshake.send_config(sender)

    def newcomer_hello(self, sender: bytes, name: str, payload: dict[str, Any]) -> None:
        """Host: a hello with a valid invite proof from a key with no seat at the running
        table. In a hand-by-hand game it waits for the end of the hand; else it is refused."""
        machine = self.node.machine
        if machine is not None and machine.over and machine.seat_change is not None:
            # Between two segments: no answer. Its hellos come again, and whoever hosts the
            # next segment seats it after that segment's first hand; unless that is us and
            # the table waits for it to go on at all.
            if self.too_few is not None:
                self.newcomer_heard(sender, name, payload)
            return
        if machine is not None and machine.over:
            self.handshake.refuse(sender, "this table is finished: its game is over")
            return
        if machine is None or not machine.engine.seat_changes:
            self.handshake.refuse(sender, "the table is full")
            return
        if machine.change_wanted in ("stand", "sit-out") and sender not in self.waiting:
            # We leave after this hand: the next host seats newcomers. No answer, so the
            # newcomer's hellos go to the other seats (join_handshake._hello_to).
            return
        if sender not in self.waiting:
            if len(self.waiting) >= MAX_WAITING:
                self.handshake.refuse(
                    sender, "the table is full and enough players wait for a seat"
                )
                return
            buy_in = _buy_in(machine, payload)
            if isinstance(buy_in, ConfigError):
                self.handshake.refuse(sender, f"buy-in refused: {buy_in}")
                return
            self.waiting[sender] = (name, buy_in)  # bounded above
            self.node.say(
                notice(
                    "newcomer_waits",
                    who=Who(name=name),
                    fingerprint=format_fingerprint(sender),
                    chips=buy_in,
                )
            )
            try:
                machine.want_change("reseat")
            except LocalProtocolError as exc:
                self.node.say(notice("cannot_reform", reason=str(exc)))
        if self.is_host:  # only the hub's owner admits keys there (Nostr needs no admission)
            self.node.admit()
        names = [s.name for s in machine.config.seats]
        keys = [s.key for s in machine.config.seats]
        self.node.queue_signed({"t": "lobby", "names": names, "keys": keys, "need": 0}, to=sender)

    def newcomer_heard(self, sender: bytes, name: str, payload: dict[str, Any]) -> None:
        """A seat that does not host: a newcomer's hello (its host did not answer it, so it
        asks the other seats). Kept quietly, within the same bound as a host's: if we host the
        next segment we seat it there (spec/node.md §7a). Only the host answers or refuses."""
        machine = self.node.machine
        if machine is None or not self.hears_newcomers():
            return
        if machine.over and (self.too_few is None or machine.seat_change is None):
            return  # the game is over, or the segment ended and we do not wait for anyone
        if sender in self.heard or len(self.heard) >= MAX_WAITING:
            return
        buy_in = _buy_in(machine, payload)
        if isinstance(buy_in, ConfigError):
            return
        self.heard[sender] = (name, buy_in)
        waited = self.too_few
        if waited is not None:
            self.node.say(
                notice("newcomer_came", who=Who(name=name), fingerprint=format_fingerprint(sender))
            )
            self.too_few = None
            self.node.after(self.seats_changing(machine, waited))

    def returner_back(self, sender: bytes, payload: dict[str, Any]) -> None:
        """Host: a seat sitting out asks to come back (its signed ``back``; the sender was
        checked to sit out at the running segment). Seated at the end of this hand."""
        machine = self.node.machine
        carry = None if machine is None else machine.config.carry
        if machine is None or carry is None or machine.over or sender in self.returners:
            return
        if payload.get("config") != machine.config.digest():
            return  # for another segment: late, or a replayed copy
        if machine.change_wanted in ("stand", "sit-out"):
            return  # we leave after this hand: the next host seats it (it keeps asking)
        told = payload.get("n")
        held = told if isinstance(told, int) and not isinstance(told, bool) else -1
        if max(held, self.catch_up.peer_counts.get(sender, -1)) < machine.hand_start_count:
            # It follows more than this hand behind: seated now, it would reach the next
            # configuration after its step and be timed out there while it takes it (seen under
            # load). It keeps asking with its count; we seat it once it holds this hand's start.
            return
        name = next((d.name for d in carry.away if d.key == sender), "?")
        self.returners[sender] = name  # bounded: keys of the carry's away list only
        self.node.say(
            notice("comes_back", who=Who(name=name), fingerprint=format_fingerprint(sender))
        )
        try:
            machine.want_change("reseat")
        except LocalProtocolError as exc:
            self.node.say(notice("cannot_reform", reason=str(exc)))

    def segment_config(self, key: bytes) -> tuple[TableConfig, bytes] | None:
        """Host: the configuration of the running segment and our signature on it, for a
        newcomer seated there (None if it has no seat there)."""
        machine = self.node.machine
        if machine is None or machine.config.seat_of(key) is None:
            return None
        sig = self.segment_sigs.get(machine.config.digest())
        return None if sig is None else (machine.config, sig)

    # ---------------------------------------------------------------- the end of a segment
    def host_when_settled(self, machine: TableMachine) -> list[TableEvent]:
        """On a tick: host the next segment that waited for the ended one's end to settle.
        If a certificate rolled the end back meanwhile, the segment ends again later, with
        its own ``SeatsChanging``."""
        event = self.end_moving
        if event is None or self._end_unsettled(machine):
            return []
        self.end_moving = None
        if not machine.over or machine.seat_change is None:
            return []
        return self.seats_changing(machine, event)

    def _end_unsettled(self, machine: TableMachine) -> bool:
        """The next host does not sign yet: a certificate of the last hand may still roll its
        end back (P-50), or our own frame closed its last round and no seat of that round that
        did not vote against it has told us it holds the round (P-51: the certificate against
        our frame would need that seat's vote). A seat says with its count that its own vote
        waits (``voted``): its vote may reach us after its count."""
        if machine.end_may_move:
            return True
        others = machine.unconfirmed_last_round
        if others is None:
            return False
        keys = [machine.config.seats[s].key for s in others]
        return not any(
            self.catch_up.holds_ours(k, machine)
            for k in keys
            if k not in self.catch_up.peers_voted  # a voter's word is void
        )

    def seats_changing(self, machine: TableMachine, event: SeatsChanging) -> list[TableEvent]:
        """After a segment ended for a seat change; returns the events of the next segment if
        we started it."""
        self.change_since = self.node.now()
        try:
            plan = machine.seat_plan()
        except SegmentError:
            # The next configuration came in the same batch (catch-up): the machine is in the
            # next segment already, and its host was someone else.
            self._moved_on(machine, event)
            return []
        # Tell every seat we hold the ended hand: the next host waits to hear it (P-51).
        self.catch_up.have(machine.chain_count, False, end=True)
        staying = {machine.config.seats[s].key for s in plan.stays}
        if self.key not in staying:
            self.change_taken = self.change_taken or machine.change_wanted is not None
            if event.silent is not None and event.silent == machine.seat:
                self._back_from_silence()  # the machine follows a seat sat out for silence
            return []
        if plan.host != self.key:
            self.node.say(notice("next_host_wait", hand=event.hand))
            return []
        if self._end_unsettled(machine):
            self.end_moving = event  # host_when_settled tries again on every tick
            return []
        newcomers = {**self.heard, **self.waiting}
        joining = [
            Newcomer(SeatInfo(name, key), buy_in)
            for key, (name, buy_in) in newcomers.items()
            if plan.reseat
        ]
        away = {d.key for d in plan.away}
        returning = [k for k in self.returners if plan.reseat and k in away]
        try:
            config = machine.next_segment(joining, returning)
        except LocalProtocolError as exc:
            self.node.say(notice("newcomers_refused", reason=str(exc)))
            try:
                config = machine.next_segment()
            except LocalProtocolError as again:
                if plan.reseat and machine.engine.seat_changes:
                    self.too_few = event
                    self.node.say(notice("cannot_go_on_yet", reason=str(again)))
                else:
                    self.node.say(notice("cannot_go_on", reason=str(again)))
                return []
        seated = {k: v for k, v in newcomers.items() if config.seat_of(k) is not None}
        back = {k: v for k, v in self.returners.items() if config.seat_of(k) is not None}
        self.seated_by_us = (config.digest(), seated, back)
        self._forget_newcomers(lambda key: config.seat_of(key) is not None)
        self.returners = {k: v for k, v in self.returners.items() if config.seat_of(k) is None}
        signature = self.sign(CONFIG_LABEL + config.digest())
        self.segment_sigs = {config.digest(): signature}
        if self.is_host:
            self.node.admit()
        payload = self.handshake.offer_payload(config, signature)
        carry = config.carry
        assert carry is not None
        for seat in joining:
            if config.seat_of(seat.seat.key) is not None:
                self.node.queue_signed(payload, to=seat.seat.key)
                self.catch_up.send_chain_tail(seat.seat.key, carry.records)
        return machine.take_events()

    def segment_voided(self, config: TableConfig, kept: int) -> None:
        """A certificate of the ended segment's last hand voided our switch to ``config``
        (P-52): our signature on it is withdrawn, and the newcomers and returners it seated
        wait again (if we host the segment once more, we seat them there). A newcomer may
        have sat down in the void segment already: the records we send it with the next offer
        start where our transcript was cut (``kept``), so that it meets the certificate and
        undoes that switch as we did. The segment ends again with its own ``SeatsChanging``."""
        digest = config.digest()
        self.segment_sigs.pop(digest, None)
        ours = self.seated_by_us
        if ours is not None and ours[0] == digest:
            self.waiting.update(ours[1])
            self.returners.update(ours[2])
            self.seated_by_us = None
            self.reseat_again = bool(ours[1] or ours[2])
            for key in ours[1]:
                self.catch_up.sent_upto(key, kept)
        self.change_since, self.next_host_missed, self.too_few = None, False, None
        self.end_moving = None

    @staticmethod
    def ended_config(machine: TableMachine, hand: int) -> TableConfig:
        """The configuration of the segment that ended after ``hand`` (the machine may have
        gone on into the next one in the same batch of records)."""
        for before, after in zip(machine.segments, machine.segments[1:], strict=False):
            if after.carry is not None and after.carry.hands == hand:
                return before
        return machine.config

    def _moved_on(self, machine: TableMachine, event: SeatsChanging) -> None:
        """After a change the machine went past at once: note our own part in it."""
        ended = self.ended_config(machine, event.hand)
        if ended is machine.config or not machine.sitting_out:
            return
        ours = ended.seat_of(self.key)
        asked = dict(event.changes)
        self.change_taken = self.change_taken or (ours is not None and ours in asked)
        if ours is not None and event.silent == ours:
            self._back_from_silence()

    def _back_from_silence(self) -> None:
        """Sat out for our own silence, and here we are (we read it): ask to come back."""
        if not self.coming_back:
            self.node.say(notice("back_from_silence"))
            self.coming_back = True

    def segment_pending(self, machine: TableMachine, now: float) -> bool:
        """The segment ended for a seat change and we stay: wait (bounded) for the next
        host's configuration instead of finishing."""
        if machine.seat_change is None or not machine.over:
            return False
        try:
            plan = machine.seat_plan()
        except SegmentError:
            return False
        staying = {machine.config.seats[s].key for s in plan.stays}
        away = {d.key for d in plan.away}
        # A newcomer whose seat's segment was void (P-52) waits to be seated afresh.
        following = (self.key in away and self.follows_away()) or machine.arriving
        if (self.key not in staying and not following) or plan.host is None:
            return False
        if self.change_since is None:
            self.change_since = now
        if now - self.change_since < NEXT_HOST_WAIT * machine.timeout:
            return True
        if not self.next_host_missed:
            self.next_host_missed = True
            waited = now - self.change_since
            self.node.say(notice("next_host_missing", seconds=waited))
        return False


def _buy_in(machine: TableMachine, payload: dict[str, Any]) -> int | ConfigError:
    """A newcomer's buy-in (the game's default if it named none), or why it is refused."""
    buy_in = payload.get("buy_in")
    if not isinstance(buy_in, int) or isinstance(buy_in, bool):
        buy_in = default_buy_in(machine.engine, machine.config.game.options)
    try:
        machine.engine.newcomer_ledger(buy_in)
    except ConfigError as exc:
        return exc
    return buy_in
