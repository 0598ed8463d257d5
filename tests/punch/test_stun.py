"""The STUN client reads a Binding answer strictly: anything malformed is refused."""

from __future__ import annotations

import ipaddress
import struct
import zlib

import pytest

from dealerless.node.punch.stun import (
    ATTR_FINGERPRINT,
    ATTR_MAPPED_ADDRESS,
    ATTR_XOR_MAPPED_ADDRESS,
    BINDING_SUCCESS,
    FINGERPRINT_XOR,
    MAGIC_COOKIE,
    MAX_MESSAGE,
    StunError,
    binding_request,
    parse_binding_response,
)

TXID = bytes(range(12))


def _attr(kind: int, value: bytes) -> bytes:
    return struct.pack("!HH", kind, len(value)) + value + b"\0" * ((4 - len(value) % 4) % 4)


def _xor_address(address: str, port: int, txid: bytes = TXID) -> bytes:
    raw = ipaddress.ip_address(address).packed
    mask = struct.pack("!I", MAGIC_COOKIE) + (txid if len(raw) == 16 else b"")
    family = 0x01 if len(raw) == 4 else 0x02
    xored = bytes(a ^ b for a, b in zip(raw, mask, strict=False))
    return struct.pack("!BBH", 0, family, port ^ (MAGIC_COOKIE >> 16)) + xored


def _message(attributes: bytes, txid: bytes = TXID, *, fingerprint: bool = False) -> bytes:
    msg_type = BINDING_SUCCESS
    if fingerprint:
        length = len(attributes) + 8
        head = struct.pack("!HHI", msg_type, length, MAGIC_COOKIE) + txid + attributes
        crc = zlib.crc32(head) ^ FINGERPRINT_XOR
        return head + _attr(ATTR_FINGERPRINT, struct.pack("!I", crc))
    return struct.pack("!HHI", msg_type, len(attributes), MAGIC_COOKIE) + txid + attributes


GOOD = _message(_attr(ATTR_XOR_MAPPED_ADDRESS, _xor_address("198.18.0.11", 40123)))


def test_request_is_a_binding_request_with_a_random_id() -> None:
    one, two = binding_request(), binding_request()
    assert one.data[:8] == struct.pack("!HHI", 0x0001, 0, MAGIC_COOKIE)
    assert len(one.data) == 20 and one.data[8:] == one.transaction_id
    assert one.transaction_id != two.transaction_id


def test_good_answers_are_read() -> None:
    assert parse_binding_response(GOOD, TXID) == ("198.18.0.11", 40123)
    v6 = _message(_attr(ATTR_XOR_MAPPED_ADDRESS, _xor_address("2001:db8:1::2", 5000)))
    assert parse_binding_response(v6, TXID) == ("2001:db8:1::2", 5000)
    signed = _message(
        _attr(ATTR_XOR_MAPPED_ADDRESS, _xor_address("198.18.0.11", 40123))
        + _attr(0x8022, b"coturn"),  # SOFTWARE, comprehension-optional
        fingerprint=True,
    )
    assert parse_binding_response(signed, TXID) == ("198.18.0.11", 40123)
    # An old server's plain MAPPED-ADDRESS is accepted when there is no XOR form.
    plain = struct.pack("!BBH", 0, 1, 3478) + ipaddress.ip_address("203.0.113.5").packed
    assert parse_binding_response(_message(_attr(ATTR_MAPPED_ADDRESS, plain)), TXID) == (
        "203.0.113.5",
        3478,
    )


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (GOOD, "transaction id"),  # parsed with another id below
        (GOOD[:19], "truncated"),
        (GOOD[:-2], "length field"),
        (GOOD[:4] + b"\x21\x12\xa4\x43" + GOOD[8:], "magic cookie"),
        (GOOD + b"\0" * (MAX_MESSAGE - len(GOOD) + 4), "longer than"),
        (b"\x80" + GOOD[1:], "first two bits"),
        (b"\x01\x11" + GOOD[2:], "Binding error"),
        (b"\x01\x02" + GOOD[2:], "unexpected message type"),
        (_message(b""), "no mapped address"),
        (_message(_attr(0x0030, b"abcd")), "comprehension-required"),
        (_message(_attr(ATTR_XOR_MAPPED_ADDRESS, b"\0\x01\0\0")), "4 bytes"),
        (_message(_attr(ATTR_XOR_MAPPED_ADDRESS, b"\0\x07\0\0abcd")), "family"),
        (_message(struct.pack("!HH", ATTR_XOR_MAPPED_ADDRESS, 200) + b"\0" * 8), "runs past"),
    ],
)
def test_malformed_answers_are_refused(data: bytes, why: str) -> None:
    txid = bytes(12) if why == "transaction id" else TXID
    with pytest.raises(StunError, match=why):
        parse_binding_response(data, txid)


def test_a_bad_fingerprint_is_refused() -> None:
    signed = bytearray(
        _message(_attr(ATTR_XOR_MAPPED_ADDRESS, _xor_address("198.18.0.11", 1)), fingerprint=True)
    )
    signed[-1] ^= 1
    with pytest.raises(StunError, match="FINGERPRINT"):
        parse_binding_response(bytes(signed), TXID)
