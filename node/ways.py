"""Ways in to a table, and one link over all of them.

Every transport gives the node the same :class:`~dealerless.node.links.Link` (the hub's small
dialect of dict messages): the host's own hub in its process, a direct TCP link to a host's hub,
a ``dealerless relay``, or the table's Nostr relays. A :class:`Way` opens one such link. A
:class:`MultiWay` tries every way at once, hands the node a link as soon as one answers, adds the
others as they come up, reopens the ones that break with back-off, and drops the copies of a
message that arrive over several ways. When nothing answers within a bounded time it says which
ways it tried and why each failed."""

from __future__ import annotations

import collections
import hashlib
import math
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import trio

from dealerless.node.links import FatalLinkError, Link, LinkError
from dealerless.node.mesh import Mesh
from dealerless.node.notices import Notice, notice

__all__ = ["MultiLink", "MultiWay", "Way"]

Opener = Callable[[], Awaitable[tuple[Link, dict[str, Any]]]]
Say = Callable[[Notice], None]
DEDUP_WINDOW = 2.0  # seconds: copies over several ways arrive within it; re-sends come later
MERGED_QUEUE = 4096


@dataclass
class Way:
    label: str  # for the user: "direct 192.168.1.5:40123", "Nostr (3 relays)", ...
    open: Opener
    link: Link | None = None
    last_error: str = "not tried yet"
    fatal: bool = False
    status: Callable[[], str] | None = None  # how an attempt under way is going, for the user
    direct: bool = False  # the seats' direct links: a message goes there only when they cover it
    kind: str = ""  # "direct", "relay", "nostr", "links" (the client words a way by it)
    where: str = ""  # its address ("direct", "relay") or number of relays ("nostr")


@dataclass
class _Seen:
    times: collections.OrderedDict[bytes, float] = field(default_factory=collections.OrderedDict)

    def fresh(self, key: bytes, now: float) -> bool:
        while self.times:
            oldest, when = next(iter(self.times.items()))
            if now - when < DEDUP_WINDOW and len(self.times) < 100_000:
                break
            del self.times[oldest]
        if key in self.times:
            return False
        self.times[key] = now
        return True


class MultiWay:
    """All ways in to one table, kept open for the node's whole life (run it in a nursery)."""

    def __init__(
        self,
        ways: list[Way],
        *,
        first_timeout: float = 60.0,
        backoff_cap: float = 10.0,
        say: Say | None = None,
        seated: Callable[[], bool] | None = None,
    ) -> None:
        if not ways:
            raise ValueError("a table needs at least one way in")
        self.ways = ways
        self.first_timeout, self.backoff_cap = first_timeout, backoff_cap
        self.say: Say = say or (lambda _t: None)
        self.merged_send, self.merged = trio.open_memory_channel[tuple[Way, dict[str, Any]]](
            MERGED_QUEUE
        )
        self.changed = trio.Event()
        self.ever_connected = False
        # Until the node has its seat (the table configuration), every wait for a way in is
        # bounded, also after a link was up: a lobby whose host went away is given up.
        self.seated: Callable[[], bool] = seated or (lambda: self.ever_connected)
        self.members: set[bytes] = set()
        self.host_key: bytes | None = None
        # The seats' direct links (node/mesh.py), when the table has them: a message for
        # seats that all have one goes only there, not through the relays.
        self.mesh: Mesh | None = None

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        async with trio.open_nursery() as nursery:
            for way in self.ways:
                nursery.start_soon(self._keep_open, way)
            task_status.started()

    def _pulse(self) -> None:
        self.changed.set()
        self.changed = trio.Event()

    async def _keep_open(self, way: Way) -> None:
        backoff = 0.2
        while True:
            try:
                link, joined = await way.open()
            except FatalLinkError as exc:
                way.last_error, way.fatal = str(exc), True
                self._pulse()
                return
            except LinkError as exc:
                if str(exc) != way.last_error:
                    self.say(
                        notice(
                            "way_retry",
                            way=way.label,
                            kind=way.kind,
                            where=way.where,
                            error=str(exc),
                        )
                    )
                way.last_error = str(exc)
                self._pulse()
                await trio.sleep(backoff)
                backoff = min(backoff * 2, self.backoff_cap)
                continue
            backoff = 0.2
            self.host_key = joined.get("host", self.host_key)
            new = [k for k in joined.get("members", []) if isinstance(k, bytes)]
            for key in new:
                if key not in self.members:
                    self.members.add(key)
                    if self.ever_connected:  # the node saw "joined" before this way opened
                        await self.merged_send.send((way, {"t": "peer", "key": key, "up": True}))
            way.link, way.last_error = link, ""
            self.ever_connected = True
            self._pulse()
            try:
                while True:
                    message = await link.receive()
                    if message.get("t") == "error":
                        raise LinkError(f"the hub refused: {message.get('reason')}")
                    await self.merged_send.send((way, message))
            except LinkError as exc:
                way.last_error = str(exc)
            finally:
                way.link = None
                self._pulse()
                with trio.CancelScope(shield=True), trio.move_on_after(2):
                    await link.aclose()
            await trio.sleep(backoff)

    def tried(self) -> str:
        parts = []
        for way in self.ways:
            state = way.last_error or "open"
            if way.link is None and way.status is not None:
                state = f"{state} ({way.status()})"
            parts.append(f"{way.label}: {state}")
        return "; ".join(parts)

    async def connect(self) -> tuple[MultiLink, dict[str, Any]]:
        """The node's connector: a link once any way is open."""
        bounded = not self.seated()
        deadline = trio.current_time() + self.first_timeout if bounded else math.inf
        while not any(w.link is not None for w in self.ways):
            if all(w.fatal for w in self.ways):
                raise FatalLinkError(notice("no_way_works", tried=self.tried()))
            if trio.current_time() >= deadline:
                raise FatalLinkError(
                    notice("nothing_answered", seconds=self.first_timeout, tried=self.tried())
                )
            with trio.move_on_at(deadline):
                await self.changed.wait()
        joined = {"t": "joined", "host": self.host_key, "members": sorted(self.members)}
        return MultiLink(self), joined


class MultiLink:
    """The node's view of a :class:`MultiWay`: sends on every open way, receives each message
    once."""

    def __init__(self, ways: MultiWay) -> None:
        self.ways = ways
        self.sent_bytes = 0
        self.seen = _Seen()
        self.up: set[bytes] = set(ways.members)
        # Whom a message for "every member" is for (the node sets it: the seats, the seats
        # away that follow the table, the newcomers waiting); None: the hub's members.
        self.audience: Callable[[], Iterable[bytes]] | None = None

    async def send(self, message: dict[str, Any]) -> None:
        # "keep": a message for readers to come (a finished table's "closed"): the relays
        # store it, so it never goes over the direct links alone.
        keep = bool(message.pop("keep", False))
        if not keep and await self._send_direct(message):
            return
        sent = False
        for way in self.ways.ways:
            link = way.link
            if link is None or way.direct:
                continue
            try:
                await link.send(message)
                sent = True
            except LinkError as exc:
                way.last_error = str(exc)
        if not sent and self.ways.mesh is not None and isinstance(message.get("data"), bytes):
            to = message.get("to")
            sent = await self.ways.mesh.send(message["data"], to if isinstance(to, bytes) else None)
        if not sent:
            raise LinkError(f"every way in is down ({self.ways.tried()})")
        data = message.get("data")
        self.sent_bytes += len(data) if isinstance(data, bytes) else 0

    async def _send_direct(self, message: dict[str, Any]) -> bool:
        """Over the direct links alone if every seat the message is for has one (and every
        copy went out); else False, and the relays carry it."""
        mesh, data, to = self.ways.mesh, message.get("data"), message.get("to")
        if mesh is None or message.get("t") != "send" or not isinstance(data, bytes):
            return False
        if isinstance(to, bytes):
            audience: Iterable[bytes] = (to,)
        elif self.audience is not None:
            audience = self.audience()
        else:
            return False
        audience = list(audience)
        covered = mesh.covers(audience)
        mesh.all_linked = mesh.all_linked or (covered and to is None)
        if not covered or not await mesh.send(data, to if isinstance(to, bytes) else None):
            mesh.stats["relayed"] += 1
            mesh.stats["relayed_after_links"] += mesh.all_linked
            return False
        mesh.stats["direct"] += 1
        self.sent_bytes += len(data)
        return True

    async def receive(self) -> dict[str, Any]:
        while True:
            with trio.move_on_after(1.0):
                _, message = await self.ways.merged.receive()
                if self._fresh(message):
                    return message
                continue
            if not any(w.link is not None for w in self.ways.ways):
                raise LinkError(f"every way in is down ({self.ways.tried()})")

    def _fresh(self, message: dict[str, Any]) -> bool:
        kind = message.get("t")
        if kind == "msg":
            sender, data = message.get("from"), message.get("data")
            if not isinstance(sender, bytes) or not isinstance(data, bytes):
                return False
            key = hashlib.sha256(sender + b"\0" + data).digest()
            return self.seen.fresh(key, trio.current_time())
        if kind == "peer":
            peer, up = message.get("key"), bool(message.get("up"))
            if not isinstance(peer, bytes) or (peer in self.up) == up:
                return False
            if not up and sum(w.link is not None for w in self.ways.ways) > 1:
                return False  # down on one way, maybe not on the others
            (self.up.add if up else self.up.discard)(peer)
            return True
        return True

    async def aclose(self) -> None:
        await trio.lowlevel.checkpoint()  # the ways stay open for the node's next session
