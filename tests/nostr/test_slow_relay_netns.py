"""A table on a relay as strict as damus's write policy: 8 events a minute per address, a
refused attempt spending a token too (noteguard's rule). Each seat sits in its own network
namespace, so each has its own address, as players at home do. A 4-seat Limit Tuppen table
of bots with 120 s steps plays two hands, and no seat is ever timed out: the seats pace
themselves and put what waits into few events.

About four minutes a hand, so it runs with ``DEALERLESS_LONG=1``; the figures of the last run
are in spec/node.md ("Relay profiles")."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from netns import RELAY_ADDRESS, Namespaces, make_namespaces  # noqa: F401 - fixture
from node_cluster import CLI, Cluster, wait_for
from nostr_relay_process import RustRelayProcess

from dealerless.node.invite import Invite
from dealerless.protocol.table.audit import audit_records

SEATS = 4
LONG = os.environ.get("DEALERLESS_LONG") == "1"


@pytest.mark.skipif(not LONG, reason="about 8 minutes: runs with DEALERLESS_LONG=1")
def test_eight_events_a_minute_per_address_and_no_seat_timed_out(
    tmp_path: Path,
    make_namespaces: Callable[[int], Namespaces],  # noqa: F811
) -> None:
    namespaces = make_namespaces(SEATS)
    relay = RustRelayProcess(
        tmp_path / "relay",
        rate_per_minute=0,
        per_ip_per_minute=8,
        host=RELAY_ADDRESS,
        prefix=tuple(namespaces.exec(namespaces.relay)),
    ).start()
    cluster = Cluster(tmp_path)
    procs: list[subprocess.Popen[bytes]] = []

    def spawn(i: int, args: list[str]) -> None:
        log = open(tmp_path / f"seat{i}.log", "ab")  # noqa: SIM115
        cluster.logs[f"seat{i}#0"] = tmp_path / f"seat{i}.log"
        procs.append(
            subprocess.Popen(
                # about the relays' pace: every frame through them, no direct links
                [*namespaces.exec(namespaces.players[i]), *CLI, *args, "--relays-only"],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=dict(os.environ, PYTHONUNBUFFERED="1"),
            )
        )
        log.close()

    try:
        homes = [tmp_path / f"seat{i}" for i in range(SEATS)]
        invite_file = tmp_path / "invite"
        started = time.monotonic()
        spawn(0, ["host", "--home", str(homes[0]), "--game", "limit-tuppen", "--seats",
                  str(SEATS), "--rule", "hands=2", "--step-timeout", "120", "--bot",
                  "--name", "seat0", "--nostr", relay.url, "--invite-file",
                  str(invite_file)])  # fmt: skip
        wait_for(invite_file.exists, 60, "the invite", procs)
        code = invite_file.read_text().strip()
        for i in range(1, SEATS):
            spawn(i, ["join", code, "--home", str(homes[i]), "--bot", "--name", f"seat{i}"])
        for i, proc in enumerate(procs):
            try:
                assert proc.wait(1500) == 0, cluster.tail()
            except subprocess.TimeoutExpired:
                raise AssertionError(f"seat {i} did not finish\n{cluster.tail()}") from None
        took = time.monotonic() - started
        cluster.homes = homes
        cluster.invite = Invite.decode(code)
        cluster.check_identical(list(range(SEATS)))
        report = audit_records(*cluster.transcript(0))
        assert report.complete and not report.caught
        assert not report.silences, report.silences  # nobody was timed out
        print(f"8 events/min per address, 4 seats, 2 hands: {took:.0f} s")
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        relay.kill()
