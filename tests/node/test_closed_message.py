"""The host's signed ``closed`` (spec/node.md §3): a joiner that is not seated stops and says
the table is finished. Only the invite's host can say it, with its own valid signature, for
this table; anyone else's, a damaged one or one for another table changes nothing, and a seat
already at the table ignores it."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from dealerless.node.app import meta_for_invite
from dealerless.node.identity import Identity
from dealerless.node.invite import Invite
from dealerless.node.notices import english
from dealerless.node.seat import SeatNode
from dealerless.node.store import TableStore
from dealerless.node.wire import decode, encode, seal
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import SeatInfo, TableConfig

GAME = make_config("limit-tuppen", 2, {"hands": 2})


class Joiner:
    def __init__(self, tmp: Path) -> None:
        self.host = Identity.generate()
        self.me = Identity.generate()
        self.invite = Invite.create(
            self.host.public_key, GAME, 60_000, token=secrets.token_bytes(16)
        )
        meta = meta_for_invite(self.invite, name="ann", bot=True, transcript="")
        meta.host_key = self.host.public_key.hex()
        self.lines: list[str] = []
        store = TableStore(tmp, self.invite.table_id)
        self.node = SeatNode(
            self.me, store, meta, connector=None, driver=None,  # type: ignore[arg-type]
            say=lambda n: self.lines.append(english(n)),
        )  # fmt: skip
        self.node.now = lambda: 0.0  # type: ignore[method-assign]  # no trio clock here

    def deliver(
        self, author: Identity, payload: dict[str, Any], *, table_id: bytes | None = None
    ) -> None:
        sealed = seal(author, table_id or self.invite.table_id, payload)
        self.node.messages.on_hub({"t": "msg", "from": author.public_key, "data": encode(sealed)})

    def stopped(self) -> bool:
        return self.node.done and self.node.exit_code == 1


def test_the_hosts_closed_stops_a_joiner_and_says_why(tmp_path: Path) -> None:
    joiner = Joiner(tmp_path)
    joiner.deliver(joiner.host, {"t": "closed", "hands": 7})
    assert joiner.stopped()
    assert joiner.lines[-1] == "this table is finished: its game ended after 7 hands"


def test_a_closed_from_anyone_else_or_damaged_changes_nothing(tmp_path: Path) -> None:
    joiner = Joiner(tmp_path)
    stranger = Identity.generate()
    joiner.deliver(stranger, {"t": "closed", "hands": 7})  # not the invite's host
    joiner.deliver(joiner.host, {"t": "closed"}, table_id=secrets.token_bytes(16))  # elsewhere
    sealed = seal(joiner.host, joiner.invite.table_id, {"t": "closed", "hands": 7})
    sealed["s"] = bytes(64)  # a damaged signature
    joiner.node.messages.on_hub(
        {"t": "msg", "from": joiner.host.public_key, "data": encode(sealed)}
    )
    forged = seal(stranger, joiner.invite.table_id, {"t": "closed", "hands": 7})
    # The stranger's signature, with the hub saying the host sent it.
    joiner.node.messages.on_hub(
        {"t": "msg", "from": joiner.host.public_key, "data": encode(forged)}
    )
    assert not joiner.node.done
    assert any("bad signature" in line for line in joiner.lines)


def test_a_seat_at_the_table_ignores_closed(tmp_path: Path) -> None:
    joiner = Joiner(tmp_path)
    seats = (SeatInfo("host", joiner.host.public_key), SeatInfo("ann", joiner.me.public_key))
    joiner.node.config = TableConfig(joiner.invite.table_id, GAME, seats, 60_000)
    joiner.deliver(joiner.host, {"t": "closed", "hands": 2})
    assert not joiner.node.done


def test_an_odd_hand_count_is_not_repeated(tmp_path: Path) -> None:
    joiner = Joiner(tmp_path)
    joiner.deliver(joiner.host, {"t": "closed", "hands": "x" * 500})
    assert joiner.stopped()
    assert joiner.lines[-1] == "this table is finished: its game ended"


def test_a_host_whose_game_is_over_refuses_a_hello_saying_the_table_is_finished(
    tmp_path: Path,
) -> None:
    """While the host lingers after the game, a joiner's hello gets "finished", not "full"."""
    import random

    from dealerless.client.protocol_sim import Bus, ProtocolGame, run_game
    from dealerless.node.wire import unseal
    from dealerless.protocol.table import TableMachine

    host, seat1, newcomer = (Identity.generate() for _ in range(3))
    invite = Invite.create(host.public_key, GAME, 60_000, token=secrets.token_bytes(16))
    seats = (SeatInfo("host", host.public_key), SeatInfo("bob", seat1.public_key))
    table = TableConfig(invite.table_id, GAME, seats, 60_000)
    keys = [host.wire_key(), seat1.wire_key()]
    rng = random.Random(3)
    machines = [TableMachine(table, key, now=0.0) for key in keys]
    sim = ProtocolGame(table, keys, machines, Bus(2, rng), [[], []])
    for seat in range(2):
        sim.flush(seat)
    run_game(sim, rng)
    assert machines[0].over and machines[0].seat_change is None
    meta = meta_for_invite(invite, name="host", bot=True, transcript="")
    meta.role, meta.host_key = "host", host.public_key.hex()
    node = SeatNode(
        host, TableStore(tmp_path, invite.table_id), meta, connector=None, driver=None,  # type: ignore[arg-type]
        say=lambda _line: None,
    )  # fmt: skip
    node.now = lambda: 0.0  # type: ignore[method-assign]  # no trio clock here
    node.machine, node.config = machines[0], table
    proof = invite.proof(newcomer.public_key, host.public_key)
    hello = {"t": "hello", "name": "cy", "proof": proof}
    sealed = seal(newcomer, invite.table_id, hello)
    node.messages.on_hub({"t": "msg", "from": newcomer.public_key, "data": encode(sealed)})
    refusals = []
    for message, _size in node.outbox:
        data = decode(message["data"])
        if data.get("t") == "sig":
            payload = unseal(data)[0]
            if payload["t"] == "refused":
                refusals.append((message.get("to"), payload["reason"]))
    assert refusals == [(newcomer.public_key, "this table is finished: its game is over")]
