"""Seat changes over direct links (the host's hub): a newcomer sits down at a running table,
the host stands up and its process keeps passing the others' messages until they finish; a
seat killed after a change resumes across it (spec/node.md §9); a club evening whose newcomer
checked the table from its start and is credited for all of it."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from node_cluster import Cluster, cluster, wait_for  # noqa: F401 - the fixture

from dealerless.client.cli import main
from dealerless.client.club_result import club_result
from dealerless.protocol.table.audit import audit_records
from dealerless.protocol.wire.identity import fingerprint_of


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


def test_a_club_evening_where_a_newcomer_joins_after_hand_3(
    cluster: Cluster,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 22: a newcomer sits down after hand 3 of a Limit table and the table plays on. It
    checked the chain from the table's start before it signed anything, so its own file
    audits clean from the start, and the ratings credit it for the whole table it played."""
    cluster.host("limit-tuppen", 3, ["mode=cash", "hands=7"], step_timeout=20, linger=5)
    cluster.join_with(1)
    cluster.join_with(2)
    procs = list(cluster.procs.values())
    wait_for(lambda: cluster.said(0, "hand 3 starts"), 180, "hand 3", procs)
    cluster.join_with(3, "--buy-in", "7")  # seated after hand 3 (or 4, as its hello comes)
    codes = cluster.wait([f"seat{s}" for s in range(4)], 400)
    assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tail()}"
    assert cluster.said(3, "checking its chain from the start")
    assert cluster.said(3, "checked the table's chain from its start")
    newcomer = cluster.finished_state(3)  # its own file, audited: complete, every record
    config, records = cluster.transcript(3)
    assert config.carry is None and newcomer.chain_base == 0  # from the table's start
    carry = newcomer.config.carry
    assert carry is not None and 3 <= carry.hands < 7  # after hand 3, or later under load
    names = [s.name for s in newcomer.config.seats]
    assert sorted(names) == ["seat0", "seat1", "seat2", "seat3"] and names[3] == "seat3"
    assert newcomer.engine.outcome is not None and newcomer.hand == 7
    report = audit_records(config, records)
    assert [h.hand for h in report.hands] == list(range(1, 8))
    host_config, host_records = cluster.transcript(0)
    assert host_config == config and host_records == records
    expected = club_result(audit_records(host_config, host_records))
    code = main(["ratings", "--home", str(tmp_path / "home"), "--json", "--import",
                 str(cluster.store(3).transcript_path)])  # fmt: skip
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and [i["status"] for i in doc["imported"]] == ["counted"], doc
    credited = {p["fingerprint"]: p["chips"] for p in doc["players"]}
    assert credited == dict(zip((f for f, _ in expected.seats), expected.scores, strict=True))
    seat3 = fingerprint_of(newcomer.config.seats[3].key)
    assert seat3 in credited and len(credited) == 4
