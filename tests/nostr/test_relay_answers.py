"""What one relay connection does with each answer, in memory: the events "in flight" are
batches as the writer leaves them, and answers are fed as a relay would send them (with the
words of real implementations). No network: the pieces that talk to one are tested against
real relays in test_nostr_client.py and test_relay_gates.py."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
import trio

from dealerless.node.nostr.event import NostrEvent, NostrKey
from dealerless.node.nostr.outbox import Entry
from dealerless.node.nostr.relay import RelayConnection, RelayRefused, _Batch

FRAME = 4318


def _connection() -> RelayConnection:
    key = NostrKey()

    def seal(kind: int, body: bytes, max_content: int, work: int) -> list[NostrEvent]:
        return [key.sign(kind, (), "x" * min(len(body), max_content))]

    async def on_event(_relay: RelayConnection, _raw: object) -> None:
        return None

    relay = RelayConnection("ws://relay.test", lambda _n: [], on_event, seal, key)
    relay.connected = True
    return relay


def _in_flight(relay: RelayConnection, size: int = 2000, work: int = 0) -> tuple[str, _Batch]:
    entry = Entry(FRAME, b"d" * size)
    batch = _Batch(FRAME, [entry], b"d" * size, events=1, largest=size, work=work)
    event_id = f"{len(relay.inflight):064x}"
    relay.inflight[event_id] = (batch, trio.current_time())
    return event_id, batch


def run(test: Callable[[], Awaitable[None]]) -> None:
    trio.run(test)


def test_rate_limited_slows_down_and_sends_again() -> None:
    async def main() -> None:
        relay = _connection()
        event_id, batch = _in_flight(relay)
        before = relay.pace.rate
        relay._on_ok(event_id, False, "rate-limited: you are noting too much")
        assert relay.pace.rate < before and relay.throttled
        assert relay.outbox.take(10_000) == batch.entries  # queued again
        assert not relay.barred

    run(main)


def test_a_size_refusal_cuts_smaller_on_a_fresh_connection_and_never_bars_early() -> None:
    async def main() -> None:
        relay = _connection()
        event_id, batch = _in_flight(relay, size=20_000)
        with pytest.raises(RelayRefused):
            relay._on_ok(event_id, False, "blocked: event too large (20369 > 8192 bytes)")
        assert relay.max_content == 10_000 and relay.refused_size == 20_000
        assert relay.outbox.take(100_000) == batch.entries
        # A relay that refuses even the smallest bucket cannot carry the table.
        event_id, _ = _in_flight(relay, size=300)
        relay.max_content = 300
        relay._on_ok(event_id, False, "blocked: event too large (700 > 512 bytes)")
        assert relay.barred.startswith("refuses even our smallest events")

    run(main)


def test_a_notice_instead_of_an_ok_answers_the_oldest_event() -> None:
    async def main() -> None:
        relay = _connection()
        _in_flight(relay, size=40_000)
        with pytest.raises(RelayRefused):
            relay._on_notice("message too large (70000 > 65536)")  # nostr-rs-relay
        assert not relay.inflight and relay.max_content < 40_000
        _in_flight(relay)
        relay._on_notice("rate limited")  # nostream past its per-address limit
        assert relay.throttled and not relay.inflight
        _in_flight(relay)
        relay._on_notice("invalid client message")  # about something else: not an answer
        assert len(relay.inflight) == 1

    run(main)


def test_proof_of_work_rises_once_and_bars_when_too_dear() -> None:
    async def main() -> None:
        relay = _connection()
        first, _ = _in_flight(relay)
        second, _ = _in_flight(relay)  # left before the relay told us
        relay._on_ok(first, False, "pow: required a difficulty >= 8")
        relay._on_ok(second, False, "pow: required a difficulty >= 8")
        assert relay.pow == 8 and not relay.barred  # the second is sent again, not a bar
        mined, _ = _in_flight(relay, work=8)
        relay._on_ok(mined, False, "pow: required a difficulty >= 8")  # still refused
        assert relay.pow == 12 and not relay.barred
        dear, _ = _in_flight(relay, work=12)
        relay._on_ok(dear, False, "pow: required a difficulty >= 30")
        assert relay.barred == "pow: required a difficulty >= 30"

    run(main)


def test_auth_required_waits_for_our_auth_and_bars_after_it_is_refused() -> None:
    async def main() -> None:
        relay = _connection()
        event_id, batch = _in_flight(relay)
        relay.challenge, relay.auth_id = "c1", "a" * 64  # the relay challenged, we answered
        relay._on_ok(event_id, False, "auth-required: you must auth")
        assert not relay.barred and relay.outbox.take(10_000) == batch.entries
        relay._on_ok("a" * 64, False, "restricted: not on the list")  # our AUTH refused
        assert relay.barred.startswith("auth-required and our AUTH was refused")

    run(main)


def test_gates_we_cannot_pass_bar_the_relay_with_its_words() -> None:
    for words in ("restricted: you must be whitelisted", "blocked: kind 4318 is not allowed"):

        async def main(words: str = words) -> None:
            relay = _connection()
            event_id, _ = _in_flight(relay)
            assert relay.publish(Entry(FRAME, b"waiting"))
            relay._on_ok(event_id, False, words)
            assert relay.barred == words
            assert len(relay.outbox) == 0  # what waited for it is let go
            assert "cannot carry the table: " + words in relay.state()
            assert not relay.publish(Entry(FRAME, b"x"))  # nothing more goes to it

        run(main)


def test_done_answers_and_unknown_refusals() -> None:
    async def main() -> None:
        relay = _connection()
        for words in ("", "duplicate: already have this event", "mute: no one was listening"):
            event_id, _ = _in_flight(relay)
            relay._on_ok(event_id, words == "", words)
        assert relay.stats["ok"] == 3 and len(relay.outbox) == 0
        relay.largest_taken = 5000
        for _ in range(6):  # refused for reasons we cannot act on: lost here, then barred
            event_id, _ = _in_flight(relay)
            relay._on_ok(event_id, False, "error: could not save")
        assert relay.barred == "error: could not save"

    run(main)


def test_stale_events_go_again() -> None:
    async def main() -> None:
        relay = _connection()
        event_id, batch = _in_flight(relay)
        relay._on_ok(event_id, False, "invalid: ephemeral event expired")
        assert relay.outbox.take(10_000) == batch.entries and not relay.barred

    run(main)


def test_a_message_is_taken_only_when_every_piece_of_it_was() -> None:
    """A frame the relay took is not written to it again for a while (relay.py TAKEN_QUIET);
    a message cut into pieces of which one was refused was not taken."""

    async def main() -> None:
        relay = _connection()
        for refused_piece in (None, 0, 1):
            entry = Entry(FRAME, b"shuffle", same=b"same %r" % refused_piece)
            batch = _Batch(FRAME, [entry], b"shuffle", events=2, largest=10)
            ids = [f"{len(relay.inflight) + i:064x}" for i in range(2)]
            for event_id in ids:
                relay.inflight[event_id] = (batch, trio.current_time())
            for piece, event_id in enumerate(ids):
                if piece == refused_piece:
                    relay._on_ok(event_id, False, "error: something we cannot act on")
                else:
                    relay._on_ok(event_id, True, "")
            assert (entry.same in relay.taken) is (refused_piece is None), refused_piece
        taken = Entry(FRAME, b"shuffle", same=b"same None")
        assert relay.publish(taken) and relay.stats["resend_skipped"] == 1
        assert len(relay.outbox) == 0
        assert relay.publish(Entry(FRAME, b"shuffle", same=b"same 0"))
        assert len(relay.outbox) == 1

    run(main)
