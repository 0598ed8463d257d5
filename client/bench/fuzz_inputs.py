"""Random and mutated inputs for the fuzzers of ``dealerless bench fuzz``."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import msgpack

from dealerless.protocol.messages import DOMAIN, IdentityKey, decode_message
from dealerless.protocol.table.kinds import TABLE_REGISTRY


def random_value(rng: random.Random, depth: int = 0) -> Any:
    pick = rng.randrange(12 if depth < 40 else 8)
    if pick == 0:
        return rng.choice([0, 1, -1, 2**63 - 1, -(2**63), 2**64 - 1, 255, 256, 65535])
    if pick == 1:
        return rng.randrange(-(2**40), 2**40)
    if pick == 2:
        return rng.random() * 10 ** rng.randrange(-5, 30)
    if pick == 3:
        return "".join(chr(rng.randrange(32, 0x2FFF)) for _ in range(rng.randrange(20)))
    if pick == 4:
        return rng.randbytes(rng.choice([0, 1, 16, 31, 32, 33, 64, rng.randrange(300)]))
    if pick == 5:
        return rng.choice([None, True, False])
    if pick == 6:
        return rng.choice(["action", "key-commit", "shuffle", "shares", "open", "play", "t", "f"])
    if pick == 7:
        return b""
    if pick in (8, 9):
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(5))]
    if pick == 10:  # deep nesting
        value: Any = random_value(rng, 40)
        for _ in range(rng.randrange(1, 60)):
            value = [value]
        return value
    keys = ["action", "kind", "seat", "card", "position", "amount", "open", "nonmember", "t", "f"]
    result: dict[Any, Any] = {}
    for _ in range(rng.randrange(5)):
        key = rng.choice(keys) if rng.random() < 0.7 else random_value(rng, depth + 1)
        if isinstance(key, list | dict):
            key = repr(key)[:20]  # map keys must be hashable here (msgpack allows any)
        result[key] = random_value(rng, depth + 1)
    return result


def mutate(rng: random.Random, data: bytes, other: bytes) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randrange(1, 4)):
        op = rng.randrange(5)
        if op == 0 and buf:
            i = rng.randrange(len(buf))
            buf[i] ^= 1 << rng.randrange(8)
        elif op == 1 and buf:
            del buf[rng.randrange(len(buf)) :]
        elif op == 2:
            i = rng.randrange(len(buf) + 1)
            buf[i:i] = rng.randbytes(rng.randrange(1, 9))
        elif op == 3 and buf:
            i = rng.randrange(len(buf))
            del buf[i : i + rng.randrange(1, 9)]
        else:
            cut = rng.randrange(len(buf) + 1)
            buf = buf[:cut] + bytearray(other[rng.randrange(len(other) + 1) :])
    return bytes(buf)


def resigned(rng: random.Random, frame: bytes, keys: Mapping[bytes, IdentityKey]) -> bytes:
    """A valid frame's envelope with one or two random fields (and sometimes an extra one),
    packed with plain msgpack and validly signed by its author: only the content is wrong.
    Raises ValueError, TypeError or OverflowError when msgpack cannot pack a value."""
    message = decode_message(frame, registry=TABLE_REGISTRY)
    fields: list[Any] = [
        1,
        message.table_id,
        message.hand,
        message.seq,
        message.prev,
        message.seat,
        message.author.raw,
        message.kind,
        dict(message.body),
    ]
    for _ in range(rng.randrange(1, 3)):
        i = rng.randrange(len(fields))
        if i != 6:  # keep the author: the signature must verify
            fields[i] = random_value(rng)
    if rng.random() < 0.1:
        fields.append(random_value(rng))
    packed: bytes = msgpack.packb(fields, use_bin_type=True)
    return packed + keys[message.author.raw].sign(DOMAIN + packed)
