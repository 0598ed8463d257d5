"""False claims over the real node and transport (classic Tuppen and Limit Tuppen): a claim the
public cannot refute when it is made, which the claimer must then prove by opening its cards.

The honest seats are steered into the situation (they always check a dirty-laundry claim), so
these tests do not depend on the deal. Verdicts: tests/adversarial/attacks.py.
"""

from __future__ import annotations

from pathlib import Path

from attacks import (
    OnTurn,
    Prefer,
    Silence,
    action_frame,
    caught,
    legal,
    settled,
)

from dealerless.client.bots.driver import BotDriver
from dealerless.node.hostile import HostileSeatNode, Send, TableRun, decode, run_table
from dealerless.protocol.rules.base import Action, ActionKind
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.hand_deck import OPEN

# A seat that is silent for good is charged 1 penalty point per voided hand until classic
# Tuppen ends at 10: short steps keep those hands quick.
QUICK_STEPS_MS = 2000  # short, yet long enough for a loaded CI machine (honest seats in time)


class FalseTupp(OnTurn):
    """At its first turn where the public cannot refute a Tupp claim yet (four hidden cards,
    none played) but its cards are not four of a kind: claim Tupp. With ``show`` it then opens
    its four cards as the claim obliges (the opening proves the claim false); without, it
    falls silent instead."""

    def __init__(self, *, show: bool) -> None:
        super().__init__(self.false_claim_possible, self.claim)
        self.show = show

    @staticmethod
    def tupp(node: HostileSeatNode) -> Action:
        return Action(ActionKind.TUPP, node.seat)

    def false_claim_possible(self, node: HostileSeatNode) -> bool:
        m = node.m
        if m.phase != "play" or m.arbiter() != node.seat or m.engine.can(self.tupp(node)):
            return False  # not our step, or a true claim
        public = TableMachine.resume(m.config, None, m.records)  # what the others know
        return public.engine.can(self.tupp(node))

    def claim(self, node: HostileSeatNode) -> list[Send]:
        claim = action_frame(node, self.tupp(node))
        if not self.show:
            return [Send(claim)]
        m = node.m
        assert m.deck is not None
        # The claim's reveal step opens the seat's cards in hand order (engine Reveal request);
        # our own machine never accepted the false claim, so chain the reveal on it by hand.
        positions = [slot.position for slot in m.engine.hand(node.seat)]
        batch = m.deck.make_share_batch(positions, OPEN)
        reveal = node.craft("reveal", {"batch": batch}, seq=m.seq + 1, prev=decode(claim).digest)
        return [Send(claim), Send(reveal)]


def play_tuppen(tmp_path: Path, attack: FalseTupp) -> TableRun:
    game = make_config("tuppen", 3, {"tupp": True})
    return run_table(
        tmp_path, game, attack, bot=BotDriver, step_timeout_ms=QUICK_STEPS_MS, timeout=300
    )


def test_false_tupp_claim_shown_false(tmp_path: Path) -> None:
    """The claim is accepted (the public cannot refute it), the opening shows no four of a
    kind: the reveal is the claimer's violation, caught with the full verdict."""
    attack = FalseTupp(show=True)
    run = play_tuppen(tmp_path, attack)
    assert attack.done, run.log()
    report = caught(run, "four of a kind")
    assert run.hostile_seat is not None
    claim = Action(ActionKind.TUPP, run.hostile_seat).to_wire()
    accepted = [decode(f) for f in run.records(run.honest_seats()[0])]
    assert any(m.kind == "action" and m.body["action"] == claim for m in accepted)
    assert report.hands[0].aborted


def test_false_tupp_claim_that_refuses_to_be_shown(tmp_path: Path) -> None:
    """The claim is accepted, the claimer never opens its cards: the step timeout aborts the
    hand with the claimer named as the silent seat; honest peers converge, nobody honest
    loses."""
    attack = FalseTupp(show=False)
    run = play_tuppen(tmp_path, attack)
    assert attack.done, run.log()
    report = settled(run)
    culprit = f"seat {run.hostile_seat} was silent"
    assert report.hands[0].aborted and culprit in report.hands[0].reason, report.to_json()


def test_false_dirty_laundry_claim_that_refuses_to_be_checked(tmp_path: Path) -> None:
    """Limit Tuppen with dirty laundry: the seat declares dirty laundry at its first chance;
    the honest seats always check a claim, so the claimer must show its cards (a ``reveal``)
    and it falls silent instead: the step timeout aborts the hand with the claimer as culprit,
    honest peers converge, nobody honest loses."""

    class Laundry(Silence):
        def __init__(self) -> None:
            super().__init__(lambda m: m.kind == "reveal")

        def choose(self, node: HostileSeatNode) -> Action | None:
            return next((a for a in legal(node) if a.kind is ActionKind.LAUNDRY), None)

    attack = Laundry()
    run = run_table(
        tmp_path,
        make_config("limit-tuppen", 3, {"hands": 1, "dirty_laundry": True}),
        attack,
        bot=BotDriver,
        honest_driver=lambda i: Prefer(ActionKind.CHECK, seed=i),
    )
    assert attack.muted, run.log()
    report = settled(run)
    culprit = f"seat {run.hostile_seat} was silent"
    assert any(h.aborted and culprit in h.reason for h in report.hands), report.to_json()
