"""The strfry write-policy plugin a club runs (node/nostr/club_policy.py): strfry's JSON-lines
protocol over a real pipe, and the decisions; each refusal is read by a seat as intended."""

from __future__ import annotations

import json
import subprocess
import sys

from dealerless.node.nostr.club_policy import ClubPolicy
from dealerless.node.nostr.refusals import Verdict, classify_ok


def _new(kind: int = 4318, pubkey: str = "aa", at: float = 1000.0, content: str = "x") -> dict:
    event = {"id": f"{kind}-{pubkey}-{at}", "pubkey": pubkey, "kind": kind, "content": content}
    return {"type": "new", "event": event, "receivedAt": at, "sourceInfo": "198.18.0.5"}


def test_table_kinds_pass_and_others_are_blocked() -> None:
    policy = ClubPolicy()
    for kind in (4318, 4319, 24318):
        assert policy.decide(_new(kind))["action"] == "accept"  # type: ignore[index]
    refused = policy.decide(_new(1))
    assert refused is not None and refused["action"] == "reject"
    assert classify_ok(False, refused["msg"]).verdict is Verdict.BARRED
    assert ClubPolicy(any_kind=True).decide(_new(1))["action"] == "accept"  # type: ignore[index]


def test_a_key_past_its_pace_is_told_to_slow_down_and_recovers() -> None:
    policy = ClubPolicy(per_key=60, per_address=100_000)  # burst 30, then 1 a second
    answers = [policy.decide(_new(at=1000.0)) for _ in range(31)]
    assert [a["action"] for a in answers if a] == ["accept"] * 30 + ["reject"]
    assert classify_ok(False, answers[-1]["msg"]).verdict is Verdict.RATE_LIMITED  # type: ignore[index]
    assert policy.decide(_new(at=1001.5))["action"] == "accept"  # type: ignore[index]
    # Another seat is not held back by the first one's pace.
    assert policy.decide(_new(pubkey="bb", at=1000.0))["action"] == "accept"  # type: ignore[index]


def test_big_events_are_refused_as_too_big() -> None:
    refused = ClubPolicy().decide(_new(content="x" * 500_000))
    assert refused is not None
    assert classify_ok(False, refused["msg"]).verdict is Verdict.TOO_BIG


def test_the_plugin_speaks_strfrys_protocol_over_a_pipe() -> None:
    lookback = {"type": "lookback", "event": _new()["event"], "receivedAt": 999}
    lines = [json.dumps(lookback), json.dumps(_new()), "not json", json.dumps(_new(1))]
    done = subprocess.run(
        [sys.executable, "-m", "dealerless.node.nostr.club_policy"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["action"] for a in answers] == ["accept", "reject", "reject"]  # no lookback answer
    assert answers[0]["id"] == _new()["event"]["id"]
