"""The hub: forwards node messages between the peers of a table (star topology).

A host runs one in its own process (direct mode, where only the host may ``open`` a table);
``dealerless relay`` runs one on its own. The hub holds no game keys and is not trusted: every
table frame and every node message that matters is signed by its author and checked by every
peer, so a hub can only delay or drop messages (which the step timeout settles).

It serves only invited seats: a table id is bound to its host's key (the ``open`` carries what
the id is derived from), and a table's broadcasts reach only the keys its host admitted; any
other member waits in a small bounded lobby where it can talk to the host alone (to prove the
invite's token) with small messages (a hello), a few a second. It caps frame sizes
(transport), connections (in all, per source address and per key), concurrent handshakes,
tables (in all, per source address and per key), members and waiting members per table, every
member's queue (in messages and bytes) and every connection's rates. It shares itself fairly
(node/hub_state.py): a table that carries nothing is idle and later closed, and at the caps the
idle and the over-represented make room. The host's own seat in direct mode is never cut: while
its queue is full the others' messages wait. See spec/node.md §2 and spec/security.md §8.

Client -> hub: ``open {table, seats, salt, terms}`` (the host), ``join {table}``,
``admit {keys}`` (the host), ``send {to?, data}``. Hub -> client: ``joined {host, members,
admitted}``, ``admitted {members}``, ``msg {from, data, direct?}``, ``peer {key, up}``,
``error {reason}``.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from typing import Any

import trio

from dealerless.node.hub_state import (
    Census,
    Connection,
    HubLimits,
    Member,
    Notes,
    Table,
    source_of,
)
from dealerless.node.identity import Identity, format_fingerprint
from dealerless.node.invite import host_pin, table_binding
from dealerless.node.notices import Notice
from dealerless.node.transport import ChannelError, HandshakeError, SecureChannel, TransportConfig
from dealerless.node.transport import accept as accept_channel
from dealerless.node.wire import WireError, decode, encode

__all__ = ["Hub", "HubLimits", "Member", "bound_port"]

Say = Callable[[Notice], None]
_LINK_ERRORS = (ChannelError, trio.BrokenResourceError, trio.ClosedResourceError)


class _Bucket:
    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst, self.level = rate, burst, burst
        self.stamp = trio.current_time()

    def delay(self, amount: float) -> float:
        now = trio.current_time()
        self.level = min(self.burst, self.level + (now - self.stamp) * self.rate)
        self.stamp = now
        self.level -= amount
        return 0.0 if self.level >= 0 else -self.level / self.rate


class Hub:
    def __init__(
        self, limits: HubLimits | None = None, say: Say | None = None, *, owner: bytes | None = None
    ) -> None:
        """``owner``: in direct mode the host's key, the only one that may open a table."""
        self.limits = limits or HubLimits()
        self.owner = owner
        self.tables: dict[bytes, Table] = {}
        self.connections = 0
        self.forwarded = 0
        self.refused = 0
        self.say: Say = say or (lambda _text: None)
        self.notes = Notes(lambda said: self.say(said))
        self.census = Census(self.limits)
        self._own: Member | None = None  # the host's own seat, attached in-process

    def transport_config(self) -> TransportConfig:
        return TransportConfig(
            max_frame_size=self.limits.max_frame_size,
            keepalive_interval=self.limits.keepalive,
            idle_timeout=self.limits.idle_timeout,
        )

    # ---------------------------------------------------------------- members
    def new_member(
        self, key: bytes, *, own: bool = False, address: str = ""
    ) -> tuple[Member, trio.MemoryReceiveChannel[bytes]]:
        """A member for ``key``; ``own``: the host's seat in this process, which is never cut
        (a sender waits while its queue is full instead)."""
        send, receive = trio.open_memory_channel[bytes](math.inf)  # bounded by Member.full
        limits = self.limits
        label = format_fingerprint(key)[:9]
        member = Member(key, send, limits.queue_bytes, limits.queue, label=label, own=own)
        member.address = address
        if own:
            self._own = member
        return member, receive

    def handle(self, member: Member, message: dict[str, Any]) -> None:
        """One message from ``member`` (synchronous: forwarding never waits)."""
        kind = message["t"]
        if kind == "send":
            self._forward(member, message)
        elif kind == "open":
            self._open_table(member, message)
        elif kind == "join":
            self._join(member, message)
        elif kind == "admit":
            self._admit(member, message)
        else:
            self._error(member, f"unknown hub message type {kind!r}")

    def _error(self, member: Member, reason: str) -> None:
        member.deliver(encode({"t": "error", "reason": reason}))

    def _table_id(self, member: Member, message: dict[str, Any]) -> bytes | None:
        tid = message.get("table")
        if not isinstance(tid, bytes) or len(tid) != 16:
            self._error(member, "bad table id")
            return None
        if member.table is not None:
            self._error(member, "this connection already belongs to a table")
            return None
        return tid

    def _open_table(self, member: Member, message: dict[str, Any]) -> None:
        tid = self._table_id(member, message)
        if tid is None:
            return
        if self.owner is not None and member.key != self.owner:
            self._error(member, "only the host opens tables on its own hub")
            return
        seats, salt, terms = message.get("seats"), message.get("salt"), message.get("terms")
        if not isinstance(seats, int) or not 1 <= seats <= self.limits.max_members:
            self._error(member, f"a table has 1..{self.limits.max_members} seats")
            return
        if not isinstance(salt, bytes) or not isinstance(terms, bytes):
            self._error(member, "open needs the salt and terms the table id is derived from")
            return
        if table_binding(host_pin(member.key, terms), salt) != tid:
            self._error(member, "that table id is not bound to your key")
            return
        table = self.tables.get(tid)
        if table is None:
            if not self._may_open(member):
                return
            now = trio.current_time()
            table = Table(tid, member.key, seats, {member.key}, address=member.address)
            table.opened = table.last_frame = now
            self.tables[tid] = table
            self.census.table_opened(table)
        self._place(table, member, admitted=True)

    def _may_open(self, member: Member) -> bool:
        """May ``member`` open one more table here (per source, per key, in all)?"""
        limits, census, who = self.limits, self.census, f"{member.label} at {member.address}"
        reason = ""
        if member.address and census.tables_at[member.address] >= limits.tables_per_address:
            reason = f"too many tables from your address (at most {limits.tables_per_address})"
            census.capped[member.address] = trio.current_time()
        elif census.tables_of[member.key] >= limits.tables_per_key:
            reason = f"your key hosts too many tables here (at most {limits.tables_per_key})"
        elif len(self.tables) >= limits.max_tables:
            victim = census.table_room(trio.current_time())
            if victim is None:
                reason = "this hub serves too many tables; try later"
            else:
                self.notes(
                    "table-room",
                    f"closed the idle table of {victim.address} (no message for "
                    f"{limits.idle_after:.0f} s) to make room for a table of {who}",
                )
                self._close_table(victim, "the hub is full and this table was idle")
        if reason:
            self.refused += 1
            self.notes("table-refused", f"refused a table of {who}: {reason}")
            self._error(member, reason)
        return not reason

    def _close_table(self, table: Table, reason: str) -> None:
        for member in table.connections():
            member.table = None
            self._error(member, reason)
            member.cut()
        table.members.clear()
        table.waiting.clear()
        self._drop_table(table)

    def _drop_table(self, table: Table) -> None:
        if self.tables.get(table.table_id) is table:
            del self.tables[table.table_id]
            self.census.table_closed(table)

    def _join(self, member: Member, message: dict[str, Any]) -> None:
        tid = self._table_id(member, message)
        if tid is None:
            return
        table = self.tables.get(tid)
        if table is None:
            self._error(member, "no such table here (the host has not opened it yet)")
            return
        self._place(table, member, admitted=member.key in table.admitted)

    def _place(self, table: Table, member: Member, *, admitted: bool) -> None:
        for old in (table.members.pop(member.key, None), table.waiting.pop(member.key, None)):
            if old is not None:  # a reconnect replaces a stale link
                old.table = None
                old.cut()
        member.table = table
        if admitted:
            if len(table.members) >= table.seats:
                self._error(member, f"the table is full ({table.seats} seats)")
                member.table = None
                return
            member.admitted = True
            table.members[member.key] = member
        else:
            if len(table.waiting) >= self.limits.max_waiting:
                oldest = next(iter(table.waiting.values()))
                self._drop_waiting(table, oldest, "too many connections wait at this table")
            table.waiting[member.key] = member
        joined = {"t": "joined", "host": table.host, "admitted": admitted, "members": []}
        if admitted:
            joined["members"] = list(table.members)
        member.deliver(encode(joined))
        if admitted:
            self._broadcast(table, member, encode({"t": "peer", "key": member.key, "up": True}))

    def _drop_waiting(self, table: Table, member: Member, reason: str) -> None:
        del table.waiting[member.key]
        member.table = None
        self._error(member, reason)
        member.cut()

    def _admit(self, member: Member, message: dict[str, Any]) -> None:
        """The host names the keys that may hear the table (its lobby, then its seats)."""
        table = member.table
        keys = message.get("keys")
        if table is None or member.key != table.host or not member.admitted:
            self._error(member, "only the host of a table admits keys")
            return
        if not isinstance(keys, list) or not all(isinstance(k, bytes) for k in keys):
            self._error(member, "admit needs a list of keys")
            return
        table.admitted = {table.host, *keys[: self.limits.max_members]}
        # Seats change between hands (newcomers): the host's list is the table's size now.
        table.seats = max(table.seats, min(len(table.admitted), self.limits.max_members))
        for key in list(table.members):
            if key not in table.admitted:  # left the lobby: back to waiting
                left = table.members.pop(key)
                left.admitted = False
                table.waiting[key] = left
                self._broadcast(table, left, encode({"t": "peer", "key": key, "up": False}))
        for key in list(table.waiting):
            if key in table.admitted and len(table.members) < table.seats:
                new = table.waiting.pop(key)
                new.admitted = True
                table.members[key] = new
                new.deliver(encode({"t": "admitted", "members": list(table.members)}))
                self._broadcast(table, new, encode({"t": "peer", "key": key, "up": True}))

    def _broadcast(self, table: Table, sender: Member, data: bytes) -> None:
        for other in list(table.members.values()):
            if other is not sender and other.deliver(data):
                self.forwarded += 1

    def _forward(self, member: Member, message: dict[str, Any]) -> None:
        table = member.table
        data = message.get("data")
        if table is None or not isinstance(data, bytes):
            self._error(member, "send before joining a table, or without data")
            return
        to = message.get("to")
        envelope: dict[str, object] = {"t": "msg", "from": member.key, "data": data}
        if not member.admitted:
            # Waiting: it may speak to the host alone (to prove the invite), and hears nothing.
            host = table.members.get(table.host)
            targets = [host] if to == table.host and host is not None else []
            envelope["direct"] = True
        elif to is None:
            targets = [m for m in list(table.members.values()) if m is not member]
        else:
            # Marked direct, so a receiver can tell a frame meant for it alone (spec/node.md).
            envelope["direct"] = True
            target = None
            if isinstance(to, bytes):
                target = table.members.get(to)
                if target is None and member.key == table.host:
                    target = table.waiting.get(to)  # the host answers a waiting joiner
            targets = [] if target is None or target is member else [target]
        if targets:  # the table carries messages between connections: it is not idle
            table.last_frame = trio.current_time()
        out = encode(envelope)
        for target in targets:
            self._relay(member, target, out)

    def _relay(self, sender: Member, target: Member, out: bytes) -> None:
        """Pass one copy of a member's message on (a test hub injects its faults here)."""
        if target.deliver(out):
            self.forwarded += 1

    def detach(self, member: Member) -> None:
        with contextlib.suppress(trio.ClosedResourceError):
            member.close()
        if member is self._own:
            self._own = None
        table = member.table
        if table is None:
            return
        if table.waiting.get(member.key) is member:
            del table.waiting[member.key]
        elif table.members.get(member.key) is member:
            del table.members[member.key]
            self._broadcast(table, member, encode({"t": "peer", "key": member.key, "up": False}))
        if not table.members and not table.waiting:
            self._drop_table(table)

    async def room_at_host(self, sender: Member, size: int) -> None:
        """Direct mode: while the host's own seat has its queue full, a member of its table
        waits before its next message is handled. The host's link is never cut: the senders
        are slowed to the host's pace instead (the queue stays bounded: a message waits here
        until it fits)."""
        own = self._own
        if own is None or sender is own or sender.table is None or sender.table is not own.table:
            return
        if own.full(size):
            self.notes(
                "host-busy",
                f"the host's own queue is full ({own.queued} bytes): messages from its table "
                "wait for it (the host's link is never cut)",
            )
            await own.wait_for_room(size)

    # ---------------------------------------------------------------- network
    async def serve_channel(self, channel: SecureChannel, conn: Connection | None = None) -> None:
        """Run one connection until it ends."""
        key = channel.peer_id.public_key
        if conn is not None:
            held = self.census.keys[key]
            if held >= self.limits.max_per_key:
                self.refused += 1
                reason = f"too many connections with your key (at most {self.limits.max_per_key})"
                self.notes(
                    "per-key",
                    f"refused a connection of {format_fingerprint(key)[:9]} at {conn.address}: "
                    f"its key holds {held} (at most {self.limits.max_per_key})",
                )
                with contextlib.suppress(*_LINK_ERRORS):
                    await channel.send(encode({"t": "error", "reason": reason}))
                await channel.aclose(reason)
                return
            conn.key = key
            self.census.keys[key] += 1
        address = "" if conn is None else conn.address
        member, outgoing = self.new_member(key, address=address)
        if conn is not None:
            conn.member = member

        async def writer() -> None:
            try:
                async for data in outgoing:
                    await channel.send(data)
                    member.sent(data)
                await channel.aclose("the hub cut this link (closed or too slow)")
            except _LINK_ERRORS:
                pass
            nursery.cancel_scope.cancel()

        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(writer)
                with contextlib.suppress(*_LINK_ERRORS, trio.TooSlowError):
                    await self._reader(member, channel)
                nursery.cancel_scope.cancel()
        finally:
            self.detach(member)
            with trio.CancelScope(shield=True):
                await channel.aclose()

    async def _reader(self, member: Member, channel: SecureChannel) -> None:
        limits = self.limits
        messages = _Bucket(limits.rate_messages, limits.rate_messages)
        volume = _Bucket(limits.rate_bytes, limits.rate_bytes)
        # Until the host admits it, a connection says hello: a few small messages a second.
        lobby = _Bucket(limits.lobby_rate, 2 * limits.lobby_rate)
        lobby_rate = limits.lobby_rate * limits.lobby_message
        lobby_volume = _Bucket(lobby_rate, 2 * lobby_rate)
        deadline = trio.current_time() + limits.join_timeout
        while not member.closed:
            if member.table is None:
                # A connection must open or join in time (fail_at raises TooSlowError).
                with trio.fail_at(deadline):
                    data = await channel.receive()
            else:
                # No timeout of our own here: re-entering receive() would restart the
                # channel's idle clock, and a silent link must die after idle_timeout.
                data = await channel.receive()
            if member.admitted:
                wait = min(max(messages.delay(1), volume.delay(len(data))), 5.0)
            else:
                wait = min(max(lobby.delay(1), lobby_volume.delay(len(data))), 10.0)
            if wait > 0:
                await trio.sleep(wait)
            if not member.admitted and len(data) > limits.lobby_message:
                self.refused += 1
                rule = (
                    f"before the host admits it, a connection sends at most {limits.lobby_message}"
                )
                self.notes(
                    "lobby-size",
                    f"dropped a {len(data)}-byte message from {member.label} at "
                    f"{member.address or 'this process'}: {rule} bytes a message (a hello)",
                )
                self._error(member, f"message dropped: {rule} bytes a message (a hello)")
                continue
            try:
                message = decode(data)
            except WireError as exc:
                self._error(member, str(exc))
                continue
            await self.room_at_host(member, len(data))
            self.handle(member, message)

    def _end(self, victim: Connection, newcomer: str, now: float) -> None:
        """End ``victim`` to make room for a connection from ``newcomer``."""
        idle = self.census.idle(victim, now)
        why = "idle" if idle else f"its address holds {self.census.count(victim.address)}"
        self.notes(
            "made-room",
            f"the hub is full: ended a connection from {victim.address} ({why}) to make room "
            f"for one from {newcomer}",
        )
        victim.scope.cancel()
        self.census.remove(victim)  # counted out now; its task ends at its next await

    async def serve_stream(self, stream: trio.SocketStream, identity: Identity) -> None:
        limits, census = self.limits, self.census
        try:
            address = source_of(str(stream.socket.getpeername()[0]))
        except (OSError, IndexError):
            address = "?"
        now = trio.current_time()
        refused, kind = "", "full"
        if census.count(address) >= limits.max_per_address:
            kind = "per-address"
            refused = f"it holds {census.count(address)} (at most {limits.max_per_address})"
        elif census.capped_lately(address, now):
            kind = "capped"
            refused = (
                f"it was refused a table for its cap of {limits.tables_per_address} less than "
                f"{limits.cap_cooldown:.0f} s ago"
            )
        elif len(census.open) >= limits.max_connections:
            cooling = census.cooling(address, now)
            victim = None if cooling else census.room_for(address, now)
            if cooling:
                kind = "cooling"
                refused = (
                    f"the hub is full and this address lost a connection to make room less than "
                    f"{limits.room_cooldown:.0f} s ago"
                )
            elif victim is None:
                refused = (
                    f"the hub holds {len(census.open)} connections, none idle nor from an "
                    f"address with two more than this one's {census.count(address)}"
                )
            else:
                self._end(victim, address, now)
        if refused:
            self.refused += 1
            self.notes(kind, f"refused a connection from {address}: {refused}")
            await trio.aclose_forcefully(stream)
            return
        conn = Connection(address, trio.CancelScope(), now)
        census.add(conn)
        self.connections += 1
        try:
            with conn.scope:
                channel = await self._handshake(stream, identity, conn)
                if channel is not None:
                    await self.serve_channel(channel, conn)
        finally:
            census.remove(conn)
            self.connections -= 1
            with trio.CancelScope(shield=True):
                await trio.aclose_forcefully(stream)

    async def _handshake(
        self, stream: trio.SocketStream, identity: Identity, conn: Connection
    ) -> SecureChannel | None:
        limits, census = self.limits, self.census
        address = conn.address
        if census.shaking[address] >= limits.handshakes_per_address:
            self.refused += 1
            return None
        if sum(census.shaking.values()) >= limits.max_handshakes:
            # Full: end a handshake of the address with the most under way (a stranger who
            # opens many and never finishes them), not this newcomer's.
            victim = census.handshake_room(address)
            if victim is None:
                self.refused += 1
                return None
            victim.scope.cancel()
            victim.shaking = False
            census.shaking[victim.address] -= 1
        conn.shaking = True
        census.shaking[address] += 1
        try:
            config = self.transport_config()
            with trio.move_on_after(config.handshake_timeout):
                return await accept_channel(stream, identity, config=config)
            return None
        except (HandshakeError, ChannelError, OSError, trio.BrokenResourceError) as exc:
            self.notes("handshake", f"refused a connection from {address}: {exc}")
            return None
        finally:
            if conn.shaking:  # (not if it was ended to make room: counted out then)
                conn.shaking = False
                census.shaking[address] -= 1
            if census.shaking[address] <= 0:
                del census.shaking[address]

    async def _sweeper(self) -> None:
        """Every few seconds: close the tables that carried nothing for ``table_expiry``, and
        list the idle tables and connections (the first to make room when the hub is full)."""
        expiry = self.limits.table_expiry
        while True:
            await trio.sleep(self.limits.sweep_every)
            for table in self.census.sweep(list(self.tables.values()), trio.current_time()):
                self.notes(
                    "expired",
                    f"closed a table opened from {table.address}: it carried no message for "
                    f"{expiry:.0f} s",
                )
                self._close_table(
                    table,
                    f"this table carried no message for {expiry:.0f} s: the hub closed it "
                    "(open it again to keep waiting)",
                )

    async def serve_tcp(
        self,
        host: str,
        port: int,
        identity: Identity,
        *,
        task_status: trio.TaskStatus[list[trio.SocketListener]] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        listeners = await trio.open_tcp_listeners(port, host=host or None)

        async def handler(stream: trio.SocketStream) -> None:
            await self.serve_stream(stream, identity)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._sweeper)
            await nursery.start(trio.serve_listeners, handler, listeners)
            task_status.started(listeners)
            await trio.sleep(math.inf)


def bound_port(listeners: list[trio.SocketListener]) -> int:
    port: int = listeners[0].socket.getsockname()[1]
    return port
