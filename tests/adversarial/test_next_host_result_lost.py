"""The next host's own last result lost on its way to every other seat, at a seat change
(spec/protocol.md P-51, §8), over real nodes: the host's process and hub, two joiners, bots.

Seat 2 stands up after hand 1, so seat 0 hosts the next segment. The hub loses everything
seat 0 sends from its result of hand 1 on, until both others' timeout votes have passed: seat 0
closes the result round with every result and ends the segment, while seats 1 and 2 never get
its result and vote it silent. Seat 0 must not sign the next configuration before it hears that
a seat of the round holds the round (none does): it meets their certificate, takes it, and the
table goes on with seats 0 and 1 on one transcript. On the code before P-51 seat 0 signed at
once, into a segment the others never reached.

The second test also holds everything the others send seat 0 from their first vote on, until
seat 0 has signed the next configuration (its hold ran out: it heard nothing). Their
certificate then reaches it after its switch, which is void (P-52): it takes the certificate,
hosts the segment again, and the table goes on on one transcript. On the code before P-52 it
went on alone."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from dealerless.client.bots.driver import BotDriver
from dealerless.node.hostile import TableRun, run_table
from dealerless.node.hub import Hub, Member
from dealerless.node.options import NodeOptions
from dealerless.node.wire import decode
from dealerless.protocol.messages import MessageError, decode_message
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.audit import audit_records
from dealerless.protocol.table.kinds import TABLE_REGISTRY

STEP_MS = 3000


def _table_frame(out: bytes) -> tuple[str, int] | None:
    """The kind and hand of the table frame a hub message carries (None: no table frame)."""
    try:
        message = decode(out)
        inner = decode(message["data"]) if message.get("t") == "msg" else None
        if not isinstance(inner, dict) or inner.get("t") != "f":
            return None
        frame = decode_message(inner["f"], registry=TABLE_REGISTRY)
    except (MessageError, KeyError, TypeError, ValueError):
        return None
    return frame.kind, frame.hand


class HostResultLosingHub(Hub):
    """Loses every message the host (seat 0) sends, from its result of hand 1 on, until both
    other seats' timeout votes have passed through."""

    def __init__(self) -> None:
        super().__init__(say=lambda _s: None)
        self.losing = False
        self.voters: set[bytes] = set()
        self.lost = 0

    def _relay(self, sender: Member, target: Member, out: bytes) -> None:
        if sender.table is None:
            return super()._relay(sender, target, out)
        frame = _table_frame(out)
        if sender.key == sender.table.host:
            if frame == ("result", 1) and not self.voters:
                self.losing = True
            if self.losing:
                self.lost += 1
                return None
        elif self.losing and frame is not None and frame[0] == "timeout-vote":
            self.voters.add(sender.key)
            self.losing = len(self.voters) < 2
        return super()._relay(sender, target, out)


class HostDeafHub(HostResultLosingHub):
    """As :class:`HostResultLosingHub`, and the messages of each seat that votes are held on
    their way to the host (and to a newcomer) from its first vote on, until the host has sent
    its next configuration (``until`` "next-config"), or until a newcomer has signed it, so it
    sat down there ("newcomer-signed"), or until the newcomer's first message after it, so it
    is fetching the chain the offer names ("newcomer-asked"); then they all come, in order."""

    def __init__(self, until: str = "next-config") -> None:
        super().__init__()
        self.until = until
        self.signed = False  # the host's next configuration passed
        self.holding = False
        self.deaf_to: set[bytes] = set()  # the voters, whose messages to the host are held
        self.others: set[bytes] = set()  # the other seats of hand 1's result round
        self.held: list[tuple[Member, Member, bytes]] = []
        self.voided_at = 0

    def _relay(self, sender: Member, target: Member, out: bytes) -> None:
        table = sender.table
        if table is None:
            return super()._relay(sender, target, out)
        frame = _table_frame(out)
        host = table.host
        if sender.key != host and frame == ("result", 1):
            self.others.add(sender.key)
        if sender.key in self.others and frame is not None and frame[0] == "timeout-vote":
            self.holding = self.holding or not self.voided_at
            self.deaf_to.add(sender.key)
        if self.holding and sender.key in self.deaf_to and target.key not in self.others:
            self.held.append((sender, target, out))
            return None
        super()._relay(sender, target, out)
        kind = None if frame is None else frame[0]
        self.signed = self.signed or (sender.key == host and kind == "next-config")
        if self.holding and self._releases(sender.key, host, kind):
            self.holding, self.voided_at = False, len(self.held)
            for late in self.held:
                Hub._relay(self, *late)
        return None

    def _releases(self, sender: bytes, host: bytes, kind: str | None) -> bool:
        newcomer = sender != host and sender not in self.others
        if self.until == "newcomer-signed":
            return newcomer and kind == "config-sign"
        if self.until == "newcomer-asked":
            return newcomer and self.signed
        return self.signed


def _table_ends_on_one_transcript(run: TableRun) -> list[bytes]:
    """Every node exits well; seats 0 and 1 hold one transcript, seat 2 (stood up after hand
    1) its start; the audit passes, and the table had two segments."""
    assert run.config is not None
    assert all(code == 0 for code in run.codes.values()), run.log()
    host, other, left = (run.records(seat) for seat in range(3))
    assert host == other, f"{len(host)} against {len(other)} records\n{run.log()}"
    assert host[: len(left)] == left  # the seat that stood up holds the table up to the change
    report = audit_records(run.config, host)
    assert report.ok and report.complete, report.to_json()
    final = TableMachine.resume(run.config, None, host)
    assert len(final.segments) == 2 and final.config.players == 2
    for node in (0, 1):  # seat 0 took the others' certificate against its result
        assert "seat 0 (n0) was timed out (result, hand 1)" in run.lines[node], run.log()
    return host


def _run(
    tmp_path: Path,
    hub: Hub,
    *,
    stand: tuple[int, ...] = (2,),
    newcomer: bool = False,
    hands: int = 3,
) -> TableRun:
    """The seats ``stand`` stand up after hand 1; with ``newcomer`` a newcomer says hello
    while hand 1 is played (seated at the change)."""
    game = make_config("limit-tuppen", 3, {"mode": "cash", "hands": hands, "max_buy_in": 10})
    options = NodeOptions(linger=6.0, stall=0.5, sync_wait=1.0, min_step_timeout_ms=0)
    standing = replace(options, change_after=("stand", 1))
    return run_table(
        tmp_path,
        game,
        None,
        bot=BotDriver,
        hub=hub,
        step_timeout_ms=STEP_MS,
        timeout=120,
        options=options,
        joiner_options={seat: standing for seat in stand},
        newcomer_after="hand 1 starts" if newcomer else None,
    )


# covers: P-52
def test_a_next_host_that_heard_nothing_takes_the_certificate_after_its_switch(
    tmp_path: Path,
) -> None:
    hub = HostDeafHub("next-config")
    run = _run(tmp_path, hub)
    assert hub.lost > 0 and len(hub.voters) == 2 and hub.voided_at > 0, run.log()
    _table_ends_on_one_transcript(run)
    voided = [line for line in run.lines[0] if "after hand 1 is void" in line]
    assert len(voided) == 1, run.log()


# covers: P-52
def test_a_newcomer_seated_by_the_void_configuration_goes_on_with_the_table(
    tmp_path: Path,
) -> None:
    """Seats 1 and 2 stand up after hand 1 and a newcomer waits; the host, deaf to seats 1
    and 2, seats it in a configuration the others' certificate voids. The newcomer sat down
    there already: the host's records from its cut reach it with the next offer, it undoes
    its switch too, and the two play the rest of the game on one transcript."""
    hub = HostDeafHub("newcomer-signed")
    run = _run(tmp_path, hub, stand=(1, 2), newcomer=True)
    assert hub.lost > 0 and len(hub.voters) == 2 and hub.voided_at > 0, run.log()
    _host_and_newcomer_on_one_transcript(run)
    for node in (0, 3):
        voided = [line for line in run.lines[node] if "after hand 1 is void" in line]
        assert len(voided) == 1, run.log()
    # Back at the ended segment without a seat, the newcomer waited for the next
    # configuration: it did not end its part of the table there (and file it as finished).
    ends = [line for line in run.lines[3] if line.startswith("transcript:")]
    assert len(ends) == 1, run.log()


# covers: P-52
def test_a_newcomer_checking_the_void_configurations_chain_takes_the_next_one(
    tmp_path: Path,
) -> None:
    """As above, but the certificate reaches the host while the newcomer fetches and checks
    the chain of the void configuration. Its next offer replaces that one (records that
    differ are fetched again); if the newcomer sat down in the void one first, the host's
    records reach it and it undoes that switch. Either way the two end on one transcript."""
    hub = HostDeafHub("newcomer-asked")
    run = _run(tmp_path, hub, stand=(1, 2), newcomer=True)
    assert hub.lost > 0 and len(hub.voters) == 2 and hub.voided_at > 0, run.log()
    _host_and_newcomer_on_one_transcript(run)
    assert any("after hand 1 is void" in line for line in run.lines[0]), run.log()


# covers: P-52
def test_a_newcomer_the_void_configuration_seated_alone_is_seated_at_the_next_change(
    tmp_path: Path,
) -> None:
    """Seat 2 stands up after hand 1, seat 1 stays, and a newcomer waits: the host's result
    asked to re-form the table, so its void configuration seated the newcomer, and the
    certificate took that ask with the host's result. The next configuration has seats 0 and 1
    only; the newcomer, back at the ended segment, follows the table, the host asks again in
    hand 2, and the newcomer sits down after it. All three end on one transcript."""
    hub = HostDeafHub("newcomer-asked")
    run = _run(tmp_path, hub, newcomer=True, hands=4)
    assert hub.lost > 0 and len(hub.voters) == 2 and hub.voided_at > 0, run.log()
    assert run.config is not None
    assert all(code == 0 for code in run.codes.values()), run.log()
    host, other, newcomer = run.node_records(0), run.node_records(1), run.node_records(3)
    assert host == other == newcomer, run.log()
    # The late frames of seat 2, which stood up, are nobody's violation on any seat.
    for node in (0, 1, 3):
        (end,) = [line for line in run.lines[node] if line.startswith("transcript:")]
        assert "violation" not in end, run.log()
    final = TableMachine.resume(run.config, None, host)
    assert [c.players for c in final.segments] == [3, 2, 3] and final.hand == 4, run.log()
    assert audit_records(run.config, host).ok


def _host_and_newcomer_on_one_transcript(run: TableRun) -> None:
    assert run.config is not None
    assert all(code == 0 for code in run.codes.values()), run.log()
    host, newcomer = run.node_records(0), run.node_records(3)
    assert host == newcomer, f"{len(host)} against {len(newcomer)} records\n{run.log()}"
    report = audit_records(run.config, host)
    assert report.ok and report.complete, report.to_json()
    final = TableMachine.resume(run.config, None, host)
    assert len(final.segments) == 2 and final.config.players == 2 and final.hand == 3


# covers: P-51
def test_the_next_hosts_lost_result_ends_on_the_others_certificate(tmp_path: Path) -> None:
    hub = HostResultLosingHub()
    run = _run(tmp_path, hub)
    assert hub.lost > 0 and len(hub.voters) == 2
    _table_ends_on_one_transcript(run)
    # Its roll-back replayed hand 1 up to the votes' head; it says nothing of that hand twice.
    starts = [line for line in run.lines[0] if line.startswith("hand 1 starts")]
    assert len(starts) == 1, run.log()
