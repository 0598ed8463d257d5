"""Unit tests of the node pieces (fast) and the local game entry point for `dealerless play`."""

from __future__ import annotations

import sys

import pytest
import trio

from dealerless.client.bots.driver import BotDriver
from dealerless.node.hub import Hub
from dealerless.node.identity import Identity
from dealerless.node.invite import Invite
from dealerless.node.links import LinkError, attach_message, open_local
from dealerless.node.local_game import run_local_game
from dealerless.node.notices import english
from dealerless.node.wire import decode, parse_address
from dealerless.protocol.rules.registry import make_config


def test_parse_address() -> None:
    assert parse_address("127.0.0.1:80") == ("127.0.0.1", 80)
    assert parse_address("[::1]:80") == ("::1", 80)
    with pytest.raises(ValueError, match="port"):
        parse_address("host:http")


def _table(host: bytes, seats: int = 2) -> Invite:
    return Invite.create(host, make_config("limit-tuppen", seats, {}), 60_000)


def test_hub_forwards_within_a_table_only() -> None:
    async def main() -> None:
        hub = Hub()
        a, b, c = (Identity.generate().public_key for _ in range(3))
        t1, t2 = _table(a), _table(c)
        with pytest.raises(LinkError, match="no such table"):
            await open_local(hub, b, attach_message(t1, False))
        la, _ = await open_local(hub, a, attach_message(t1, True))
        await la.send({"t": "admit", "keys": [b]})
        lb, joined = await open_local(hub, b, attach_message(t1, False))
        assert joined["members"] == [a, b] and joined["admitted"]
        assert (await la.receive())["t"] == "peer"
        lc, _ = await open_local(hub, c, attach_message(t2, True))  # another table
        # A key the host did not admit waits: it hears nothing of the table.
        stranger, waiting = await open_local(hub, c, {"t": "join", "table": t1.table_id})
        assert waiting["admitted"] is False and waiting["members"] == []
        await lb.send({"t": "send", "data": b"hello"})
        got = await la.receive()
        assert got == {"t": "msg", "from": b, "data": b"hello"}
        for link in (lc, stranger):
            with trio.move_on_after(0.05) as scope:
                await link.receive()
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
        say=lambda n: lines.append(english(n)),
    )
    assert code == 0, "\n".join(lines)
    assert any("verified by replay" in line for line in lines)
