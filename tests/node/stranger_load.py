"""A load process for the hub tests: many strangers' connections to one hub.

``python stranger_load.py PORT COUNT MODE [--per-address N] [--pace N]`` keeps COUNT
connections open from the loopback addresses 127.0.0.2, 127.0.0.3, ... (N connections per
address, 64 by default: the hub's cap), reopening each one the hub closes, until killed.
MODE ``auth`` completes the transport handshake (a fresh key per connection) and then sends
nothing; MODE ``idle`` opens TCP only and never says a word; MODE ``table`` completes the
handshake with a key of its own per connection, opens a one-seat table of its own (bound to
that key, as the hub requires) and holds it, answering keepalives, never carrying a frame.
At most ``--pace`` connections (128 by default) are being opened and handshaken at once.

Prints ``open N`` (connections open now), in ``table`` mode ``tables N`` (connections that
hold their table now) and ``refused REASON: N`` lines about every second, and ``ready`` once
every one of the COUNT has tried at least once (the hub refuses some at once: past its caps).
"""

from __future__ import annotations

import argparse
import collections
import sys

import trio

from dealerless.node.identity import Identity
from dealerless.node.invite import Invite
from dealerless.node.transport import SecureChannel, TransportConfig, connect
from dealerless.node.wire import decode, encode
from dealerless.protocol.rules.registry import make_config


async def _open_table(channel: SecureChannel, invite: Invite) -> str:
    """Open our own one-seat table; '' when the hub took it, else its reason."""
    message = {
        "t": "open",
        "table": invite.table_id,
        "seats": 1,
        "salt": invite.salt,
        "terms": invite.terms,
    }
    await channel.send(encode(message))
    with trio.fail_after(15):
        reply = decode(await channel.receive())
    if reply.get("t") == "joined":
        return ""
    return str(reply.get("reason", reply.get("t")))


async def main(port: int, count: int, mode: str, per_address: int, pace: int) -> None:
    live = 0
    tables = 0
    tried = 0
    ready = False
    refused: collections.Counter[str] = collections.Counter()
    game = make_config("tuppen", 2, {})
    shared = [Identity.generate() for _ in range(64)]  # auth: key generation is not the point
    limiter = trio.CapacityLimiter(pace)

    async def one(index: int) -> None:
        nonlocal live, tried, tables
        address = f"127.0.0.{2 + index // per_address}"
        first = True
        identity = invite = None
        if mode == "table":
            identity = Identity.generate()
            invite = Invite.create(identity.public_key, game, 60_000)
        while True:
            channel = None
            holding = False
            try:
                async with limiter:
                    stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=address)
                    if mode in ("auth", "table"):
                        # "table" answers the hub's keepalives, as a patient attacker would.
                        keepalive = 5.0 if mode == "table" else None
                        config = TransportConfig(keepalive_interval=keepalive, idle_timeout=None)
                        me = identity or shared[index % len(shared)]
                        channel = await connect(stream, me, None, config=config)
                    if channel is not None and invite is not None:
                        reason = await _open_table(channel, invite)
                        if reason:
                            refused[reason] += 1
                            await trio.aclose_forcefully(stream)
                            raise OSError(reason)
                        holding = True
            except Exception:  # refused, reset, timed out: try again shortly
                tried += first
                first = False
                await trio.sleep(0.2)
                continue
            tried += first
            first = False
            live += 1
            tables += holding
            try:
                if channel is not None:
                    while True:
                        await channel.receive()
                else:
                    while await stream.receive_some(4096):
                        pass
            except Exception:
                pass
            finally:
                live -= 1
                tables -= holding
                await trio.aclose_forcefully(stream)

    async def report() -> None:
        nonlocal ready
        while True:
            await trio.sleep(1.0)
            print(f"open {live}", flush=True)
            if mode == "table":
                print(f"tables {tables}", flush=True)
                for reason, n in sorted(refused.items()):
                    print(f"refused {reason}: {n}", flush=True)
            if tried >= count and not ready:
                ready = True
                print("ready", flush=True)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(report)
        for index in range(count):
            nursery.start_soon(one, index)


if __name__ == "__main__":
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("count", type=int)
    parser.add_argument("mode", choices=["auth", "idle", "table"])
    parser.add_argument("--per-address", type=int, default=64)
    parser.add_argument("--pace", type=int, default=128)
    args = parser.parse_args(sys.argv[1:])
    trio.run(main, args.port, args.count, args.mode, args.per_address, args.pace)
