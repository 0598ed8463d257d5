"""Unit tests of the node pieces (fast) and the local game entry point for `dealerless play`."""

from __future__ import annotations

import secrets
import sys

import pytest
import trio

from dealerless.client.bots.driver import BotDriver
from dealerless.node.hub import Hub
from dealerless.node.identity import Identity
from dealerless.node.links import LinkError, open_local
from dealerless.node.local_game import run_local_game
from dealerless.node.wire import Invite, InviteError, decode, parse_address
from dealerless.protocol.rules.registry import make_config


def test_invite_round_trip_and_errors() -> None:
    key = Identity.generate().public_key
    invite = Invite("127.0.0.1", 4242, secrets.token_bytes(16), key, game="belote", seats=4)
    code = invite.encode()
    assert code.startswith("dl1:") and "\n" not in code
    assert Invite.decode(code) == invite
    assert Invite.decode("  " + code[:20] + "\n" + code[20:]) == invite  # pasted with breaks
    relayed = Invite("relay.example", 7787, invite.table_id, key, relay=True)
    assert Invite.decode(relayed.encode()).relay
    pinned = Invite("r", 1, invite.table_id, key, relay=True, relay_fingerprint="A" * 24)
    assert Invite.decode(pinned.encode()).relay_fingerprint == "A" * 24
    with pytest.raises(InviteError, match="starts with"):
        Invite.decode("xx" + code)
    with pytest.raises(InviteError, match="damaged"):
        Invite.decode(code[:-3] + ("A" if code[-3] != "A" else "B") + code[-2:])
    with pytest.raises(InviteError):
        Invite.decode("dl1:!!!")


def test_parse_address() -> None:
    assert parse_address("127.0.0.1:80") == ("127.0.0.1", 80)
    assert parse_address("[::1]:80") == ("::1", 80)
    with pytest.raises(ValueError, match="port"):
        parse_address("host:http")


def test_hub_forwards_within_a_table_only() -> None:
    async def main() -> None:
        hub = Hub()
        t1, t2 = secrets.token_bytes(16), secrets.token_bytes(16)
        a, b, c = (Identity.generate().public_key for _ in range(3))
        with pytest.raises(LinkError, match="no such table"):
            await open_local(hub, b, t1, None)
        la, _ = await open_local(hub, a, t1, 2)
        lb, joined = await open_local(hub, b, t1, None)
        assert joined["members"] == [a, b]
        assert (await la.receive())["t"] == "peer"
        lc, _ = await open_local(hub, c, t2, 2)  # another table
        with pytest.raises(LinkError, match="full"):
            await open_local(hub, c, t1, None)
        await lb.send({"t": "send", "data": b"hello"})
        got = await la.receive()
        assert got == {"t": "msg", "from": b, "data": b"hello"}
        with trio.move_on_after(0.05) as scope:
            await lc.receive()
        assert scope.cancelled_caught
        await lb.aclose()
        assert (await la.receive()) == {"t": "peer", "key": b, "up": False}

    trio.run(main)


def test_decode_refuses_junk() -> None:
    with pytest.raises(ValueError):
        decode(b"\xc1")
    with pytest.raises(ValueError):
        decode(b"\x90")


def test_run_local_game_with_bot_processes() -> None:
    lines: list[str] = []
    code = run_local_game(
        make_config("limit-tuppen", 2, {"hands": 2}),
        1,
        BotDriver(),
        cli=[sys.executable, "-m", "dealerless"],
        say=lines.append,
    )
    assert code == 0, "\n".join(lines)
    assert any("verified by replay" in line for line in lines)
