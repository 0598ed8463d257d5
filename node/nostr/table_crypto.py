"""What the invite's secret gives a table on Nostr: the tag it is found by, and the key its
event contents are sealed under (ChaCha20-Poly1305), padded to power-of-two buckets so that a
relay learns only a coarse size. See spec/transport.md, "Nostr"."""

from __future__ import annotations

import base64
import binascii
import secrets
import struct

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

__all__ = ["MIN_BUCKET", "SealError", "TableKeys", "bucket_for", "content_length"]

LABEL = b"dealerless/nostr/v2"  # v2: batch bodies (spec/transport.md §8)
NONCE = 12
TAG = 16
MIN_BUCKET = 256
MAX_BUCKET = 1 << 18
_LENGTH = struct.Struct(">I")


class SealError(ValueError):
    """Content that does not open under the table key (a stranger's, or damaged)."""


def content_length(bucket: int) -> int:
    """Characters of base64 content for a plaintext bucket of ``bucket`` bytes."""
    return 4 * ((NONCE + bucket + TAG + 2) // 3)


def bucket_for(size: int) -> int:
    """The smallest bucket holding ``size`` bytes of body (after the length prefix)."""
    bucket = MIN_BUCKET
    while bucket < size + _LENGTH.size:
        bucket *= 2
    return bucket


def largest_bucket(max_content: int) -> int:
    """The largest bucket whose sealed content fits in ``max_content`` characters."""
    bucket = MIN_BUCKET
    while bucket * 2 <= MAX_BUCKET and content_length(bucket * 2) <= max_content:
        bucket *= 2
    return bucket


def _derive(secret: bytes, info: bytes, size: int) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=size, salt=LABEL, info=info).derive(secret)


class TableKeys:
    """The tag and content key of one table, from the invite's secret and the table id."""

    def __init__(self, secret: bytes, table_id: bytes) -> None:
        if len(secret) < 16:
            raise ValueError("a table secret has at least 128 bits")
        self.tag = _derive(secret, b"tag" + table_id, 16).hex()
        self._aead = ChaCha20Poly1305(_derive(secret, b"key" + table_id, 32))

    @staticmethod
    def _aad(pubkey: str, kind: int) -> bytes:
        # Bound to the author's key and the kind: a sealed body cannot be re-sent by another key
        # or moved between the stored and the ephemeral kinds.
        return LABEL + bytes.fromhex(pubkey) + struct.pack(">H", kind)

    def seal(self, body: bytes, pubkey: str, kind: int, bucket: int | None = None) -> str:
        size = bucket_for(len(body)) if bucket is None else bucket
        if len(body) + _LENGTH.size > size:
            raise ValueError("body does not fit the bucket")
        padded = _LENGTH.pack(len(body)) + body + bytes(size - len(body) - _LENGTH.size)
        nonce = secrets.token_bytes(NONCE)
        sealed = nonce + self._aead.encrypt(nonce, padded, self._aad(pubkey, kind))
        return base64.b64encode(sealed).decode("ascii")

    def open(self, content: str, pubkey: str, kind: int) -> bytes:
        try:
            sealed = base64.b64decode(content, validate=True)
        except (binascii.Error, ValueError):
            raise SealError("content is not base64") from None
        if len(sealed) < NONCE + TAG + _LENGTH.size:
            raise SealError("content too short")
        try:
            padded = self._aead.decrypt(sealed[:NONCE], sealed[NONCE:], self._aad(pubkey, kind))
        except InvalidTag:
            raise SealError("content does not open under the table key") from None
        (length,) = _LENGTH.unpack_from(padded)
        if length > len(padded) - _LENGTH.size:
            raise SealError("bad padded length")
        return padded[_LENGTH.size : _LENGTH.size + length]
