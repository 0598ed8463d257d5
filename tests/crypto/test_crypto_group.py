"""Group arithmetic, strict encodings and RFC 9380 hash-to-curve vectors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealerless.protocol.crypto import generators as gen
from dealerless.protocol.crypto.errors import InvalidPoint, InvalidScalar, NotACard
from dealerless.protocol.crypto.group import (
    IDENTITY,
    FixedBase,
    N,
    P,
    Point,
    decode_point,
    decode_scalar,
    encode_scalar,
    msm,
    random_permutation,
    sum_points,
)
from dealerless.protocol.crypto.h2c import (
    expand_message_xmd,
    hash_to_curve,
    hash_to_field,
    map_to_curve,
)

QUUX = b"QUUX-V01-CS02-with-secp256k1_XMD:SHA-256_SSWU_RO_"

# RFC 9380 appendix J.8.1 (secp256k1_XMD:SHA-256_SSWU_RO_)
RFC_VECTORS = [
    (
        b"",
        "c1cae290e291aee617ebaef1be6d73861479c48b841eaba9b7b5852ddfeb1346",
        "64fa678e07ae116126f08b022a94af6de15985c996c3a91b64c406a960e51067",
    ),
    (
        b"abc",
        "3377e01eab42db296b512293120c6cee72b6ecf9f9205760bd9ff11fb3cb2c4b",
        "7f95890f33efebd1044d382a01b1bee0900fb6116f94688d487c6c7b9c8371f6",
    ),
    (
        b"abcdef0123456789",
        "bac54083f293f1fe08e4a70137260aa90783a5cb84d3f35848b324d0674b0e3a",
        "4436476085d4c3c4508b60fcf4389c40176adce756b398bdee27bca19758d828",
    ),
]


@pytest.mark.parametrize(("msg", "px", "py"), RFC_VECTORS)
def test_rfc9380_hash_to_curve(msg: bytes, px: str, py: str) -> None:
    assert hash_to_curve(msg, QUUX).xy() == (int(px, 16), int(py, 16))


def test_rfc9380_intermediate_values() -> None:
    u = hash_to_field(b"", QUUX)
    assert u == [
        0x6B0F9910DD2BA71C78F2EE9F04D73B5F4C5F7FC773A701ABEA1E573CAB002FB3,
        0x1AE6C212E08FE1A5937F6202F929A2CC8EF4EE5B9782DB68B0D5799FD8F09E16,
    ]
    assert map_to_curve(u[0]).xy() == (
        0x74519EF88B32B425A095E4EBCC84D81B64E9E2C2675340A720BB1A1857B99F1E,
        0xC174FA322AB7C192E11748BEED45B508E9FDB1CE046DEE9C2CD3A2A86B410936,
    )
    assert map_to_curve(u[1]).xy() == (
        0x44548ADB1B399263DED3510554D28B4BEAD34B8CF9A37B4BD0BD2BA4DB87AE63,
        0x96EB8E2FAF05E368EFE5957C6167001760233E6DD2487516B46AE725C4CCE0C6,
    )
    assert hash_to_field(b"abc", QUUX) == [
        0x128AAB5D3679A1F7601E3BDF94CED1F43E491F544767E18A4873F397B08A2B61,
        0x5897B65DA3B595A813D0FDCC75C895DC531BE76A03518B044DAAA0F2E4689E00,
    ]


def test_expand_message_xmd_shape() -> None:
    out = expand_message_xmd(b"abc", QUUX, 96)
    assert len(out) == 96 and out[:32] != out[32:64]
    with pytest.raises(ValueError):
        expand_message_xmd(b"", b"x" * 256, 32)


def test_generators_distinct_and_not_standard_base() -> None:
    std_g = bytes.fromhex("0279BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798")
    pts = [gen.g(), gen.h(), *gen.shuffle_bases(32), *gen.card_points()]
    encs = {p.encode() for p in pts}
    assert len(encs) == len(pts) and std_g not in encs
    for i in range(32):
        assert gen.card_index(gen.card_point(i)) == i
    with pytest.raises(NotACard, match="position 9"):
        gen.card_index(gen.g(), 9)


def test_identity_arithmetic() -> None:
    g = gen.g()
    assert (g + (-g)).is_identity
    assert (g - g) == IDENTITY
    assert (g * 0).is_identity and (g * N).is_identity
    assert (IDENTITY * 5).is_identity
    assert IDENTITY + g == g and g + IDENTITY == g
    assert -IDENTITY == IDENTITY
    assert sum_points([g, -g]).is_identity
    assert sum_points([]).is_identity
    assert msm([1, N - 1], [g, g]).is_identity
    assert g * (N + 3) == g * 3
    with pytest.raises(InvalidPoint):
        decode_point(IDENTITY.encode())


scalars = st.integers(min_value=0, max_value=2 * N)


@settings(max_examples=40, deadline=None)
@given(scalars, scalars)
def test_scalar_mult_is_linear(a: int, b: int) -> None:
    g = gen.g()
    assert g * a + g * b == g * (a + b)
    assert gen.g_table().mul(a) == g * a
    assert msm([a, b], [g, gen.h()]) == g * a + gen.h() * b


def test_fixed_base_edge_scalars() -> None:
    fb = FixedBase(gen.h())
    for k in (1, 2, 255, 256, 257, 2**248, N - 1, N, N + 1):
        assert fb.mul(k) == gen.h() * k
    with pytest.raises(InvalidPoint):
        FixedBase(IDENTITY)


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=0, max_size=40))
def test_decode_point_never_crashes(data: bytes) -> None:
    try:
        p = decode_point(data)
    except InvalidPoint:
        return
    assert p.encode() == data and not p.is_identity


@settings(max_examples=50, deadline=None)
@given(st.binary(min_size=32, max_size=32))
def test_decode_point_random_x(x: bytes) -> None:
    for prefix in (b"\x02", b"\x03"):
        try:
            p = decode_point(prefix + x)
        except InvalidPoint:
            continue
        px, py = p.xy()
        assert (py * py - px**3 - 7) % P == 0


def test_decode_point_rejections() -> None:
    good = gen.g().encode()
    decode_point(good)
    no_sqrt_x = next(
        x for x in range(1, 100) if pow((x**3 + 7) % P, (P - 1) // 2, P) != 1
    )  # x with no point on the curve
    bad = [
        good[:32],
        good + b"\0",
        b"",
        b"\x04" + good[1:],
        b"\x00" + good[1:],
        b"\x05" + good[1:],
        bytes(33),
        b"\x02" + P.to_bytes(32, "big"),
        b"\x02" + b"\xff" * 32,
        b"\x02" + no_sqrt_x.to_bytes(32, "big"),
        "02" + "00" * 32,
        None,
        12,
    ]
    for b in bad:
        with pytest.raises(InvalidPoint):
            decode_point(b)


def test_scalar_encoding() -> None:
    assert decode_scalar(encode_scalar(N - 1)) == N - 1
    for b in (N.to_bytes(32, "big"), b"\xff" * 32, b"\0" * 31, b"\0" * 33, "00" * 32):
        with pytest.raises(InvalidScalar):
            decode_scalar(b)
    with pytest.raises(InvalidScalar):
        encode_scalar(N)


def test_random_permutation() -> None:
    seen = set()
    for _ in range(20):
        p = random_permutation(32)
        assert sorted(p) == list(range(32))
        seen.add(tuple(p))
    assert len(seen) == 20


def test_point_repr_and_hash() -> None:
    g = gen.g()
    assert "identity" in repr(IDENTITY)
    assert hash(g) == hash(Point.IDENTITY + g)


def test_a_coincurve_without_the_binding_is_named_at_start_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The start-up check of protocol/crypto/group.py (spec/crypto.md §13)."""
    import sys

    from dealerless.protocol.crypto import group

    monkeypatch.setitem(sys.modules, "coincurve._libsecp256k1", None)  # import fails
    with pytest.raises(group.CoincurveMismatch, match=r"needs coincurve 21\.0\.x") as caught:
        group._load_binding()
    assert "coincurve 21.0" in str(caught.value) and "pip install" in str(caught.value)
