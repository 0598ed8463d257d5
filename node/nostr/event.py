"""NIP-01 events: the id (sha256 of the canonical serialisation) and the BIP-340 signature.

Incoming events are checked in two steps so that the cheap one runs first: :func:`parse_event`
(shape, types and sizes; no hashing, no curve work) and :func:`verify_event` (the id is
recomputed from the fields and the Schnorr signature checked against the x-only key)."""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

from coincurve import PrivateKey, PublicKeyXOnly

__all__ = ["EventError", "NostrEvent", "NostrKey", "parse_event", "verify_event"]

MAX_TAGS = 8
MAX_TAG_VALUE = 128


class EventError(ValueError):
    """An event that is malformed, too big, or whose id or signature does not check."""


@dataclass(frozen=True)
class NostrEvent:
    id: str
    pubkey: str
    created_at: int
    kind: int
    tags: tuple[tuple[str, ...], ...]
    content: str
    sig: str

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "pubkey": self.pubkey,
            "created_at": self.created_at,
            "kind": self.kind,
            "tags": [list(t) for t in self.tags],
            "content": self.content,
            "sig": self.sig,
        }

    def tag_values(self, name: str) -> list[str]:
        return [t[1] for t in self.tags if len(t) >= 2 and t[0] == name]


def serialize_for_id(
    pubkey: str, created_at: int, kind: int, tags: tuple[tuple[str, ...], ...], content: str
) -> bytes:
    """NIP-01: ``[0, pubkey, created_at, kind, tags, content]`` as compact UTF-8 JSON."""
    body = [0, pubkey, created_at, kind, [list(t) for t in tags], content]
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def compute_id(
    pubkey: str, created_at: int, kind: int, tags: tuple[tuple[str, ...], ...], content: str
) -> bytes:
    return hashlib.sha256(serialize_for_id(pubkey, created_at, kind, tags, content)).digest()


class NostrKey:
    """A secp256k1 key for signing events (one fresh key per seat and table)."""

    def __init__(self, secret: bytes | None = None) -> None:
        self._key = PrivateKey(secret) if secret is not None else PrivateKey()
        self.public = self._key.public_key_xonly.format()
        self.pubkey = self.public.hex()

    def sign(
        self,
        kind: int,
        tags: tuple[tuple[str, ...], ...],
        content: str,
        created_at: int | None = None,
    ) -> NostrEvent:
        when = int(time.time()) if created_at is None else created_at
        digest = compute_id(self.pubkey, when, kind, tags, content)
        sig = self._key.sign_schnorr(digest, secrets.token_bytes(32))
        return NostrEvent(digest.hex(), self.pubkey, when, kind, tags, content, sig.hex())


def _hex(value: object, size: int, what: str) -> str:
    if not isinstance(value, str) or len(value) != 2 * size:
        raise EventError(f"event {what} must be {2 * size} hex digits")
    try:
        bytes.fromhex(value)
    except ValueError:
        raise EventError(f"event {what} is not hex") from None
    if value != value.lower():
        raise EventError(f"event {what} must be lowercase hex")
    return value


def parse_event(raw: object, max_content: int) -> NostrEvent:
    """The shape of an event from a relay, bounded; no hashing or signature work yet."""
    if not isinstance(raw, dict):
        raise EventError("an event must be a JSON object")
    kind, created_at, content, tags = (
        raw.get("kind"),
        raw.get("created_at"),
        raw.get("content"),
        raw.get("tags"),
    )
    if not isinstance(kind, int) or isinstance(kind, bool) or not 0 <= kind <= 65535:
        raise EventError("event kind must be an integer 0..65535")
    if not isinstance(created_at, int) or isinstance(created_at, bool) or created_at < 0:
        raise EventError("event created_at must be a non-negative integer")
    if not isinstance(content, str) or len(content) > max_content:
        raise EventError(f"event content must be a string of at most {max_content} characters")
    if not isinstance(tags, list) or len(tags) > MAX_TAGS:
        raise EventError(f"event tags must be a list of at most {MAX_TAGS}")
    parsed: list[tuple[str, ...]] = []
    for tag in tags:
        if (
            not isinstance(tag, list)
            or not 1 <= len(tag) <= 4
            or not all(isinstance(v, str) and len(v) <= MAX_TAG_VALUE for v in tag)
        ):
            raise EventError("an event tag must be a short list of short strings")
        parsed.append(tuple(tag))
    return NostrEvent(
        _hex(raw.get("id"), 32, "id"),
        _hex(raw.get("pubkey"), 32, "pubkey"),
        created_at,
        kind,
        tuple(parsed),
        content,
        _hex(raw.get("sig"), 64, "sig"),
    )


def verify_event(event: NostrEvent) -> None:
    """Recompute the id from the fields and check the BIP-340 signature over it."""
    digest = compute_id(event.pubkey, event.created_at, event.kind, event.tags, event.content)
    if digest.hex() != event.id:
        raise EventError("event id does not match its contents")
    try:
        ok = PublicKeyXOnly(bytes.fromhex(event.pubkey)).verify(bytes.fromhex(event.sig), digest)
    except (ValueError, TypeError):
        ok = False  # not a point on the curve, or a malformed signature
    if not ok:
        raise EventError("event signature does not verify")
