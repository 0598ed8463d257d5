"""Seat changes over direct links (the host's hub): a newcomer sits down at a running table,
the host stands up and its process keeps passing the others' messages until they finish; a
seat killed after a change resumes across it (spec/node.md §9)."""

from __future__ import annotations

import time

from node_cluster import Cluster, cluster, wait_for  # noqa: F401 - the fixture

from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.audit import audit_records


def join(cluster: Cluster, seat: int, *extra: str) -> None:  # noqa: F811
    cluster.homes += [cluster.root / f"seat{s}" for s in range(len(cluster.homes), seat + 1)]
    args = ["join", "-", "--min-step-timeout", "0", "--home", str(cluster.homes[seat])]
    args += ["--bot", "--name", f"seat{seat}", "--linger", "5", *extra]
    cluster.spawn(f"seat{seat}", args, stdin=cluster.invite_code.encode() + b"\n")


def said(cluster: Cluster, seat: int, text: str) -> bool:  # noqa: F811
    path = cluster.root / f"seat{seat}.log"
    return path.exists() and text in path.read_text(errors="replace")


def final_state(cluster: Cluster, seat: int) -> TableMachine:  # noqa: F811
    config, records = cluster.transcript(seat)
    report = audit_records(config, records)
    assert report.ok and report.complete, (seat, report.failure)
    return TableMachine.resume(config, None, records)


def test_the_host_stands_up_and_its_hub_serves_the_others_to_the_end(
    cluster: Cluster,  # noqa: F811
) -> None:
    cluster.host(
        "limit-tuppen",
        3,
        ["mode=cash", "hands=5"],
        step_timeout=20,
        linger=5,
        extra=("--stand-after-hand", "3"),
    )
    join(cluster, 1)
    join(cluster, 2)
    procs = list(cluster.procs.values())
    wait_for(lambda: said(cluster, 0, "hand 1 starts"), 120, "hand 1", procs)
    join(cluster, 3, "--buy-in", "4")
    codes = cluster.wait([f"seat{s}" for s in range(4)], 300)
    assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tail()}"
    assert said(cluster, 0, "keeps passing the others' messages")
    last = final_state(cluster, 1)
    assert last.engine.outcome is not None and last.hand == 5
    assert sorted(s.name for s in last.config.seats) == ["seat1", "seat2", "seat3"]
    assert final_state(cluster, 0).hand == 3
    cluster_records = [cluster.transcript(s)[1] for s in (1, 2)]
    assert cluster_records[0] == cluster_records[1]


def test_a_seat_killed_after_a_change_resumes_across_it(cluster: Cluster) -> None:  # noqa: F811
    cluster.host("limit-tuppen", 3, ["mode=cash", "hands=5"], step_timeout=20, linger=5)
    join(cluster, 1, "--stand-after-hand", "1")
    join(cluster, 2)
    procs = list(cluster.procs.values())
    wait_for(lambda: said(cluster, 2, "hand 3 starts"), 180, "hand 3", procs)
    cluster.kill("seat2")
    time.sleep(1)
    cluster.resume(2, linger=5)
    codes = cluster.wait(["seat0", "seat1", "seat2"], 300)
    assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tail()}"
    assert said(cluster, 2, "resumed from")
    cluster.check_identical([0, 2])
    last = final_state(cluster, 2)
    assert last.hand == 5 and len(last.segments) == 2
