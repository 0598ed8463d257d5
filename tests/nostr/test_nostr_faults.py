"""A relay seen through a proxy that delays every event and cuts every link now and then: the
events in flight at a cut are lost (chatter is ephemeral), and the table settles by catch-up."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from node_cluster import Cluster, cluster, wait_for  # noqa: F401 - the fixture
from nostr_cluster import host_on_nostr, play_all
from nostr_relay_process import RelayProcess

Start = Callable[..., RelayProcess]


@pytest.fixture(autouse=True)
def _relays_only(cluster: Cluster) -> None:  # noqa: F811
    """These tests are about what the relays do with the table's frames: no direct links."""
    cluster.node_flags = ("--relays-only",)


def start_proxy(root: Path, target: int, delay: float, cut_every: float) -> tuple[int, Path]:
    port_file, stats = root / "proxy.port", root / "proxy.json"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dealerless.client.bench.delay_proxy",
            "--target",
            f"127.0.0.1:{target}",
            "--delay",
            str(delay),
            "--cut-every",
            str(cut_every),
            "--port-file",
            str(port_file),
            "--stats-file",
            str(stats),
        ]
    )
    root.joinpath("proxy.pid").write_text(str(proc.pid))
    wait_for(port_file.exists, 30, "the proxy's port", [proc])
    return int(port_file.read_text()), stats


def test_a_delaying_cutting_relay_settles_by_catch_up(
    cluster: Cluster,  # noqa: F811
    nostr_relays: Start,
) -> None:
    relay = nostr_relays()
    port, stats = start_proxy(cluster.root, relay.port, delay=0.05, cut_every=4.0)
    try:
        host_on_nostr(cluster, "tuppen", 3, [f"ws://127.0.0.1:{port}"])
        play_all(cluster, 3, timeout=400)
        cluster.check_identical([0, 1, 2])
        assert '"cuts": 0' not in stats.read_text()  # links were cut during the game
    finally:
        os.kill(int(cluster.root.joinpath("proxy.pid").read_text()), signal.SIGTERM)
