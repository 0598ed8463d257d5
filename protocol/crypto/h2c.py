"""RFC 9380 hash-to-curve for secp256k1: suite ``secp256k1_XMD:SHA-256_SSWU_RO_``.

Pure Python (field arithmetic with ``pow``); only used at start-up to derive the generators and
card points, which are then cached. Implements expand_message_xmd (SHA-256), hash_to_field
(m = 1, L = 48, count = 2), the simplified SWU map onto the isogenous curve
E': y^2 = x^3 + A'x + B' (Z = -11) and the 3-isogeny back to secp256k1 (RFC 9380 E.1, 8.7).
Checked against the RFC 9380 appendix J.8.1 vectors in tests/crypto and spec/vectors/crypto.
"""

from __future__ import annotations

import hashlib

from .group import P, Point, point_from_xy

SUITE_ID = b"secp256k1_XMD:SHA-256_SSWU_RO_"

_A = 0x3F8731ABDD661ADCA08A5558F0F5D272E953D363CB6F0E5D405447C01A444533
_B = 1771
_Z = P - 11
_L = 48

# 3-isogeny map constants, RFC 9380 appendix E.1 (k_(i,j) is coefficient of x^j).
_XNUM = (
    0x8E38E38E38E38E38E38E38E38E38E38E38E38E38E38E38E38E38E38DAAAAA8C7,
    0x07D3D4C80BC321D5B9F315CEA7FD44C5D595D2FC0BF63B92DFFF1044F17C6581,
    0x534C328D23F234E6E2A413DECA25CAECE4506144037C40314ECBD0B53D9DD262,
    0x8E38E38E38E38E38E38E38E38E38E38E38E38E38E38E38E38E38E38DAAAAA88C,
)
_XDEN = (
    0xD35771193D94918A9CA34CCBB7B640DD86CD409542F8487D9FE6B745781EB49B,
    0xEDADC6F64383DC1DF7C4B2D51B54225406D36B641F5E41BBC52A56612A8C6D14,
    1,
)
_YNUM = (
    0x4BDA12F684BDA12F684BDA12F684BDA12F684BDA12F684BDA12F684B8E38E23C,
    0xC75E0C32D5CB7C0FA9D0A54B12A0A6D5647AB046D686DA6FDFFC90FC201D71A3,
    0x29A6194691F91A73715209EF6512E576722830A201BE2018A765E85A9ECEE931,
    0x2F684BDA12F684BDA12F684BDA12F684BDA12F684BDA12F684BDA12F38E38D84,
)
_YDEN = (
    0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFF93B,
    0x7A06534BB8BDB49FD5E9E6632722C2989467C1BFC8E8D978DFB425D2685C2573,
    0x6484AA716545CA2CF3A70C3FA8FE337E0A3D21162F0D6299A7BF8192BFD2A76F,
    1,
)


def expand_message_xmd(msg: bytes, dst: bytes, len_in_bytes: int) -> bytes:
    """RFC 9380 section 5.3.1 with H = SHA-256 (b_in_bytes 32, s_in_bytes 64)."""
    if len(dst) > 255:
        raise ValueError("DST longer than 255 bytes")
    ell = -(-len_in_bytes // 32)
    if ell > 255 or len_in_bytes > 65535:
        raise ValueError("len_in_bytes too large")
    dst_prime = dst + bytes([len(dst)])
    msg_prime = bytes(64) + msg + len_in_bytes.to_bytes(2, "big") + b"\x00" + dst_prime
    b0 = hashlib.sha256(msg_prime).digest()
    b = hashlib.sha256(b0 + b"\x01" + dst_prime).digest()
    out = [b]
    for i in range(2, ell + 1):
        x = bytes(u ^ v for u, v in zip(b0, b, strict=True))
        b = hashlib.sha256(x + bytes([i]) + dst_prime).digest()
        out.append(b)
    return b"".join(out)[:len_in_bytes]


def hash_to_field(msg: bytes, dst: bytes, count: int = 2) -> list[int]:
    """RFC 9380 section 5.2 for GF(p), m = 1, L = 48."""
    uniform = expand_message_xmd(msg, dst, count * _L)
    return [int.from_bytes(uniform[i * _L : (i + 1) * _L], "big") % P for i in range(count)]


def _inv0(x: int) -> int:
    return pow(x, P - 2, P)


def _is_square(x: int) -> bool:
    return x == 0 or pow(x, (P - 1) // 2, P) == 1


def _sqrt(x: int) -> int:
    return pow(x, (P + 1) // 4, P)  # p = 3 mod 4


def map_to_curve_sswu(u: int) -> tuple[int, int]:
    """Simplified SWU onto E' (RFC 9380 section 6.6.2, straight-line version)."""
    u2 = u * u % P
    tv1 = _inv0((_Z * _Z * u2 * u2 + _Z * u2) % P)
    x1 = _B * _inv0(_Z * _A) % P if tv1 == 0 else -_B * _inv0(_A) * (1 + tv1) % P
    gx1 = (x1 * x1 * x1 + _A * x1 + _B) % P
    if _is_square(gx1):
        x, y = x1, _sqrt(gx1)
    else:
        x = _Z * u2 * x1 % P
        y = _sqrt((x * x * x + _A * x + _B) % P)
    if (u & 1) != (y & 1):
        y = P - y if y else 0
    return x, y


def _poly(coeffs: tuple[int, ...], x: int) -> int:
    acc = 0
    for c in reversed(coeffs):
        acc = (acc * x + c) % P
    return acc


def iso_map(x: int, y: int) -> tuple[int, int] | None:
    """3-isogeny E' -> secp256k1 (RFC 9380 E.1); ``None`` for the exceptional identity case."""
    xd = _poly(_XDEN, x)
    yd = _poly(_YDEN, x)
    if xd == 0 or yd == 0:
        return None
    return _poly(_XNUM, x) * _inv0(xd) % P, y * _poly(_YNUM, x) * _inv0(yd) % P


def map_to_curve(u: int) -> Point:
    q = iso_map(*map_to_curve_sswu(u))
    return Point.IDENTITY if q is None else point_from_xy(*q)


def hash_to_curve(msg: bytes, dst: bytes) -> Point:
    """``hash_to_curve`` of RFC 9380 section 3 (random-oracle encoding, cofactor 1)."""
    u0, u1 = hash_to_field(msg, dst, 2)
    return map_to_curve(u0) + map_to_curve(u1)
