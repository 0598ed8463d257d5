from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

# The process cluster of the node tests (tests/node/node_cluster.py) is used here too.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "node"))

from nostr_relay_process import RelayProcess, RustRelayProcess

R = TypeVar("R", RelayProcess, RustRelayProcess)


def _started(make: Callable[..., R], root: Path, name: str) -> Iterator[Callable[..., R]]:
    """A starter of real relays made by ``make(directory, **options)``; every one started is
    killed at the end of the test."""
    started: list[R] = []

    def start(**options: object) -> R:
        relay = make(root / f"{name}{len(started)}", **options)
        started.append(relay)
        relay.start()
        return relay

    yield start
    for relay in started:
        relay.kill()


@pytest.fixture
def nostr_relays(tmp_path: Path) -> Iterator[Callable[..., RelayProcess]]:
    """Start `nostr-relay` relays: ``nostr_relays()``, ``nostr_relays(max_event_size=4096)``."""
    yield from _started(RelayProcess, tmp_path, "relay")


@pytest.fixture
def rust_relays(tmp_path: Path) -> Iterator[Callable[..., RustRelayProcess]]:
    """Start rust-nostr relays: ``rust_relays(rate_per_minute=0)`` ..."""
    yield from _started(RustRelayProcess, tmp_path, "rust")
