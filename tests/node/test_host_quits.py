"""The host quits a 3-seat table mid-hand and comes back later (issue 11): the joiners who
stayed and acted are charged nothing; the table finishes with one transcript."""

from __future__ import annotations

import time

from node_cluster import Cluster, wait_for

from dealerless.protocol.table.audit import audit_records

STEP_S = 3.0


def test_the_host_quits_mid_hand_and_comes_back_the_joiners_are_charged_nothing(
    cluster: Cluster,
) -> None:
    cluster.host("tuppen", 3, [], step_timeout=int(STEP_S * 1000), linger=5)
    for seat in (1, 2):
        cluster.join(seat, linger=5, floor=1.0)
    wait_for(lambda: cluster.count(0) >= 30, 120, "the host in play", cluster.procs.values())
    cluster.kill("seat0")  # quits: its hub goes with it, the joiners cannot reach each other
    time.sleep(5 * STEP_S)  # "minutes later": many step deadlines pass meanwhile
    cluster.resume(0, linger=5)
    codes = cluster.wait(["seat0", "seat1", "seat2"], 300)
    assert codes == {"seat0": 0, "seat1": 0, "seat2": 0}, f"{codes}\n{cluster.tail()}"
    cluster.check_identical([0, 1, 2])
    config, records = cluster.transcript(1)
    report = audit_records(config, records)
    assert not report.caught, report.to_json()
    charged = {h.silent for h in report.hands if h.silent is not None}
    charged |= {s.seat for s in report.silences}
    assert charged <= {0}, f"a joiner was charged: {report.to_json()['silences']}"
