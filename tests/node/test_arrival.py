"""The newcomer's offers while it fetches a running table's chain (node/arrival.py): records
are kept in order per sender and up to the offer's length; every bound (offers, records, bytes,
time) holds, and a refused sender is not heard again."""

from __future__ import annotations

import secrets

from dealerless.node.arrival import (
    ASK_EVERY,
    EARLY_ASK_EVERY,
    OFFERS_KEPT,
    PREFIX_BYTES_MAX,
    PREFIX_RECORDS_MAX,
    STALL,
    Arrival,
    Offer,
)
from dealerless.protocol.messages import IdentityKey
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import SeatInfo, TableConfig
from dealerless.protocol.table.carry import Carry

GAME = make_config("limit-tuppen", 2, {"mode": "cash"})


def offer(records: int, sender: bytes | None = None) -> Offer:
    seats = tuple(SeatInfo(f"s{i}", IdentityKey.generate().peer_id.raw) for i in range(2))
    carry = Carry(bytes(32), 1, 1, records, ((), ()), (), (), ())
    config = TableConfig(bytes(16), GAME, seats, carry=carry)
    first = TableConfig(bytes(16), GAME, seats)
    return Offer(sender or secrets.token_bytes(32), config, b"", first, b"", heard=0.0)


def test_records_are_kept_in_order_and_up_to_the_offers_length() -> None:
    arrival = Arrival()
    one = offer(3)
    assert arrival.take(one) == "" and arrival.expects(one.sender)
    arrival.add(one.sender, 1, [b"b"], 1.0)  # a gap: not kept
    assert one.records == []
    arrival.add(one.sender, 0, [b"a", b"b"], 1.0)
    arrival.add(one.sender, 1, [b"b", b"c", b"d"], 2.0)  # overlap and beyond the length
    assert one.records == [b"a", b"b", b"c"] and one.complete and one.heard == 2.0
    assert not arrival.expects(one.sender)
    assert arrival.next_to_check() is one and arrival.next_to_check() is None  # one at a time
    arrival.refuse(one.sender)
    assert arrival.take(offer(3, one.sender)) == "its sender's chain did not check before"


def test_offers_are_bounded_in_number_records_bytes_and_time() -> None:
    arrival = Arrival()
    assert "more than the" in arrival.take(offer(PREFIX_RECORDS_MAX + 1))
    kept = [offer(2) for _ in range(OFFERS_KEPT)]
    assert all(arrival.take(o) == "" for o in kept)
    assert "already" in arrival.take(offer(2))
    big = kept[0]
    why = arrival.add(big.sender, 0, [bytes(PREFIX_BYTES_MAX // 2 + 1)] * 2, 1.0)
    assert "MiB" in why and big.sender not in arrival.offers
    quiet = kept[1]
    ask, stalled = arrival.due(ASK_EVERY)
    assert quiet in ask and not stalled
    ask, stalled = arrival.due(STALL)
    assert quiet in stalled and quiet.sender not in arrival.offers


def test_the_chain_fetched_early_counts_for_that_seats_offer_only() -> None:
    arrival = Arrival()
    host, other = secrets.token_bytes(32), secrets.token_bytes(32)
    assert arrival.wait_at(host, 0.0) and not arrival.wait_at(host, 1.0)
    arrival.add(host, 0, [b"a", b"b"], 1.0)
    assert arrival.early_due(1.0) == [] and arrival.early_due(EARLY_ASK_EVERY) == [(host, 2)]
    from_other = offer(3, other)
    arrival.take(from_other)
    assert from_other.records == []  # another seat's early records are not mixed in
    from_host = offer(3, host)
    arrival.take(from_host)
    assert from_host.records == [b"a", b"b"] and host not in arrival.early


def test_a_senders_new_configuration_replaces_its_offer_and_its_changed_records() -> None:
    """A seat offers another configuration than before (a late certificate voided the one it
    offered, protocol.md P-52): the new offer replaces the old and keeps the records fetched so
    far; records that differ from those held replace them from there on."""
    arrival = Arrival()
    first = offer(4)
    arrival.take(first)
    arrival.add(first.sender, 0, [b"a", b"b", b"x"], 1.0)
    again = offer(4, first.sender)
    assert arrival.take(offer(4, first.sender)) == ""  # another configuration: taken
    assert arrival.take(again) == "" and arrival.offers[first.sender] is again
    assert again.records == [b"a", b"b", b"x"]
    assert "already" in arrival.take(again)  # the same configuration again: nothing new
    arrival.add(first.sender, 2, [b"c", b"d"], 2.0)  # its chain from the fork on
    assert again.records == [b"a", b"b", b"c", b"d"] and again.complete
    assert again.size == 4
