"""Who deals the first hand: no single party picks it."""

from __future__ import annotations

import hashlib

from dealerless.protocol.table.config import TableConfig


def first_dealer(config: TableConfig, joint_key: bytes) -> int:
    """Drawn from the first hand's joint key (every seat committed to its share before any
    was revealed), so neither the host, who chose the configuration, nor any other single seat
    picks it."""
    data = b"dealerless/first-dealer" + config.digest() + joint_key
    return int.from_bytes(hashlib.sha256(data).digest()) % config.players


def fallback_dealer(config: TableConfig) -> int:
    """The first dealer of a first hand that ended before its keys were revealed (it is void
    anyway; the next hand's dealer follows from it)."""
    return int.from_bytes(hashlib.sha256(b"dealerless/first-dealer" + config.digest()).digest()) % (
        config.players
    )
