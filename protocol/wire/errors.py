"""Every error the message layer raises. All derive from :class:`MessageError`.

The text of each error says exactly what was wrong: which field (as a path such as
``body.players[2].name``), what was expected and what was received, so a peer's log line alone
explains why a message was refused.
"""

from __future__ import annotations


class MessageError(Exception):
    """Base class of every refusal of a received (or about-to-be-sent) message.

    ``signed_by`` is the 32-byte public key of the author when the error was found *after* the
    signature had been verified: then the message itself is signed evidence of the author's
    misbehaviour (a peer sent a badly formed body). It is ``None`` when the bytes cannot be
    attributed to anyone.
    """

    def __init__(self, text: str, *, signed_by: bytes | None = None) -> None:
        super().__init__(text)
        self.text = text
        self.signed_by = signed_by


class TooLarge(MessageError):
    """The message is larger than the configured limit (checked before anything is decoded)."""


class MalformedMessage(MessageError):
    """The bytes are not a well-formed message: bad msgpack, a forbidden type (float, extension,
    non-string map key), a number out of range, a limit exceeded, a wrong envelope shape."""


class NonCanonical(MalformedMessage):
    """Well-formed msgpack, but not the one canonical encoding of its value (a longer integer or
    string header than needed, map keys out of order): refused so a message has one byte form."""


class DuplicateKey(MalformedMessage):
    """A msgpack map holds the same key twice."""


class UnsupportedVersion(MessageError):
    """The envelope's version number is not one this implementation speaks."""


class BadSignature(MessageError):
    """The signature does not verify against the author key over the received bytes, or the
    author key is not a usable Ed25519 public key."""


class UnknownKind(MessageError):
    """The message kind is not registered."""


class SchemaViolation(MessageError):
    """The body does not match the schema registered for its kind.

    ``path`` is where (``body.cards[3]``), ``expected`` and ``got`` describe the mismatch.
    """

    def __init__(
        self, path: str, expected: str, got: str, *, signed_by: bytes | None = None
    ) -> None:
        super().__init__(f"{path}: expected {expected}, got {got}", signed_by=signed_by)
        self.path = path
        self.expected = expected
        self.got = got


class ChainError(MessageError):
    """The message does not follow the previous accepted message (wrong previous hash, table,
    hand or sequence number)."""
