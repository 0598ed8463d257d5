"""The invite code (format 3): whose table, the terms a joiner agrees to, the secret join token
and the ways in. Layout and derivations: spec/node.md §4.

A code holds no table id and no host key: both are derived. The table id (in every frame, seen
by every hub) comes from the token through a one-way hash, so knowing it tells nothing about
the token; the host key is named by a 128-bit pin that also commits to the terms, so a host
key that a hub or an address hands the joiner is checked before anything is signed.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import msgpack

from dealerless.node.identity import parse_fingerprint
from dealerless.node.nostr.defaults import relays_from_wire, relays_to_wire
from dealerless.protocol.rules.base import ConfigError, GameConfig, OptionValue
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table.config import MAX_STEP_TIMEOUT_MS, MIN_STEP_TIMEOUT_MS
from dealerless.protocol.wire.codec import pack

__all__ = [
    "INVITE_PREFIX",
    "TOKEN_BYTES",
    "Invite",
    "InviteError",
    "join_proof",
    "table_binding",
    "terms_digest",
]

INVITE_PREFIX = "dl3:"
FORMAT = 3
TOKEN_BYTES = 16
PIN_BYTES = 16
CHECK_BYTES = 3
# A code without a step timeout means this one: the settings file's default time per move
# (client/config.py), what `dealerless host` and the start screen use unless told otherwise.
IMPLIED_STEP_TIMEOUT_MS = 120_000
MAX_CODE = 2048  # characters; a longer paste is refused before it is decoded
# One-byte codes keep the default code on one 80-column line; an unlisted game goes by name
# (game byte 0 and the name in field "g").
GAME_CODES = {"tuppen": 1, "limit-tuppen": 2, "no-limit-tuppen": 3, "pot-limit-tuppen": 4,
              "pottuppen": 5, "belote": 6}  # fmt: skip
GAME_NAMES = {code: name for name, code in GAME_CODES.items()}

_PIN_LABEL = b"dealerless/invite/v2/pin\x00"
_TERMS_LABEL = b"dealerless/invite/v2/terms\x00"
_SALT_LABEL = b"dealerless/invite/v2/salt\x00"
_TABLE_LABEL = b"dealerless/invite/v2/table\x00"
_CHECK_LABEL = b"dealerless/invite/v2/check\x00"
_PROOF_LABEL = b"dealerless/join/v2\x00"
_REMATCH_LABEL = b"dealerless/invite/v2/rematch\x00"
_DAMAGED = "the invite code is damaged or cut short (checksum mismatch): copy all of it again"


class InviteError(ValueError):
    """An invite code that cannot be used; the message says why."""


def _h(label: bytes, *parts: bytes) -> bytes:
    return hashlib.sha256(label + b"".join(parts)).digest()


def terms_digest(game: GameConfig, step_timeout_ms: int) -> bytes:
    """The terms a joiner agrees to: game, seats, every option (defaults filled in), step
    timeout, as canonical msgpack (spec/messages.md), hashed."""
    terms = {"game": game.to_wire(), "step_timeout_ms": step_timeout_ms}
    return _h(_TERMS_LABEL, pack(terms))[:PIN_BYTES]


def host_pin(host_key: bytes, terms: bytes) -> bytes:
    return _h(_PIN_LABEL, host_key, terms)[:PIN_BYTES]


def table_binding(pin: bytes, salt: bytes) -> bytes:
    """The table id: what a hub checks an ``open`` against (only the pinned host opens it)."""
    return _h(_TABLE_LABEL, pin, salt)[:16]


def join_proof(token: bytes, joiner_key: bytes, table_id: bytes, host_key: bytes) -> bytes:
    """What a joiner sends instead of the token: useless to anyone who reads it, since it is
    bound to the joiner's key (the hub authenticated) and to the host it is sent to."""
    message = _PROOF_LABEL + joiner_key + table_id + host_key
    return hmac.new(token, message, hashlib.sha256).digest()


def _pack_address(host: str, port: int) -> bytes | str:
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return f"{host}:{port}"
    return ip.packed + port.to_bytes(2, "big")


def _unpack_address(value: object) -> tuple[str, int]:
    if isinstance(value, bytes) and len(value) in (6, 18):
        host = str(ipaddress.ip_address(value[:-2]))
        port = int.from_bytes(value[-2:], "big")
    elif isinstance(value, str) and len(value) <= 255:
        from dealerless.node.wire import parse_address

        host, port = parse_address(value)
    else:
        raise InviteError("the invite code holds a bad address")
    if not 0 < port < 65536:
        raise InviteError("the invite code holds a bad port")
    return host, port


@dataclass(frozen=True)
class Invite:
    """What a joiner needs. ``token`` is secret: whoever has it may take a free seat."""

    token: bytes
    pin: bytes
    game: str
    seats: int
    step_timeout_ms: int
    options: Mapping[str, OptionValue] = field(default_factory=dict)  # only non-default ones
    direct: tuple[tuple[str, int], ...] = ()
    relay: tuple[str, int] | None = None
    relay_fingerprint: str = ""  # pins the relay's link; empty: trust on first use
    nostr: tuple[str, ...] = ()  # Nostr relays; the table's tag and key derive from the token
    extra: Mapping[str, Any] = field(default_factory=dict)  # fields of later versions, kept

    # ---------------------------------------------------------------- building
    @staticmethod
    def create(
        host_key: bytes,
        game: GameConfig,
        step_timeout_ms: int,
        *,
        direct: tuple[tuple[str, int], ...] = (),
        relay: tuple[str, int] | None = None,
        relay_fingerprint: str = "",
        token: bytes | None = None,
    ) -> Invite:
        defaults = make_config(game.game, game.players, {}).options
        changed = {k: v for k, v in sorted(game.options.items()) if defaults.get(k) != v}
        return Invite(
            token=token if token is not None else secrets.token_bytes(TOKEN_BYTES),
            pin=host_pin(host_key, terms_digest(game, step_timeout_ms)),
            game=game.game,
            seats=game.players,
            step_timeout_ms=step_timeout_ms,
            options=changed,
            direct=direct,
            relay=relay,
            relay_fingerprint=relay_fingerprint,
        )

    def rematch(self) -> Invite:
        """The invite of this table's rematch: the same host, terms and ways in, and a token
        that only holders of this one can derive. Each player who chooses a rematch derives it
        alone, so no new code has to travel: the host hosts it, the others join it
        (spec/node.md §4)."""
        return replace(self, token=_h(_REMATCH_LABEL, self.token)[:TOKEN_BYTES])

    # ---------------------------------------------------------------- derived values
    @property
    def salt(self) -> bytes:
        return _h(_SALT_LABEL, self.token)[:16]

    @property
    def table_id(self) -> bytes:
        return table_binding(self.pin, self.salt)

    def game_config(self) -> GameConfig:
        """The game the joiner agrees to (ConfigError if this code's options are not valid)."""
        return make_config(self.game, self.seats, dict(self.options))

    @property
    def terms(self) -> bytes:
        return terms_digest(self.game_config(), self.step_timeout_ms)

    def is_host(self, key: bytes) -> bool:
        """Is ``key`` the host this invite names? (Constant time; the pin commits the terms.)"""
        return hmac.compare_digest(host_pin(key, self.terms), self.pin)

    def proof(self, joiner_key: bytes, host_key: bytes) -> bytes:
        return join_proof(self.token, joiner_key, self.table_id, host_key)

    def proof_ok(self, proof: object, joiner_key: bytes, host_key: bytes) -> bool:
        if not isinstance(proof, bytes):
            return False
        return hmac.compare_digest(proof, self.proof(joiner_key, host_key))

    @property
    def address(self) -> str:
        return self.relay[0] if self.relay else (self.direct[0][0] if self.direct else "")

    @property
    def port(self) -> int:
        return self.relay[1] if self.relay else (self.direct[0][1] if self.direct else 0)

    def describe(self) -> str:
        """One line a person can check: the game, seats, step timeout and changed options."""
        rules = ", ".join(f"{k}={v}" for k, v in self.options.items())
        seconds = self.step_timeout_ms / 1000
        return f"{self.game}, {self.seats} seats, {seconds:g} s per step" + (
            f", rules {rules}" if rules else ""
        )

    # ---------------------------------------------------------------- the code
    def encode(self) -> str:
        fields: dict[str, Any] = dict(self.extra)
        game_code = GAME_CODES.get(self.game, 0)
        if not game_code:
            fields["g"] = self.game
        if self.step_timeout_ms == IMPLIED_STEP_TIMEOUT_MS:
            pass  # implied: the default code stays on one line
        elif self.step_timeout_ms % 1000 == 0:
            fields["w"] = self.step_timeout_ms // 1000
        else:
            fields["m"] = self.step_timeout_ms
        if self.options:
            fields["o"] = dict(self.options)
        if self.direct:
            packed = [_pack_address(h, p) for h, p in self.direct]
            fields["d"] = packed[0] if len(packed) == 1 else packed
        if self.relay is not None:
            pin = parse_fingerprint(self.relay_fingerprint) if self.relay_fingerprint else b""
            fields["r"] = [_pack_address(*self.relay), pin]
        if self.nostr:
            fields["q"] = relays_to_wire(self.nostr)
        if not 0 < self.seats < 256:
            raise InviteError(f"an invite holds 1 to 255 seats, not {self.seats}")
        head = bytes([FORMAT]) + self.token + self.pin + bytes([game_code, self.seats])
        body = head + msgpack.packb(fields, use_bin_type=True)
        raw = body + _h(_CHECK_LABEL, body)[:CHECK_BYTES]
        return INVITE_PREFIX + base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")

    @staticmethod
    def decode(code: str) -> Invite:
        code = "".join(code.split())
        if len(code) > 1 and code[0] == code[-1] and code[0] in "'\"":
            code = code[1:-1]  # copied with the quotes the lobby shows it in
        if len(code) > MAX_CODE:
            raise InviteError(f"an invite code is at most {MAX_CODE} characters")
        if code.startswith("dl1:"):
            raise InviteError(
                "this is an old invite code (dl1:) without a join token; ask the host for a new one"
            )
        if code.startswith("dl2:"):
            raise InviteError(
                "this invite code (dl2:) was made by an older dealerless; ask the host to update"
                " and send a new one"
            )
        newer = re.fullmatch(r"dl([0-9]+):.*", code[:12], re.DOTALL)
        if newer and int(newer.group(1)) > FORMAT:
            raise InviteError(
                f"this invite code (dl{newer.group(1)}:) was made by a newer dealerless;"
                " update this one to join"
            )
        if not code.startswith(INVITE_PREFIX):
            raise InviteError(f"an invite code starts with {INVITE_PREFIX!r}")
        text = code[len(INVITE_PREFIX) :]
        if len(text) % 4 == 1:  # no base64 text has this length: the code was cut short
            raise InviteError(_DAMAGED)
        try:
            padded = text + "=" * (-len(text) % 4)
            raw = base64.b64decode(padded, altchars=b"-_", validate=True)
        except (ValueError, TypeError):
            raise InviteError("the invite code has characters that do not belong in it") from None
        if base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=") != text:
            # the last character's unused bits are not zero: not a code this program wrote
            raise InviteError(_DAMAGED)
        fixed = 1 + TOKEN_BYTES + PIN_BYTES + 2  # format, token, pin, game, seats
        body, check = raw[:-CHECK_BYTES], raw[-CHECK_BYTES:]
        if len(raw) < fixed + CHECK_BYTES or _h(_CHECK_LABEL, body)[:CHECK_BYTES] != check:
            raise InviteError(_DAMAGED)
        if body[0] != FORMAT:
            raise InviteError(f"invite format {body[0]} is not supported by this version")
        try:
            fields = msgpack.unpackb(body[fixed:], raw=False, strict_map_key=True)
        except Exception as exc:  # msgpack raises a family of unrelated exceptions
            raise InviteError(f"the invite code does not hold a valid invite ({exc})") from None
        if not isinstance(fields, dict):
            raise InviteError("the invite code does not hold a valid invite (not a map)")
        token, pin = body[1 : 1 + TOKEN_BYTES], body[1 + TOKEN_BYTES : 1 + TOKEN_BYTES + PIN_BYTES]
        return _from_fields(token, pin, body[fixed - 2], body[fixed - 1], fields)


_KNOWN = {"g", "w", "m", "o", "d", "r", "q"}


def _from_fields(
    token: bytes, pin: bytes, game_code: int, seats: int, fields: dict[str, Any]
) -> Invite:
    game = GAME_NAMES.get(game_code) if game_code else fields.get("g")
    if not isinstance(game, str) or (not game_code and "g" not in fields):
        raise InviteError("the invite code names no game this version knows")
    if game_code and "g" in fields:
        raise InviteError("the invite code names its game twice")
    if not seats:
        raise InviteError("the invite code holds no seat count")
    if "w" in fields and "m" in fields:
        raise InviteError("the invite code holds two step timeouts")
    ms = fields.get("m", IMPLIED_STEP_TIMEOUT_MS)
    if "w" in fields:
        whole = fields["w"]
        ms = whole * 1000 if isinstance(whole, int) and not isinstance(whole, bool) else None
    if not isinstance(ms, int) or isinstance(ms, bool):
        raise InviteError("the invite code holds a bad step timeout")
    if not MIN_STEP_TIMEOUT_MS <= ms <= MAX_STEP_TIMEOUT_MS:
        raise InviteError("the invite code holds a step timeout out of range")
    options = fields.get("o", {})
    if not isinstance(options, dict) or not all(isinstance(k, str) for k in options):
        raise InviteError("the invite code holds bad options")
    raw_direct = fields.get("d", [])
    direct = tuple(_unpack_address(a) for a in (raw_direct if isinstance(raw_direct, list)
                                                 else [raw_direct]))  # fmt: skip
    relay, relay_fp = None, ""
    if "r" in fields:
        entry = fields["r"]
        if not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[1], bytes):
            raise InviteError("the invite code holds a bad relay entry")
        relay = _unpack_address(entry[0])
        if entry[1]:
            if len(entry[1]) != 15:
                raise InviteError("the invite code holds a bad relay fingerprint")
            relay_fp = format_fingerprint_raw(entry[1])
    try:
        nostr = relays_from_wire(fields.get("q", []))
    except ValueError as exc:
        raise InviteError(f"the invite code holds a bad Nostr relay list: {exc}") from None
    invite = Invite(
        token=token,
        pin=pin,
        game=game,
        seats=seats,
        step_timeout_ms=ms,
        options=options,
        direct=direct,
        relay=relay,
        relay_fingerprint=relay_fp,
        nostr=nostr,
        extra={k: v for k, v in fields.items() if k not in _KNOWN},
    )
    try:
        invite.game_config()
    except ConfigError as exc:
        raise InviteError(f"the invite code holds a game this version cannot play: {exc}") from None
    return invite


def format_fingerprint_raw(digest15: bytes) -> str:
    text = base64.b32encode(digest15).decode("ascii")
    return "-".join(text[i : i + 4] for i in range(0, len(text), 4))
