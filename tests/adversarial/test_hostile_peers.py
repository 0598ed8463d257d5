"""Hostile peers over the real node and transport: one seat of a 3-seat table runs a chosen
misbehaviour (node/hostile.py), the honest nodes must cope. Every node is a Trio task of this
process; they talk over loopback TCP through the host's hub (secure channels, real framing).

Verdicts (tests/adversarial/attacks.py): ``caught`` (refused, culprit named, honest peers
converged, hand aborted and settled, transcript audits OK and lists the cheat) or ``clean``
(refused without blame, the game completes normally).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from attacks import (
    OnTurn,
    Prefer,
    Silence,
    TamperFrame,
    WaitForViolation,
    WhenWaiting,
    action_frame,
    body_of,
    can_play,
    caught,
    clean,
    converged,
    kind_is,
    legal,
    max_amount,
    my_hidden,
    once_it_arises,
    open_share,
    raw_frame,
    revoke_action,
    revoke_possible,
    settled,
)

from dealerless.client.bots.driver import BotDriver
from dealerless.node.hostile import Attack, HostileSeatNode, Send, TableRun, decode, run_table
from dealerless.protocol.crypto import HandDeckContext, PlayerSecret
from dealerless.protocol.rules.base import Action, ActionKind
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table.hand_deck import play_step

GAME = "limit-tuppen"


def play(tmp_path: Path, attack: Attack | None, game: str = GAME, **kw: Any) -> TableRun:
    options: dict[str, Any] = {"hands": kw.pop("hands", 1), **kw.pop("rules", {})}
    players = kw.pop("players", 3)
    bot = kw.pop("bot", BotDriver)
    return run_table(tmp_path, make_config(game, players, options), attack, bot=bot, **kw)


# Situational attacks play tables until the situation arises, with honest seats that stay in
# every hand and never knock (more turns for the hostile seat); they fail, never skip, if it
# does not arise.
TABLES = 4


def stay_in(seed: int) -> Prefer:
    return Prefer(ActionKind.CALL, ActionKind.PLAY, seed=seed)


def resend(node: HostileSeatNode, frame: bytes, changes: dict[str, Any]) -> list[Send]:
    return [Send(node.resign(frame, **changes))]


def tampered_body(edit: Any) -> Any:
    def tamper(node: HostileSeatNode, frame: bytes) -> list[Send]:
        body = body_of(frame)
        edit(body)
        return [Send(node.resign(frame, body=body))]

    return tamper


def first_action(m: Any) -> bool:
    return bool(m.kind == "action")


# ---------------------------------------------------------------- control


def test_honest_table_completes(tmp_path: Path) -> None:
    clean(play(tmp_path, Attack()))


# ---------------------------------------------------------------- envelope and chain


def test_forged_signature(tmp_path: Path) -> None:
    """A frame with a flipped signature bit, then the genuine one: refused without blame
    (anyone can write a seat number), the genuine frame is accepted, the game completes."""

    def forge(node: HostileSeatNode, frame: bytes) -> list[Send]:
        return [Send(frame[:-1] + bytes([frame[-1] ^ 1])), Send(frame)]

    run = play(tmp_path, TamperFrame(first_action, forge, mute=False))
    clean(run)
    for seat in run.honest_seats():
        assert any("refused a damaged or misrouted message" in x for x in run.lines[seat])


def test_replayed_old_message(tmp_path: Path) -> None:
    """The seat's own old key commitment replayed before its first move: a duplicate, ignored."""

    def replay(node: HostileSeatNode, frame: bytes) -> list[Send]:
        old = next(f for f in node.m.records if decode(f).kind == "key-commit")
        return [Send(old), Send(frame)]

    clean(play(tmp_path, TamperFrame(first_action, replay, mute=False)))


def test_message_from_another_table(tmp_path: Path) -> None:
    """The move signed for another table id: refused without blame, then the genuine move."""

    def other_table(node: HostileSeatNode, frame: bytes) -> list[Send]:
        return [Send(node.resign(frame, table_id=bytes(16))), Send(frame)]

    run = play(tmp_path, TamperFrame(first_action, other_table, mute=False))
    clean(run)


def test_message_from_another_hand(tmp_path: Path) -> None:
    attack = TamperFrame(first_action, lambda n, f: resend(n, f, {"hand": decode(f).hand + 1}))
    caught(play(tmp_path, attack))


def _two_commits(node: HostileSeatNode, frame: bytes) -> tuple[bytes, bytes, int, int]:
    m = decode(frame)
    other = PlayerSecret.generate(HandDeckContext(m.table_id, m.hand), node.seat)
    second = node.resign(frame, body={"commit": other.commit().to_wire()})
    a, b = [s for s in range(node.m.config.players) if s != node.seat]
    return frame, second, a, b


def test_equivocation(tmp_path: Path) -> None:
    """Two different valid key commitments for one step: one honest peer gets both, the other
    one only the first. The peer that holds both proves the equivocation to the other."""

    def equivocate(node: HostileSeatNode, frame: bytes) -> list[Send]:
        first, second, a, b = _two_commits(node, frame)
        return [Send(first, (a, b)), Send(second, (b,))]

    caught(play(tmp_path, TamperFrame(kind_is("key-commit"), equivocate)), "equivocation")


def test_equivocation_split_between_peers(tmp_path: Path) -> None:
    """Each honest peer gets a different version, sent to it alone. A frame addressed to one
    peer is passed on to the others (honest peers only broadcast), so both versions meet:
    equivocation, caught with both frames as evidence."""

    def equivocate(node: HostileSeatNode, frame: bytes) -> list[Send]:
        first, second, a, b = _two_commits(node, frame)
        return [Send(first, (a,)), Send(second, (b,))]

    caught(play(tmp_path, TamperFrame(kind_is("key-commit"), equivocate), timeout=12))


def test_acting_out_of_turn(tmp_path: Path) -> None:
    def when(node: HostileSeatNode) -> bool:
        m = node.m
        return m.phase == "play" and m.arbiter() not in (None, node.seat)

    def craft(node: HostileSeatNode) -> list[Send]:
        return [Send(action_frame(node, Action(ActionKind.PASS, node.seat)))]

    run = play(tmp_path, WhenWaiting(when, craft), honest_driver=lambda i: WaitForViolation())
    caught(run, "out of turn")


def test_sending_to_only_some_peers(tmp_path: Path) -> None:
    """Every move of the seat goes to one honest peer only: the nodes relay through catch-up,
    every honest peer converges, nobody is blamed."""

    class ToOne(Attack):
        def on_frame(self, node: HostileSeatNode, frame: bytes) -> list[Send] | None:
            if decode(frame).kind != "action":
                return None
            target = min(s for s in range(node.m.config.players) if s != node.seat)
            return [Send(frame, (target,))]

    clean(play(tmp_path, ToOne()))


# ---------------------------------------------------------------- the deck


def _drop(body: dict[str, Any]) -> None:
    body["shuffle"]["deck"].pop()


def _duplicate(body: dict[str, Any]) -> None:
    deck = body["shuffle"]["deck"]
    deck[5] = deck[4]


def _replace(body: dict[str, Any]) -> None:
    deck = body["shuffle"]["deck"]
    deck[3] = [deck[3][1], deck[3][0]]


@pytest.mark.parametrize("edit", [_drop, _duplicate, _replace], ids=["drop", "dup", "replace"])
def test_shuffle_that_does_not_permute(tmp_path: Path, edit: Any) -> None:
    caught(play(tmp_path, TamperFrame(kind_is("shuffle"), tampered_body(edit))))


def test_shuffle_proof_copied_from_another_hand(tmp_path: Path) -> None:
    def copy_proof(node: HostileSeatNode, frame: bytes) -> list[Send]:
        old = next(
            f
            for f in node.m.records
            if decode(f).kind == "shuffle" and decode(f).hand == 1 and decode(f).seat == node.seat
        )
        body = body_of(frame)
        body["shuffle"]["proof"] = body_of(old)["shuffle"]["proof"]
        return [Send(node.resign(frame, body=body))]

    # Hand 2's shuffle is prepared while hand 1 is played (P-53): the seat plays hand 1 on
    # (muted, it would be timed out there), and its copied proof is judged in hand 2.
    attack = TamperFrame(kind_is("shuffle", hand=2), copy_proof, mute=False)
    report = caught(play(tmp_path, attack, hands=2))
    assert [h.hand for h in report.hands if h.aborted] == [2]


def _wrong_share(body: dict[str, Any]) -> None:
    shares = body["batch"]["shares"]
    shares[0] = shares[1]


def test_wrong_decryption_share(tmp_path: Path) -> None:
    caught(play(tmp_path, TamperFrame(kind_is("shares"), tampered_body(_wrong_share))))


def test_rogue_key_share(tmp_path: Path) -> None:
    """A key reveal that does not match the seat's commitment (Y chosen after the others')."""

    def rogue(node: HostileSeatNode, frame: bytes) -> list[Send]:
        m = decode(frame)
        other = PlayerSecret.generate(HandDeckContext(m.table_id, m.hand), node.seat)
        return [Send(node.resign(frame, body={"reveal": other.reveal().to_wire()}))]

    caught(play(tmp_path, TamperFrame(kind_is("key-reveal"), rogue)))


# ---------------------------------------------------------------- card plays


def test_playing_a_card_not_in_the_hand(tmp_path: Path) -> None:
    """A play of a deck position dealt to another seat (opened with our own share)."""

    def craft(node: HostileSeatNode) -> list[Send]:
        other = next(s for s in range(node.m.config.players) if s != node.seat)
        theirs = node.m.engine.hand(other)[0].position
        position, card = my_hidden(node)[0]
        action = Action(ActionKind.PLAY, node.seat, card=card, position=theirs)
        return [Send(action_frame(node, action, open=open_share(node, position)))]

    # every seat stays in: a deal where the hostile seat or all the others fold before the
    # play would end the hand before the attack's turn
    caught(play(tmp_path, OnTurn(can_play, craft), bot=stay_in, honest_driver=stay_in))


@pytest.mark.parametrize("proof", ["missing", "forged"])
def test_revoke(tmp_path: Path, proof: str) -> None:
    """Not following suit when able, with no or a forged non-membership proof. The situation
    depends on the deal: up to three tables are played until it arises."""

    def craft(node: HostileSeatNode) -> list[Send]:
        action, hidden, forbidden = revoke_action(node)
        assert action.position is not None
        extra: dict[str, Any] = {"open": open_share(node, action.position)}
        if proof == "forged":
            mine = {c.index for _, c in my_hidden(node)}
            weaker = [c for c in forbidden if c not in mine] or [
                c for c in range(32) if c not in mine
            ][:1]
            assert node.m.deck is not None
            extra["nonmember"] = node.m.deck.make_nonmembership(
                hidden, weaker, play_step(node.m.seq)
            )
        return [Send(action_frame(node, action, **extra))]

    run = once_it_arises(
        TABLES,
        lambda: OnTurn(revoke_possible, craft),
        lambda n, attack: play(tmp_path / str(n), attack, hands=3, honest_driver=stay_in),
        lambda attack: attack.done,
        "a revoke situation",
    )
    caught(run)


# ---------------------------------------------------------------- moves the rules forbid


@pytest.mark.parametrize(
    ("game", "kind"),
    [
        ("no-limit-tuppen", ActionKind.KNOCK),
        ("pot-limit-tuppen", ActionKind.KNOCK),
        ("pottuppen", ActionKind.BET),
    ],
)
def test_betting_past_the_limit(tmp_path: Path, game: str, kind: ActionKind) -> None:
    """More than the stack (No Limit), the pot limit (Pot Limit), the pot (Pottuppen)."""

    def craft(node: HostileSeatNode) -> list[Send]:
        top = max_amount(node, kind)
        assert top is not None
        action = Action(kind, node.seat, amount=top + 1)
        assert not node.m.engine.can(action)
        return [Send(action_frame(node, action))]

    run = once_it_arises(
        TABLES,
        lambda: OnTurn(lambda node: max_amount(node, kind) is not None, craft),
        lambda n, attack: play(
            tmp_path / str(n), attack, game=game, hands=3, honest_driver=stay_in
        ),
        lambda attack: attack.done,
        "a bet to make",
    )
    caught(run)


def test_raising_past_the_cap(tmp_path: Path) -> None:
    """Limit Tuppen: a knock naming an amount (the knock has a fixed size)."""

    def when(node: HostileSeatNode) -> bool:
        return any(a.kind is ActionKind.KNOCK for a in legal(node))

    def craft(node: HostileSeatNode) -> list[Send]:
        return [Send(action_frame(node, Action(ActionKind.KNOCK, node.seat, amount=10**6)))]

    run = once_it_arises(
        TABLES,
        lambda: OnTurn(when, craft),
        lambda n, attack: play(tmp_path / str(n), attack, hands=3, honest_driver=stay_in),
        lambda attack: attack.done,
        "a knock",
    )
    caught(run)


# ---------------------------------------------------------------- malformed input


MALFORMED: dict[str, dict[str, Any]] = {
    "huge-int": {"seq": 2**64 - 1},
    "negative-hand": {"hand": -1},
    "text-for-bytes": {"prev": "not bytes"},
    "unknown-kind": {"kind": "no-such-kind"},
    "body-not-a-map": {"body": [1, 2, 3]},
    "deep-nesting": {
        "body": {
            "action": [
                [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]
            ]
        }
    },
    "float": {"seq": 1.5},
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_signed_malformed_message(tmp_path: Path, name: str) -> None:
    """A validly signed frame whose content is malformed, then the genuine move. Refused; the
    honest state does not move (a schema violation may name its author: then the hand aborts)."""

    def malformed(node: HostileSeatNode, frame: bytes) -> list[Send]:
        return [Send(raw_frame(node, frame, **MALFORMED[name])), Send(frame)]

    run = play(tmp_path, TamperFrame(first_action, malformed, mute=False))
    _, report = converged(run)
    if report.caught:  # a signed schema violation is its author's (messages.md, step 5)
        caught(run)


def test_garbage_msgpack_and_wire_payloads(tmp_path: Path) -> None:
    """Undecodable table frames, and hub ``send`` messages whose data is not a seat message at
    all (bad msgpack, wrong types): refused without blame, the game completes."""

    class Garbage(Attack):
        def on_frame(self, node: HostileSeatNode, frame: bytes) -> list[Send] | None:
            if self.started or decode(frame).kind != "action":
                return None
            self.started = True
            junk = [b"", b"\xc1", b"\x92\x01", bytes(range(256)), b"\xdd\xff\xff\xff\xff"]
            for data in [*junk, b"\x81\xa1t\x05", b"\x82\xa1t\xa1f\xa1f\x07"]:
                node.queue_hub({"t": "send", "data": data})  # past the node's own encoder
            node.wake.set()
            return [Send(j) for j in junk] + [Send(frame)]

    run = play(tmp_path, Garbage())
    clean(run)
    assert any("refused a message from seat 1" in x for x in run.lines[0]), run.log()


def test_oversized_frame(tmp_path: Path) -> None:
    """A 900 KiB frame (under the transport limit, over the machine's): refused, no change."""

    def big(node: HostileSeatNode, frame: bytes) -> list[Send]:
        return [Send(raw_frame(node, frame, body={"action": b"x" * 900_000})), Send(frame)]

    run = play(tmp_path, TamperFrame(first_action, big, mute=False))
    converged(run)


def test_flood_of_messages(tmp_path: Path) -> None:
    """3000 signed frames on made-up heads before the first move: buffered within bounds,
    never applied; the game completes. (They are for hands far ahead: two signed frames for one
    (hand, seq) would be an equivocation, which is caught.)"""

    def flood(node: HostileSeatNode, frame: bytes) -> list[Send]:
        hand = decode(frame).hand
        junk = [
            node.resign(frame, hand=hand + 100 + i, prev=i.to_bytes(32, "big")) for i in range(3000)
        ]
        return [Send(j) for j in junk] + [Send(frame)]

    clean(play(tmp_path, TamperFrame(first_action, flood, mute=False), timeout=180))


# ---------------------------------------------------------------- silence and disconnection


STEPS = ["config-sign", "key-commit", "key-reveal", "shuffle", "shares", "action", "result"]


def first_of(kind: str) -> Any:
    return lambda m: m.kind == kind and m.hand <= 1  # the configuration is signed in hand 0


@pytest.mark.parametrize("kind", STEPS)
def test_stalling_at_a_step(tmp_path: Path, kind: str) -> None:
    """The seat falls silent where it must write its first ``kind`` element: the step timeout
    aborts the hand (or applies the rules' timeout action); honest peers converge."""
    attack = Silence(first_of(kind))
    run = play(tmp_path, attack)
    assert attack.muted, "the step was never reached"
    settled(run)


@pytest.mark.parametrize("kind", STEPS)
def test_disconnecting_at_a_step(tmp_path: Path, kind: str) -> None:
    attack = Silence(first_of(kind), disconnect=True)
    run = play(tmp_path, attack)
    assert attack.muted, "the step was never reached"
    settled(run)


def test_knocking_twice_in_a_row(tmp_path: Path) -> None:
    """The seat knocks whenever it may; when its turn comes again in the same hand and the rules
    forbid another knock (twice in a row), it knocks anyway."""

    class KnockTwice(OnTurn):
        def __init__(self) -> None:
            super().__init__(self.again, self.knock)
            self.knocked: tuple[int, Action] | None = None

        def choose(self, node: HostileSeatNode) -> Action | None:
            knock = next((a for a in legal(node) if a.kind is ActionKind.KNOCK), None)
            if knock is not None:
                self.knocked = (node.m.hand, knock)
            return knock

        def again(self, node: HostileSeatNode) -> bool:
            if self.knocked is None or self.knocked[0] != node.m.hand:
                return False
            return not node.m.engine.can(self.knocked[1])

        def knock(self, node: HostileSeatNode) -> list[Send]:
            assert self.knocked is not None
            return [Send(action_frame(node, self.knocked[1]))]

    run = once_it_arises(
        TABLES,
        KnockTwice,
        lambda n, attack: play(tmp_path / str(n), attack, hands=3, honest_driver=stay_in),
        lambda attack: attack.done,
        "a second turn after knocking",
    )
    caught(run, "twice")
