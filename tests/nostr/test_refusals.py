"""The refusal classifier with the exact words of the relay implementations people run.

Sources: rust-nostr's relay as observed in tests/nostr/test_rust_relay.py; strfry, damus's
noteguard, khatru, nostr-rs-relay and nostream as read in their sources (shared/notes); the
``nostr-relay`` package's size validator as observed."""

from __future__ import annotations

import pytest

from dealerless.node.nostr.refusals import (
    Verdict,
    classify_notice,
    classify_ok,
    pow_difficulty,
)

OK_WORDS = [
    # rust-nostr's relay (nostr-sdk 0.45.1 LocalRelay), observed
    ("rate-limited: slow down", Verdict.RATE_LIMITED),
    ("pow: required a difficulty >= 8", Verdict.NEEDS_POW),
    ("auth-required: you must auth", Verdict.NEEDS_AUTH),
    ("blocked: event too large (9369 > 8192 bytes)", Verdict.TOO_BIG),
    ("blocked: event is expired", Verdict.STALE),
    ("invalid: invalid event signature", Verdict.FAILED),
    ("duplicate: already have this event", Verdict.STORED),
    # strfry
    ("invalid: ephemeral event expired", Verdict.STALE),
    ("invalid: created_at too late", Verdict.STALE),
    ("invalid: created_at too early", Verdict.STALE),
    ("blocked: pubkey is banned", Verdict.BARRED),
    ("error: something went wrong", Verdict.FAILED),
    # damus's noteguard
    ("rate-limited: you are noting too much", Verdict.RATE_LIMITED),
    ("blocked: kind 4318 is not allowed", Verdict.BARRED),
    # khatru
    ("mute: no one was listening for this", Verdict.DELIVERED),
    ("restricted: you must be whitelisted", Verdict.BARRED),
    ("blocked: event is too big", Verdict.TOO_BIG),
    # nostream
    ("rate-limited: slow down", Verdict.RATE_LIMITED),
    ("pow: difficulty 5<10", Verdict.NEEDS_POW),
    ("blocked: payment required", Verdict.BARRED),
    # nostr-rs-relay
    ("invalid: event creation date is too far off from the current time", Verdict.STALE),
    ("blocked: event exceeds max size", Verdict.TOO_BIG),
    # the nostr-relay package's size validator (no size word but "characters")
    ("invalid: 280 characters should be enough for anybody", Verdict.TOO_BIG),
    # an empty refusal says nothing we can act on
    ("", Verdict.FAILED),
]


@pytest.mark.parametrize(("words", "verdict"), OK_WORDS)
def test_each_relays_words_mean_what_they_say(words: str, verdict: Verdict) -> None:
    answer = classify_ok(False, words)
    assert answer.verdict is verdict, words
    assert answer.reason == words  # kept for the user, in the relay's own words


def test_accepted_is_stored_whatever_the_words() -> None:
    assert classify_ok(True, "").done
    assert classify_ok(True, "rate-limited: but fine").verdict is Verdict.STORED
    assert classify_ok(False, "mute: no one was listening for this").done


def test_size_words_win_over_any_prefix() -> None:
    # Shrink only for size, whatever the prefix: never for a rate, a gate or an age.
    for prefix in ("blocked", "invalid", "error", "restricted", "rate-limited"):
        assert classify_ok(False, f"{prefix}: event too large").verdict is Verdict.TOO_BIG
    for words in ("pow: difficulty 8", "auth-required: x", "invalid: created_at too late"):
        assert classify_ok(False, words).verdict is not Verdict.TOO_BIG


def test_notices_that_stand_for_an_ok() -> None:
    # nostr-rs-relay answers an oversize message with a NOTICE and no OK.
    notice = classify_notice("message too large (70000 > 65536)")
    assert notice is not None and notice.verdict is Verdict.TOO_BIG
    # nostream past its per-address message limit: a NOTICE, no OK.
    notice = classify_notice("rate limited")
    assert notice is not None and notice.verdict is Verdict.RATE_LIMITED
    # A notice about something else is not an answer to our event.
    assert classify_notice("invalid client message") is None
    assert classify_notice("binary messages are not processed by this relay") is None


def test_a_pow_refusal_says_how_much() -> None:
    assert pow_difficulty("pow: required a difficulty >= 8") == 8
    assert pow_difficulty("pow: difficulty 5<10") == 10
    assert pow_difficulty("pow: not enough work") is None


def test_reasons_are_bounded() -> None:
    answer = classify_ok(False, "blocked: " + "x" * 10_000)
    assert len(answer.reason) <= 160
