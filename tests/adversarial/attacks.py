"""The attacks of tests/adversarial/, as :class:`dealerless.node.hostile.Attack` subclasses, and
the verdict checks shared by the tests (see spec/security.md)."""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
from collections.abc import Callable
from typing import Any, TypeVar

import msgpack
import trio

from dealerless.client.bots.driver import BotDriver
from dealerless.client.commands import audit as audit_command
from dealerless.node.hostile import Attack, HostileSeatNode, Send, TableRun, decode
from dealerless.protocol.messages import DOMAIN, VERSION, SignedMessage
from dealerless.protocol.rules.base import Action, ActionKind
from dealerless.protocol.rules.registry import game_spec
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.audit import AuditReport, audit_records
from dealerless.protocol.table.events import TableEvent
from dealerless.protocol.table.hand_deck import OPEN

MsgPredicate = Callable[[SignedMessage], bool]


def body_of(frame: bytes) -> dict[str, Any]:
    return copy.deepcopy(dict(decode(frame).body))


def sign_packed(node: HostileSeatNode, packed: bytes) -> bytes:
    return packed + node.signing_key.sign(DOMAIN + packed)


def raw_frame(node: HostileSeatNode, genuine: bytes, **changes: Any) -> bytes:
    """The genuine frame's envelope packed with plain msgpack (no schema) with fields changed,
    validly signed."""
    m = decode(genuine)
    fields: dict[str, Any] = {
        "version": VERSION,
        "table_id": m.table_id,
        "hand": m.hand,
        "seq": m.seq,
        "prev": m.prev,
        "seat": m.seat,
        "author": m.author.raw,
        "kind": m.kind,
        "body": dict(m.body),
    }
    fields.update(changes)
    packed: bytes = msgpack.packb(list(fields.values()), use_bin_type=True)
    return sign_packed(node, packed)


# ---------------------------------------------------------------- attack shapes


class TamperFrame(Attack):
    """The first frame matching ``match`` is replaced by ``tamper(node, frame)`` (sent to
    everyone); the seat then falls silent (``mute``) or goes on honestly."""

    def __init__(
        self,
        match: MsgPredicate,
        tamper: Callable[[HostileSeatNode, bytes], list[Send]],
        *,
        mute: bool = True,
    ) -> None:
        super().__init__()
        self.match, self.tamper, self.mute = match, tamper, mute
        self.done = False

    def on_frame(self, node: HostileSeatNode, frame: bytes) -> list[Send] | None:
        if self.done or not self.match(decode(frame)):
            return None
        self.done = True
        self.withheld.append(frame)
        sends = self.tamper(node, frame)
        if self.mute:
            self.started = self.muted = True
        return sends


class OnTurn(Attack):
    """At the first turn where ``when(node)`` holds, send ``craft(node)`` instead of moving,
    then fall silent."""

    def __init__(
        self,
        when: Callable[[HostileSeatNode], bool],
        craft: Callable[[HostileSeatNode], list[Send]],
    ) -> None:
        super().__init__()
        self.when, self.craft = when, craft
        self.done = False

    def on_turn(self, node: HostileSeatNode) -> list[Send] | None:
        if self.done or not self.when(node):
            return None
        self.done = True
        sends = self.craft(node)
        self.started = self.muted = True
        return sends


class WhenWaiting(Attack):
    """As soon as ``when(node)`` holds after some machine call (typically: another seat must
    move), send ``craft(node)`` and fall silent."""

    def __init__(
        self,
        when: Callable[[HostileSeatNode], bool],
        craft: Callable[[HostileSeatNode], list[Send]],
    ) -> None:
        super().__init__()
        self.when, self.craft = when, craft
        self.done = False

    def after(self, node: HostileSeatNode, events: list[TableEvent]) -> list[Send]:
        if self.done or not self.when(node):
            return []
        self.done = True
        sends = self.craft(node)
        self.started = self.muted = True
        return sends


class Silence(Attack):
    """From the first frame matching ``match`` on, nothing leaves the seat (``disconnect``:
    the seat also drops its link for good)."""

    def __init__(self, match: MsgPredicate, *, disconnect: bool = False) -> None:
        super().__init__()
        self.match, self.drop_link = match, disconnect

    def on_frame(self, node: HostileSeatNode, frame: bytes) -> list[Send] | None:
        if self.muted or not self.match(decode(frame)):
            return None
        self.withheld.append(frame)
        self.started = self.muted = True
        self.disconnect = self.drop_link
        return []


# ---------------------------------------------------------------- helpers for actions


def kind_is(kind: str, hand: int = 1) -> MsgPredicate:
    return lambda m: m.kind == kind and m.hand == hand


def legal(node: HostileSeatNode) -> list[Action]:
    return node.m.engine.legal_actions(node.seat)


def can_play(node: HostileSeatNode) -> bool:
    return node.m.phase == "play" and any(a.kind is ActionKind.PLAY for a in legal(node))


def my_hidden(node: HostileSeatNode) -> list[tuple[int, Any]]:
    m = node.m
    assert m.deck is not None
    return [
        (s.position, s.card)
        for s in m.engine.hand(node.seat)
        if s.card is not None and s.position not in m.deck.public
    ]


def open_share(node: HostileSeatNode, position: int) -> Any:
    assert node.m.deck is not None
    return node.m.deck.make_share(position, OPEN)


def action_frame(node: HostileSeatNode, action: Action, **extra: Any) -> bytes:
    return node.craft("action", {"action": action.to_wire(), **extra})


def revoke_possible(node: HostileSeatNode) -> bool:
    if not can_play(node):
        return False
    cards = [c for _, c in my_hidden(node)]
    ok = {a.card for a in legal(node) if a.kind is ActionKind.PLAY}
    return len(cards) >= 2 and any(c not in ok for c in cards)


def revoke_action(node: HostileSeatNode) -> tuple[Action, list[int], list[int]]:
    ok = {a.card for a in legal(node) if a.kind is ActionKind.PLAY}
    position, card = next((p, c) for p, c in my_hidden(node) if c not in ok)
    action = Action(ActionKind.PLAY, node.seat, card=card, position=position)
    forbidden = sorted(c.index for c in node.m.engine.forbidden_cards(action))
    hidden = [p for p, _ in my_hidden(node) if p != position]
    return action, hidden, forbidden


def max_amount(node: HostileSeatNode, kind: ActionKind) -> int | None:
    amounts = [a.amount for a in legal(node) if a.kind is kind and a.amount]
    return max(amounts) if amounts else None


class WaitForViolation:
    """An honest bot that, before each move, waits until its machine has refused something
    (at most ``cap`` seconds): lets a hostile frame that races an honest move arrive first, so
    the test does not depend on the scheduling of the two."""

    def __init__(self, cap: float = 10.0) -> None:
        self.bot = BotDriver(7)
        self.cap = cap

    async def choose(self, machine: TableMachine) -> Action | None:
        with trio.move_on_after(self.cap):
            while not machine.violations:
                await trio.sleep(0.02)
        return await self.bot.choose(machine)


class Prefer:
    """An honest bot that takes the first legal action of the listed kinds when it has one
    (steering the table into the situation an attack needs, whatever the deal), otherwise
    the bot's choice."""

    def __init__(self, *kinds: ActionKind, seed: int = 7) -> None:
        self.kinds = kinds
        self.bot = BotDriver(seed)

    async def choose(self, machine: TableMachine) -> Action | None:
        assert machine.seat is not None
        options = machine.engine.legal_actions(machine.seat)
        for kind in self.kinds:
            preferred = next((a for a in options if a.kind is kind), None)
            if preferred is not None:
                return preferred
        return await self.bot.choose(machine)


# ---------------------------------------------------------------- verdicts


def audit_cli(run: TableRun, seat: int) -> dict[str, Any]:
    """``dealerless audit --json`` on the seat's transcript file (in process)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = audit_command.run(argparse.Namespace(file=str(run.transcript_path(seat)), json=True))
    report: dict[str, Any] = json.loads(out.getvalue())
    expected = {"clean": 0, "cheat": 4, "incomplete": 3}.get(report["verdict"], 1)
    assert code == expected and code != 1, report  # never a damaged file from an honest node
    return report


def converged(run: TableRun) -> tuple[list[bytes], AuditReport]:
    """Every honest seat's transcript audits OK as a complete game and reaches the same state
    (state hash) as the others'; every honest node exited by itself (0 or 1), none crashed.

    The transcripts are not always the same sequence of records: a peer that built on a branch
    that an abort certificate later voided keeps those records (spec/security.md)."""
    assert run.config is not None, run.log()
    honest = run.honest_seats()
    reports = []
    for seat in honest:
        records = run.records(seat)
        report = audit_records(run.config, records)
        # complete, or the table never started (a seat did not sign the configuration)
        started = report.complete or report.not_started
        assert report.ok and started, (seat, report.to_json(), run.log())
        reports.append(report)
    hashes = {r.state_hash for r in reports}
    assert len(hashes) == 1, f"honest peers diverged\n{run.log()}"
    first = run.records(honest[0])
    auditor = TableMachine.resume(run.config, None, first)
    assert auditor.state_hash() == reports[0].state_hash
    for seat in honest:
        assert run.codes.get(seat) in (0, 1), run.log()
    return first, reports[0]


def hand_settled(game: str, hand: Any, culprit: int) -> None:
    """The culprit gains nothing in the voided hand, no honest seat loses. In Pottuppen a seat's
    worth is its balance plus an equal share of the pot (antes of a voided hand stay in the pot,
    spec/rules/pottuppen.md D14): worth change = n * delta + (chips that went into the pot)."""
    deltas = list(hand.deltas)
    if game == "pottuppen":
        pot = -sum(deltas)
        deltas = [len(deltas) * d + pot for d in deltas]
    worse = _worse(game)
    assert not worse(0, deltas[culprit]), f"the culprit gained: {hand}"
    for seat, d in enumerate(deltas):
        if seat != culprit:
            assert not worse(d, 0), f"honest seat {seat} lost: {hand}"


def _worse(game: str) -> Callable[[int, int], bool]:
    penalty = game_spec(game).score_kind == "penalty points"
    return (lambda a, b: a > b) if penalty else (lambda a, b: a < b)


def caught(run: TableRun, reason: str | None = None) -> AuditReport:
    """The full verdict for an attributable attack: honest peers converged, every honest node
    refused a message of the hostile seat and its transcript's audit lists the cheat (library
    and ``dealerless audit``), the hand was aborted naming the culprit and settled without a
    gain for it or a loss for anyone honest."""
    _, report = converged(run)
    hostile = run.hostile_seat
    assert hostile is not None
    cheats = [c for c in report.caught if c.culprit == hostile]
    assert cheats, (report.to_json(), run.log())
    if reason is not None:
        assert any(reason in c.reason for c in cheats), [c.reason for c in cheats]
    for seat in run.honest_seats():
        assert any(f"refused a message from seat {hostile}" in line for line in run.lines[seat]), (
            run.log()
        )
        assert run.codes[seat] == 1  # a game with a caught cheat is not a clean exit
        cli = audit_cli(run, seat)
        assert cli["ok"] and any(c["culprit"] == hostile for c in cli["caught"]), cli
    aborted = [h for h in report.hands if h.aborted]
    assert aborted, report.to_json()
    for hand in aborted:
        hand_settled(run.game.game, hand, hostile)
    return report


A = TypeVar("A", bound=Attack)


def once_it_arises(
    tables: int,
    make: Callable[[], A],
    play: Callable[[int, A], TableRun],
    arose: Callable[[A], bool],
    what: str,
) -> TableRun:
    """Play tables (``play(number, attack)``) until the situation the attack needs arises (the
    deal decides) and return that table's run; a table where it did not must end clean. Fails,
    never skips, if it never arises."""
    for number in range(tables):
        attack = make()
        run = play(number, attack)
        if arose(attack):
            return run
        clean(run)
    raise AssertionError(f"{what} did not arise in {tables} tables")


def settled(run: TableRun) -> AuditReport:
    """The verdict for silence: honest peers converged and every voided hand was settled
    without a gain for the hostile seat or a loss for anyone honest."""
    _, report = converged(run)
    hostile = run.hostile_seat
    assert hostile is not None
    for hand in report.hands:
        if hand.aborted:
            hand_settled(run.game.game, hand, hostile)
    return report


def clean(run: TableRun) -> AuditReport:
    """Nothing attributable happened: honest peers converged, the game completed and audits
    OK with no cheat caught; the honest nodes exited 0."""
    _, report = converged(run)
    assert not report.caught, report.to_json()
    for seat in run.honest_seats():
        assert run.codes[seat] == 0, run.log()
    return report
