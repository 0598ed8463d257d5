"""Floods by a seated player at the node level, over real sockets (in-process nodes, direct
mode): a ``have {n: 0}`` flood is not amplified (each honest seat sends the flooder at most its
records budget, not one transcript per 16-byte message) and costs no honest seat anything;
junk frames by authors that are not seats are dropped before any signature work; a caught
cheat stays in the node's report however much junk follows."""

from __future__ import annotations

import collections
import secrets
from pathlib import Path

from attacks import TamperFrame, clean, kind_is

from dealerless.client.bots.driver import BotDriver
from dealerless.node.catch_up import SERVE_BURST, SERVE_RATE
from dealerless.node.hostile import Attack, HostileSeatNode, Send, run_table
from dealerless.node.hub import Hub, Member
from dealerless.node.identity import Identity
from dealerless.protocol.messages import sign_message
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table.events import TableEvent

GAME = make_config("limit-tuppen", 3, {"hands": 2})


class CountingHub(Hub):
    """Counts the bytes it delivers to each member."""

    def __init__(self) -> None:
        super().__init__(say=lambda _s: None)
        self.to: collections.Counter[bytes] = collections.Counter()
        self.first: float | None = None

    def _relay(self, sender: Member, target: Member, out: bytes) -> None:
        self.to[target.key] += len(out)
        super()._relay(sender, target, out)


class HaveFlood(Attack):
    """After every machine call: 50 signed ``have {n: 0, ask}`` with fresh nonces, 4000 in all."""

    def __init__(self) -> None:
        super().__init__()
        self.flooded = 0

    def after(self, node: HostileSeatNode, events: list[TableEvent]) -> list[Send]:
        for _ in range(50 if self.flooded < 4000 else 0):
            self.flooded += 1
            have = {"t": "have", "n": 0, "ask": True, "nonce": secrets.token_bytes(12)}
            node.queue_signed(have)
        return []


def test_a_have_flood_is_not_amplified(tmp_path: Path) -> None:
    hub = CountingHub()
    attack = HaveFlood()
    run = run_table(
        tmp_path, GAME, attack, bot=BotDriver, hub=hub, step_timeout_ms=20_000, timeout=180
    )
    clean(run)
    assert attack.flooded == 4000
    transcript = sum(len(f) for f in run.records(run.honest_seats()[0]))
    assert run.hostile_key is not None
    got = hub.to[run.hostile_key]
    # Without a budget every have would cost a transcript (or its prefix) per honest seat.
    naive = attack.flooded * transcript
    seconds = 180
    bound = 2 * (SERVE_BURST + SERVE_RATE * seconds) + attack.flooded * 400
    assert got < bound and got < naive / 10, (got, bound, naive)
    print(f"have flood: {attack.flooded} haves, {got} bytes to the flooder, naive {naive}")


class JunkFromStrangers(Attack):
    """After a cheat of its own (a frame signed by this seat at another table's id): 400
    well-formed frames signed by keys that are not seats, relayed as if they were chain frames."""

    def __init__(self) -> None:
        super().__init__()
        self.sent_junk = False

    def after(self, node: HostileSeatNode, events: list[TableEvent]) -> list[Send]:
        if node.machine is None or self.sent_junk or node.machine.hand < 1:
            return []
        self.sent_junk = True
        out = []
        for i in range(400):
            stranger = Identity.generate().wire_key()
            frame = sign_message(
                stranger,
                table_id=node.m.config.table_id,
                hand=node.m.hand,
                seq=node.m.seq + i,
                prev=node.m.head,
                seat=0,
                kind="chat",
                body={"text": "junk"},
            ).frame
            out.append(Send(frame))
        return out


def test_frames_by_non_seats_are_dropped_before_signature_work(tmp_path: Path) -> None:
    attack = JunkFromStrangers()
    run = run_table(tmp_path, GAME, attack, bot=BotDriver, step_timeout_ms=20_000)
    clean(run)
    assert attack.sent_junk
    # No honest node reported them as damaged or charged anybody: they never reached a machine.
    for seat in run.honest_seats():
        assert not any("refused a damaged" in line for line in run.lines.get(seat, [])), run.log()


def test_a_caught_cheat_is_never_evicted_by_junk(tmp_path: Path) -> None:
    """An equivocation (a caught cheat), then 400 frames with broken signatures (unattributable
    junk, more than the machine keeps): every honest node still reports the cheat and exits 1."""
    from test_hostile_peers import _two_commits

    def cheat_then_junk(node: HostileSeatNode, frame: bytes) -> list[Send]:
        first, second, a, b = _two_commits(node, frame)
        junk = [
            frame[:-64] + bytes(64 - 1 - i % 64) + bytes([1 + i // 64]) + bytes(i % 64)
            for i in range(400)
        ]
        return [Send(first, (a, b)), Send(second, (b,)), *(Send(j) for j in junk)]

    run = run_table(
        tmp_path,
        GAME,
        TamperFrame(kind_is("key-commit"), cheat_then_junk),
        bot=BotDriver,
        step_timeout_ms=5000,
    )
    assert run.hostile_key is not None
    for index, lines in run.lines.items():
        if index == 1:
            continue  # the hostile node
        assert run.codes[index] == 1, run.log()
        assert any("caught cheating: seat" in line for line in lines), run.log()
