"""Group elements everywhere (issue 22, point 5): no point a peer sends reaches a proof unless
it is a canonical encoding of a non-identity secp256k1 point.

For every deck message that carries points (key reveal, shuffle: deck and proof, decryption
share, batched decryption shares) a real message is built, and *every* point field in turn is
replaced by each bad encoding (the identity in every form it could take, non-canonical forms,
an x that is not on the curve, wrong types and lengths). The receiver's whole path (``from_wire``
then the ``verify_*`` it feeds) must refuse it with :class:`InvalidPoint`, from the decoder
(the message names the field and the reason), while every libsecp256k1 group operation and every
Fiat-Shamir transcript is booby-trapped: no proof work starts. The other way round, a message
holding the identity the arithmetic layer makes (``G - G``) cannot be written: ``to_wire``
raises naming the field. Messages without points (key commitment, non-membership) are checked to
carry none. The table protocol's own entry points are covered in
``tests/protocol/test_group_elements_table.py``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from crypto_table import SimTable, wire

from dealerless.protocol.crypto import (
    IDENTITY,
    Ciphertext,
    InvalidPoint,
    KeyCommit,
    KeyReveal,
    NonMembershipMessage,
    ProofError,
    ShareBatchMessage,
    ShareMessage,
    ShuffleMessage,
    decode_point,
    encode_point,
    g,
    group,
    initial_deck,
    make_nonmembership,
    make_share_batch,
    transcript,
    verify_key_reveal,
    verify_nonmembership_message,
    verify_share,
    verify_share_batch,
    verify_shuffle_message,
    verify_shuffle_round,
)
from dealerless.protocol.crypto.group import P, point_from_xy

# ---------------------------------------------------------------- the bad encodings

ON_CURVE_X = 1  # 1 + 7 is a square mod p: (1, y) is a point, and 1 + p < 2^256
OFF_CURVE_X = 5  # 125 + 7 is not a square mod p: no point has this x
assert pow(ON_CURVE_X**3 + 7, (P - 1) // 2, P) == 1
assert pow(OFF_CURVE_X**3 + 7, (P - 1) // 2, P) == P - 1
assert pow(7, (P - 1) // 2, P) == P - 1  # x = 0 is not on the curve either


def _uncompressed(enc: bytes) -> bytes:
    x, y = decode_point(enc).xy()
    return b"\x04" + x.to_bytes(32, "big") + y.to_bytes(32, "big")


def _alias(enc: bytes) -> bytes:
    """The non-canonical twin of a point with x < 2^256 - p: same prefix, x + p."""
    x = int.from_bytes(enc[1:], "big")
    assert x + P < 2**256
    return enc[:1] + (x + P).to_bytes(32, "big")


# name -> (bad value made from the genuine encoding of the field, reason the decoder gives)
Bad = Callable[[bytes], object]
IDENTITY_FORMS: dict[str, tuple[Bad, str]] = {
    "33-zero-bytes": (lambda e: bytes(33), "bad prefix 0x00"),
    "transcript-encoding": (lambda e: IDENTITY.encode(), "bad prefix 0x00"),
    "sec1-infinity-0x00": (lambda e: b"\x00", "expected 33 bytes, got 1"),
    "prefix-00-with-x": (lambda e: b"\x00" + e[1:], "bad prefix 0x00"),
    "compressed-x0-02": (lambda e: b"\x02" + bytes(32), "not on secp256k1"),
    "compressed-x0-03": (lambda e: b"\x03" + bytes(32), "not on secp256k1"),
    "uncompressed-zero": (lambda e: b"\x04" + bytes(64), "expected 33 bytes, got 65"),
}
NON_CANONICAL: dict[str, tuple[Bad, str]] = {
    "x-plus-p-alias": (lambda e: _alias(point_from_xy(*_point_x1()).encode()), "not reduced mod p"),
    "x-equals-p": (lambda e: b"\x02" + P.to_bytes(32, "big"), "not reduced mod p"),
    "x-all-ff": (lambda e: b"\x03" + b"\xff" * 32, "not reduced mod p"),
    "prefix-04": (lambda e: b"\x04" + e[1:], "bad prefix 0x04"),
    "prefix-05": (lambda e: b"\x05" + e[1:], "bad prefix 0x05"),
    "hybrid-06": (lambda e: b"\x06" + e[1:], "bad prefix 0x06"),
    "hybrid-07": (lambda e: b"\x07" + e[1:], "bad prefix 0x07"),
    "prefix-ff": (lambda e: b"\xff" + e[1:], "bad prefix 0xff"),
    "uncompressed-same-point": (_uncompressed, "expected 33 bytes, got 65"),
    "hybrid-same-point": (
        lambda e: bytes([6 + (e[0] & 1)]) + _uncompressed(e)[1:],
        "expected 33 bytes, got 65",
    ),
    "empty": (lambda e: b"", "expected 33 bytes, got 0"),
    "truncated": (lambda e: e[:32], "expected 33 bytes, got 32"),
    "trailing-byte": (lambda e: e + b"\x00", "expected 33 bytes, got 34"),
    "hex-text": (lambda e: e.hex(), "got str"),
    "nil": (lambda e: None, "got NoneType"),
    "integer": (lambda e: int.from_bytes(e, "big"), "got int"),
    "list-of-ints": (lambda e: list(e), "got list"),
}
OFF_CURVE: dict[str, tuple[Bad, str]] = {
    "off-curve-02": (lambda e: b"\x02" + OFF_CURVE_X.to_bytes(32, "big"), "not on secp256k1"),
    "off-curve-03": (lambda e: b"\x03" + OFF_CURVE_X.to_bytes(32, "big"), "not on secp256k1"),
    # the field's own x with a few low bits flipped: the nearest x that has no point
    "off-curve-near": (lambda e: _near_off_curve(e), "not on secp256k1"),
}
ALL_BAD = {**IDENTITY_FORMS, **NON_CANONICAL, **OFF_CURVE}


def _point_x1() -> tuple[int, int]:
    y = pow(ON_CURVE_X**3 + 7, (P + 1) // 4, P)
    return ON_CURVE_X, y


def _near_off_curve(enc: bytes) -> bytes:
    x = int.from_bytes(enc[1:], "big")
    for delta in range(1, 64):
        cand = x ^ delta
        if cand < P and pow((cand**3 + 7) % P, (P - 1) // 2, P) == P - 1:
            return enc[:1] + cand.to_bytes(32, "big")
    raise AssertionError("no off-curve neighbour")  # pragma: no cover - 2^-63


def test_the_catalogue_itself() -> None:
    """Each bad value is what its name says: the alias decodes to a real point once reduced,
    the uncompressed form is that of a real point, and the off-curve x have no point."""
    real = point_from_xy(*_point_x1())
    alias = NON_CANONICAL["x-plus-p-alias"][0](b"")
    assert isinstance(alias, bytes) and len(alias) == 33 and alias[0] in (2, 3)
    reduced = alias[:1] + (int.from_bytes(alias[1:], "big") - P).to_bytes(32, "big")
    assert decode_point(reduced) == real
    genuine = g().encode()
    assert _uncompressed(genuine)[1:33] == genuine[1:]
    assert IDENTITY.encode() == bytes(33)
    assert (g() - g()).is_identity  # the arithmetic layer makes it; the wire never carries it


@pytest.mark.parametrize("case", sorted(ALL_BAD))
def test_decode_point_refuses(case: str) -> None:
    make, reason = ALL_BAD[case]
    with pytest.raises(InvalidPoint, match=rf"^the field: .*{reason}"):
        decode_point(make(g().encode()), "the field")


# ---------------------------------------------------------------- no proof work may start


class ProofReached(AssertionError):
    """Raised by the trap when a group operation or a Fiat-Shamir transcript starts."""


@pytest.fixture
def trap(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], None]]:
    """``trap()`` arms it: from then on any libsecp256k1 combine / multiply / negate (every
    point operation of group.py) or any Transcript raises :class:`ProofReached`. Decoding a
    point (a parse) stays allowed."""

    def boom(*_args: Any, **_kw: Any) -> Any:
        raise ProofReached("proof arithmetic reached")

    def arm() -> None:
        for name in ("_combine", "_tweak_mul", "_negate"):
            monkeypatch.setattr(group, name, boom)
        monkeypatch.setattr(transcript.Transcript, "__init__", boom)

    yield arm


# ---------------------------------------------------------------- real messages


@pytest.fixture(scope="module")
def table() -> SimTable:
    t = SimTable(2, table_id=b"group-elements", hand=3)
    t.setup_keys()
    t.shuffle_all()
    for p in range(4):
        t.deal(p, p % 2)
    return t


Receiver = Callable[[Any], object]


def _receivers(t: SimTable) -> dict[str, tuple[Any, Receiver]]:
    """kind -> (genuine wire payload, the receiver's whole path: decode, then verify)."""
    assert t.y is not None
    y = t.y
    deck0 = initial_deck(y)
    p1 = t.players[1]
    commit = KeyCommit.from_wire(wire(p1.commit()))
    batch_pos = [8, 9, 12, 31]
    batch = make_share_batch(p1, batch_pos, t.deck)
    share = t.publish_share(1, 0, "deal")

    def shuffle_one(w: Any) -> object:
        return verify_shuffle_message(t.hctx, y, deck0, ShuffleMessage.from_wire(w), 0)

    def shuffle_round(w: Any) -> object:
        return verify_shuffle_round(t.hctx, y, deck0, [ShuffleMessage.from_wire(w)], [0])

    return {
        "key_reveal": (
            wire(p1.reveal()),
            lambda w: verify_key_reveal(t.hctx, commit, KeyReveal.from_wire(w)),
        ),
        "shuffle": (wire(t.shuffles[0]), shuffle_one),
        "shuffle-batched": (wire(t.shuffles[0]), shuffle_round),
        "share": (
            wire(share),
            lambda w: verify_share(
                t.hctx, t.keys[1], 0, t.deck[0], ShareMessage.from_wire(w), 1, "deal"
            ),
        ),
        "share_batch": (
            wire(batch),
            lambda w: verify_share_batch(
                t.hctx, t.keys[1], t.deck, ShareBatchMessage.from_wire(w), 1, batch_pos
            ),
        ),
    }


WIRE_NAME = {  # what the decoder calls the message in its errors
    "key_reveal": "key_reveal",
    "shuffle": "shuffle",
    "shuffle-batched": "shuffle",
    "share": "share",
    "share_batch": "share_batch",
}
POINT_COUNT = {  # every 33-byte field of each message (a completeness check of the walk)
    "key_reveal": 1,
    "shuffle": 32 * 2 + 32 + 32 + 37,
    "shuffle-batched": 32 * 2 + 32 + 32 + 37,
    "share": 1,
    "share_batch": 4,
}

Path = tuple[str | int, ...]


def point_fields(data: Any, path: Path = ()) -> Iterator[Path]:
    """Every place in a wire payload that holds a 33-byte string (the points; scalars and
    digests are 32 bytes, nonces 32)."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield from point_fields(value, (*path, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from point_fields(value, (*path, i))
    elif isinstance(data, bytes) and len(data) == 33:
        yield path


def field_name(root: str, path: Path) -> str:
    """The name the decoder gives a field: ``shuffle.deck[3].c2``, ``shuffle.proof.t[7]``."""
    out = root
    for i, step in enumerate(path):
        if isinstance(step, str):
            out += f".{step}"
        elif i >= 2 and path[i - 2] == "deck":
            out += f".c{step + 1}"
        else:
            out += f"[{step}]"
    return out


def replaced(data: Any, path: Path, value: object) -> Any:
    """A copy of ``data`` with the field at ``path`` set to ``value``."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(data, dict):
        return {k: replaced(v, rest, value) if k == head else v for k, v in data.items()}
    return [replaced(v, rest, value) if i == head else v for i, v in enumerate(data)]


def get(data: Any, path: Path) -> Any:
    for step in path:
        data = data[step]
    return data


KINDS = sorted(WIRE_NAME)


@pytest.mark.parametrize("kind", KINDS)
def test_genuine_message_passes_and_the_trap_is_live(
    table: SimTable, kind: str, trap: Callable[[], None]
) -> None:
    """Control: the untampered message verifies; and with the trap armed it does trip it, so
    a refusal under the trap really happened before any proof work."""
    data, receive = _receivers(table)[kind]
    assert len(list(point_fields(data))) == POINT_COUNT[kind]
    receive(data)
    trap()
    with pytest.raises(ProofReached):
        receive(data)


CLASSES = {"identity": IDENTITY_FORMS, "non-canonical": NON_CANONICAL, "off-curve": OFF_CURVE}


# The batched shuffle receiver decodes with the same from_wire: the identity forms suffice.
PAIRS = [
    (k, c) for k in KINDS for c in sorted(CLASSES) if k != "shuffle-batched" or c == "identity"
]


@pytest.mark.parametrize(("kind", "cls"), PAIRS)
def test_every_point_field_refuses_every_bad_encoding_before_any_proof(
    table: SimTable, kind: str, cls: str, trap: Callable[[], None]
) -> None:
    data, receive = _receivers(table)[kind]
    fields = list(point_fields(data))
    assert len(fields) == POINT_COUNT[kind]
    bad_values = {
        (path, case): make(get(data, path))
        for path in fields
        for case, (make, _) in CLASSES[cls].items()
    }
    trap()
    for (path, case), value in bad_values.items():
        name = field_name(WIRE_NAME[kind], path)
        reason = CLASSES[cls][case][1]
        with pytest.raises(InvalidPoint) as err:
            receive(replaced(data, path, value))
        message = str(err.value)
        assert message.startswith(f"{name}: "), f"{case} at {name}: {message}"
        assert reason in message, f"{case} at {name}: {message}"


# ---------------------------------------------------------------- writing the identity


def _identity_variants(t: SimTable) -> Iterator[tuple[str, Any]]:
    """(field name, message with G - G in that field) for every point field of every kind."""
    zero = g() - g()
    assert zero.is_identity
    p1 = t.players[1]
    reveal = p1.reveal()
    yield "key_reveal.y", dataclasses.replace(reveal, y=zero)
    share = t.publish_share(1, 0, "deal")
    yield "share.share", dataclasses.replace(share, share=zero)
    batch = make_share_batch(p1, [8, 9, 12, 31], t.deck)
    for i in range(len(batch.shares)):
        shares = list(batch.shares)
        shares[i] = zero
        yield f"share_batch.shares[{i}]", dataclasses.replace(batch, shares=tuple(shares))
    msg = t.shuffles[0]
    for i in (0, 17, 31):
        for half in ("c1", "c2"):
            deck = list(msg.deck)
            deck[i] = dataclasses.replace(deck[i], **{half: zero})
            yield f"shuffle.deck[{i}].{half}", dataclasses.replace(msg, deck=tuple(deck))
    for part in ("pcommit", "chain", "t"):
        points = getattr(msg.proof, part)
        for i in (0, 4, 5, len(points) - 1):
            changed = list(points)
            changed[i] = zero
            proof = dataclasses.replace(msg.proof, **{part: tuple(changed)})
            yield f"shuffle.proof.{part}[{i}]", dataclasses.replace(msg, proof=proof)


def test_a_message_holding_the_identity_cannot_be_written(table: SimTable) -> None:
    """``to_wire`` of any message with G - G in a point field raises, naming the field: no 33
    zero bytes (or anything else) are produced."""
    seen = 0
    for name, message in _identity_variants(table):
        with pytest.raises(InvalidPoint, match=rf"^{re.escape(name)}: the identity has no wire"):
            message.to_wire()
        seen += 1
    assert seen == 2 + 4 + 6 + 12
    with pytest.raises(InvalidPoint, match=r"^deck\[0\]\.c2: the identity"):
        Ciphertext(g(), IDENTITY).to_wire("deck[0]")
    with pytest.raises(InvalidPoint, match=r"^point: the identity has no wire encoding"):
        encode_point(g() * 0)
    assert encode_point(g()) == g().encode()  # a real point: the compressed encoding


def test_the_identity_in_a_built_message_is_refused_by_the_verifier_before_any_proof(
    table: SimTable, trap: Callable[[], None]
) -> None:
    """Defence in depth for code that hands the verifiers objects, not bytes: the identity
    (from G - G) in a statement point is refused with ProofError before any group operation."""
    t = table
    assert t.y is not None
    zero = g() - g()
    variants = dict(_identity_variants(t))
    p1 = t.players[1]
    commit = p1.commit()
    deck0 = initial_deck(t.y)
    trap()
    with pytest.raises(ProofError, match="identity"):
        verify_key_reveal(t.hctx, commit, variants["key_reveal.y"])
    with pytest.raises(ProofError, match="does not verify"):  # verify_dleq: identity refused
        verify_share(t.hctx, t.keys[1], 0, t.deck[0], variants["share.share"], 1, "deal")
    for i in range(4):
        with pytest.raises(ProofError, match="bad share list"):
            verify_share_batch(
                t.hctx, t.keys[1], t.deck, variants[f"share_batch.shares[{i}]"], 1, [8, 9, 12, 31]
            )
    for name, msg in variants.items():
        if name.startswith("shuffle."):
            with pytest.raises(ProofError, match="identity point"):
                verify_shuffle_message(t.hctx, t.y, deck0, msg, 0)
            with pytest.raises(ProofError, match="identity point"):
                verify_shuffle_round(t.hctx, t.y, deck0, [msg], [0])
    with pytest.raises(ProofError, match="identity point"):  # the input deck too
        verify_shuffle_message(t.hctx, t.y, [Ciphertext(zero, g()), *deck0[1:]], t.shuffles[0], 0)
    with pytest.raises(ProofError, match="identity point"):  # and the joint key
        verify_shuffle_message(t.hctx, zero, deck0, t.shuffles[0], 0)


# ---------------------------------------------------------------- messages without points


def test_messages_without_points_carry_none(table: SimTable) -> None:
    """The key commitment (a hash) and the non-membership proof (scalars only; its statement
    points are the verified key share, deck and shares the receiver already holds) have no
    point field: nothing of theirs is decoded as a point, so nothing can reach a proof."""
    t = table
    commit = wire(t.players[0].commit())
    pos = 0  # dealt to seat 0
    card = t.known[pos]
    forbidden = sorted({(card + 1) % 32, (card + 2) % 32})
    nm = make_nonmembership(t.players[0], pos, t.deck[pos], t.others_sum(pos), forbidden, "play/9")
    data = wire(nm)

    def leaves(x: Any) -> Iterator[object]:
        if isinstance(x, dict):
            for v in x.values():
                yield from leaves(v)
        elif isinstance(x, list):
            for v in x:
                yield from leaves(v)
        else:
            yield x

    for payload in (commit, data):
        blobs = [b for b in leaves(payload) if isinstance(b, bytes)]
        assert blobs and all(len(b) == 32 for b in blobs)
        assert not list(point_fields(payload))
    msg = NonMembershipMessage.from_wire(data)
    assert not any(isinstance(v, group.Point) for v in dataclasses.astuple(msg))
    verify_nonmembership_message(
        t.hctx, t.keys[0], pos, t.deck[pos], t.others_sum(pos), forbidden, msg, 0, "play/9"
    )
    assert KeyCommit.from_wire(commit).seat == 0
