"""Kill a node (SIGKILL) mid-hand, restart it, and the game completes with identical
transcripts; stop a node for good and the others settle the table by the timeout rule."""

from __future__ import annotations

import re
import time

import pytest
from node_cluster import Cluster, wait_for

SEATS = 3
RULES = ["hands=3"]


@pytest.mark.parametrize(
    ("victim", "at", "restart", "relay"),
    [
        (1, 2, "join", False),  # during the key commitments of hand 1
        (2, 9, "resume", False),  # during the shuffle / deal
        (1, 24, "join", False),  # in play
        (0, 14, "resume", False),  # the host (and its hub) in the deal
        (0, 30, "resume", True),  # the host, through a relay, in play
    ],
    ids=["joiner-keys", "joiner-deal", "joiner-play", "host-deal", "relay-host-play"],
)
def test_kill_and_restart(
    cluster: Cluster, victim: int, at: int, restart: str, relay: bool
) -> None:
    cluster.host("limit-tuppen", SEATS, RULES, relay=cluster.relay() if relay else None)
    for seat in range(1, SEATS):
        cluster.join(seat)
    name = f"seat{victim}"
    wait_for(
        lambda: cluster.count(victim) >= at, 120, f"{name} at record {at}", cluster.procs.values()
    )
    cluster.kill(name)
    killed_at = cluster.count(victim)
    if restart == "join" and victim != 0:
        cluster.join(victim)
    else:
        cluster.resume(victim)
    codes = cluster.wait([f"seat{s}" for s in range(SEATS)], 240)
    assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tail()}"
    audit = cluster.check_identical(list(range(SEATS)))
    assert len(audit.records) > killed_at


def test_node_stops_for_good(cluster: Cluster) -> None:
    cluster.host("limit-tuppen", SEATS, ["hands=2"], step_timeout=2.5, linger=3)
    for seat in range(1, SEATS):
        cluster.join(seat, linger=3)
    wait_for(lambda: cluster.count(2) >= 12, 120, "seat2 in the deal", cluster.procs.values())
    cluster.kill("seat2")
    codes = cluster.wait(["seat0", "seat1"], 240)
    assert codes == {"seat0": 0, "seat1": 0}, cluster.tail()
    audit = cluster.check_identical([0, 1])
    assert audit.over
    log = cluster.logs["seat0#0"].read_text()
    assert "too slow" in log


def test_a_corrupt_transcript_is_refused_not_repaired(cluster: Cluster) -> None:
    cluster.host("limit-tuppen", 2, ["hands=3"])
    cluster.join(1)
    wait_for(lambda: cluster.count(1) >= 10, 120, "seat1 at record 10", cluster.procs.values())
    cluster.kill("seat1")
    path = cluster.store(1).transcript_path
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF  # damage inside a record: not a torn tail
    path.write_bytes(bytes(data))
    cluster.resume(1)
    codes = cluster.wait(["seat1"], 60)
    assert codes == {"seat1": 1}
    log = cluster.logs["seat1#1"].read_text()
    assert "cannot resume" in log and "left untouched" in log, log
    assert path.read_bytes() == bytes(data)


def test_a_node_back_alone_waits_for_a_peer_before_it_writes(cluster: Cluster) -> None:
    """Through a relay every node is killed mid-hand; the host comes back alone (a joiner
    cannot: the relay opens the table again only for its host). Nobody answers it, so it
    resumes holding its writes (what it wrote could be at a head the others have left); when
    the others come back it hears from them, writes again, and the game completes with
    identical transcripts."""
    cluster.host("limit-tuppen", SEATS, RULES, relay=cluster.relay())
    for seat in range(1, SEATS):
        cluster.join(seat)
    wait_for(lambda: cluster.count(0) >= 20, 120, "seat0 at record 20", cluster.procs.values())
    for seat in range(SEATS):
        cluster.kill(f"seat{seat}")
    cluster.resume(0)
    log = cluster.logs["seat0#1"]
    wait_for(lambda: "no peer has answered yet" in log.read_text(), 60, "seat0 holding")
    alone = cluster.count(0)
    time.sleep(1.5)  # holding: nothing is written, whatever the machine thinks is due
    assert cluster.count(0) == alone
    for seat in range(1, SEATS):
        cluster.resume(seat)
    codes = cluster.wait([f"seat{s}" for s in range(SEATS)], 240)
    assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tail()}"
    assert "heard from a peer: writing again" in log.read_text()
    audit = cluster.check_identical(list(range(SEATS)))
    assert len(audit.records) > alone


@pytest.mark.parametrize("damage", ["missing", "corrupt"])
def test_a_lost_key_share_is_named_not_a_traceback(cluster: Cluster, damage: str) -> None:
    """The stored key share of the running hand is gone or damaged when a node resumes: it
    says where and what is wrong, no traceback; the machine plays that hand blind (the others
    time it out, protocol side) and the game completes with identical transcripts."""
    cluster.host("limit-tuppen", SEATS, ["hands=2"], step_timeout=4.0, linger=3)
    for seat in range(1, SEATS):
        cluster.join(seat, linger=3)
    store = cluster.store(1)

    def in_a_hand() -> bool:
        # Kill inside a hand whose key share is stored, not between two hands (a hand all
        # others fold ends within 20 records, and the share left then is never used again).
        text = cluster.logs["seat1#0"].read_text()
        started = re.findall(r"hand (\d+) starts", text)
        ended = set(re.findall(r"hand (\d+) ended", text))
        return bool(started) and started[-1] not in ended and int(started[-1]) in (
            store.load_secrets()
        )

    wait_for(in_a_hand, 120, "seat1 in a hand", cluster.procs.values())
    cluster.kill("seat1")
    shares = store.load_secrets()  # only the running hand's (signed hands' are deleted)
    assert shares
    for hand in shares:
        if damage == "missing":
            store.delete_secrets(hand)
        else:
            store.save_secret(hand, b"\x00garbage")
    cluster.resume(1, linger=3)
    codes = cluster.wait([f"seat{s}" for s in range(SEATS)], 180)
    log = cluster.logs["seat1#1"].read_text()
    assert "Traceback" not in log, log
    assert "key share of hand" in log and "missing or damaged" in log, log
    assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tail()}"
    cluster.check_identical(list(range(SEATS)))


def test_a_finished_table_started_again_with_nobody_left_exits(cluster: Cluster) -> None:
    """A joiner started again on a table that finished here (killed in its linger, say), when
    every other node is gone: it resumes at once from its complete transcript, lingers and exits
    0, instead of reconnecting for ever to a host that will not come back."""
    cluster.host("limit-tuppen", 2, ["hands=1"], linger=1)
    cluster.join(1, linger=1)
    assert cluster.wait(["seat0", "seat1"], 180) == {"seat0": 0, "seat1": 0}
    cluster.join(1, linger=1)
    codes = cluster.wait(["seat1"], 60)
    log = cluster.logs["seat1#1"].read_text()
    assert codes == {"seat1": 0}, log
    assert "resuming" in log and "verified by replay" in log, log
