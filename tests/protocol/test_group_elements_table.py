"""Group elements everywhere (issue 22, point 5), at the table protocol's entry points: every
chain element that carries a point (key reveal, shuffle deck and proof, deal shares, the shares
of a reveal, the opening of a played card) is sent by the hostile seat with one point replaced by
the identity, a non-canonical encoding (x + p) or an x off the curve. Every honest seat refuses it
as the author's violation whose reason is the decoder's (the kind, the field's place in the body
and what is wrong with it), and the hand is aborted with the hostile seat as culprit.

The crypto-level tests (``tests/crypto/test_group_elements_everywhere.py``) try every field with
every bad encoding and show no proof work starts; here one field of each element is enough to
show the table feeds every point through those decoders.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from hostile import HostileTable, decode

from dealerless.protocol.crypto.group import P
from dealerless.protocol.rules.base import Action, ActionKind
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table.hand_deck import OPEN

HOSTILE = 1

BAD: dict[str, tuple[bytes, str]] = {  # name -> (33 bytes, the decoder's reason)
    "identity": (bytes(33), "bad prefix 0x00"),
    "x-plus-p": (b"\x02" + (1 + P).to_bytes(32, "big"), "not reduced mod p"),  # (1, y) + p
    "off-curve": (b"\x03" + (5).to_bytes(32, "big"), "not on secp256k1"),
}


def held_step(kind: str) -> HostileTable:
    """A 3-seat Tuppen table stopped where the hostile seat writes its first ``kind`` element;
    the genuine element is ``ht.held[0]`` (delivered to nobody)."""
    ht = HostileTable(make_config("tuppen", 3), 11, HOSTILE)
    ht.hold_when(lambda m: m.kind == kind and m.hand == 1)
    ht.play(lambda t: False)
    assert ht.held and decode(ht.held[0]).kind == kind
    return ht


def _act(ht: HostileTable, seat: int, action: Action) -> None:
    ht.sim.events[seat].extend(ht.machines[seat].act(action, ht.clock))
    ht.sim.flush(seat)
    ht.pump()


def at_reveal() -> HostileTable:
    """The hostile seat declared dirty laundry, an honest seat checked it, and the hostile
    seat's reveal (its shares opening the cards) is held."""
    laundry = Action(ActionKind.LAUNDRY, HOSTILE)
    for seed in range(60):
        ht = HostileTable(make_config("tuppen", 3), seed, HOSTILE)
        ht.hold_when(lambda m: m.kind == "reveal")
        if not ht.play(lambda t: t.hostile_to_act() and t.ref.engine.can(laundry)):
            continue
        _act(ht, HOSTILE, laundry)
        for _ in range(5):
            arbiter = ht.ref.arbiter()
            if ht.ref.phase != "play" or arbiter is None or arbiter == HOSTILE:
                break
            check = Action(ActionKind.CHECK, arbiter)
            if not ht.machines[arbiter].engine.can(check):
                break
            _act(ht, arbiter, check)
        if ht.ref.phase == "reveal" and ht.held:
            return ht
    raise AssertionError("no dirty-laundry check reached")


def at_card_play() -> HostileTable:
    """The hostile seat may play a card it holds hidden; nothing of its own is sent from here."""

    def can_play(t: HostileTable) -> bool:
        me = t.machines[HOSTILE]
        return t.hostile_to_act() and any(
            a.kind is ActionKind.PLAY for a in me.engine.legal_actions(HOSTILE)
        )

    for seed in range(40):
        ht = HostileTable(make_config("tuppen", 3), 100 + seed, HOSTILE)
        if ht.play(can_play):
            ht.hold_now()
            return ht
    raise AssertionError("no card play reached")  # pragma: no cover


def body_of(frame: bytes) -> dict[str, Any]:
    return copy.deepcopy(dict(decode(frame).body))


Path = tuple[str | int, ...]


def _set(body: Any, path: Path, value: bytes) -> None:
    for step in path[:-1]:
        body = body[step]
    assert isinstance(body[path[-1]], bytes) and len(body[path[-1]]) == 33
    body[path[-1]] = value


def assert_decoder_refused(
    ht: HostileTable, frame: bytes, kind: str, field: str, reason: str
) -> None:
    before, hand = ht.scores(), ht.ref.hand
    ht.send(frame)
    ht.refused_and_aborted(frame, before, hand=hand)
    for seat in ht.honest:
        reasons = [v.reason for v in ht.violations(seat) if frame in v.evidence]
        assert any(r.startswith(f"{kind}: {field}: ") and reason in r for r in reasons), (
            f"seat {seat}: {reasons}"
        )


# entry -> (table kind, place of the point in the body, the decoder's name for it)
HELD: dict[str, tuple[str, Path, str]] = {
    "key-reveal": ("key-reveal", ("reveal", "y"), "key_reveal.y"),
    "shuffle-deck-c1": ("shuffle", ("shuffle", "deck", 0, 0), "shuffle.deck[0].c1"),
    "shuffle-deck-c2": ("shuffle", ("shuffle", "deck", 31, 1), "shuffle.deck[31].c2"),
    "shuffle-pcommit": ("shuffle", ("shuffle", "proof", "pcommit", 7), "shuffle.proof.pcommit[7]"),
    "shuffle-chain": ("shuffle", ("shuffle", "proof", "chain", 31), "shuffle.proof.chain[31]"),
    "shuffle-t": ("shuffle", ("shuffle", "proof", "t", 36), "shuffle.proof.t[36]"),
    "deal-shares": ("shares", ("batch", "shares", 1), "batch.shares[1]"),
}


@pytest.mark.parametrize("bad", sorted(BAD))
@pytest.mark.parametrize("entry", sorted(HELD))
def test_a_chain_element_with_a_bad_point_is_refused_by_the_decoder(entry: str, bad: str) -> None:
    kind, path, field = HELD[entry]
    value, reason = BAD[bad]
    ht = held_step(kind)
    body = body_of(ht.held[0])
    _set(body, path, value)
    assert_decoder_refused(ht, ht.resign(ht.held[0], body=body), kind, field, reason)


def test_the_genuine_elements_are_accepted() -> None:
    """Control: the held elements themselves go through."""
    for kind in sorted({k for k, _, _ in HELD.values()}):
        ht = held_step(kind)
        ht.send(ht.held[0])
        assert not any(ht.violations(s) for s in ht.honest)
        assert ht.held[0] in ht.ref.records


@pytest.mark.parametrize("bad", sorted(BAD))
def test_a_reveal_with_a_bad_point_is_refused_by_the_decoder(bad: str) -> None:
    value, reason = BAD[bad]
    ht = at_reveal()
    body = body_of(ht.held[0])
    last = len(body["batch"]["shares"]) - 1
    _set(body, ("batch", "shares", last), value)
    frame = ht.resign(ht.held[0], body=body)
    assert_decoder_refused(ht, frame, "reveal", f"batch.shares[{last}]", reason)


def _play_with_opening(ht: HostileTable, change: Callable[[dict[str, Any]], None]) -> bytes:
    me = ht.machines[HOSTILE]
    assert me.deck is not None
    position, card = next(
        (s.position, s.card)
        for s in me.engine.hand(HOSTILE)
        if s.card is not None and s.position not in me.deck.public
    )
    opening = me.deck.make_share(position, OPEN)
    change(opening)
    action = Action(ActionKind.PLAY, HOSTILE, card=card, position=position)
    return ht.craft_action(action, open=opening)


@pytest.mark.parametrize("bad", sorted(BAD))
def test_a_card_play_whose_opening_is_a_bad_point_is_refused_by_the_decoder(bad: str) -> None:
    value, reason = BAD[bad]
    ht = at_card_play()
    frame = _play_with_opening(ht, lambda share: share.__setitem__("share", value))
    assert_decoder_refused(ht, frame, "action", "open.share", reason)
