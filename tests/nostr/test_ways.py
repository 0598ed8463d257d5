"""The ways in: invites that carry Nostr relays, the host's transport flags, and a MultiWay
that takes the first way that answers, drops copies and says why each way failed."""

from __future__ import annotations

import argparse
import dataclasses
import secrets
from typing import Any

import pytest
import trio

from dealerless.client.commands import host as host_command
from dealerless.node.identity import Identity
from dealerless.node.invite import Invite, InviteError
from dealerless.node.links import FatalLinkError, Link, LinkError
from dealerless.node.nostr.defaults import DEFAULT_RELAYS, DEFAULT_SET, parse_relay_list
from dealerless.node.notices import english
from dealerless.node.store import TableMeta
from dealerless.node.table_ways import is_private_address
from dealerless.node.ways import MultiWay, Way
from dealerless.protocol.rules.registry import make_config

HOST = Identity.generate()
GAME = make_config("tuppen", 4, {})


def test_an_invite_carries_nostr_relays_and_stays_short() -> None:
    lan = dataclasses.replace(
        Invite.create(HOST.public_key, GAME, 60_000), direct=(("192.168.1.10", 54321),)
    )
    default = dataclasses.replace(lan, nostr=DEFAULT_SET)
    code = default.encode()
    assert len(code) <= len(lan.encode()) + 4, code  # the default relays cost one small int
    assert Invite.decode(code).nostr == DEFAULT_SET
    every = dataclasses.replace(lan, nostr=DEFAULT_RELAYS)  # a bit set past 127: one byte more
    assert len(every.encode()) <= len(lan.encode()) + 6
    assert Invite.decode(every.encode()).nostr == DEFAULT_RELAYS
    own = dataclasses.replace(default, nostr=("ws://127.0.0.1:7777", DEFAULT_RELAYS[1]))
    assert Invite.decode(own.encode()).nostr == ("ws://127.0.0.1:7777", DEFAULT_RELAYS[1])


@pytest.mark.parametrize(
    "bad", [[99], ["http://x"], ["ws://"], [True], "ws://x", ["w"] * 9, 0, 1 << 20, -1]
)
def test_an_invite_with_a_bad_relay_list_is_refused(bad: object) -> None:
    invite = Invite.create(HOST.public_key, GAME, 60_000)
    tampered = dataclasses.replace(invite, extra={"q": bad})
    with pytest.raises(InviteError, match="Nostr relay"):
        Invite.decode(tampered.encode())


def test_relay_list_flag() -> None:
    assert parse_relay_list("ws://a:1, wss://b ,ws://a:1") == ["ws://a:1", "wss://b"]
    for bad, why in (("", "at least one"), ("http://a", "not a websocket"), ("ws://", "no host")):
        with pytest.raises(ValueError, match=why):
            parse_relay_list(bad)


def _flags(**kw: Any) -> argparse.Namespace:
    values = {"nostr": "", "relay": "", "listen": None, "lan_only": False}
    values.update(kw)
    return argparse.Namespace(**values)


def test_host_transport_flags() -> None:
    choose = host_command.choose_transports
    assert choose(_flags()) == (list(DEFAULT_SET), True)  # no flag: internet + LAN
    assert choose(_flags(lan_only=True)) == ([], True)
    assert choose(_flags(listen="0.0.0.0:4000")) == ([], True)
    assert choose(_flags(nostr="ws://127.0.0.1:1")) == (["ws://127.0.0.1:1"], False)
    assert choose(_flags(nostr="ws://h:1", listen=":0")) == (["ws://h:1"], True)
    assert choose(_flags(relay="1.2.3.4:5")) == ([], False)
    with pytest.raises(ValueError, match="--lan-only"):
        choose(_flags(lan_only=True, nostr="ws://h:1"))
    # the settings file's relays stand in for the shipped ones; any transport flag wins
    mine = ["wss://mine.example", "ws://127.0.0.1:9"]
    assert choose(_flags(), mine) == (mine, True)
    assert choose(_flags(), []) == (list(DEFAULT_SET), True)
    assert choose(_flags(nostr="ws://h:1"), mine) == (["ws://h:1"], False)
    assert choose(_flags(lan_only=True), mine) == ([], True)
    assert choose(_flags(listen=":0"), mine) == ([], True)
    assert choose(_flags(relay="1.2.3.4:5"), mine) == ([], False)
    with pytest.raises(ValueError, match=r"settings file's nostr\.relays"):
        choose(_flags(), ["http://x"])
    # only the shipped relays are asked first (node/nostr/probe.py): no flag, none in the file
    shipped = host_command.shipped_relays
    assert shipped(_flags()) and shipped(_flags(), [])
    assert not shipped(_flags(), mine) and not shipped(_flags(nostr="ws://h:1"))
    assert not shipped(_flags(lan_only=True)) and not shipped(_flags(listen=":0"))
    assert not shipped(_flags(relay="1.2.3.4:5"))


def test_the_host_says_when_a_private_address_is_the_only_way_in() -> None:
    meta = TableMeta("00" * 16, "host", "192.168.1.10", 4000, HOST.public_key.hex())
    assert "private address" in host_command.private_only_warning(meta)
    assert "private" in host_command.ways_in(meta)
    meta.nostr = ["wss://relay.example"]
    assert host_command.private_only_warning(meta) == ""
    public = TableMeta("00" * 16, "host", "93.184.216.34", 4000, HOST.public_key.hex())
    assert host_command.private_only_warning(public) == ""
    assert [is_private_address(a) for a in ("10.1.2.3", "100.64.0.1", "fd00::1", "8.8.8.8")] == [
        True,
        True,
        True,
        False,
    ]


class _QueueLink:
    """A link fed by the test (an in-memory stand-in for one way; the ways' own links are tested
    over real sockets and relays elsewhere)."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.inbox_send, self.inbox = trio.open_memory_channel[dict[str, Any]](100)
        self.sent_bytes = 0

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    async def receive(self) -> dict[str, Any]:
        try:
            return await self.inbox.receive()
        except trio.EndOfChannel:
            raise LinkError("closed") from None

    async def aclose(self) -> None:
        self.inbox_send.close()


def test_multiway_first_answer_wins_copies_are_dropped_and_resends_are_not() -> None:
    async def main() -> None:
        fast, slow = _QueueLink(), _QueueLink()
        host = secrets.token_bytes(32)

        async def open_fast() -> tuple[Link, dict[str, Any]]:
            return fast, {"t": "joined", "host": host, "members": [host]}

        async def open_slow() -> tuple[Link, dict[str, Any]]:
            await trio.sleep(0.5)
            return slow, {"t": "joined", "host": host, "members": [host]}

        ways = MultiWay([Way("fast", open_fast), Way("slow", open_slow)])
        async with trio.open_nursery() as nursery:
            await nursery.start(ways.run)
            link, joined = await ways.connect()
            assert joined["host"] == host
            await trio.sleep(1)  # the slow way is open too now
            await link.send({"t": "send", "data": b"x"})
            assert fast.sent == slow.sent == [{"t": "send", "data": b"x"}]
            message = {"t": "msg", "from": host, "data": b"frame"}
            await fast.inbox_send.send(message)
            await slow.inbox_send.send(dict(message))
            assert await link.receive() == message
            with trio.move_on_after(0.5):
                raise AssertionError(f"a copy came through: {await link.receive()}")
            await trio.sleep(2.5)  # past the window: the same bytes again are a re-send
            await slow.inbox_send.send(dict(message))
            assert await link.receive() == message
            nursery.cancel_scope.cancel()

    trio.run(main)


def test_multiway_says_which_ways_it_tried_and_why_they_failed() -> None:
    async def main() -> None:
        async def refused() -> tuple[Link, dict[str, Any]]:
            raise LinkError("cannot connect to 192.168.1.10:4000: connection refused")

        async def wrong_host() -> tuple[Link, dict[str, Any]]:
            raise FatalLinkError("10.0.0.1:4000 is not who the invite says")

        ways = MultiWay(
            [Way("direct 192.168.1.10:4000", refused), Way("relay 10.0.0.1:4000", wrong_host)],
            first_timeout=2.0,
        )
        async with trio.open_nursery() as nursery:
            await nursery.start(ways.run)
            with pytest.raises(FatalLinkError) as caught:
                await ways.connect()
            text = str(caught.value)
            assert "within 2 s" in text
            assert "direct 192.168.1.10:4000: cannot connect" in text and "refused" in text
            assert "relay 10.0.0.1:4000: 10.0.0.1:4000 is not who the invite says" in text
            nursery.cancel_scope.cancel()

    trio.run(main)


def test_a_joiner_that_reaches_nothing_says_what_it_tried_and_gives_up(tmp_path: Any) -> None:
    from dealerless.client.bench.nostr_relay import free_port
    from dealerless.client.bots.driver import BotDriver
    from dealerless.node.app import join_table
    from dealerless.node.options import NodeOptions

    closed_direct, closed_relay = free_port(), free_port()
    invite = dataclasses.replace(
        Invite.create(HOST.public_key, GAME, 60_000),
        direct=(("127.0.0.1", closed_direct),),
        nostr=(f"ws://127.0.0.1:{closed_relay}",),
    )
    said: list[str] = []

    async def main() -> int:
        with trio.fail_after(30):
            return await join_table(
                Identity.generate(),
                tmp_path,
                invite,
                name="j",
                bot=True,
                bot_driver=BotDriver,
                say=lambda n: said.append(english(n)),
                options=NodeOptions(first_join_wait=6.0),
            )

    assert trio.run(main) == 1
    final = said[-1]  # the last line the node says: why it gave up
    assert "nothing answered within 6 s" in final, said
    assert f"direct 127.0.0.1:{closed_direct}: cannot connect" in final
    assert f"Nostr (1 relay): connecting (ws://127.0.0.1:{closed_relay}: " in final
    assert f"connect to 127.0.0.1:{closed_relay} failed" in final  # which relay, and why


def test_critical_path_hops_count_runs_of_one_author() -> None:
    from dealerless.client.bench.hand import critical_path_hops

    def acc(seat: int) -> dict[str, Any]:
        return {"ev": "acc", "seat": seat}

    events = [
        acc(2),  # the previous hand, before the element that ended it: not counted
        acc(3),  # the element that started hand 1: its trip to the others is the first hop
        {"ev": "hand", "hand": 1},
        *[acc(s) for s in (0, 1, 2, 0, 0, 1, 2)],  # runs: 0 | 1 | 2 | 0 0 | 1 | 2
        {"ev": "dealt", "hand": 1},
        acc(1),
        acc(1),  # one author in a row: one trip
        {"ev": "hand", "hand": 2},
        acc(2),
        {"ev": "dealt", "hand": 2},
    ]
    assert critical_path_hops(events) == [7, 2]


def test_a_parallel_round_is_one_hop() -> None:
    from dealerless.client.bench.hand import critical_path_hops

    def acc(seat: int, seq: int) -> dict[str, Any]:
        return {"ev": "acc", "seat": seat, "seq": seq}

    events = [
        *[acc(s, 0) for s in (0, 1, 2)],  # the previous hand's last round (parallel): 1 hop
        {"ev": "hand", "hand": 2},
        *[acc(s, 1) for s in (0, 1, 2)],  # key commits, at once: 1 hop
        *[acc(s, 2) for s in (0, 1, 2)],  # key reveals, at once: 1 hop
        acc(0, 3),  # shuffles in turn: 3 hops (the first follows a round)
        acc(1, 4),
        acc(2, 5),
        *[acc(s, 6) for s in (0, 1, 2)],  # shares, at once: 1 hop
        {"ev": "dealt", "hand": 2},
    ]
    assert critical_path_hops(events) == [7]  # n + 4 for n = 3 seats


def test_a_prepared_setup_is_off_the_path_between_hands() -> None:
    """A setup written while the hand before was played (P-53) is taken at the hand's start:
    its elements are no trip after the last card; the results and the deal are two."""
    from dealerless.client.bench.hand import critical_path_hops, hops_between_hands

    def acc(seat: int, seq: int, kind: str = "x", prepared: bool = False) -> dict[str, Any]:
        event = {"ev": "acc", "seat": seat, "seq": seq, "kind": kind}
        return {**event, "prepared": True} if prepared else event

    events = [
        acc(0, 9, "action"),  # the hand's last move
        *[acc(s, 10, "result") for s in (0, 1, 2)],  # its results, at once: 1 hop
        {"ev": "hand", "hand": 2},
        *[acc(s, 3, "key-commit", True) for s in (0, 1, 2)],
        *[acc(s, 4, "key-reveal", True) for s in (0, 1, 2)],
        *[acc(s, 5 + s, "shuffle", True) for s in (0, 1, 2)],
        *[acc(s, 11, "shares") for s in (0, 1, 2)],  # the deal, at once: 1 hop
        {"ev": "dealt", "hand": 2},
    ]
    assert hops_between_hands(events) == [2]
    assert critical_path_hops(events) == [2]  # the results' trip, then the deal
    unprepared = [{k: v for k, v in e.items() if k != "prepared"} for e in events]
    assert hops_between_hands(unprepared) == [2 + 3 + 2]  # as before P-53: n + 4 = 7


def test_the_first_hand_is_counted_from_the_table_being_ready() -> None:
    from dealerless.client.bench.hand import critical_path_hops

    def acc(seat: int, seq: int) -> dict[str, Any]:
        return {"ev": "acc", "seat": seat, "seq": seq}

    events = [
        {"ev": "start", "hand": 0},
        acc(0, 0),  # configuration signatures in seat order: 2 hops
        acc(1, 1),
        *[acc(s, 2) for s in (0, 1)],  # key commits: 1 hop
        *[acc(s, 3) for s in (0, 1)],  # key reveals (they draw the dealer): 1 hop
        {"ev": "hand", "hand": 1},  # the first hand begins inside its setup
        acc(0, 4),
        acc(1, 5),
        *[acc(s, 6) for s in (0, 1)],
        {"ev": "dealt", "hand": 1},
    ]
    assert critical_path_hops(events) == [7]


def test_the_wait_between_hands_counts_results_and_setup() -> None:
    """From the previous hand's last move to this seat's cards (issue 27's measure): the
    results signed one seat after another, then the next hand's setup."""
    from dealerless.client.bench.hand import hops_between_hands, summarize

    def acc(seat: int, seq: int, kind: str = "x") -> dict[str, Any]:
        return {"ev": "acc", "seat": seat, "seq": seq, "kind": kind}

    def at(event: dict[str, Any], wall: float) -> dict[str, Any]:
        return {**event, "wall": wall}

    events = [
        at({"ev": "play", "hand": 1, "seat": 0, "card": 5}, 10.0),
        acc(0, 10, "action"),
        acc(1, 11, "action"),  # the hand's last move
        acc(0, 12, "result"),  # results in seat order: 2 hops
        acc(1, 13, "result"),
        at({"ev": "hand", "hand": 2}, 10.5),
        *[acc(s, 14) for s in (0, 1)],  # key commits at once: 1 hop
        *[acc(s, 15) for s in (0, 1)],  # key reveals: 1 hop
        acc(0, 16),  # shuffles in turn: 2 hops
        acc(1, 17),
        *[acc(s, 18) for s in (0, 1)],  # shares: 1 hop
        at({"ev": "dealt", "hand": 2}, 11.0),
        at({"ev": "over", "sent": 2000, "hands": 2, "cpu": 0.8}, 12.0),
    ]
    assert hops_between_hands(events) == [7]
    other = [
        at({"ev": "play", "hand": 1, "seat": 1, "card": 7}, 10.2),  # the last card of hand 1
        at({"ev": "dealt", "hand": 2}, 11.4),  # the last seat to hold its cards
        at({"ev": "over", "sent": 2000, "hands": 2, "cpu": 1.2}, 12.0),
    ]
    report = summarize([events, other], [0, 0])
    assert report["between_hands_s"] == [1.2]  # 11.4 - 10.2
    assert report["between_hands_hops"] == 7
    assert report["cpu_per_seat_per_hand_s"] == 0.5  # (0.8 + 1.2) / 2 seats / 2 hands
    assert report["result_trips_per_hand"] == [2]  # the seat-order results of hand 1


def test_a_parallel_result_round_is_one_trip_per_hand() -> None:
    """Protocol v3 signs every result at once: the bench counts one result trip per hand,
    the game's last hand too (it ends with the ``over`` event, no deal after it)."""
    from dealerless.client.bench.hand import result_trips

    def acc(seat: int, seq: int, kind: str) -> dict[str, Any]:
        return {"ev": "acc", "seat": seat, "seq": seq, "kind": kind}

    events = [
        acc(0, 10, "action"),
        acc(1, 11, "action"),
        *[acc(s, 12, "result") for s in (0, 1, 2)],  # one element: one trip
        *[acc(s, 13, "key-commit") for s in (0, 1, 2)],
        {"ev": "dealt", "hand": 2},
        acc(2, 20, "action"),
        acc(2, 21, "timeout-certificate"),  # seat 0 timed out there: no result trip
        *[acc(s, 22, "result") for s in (1, 2)],
        {"ev": "over", "sent": 0, "hands": 2},
    ]
    assert result_trips(events) == [1, 1]
