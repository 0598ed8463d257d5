from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from nostr_relay_process import RelayProcess


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
