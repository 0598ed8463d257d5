"""A newcomer's node checks the running table it is offered from the table's start (issue 22):
it sits down only once the chain from the first configuration (signed by the invite's host)
through the ``next-config`` that seats it checks and holds exactly the configuration offered.
Refused, naming why: an offer without that first configuration or with one another key signed
(a fake table), a seat at the table that names itself the running segment's host, a chain whose
``next-config`` another key signed, and an offer whose carry inflates a stack or the pot.

In memory: the real SeatNode of the newcomer (its checks run in a worker thread, as in play), a
real table played by real machines up to its seat change, real signatures everywhere."""

from __future__ import annotations

import random
import secrets
from pathlib import Path
from typing import Any

import pytest
import trio

from dealerless.client.protocol_sim import Bus, ProtocolGame, run_game
from dealerless.node.app import meta_for_invite
from dealerless.node.identity import Identity
from dealerless.node.invite import Invite
from dealerless.node.join_handshake import CONFIG_LABEL
from dealerless.node.notices import english
from dealerless.node.options import NodeOptions
from dealerless.node.seat import SeatNode
from dealerless.node.store import TableStore
from dealerless.node.wire import decode, encode, seal
from dealerless.protocol.messages import sign_message
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import SeatInfo, TableConfig, TableMachine
from dealerless.protocol.table.audit import audit_records
from dealerless.protocol.table.kinds import TABLE_REGISTRY
from dealerless.protocol.table.segments import Newcomer

GAME = make_config("limit-tuppen", 3, {"mode": "cash", "max_buy_in": 10})


class Table:
    """A 3-seat cash table after hand 1: seat 2 stood up, the host re-forms it with ``new``."""

    def __init__(self, tmp: Path) -> None:
        rng = random.Random(4)
        self.host, self.seat, self.leaver, self.me = (Identity.generate() for _ in range(4))
        self.invite = Invite.create(
            self.host.public_key, GAME, 60_000, token=secrets.token_bytes(16)
        )
        ids = (self.host, self.seat, self.leaver)
        keys = [i.wire_key() for i in ids]
        seats = tuple(SeatInfo(n, i.public_key) for n, i in zip("hsl", ids, strict=True))
        self.first = TableConfig(self.invite.table_id, GAME, seats, 60_000)
        self.first_sig = self.host.sign(CONFIG_LABEL + self.first.digest())
        machines = [TableMachine(self.first, k) for k in keys]
        sim = ProtocolGame(self.first, keys, machines, Bus(3, rng), [[] for _ in keys])
        for number in range(3):
            sim.flush(number)
        machines[2].want_change("stand")
        machines[0].want_change("reseat")
        run_game(sim, rng)
        self.ended = machines[0]
        self.boundary = (machines[0].hand, machines[0].seq, machines[0].head)
        self.config = machines[0].next_segment([Newcomer(SeatInfo("new", self.me.public_key), 10)])
        assert self.config.carry is not None
        self.chain = machines[0].records[: self.config.carry.records]
        self.lines: list[str] = []
        meta = meta_for_invite(self.invite, name="new", bot=True, transcript="")
        meta.host_key = self.host.public_key.hex()
        self.store = TableStore(tmp, self.invite.table_id)
        self.store.save_meta(meta)
        self.node = SeatNode(
            self.me, self.store, meta, connector=None,  # type: ignore[arg-type]
            driver=None, say=lambda n: self.lines.append(english(n)),
            options=NodeOptions(buy_in=10),
        )  # fmt: skip

    def deliver(self, author: Identity, payload: dict[str, Any], signed: bool = True) -> None:
        data = seal(author, self.invite.table_id, payload) if signed else payload
        self.node.messages.on_hub({"t": "msg", "from": author.public_key, "data": encode(data)})

    def offer(
        self,
        author: Identity,
        config: TableConfig,
        first: TableConfig | None = None,
        first_sig: bytes | None = None,
    ) -> None:
        payload: dict[str, Any] = {
            "t": "config",
            "config": config.to_wire(),
            "sig": author.sign(CONFIG_LABEL + config.digest()),
        }
        if first is not False:  # type: ignore[comparison-overlap]
            payload["first"] = (first or self.first).to_wire()
            payload["first_sig"] = first_sig if first_sig is not None else self.first_sig
        self.deliver(author, payload)

    def serve(self, author: Identity, chain: list[bytes]) -> None:
        self.deliver(author, {"t": "recs", "start": 0, "frames": chain}, signed=False)

    def asked(self, to: bytes) -> bool:
        """Did the node ask ``to`` for the chain from its start (a signed have of 0)?"""
        for message, _ in self.node.outbox:
            payload = decode(message["data"])
            if message.get("to") == to and payload.get("t") == "sig":
                inner = decode(payload["b"])
                if inner.get("t") == "have" and inner.get("n") == 0:
                    return True
        return False

    def run(self, script: Any) -> None:
        async def main() -> None:
            async with trio.open_nursery() as nursery:
                self.node.nursery = nursery
                await script()
                nursery.cancel_scope.cancel()

        trio.run(main)

    async def settle(self) -> None:
        """Let a check in the worker thread finish."""
        with trio.fail_after(60):
            while self.node.handshake.arrival.checking is not None:
                await trio.sleep(0.02)

    def said(self, text: str) -> bool:
        return any(text in line for line in self.lines)


@pytest.fixture
def table(tmp_path: Path) -> Table:
    return Table(tmp_path)


def forged(config: TableConfig, **changes: Any) -> TableConfig:
    wire = config.to_wire()
    for path, value in changes.items():
        node: Any = wire
        parts = path.split("__")
        for part in parts[:-1]:
            node = node[int(part)] if part.isdigit() else node[part]
        last = parts[-1]
        node[int(last) if last.isdigit() else last] = value
    return TableConfig.from_wire(wire)


def test_the_host_of_the_running_segment_seats_us_once_the_chain_checks(table: Table) -> None:
    async def script() -> None:
        table.offer(table.host, table.config)
        assert table.node.machine is None and table.node.config is None  # nothing on trust
        assert table.node.handshake.arrival.expects(table.host.public_key)
        table.serve(table.host, table.chain)
        await table.settle()

    table.run(script)
    node = table.node
    assert node.machine is not None and node.machine.seat == 2, table.lines
    assert node.machine.config == table.config and node.machine.chain_base == 0
    assert node.config == table.first  # our file starts at the table's start
    stored = table.store.stored_records()
    assert stored[: len(table.chain)] == table.chain
    report = audit_records(table.first, stored)
    assert report.ok and len(report.segments) == 1, report.failure
    assert table.said("checked the table's chain from its start")


def test_a_seat_that_names_itself_the_running_host_is_refused(table: Table) -> None:
    """A seat at the table (not the one the chain made host) offers the running segment with
    itself at seat 0, the real first configuration and the real records."""
    seats = table.config.seats
    carry = table.config.carry
    assert carry is not None
    wire = table.config.to_wire()
    wire["seats"] = [wire["seats"][1], wire["seats"][0], wire["seats"][2]]
    wire["carry"]["ledgers"] = [wire["carry"]["ledgers"][i] for i in (1, 0, 2)]
    theirs = TableConfig.from_wire(wire)
    assert theirs.seats[0].key == table.seat.public_key != seats[0].key
    table.node.handshake.hello_targets.add(table.seat.public_key)  # we said hello to it

    async def script() -> None:
        table.offer(table.seat, theirs)
        assert table.asked(table.seat.public_key)
        table.serve(table.seat, table.chain)
        await table.settle()

    table.run(script)
    assert table.node.machine is None and table.node.config is None
    assert table.said("its seats are not the ones the chain seated"), table.lines
    assert table.seat.public_key in table.node.handshake.arrival.refused


def test_a_fake_table_without_the_invite_hosts_first_configuration_is_refused(
    table: Table,
) -> None:
    real = table.first.seats
    fake_seats = (real[1], real[0], real[2])
    fake_first = TableConfig(table.invite.table_id, GAME, fake_seats, 60_000)
    rich = forged(table.config, carry__ledgers__2__stack=1_000_000)
    table.node.handshake.hello_targets.add(table.seat.public_key)
    wire = table.config.to_wire()
    wire["seats"] = [wire["seats"][1], wire["seats"][0], wire["seats"][2]]
    theirs = TableConfig.from_wire(wire)

    async def script() -> None:
        table.offer(table.seat, theirs, first=False)  # type: ignore[arg-type]
        table.offer(
            table.seat, theirs, fake_first, table.seat.sign(CONFIG_LABEL + fake_first.digest())
        )
        table.offer(
            table.seat, theirs, table.first, table.seat.sign(CONFIG_LABEL + table.first.digest())
        )
        table.offer(table.host, rich)  # a ledger other than our buy-in, from the real host

    table.run(script)
    assert table.said("no readable first configuration in a running table's offer")
    assert table.said("a running table's first configuration not signed by the invite's host")
    assert table.said("refused the table configuration: carry.ledgers[2] (our own)")
    assert table.node.machine is None and not table.node.handshake.arrival


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"carry__ledgers__0__stack": 25}, "carry.ledgers is not what the chain says"),
        ({"carry__table": {"pot": 4}}, "carry.table is not what the chain says"),
        ({"carry__hands": 3}, "carry.hands is not what the chain says"),
    ],
    ids=["inflated-stack", "pot", "hands"],
)
def test_the_next_host_and_a_seat_cannot_change_the_carry(
    table: Table, change: dict[str, Any], field: str
) -> None:
    """The next host offers us a carry other than the one it signed into the chain (the chain
    is real: every seat's records)."""
    theirs = forged(table.config, **change)

    async def script() -> None:
        table.offer(table.host, theirs)
        table.serve(table.host, table.chain)
        await table.settle()

    table.run(script)
    assert table.node.machine is None
    assert table.said(field), table.lines


def test_a_chain_whose_seat_change_another_key_signed_is_refused(table: Table) -> None:
    """A colluding next host and seat sign an inflated next configuration into a chain of
    their own: the seat is not the next host, so the chain does not check at that record."""
    rich = forged(table.config, carry__ledgers__0__stack=25)
    hand, seq, head = table.boundary
    frame = sign_message(
        table.seat.wire_key(),
        table_id=table.first.table_id,
        hand=hand,
        seq=seq,
        prev=head,
        seat=1,
        kind="next-config",
        body={"config": rich.to_wire()},
        registry=TABLE_REGISTRY,
    ).frame
    chain = [*table.chain[:-1], frame]

    async def script() -> None:
        table.offer(table.host, rich)
        table.serve(table.host, chain)
        await table.settle()

    table.run(script)
    assert table.node.machine is None
    assert table.said(f"record {len(chain) - 1} of the table's chain does not check"), table.lines


def test_a_newcomer_waiting_for_its_seat_fetches_the_chain_early(table: Table) -> None:
    """Listed as waiting (a lobby with need 0), the newcomer asks that seat for the chain at
    once; what it holds when the offer comes counts, so only the rest is asked for then."""
    seats = table.first.seats
    lobby = {"t": "lobby", "names": [s.name for s in seats], "keys": [s.key for s in seats]}

    async def script() -> None:
        table.deliver(table.host, {**lobby, "need": 0})
        assert table.asked(table.host.public_key)
        table.serve(table.host, table.chain[:-1])  # the hand so far, before the next-config
        table.node.outbox.clear()
        table.offer(table.host, table.config)
        offer = table.node.handshake.arrival.offers[table.host.public_key]
        assert offer.records == table.chain[:-1]
        rest = len(table.chain) - 1
        assert not table.asked(table.host.public_key)  # it asks from where it stands
        table.deliver(
            table.host, {"t": "recs", "start": rest, "frames": table.chain[rest:]}, signed=False
        )
        await table.settle()

    table.run(script)
    assert table.node.machine is not None and table.node.machine.seat == 2, table.lines
    assert table.store.stored_records()[: len(table.chain)] == table.chain
