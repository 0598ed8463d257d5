"""The invite code (format 3), the join proof and the signed node messages: round trips, and
every field tampered with is refused (negative tests for every check)."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import itertools
import secrets

import msgpack
import pytest

from dealerless.node.identity import Identity
from dealerless.node.invite import (
    _CHECK_LABEL,
    INVITE_PREFIX,
    Invite,
    InviteError,
    host_pin,
    table_binding,
    terms_digest,
)
from dealerless.node.join_handshake import config_problem
from dealerless.node.nostr.defaults import (
    CANDIDATES,
    DEFAULT_RELAYS,
    DEFAULT_SET,
    RETIRED,
    relays_from_wire,
)
from dealerless.node.wire import WireError, frame_author, seal, unseal, verify_sealed
from dealerless.protocol.rules.base import ConfigError
from dealerless.protocol.rules.registry import game_names, make_config
from dealerless.protocol.table import SeatInfo, TableConfig

HOST = Identity.generate()
GAME = make_config("limit-tuppen", 4, {})


def _invite(**kw: object) -> Invite:
    args: dict[str, object] = {"direct": (("192.168.1.10", 54321),)}
    args.update(kw)
    return Invite.create(HOST.public_key, GAME, 60_000, **args)  # type: ignore[arg-type]


def _reencode(body: bytes) -> str:
    raw = body + hashlib.sha256(_CHECK_LABEL + body).digest()[:3]
    return INVITE_PREFIX + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _body(code: str) -> bytes:
    text = code[len(INVITE_PREFIX) :]
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))[:-3]


def test_round_trip_and_the_default_code_fits_one_line() -> None:
    invite = _invite()
    code = invite.encode()
    assert len(code) <= 80 and code.startswith("dl3:")
    assert Invite.decode(code) == invite
    assert Invite.decode("  " + code[:20] + "\n" + code[20:]) == invite  # pasted with breaks
    assert len(invite.token) == 16 and invite.token not in code.encode()
    assert invite.is_host(HOST.public_key)
    assert not invite.is_host(Identity.generate().public_key)
    assert invite.game_config() == GAME and invite.step_timeout_ms == 60_000


LAN_ADDRESSES = ["192.168.1.10", "10.0.0.138", "172.16.254.254", "255.255.255.255"]


@pytest.mark.parametrize("game", game_names())
def test_the_default_code_fits_one_80_column_line_for_every_game_and_seat_count(
    game: str,
) -> None:
    """The default: `host` with the shipped Nostr relays plus a LAN listener, 120 s a step
    (the settings' default): 74 characters, so even quoted it has a line of its own; 60 s a
    step costs 3 more. The shipped relays are the default set or the three the host chose by
    asking (the last three candidates: the largest bit set, one byte more)."""
    counted = 0
    for seats in range(2, 9):
        try:
            rules = make_config(game, seats, {})
        except ConfigError:  # this game is not played by that many
            continue
        for address, step_ms, relays in itertools.product(
            LAN_ADDRESSES, (120_000, 60_000), (DEFAULT_SET, CANDIDATES[-3:])
        ):
            invite = Invite.create(HOST.public_key, rules, step_ms, direct=((address, 65535),))
            invite = dataclasses.replace(invite, nostr=relays)
            code = invite.encode()
            assert len(code) <= (76 if step_ms == 120_000 else 80), (game, seats, code)
            assert Invite.decode(code) == invite
            counted += 1
    assert counted


OLD_DEFAULTS = (
    "wss://relay.damus.io",
    "wss://nos.lol",
    "wss://relay.primal.net",
    "wss://relay.nostr.band",
    "wss://nostr.mom",
)
# Made before the candidates were appended (tuppen, 4 seats, the five shipped relays then).
OLD_CODE = "dl3:A6fICmh5d8-IgxwHL2IybT52CtaBjgOMpBxV9ytsWSW1AQSCoWTEBsCoAQrUMaFxH2EDcQ"


def test_the_shipped_relays_only_grow_and_old_codes_keep_their_relays() -> None:
    assert DEFAULT_RELAYS[: len(OLD_DEFAULTS)] == OLD_DEFAULTS  # append only: indexes hold
    assert len(DEFAULT_RELAYS) <= 8 and len(set(DEFAULT_RELAYS)) == len(DEFAULT_RELAYS)
    assert Invite.decode(OLD_CODE).nostr == OLD_DEFAULTS
    assert relays_from_wire(0b11111) == OLD_DEFAULTS
    assert {"wss://relay.nostr.band"} == RETIRED and RETIRED.issubset(DEFAULT_RELAYS)
    assert not RETIRED & {*CANDIDATES, *DEFAULT_SET}
    assert set(DEFAULT_SET) <= set(CANDIDATES) and len(CANDIDATES) > len(DEFAULT_SET)
    assert DEFAULT_SET == ("wss://relay.damus.io", "wss://nos.lol", "wss://relay.primal.net",
                           "wss://nostr.mom")  # fmt: skip


def test_the_game_and_seats_are_in_the_fixed_head() -> None:
    """Format 3: byte 33 the game's code (0: by name in "g"), byte 34 the seat count; a 120 s
    step timeout is not written."""
    body = _body(Invite.create(HOST.public_key, GAME, 120_000, direct=_invite().direct).encode())
    assert body[0] == 3 and body[33] == 2 and body[34] == 4
    assert set(msgpack.unpackb(body[35:])) == {"d"}
    assert set(msgpack.unpackb(_body(_invite().encode())[35:])) == {"d", "w"}
    shorter = Invite.create(HOST.public_key, GAME, 30_000)
    assert msgpack.unpackb(_body(shorter.encode())[35:]) == {"w": 30}
    assert Invite.decode(shorter.encode()).step_timeout_ms == 30_000


def test_ways_in_and_options_survive() -> None:
    rules = make_config("limit-tuppen", 4, {"hands": 3})
    relayed = Invite.create(
        HOST.public_key,
        rules,
        2500,
        relay=("relay.example", 7787),
        relay_fingerprint=Identity.generate().fingerprint,
    )
    back = Invite.decode(relayed.encode())
    assert back == relayed and back.options == {"hands": 3} and back.step_timeout_ms == 2500
    v6 = _invite(direct=(("::1", 9), ("10.0.0.1", 80)))
    assert Invite.decode(v6.encode()).direct == (("::1", 9), ("10.0.0.1", 80))


def test_unknown_fields_are_kept_for_later_versions() -> None:
    body = _body(_invite().encode())
    fields = msgpack.unpackb(body[35:])
    fields["x"] = ["wss://relay.example"]  # e.g. a transport a later version adds
    code = _reencode(body[:35] + msgpack.packb(fields))
    back = Invite.decode(code)
    assert back.extra == {"x": ["wss://relay.example"]}
    assert Invite.decode(back.encode()) == back


def test_the_table_id_is_derived_and_bound_to_the_host() -> None:
    invite = _invite()
    assert invite.table_id == table_binding(host_pin(HOST.public_key, invite.terms), invite.salt)
    assert invite.salt != invite.token[: len(invite.salt)]
    other = _invite()
    assert other.table_id != invite.table_id  # a fresh token: a fresh table
    # The id binds the key: another key with the same salt and terms gives another id.
    stranger = Identity.generate().public_key
    assert table_binding(host_pin(stranger, invite.terms), invite.salt) != invite.table_id


def test_damage_and_tampering_are_refused() -> None:
    code = _invite().encode()
    with pytest.raises(InviteError, match="starts with"):
        Invite.decode("xx" + code)
    with pytest.raises(InviteError, match="old invite code"):
        Invite.decode("dl1:AAAA")
    with pytest.raises(InviteError, match="older dealerless"):
        Invite.decode("dl2:AAAA")
    with pytest.raises(InviteError, match="newer dealerless"):
        Invite.decode("dl4:" + code[4:])
    with pytest.raises(InviteError, match="characters"):
        Invite.decode("dl3:!!!")
    for position in range(len(INVITE_PREFIX), len(code)):
        changed = code[:position] + ("A" if code[position] != "A" else "B") + code[position + 1 :]
        with pytest.raises(InviteError):
            Invite.decode(changed)
    with pytest.raises(InviteError, match="at most"):
        Invite.decode("dl3:" + "A" * 5000)
    for cut in (1, 2, 5, 20):  # a code cut short when copied
        with pytest.raises(InviteError, match="damaged"):
            Invite.decode(code[:-cut])


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("g", 5, "twice"),
        ("w", "sixty", "step timeout"),
        ("w", True, "step timeout"),
        ("m", 10, "out of range"),
        ("m", None, "two step timeouts"),
        ("o", {"hands": "many"}, "cannot play"),
        ("o", [1], "bad options"),
        ("d", b"\x01\x02", "bad address"),
        ("d", b"\x7f\x00\x00\x01\x00\x00", "bad port"),
        ("r", [b"\x7f\x00\x00\x01\x00\x50", b"short"], "relay fingerprint"),
        ("r", "relay", "relay entry"),
        ("q", 1 << 20, "Nostr relay list"),
    ],
)
def test_each_field_is_checked(field: str, value: object, message: str) -> None:
    body = _body(_invite().encode())
    fields = msgpack.unpackb(body[35:])
    if field == "m" and value is None:
        fields.update(w=60, m=60_000)
    else:
        fields.pop("w" if field == "m" else "", None)
        fields[field] = value
    with pytest.raises(InviteError, match=message):
        Invite.decode(_reencode(body[:35] + msgpack.packb(fields)))


@pytest.mark.parametrize(
    ("game", "seats", "message"),
    [(99, 4, "no game"), (0, 4, "no game"), (2, 0, "seat count"), (2, 9, "cannot play")],
)
def test_the_head_is_checked(game: int, seats: int, message: str) -> None:
    body = _body(_invite().encode())
    with pytest.raises(InviteError, match=message):
        Invite.decode(_reencode(body[:33] + bytes([game, seats]) + body[35:]))
    with pytest.raises(InviteError, match="format"):
        Invite.decode(_reencode(b"\x02" + body[1:]))


def test_a_game_without_a_code_goes_by_name() -> None:
    invite = dataclasses.replace(_invite(), game="limit-tuppen")
    body = _body(invite.encode())
    named = _reencode(body[:33] + bytes([0, 4]) + msgpack.packb({"g": "limit-tuppen"}))
    back = Invite.decode(named)
    assert back.game == "limit-tuppen" and back.direct == () and back.seats == 4
    chess = _reencode(body[:33] + bytes([0, 4]) + msgpack.packb({"g": "chess"}))
    with pytest.raises(InviteError, match="cannot play"):
        Invite.decode(chess)


def test_the_join_proof_binds_token_joiner_table_and_host() -> None:
    invite = _invite()
    joiner, other = Identity.generate().public_key, Identity.generate().public_key
    proof = invite.proof(joiner, HOST.public_key)
    assert invite.proof_ok(proof, joiner, HOST.public_key)
    assert not invite.proof_ok(proof, other, HOST.public_key)  # replayed by another key
    assert not invite.proof_ok(proof, joiner, other)  # made for another host
    assert not invite.proof_ok(proof[:-1] + bytes([proof[-1] ^ 1]), joiner, HOST.public_key)
    assert not invite.proof_ok(b"", joiner, HOST.public_key)
    assert not invite.proof_ok(None, joiner, HOST.public_key)
    wrong_token = dataclasses.replace(invite, token=secrets.token_bytes(16))
    assert not invite.proof_ok(wrong_token.proof(joiner, HOST.public_key), joiner, HOST.public_key)


def test_signed_node_messages_refuse_every_change() -> None:
    table = _invite().table_id
    sealed = seal(HOST, table, {"t": "lobby", "names": ["a"], "keys": [b"k"], "need": 1})
    payload, body, signature = unseal(sealed)
    assert payload["t"] == "lobby" and verify_sealed(HOST.public_key, table, body, signature)
    assert not verify_sealed(Identity.generate().public_key, table, body, signature)  # `from`
    assert not verify_sealed(HOST.public_key, bytes(16), body, signature)  # another table
    flipped = body[:-1] + bytes([body[-1] ^ 1])
    assert not verify_sealed(HOST.public_key, table, flipped, signature)
    bad = signature[:-1] + bytes([signature[-1] ^ 1])
    assert not verify_sealed(HOST.public_key, table, body, bad)
    assert not verify_sealed(b"short", table, body, signature)
    with pytest.raises(WireError, match="not a signed"):
        unseal(seal(HOST, table, {"t": "f", "f": b""}))
    with pytest.raises(WireError, match="body and a signature"):
        unseal({"t": "sig", "b": body})


def test_frame_author_reads_the_claimed_key_without_verifying() -> None:
    key = Identity.generate().public_key
    packed = msgpack.packb([1, bytes(16), 0, 0, bytes(32), 0, key, "x", {}])
    assert frame_author(packed + bytes(64)) == key
    assert frame_author(b"\x01" * 70) is None
    assert frame_author(msgpack.packb([1, 2]) + bytes(64)) is None
    assert frame_author(b"") is None


def _config(invite: Invite, **kw: object) -> TableConfig:
    seats = tuple(
        SeatInfo(f"s{i}", HOST.public_key if i == 0 else Identity.generate().public_key)
        for i in range(4)
    )
    args: dict[str, object] = {
        "table_id": invite.table_id,
        "game": GAME,
        "seats": seats,
        "step_timeout_ms": invite.step_timeout_ms,
    }
    args.update(kw)
    return TableConfig(**args)  # type: ignore[arg-type]


def test_a_joiner_refuses_a_configuration_the_invite_does_not_name() -> None:
    invite = _invite()
    key = HOST.public_key
    assert config_problem(_config(invite), invite, key, 10_000) == ""
    changed = {
        "table": _config(invite, table_id=bytes(16)),
        "game": _config(invite, game=make_config("pottuppen", 4, {})),
        "rules": _config(invite, game=make_config("limit-tuppen", 4, {"hands": 2})),
        "timeout": _config(invite, step_timeout_ms=100),
    }
    for what, config in changed.items():
        assert config_problem(config, invite, key, 10_000), what
    assert "seat 0" in config_problem(_config(invite), invite, Identity.generate().public_key, 0)
    short = Invite.create(key, GAME, 2000, direct=(("127.0.0.1", 1),))
    assert "floor" in config_problem(_config(short), short, key, 10_000)
    assert config_problem(_config(short), short, key, 1000) == ""


def test_terms_digest_covers_every_term() -> None:
    base = terms_digest(GAME, 60_000)
    assert terms_digest(GAME, 60_001) != base
    assert terms_digest(make_config("limit-tuppen", 3, {}), 60_000) != base
    assert terms_digest(make_config("limit-tuppen", 4, {"hands": 2}), 60_000) != base


def test_a_code_copied_with_its_quotes_decodes() -> None:
    invite = _invite()
    code = invite.encode()
    assert Invite.decode(f"'{code}'") == invite and Invite.decode(f'"{code}"') == invite
    with pytest.raises(InviteError, match="starts with"):
        Invite.decode(f"'{code}")
