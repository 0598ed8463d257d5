"""The check at the end of a game (issue 27): a seat replays its transcript without redoing the
zero-knowledge proofs it verified as each record came (``TableMachine.confirm``). Everything
else is checked again: a forged signature, a broken chain, a key reveal that does not open
its commitment, a shuffle of the wrong shape, a move against the rules. Only the proofs are
taken as checked, and ``resume`` (what ``dealerless audit`` runs) still redoes them."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import pytest

from dealerless.client.protocol_sim import ProtocolGame, run_game, start_game
from dealerless.protocol.messages import SignedMessage, decode_message, sign_message
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.events import LocalProtocolError
from dealerless.protocol.table.kinds import TABLE_REGISTRY


@pytest.fixture(scope="module")
def game() -> ProtocolGame:
    rng = random.Random(4)
    sim = start_game(make_config("limit-tuppen", 3, {"hands": 3}), rng)
    run_game(sim, rng)
    return sim


def decoded(frame: bytes) -> SignedMessage:
    return decode_message(frame, registry=TABLE_REGISTRY)


def first(sim: ProtocolGame, kind: str, seat: int) -> int:
    records = sim.machines[0].records
    return next(
        i for i, f in enumerate(records) if decoded(f).kind == kind and decoded(f).seat == seat
    )


def resigned(sim: ProtocolGame, index: int, change: Callable[[dict[str, Any]], None]) -> bytes:
    """Record ``index`` with its body changed and signed again by its own seat's key: valid
    signature, same place in the chain."""
    message = decoded(sim.machines[0].records[index])
    assert message.seat is not None
    body = copy.deepcopy(dict(message.body))
    change(body)
    return sign_message(
        sim.keys[message.seat], table_id=message.table_id, hand=message.hand, seq=message.seq,
        prev=message.prev, seat=message.seat, kind=message.kind, body=body,
        registry=TABLE_REGISTRY,
    ).frame  # fmt: skip


def test_confirm_ends_in_the_state_every_seat_holds(game: ProtocolGame) -> None:
    for machine in game.machines:
        confirmed = TableMachine.confirm(game.table, list(machine.records))
        assert confirmed.over and confirmed.state_hash() == machine.state_hash()


def test_a_tampered_signature_or_a_broken_chain_is_refused(game: ProtocolGame) -> None:
    records = list(game.machines[0].records)
    tampered = bytearray(records[40])
    tampered[-3] ^= 1
    with pytest.raises(LocalProtocolError, match="record 40 does not replay"):
        TableMachine.confirm(game.table, [*records[:40], bytes(tampered), *records[41:]])
    with pytest.raises(LocalProtocolError, match="does not replay"):
        TableMachine.confirm(game.table, [*records[:40], *records[41:]])


def test_a_key_reveal_that_does_not_open_its_commitment_is_refused(game: ProtocolGame) -> None:
    index = first(game, "key-reveal", 1)

    def other_nonce(body: dict[str, Any]) -> None:
        nonce = bytearray(body["reveal"]["nonce"])
        nonce[0] ^= 1
        body["reveal"]["nonce"] = bytes(nonce)

    records = list(game.machines[0].records[:index])
    with pytest.raises(LocalProtocolError, match=f"record {index} does not replay"):
        TableMachine.confirm(game.table, [*records, resigned(game, index, other_nonce)])


def test_a_shuffle_of_the_wrong_shape_is_refused(game: ProtocolGame) -> None:
    index = first(game, "shuffle", 2)

    def short_deck(body: dict[str, Any]) -> None:
        body["shuffle"]["deck"] = body["shuffle"]["deck"][:-1]

    records = list(game.machines[0].records[:index])
    with pytest.raises(LocalProtocolError, match=f"record {index} does not replay"):
        TableMachine.confirm(game.table, [*records, resigned(game, index, short_deck)])


def test_only_the_proofs_are_taken_as_checked(game: ProtocolGame) -> None:
    """A shuffle whose proof does not verify: the audit's full replay refuses it; confirm
    does not look at proofs, which is why a node confirms only records it verified itself."""
    index = first(game, "shuffle", 1)

    def bad_proof(body: dict[str, Any]) -> None:
        s = bytearray(body["shuffle"]["proof"]["s"][0])
        s[-1] ^= 1
        body["shuffle"]["proof"]["s"][0] = bytes(s)

    records = [*game.machines[0].records[:index], resigned(game, index, bad_proof)]
    with pytest.raises(LocalProtocolError, match=f"record {index} does not replay"):
        TableMachine.resume(game.table, None, records)
    assert len(TableMachine.confirm(game.table, records).records) == index + 1


def test_the_check_at_the_end_never_rolls_back(game: ProtocolGame) -> None:
    """It keeps no hand's start (no copy of the rules per hand): a roll-back asked of it, which
    one chain of our own records never asks, is refused with a clear error, not replayed from
    a start it does not hold. An auditor's machine rolls back as before."""
    records = game.machines[0].records
    confirmed = TableMachine.confirm(game.table, records[:-3])
    earlier = confirmed.chain.hand_heads()[1]  # a head of the running hand, behind the last
    with pytest.raises(LocalProtocolError, match="fork in our records"):
        confirmed.rollback_to(earlier)
    audited = TableMachine.resume(game.table, None, records[:-3])
    audited.rollback_to(earlier)
    assert audited.head == earlier
