"""Error hierarchy of the mental-poker deck.

Every error is a ``ValueError`` so callers that treat bad peer input generically keep working;
the subclasses say precisely what failed.
"""

from __future__ import annotations


class CryptoError(ValueError):
    """Base class for every failure raised by ``dealerless.protocol.crypto``."""


class DecodeError(CryptoError):
    """A wire payload is malformed (type, length, count, range)."""


class InvalidPoint(DecodeError):
    """Bytes are not the compressed encoding of a non-identity secp256k1 point."""


class InvalidScalar(DecodeError):
    """An integer is not a scalar in the allowed range."""


class ProofError(CryptoError):
    """A zero-knowledge proof does not verify (wrong statement, context or tampered)."""


class CommitmentError(CryptoError):
    """A revealed value does not match its earlier commitment."""


class NotACard(CryptoError):
    """A decrypted point is not one of the 32 card points."""
