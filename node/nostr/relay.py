"""One relay of a table: a websocket that reconnects with back-off, one subscription to the
table's tag, and a publisher that keeps a window of events in flight, matches the relay's
``OK`` answers (NIP-01/NIP-20), paces and retries on ``rate-limited:``, and cuts a message
smaller when the relay refuses it as too big."""

from __future__ import annotations

import collections
import json
import random
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import trio
import trio_websocket

from dealerless.node.nostr.event import NostrEvent
from dealerless.node.nostr.fragments import OutMessage, smallest_content
from dealerless.node.nostr.nip11 import RelayLimits, fetch_limits

__all__ = ["Filters", "RelayConnection", "RelayPolicy"]

Filters = list[dict[str, Any]]
OnEvent = Callable[["RelayConnection", object], Awaitable[None]]
Cutter = Callable[[OutMessage, int], list[NostrEvent]]
Say = Callable[[str], None]


@dataclass(frozen=True)
class RelayPolicy:
    window: int = 32  # events in flight before their OK
    queue: int = 4096  # events waiting for this relay; past it the relay is "behind"
    ok_timeout: float = 15.0
    connect_timeout: float = 10.0
    backoff_first: float = 0.5
    backoff_cap: float = 30.0
    rate_pause_first: float = 0.25
    rate_pause_cap: float = 8.0
    gap_cap: float = 0.5  # the widest spacing between events once a relay pushed back
    slow_ok: float = 4.0  # an answer slower than this: the relay is holding us back
    max_incoming: int = 512 * 1024  # one websocket message from the relay
    history: int = 2000  # stored events asked for when subscribing
    use_nip11: bool = True


@dataclass
class _Item:
    message: OutMessage
    event: NostrEvent


class RelayRefused(ConnectionError):
    """The relay refused an event we then cut smaller; the connection is renewed."""


class RelayConnection:
    def __init__(
        self,
        url: str,
        filters: Callable[[int | None], Filters],
        on_event: OnEvent,
        cutter: Cutter,
        *,
        policy: RelayPolicy | None = None,
        say: Say | None = None,
    ) -> None:
        self.url = url
        self.filters, self.on_event, self.cutter = filters, on_event, cutter
        self.policy = policy or RelayPolicy()
        self.say: Say = say or (lambda _t: None)
        self.limits = RelayLimits()
        self.max_content = self.limits.max_content
        self.pending: collections.deque[_Item] = collections.deque()
        self.inflight: collections.OrderedDict[str, tuple[_Item, float]] = collections.OrderedDict()
        self.connected = False
        self.subscribed = trio.Event()  # set at the first EOSE of a connection
        self.changed = trio.Event()  # pulsed whenever the state above changes
        self.wake = trio.Event()
        self.last_error = "not connected yet"
        self.newest_seen: int | None = None  # created_at of the newest stored event seen
        self.rate_pause = 0.0
        self.pause_until = 0.0
        self.gap = 0.0  # seconds between two events sent; widened by rate-limited answers
        self.next_send = 0.0
        self.sub_id = secrets.token_hex(8)
        self.stats = collections.Counter[str]()
        self.closed = False
        self.was_subscribed = False
        self.on_connect: Callable[[RelayConnection], None] | None = None

    # ---------------------------------------------------------------- publishing
    def publish(self, message: OutMessage) -> bool:
        """Queue a message for this relay; False if it is too far behind to take it."""
        if len(self.pending) >= self.policy.queue:
            self.stats["dropped_behind"] += 1
            return False
        for event in self.cutter(message, self.max_content):
            self.pending.append(_Item(message, event))
        self.wake.set()
        return True

    def publish_first(self, message: OutMessage) -> None:
        """Put a message before everything waiting (a seat's announcement on a connection)."""
        for event in reversed(self.cutter(message, self.max_content)):
            self.pending.appendleft(_Item(message, event))
        self.wake.set()

    @property
    def backlog(self) -> int:
        return len(self.pending) + len(self.inflight)

    def _pulse(self) -> None:
        self.changed.set()
        self.changed = trio.Event()

    # ---------------------------------------------------------------- the connection loop
    async def run(self) -> None:
        backoff = self.policy.backoff_first
        while not self.closed:
            if self.policy.use_nip11:
                self.limits, why = await fetch_limits(self.url)
                self.max_content = min(self.max_content, self.limits.max_content)
                if why:
                    self.stats["nip11_missing"] += 1
            started = trio.current_time()
            renew = self.was_subscribed = False
            try:
                await self._connection()
            except RelayRefused as exc:  # we chose to start a fresh connection
                self.last_error, renew = str(exc), True
            except trio.TooSlowError:
                self.last_error = "no answer in time"
            except Exception as exc:  # any failure of one relay only costs that relay
                self.last_error = _describe(exc)
            self._lost()
            if renew or self.was_subscribed or trio.current_time() - started > 10:
                backoff = self.policy.backoff_first  # it worked: a cut, not a dead relay
            self.stats["reconnects"] += 1
            await trio.sleep(backoff * (0.5 + random.random()))  # noqa: S311 - jitter only
            backoff = min(backoff * 2, self.policy.backoff_cap)

    def _lost(self) -> None:
        self.connected = False
        self.subscribed = trio.Event()
        # What was sent but not answered goes out again on the next connection.
        self.pending.extendleft(
            item
            for item, _ in reversed(self.inflight.values())
            if item.event in self.cutter(item.message, self.max_content)  # not an older cut
        )
        self.inflight.clear()
        self._pulse()

    async def _connection(self) -> None:
        policy = self.policy
        async with trio_websocket.open_websocket_url(
            self.url,
            max_message_size=policy.max_incoming,
            connect_timeout=policy.connect_timeout,
            disconnect_timeout=2.0,
        ) as ws:
            self.connected = True
            self.last_error = ""
            self.sub_id = secrets.token_hex(8)
            await ws.send_message(json.dumps(["REQ", self.sub_id, *self.filters(self.newest_seen)]))
            if self.on_connect is not None:
                self.on_connect(self)
            self._pulse()
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._writer, ws)
                nursery.start_soon(self._ok_watch)
                await self._reader(ws)
                nursery.cancel_scope.cancel()

    async def _reader(self, ws: trio_websocket.WebSocketConnection) -> None:
        while True:
            text = await ws.get_message()
            try:
                message = json.loads(text)
            except ValueError:
                self.stats["bad_json"] += 1
                continue
            if not isinstance(message, list) or not message or not isinstance(message[0], str):
                self.stats["bad_message"] += 1
                continue
            verb = message[0]
            if verb == "EVENT" and len(message) == 3 and message[1] == self.sub_id:
                self.stats["events_in"] += 1
                self.stats["bytes_in"] += len(text)
                await self.on_event(self, message[2])
            elif verb == "EOSE" and len(message) >= 2 and message[1] == self.sub_id:
                self.subscribed.set()
                self.was_subscribed = True
                self._pulse()
            elif verb == "OK" and len(message) >= 3:
                self._on_ok(message[1], message[2] is True, str(message[3:4] and message[3]))
            elif verb == "CLOSED" and len(message) >= 2 and message[1] == self.sub_id:
                raise ConnectionError(f"the relay closed our subscription: {message[2:3]}")
            elif verb == "NOTICE":
                self.stats["notices"] += 1
                self.last_notice = str(message[1:2] and message[1])[:200]

    async def _writer(self, ws: trio_websocket.WebSocketConnection) -> None:
        while True:
            now = trio.current_time()
            ready_at = max(self.pause_until, self.next_send)
            if now < ready_at:
                await trio.sleep(ready_at - now)
                continue
            if not self.pending or len(self.inflight) >= self.policy.window:
                self.wake = trio.Event()
                await self.wake.wait()
                continue
            item = self.pending.popleft()
            text = json.dumps(["EVENT", item.event.to_json()], separators=(",", ":"))
            self.inflight[item.event.id] = (item, now)
            self.next_send = now + self.gap
            await ws.send_message(text)
            self.stats["events_out"] += 1
            self.stats["bytes_out"] += len(text)

    async def _ok_watch(self) -> None:
        while True:
            await trio.sleep(1.0)
            if self.inflight:
                _, (_, sent) = next(iter(self.inflight.items()))
                if trio.current_time() - sent > self.policy.ok_timeout:
                    raise ConnectionError("the relay did not answer our events in time")

    def _on_ok(self, event_id: object, accepted: bool, reason: str) -> None:
        entry = None
        if isinstance(event_id, str) and event_id in self.inflight:
            entry = self.inflight.pop(event_id)
        elif self.inflight:
            # Some relays answer a refusal with an empty id; they answer in order.
            _, entry = self.inflight.popitem(last=False)
        if entry is None:
            return
        item, sent = entry
        self.wake.set()
        now = trio.current_time()
        if accepted or reason.startswith("duplicate:"):
            self.stats["ok"] += 1
            self.rate_pause = 0.0
            self.gap = self.gap * 0.98 if self.gap > 0.002 else 0.0
        elif reason.startswith("rate-limited:"):
            self.stats["rate_limited"] += 1
            self.rate_pause = min(
                max(self.rate_pause * 2, self.policy.rate_pause_first), self.policy.rate_pause_cap
            )
            self.pause_until = now + self.rate_pause
            self.gap = min(max(self.gap * 2, 0.02), self.policy.gap_cap)
            self.pending.appendleft(item)
        else:
            self._refused(item, reason)
        if now - sent > self.policy.slow_ok:
            # Some relays keep a connection slow for good once it was pushed back.
            self.stats["renewed_slow"] += 1
            raise RelayRefused(f"the relay answered after {now - sent:.1f} s; renewing")

    def _refused(self, item: _Item, reason: str) -> None:
        if item.event not in self.cutter(item.message, self.max_content):
            return  # a fragment of an older, bigger cut of a message being sent again
        size = len(item.event.content)
        if size > smallest_content() and not reason.startswith(("blocked:", "auth-required:")):
            # Taken as "too big" (relays word it differently): cut this message smaller.
            self.stats["refused_big"] += 1
            self.max_content = max(smallest_content(), min(self.max_content, size // 4))
            smaller = self.cutter(item.message, self.max_content)
            self._drop_message(item.message)
            self.pending.extendleft(reversed([_Item(item.message, e) for e in smaller]))
            # Some relays slow a connection down for good after a refusal: start a fresh one.
            raise RelayRefused(f"refused an event of {size} characters: {reason[:120]}")
        self.stats["refused"] += 1
        self.last_error = f"refused an event: {reason[:120]}"

    def _drop_message(self, message: OutMessage) -> None:
        """Forget the queued fragments of a message that is being cut again (those in flight
        keep their place: their answers still come, in order)."""
        self.pending = collections.deque(i for i in self.pending if i.message is not message)

    def close(self) -> None:
        self.closed = True


def _describe(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_describe(e) for e in exc.exceptions[:2])
    if isinstance(exc, trio_websocket.ConnectionRejected):
        return f"the relay refused the websocket (HTTP {exc.status_code})"
    if isinstance(exc, trio_websocket.ConnectionClosed):
        return f"the relay closed the connection ({exc.reason})"
    cause = exc.__cause__ or exc.__context__
    if not str(exc) and cause is not None:
        return _describe(cause)  # e.g. a handshake error around "connection refused"
    text = str(exc) or type(exc).__name__
    return text[:200]
