from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

# The process cluster of the node tests (tests/node/node_cluster.py) is used here too.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "node"))

from nostr_relay_process import RelayProcess, RustRelayProcess


@pytest.fixture
def nostr_relays(tmp_path: Path) -> Iterator[Callable[..., RelayProcess]]:
    """Start real relays: ``nostr_relays()``, ``nostr_relays(max_event_size=4096)`` ...;
    every one started is killed at the end of the test."""
    started: list[RelayProcess] = []

    def start(**limits: object) -> RelayProcess:
        relay = RelayProcess(tmp_path / f"relay{len(started)}", **limits)  # type: ignore[arg-type]
        started.append(relay)
        return relay.start()

    yield start
    for relay in started:
        relay.kill()


@pytest.fixture
def rust_relays(tmp_path: Path) -> Iterator[Callable[..., RustRelayProcess]]:
    """Start rust-nostr relays (``rust_relays(rate_per_minute=0)`` ...); every one started is
    killed at the end of the test."""
    started: list[RustRelayProcess] = []

    def start(**options: object) -> RustRelayProcess:
        relay = RustRelayProcess(tmp_path / f"rust{len(started)}", **options)  # type: ignore[arg-type]
        started.append(relay)
        return relay.start()

    yield start
    for relay in started:
        relay.kill()
