"""Ask a relay whether it can carry a table, before a table depends on it (issue 21, point 5).

One NIP-11 read, one websocket, one subscription to a random ``#t`` tag and one test event of
each kind a table sends (4318 stored frame and 4319 stored announcement, both with a NIP-40
expiration ten minutes out so they do not stay; 24318 ephemeral), each signed by a fresh key,
with ~1 KB of random sealed-looking content, mined to the relay's proof of work when we can
afford it. Every ``OK`` is read by :func:`~.refusals.classify_ok`, and an event counts only when
it also comes back on our subscription: a shadow-rejecting relay says ``OK true`` and drops it.

Polite: three events; the one refused first with ``auth-required`` (after our NIP-42 AUTH) or
with a ``pow:`` difficulty we can afford (mined) is sent once more, nothing else. Bounded: the
whole probe of one relay takes at most ``timeout``, whatever the relay does."""

from __future__ import annotations

import base64
import functools
import json
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import trio
import trio_websocket

from dealerless.node.nostr.event import NostrEvent, NostrKey
from dealerless.node.nostr.gates import MAX_AFFORDABLE_POW, auth_event, mine
from dealerless.node.nostr.nip11 import RelayLimits, fetch_limits
from dealerless.node.nostr.pool import KIND_ANNOUNCE, KIND_CHATTER, KIND_FRAME
from dealerless.node.nostr.refusals import Answer, Verdict, classify_notice, classify_ok
from dealerless.node.nostr.refusals import pow_difficulty as asked_pow
from dealerless.node.nostr.relay import describe_failure

__all__ = ["KINDS", "KindResult", "RelayReport", "choose", "probe_all", "probe_relay"]

KINDS = (KIND_FRAME, KIND_ANNOUNCE, KIND_CHATTER)
STORED = (KIND_FRAME, KIND_ANNOUNCE)
CONTENT = 1024  # characters: a small sealed frame
EXPIRES = 600  # seconds: the stored test events leave the relay after this (NIP-40)
ECHO_WAIT = 3.0  # after the last answer: public relays echo within a fraction of this
MAX_INCOMING = 512 * 1024


@dataclass(frozen=True)
class KindResult:
    kind: int
    sent: bool = False
    answer: Answer | None = None  # None: no OK (nor a NOTICE that stands for one)
    echo_ms: float | None = None  # send -> back on our subscription; None: it never came

    @property
    def accepted(self) -> bool:
        return self.answer is not None and self.answer.done

    @property
    def ok(self) -> bool:
        return self.accepted and self.echo_ms is not None

    def describe(self) -> str:
        if not self.sent:
            return "not sent"
        if self.answer is None:
            return "no answer in time"
        if not self.accepted:
            return f"refused: {self.answer.reason or self.answer.verdict.value}"
        if self.echo_ms is None:
            return "accepted but no echo"
        return f"ok {self.echo_ms:.0f} ms"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "sent": self.sent,
            "accepted": self.accepted,
            "verdict": self.answer.verdict.value if self.answer else None,
            "reason": self.answer.reason if self.answer else "",
            "echo_ms": None if self.echo_ms is None else round(self.echo_ms, 1),
        }


@dataclass(frozen=True)
class RelayReport:
    url: str
    reachable: bool  # the websocket opened
    error: str = ""  # why the probe stopped short (connection, time), for people
    limits: RelayLimits = field(default_factory=RelayLimits)
    nip11_error: str = ""  # why there is no usable information document
    auth_asked: bool = False  # the relay sent a NIP-42 challenge
    pow: int = 0  # the proof of work our last event carried
    kinds: tuple[KindResult, ...] = ()

    @property
    def usable(self) -> bool:
        return self.reachable and len(self.kinds) == len(KINDS) and all(k.ok for k in self.kinds)

    @property
    def echo_ms(self) -> float | None:
        """The slowest kind's echo; None unless every kind came back."""
        echoes = [k.echo_ms for k in self.kinds if k.echo_ms is not None]
        return max(echoes) if self.kinds and len(echoes) == len(self.kinds) else None

    def problem(self) -> str:
        if not self.reachable:
            return f"unreachable ({self.error or 'no answer'})"
        for result in self.kinds:
            if not result.ok:
                return f"kind {result.kind} {result.describe()}"
        return self.error or ("" if self.kinds else "nothing sent")

    def summary(self) -> str:
        if self.usable:
            extras = ", AUTH" if self.auth_asked else ""
            extras += f", pow {self.pow}" if self.pow else ""
            return f"{self.url}: usable, slowest echo {self.echo_ms:.0f} ms{extras}"
        return f"{self.url}: not usable: {self.problem()}"

    def to_json(self) -> dict[str, Any]:
        limits = self.limits
        return {
            "url": self.url,
            "reachable": self.reachable,
            "usable": self.usable,
            "error": self.error,
            "echo_ms": None if self.echo_ms is None else round(self.echo_ms, 1),
            "auth_asked": self.auth_asked,
            "pow": self.pow,
            "nip11": {
                "error": self.nip11_error,
                "max_content": limits.max_content,
                "min_pow": limits.min_pow,
                "auth_required": limits.auth_required,
                "payment_required": limits.payment_required,
                "restricted_writes": limits.restricted_writes,
            },
            "kinds": [k.to_json() for k in self.kinds],
            "summary": self.summary(),
        }


@dataclass
class _Probe:
    url: str
    timeout: float
    key: NostrKey = field(default_factory=NostrKey)  # fresh: the relay learns nothing of us
    tag: str = field(default_factory=lambda: secrets.token_hex(16))
    sub: str = field(default_factory=lambda: secrets.token_hex(8))
    ws: trio_websocket.WebSocketConnection | None = None
    reachable: bool = False
    error: str = ""
    limits: RelayLimits = field(default_factory=RelayLimits)
    nip11_error: str = ""
    limits_read: trio.Event = field(default_factory=trio.Event)
    subscribed: trio.Event = field(default_factory=trio.Event)
    sub_closed: bool = False
    auth_asked: bool = False
    auth_id: str = ""
    auth_ok: bool = False
    auth_done: trio.Event = field(default_factory=trio.Event)
    pow: int = 0
    pending: str = ""  # the event whose answer we wait for (a NOTICE may stand for it)
    sent_at: dict[str, float] = field(default_factory=dict)
    answers: dict[str, Answer] = field(default_factory=dict)
    answered: trio.Event = field(default_factory=trio.Event)
    echoes: dict[str, float] = field(default_factory=dict)
    echoed: trio.Event = field(default_factory=trio.Event)
    results: dict[int, tuple[str, bool]] = field(default_factory=dict)  # kind: (event id, sent)

    async def run(self) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._read_limits)  # beside the websocket: one round trip less
            await self._converse()

    async def _read_limits(self) -> None:
        self.limits, self.nip11_error = await fetch_limits(self.url, self.timeout / 2)
        if self.limits.min_pow <= MAX_AFFORDABLE_POW:  # more: the relay's refusal says so
            self.pow = self.limits.min_pow
        self.limits_read.set()

    async def _converse(self) -> None:
        async with trio_websocket.open_websocket_url(
            self.url,
            connect_timeout=self.timeout,
            disconnect_timeout=1.0,
            max_message_size=MAX_INCOMING,
        ) as ws:
            self.ws, self.reachable = ws, True
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._reader, ws)
                await self._subscribe()
                with trio.move_on_after(self.timeout / 4):  # no EOSE: send all the same
                    await self.subscribed.wait()
                await self.limits_read.wait()
                for kind in KINDS:
                    await self._try(kind)
                await self._wait_echoes()
                nursery.cancel_scope.cancel()

    async def _send(self, message: list[Any]) -> None:
        if self.ws is None:
            raise ConnectionError("not connected")
        await self.ws.send_message(json.dumps(message, separators=(",", ":")))

    async def _subscribe(self) -> None:
        await self._send(["REQ", self.sub, {"kinds": list(KINDS), "#t": [self.tag]}])

    async def _event(self, kind: int) -> NostrEvent:
        size = min(CONTENT, self.limits.max_content) // 4 * 3
        content = base64.b64encode(secrets.token_bytes(size)).decode("ascii")
        tags: tuple[tuple[str, ...], ...] = (("t", self.tag),)
        if kind in STORED:
            tags += (("expiration", str(int(time.time()) + EXPIRES)),)
        if not self.pow:
            return self.key.sign(kind, tags, content)
        work = functools.partial(mine, self.key, kind, tags, content, self.pow)
        # A thread, so that the time limit holds while it works (up to a second or two).
        return await trio.to_thread.run_sync(work, abandon_on_cancel=True)

    async def _publish(self, event: NostrEvent) -> Answer | None:
        self.pending = event.id
        self.results[event.kind] = (event.id, True)
        self.sent_at[event.id] = trio.current_time()
        await self._send(["EVENT", event.to_json()])
        with trio.move_on_after(self.timeout / 2):
            while event.id not in self.answers:
                self.answered = trio.Event()
                await self.answered.wait()
        self.pending = ""
        return self.answers.get(event.id)

    async def _try(self, kind: int) -> None:
        event = await self._event(kind)
        known = self.auth_ok  # our AUTH taken before this event left: no second try for it
        answer = await self._publish(event)
        if answer is None or answer.done:
            return
        if answer.verdict is Verdict.NEEDS_AUTH and not known:
            with trio.move_on_after(self.timeout / 4):  # the challenge came with the refusal
                await self.auth_done.wait()
            if self.auth_ok:
                self.answers.pop(event.id, None)
                await self._publish(event)  # the same event, now that we are known
        elif answer.verdict is Verdict.NEEDS_POW:
            asked = asked_pow(answer.reason) or 0
            if self.pow < asked <= MAX_AFFORDABLE_POW:
                self.pow = asked
                await self._publish(await self._event(kind))

    def _echo_missing(self) -> bool:
        for event_id, _ in self.results.values():
            answer = self.answers.get(event_id)
            if answer is not None and answer.done and event_id not in self.echoes:
                return True
        return False

    async def _wait_echoes(self) -> None:
        deadline = trio.current_time() + ECHO_WAIT
        while self._echo_missing():
            self.echoed = trio.Event()
            with trio.move_on_at(deadline) as waited:
                await self.echoed.wait()
            if waited.cancelled_caught:
                return

    async def _reader(self, ws: trio_websocket.WebSocketConnection) -> None:
        while True:
            text = await ws.get_message()
            now = trio.current_time()
            try:
                message = json.loads(text)
            except ValueError:
                continue
            if not isinstance(message, list) or len(message) < 2:
                continue
            verb, arg = message[0], message[1]
            if verb == "EVENT" and arg == self.sub and len(message) == 3:
                event_id = message[2].get("id") if isinstance(message[2], dict) else None
                if isinstance(event_id, str) and event_id in self.sent_at:
                    self.echoes.setdefault(event_id, now)
                    self.echoed.set()
            elif verb == "OK" and len(message) >= 3 and isinstance(arg, str):
                words = str(message[3]) if len(message) > 3 else ""
                if arg == self.auth_id:
                    self.auth_ok = message[2] is True
                    self.auth_done.set()
                    if self.auth_ok and self.sub_closed:  # closed until we were known
                        self.sub_closed = False
                        await self._subscribe()
                elif arg in self.sent_at:
                    self.answers[arg] = classify_ok(message[2] is True, words)
                    self.answered.set()
            elif verb == "AUTH" and isinstance(arg, str) and not self.auth_id:
                self.auth_asked = True
                auth = auth_event(self.key, self.url, arg[:256])
                self.auth_id = auth.id
                await self._send(["AUTH", auth.to_json()])
            elif verb == "EOSE" and arg == self.sub:
                self.subscribed.set()
            elif verb == "CLOSED" and arg == self.sub:
                self.sub_closed = True
                self.subscribed.set()
            elif verb == "NOTICE" and self.pending and self.pending not in self.answers:
                notice = classify_notice(str(arg))  # nostr-rs-relay's oversize answer
                if notice is not None:
                    self.answers[self.pending] = notice
                    self.answered.set()

    def report(self) -> RelayReport:
        kinds = []
        for kind in KINDS:
            event_id, sent = self.results.get(kind, ("", False))
            echo = self.echoes.get(event_id)
            echo_ms = None if echo is None else (echo - self.sent_at[event_id]) * 1000
            kinds.append(KindResult(kind, sent, self.answers.get(event_id), echo_ms))
        return RelayReport(
            url=self.url,
            reachable=self.reachable,
            error=self.error,
            limits=self.limits,
            nip11_error=self.nip11_error,
            auth_asked=self.auth_asked,
            pow=self.pow,
            kinds=tuple(kinds) if self.reachable else (),
        )


async def probe_relay(url: str, timeout: float = 8.0) -> RelayReport:
    """What ``url`` does with a table's three kinds of event; never longer than ``timeout``."""
    probe = _Probe(url, timeout)
    try:
        with trio.move_on_after(timeout) as scope:
            await probe.run()
        if scope.cancelled_caught:
            probe.error = f"no complete answer within {timeout:g} s"
    except Exception as exc:  # any failure is this relay's answer
        probe.error = describe_failure(exc)
    return probe.report()


async def probe_all(
    urls: Sequence[str], timeout: float = 8.0, enough: int = 0
) -> list[RelayReport]:
    """Every relay at once, in the order given. With ``enough``: stop once that many are
    usable (the others are reported as not finished)."""
    unique = list(dict.fromkeys(urls))
    reports: dict[str, RelayReport] = {}
    async with trio.open_nursery() as nursery:

        async def one(url: str) -> None:
            reports[url] = await probe_relay(url, timeout)
            if enough and sum(r.usable for r in reports.values()) >= enough:
                nursery.cancel_scope.cancel()

        for url in unique:
            nursery.start_soon(one, url)
    stopped = "not finished: enough relays had answered"
    return [reports.get(url) or RelayReport(url, False, stopped) for url in unique]


def choose(reports: Sequence[RelayReport], count: int = 3) -> list[str]:
    """The usable relays, fastest echo first (ties keep their order), at most ``count``."""
    usable = [r for r in reports if r.usable and r.echo_ms is not None]
    return [r.url for r in sorted(usable, key=lambda r: r.echo_ms or 0.0)][:count]
