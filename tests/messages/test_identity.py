from __future__ import annotations

import re

import pytest

from dealerless.protocol.messages import (
    BadSignature,
    IdentityKey,
    PeerId,
    fingerprint_of,
    parse_fingerprint,
)

SMALL_ORDER = [
    bytes(32),  # order 4
    b"\x01" + bytes(31),  # the identity
    bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),  # order 8
    bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),  # order 8
    b"\xec" + b"\xff" * 30 + b"\x7f",  # order 2
]


def test_sign_and_verify(key: IdentityKey, other_key: IdentityKey) -> None:
    sig = key.sign(b"data")
    key.peer_id.verify(sig, b"data")
    with pytest.raises(BadSignature, match="does not verify"):
        key.peer_id.verify(sig, b"date")
    with pytest.raises(BadSignature, match="does not verify"):
        other_key.peer_id.verify(sig, b"data")
    with pytest.raises(BadSignature, match="must be 64 bytes, got 63"):
        key.peer_id.verify(sig[:-1], b"data")


def test_private_key_round_trip(key: IdentityKey) -> None:
    again = IdentityKey.from_private_bytes(key.private_bytes())
    assert again.peer_id == key.peer_id
    assert PeerId(key.peer_id.raw) == key.peer_id
    assert hash(PeerId(key.peer_id.raw)) == hash(key.peer_id)
    with pytest.raises(ValueError, match="32 bytes"):
        IdentityKey.from_private_bytes(b"short")


def test_fingerprint_format(key: IdentityKey) -> None:
    fp = key.peer_id.fingerprint
    assert re.fullmatch(r"([A-Z2-7]{4}-){5}[A-Z2-7]{4}", fp)
    assert fp == fingerprint_of(key.peer_id.raw)
    assert key.peer_id.matches_fingerprint(fp.lower().replace("-", " "))
    assert key.peer_id.matches_fingerprint(fp.replace("-", ""))
    assert not key.peer_id.matches_fingerprint("AAAA-AAAA-AAAA-AAAA-AAAA-AAAA")
    assert not key.peer_id.matches_fingerprint("nonsense")
    assert len(parse_fingerprint(fp)) == 15


@pytest.mark.parametrize(
    ("text", "why"),
    [("ABCD", "24 base32 characters, got 4"), ("1" * 24, "letters A-Z and digits 2-7")],
)
def test_parse_fingerprint_refuses(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        parse_fingerprint(text)


@pytest.mark.parametrize("raw", SMALL_ORDER)
def test_small_order_keys_are_refused(raw: bytes) -> None:
    with pytest.raises(BadSignature, match="small-order"):
        PeerId(raw)


@pytest.mark.parametrize(
    "raw",
    [
        b"\xed" + b"\xff" * 30 + b"\x7f",  # y = p, non-canonical
        b"\xff" * 32,  # y >= p
        bytes.fromhex("02") + bytes(31),  # y = 2: not on the curve
    ],
)
def test_non_canonical_or_off_curve_keys_are_refused(raw: bytes) -> None:
    with pytest.raises(BadSignature, match="not a canonical Ed25519 point"):
        PeerId(raw)


def test_wrong_length_key_is_refused() -> None:
    with pytest.raises(BadSignature, match="32 bytes, got 31"):
        PeerId(bytes(31))
