"""The signed envelope every table message travels in.

Byte layout of one message (a *frame*)::

    frame     = packed ‖ signature                      (signature: the last 64 bytes)
    packed    = canonical msgpack array of 9 elements:
                [version, table_id, hand, seq, prev, seat, author, kind, body]
    signature = Ed25519(author's private key, DOMAIN ‖ packed)
    DOMAIN    = b"dealerless/message/v1\\x00"           (22 bytes, never transmitted)
    hash      = SHA-256(frame)                           (signature included)

The signature covers the received ``packed`` bytes as they are; nothing is ever re-serialised to
verify. Decoding additionally demands that ``packed`` is the canonical encoding of its value (see
:mod:`.codec`), so a message has exactly one byte form and one hash. Ed25519 as implemented by
OpenSSL refuses a non-reduced ``S``, so nobody but the author can make a second valid signature
for the same bytes; an author who signs two different frames for the same (table, hand, seq)
has equivocated, and the two signed frames prove it.

See ``spec/messages.md`` for the field table and the order of checks.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dealerless.protocol.wire.codec import DEFAULT_LIMITS, Limits, describe, pack, unpack
from dealerless.protocol.wire.errors import (
    ChainError,
    MalformedMessage,
    MessageError,
    SchemaViolation,
    TooLarge,
    UnsupportedVersion,
)
from dealerless.protocol.wire.identity import SIGNATURE_BYTES, IdentityKey, PeerId
from dealerless.protocol.wire.schema import (
    DEFAULT_REGISTRY,
    Bytes,
    Either,
    Field,
    Int,
    KindRegistry,
    Nil,
    Str,
)

__all__ = [
    "DOMAIN",
    "ENVELOPE_FIELDS",
    "GENESIS_PREV",
    "MAX_SEAT",
    "SUPPORTED_VERSIONS",
    "VERSION",
    "EmbeddedMessage",
    "SignedMessage",
    "check_follows",
    "decode_message",
    "message_hash",
    "sign_message",
]

VERSION = 1
SUPPORTED_VERSIONS = frozenset({VERSION})
DOMAIN = b"dealerless/message/v1\x00"
GENESIS_PREV = bytes(32)
TABLE_ID_BYTES = 16
HASH_BYTES = 32
MAX_SEAT = 15
MAX_COUNTER = 2**32 - 1
KIND_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789-"

# Envelope fields after the version, in wire order, with their types.
ENVELOPE_FIELDS: tuple[tuple[str, Field], ...] = (
    ("table_id", Bytes(TABLE_ID_BYTES)),
    ("hand", Int(0, MAX_COUNTER)),
    ("seq", Int(0, MAX_COUNTER)),
    ("prev", Bytes(HASH_BYTES)),
    ("seat", Either(Int(0, MAX_SEAT), Nil())),
    ("author", Bytes(32)),
    ("kind", Str(32, min_len=1, charset=KIND_CHARS)),
)
_ARITY = 2 + len(ENVELOPE_FIELDS)  # version + fields + body


def message_hash(frame: bytes) -> bytes:
    """SHA-256 of a whole frame (packed envelope and signature): what ``prev`` refers to."""
    return hashlib.sha256(frame).digest()


@dataclass(frozen=True, slots=True, eq=False)
class SignedMessage:
    """A verified message. Build one only with :func:`sign_message` or :func:`decode_message`.

    ``frame`` is the authoritative byte form (what travels and what the transcript stores);
    the other attributes are its decoded content. ``digest`` is :func:`message_hash` of it.
    Two messages are equal when their frames are.
    """

    version: int
    table_id: bytes
    hand: int
    seq: int
    prev: bytes
    seat: int | None
    author: PeerId
    kind: str
    body: Mapping[str, Any]
    signature: bytes
    frame: bytes
    digest: bytes

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SignedMessage) and other.frame == self.frame

    def __hash__(self) -> int:
        return hash(self.frame)

    def __repr__(self) -> str:
        seat = "-" if self.seat is None else str(self.seat)
        return (
            f"<{self.kind} table={self.table_id.hex()[:8]} hand={self.hand} seq={self.seq} "
            f"seat={seat} by={self.author.fingerprint[:9]} hash={self.digest.hex()[:12]}>"
        )


def _check_header(values: Mapping[str, object], error: type[MessageError]) -> None:
    for name, field in ENVELOPE_FIELDS:
        try:
            field.check(values[name], f"envelope.{name}")
        except SchemaViolation as exc:
            raise error(exc.text) from None


def sign_message(
    key: IdentityKey,
    *,
    table_id: bytes,
    hand: int,
    seq: int,
    prev: bytes,
    seat: int | None,
    kind: str,
    body: Mapping[str, Any],
    registry: KindRegistry = DEFAULT_REGISTRY,
    limits: Limits = DEFAULT_LIMITS,
) -> SignedMessage:
    """Build, check and sign a message; the result decodes to itself on every peer.

    Raises :class:`MalformedMessage` for a bad header value or a value outside the data model,
    :class:`UnknownKind` / :class:`SchemaViolation` for the body, :class:`TooLarge` when the
    frame would exceed ``limits.max_message_bytes``.
    """
    author = key.peer_id
    header: dict[str, object] = {
        "table_id": table_id,
        "hand": hand,
        "seq": seq,
        "prev": prev,
        "seat": seat,
        "author": author.raw,
        "kind": kind,
    }
    _check_header(header, MalformedMessage)
    body_value = unpack(pack(body, limits, path="body"), limits, path="body")
    registry.check_body(kind, body_value)
    packed = pack(
        [VERSION, table_id, hand, seq, prev, seat, author.raw, kind, body_value],
        limits,
        path="envelope",
    )
    frame_len = len(packed) + SIGNATURE_BYTES
    if frame_len > limits.max_message_bytes:
        raise TooLarge(
            f"message of {frame_len} bytes exceeds the limit of {limits.max_message_bytes} bytes"
        )
    signature = key.sign(DOMAIN + packed)
    frame = packed + signature
    return SignedMessage(
        VERSION,
        bytes(table_id),
        hand,
        seq,
        bytes(prev),
        seat,
        author,
        kind,
        body_value,
        signature,
        frame,
        message_hash(frame),
    )


def decode_message(
    frame: bytes,
    *,
    registry: KindRegistry = DEFAULT_REGISTRY,
    limits: Limits = DEFAULT_LIMITS,
) -> SignedMessage:
    """Strictly decode and verify one received frame.

    Checks, in this order (the first failure is raised):

    1. size: at most ``limits.max_message_bytes`` (:class:`TooLarge`), more than 64 bytes;
    2. ``packed`` is canonical, limit-abiding msgpack of the data model (:class:`MalformedMessage`,
       :class:`NonCanonical`, :class:`DuplicateKey`);
    3. it is an array whose first element is a supported version (:class:`UnsupportedVersion`),
       with exactly 9 elements and well-typed header fields (:class:`MalformedMessage`);
    4. the author key is a valid Ed25519 key and the signature verifies over ``DOMAIN ‖ packed``
       (:class:`BadSignature`);
    5. the kind is registered (:class:`UnknownKind`) and the body fits its schema
       (:class:`SchemaViolation`). Errors from this step carry ``signed_by``: the frame is then
       signed proof of the author's misbehaviour.

    Never raises anything but :class:`MessageError` subclasses, whatever the input.
    """
    if not isinstance(frame, bytes):
        raise MalformedMessage(f"message: expected bytes, got {type(frame).__name__}")
    if len(frame) > limits.max_message_bytes:
        raise TooLarge(
            f"message of {len(frame)} bytes exceeds the limit of {limits.max_message_bytes} bytes"
        )
    if len(frame) <= SIGNATURE_BYTES:
        raise MalformedMessage(
            f"message of {len(frame)} bytes is too short to hold an envelope and a "
            f"{SIGNATURE_BYTES}-byte signature"
        )
    packed, signature = frame[:-SIGNATURE_BYTES], frame[-SIGNATURE_BYTES:]
    value = unpack(packed, limits, path="envelope")
    if not isinstance(value, list) or not value:
        raise MalformedMessage(f"envelope: expected an array, got {describe(value)}")
    version = value[0]
    if not isinstance(version, int) or isinstance(version, bool):
        raise MalformedMessage(f"envelope.version: expected int, got {describe(version)}")
    if version not in SUPPORTED_VERSIONS:
        raise UnsupportedVersion(
            f"envelope.version: expected one of {sorted(SUPPORTED_VERSIONS)}, got {version}"
        )
    if len(value) != _ARITY:
        raise MalformedMessage(
            f"envelope: expected an array of {_ARITY} elements, got {len(value)}"
        )
    header: dict[str, Any] = {name: value[i + 1] for i, (name, _) in enumerate(ENVELOPE_FIELDS)}
    _check_header(header, MalformedMessage)
    body = value[-1]
    author = PeerId(header["author"])
    author.verify(signature, DOMAIN + packed)
    kind: str = header["kind"]
    try:
        registry.check_body(kind, body)
    except MessageError as exc:
        exc.signed_by = author.raw
        raise
    return SignedMessage(
        version,
        header["table_id"],
        header["hand"],
        header["seq"],
        header["prev"],
        header["seat"],
        author,
        kind,
        body,
        signature,
        frame,
        message_hash(frame),
    )


class EmbeddedMessage(Field):
    """A body field holding another signed frame (an arbiter's ``admit`` embedding a request, a
    certificate holding votes): bin that :func:`decode_message` accepts, optionally of given kinds.

    Decoding the outer message decodes and verifies the inner one; an inner failure is reported as
    a :class:`SchemaViolation` at the field's path with the inner error's text. The inner frame
    must be smaller than the outer one, so nesting is bounded by the size limit.
    """

    def __init__(
        self,
        kinds: frozenset[str] | set[str] | None = None,
        *,
        registry: KindRegistry | None = None,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        self.kinds = frozenset(kinds) if kinds is not None else None
        self.registry = registry
        self.limits = limits

    def check(self, value: object, path: str) -> None:
        if not isinstance(value, bytes):
            raise SchemaViolation(path, self.describe(), describe(value))
        try:
            inner = decode_message(
                value, registry=self.registry or DEFAULT_REGISTRY, limits=self.limits
            )
        except MessageError as exc:
            raise SchemaViolation(
                path, self.describe(), f"{type(exc).__name__}: {exc.text}"
            ) from None
        if self.kinds is not None and inner.kind not in self.kinds:
            raise SchemaViolation(path, self.describe(), f"a signed {inner.kind!r} message")

    def describe(self) -> str:
        which = "" if self.kinds is None else " of kind " + " or ".join(sorted(self.kinds))
        return f"a signed message{which}"


def check_follows(
    message: SignedMessage,
    *,
    table_id: bytes,
    prev: bytes,
    hand: int | None = None,
    seq: int | None = None,
) -> None:
    """Raise :class:`ChainError` unless ``message`` is for ``table_id``, names ``prev`` (the hash
    of the last accepted message, :data:`GENESIS_PREV` for the first) and, where given, has the
    expected hand and sequence numbers. The table protocol decides what is expected."""
    problems = []
    if message.table_id != table_id:
        problems.append(f"table_id {message.table_id.hex()} is not {table_id.hex()}")
    if message.prev != prev:
        problems.append(f"prev {message.prev.hex()} is not the last accepted hash {prev.hex()}")
    if hand is not None and message.hand != hand:
        problems.append(f"hand {message.hand} is not {hand}")
    if seq is not None and message.seq != seq:
        problems.append(f"seq {message.seq} is not {seq}")
    if problems:
        raise ChainError(
            f"{message!r} does not follow: " + "; ".join(problems), signed_by=message.author.raw
        )
