"""One seat of a lab punch, run inside a player namespace (``ip netns exec NS python lab_peer.py``).

Lines on stdout: ``READY {json}`` (candidates gathered), ``MSG <hex>`` (a rendezvous
message for the peer), ``RESULT {json}``. Lines on stdin: ``GO``, then ``MSG <hex>`` (the
peer's). The test process carries the MSG lines between the two seats: it plays the
table's rendezvous (a relay).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from dealerless.node.identity import Identity
from dealerless.node.punch import (
    Gathered,
    PunchReport,
    PunchSchedule,
    gather_candidates,
    parse_stun_servers,
    pick_port,
    punch,
    rendezvous,
)
from dealerless.node.transport import ChannelError, TransportConfig


def _say(kind: str, value: object) -> None:
    text = value if isinstance(value, str) else json.dumps(value)
    sys.stdout.write(f"{kind} {text}\n")
    sys.stdout.flush()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", required=True)
    parser.add_argument("--peer", required=True)
    parser.add_argument("--stun", required=True)
    parser.add_argument("--idle", type=float, default=0.0)
    parser.add_argument("--portmap", action="store_true", help="ask the router for a mapping")
    args = parser.parse_args()
    identity = Identity(Ed25519PrivateKey.from_private_bytes(bytes.fromhex(args.seed)))
    peer_key = bytes.fromhex(args.peer)
    table_id = b"lab-table".ljust(32, b"\0")
    stdin = trio.lowlevel.FdStream(os.dup(0))
    buffer = bytearray()

    async def line() -> str:
        while b"\n" not in buffer:
            chunk = await stdin.receive_some(65536)
            if not chunk:
                raise EOFError("stdin closed")
            buffer.extend(chunk)
        index = buffer.index(b"\n")
        text = bytes(buffer[:index]).decode()
        del buffer[: index + 1]
        return text

    port = pick_port()
    began = time.monotonic()
    gathered = await gather_candidates(
        port, parse_stun_servers(args.stun), timeout=2.0, portmap=args.portmap
    )
    try:
        await _seat(identity, peer_key, table_id, gathered, port, began, line, args.idle)
    finally:
        await gathered.release()  # the router's mapping goes with the seat


async def _seat(
    identity: Identity,
    peer_key: bytes,
    table_id: bytes,
    gathered: Gathered,
    port: int,
    began: float,
    line: Callable[[], Awaitable[str]],
    idle: float,
) -> None:
    _say("READY", {
        "port": port,
        "candidates": [str(c) for c in gathered.candidates],
        "mappings": {k: list(v) for k, v in gathered.mappings.items()},
        "symmetric": gathered.symmetric,
        "problems": gathered.problems,
        "gather_s": round(time.monotonic() - began, 3),
        "mapping": [gathered.mapping.protocol, gathered.mapping.external_address,
                    gathered.mapping.external_port] if gathered.mapping else None,
    })  # fmt: skip
    if await line() != "GO":
        raise SystemExit("expected GO")

    async def send(data: bytes) -> None:
        _say("MSG", data.hex())

    async def receive() -> bytes:
        text = await line()
        return bytes.fromhex(text.removeprefix("MSG "))

    agreed = await rendezvous(identity, peer_key, gathered.candidates, send, receive,
                              table_id=table_id)  # fmt: skip
    result: dict[str, object] = {"ok": False}
    if agreed is None:
        result["error"] = "rendezvous timed out"
        _say("RESULT", result)
        return
    peer_candidates, start_at = agreed
    report = PunchReport()
    # A short keepalive so that the idle test below shows the keepalives holding the path.
    config = TransportConfig(handshake_timeout=3.0, keepalive_interval=0.5, idle_timeout=2.0)
    punch_began = trio.current_time()
    channel = await punch(
        identity, peer_key, gathered.candidates, peer_candidates, start_at,
        local_port=port, table_id=table_id, config=config, report=report,
        schedule=PunchSchedule(attempts=3, spacing=1.5, connect_timeout=1.2),
    )  # fmt: skip
    result.update(
        punch_s=round(trio.current_time() - punch_began, 3),
        dials=report.dials,
        opened=report.opened,
        errors=report.errors[:8],
        path=str(report.path) if report.path else None,
        peer_candidates=[str(c) for c in peer_candidates],
    )
    if channel is None:
        _say("RESULT", result)
        return
    result["peer"] = channel.peer_id.fingerprint
    try:
        exchanged = []
        rounds = 2 if idle else 1
        for round_ in range(rounds):
            if channel.initiator:
                if round_:
                    # Longer than the idle timeout with nothing to say: the peer sits in
                    # receive() and would call the link dead if the keepalives did not pass.
                    await _idle(channel, idle)
                await channel.send(f"move {round_} from {identity.fingerprint}".encode())
                exchanged.append((await channel.receive()).decode())
            else:
                exchanged.append((await channel.receive()).decode())
                await channel.send(f"move {round_} from {identity.fingerprint}".encode())
        result["exchanged"] = exchanged
        result["ok"] = True
    except ChannelError as exc:
        result["error"] = str(exc)
    finally:
        with trio.move_on_after(1):
            await channel.aclose()
    _say("RESULT", result)


async def _idle(channel: object, seconds: float) -> None:
    from dealerless.node.transport import SecureChannel

    assert isinstance(channel, SecureChannel)
    with trio.move_on_after(seconds):
        await channel.keepalive_loop()


if __name__ == "__main__":
    trio.run(main)
