"""A seat sitting out follows the table by catch-up, which over a paced relay can crawl far
behind the play. It must not take "our chain did not grow" for "the table is gone" while the
table's seats keep signing new steps (a CI run: a follower gave up at hand 5 of 40 after
15 s of slow catch-up, and never came back). What counts is the furthest step a seat's
valid signed frame named: replays, forgeries and strangers move nothing."""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from seat_change_sim import next_segment, play_segment, start

from dealerless.node.app import meta_for_invite
from dealerless.node.identity import Identity
from dealerless.node.invite import Invite
from dealerless.node.notices import english
from dealerless.node.options import NodeOptions
from dealerless.node.seat import SeatNode
from dealerless.node.seat_changes import AWAY_QUIET
from dealerless.node.store import TableStore
from dealerless.node.wire import decode, unseal
from dealerless.protocol.messages import IdentityKey, decode_message, sign_message
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.kinds import TABLE_REGISTRY

CASH = {"mode": "cash", "hands": 6, "max_buy_in": 10}


@dataclass
class Behind:
    """Seat 1 sat out after hand 1 and follows; the two others played the rest of the game,
    and none of it reached the follower yet."""

    away: TableMachine
    later: list[bytes]  # the table's records the follower lacks, in order
    host: TableMachine  # the host of the segment the follower sits out, at the game's end


def behind() -> Behind:
    rng = random.Random(11)
    sim = start(make_config("limit-tuppen", 3, CASH), rng)
    play_segment(sim, rng, {1: "sit-out"})
    away = sim.machines[1]
    away.follow_away = True
    second = next_segment(sim, rng, followers=[away])
    assert away.sitting_out
    play_segment(second, rng, {})
    host = second.machines[0]
    later = list(host.records[len(away.records) :])
    assert len(later) > 40
    return Behind(away, later, host)


def test_a_later_frame_of_a_seat_moves_what_the_follower_heard_without_growing_its_chain() -> None:
    table = behind()
    away, count = table.away, len(table.away.records)
    before = away.heard_up_to
    frame = table.later[30]  # far ahead: it waits for its predecessors
    away.receive(frame, 0.0)
    message = decode_message(frame, registry=TABLE_REGISTRY)
    assert len(away.records) == count
    assert away.heard_up_to == (message.hand, message.seq) > before
    away.receive(table.later[10], 0.0)  # an earlier step does not move it back
    assert away.heard_up_to == (message.hand, message.seq)


def test_replays_forgeries_and_strangers_move_nothing() -> None:
    table = behind()
    away = table.away
    frame = table.later[20]
    away.receive(frame, 0.0)
    heard = away.heard_up_to
    away.receive(frame, 0.0)  # a replay
    assert away.heard_up_to == heard
    message = decode_message(table.later[-1], registry=TABLE_REGISTRY)
    tampered = bytearray(table.later[-1])
    tampered[-1] ^= 1  # the signature no longer verifies
    away.receive(bytes(tampered), 0.0)
    assert away.heard_up_to == heard

    def signed_by(key: IdentityKey, seat: int | None) -> bytes:
        return sign_message(
            key, table_id=message.table_id, hand=message.hand + 50, seq=message.seq,
            prev=message.prev, seat=seat, kind=message.kind, body=message.body,
            registry=TABLE_REGISTRY,
        ).frame  # fmt: skip

    away.receive(signed_by(IdentityKey.generate(), message.seat), 0.0)  # a key with no seat
    assert away.heard_up_to == heard


class Follower:
    """The follower's node around its machine (no link: only its clock is driven here)."""

    def __init__(self, tmp: Path, away: TableMachine) -> None:
        self.node, self.lines = follower_node(tmp, away)
        self.clock = 0.0
        self.node.now = lambda: self.clock  # type: ignore[method-assign]  # no trio clock here
        self.at(0.0)

    def at(self, now: float) -> None:
        self.clock = now
        self.node.tick(now)

    def stopped_following(self) -> bool:
        return self.node.ending.until is not None and any(
            "we stop following it" in line for line in self.lines
        )


def follower_node(tmp: Path, away: TableMachine) -> tuple[SeatNode, list[str]]:
    """A node around ``away`` (a fresh identity: only its machine's view matters here)."""
    ident = Identity.generate()
    token = secrets.token_bytes(16)
    invite = Invite.create(ident.public_key, away.config.game, 60_000, token=token)
    meta = meta_for_invite(invite, name="p1", bot=True, transcript="")
    lines: list[str] = []
    meta.table_id = away.config.table_id.hex()  # the sim's table, not the invite's
    store = TableStore(tmp, away.config.table_id)
    store.save_meta(meta)
    store.open_transcript(away.config)
    node = SeatNode(
        ident, store, meta, connector=None, driver=None, say=lambda n: lines.append(english(n)),  # type: ignore[arg-type]
        options=NodeOptions(follow_away=True, linger=1.0),
    )  # fmt: skip
    node.config = away.config
    node.machine = away
    return node, lines


def test_the_follower_keeps_following_while_the_table_signs_new_steps(tmp_path: Path) -> None:
    table = behind()
    follower = Follower(tmp_path, table.away)
    quiet = AWAY_QUIET * table.away.timeout
    for step, at in enumerate((0.6, 1.2, 1.8, 2.4)):
        table.away.receive(table.later[10 * (step + 1)], quiet * at)
        follower.at(quiet * at)
        assert not follower.stopped_following(), follower.lines
    assert len(table.away.records) < len(table.later)  # its chain never grew meanwhile
    follower.at(quiet * 2.4 + quiet * 0.99)
    assert follower.node.ending.until is None
    follower.at(quiet * 2.4 + quiet * 1.01)  # now nothing new for AWAY_QUIET step timeouts
    assert follower.stopped_following()


def test_a_replayed_frame_does_not_keep_a_follower_of_a_dead_table(tmp_path: Path) -> None:
    table = behind()
    follower = Follower(tmp_path, table.away)
    quiet = AWAY_QUIET * table.away.timeout
    table.away.receive(table.later[15], 0.0)
    follower.at(0.0)
    for at in (0.5, 0.9, 1.01):
        table.away.receive(table.later[15], quiet * at)  # the same frame, again and again
        follower.at(quiet * at)
    assert follower.stopped_following()


def last_have(node: SeatNode) -> dict[str, Any]:
    message, _size = node.outbox[-1]  # {t: send, data: the sealed message}
    payload, _body, _signature = unseal(decode(message["data"]))
    assert payload["t"] == "have"
    return payload


def test_a_follower_coming_back_asks_for_records_with_a_nonce(tmp_path: Path) -> None:
    """The host seats a returner only once it caught up; records that answer a nonce travel
    at the table's pace over Nostr, not at catch-up's (a CI run: the follower was still at
    hand 13 when the two others finished hand 40, and never came back)."""
    table = behind()
    follower = Follower(tmp_path, table.away)
    node = follower.node
    node.catch_up.have(len(table.away.records), True)
    assert "nonce" not in last_have(node)  # merely following: catch-up at its own pace
    node.changes.come_back()
    node.catch_up.have(len(table.away.records), True)
    assert last_have(node)["nonce"] == node.catch_up.nonce
    node.catch_up.have(len(table.away.records), False)  # a count that asks nothing carries none
    assert "nonce" not in last_have(node)


def test_a_lingering_seat_waits_for_a_follower_that_told_its_count(tmp_path: Path) -> None:
    table = behind()
    host = table.host
    assert host.over
    node, _lines = follower_node(tmp_path / "host", host)
    n = host.chain_count
    node.catch_up.peer_counts = {s.key: n for s in host.config.seats}
    assert node.ending.peers_caught_up()  # no follower spoke: silence is not waited for
    away = table.away.config.carry
    assert away is not None
    follower_key = away.away[0].key
    node.catch_up.peer_counts[follower_key] = n - 40
    assert not node.ending.peers_caught_up()
    node.catch_up.peer_counts[follower_key] = n
    assert node.ending.peers_caught_up()


def test_a_lingering_seat_waits_for_a_seat_with_as_many_records_on_another_branch(
    tmp_path: Path,
) -> None:
    """Two branches of one length (a randomized schedule: a certificate against one seat's
    last result, and that seat's own end): the counts agree, the last records do not. The seat
    stays (within its linger time) until catch-up has brought one of them onto the other's."""
    table = behind()
    host = table.host
    node, _lines = follower_node(tmp_path / "host", host)
    n = host.chain_count
    node.catch_up.peer_counts = {s.key: n for s in host.config.seats}
    other = host.config.seats[1].key
    node.catch_up.peer_lasts[other] = bytes(8)  # another last record than ours
    assert not node.ending.peers_caught_up()
    ours = host.record_tag(n)
    assert ours is not None and ours != bytes(8)
    node.catch_up.peer_lasts[other] = ours
    assert node.ending.peers_caught_up()
