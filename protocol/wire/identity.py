"""Identity keys: every peer is an Ed25519 key pair (``cryptography``).

* :class:`IdentityKey` holds the private key and signs.
* :class:`PeerId` is the 32-byte public key: it names a peer, verifies its signatures and has a
  short human-readable :attr:`PeerId.fingerprint` used in invite codes.

Fingerprint: the first 15 bytes (120 bits) of SHA-256 of the 32 public-key bytes, in RFC 4648
base32 (alphabet ``A-Z2-7``, no padding), in six groups of four characters joined by ``-``, e.g.
``MZXW-6YTB-OI3D-EMRT-GQZD-KNRW``. 120 bits keep a second-preimage attack (making a key with a
given fingerprint) far out of reach while the code stays short enough to read aloud; 15 bytes are
exactly 24 base32 characters, so no padding and even groups. :func:`parse_fingerprint` accepts
lower case, spaces and missing dashes.

A :class:`PeerId` is only built from a valid, canonical Ed25519 point that is not of small order:
a small-order key would let anyone forge "signatures" that verify under it.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from dealerless.protocol.wire.errors import BadSignature

__all__ = [
    "FINGERPRINT_BYTES",
    "IdentityKey",
    "PeerId",
    "fingerprint_of",
    "parse_fingerprint",
]

PUBLIC_KEY_BYTES = 32
SIGNATURE_BYTES = 64
FINGERPRINT_BYTES = 15


def fingerprint_of(public_key: bytes) -> str:
    """The grouped base32 fingerprint of 32 public-key bytes (see the module docstring)."""
    digest = hashlib.sha256(public_key).digest()[:FINGERPRINT_BYTES]
    text = base64.b32encode(digest).decode("ascii")
    return "-".join(text[i : i + 4] for i in range(0, len(text), 4))


def parse_fingerprint(text: str) -> bytes:
    """The 15 fingerprint bytes of a typed fingerprint (case, spaces and dashes are ignored).

    Raises ``ValueError`` saying what is wrong.
    """
    cleaned = "".join(ch for ch in text.upper() if ch != "-" and not ch.isspace())
    if len(cleaned) != 24:
        raise ValueError(f"a fingerprint has 24 base32 characters, got {len(cleaned)}")
    try:
        return base64.b32decode(cleaned, casefold=False)
    except ValueError:
        raise ValueError("a fingerprint uses only the letters A-Z and digits 2-7") from None


# --- Ed25519 point checks (RFC 8032, section 5.1.3) ---------------------------------------------

_P = 2**255 - 19
_D = (-121665 * pow(121666, _P - 2, _P)) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)


def _decode_point(data: bytes) -> tuple[int, int] | None:
    """Affine (x, y) of a canonical encoded point, or None if it is not one."""
    y = int.from_bytes(data, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    if y >= _P:
        return None
    u = (y * y - 1) % _P
    v = (_D * y * y + 1) % _P
    x = (u * pow(v, 3, _P) * pow(u * pow(v, 7, _P), (_P - 5) // 8, _P)) % _P
    vxx = (v * x * x) % _P
    if vxx == u:
        pass
    elif vxx == (-u) % _P:
        x = (x * _SQRT_M1) % _P
    else:
        return None
    if x == 0 and sign:
        return None
    if x & 1 != sign:
        x = _P - x
    return x, y


def _double(point: tuple[int, int]) -> tuple[int, int]:
    x, y = point
    t = (_D * x * x * y * y) % _P
    x3 = (2 * x * y) * pow(1 + t, _P - 2, _P) % _P
    y3 = (y * y + x * x) * pow(1 - t, _P - 2, _P) % _P
    return x3, y3


@functools.lru_cache(maxsize=1024)
def _key_problem(data: bytes) -> str | None:
    """Why these bytes are not an acceptable public key, or None if they are (cached: a table
    sees few keys, and the check costs about a millisecond)."""
    if len(data) != PUBLIC_KEY_BYTES:
        return f"a public key is {PUBLIC_KEY_BYTES} bytes, got {len(data)}"
    point = _decode_point(data)
    if point is None:
        return "not a canonical Ed25519 point"
    for _ in range(3):
        point = _double(point)
    if point == (0, 1):
        return "a small-order Ed25519 point"
    return None


class PeerId:
    """A peer's 32-byte Ed25519 public key. Immutable, hashable, ordered by its bytes."""

    __slots__ = ("_key", "_raw")

    def __init__(self, raw: bytes) -> None:
        raw = bytes(raw)
        problem = _key_problem(raw)
        if problem is not None:
            raise BadSignature(f"author key: {problem}")
        self._raw = raw
        self._key = Ed25519PublicKey.from_public_bytes(raw)

    @property
    def raw(self) -> bytes:
        return self._raw

    def __bytes__(self) -> bytes:
        return self._raw

    @property
    def fingerprint(self) -> str:
        return fingerprint_of(self._raw)

    def matches_fingerprint(self, text: str) -> bool:
        """True if ``text`` (as typed by a person) is this key's fingerprint."""
        try:
            want = parse_fingerprint(text)
        except ValueError:
            return False
        return hmac.compare_digest(want, hashlib.sha256(self._raw).digest()[:FINGERPRINT_BYTES])

    def verify(self, signature: bytes, data: bytes) -> None:
        """Raise :class:`BadSignature` unless ``signature`` is this key's signature of ``data``."""
        if len(signature) != SIGNATURE_BYTES:
            raise BadSignature(f"signature must be {SIGNATURE_BYTES} bytes, got {len(signature)}")
        try:
            self._key.verify(signature, data)
        except InvalidSignature:
            raise BadSignature(f"signature does not verify for author {self.fingerprint}") from None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PeerId) and other._raw == self._raw

    def __lt__(self, other: PeerId) -> bool:
        return self._raw < other._raw

    def __hash__(self) -> int:
        return hash(self._raw)

    def __repr__(self) -> str:
        return f"PeerId({self.fingerprint})"


class IdentityKey:
    """A peer's private Ed25519 key."""

    __slots__ = ("_key", "_peer")

    def __init__(self, key: Ed25519PrivateKey) -> None:
        self._key = key
        public = key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        self._peer = PeerId(public)

    @classmethod
    def generate(cls) -> IdentityKey:
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_private_bytes(cls, seed: bytes) -> IdentityKey:
        """Load from the 32-byte RFC 8032 private key (seed). Raises ``ValueError``."""
        if len(seed) != 32:
            raise ValueError(f"an Ed25519 private key is 32 bytes, got {len(seed)}")
        return cls(Ed25519PrivateKey.from_private_bytes(seed))

    def private_bytes(self) -> bytes:
        """The 32-byte seed (keep it secret; store it with owner-only permissions)."""
        return self._key.private_bytes(
            serialization.Encoding.Raw,
            serialization.PrivateFormat.Raw,
            serialization.NoEncryption(),
        )

    @property
    def peer_id(self) -> PeerId:
        return self._peer

    def sign(self, data: bytes) -> bytes:
        """The 64-byte Ed25519 signature of ``data``."""
        return self._key.sign(data)

    def __repr__(self) -> str:
        return f"IdentityKey({self._peer.fingerprint})"
