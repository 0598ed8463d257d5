"""Seat changes over direct links (the host's hub): a newcomer sits down at a running table,
the host stands up and its process keeps passing the others' messages until they finish; a
seat killed after a change resumes across it (spec/node.md §9)."""

from __future__ import annotations

import time

from node_cluster import Cluster, cluster, wait_for  # noqa: F401 - the fixture


def test_the_host_stands_up_and_its_hub_serves_the_others_to_the_end(
    cluster: Cluster,  # noqa: F811
) -> None:
    cluster.host(
        "limit-tuppen",
        3,
        ["mode=cash", "hands=6"],
        step_timeout=20,
        linger=5,
        extra=("--stand-after-hand", "4"),
    )
    cluster.join_with(1)
    cluster.join_with(2)
    procs = list(cluster.procs.values())
    # At once: in direct mode only the host admits keys at its hub, so a newcomer must say
    # hello before the host's last hand starts (spec/node.md §7a).
    wait_for(lambda: cluster.said(0, "table ready"), 120, "the table", procs)
    cluster.join_with(3, "--buy-in", "4")
    codes = cluster.wait([f"seat{s}" for s in range(4)], 300)
    assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tail()}"
    assert cluster.said(0, "keeps passing the others' messages")
    last = cluster.finished_state(1)
    assert last.engine.outcome is not None and last.hand == 6
    assert sorted(s.name for s in last.config.seats) == ["seat1", "seat2", "seat3"]
    # It leaves after hand 4, or after 5 if the newcomer still waited when hand 4 began
    # (newcomers sit down first: spec/node.md §7a).
    assert cluster.finished_state(0).hand in (4, 5)
    cluster_records = [cluster.transcript(s)[1] for s in (1, 2)]
    assert cluster_records[0] == cluster_records[1]


def test_a_seat_killed_after_a_change_resumes_across_it(cluster: Cluster) -> None:  # noqa: F811
    cluster.host("limit-tuppen", 3, ["mode=cash", "hands=5"], step_timeout=20, linger=5)
    cluster.join_with(1, "--stand-after-hand", "1")
    cluster.join_with(2)
    procs = list(cluster.procs.values())
    wait_for(lambda: cluster.said(2, "hand 3 starts"), 180, "hand 3", procs)
    cluster.kill("seat2")
    time.sleep(1)
    cluster.resume(2, linger=5)
    codes = cluster.wait(["seat0", "seat1", "seat2"], 300)
    assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tail()}"
    assert cluster.said(2, "resumed from")
    cluster.check_identical([0, 2])
    last = cluster.finished_state(2)
    assert last.hand == 5 and len(last.segments) == 2
