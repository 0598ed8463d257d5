"""A node's long-term Ed25519 identity and its fingerprint.

The private key lives in ``<home>/identity.key`` (PKCS#8 PEM, unencrypted), where ``<home>`` is,
in order of precedence: an explicit ``home`` argument (the CLI's ``--home``), the environment
variable ``DEALERLESS_HOME``, or ``platformdirs.user_data_dir("dealerless")``.

* The directory is created with mode 0700 and the key file with mode 0600. The file is written
  to a temporary name, fsynced and then hard-linked into place, so a crash never leaves a
  half-written key file and a key file created concurrently by another process is never
  replaced.
* An existing key file that cannot be read, is not an Ed25519 private key, or is readable by
  group/others raises :class:`IdentityError` with a message that says what is wrong. It is
  never overwritten: replacing it would silently change the node's identity.

Fingerprint: the one definition of spec/messages.md: the first 15 bytes of SHA-256 over the raw
32-byte public key, base32 (RFC 4648) upper case (24 characters), grouped in fours with ``-``:
``XXXX-XXXX-XXXX-XXXX-XXXX-XXXX``.
"""

from __future__ import annotations

import base64
import contextlib
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from dealerless.node.portable import ENV_HOME, data_dir, fsync_directory
from dealerless.protocol.wire.errors import MessageError
from dealerless.protocol.wire.identity import IdentityKey as WireIdentityKey
from dealerless.protocol.wire.identity import PeerId as WirePeerId
from dealerless.protocol.wire.identity import fingerprint_of, parse_fingerprint

__all__ = [
    "ENV_HOME",
    "KEY_FILE_NAME",
    "Identity",
    "IdentityError",
    "PeerId",
    "format_fingerprint",
    "key_file_path",
    "load_identity",
    "load_or_create_identity",
    "normalize_fingerprint",
    "parse_fingerprint",
    "resolve_home",
]

KEY_FILE_NAME = "identity.key"
PUBLIC_KEY_SIZE = 32
SIGNATURE_SIZE = 64
_MAX_KEY_FILE_SIZE = 64 * 1024


class IdentityError(Exception):
    """The identity key file is missing, unreadable, corrupted or unsafe."""


def format_fingerprint(public_key: bytes) -> str:
    """Fingerprint of a raw 32-byte Ed25519 public key.

    One definition for the whole project: the message layer's (spec/messages.md), so a
    fingerprint shown by `dealerless id`, carried in an invite and pinned by the transport is
    the same string.
    """
    if len(public_key) != PUBLIC_KEY_SIZE:
        raise ValueError(f"an Ed25519 public key is 32 bytes, got {len(public_key)}")
    return fingerprint_of(public_key)


def normalize_fingerprint(text: str) -> str:
    """Canonical form of a fingerprint typed by a human (any case, any grouping, spaces).

    Raises ValueError if it is not a well-formed fingerprint.
    """
    raw = parse_fingerprint(text)
    canonical = base64.b32encode(raw).decode("ascii")
    return "-".join(canonical[i : i + 4] for i in range(0, len(canonical), 4))


@dataclass(frozen=True)
class PeerId:
    """A peer's long-term public identity: a raw 32-byte Ed25519 public key."""

    public_key: bytes

    def __post_init__(self) -> None:
        if len(self.public_key) != PUBLIC_KEY_SIZE:
            raise ValueError(f"an Ed25519 public key is 32 bytes, got {len(self.public_key)}")
        try:
            # The message layer's PeerId rejects non-canonical and small-order points (a
            # small-order key would "verify" forged signatures); reuse its check.
            WirePeerId(self.public_key)
        except MessageError as exc:
            raise ValueError(f"not a valid Ed25519 public key: {exc}") from exc

    @property
    def wire_peer_id(self) -> WirePeerId:
        """The same key as the message layer's ``PeerId`` (envelope authors)."""
        return WirePeerId(self.public_key)

    @property
    def fingerprint(self) -> str:
        return format_fingerprint(self.public_key)

    def verify(self, signature: bytes, data: bytes) -> bool:
        """True if ``signature`` is this key's Ed25519 signature over ``data``."""
        if len(signature) != SIGNATURE_SIZE:
            return False
        try:
            Ed25519PublicKey.from_public_bytes(self.public_key).verify(signature, data)
        except InvalidSignature:
            return False
        return True

    def matches(self, expected: str | bytes | PeerId) -> bool:
        """True if this identity is ``expected``: a fingerprint, raw public key or PeerId."""
        if isinstance(expected, PeerId):
            return secrets.compare_digest(expected.public_key, self.public_key)
        if isinstance(expected, bytes):
            return secrets.compare_digest(expected, self.public_key)
        return secrets.compare_digest(normalize_fingerprint(expected), self.fingerprint)

    def __str__(self) -> str:
        return self.fingerprint


class Identity:
    """A long-term Ed25519 private key. ``path`` is the key file it came from, if any."""

    def __init__(self, private_key: Ed25519PrivateKey, path: Path | None = None) -> None:
        self._private_key = private_key
        self.path = path
        raw = private_key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        self.peer_id = PeerId(raw)

    @classmethod
    def generate(cls) -> Identity:
        """A fresh in-memory identity (tests, throw-away bots)."""
        return cls(Ed25519PrivateKey.generate())

    @property
    def public_key(self) -> bytes:
        return self.peer_id.public_key

    @property
    def fingerprint(self) -> str:
        return self.peer_id.fingerprint

    def sign(self, data: bytes) -> bytes:
        return self._private_key.sign(data)

    def wire_key(self) -> WireIdentityKey:
        """The same private key as the message layer's ``IdentityKey`` (signs envelopes)."""
        return WireIdentityKey(self._private_key)

    def private_pem(self) -> bytes:
        return self._private_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )

    def __repr__(self) -> str:
        return f"Identity({self.fingerprint})"


def resolve_home(home: str | os.PathLike[str] | None = None) -> Path:
    """The data directory: ``home`` if given, else ``$DEALERLESS_HOME``, else the platform's."""
    return data_dir(home)


def key_file_path(home: str | os.PathLike[str] | None = None) -> Path:
    return resolve_home(home) / KEY_FILE_NAME


def load_identity(path: Path) -> Identity:
    """Load the identity in ``path``; IdentityError with the reason if that is not possible."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        raise IdentityError(f"identity key file {path} does not exist") from None
    except OSError as exc:
        raise IdentityError(f"cannot open identity key file {path}: {exc.strerror}") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise IdentityError(f"identity key file {path} is not a regular file")
        if os.name == "posix" and info.st_mode & 0o077:
            raise IdentityError(
                f"identity key file {path} is accessible by other users "
                f"(mode {stat.S_IMODE(info.st_mode):04o}); run: chmod 600 {path}"
            )
        if info.st_size > _MAX_KEY_FILE_SIZE:
            raise IdentityError(f"identity key file {path} is corrupted: {info.st_size} bytes")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(_MAX_KEY_FILE_SIZE + 1)
    except OSError as exc:
        raise IdentityError(f"cannot read identity key file {path}: {exc.strerror}") from exc
    finally:
        os.close(fd)
    hint = "it was left untouched; move it away to create a new identity (new fingerprint)"
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise IdentityError(
            f"identity key file {path} is corrupted (not a PEM private key: {exc}); {hint}"
        ) from exc
    except Exception as exc:  # cryptography raises UnsupportedAlgorithm and friends
        raise IdentityError(f"identity key file {path} is corrupted ({exc}); {hint}") from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise IdentityError(
            f"identity key file {path} holds a {type(key).__name__}, not an Ed25519 key; {hint}"
        )
    return Identity(key, path)


def _create_key_file(path: Path, identity: Identity) -> bool:
    """Write ``identity`` to ``path`` atomically. False if ``path`` appeared meanwhile."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        try:
            if hasattr(os, "fchmod"):  # umask may only remove bits; be explicit anyway
                os.fchmod(fd, 0o600)
            os.write(fd, identity.private_pem())
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)  # fails if path exists: never replaces an existing key file
        except FileExistsError:
            return False
        fsync_directory(path.parent)
        return True
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def load_or_create_identity(
    home: str | os.PathLike[str] | None = None,
) -> tuple[Identity, bool]:
    """The node's identity, creating the key file on first run. Returns (identity, created)."""
    directory = resolve_home(home)
    path = directory / KEY_FILE_NAME
    if os.path.lexists(path):
        return load_identity(path), False
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise IdentityError(f"cannot create data directory {directory}: {exc.strerror}") from exc
    identity = Identity.generate()
    try:
        created = _create_key_file(path, identity)
    except OSError as exc:
        raise IdentityError(f"cannot write identity key file {path}: {exc.strerror}") from exc
    if not created:  # another process won the race: use its key
        return load_identity(path), False
    identity.path = path
    return identity, True
