"""``dealerless relay``: a hub that forwards messages between the peers of many tables."""

from __future__ import annotations

import argparse
import gc
import sys

import trio

from dealerless.node.app import stderr_say
from dealerless.node.cli_common import add_common, load_identity_or_say
from dealerless.node.hub import Hub, HubLimits, bound_port
from dealerless.node.wire import parse_address

HELP = "run a relay: forwards signed messages for many tables; holds no game keys"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--listen",
        default="0.0.0.0:7787",
        metavar="HOST:PORT",
        help="where peers connect (default 0.0.0.0:7787)",
    )
    parser.add_argument(
        "--port-file",
        default="",
        metavar="PATH",
        help="write the bound port to this file (for scripts with port 0)",
    )
    parser.add_argument("--max-connections", type=int, default=HubLimits.max_connections)
    parser.add_argument("--max-tables", type=int, default=HubLimits.max_tables)
    parser.add_argument(
        "--max-per-address",
        type=int,
        default=HubLimits.max_per_address,
        metavar="N",
        help="connections from one source address (default %(default)s)",
    )
    parser.add_argument(
        "--handshakes-per-address",
        type=int,
        default=HubLimits.handshakes_per_address,
        metavar="N",
        help="concurrent handshakes from one source address (default %(default)s)",
    )
    add_common(parser, seat=False)


async def _serve(args: argparse.Namespace, host: str, port: int) -> int:
    loaded = load_identity_or_say(args.home)
    if loaded is None:
        return 1
    identity, _ = loaded
    say = stderr_say("relay: ")
    # Thousands of long-lived connections make full garbage collections slow and frequent;
    # the hub creates no reference cycles on its per-message path, so collect rarely.
    gc.set_threshold(50_000, 50, 1000)
    limits = HubLimits(
        max_connections=args.max_connections,
        max_tables=args.max_tables,
        max_per_address=args.max_per_address,
        handshakes_per_address=args.handshakes_per_address,
    )
    hub = Hub(limits, say)
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(hub.serve_tcp, host, port, identity)
        bound = bound_port(listeners)
        say(f"listening on {host}:{bound}; fingerprint {identity.fingerprint}")
        if args.port_file:
            with open(args.port_file + ".tmp", "w") as f:
                f.write(f"{bound}\n")
            import os

            os.replace(args.port_file + ".tmp", args.port_file)
    return 0


def run(args: argparse.Namespace) -> int:
    try:
        host, port = parse_address(args.listen)
    except ValueError as exc:
        print(f"dealerless relay: {exc}", file=sys.stderr)
        return 2
    return trio.run(_serve, args, host, port)
