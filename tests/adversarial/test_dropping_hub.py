"""A hub that drops one seat's frames (in direct mode the hub is the host's own process): the
seat is silent to the others for a while. Silence is not cheating: every seat (all honest here)
ends with the same transcript, the audit accepts it, and nobody is charged as a cheat.

With the protocol side of issue 11 merged, nobody is charged any more, but the silenced seat
does not rejoin: it wrote its element (the hub dropped it), so it refuses the others' timeout
certificate against itself and waits at its own head for good, while they play on without it
(found by this test; reported to the protocol side). Strict xfail until that is settled: it
turns into a failure the day it passes, so the marker is removed then, not forgotten."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from attacks import converged

from dealerless.node.hostile import run_table
from dealerless.node.hub import Hub, Member
from dealerless.node.wire import decode
from dealerless.protocol.rules.registry import make_config


class DroppingHub(Hub):
    """Once ``after`` table frames have been forwarded (the first hand is under way), drops
    every message of the last joiner's key for ``seconds``."""

    def __init__(self, seconds: float, after: int = 40) -> None:
        super().__init__(say=lambda _s: None)
        self.seconds, self.after = seconds, after
        self.frames = 0
        self.since: float | None = None
        self.dropped = 0

    def _relay(self, sender: Member, target: Member, out: bytes) -> None:
        now = trio.current_time()
        table = sender.table
        victim = list(table.members)[-1] if table is not None and table.members else None
        if self.since is None:
            if decode(decode(out)["data"]).get("t") == "f":
                self.frames += 1
            if self.frames >= self.after and table is not None:
                self.since = now
        if self.since is not None and sender.key == victim and now - self.since < self.seconds:
            self.dropped += 1
            return
        super()._relay(sender, target, out)


@pytest.mark.xfail(
    strict=True,
    reason="a seat whose element a hub dropped refuses the timeout certificate against it "
    "and never rejoins (protocol side, issue 11 property 2)",
)
def test_a_hub_that_drops_one_seats_frames_charges_nobody(tmp_path: Path) -> None:
    hub = DroppingHub(seconds=4.0)
    game = make_config("limit-tuppen", 3, {"hands": 3})
    run = run_table(tmp_path, game, None, hub=hub, step_timeout_ms=3000, timeout=60)
    assert hub.dropped > 0
    _, report = converged(run)  # every seat: same state, audit OK, complete
    assert not report.caught, report.to_json()
    assert all(code == 0 for code in run.codes.values()), run.log()
