"""The mutually authenticated handshake: Noise XX shape, Ed25519 signatures over the transcript.

Three messages, each one frame (see ``spec/transport.md`` for the normative description)::

    -> MSG1  magic "DLTP" | version | 0x01 | e_i
    <- MSG2  magic "DLTP" | version | 0x02 | e_r | AEAD(k, 0, h, pk_r | sig_r)
    -> MSG3  magic "DLTP" | version | 0x03 |       AEAD(k, 1, h, pk_i | sig_i)
    <- REJECT magic "DLTP" | version | 0x7F | code | reason   (instead of MSG2, then close)

``k`` comes from the ephemeral-ephemeral X25519 secret (Noise ``ee``). Each side signs
``context | h | own public key`` with its long-term Ed25519 key, where ``h`` is the Noise
handshake hash at that point (it covers the prologue, both ephemeral keys and, for the
initiator, the responder's encrypted identity): the signature binds the identity to this very
session (channel binding). The initiator checks the responder's identity (and pin) *before*
sending MSG3, so it never reveals its own identity to an impostor.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass

import trio
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey

from ..identity import (
    PUBLIC_KEY_SIZE,
    SIGNATURE_SIZE,
    Identity,
    PeerId,
    normalize_fingerprint,
)
from .cipher import TAG_SIZE, DecryptError, SymmetricState
from .config import TransportConfig
from .errors import FrameError, HandshakeError, PeerIdentityMismatch, VersionMismatch
from .framing import FrameReader, encode_frame

__all__ = [
    "MAGIC",
    "PROTOCOL_NAME",
    "VERSION",
    "HandshakeResult",
    "PeerPin",
    "initiator_handshake",
    "responder_handshake",
]

PeerPin = str | bytes | PeerId | Callable[[bytes], bool]
"""An expected peer: a fingerprint (as printed by ``dealerless id``), raw public key, PeerId, or
a predicate on the raw public key (an invite's pin, which commits the key and the terms)."""

MAGIC = b"DLTP"
VERSION = 1
PROTOCOL_NAME = b"dealerless-transport/1 XXsig_25519_ChaChaPoly_SHA256_Ed25519"
SIG_CONTEXT_RESPONDER = b"dealerless-transport/1 responder signature\x00"
SIG_CONTEXT_INITIATOR = b"dealerless-transport/1 initiator signature\x00"

MSG1 = 0x01
MSG2 = 0x02
MSG3 = 0x03
REJECT = 0x7F
REJECT_VERSION = 0x01
REJECT_OTHER = 0x02

HEADER_SIZE = len(MAGIC) + 2
DH_SIZE = 32
AUTH_PLAINTEXT_SIZE = PUBLIC_KEY_SIZE + SIGNATURE_SIZE
AUTH_CIPHERTEXT_SIZE = AUTH_PLAINTEXT_SIZE + TAG_SIZE
MSG1_SIZE = HEADER_SIZE + DH_SIZE  # 38
MSG2_SIZE = HEADER_SIZE + DH_SIZE + AUTH_CIPHERTEXT_SIZE  # 150
MSG3_SIZE = HEADER_SIZE + AUTH_CIPHERTEXT_SIZE  # 118
MAX_REASON_SIZE = 256
# Limit for handshake frames: ours are at most 263 bytes (REJECT); the margin lets a future
# version's longer MSG1 still be read, so that it is answered with a clean REJECT.
MAX_HANDSHAKE_FRAME = 1024

_NAMES = {MSG1: "message 1", MSG2: "message 2", MSG3: "message 3", REJECT: "reject"}


@dataclass(frozen=True)
class HandshakeResult:
    peer_id: PeerId
    send_key: bytes
    receive_key: bytes
    handshake_hash: bytes
    """Final Noise handshake hash: a unique, public channel-binding value for the session."""


def _header(msg_type: int) -> bytes:
    return MAGIC + bytes([VERSION, msg_type])


def _raw(public: X25519PublicKey) -> bytes:
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def _dh(private: X25519PrivateKey, public_raw: bytes) -> bytes:
    try:
        return private.exchange(X25519PublicKey.from_public_bytes(public_raw))
    except ValueError:  # all-zero shared secret: a low-order point
        raise HandshakeError("invalid ephemeral key from peer (low-order point)") from None


def _check_header(msg: bytes, expected: int) -> None:
    """Validate magic, version and type; raise on a REJECT from the peer."""
    name = _NAMES[expected]
    if len(msg) < HEADER_SIZE or msg[: len(MAGIC)] != MAGIC:
        raise HandshakeError(f"handshake {name}: not a dealerless transport peer (bad magic)")
    version, msg_type = msg[len(MAGIC)], msg[len(MAGIC) + 1]
    if msg_type == REJECT and expected != MSG1:
        code = msg[HEADER_SIZE] if len(msg) > HEADER_SIZE else REJECT_OTHER
        reason = msg[HEADER_SIZE + 1 :].decode("utf-8", "replace")[:MAX_REASON_SIZE]
        if code == REJECT_VERSION:
            raise VersionMismatch(f"peer rejected the handshake: {reason}")
        raise HandshakeError(f"peer rejected the handshake: {reason}")
    if version != VERSION:
        raise VersionMismatch(
            f"peer speaks transport version {version}, this node speaks version {VERSION}"
        )
    if msg_type != expected:
        raise HandshakeError(f"expected handshake {name}, got message type 0x{msg_type:02x}")


def _check_size(msg: bytes, expected: int, size: int) -> None:
    if len(msg) != size:
        raise HandshakeError(
            f"malformed handshake {_NAMES[expected]}: {len(msg)} bytes, expected {size}"
        )


def _open_auth(sym: SymmetricState, ciphertext: bytes, context: bytes, who: str) -> PeerId:
    h = sym.h
    try:
        plaintext = sym.decrypt_and_hash(ciphertext)
    except DecryptError:
        raise HandshakeError(
            f"{who}'s handshake message failed authentication (tampered, or a different "
            "prologue/protocol)"
        ) from None
    try:
        peer = PeerId(plaintext[:PUBLIC_KEY_SIZE])
    except ValueError as exc:
        raise HandshakeError(f"{who} sent an invalid identity key: {exc}") from None
    signature = plaintext[PUBLIC_KEY_SIZE:]
    if not peer.verify(signature, context + h + peer.public_key):
        raise HandshakeError(
            f"{who}'s identity signature is invalid: it does not prove key {peer.fingerprint} "
            "for this session"
        )
    return peer


def _seal_auth(sym: SymmetricState, identity: Identity, context: bytes) -> bytes:
    signature = identity.sign(context + sym.h + identity.public_key)
    return sym.encrypt_and_hash(identity.public_key + signature)


def _check_pin(peer: PeerId, expected: PeerPin | None, who: str) -> None:
    if expected is None:
        return
    if callable(expected):
        if expected(peer.public_key):
            return
        shown = "the key the invite names"
    elif peer.matches(expected):
        return
    elif isinstance(expected, PeerId):
        shown = expected.fingerprint
    elif isinstance(expected, bytes):
        shown = PeerId(expected).fingerprint if len(expected) == PUBLIC_KEY_SIZE else "?"
    else:
        shown = expected
    raise PeerIdentityMismatch(
        f"{who} identity mismatch: expected {shown}, but the peer proved {peer.fingerprint}; "
        "connection aborted"
    )


def _validate_pin(expected: PeerPin | None) -> None:
    """Fail early (ValueError) on a malformed pin, before touching the network."""
    if expected is None or isinstance(expected, PeerId) or callable(expected):
        return
    if isinstance(expected, bytes):
        PeerId(expected)
        return
    normalize_fingerprint(expected)


class _Wire:
    """Frame I/O with one deadline for the whole handshake and errors mapped to HandshakeError."""

    def __init__(self, stream: trio.abc.Stream, reader: FrameReader, deadline: float) -> None:
        self.stream = stream
        self.reader = reader
        self.deadline = deadline

    async def send(self, msg: bytes) -> None:
        try:
            with trio.fail_at(self.deadline):
                await self.stream.send_all(encode_frame(msg))
        except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            raise HandshakeError(f"connection lost during the handshake: {exc!r}") from exc

    async def receive(self, what: int) -> bytes:
        try:
            frame = await self.reader.read_frame(
                max(0.0, self.deadline - trio.current_time()), max_size=MAX_HANDSHAKE_FRAME
            )
        except FrameError as exc:
            raise HandshakeError(
                f"bad frame while waiting for handshake {_NAMES[what]}: {exc}"
            ) from exc
        except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            raise HandshakeError(f"connection lost during the handshake: {exc!r}") from exc
        if frame is None:
            raise HandshakeError(
                f"peer closed the connection while we waited for handshake {_NAMES[what]}"
            )
        return frame


def _new_symmetric_state(config: TransportConfig) -> SymmetricState:
    sym = SymmetricState(PROTOCOL_NAME)
    sym.mix_hash(config.prologue)
    return sym


def _deadline(config: TransportConfig) -> float:
    return trio.current_time() + config.handshake_timeout


async def initiator_handshake(
    stream: trio.abc.Stream,
    reader: FrameReader,
    identity: Identity,
    expected_peer: PeerPin | None,
    config: TransportConfig,
    *,
    ephemeral: X25519PrivateKey | None = None,
) -> HandshakeResult:
    """Run the initiator side. Raises HandshakeError (or trio.TooSlowError on timeout).

    ``ephemeral`` fixes the ephemeral key: only for test vectors, never in real use.
    """
    wire = _Wire(stream, reader, _deadline(config))
    sym = _new_symmetric_state(config)
    e = ephemeral or X25519PrivateKey.generate()
    e_pub = _raw(e.public_key())

    header1 = _header(MSG1)
    sym.mix_hash(header1)
    sym.mix_hash(e_pub)
    await wire.send(header1 + e_pub)

    msg2 = await wire.receive(MSG2)
    _check_header(msg2, MSG2)
    _check_size(msg2, MSG2, MSG2_SIZE)
    re_pub = msg2[HEADER_SIZE : HEADER_SIZE + DH_SIZE]
    sym.mix_hash(msg2[:HEADER_SIZE])
    sym.mix_hash(re_pub)
    sym.mix_key(_dh(e, re_pub))
    peer = _open_auth(sym, msg2[HEADER_SIZE + DH_SIZE :], SIG_CONTEXT_RESPONDER, "responder")
    _check_pin(peer, expected_peer, "responder")

    header3 = _header(MSG3)
    sym.mix_hash(header3)
    await wire.send(header3 + _seal_auth(sym, identity, SIG_CONTEXT_INITIATOR))

    k_i2r, k_r2i = sym.split()
    return HandshakeResult(peer, send_key=k_i2r, receive_key=k_r2i, handshake_hash=sym.h)


async def responder_handshake(
    stream: trio.abc.Stream,
    reader: FrameReader,
    identity: Identity,
    expected_peer: PeerPin | None,
    config: TransportConfig,
    *,
    ephemeral: X25519PrivateKey | None = None,
) -> HandshakeResult:
    """Run the responder side. Raises HandshakeError (or trio.TooSlowError on timeout).

    ``ephemeral`` fixes the ephemeral key: only for test vectors, never in real use.
    """
    wire = _Wire(stream, reader, _deadline(config))
    sym = _new_symmetric_state(config)

    msg1 = await wire.receive(MSG1)
    try:
        _check_header(msg1, MSG1)
    except VersionMismatch:
        reason = f"unsupported transport version; this node speaks version {VERSION}"
        reject = _header(REJECT) + bytes([REJECT_VERSION]) + reason.encode()
        with contextlib.suppress(HandshakeError, trio.TooSlowError):
            await wire.send(reject)  # best effort, bounded by the handshake deadline
        raise
    _check_size(msg1, MSG1, MSG1_SIZE)
    ie_pub = msg1[HEADER_SIZE:]
    sym.mix_hash(msg1[:HEADER_SIZE])
    sym.mix_hash(ie_pub)

    e = ephemeral or X25519PrivateKey.generate()
    e_pub = _raw(e.public_key())
    header2 = _header(MSG2)
    sym.mix_hash(header2)
    sym.mix_hash(e_pub)
    sym.mix_key(_dh(e, ie_pub))
    await wire.send(header2 + e_pub + _seal_auth(sym, identity, SIG_CONTEXT_RESPONDER))

    msg3 = await wire.receive(MSG3)
    _check_header(msg3, MSG3)
    _check_size(msg3, MSG3, MSG3_SIZE)
    sym.mix_hash(msg3[:HEADER_SIZE])
    peer = _open_auth(sym, msg3[HEADER_SIZE:], SIG_CONTEXT_INITIATOR, "initiator")
    _check_pin(peer, expected_peer, "initiator")

    k_i2r, k_r2i = sym.split()
    return HandshakeResult(peer, send_key=k_r2i, receive_key=k_i2r, handshake_hash=sym.h)
