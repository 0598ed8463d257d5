"""Shared helpers of the message-layer tests."""

from __future__ import annotations

from typing import Any

import msgpack

from dealerless.protocol.messages import (
    DEFAULT_REGISTRY,
    DOMAIN,
    GENESIS_PREV,
    Bool,
    Bytes,
    Dict,
    Either,
    Enum,
    IdentityKey,
    Int,
    KindRegistry,
    List,
    Map,
    Nil,
    Opt,
    SignedMessage,
    Str,
    Text,
    sign_message,
)

TABLE = bytes(range(16))

# A kind that uses every field type, registered in a private copy of the default registry.
SAMPLE = Map(
    {
        "n": Int(-5, 1000),
        "flag": Bool(),
        "blob": Bytes(4),
        "tag": Str(8, charset="abc"),
        "text": Text(20),
        "mode": Enum("fast", "slow"),
        "items": List(Int(0, 31), max_len=4, unique=True),
        "inner": Map({"x": Int(0, 1), "y": Opt(Bytes(max_len=3))}),
        "opts": Opt(Dict(Str(10), Either(Int(0, 9), Bool(), Str(5)), max_len=3)),
        "none": Opt(Nil()),
    }
)


def sample_body() -> dict[str, Any]:
    return {
        "n": 7,
        "flag": True,
        "blob": b"\x00\x01\x02\x03",
        "tag": "abca",
        "text": "Hëllo wörld",
        "mode": "slow",
        "items": [3, 1, 2],
        "inner": {"x": 1, "y": b"ab"},
        "opts": {"a": 1, "b": True, "c": "zz"},
    }


def make(
    key: IdentityKey,
    registry: KindRegistry | None = None,
    *,
    kind: str = "chat",
    body: dict[str, Any] | None = None,
    seq: int = 0,
    prev: bytes = GENESIS_PREV,
    seat: int | None = 1,
    hand: int = 0,
) -> SignedMessage:
    return sign_message(
        key,
        table_id=TABLE,
        hand=hand,
        seq=seq,
        prev=prev,
        seat=seat,
        kind=kind,
        body={"text": "hello"} if body is None else body,
        registry=registry or DEFAULT_REGISTRY,
    )


def raw_frame(key: IdentityKey, packed: bytes) -> bytes:
    """Sign arbitrary (possibly non-canonical) envelope bytes with a valid signature."""
    return packed + key.sign(DOMAIN + packed)


def envelope_list(key: IdentityKey, **changes: Any) -> list[Any]:
    fields: dict[str, Any] = {
        "version": 1,
        "table_id": TABLE,
        "hand": 0,
        "seq": 0,
        "prev": GENESIS_PREV,
        "seat": 1,
        "author": key.peer_id.raw,
        "kind": "chat",
        "body": {"text": "hello"},
    }
    fields.update(changes)
    return list(fields.values())


def packb(value: Any) -> bytes:
    out: bytes = msgpack.packb(value, use_bin_type=True)
    return out
