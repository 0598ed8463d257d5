"""Re-verify the recorded JSON vectors in spec/vectors/crypto from the files alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from make_vectors import OUT_DIR, all_vectors, unhexify

from dealerless.protocol.crypto import (
    Ciphertext,
    HandDeckContext,
    KeyCommit,
    KeyReveal,
    NonMembershipMessage,
    PlayerSecret,
    ProofError,
    ShareMessage,
    ShuffleMessage,
    card_point,
    decode_point,
    g,
    h,
    initial_deck,
    joint_key,
    open_card,
    recover_card,
    shuffle_bases,
    verify_key_reveal,
    verify_nonmembership_message,
    verify_share,
    verify_shuffle_message,
)
from dealerless.protocol.crypto.h2c import hash_to_curve


def load(name: str) -> Any:
    return json.loads((OUT_DIR / name).read_text())


def test_h2c_vectors_file() -> None:
    data = load("h2c.json")
    for case in data["cases"]:
        p = hash_to_curve(case["msg"].encode(), data["dst"].encode())
        assert p.xy() == (int(case["P"]["x"], 16), int(case["P"]["y"], 16))


def test_generator_vectors_file() -> None:
    data = load("generators.json")
    assert g().encode().hex() == data["g"]["compressed"]
    assert h().encode().hex() == data["h"]["compressed"]
    gdst = data["generator_dst"].encode()
    for item, p in zip(data["h_i"], shuffle_bases(32), strict=True):
        assert p.encode().hex() == item["compressed"]
        assert hash_to_curve(bytes.fromhex(item["msg_hex"]), gdst) == p
    cdst = data["card_dst"].encode()
    for item in data["cards"]:
        p = card_point(item["index"])
        assert p.encode().hex() == item["compressed"]
        assert hash_to_curve(bytes.fromhex(item["msg_hex"]), cdst) == p


def test_recorded_hand_verifies() -> None:
    data = load("hand.json")
    hctx = HandDeckContext(bytes.fromhex(data["table_id_hex"]), data["hand"])
    commits = [KeyCommit.from_wire(unhexify(c)) for c in data["key_commits"]]
    reveals = [KeyReveal.from_wire(unhexify(r)) for r in data["key_reveals"]]
    keys = [verify_key_reveal(hctx, c, r) for c, r in zip(commits, reveals, strict=True)]
    y = joint_key(keys)
    assert y.encode().hex() == data["joint_key"]
    deck = initial_deck(y)
    assert [ct.to_wire() for ct in deck] == unhexify(data["initial_deck"])
    for seat, raw in enumerate(data["shuffles"]):
        deck = verify_shuffle_message(hctx, y, deck, ShuffleMessage.from_wire(unhexify(raw)), seat)
    xs = [int(x, 16) for x in data["secret_keys"]]
    players = [
        PlayerSecret(hctx, s, xs[s], keys[s], bytes(32)) for s in range(len(xs))
    ]  # nonce is irrelevant after the reveal
    dealt = {}
    for item in data["deal"]:
        pos, owner = item["position"], item["owner"]
        msg = ShareMessage.from_wire(unhexify(item["share"]))
        share = verify_share(hctx, keys[msg.seat], pos, deck[pos], msg, msg.seat, data["deal_step"])
        assert recover_card(players[owner], pos, deck[pos], [share]) == item["card"]
        dealt[pos] = (owner, share)
    op = data["open"]
    msg = ShareMessage.from_wire(unhexify(op["share"]))
    pos = op["position"]
    own = verify_share(hctx, keys[0], pos, deck[pos], msg, 0, op["step"])
    assert open_card(pos, deck[pos], [own, dealt[pos][1]]) == data["deal"][0]["card"]
    with pytest.raises(ProofError):
        verify_share(hctx, keys[0], pos, deck[pos], msg, 0, "deal")
    nm = data["nonmember"]
    pos = nm["position"]
    owner, others = dealt[pos]
    msg_nm = NonMembershipMessage.from_wire(unhexify(nm["message"]))
    verify_nonmembership_message(
        hctx, keys[owner], pos, deck[pos], others, nm["forbidden"], msg_nm, owner, nm["step"]
    )
    assert isinstance(deck[0], Ciphertext)
    assert decode_point(bytes.fromhex(data["joint_key"])) == y


def test_vectors_are_reproducible() -> None:
    """The generator (seeded test randomness) reproduces the files byte for byte."""
    for name, data in all_vectors().items():
        assert json.loads(json.dumps(data)) == json.loads((Path(OUT_DIR) / name).read_text()), name
