"""Direct links between the seats (issue 24, on one network): the Nostr relay introduces the
seats, each pair links directly over the secure channel pinned to the seats' keys, and the
table's moves skip the relay once every seat they are for has a link."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from node_cluster import Cluster, cluster, wait_for  # noqa: F401 - the fixture
from nostr_cluster import host_on_nostr
from nostr_relay_process import RelayProcess

from dealerless.protocol.messages import decode_message
from dealerless.protocol.table.kinds import TABLE_REGISTRY

Start = Callable[..., RelayProcess]


def _published(path: Path, what: str = "published") -> int:
    """Events this seat wrote to the relays (its event log's Nostr report), or with
    ``what="published_f"`` the table frames among them."""
    for line in path.read_text().splitlines():
        entry = json.loads(line)
        if entry.get("ev") == "nostr":
            return int(entry["published"].get(what, 0))
    raise AssertionError(f"no Nostr report in {path}")


def _signed_per_seat(cluster: Cluster, seats: int) -> list[int]:  # noqa: F811
    """How many frames of the finished game's transcript each seat signed."""
    config, records = cluster.transcript(0)
    written = [0] * seats
    for frame in records:
        seat = config.seat_of(decode_message(frame, registry=TABLE_REGISTRY).author.raw)
        assert seat is not None, "a record signed by a key that is not at the table"
        written[seat] += 1
    return written


def _play(cluster: Cluster, url: str, seats: int, hands: int, *flags: str) -> list[int]:  # noqa: F811
    logs = [cluster.root / f"events{seat}.jsonl" for seat in range(seats)]
    host_on_nostr(
        cluster, "limit-tuppen", seats, [url], rules=(f"hands={hands}",),
        extra=("--event-log", str(logs[0]), *flags),
    )  # fmt: skip
    for seat in range(1, seats):
        cluster.join_with(seat, "--event-log", str(logs[seat]), *flags)
    codes = cluster.wait([f"seat{s}" for s in range(seats)], 300)
    assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tail()}"
    cluster.check_identical(list(range(seats)))
    return [_published(log) for log in logs]


def test_a_table_with_direct_links_leaves_the_relay_a_handful_of_events(
    cluster: Cluster,  # noqa: F811
    nostr_relays: Start,
) -> None:
    relay = nostr_relays()
    events = _play(cluster, relay.url, 3, 6)  # direct links are on by default
    for seat in range(3):
        assert cluster.said(seat, "direct link with"), cluster.tail()
    print("events per seat with direct links:", events)
    assert max(events) <= 40, events
    written = _signed_per_seat(cluster, 3)
    to_relay = [_published(cluster.root / f"events{s}.jsonl", "published_f") for s in range(3)]
    # The frames went over the links: far fewer reached the relay than the seats signed.
    assert 2 * sum(to_relay) < sum(written), (to_relay, written)


def test_relays_only_keeps_every_frame_on_the_relay(
    cluster: Cluster,  # noqa: F811
    nostr_relays: Start,
) -> None:
    """--relays-only: no listener, no candidates told, every frame through the relay."""
    relay = nostr_relays()
    _play(cluster, relay.url, 3, 6, "--relays-only")
    for seat in range(3):
        assert not cluster.said(seat, "direct link with"), cluster.tail()
        log = (cluster.root / f"events{seat}.jsonl").read_text()
        assert '"cand"' not in log and '"ev": "ways"' not in log
    written = _signed_per_seat(cluster, 3)
    to_relay = [_published(cluster.root / f"events{s}.jsonl", "published_f") for s in range(3)]
    # Every frame signed at the table went to the relays (resent ones count again; the
    # seats' numbers at the table are not the cluster's, so the table's totals are compared).
    assert sum(to_relay) >= sum(written), (to_relay, written)
    assert min(written) >= 30, written  # six hands' worth: the count is not vacuous


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


@pytest.fixture
def namespace() -> Iterator[str]:
    """A network namespace of the test's own (loopback up): the relay and the seats run
    there, so that its firewall can cut their direct links and nothing else. Fails, saying
    why, where namespaces cannot be made (not root, no ``ip``)."""
    if shutil.which("ip") is None or shutil.which("iptables") is None:
        pytest.fail("needs the ip and iptables commands (apt-get install iproute2 iptables)")
    name = f"dl{os.getpid() % 100_000}"
    try:
        _ip("netns", "add", name)
    except subprocess.CalledProcessError as exc:
        pytest.fail(f"cannot make a network namespace (root?): {exc.stderr.decode().strip()}")
    try:
        _ip("-n", name, "link", "set", "lo", "up")
        yield name
    finally:
        subprocess.run(["ip", "netns", "delete", name], capture_output=True, check=False)


def test_direct_links_cut_mid_game_the_table_goes_on_over_the_relay(
    cluster: Cluster,  # noqa: F811
    tmp_path: Path,
    namespace: str,
) -> None:
    """Every direct link is cut by the firewall in the middle of the game (packets dropped,
    no reset: the links die silently); the seats notice within the links' idle time and the
    table goes on over the relay: every seat finishes, nobody is timed out, the transcripts
    are identical."""
    inside = ("ip", "netns", "exec", namespace)
    relay = RelayProcess(tmp_path / "relay-ns", prefix=inside).start()
    cluster.prefix = inside
    try:
        logs = [cluster.root / f"events{seat}.jsonl" for seat in range(3)]
        host_on_nostr(
            cluster, "limit-tuppen", 3, [relay.url], rules=("hands=6",),
            extra=("--event-log", str(logs[0]), "--step-timeout", "30"),
        )  # fmt: skip
        for seat in (1, 2):
            cluster.join_with(seat, "--event-log", str(logs[seat]))
        procs = list(cluster.procs.values())
        wait_for(lambda: all(cluster.said(s, "direct link with") for s in range(3)), 60,
                 "the direct links", procs)  # fmt: skip
        wait_for(lambda: cluster.said(0, "hand 3 starts"), 120, "hand 3", procs)
        port = str(relay.port)
        for rule in (
            ["-A", "INPUT", "-p", "tcp", "--dport", port, "-j", "ACCEPT"],
            ["-A", "INPUT", "-p", "tcp", "--sport", port, "-j", "ACCEPT"],
            ["-A", "INPUT", "-p", "tcp", "-j", "DROP"],  # every direct link, silently
        ):
            subprocess.run([*inside, "iptables", *rule], check=True, capture_output=True)
        codes = cluster.wait([f"seat{s}" for s in range(3)], 300)
        assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tail()}"
        cluster.check_identical([0, 1, 2])
        for seat in range(3):
            assert not cluster.said(seat, "was timed out"), cluster.tail()
        assert min(_published(log) for log in logs) > 12  # the rest went over the relay
    finally:
        relay.kill()
