"""Negative tests: every proof and message field, replay across contexts, bad encodings."""

from __future__ import annotations

import dataclasses
from typing import Any

import msgpack
import pytest
from crypto_table import SimTable, wire

from dealerless.protocol.crypto import (
    Ciphertext,
    CommitmentError,
    CryptoError,
    DecodeError,
    HandDeckContext,
    InvalidPoint,
    InvalidScalar,
    KeyCommit,
    KeyReveal,
    NonMembershipMessage,
    NotACard,
    PlayerSecret,
    ProofError,
    ShareMessage,
    ShuffleMessage,
    card_point,
    g,
    initial_deck,
    make_nonmembership,
    recover_card,
    verify_key_reveal,
    verify_nonmembership_message,
    verify_share,
    verify_shuffle_message,
    verify_shuffle_round,
)
from dealerless.protocol.crypto.group import N
from dealerless.protocol.crypto.shuffle import ShuffleProof, shuffle_deck, verify_shuffle


@pytest.fixture(scope="module")
def table() -> SimTable:
    t = SimTable(3, table_id=b"neg-table", hand=5)
    t.setup_keys()
    t.shuffle_all()
    for p in range(6):
        t.deal(p, p % 3)
    return t


def other_point(k: int = 7) -> bytes:
    return (g() * k).encode()


# ------------------------------------------------------------------ keys


def test_key_reveal_ok_and_commit_mismatch(table: SimTable) -> None:
    p = table.players[1]
    commit, reveal = p.commit(), p.reveal()
    assert verify_key_reveal(table.hctx, commit, reveal) == p.y
    other = table.players[2]
    with pytest.raises(CommitmentError):
        verify_key_reveal(table.hctx, commit, dataclasses.replace(reveal, nonce=bytes(32)))
    with pytest.raises(CommitmentError):
        verify_key_reveal(table.hctx, commit, dataclasses.replace(reveal, y=other.y))
    with pytest.raises(DecodeError):
        verify_key_reveal(table.hctx, commit, dataclasses.replace(reveal, seat=2))


@pytest.mark.parametrize(
    "where", ["table", "hand", "seat"], ids=["other-table", "other-hand", "other-seat"]
)
def test_key_proof_replay(table: SimTable, where: str) -> None:
    p = table.players[1]
    hctx = table.hctx
    if where == "table":
        alien = PlayerSecret(HandDeckContext(b"other", hctx.hand), 1, p.x, p.y, p.nonce)
    elif where == "hand":
        alien = PlayerSecret(HandDeckContext(hctx.table_id, 6), 1, p.x, p.y, p.nonce)
    else:
        alien = PlayerSecret(hctx, 2, p.x, p.y, p.nonce)
    reveal = dataclasses.replace(alien.reveal(), seat=1)
    with pytest.raises(ProofError):
        verify_key_reveal(hctx, p.commit(), reveal)


def test_key_rogue_key_without_knowledge(table: SimTable) -> None:
    p = table.players[0]
    rogue_y = card_point(3) - p.y  # a key chosen to cancel seat 0: no known discrete log
    rogue = PlayerSecret(table.hctx, 1, 12345, rogue_y, bytes(32))
    reveal = rogue.reveal()  # proves knowledge of 12345, not of log(rogue_y)
    with pytest.raises(ProofError):
        verify_key_reveal(table.hctx, rogue.commit(), reveal)


def test_key_wire_strict(table: SimTable) -> None:
    good = wire(table.players[0].reveal())
    KeyReveal.from_wire(good)
    for bad in [
        {**good, "y": bytes(33)},
        {**good, "y": good["y"][:-1]},
        {**good, "nonce": good["nonce"][:31]},
        {**good, "seat": 256},
        {**good, "seat": True},
        {**good, "extra": 1},
        {k: v for k, v in good.items() if k != "proof"},
        {**good, "proof": [good["proof"][0]]},
        {**good, "proof": [good["proof"][0], N.to_bytes(32, "big")]},
        [good],
    ]:
        with pytest.raises(DecodeError):
            KeyReveal.from_wire(bad)
    c = wire(table.players[0].commit())
    KeyCommit.from_wire(c)
    with pytest.raises(DecodeError):
        KeyCommit.from_wire({**c, "commit": c["commit"] + b"\0"})
    e, z = good["proof"]
    tampered = {**good, "proof": [e, bytes([z[0] ^ 1]) + z[1:]]}
    with pytest.raises(ProofError):
        verify_key_reveal(table.hctx, table.players[0].commit(), KeyReveal.from_wire(tampered))


# ------------------------------------------------------------------ shuffle


@pytest.fixture(scope="module")
def shuffled(table: SimTable) -> tuple[list[Ciphertext], ShuffleMessage]:
    assert table.y is not None
    deck_in = initial_deck(table.y)
    return deck_in, table.shuffles[0]


def _verify(table: SimTable, deck_in: list[Ciphertext], msg: ShuffleMessage, seat: int = 0) -> None:
    """Check through both paths (single and batched round); they must agree."""
    assert table.y is not None
    y = table.y
    errors: list[CryptoError] = []
    for check in (
        lambda: verify_shuffle_message(table.hctx, y, deck_in, msg, seat),
        lambda: verify_shuffle_round(table.hctx, y, deck_in, [msg], [seat]),
    ):
        try:
            check()
        except CryptoError as exc:
            errors.append(exc)
    assert len(errors) in (0, 2), f"single and batched verification disagree: {errors}"
    if errors:
        raise errors[0]


def test_shuffle_good(table: SimTable, shuffled: Any) -> None:
    deck_in, msg = shuffled
    _verify(table, deck_in, msg)
    assert msg.proof.size_bytes() == 33 * (32 + 32 + 37) + 32 * 68 == 5509
    assert len(msgpack.packb(msg.proof.to_wire())) < 8192


def test_shuffle_wrong_seat_or_context(table: SimTable, shuffled: Any) -> None:
    deck_in, msg = shuffled
    with pytest.raises(ProofError, match="seat"):
        _verify(table, deck_in, msg, seat=1)
    with pytest.raises(ProofError):  # claimed by seat 1: the proof is bound to seat 0
        _verify(table, deck_in, dataclasses.replace(msg, seat=1), seat=1)
    assert table.y is not None
    for hctx in (HandDeckContext(b"neg-table", 6), HandDeckContext(b"other", 5)):
        with pytest.raises(ProofError):
            verify_shuffle_message(hctx, table.y, deck_in, msg, 0)
    ctx = table.hctx.proof_context(0, "shuffle", "again")
    with pytest.raises(ProofError):
        verify_shuffle(ctx, table.y, deck_in, msg.deck, msg.proof)
    with pytest.raises(ProofError):  # another joint key
        verify_shuffle_message(table.hctx, table.y + g(), deck_in, msg, 0)
    with pytest.raises(ProofError):  # another input deck
        _verify(table, list(table.shuffles[1].deck), msg)


def _with_deck(msg: ShuffleMessage, deck: list[Ciphertext]) -> ShuffleMessage:
    return dataclasses.replace(msg, deck=tuple(deck))


def test_shuffle_card_manipulation(table: SimTable, shuffled: Any) -> None:
    deck_in, msg = shuffled
    out = list(msg.deck)
    assert table.y is not None
    cases = {
        "swapped": [*out[:3], out[4], out[3], *out[5:]],
        "duplicated": [*out[:5], out[6], *out[6:]],
        "replaced": [*out[:7], Ciphertext(g(), card_point(0) + table.y), *out[8:]],
        "halves-swapped": [*out[:2], Ciphertext(out[2].c2, out[2].c1), *out[3:]],
        "rerandomised": [*out[:9], Ciphertext(out[9].c1 + g(), out[9].c2 + table.y), *out[10:]],
    }
    for name, deck in cases.items():
        with pytest.raises(ProofError):
            _verify(table, deck_in, _with_deck(msg, deck))
        assert name
    with pytest.raises(ProofError, match="31 ciphertexts"):
        _verify(table, deck_in, _with_deck(msg, out[:31]))
    with pytest.raises(ProofError, match="33 ciphertexts"):
        _verify(table, deck_in, _with_deck(msg, [*out, out[0]]))
    data = wire(msg)
    with pytest.raises(DecodeError, match="expected 32 ciphertexts"):
        ShuffleMessage.from_wire({**data, "deck": data["deck"][:31]})


def test_shuffle_dishonest_prover_cannot_replace_a_card(table: SimTable, shuffled: Any) -> None:
    """Shuffle honestly a deck where card 0 was replaced by card 1, claim the real input."""
    deck_in, _ = shuffled
    assert table.y is not None
    forged_in = [Ciphertext(g(), card_point(1) + table.y), *deck_in[1:]]
    ctx = table.hctx.proof_context(0, "shuffle")
    out, proof = shuffle_deck(ctx, table.y, forged_in)
    verify_shuffle(ctx, table.y, forged_in, out, proof)
    with pytest.raises(ProofError):
        verify_shuffle(ctx, table.y, deck_in, out, proof)


def test_shuffle_every_proof_field_tampered(table: SimTable, shuffled: Any) -> None:
    deck_in, msg = shuffled
    pf: ShuffleProof = msg.proof
    replacement = g() * 5
    for fname in ("pcommit", "chain", "t"):
        seq = getattr(pf, fname)
        for i in range(len(seq)):
            bad = tuple(replacement if j == i else p for j, p in enumerate(seq))
            with pytest.raises(ProofError):
                _verify(
                    table,
                    deck_in,
                    dataclasses.replace(msg, proof=dataclasses.replace(pf, **{fname: bad})),
                )
    for i in range(len(pf.s)):
        bad_s = tuple((k + 1) % N if j == i else k for j, k in enumerate(pf.s))
        with pytest.raises(ProofError):
            _verify(
                table, deck_in, dataclasses.replace(msg, proof=dataclasses.replace(pf, s=bad_s))
            )


def test_shuffle_wire_strict(shuffled: Any) -> None:
    _, msg = shuffled
    data = wire(msg)
    proof = data["proof"]
    ShuffleMessage.from_wire(data)
    bad_proofs = [
        {**proof, "t": proof["t"][:-1]},
        {**proof, "s": [*proof["s"], proof["s"][0]]},
        {**proof, "pcommit": [bytes(33), *proof["pcommit"][1:]]},
        {**proof, "chain": [b"\x04" + proof["chain"][0][1:], *proof["chain"][1:]]},
        {**proof, "s": [N.to_bytes(32, "big"), *proof["s"][1:]]},
        {**proof, "s": [proof["s"][0][:31], *proof["s"][1:]]},
        {k: v for k, v in proof.items() if k != "chain"},
        {**proof, "junk": []},
    ]
    for bad in bad_proofs:
        with pytest.raises(DecodeError):
            ShuffleMessage.from_wire({**data, "proof": bad})
    with pytest.raises(InvalidPoint):
        ShuffleMessage.from_wire(
            {**data, "deck": [[bytes(33), data["deck"][0][1]], *data["deck"][1:]]}
        )
    with pytest.raises(DecodeError):
        ShuffleMessage.from_wire({**data, "deck": [[data["deck"][0][0]], *data["deck"][1:]]})


# ------------------------------------------------------------------ decryption shares


def test_share_replays_and_tampering(table: SimTable) -> None:
    pos = 0  # owned by seat 0; seat 1 published a deal share
    ct = table.deck[pos]
    msg = table.publish_share(1, pos, "deal")
    y1 = table.keys[1]
    assert verify_share(table.hctx, y1, pos, ct, msg, 1, "deal") == msg.share
    with pytest.raises(ProofError, match="position"):
        verify_share(table.hctx, y1, 3, table.deck[3], msg, 1, "deal")
    with pytest.raises(ProofError):  # position rewritten in the message
        verify_share(table.hctx, y1, 3, table.deck[3], dataclasses.replace(msg, position=3), 1)
    with pytest.raises(ProofError):  # another ciphertext at the same position
        verify_share(table.hctx, y1, pos, table.deck[1], msg, 1, "deal")
    with pytest.raises(ProofError):  # another step
        verify_share(table.hctx, y1, pos, ct, msg, 1, "open")
    with pytest.raises(ProofError, match="seat"):
        verify_share(table.hctx, table.keys[2], pos, ct, msg, 2, "deal")
    with pytest.raises(ProofError):  # claimed by seat 2
        verify_share(table.hctx, table.keys[2], pos, ct, dataclasses.replace(msg, seat=2), 2)
    for hctx in (HandDeckContext(b"neg-table", 6), HandDeckContext(b"zzz", 5)):
        with pytest.raises(ProofError):
            verify_share(hctx, y1, pos, ct, msg, 1, "deal")
    # share for the wrong card: a valid point that is not x_1 * c1
    for fake in (
        msg.share + g(),
        table.deck[1].c1 * table.players[1].x,
        ct.c1 * table.players[2].x,
    ):
        with pytest.raises(ProofError):
            verify_share(table.hctx, y1, pos, ct, dataclasses.replace(msg, share=fake), 1)
    # proof scalars tampered
    e, z = msg.proof.e, msg.proof.z
    for pe, pz in ((e ^ 1, z), (e, (z + 1) % N), (z, e)):
        bad = dataclasses.replace(msg, proof=dataclasses.replace(msg.proof, e=pe, z=pz))
        with pytest.raises(ProofError):
            verify_share(table.hctx, y1, pos, ct, bad, 1, "deal")


def test_share_wire_strict(table: SimTable) -> None:
    data = wire(table.publish_share(1, 0, "deal"))
    ShareMessage.from_wire(data)
    with pytest.raises(InvalidPoint):
        ShareMessage.from_wire({**data, "share": bytes(33)})
    with pytest.raises(InvalidPoint):
        ShareMessage.from_wire({**data, "share": data["share"] + b"\0"})
    with pytest.raises(InvalidScalar):
        ShareMessage.from_wire({**data, "proof": [data["proof"][0], (N + 1).to_bytes(32, "big")]})
    for bad in ({**data, "pos": 32}, {**data, "pos": -1}, {**data, "pos": "0"}, {**data, "x": 0}):
        with pytest.raises(DecodeError):
            ShareMessage.from_wire(bad)


def test_recover_with_bad_share_names_position(table: SimTable) -> None:
    pos = 4  # owner seat 1
    shares = [table.shares[pos][0] + g(), table.shares[pos][2]]
    with pytest.raises(NotACard, match="position 4"):
        recover_card(table.players[1], pos, table.deck[pos], shares)


# ------------------------------------------------------------------ non-membership


def _nm(table: SimTable, pos: int, forbidden: list[int], step: str) -> NonMembershipMessage:
    owner = table.owner[pos]
    return make_nonmembership(
        table.players[owner], pos, table.deck[pos], table.others_sum(pos), forbidden, step
    )


def _nm_verify(
    table: SimTable,
    pos: int,
    forbidden: list[int],
    msg: NonMembershipMessage,
    step: str,
    hctx: HandDeckContext | None = None,
    seat: int | None = None,
) -> None:
    owner = table.owner[pos] if seat is None else seat
    verify_nonmembership_message(
        hctx or table.hctx,
        table.keys[owner],
        pos,
        table.deck[pos],
        table.others_sum(pos),
        forbidden,
        msg,
        owner,
        step,
    )


def test_nonmember_replays(table: SimTable) -> None:
    pos = 1  # seat 1
    card = table.known[pos]
    forbidden = sorted({(card + 1) % 32, (card + 2) % 32, (card + 9) % 32})
    msg = _nm(table, pos, forbidden, "trick2")
    _nm_verify(table, pos, forbidden, msg, "trick2")
    with pytest.raises(ProofError):
        _nm_verify(table, pos, [*forbidden[:2]], msg, "trick2")  # other F
    with pytest.raises(ProofError):
        _nm_verify(table, pos, forbidden, msg, "trick3")  # other step
    for hctx in (HandDeckContext(b"neg-table", 4), HandDeckContext(b"t", 5)):
        with pytest.raises(ProofError):
            _nm_verify(table, pos, forbidden, msg, "trick2", hctx=hctx)
    with pytest.raises(ProofError):  # other position (same owner)
        _nm_verify(table, 4, forbidden, dataclasses.replace(msg, position=4), "trick2")
    with pytest.raises(ProofError):  # claimed for another seat
        _nm_verify(table, pos, forbidden, dataclasses.replace(msg, seat=2), "trick2", seat=2)
    with pytest.raises(ProofError):  # another F written into the message
        _nm_verify(table, pos, forbidden, dataclasses.replace(msg, forbidden=(0,)), "trick2")
    branches = list(msg.proof.branches)
    for i in (0, len(branches) // 2, len(branches) - 1):
        for j in (0, 1):
            b = list(branches[i])
            b[j] = (b[j] + 1) % N
            bad_br = [*branches[:i], tuple(b), *branches[i + 1 :]]
            bad = dataclasses.replace(
                msg, proof=dataclasses.replace(msg.proof, branches=tuple(bad_br))
            )
            with pytest.raises(ProofError):
                _nm_verify(table, pos, forbidden, bad, "trick2")


def test_nonmember_forgery_for_forbidden_card(table: SimTable) -> None:
    pos = 2  # seat 2
    card = table.known[pos]
    forbidden = [card]
    with pytest.raises(ValueError, match="forbidden"):
        _nm(table, pos, forbidden, "x")
    # cheat: lie about the others' shares so the plaintext looks like an allowed card
    allowed_card = (card + 1) % 32
    fake_others = table.others_sum(pos) + card_point(card) - card_point(allowed_card)
    p = table.players[2]
    forged = make_nonmembership(p, pos, table.deck[pos], fake_others, forbidden, "x")
    with pytest.raises(ProofError):
        _nm_verify(table, pos, forbidden, forged, "x")


def test_nonmember_wire_strict(table: SimTable) -> None:
    card = table.known[0]
    forbidden = sorted({(card + 3) % 32, (card + 5) % 32})
    data = wire(_nm(table, 0, forbidden, "w"))
    NonMembershipMessage.from_wire(data)
    for bad in [
        {**data, "forbidden": list(reversed(data["forbidden"]))},
        {**data, "forbidden": [*data["forbidden"], data["forbidden"][0]]},
        {**data, "forbidden": [32]},
        {**data, "forbidden": list(range(32))},
        {**data, "forbidden": data["forbidden"][:1]},  # branch count no longer matches
        {**data, "proof": data["proof"][:-1]},
        {**data, "proof": [[b"\0" * 32], *data["proof"][1:]]},
        {**data, "proof": [[b"\0" * 32, N.to_bytes(32, "big")], *data["proof"][1:]]},
        {**data, "pos": 40},
    ]:
        with pytest.raises(DecodeError):
            NonMembershipMessage.from_wire(bad)


def test_every_error_is_a_value_error() -> None:
    for cls in (CryptoError, DecodeError, InvalidPoint, InvalidScalar, ProofError, NotACard):
        assert issubclass(cls, ValueError)


def test_shuffle_round_names_culprit(table: SimTable) -> None:
    assert table.y is not None
    deck0 = initial_deck(table.y)
    msgs = list(table.shuffles)
    assert verify_shuffle_round(table.hctx, table.y, deck0, msgs, [0, 1, 2]) == table.deck
    out = list(msgs[1].deck)
    bad1 = dataclasses.replace(msgs[1], deck=tuple([out[1], out[0], *out[2:]]))
    with pytest.raises(ProofError, match="seat 1"):
        verify_shuffle_round(table.hctx, table.y, deck0, [msgs[0], bad1, msgs[2]], [0, 1, 2])
    with pytest.raises(ProofError, match="seat"):  # out of order
        verify_shuffle_round(table.hctx, table.y, deck0, [msgs[1], msgs[0], msgs[2]], [0, 1, 2])
    with pytest.raises(ProofError):  # a shuffle missing from the chain
        verify_shuffle_round(table.hctx, table.y, deck0, [msgs[0], msgs[2]], [0, 2])
    with pytest.raises(ProofError):  # another hand
        verify_shuffle_round(HandDeckContext(b"neg-table", 9), table.y, deck0, msgs, [0, 1, 2])


# ------------------------------------------------------------------ batched deal shares


def test_share_batch_checks(table: SimTable) -> None:
    from dealerless.protocol.crypto import (
        ShareBatchMessage,
        make_share_batch,
        verify_share_batch,
    )

    positions = [10, 11, 13, 20]
    msg = make_share_batch(table.players[1], positions, table.deck)
    y1 = table.keys[1]
    got = verify_share_batch(table.hctx, y1, table.deck, msg, 1, positions)
    for p in positions:  # same shares as one-by-one
        assert got[p] == table.deck[p].c1 * table.players[1].x

    def bad(m: ShareBatchMessage, **kw: Any) -> None:
        args: dict[str, Any] = {"seat": 1, "positions": positions, "step": "deal"}
        args.update(kw)
        with pytest.raises(ProofError):
            verify_share_batch(
                kw.get("hctx", table.hctx),
                y1,
                table.deck,
                m,
                args["seat"],
                args["positions"],
                args["step"],
            )

    sh = list(msg.shares)
    bad(dataclasses.replace(msg, shares=(sh[0] + g(), *sh[1:])))  # one wrong share
    bad(dataclasses.replace(msg, shares=(sh[1], sh[0], *sh[2:])))  # swapped positions
    bad(dataclasses.replace(msg, shares=(*sh[:3], table.deck[21].c1 * table.players[1].x)))
    bad(msg, step="draw")
    bad(msg, positions=[10, 11, 13])
    bad(dataclasses.replace(msg, positions=(10, 11, 13, 21)), positions=[10, 11, 13, 21])
    bad(msg, seat=2)
    bad(dataclasses.replace(msg, seat=2), seat=2)
    bad(msg, hctx=HandDeckContext(b"neg-table", 6))
    bad(msg, hctx=HandDeckContext(b"zzz", 5))
    for pe, pz in ((msg.proof.e ^ 1, msg.proof.z), (msg.proof.e, (msg.proof.z + 1) % N)):
        bad(dataclasses.replace(msg, proof=dataclasses.replace(msg.proof, e=pe, z=pz)))
    with pytest.raises(ProofError):  # shares checked against another deck
        verify_share_batch(table.hctx, y1, list(table.shuffles[0].deck), msg, 1, positions)

    data = wire(msg)
    ShareBatchMessage.from_wire(data)
    for raw in [
        {**data, "pos": [11, 10, 13, 20]},
        {**data, "pos": [10, 10, 13, 20]},
        {**data, "pos": [10, 11, 13, 32]},
        {**data, "pos": []},
        {**data, "shares": data["shares"][:3]},
        {**data, "shares": [bytes(33), *data["shares"][1:]]},
        {**data, "proof": [data["proof"][0], N.to_bytes(32, "big")]},
        {**data, "more": 1},
    ]:
        with pytest.raises(DecodeError):
            ShareBatchMessage.from_wire(raw)
