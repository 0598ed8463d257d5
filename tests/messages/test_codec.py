from __future__ import annotations

from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msg_helpers import packb

from dealerless.protocol.messages import (
    DuplicateKey,
    Limits,
    MalformedMessage,
    NonCanonical,
    TooLarge,
    pack,
    unpack,
)

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.text(max_size=20)
    | st.binary(max_size=20)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner, max_size=5)
    ),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(values)
def test_round_trip_and_one_byte_form(value: Any) -> None:
    data = pack(value)
    assert unpack(data) == value
    assert pack(unpack(data)) == data


def test_map_keys_are_sorted_by_utf8_bytes() -> None:
    data = pack({"b": 1, "a": 2, "é": 3, "Z": 4})
    assert list(msgpack.unpackb(data)) == ["Z", "a", "b", "é"]


@pytest.mark.parametrize(
    ("data", "where"),
    [
        (b"\xd0\x05", "int 5 as int8"),
        (b"\xcc\x05", "int 5 as uint8"),
        (b"\xcd\x00\x80", "int 128 as uint16"),
        (b"\xd1\xff\xff", "int -1 as int16"),
        (b"\xd9\x01a", "fixstr as str8"),
        (b"\xc5\x00\x01a", "bin8 as bin16"),
        (b"\xdc\x00\x01\x01", "fixarray as array16"),
        (b"\xde\x00\x01\xa1a\x01", "fixmap as map16"),
    ],
)
def test_non_minimal_headers_are_refused(data: bytes, where: str) -> None:
    with pytest.raises(NonCanonical, match="canonical"):
        unpack(data)


def test_unsorted_map_keys_are_refused() -> None:
    with pytest.raises(NonCanonical, match="out of order"):
        unpack(b"\x82\xa1b\x01\xa1a\x02")


def test_duplicate_keys_are_refused() -> None:
    with pytest.raises(DuplicateKey, match="duplicate map key 'a'"):
        unpack(b"\x82\xa1a\x01\xa1a\x02")
    with pytest.raises(DuplicateKey, match=r"value\.x: duplicate"):
        unpack(b"\x81\xa1x\x83\xa1a\x01\xa1b\x01\xa1a\x02")


@pytest.mark.parametrize(
    "data",
    [packb(1.5), b"\xca\x3f\xc0\x00\x00", packb([1, {"a": 0.0}])],
)
def test_floats_are_refused(data: bytes) -> None:
    with pytest.raises(MalformedMessage, match="floats are not allowed"):
        unpack(data)


@pytest.mark.parametrize(
    "data",
    [
        b"\xd4\x05\x00",  # fixext1
        b"\xc7\x01\x05a",  # ext8
        b"\xd6\xff\x00\x00\x00\x01",  # timestamp
    ],
)
def test_extension_types_are_refused(data: bytes) -> None:
    with pytest.raises(MalformedMessage, match="extension types are not allowed"):
        unpack(data)


@pytest.mark.parametrize("data", [b"\xcf" + b"\xff" * 8, b"\xcf\x80" + bytes(7)])
def test_integers_beyond_int64_are_refused(data: bytes) -> None:
    with pytest.raises(MalformedMessage, match="integer out of range"):
        unpack(data)


def test_integer_bounds_are_configurable() -> None:
    small = Limits(min_int=0, max_int=100)
    assert unpack(packb(100), small) == 100
    with pytest.raises(MalformedMessage, match=r"out of range 0\.\.100, got int 101"):
        unpack(packb(101), small)
    with pytest.raises(MalformedMessage, match="out of range"):
        pack(-1, small)
    with pytest.raises(MalformedMessage, match="out of range"):
        pack(2**64)


@pytest.mark.parametrize(
    ("data", "text"),
    [
        (b"\x81\x01\x02", "map keys must be strings, got int 1"),
        (b"\x81\xc4\x01a\x02", "map keys must be strings, got bytes"),
        (b"\x81\x91\x01\x02", "map keys must be strings, got array"),
    ],
)
def test_non_string_map_keys_are_refused(data: bytes, text: str) -> None:
    with pytest.raises(MalformedMessage, match=text):
        unpack(data)


def test_nesting_depth_limit() -> None:
    ok = b"\x91" * 16 + b"\xc0"
    assert unpack(ok) is not None
    with pytest.raises(MalformedMessage, match="nesting deeper than 16 levels"):
        unpack(b"\x91" * 17 + b"\xc0")
    with pytest.raises(MalformedMessage, match="nesting deeper"):
        unpack(b"\x91" * 60000 + b"\xc0", max_bytes=10**6)
    with pytest.raises(MalformedMessage, match="nesting deeper"):
        pack([[[[1]]]], Limits(max_depth=3))


def test_size_limit() -> None:
    data = pack(b"x" * 70000, Limits(max_bin_bytes=10**6))
    with pytest.raises(TooLarge, match=r"\d+ bytes exceeds the limit of 65536 bytes"):
        unpack(data)


@pytest.mark.parametrize(
    ("value", "limits", "text"),
    [
        ("x" * 11, Limits(max_str_bytes=10), "max_str_len"),
        (b"x" * 11, Limits(max_bin_bytes=10), "max_bin_len"),
        ([0] * 11, Limits(max_array_len=10), "max_array_len"),
        ({str(i): 0 for i in range(11)}, Limits(max_map_len=10), "max_map_len"),
    ],
)
def test_length_limits(value: Any, limits: Limits, text: str) -> None:
    with pytest.raises(MalformedMessage, match=text):
        unpack(pack(value), limits)
    with pytest.raises(MalformedMessage, match="exceed"):
        pack(value, limits)


@pytest.mark.parametrize(
    ("data", "text"),
    [
        (b"", "empty input"),
        (b"\x92\x01", "truncated"),
        (b"\x01\x02", "trailing bytes"),
        (b"\xc1", "reserved type byte"),
        (b"\xa1\xff", "not valid UTF-8"),
    ],
)
def test_malformed_input(data: bytes, text: str) -> None:
    with pytest.raises(MalformedMessage, match=text):
        unpack(data)


@pytest.mark.parametrize("value", [1.0, {1: 2}, {b"k": 1}, object(), {"a": {1, 2}}, "\ud800"])
def test_pack_refuses_values_outside_the_data_model(value: Any) -> None:
    with pytest.raises(MalformedMessage):
        pack(value)


def test_pack_names_the_path() -> None:
    with pytest.raises(MalformedMessage, match=r"value\.a\[1\]: type float"):
        pack({"a": [1, 2.5]})
