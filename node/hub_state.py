"""What a hub keeps and how it shares itself: its limits, members, tables and connections, and
the census that says who makes room when it is full (node/hub.py serves them).

Fair sharing (spec/node.md §2, spec/security.md §8 "A relay shares itself fairly"): connections
and tables are counted per source address (an IPv4 address, an IPv6 /64) and per key, each count
is capped, a table that carries no message between two of its connections for ``idle_after``
seconds is *idle* and one that carries none for ``table_expiry`` seconds is closed, and at the
connection cap a newcomer replaces an idle connection (the most represented address's first,
then the oldest), else the oldest connection of an address that holds at least two more than
the newcomer's, else nobody: the newcomer is refused. An address that just lost a connection so
that another could come in gets no room made for it for ``room_cooldown`` seconds, and one that
was refused a table for its cap gets no connection at all for ``cap_cooldown`` seconds (refused
before any handshake), so strangers replacing one another or asking again and again cannot keep
the hub busy with handshakes. The host's own seat (direct mode) is never
replaced nor cut.
"""

from __future__ import annotations

import collections
import ipaddress
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

import trio

from dealerless.node.notices import Notice, notice

__all__ = ["Census", "Connection", "HubLimits", "Member", "Notes", "Table", "source_of"]

K = TypeVar("K")


def _less(counter: collections.Counter[K], key: K) -> None:
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]


@dataclass(frozen=True)
class HubLimits:
    max_frame_size: int = 1 << 20
    max_connections: int = 4096
    max_per_address: int = 64  # connections from one source address
    max_per_key: int = 16  # connections authenticated with one key
    max_handshakes: int = 64  # concurrent handshakes in all ...
    handshakes_per_address: int = 8  # ... and from one source address
    max_tables: int = 10_000
    tables_per_address: int = 16  # tables opened from one source address
    tables_per_key: int = 4  # tables one key hosts
    max_members: int = 8  # per table (the largest game has 8 seats)
    max_waiting: int = 16  # per table: connections not admitted (yet); the oldest makes room
    queue: int = 4096  # messages waiting for one member ...
    queue_bytes: int = 8 << 20  # ... and their bytes; a member that falls behind is cut
    rate_messages: float = 2000.0  # per connection per second (token bucket, burst = 1 s)
    rate_bytes: float = 16 * 1024 * 1024.0
    lobby_message: int = 4096  # bytes of one message from a connection not admitted (a hello)
    lobby_rate: float = 5.0  # ... and its messages per second (burst: 2 s)
    join_timeout: float = 15.0
    keepalive: float = 5.0
    idle_timeout: float = 20.0
    idle_after: float = 30.0  # a table that carried nothing for this long is idle
    table_expiry: float = 300.0  # ... and after this long it is closed
    room_cooldown: float = 10.0  # an address that just made room gets none made for it
    cap_cooldown: float = 10.0  # an address refused a table for its cap gets no connection
    sweep_every: float = 2.0  # how often idle tables and connections are looked for


def source_of(host: str) -> str:
    """What a connection from ``host`` is counted under: its IPv4 address, or the /64 of an
    IPv6 address (one subscriber's prefix: counting single IPv6 addresses would cap nothing)."""
    try:
        ip = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


@dataclass(eq=False)
class Member:
    key: bytes
    send: trio.MemorySendChannel[bytes]
    max_bytes: int = 8 << 20
    max_count: int = 4096
    table: Table | None = None
    admitted: bool = False
    closed: bool = False
    label: str = ""
    address: str = ""  # its source ('' for the host's own seat, attached in-process)
    own: bool = False  # the host's own seat in direct mode: never cut, its senders wait
    queued: int = 0  # bytes handed to the writer and not yet sent ...
    count: int = 0  # ... and messages
    room: trio.Event | None = None  # set when a full queue has room again

    def full(self, extra: int = 0) -> bool:
        return self.queued + extra > self.max_bytes or self.count >= self.max_count

    def deliver(self, data: bytes) -> bool:
        if self.closed:
            return False
        if self.full(len(data)) and not self.own:
            self.cut()  # fell too far behind: the connection is cut
            return False
        try:
            self.send.send_nowait(data)
        except (trio.WouldBlock, trio.BrokenResourceError, trio.ClosedResourceError):
            self.close()
            return False
        self.queued += len(data)
        self.count += 1
        return True

    def sent(self, data: bytes) -> None:
        self.queued -= len(data)
        self.count -= 1
        if self.room is not None and not self.full():
            self.room.set()
            self.room = None

    async def wait_for_room(self, size: int) -> None:
        """Until ``size`` more bytes fit in this member's queue (or it is closed)."""
        while not self.closed and self.full(size) and self.queued > 0:
            if self.room is None:
                self.room = trio.Event()
            await self.room.wait()

    def cut(self) -> None:
        self.close()

    def close(self) -> None:
        self.closed = True
        self.send.close()
        if self.room is not None:
            self.room.set()
            self.room = None


@dataclass(eq=False)
class Table:
    table_id: bytes
    host: bytes
    seats: int
    admitted: set[bytes] = field(default_factory=set)
    members: dict[bytes, Member] = field(default_factory=dict)  # admitted and connected
    waiting: dict[bytes, Member] = field(default_factory=dict)  # connected, not admitted
    address: str = ""  # the source its host opened it from ('' : the host's own seat)
    opened: float = 0.0
    last_frame: float = 0.0  # when it last carried a message from one connection to another

    def connections(self) -> list[Member]:
        return [*self.members.values(), *self.waiting.values()]


@dataclass(eq=False)
class Connection:
    address: str  # its source (source_of)
    scope: trio.CancelScope
    opened: float
    member: Member | None = None
    key: bytes = b""  # once its handshake proved it
    shaking: bool = False  # its handshake is under way

    @property
    def admitted(self) -> bool:
        return self.member is not None and self.member.admitted and not self.member.closed


class Notes:
    """Says each kind of refusal at once, then at most once every ``every`` seconds with the
    number of the same kind since (a flood of refusals is not a flood of log lines)."""

    def __init__(self, say: Callable[[Notice], None], every: float = 10.0) -> None:
        self.say, self.every = say, every
        self.counts: collections.Counter[str] = collections.Counter()
        self._last: dict[str, float] = {}
        self._since: collections.Counter[str] = collections.Counter()

    def __call__(self, kind: str, text: str) -> None:
        self.counts[kind] += 1
        now = trio.current_time()
        if now - self._last.get(kind, -math.inf) < self.every:
            self._since[kind] += 1
            return
        more = self._since.pop(kind, 0)
        self._last[kind] = now
        self.say(notice("hub_note", kind=kind, text=text, more=more))


class Census:
    """Who holds what at a hub, by source address and by key, and who makes room."""

    def __init__(self, limits: HubLimits) -> None:
        self.limits = limits
        self.open: dict[int, Connection] = {}  # by id, in arrival order (dicts keep it)
        self.at: dict[str, dict[int, Connection]] = {}  # per source, in arrival order
        self.keys: collections.Counter[bytes] = collections.Counter()  # connections per key
        self.shaking: collections.Counter[str] = collections.Counter()
        self.tables_at: collections.Counter[str] = collections.Counter()
        self.tables_of: collections.Counter[bytes] = collections.Counter()
        self.made_room: dict[str, float] = {}  # source -> when it last lost a connection
        self.capped: dict[str, float] = {}  # source -> when it was last refused a table
        self._idle: collections.deque[Connection] = collections.deque()
        self._idle_tables: collections.deque[Table] = collections.deque()

    # ---------------------------------------------------------------- counting
    def count(self, address: str) -> int:
        return len(self.at.get(address, ()))

    def add(self, conn: Connection) -> None:
        self.open[id(conn)] = conn
        self.at.setdefault(conn.address, {})[id(conn)] = conn

    def remove(self, conn: Connection) -> bool:
        """Count ``conn`` out (False if it already was)."""
        if self.open.pop(id(conn), None) is None:
            return False
        mine = self.at[conn.address]
        del mine[id(conn)]
        if not mine:
            del self.at[conn.address]
        if conn.key:
            _less(self.keys, conn.key)
        return True

    def table_opened(self, table: Table) -> None:
        self.tables_at[table.address] += 1
        self.tables_of[table.host] += 1

    def table_closed(self, table: Table) -> None:
        _less(self.tables_at, table.address)
        _less(self.tables_of, table.host)

    # ---------------------------------------------------------------- idleness
    def idle(self, conn: Connection, now: float) -> bool:
        """A connection that is not an admitted member of a table that carries messages: not
        attached (or waiting) for ``idle_after`` seconds, or a member of an idle table."""
        member = conn.member
        if member is None or not member.admitted or member.table is None:
            return now - conn.opened >= self.limits.idle_after
        return self.table_idle(member.table, now)

    def table_idle(self, table: Table, now: float) -> bool:
        return bool(table.address) and now - table.last_frame >= self.limits.idle_after

    def sweep(self, tables: Iterable[Table], now: float) -> list[Table]:
        """Look for idle connections and tables (the first to make room, most represented
        source first, then oldest); return the tables to close (nothing carried for
        ``table_expiry`` seconds; never the host's own)."""
        expired, idle_tables = [], []
        for table in tables:
            if not table.address:
                continue
            if now - table.last_frame >= self.limits.table_expiry:
                expired.append(table)
            elif now - table.last_frame >= self.limits.idle_after:
                idle_tables.append(table)
        idle_tables.sort(key=lambda t: (-self.tables_at[t.address], t.opened))
        self._idle_tables = collections.deque(idle_tables)
        idle = [c for c in self.open.values() if not c.shaking and self.idle(c, now)]
        idle.sort(key=lambda c: (-self.count(c.address), c.opened))
        self._idle = collections.deque(idle)
        for marks, cooldown in (
            (self.made_room, self.limits.room_cooldown),
            (self.capped, self.limits.cap_cooldown),
        ):
            for source, when in list(marks.items()):
                if now - when >= cooldown:
                    del marks[source]
        return expired

    # ---------------------------------------------------------------- making room
    def cooling(self, address: str, now: float) -> bool:
        """Did ``address`` lose a connection to make room less than ``room_cooldown`` ago?"""
        return now - self.made_room.get(address, -math.inf) < self.limits.room_cooldown

    def capped_lately(self, address: str, now: float) -> bool:
        """Was ``address`` refused a table for its cap less than ``cap_cooldown`` ago?"""
        return now - self.capped.get(address, -math.inf) < self.limits.cap_cooldown

    def room_for(self, address: str, now: float) -> Connection | None:
        """At the connection cap: whom a newcomer from ``address`` replaces, if anybody."""
        if self.cooling(address, now):
            return None
        victim = None
        while self._idle and victim is None:
            conn = self._idle.popleft()
            if id(conn) in self.open and not conn.shaking and self.idle(conn, now):
                victim = conn
        if victim is None:
            mine = self.count(address)
            top = max(self.at.values(), key=len, default={})
            if len(top) > mine + 1:
                held = list(top.values())
                victim = next((c for c in held if not c.admitted), held[0])
        if victim is not None:
            self.made_room[victim.address] = now
        return victim

    def table_room(self, now: float) -> Table | None:
        """At the table cap: the idle table that makes room (most tables at its host's
        source first, then oldest), if any."""
        while self._idle_tables:
            table = self._idle_tables.popleft()
            if (table.members or table.waiting) and self.table_idle(table, now):
                return table
        return None

    def handshake_room(self, address: str) -> Connection | None:
        """At the handshake cap: the oldest handshake of the source with the most under way,
        if it has more under way than ``address`` (a stranger who opens many and never
        finishes them), else nobody."""
        if not self.shaking:
            return None
        top = max(self.shaking, key=lambda a: self.shaking[a])
        if self.shaking[top] <= self.shaking[address]:
            return None
        return next((c for c in self.at.get(top, {}).values() if c.shaking), None)
