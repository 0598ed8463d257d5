"""Sitting out and coming back over real node processes and a real Nostr relay (spec/node.md
§7a): a seat that sits out follows the table as an observer, asks the seat hosting it to come
back, and is seated again at a hand boundary with the chips it kept. Its transcript stays the
whole table's chain, the same bytes as every other seat's."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

import pytest
from node_cluster import Cluster, cluster, wait_for  # noqa: F401 - the fixture
from nostr_cluster import CASH, host_on_nostr, three_cash_seats
from nostr_relay_process import RelayProcess
from test_seat_changes_nostr import cash_balance

from dealerless.protocol.table import TableConfig, TableMachine

Start = Callable[..., RelayProcess]


def _process_state(pid: int) -> str:
    """The state letter of ``/proc/PID/stat`` ("T" when stopped by a signal)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except OSError:
        return "gone"
    return stat.rsplit(")", 1)[1].split()[0]


def segments_of(machine: TableMachine) -> list[list[str]]:
    return [[s.name for s in config.seats] for config in machine.segments]


def away_ledger(config: TableConfig, name: str) -> dict[str, int] | None:
    carry = config.carry
    if carry is None:
        return None
    return next((dict(d.ledger) for d in carry.away if d.name == name), None)


def back_ledger(config: TableConfig, name: str) -> dict[str, int] | None:
    carry = config.carry
    if carry is None:
        return None
    for seat, ledger in zip(config.seats, carry.ledgers, strict=True):
        if seat.name == name:
            return dict(ledger)
    return None


def test_a_seat_sits_out_follows_the_table_and_comes_back(
    cluster: Cluster,  # noqa: F811
    nostr_relays: Start,
) -> None:
    relay = nostr_relays()
    host_on_nostr(
        cluster,
        "limit-tuppen",
        3,
        [relay.url],
        rules=(*CASH, "hands=7"),
        extra=("--step-timeout", "20"),
        linger=5,
    )
    cluster.join_with(1)
    cluster.join_with(2, "--sit-out-after-hand", "2", "--back-after-hand", "4")
    codes = cluster.wait([f"seat{s}" for s in range(3)], 500)
    assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tail()}"
    final = cluster.check_identical([0, 1, 2])  # the one that sat out holds the whole chain
    assert final.engine.outcome is not None and final.hand == 7
    segments = segments_of(final)
    first = segments[0]  # in joining order
    assert sorted(first) == ["seat0", "seat1", "seat2"]
    assert segments[1] == [n for n in first if n != "seat2"]  # sat out after hand 2
    assert segments[-1] == [*segments[1], "seat2"]  # seated again, after the others
    came_back = next(c for c in final.segments[2:] if "seat2" in [s.name for s in c.seats])
    assert back_ledger(came_back, "seat2") == away_ledger(final.segments[1], "seat2")
    assert cash_balance(final) == 0
    assert cluster.said(2, "we sit out and follow the table")
    assert cluster.said(2, "we asked to come back")
    assert cluster.said(0, "comes back after this hand")
    assert "verified" in cluster.audit_cli(2)


# Under load this test used to end in a divergence now and then (4 of 20 runs beside a CPU
# hog; issue 23). Since the roll-back across a hand, P-31 at seat changes and P-49 to
# P-51 it passed 20 runs of 20 beside a CPU hog (2026-12-04). It stays in the long tier for its
# length: 40 hands, 70-100 s on a loaded machine, more than a fresh-clone CI run can spare.
@pytest.mark.skipif(
    os.environ.get("DEALERLESS_LONG") != "1",
    reason="40 hands (70-100 s under load): DEALERLESS_LONG=1",
)
def test_a_seat_sat_out_for_silence_comes_back_by_itself(
    cluster: Cluster,  # noqa: F811
    nostr_relays: Start,
) -> None:
    """A seat stopped (SIGSTOP) for three hands is timed out in each (no cheat) and sits out
    with its chips; continued, it catches up, sees that it sits out and asks to come back."""
    relay = nostr_relays()
    # The relays' path, as in the CI runs this test was tuned on: with direct links on, one
    # fresh-clone run of three ended in issue 23's late-last-result divergence (protocol.md §8).
    cluster.node_flags = ("--relays-only",)
    # 40 hands: long enough to come back on a loaded machine. 5 s steps on a loaded machine
    # make both races of coming back happen now and then, and the test must pass through them:
    # a follower still replaying earlier hands is seated only once it caught up (node.md §7a),
    # and a last result of the game signed late converges on the others' certificate (§5).
    procs = three_cash_seats(cluster, relay.url, 40, watcher=0, step_timeout=5)
    stopped = cluster.procs["seat2"]
    stopped.send_signal(signal.SIGSTOP)
    try:
        # Once in 20 hog runs the stopped seat played on to the end (its log shows no pause):
        # say so plainly if the stop did not take or came too late.
        wait_for(lambda: _process_state(stopped.pid) == "T", 5, "seat2 stopped", procs)
        assert not cluster.said(0, "game over"), "the game ended before seat2 was stopped"
        wait_for(
            lambda: cluster.said(0, "the table goes on with 2 seats"), 180, "the sit-out", procs
        )
    finally:
        stopped.send_signal(signal.SIGCONT)
    codes = cluster.wait([f"seat{s}" for s in range(3)], 500)
    assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tail()}"
    final = cluster.check_identical([0, 1, 2])
    assert final.engine.outcome is not None and final.hand == 40
    segments = segments_of(final)
    assert len(segments) >= 3 and "seat2" not in segments[1]
    assert segments[-1] == [*segments[1], "seat2"]
    assert cluster.said(2, "we were silent and sit out")
    assert not cluster.said(0, "caught cheating")
    assert cash_balance(final) == 0
