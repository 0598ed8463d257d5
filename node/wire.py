"""The node's own small messages (hub and seat-to-seat) and how the ones that change what a
seat does are signed.

Hub messages and seat messages are msgpack maps with a ``"t"`` (type) field; see
spec/node.md for every type. They travel inside the encrypted transport channel; table frames
inside them are the signed messages of the table protocol, verified by the state machine. The
invite code is in :mod:`dealerless.node.invite`.
"""

from __future__ import annotations

from typing import Any

import msgpack

from dealerless.node.identity import Identity, PeerId

__all__ = [
    "SIGNED_KINDS",
    "WireError",
    "decode",
    "encode",
    "frame_author",
    "parse_address",
    "seal",
    "unseal",
    "verify_sealed",
]

MAX_MESSAGE = 1 << 20
# Seat messages that change what a seat does: each is signed by its author (spec/node.md §3).
SIGNED_KINDS = frozenset(
    {"hello", "lobby", "refused", "config", "have", "back", "closed", "bye", "cand", "punch"}
)
NODE_SIGNATURE_LABEL = b"dealerless/node/v2\x00"


class WireError(ValueError):
    """A node message that does not decode."""


def seal(identity: Identity, table_id: bytes, payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` as a signed seat message: ``{t: "sig", b: body, s: signature}`` where the
    signature covers the label, the table id and the exact body bytes."""
    body = encode(payload)
    return {"t": "sig", "b": body, "s": identity.sign(NODE_SIGNATURE_LABEL + table_id + body)}


def unseal(message: dict[str, Any]) -> tuple[dict[str, Any], bytes, bytes]:
    """The payload of a signed seat message, its body bytes and its signature (not verified
    yet: the caller first checks that the author may send this kind at all, which is cheap)."""
    body, signature = message.get("b"), message.get("s")
    if not isinstance(body, bytes) or not isinstance(signature, bytes):
        raise WireError("a signed node message needs a body and a signature")
    payload = decode(body)
    if payload["t"] not in SIGNED_KINDS:
        raise WireError(f"{payload['t']!r} is not a signed node message")
    return payload, body, signature


def verify_sealed(author: bytes, table_id: bytes, body: bytes, signature: bytes) -> bool:
    try:
        return PeerId(author).verify(signature, NODE_SIGNATURE_LABEL + table_id + body)
    except ValueError:
        return False


def encode(message: dict[str, Any]) -> bytes:
    data: bytes = msgpack.packb(message, use_bin_type=True)
    return data


def decode(data: bytes) -> dict[str, Any]:
    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=True, use_list=True)
    except Exception as exc:  # msgpack raises a family of unrelated exceptions
        raise WireError(f"undecodable node message: {exc}") from None
    if not isinstance(value, dict) or not isinstance(value.get("t"), str):
        raise WireError("a node message must be a map with a string type 't'")
    return value


def parse_address(text: str, default_port: int | None = None) -> tuple[str, int]:
    """``HOST:PORT`` (``[v6]:PORT`` for IPv6) -> (host, port); ValueError saying what is wrong."""
    text = text.strip()
    if text.startswith("["):
        host, sep, rest = text[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
        if not sep:
            raise ValueError(f"bad address {text!r}: missing ']'")
    else:
        host, sep, port_text = text.rpartition(":")
        if not sep:
            host, port_text = text, ""
    if not port_text:
        if default_port is None:
            raise ValueError(f"bad address {text!r}: expected HOST:PORT")
        return host or "127.0.0.1", default_port
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"bad address {text!r}: port {port_text!r} is not a number") from None
    if not 0 <= port <= 65535:
        raise ValueError(f"bad address {text!r}: port out of range")
    return host or "127.0.0.1", port


def decode_plain(data: bytes) -> dict[str, Any]:
    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=True)
    except Exception as exc:
        raise WireError(str(exc)) from None
    if not isinstance(value, dict):
        raise WireError("not a map")
    return value


def frame_author(frame: bytes) -> bytes | None:
    """The author key a table frame claims (spec/messages.md: element 6 of the packed array
    before the 64-byte signature), read without any curve or signature work, so that frames
    by keys that are not seats can be dropped first; None if the frame is not shaped so."""
    if len(frame) <= 64:
        return None
    try:
        value = msgpack.unpackb(frame[:-64], raw=False, strict_map_key=False, use_list=True)
    except Exception:  # msgpack raises a family of unrelated exceptions
        return None
    if not isinstance(value, list) or len(value) != 9:
        return None
    author = value[6]
    return author if isinstance(author, bytes) and len(author) == 32 else None
