"""rust-nostr's relay (``LocalRelay`` from the ``nostr-sdk`` wheel) configured like a public
relay: ``python -m dealerless.client.bench.rust_relay_main --config FILE.json``.

A process of its own: the bindings run on asyncio, which must never meet the project's Trio
code. Prints ``listening ws://HOST:PORT`` once it serves and runs until SIGTERM or SIGKILL.
Only the standard library is imported at module level (every module of the package is imported
by the startup test, with or without ``nostr_sdk``); the cached venv of rust_relay.py runs this
file by path, so it imports nothing from dealerless either.

The builder does the per-connection rate limit, NIP-13 and NIP-42 itself. The other options
are checked by :class:`Gate` in a small websocket proxy in front of the relay, because a
``WritePolicy`` rejection always reaches the client prefixed ``blocked: `` (the 0.45.1 bindings
give no way to choose the prefix), so it cannot speak strfry's or noteguard's wording; the proxy
also sees the client's real address, which a per-IP limit needs, and does shadow rejection.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

NOTEGUARD = "rate-limited: you are noting too much"  # damus's noteguard, word for word
EPHEMERAL_EXPIRED = "invalid: ephemeral event expired"  # strfry, word for word
NO_LIMIT = 2**32 - 1  # RateLimit takes a u32; 0 would refuse everything after the first event


@dataclass
class Gate:
    """The write checks the builder lacks, in order; the first refusal wins."""

    per_ip_per_minute: int = 0
    max_event_bytes: int = 0
    ephemeral_max_age: int = 0
    buckets: dict[str, tuple[float, float]] = field(default_factory=dict)  # ip: (tokens, when)

    @property
    def active(self) -> bool:
        return self.per_ip_per_minute > 0 or self.max_event_bytes > 0 or self.ephemeral_max_age > 0

    def refusal(self, event: dict[str, Any], ip: str, now: float) -> str | None:
        if self.per_ip_per_minute > 0:
            # Token bucket, burst N and N a minute; like noteguard, a refused attempt spends too
            # (floored at 0), so a client that keeps trying faster than N a minute stays out.
            rate = self.per_ip_per_minute
            tokens, last = self.buckets.get(ip, (float(rate), now))
            tokens = min(float(rate), tokens + (now - last) * rate / 60)
            self.buckets[ip] = (max(0.0, tokens - 1), now)
            if tokens < 1:
                return NOTEGUARD
        if self.max_event_bytes > 0:
            size = len(json.dumps(event, separators=(",", ":"), ensure_ascii=False).encode())
            if size > self.max_event_bytes:
                return f"blocked: event too large ({size} > {self.max_event_bytes} bytes)"
        if self.ephemeral_max_age > 0:
            kind, created = event.get("kind"), event.get("created_at")
            if (
                isinstance(kind, int)
                and 20000 <= kind < 30000
                and isinstance(created, int)
                and now - created > self.ephemeral_max_age
            ):
                return EPHEMERAL_EXPIRED
        return None


def answer(gate: Gate, shadow: bool, text: str, ip: str) -> str | None:
    """Our own reply to a client's message, or None to pass it on to the relay unchanged."""
    try:
        message = json.loads(text)
    except ValueError:
        return None  # the relay answers malformed input its own way
    if not (isinstance(message, list) and len(message) == 2 and message[0] == "EVENT"):
        return None
    event = message[1]
    if not isinstance(event, dict) or not isinstance(event.get("id"), str):
        return None
    reason = gate.refusal(event, ip, time.time()) if gate.active else None
    if reason is not None:
        return json.dumps(["OK", event["id"], False, reason])
    if shadow:  # accepted in words, never stored or forwarded
        return json.dumps(["OK", event["id"], True, ""])
    return None


async def proxy(client: ServerConnection, upstream: str, gate: Gate, shadow: bool) -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    ip = str(client.remote_address[0])
    # No compression and no pings: the rust relay offers neither, the client must see the same.
    async with connect(upstream, max_size=None, compression=None, ping_interval=None) as relay:

        async def up() -> None:
            with contextlib.suppress(ConnectionClosed):
                async for text in client:
                    reply = answer(gate, shadow, text, ip) if isinstance(text, str) else None
                    await (relay.send(text) if reply is None else client.send(reply))

        async def down() -> None:
            with contextlib.suppress(ConnectionClosed):
                async for text in relay:
                    await client.send(text)

        tasks = [asyncio.create_task(up()), asyncio.create_task(down())]
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)  # either side closed
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def serve(options: dict[str, Any]) -> None:
    import nostr_sdk as ns
    from nostr_sdk.nostr_sdk import uniffi_set_event_loop  # (re-exported implicitly only)

    # The bindings call back into Python (and await) on this loop; their annotation says
    # BaseEventLoop, which every running loop is.
    uniffi_set_event_loop(cast("asyncio.BaseEventLoop", asyncio.get_running_loop()))
    host, port = str(options.get("host", "127.0.0.1")), int(options["port"])
    gate = Gate(
        int(options.get("per_ip_per_minute") or 0),
        int(options.get("max_event_bytes") or 0),
        int(options.get("ephemeral_max_age") or 0),
    )
    shadow = bool(options.get("shadow"))
    front = gate.active or shadow
    builder = ns.LocalRelayBuilder()  # type: ignore[no-untyped-call]  # `def __init__(self, )`
    # Behind the proxy the relay takes a loopback port of its own choosing (it reports it).
    builder = builder.addr("127.0.0.1") if front else builder.addr(host).port(port)
    rate = options.get("rate_per_minute")
    if rate is not None:  # None: the builder's default, 60 events a minute per connection
        builder = builder.rate_limit(ns.RateLimit(max_reqs=500, notes_per_minute=rate or NO_LIMIT))
    if options.get("min_pow"):
        builder = builder.min_pow(int(options["min_pow"]))
    if options.get("nip42_write"):
        mode = ns.LocalRelayBuilderNip42Mode.WRITE
        builder = builder.nip42(ns.LocalRelayBuilderNip42(mode=mode))
    relay = builder.build()
    await relay.run()  # binds and returns; the relay serves on the bindings' own threads
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    if front:
        from websockets.asyncio.server import serve as ws_serve

        upstream = str(await relay.url())

        async def handler(client: ServerConnection) -> None:
            await proxy(client, upstream, gate, shadow)

        async with ws_serve(
            handler, host, port, max_size=None, compression=None, ping_interval=None
        ):
            print(f"listening ws://{host}:{port}", flush=True)
            await stop.wait()
    else:
        print(f"listening ws://{host}:{port}", flush=True)
        await stop.wait()
    relay.shutdown()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="rust-nostr's relay, configured like a public one")
    parser.add_argument("--config", required=True, help="JSON file of the relay's options")
    args = parser.parse_args(argv)
    with open(args.config, encoding="utf-8") as file:
        options = json.load(file)
    asyncio.run(serve(options))


if __name__ == "__main__":
    main()
