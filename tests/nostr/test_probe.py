"""Asking relays before a table depends on them (node/nostr/probe.py, ``dealerless relays``,
the host's choice): real relay processes in each profile, no relay stands in for another."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable, Iterator

import pytest
import trio
from nostr_relay_process import RelayProcess, RustRelayProcess

from dealerless.client.cli import main
from dealerless.client.commands import host as host_command
from dealerless.node.nostr.defaults import DEFAULT_SET
from dealerless.node.nostr.probe import (
    KINDS,
    KindResult,
    RelayReport,
    choose,
    probe_all,
    probe_relay,
)
from dealerless.node.nostr.refusals import Answer, Verdict

Start = Callable[..., RelayProcess]
CLOSED = "ws://127.0.0.1:1"


@pytest.fixture
def silent() -> Iterator[str]:
    """A port that takes the TCP connection and then never says a word."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield f"ws://127.0.0.1:{listener.getsockname()[1]}"


def probe(url: str, timeout: float = 6.0) -> RelayReport:
    return trio.run(probe_relay, url, timeout)


def test_a_plain_relay_carries_all_three_kinds(nostr_relays: Start) -> None:
    report = probe(nostr_relays().url)
    assert report.usable and report.reachable and not report.error, report
    assert [k.kind for k in report.kinds] == list(KINDS) == [4318, 4319, 24318]
    assert all(k.accepted and k.echo_ms is not None for k in report.kinds)
    assert report.echo_ms == max(k.echo_ms or 0 for k in report.kinds)
    assert not report.auth_asked and report.pow == 0 and not report.nip11_error
    assert "usable, slowest echo" in report.summary()


def test_proof_of_work_it_asks_for_is_mined(rust_relays: Callable[..., RustRelayProcess]) -> None:
    report = probe(rust_relays(min_pow=8).url)  # no NIP-11 here: learnt from the refusal
    assert report.usable and report.pow == 8, report.summary()


def test_more_work_than_we_afford_is_not_usable(
    rust_relays: Callable[..., RustRelayProcess],
) -> None:
    report = probe(rust_relays(min_pow=30).url)
    assert report.reachable and not report.usable
    assert all(k.answer and k.answer.verdict is Verdict.NEEDS_POW for k in report.kinds)
    assert "pow" in report.summary() and "30" in report.summary()


def test_nip42_writes_are_answered_with_auth(rust_relays: Callable[..., RustRelayProcess]) -> None:
    report = probe(rust_relays(nip42_write=True).url)
    assert report.usable and report.auth_asked, report.summary()


def test_shadow_rejection_is_accepted_but_no_echo(
    rust_relays: Callable[..., RustRelayProcess],
) -> None:
    report = probe(rust_relays(shadow=True).url)
    assert not report.usable and report.echo_ms is None
    assert all(k.accepted and k.echo_ms is None for k in report.kinds)
    assert "accepted but no echo" in report.summary()


def test_a_closed_port_and_a_silent_one_cost_at_most_the_timeout(silent: str) -> None:
    began = time.monotonic()
    closed = probe(CLOSED, 2.0)
    assert not closed.reachable and closed.error and not closed.kinds
    assert time.monotonic() - began < 1.0  # refused at once
    began = time.monotonic()
    mute = probe(silent, 1.5)
    assert time.monotonic() - began < 1.5 + 0.5
    assert not mute.reachable and not mute.usable and "1.5 s" in mute.error, mute
    assert "unreachable" in mute.summary()


def test_probe_all_keeps_the_order_and_stops_when_enough_answered(
    nostr_relays: Start, silent: str
) -> None:
    relay = nostr_relays()
    began = time.monotonic()
    reports = trio.run(probe_all, [silent, CLOSED, relay.url, relay.url], 5.0, 1)
    assert time.monotonic() - began < 4.0  # not the silent one's 5 s
    assert [r.url for r in reports] == [silent, CLOSED, relay.url]
    assert reports[2].usable and not reports[1].reachable
    assert "not finished" in reports[0].error


def _report(url: str, echoes: list[float | None], accepted: bool = True) -> RelayReport:
    answer = Answer(Verdict.STORED if accepted else Verdict.FAILED, "")
    kinds = tuple(KindResult(k, True, answer, e) for k, e in zip(KINDS, echoes, strict=True))
    return RelayReport(url, True, kinds=kinds)


def test_choose_takes_the_usable_ones_fastest_first() -> None:
    reports = [
        _report("wss://slow", [10, 300, 20]),
        _report("wss://shadow", [5, None, 5]),
        _report("wss://refuses", [5, 5, 5], accepted=False),
        RelayReport("wss://gone", False, "connection refused"),
        _report("wss://fast", [30, 40, 50]),
        _report("wss://middle", [100, 90, 80]),
        _report("wss://also-fast", [50, 10, 10]),
    ]
    assert [r.usable for r in reports] == [True, False, False, False, True, True, True]
    assert choose(reports) == ["wss://fast", "wss://also-fast", "wss://middle"]
    assert choose(reports, 10) == ["wss://fast", "wss://also-fast", "wss://middle", "wss://slow"]
    assert choose(reports[1:4]) == []


def test_the_relays_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["relays", CLOSED, "--json", "--timeout", "2"]) == 1
    document = json.loads(capsys.readouterr().out)
    (only,) = document["relays"]
    assert only["url"] == CLOSED and not only["reachable"] and not only["usable"]
    assert "connect" in only["error"] and document["usable"] == []
    for bad, words in (
        (["http://relay.example"], "not a websocket URL"),
        ([f"wss://r{i}.example" for i in range(9)], "at most 8"),
        (["ws://h:1", "--timeout", "0"], "--timeout"),
    ):
        assert main(["relays", *bad]) == 2
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1 and err.startswith("dealerless relays: ")


def test_the_relays_command_prints_one_line_per_relay(
    nostr_relays: Start, capsys: pytest.CaptureFixture[str]
) -> None:
    relay = nostr_relays()
    assert main(["relays", relay.url, CLOSED]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{relay.url}  usable  echo ") and "4318 ok" in out[0]
    assert "24318 ok" in out[0] and "NIP-11: max_content" in out[0]
    assert out[1].startswith(f"{CLOSED}  unreachable: ") and len(out) == 2


def test_the_host_asks_the_candidates_and_falls_back_to_the_shipped_set(
    nostr_relays: Start, monkeypatch: pytest.MonkeyPatch
) -> None:
    said: list[str] = []
    relay = nostr_relays()
    monkeypatch.setattr(host_command, "CANDIDATES", (CLOSED, relay.url))
    assert host_command.ask_relays(said.append, 4.0) == [relay.url]
    assert relay.url in said[0]
    said.clear()
    monkeypatch.setattr(host_command, "CANDIDATES", (CLOSED,))
    assert host_command.ask_relays(said.append, 2.0) == list(DEFAULT_SET)
    assert "no Nostr relay" in said[0] and said[-1].strip().startswith(f"{CLOSED}: not usable")
