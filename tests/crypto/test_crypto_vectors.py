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
    ShareBatchMessage,
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
    verify_share_batch,
    verify_shuffle_message,
)
from dealerless.protocol.crypto.h2c import hash_to_curve, hash_to_field, map_to_curve


def load(name: str) -> Any:
    return json.loads((OUT_DIR / name).read_text())


def test_h2c_vectors_file() -> None:
    data = load("h2c.json")
    for case in data["cases"]:
        msg, dst = case["msg"].encode(), data["dst"].encode()
        u = hash_to_field(msg, dst)
        assert u == [int(case["u0"], 16), int(case["u1"], 16)]
        for k in (0, 1):
            q = map_to_curve(u[k])
            assert q.xy() == (int(case[f"Q{k}"]["x"], 16), int(case[f"Q{k}"]["y"], 16))
        p = hash_to_curve(msg, dst)
        assert p.xy() == (int(case["P"]["x"], 16), int(case["P"]["y"], 16))
    # the RFC 9380 J.8.1 values themselves, independent of our generator
    rfc_empty = data["cases"][0]
    assert rfc_empty["msg"] == ""
    assert rfc_empty["P"]["x"] == "c1cae290e291aee617ebaef1be6d73861479c48b841eaba9b7b5852ddfeb1346"
    assert (
        rfc_empty["Q0"]["x"] == "74519ef88b32b425a095e4ebcc84d81b64e9e2c2675340a720bb1a1857b99f1e"
    )
    assert (
        rfc_empty["Q1"]["x"] == "44548adb1b399263ded3510554d28b4bead34b8cf9a37b4bd0bd2ba4db87ae63"
    )


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
    for raw in data["deal_batches"]:
        batch = ShareBatchMessage.from_wire(unhexify(raw))
        positions = [p for p in range(8) if p % 2 != batch.seat]
        got = verify_share_batch(hctx, keys[batch.seat], deck, batch, batch.seat, positions)
        for p, share in got.items():
            assert share == dealt[p][1]  # same shares as the one-by-one deal
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
