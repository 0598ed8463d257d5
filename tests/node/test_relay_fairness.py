"""A relay shares itself fairly (real processes and sockets): strangers that each open a one-seat
table of their own, 64 connections per source address, do not keep an honest 3-seat table out
of ``dealerless relay``: it starts within 10 s of its first join and finishes.

Two relays: one with its default caps (16 tables per source address: most of the strangers'
connections are refused a table and keep trying), and one whose table cap per address is lifted
to 64, so the strangers' tables fill every connection it allows and newcomers must be let in by
ending the over-represented (and, after 30 s, the idle).

The issue's figure (4,096 connections from 64 addresses, held 60 s, the honest table arriving
30 s in, when the strangers' tables are idle) runs with ``DEALERLESS_LONG=1``; CI runs 1,024
connections from 16 addresses at a relay capped at 1,024 connections (as full, the same way)
and starts the honest table at once.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from node_cluster import Cluster, wait_for

LOAD = Path(__file__).with_name("stranger_load.py")
LONG = os.environ.get("DEALERLESS_LONG") == "1"
STRANGERS = 4096 if LONG else 1024
PER_ADDRESS = 64
HOLD = 60.0 if LONG else 0.0  # seconds the strangers hold the relay at least
ARRIVE = 30.0 if LONG else 0.0  # seconds into the hold when the honest table arrives
START_WITHIN = 10.0  # the bound: from the first join to every seat's configuration


def _raise_fd_limit() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # inherited by the processes


def _last(log: Path, name: str) -> int:
    found = re.findall(rf"^{name} (\d+)$", log.read_text(), re.MULTILINE)
    return int(found[-1]) if found else 0


def _honest_table(cluster: Cluster, port: int) -> tuple[float, float]:
    """Host and two joiners through the relay: seconds from the first join until every seat
    holds the signed configuration, and until every seat saw the game end."""
    cluster.host("limit-tuppen", 3, ["hands=2"], relay=port, linger=3.0)
    first = time.monotonic()
    cluster.join(1, linger=3.0)
    cluster.join(2, linger=3.0)
    for seat in (0, 1, 2):
        cluster.wait_for_config(seat, 60)
    started = time.monotonic() - first
    cluster.wait_said([0, 1, 2], "game over", 240)
    finished = time.monotonic() - first
    codes = cluster.wait(["seat0", "seat1", "seat2"], 60)
    assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tail()}"
    cluster.check_identical([0, 1, 2])
    return started, finished


def test_an_honest_table_without_strangers(cluster: Cluster) -> None:
    """The reference figures for the next test."""
    port = cluster.relay()
    started, finished = _honest_table(cluster, port)
    print(
        f"no strangers: the table started {started:.1f} s after the first join, "
        f"finished after {finished:.1f} s"
    )


@pytest.mark.parametrize("tables_per_address", [16, 64])
def test_a_relay_full_of_strangers_tables_lets_an_honest_table_in(
    cluster: Cluster, tables_per_address: int
) -> None:
    _raise_fd_limit()
    extra = ["--max-connections", str(STRANGERS)]
    if tables_per_address != 16:  # 16: the relay's default
        extra += ["--tables-per-address", str(tables_per_address)]
    port = cluster.relay(*extra)
    addresses = STRANGERS // PER_ADDRESS
    expected = min(STRANGERS, addresses * tables_per_address)  # tables they can hold
    log = cluster.root / "load.log"
    flags = ["--per-address", str(PER_ADDRESS), "--pace", "48"]
    with open(log, "wb") as out:
        load = subprocess.Popen(
            [sys.executable, str(LOAD), str(port), str(STRANGERS), "table", *flags],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    cluster.procs["load"] = load
    began = time.monotonic()
    held = lambda: _last(log, "tables") >= 0.95 * expected  # noqa: E731
    wait_for(held, 180, "the strangers' tables", [load])
    filled = time.monotonic() - began
    hold_from = time.monotonic()
    while time.monotonic() - hold_from < ARRIVE:
        assert load.poll() is None
        time.sleep(0.5)
    held_before = _last(log, "tables")
    started, finished = _honest_table(cluster, port)
    while time.monotonic() - hold_from < HOLD:
        assert load.poll() is None
        time.sleep(0.5)
    held_after = _last(log, "tables")
    relay_log = cluster.logs["relay#0"].read_text(errors="replace")
    made_room = [line for line in relay_log.splitlines() if "to make room" in line]
    print(
        f"{STRANGERS} strangers from {addresses} addresses at a relay with "
        f"{tables_per_address} tables per address: {held_before} of their tables held after "
        f"{filled:.1f} s (+{ARRIVE:.0f} s), {held_after} at the end "
        f"({time.monotonic() - hold_from:.0f} s); the honest table started {started:.1f} s after "
        f"its first join, finished after {finished:.1f} s\n" + "\n".join(made_room[:3])
    )
    assert load.poll() is None, log.read_text()[-2000:]
    assert held_after >= 0.9 * expected, held_after  # the pressure was real until the end
    assert started < START_WITHIN, started
    if expected >= STRANGERS:  # the relay was full: the honest connections were let in
        assert made_room, relay_log[-3000:]
