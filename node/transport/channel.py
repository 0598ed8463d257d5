"""The secure channel: encrypted, authenticated, ordered messages over one Trio stream.

After the handshake every frame body is ``ChaCha20-Poly1305(k_dir, counter, ad="", type | payload)``
with one key and one implicit 64-bit counter per direction (see :mod:`.cipher`). Record types:

* ``0x01`` DATA: an application message, returned by :meth:`SecureChannel.receive`;
* ``0x02`` KEEPALIVE: empty payload, sent when we have sent nothing for ``keepalive_interval``;
* ``0x03`` CLOSE: orderly shutdown, payload is a UTF-8 reason (at most 256 bytes).

Any frame that fails authentication (tampered, replayed, reordered, truncated, injected), any
malformed frame or record, a lost connection, or silence longer than ``idle_timeout`` breaks
the channel: the stream is closed and the error is raised now and on every later call.

Keepalives and the idle timeout are driven by :meth:`SecureChannel.receive` (a node always has
a task waiting in it). A node that does not receive for long stretches can also run
:meth:`SecureChannel.keepalive_loop` in a nursery.
"""

from __future__ import annotations

import math

import trio

from ..identity import Identity, PeerId
from .cipher import TAG_SIZE, CipherState, DecryptError, NonceExhausted
from .config import TransportConfig
from .errors import (
    ChannelClosed,
    ChannelError,
    FrameError,
    HandshakeError,
    IdleTimeout,
)
from .framing import FrameReader, encode_frame
from .handshake import (
    HandshakeResult,
    PeerPin,
    _validate_pin,
    initiator_handshake,
    responder_handshake,
)

__all__ = [
    "RECORD_CLOSE",
    "RECORD_DATA",
    "RECORD_KEEPALIVE",
    "SecureChannel",
    "accept",
    "connect",
    "open_tcp_channel",
]

RECORD_DATA = 0x01
RECORD_KEEPALIVE = 0x02
RECORD_CLOSE = 0x03
MAX_CLOSE_REASON = 256
RECORD_OVERHEAD = 1 + TAG_SIZE


class SecureChannel(trio.abc.AsyncResource):
    """A mutually authenticated, encrypted message channel. Create it with connect()/accept().

    ``send`` may be called from several tasks (frames are serialized by a lock); ``receive``
    from one task at a time (trio.BusyResourceError otherwise).
    """

    def __init__(
        self,
        stream: trio.abc.Stream,
        reader: FrameReader,
        result: HandshakeResult,
        config: TransportConfig,
        *,
        initiator: bool,
    ) -> None:
        self._stream = stream
        self._reader = reader
        self._config = config
        self._send_cipher = CipherState(result.send_key, rekey_interval=config.rekey_interval)
        self._recv_cipher = CipherState(result.receive_key, rekey_interval=config.rekey_interval)
        self._send_lock = trio.StrictFIFOLock()
        self._receiving = False
        self._error: ChannelError | None = None
        now = trio.current_time()
        self._last_send = now
        self._last_receive = now
        self.peer_id: PeerId = result.peer_id
        self.handshake_hash: bytes = result.handshake_hash
        self.initiator = initiator

    # -- introspection -----------------------------------------------------------------------

    @property
    def max_message_size(self) -> int:
        """The largest payload :meth:`send` accepts."""
        return self._config.max_frame_size - RECORD_OVERHEAD

    @property
    def closed(self) -> bool:
        return self._error is not None

    @property
    def config(self) -> TransportConfig:
        return self._config

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"<SecureChannel peer={self.peer_id.fingerprint} {state}>"

    # -- failure handling --------------------------------------------------------------------

    def _stored_error(self) -> ChannelError:
        """A fresh copy of the error that broke the channel (re-raising one instance again and
        again would grow its traceback)."""
        assert self._error is not None
        return type(self._error)(*self._error.args)

    def _check_open(self) -> None:
        if self._error is not None:
            raise self._stored_error()

    async def _fail(self, error: ChannelError) -> ChannelError:
        """Break the channel with ``error`` (unless already broken) and close the stream.

        Returns the exception to raise: ``error``, or a copy of the earlier one.
        """
        first = self._error is None
        if first:
            self._error = error
        await trio.aclose_forcefully(self._stream)
        return error if first else self._stored_error()

    # -- sending -----------------------------------------------------------------------------

    async def _send_record(self, record_type: int, payload: bytes) -> None:
        async with self._send_lock:
            self._check_open()
            try:
                body = self._send_cipher.encrypt(bytes([record_type]) + payload)
            except NonceExhausted as exc:
                raise await self._fail(ChannelError(f"cannot send: {exc}")) from None
            frame = encode_frame(body, self._config.max_frame_size)
            try:
                with trio.fail_after(self._config.send_timeout):
                    await self._stream.send_all(frame)
            except trio.TooSlowError:
                raise await self._fail(
                    ChannelError(
                        f"send to {self.peer_id.fingerprint} timed out after "
                        f"{self._config.send_timeout} s; link closed"
                    )
                ) from None
            except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
                raise await self._fail(
                    ChannelError(f"connection lost while sending: {exc!r}")
                ) from exc
            except BaseException:
                # Cancelled midway: part of a frame may be on the wire, and the counter has
                # moved on; the stream can no longer be used.
                await self._fail(ChannelError("a send was cancelled midway; link closed"))
                raise
            self._last_send = trio.current_time()

    async def send(self, message: bytes) -> None:
        """Send one message (at most :attr:`max_message_size` bytes, FrameError otherwise)."""
        if len(message) > self.max_message_size:
            raise FrameError(
                f"message of {len(message)} bytes exceeds the maximum of "
                f"{self.max_message_size} bytes for a frame size limit of "
                f"{self._config.max_frame_size}"
            )
        await self._send_record(RECORD_DATA, bytes(message))

    async def keepalive_loop(self) -> None:
        """Send keepalives whenever nothing was sent for ``keepalive_interval``, until closed.

        Only needed when no task is waiting in :meth:`receive` for long stretches.
        """
        interval = self._config.keepalive_interval
        if interval is None:
            return
        while self._error is None:
            deadline = self._last_send + interval
            if trio.current_time() >= deadline:
                try:
                    with trio.CancelScope(shield=True):  # never cut a keepalive in half
                        await self._send_record(RECORD_KEEPALIVE, b"")
                except ChannelError:
                    return
            else:
                await trio.sleep_until(deadline)

    # -- receiving ---------------------------------------------------------------------------

    async def receive(self) -> bytes:
        """The next message from the peer.

        Raises :class:`ChannelClosed` after an orderly close (by either side) and
        :class:`ChannelError` (e.g. :class:`IdleTimeout`) when the link is broken.
        """
        if self._receiving:
            raise trio.BusyResourceError("another task is already receiving on this channel")
        self._receiving = True
        try:
            return await self._receive()
        finally:
            self._receiving = False

    async def _receive(self) -> bytes:
        self._check_open()
        entered = trio.current_time()
        idle = self._config.idle_timeout
        keepalive = self._config.keepalive_interval
        while True:
            now = trio.current_time()
            idle_deadline = math.inf if idle is None else max(self._last_receive, entered) + idle
            keepalive_deadline = math.inf if keepalive is None else self._last_send + keepalive
            if now >= idle_deadline:
                raise await self._fail(
                    IdleTimeout(
                        f"nothing received from {self.peer_id.fingerprint} for {idle} s; "
                        "link closed as dead"
                    )
                )
            if now >= keepalive_deadline:
                # Shielded (and bounded by send_timeout): cancelling receive() must not cut a
                # keepalive in half, which would break the channel.
                with trio.CancelScope(shield=True):
                    await self._send_record(RECORD_KEEPALIVE, b"")
                continue
            wait = min(idle_deadline, keepalive_deadline) - now
            try:
                body = await self._reader.read_frame(None if math.isinf(wait) else wait)
            except trio.TooSlowError:
                continue
            except FrameError as exc:
                raise await self._fail(ChannelError(f"bad frame from peer: {exc}")) from exc
            except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
                raise await self._fail(ChannelError(f"connection lost: {exc!r}")) from exc
            if body is None:
                raise await self._fail(
                    ChannelError("connection lost: the peer ended the stream without closing")
                )
            payload = await self._open_record(body)
            if payload is not None:
                return payload

    async def _open_record(self, body: bytes) -> bytes | None:
        """Decrypt one frame; the DATA payload, None for a keepalive, raise otherwise."""
        number = self._recv_cipher.nonce
        if len(body) < RECORD_OVERHEAD:
            raise await self._fail(
                ChannelError(f"malformed frame {number} from peer: {len(body)} bytes is too short")
            )
        try:
            plaintext = self._recv_cipher.decrypt(body)
        except DecryptError:
            raise await self._fail(
                ChannelError(
                    f"frame {number} from peer failed authentication (tampered, replayed, "
                    "reordered or injected); link closed"
                )
            ) from None
        except NonceExhausted as exc:
            raise await self._fail(ChannelError(f"cannot receive: {exc}")) from None
        self._last_receive = trio.current_time()
        record_type, payload = plaintext[0], plaintext[1:]
        if record_type == RECORD_DATA:
            return payload
        if record_type == RECORD_KEEPALIVE:
            if payload:
                raise await self._fail(ChannelError("malformed keepalive: non-empty payload"))
            return None
        if record_type == RECORD_CLOSE:
            reason = payload[:MAX_CLOSE_REASON].decode("utf-8", "replace") or "no reason given"
            raise await self._fail(ChannelClosed(f"peer closed the channel: {reason}"))
        raise await self._fail(ChannelError(f"unknown record type 0x{record_type:02x} from peer"))

    # -- closing -----------------------------------------------------------------------------

    async def aclose(self, reason: str = "closed") -> None:
        """Send a CLOSE record (best effort, bounded by ``close_timeout``) and close the stream.

        Idempotent; never raises a transport error.
        """
        if self._error is not None:
            await trio.aclose_forcefully(self._stream)
            return
        self._error = ChannelClosed("channel closed locally")
        record = bytes([RECORD_CLOSE]) + reason.encode("utf-8")[:MAX_CLOSE_REASON]
        try:
            with trio.move_on_after(self._config.close_timeout) as scope:
                scope.shield = True
                async with self._send_lock:
                    body = self._send_cipher.encrypt(record)
                    await self._stream.send_all(encode_frame(body, self._config.max_frame_size))
        except (trio.BrokenResourceError, trio.ClosedResourceError, NonceExhausted):
            pass
        finally:
            await trio.aclose_forcefully(self._stream)


async def _establish(
    stream: trio.abc.Stream,
    identity: Identity,
    expected_peer: PeerPin | None,
    config: TransportConfig | None,
    initiator: bool,
) -> SecureChannel:
    config = config or TransportConfig()
    _validate_pin(expected_peer)
    reader = FrameReader(stream, config.max_frame_size)
    handshake = initiator_handshake if initiator else responder_handshake
    try:
        result = await handshake(stream, reader, identity, expected_peer, config)
    except trio.TooSlowError:
        await trio.aclose_forcefully(stream)
        raise HandshakeError(
            f"handshake timed out after {config.handshake_timeout} s; connection closed"
        ) from None
    except BaseException:
        await trio.aclose_forcefully(stream)
        raise
    return SecureChannel(stream, reader, result, config, initiator=initiator)


async def connect(
    stream: trio.abc.Stream,
    identity: Identity,
    expected_peer: PeerPin | None = None,
    *,
    config: TransportConfig | None = None,
) -> SecureChannel:
    """Run the handshake as initiator over ``stream`` and return the secure channel.

    ``expected_peer`` pins the responder (fingerprint, raw public key or PeerId): on a
    mismatch :class:`PeerIdentityMismatch` is raised before we reveal our own identity. Any
    failure raises :class:`HandshakeError` and closes ``stream``.
    """
    return await _establish(stream, identity, expected_peer, config, initiator=True)


async def accept(
    stream: trio.abc.Stream,
    identity: Identity,
    expected_peer: PeerPin | None = None,
    *,
    config: TransportConfig | None = None,
) -> SecureChannel:
    """Run the handshake as responder over ``stream`` and return the secure channel.

    ``expected_peer`` optionally pins the initiator. Any failure raises
    :class:`HandshakeError` and closes ``stream``.
    """
    return await _establish(stream, identity, expected_peer, config, initiator=False)


async def open_tcp_channel(
    host: str,
    port: int,
    identity: Identity,
    expected_peer: PeerPin | None = None,
    *,
    config: TransportConfig | None = None,
    connect_timeout: float = 10.0,
) -> SecureChannel:
    """Open a TCP connection (bounded by ``connect_timeout``) and :func:`connect` over it.

    Raises OSError (TimeoutError on timeout) if the TCP connection fails, HandshakeError if
    the handshake does.
    """
    try:
        with trio.fail_after(connect_timeout):
            stream = await trio.open_tcp_stream(host, port)
    except trio.TooSlowError:
        raise TimeoutError(
            f"could not connect to {host}:{port} within {connect_timeout} s"
        ) from None
    return await connect(stream, identity, expected_peer, config=config)
