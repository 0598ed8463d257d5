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


def _count(text: str) -> int:
    """A cap of the relay: a whole number of at least 1 (0 or less would refuse everyone)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not a cap: at least 1")
    return value


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
    per_address_tables = (
        "tables opened from one source address (default: a quarter of --max-per-address, "
        f"at least {HubLimits.tables_per_address})"
    )
    caps = (
        ("--max-connections", HubLimits.max_connections, "connections in all"),
        ("--max-tables", HubLimits.max_tables, "tables in all"),
        ("--max-per-address", HubLimits.max_per_address, "connections from one source address"),
        (
            "--handshakes-per-address",
            HubLimits.handshakes_per_address,
            "concurrent handshakes from one source address",
        ),
        ("--max-per-key", HubLimits.max_per_key, "connections authenticated with one key"),
        ("--tables-per-address", None, per_address_tables),
        ("--tables-per-key", HubLimits.tables_per_key, "tables one key hosts"),
    )
    for flag, default, meaning in caps:
        shown = "" if default is None else " (default %(default)s)"
        parser.add_argument(flag, type=_count, default=default, metavar="N", help=meaning + shown)
    add_common(parser, seat=False)


def limits_of(args: argparse.Namespace) -> HubLimits:
    per_address = args.tables_per_address
    if per_address is None:
        per_address = max(HubLimits.tables_per_address, args.max_per_address // 4)
    return HubLimits(
        max_connections=args.max_connections,
        max_tables=args.max_tables,
        max_per_address=args.max_per_address,
        handshakes_per_address=args.handshakes_per_address,
        max_per_key=args.max_per_key,
        tables_per_address=per_address,
        tables_per_key=args.tables_per_key,
    )


async def _serve(args: argparse.Namespace, host: str, port: int) -> int:
    loaded = load_identity_or_say(args.home)
    if loaded is None:
        return 1
    identity, _ = loaded
    say = stderr_say("relay: ")
    # Thousands of long-lived connections make full garbage collections slow and frequent;
    # the hub creates no reference cycles on its per-message path, so collect rarely.
    gc.set_threshold(50_000, 50, 1000)
    hub = Hub(limits_of(args), say)
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(hub.serve_tcp, host, port, identity)
        bound = bound_port(listeners)
        say(f"listening on {host}:{bound}; fingerprint {identity.fingerprint}")
        caps = hub.limits
        say(
            f"caps: {caps.max_connections} connections ({caps.max_per_address} per address, "
            f"{caps.max_per_key} per key), {caps.max_tables} tables ({caps.tables_per_address} "
            f"per address, {caps.tables_per_key} per key); a table that carries no message for "
            f"{caps.idle_after:.0f} s is idle (the first to make room when the relay is full) "
            f"and is closed after {caps.table_expiry:.0f} s"
        )
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
