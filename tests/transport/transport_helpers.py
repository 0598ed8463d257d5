"""Test helpers: identities, a frame-aware man-in-the-middle and running both handshake sides."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import outcome
import trio
import trio.testing

from dealerless.node.identity import Identity
from dealerless.node.transport import SecureChannel, TransportConfig, accept, connect
from dealerless.node.transport.framing import ABSOLUTE_MAX_FRAME_SIZE, FrameReader, encode_frame

# mutate(direction, index, body) -> raw wire chunks to forward; a None chunk closes the link.
Mutator = Callable[[str, int, bytes], Sequence[bytes | None]]


def frame(body: bytes) -> bytes:
    return encode_frame(body, ABSOLUTE_MAX_FRAME_SIZE)


def flip(data: bytes, offset: int, mask: int = 0x01) -> bytes:
    out = bytearray(data)
    out[offset] ^= mask
    return bytes(out)


def passthrough(direction: str, index: int, body: bytes) -> Sequence[bytes | None]:
    return [frame(body)]


async def _relay(
    src: trio.abc.Stream,
    dst: trio.abc.Stream,
    direction: str,
    mutate: Mutator,
    log: list[tuple[str, int, bytes]],
) -> None:
    reader = FrameReader(src, ABSOLUTE_MAX_FRAME_SIZE)
    index = 0
    try:
        while True:
            body = await reader.read_frame()
            if body is None:
                break
            log.append((direction, index, body))
            for chunk in mutate(direction, index, body):
                if chunk is None:
                    return
                await dst.send_all(chunk)
            index += 1
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass
    finally:
        await trio.aclose_forcefully(dst)
        await trio.aclose_forcefully(src)


@asynccontextmanager
async def mitm(
    mutate: Mutator = passthrough,
) -> AsyncIterator[tuple[trio.abc.Stream, trio.abc.Stream, list[tuple[str, int, bytes]]]]:
    """(initiator stream, responder stream, log of relayed frames) through a frame relay."""
    a, relay_a = trio.testing.memory_stream_pair()
    relay_b, b = trio.testing.memory_stream_pair()
    log: list[tuple[str, int, bytes]] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_relay, relay_a, relay_b, "i2r", mutate, log)
        nursery.start_soon(_relay, relay_b, relay_a, "r2i", mutate, log)
        yield a, b, log
        nursery.cancel_scope.cancel()


async def both(
    a: trio.abc.Stream,
    b: trio.abc.Stream,
    initiator: Identity,
    responder: Identity,
    *,
    expected_responder: Any = None,
    expected_initiator: Any = None,
    config_i: TransportConfig | None = None,
    config_r: TransportConfig | None = None,
) -> tuple[outcome.Outcome[SecureChannel], outcome.Outcome[SecureChannel]]:
    """Run connect() and accept() concurrently; their outcomes (value or exception)."""
    results: dict[str, outcome.Outcome[SecureChannel]] = {}

    async def run_i() -> None:
        results["i"] = await outcome.acapture(
            connect, a, initiator, expected_responder, config=config_i
        )

    async def run_r() -> None:
        results["r"] = await outcome.acapture(
            accept, b, responder, expected_initiator, config=config_r
        )

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run_i)
        nursery.start_soon(run_r)
    return results["i"], results["r"]


async def channel_pair(
    config: TransportConfig | None = None,
) -> tuple[SecureChannel, SecureChannel]:
    """An (initiator, responder) channel pair over a direct memory stream pair."""
    a, b = trio.testing.memory_stream_pair()
    oi, orr = await both(
        a, b, Identity.generate(), Identity.generate(), config_i=config, config_r=config
    )
    return oi.unwrap(), orr.unwrap()
