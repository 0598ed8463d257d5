"""The two rendezvous messages of a punch, signed by the seat's identity key.

Both travel over the table's existing rendezvous (encrypted Nostr events, the hub, a direct
link) and are signed like every other node message (:func:`dealerless.node.wire.seal`: the
label, the table id and the exact body bytes), so a relay or another seat cannot change
where a seat says it can be reached, nor move the moment it dials::

    cand   {t: "cand", v: 1, a: author key, to: peer key, c: [[kind, address, port], ...],
            at: unix ms, n: 16-byte attempt nonce}
    punch  {t: "punch", v: 1, a: author key, to: peer key, n: the nonce of the cand it answers}

``to`` and ``n`` bind a message to one pair and one attempt (a replayed old ``punch`` does not
start a new one). Every field is checked and bounded: at most :data:`MAX_CANDIDATES`
candidates, a body of at most :data:`MAX_BODY` bytes, no unknown fields.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from ..identity import Identity
from ..wire import WireError, decode, encode, seal, verify_sealed
from .candidates import Candidate

__all__ = [
    "CANDIDATE_MAX_AGE_MS",
    "MAX_BODY",
    "MAX_CANDIDATES",
    "CandidateOffer",
    "MessageRefused",
    "open_message",
    "seal_candidates",
    "seal_punch",
]

VERSION = 1
MAX_CANDIDATES = 12
MAX_BODY = 1024
MAX_SEALED = MAX_BODY + 128
NONCE_SIZE = 16
# An offer older than this is stale (its mappings may have expired at the router); the same
# bound in the future allows for clocks that disagree by minutes.
CANDIDATE_MAX_AGE_MS = 10 * 60 * 1000
_FIELDS = {
    "cand": frozenset({"t", "v", "a", "to", "c", "at", "n"}),
    "punch": frozenset({"t", "v", "a", "to", "n"}),
}


class MessageRefused(ValueError):
    """A rendezvous message that is malformed, tampered with, or not for us."""


@dataclass(frozen=True)
class CandidateOffer:
    author: bytes
    candidates: tuple[Candidate, ...]
    at_ms: int
    nonce: bytes


@dataclass(frozen=True)
class PunchGo:
    author: bytes
    nonce: bytes


def seal_candidates(
    identity: Identity,
    table_id: bytes,
    peer_key: bytes,
    candidates: list[Candidate],
    now_ms: int,
    nonce: bytes | None = None,
) -> tuple[bytes, bytes]:
    """(the signed ``cand`` message, its nonce)."""
    if len(candidates) > MAX_CANDIDATES:
        candidates = candidates[:MAX_CANDIDATES]  # the best first: see gather_candidates
    nonce = nonce or secrets.token_bytes(NONCE_SIZE)
    payload = {
        "t": "cand",
        "v": VERSION,
        "a": identity.public_key,
        "to": peer_key,
        "c": [[c.kind, c.address, c.port] for c in candidates],
        "at": now_ms,
        "n": nonce,
    }
    return encode(seal(identity, table_id, payload)), nonce


def seal_punch(identity: Identity, table_id: bytes, peer_key: bytes, nonce: bytes) -> bytes:
    """The signed ``punch`` message: dial now (it answers the ``cand`` of ``nonce``)."""
    payload = {"t": "punch", "v": VERSION, "a": identity.public_key, "to": peer_key, "n": nonce}
    return encode(seal(identity, table_id, payload))


def _bytes(payload: dict[str, Any], key: str, size: int) -> bytes:
    value = payload.get(key)
    if not isinstance(value, bytes) or len(value) != size:
        raise MessageRefused(f"field {key!r} must be {size} bytes")
    return value


def open_message(
    data: bytes,
    table_id: bytes,
    author: bytes,
    me: bytes,
    now_ms: int,
    *,
    allow_loopback: bool = False,
) -> CandidateOffer | PunchGo:
    """Check a rendezvous message from seat ``author`` to us (``me``): its signature, every
    field, its age. MessageRefused saying why, for anything wrong."""
    if len(data) > MAX_SEALED:
        raise MessageRefused(f"message of {len(data)} bytes is too long")
    try:
        outer = decode(data)
    except WireError as exc:
        raise MessageRefused(str(exc)) from None
    body, signature = outer.get("b"), outer.get("s")
    if set(outer) != {"t", "b", "s"} or outer["t"] != "sig":
        raise MessageRefused("not a signed node message")
    if not isinstance(body, bytes) or not isinstance(signature, bytes) or len(body) > MAX_BODY:
        raise MessageRefused("a signed message needs a body of at most 1024 bytes and a signature")
    if not verify_sealed(author, table_id, body, signature):
        raise MessageRefused("bad signature (not by that seat, for this table, or altered)")
    try:
        payload = decode(body)
    except WireError as exc:
        raise MessageRefused(str(exc)) from None
    kind = payload["t"]
    if kind not in _FIELDS or set(payload) != _FIELDS[kind]:
        raise MessageRefused(f"unexpected message kind or fields: {sorted(payload)}")
    if payload["v"] != VERSION or isinstance(payload["v"], bool):
        raise MessageRefused(f"unsupported version {payload['v']!r}")
    if _bytes(payload, "a", 32) != author:
        raise MessageRefused("the message names another author")
    if _bytes(payload, "to", 32) != me:
        raise MessageRefused("the message is for another seat")
    nonce = _bytes(payload, "n", NONCE_SIZE)
    if kind == "punch":
        return PunchGo(author, nonce)
    at = payload["at"]
    if not isinstance(at, int) or isinstance(at, bool) or abs(now_ms - at) > CANDIDATE_MAX_AGE_MS:
        raise MessageRefused("stale or future candidate offer")
    raw = payload["c"]
    if not isinstance(raw, list) or len(raw) > MAX_CANDIDATES:
        raise MessageRefused(f"candidates must be a list of at most {MAX_CANDIDATES}")
    candidates: list[Candidate] = []
    for entry in raw:
        if (
            not isinstance(entry, list)
            or len(entry) != 3
            or not isinstance(entry[0], str)
            or not isinstance(entry[1], str)
            or not isinstance(entry[2], int)
            or isinstance(entry[2], bool)
        ):
            raise MessageRefused("a candidate is [kind, address, port]")
        try:
            candidate = Candidate(entry[0], entry[1], entry[2])
        except ValueError as exc:
            raise MessageRefused(f"bad candidate: {exc}") from None
        if candidate.is_loopback and not allow_loopback:
            # Another seat must not make us dial services on our own machine.
            raise MessageRefused(f"loopback candidate {candidate} refused")
        if candidate not in candidates:
            candidates.append(candidate)
    return CandidateOffer(author, tuple(candidates), at, nonce)
