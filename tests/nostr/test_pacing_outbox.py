"""The parts of the Nostr writer that are pure: the pace, the outbox and its batches, proof of
work, and fair fragment reassembly."""

from __future__ import annotations

import hashlib
import itertools
import secrets

import pytest

from dealerless.node.nostr.event import NostrKey, verify_event
from dealerless.node.nostr.fragments import FragmentError, Reassembler, cut
from dealerless.node.nostr.gates import (
    MAX_AFFORDABLE_POW,
    auth_event,
    expiration_tag,
    leading_zero_bits,
    mine,
)
from dealerless.node.nostr.outbox import (
    AHEAD,
    CATCH_UP,
    MAX_ENTRIES,
    TABLE,
    BatchError,
    Entry,
    Outbox,
    decode_batch,
    encode_batch,
)
from dealerless.node.nostr.pacing import Pace, PaceSettings

FRAME, CHATTER = 4318, 24318


# ---------------------------------------------------------------- pace
def _sent_within(pace: Pace, start: float, seconds: float, step: float = 0.01) -> int:
    """How many events leave in ``seconds`` when the writer sends as soon as it may."""
    now, sent = start, 0
    while now < start + seconds:
        while pace.ready_at(now) <= now:
            pace.spend(now)
            pace.took(now)
            sent += 1
        now += step
    return sent


def test_a_fresh_relay_gets_a_burst_then_the_sustained_rate() -> None:
    settings = PaceSettings(burst=12, rate=3, ceiling=3)
    pace = Pace(settings, now=0.0)
    assert _sent_within(pace, 0.0, 0.001) == 12  # the burst, at once
    assert _sent_within(pace, 0.001, 10.0) in range(29, 32)  # then 3 a second


def test_the_rate_grows_while_the_relay_takes_everything_but_not_past_a_refusal() -> None:
    pace = Pace(PaceSettings(burst=12, rate=3, ceiling=10), now=0.0)
    _sent_within(pace, 0.0, 30.0)
    assert pace.rate == pytest.approx(10)  # an open relay: up to the ceiling
    pace.pushed_back(30.0)
    assert pace.ceiling == pytest.approx(9)  # below the refused rate, for good
    _sent_within(pace, 31.0, 120.0)
    assert pace.rate <= 9


def test_a_refusal_cuts_to_what_the_relay_took_and_waits() -> None:
    pace = Pace(PaceSettings(burst=12, rate=3), now=0.0)
    for t in range(8):  # a relay that allows 8 a minute took 8 ...
        pace.spend(float(t))
        pace.took(float(t))
    pace.pushed_back(60.0)  # ... and refused the 9th, 60 s after the start
    assert pace.rate == pytest.approx(0.9 * 8 / 60)  # a margin below what it took
    assert pace.ready_at(60.0) >= 60.0 + 1 / pace.rate - 1e-9  # a full period first
    assert pace.throttled(61.0) and not pace.throttled(200.0)


def test_every_refusal_cuts_and_recovery_is_slow() -> None:
    pace = Pace(PaceSettings(burst=12, rate=3), now=0.0)
    pace.pushed_back(100.0)  # nothing taken in the window: at most 1 a second after a refusal
    assert pace.rate == pytest.approx(1.0)
    pace.pushed_back(100.5)
    assert pace.rate == pytest.approx(0.7)
    pace.pushed_back(101.0)
    assert pace.rate == pytest.approx(0.49)
    assert pace.ceiling == pytest.approx(0.63)  # 90 % of the last refused rate
    for _ in range(10):
        pace.took(101.0)
    assert 0.49 < pace.rate < 0.64  # a few percent per accepted event, not a jump back
    for _ in range(100):
        pace.took(102.0)
    assert pace.rate == pytest.approx(pace.ceiling)  # and never past the ceiling
    for _ in range(20):
        pace.pushed_back(103.0)
    assert pace.rate == pytest.approx(PaceSettings().floor)  # never below the floor


def test_the_ceiling_never_falls_below_what_the_relay_takes() -> None:
    pace = Pace(PaceSettings(burst=12, rate=3), now=0.0)
    for t in range(120):  # the relay took one event a second for two minutes
        pace.took(float(t))
    for t in (120.0, 125.0, 130.0, 135.0):  # and then refuses now and then anyway
        pace.pushed_back(t, sent=t - 0.1)
    assert pace.ceiling >= 0.9 * 45 / 60 - 1e-9  # what it took in the last minute (75-119 s)


# ---------------------------------------------------------------- outbox and batches
def test_what_waits_leaves_as_one_batch_per_kind_frames_first() -> None:
    box = Outbox()
    have = Entry(CHATTER, b"have", priority=CATCH_UP)
    hello = Entry(CHATTER, b"hello")
    frames = [Entry(FRAME, b"f%d" % i) for i in range(3)]
    for entry in (have, frames[0], hello, frames[1], frames[2]):
        assert box.put(entry)
    assert box.take(10_000) == frames  # the head's kind, in order
    assert box.take(10_000) == [hello, have]  # the table's message before catch-up
    assert box.take(10_000) == [] and box.bytes == 0


def test_a_batch_fits_its_budget_and_a_big_entry_goes_alone() -> None:
    box = Outbox()
    small = [Entry(FRAME, bytes(100)) for _ in range(10)]
    big = Entry(FRAME, bytes(50_000))
    for entry in (*small, big):
        box.put(entry)
    first = box.take(600)
    assert first == small[: len(first)] and sum(e.size for e in first) <= 600
    while box.queues[0][0] is not big:
        box.take(600)
    assert box.take(600) == [big]  # alone, to be cut into fragments


def test_a_newer_have_replaces_a_queued_one_and_catch_up_can_wait() -> None:
    box = Outbox()
    old = Entry(CHATTER, b"have 3", priority=CATCH_UP, replace=b"have:")
    new = Entry(CHATTER, b"have 9", priority=CATCH_UP, replace=b"have:")
    other = Entry(CHATTER, b"have 9 to bob", priority=CATCH_UP, replace=b"have:bob")
    frame = Entry(FRAME, b"f")
    for entry in (old, frame, new, other):
        box.put(entry)
    assert len(box) == 3 and old not in box.queues[CATCH_UP]
    assert box.waiting(catch_up=False) == 1
    assert box.take(10_000, catch_up=False) == [frame]  # a throttled relay: frames only
    assert box.take(10_000, catch_up=False) == [] and len(box) == 2  # catch-up waits
    assert box.take(10_000) == [new, other]
    assert len(box) == 0 and box.bytes == 0


def test_a_count_for_every_seat_replaces_every_queued_count() -> None:
    box = Outbox()
    to_bob = Entry(CHATTER, b"have 3 to bob", priority=CATCH_UP, replace=b"have:bob")
    to_eve = Entry(CHATTER, b"have 3 to eve", priority=CATCH_UP, replace=b"have:eve")
    hello = Entry(CHATTER, b"hello")
    for entry in (to_bob, to_eve, hello):
        box.put(entry)
    everyone = Entry(CHATTER, b"have 9", priority=CATCH_UP, replace=b"have:")
    box.put(everyone)
    assert box.take(10_000) == [hello, everyone]
    box.put(everyone)
    box.put_back([to_bob])  # a directed count taken earlier is stale beside it
    assert list(box.queues[CATCH_UP]) == [everyone]


def test_a_count_that_could_not_leave_in_time_is_dropped() -> None:
    box = Outbox()
    stale = Entry(CHATTER, b"have 3", priority=CATCH_UP, replace=b"have:", expires=10.0)
    frame = Entry(FRAME, b"f")
    box.put(stale)
    box.put(frame)
    assert box.drop_expired(9.0) == 0 and len(box) == 2
    assert box.drop_expired(10.5) == 1
    assert box.take(10_000) == [frame] and box.bytes == 0
    later = Entry(CHATTER, b"have 5", priority=CATCH_UP, replace=b"have:a", expires=20.0)
    last = Entry(CHATTER, b"have 6", priority=CATCH_UP, replace=b"have:b", expires=30.0)
    box.put(later)
    box.put(last)
    assert box.drop_expired(15.0) == 0 and box.drop_expired(25.0) == 1  # each when it is due
    assert box.drop_expired(29.0) == 0 and box.drop_expired(31.0) == 1 and len(box) == 0


def test_entries_taken_and_not_delivered_go_first_again() -> None:
    box = Outbox()
    a, b, c = (Entry(FRAME, x) for x in (b"a", b"b", b"c"))
    box.put(a)
    box.put(b)
    taken = box.take(10_000)
    box.put(c)
    box.put_back(taken)
    assert box.take(10_000) == [a, b, c]


def test_the_running_hands_frames_go_before_the_next_hands_and_catch_up_last() -> None:
    box = Outbox()
    recs = Entry(FRAME, b"records", priority=CATCH_UP)
    shuffle = Entry(FRAME, b"next hand's shuffle", priority=AHEAD)
    card = Entry(FRAME, b"a card")
    for entry in (recs, shuffle, card):
        box.put(entry)
    assert box.waiting(below=AHEAD) == 1  # what may go between the pieces of the shuffle
    assert box.take(10_000, below=AHEAD) == [card]
    assert box.take(10_000, catch_up=False) == [shuffle]
    assert box.take(10_000) == [recs]


def test_a_frame_sent_again_waits_once_and_as_soon_as_it_is_wanted() -> None:
    box = Outbox()
    early = Entry(FRAME, b"commitment", priority=AHEAD, same=b"c")
    box.put(early)
    assert box.put(Entry(FRAME, b"commitment", priority=AHEAD, same=b"c"))  # taken: waiting
    assert len(box) == 1
    # The hand started: the copy sent now is wanted now, and the one further back goes.
    now = Entry(FRAME, b"commitment", priority=TABLE, same=b"c")
    box.put(now)
    assert list(box.queues[TABLE]) == [now] and not box.queues[AHEAD]
    assert box.put(Entry(FRAME, b"commitment", priority=AHEAD, same=b"c"))
    assert len(box) == 1
    box.put(Entry(FRAME, b"another", same=b"d"))
    assert len(box) == 2


def test_the_outbox_is_bounded() -> None:
    box = Outbox(max_entries=4, max_bytes=1000)
    assert all(box.put(Entry(FRAME, b"x")) for _ in range(4))
    assert not box.put(Entry(FRAME, b"x"))
    assert not Outbox(max_bytes=100).put(Entry(FRAME, bytes(200)))


def test_batches_decode_and_bad_ones_are_refused() -> None:
    entries = [Entry(FRAME, b"one"), Entry(CHATTER, b"two", to=b"k" * 32)]
    decoded = decode_batch(encode_batch(entries))
    assert decoded == [(e.entry_id, e.data, e.to) for e in entries]
    bad = [
        b"\xc1",
        encode_batch([]),
        b"\x81\xa1b\x91\x93\xa3abc\xc4\x01x\xc0",  # an id that is not 8 bytes
        b"\x81\xa1b\x91\x92\xc4\x08" + bytes(8) + b"\xc4\x01x",  # two fields, not three
    ]
    for body in bad:
        with pytest.raises(BatchError):
            decode_batch(body)
    too_many = encode_batch([Entry(FRAME, b"") for _ in range(MAX_ENTRIES + 1)])
    with pytest.raises(BatchError):
        decode_batch(too_many)


# ---------------------------------------------------------------- gates
def test_proof_of_work_meets_the_difficulty_and_verifies() -> None:
    key = NostrKey()
    event = mine(key, FRAME, (("t", "ab" * 16),), "x" * 3000, 10)
    verify_event(event)  # the id is NIP-01's, the signature good
    assert leading_zero_bits(bytes.fromhex(event.id)) >= 10
    assert ("nonce", event.tags[-1][1], "10") == event.tags[-1]
    with pytest.raises(ValueError, match="afford"):
        mine(key, FRAME, (), "", MAX_AFFORDABLE_POW + 1)


def test_leading_zero_bits() -> None:
    assert leading_zero_bits(bytes(32)) == 256
    assert leading_zero_bits(b"\x00\x0f" + bytes(30)) == 12
    assert leading_zero_bits(hashlib.sha256(b"x").digest()) < 256


def test_auth_and_expiration_tags() -> None:
    key = NostrKey()
    event = auth_event(key, "wss://relay.example", "challenge-1")
    verify_event(event)
    assert event.kind == 22242
    assert ("relay", "wss://relay.example") in event.tags
    assert ("challenge", "challenge-1") in event.tags
    assert expiration_tag(7, now=1000.0) == ("expiration", str(1000 + 7 * 86400))


# ---------------------------------------------------------------- fair reassembly
def _fragments(body: bytes, max_content: int = 3000) -> list[bytes]:
    return [plain for plain, _ in cut(body, max_content)]


def test_one_authors_junk_never_evicts_anothers_message() -> None:
    box = Reassembler()
    honest = secrets.token_bytes(64 * 1024)
    pieces = _fragments(honest)
    assert len(pieces) > 2
    for piece in pieces[:-1]:
        assert box.add("honest", piece, now=0.0) is None
    for _ in range(1000):  # fresh half-messages of an attacker, far past every bound
        junk = _fragments(secrets.token_bytes(5000))[0]
        assert box.add("attacker", junk, now=1.0) is None
    assert box.add("honest", pieces[-1], now=2.0) == honest
    assert sum(1 for a, _ in box.pending if a == "attacker") <= box.per_author


def test_one_author_is_bounded_in_bytes_too() -> None:
    box = Reassembler(per_author_bytes=100_000)
    with pytest.raises(FragmentError):
        for piece in _fragments(secrets.token_bytes(400_000), 30_000)[:-1]:
            box.add("big", piece, now=0.0)
    assert box.held <= 100_000


def test_a_window_of_refusals_cuts_once() -> None:
    pace = Pace(PaceSettings(burst=12, rate=3), now=0.0)
    for _ in range(8):  # eight events on their way ...
        pace.spend(10.0)
    for t in (10.1, 10.2, 10.3, 10.4):  # ... all refused for the same excess
        pace.pushed_back(t, sent=10.0)
    assert pace.rate == pytest.approx(1.0)  # one cut, not four
    pace.pushed_back(20.0, sent=15.0)  # sent after the cut, and still refused: cut again
    assert pace.rate == pytest.approx(0.7)


def test_after_a_refusal_no_two_events_come_within_a_second() -> None:
    pace = Pace(PaceSettings(burst=12, rate=3), now=0.0)
    for t in range(60):
        pace.took(float(t))  # the relay took one a second for a minute
    pace.pushed_back(60.0)
    times, now = [], 60.0
    while now < 80.0:
        while pace.ready_at(now) <= now:
            pace.spend(now)
            times.append(now)
        now += 0.01
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert min(gaps) >= 1.04  # saved tokens go one per gap, never as a burst
    assert pace.ready_at(300.0) == 300.0 and pace.tokens >= 1  # calm again: bursts allowed
