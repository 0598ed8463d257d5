"""Negative tests of the table protocol: the mental-poker steps (key shares, shuffles,
decryption shares) and card plays (openings, positions, legality proofs)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from hostile import HostileTable, decode, raw_frame

from dealerless.protocol.cards import Card
from dealerless.protocol.crypto import (
    HandDeckContext,
    PlayerSecret,
    decode_point,
    encode_point,
    g,
    make_share_batch,
)
from dealerless.protocol.rules.base import Action, ActionKind
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table.hand_deck import OPEN, play_step

HOSTILE = 1


def held_step(kind: str, *, game: str = "tuppen", players: int = 3, hand: int = 1) -> HostileTable:
    """A table stopped where the hostile seat must write its ``kind`` element of ``hand``; its
    genuine element is ``ht.held[0]`` (delivered to nobody)."""
    ht = HostileTable(make_config(game, players), 11, HOSTILE)
    ht.hold_when(lambda m: m.kind == kind and m.hand == hand)
    ht.play(lambda t: False)
    assert ht.held and decode(ht.held[0]).kind == kind
    assert ht.ref.arbiter() == HOSTILE
    return ht


def body_of(frame: bytes) -> dict[str, Any]:
    return copy.deepcopy(dict(decode(frame).body))


def send_tampered(ht: HostileTable, body: dict[str, Any]) -> bytes:
    before = ht.scores()
    hand = ht.ref.hand
    frame = ht.resign(ht.held[0], body=body)
    ht.send(frame)
    ht.refused_and_aborted(frame, before, hand=hand)
    return frame


def test_genuine_held_step_is_accepted() -> None:
    """Control: the held element itself, once sent, is accepted and the hand goes on."""
    ht = held_step("shuffle")
    ht.send(ht.held[0])
    assert not any(ht.violations(s) for s in ht.honest)
    assert decode(ht.held[0]).digest in ht.ref.history


# ---------------------------------------------------------------- key shares


def test_key_commit_naming_another_seat() -> None:
    ht = held_step("key-commit")
    body = body_of(ht.held[0])
    body["commit"]["seat"] = 0
    send_tampered(ht, body)


def test_rogue_key_share_that_does_not_match_the_commitment() -> None:
    """The seat reveals a key share other than the one it committed to (the rogue-key move:
    choosing Y after seeing the others' shares)."""
    ht = held_step("key-reveal")
    rogue = PlayerSecret.generate(HandDeckContext(ht.sim.table.table_id, 1), HOSTILE)
    send_tampered(ht, {"reveal": rogue.reveal().to_wire()})


def test_key_reveal_with_another_seats_key_share() -> None:
    ht = held_step("key-reveal")
    assert ht.ref.this_hand.round is not None  # a parallel round: the others' reveals wait for ours
    other = next(m.frame for s, m in ht.ref.this_hand.round.frames.items() if s != HOSTILE)
    body = body_of(ht.held[0])
    body["reveal"]["y"] = decode(other).body["reveal"]["y"]
    send_tampered(ht, body)


def test_key_reveal_without_a_valid_proof() -> None:
    ht = held_step("key-reveal")
    body = body_of(ht.held[0])
    rogue = PlayerSecret.generate(HandDeckContext(ht.sim.table.table_id, 1), HOSTILE)
    body["reveal"]["proof"] = rogue.reveal().to_wire()["proof"]
    send_tampered(ht, body)


# ---------------------------------------------------------------- shuffles


def _drop(deck: list[Any]) -> None:
    deck.pop()


def _duplicate(deck: list[Any]) -> None:
    deck[5] = deck[4]


def _replace(deck: list[Any]) -> None:
    deck[3] = [deck[3][1], deck[3][0]]  # a ciphertext of some other point


def _swap_after_proof(deck: list[Any]) -> None:
    deck[0], deck[1] = deck[1], deck[0]  # a different permutation than the proof's


@pytest.mark.parametrize("tamper", [_drop, _duplicate, _replace, _swap_after_proof])
def test_shuffle_that_does_not_permute_the_deck(tamper: Callable[[list[Any]], None]) -> None:
    ht = held_step("shuffle")
    body = body_of(ht.held[0])
    tamper(body["shuffle"]["deck"])
    send_tampered(ht, body)


def test_shuffle_copied_from_another_seat() -> None:
    ht = held_step("shuffle", players=3)
    other = next(f for f in ht.ref.records if decode(f).kind == "shuffle")
    send_tampered(ht, body_of(other))


def test_shuffle_proof_copied_from_another_hand() -> None:
    ht = HostileTable(make_config("tuppen", 3), 12, HOSTILE)
    ht.hold_when(lambda m: m.kind == "shuffle" and m.hand == 2, from_hand=2)
    ht.play(lambda t: False)
    assert ht.ref.hand == 2 and ht.ref.arbiter() == HOSTILE
    old = next(
        f
        for f in ht.ref.records
        if decode(f).kind == "shuffle" and decode(f).hand == 1 and decode(f).seat == HOSTILE
    )
    body = body_of(ht.held[0])
    body["shuffle"]["proof"] = body_of(old)["shuffle"]["proof"]
    send_tampered(ht, body)
    # And the whole old shuffle (deck and proof) re-signed for hand 2:
    ht2 = HostileTable(make_config("tuppen", 3), 12, HOSTILE)
    ht2.hold_when(lambda m: m.kind == "shuffle" and m.hand == 2, from_hand=2)
    ht2.play(lambda t: False)
    old2 = next(
        f
        for f in ht2.ref.records
        if decode(f).kind == "shuffle" and decode(f).hand == 1 and decode(f).seat == HOSTILE
    )
    send_tampered(ht2, body_of(old2))


# ---------------------------------------------------------------- decryption shares


def _flip_last_byte(value: bytes) -> bytes:
    return value[:-1] + bytes([value[-1] ^ 1])


def _moved_by_g(encoded: bytes) -> bytes:
    """Another valid group element: the share plus g."""
    return encode_point(decode_point(encoded) + g())


def _not_due(batch: dict[str, Any]) -> int:
    return next(p for p in range(32) if p not in batch["pos"])


def _add_position(batch: dict[str, Any]) -> None:
    """One position more than due (with a share for it), kept ascending."""
    extra = _not_due(batch)
    pairs = sorted([*zip(batch["pos"], batch["shares"], strict=True), (extra, batch["shares"][0])])
    batch["pos"], batch["shares"] = [p for p, _ in pairs], [s for _, s in pairs]


def _drop_last_position(batch: dict[str, Any]) -> None:
    batch["pos"].pop()
    batch["shares"].pop()


def _set_item(key: str, index: int, make: Callable[[Any], Any]) -> Callable[[dict[str, Any]], None]:
    def tamper(batch: dict[str, Any]) -> None:
        batch[key][index] = make(batch[key][index])

    return tamper


def _swap(key: str) -> Callable[[dict[str, Any]], None]:
    def tamper(batch: dict[str, Any]) -> None:
        batch[key][0], batch[key][1] = batch[key][1], batch[key][0]

    return tamper


# Every field of a batched share message (spec/crypto.md §7.1) tampered with: the change and a
# part of the reason every honest seat gives when it refuses the frame.
BATCH_TAMPERS: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "seat of another": (lambda b: b.update(seat=0), "from seat 0, expected seat 1"),
    "seat not an int": (lambda b: b.update(seat="1"), "batch.seat: expected an int"),
    "a position dropped": (_drop_last_position, "covers positions"),
    "a position not due": (_add_position, "covers positions"),
    "a position replaced": (
        lambda b: b["pos"].__setitem__(-1, max(p for p in range(32) if p not in b["pos"])),
        "covers positions",
    ),
    "positions out of order": (_swap("pos"), "batch.pos: must be ascending"),
    "a position twice": (
        lambda b: b["pos"].__setitem__(1, b["pos"][0]),
        "batch.pos: must be ascending without duplicates",
    ),
    "a position off the deck": (_set_item("pos", -1, lambda p: 32), "not a deck position"),
    "no positions": (lambda b: b.update(pos=[], shares=[]), "batch.pos: empty"),
    "shares swapped": (_swap("shares"), "do not verify"),
    "a share moved": (_set_item("shares", 0, _moved_by_g), "do not verify"),
    "a share copied": (
        lambda b: b["shares"].__setitem__(0, b["shares"][1]),
        "do not verify",
    ),
    "a share not a point": (_set_item("shares", 0, lambda _s: b""), "batch.shares[0]"),
    "a share missing": (lambda b: b.update(shares=b["shares"][:-1]), "batch.shares: expected"),
    "a share too many": (lambda b: b["shares"].append(b["shares"][0]), "batch.shares: expected"),
    "challenge changed": (_set_item("proof", 0, _flip_last_byte), "do not verify"),
    "response changed": (_set_item("proof", 1, _flip_last_byte), "do not verify"),
    "proof cut short": (lambda b: b.update(proof=b["proof"][:1]), "batch.proof: expected [e, z]"),
    "response not below n": (_set_item("proof", 1, lambda _z: b"\xff" * 32), "batch.proof.z"),
    "an extra field": (lambda b: b.update(step="deal"), "bad fields"),
    "a field missing": (lambda b: b.pop("proof"), "bad fields"),
}


def assert_reason(ht: HostileTable, frame: bytes, kind: str, reason: str) -> None:
    """Every honest seat refused ``frame`` saying ``reason`` (after the kind of the frame)."""
    for seat in ht.honest:
        reasons = [v.reason for v in ht.violations(seat) if frame in v.evidence]
        assert any(r.startswith(f"{kind}: ") and reason in r for r in reasons), (seat, reasons)


# covers: W-4
@pytest.mark.parametrize("name", sorted(BATCH_TAMPERS))
def test_a_tampered_batched_share_message_is_refused(name: str) -> None:
    tamper, reason = BATCH_TAMPERS[name]
    ht = held_step("shares")
    body = body_of(ht.held[0])
    assert len(body["batch"]["pos"]) >= 2
    tamper(body["batch"])
    frame = send_tampered(ht, body)
    assert_reason(ht, frame, "shares", reason)


# covers: W-4
def test_decryption_shares_proved_for_another_step() -> None:
    """The genuine shares for the right positions, but the proof is bound to the 'open' step."""
    ht = held_step("shares")
    me = ht.machines[HOSTILE]
    body = body_of(ht.held[0])
    assert me.deck is not None
    body["batch"] = me.deck.make_share_batch(body["batch"]["pos"], OPEN)
    frame = send_tampered(ht, body)
    assert_reason(ht, frame, "shares", "(deal) do not verify")


# covers: W-4
def test_decryption_shares_under_another_key() -> None:
    """Shares and a valid batched proof for the right positions, made with a key share the
    seat did not reveal: the proof binds the shares to the seat's own key share."""
    ht = held_step("shares")
    me = ht.machines[HOSTILE]
    assert me.deck is not None
    body = body_of(ht.held[0])
    rogue = PlayerSecret.generate(me.deck.hctx, HOSTILE)
    body["batch"] = make_share_batch(rogue, body["batch"]["pos"], me.deck.deck, "deal").to_wire()
    frame = send_tampered(ht, body)
    assert_reason(ht, frame, "shares", "do not verify")


# covers: W-4
def test_decryption_shares_copied_from_another_seat() -> None:
    ht = held_step("shares")
    assert ht.ref.this_hand.round is not None  # a parallel round: the others' frames are in
    other = next(m.frame for s, m in ht.ref.this_hand.round.frames.items() if s != HOSTILE)
    frame = send_tampered(ht, body_of(other))
    assert_reason(ht, frame, "shares", "expected seat 1")


# covers: W-4
def test_decryption_shares_in_the_old_one_proof_per_card_form() -> None:
    """A list of single-share messages, each with its own valid proof (the body this frame had
    before the shares were batched), is not a share frame: the body's schema refuses it and the
    author is blamed."""
    ht = held_step("shares")
    me = ht.machines[HOSTILE]
    assert me.deck is not None
    genuine = decode(ht.held[0])
    positions = genuine.body["batch"]["pos"]
    header = {"table_id": genuine.table_id, "hand": genuine.hand, "seq": genuine.seq}
    frame = raw_frame(
        ht.key,
        **header,
        prev=genuine.prev,
        seat=HOSTILE,
        kind="shares",
        body={"shares": [dict(sorted(me.deck.make_share(p, "deal").items())) for p in positions]},
    )
    before, hand = ht.scores(), ht.ref.hand
    ht.send(frame)
    ht.refused_and_aborted(frame, before, hand=hand)
    for seat in ht.honest:
        reasons = [v.reason for v in ht.violations(seat) if frame in v.evidence]
        assert any("expected only the fields batch" in r for r in reasons), (seat, reasons)


# ---------------------------------------------------------------- card plays


def _can_play(t: HostileTable) -> bool:
    return t.hostile_to_act() and any(
        a.kind is ActionKind.PLAY for a in t.machines[HOSTILE].engine.legal_actions(HOSTILE)
    )


def at_card_play(
    until: Callable[[HostileTable], bool] = _can_play, game: str = "tuppen", players: int = 3
) -> HostileTable:
    for seed in range(40):
        ht = HostileTable(make_config(game, players), 100 + seed, HOSTILE)
        if ht.play(until):
            ht.hold_now()
            return ht
    raise AssertionError("situation not reached")


def _can_play_two_hidden(t: HostileTable) -> bool:
    # two hidden cards of ours: the deal may leave one (a claim or an exchange showed others)
    return _can_play(t) and len(my_hidden(t)) >= 2


def my_hidden(ht: HostileTable) -> list[tuple[int, Card]]:
    me = ht.machines[HOSTILE]
    assert me.deck is not None
    return [
        (s.position, s.card)
        for s in me.engine.hand(HOSTILE)
        if s.card is not None and s.position not in me.deck.public
    ]


def open_share(ht: HostileTable, position: int) -> Any:
    deck = ht.machines[HOSTILE].deck
    assert deck is not None
    return deck.make_share(position, OPEN)


def play_frame(ht: HostileTable, card: Card, position: int, **extra: Any) -> bytes:
    action = Action(ActionKind.PLAY, HOSTILE, card=card, position=position)
    return ht.craft_action(action, **extra)


def refused(ht: HostileTable, frame: bytes) -> None:
    before, hand = ht.scores(), ht.ref.hand
    ht.send(frame)
    ht.refused_and_aborted(frame, before, hand=hand)


# covers: P-22
def test_playing_a_position_of_another_seat() -> None:
    ht = at_card_play()
    other = ht.ref.engine.hand(2)[0].position
    position, card = my_hidden(ht)[0]
    refused(ht, play_frame(ht, card, other, open=open_share(ht, position)))


# covers: P-22
def test_playing_a_card_whose_opening_is_another_card() -> None:
    ht = at_card_play(_can_play_two_hidden)
    (position, _card), (_, other_card) = my_hidden(ht)[:2]
    refused(ht, play_frame(ht, other_card, position, open=open_share(ht, position)))


def test_playing_a_card_already_seen_in_public() -> None:
    ht = at_card_play(lambda t: _can_play(t) and bool(t.ref.deck and t.ref.deck.public))
    assert ht.ref.deck is not None
    _seen_position, seen = next(iter(ht.ref.deck.public.items()))
    position, _ = my_hidden(ht)[0]
    card = Card.from_index(seen)
    # the seen card claimed at our own hidden position (the opening shows the real card) ...
    refused(ht, play_frame(ht, card, position, open=open_share(ht, position)))


def _played(t: HostileTable) -> list[tuple[int, int]]:
    """Public positions whose card no seat holds any more: played (a card shown on a claim
    or a check is public too, and playing it from our own hand is no violation)."""
    deck, engine = t.ref.deck, t.ref.engine
    if deck is None:
        return []
    held = {s.position for seat in range(engine.players) for s in engine.hand(seat)}
    return [(p, c) for p, c in deck.public.items() if p not in held]


def test_playing_the_public_position_of_a_card_already_played() -> None:
    ht = at_card_play(lambda t: _can_play(t) and bool(_played(t)))
    seen_position, seen = _played(ht)[0]
    refused(ht, play_frame(ht, Card.from_index(seen), seen_position))


# covers: P-22
def test_playing_without_opening_the_card() -> None:
    ht = at_card_play()
    position, card = my_hidden(ht)[0]
    refused(ht, play_frame(ht, card, position))


# covers: P-22
def test_playing_with_a_wrong_opening_share() -> None:
    ht = at_card_play(_can_play_two_hidden)
    (position, card), (other, _) = my_hidden(ht)[:2]
    share = open_share(ht, other)
    share["pos"] = position  # a share of another position relabelled: the proof fails
    refused(ht, play_frame(ht, card, position, open=share))


# covers: P-22
def test_playing_with_an_opening_share_for_the_deal_step() -> None:
    ht = at_card_play()
    position, card = my_hidden(ht)[0]
    deck = ht.machines[HOSTILE].deck
    assert deck is not None
    share = deck.make_share(position, "deal")
    refused(ht, play_frame(ht, card, position, open=share))


# ---------------------------------------------------------------- revokes


def _revoke_possible(t: HostileTable) -> bool:
    if not _can_play(t):
        return False
    me = t.machines[HOSTILE]
    cards = [c for _, c in my_hidden(t)]
    legal = {a.card for a in me.engine.legal_actions(HOSTILE) if a.kind is ActionKind.PLAY}
    return any(c not in legal for c in cards) and len(cards) >= 2


def _revoke(ht: HostileTable) -> tuple[Action, list[int], list[int]]:
    me = ht.machines[HOSTILE]
    legal = {a.card for a in me.engine.legal_actions(HOSTILE) if a.kind is ActionKind.PLAY}
    position, card = next((p, c) for p, c in my_hidden(ht) if c not in legal)
    action = Action(ActionKind.PLAY, HOSTILE, card=card, position=position)
    forbidden = sorted(c.index for c in ht.ref.engine.forbidden_cards(action))
    hidden = [p for p, _ in my_hidden(ht) if p != position]
    assert forbidden and hidden
    return action, hidden, forbidden


REVOKE_GAMES = [("tuppen", 3), ("belote", 4)]


# covers: P-23
@pytest.mark.parametrize(("game", "players"), REVOKE_GAMES)
def test_revoke_with_missing_nonmembership_proof(game: str, players: int) -> None:
    ht = at_card_play(_revoke_possible, game, players)
    action, _, _ = _revoke(ht)
    assert action.position is not None
    frame = ht.craft_action(action, open=open_share(ht, action.position))
    refused(ht, frame)


# covers: P-23
@pytest.mark.parametrize(("game", "players"), REVOKE_GAMES)
def test_revoke_with_forged_nonmembership_proof(game: str, players: int) -> None:
    """Proofs against a smaller forbidden set (the one the revoker can prove) do not count."""
    ht = at_card_play(_revoke_possible, game, players)
    action, hidden, forbidden = _revoke(ht)
    assert action.position is not None
    deck = ht.machines[HOSTILE].deck
    assert deck is not None
    mine = {c.index for _, c in my_hidden(ht)}
    weaker = [c for c in forbidden if c not in mine] or [c for c in range(32) if c not in mine][:1]
    proofs = deck.make_nonmembership(hidden, weaker, play_step(ht.ref.seq))
    frame = ht.craft_action(action, open=open_share(ht, action.position), nonmember=proofs)
    refused(ht, frame)


def _revoke_with_provable_position(t: HostileTable) -> bool:
    """A revoke is possible and some other hidden card is outside the forbidden set."""
    if not _revoke_possible(t):
        return False
    action, _, forbidden = _revoke(t)
    return any(p != action.position and c.index not in forbidden for p, c in my_hidden(t))


# covers: P-23
@pytest.mark.parametrize(("game", "players"), REVOKE_GAMES)
def test_revoke_with_proofs_for_another_step(game: str, players: int) -> None:
    """Proofs of the right set for another chain position (a replayed proof) do not count."""
    ht = at_card_play(_revoke_with_provable_position, game, players)
    action, _hidden, forbidden = _revoke(ht)
    assert action.position is not None
    deck = ht.machines[HOSTILE].deck
    assert deck is not None
    mine = {c.index for _, c in my_hidden(ht)}
    honest_hidden = [
        p for p, c in my_hidden(ht) if p != action.position and c.index not in forbidden
    ]
    assert honest_hidden
    proofs = deck.make_nonmembership(honest_hidden, forbidden, play_step(ht.ref.seq - 1))
    assert mine
    frame = ht.craft_action(action, open=open_share(ht, action.position), nonmember=proofs)
    refused(ht, frame)


def _belote_trump_revoke(t: HostileTable) -> bool:
    """The hostile seat could play a card only by breaking a trump obligation: the card is not
    a trump and the cards that forbid it are trumps (must trump), or it is a trump and the
    forbidding cards are higher trumps (must over-trump)."""
    if not _revoke_possible(t):
        return False
    trump = getattr(t.ref.engine, "trump", None)
    if trump is None:
        return False
    action, _, forbidden = _revoke(t)
    assert action.card is not None
    return all(Card.from_index(c).suit == trump for c in forbidden)


# covers: P-23
def test_belote_revoke_of_a_trump_obligation_without_proof() -> None:
    ht = at_card_play(_belote_trump_revoke, "belote", 4)
    action, _, forbidden = _revoke(ht)
    assert action.position is not None
    trump = getattr(ht.ref.engine, "trump", None)
    assert all(Card.from_index(c).suit == trump for c in forbidden)
    refused(ht, ht.craft_action(action, open=open_share(ht, action.position)))
