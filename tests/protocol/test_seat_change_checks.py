"""Every check on a next configuration, by tampering with each field (spec/protocol.md §9):
the next host may add only what a seat change allows, and anything else is refused, naming
what is wrong. Also: a seat change asked for in a game with fixed seats is a violation."""

from __future__ import annotations

import contextlib
import copy
import random
from collections.abc import Callable
from typing import Any

import pytest
from seat_change_sim import start

from dealerless.client.protocol_sim import ProtocolSimError, run_game
from dealerless.protocol.messages import IdentityKey, decode_message, sign_message
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import SeatInfo, TableConfig, TableMachine
from dealerless.protocol.table.audit import audit_records
from dealerless.protocol.table.events import Violation
from dealerless.protocol.table.kinds import TABLE_REGISTRY
from dealerless.protocol.table.segments import (
    Newcomer,
    SeatPlan,
    SegmentError,
    open_next_config,
    sign_next_config,
)

CASH = {"mode": "cash", "hands": 4, "max_buy_in": 10}
Wire = dict[str, Any]


@pytest.fixture(scope="module")
def ended() -> tuple[list[TableMachine], list[IdentityKey], list[bytes]]:
    """A 3-seat cash table after hand 1: seat 2 stood up, seat 1 sits out, seat 0 re-forms."""
    rng = random.Random(11)
    sim = start(make_config("limit-tuppen", 4, CASH), rng)
    sim.machines[2].want_change("stand")
    sim.machines[1].want_change("sit-out")
    sim.machines[0].want_change("reseat")
    run_game(sim, rng)
    return sim.machines, sim.keys, list(sim.machines[0].records)


def good_wire(machines: list[TableMachine]) -> Wire:
    plan = SeatPlan.of(machines[0])
    newcomer = Newcomer(SeatInfo("eve", IdentityKey.generate().peer_id.raw), 5)
    return plan.next_config([newcomer]).to_wire()


def signed(machine: TableMachine, key: IdentityKey, wire: Wire, **envelope: Any) -> bytes:
    fields: dict[str, Any] = {
        "table_id": machine.config.table_id,
        "hand": machine.hand,
        "seq": machine.seq,
        "prev": machine.head,
        "seat": machine.config.seat_of(key.peer_id.raw),
        "kind": "next-config",
        "body": {"config": wire},
    }
    fields.update(envelope)
    return sign_message(key, registry=TABLE_REGISTRY, **fields).frame


# covers: P-43
def test_the_plan_follows_from_the_chain(ended: Any) -> None:
    machines, keys, _ = ended
    plan = SeatPlan.of(machines[3])
    assert plan.stays == (0, 3)
    assert [d.key for d in plan.left] == [keys[2].peer_id.raw]
    assert [d.key for d in plan.away] == [keys[1].peer_id.raw]
    assert plan.host == keys[0].peer_id.raw and plan.reseat
    config = TableConfig.from_wire(good_wire(machines))
    frame = sign_next_config(keys[0], machines[0], config)
    assert open_next_config(machines[3], frame) == config


def _set(path: str, value: Any) -> Callable[[Wire], None]:
    def change(wire: Wire) -> None:
        *parents, last = path.split(".")
        target: Any = wire
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        key: Any = int(last) if isinstance(target, list) else last
        # A function of the old value: a change whatever the deal was (a fixed value may be
        # what the hand happened to leave).
        target[key] = value(target[key]) if callable(value) else value

    return change


def _drop_stayer(wire: Wire) -> None:
    del wire["seats"][1]
    del wire["carry"]["ledgers"][1]
    wire["game"]["players"] -= 1


def _newcomer_is_the_leaver(wire: Wire) -> None:
    wire["seats"][2]["key"] = wire["carry"]["left"][0]["key"]


def _bring_back_with_more(wire: Wire) -> None:
    away = wire["carry"]["away"].pop(0)
    wire["seats"].append({"name": away["name"], "key": away["key"]})
    ledger = dict(away["ledger"])
    ledger["stack"] += 1
    wire["carry"]["ledgers"].append(ledger)
    wire["game"]["players"] += 1


TAMPERED = {
    "another table": (_set("table_id", b"\x01" * 16), "another table"),
    "house rules": (_set("game.options.ante", 2), "game or its house rules"),
    "step timeout": (_set("step_timeout_ms", 1000), "step timeout"),
    "no carry": (lambda w: w.pop("carry"), "carries nothing"),
    "previous head": (_set("carry.previous", b"\x02" * 32), "carry.previous"),
    "segment": (_set("carry.segment", 5), "carry.segment"),
    "hands": (_set("carry.hands", 0), "carry.hands"),
    "chain position": (_set("carry.records", 1), "carry.records"),
    "a stayer's chips": (_set("carry.ledgers.0.stack", lambda v: v + 1), "carry.ledgers"),
    "a stayer's buy-ins": (_set("carry.ledgers.1.bought_in", lambda v: v + 1), "carry.ledgers"),
    "table ledger": (_set("carry.table", {"pot": 3}), "carry.table"),
    "the leaver's chips": (_set("carry.left.0.ledger.stack", lambda v: v + 1), "carry.left"),
    "nobody sits out": (_set("carry.away", []), "carry.away"),
    "a stayer is dropped": (_drop_stayer, "every seat that stays"),
    "stayers reordered": (
        lambda w: w["seats"].reverse(),
        "every seat that stays",
    ),
    "a stayer renamed": (_set("seats.0.name", "mallory"), "every seat that stays"),
    "buy-in over the maximum": (
        _set("carry.ledgers.2", {"stack": 11, "bought_in": 11, "net": 0}),
        "a buy-in must be",
    ),
    "a free stack": (
        _set("carry.ledgers.2", {"stack": 9, "bought_in": 0, "net": 0}),
        "newcomer",
    ),
    "the leaver as newcomer": (_newcomer_is_the_leaver, "listed twice"),
    "back with more chips": (_bring_back_with_more, "carry.ledgers"),
}


# covers: P-44
@pytest.mark.parametrize("name", sorted(TAMPERED))
def test_a_tampered_next_configuration_is_refused(ended: Any, name: str) -> None:
    machines, keys, _ = ended
    wire = copy.deepcopy(good_wire(machines))
    tamper, reason = TAMPERED[name]
    tamper(wire)
    frame = signed(machines[0], keys[0], wire)
    with pytest.raises(SegmentError, match=reason):
        open_next_config(machines[3], frame)


ENVELOPE = {
    "another table": ({"table_id": b"\x05" * 16}, "this segment's last head"),
    "another head": ({"prev": b"\x06" * 32}, "this segment's last head"),
    "another hand": ({"hand": 7}, "hand or sequence"),
    "another seq": ({"seq": 3}, "hand or sequence"),
    "claims a seat": ({"seat": 3}, "claims another seat"),
    "not a next-config": ({"kind": "chat", "body": {"text": "hi"}}, "a chat where"),
}


# covers: P-44
@pytest.mark.parametrize("name", sorted(ENVELOPE))
def test_a_next_configuration_signed_elsewhere_is_refused(ended: Any, name: str) -> None:
    machines, keys, _ = ended
    envelope, reason = ENVELOPE[name]
    frame = signed(machines[0], keys[0], good_wire(machines), **envelope)
    with pytest.raises(SegmentError, match=reason):
        open_next_config(machines[3], frame)


# covers: P-44
def test_the_next_host_cannot_seat_a_leaver_as_new(ended: Any) -> None:
    machines, keys, _ = ended
    plan = SeatPlan.of(machines[0])
    again = Newcomer(SeatInfo("carol", keys[2].peer_id.raw), 5)
    with pytest.raises(SegmentError, match="has been at this table: not new"):
        plan.next_config([again])


# covers: P-44
def test_only_the_next_host_signs_the_next_configuration(ended: Any) -> None:
    machines, keys, _ = ended
    frame = signed(machines[3], keys[3], good_wire(machines))
    with pytest.raises(SegmentError, match="not signed by the next host"):
        open_next_config(machines[0], frame)
    frame = bytearray(signed(machines[0], keys[0], good_wire(machines)))
    frame[-5] ^= 1
    with pytest.raises(SegmentError, match="does not decode"):
        open_next_config(machines[3], bytes(frame))


# covers: P-44
def test_without_a_reseat_nobody_is_added() -> None:
    rng = random.Random(2)
    sim = start(make_config("limit-tuppen", 3, CASH), rng)
    sim.machines[1].want_change("stand")
    run_game(sim, rng)
    plan = SeatPlan.of(sim.machines[0])
    newcomer = Newcomer(SeatInfo("eve", IdentityKey.generate().peer_id.raw), 5)
    with pytest.raises(SegmentError, match="only when a seat asked to re-form"):
        plan.next_config([newcomer])
    wire = plan.next_config().to_wire()
    wire["seats"].append({"name": "eve", "key": newcomer.seat.key})
    wire["carry"]["ledgers"].append({"stack": 5, "bought_in": 5, "net": 0})
    wire["game"]["players"] += 1
    with pytest.raises(SegmentError, match="only when a seat asked to re-form"):
        open_next_config(sim.machines[2], signed(sim.machines[0], sim.keys[0], wire))


# covers: P-44
def test_a_table_left_with_too_few_seats_may_seat_a_newcomer_without_a_reseat() -> None:
    """The host stands up at a 2-seat table and nobody asked to re-form: one seat stays, below
    the game's minimum, so the next host may seat a newcomer (whose hello came too late for the
    last result) rather than end the table; the audit follows."""
    rng = random.Random(2)
    sim = start(make_config("limit-tuppen", 2, CASH), rng)
    sim.machines[0].want_change("stand")
    run_game(sim, rng)
    plan = SeatPlan.of(sim.machines[1])
    assert plan.stays == (1,) and plan.reseat
    newcomer = Newcomer(SeatInfo("eve", IdentityKey.generate().peer_id.raw), 5)
    config = plan.next_config([newcomer])
    assert [s.name for s in config.seats][1] == "eve"
    frame = sign_next_config(sim.keys[1], sim.machines[1], config)
    report = audit_records(sim.table, [*sim.machines[1].records, frame])
    assert report.ok and report.segments == [config], report.failure


# covers: P-44
def test_a_tournament_takes_no_newcomers() -> None:
    rng = random.Random(4)
    sim = start(make_config("limit-tuppen", 3, {"mode": "tournament", "starting_chips": 100}), rng)
    sim.machines[0].want_change("reseat")
    run_game(sim, rng)
    newcomer = Newcomer(SeatInfo("eve", IdentityKey.generate().peer_id.raw), 10)
    with pytest.raises(Exception, match="a tournament takes no newcomers"):
        SeatPlan.of(sim.machines[0]).next_config([newcomer])


# covers: P-42
def test_a_seat_change_in_a_fixed_seat_game_is_a_violation() -> None:
    rng = random.Random(6)
    sim = start(make_config("tuppen", 2, {}), rng)
    honest = sim.bus.broadcast

    def forge(sender: int, frames: list[bytes]) -> None:
        """Seat 1's node re-signs its result with a seat change before it leaves."""
        out = []
        for frame in frames:
            message = decode_message(frame, registry=TABLE_REGISTRY)
            if sender == 1 and message.kind == "result":
                frame = sign_message(
                    sim.keys[1],
                    table_id=message.table_id,
                    hand=message.hand,
                    seq=message.seq,
                    prev=message.prev,
                    seat=1,
                    kind="result",
                    body={**message.body, "change": "stand"},
                    registry=TABLE_REGISTRY,
                ).frame
            out.append(frame)
        honest(sender, out)

    sim.bus.broadcast = forge  # type: ignore[method-assign]
    with contextlib.suppress(ProtocolSimError):
        run_game(sim, rng)
    refused = [e for e in sim.events[0] if isinstance(e, Violation)]
    assert refused and refused[0].culprit == 1
    assert "asked for a seat change (stand) in tuppen" in refused[0].reason
    assert sim.machines[0].seat_change is None


# covers: P-47
def test_the_audit_refuses_a_chain_whose_seat_change_was_forged(ended: Any) -> None:
    machines, keys, records = ended
    wire = good_wire(machines)
    wire["carry"]["ledgers"][0]["stack"] += 5
    frame = signed(machines[0], keys[0], wire)
    report = audit_records(machines[0].config, [*records, frame])
    assert not report.ok and "next configuration refused" in (report.failure or "")
    assert report.culprit == 0  # the next host signed it, wrong where it says
    assert report.failure_record == len(records)
    good = sign_next_config(keys[0], machines[0], TableConfig.from_wire(good_wire(machines)))
    report = audit_records(machines[0].config, [*records, good])
    assert report.ok, report.failure
    stopped = audit_records(machines[0].config, records)
    assert stopped.ok and stopped.complete and stopped.ended_at_change
    assert not [v for v in sim_violations(machines) if v]


def sim_violations(machines: list[TableMachine]) -> list[Violation]:
    return [e for m in machines for e in m.events if isinstance(e, Violation)]
