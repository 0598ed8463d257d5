"""rust-nostr's relay (``nostr-sdk`` 0.45.1, client/bench/rust_relay.py) in each profile, spoken
to in raw NIP-01 from Trio.

The refusals it sent, word for word (asserted below):

- rate limit, the builder's (60 a minute per connection by default; the 61st event of a burst,
  the 6th with ``rate_per_minute=5``): ``rate-limited: slow down``
- per-IP token bucket (our proxy, noteguard's wording): ``rate-limited: you are noting too much``
- NIP-13 ``min_pow=8``: ``pow: required a difficulty >= 8``
- NIP-42 writes: nothing on connect; an unauthenticated EVENT gets ``["AUTH", CHALLENGE]``
  and then ``OK false`` with ``auth-required: you must auth``; the AUTH event's answer is
  ``OK true ""`` (the relay does not check its ``relay`` tag)
- size (our proxy; a ``WritePolicy`` refusal would always read ``blocked: `` + its message, so
  the proxy answers for the per-IP, size and age checks itself)
- size: ``blocked: event too large (9369 > 8192 bytes)`` (the event as compact JSON;
  9000 characters of content)
- old ephemeral event (our proxy, strfry's wording): ``invalid: ephemeral event expired``
- shadow: ``OK true ""`` and nothing stored or forwarded
- accepted: ``OK true ""``; an event sent twice: ``OK true "duplicate: already have this event"``

NOTICE (never an OK): ``binary messages are not processed by this relay`` for a binary frame,
``invalid client message`` for text that is not a NIP-01 message (not JSON, an event missing
fields, an unknown verb); the connection stays up. No other NOTICE was seen.

Seen by hand, not tested here: a bad signature ``invalid: invalid event signature``, a wrong id
``invalid: invalid event ID``, a NIP-40 expired event ``blocked: event is expired``, the 501st
open REQ of a connection ``["CLOSED", SUB, "rate-limited: too many REQs"]``.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from typing import Any

import pytest
import trio
import trio_websocket
from nostr_relay_process import RustRelayProcess

from dealerless.node.nostr.event import NostrEvent, NostrKey, compute_id

STORED, EPHEMERAL, AUTH = 4318, 24318, 22242
Start = Callable[..., RustRelayProcess]


class Conn:
    """One websocket to the relay; messages that are not the awaited answer are kept."""

    def __init__(self, ws: trio_websocket.WebSocketConnection) -> None:
        self.ws = ws
        self.other: list[list[Any]] = []

    async def send(self, *message: Any) -> None:
        await self.ws.send_message(json.dumps(list(message)))

    async def receive(self, timeout: float = 5.0) -> list[Any]:
        with trio.fail_after(timeout):
            message: list[Any] = json.loads(await self.ws.get_message())
            return message

    async def publish(self, event: NostrEvent) -> tuple[bool, str]:
        """EVENT, then the relay's OK for it: (accepted, reason)."""
        await self.send("EVENT", event.to_json())
        while True:
            message = await self.receive()
            if message[:2] == ["OK", event.id]:
                return bool(message[2]), str(message[3])
            self.other.append(message)

    async def subscribe(self, tag: str, kind: int) -> None:
        await self.send("REQ", "sub", {"kinds": [kind], "#t": [tag]})
        stored = []
        while (message := await self.receive())[0] != "EOSE":
            stored.append(message)
        self.other += stored

    async def next_event(self, timeout: float = 5.0) -> dict[str, Any]:
        while True:
            message = await self.receive(timeout)
            if message[0] == "EVENT":
                event: dict[str, Any] = message[2]
                return event
            self.other.append(message)


def _tag() -> str:
    return secrets.token_hex(8)


def _event(key: NostrKey, tag: str, kind: int = STORED, text: str = "", **kw: Any) -> NostrEvent:
    return key.sign(kind, (("t", tag),), text or secrets.token_hex(8), **kw)


async def _refusals(conn: Conn, key: NostrKey, tag: str, count: int) -> list[tuple[int, str]]:
    """Publish ``count`` events back to back: the (index, reason) of each refused one."""
    refused = []
    for i in range(count):
        accepted, reason = await conn.publish(_event(key, tag))
        if not accepted:
            refused.append((i, reason))
    return refused


def test_default_rate_limit_is_sixty_a_minute_per_connection(rust_relays: Start) -> None:
    relay = rust_relays()

    async def main() -> None:
        key, tag = NostrKey(), _tag()
        async with trio_websocket.open_websocket_url(relay.url) as ws:
            conn = Conn(ws)
            refused = await _refusals(conn, key, tag, 63)
            assert refused[0] == (60, "rate-limited: slow down")
            assert [i for i, _ in refused] == [60, 61, 62]
            assert conn.other == []
        async with trio_websocket.open_websocket_url(relay.url) as ws:  # a new connection: fresh
            assert await Conn(ws).publish(_event(key, tag)) == (True, "")

    trio.run(main)


def test_rate_limit_n_and_none(rust_relays: Start) -> None:
    five, unlimited = rust_relays(rate_per_minute=5), rust_relays(rate_per_minute=0)

    async def main() -> None:
        key, tag = NostrKey(), _tag()
        async with trio_websocket.open_websocket_url(five.url) as ws:
            assert await _refusals(Conn(ws), key, tag, 6) == [(5, "rate-limited: slow down")]
        async with trio_websocket.open_websocket_url(unlimited.url) as ws:
            assert await _refusals(Conn(ws), key, tag, 150) == []

    trio.run(main)


def test_per_ip_bucket_spans_connections_with_noteguards_words(rust_relays: Start) -> None:
    relay = rust_relays(per_ip_per_minute=8)

    async def main() -> None:
        key, tag = NostrKey(), _tag()
        async with (
            trio_websocket.open_websocket_url(relay.url) as a,
            trio_websocket.open_websocket_url(relay.url) as b,
        ):
            first, second = Conn(a), Conn(b)
            assert await _refusals(first, key, tag, 4) == []
            assert await _refusals(second, key, tag, 4) == []
            assert await first.publish(_event(key, tag)) == (
                False,
                "rate-limited: you are noting too much",
            )

    trio.run(main)


def _mined(key: NostrKey, tag: str, bits: int) -> NostrEvent:
    """NIP-13: a nonce tag that gives the id ``bits`` leading zero bits (whole bytes here)."""
    now = int(time.time())
    for nonce in range(1 << 24):
        tags = (("t", tag), ("nonce", str(nonce), str(bits)))
        if compute_id(key.pubkey, now, STORED, tags, "work")[: bits // 8] == bytes(bits // 8):
            return key.sign(STORED, tags, "work", now)
    raise AssertionError("no nonce found")


def test_min_pow_refuses_events_without_work(rust_relays: Start) -> None:
    relay = rust_relays(min_pow=8)

    async def main() -> None:
        key, tag = NostrKey(), _tag()
        async with trio_websocket.open_websocket_url(relay.url) as ws:
            conn = Conn(ws)
            lazy = _event(key, tag)
            while bytes.fromhex(lazy.id)[0] == 0:
                lazy = _event(key, tag)  # 1 in 256 has the work by chance
            assert await conn.publish(lazy) == (False, "pow: required a difficulty >= 8")
            assert await conn.publish(_mined(key, tag, 8)) == (True, "")

    trio.run(main)


def test_nip42_write_needs_auth(rust_relays: Start) -> None:
    relay = rust_relays(nip42_write=True)

    async def main() -> None:
        key, tag = NostrKey(), _tag()
        async with trio_websocket.open_websocket_url(relay.url) as ws:
            conn = Conn(ws)
            assert await conn.publish(_event(key, tag)) == (False, "auth-required: you must auth")
            assert [m[0] for m in conn.other] == ["AUTH"]
            challenge = conn.other[0][1]
            auth = key.sign(AUTH, (("relay", relay.url), ("challenge", challenge)), "")
            await conn.send("AUTH", auth.to_json())
            assert await conn.receive() == ["OK", auth.id, True, ""]
            assert await conn.publish(_event(key, tag)) == (True, "")

    trio.run(main)


def test_size_limit_blocks_big_events_and_passes_small_ones(rust_relays: Start) -> None:
    relay = rust_relays(max_event_bytes=8192)

    async def main() -> None:
        key, tag = NostrKey(), _tag()
        async with (
            trio_websocket.open_websocket_url(relay.url) as w,
            trio_websocket.open_websocket_url(relay.url) as r,
        ):
            writer, reader = Conn(w), Conn(r)
            await reader.subscribe(tag, STORED)
            big = _event(key, tag, text="x" * 9000)
            size = len(json.dumps(big.to_json(), separators=(",", ":")))
            assert await writer.publish(big) == (
                False,
                f"blocked: event too large ({size} > 8192 bytes)",
            )
            small = _event(key, tag)
            assert await writer.publish(small) == (True, "")
            assert (await reader.next_event())["id"] == small.id
            assert await writer.publish(small) == (True, "duplicate: already have this event")

    trio.run(main)


def test_old_ephemeral_events_are_refused_like_strfry(rust_relays: Start) -> None:
    relay = rust_relays(ephemeral_max_age=60)

    async def main() -> None:
        key, tag = NostrKey(), _tag()
        async with (
            trio_websocket.open_websocket_url(relay.url) as w,
            trio_websocket.open_websocket_url(relay.url) as r,
        ):
            writer, reader = Conn(w), Conn(r)
            await reader.subscribe(tag, EPHEMERAL)
            old = _event(key, tag, EPHEMERAL, created_at=int(time.time()) - 120)
            assert await writer.publish(old) == (False, "invalid: ephemeral event expired")
            fresh = _event(key, tag, EPHEMERAL)
            assert await writer.publish(fresh) == (True, "")
            assert (await reader.next_event())["id"] == fresh.id
            # stored events of any age pass: the limit is on ephemeral ones
            aged = _event(key, tag, created_at=int(time.time()) - 3600)
            assert await writer.publish(aged) == (True, "")

    trio.run(main)


def test_shadow_says_ok_and_keeps_nothing(rust_relays: Start) -> None:
    relay = rust_relays(shadow=True)

    async def main() -> None:
        key, tag = NostrKey(), _tag()
        async with (
            trio_websocket.open_websocket_url(relay.url) as w,
            trio_websocket.open_websocket_url(relay.url) as r,
        ):
            writer, reader = Conn(w), Conn(r)
            await reader.subscribe(tag, STORED)
            event = _event(key, tag)
            assert await writer.publish(event) == (True, "")
            with pytest.raises(trio.TooSlowError):
                await reader.next_event(timeout=1.0)
            await writer.subscribe(tag, STORED)  # a later REQ: EOSE and nothing before it
            assert writer.other == []

    trio.run(main)


def test_notices_for_binary_and_malformed_messages(rust_relays: Start) -> None:
    relay = rust_relays()

    async def main() -> None:
        async with trio_websocket.open_websocket_url(relay.url) as ws:
            conn = Conn(ws)
            await ws.send_message(b"\x00binary")
            binary = "binary messages are not processed by this relay"
            assert await conn.receive() == ["NOTICE", binary]
            for text in ("not json", '["EVENT", {"id": "zz"}]', '["FOO", 1]'):
                await ws.send_message(text)
                assert await conn.receive() == ["NOTICE", "invalid client message"]
            await conn.send("REQ", "s", {"kinds": [STORED], "#t": [_tag()]})
            assert await conn.receive() == ["EOSE", "s"]  # the connection is still good

    trio.run(main)
