"""The generic message kinds that do not depend on a game or on the deck cryptography.

The table protocol registers its own kinds (key commit, shuffle, decryption share, action, hand
result, ...) with :func:`~dealerless.protocol.wire.schema.register_kind` in the same way.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from dealerless.protocol.wire.codec import DEFAULT_LIMITS, Limits, pack
from dealerless.protocol.wire.schema import (
    PRINTABLE_ASCII,
    Bytes,
    Map,
    Opt,
    Str,
    Text,
    register_kind,
)

__all__ = ["CHAT", "CONFIG_SIGN", "JOIN", "LEAVE", "config_hash"]

JOIN = Map(
    {
        "name": Text(32, min_len=1),  # display name
        "client": Opt(Str(64, charset=PRINTABLE_ASCII)),  # e.g. "dealerless 0.1.0"
        "invite": Opt(Bytes(min_len=1, max_len=64)),  # the invite token, if the table uses one
    }
)
CONFIG_SIGN = Map(
    {
        "config_hash": Bytes(32),  # config_hash() of the table configuration agreed to
    }
)
CHAT = Map({"text": Text(500, min_len=1)})
LEAVE = Map({"reason": Opt(Text(200))})

register_kind("join", JOIN, description="ask for a seat at the table")
register_kind("config-sign", CONFIG_SIGN, description="agree to the table configuration")
register_kind("chat", CHAT, description="a line of table chat")
register_kind("leave", LEAVE, description="leave the table")


def config_hash(config: Mapping[str, Any], limits: Limits = DEFAULT_LIMITS) -> bytes:
    """SHA-256 of the canonical msgpack encoding of a table configuration (what "config-sign"
    signs and what the transcript header stores)."""
    return hashlib.sha256(pack(config, limits, path="config")).digest()
