"""One relay of a table: a websocket that reconnects with back-off, one subscription to the
table's tag, and a writer that behaves like a good tenant.

The writer takes batches from the relay's :class:`~dealerless.node.nostr.outbox.Outbox` only
as fast as its :class:`~dealerless.node.nostr.pacing.Pace` allows, seals each batch into
events when it leaves (so an event is never older than its trip: relays that refuse aged
events never see one), and acts on every answer as :mod:`~dealerless.node.nostr.refusals`
reads it: slower on ``rate-limited``, smaller on a size refusal (and larger again later),
fresh ``created_at`` on an age refusal, proof of work (NIP-13) and authentication (NIP-42)
where the relay asks and we can, and "this relay cannot carry the table", with the relay's
own words kept for the user, where it will not."""

from __future__ import annotations

import collections
import json
import math
import random
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import trio
import trio_websocket

from dealerless.node.nostr.event import NostrEvent, NostrKey
from dealerless.node.nostr.fragments import smallest_content
from dealerless.node.nostr.gates import MAX_AFFORDABLE_POW, auth_event
from dealerless.node.nostr.nip11 import RelayLimits, fetch_limits
from dealerless.node.nostr.outbox import CATCH_UP, TABLE, Entry, Outbox, encode_batch
from dealerless.node.nostr.pacing import Pace, PaceSettings
from dealerless.node.nostr.refusals import Answer, Verdict, classify_notice, classify_ok
from dealerless.node.nostr.refusals import pow_difficulty as asked_pow
from dealerless.node.notices import Notice, notice

__all__ = ["Filters", "RelayConnection", "RelayPolicy", "Sealer", "describe_failure"]

Filters = list[dict[str, Any]]
OnEvent = Callable[["RelayConnection", object], Awaitable[None]]
# (kind, body, largest content, proof-of-work difficulty) -> the events that carry it
Sealer = Callable[[int, bytes, int, int], list[NostrEvent]]
Say = Callable[[Notice], None]
THROTTLED_FOR = 120.0  # seconds after a rate refusal that a relay counts as throttling us
THREAD_POW = 12  # proof of work from this difficulty on is mined in a worker thread
# A message this relay took (every event of it answered OK) is not written to it again for this
# long: a node resends its open frames with every count, and on a relay that paces us each
# copy costs the events the table's next moves need. The relay stores and forwards what it took.
TAKEN_QUIET = 30.0
TAKEN_KEPT = 1024  # messages remembered as taken


@dataclass(frozen=True)
class RelayPolicy:
    window: int = 8  # events in flight before their OK
    queue: int = 4096  # entries waiting for this relay; past it the relay is "behind"
    ok_timeout: float = 15.0
    connect_timeout: float = 10.0
    backoff_first: float = 0.5
    backoff_cap: float = 30.0
    max_incoming: int = 512 * 1024  # one websocket message from the relay
    history: int = 2000  # stored events asked for when subscribing
    use_nip11: bool = True
    pace: PaceSettings = field(default_factory=PaceSettings)
    max_pow: int = MAX_AFFORDABLE_POW
    slow_ok: float = 4.0  # an answer slower than this (not rate-limited): a held-back connection
    grow_after: int = 16  # accepted events before a cut-down size is tried larger again
    forget_refused_size: float = 600.0  # a relay's size limit may change: try again after this
    give_up_after: int = 6  # events refused in a row (no accept) for reasons we cannot act on
    silent_after: int = 3  # connections in a row whose events got no answer at all


class RelayRefused(ConnectionError):
    """We start a fresh connection: some relays (the ``nostr-relay`` package) slow a
    connection down for good after one refusal, so a cut-down message goes on a new one."""


@dataclass(eq=False)
class _Batch:
    kind: int
    entries: list[Entry]
    body: bytes
    events: int = 0
    answered: int = 0
    requeued: bool = False
    refused: bool = False  # an event of it was refused (lost on this relay, or sent again)
    shrunk_here: bool = False  # cut smaller after this batch: go on a fresh connection
    largest: int = 0  # characters of content of its largest event
    work: int = 0  # the proof-of-work difficulty its events were mined to
    sent: float = 0.0  # when its events left


class RelayConnection:
    def __init__(
        self,
        url: str,
        filters: Callable[[int | None], Filters],
        on_event: OnEvent,
        seal: Sealer,
        nkey: NostrKey,
        *,
        policy: RelayPolicy | None = None,
        say: Say | None = None,
    ) -> None:
        self.url = url
        self.filters, self.on_event, self.seal, self.nkey = filters, on_event, seal, nkey
        self.policy = policy or RelayPolicy()
        self.say: Say = say or (lambda _t: None)
        self.limits = RelayLimits()
        self.size_cap = self.limits.max_content  # what the relay says it takes
        self.max_content = self.size_cap  # what we send now (cut down after a size refusal)
        self.outbox = Outbox(self.policy.queue)
        self.pace = Pace(self.policy.pace, trio.current_time())
        self.first: tuple[int, bytes] | None = None  # our announcement, first on a connection
        self.announce_due = False  # set on each connection (the relay may have lost it)
        self.inflight: collections.OrderedDict[str, tuple[_Batch, float]] = (
            collections.OrderedDict()
        )
        self.connected = False
        self.subscribed = trio.Event()  # set at the first EOSE of a connection
        self.changed = trio.Event()  # pulsed whenever the state above changes
        self.wake = trio.Event()
        self.last_error = "not connected yet"
        self.last_answer = ""  # the relay's last refusal, in its words
        self.barred = ""  # why this relay cannot carry the table ("" while it can)
        self.newest_seen: int | None = None  # created_at of the newest stored event seen
        self.pow = 0
        self.challenge = ""
        self.auth_id = ""  # our AUTH event waiting for its OK ...
        self.auth_sent = 0.0  # ... since
        self.authed = False
        self.sub_id = secrets.token_hex(8)
        self.stats = collections.Counter[str]()
        self.closed = False
        self.was_subscribed = False
        self.catch_up_allowed: Callable[[RelayConnection], bool] = lambda _r: True
        self._ws: trio_websocket.WebSocketConnection | None = None
        self._refused_in_row = 0
        self._unanswered_connections = 0
        self._accepted_at_size = 0
        self._send_lock = trio.Lock()
        self._resubscribe = False
        self.echoes = 0  # our own events this relay brought back to us
        self.last_catch_up = -1e9  # when an event last carried catch-up
        self.largest_taken = 0  # characters of the largest event this relay accepted
        self.taken: collections.OrderedDict[bytes, float] = collections.OrderedDict()  # same
        self.refused_size = 1 << 30  # characters: the smallest event refused as too big ...
        self.refused_at = -1e9  # ... and when

    # ---------------------------------------------------------------- publishing
    def publish(self, entry: Entry) -> bool:
        """Queue an entry for this relay; False if it is too far behind to take it."""
        if self.barred:
            return False
        if entry.same is not None:
            took = self.taken.get(entry.same)
            if took is not None and trio.current_time() - took < TAKEN_QUIET:
                self.stats["resend_skipped"] += 1
                return True
        if not self.outbox.put(entry):
            self.stats["dropped_behind"] += 1
            return False
        self.wake.set()
        return True

    def announce_again(self) -> None:
        """Send our announcement once more (fresh: it arrives live to every subscriber)."""
        if self.first is not None and not self.barred:
            self.announce_due = True
            self.wake.set()

    @property
    def backlog(self) -> int:
        return len(self.outbox) + len(self.inflight)

    @property
    def throttled(self) -> bool:
        """The relay refused us for rate lately, or our own pace is what holds us back."""
        now = trio.current_time()
        return self.pace.throttled(now, THROTTLED_FOR) or self.pace.ready_at(now) > now

    def state(self) -> str:
        """This relay as the user should read it (one short phrase)."""
        if self.barred:
            return f"cannot carry the table: {self.barred}"
        if not self.connected:
            return self.last_error or "connecting"
        if not self.subscribed.is_set():
            return "connected, waiting for stored events"
        now = trio.current_time()
        if self.pace.throttled(now, THROTTLED_FOR):
            return f"slowed down by the relay ({self.last_answer or 'rate-limited'})"
        if self.pace.ready_at(now) > now:
            return "carrying the table, at our own pace"
        if self.stats["ok"] >= 5 and not self.echoes:
            return "says it takes our events but never delivers them"
        return "carrying the table"

    def _pulse(self) -> None:
        self.changed.set()
        self.changed = trio.Event()

    def _bar(self, reason: str) -> None:
        if not self.barred:
            self.barred = reason[:200]
            self.stats["barred"] += 1
            self.say(notice("relay_barred", url=self.url, reason=self.barred))
            self.outbox.clear()  # nothing more goes to it (publish refuses from now on)
            self._pulse()

    # ---------------------------------------------------------------- the connection loop
    async def run(self) -> None:
        backoff = self.policy.backoff_first
        while not self.closed:
            if self.policy.use_nip11:
                await self._read_limits()
            started = trio.current_time()
            self.was_subscribed = renew = False
            try:
                await self._connection()
            except RelayRefused as exc:
                self.last_error, renew = str(exc), True
            except trio.TooSlowError:
                self.last_error = "no answer in time"
            except Exception as exc:  # any failure of one relay only costs that relay
                self.last_error = describe_failure(exc)
            self._lost()
            if renew or self.was_subscribed or trio.current_time() - started > 10:
                backoff = self.policy.backoff_first  # it worked: a cut, not a dead relay
            self.stats["reconnects"] += 1
            await trio.sleep(backoff * (0.5 + random.random()))  # noqa: S311 - jitter only
            backoff = min(backoff * 2, self.policy.backoff_cap)

    async def _read_limits(self) -> None:
        self.limits, why = await fetch_limits(self.url)
        if why:
            self.stats["nip11_missing"] += 1
        self.size_cap = self.limits.max_content
        self.max_content = min(self.max_content, self.size_cap)
        if self.limits.payment_required:
            self._bar("the relay asks for payment to write (NIP-11 payment_required)")
        elif self.limits.min_pow > self.policy.max_pow:
            self._bar(f"the relay asks for proof of work {self.limits.min_pow} (NIP-11)")
        else:
            self.pow = max(self.pow, self.limits.min_pow)

    def _lost(self) -> None:
        self.connected = False
        self._ws = None
        self.subscribed = trio.Event()
        self.authed, self.auth_id, self.challenge = False, "", ""
        if self.inflight:
            self._unanswered_connections += 1
            if self._unanswered_connections >= self.policy.silent_after:
                self._bar(f"silent: no answer to our events ({self.last_error})")
        # What was sent but not answered goes out again on the next connection.
        batches = list(dict.fromkeys(b for b, _ in self.inflight.values()))
        self.inflight.clear()
        for batch in reversed(batches):
            self._requeue(batch)
        self._pulse()

    async def _connection(self) -> None:
        policy = self.policy
        async with trio_websocket.open_websocket_url(
            self.url,
            max_message_size=policy.max_incoming,
            connect_timeout=policy.connect_timeout,
            disconnect_timeout=2.0,
        ) as ws:
            self._ws = ws
            self.connected = True
            self.last_error = ""
            await self._subscribe()
            self.announce_due = self.first is not None
            self._pulse()
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._writer)
                nursery.start_soon(self._ok_watch)
                await self._reader(ws)
                nursery.cancel_scope.cancel()

    async def _subscribe(self) -> None:
        self.sub_id = secrets.token_hex(8)
        await self._send(["REQ", self.sub_id, *self.filters(self.newest_seen)])

    async def _send(self, message: list[Any]) -> None:
        if self._ws is None:
            raise ConnectionError("not connected")
        text = json.dumps(message, separators=(",", ":"))
        async with self._send_lock:
            await self._ws.send_message(text)
        self.stats["bytes_out"] += len(text)

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
                words = str(message[3]) if len(message) > 3 else ""
                self._on_ok(message[1], message[2] is True, words)
                if self._resubscribe:
                    self._resubscribe = False
                    await self._subscribe()
            elif verb == "AUTH" and len(message) >= 2 and isinstance(message[1], str):
                await self._authenticate(message[1][:256])
            elif verb == "CLOSED" and len(message) >= 2 and message[1] == self.sub_id:
                await self._closed(str(message[2]) if len(message) > 2 else "")
            elif verb == "NOTICE":
                self._on_notice(str(message[1]) if len(message) > 1 else "")

    async def _authenticate(self, challenge: str) -> None:
        """NIP-42: answer every challenge (it reveals only this table's fresh key) so that a
        relay that wants it for writes or reads never has to refuse us first."""
        self.challenge = challenge
        event = auth_event(self.nkey, self.url, challenge)
        self.auth_id = event.id
        self.auth_sent = trio.current_time()
        self.stats["auth"] += 1
        await self._send(["AUTH", event.to_json()])

    async def _closed(self, words: str) -> None:
        answer = classify_ok(False, words)
        if answer.verdict is Verdict.NEEDS_AUTH and self.challenge and not self.authed:
            self.stats["closed_for_auth"] += 1
            return  # subscribed again once the relay has taken our AUTH
        raise ConnectionError(f"the relay closed our subscription: {words[:160]}")

    async def _writer(self) -> None:
        while True:
            if self.auth_id and not self.authed:
                await self._wait_changed()  # our AUTH first, then events (or a bar)
                continue
            if self.barred:
                await self._wait_changed()
                continue
            now = trio.current_time()
            expired = self.outbox.drop_expired(now)
            if expired:
                self.stats["expired"] += expired
            announce = self.announce_due and self.first is not None
            catch_up = self.catch_up_allowed(self)
            if len(self.inflight) >= self.policy.window or not (
                announce or self.outbox.waiting(catch_up)
            ):
                self.wake = trio.Event()
                # Catch-up held back on a throttled relay: look again in a while.
                with trio.move_on_after(1.0 if len(self.outbox) else math.inf):
                    await self.wake.wait()
                continue
            ready = self.pace.ready_at(now)
            if now < ready:
                await trio.sleep(ready - now)
                continue
            if announce and self.first is not None:
                batch = _Batch(self.first[0], [], self.first[1])
                self.announce_due = False
            else:
                entries = self.outbox.take(self._budget(), catch_up)
                if not entries:
                    continue
                batch = _Batch(entries[0].kind, entries, encode_batch(entries))
            await self._send_batch(batch)

    def _budget(self) -> int:
        return max(smallest_content(), self.max_content * 3 // 4)

    async def _send_batch(self, batch: _Batch) -> None:
        try:
            if self.pow >= THREAD_POW:  # long enough to stall the node: mine off the loop
                events = await trio.to_thread.run_sync(
                    self.seal, batch.kind, batch.body, self.max_content, self.pow
                )
            else:
                events = self.seal(batch.kind, batch.body, self.max_content, self.pow)
        except ValueError as exc:  # more work than we can afford, or too many pieces
            self._bar(str(exc))
            return
        batch.events = len(events)
        batch.work = self.pow
        batch.sent = trio.current_time()
        batch.largest = max(len(e.content) for e in events)
        if any(e.priority == CATCH_UP for e in batch.entries):
            self.last_catch_up = batch.sent
        catch_up_only = bool(batch.entries) and all(e.priority == CATCH_UP for e in batch.entries)
        urgency = min((e.priority for e in batch.entries), default=TABLE)
        for event in events:
            while True:
                if urgency > TABLE and self.outbox.waiting(below=urgency):
                    # The running hand's moves go before (and between the pieces of) a
                    # message that can wait: the next hand's shuffle, catch-up. On a relay
                    # that paces us to one event a second, a shuffle cut into a dozen pieces
                    # held the table's next card for as many seconds.
                    await self._send_between(urgency)
                    continue
                # Each piece of a cut message waits for the pace like any event (a relay that
                # counts a burst against us refuses all but the first piece otherwise).
                now = trio.current_time()
                ready = self.pace.ready_at(now)
                if ready <= now:
                    break
                await trio.sleep(ready - now)
            self.pace.spend(now)
            self.inflight[event.id] = (batch, now)
            await self._send(["EVENT", event.to_json()])
            self.stats["events_out"] += 1
            self.stats[f"events_out_{batch.kind}"] += 1
            self.stats["events_out_catch_up"] += catch_up_only

    async def _send_between(self, urgency: int) -> None:
        entries = self.outbox.take(self._budget(), below=urgency)
        if entries:
            await self._send_batch(_Batch(entries[0].kind, entries, encode_batch(entries)))

    async def _ok_watch(self) -> None:
        while True:
            await trio.sleep(1.0)
            if self.auth_id and trio.current_time() - self.auth_sent > self.policy.ok_timeout:
                raise ConnectionError("the relay did not answer our AUTH in time")
            if self.inflight:
                _, (_, sent) = next(iter(self.inflight.items()))
                if trio.current_time() - sent > self.policy.ok_timeout:
                    raise ConnectionError("the relay did not answer our events in time")

    # ---------------------------------------------------------------- answers
    def _on_ok(self, event_id: object, accepted: bool, words: str) -> None:
        if isinstance(event_id, str) and event_id and event_id == self.auth_id:
            self._auth_answered(accepted, words)
            return
        entry = None
        if isinstance(event_id, str) and event_id in self.inflight:
            entry = self.inflight.pop(event_id)
        elif self.inflight and not accepted:
            # Some relays answer a refusal with an empty id; they answer in order.
            _, entry = self.inflight.popitem(last=False)
        if entry is None:
            return
        self._answered(*entry, classify_ok(accepted, words))

    def _on_notice(self, words: str) -> None:
        self.stats["notices"] += 1
        self.last_notice = words[:200]
        answer = classify_notice(words)
        if answer is not None and self.inflight:
            # nostr-rs-relay and nostream answer some refusals with a NOTICE and no OK: it
            # stands for the oldest event still waiting.
            self.stats["notice_as_ok"] += 1
            _, (batch, sent) = self.inflight.popitem(last=False)
            self._answered(batch, sent, answer)

    def _auth_answered(self, accepted: bool, words: str) -> None:
        self.auth_id = ""
        if accepted:
            self.authed = True
            self.stats["authed"] += 1
            self._pulse()
            self._resubscribe = not self.subscribed.is_set()
            return
        self._bar(f"auth-required and our AUTH was refused: {words[:120]}")

    def _answered(self, batch: _Batch, sent: float, answer: Answer) -> None:
        self._act_on(batch, answer)
        late = trio.current_time() - sent
        if late > self.policy.slow_ok and not self.throttled:
            self.stats["renewed_slow"] += 1
            raise RelayRefused(f"the relay answered after {late:.1f} s; renewing")
        if batch.shrunk_here:
            batch.shrunk_here = False
            raise RelayRefused(f"refused a big event: {answer.reason}")

    def _act_on(self, batch: _Batch, answer: Answer) -> None:
        self.wake.set()
        self._unanswered_connections = 0
        batch.answered += 1
        now = trio.current_time()
        verdict = answer.verdict
        if answer.done:
            self.stats["ok"] += 1
            self._refused_in_row = 0
            self.pace.took(now)
            if batch.answered == batch.events and not batch.refused:
                self._note_taken(batch, now)
            self.largest_taken = max(self.largest_taken, batch.largest)
            self._grow()
            return
        self.last_answer = answer.reason
        batch.refused = True
        self.stats[f"refused_{verdict.name.lower()}"] += 1
        if verdict is Verdict.RATE_LIMITED:
            self.pace.pushed_back(now, batch.sent)
        elif verdict is Verdict.TOO_BIG:
            batch.shrunk_here = self._shrink(batch)
            if not batch.shrunk_here and batch.largest <= smallest_content():
                self._bar(f"refuses even our smallest events: {answer.reason}")
                return
        elif verdict is Verdict.NEEDS_POW:
            # Events that left before we knew (or mined to less) simply go again at the new
            # difficulty; only an event mined to what the relay asked and still refused, or a
            # difficulty we cannot afford, bars the relay.
            wanted = asked_pow(answer.reason) or batch.work + 4
            if wanted <= batch.work:
                wanted = batch.work + 4
            if wanted > self.policy.max_pow:
                self._bar(answer.reason)
                return
            self.pow = max(self.pow, wanted)
        elif verdict is Verdict.NEEDS_AUTH:
            if self.authed or not self.challenge:
                self._bar(answer.reason)
                return
        elif verdict is Verdict.BARRED:
            self._bar(answer.reason)
            return
        elif verdict is Verdict.FAILED and batch.largest > max(
            self.largest_taken, smallest_content()
        ):
            # Unknown words, but bigger than anything this relay took: most likely its size
            # limit in words we do not know. Cut smaller (and grow back later).
            self.stats["refused_maybe_big"] += 1
            batch.shrunk_here = self._shrink(batch)
        elif verdict is Verdict.FAILED:
            self._refused_in_row += 1
            if self._refused_in_row >= self.policy.give_up_after:
                self._bar(answer.reason)
            return  # not ours to fix: this batch is lost on this relay (others carry it)
        self._requeue(batch)

    def _note_taken(self, batch: _Batch, now: float) -> None:
        for entry in batch.entries:
            if entry.same is not None:
                self.taken.pop(entry.same, None)
                self.taken[entry.same] = now
        while len(self.taken) > TAKEN_KEPT:
            self.taken.popitem(last=False)

    def _requeue(self, batch: _Batch) -> None:
        if batch.requeued:
            return
        batch.requeued = True
        if batch.entries:
            self.outbox.put_back(batch.entries)
        else:
            self.announce_due = True  # the announcement: sent again
        self.wake.set()

    def _shrink(self, batch: _Batch) -> bool:
        # Never again as big as what was refused (until we forget, in case the relay changed).
        self.refused_size = min(self.refused_size, batch.largest)
        self.refused_at = trio.current_time()
        smaller = max(smallest_content(), min(self.max_content, batch.largest) // 2)
        if smaller >= self.max_content:
            return False
        self.max_content = smaller
        self._accepted_at_size = 0
        self.stats["shrunk"] += 1
        return True

    def _grow(self) -> None:
        cap = self.size_cap
        if trio.current_time() - self.refused_at < self.policy.forget_refused_size:
            cap = min(cap, self.refused_size - 1)
        if self.max_content >= cap:
            return
        self._accepted_at_size += 1
        if self._accepted_at_size >= self.policy.grow_after:
            self.max_content = min(cap, self.max_content * 2)
            self._accepted_at_size = 0
            self.stats["grown"] += 1

    async def _wait_changed(self) -> None:
        with trio.move_on_after(1.0):
            await self.changed.wait()

    def close(self) -> None:
        self.closed = True


def describe_failure(exc: BaseException) -> str:
    """A connection failure in a few words for the user (probe.py says the same)."""
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(describe_failure(e) for e in exc.exceptions[:2])
    if isinstance(exc, trio_websocket.ConnectionRejected):
        return f"the relay refused the websocket (HTTP {exc.status_code})"
    if isinstance(exc, trio_websocket.ConnectionClosed):
        return f"the relay closed the connection ({exc.reason})"
    cause = exc.__cause__ or exc.__context__
    if not str(exc) and cause is not None:
        return describe_failure(cause)  # e.g. a handshake error around "connection refused"
    text = str(exc) or type(exc).__name__
    return text[:200]
