"""The chain part of the table machine (protocol/table/chain.py) on its own."""

from __future__ import annotations

import pytest

from dealerless.protocol.table.chain import ROLLBACK_HANDS, Chain, HandMark


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
    with pytest.raises(KeyError):
        chain.seq_after(_digest(9))


def test_a_roll_back_returns_the_hand_up_to_the_anchor_and_cuts_the_rest() -> None:
    chain = _chain_in_a_hand()
    assert chain.can_rollback_to(_digest(3)) and not chain.can_rollback_to(_digest(0))
    assert chain.cut_to_hand_start(_digest(3)) == [
        [b"commit"],
        [b"vote-a", b"vote-b"],  # one element: the certificate's two votes
    ]
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


def test_writers_and_arrival_times_are_kept_as_far_back_as_a_roll_back_reaches() -> None:
    chain = _chain_in_a_hand()
    chain.note_head(frozenset({1}), 5.0)
    chain.note_head(frozenset({2}), 7.0)  # the first arrival time stands
    assert chain.writers_at(_digest(4)) == frozenset({2}) and chain.reached_at(_digest(4)) == 5.0
    for n in range(ROLLBACK_HANDS):  # the hand stays known while a roll-back may reach it
        chain.start_hand()
        assert chain.writers_at(_digest(4)) == frozenset({2}), n
        assert chain.reached_at(_digest(4)) == 5.0
        chain.append([b"commit"], _digest(10 + n))
    chain.start_hand()
    assert chain.writers_at(_digest(4)) is None and chain.reached_at(_digest(4)) is None


def _hands_after(chain: Chain, count: int) -> None:
    """``count`` more hands of one element each (heads 10, 11, ...), the last one running."""
    for n in range(count):
        chain.start_hand()
        chain.append([f"hand-{n}".encode()], _digest(10 + n))


def test_a_roll_back_reaches_back_several_hands_and_the_hands_after_are_void() -> None:
    chain = _chain_in_a_hand()  # hand from head 1: commit (2), votes (3), reveal (4)
    _hands_after(chain, 3)  # hands at heads 4 -> 10, 10 -> 11, 11 -> 12 (running)
    assert not chain.can_rollback_to(_digest(3))  # a certificate of a hand is in-hand only
    assert chain.hands_back(_digest(3)) == 3 and chain.hands_back(_digest(10)) == 1
    assert chain.hands_back(_digest(11)) == 0  # the running hand's start: no crossing
    assert chain.seq_after(_digest(3)) == 3 and chain.seq_after(_digest(10)) == 5
    assert chain.writers_at(_digest(3)) is None  # never noted here, and nothing else answers
    assert chain.cut_to_hand_start(_digest(3)) == [
        [b"commit"],
        [b"vote-a", b"vote-b"],
    ]
    assert chain.head == _digest(1) and chain.seq == 1
    assert chain.records == [b"config-1", b"config-2"]
    assert chain.hand_mark == HandMark(_digest(1), 1, 2)
    assert chain.rollback_floor() == 0  # the configuration round, still kept
    assert not chain.can_rollback_to(_digest(10), across_hand=True)  # void with its hand
    # The configuration round counts as a hand: still kept, its start one hand back.
    assert chain.hands_back(_digest(0)) == 1


def test_a_roll_back_reaches_no_further_than_the_kept_hands() -> None:
    chain = _chain_in_a_hand()
    _hands_after(chain, ROLLBACK_HANDS)
    assert chain.hands_back(_digest(3)) == ROLLBACK_HANDS
    assert chain.can_rollback_to(_digest(3), across_hand=True)
    records_before = len(chain.records)
    chain.start_hand()
    chain.append([b"one-more"], _digest(99))
    assert not chain.can_rollback_to(_digest(3), across_hand=True)  # one hand too far back
    assert chain.hands_back(_digest(3)) == 0
    assert chain.can_rollback_to(_digest(10), across_hand=True)
    assert chain.rollback_floor() == 6  # config (2) + the first hand's four records
    assert len(chain.records) == records_before + 1
