"""An idle table is quiet (issue 12): four real node processes, one of them a person who does
not move; once nothing is missing each seat announces at most once per 10 s, so the table sends
at most 0.4 catch-up messages per second in all (counted from every node's event log)."""

from __future__ import annotations

import itertools
import json
import subprocess
import time
from pathlib import Path

from node_cluster import CLI, Cluster, wait_for

SEATS = 4
WINDOW = 40.0  # seconds counted, after the announcements have slowed down


def _events(path: Path) -> list[dict[str, object]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_an_idle_four_seat_table_sends_at_most_0_4_messages_per_second(cluster: Cluster) -> None:
    root = cluster.root
    logs = [root / f"events{i}.jsonl" for i in range(SEATS)]
    invite_file = root / "invite"
    # The host is a person at a terminal who never answers (its stdin stays open).
    host_args = ["host", "--game", "tuppen", "--seats", str(SEATS), "--plain", "--name", "p"]
    host_args += ["--home", str(root / "seat0"), "--listen", "127.0.0.1:0"]
    host_args += ["--invite-file", str(invite_file), "--event-log", str(logs[0])]
    host_args += ["--step-timeout", "600"]
    with open(root / "host.log", "wb") as out:
        person = subprocess.Popen(
            CLI + host_args, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT
        )
    cluster.procs["person"] = person
    try:
        wait_for(invite_file.exists, 60, "the invite", [person])
        cluster.invite_code = invite_file.read_text().strip()
        cluster.homes = [root / f"seat{i}" for i in range(SEATS)]
        for seat in range(1, SEATS):
            args = ["join", "-", "--bot", "--home", str(cluster.homes[seat]), "--name", f"b{seat}"]
            args += ["--event-log", str(logs[seat])]
            cluster.spawn(f"seat{seat}", args, stdin=cluster.invite_code.encode() + b"\n")
        wait_for(
            lambda: all(any(e["ev"] == "start" for e in _events(log)) for log in logs),
            90,
            "every seat's machine",
            list(cluster.procs.values()),
        )
        time.sleep(25.0)  # the bots play until the person must move; announcements slow down
        begin = time.time()  # the event log stamps wall-clock time
        time.sleep(WINDOW)
        end = time.time()
        assert person.poll() is None, "the host stopped"
        sent: list[tuple[int, float]] = []
        for seat, log in enumerate(logs):
            sent += [(seat, float(e["wall"])) for e in _events(log) if e["ev"] == "out"]  # type: ignore[arg-type]
        counted = [(seat, t) for seat, t in sent if begin <= t < end]
        rate = len(counted) / WINDOW
        # At most one per seat per 10 s: every gap between one seat's messages is >= 10 s.
        for seat in range(SEATS):
            times = sorted(t for s, t in counted if s == seat)
            gaps = [b - a for a, b in itertools.pairwise(times)]
            assert all(gap >= 9.5 for gap in gaps), (seat, gaps)
        assert rate <= 0.4 + SEATS / WINDOW, (rate, counted)
        assert counted, "no announcement at all: the count measures nothing"
        print(f"idle 4-seat table: {len(counted)} messages in {WINDOW:.0f} s = {rate:.2f}/s")
    finally:
        person.kill()
        person.wait()
