"""Hypothesis: any single changed byte in any wire field makes decoding or verification fail."""

from __future__ import annotations

from typing import Any

import pytest
from crypto_table import SimTable, wire
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealerless.protocol.crypto import (
    CryptoError,
    NonMembershipMessage,
    ShareMessage,
    ShuffleMessage,
    initial_deck,
    verify_nonmembership_message,
    verify_share,
    verify_shuffle_message,
)


@pytest.fixture(scope="module")
def table() -> SimTable:
    t = SimTable(2, table_id=b"fuzz", hand=9)
    t.setup_keys()
    t.shuffle_all()
    t.deal(0, 0)
    return t


def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths to every bytes leaf of a wire payload."""
    if isinstance(obj, bytes):
        return [prefix]
    if isinstance(obj, dict):
        return [p for k, v in obj.items() for p in _paths(v, (*prefix, k))]
    if isinstance(obj, list):
        return [p for i, v in enumerate(obj) for p in _paths(v, (*prefix, i))]
    return []


def _flip(obj: Any, path: tuple[Any, ...], offset: int, mask: int) -> Any:
    if not path:
        b = bytearray(obj)
        b[offset % len(b)] ^= mask
        return bytes(b)
    head, rest = path[0], path[1:]
    if isinstance(obj, dict):
        return {k: (_flip(v, rest, offset, mask) if k == head else v) for k, v in obj.items()}
    return [(_flip(v, rest, offset, mask) if i == head else v) for i, v in enumerate(obj)]


fuzz = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
flips = st.tuples(st.integers(0, 10**6), st.integers(0, 200), st.integers(1, 255))


@fuzz
@given(flips)
def test_shuffle_byte_flip(table: SimTable, flip: tuple[int, int, int]) -> None:
    assert table.y is not None
    data = wire(table.shuffles[0])
    paths = _paths(data)
    bad = _flip(data, paths[flip[0] % len(paths)], flip[1], flip[2])
    with pytest.raises(CryptoError):
        msg = ShuffleMessage.from_wire(bad)
        verify_shuffle_message(table.hctx, table.y, initial_deck(table.y), msg, 0)


@fuzz
@given(flips)
def test_share_byte_flip(table: SimTable, flip: tuple[int, int, int]) -> None:
    data = wire(table.publish_share(1, 0, "deal"))
    paths = _paths(data)
    bad = _flip(data, paths[flip[0] % len(paths)], flip[1], flip[2])
    with pytest.raises(CryptoError):
        msg = ShareMessage.from_wire(bad)
        verify_share(table.hctx, table.keys[1], 0, table.deck[0], msg, 1, "deal")


@fuzz
@given(flips, st.integers(-3, 40))
def test_nonmember_byte_flip_or_field(
    table: SimTable, flip: tuple[int, int, int], new_int: int
) -> None:
    card = table.known[0]
    forbidden = sorted({(card + 1) % 32, (card + 17) % 32})
    msg = table.nonmember(0, forbidden, "fz")
    data = wire(msg)
    paths = _paths(data)
    bad = _flip(data, paths[flip[0] % len(paths)], flip[1], flip[2])
    if flip[0] % 3 == 0:  # or change an int field instead
        key = ("pos", "seat")[flip[1] % 2]
        if new_int == data[key]:
            new_int += 1
        bad = {**data, key: new_int}
    with pytest.raises(CryptoError):
        m = NonMembershipMessage.from_wire(bad)
        verify_nonmembership_message(
            table.hctx,
            table.keys[0],
            0,
            table.deck[0],
            table.others_sum(0),
            forbidden,
            m,
            0,
            "fz",
        )
