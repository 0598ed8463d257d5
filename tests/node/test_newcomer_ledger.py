"""A newcomer at a running table sits down with exactly its buy-in (issue 22): a configuration
whose carry gives it any other ledger is refused, naming the field and both values, before its
machine signs anything; the one its buy-in gives is taken. In memory: the real SeatNode of the
newcomer, a real configuration signed by the seat that hosts the segment."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

import pytest
import trio

from dealerless.node.app import meta_for_invite
from dealerless.node.identity import Identity
from dealerless.node.invite import Invite
from dealerless.node.join_handshake import CONFIG_LABEL
from dealerless.node.notices import english
from dealerless.node.options import NodeOptions
from dealerless.node.seat import SeatNode
from dealerless.node.store import TableStore
from dealerless.node.wire import encode, seal
from dealerless.protocol.rules.registry import make_config, new_engine
from dealerless.protocol.table import SeatInfo, TableConfig
from dealerless.protocol.table.carry import Carry, Ledger, ledger_of

GAME = make_config("limit-tuppen", 3, {"mode": "cash", "max_buy_in": 10})


class Newcomer:
    def __init__(self, tmp: Path, buy_in: int | None) -> None:
        self.host, self.seat, self.me = (Identity.generate() for _ in range(3))
        self.invite = Invite.create(
            self.host.public_key, GAME, 60_000, token=secrets.token_bytes(16)
        )
        meta = meta_for_invite(self.invite, name="new", bot=True, transcript="")
        meta.host_key = self.host.public_key.hex()
        self.lines: list[str] = []
        store = TableStore(tmp, self.invite.table_id)
        store.save_meta(meta)
        self.node = SeatNode(
            self.me,
            store,
            meta,
            connector=None,  # type: ignore[arg-type]
            driver=None,
            say=lambda n: self.lines.append(english(n)),
            options=NodeOptions(buy_in=buy_in),
        )

    def config(self, mine: Ledger) -> TableConfig:
        """The segment after hand 3: the host and a seat stay, we are new at seat 2."""
        stays = ledger_of(new_engine(GAME).newcomer_ledger(10))
        carry = Carry(secrets.token_bytes(32), 1, 3, 60, (stays, stays, mine), (), (), ())
        seats = (
            SeatInfo("h", self.host.public_key),
            SeatInfo("s", self.seat.public_key),
            SeatInfo("new", self.me.public_key),
        )
        return TableConfig(self.invite.table_id, GAME, seats, 60_000, carry=carry)

    def offer(self, config: TableConfig) -> None:
        first_seats = (*config.seats[:2], SeatInfo("x", Identity.generate().public_key))
        first = TableConfig(self.invite.table_id, GAME, first_seats, 60_000)
        payload: dict[str, Any] = {
            "t": "config",
            "config": config.to_wire(),
            "sig": self.host.sign(CONFIG_LABEL + config.digest()),
            "first": first.to_wire(),
            "first_sig": self.host.sign(CONFIG_LABEL + first.digest()),
        }
        sealed = seal(self.host, self.invite.table_id, payload)

        async def deliver() -> None:  # the node reads its clock (trio's) once it starts
            self.node.messages.on_hub(
                {"t": "msg", "from": self.host.public_key, "data": encode(sealed)}
            )

        trio.run(deliver)


def ledger(buy_in: int) -> Ledger:
    return ledger_of(new_engine(GAME).newcomer_ledger(buy_in))


def forged(**fields: int) -> Ledger:
    return ledger_of({**dict(ledger(10)), **fields})


@pytest.mark.parametrize(
    ("buy_in", "given"),
    [
        (10, forged(stack=1_000_000)),
        (10, forged(stack=9)),
        (10, forged(bought_in=1)),
        (10, forged(net=-5)),
        (4, ledger(10)),
        (None, ledger(5)),
        (10, ()),
    ],
    ids=["inflated", "short", "bought-in", "net", "other-buy-in", "default-buy-in", "empty"],
)
def test_a_ledger_other_than_our_buy_in_is_refused_with_the_field_named(
    tmp_path: Path, buy_in: int | None, given: Ledger
) -> None:
    newcomer = Newcomer(tmp_path, buy_in)
    newcomer.offer(newcomer.config(given))
    assert newcomer.node.config is None and newcomer.node.machine is None
    assert newcomer.node.done and newcomer.node.exit_code == 1
    said = newcomer.lines[-1]
    assert "refused the table configuration: carry.ledgers[2] (our own)" in said, said
    assert f"a buy-in of {buy_in or 10} gives" in said, said


@pytest.mark.parametrize("buy_in", [10, 4, None])
def test_the_ledger_our_buy_in_gives_is_taken(tmp_path: Path, buy_in: int | None) -> None:
    """Taken to be checked: the node fetches the table's chain from its start before it signs
    anything (tests/node/test_newcomer_checks_chain.py)."""
    newcomer = Newcomer(tmp_path, buy_in)
    newcomer.offer(newcomer.config(ledger(buy_in or 10)))
    assert not newcomer.node.done, newcomer.lines
    assert newcomer.node.handshake.arrival.expects(newcomer.host.public_key)
    assert newcomer.node.config is None and newcomer.node.machine is None
    assert "checking its chain from the start (60 records)" in newcomer.lines[-1]
