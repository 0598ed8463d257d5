"""The hub: forwards node messages between the peers of a table (star topology).

A host runs one in its own process (direct mode, where only the host may ``open`` a table);
``dealerless relay`` runs one on its own. The hub holds no game keys and is not trusted: every
table frame and every node message that matters is signed by its author and checked by every
peer, so a hub can only delay or drop messages (which the step timeout settles).

It serves only invited seats: a table id is bound to its host's key (the ``open`` carries what
the id is derived from), and a table's broadcasts reach only the keys its host admitted; any
other member waits in a small bounded lobby where it can talk to the host alone (to prove the
invite's token). It caps frame sizes (transport), connections (in all and per source address),
concurrent handshakes, tables, members and waiting members per table, every member's queue (in
messages and bytes) and every connection's rates; at the connection cap a stranger's
connection (not an admitted member) makes room. See spec/node.md §2.

Client -> hub: ``open {table, seats, salt, terms}`` (the host), ``join {table}``,
``admit {keys}`` (the host), ``send {to?, data}``. Hub -> client: ``joined {host, members,
admitted}``, ``admitted {members}``, ``msg {from, data, direct?}``, ``peer {key, up}``,
``error {reason}``.
"""

from __future__ import annotations

import collections
import contextlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import trio

from dealerless.node.identity import Identity, format_fingerprint
from dealerless.node.invite import host_pin, table_binding
from dealerless.node.transport import ChannelError, HandshakeError, SecureChannel, TransportConfig
from dealerless.node.transport import accept as accept_channel
from dealerless.node.wire import WireError, decode, encode

__all__ = ["Hub", "HubLimits", "Member"]

Say = Callable[[str], None]
_LINK_ERRORS = (ChannelError, trio.BrokenResourceError, trio.ClosedResourceError)


@dataclass(frozen=True)
class HubLimits:
    max_frame_size: int = 1 << 20
    max_connections: int = 4096
    max_per_address: int = 64  # connections from one source address
    max_handshakes: int = 64  # concurrent handshakes in all ...
    handshakes_per_address: int = 8  # ... and from one source address
    max_tables: int = 10_000
    max_members: int = 8  # per table (the largest game has 8 seats)
    max_waiting: int = 16  # per table: connections not admitted (yet); the oldest makes room
    queue: int = 4096  # messages waiting for one member ...
    queue_bytes: int = 8 << 20  # ... and their bytes; a member that falls behind is cut
    rate_messages: float = 2000.0  # per connection per second (token bucket, burst = 1 s)
    rate_bytes: float = 16 * 1024 * 1024.0
    join_timeout: float = 15.0
    keepalive: float = 5.0
    idle_timeout: float = 20.0


@dataclass(eq=False)
class Member:
    key: bytes
    send: trio.MemorySendChannel[bytes]
    max_bytes: int = 8 << 20
    table: Table | None = None
    admitted: bool = False
    closed: bool = False
    label: str = ""
    queued: int = 0  # bytes handed to the writer and not yet sent

    def deliver(self, data: bytes) -> bool:
        if self.closed:
            return False
        if self.queued + len(data) > self.max_bytes:
            self.cut()
            return False
        try:
            self.send.send_nowait(data)
        except trio.WouldBlock:
            self.cut()  # fell too far behind: the connection is cut
            return False
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self.closed = True
            return False
        self.queued += len(data)
        return True

    def sent(self, data: bytes) -> None:
        self.queued -= len(data)

    def cut(self) -> None:
        self.closed = True
        self.send.close()


@dataclass(eq=False)
class Table:
    table_id: bytes
    host: bytes
    seats: int
    admitted: set[bytes] = field(default_factory=set)
    members: dict[bytes, Member] = field(default_factory=dict)  # admitted and connected
    waiting: dict[bytes, Member] = field(default_factory=dict)  # connected, not admitted


@dataclass(eq=False)
class _Connection:
    address: str
    scope: trio.CancelScope
    member: Member | None = None
    shaking: bool = False  # its handshake is under way

    @property
    def admitted(self) -> bool:
        return self.member is not None and self.member.admitted and not self.member.closed


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
        self._open: dict[int, _Connection] = {}  # by id, in arrival order (dicts keep it)
        self._per_address: collections.Counter[str] = collections.Counter()
        self._shaking: collections.Counter[str] = collections.Counter()

    def transport_config(self) -> TransportConfig:
        return TransportConfig(
            max_frame_size=self.limits.max_frame_size,
            keepalive_interval=self.limits.keepalive,
            idle_timeout=self.limits.idle_timeout,
        )

    # ---------------------------------------------------------------- members
    def new_member(self, key: bytes) -> tuple[Member, trio.MemoryReceiveChannel[bytes]]:
        send, receive = trio.open_memory_channel[bytes](self.limits.queue)
        member = Member(key, send, self.limits.queue_bytes, label=format_fingerprint(key)[:9])
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
            if len(self.tables) >= self.limits.max_tables:
                self._error(member, "this hub serves too many tables; try later")
                return
            table = self.tables[tid] = Table(tid, member.key, seats, {member.key})
        self._place(table, member, admitted=True)

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
            targets = [] if target is None else [target]
        out = encode(envelope)
        for target in targets:
            self._relay(member, target, out)

    def _relay(self, sender: Member, target: Member, out: bytes) -> None:
        """Pass one copy of a member's message on (a test hub injects its faults here)."""
        if target.deliver(out):
            self.forwarded += 1

    def detach(self, member: Member) -> None:
        member.closed = True
        with contextlib.suppress(trio.ClosedResourceError):
            member.send.close()
        table = member.table
        if table is None:
            return
        if table.waiting.get(member.key) is member:
            del table.waiting[member.key]
        elif table.members.get(member.key) is member:
            del table.members[member.key]
            self._broadcast(table, member, encode({"t": "peer", "key": member.key, "up": False}))
        if not table.members and not table.waiting and self.tables.get(table.table_id) is table:
            del self.tables[table.table_id]

    # ---------------------------------------------------------------- network
    async def serve_channel(self, channel: SecureChannel, conn: _Connection | None = None) -> None:
        """Run one connection until it ends."""
        member, outgoing = self.new_member(channel.peer_id.public_key)
        if conn is not None:
            conn.member = member
        limits = self.limits
        messages = _Bucket(limits.rate_messages, limits.rate_messages)
        volume = _Bucket(limits.rate_bytes, limits.rate_bytes)

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
                    await self._reader(member, channel, messages, volume)
                nursery.cancel_scope.cancel()
        finally:
            self.detach(member)
            with trio.CancelScope(shield=True):
                await channel.aclose()

    async def _reader(
        self, member: Member, channel: SecureChannel, messages: _Bucket, volume: _Bucket
    ) -> None:
        limits = self.limits
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
            wait = max(messages.delay(1), volume.delay(len(data)))
            if wait > 0:
                await trio.sleep(min(wait, 5.0))
            try:
                self.handle(member, decode(data))
            except WireError as exc:
                self._error(member, str(exc))

    @staticmethod
    def _victim(candidates: list[_Connection]) -> _Connection | None:
        """Whom to end to make room: the oldest connection of the source address that holds
        the most of ``candidates`` (so one address, or a stranger's many, makes room first,
        and a player's single connection last)."""
        if not candidates:
            return None
        per_address = collections.Counter(c.address for c in candidates)
        top = max(per_address.values())
        return next(c for c in candidates if per_address[c.address] == top)

    def _make_room(self) -> bool:
        """At the connection cap: end a connection that is not an admitted member."""
        victim = self._victim([c for c in self._open.values() if not c.admitted])
        if victim is None:
            return False
        victim.scope.cancel()
        self._open.pop(id(victim), None)  # counted out now; its task ends at its next await
        return True

    async def serve_stream(self, stream: trio.SocketStream, identity: Identity) -> None:
        limits = self.limits
        try:
            address = str(stream.socket.getpeername()[0])
        except (OSError, IndexError):
            address = "?"
        full = len(self._open) >= limits.max_connections and not self._make_room()
        if full or self._per_address[address] >= limits.max_per_address:
            self.refused += 1
            await trio.aclose_forcefully(stream)
            return
        conn = _Connection(address, trio.CancelScope())
        self._open[id(conn)] = conn
        self._per_address[address] += 1
        self.connections += 1
        try:
            with conn.scope:
                channel = await self._handshake(stream, identity, conn)
                if channel is not None:
                    await self.serve_channel(channel, conn)
        finally:
            self._open.pop(id(conn), None)
            self._per_address[address] -= 1
            if not self._per_address[address]:
                del self._per_address[address]
            self.connections -= 1
            with trio.CancelScope(shield=True):
                await trio.aclose_forcefully(stream)

    async def _handshake(
        self, stream: trio.SocketStream, identity: Identity, conn: _Connection
    ) -> SecureChannel | None:
        limits = self.limits
        address = conn.address
        if self._shaking[address] >= limits.handshakes_per_address:
            self.refused += 1
            return None
        if sum(self._shaking.values()) >= limits.max_handshakes:
            # Full: end a handshake of the address with the most under way (a stranger who
            # opens many and never finishes them), not this newcomer's.
            shaking = [c for c in self._open.values() if c.shaking and c is not conn]
            victim = self._victim(shaking)
            if victim is None or self._shaking[victim.address] <= self._shaking[address]:
                self.refused += 1
                return None
            victim.scope.cancel()
            victim.shaking = False
            self._shaking[victim.address] -= 1
        conn.shaking = True
        self._shaking[address] += 1
        try:
            config = self.transport_config()
            with trio.move_on_after(config.handshake_timeout):
                return await accept_channel(stream, identity, config=config)
            return None
        except (HandshakeError, ChannelError, OSError, trio.BrokenResourceError) as exc:
            self.say(f"refused a connection: {exc}")
            return None
        finally:
            if conn.shaking:  # (not if it was ended to make room: counted out then)
                conn.shaking = False
                self._shaking[address] -= 1
            if self._shaking[address] <= 0:
                del self._shaking[address]

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
            await nursery.start(trio.serve_listeners, handler, listeners)
            task_status.started(listeners)
            await trio.sleep(math.inf)


def bound_port(listeners: list[trio.SocketListener]) -> int:
    port: int = listeners[0].socket.getsockname()[1]
    return port
