"""The chain part of the table machine (protocol/table/chain.py) on its own."""

from __future__ import annotations

import pytest

from dealerless.protocol.table.chain import Chain, HandMark


def _digest(n: int) -> bytes:
    return bytes([n]) * 32


def _chain_in_a_hand() -> Chain:
    chain = Chain()
    chain.enter_segment(_digest(0))
    chain.append([b"config-1", b"config-2"], _digest(1))
    chain.start_hand()
    chain.append([b"commit"], _digest(2))
    chain.append([b"vote-a", b"vote-b"], _digest(3))  # a certificate: two records, one element
    chain.append([b"reveal"], _digest(4))
    return chain


def test_elements_move_the_head_and_number_the_next_one() -> None:
    chain = _chain_in_a_hand()
    assert chain.head == _digest(4) and chain.seq == 4
    assert chain.hand_mark == HandMark(_digest(1), 1, 2)
    assert [chain.seq_after(_digest(n)) for n in (1, 2, 3, 4)] == [1, 2, 3, 4]
    assert chain.hand_heads() == [_digest(2), _digest(3), _digest(4)]
    assert {_digest(n) for n in range(5)} == chain.history  # the segment's first head too
    with pytest.raises(StopIteration):
        chain.seq_after(_digest(9))


def test_a_roll_back_returns_the_hand_up_to_the_anchor_and_cuts_the_rest() -> None:
    chain = _chain_in_a_hand()
    assert chain.can_rollback_to(_digest(3)) and not chain.can_rollback_to(_digest(0))
    assert chain.cut_to_hand_start(_digest(3)) == [b"commit", b"vote-a", b"vote-b"]
    assert chain.head == _digest(1) and chain.seq == 1
    assert chain.records == [b"config-1", b"config-2"]
    assert chain.take_unsaved() == []  # the node cuts its file: nothing new to store
    chain.append([b"other-commit"], _digest(5))
    assert chain.hand_heads() == [_digest(5)] and chain.seq_after(_digest(1)) == 1


def test_records_to_store_are_taken_once_and_may_be_held_back() -> None:
    chain = _chain_in_a_hand()
    assert chain.unsaved_count == 6
    assert chain.take_unsaved(2) == [b"config-1", b"config-2"]
    chain.add_record(b"next-config")  # not a chain element: the head stays
    assert chain.head == _digest(4) and chain.seq == 4
    assert chain.take_unsaved() == [b"commit", b"vote-a", b"vote-b", b"reveal", b"next-config"]
    assert chain.take_unsaved() == []


def test_writers_and_arrival_times_are_kept_per_head_of_the_hand() -> None:
    chain = _chain_in_a_hand()
    chain.note_head(frozenset({1}), 5.0)
    chain.note_head(frozenset({2}), 7.0)  # the first arrival time stands
    assert chain.writers_at(_digest(4)) == frozenset({2}) and chain.reached_at(_digest(4)) == 5.0
    chain.start_hand()  # the hand before stays known (a roll-back may reach into it)
    assert chain.writers_at(_digest(4)) == frozenset({2}) and chain.reached_at(_digest(4)) == 5.0
    chain.append([b"commit"], _digest(5))
    chain.start_hand()
    assert chain.writers_at(_digest(4)) is None and chain.reached_at(_digest(4)) is None


def test_a_roll_back_reaches_into_the_hand_before_and_no_further() -> None:
    chain = _chain_in_a_hand()  # hand from head 1: commit (2), votes (3), reveal (4)
    chain.start_hand()
    chain.append([b"next-commit"], _digest(5))
    assert not chain.can_rollback_to(_digest(3))  # a certificate of a hand is in-hand only
    assert chain.can_rollback_to(_digest(3), across_hand=True) and chain.crosses_hand(_digest(3))
    assert not chain.crosses_hand(_digest(4))  # the running hand's start: no crossing
    assert chain.cut_to_hand_start(_digest(3)) == [b"commit", b"vote-a", b"vote-b"]
    assert (
        chain.head == _digest(1) and chain.seq == 1 and chain.records == [b"config-1", b"config-2"]
    )
    assert chain.hand_mark == HandMark(_digest(1), 1, 2)
    assert not chain.can_rollback_to(_digest(0), across_hand=True)  # the segment's start
    chain.append([b"commit-2"], _digest(6))
    chain.start_hand()
    chain.append([b"x"], _digest(7))
    chain.start_hand()
    assert chain.can_rollback_to(_digest(6), across_hand=True)  # where the hand before began
    assert not chain.can_rollback_to(_digest(1), across_hand=True)  # two hands back: never
