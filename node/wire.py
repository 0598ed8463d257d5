"""The node's own small messages (hub and seat-to-seat) and the invite code.

Hub messages and seat messages are msgpack maps with a ``"t"`` (type) field; see
spec/node.md for every type. They travel inside the encrypted transport channel; table frames
inside them are the signed messages of the table protocol, verified by the state machine.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import Any

import msgpack

from dealerless.node.identity import PeerId, format_fingerprint, normalize_fingerprint
from dealerless.node.nostr.defaults import DEFAULT_RELAYS, MAX_RELAYS, relay_url_problem

__all__ = [
    "INVITE_PREFIX",
    "Invite",
    "InviteError",
    "WireError",
    "decode",
    "encode",
    "parse_address",
]

INVITE_PREFIX = "dl1:"
MAX_MESSAGE = 1 << 20


class WireError(ValueError):
    """A node message that does not decode."""


class InviteError(ValueError):
    """An invite code that cannot be used; the message says why."""


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


@dataclass(frozen=True)
class Invite:
    """What a joiner needs: where to connect, which table, and whose table it is."""

    address: str
    port: int
    table_id: bytes
    host_key: bytes  # the host's raw Ed25519 public key: the joiner pins it
    relay: bool = False  # the address is a relay, not the host itself
    relay_fingerprint: str = ""  # pins the relay's link, if known
    game: str = ""
    seats: int = 0
    nostr: tuple[str, ...] = ()  # the table's Nostr relays (issue 12)
    secret: bytes = b""  # the table's Nostr tag and key derive from it

    @property
    def host_fingerprint(self) -> str:
        return format_fingerprint(self.host_key)

    def encode(self) -> str:
        data: dict[str, Any] = {
            "a": self.address,
            "p": self.port,
            "t": self.table_id,
            "k": self.host_key,
            "g": self.game,
            "n": self.seats,
        }
        if self.relay:
            data["r"] = self.relay_fingerprint
        if self.nostr:
            data["w"] = relays_to_wire(self.nostr)
            data["s"] = self.secret
        body = encode(data)
        check = hashlib.sha256(body).digest()[:4]
        text = base64.urlsafe_b64encode(body + check).decode("ascii").rstrip("=")
        return INVITE_PREFIX + text

    @staticmethod
    def decode(code: str) -> Invite:
        code = "".join(code.split())
        if not code.startswith(INVITE_PREFIX):
            raise InviteError(f"an invite code starts with {INVITE_PREFIX!r}")
        text = code[len(INVITE_PREFIX) :]
        try:
            raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        except (ValueError, TypeError):
            raise InviteError("the invite code has characters that do not belong in it") from None
        if len(raw) < 5 or hashlib.sha256(raw[:-4]).digest()[:4] != raw[-4:]:
            raise InviteError("the invite code is damaged (checksum mismatch): copy it again")
        try:
            data = decode_plain(raw[:-4])
            invite = Invite(
                address=str(data["a"]),
                port=int(data["p"]),
                table_id=bytes(data["t"]),
                host_key=bytes(data["k"]),
                relay="r" in data,
                relay_fingerprint=str(data.get("r") or ""),
                game=str(data.get("g", "")),
                seats=int(data.get("n", 0)),
                nostr=relays_from_wire(data.get("w", [])),
                secret=bytes(data.get("s", b"")),
            )
        except (KeyError, TypeError, ValueError, WireError) as exc:
            raise InviteError(f"the invite code does not hold a valid invite ({exc})") from None
        if len(invite.table_id) != 16:
            raise InviteError("the invite code holds a bad table id")
        try:
            PeerId(invite.host_key)
            if invite.relay_fingerprint:
                normalize_fingerprint(invite.relay_fingerprint)
        except ValueError as exc:
            raise InviteError(f"the invite code holds a bad key: {exc}") from None
        if invite.address and not 0 < invite.port < 65536:
            raise InviteError("the invite code holds a bad port")
        if not invite.address and not invite.nostr:
            raise InviteError("the invite code holds no way in to the table")
        if invite.nostr and len(invite.secret) < 16:
            raise InviteError("the invite code holds Nostr relays but no table secret")
        return invite


def relays_to_wire(urls: tuple[str, ...]) -> list[int | str]:
    """A default relay as its index in the shipped list (short codes), any other as its URL."""
    return [DEFAULT_RELAYS.index(u) if u in DEFAULT_RELAYS else u for u in urls]


def relays_from_wire(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or len(value) > MAX_RELAYS:
        raise ValueError("bad Nostr relay list")
    urls = []
    for item in value:
        if isinstance(item, int) and not isinstance(item, bool):
            if not 0 <= item < len(DEFAULT_RELAYS):
                raise ValueError(f"no default Nostr relay number {item} (a newer invite?)")
            urls.append(DEFAULT_RELAYS[item])
        elif isinstance(item, str) and not relay_url_problem(item):
            urls.append(item)
        else:
            raise ValueError(f"bad Nostr relay {str(item)[:40]!r}")
    return tuple(urls)


def decode_plain(data: bytes) -> dict[str, Any]:
    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=True)
    except Exception as exc:
        raise WireError(str(exc)) from None
    if not isinstance(value, dict):
        raise WireError("not a map")
    return value
