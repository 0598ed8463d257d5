"""The secp256k1 group through libsecp256k1 (coincurve's cffi bindings).

This module reaches libsecp256k1 through coincurve's *private* binding (``_libsecp256k1``,
``GLOBAL_CONTEXT``): coincurve's public ``PublicKey`` API costs 12 % on a 4-player hand
setup and 22 % on non-membership proofs (no negation, no raw combine), measured with
``dealerless bench crypto`` (spec/crypto.md §13). So the dependency is pinned to the minor
version tested, and importing this module checks the binding and names the problem.

Points live in libsecp256k1's internal ``secp256k1_pubkey`` struct, so every operation is one
C call. libsecp256k1 cannot represent the point at infinity, so :class:`Point` carries it
explicitly (``Point.IDENTITY``, internal value ``None``); sums that cancel, ``0 * P`` and
``k * IDENTITY`` all give the identity. The identity is never accepted from the wire:
:func:`decode_point` rejects it together with any malformed or off-curve encoding.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Sequence
from operator import add as _add
from typing import Any

from .errors import InvalidPoint, InvalidScalar

#: The coincurve releases this module was measured and tested with (spec/crypto.md §13):
#: it uses coincurve's private libsecp256k1 binding, which a coincurve release may change or
#: remove, so pyproject.toml pins this minor version and start-up checks it.
TESTED_COINCURVE = "21.0"
_NEEDED = (
    "secp256k1_ec_pubkey_combine",
    "secp256k1_ec_pubkey_tweak_mul",
    "secp256k1_ec_pubkey_negate",
    "secp256k1_ec_pubkey_serialize",
    "secp256k1_ec_pubkey_parse",
)


class CoincurveMismatch(ImportError):
    """The installed coincurve lacks the private binding this module uses."""


def _load_binding() -> tuple[Any, Any, Any]:
    try:
        from coincurve._libsecp256k1 import ffi, lib
        from coincurve.context import GLOBAL_CONTEXT

        missing = [name for name in _NEEDED if not hasattr(lib, name)]
        context = GLOBAL_CONTEXT.ctx
    except (ImportError, AttributeError) as exc:
        missing, context, ffi, lib = [str(exc)], None, None, None
    if missing:
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = f"coincurve {version('coincurve')} is installed"
        except PackageNotFoundError:
            found = "coincurve is not installed"
        raise CoincurveMismatch(
            f"dealerless needs coincurve {TESTED_COINCURVE}.x (it uses coincurve's "
            f"libsecp256k1 binding: {', '.join(missing)} missing); {found}. "
            f"Install it with: pip install 'coincurve>={TESTED_COINCURVE},<21.1'"
        )
    return ffi, lib, context


ffi, lib, _CTX = _load_binding()

#: Order of the secp256k1 group (scalars are integers mod N).
N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
#: Field prime of secp256k1.
P = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F

POINT_BYTES = 33
SCALAR_BYTES = 32
_IDENTITY_BYTES = bytes(POINT_BYTES)

_COMPRESSED = lib.SECP256K1_EC_COMPRESSED
_UNCOMPRESSED = lib.SECP256K1_EC_UNCOMPRESSED
_new = ffi.new
_combine = lib.secp256k1_ec_pubkey_combine
_tweak_mul = lib.secp256k1_ec_pubkey_tweak_mul
_negate = lib.secp256k1_ec_pubkey_negate
_serialize = lib.secp256k1_ec_pubkey_serialize
_parse = lib.secp256k1_ec_pubkey_parse


def _copy(raw: Any) -> Any:
    return _new("secp256k1_pubkey *", raw[0])


def _mul_raw(raw: Any, k: int) -> Any:
    """``k * raw`` for 0 < k < N (caller guarantees the range)."""
    out = _new("secp256k1_pubkey *", raw[0])
    if not _tweak_mul(_CTX, out, k.to_bytes(32, "big")):
        raise AssertionError("tweak_mul failed on a valid scalar")
    return out


class Point:
    """A secp256k1 point; ``Point.IDENTITY`` is the neutral element (never sent on the wire)."""

    __slots__ = ("_enc", "_raw")
    IDENTITY: Point

    def __init__(self, raw: Any) -> None:
        self._raw = raw
        self._enc: bytes | None = None

    @property
    def is_identity(self) -> bool:
        return self._raw is None

    def encode(self) -> bytes:
        """33-byte compressed SEC1 encoding; the identity encodes as 33 zero bytes.

        This is the transcript (and hashing) encoding: the zero bytes only ever appear inside
        hash transcripts. Messages are written with :func:`encode_point`, which refuses the
        identity, and :func:`decode_point` refuses it too, so it never crosses the wire.
        """
        enc = self._enc
        if enc is None:
            if self._raw is None:
                enc = _IDENTITY_BYTES
            else:
                buf = _new("unsigned char[33]")
                size = _new("size_t *", 33)
                _serialize(_CTX, buf, size, self._raw, _COMPRESSED)
                enc = bytes(buf)
            self._enc = enc
        return enc

    def xy(self) -> tuple[int, int]:
        """Affine coordinates (for test vectors); the identity has none."""
        if self._raw is None:
            raise InvalidPoint("the identity has no affine coordinates")
        buf = _new("unsigned char[65]")
        size = _new("size_t *", 65)
        _serialize(_CTX, buf, size, self._raw, _UNCOMPRESSED)
        b = bytes(buf)
        return int.from_bytes(b[1:33], "big"), int.from_bytes(b[33:], "big")

    def __add__(self, other: Point) -> Point:
        a, b = self._raw, other._raw
        if a is None:
            return other
        if b is None:
            return self
        out = _new("secp256k1_pubkey *")
        if _combine(_CTX, out, _new("secp256k1_pubkey *[2]", [a, b]), 2):
            return Point(out)
        return IDENTITY

    def __neg__(self) -> Point:
        if self._raw is None:
            return self
        out = _copy(self._raw)
        _negate(_CTX, out)
        return Point(out)

    def __sub__(self, other: Point) -> Point:
        return self + (-other)

    def __mul__(self, k: int) -> Point:
        k %= N
        if k == 0 or self._raw is None:
            return IDENTITY
        return Point(_mul_raw(self._raw, k))

    __rmul__ = __mul__

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Point):
            return NotImplemented
        return self.encode() == other.encode()

    def __hash__(self) -> int:
        return hash(self.encode())

    def __repr__(self) -> str:
        return "Point(identity)" if self._raw is None else f"Point({self.encode().hex()})"


IDENTITY = Point(None)
Point.IDENTITY = IDENTITY


def decode_point(data: object, what: str = "point") -> Point:
    """Strictly decode a compressed point received from a peer.

    Rejects: non-bytes, length != 33, prefix other than 02/03, x >= p, x not on the curve,
    and therefore the identity (which has no compressed encoding).
    """
    if not isinstance(data, bytes | bytearray):
        raise InvalidPoint(f"{what}: expected {POINT_BYTES} bytes, got {type(data).__name__}")
    if len(data) != POINT_BYTES:
        raise InvalidPoint(f"{what}: expected {POINT_BYTES} bytes, got {len(data)}")
    if data[0] not in (2, 3):
        raise InvalidPoint(f"{what}: bad prefix 0x{data[0]:02x} (identity or not compressed)")
    if int.from_bytes(data[1:], "big") >= P:
        raise InvalidPoint(f"{what}: x coordinate not reduced mod p")
    raw = _new("secp256k1_pubkey *")
    if not _parse(_CTX, raw, bytes(data), POINT_BYTES):
        raise InvalidPoint(f"{what}: x coordinate is not on secp256k1")
    pt = Point(raw)
    pt._enc = bytes(data)
    return pt


def encode_point(p: Point, what: str = "point") -> bytes:
    """The wire encoding of ``p`` (33-byte compressed SEC1), for a message field ``what``.

    The identity has no wire encoding (spec/crypto.md §1): a message holding one (``G - G``,
    ``0 * P``) raises :class:`InvalidPoint` naming the field instead of producing bytes.
    """
    if p._raw is None:
        raise InvalidPoint(f"{what}: the identity has no wire encoding")
    return p.encode()


def point_from_xy(x: int, y: int) -> Point:
    """Build a point from affine coordinates (checked to be on the curve)."""
    if not (0 <= x < P and 0 <= y < P) or (y * y - x * x * x - 7) % P != 0:
        raise InvalidPoint("coordinates are not on secp256k1")
    raw = _new("secp256k1_pubkey *")
    data = b"\x04" + x.to_bytes(32, "big") + y.to_bytes(32, "big")
    if not _parse(_CTX, raw, data, 65):
        raise InvalidPoint("coordinates rejected by libsecp256k1")
    return Point(raw)


def sum_points(points: Iterable[Point]) -> Point:
    """Sum of many points in one libsecp256k1 call (identity terms are skipped)."""
    raws = [p._raw for p in points if p._raw is not None]
    if not raws:
        return IDENTITY
    if len(raws) == 1:
        return Point(raws[0])
    out = _new("secp256k1_pubkey *")
    if _combine(_CTX, out, _new("secp256k1_pubkey *[]", raws), len(raws)):
        return Point(out)
    return IDENTITY


def msm(scalars: Sequence[int], points: Sequence[Point]) -> Point:
    """Multi-scalar multiplication ``sum(k_i * P_i)`` (one mul per distinct base, one combine).

    Repeated bases (e.g. the first shuffle's input, whose c1 are all g) are merged first.
    """
    merged: dict[bytes, list[Any]] = {}
    for k, p in zip(scalars, points, strict=True):
        slot = merged.get(p.encode())
        if slot is None:
            merged[p.encode()] = [k, p]
        else:
            slot[0] += k
    return msm_distinct([k for k, _ in merged.values()], [p for _, p in merged.values()])


def msm_distinct(scalars: Sequence[int], points: Sequence[Point]) -> Point:
    """``sum(k_i * P_i)`` for bases the caller already de-duplicated."""
    raws = []
    for k, p in zip(scalars, points, strict=True):
        k %= N
        if k and p._raw is not None:
            raws.append(_mul_raw(p._raw, k))
    if not raws:
        return IDENTITY
    if len(raws) == 1:
        return Point(raws[0])
    out = _new("secp256k1_pubkey *")
    if _combine(_CTX, out, _new("secp256k1_pubkey *[]", raws), len(raws)):
        return Point(out)
    return IDENTITY


_OFFSETS = tuple(256 * i for i in range(32))


class FixedBase:
    """Precomputed 8-bit window table for a base used very often (the ElGamal base g).

    ``mul(k)`` is one libsecp256k1 combine of at most 32 table entries (~3x faster than a
    generic multiplication). The table (32 x 255 points, ~0.5 MB) is built on first use.
    """

    __slots__ = ("_base", "_ptrs", "_table")

    def __init__(self, base: Point) -> None:
        if base.is_identity:
            raise InvalidPoint("fixed base must not be the identity")
        self._base = base
        self._table: Any = None
        self._ptrs: list[Any] = []

    @property
    def point(self) -> Point:
        return self._base

    @property
    def built(self) -> bool:
        return self._table is not None

    def build(self) -> None:
        """Build the table now (~35 ms) rather than on the first ``mul``."""
        if self._table is None:
            self._build()

    def _build(self) -> Any:
        table = _new("secp256k1_pubkey[]", 32 * 255)
        cur = _copy(self._base._raw)
        pair = _new("secp256k1_pubkey *[2]")
        for w in range(32):
            row = w * 255
            table[row] = cur[0]
            pair[1] = cur
            for j in range(1, 255):
                pair[0] = table + (row + j - 1)
                if not _combine(_CTX, table + (row + j), pair, 2):
                    raise AssertionError("window table hit the identity")
            # next window base: 256 * cur = 255 * cur + cur
            nxt = _new("secp256k1_pubkey *")
            pair[0] = table + (row + 254)
            if not _combine(_CTX, nxt, pair, 2):
                raise AssertionError("window table hit the identity")
            cur = nxt
        self._table = table
        # _ptrs[256 * i + b] = b * 256^(31 - i) * base, i = byte position in big-endian order
        ptrs: list[Any] = []
        for i in range(32):
            row = (31 - i) * 255
            ptrs.append(None)
            ptrs.extend(table + (row + j) for j in range(255))
        self._ptrs = ptrs
        return table

    def mul(self, k: int) -> Point:
        k %= N
        if k == 0:
            return IDENTITY
        if self._table is None:
            self._build()
        kb = k.to_bytes(32, "big")
        ptrs = list(map(self._ptrs.__getitem__, map(_add, _OFFSETS, kb)))
        if 0 in kb:  # zero window: no table entry
            ptrs = [p for p in ptrs if p is not None]
        if len(ptrs) == 1:
            return Point(_copy(ptrs[0]))
        out = _new("secp256k1_pubkey *")
        if _combine(_CTX, out, _new("secp256k1_pubkey *[]", ptrs), len(ptrs)):
            return Point(out)
        return IDENTITY  # pragma: no cover - impossible for 0 < k < N


#: Source of randomness: ``randbelow(n)`` uniform in [0, n). Always ``secrets.randbelow`` in
#: play; tests pass a seeded deterministic source to record vectors.
RandBelow = Callable[[int], int]


def random_scalar(rand: RandBelow = secrets.randbelow) -> int:
    """Uniform non-zero scalar (from ``secrets`` unless a test passes ``rand``)."""
    while True:
        k = rand(N)
        if 0 < k < N:
            return k


def random_permutation(n: int, rand: RandBelow = secrets.randbelow) -> list[int]:
    """Fisher-Yates shuffle of ``range(n)`` driven by ``rand``."""
    perm = list(range(n))
    for i in range(n - 1, 0, -1):
        j = rand(i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def encode_scalar(k: int) -> bytes:
    if not 0 <= k < N:
        raise InvalidScalar("scalar out of range")
    return k.to_bytes(SCALAR_BYTES, "big")


def decode_scalar(data: object, what: str = "scalar") -> int:
    """Strict 32-byte big-endian scalar in [0, N)."""
    if not isinstance(data, bytes | bytearray) or len(data) != SCALAR_BYTES:
        raise InvalidScalar(f"{what}: expected {SCALAR_BYTES} bytes")
    k = int.from_bytes(data, "big")
    if k >= N:
        raise InvalidScalar(f"{what}: scalar not reduced mod n")
    return k
