"""A rematch's invite (issue 25: rematch over the network): every player derives it alone from
the last table's invite, so the host's table and the joiners' invite meet without a new code
travelling; only holders of the last token can derive it."""

from __future__ import annotations

import secrets
from dataclasses import replace

from dealerless.node.identity import Identity
from dealerless.node.invite import Invite
from dealerless.protocol.rules.registry import make_config

HOST = Identity.generate()
GAME = make_config("limit-tuppen", 2, {"hands": 5})


def _invite(token: bytes | None = None) -> Invite:
    created = Invite.create(HOST.public_key, GAME, 60_000, token=token)
    return replace(created, direct=(("192.0.2.7", 4000),), nostr=("wss://relay.example",))


def test_the_rematch_is_a_new_table_with_the_same_host_terms_and_ways_in() -> None:
    last = _invite()
    again = last.rematch()
    assert again.table_id != last.table_id and again.token != last.token
    assert again.is_host(HOST.public_key)  # the pin still names the host and the terms
    assert (again.game, again.seats, again.options, again.step_timeout_ms) == (
        last.game, last.seats, last.options, last.step_timeout_ms,
    )  # fmt: skip
    assert (again.direct, again.nostr) == (last.direct, last.nostr)
    assert Invite.decode(again.encode()) == again


def test_every_player_derives_the_same_rematch_and_each_rematch_is_new() -> None:
    last = _invite()
    copy = Invite.decode(last.encode())  # what a joiner holds
    assert copy.rematch().table_id == last.rematch().table_id
    chain = [last]
    for _ in range(4):
        chain.append(chain[-1].rematch())
    assert len({i.table_id for i in chain}) == 5


def test_the_host_hosting_the_derived_token_opens_the_derived_table() -> None:
    last = _invite()
    hosted = Invite.create(HOST.public_key, GAME, 60_000, token=last.rematch().token)
    assert hosted.table_id == last.rematch().table_id


def test_another_token_gives_another_rematch() -> None:
    one, other = _invite(secrets.token_bytes(16)), _invite(secrets.token_bytes(16))
    assert one.rematch().table_id != other.rematch().table_id
    assert one.rematch().token != one.token
