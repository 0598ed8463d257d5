"""A TCP proxy that delays every chunk by a fixed one-way time in each direction and can cut
its connections now and then: what a distant or flaky relay looks like to a node. It counts
the websocket messages and bytes the clients send through it (what a relay receives from the
table). Used by ``dealerless bench hand --transport nostr --delay-ms`` and the tests.

    python -m dealerless.client.bench.delay_proxy --target 127.0.0.1:PORT --delay 0.1 \\
        --port-file F [--cut-every 5] [--stats-file S]
"""

from __future__ import annotations

import argparse
import json
import math
import random
from dataclasses import dataclass
from pathlib import Path

import trio

__all__ = ["DelayProxy", "ProxyStats", "main"]


@dataclass
class ProxyStats:
    connections: int = 0
    cuts: int = 0
    bytes_up: int = 0  # client -> target
    bytes_down: int = 0
    messages_up: int = 0  # websocket data frames client -> target

    def to_json(self) -> dict[str, int]:
        return dict(vars(self))


class _FrameCounter:
    """Counts the data frames in a client's websocket byte stream (after the HTTP upgrade)."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.upgraded = False

    def feed(self, data: bytes) -> int:
        self.buffer += data
        if not self.upgraded:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return 0
            del self.buffer[: end + 4]
            self.upgraded = True
        frames = 0
        while len(self.buffer) >= 2:
            opcode, length = self.buffer[0] & 0x0F, self.buffer[1] & 0x7F
            head = 2
            if length == 126:
                if len(self.buffer) < 4:
                    break
                length, head = int.from_bytes(self.buffer[2:4], "big"), 4
            elif length == 127:
                if len(self.buffer) < 10:
                    break
                length, head = int.from_bytes(self.buffer[2:10], "big"), 10
            if self.buffer[1] & 0x80:
                head += 4
            if len(self.buffer) < head + length:
                break
            del self.buffer[: head + length]
            frames += opcode in (1, 2)
        return frames


class DelayProxy:
    def __init__(
        self, target: tuple[str, int], delay: float, cut_every: float = 0.0, seed: int = 1
    ) -> None:
        self.target, self.delay, self.cut_every = target, delay, cut_every
        self.stats = ProxyStats()
        self.live: set[trio.CancelScope] = set()
        self.random = random.Random(seed)  # noqa: S311 - fault timing, not secrets

    async def _pump(
        self,
        source: trio.SocketStream,
        sink: trio.SocketStream,
        upstream: bool,
        done: trio.CancelScope,
    ) -> None:
        send, receive = trio.open_memory_channel[tuple[float, bytes]](math.inf)
        counter = _FrameCounter()

        async def later() -> None:
            try:
                async for due, data in receive:
                    await trio.sleep_until(due)
                    await sink.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                done.cancel()  # the other side went away: this connection is over

        async with trio.open_nursery() as nursery:
            nursery.start_soon(later)
            try:  # inside the nursery: trio groups what escapes it
                while True:
                    data = await source.receive_some(65536)
                    if not data:
                        break
                    if upstream:
                        self.stats.bytes_up += len(data)
                        self.stats.messages_up += counter.feed(bytes(data))
                    else:
                        self.stats.bytes_down += len(data)
                    send.send_nowait((trio.current_time() + self.delay, bytes(data)))
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                done.cancel()  # the connection broke: drop what is still delayed
            send.close()
        done.cancel()

    async def handle(self, client: trio.SocketStream) -> None:
        try:
            server = await trio.open_tcp_stream(*self.target)
        except OSError:
            await client.aclose()
            return
        self.stats.connections += 1
        with trio.CancelScope() as scope:
            self.live.add(scope)
            try:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._pump, client, server, True, scope)
                    nursery.start_soon(self._pump, server, client, False, scope)
            finally:
                self.live.discard(scope)
        await trio.aclose_forcefully(client)
        await trio.aclose_forcefully(server)

    async def _cutter(self) -> None:
        while True:
            await trio.sleep(self.cut_every * (0.5 + self.random.random()))
            for scope in list(self.live):
                self.stats.cuts += 1
                scope.cancel()

    async def serve(
        self,
        port: int = 0,
        *,
        task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        listeners = await trio.open_tcp_listeners(port, host="127.0.0.1")
        async with trio.open_nursery() as nursery:
            if self.cut_every > 0:
                nursery.start_soon(self._cutter)
            await nursery.start(trio.serve_listeners, self.handle, listeners)
            task_status.started(listeners[0].socket.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", required=True, metavar="HOST:PORT")
    parser.add_argument("--delay", type=float, default=0.0, help="one-way seconds per chunk")
    parser.add_argument("--cut-every", type=float, default=0.0, help="cut all links ~this often")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file", default="")
    parser.add_argument("--stats-file", default="")
    args = parser.parse_args()
    host, _, port_text = args.target.rpartition(":")
    proxy = DelayProxy((host, int(port_text)), args.delay, args.cut_every)

    async def run() -> None:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(proxy.serve, args.port)
            if args.port_file:
                tmp = Path(args.port_file + ".tmp")
                tmp.write_text(str(port))
                tmp.replace(args.port_file)
            while True:
                await trio.sleep(0.5)
                if args.stats_file:
                    Path(args.stats_file).write_text(json.dumps(proxy.stats.to_json()))

    trio.run(run)


if __name__ == "__main__":
    main()
