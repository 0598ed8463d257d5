"""Fuzzing: whatever the bytes, the decoders raise nothing but their own error types."""

from __future__ import annotations

import contextlib
import io
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msg_helpers import SAMPLE, envelope_list, make, packb, raw_frame, sample_body

from dealerless.protocol.messages import (
    DEFAULT_REGISTRY,
    IdentityKey,
    MessageError,
    decode_message,
    unpack,
)
from dealerless.protocol.transcript import (
    TranscriptError,
    TranscriptReader,
    encode_header,
    encode_record,
)

KEY = IdentityKey.from_private_bytes(bytes(range(32)))
REGISTRY = DEFAULT_REGISTRY.copy()
REGISTRY.register("sample", SAMPLE)
VALID = make(KEY, REGISTRY, kind="sample", body=sample_body()).frame
FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _decode(data: bytes) -> None:
    try:
        msg = decode_message(data, registry=REGISTRY)
    except MessageError:
        return
    assert msg.frame == data
    assert decode_message(msg.frame, registry=REGISTRY) == msg


@FAST
@given(st.binary(max_size=400))
def test_random_bytes(data: bytes) -> None:
    _decode(data)
    with contextlib.suppress(MessageError):
        unpack(data)


@st.composite
def mutations(draw: st.DrawFn) -> bytes:
    data = bytearray(VALID)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "set", "insert", "delete", "truncate"]))
        i = draw(st.integers(0, max(0, len(data) - 1)))
        if op == "flip" and data:
            data[i] ^= 1 << draw(st.integers(0, 7))
        elif op == "set" and data:
            data[i] = draw(st.integers(0, 255))
        elif op == "insert":
            data[i:i] = draw(st.binary(min_size=1, max_size=8))
        elif op == "delete" and data:
            del data[i : i + draw(st.integers(1, 8))]
        elif op == "truncate":
            del data[i:]
    return bytes(data)


@FAST
@given(mutations())
def test_mutated_valid_messages(data: bytes) -> None:
    _decode(data)


values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**64), 2**64)
    | st.floats(allow_nan=False)
    | st.text(max_size=10)
    | st.binary(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=6) | st.integers(0, 3), inner, max_size=4)
    ),
    max_leaves=12,
)


@FAST
@given(
    st.sampled_from(["version", "table_id", "hand", "seq", "prev", "seat", "kind", "body"]),
    values,
)
def test_validly_signed_random_field_values(field: str, value: Any) -> None:
    """Signed by a real key, so decoding gets past the signature into header and body checks."""
    try:
        packed = packb(envelope_list(KEY, **{field: value}))
    except (OverflowError, ValueError, TypeError):
        return  # msgpack itself cannot encode it
    _decode(raw_frame(KEY, packed))


@FAST
@given(values)
def test_validly_signed_random_sample_bodies(body: Any) -> None:
    try:
        packed = packb(envelope_list(KEY, kind="sample", body=body))
    except (OverflowError, ValueError, TypeError):
        return
    _decode(raw_frame(KEY, packed))


HEADER = encode_header({"game": "tuppen"})


@FAST
@given(st.binary(max_size=300), st.booleans())
def test_transcript_reader_on_garbage(tail: bytes, with_header: bool) -> None:
    data = (HEADER + encode_record(VALID) + tail) if with_header else tail
    with contextlib.suppress(TranscriptError):
        reader = TranscriptReader(io.BytesIO(data), allow_torn_tail=True)
        list(reader.messages(REGISTRY))


@FAST
@given(st.integers(0, 10_000), st.integers(0, 255))
def test_transcript_reader_on_mutated_file(position: int, value: int) -> None:
    data = bytearray(HEADER + encode_record(VALID) * 2)
    data[position % len(data)] = value
    with contextlib.suppress(TranscriptError):
        list(TranscriptReader(io.BytesIO(bytes(data))).messages(REGISTRY))
