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
import gc
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

from dealerless.node.identity import Identity
from dealerless.node.invite import Invite
from dealerless.node.links import Link, LinkError, attach_message, link_config, open_remote
from dealerless.node.portable import raise_open_file_limit
from dealerless.protocol.rules.registry import make_config

HELP = "messages per second and memory of one relay serving many tables"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tables", type=int, default=1000, help="tables (default 1000)")
    parser.add_argument("--peers", type=int, default=4, help="peers per table (default 4)")
    parser.add_argument("--seconds", type=float, default=10.0, help="load duration")
    parser.add_argument("--size", type=int, default=512, help="message size in bytes")
    parser.add_argument(
        "--rate", type=float, default=2.0, help="messages per second each peer sends (default 2)"
    )
    parser.add_argument(
        "--clients", type=int, default=2, help="load-generating processes (default 2)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--worker-port", type=int, default=0, help=argparse.SUPPRESS)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def _worker(args: argparse.Namespace, port: int) -> None:
    """One load process: connect its tables, say "ready", wait for "go", load, report.

    Every link has a reader from the moment it is connected (the reader drives the link's
    keepalives; a silent link would be closed by the relay's idle timeout).
    """
    received = 0
    sent = 0
    links: list[Link] = []
    config = link_config(keepalive=5.0, idle=60.0)
    limiter = trio.CapacityLimiter(64)
    window = [math.inf, math.inf]  # counting from, until

    async def reader(link: Link) -> None:
        nonlocal received
        while True:
            try:
                message = await link.receive()
            except LinkError:
                return
            if message["t"] == "msg" and window[0] <= trio.current_time() < window[1]:
                received += 1

    async def writer(link: Link, offset: float, payload: bytes) -> None:
        nonlocal sent
        await trio.sleep(offset)
        while trio.current_time() < window[1]:
            try:
                await link.send({"t": "send", "data": payload})
            except LinkError:
                return
            if trio.current_time() >= window[0]:
                sent += 1
            await trio.sleep(1.0 / args.rate)

    async with trio.open_nursery() as nursery:

        async def connect(identity: Identity, invite: Invite, host: bool) -> Link:
            async with limiter:
                link, _ = await open_remote(
                    "127.0.0.1",
                    port,
                    identity,
                    None,
                    attach_message(invite, host),
                    config=config,
                )
            links.append(link)
            nursery.start_soon(reader, link)
            return link

        game = make_config("tuppen", args.peers, {})
        for _ in range(args.tables):
            host = Identity.generate()
            invite = Invite.create(host.public_key, game, 60_000)
            host_link = await connect(host, invite, True)
            peers = [Identity.generate() for _ in range(args.peers - 1)]
            # The host admits its seats, as a host node does once they proved the invite.
            await host_link.send({"t": "admit", "keys": [p.public_key for p in peers]})
            async with trio.open_nursery() as joins:
                for peer in peers:
                    joins.start_soon(connect, peer, invite, False)
        print("ready", flush=True)
        await trio.to_thread.run_sync(sys.stdin.readline)
        window[0] = trio.current_time() + 1.0  # one second of warm-up
        window[1] = window[0] + args.seconds - 1.0
        payload = b"x" * args.size
        for number, link in enumerate(links):
            nursery.start_soon(writer, link, (number % 100) / 100 / args.rate, payload)
        await trio.sleep_until(window[1] + 0.5)
        nursery.cancel_scope.cancel()
    print(json.dumps({"sent": sent, "received": received}), flush=True)


def _spawn(args: list[str], **kwargs: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(  # noqa: S603
        [sys.executable, "-m", "dealerless.client.cli", *args], text=True, **kwargs
    )


def run(args: argparse.Namespace) -> int:
    need = args.tables * args.peers + 256
    raise_open_file_limit(need)
    if args.worker_port:
        gc.set_threshold(50_000, 50, 1000)  # thousands of links: see commands/relay.py
        trio.run(_worker, args, args.worker_port)
        return 0
    with tempfile.TemporaryDirectory(prefix="dealerless-relay-bench-") as tmp:
        port_file = Path(tmp) / "port"
        relay = _spawn(
            [
                "relay",
                "--home",
                tmp,
                "--listen",
                "127.0.0.1:0",
                "--port-file",
                str(port_file),
                "--max-connections",
                str(need),
                # Every simulated peer comes from 127.0.0.1: lift the per-address caps.
                "--max-per-address",
                str(need),
                "--handshakes-per-address",
                "64",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        workers: list[subprocess.Popen[str]] = []
        try:
            while not port_file.exists():
                if relay.poll() is not None:
                    print("the relay did not start", file=sys.stderr)
                    return 1
                time.sleep(0.05)
            time.sleep(0.2)
            idle = rss_kib(relay.pid)
            port = int(port_file.read_text())
            t0 = time.monotonic()
            share = [args.tables // args.clients] * args.clients
            share[0] += args.tables - sum(share)
            for tables in share:
                workers.append(
                    _spawn(
                        [
                            "bench",
                            "relay",
                            "--worker-port",
                            str(port),
                            "--tables",
                            str(tables),
                            "--peers",
                            str(args.peers),
                            "--seconds",
                            str(args.seconds),
                            "--size",
                            str(args.size),
                            "--rate",
                            str(args.rate),
                        ],
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                    )
                )
            for worker in workers:
                assert worker.stdout is not None
                if worker.stdout.readline().strip() != "ready":
                    print("a load process failed", file=sys.stderr)
                    return 1
            connect_s = time.monotonic() - t0
            rss_connected = rss_kib(relay.pid)
            for worker in workers:
                assert worker.stdin is not None
                worker.stdin.write("go\n")
                worker.stdin.flush()
            time.sleep(1.0)
            cpu_start = cpu_seconds(relay.pid)
            rss_peak = 0
            end = time.monotonic() + args.seconds - 1.0
            while time.monotonic() < end:
                time.sleep(0.25)
                rss_peak = max(rss_peak, rss_kib(relay.pid))
            cpu = cpu_seconds(relay.pid) - cpu_start
            totals = {"sent": 0, "received": 0}
            for worker in workers:
                assert worker.stdout is not None
                report = json.loads(worker.stdout.readline())
                for key in totals:
                    totals[key] += report[key]
        finally:
            for proc in [*workers, relay]:
                proc.kill()
                proc.wait()
    measured = args.seconds - 1.0
    result = {
        "tables": args.tables,
        "peers_per_table": args.peers,
        "connections": args.tables * args.peers,
        "load_processes": args.clients,
        "connect_seconds": round(connect_s, 2),
        "message_bytes": args.size,
        "offered_messages_per_s": round(totals["sent"] / measured),
        "forwarded_messages_per_s": round(totals["received"] / measured),
        "expected_forwarded_per_s": round(totals["sent"] * (args.peers - 1) / measured),
        "relay_cpu_share": round(cpu / measured, 2),
        "forwarded_per_relay_cpu_second": round(totals["received"] / max(cpu, 1e-9)),
        "relay_rss_kib_idle": idle,
        "relay_rss_kib_connected": rss_connected,
        "relay_rss_kib_peak": rss_peak,
    }
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    return 0
