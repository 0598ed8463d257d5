"""A load process for the hub tests: many strangers' connections to one hub.

``python stranger_load.py PORT COUNT MODE [FIRST_ADDRESS_INDEX]`` keeps COUNT connections open
from the loopback addresses 127.0.0.2, 127.0.0.3, ... (64 connections per address, the hub's
default cap), reopening each one the hub closes, until killed. MODE ``auth`` completes the
transport handshake (a fresh key per connection) and then sends nothing; MODE ``idle`` opens
TCP only and never says a word. Prints ``open N`` lines (connections currently open) about
every second, and ``ready`` once every one of the COUNT has tried at least once (the hub
refuses some at once: past its per-address caps on connections and handshakes).
"""

from __future__ import annotations

import sys

import trio

from dealerless.node.identity import Identity
from dealerless.node.transport import TransportConfig, connect

PER_ADDRESS = 64


async def main(port: int, count: int, mode: str) -> None:
    live = 0
    tried = 0
    ready = False
    identities = [Identity.generate() for _ in range(64)]  # key generation is not the point
    limiter = trio.CapacityLimiter(128)

    async def one(index: int) -> None:
        nonlocal live, tried
        address = f"127.0.0.{2 + index // PER_ADDRESS}"
        first = True
        while True:
            try:
                async with limiter:
                    stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=address)
                    channel = None
                    if mode == "auth":
                        config = TransportConfig(keepalive_interval=None, idle_timeout=None)
                        channel = await connect(stream, identities[index % 64], None, config=config)
            except Exception:  # refused, reset, timed out: try again shortly
                tried += first
                first = False
                await trio.sleep(0.2)
                continue
            tried += first
            first = False
            live += 1
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
                await trio.aclose_forcefully(stream)

    async def report() -> None:
        nonlocal ready
        while True:
            await trio.sleep(1.0)
            print(f"open {live}", flush=True)
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
    trio.run(main, int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
