"""A signed frame that does not decode is its author's violation once, where it was signed.

Found by tests/adversarial/test_hostile_peers.py::test_signed_malformed_message: a copy of the
same malformed frame (a relay, a peer's catch-up) reached the honest seats again after the
certificate; they refused it again and voted at their current head, so a second abort
certificate voided the next step (there: the result round) for a frame that was never part of
it. Now a refused frame is taken once, and its vote is anchored at the head it names."""

from __future__ import annotations

from hostile import HostileTable, raw_frame

from dealerless.protocol.rules.registry import make_config

HOSTILE = 1


def _malformed_turn() -> tuple[HostileTable, bytes, bytes]:
    """Limit Tuppen, 3 seats, 2 hands: at seat 1's first turn it signs an action whose body is
    an array; the honest seats convict it and hand 1 is voided. Returns the table, the frame
    and the head it was signed at."""
    for seed in range(20):
        ht = HostileTable(make_config("limit-tuppen", 3, {"hands": 2}), seed, HOSTILE)
        if not ht.play(lambda t: t.hostile_to_act()):
            continue
        ht.hold_now()
        ref = ht.ref
        signed_at = ref.head
        frame = raw_frame(
            ht.key,
            table_id=ht.sim.table.table_id,
            hand=ref.hand,
            seq=ref.seq,
            prev=signed_at,
            seat=HOSTILE,
            kind="action",
            body=[1, 2, 3],
        )
        ht.send(frame)
        return ht, frame, signed_at
    raise AssertionError("seat 1 never had a turn")


def _votes_against(ht: HostileTable, seat: int) -> int:
    return sum(1 for v in ht.violations(seat) if v.culprit == HOSTILE and "undecodable" in v.reason)


def test_a_copy_of_a_refused_undecodable_frame_is_not_blamed_again() -> None:
    ht, frame, _ = _malformed_turn()
    ht.assert_refused(frame, HOSTILE)
    for seat in ht.honest:
        assert len(ht.aborted_results(seat)) == 1, seat
        assert _votes_against(ht, seat) == 1
    hand, head = ht.ref.hand, ht.ref.head
    ht.send(frame)  # the same bytes again, one step later
    for seat in ht.honest:
        assert _votes_against(ht, seat) == 1, "refused a second time"
        assert len(ht.aborted_results(seat)) == 1, "a second hand voided for one frame"
    assert (ht.ref.hand, ht.ref.head) == (hand, head)
    ht.assert_converged()
    ht.audit()


def test_an_undecodable_frame_is_anchored_where_it_was_signed() -> None:
    """A second malformed frame signed at the head where the first one was refused (a head the
    certificate already settled): reported, but no vote at the honest seats' later head."""
    ht, _, signed_at = _malformed_turn()
    certified = ht.ref.head
    second = raw_frame(
        ht.key,
        table_id=ht.sim.table.table_id,
        hand=1,
        seq=ht.ref.seq - 1,
        prev=signed_at,
        seat=HOSTILE,
        kind="action",
        body=[4, 5, 6],
    )
    ht.send(second)
    for seat in ht.honest:
        found = [v for v in ht.violations(seat) if second in v.evidence]
        assert found and all(v.culprit == HOSTILE for v in found)
        assert len(ht.aborted_results(seat)) == 1, "the settled head was voided again"
    assert ht.ref.head == certified
    ht.assert_converged()
    ht.audit()
