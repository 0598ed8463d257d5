"""A newcomer checks the running table it joins from the table's start (issue 22): the chain
through the ``next-config`` that seats it must check as the audit checks it, and end with exactly
the configuration it was offered. A next host (with any seat) that inflates a stack or changes
the pot is refused with the field named, whether it signed that configuration into a chain or
only offered it; so is a chain with one changed byte, one cut short, or one that starts at a
later segment. The honest newcomer's machine is seated and its transcript audits from the start.
Real keys, deck and signatures among in-memory peers."""

from __future__ import annotations

import random
from typing import Any

import pytest
from seat_change_sim import next_segment, play_segment, start

from dealerless.client.protocol_sim import run_game
from dealerless.protocol.messages import IdentityKey, sign_message
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import SeatInfo, TableConfig, TableMachine
from dealerless.protocol.table.audit import audit_records
from dealerless.protocol.table.joining import JoinError, check_chain, join_table
from dealerless.protocol.table.kinds import TABLE_REGISTRY
from dealerless.protocol.table.segments import Newcomer, SeatPlan, sign_next_config

CASH = {"mode": "cash", "hands": 4, "max_buy_in": 10}
Wire = dict[str, Any]


class Ended:
    """A table whose first segment ended for a seat change; ``eve`` is to sit down."""

    def __init__(
        self, game: str, players: int, options: dict[str, Any], seed: int, buy_in: int
    ) -> None:
        rng = random.Random(seed)
        sim = start(make_config(game, players, options), rng)
        sim.machines[players - 1].want_change("stand")
        sim.machines[0].want_change("reseat")
        run_game(sim, rng)
        self.sim, self.rng = sim, rng
        self.host = sim.machines[0]
        self.records = list(self.host.records)
        self.eve = IdentityKey.generate()
        plan = SeatPlan.of(self.host)
        self.config = plan.next_config([Newcomer(SeatInfo("eve", self.eve.peer_id.raw), buy_in)])

    def signed(self, wire: Wire) -> bytes:
        """The next host's ``next-config`` holding ``wire``, whatever it says."""
        machine, key = self.host, self.sim.keys[0]
        return sign_message(
            key,
            table_id=machine.config.table_id,
            hand=machine.hand,
            seq=machine.seq,
            prev=machine.head,
            seat=0,
            kind="next-config",
            body={"config": wire},
            registry=TABLE_REGISTRY,
        ).frame

    def chain(self) -> list[bytes]:
        return [*self.records, sign_next_config(self.sim.keys[0], self.host, self.config)]


@pytest.fixture(scope="module")
def cash() -> Ended:
    return Ended("limit-tuppen", 3, CASH, 21, buy_in=5)


@pytest.fixture(scope="module")
def pot() -> Ended:
    return Ended("pottuppen", 3, {"hands": 3}, 5, buy_in=0)


# covers: P-46
def test_the_honest_chain_seats_the_newcomer_with_the_table_behind_it(cash: Ended) -> None:
    chain = cash.chain()
    machine = join_table(cash.sim.table, chain, cash.config, cash.eve)
    assert machine.seat == 2 and machine.config == cash.config
    assert machine.chain_base == 0 and machine.records[: len(chain)] == chain
    assert machine.engine.seat_ledger(2) == {"stack": 5, "bought_in": 5, "net": 0}


def test_the_newcomers_transcript_audits_from_the_tables_start() -> None:
    rng = random.Random(7)
    sim = start(make_config("limit-tuppen", 3, CASH), rng)
    play_segment(sim, rng, {2: "stand", 0: "reseat"})
    second = next_segment(sim, rng, newcomers=[("dora", 7)])
    play_segment(second, rng, {})
    dora = second.machines[2]
    assert dora.chain_base == 0 and dora.records == second.machines[0].records
    report = audit_records(sim.table, dora.records)
    assert report.ok and report.complete, report.failure
    assert [h.hand for h in report.hands] == [1, 2, 3, 4] and len(report.segments) == 1


def _inflate(wire: Wire) -> None:
    wire["carry"]["ledgers"][0]["stack"] += 5


def _pot(wire: Wire) -> None:
    wire["carry"]["table"]["pot"] = wire["carry"]["table"].get("pot", 0) + 3


def _stood_up_with_less(wire: Wire) -> None:
    wire["carry"]["left"][0]["ledger"]["stack"] -= 1


TAMPERS = pytest.mark.parametrize(
    ("fixture", "tamper", "field"),
    [
        ("cash", _inflate, "ledgers"),
        ("cash", _stood_up_with_less, "left"),
        ("pot", _pot, "table"),
    ],
    ids=["inflated-stack", "leaver-robbed", "pot"],
)


# covers: P-46
@TAMPERS
def test_a_next_host_that_signs_other_chips_into_the_chain_is_refused(
    request: pytest.FixtureRequest, fixture: str, tamper: Any, field: str
) -> None:
    ended: Ended = request.getfixturevalue(fixture)
    wire = ended.config.to_wire()
    tamper(wire)
    forged = TableConfig.from_wire(wire)
    with pytest.raises(JoinError, match=rf"carry\.{field} does not follow"):
        check_chain(ended.sim.table, [*ended.records, ended.signed(wire)], forged)


# covers: P-46
@TAMPERS
def test_an_offer_other_than_the_chains_configuration_is_refused(
    request: pytest.FixtureRequest, fixture: str, tamper: Any, field: str
) -> None:
    ended: Ended = request.getfixturevalue(fixture)
    wire = ended.config.to_wire()
    tamper(wire)
    with pytest.raises(JoinError, match=rf"carry\.{field} is not what the chain says"):
        check_chain(ended.sim.table, ended.chain(), TableConfig.from_wire(wire))


# covers: P-46
def test_a_chain_with_one_changed_byte_is_refused_at_that_record(cash: Ended) -> None:
    chain = cash.chain()
    for number in (0, len(chain) // 2, len(chain) - 1):
        broken = list(chain)
        frame = bytearray(broken[number])
        frame[len(frame) // 2] ^= 1
        broken[number] = bytes(frame)
        with pytest.raises(JoinError, match=rf"record {number} of the table's chain"):
            check_chain(cash.sim.table, broken, cash.config)


# covers: P-46
def test_a_chain_cut_short_or_from_a_later_segment_is_refused(cash: Ended) -> None:
    chain = cash.chain()
    with pytest.raises(JoinError, match=r"holds 10 records, carry\.records says"):
        check_chain(cash.sim.table, chain[:10], cash.config)
    with pytest.raises(JoinError, match="first configuration has a carry"):
        check_chain(cash.config, chain, cash.config)
    other = TableConfig(bytes(16), cash.sim.table.game, cash.sim.table.seats)
    with pytest.raises(JoinError, match="for another table"):
        check_chain(other, chain, cash.config)


# covers: P-46
def test_a_made_up_first_configuration_does_not_carry_the_real_chain(cash: Ended) -> None:
    """Someone at the table (not its first host) names itself seat 0 of the first configuration:
    the seats' signatures on the real chain do not follow from it."""
    real = cash.sim.table
    seats = (real.seats[1], real.seats[0], *real.seats[2:])
    made_up = TableConfig(real.table_id, real.game, seats, real.step_timeout_ms)
    with pytest.raises(JoinError, match="record 0 of the table's chain does not check"):
        check_chain(made_up, cash.chain(), cash.config)


def test_a_machine_that_is_not_a_newcomers_replay_still_needs_a_seat(cash: Ended) -> None:
    from dealerless.protocol.table.events import LocalProtocolError

    with pytest.raises(LocalProtocolError, match="no seat at the table"):
        TableMachine(cash.sim.table, cash.eve)
    stopped = TableMachine.resume(cash.sim.table, cash.eve, cash.records)
    assert stopped.seat is None  # the chain never seated it: join_table refuses that
    with pytest.raises(JoinError, match=r"holds no seat change|carry\.records says"):
        join_table(cash.sim.table, cash.records, cash.config, cash.eve)
