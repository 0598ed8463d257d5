"""Tunables of the secure link layer, shared by the handshake and the channel."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .framing import ABSOLUTE_MAX_FRAME_SIZE, DEFAULT_MAX_FRAME_SIZE

__all__ = ["MIN_FRAME_SIZE", "TransportConfig"]

MIN_FRAME_SIZE = 1024  # every handshake message, of any version, must fit in one frame


def _positive(name: str, value: float | None, optional: bool) -> None:
    if value is None:
        if not optional:
            raise ValueError(f"{name} is required")
        return
    if not (value > 0 and math.isfinite(value)):
        raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")


@dataclass(frozen=True)
class TransportConfig:
    """All times are in seconds (Trio clock). ``None`` disables keepalives / the idle timeout.

    ``idle_timeout`` should be at least twice the *peer's* ``keepalive_interval``: a link on
    which nothing at all arrives for ``idle_timeout`` seconds is declared dead and closed.
    ``prologue`` is application context both sides must agree on (it is hashed into the
    handshake; a difference makes the handshake fail).
    """

    max_frame_size: int = DEFAULT_MAX_FRAME_SIZE
    handshake_timeout: float = 10.0
    keepalive_interval: float | None = 15.0
    idle_timeout: float | None = 60.0
    send_timeout: float = 30.0
    close_timeout: float = 2.0
    rekey_interval: int | None = 1 << 20
    prologue: bytes = b""

    def __post_init__(self) -> None:
        if not MIN_FRAME_SIZE <= self.max_frame_size <= ABSOLUTE_MAX_FRAME_SIZE:
            raise ValueError(
                f"max_frame_size must be in {MIN_FRAME_SIZE}..{ABSOLUTE_MAX_FRAME_SIZE}"
            )
        _positive("handshake_timeout", self.handshake_timeout, optional=False)
        _positive("keepalive_interval", self.keepalive_interval, optional=True)
        _positive("idle_timeout", self.idle_timeout, optional=True)
        _positive("send_timeout", self.send_timeout, optional=False)
        _positive("close_timeout", self.close_timeout, optional=False)
        if self.rekey_interval is not None and self.rekey_interval < 1:
            raise ValueError("rekey_interval must be a positive number of messages or None")
        if (
            self.idle_timeout is not None
            and self.keepalive_interval is not None
            and self.idle_timeout <= self.keepalive_interval
        ):
            raise ValueError("idle_timeout must be longer than keepalive_interval")
