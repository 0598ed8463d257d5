"""Exceptions of the secure link layer. Every message says what went wrong."""

from __future__ import annotations

__all__ = [
    "ChannelClosed",
    "ChannelError",
    "FrameError",
    "HandshakeError",
    "IdleTimeout",
    "PeerIdentityMismatch",
    "TransportError",
    "VersionMismatch",
]


class TransportError(Exception):
    """Base class of every error raised by ``dealerless.node.transport``."""


class FrameError(TransportError):
    """Bad framing: oversized, empty or truncated frame."""


class HandshakeError(TransportError):
    """The handshake failed; the connection has been closed."""


class VersionMismatch(HandshakeError):
    """The peer speaks another version of the transport protocol."""


class PeerIdentityMismatch(HandshakeError):
    """The peer proved an identity other than the pinned (expected) one."""


class ChannelError(TransportError):
    """The secure channel is broken (tampered, replayed or reordered frame, lost connection,
    protocol violation); the connection has been closed."""


class IdleTimeout(ChannelError):
    """Nothing was received from the peer for longer than the idle timeout."""


class ChannelClosed(ChannelError):
    """The channel was closed in an orderly way, by the peer (close frame) or by us."""
