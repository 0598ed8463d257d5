"""The signed candidate offer and the punch message: any field changed is refused."""

from __future__ import annotations

from typing import Any

import pytest

from dealerless.node.identity import Identity
from dealerless.node.punch import (
    Candidate,
    CandidateOffer,
    MessageRefused,
    PunchGo,
    open_message,
    parse_stun_servers,
    seal_candidates,
    seal_punch,
)
from dealerless.node.punch.message import CANDIDATE_MAX_AGE_MS, MAX_CANDIDATES
from dealerless.node.wire import decode, encode

TABLE = b"T" * 32
NOW = 1_800_000_000_000
ANN, BOB, EVE = Identity.generate(), Identity.generate(), Identity.generate()
CANDIDATES = [
    Candidate("v6", "2001:db8:1::2", 40000),
    Candidate("lan", "192.168.1.2", 40000),
    Candidate("stun", "198.18.0.11", 40000),
]


def _offer(**changes: Any) -> bytes:
    """Ann's offer to Bob with payload fields changed and signed again by Ann (a well-signed
    message whose content is wrong)."""
    data, _ = seal_candidates(ANN, TABLE, BOB.public_key, CANDIDATES, NOW, nonce=b"n" * 16)
    outer = decode(data)
    payload = decode(outer["b"])
    payload.update(changes)
    for key in [k for k, v in changes.items() if v is None]:
        del payload[key]
    from dealerless.node.wire import seal

    return encode(seal(ANN, TABLE, payload))


def _open(data: bytes) -> CandidateOffer | PunchGo:
    return open_message(data, TABLE, ANN.public_key, BOB.public_key, NOW)


def test_an_offer_opens_for_its_peer() -> None:
    data, nonce = seal_candidates(ANN, TABLE, BOB.public_key, CANDIDATES, NOW)
    offer = _open(data)
    assert isinstance(offer, CandidateOffer)
    assert offer.candidates == tuple(CANDIDATES) and offer.nonce == nonce
    go = _open(seal_punch(ANN, TABLE, BOB.public_key, nonce))
    assert isinstance(go, PunchGo) and go.nonce == nonce


def test_every_tampered_byte_of_an_offer_is_refused() -> None:
    data, _ = seal_candidates(ANN, TABLE, BOB.public_key, CANDIDATES, NOW)
    outer = decode(data)
    body, signature = outer["b"], outer["s"]
    for i in range(len(body)):
        changed = bytearray(body)
        changed[i] ^= 0x01
        with pytest.raises(MessageRefused):
            _open(encode({"t": "sig", "b": bytes(changed), "s": signature}))
    for i in range(len(signature)):
        changed = bytearray(signature)
        changed[i] ^= 0x01
        with pytest.raises(MessageRefused):
            _open(encode({"t": "sig", "b": body, "s": bytes(changed)}))


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"a": EVE.public_key}, "another author"),
        ({"to": EVE.public_key}, "another seat"),
        ({"v": 2}, "version"),
        ({"at": NOW - CANDIDATE_MAX_AGE_MS - 1}, "stale"),
        ({"at": True}, "stale"),
        ({"n": b"short"}, "16 bytes"),
        ({"c": [["lan", "192.168.1.2"]]}, "kind, address, port"),
        ({"c": [["relay", "192.168.1.2", 1]]}, "unknown candidate kind"),
        ({"c": [["lan", "192.168.001.2", 1]]}, "bad candidate"),
        ({"c": [["lan", "192.168.1.2", 70000]]}, "out of range"),
        ({"c": [["lan", "127.0.0.1", 5]]}, "loopback"),
        ({"c": [["v6", "fe80::1", 5]]}, "routable"),
        ({"c": [["lan", "10.0.0.1", i + 1] for i in range(MAX_CANDIDATES + 1)]}, "at most"),
        ({"x": 1}, "fields"),
        ({"at": None}, "fields"),
    ],
)
def test_wrong_fields_are_refused(changes: dict[str, Any], why: str) -> None:
    with pytest.raises(MessageRefused, match=why):
        _open(_offer(**changes))


def test_signed_by_another_key_or_table_is_refused() -> None:
    data, _ = seal_candidates(EVE, TABLE, BOB.public_key, CANDIDATES, NOW)
    with pytest.raises(MessageRefused, match="signature"):
        _open(data)
    data, _ = seal_candidates(ANN, b"U" * 32, BOB.public_key, CANDIDATES, NOW)
    with pytest.raises(MessageRefused, match="signature"):
        _open(data)
    with pytest.raises(MessageRefused, match="too long"):
        _open(b"\x80" * 5000)
    with pytest.raises(MessageRefused):
        _open(b"\xc1garbage")


def test_stun_server_lists() -> None:
    assert parse_stun_servers("198.18.0.1:3478, stun.example:443,[2001:db8::1]:3478,h") == [
        ("198.18.0.1", 3478),
        ("stun.example", 443),
        ("2001:db8::1", 3478),
        ("h", 3478),
    ]
    for bad in ("h:0", "h:x", "2001:db8::1", "[2001:db8::1", ":3478", ",".join(["h"] * 9)):
        with pytest.raises(ValueError):
            parse_stun_servers(bad)
