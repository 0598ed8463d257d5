"""The signed ``back`` of a seat sitting out (spec/node.md §7a), at the node that hosts the
running segment: only a key that sits out there, with its own valid signature, for this very
segment, makes the host re-form the table and seat it again; anything else changes nothing."""

from __future__ import annotations

import random
import secrets
from pathlib import Path
from typing import Any

import pytest

from dealerless.client.protocol_sim import Bus, ProtocolGame, run_game
from dealerless.node.app import meta_for_invite
from dealerless.node.identity import Identity
from dealerless.node.invite import Invite
from dealerless.node.notices import Notice, english
from dealerless.node.seat import SeatNode
from dealerless.node.store import TableStore
from dealerless.node.wire import encode, seal
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import SeatInfo, TableConfig, TableMachine
from dealerless.protocol.table.steps import Phase

GAME = make_config("limit-tuppen", 3, {"mode": "cash", "max_buy_in": 10})


class Table:
    """Three seats; the one at seat 1 sat out after hand 1 and seat 0 hosts the segment that
    followed (in memory: real keys, deck and signatures)."""

    def __init__(self, tmp: Path, *, switch: bool = True) -> None:
        self.ids = [Identity.generate() for _ in range(3)]
        invite = Invite.create(self.ids[0].public_key, GAME, 60_000, token=secrets.token_bytes(16))
        seats = tuple(SeatInfo(f"p{i}", ident.public_key) for i, ident in enumerate(self.ids))
        table = TableConfig(invite.table_id, GAME, seats, 60_000)
        keys = [ident.wire_key() for ident in self.ids]
        rng = random.Random(7)
        machines = [TableMachine(table, key, now=0.0) for key in keys]
        sim = ProtocolGame(table, keys, machines, Bus(3, rng), [[] for _ in keys])
        for seat in range(3):
            sim.flush(seat)
        machines[1].want_change("sit-out")
        run_game(sim, rng)
        self.host = machines[0]
        self.first = table
        # Without ``switch`` the host stays at the boundary: the segment over, the next one
        # not begun.
        self.second = self.host.next_segment() if switch else table
        meta = meta_for_invite(invite, name="p0", bot=True, transcript="")
        meta.role, meta.host_key = "host", self.ids[0].public_key.hex()
        store = TableStore(tmp, invite.table_id)
        self.node = SeatNode(self.ids[0], store, meta, connector=None, driver=None, say=self.said)  # type: ignore[arg-type]
        self.node.machine = self.host
        self.node.now = lambda: 0.0  # type: ignore[method-assign]  # no trio clock here
        self.node.config = table
        self.lines: list[str] = []

    def said(self, notice: Notice) -> None:
        self.lines.append(english(notice))

    def deliver(self, author: Identity, payload: dict[str, Any], *, sender: bytes | None = None,
                table_id: bytes | None = None) -> None:  # fmt: skip
        sealed = seal(author, table_id or self.first.table_id, payload)
        self.node.messages.on_hub(
            {"t": "msg", "from": sender or author.public_key, "data": encode(sealed)}
        )

    def back(self, n: int | None = None) -> dict[str, Any]:
        """The returner's ``back``; ``n``: the records it says it holds (omitted if None)."""
        payload: dict[str, Any] = {"t": "back", "config": self.second.digest()}
        if n is not None:
            payload["n"] = n
        return payload

    def holds(self, author: Identity, n: int) -> None:
        """``author`` tells the host (its signed ``have``) that it holds ``n`` records."""
        self.deliver(author, {"t": "have", "n": n})


@pytest.fixture
def table(tmp_path: Path) -> Table:
    return Table(tmp_path)


def test_a_seat_sitting_out_asks_and_the_host_seats_it_at_the_boundary(table: Table) -> None:
    away = table.ids[1]
    assert table.node.away_keys() == {away.public_key}
    table.holds(away, table.host.chain_count)  # it follows the table, not behind
    table.deliver(away, table.back())
    assert list(table.node.changes.returners) == [away.public_key]
    assert table.host.change_wanted == "reseat"
    assert any("comes back after this hand" in line for line in table.lines)
    table.deliver(away, table.back())  # a repeat changes nothing
    assert list(table.node.changes.returners) == [away.public_key]


def test_a_seat_that_follows_behind_is_seated_only_once_it_caught_up(table: Table) -> None:
    """Seated while it still replays earlier hands, a returner would reach the next
    configuration after its step and be timed out there (seen under load): the host waits
    until its signed count reaches the start of the running hand; it keeps asking."""
    away = table.ids[1]
    start = table.host.hand_start_count
    assert 0 < start <= table.host.chain_count
    table.deliver(away, table.back())  # its count is not known yet
    table.holds(away, start - 1)
    table.deliver(away, table.back())
    assert table.node.changes.returners == {} and table.host.change_wanted is None
    table.holds(away, start)
    table.deliver(away, table.back())
    assert list(table.node.changes.returners) == [away.public_key]
    assert table.host.change_wanted == "reseat"


def test_the_count_in_a_back_is_enough(table: Table) -> None:
    """A returner that follows live sends no ``have`` (it has nothing to ask), so its ``back``
    carries its count; a count that is not a whole number counts as nothing."""
    away = table.ids[1]
    start = table.host.hand_start_count
    for bad in (True, "many", start - 1, -5):
        table.deliver(away, {**table.back(), "n": bad})
    assert table.node.changes.returners == {} and table.host.change_wanted is None
    table.deliver(away, table.back(start))
    assert list(table.node.changes.returners) == [away.public_key]


def test_a_back_for_another_segment_is_ignored(table: Table) -> None:
    """A copy replayed from an earlier segment (or one for a later one) seats nobody."""
    table.deliver(table.ids[1], {"t": "back", "config": table.first.digest()})
    table.deliver(table.ids[1], {"t": "back"})
    table.deliver(table.ids[1], {"t": "back", "config": "not bytes"})
    assert table.node.changes.returners == {} and table.host.change_wanted is None


def test_only_a_key_that_sits_out_may_ask(table: Table) -> None:
    stranger = Identity.generate()
    table.deliver(stranger, table.back())
    table.deliver(table.ids[2], table.back())  # seated: nothing to come back from
    assert table.node.changes.returners == {} and table.host.change_wanted is None
    assert table.node.messages.dropped == 2


def test_a_forged_or_unsigned_back_is_dropped(table: Table) -> None:
    away = table.ids[1]
    # signed by someone else, but the hub says it is from the seat sitting out
    table.deliver(Identity.generate(), table.back(), sender=away.public_key)
    # signed for another table
    table.deliver(away, table.back(), table_id=secrets.token_bytes(16))
    # unsigned
    table.node.messages.on_hub({"t": "msg", "from": away.public_key, "data": encode(table.back())})
    assert table.node.changes.returners == {} and table.host.change_wanted is None
    assert sum("bad signature" in line for line in table.lines) == 2


def test_a_host_that_leaves_after_this_hand_leaves_the_returner_to_the_next(
    table: Table,
) -> None:
    table.host.want_change("stand")
    table.holds(table.ids[1], table.host.chain_count)
    table.deliver(table.ids[1], table.back())
    assert table.node.changes.returners == {} and table.host.change_wanted == "stand"


def test_a_newcomer_at_the_boundary_is_not_refused_but_seated_later(tmp_path: Path) -> None:
    """A hello that reaches the host between two segments (its machine is over, the next
    segment not begun) gets no answer: the newcomer says hello again and is seated after the
    next segment's first hand. "The table is full" would have made it give up."""
    table = Table(tmp_path, switch=False)
    table.node.now = lambda: 0.0  # type: ignore[method-assign]  # no trio clock here
    assert table.host.over and table.host.seat_change is not None
    newcomer = Identity.generate()
    table.node.changes.newcomer_hello(newcomer.public_key, "p3", {})
    assert not any(b"refused" in m["data"] for m, _ in table.node.outbox)
    assert newcomer.public_key not in table.node.changes.waiting


def test_a_newcomer_to_a_finished_game_is_refused(tmp_path: Path) -> None:
    table = Table(tmp_path)
    table.node.now = lambda: 0.0  # type: ignore[method-assign]
    table.host.this_hand.phase = Phase.OVER  # the game is over: no later segment
    table.host.cycle.seat_change = None
    table.node.changes.newcomer_hello(Identity.generate().public_key, "p3", {})
    assert any(b"refused" in m["data"] for m, _ in table.node.outbox)
