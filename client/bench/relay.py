"""``dealerless bench relay``: how many messages one relay process forwards, and its memory.

Starts ``dealerless relay`` as its own process, then simulates ``--tables`` tables of
``--peers`` peers (each a real secure-channel connection with its own identity key) from this
process. Every peer sends ``--size``-byte messages to its table at a steady pace; the relay
forwards each to the table's other peers. Reports forwarded messages per second (copies
delivered to peers), accepted messages per second, and the relay's resident memory (VmRSS)
idle, with every peer connected, and under load. A measurement, never a timed test.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

from dealerless.node.identity import Identity
from dealerless.node.links import Link, LinkError, link_config, open_remote

HELP = "messages per second and memory of one relay serving many tables"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tables", type=int, default=1000, help="tables (default 1000)")
    parser.add_argument("--peers", type=int, default=4, help="peers per table (default 4)")
    parser.add_argument("--seconds", type=float, default=10.0, help="load duration")
    parser.add_argument("--size", type=int, default=512, help="message size in bytes")
    parser.add_argument(
        "--rate", type=float, default=2.0, help="messages per second each peer sends (default 2)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def _load(args: argparse.Namespace, port: int, pid: int) -> dict[str, Any]:
    received = 0
    sent = 0
    links: list[Link] = []
    config = link_config(keepalive=30.0, idle=120.0)
    t0 = time.monotonic()
    limiter = trio.CapacityLimiter(64)

    async def connect(table: bytes, host: bool) -> None:
        async with limiter:
            link, _ = await open_remote(
                "127.0.0.1",
                port,
                Identity.generate(),
                None,
                table,
                args.peers if host else None,
                config=config,
            )
        links.append(link)

    for _ in range(args.tables):
        table = secrets.token_bytes(16)
        await connect(table, True)
        async with trio.open_nursery() as nursery:
            for _ in range(args.peers - 1):
                nursery.start_soon(connect, table, False)
    connect_s = time.monotonic() - t0
    rss_connected = rss_kib(pid)
    payload = b"x" * args.size
    stop = trio.current_time() + args.seconds
    counting = trio.current_time() + 1.0  # one second of warm-up

    async def reader(link: Link) -> None:
        nonlocal received
        while True:
            try:
                message = await link.receive()
            except LinkError:
                return
            if message["t"] == "msg" and trio.current_time() >= counting:
                received += 1

    async def writer(link: Link, offset: float) -> None:
        nonlocal sent
        await trio.sleep(offset)
        while trio.current_time() < stop:
            try:
                await link.send({"t": "send", "data": payload})
            except LinkError:
                return
            if trio.current_time() >= counting:
                sent += 1
            await trio.sleep(1.0 / args.rate)

    rss_peak = 0
    async with trio.open_nursery() as nursery:
        for number, link in enumerate(links):
            nursery.start_soon(reader, link)
            nursery.start_soon(writer, link, (number % 100) / 100 / args.rate)
        while trio.current_time() < stop:
            await trio.sleep(0.5)
            rss_peak = max(rss_peak, rss_kib(pid))
        await trio.sleep(0.5)
        nursery.cancel_scope.cancel()
    measured = args.seconds - 1.0
    for link in links:
        with trio.move_on_after(0.1):
            await link.aclose()
    return {
        "tables": args.tables,
        "peers_per_table": args.peers,
        "connections": len(links),
        "connect_seconds": round(connect_s, 2),
        "message_bytes": args.size,
        "offered_messages_per_s": round(sent / measured),
        "forwarded_messages_per_s": round(received / measured),
        "expected_forwarded_per_s": round(sent * (args.peers - 1) / measured),
        "relay_rss_kib_connected": rss_connected,
        "relay_rss_kib_peak": rss_peak,
    }


def run(args: argparse.Namespace) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = args.tables * args.peers + 256
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, need), hard))
    with tempfile.TemporaryDirectory(prefix="dealerless-relay-bench-") as tmp:
        port_file = Path(tmp) / "port"
        relay = subprocess.Popen(  # noqa: S603
            [
                sys.executable,
                "-m",
                "dealerless.client.cli",
                "relay",
                "--home",
                tmp,
                "--listen",
                "127.0.0.1:0",
                "--port-file",
                str(port_file),
                "--max-connections",
                str(need),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=dict(os.environ),
        )
        try:
            while not port_file.exists():
                if relay.poll() is not None:
                    print("the relay did not start", file=sys.stderr)
                    return 1
                time.sleep(0.05)
            time.sleep(0.2)
            idle = rss_kib(relay.pid)
            result = trio.run(_load, args, int(port_file.read_text()), relay.pid)
            result["relay_rss_kib_idle"] = idle
        finally:
            relay.kill()
            relay.wait()
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    return 0
