"""The node's secure link layer on Trio: framing, handshake and encrypted channel.

Typical use::

    channel = await connect(stream, identity, expected_peer=host_fingerprint)
    await channel.send(b"hello")
    reply = await channel.receive()
    await channel.aclose()

See ``spec/transport.md`` for the wire format and the reasoning behind it.
"""

from __future__ import annotations

from .channel import SecureChannel, accept, connect, open_tcp_channel
from .config import TransportConfig
from .errors import (
    ChannelClosed,
    ChannelError,
    FrameError,
    HandshakeError,
    IdleTimeout,
    PeerIdentityMismatch,
    TransportError,
    VersionMismatch,
)
from .framing import DEFAULT_MAX_FRAME_SIZE, FrameReader, encode_frame
from .handshake import PeerPin

__all__ = [
    "DEFAULT_MAX_FRAME_SIZE",
    "ChannelClosed",
    "ChannelError",
    "FrameError",
    "FrameReader",
    "HandshakeError",
    "IdleTimeout",
    "PeerIdentityMismatch",
    "PeerPin",
    "SecureChannel",
    "TransportConfig",
    "TransportError",
    "VersionMismatch",
    "accept",
    "connect",
    "encode_frame",
    "open_tcp_channel",
]
