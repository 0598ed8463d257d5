"""The hub: forwards node messages between the peers of a table (star topology).

A host runs one in its own process (direct mode); ``dealerless relay`` runs one on its own.
The hub holds no game keys and is not trusted: every table frame is signed by its author and
checked by every peer, so a hub can only delay or drop messages (which the step timeout
settles). It caps frame sizes (transport), connections, tables, members per table, queue
lengths and per-connection rates, and serves many tables at once.

Client -> hub: ``open {table, seats}`` (the host), ``join {table}``, ``send {to?, data}``.
Hub -> client: ``joined {host, members}``, ``msg {from, data}``, ``peer {key, up}``,
``error {reason}``.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import trio

from dealerless.node.identity import Identity, format_fingerprint
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
    max_tables: int = 10_000
    max_members: int = 8  # per table (the largest game has 8 seats)
    queue: int = 4096  # messages waiting for one member; a member that falls behind is cut
    rate_messages: float = 2000.0  # per connection per second (token bucket, burst = 1 s)
    rate_bytes: float = 16 * 1024 * 1024.0
    join_timeout: float = 15.0
    keepalive: float = 5.0
    idle_timeout: float = 20.0


@dataclass
class Member:
    key: bytes
    send: trio.MemorySendChannel[bytes]
    table: Table | None = None
    closed: bool = False
    label: str = ""

    def deliver(self, data: bytes) -> bool:
        if self.closed:
            return False
        try:
            self.send.send_nowait(data)
        except trio.WouldBlock:
            self.closed = True  # fell too far behind: the connection is cut
            self.send.close()
            return False
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self.closed = True
            return False
        return True


@dataclass
class Table:
    table_id: bytes
    host: bytes
    seats: int
    members: dict[bytes, Member] = field(default_factory=dict)


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
    def __init__(self, limits: HubLimits | None = None, say: Say | None = None) -> None:
        self.limits = limits or HubLimits()
        self.tables: dict[bytes, Table] = {}
        self.connections = 0
        self.forwarded = 0
        self.say: Say = say or (lambda _text: None)

    def transport_config(self) -> TransportConfig:
        return TransportConfig(
            max_frame_size=self.limits.max_frame_size,
            keepalive_interval=self.limits.keepalive,
            idle_timeout=self.limits.idle_timeout,
        )

    # ---------------------------------------------------------------- members
    def new_member(self, key: bytes) -> tuple[Member, trio.MemoryReceiveChannel[bytes]]:
        send, receive = trio.open_memory_channel[bytes](self.limits.queue)
        return Member(key, send, label=format_fingerprint(key)[:9]), receive

    def handle(self, member: Member, message: dict[str, Any]) -> None:
        """One message from ``member`` (synchronous: forwarding never waits)."""
        kind = message["t"]
        if kind == "send":
            self._forward(member, message)
        elif kind in ("open", "join"):
            self._attach(member, message, kind == "open")
        else:
            self._error(member, f"unknown hub message type {kind!r}")

    def _error(self, member: Member, reason: str) -> None:
        member.deliver(encode({"t": "error", "reason": reason}))

    def _attach(self, member: Member, message: dict[str, Any], open_: bool) -> None:
        tid = message.get("table")
        if not isinstance(tid, bytes) or len(tid) != 16:
            self._error(member, "bad table id")
            return
        if member.table is not None:
            self._error(member, "this connection already belongs to a table")
            return
        table = self.tables.get(tid)
        if open_:
            seats = message.get("seats")
            if not isinstance(seats, int) or not 1 <= seats <= self.limits.max_members:
                self._error(member, f"a table has 1..{self.limits.max_members} seats")
                return
            if table is None:
                if len(self.tables) >= self.limits.max_tables:
                    self._error(member, "this hub serves too many tables; try later")
                    return
                table = self.tables[tid] = Table(tid, member.key, seats)
            elif table.host != member.key:
                self._error(member, "that table id is taken by another host")
                return
        elif table is None:
            self._error(member, "no such table here (the host has not opened it yet)")
            return
        old = table.members.get(member.key)
        if old is None and len(table.members) >= table.seats:
            self._error(member, f"the table is full ({table.seats} seats)")
            return
        if old is not None:  # a reconnect replaces a stale link
            old.closed = True
            old.send.close()
        member.table = table
        table.members[member.key] = member
        member.deliver(encode({"t": "joined", "host": table.host, "members": list(table.members)}))
        self._broadcast(table, member, encode({"t": "peer", "key": member.key, "up": True}))

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
        if to is None:
            targets = [m for m in list(table.members.values()) if m is not member]
        else:
            # Marked direct, so a receiver can tell a frame meant for it alone (spec/node.md).
            envelope["direct"] = True
            target = table.members.get(to) if isinstance(to, bytes) else None
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
        if table is None or table.members.get(member.key) is not member:
            return
        del table.members[member.key]
        self._broadcast(table, member, encode({"t": "peer", "key": member.key, "up": False}))
        if not table.members:
            del self.tables[table.table_id]

    # ---------------------------------------------------------------- network
    async def serve_channel(self, channel: SecureChannel) -> None:
        """Run one connection until it ends."""
        member, outgoing = self.new_member(channel.peer_id.public_key)
        limits = self.limits
        messages = _Bucket(limits.rate_messages, limits.rate_messages)
        volume = _Bucket(limits.rate_bytes, limits.rate_bytes)

        async def writer() -> None:
            try:
                async for data in outgoing:
                    await channel.send(data)
                await channel.aclose("the hub cut this link (closed or too slow)")
            except _LINK_ERRORS:
                pass
            nursery.cancel_scope.cancel()

        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(writer)
                with contextlib.suppress(*_LINK_ERRORS):
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
            if member.table is None and trio.current_time() > deadline:
                self._error(member, "no open/join in time")
                return
            with trio.move_on_after(limits.join_timeout):
                data = await channel.receive()
                wait = max(messages.delay(1), volume.delay(len(data)))
                if wait > 0:
                    await trio.sleep(min(wait, 5.0))
                try:
                    self.handle(member, decode(data))
                except WireError as exc:
                    self._error(member, str(exc))

    async def serve_stream(self, stream: trio.SocketStream, identity: Identity) -> None:
        if self.connections >= self.limits.max_connections:
            await trio.aclose_forcefully(stream)
            return
        self.connections += 1
        try:
            channel = await accept_channel(stream, identity, config=self.transport_config())
        except (HandshakeError, ChannelError, OSError, trio.BrokenResourceError) as exc:
            self.say(f"refused a connection: {exc}")
            self.connections -= 1
            return
        try:
            await self.serve_channel(channel)
        finally:
            self.connections -= 1

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
