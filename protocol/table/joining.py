"""A newcomer's check of the running table it is asked to join (spec/protocol.md §9.4).

A newcomer is seated by a later segment's configuration, whose ``carry`` says what every seat
holds. It takes nothing in that carry on trust: it fetches the table's chain from its very start
(the first configuration, which the invite's host signed, and every record up to and including
the ``next-config`` that seats it), judges it as the audit does, and sits down only if the chain
ends with exactly the configuration it was offered. Every stack, buy-in, the pot, who sits out
and who stood up are then what the chain says, checked against the hands that led to them.

    machine = join_table(first, records, offered, key, now=now)

raises :class:`JoinError` naming what is wrong (a field of the carry, or the record that does not
check); its result is the newcomer's machine, rebuilt from that chain and seated.
"""

from __future__ import annotations

from collections.abc import Sequence

from dealerless.protocol.messages import IdentityKey
from dealerless.protocol.table.audit import AuditReport, audit_records
from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.table.events import LocalProtocolError
from dealerless.protocol.table.machine import TableMachine

CARRY_FIELDS = ("previous", "segment", "hands", "records", "ledgers", "table", "away", "left")


class JoinError(Exception):
    """The chain a newcomer was handed does not prove the configuration it was offered."""


def check_chain(first: TableConfig, records: Sequence[bytes], offered: TableConfig) -> AuditReport:
    """Judge the chain from the table's ``first`` configuration through the ``next-config``
    that holds ``offered`` (JoinError if it does not check or ends elsewhere)."""
    _bounds(first, records, offered)
    report = audit_records(first, records)
    if report.failure is not None:
        raise JoinError(
            f"record {report.failure_record} of the table's chain does not check: {report.failure}"
        )
    if not report.segments:
        raise JoinError("the table's chain holds no seat change: nobody was seated there")
    signed = report.segments[-1]
    if signed.to_wire() != offered.to_wire():
        why = _differs(signed, offered)
        raise JoinError(f"the configuration offered is not the chain's: {why}")
    return report


def join_table(
    first: TableConfig,
    records: Sequence[bytes],
    offered: TableConfig,
    key: IdentityKey,
    *,
    now: float = 0.0,
) -> TableMachine:
    """The newcomer's machine, rebuilt from the chain with every check of :func:`check_chain`,
    with its seat in ``offered``. The replay verifies every record as the audit does; only if
    it does not take exactly these records and end in ``offered`` is the chain judged again,
    to say why (so an honest chain is verified once)."""
    _bounds(first, records, offered)
    try:
        machine: TableMachine | None = TableMachine.resume(first, key, records, now=now)
    except LocalProtocolError:
        machine = None
    if (
        machine is None
        or machine.records != list(records)
        or machine.seat is None
        or machine.config.to_wire() != offered.to_wire()
    ):
        check_chain(first, records, offered)  # raises, naming what is wrong
        raise JoinError("the table's chain does not seat us where the configuration says")
    return machine


def _bounds(first: TableConfig, records: Sequence[bytes], offered: TableConfig) -> None:
    if first.carry is not None:
        raise JoinError("the table's first configuration has a carry: it is a later segment")
    if first.table_id != offered.table_id:
        raise JoinError("the table's first configuration is for another table")
    carry = offered.carry
    if carry is None:
        raise JoinError("the configuration offered has no carry: it is not a running table's")
    if len(records) != carry.records:
        raise JoinError(
            f"the chain before our seat holds {len(records)} records, carry.records says "
            f"{carry.records}"
        )


def _differs(signed: TableConfig, offered: TableConfig) -> str:
    """What of ``offered`` is not what the chain signed, by field name."""
    if signed.seats != offered.seats:
        return "its seats are not the ones the chain seated"
    a, b = signed.carry, offered.carry
    assert b is not None
    if a is not None:
        for name in CARRY_FIELDS:
            if getattr(a, name) != getattr(b, name):
                return f"carry.{name} is not what the chain says"
    return "it differs from the one the chain's last seat change signed"
