"""Faults between honest peers over real nodes: the hub (node/hostile.py ``FaultyHub``) loses,
duplicates, delays and reorders what it forwards, or cuts one member off for a while. Every seat
is honest; the game must complete the same way on every peer, audit OK, nothing caught, every
node exit 0. (SIGKILL and restart at every step: tests/adversarial/test_kill_restart.py.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from attacks import clean

from dealerless.client.bots.driver import BotDriver
from dealerless.node.hostile import FaultyHub, TableRun, run_table
from dealerless.node.options import NodeOptions
from dealerless.protocol.rules.registry import make_config

FAULTS: dict[str, dict[str, Any]] = {
    "drop": {"drop": 0.15},
    "duplicate": {"duplicate": 0.3},
    "delay-reorder": {"delay": 0.3, "max_delay": 0.4},
    "partition": {"partition": (0.5, 4.0)},
    "everything": {"drop": 0.08, "duplicate": 0.1, "delay": 0.15, "partition": (1.0, 2.0)},
}


def faulty_game(tmp_path: Path, name: str, seed: int, hands: int = 2) -> tuple[TableRun, FaultyHub]:
    hub = FaultyHub(seed, **FAULTS[name])
    game = make_config("limit-tuppen", 3, {"hands": hands})
    # a generous step timeout: faults slow steps down, they must not time honest seats out;
    # and a linger the hub's losses cannot outlast: since the result round is parallel, any
    # seat may miss the others' last results, and it fetches them from a peer that is still
    # there (a node leaves sooner once every peer told it the same record count)
    options = NodeOptions(linger=6.0, stall=0.5, sync_wait=1.0, min_step_timeout_ms=0)
    run = run_table(
        tmp_path,
        game,
        None,
        bot=BotDriver,
        hub=hub,
        step_timeout_ms=20_000,
        timeout=240,
        options=options,
    )
    return run, hub


@pytest.mark.parametrize("name", sorted(FAULTS))
def test_faulty_hub(tmp_path: Path, name: str) -> None:
    run, hub = faulty_game(tmp_path, name, seed=3)
    report = clean(run)
    assert len(report.hands) == 2
    assert sum(hub.stats.values()) > 0, hub.stats
