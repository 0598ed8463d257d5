"""The next host goes silent at the very boundary (spec/protocol.md §9): the segment ended, it
signed the next configuration but nothing of it leaves any more (a process gone between the last
result and its ``next-config``). The seats that stay time it out there with a certificate; it
sits out with its chips (silence is not cheating), the next seat that stays hosts, and the
table plays to its end. Real nodes over loopback TCP (the first host's hub), one hostile."""

from __future__ import annotations

from pathlib import Path

from dealerless.client.bots.driver import BotDriver
from dealerless.node.hostile import Attack, HostileSeatNode, decode, run_table
from dealerless.node.options import NodeOptions
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.audit import audit_records


class GoneAtTheBoundary(Attack):
    """Honest until it would send the next configuration; from then on it sends nothing."""

    def on_frame(self, node: HostileSeatNode, frame: bytes) -> list[object] | None:  # type: ignore[override]
        if self.muted or decode(frame).kind == "next-config":
            self.muted = self.started = True
            self.withheld.append(frame)
            return []
        return None


def test_a_next_host_gone_at_the_boundary_is_timed_out_and_the_table_goes_on(
    tmp_path: Path,
) -> None:
    game = make_config("limit-tuppen", 4, {"mode": "cash", "hands": 4})
    quick = NodeOptions(linger=1.5, stall=0.5, sync_wait=1.0, min_step_timeout_ms=0)
    # The host sits out after hand 1 and follows the table (its process keeps the hub).
    host = NodeOptions(
        linger=1.5,
        stall=0.5,
        sync_wait=1.0,
        min_step_timeout_ms=0,
        change_after=("sit-out", 1),
        follow_away=True,
    )
    attack = GoneAtTheBoundary()
    run = run_table(
        tmp_path,
        game,
        attack,
        hostile_index=1,  # seat 1: the first seat that stays once the host sits out
        bot=BotDriver,
        options=quick,
        host_options=host,
        step_timeout_ms=3000,
        timeout=120,
    )
    assert attack.withheld and decode(attack.withheld[0]).kind == "next-config"
    assert all(run.codes[s] == 0 for s in (0, 2, 3)), run.log()
    assert run.config is not None
    records = run.records(2)
    assert run.records(3) == records == run.records(0), run.log()  # n0 followed the table
    report = audit_records(run.config, records)
    assert report.ok and report.complete, (report.failure, run.log())
    assert not report.caught  # silence, not a violation
    final = TableMachine.resume(run.config, None, records)
    assert final.engine.outcome is not None and final.hand == 4, run.log()
    assert [s.name for s in final.config.seats] == ["n2", "n3"]
    carry = final.config.carry
    # n0 asked to sit out, n1 was silent at the boundary: both keep their chips
    assert carry is not None and [d.name for d in carry.away] == ["n0", "n1"]
    assert any("timed out (next-config" in line for line in run.lines[2]), run.log()
