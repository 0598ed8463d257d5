"""A seat's signed ``bye`` (spec/node.md §3): its player quits, and every other seat says so at
once. Only a seat of the running table, with its own valid signature for this table, is
heard, once per hand; a node sends it once, and only while the game runs and it has a seat."""

from __future__ import annotations

import random
import secrets
from pathlib import Path
from typing import Any

from dealerless.client.protocol_sim import Bus, ProtocolGame
from dealerless.node.app import meta_for_invite
from dealerless.node.identity import Identity
from dealerless.node.invite import Invite
from dealerless.node.notices import english
from dealerless.node.seat import SeatNode
from dealerless.node.store import TableStore
from dealerless.node.wire import decode, encode, seal, unseal
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import SeatInfo, TableConfig, TableMachine

GAME = make_config("limit-tuppen", 2, {"hands": 2})
QUIT = "seat 1 (bob) quit the table; if they do not come back they are timed out"


class Leaving:
    """A driver whose player quits (what the screen's session says)."""

    leaving = True

    async def choose(self, machine: TableMachine) -> None:
        return None


class Table:
    """Two seats at hand 1, the node of seat 0 (ann) around its machine."""

    def __init__(self, tmp: Path, driver: object = None) -> None:
        self.ann, self.bob = Identity.generate(), Identity.generate()
        token = secrets.token_bytes(16)
        self.invite = Invite.create(self.ann.public_key, GAME, 60_000, token=token)
        seats = (SeatInfo("ann", self.ann.public_key), SeatInfo("bob", self.bob.public_key))
        self.table = TableConfig(self.invite.table_id, GAME, seats, 60_000)
        keys = [self.ann.wire_key(), self.bob.wire_key()]
        self.machines = [TableMachine(self.table, key, now=0.0) for key in keys]
        sim = ProtocolGame(self.table, keys, self.machines, Bus(2, random.Random(1)), [[], []])
        for seat in range(2):
            sim.flush(seat)
        meta = meta_for_invite(self.invite, name="ann", bot=True, transcript="")
        meta.role, meta.host_key = "host", self.ann.public_key.hex()
        meta.table_id = self.invite.table_id.hex()
        store = TableStore(tmp, self.invite.table_id)
        store.save_meta(meta)
        store.open_transcript(self.table)
        self.lines: list[str] = []
        self.node = SeatNode(
            self.ann, store, meta, connector=None, driver=driver,  # type: ignore[arg-type]
            say=lambda n: self.lines.append(english(n)),
        )  # fmt: skip
        self.node.now = lambda: 0.0  # type: ignore[method-assign]  # no trio clock here
        self.node.config, self.node.machine = self.table, self.machines[0]

    def deliver(self, author: Identity, payload: dict[str, Any], **kw: Any) -> None:
        sealed = seal(author, kw.get("table_id", self.invite.table_id), payload)
        if kw.get("bad_signature"):
            sealed["s"] = bytes(64)
        if kw.get("unsigned"):
            sealed = payload
        sender = kw.get("sender", author.public_key)
        self.node.messages.on_hub({"t": "msg", "from": sender, "data": encode(sealed)})

    def quits(self) -> int:
        return self.lines.count(QUIT)

    def sent(self) -> list[dict[str, Any]]:
        out = []
        for message, _size in self.node.outbox:
            data = decode(message["data"])
            if data.get("t") == "sig":
                out.append(unseal(data)[0])
        return out


def test_a_seats_bye_is_said_once_per_hand(tmp_path: Path) -> None:
    table = Table(tmp_path)
    table.deliver(table.bob, {"t": "bye", "hand": 1})
    table.deliver(table.bob, {"t": "bye", "hand": 1})  # a copy through another relay
    assert table.quits() == 1


def test_a_bye_from_anyone_else_or_damaged_says_nothing(tmp_path: Path) -> None:
    table = Table(tmp_path)
    stranger = Identity.generate()
    table.deliver(stranger, {"t": "bye", "hand": 1})  # no seat at the table
    table.deliver(table.bob, {"t": "bye", "hand": 1}, table_id=secrets.token_bytes(16))
    table.deliver(table.bob, {"t": "bye", "hand": 1}, bad_signature=True)
    table.deliver(table.bob, {"t": "bye", "hand": 1}, unsigned=True)
    table.deliver(stranger, {"t": "bye", "hand": 1}, sender=table.bob.public_key)  # forged
    table.deliver(table.ann, {"t": "bye", "hand": 1})  # our own key, echoed back
    assert table.quits() == 0
    assert not any("quit the table" in line for line in table.lines)


def test_a_node_whose_player_quits_says_bye_once(tmp_path: Path) -> None:
    table = Table(tmp_path, driver=Leaving())
    table.node.tick(0.0)
    table.node.tick(0.1)
    byes = [p for p in table.sent() if p["t"] == "bye"]
    assert byes == [{"t": "bye", "hand": table.machines[0].hand}]


def test_no_bye_without_a_quitting_player(tmp_path: Path) -> None:
    table = Table(tmp_path)
    table.node.tick(0.0)
    assert not [p for p in table.sent() if p["t"] == "bye"]
