"""The invite code (format 2), the join proof and the signed node messages: round trips, and
every field tampered with is refused (negative tests for every check)."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
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
from dealerless.node.wire import WireError, frame_author, seal, unseal, verify_sealed
from dealerless.protocol.rules.registry import make_config
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
    assert len(code) <= 80 and code.startswith("dl2:")
    assert Invite.decode(code) == invite
    assert Invite.decode("  " + code[:20] + "\n" + code[20:]) == invite  # pasted with breaks
    assert len(invite.token) == 16 and invite.token not in code.encode()
    assert invite.is_host(HOST.public_key)
    assert not invite.is_host(Identity.generate().public_key)
    assert invite.game_config() == GAME and invite.step_timeout_ms == 60_000


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
    fields = msgpack.unpackb(body[33:])
    fields["x"] = ["wss://relay.example"]  # e.g. a transport a later version adds
    code = _reencode(body[:33] + msgpack.packb(fields))
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
    with pytest.raises(InviteError, match="characters"):
        Invite.decode("dl2:!!!")
    for position in range(len(INVITE_PREFIX), len(code)):
        changed = code[:position] + ("A" if code[position] != "A" else "B") + code[position + 1 :]
        with pytest.raises(InviteError):
            Invite.decode(changed)
    with pytest.raises(InviteError, match="at most"):
        Invite.decode("dl2:" + "A" * 5000)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("g", 99, "no game"),
        ("g", "chess", "cannot play"),
        ("n", "four", "seat count"),
        ("n", 9, "cannot play"),
        ("w", None, "step timeout"),
        ("m", 10, "out of range"),
        ("o", {"hands": "many"}, "cannot play"),
        ("o", [1], "bad options"),
        ("d", b"\x01\x02", "bad address"),
        ("d", b"\x7f\x00\x00\x01\x00\x00", "bad port"),
        ("r", [b"\x7f\x00\x00\x01\x00\x50", b"short"], "relay fingerprint"),
        ("r", "relay", "relay entry"),
    ],
)
def test_each_field_is_checked(field: str, value: object, message: str) -> None:
    body = _body(_invite().encode())
    fields = msgpack.unpackb(body[33:])
    fields.pop("w")
    if field != "w":
        fields["w"] = 60
    if value is not None:
        fields[field] = value
    if field == "m":
        fields.pop("w")
    with pytest.raises(InviteError, match=message):
        Invite.decode(_reencode(body[:33] + msgpack.packb(fields)))
    with pytest.raises(InviteError, match="format"):
        Invite.decode(_reencode(b"\x03" + body[1:]))


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
