"""A hub that drops one seat's frames (in direct mode the hub is the host's own process): the
seat is silent to the others for a while. Silence is not cheating: every seat (all honest here)
ends with the same transcript, the audit accepts it, and nobody is charged as a cheat.

It fails on the protocol of before issue 11, where the silenced seat was charged as a culprit
(a timeout aborted the hand naming it, and a second deadline convicted it without evidence)."""

from __future__ import annotations

from pathlib import Path

import trio
from attacks import converged

from dealerless.client.bots.driver import BotDriver
from dealerless.node.hostile import run_table
from dealerless.node.hub import Hub, Member
from dealerless.node.wire import decode
from dealerless.protocol.rules.registry import make_config


class DroppingHub(Hub):
    """Drops every seat message of the last joiner for ``seconds``, starting at its ``after``-th
    table message (past the configuration round, inside the first hand)."""

    def __init__(self, seconds: float, after: int = 12) -> None:
        super().__init__(say=lambda _s: None)
        self.seconds = seconds
        self.after = after
        self.sent = 0
        self.victim: bytes | None = None
        self.since: float | None = None
        self.dropped = 0

    def _relay(self, sender: Member, target: Member, out: bytes) -> None:
        now = trio.current_time()
        if self.victim is None and sender.table is not None:
            members = list(sender.table.members)
            if len(members) == sender.table.seats and decode(out).get("t") == "msg":
                self.victim = members[-1]  # the last joiner
        if sender.key == self.victim and decode(out).get("t") == "msg":  # its table messages
            self.sent += 1
            if self.sent < self.after:
                return super()._relay(sender, target, out)
            self.since = now if self.since is None else self.since
            if now - self.since < self.seconds:
                self.dropped += 1
                return
        super()._relay(sender, target, out)


def test_a_hub_that_drops_one_seats_frames_charges_nobody(tmp_path: Path) -> None:
    hub = DroppingHub(seconds=4.5)  # past one step deadline: the seat is timed out once
    game = make_config("limit-tuppen", 3, {"hands": 3})
    run = run_table(tmp_path, game, None, bot=BotDriver, hub=hub, step_timeout_ms=3000, timeout=90)
    assert hub.dropped > 0
    _, report = converged(run)  # every seat: same state, audit OK, complete
    assert not report.caught, report.to_json()
    assert all(code == 0 for code in run.codes.values()), run.log()
