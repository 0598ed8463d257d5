"""Noise-style symmetric crypto: CipherState and SymmetricState (Noise spec, section 5).

* AEAD: ChaCha20-Poly1305 (RFC 8439); the 96-bit nonce is 4 zero bytes followed by the 64-bit
  counter in little-endian (exactly Noise's ``ChaChaPoly``).
* HKDF: HKDF-SHA256 (RFC 5869) with ``salt = ck`` and empty ``info``, which is bit for bit
  Noise's ``HKDF(ck, ikm, n)``.
* Counters start at 0, increase by one per message and are never sent: a replayed, dropped or
  reordered message is decrypted with the wrong nonce and fails authentication.
* Rekey: every ``rekey_interval`` messages both sides replace ``k`` by
  ``ENCRYPT(k, 2**64 - 1, b"", 32 zero bytes)[:32]`` (Noise ``REKEY``) at the same counter
  value. The counter is not reset, and a cipher refuses to go past ``2**64 - 2`` (hard stop:
  ``2**64 - 1`` is reserved for rekeying), so a (key, nonce) pair is never reused.
"""

from __future__ import annotations

import hashlib

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

__all__ = [
    "KEY_SIZE",
    "MAX_NONCE",
    "TAG_SIZE",
    "CipherState",
    "DecryptError",
    "NonceExhausted",
    "SymmetricState",
    "hkdf",
]

KEY_SIZE = 32
HASH_SIZE = 32
TAG_SIZE = 16
MAX_NONCE = (1 << 64) - 2  # the last counter value a message may use
REKEY_NONCE = (1 << 64) - 1
_ZEROS = bytes(KEY_SIZE)


class DecryptError(Exception):
    """Authentication failed: the ciphertext, its nonce (order) or its associated data is wrong."""


class NonceExhausted(Exception):
    """The 64-bit message counter is used up; the session must end."""


def _nonce(n: int) -> bytes:
    return b"\x00\x00\x00\x00" + n.to_bytes(8, "little")


def hkdf(chaining_key: bytes, ikm: bytes, outputs: int) -> list[bytes]:
    """Noise's HKDF: ``outputs`` (2 or 3) 32-byte keys from HKDF-SHA256(salt=ck, ikm, info="")."""
    derived = HKDF(
        algorithm=hashes.SHA256(), length=HASH_SIZE * outputs, salt=chaining_key, info=b""
    ).derive(ikm)
    return [derived[i * HASH_SIZE : (i + 1) * HASH_SIZE] for i in range(outputs)]


class CipherState:
    """One direction's key and message counter."""

    def __init__(self, key: bytes, *, nonce: int = 0, rekey_interval: int | None = None) -> None:
        if len(key) != KEY_SIZE:
            raise ValueError("a ChaCha20-Poly1305 key is 32 bytes")
        if rekey_interval is not None and rekey_interval < 1:
            raise ValueError("rekey_interval must be positive or None")
        self._key = key
        self._aead = ChaCha20Poly1305(key)
        self.nonce = nonce
        self.rekey_interval = rekey_interval

    def _next_nonce(self) -> int:
        n = self.nonce
        if n > MAX_NONCE:
            raise NonceExhausted("the 64-bit message counter is exhausted; the session must end")
        return n

    def _advance(self, n: int) -> None:
        self.nonce = n + 1
        if self.rekey_interval is not None and self.nonce % self.rekey_interval == 0:
            self.rekey()

    def rekey(self) -> None:
        self._key = self._aead.encrypt(_nonce(REKEY_NONCE), _ZEROS, b"")[:KEY_SIZE]
        self._aead = ChaCha20Poly1305(self._key)

    def encrypt(self, plaintext: bytes, ad: bytes = b"") -> bytes:
        n = self._next_nonce()
        ciphertext = self._aead.encrypt(_nonce(n), plaintext, ad)
        self._advance(n)
        return ciphertext

    def decrypt(self, ciphertext: bytes, ad: bytes = b"") -> bytes:
        """Decrypt with the next counter value. On failure the counter does not move."""
        if len(ciphertext) < TAG_SIZE:
            raise DecryptError(f"ciphertext of {len(ciphertext)} bytes is shorter than the tag")
        n = self._next_nonce()
        try:
            plaintext = self._aead.decrypt(_nonce(n), ciphertext, ad)
        except InvalidTag:
            raise DecryptError(f"authentication failed for message number {n}") from None
        self._advance(n)
        return plaintext


class SymmetricState:
    """Handshake hash ``h`` and chaining key ``ck`` (Noise SymmetricState)."""

    def __init__(self, protocol_name: bytes) -> None:
        if len(protocol_name) <= HASH_SIZE:
            self.h = protocol_name.ljust(HASH_SIZE, b"\x00")
        else:
            self.h = hashlib.sha256(protocol_name).digest()
        self.ck = self.h
        self._cipher: CipherState | None = None

    def mix_hash(self, data: bytes) -> None:
        self.h = hashlib.sha256(self.h + data).digest()

    def mix_key(self, ikm: bytes) -> None:
        self.ck, key = hkdf(self.ck, ikm, 2)
        self._cipher = CipherState(key)

    def encrypt_and_hash(self, plaintext: bytes) -> bytes:
        if self._cipher is None:
            raise RuntimeError("encrypt_and_hash before mix_key")
        ciphertext = self._cipher.encrypt(plaintext, self.h)
        self.mix_hash(ciphertext)
        return ciphertext

    def decrypt_and_hash(self, ciphertext: bytes) -> bytes:
        if self._cipher is None:
            raise RuntimeError("decrypt_and_hash before mix_key")
        plaintext = self._cipher.decrypt(ciphertext, self.h)
        self.mix_hash(ciphertext)
        return plaintext

    def split(self) -> tuple[bytes, bytes]:
        """(initiator-to-responder key, responder-to-initiator key)."""
        k1, k2 = hkdf(self.ck, b"", 2)
        return k1, k2
