from __future__ import annotations

import hashlib
from typing import Any

import pytest
from msg_helpers import TABLE, envelope_list, make, packb, raw_frame, sample_body

from dealerless.protocol.messages import (
    DOMAIN,
    GENESIS_PREV,
    BadSignature,
    ChainError,
    DuplicateKey,
    IdentityKey,
    KindRegistry,
    Limits,
    MalformedMessage,
    MessageError,
    NonCanonical,
    SchemaViolation,
    TooLarge,
    UnknownKind,
    UnsupportedVersion,
    check_follows,
    config_hash,
    decode_message,
    message_hash,
    pack,
    sign_message,
)

FIELDS = ["version", "table_id", "hand", "seq", "prev", "seat", "author", "kind", "body"]


def test_round_trip(key: IdentityKey, registry: KindRegistry) -> None:
    msg = make(key, registry, kind="sample", body=sample_body(), seq=5, hand=3, seat=None)
    got = decode_message(msg.frame, registry=registry)
    assert got == msg
    assert got.body == sample_body()
    assert (got.table_id, got.hand, got.seq, got.seat, got.kind) == (TABLE, 3, 5, None, "sample")
    assert got.author == key.peer_id
    assert got.digest == hashlib.sha256(msg.frame).digest() == message_hash(msg.frame)
    assert got.signature == msg.frame[-64:]
    assert "sample" in repr(got)


def test_layout_is_packed_array_then_signature(key: IdentityKey) -> None:
    msg = make(key)
    packed, sig = msg.frame[:-64], msg.frame[-64:]
    assert packed == packb(envelope_list(key))
    key.peer_id.verify(sig, DOMAIN + packed)


def test_signing_is_deterministic(key: IdentityKey) -> None:
    assert make(key).frame == make(key).frame


def test_hash_chain(key: IdentityKey) -> None:
    first = make(key)
    second = make(key, seq=1, prev=first.digest)
    check_follows(first, table_id=TABLE, prev=GENESIS_PREV, hand=0, seq=0)
    check_follows(second, table_id=TABLE, prev=first.digest, seq=1)
    with pytest.raises(ChainError, match=r"prev [0-9a-f]+ is not the last accepted hash"):
        check_follows(second, table_id=TABLE, prev=GENESIS_PREV)
    with pytest.raises(ChainError, match="seq 1 is not 2"):
        check_follows(second, table_id=TABLE, prev=first.digest, seq=2)
    with pytest.raises(ChainError, match="hand 0 is not 1") as info:
        check_follows(second, table_id=TABLE, prev=first.digest, hand=1)
    assert info.value.signed_by == key.peer_id.raw
    with pytest.raises(ChainError, match="table_id"):
        check_follows(second, table_id=bytes(16), prev=first.digest)


# --- tampering: every envelope field, the body and the signature -------------------------------

TAMPER: dict[str, Any] = {
    "table_id": bytes(16),
    "hand": 1,
    "seq": 1,
    "prev": b"\x01" * 32,
    "seat": 2,
    "kind": "leave",
    "body": {"text": "hellO"},
}


@pytest.mark.parametrize("field", sorted(TAMPER))
def test_tampering_with_any_field_breaks_the_signature(key: IdentityKey, field: str) -> None:
    msg = make(key)
    changed = packb(envelope_list(key, **{field: TAMPER[field]}))
    if field == "kind":
        changed = packb(envelope_list(key, kind="leave", body={}))
    with pytest.raises(BadSignature, match="does not verify"):
        decode_message(changed + msg.signature)


def test_replacing_the_author_breaks_the_signature(
    key: IdentityKey, other_key: IdentityKey
) -> None:
    msg = make(key)
    changed = packb(envelope_list(key, author=other_key.peer_id.raw))
    with pytest.raises(BadSignature, match="does not verify"):
        decode_message(changed + msg.signature)


def test_version_change_is_refused(key: IdentityKey) -> None:
    msg = make(key)
    with pytest.raises(UnsupportedVersion, match=r"expected one of \[1\], got 2"):
        decode_message(packb(envelope_list(key, version=2)) + msg.signature)


def test_every_signature_bit_matters(key: IdentityKey) -> None:
    frame = make(key).frame
    for i in range(len(frame) - 64, len(frame)):
        for bit in (0, 7):
            bad = bytearray(frame)
            bad[i] ^= 1 << bit
            with pytest.raises(BadSignature):
                decode_message(bytes(bad))


def test_every_byte_of_the_frame_matters(key: IdentityKey, registry: KindRegistry) -> None:
    frame = make(key, registry, kind="sample", body=sample_body()).frame
    for i in range(len(frame)):
        bad = bytearray(frame)
        bad[i] ^= 0x01
        with pytest.raises(MessageError):
            decode_message(bytes(bad), registry=registry)


def test_signature_from_another_key_is_refused(key: IdentityKey, other_key: IdentityKey) -> None:
    packed = make(key).frame[:-64]
    with pytest.raises(BadSignature):
        decode_message(raw_frame(other_key, packed))


def test_signature_without_the_domain_prefix_is_refused(key: IdentityKey) -> None:
    packed = make(key).frame[:-64]
    with pytest.raises(BadSignature):
        decode_message(packed + key.sign(packed))


def test_non_canonical_s_is_refused(key: IdentityKey) -> None:
    """S + L is the classic malleated Ed25519 signature: it must not verify."""
    frame = make(key).frame
    order = 2**252 + 27742317777372353535851937790883648493
    s = int.from_bytes(frame[-32:], "little")
    if s + order >= 2**256:
        pytest.skip("S + L does not fit in 32 bytes for this signature")
    malleated = frame[:-32] + (s + order).to_bytes(32, "little")
    with pytest.raises(BadSignature):
        decode_message(malleated)


# --- validly signed but otherwise wrong -----------------------------------------------------


def test_non_canonical_encoding_with_valid_signature_is_refused(key: IdentityKey) -> None:
    canonical = packb(envelope_list(key))
    # seq 0 written as uint8 0: same value, different bytes, validly signed
    fields = envelope_list(key)
    parts = [b"\x99"] + [packb(v) for v in fields]
    parts[FIELDS.index("seq") + 1] = b"\xcc\x00"
    with pytest.raises(NonCanonical, match="first differing byte"):
        decode_message(raw_frame(key, b"".join(parts)))
    parts = [b"\x99"] + [packb(v) for v in fields]
    parts[FIELDS.index("kind") + 1] = b"\xd9\x04chat"  # str8 instead of fixstr
    with pytest.raises(NonCanonical):
        decode_message(raw_frame(key, b"".join(parts)))
    # array16 header for the envelope
    with pytest.raises(NonCanonical):
        decode_message(raw_frame(key, b"\xdc\x00\x09" + canonical[1:]))


def test_unsorted_and_duplicate_body_keys_with_valid_signature(key: IdentityKey) -> None:
    head = b"\x99" + b"".join(packb(v) for v in envelope_list(key)[:-1])
    reason_then_a = head[:-5] + packb("leave")
    with pytest.raises(NonCanonical, match="out of order"):
        decode_message(raw_frame(key, reason_then_a + b"\x82\xa1z\xc0\xa1a\xc0"))
    with pytest.raises(DuplicateKey, match=r"envelope\[8\]: duplicate map key 'text'"):
        decode_message(raw_frame(key, head + b"\x82\xa4text\xa1a\xa4text\xa1b"))


def test_unknown_kind_is_refused_and_attributable(key: IdentityKey) -> None:
    frame = raw_frame(key, packb(envelope_list(key, kind="teleport")))
    with pytest.raises(UnknownKind, match="kind 'teleport' is not registered") as info:
        decode_message(frame)
    assert info.value.signed_by == key.peer_id.raw


def test_schema_violation_is_refused_and_attributable(key: IdentityKey) -> None:
    frame = raw_frame(key, packb(envelope_list(key, body={"text": 5})))
    with pytest.raises(SchemaViolation, match=r"body\.text: expected text") as info:
        decode_message(frame)
    assert info.value.signed_by == key.peer_id.raw


@pytest.mark.parametrize(
    ("field", "value", "text"),
    [
        ("table_id", bytes(15), "envelope.table_id: expected bytes of length 16"),
        ("table_id", "x" * 16, "envelope.table_id: expected bytes of length 16, got str"),
        ("hand", -1, "envelope.hand: expected int in 0..4294967295, got int -1"),
        ("hand", 2**32, "envelope.hand: expected int in 0..4294967295"),
        ("seq", True, "envelope.seq: expected int in 0..4294967295, got bool True"),
        ("prev", bytes(31), "envelope.prev: expected bytes of length 32"),
        ("seat", 16, "envelope.seat: expected (int in 0..15) or (nil), got int 16"),
        ("seat", "1", "envelope.seat"),
        ("author", bytes(31), "envelope.author: expected bytes of length 32"),
        ("kind", "", "envelope.kind: expected str of 1..32 chars"),
        ("kind", "Chat", "envelope.kind"),
        ("kind", 7, "envelope.kind"),
        ("version", "1", "envelope.version: expected int, got str"),
    ],
)
def test_badly_typed_header_fields(key: IdentityKey, field: str, value: Any, text: str) -> None:
    frame = raw_frame(key, packb(envelope_list(key, **{field: value})))
    with pytest.raises(MalformedMessage) as info:
        decode_message(frame)
    assert text in str(info.value)


def test_wrong_envelope_shapes(key: IdentityKey) -> None:
    full = envelope_list(key)
    with pytest.raises(MalformedMessage, match="expected an array of 9 elements, got 8"):
        decode_message(raw_frame(key, packb(full[:-1])))
    with pytest.raises(MalformedMessage, match="expected an array of 9 elements, got 10"):
        decode_message(raw_frame(key, packb([*full, None])))
    with pytest.raises(MalformedMessage, match="expected an array, got map"):
        decode_message(raw_frame(key, packb({"version": 1})))
    with pytest.raises(MalformedMessage, match="expected an array, got array of length 0"):
        decode_message(raw_frame(key, packb([])))


def test_small_order_author_key_is_refused(key: IdentityKey) -> None:
    packed = packb(envelope_list(key, author=bytes(32)))
    with pytest.raises(BadSignature, match="small-order"):
        decode_message(packed + bytes(64))


def test_size_limits(key: IdentityKey) -> None:
    frame = make(key).frame
    with pytest.raises(TooLarge, match=f"message of {len(frame)} bytes exceeds the limit of 100"):
        decode_message(frame, limits=Limits(max_message_bytes=100))
    with pytest.raises(MalformedMessage, match="too short"):
        decode_message(frame[:64])
    with pytest.raises(MalformedMessage, match="too short"):
        decode_message(b"")
    with pytest.raises(TooLarge, match="exceeds the limit of 300"):
        sign_message(
            key,
            table_id=TABLE,
            hand=0,
            seq=0,
            prev=GENESIS_PREV,
            seat=0,
            kind="chat",
            body={"text": "x" * 200},
            limits=Limits(max_message_bytes=300),
        )


def test_not_bytes_is_refused() -> None:
    with pytest.raises(MalformedMessage, match="expected bytes, got str"):
        decode_message("hello" * 30)  # type: ignore[arg-type]


def test_sign_message_checks_what_it_signs(key: IdentityKey) -> None:
    with pytest.raises(UnknownKind):
        make(key, kind="nope")
    with pytest.raises(SchemaViolation, match=r"body\.text"):
        make(key, body={"text": ""})
    with pytest.raises(MalformedMessage, match=r"envelope\.seat"):
        make(key, seat=99)
    with pytest.raises(MalformedMessage, match=r"body\.text: type float"):
        make(key, body={"text": 1.5})
    with pytest.raises(MalformedMessage, match=r"envelope\.prev"):
        make(key, prev=b"short")


def test_config_hash_is_canonical() -> None:
    a = config_hash({"game": "tuppen", "players": 4, "options": {"b": 1, "a": True}})
    b = config_hash({"players": 4, "options": {"a": True, "b": 1}, "game": "tuppen"})
    assert (
        a
        == b
        == hashlib.sha256(
            pack({"game": "tuppen", "players": 4, "options": {"a": True, "b": 1}})
        ).digest()
    )


def test_embedded_message_field(key: IdentityKey, other_key: IdentityKey) -> None:
    from dealerless.protocol.messages import DEFAULT_REGISTRY, EmbeddedMessage, Map

    reg = DEFAULT_REGISTRY.copy()
    reg.register("admit", Map({"request": EmbeddedMessage({"chat"})}))
    request = make(other_key, seat=2)
    admit = make(key, reg, kind="admit", body={"request": request.frame})
    got = decode_message(admit.frame, registry=reg)
    assert decode_message(got.body["request"]) == request

    forged = request.frame[:-1] + bytes([request.frame[-1] ^ 1])
    frame = raw_frame(key, packb(envelope_list(key, kind="admit", body={"request": forged})))
    with pytest.raises(SchemaViolation, match=r"body\.request: .*BadSignature") as info:
        decode_message(frame, registry=reg)
    assert info.value.signed_by == key.peer_id.raw

    leave = make(other_key, kind="leave", body={})
    with pytest.raises(SchemaViolation, match="a signed 'leave' message"):
        make(key, reg, kind="admit", body={"request": leave.frame})
    with pytest.raises(SchemaViolation, match="got str"):
        make(key, reg, kind="admit", body={"request": "x"})
