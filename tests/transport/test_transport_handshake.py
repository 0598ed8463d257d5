from __future__ import annotations

from collections.abc import Sequence

import pytest
import trio
import trio.testing
from transport_helpers import both, flip, frame, mitm

from dealerless.node.identity import Identity
from dealerless.node.transport import (
    HandshakeError,
    PeerIdentityMismatch,
    TransportConfig,
    VersionMismatch,
    accept,
    connect,
)
from dealerless.node.transport.framing import FrameReader
from dealerless.node.transport.handshake import MSG1_SIZE, MSG2_SIZE, MSG3_SIZE, REJECT


async def test_handshake_succeeds_and_both_sides_learn_each_other() -> None:
    alice, bob = Identity.generate(), Identity.generate()
    async with mitm() as (a, b, log):
        oi, orr = await both(a, b, alice, bob)
        ci, cr = oi.unwrap(), orr.unwrap()
        assert ci.peer_id == bob.peer_id
        assert cr.peer_id == alice.peer_id
        assert ci.handshake_hash == cr.handshake_hash
        assert ci.initiator and not cr.initiator
        await ci.send(b"hello bob")
        assert await cr.receive() == b"hello bob"
        await cr.send(b"hello alice")
        assert await ci.receive() == b"hello alice"
        sizes = [(d, i, len(body)) for d, i, body in log[:3]]
        assert sizes == [("i2r", 0, MSG1_SIZE), ("r2i", 0, MSG2_SIZE), ("i2r", 1, MSG3_SIZE)]
        await ci.aclose()
        await cr.aclose()


async def test_sessions_are_fresh() -> None:
    alice, bob = Identity.generate(), Identity.generate()
    hashes = set()
    for _ in range(2):
        a, b = trio.testing.memory_stream_pair()
        oi, _ = await both(a, b, alice, bob)
        hashes.add(oi.unwrap().handshake_hash)
    assert len(hashes) == 2


@pytest.mark.parametrize("form", ["fingerprint", "sloppy", "bytes", "peer_id"])
async def test_pinned_responder_identity_accepted(form: str) -> None:
    alice, bob = Identity.generate(), Identity.generate()
    pin = {
        "fingerprint": bob.fingerprint,
        "sloppy": bob.fingerprint.upper().replace("-", " "),
        "bytes": bob.public_key,
        "peer_id": bob.peer_id,
    }[form]
    a, b = trio.testing.memory_stream_pair()
    oi, orr = await both(a, b, alice, bob, expected_responder=pin)
    assert oi.unwrap().peer_id == bob.peer_id
    orr.unwrap()


async def test_wrong_pinned_key_aborts_before_initiator_reveals_itself() -> None:
    alice, bob, carol = Identity.generate(), Identity.generate(), Identity.generate()
    async with mitm() as (a, b, log):
        oi, orr = await both(a, b, alice, bob, expected_responder=carol.fingerprint)
    with pytest.raises(PeerIdentityMismatch) as info:
        oi.unwrap()
    assert carol.fingerprint in str(info.value) and bob.fingerprint in str(info.value)
    with pytest.raises(HandshakeError, match="closed the connection"):
        orr.unwrap()
    assert [(d, i) for d, i, _ in log] == [("i2r", 0), ("r2i", 0)]  # no message 3


async def test_responder_can_pin_the_initiator() -> None:
    alice, bob, carol = Identity.generate(), Identity.generate(), Identity.generate()
    a, b = trio.testing.memory_stream_pair()
    _oi, orr = await both(a, b, alice, bob, expected_initiator=carol.peer_id)
    with pytest.raises(PeerIdentityMismatch, match="initiator identity mismatch"):
        orr.unwrap()


async def test_malformed_pin_fails_before_any_io() -> None:
    a, _b = trio.testing.memory_stream_pair()
    with pytest.raises(ValueError, match="fingerprint"):
        await connect(a, Identity.generate(), "not-a-fingerprint")


# (direction, frame index, byte offset, expected error on initiator, on responder)
# msg1 = magic 0:4 | version 4 | type 5 | e_i 6:38
# msg2 = magic 0:4 | version 4 | type 5 | e_r 6:38 | enc(pk_r 38:70 | sig_r 70:134) | tag 134:150
# msg3 = magic 0:4 | version 4 | type 5 | enc(pk_i 6:38 | sig_i 38:102) | tag 102:118
TAMPER_CASES = {
    "msg1-magic": ("i2r", 0, 1, HandshakeError, "bad magic"),
    "msg1-version": ("i2r", 0, 4, VersionMismatch, "version"),
    "msg1-type": ("i2r", 0, 5, HandshakeError, "expected handshake message 1"),
    "msg1-e_i": ("i2r", 0, 20, HandshakeError, "closed the connection"),
    "msg2-magic": ("r2i", 0, 2, HandshakeError, "closed the connection"),
    "msg2-version": ("r2i", 0, 4, HandshakeError, "closed the connection"),
    "msg2-type": ("r2i", 0, 5, HandshakeError, "closed the connection"),
    "msg2-e_r": ("r2i", 0, 20, HandshakeError, "closed the connection"),
    "msg2-pk_r": ("r2i", 0, 50, HandshakeError, "closed the connection"),
    "msg2-sig_r": ("r2i", 0, 100, HandshakeError, "closed the connection"),
    "msg2-tag": ("r2i", 0, 140, HandshakeError, "closed the connection"),
    "msg3-magic": ("i2r", 1, 3, HandshakeError, "bad magic"),
    "msg3-version": ("i2r", 1, 4, VersionMismatch, "version"),
    "msg3-type": ("i2r", 1, 5, HandshakeError, "expected handshake message 3"),
    "msg3-pk_i": ("i2r", 1, 20, HandshakeError, "failed authentication"),
    "msg3-sig_i": ("i2r", 1, 60, HandshakeError, "failed authentication"),
    "msg3-tag": ("i2r", 1, 110, HandshakeError, "failed authentication"),
}
INITIATOR_ERRORS = {
    "msg1-magic": "closed the connection",
    "msg1-version": "peer rejected the handshake: unsupported transport version",
    "msg1-type": "closed the connection",
    "msg1-e_i": "failed authentication",
    "msg2-magic": "bad magic",
    "msg2-version": "peer speaks transport version",
    "msg2-type": "expected handshake message 2",
    "msg2-e_r": "failed authentication",
    "msg2-pk_r": "failed authentication",
    "msg2-sig_r": "failed authentication",
    "msg2-tag": "failed authentication",
}


@pytest.mark.parametrize("case", sorted(TAMPER_CASES))
async def test_tampered_handshake_field_fails_cleanly(case: str) -> None:
    direction, index, offset, r_type, r_message = TAMPER_CASES[case]

    def mutate(d: str, i: int, body: bytes) -> Sequence[bytes | None]:
        if (d, i) == (direction, index):
            return [frame(flip(body, offset))]
        return [frame(body)]

    async with mitm(mutate) as (a, b, _log):
        oi, orr = await both(a, b, Identity.generate(), Identity.generate())
    if case.startswith("msg3"):
        oi.unwrap()  # the initiator has finished; the responder refuses the session
        with pytest.raises(r_type, match=r_message):
            orr.unwrap()
        return
    with pytest.raises(HandshakeError, match=INITIATOR_ERRORS[case]):
        oi.unwrap()
    with pytest.raises(r_type, match=r_message):
        orr.unwrap()


@pytest.mark.parametrize(("direction", "index"), [("i2r", 0), ("r2i", 0), ("i2r", 1)])
@pytest.mark.parametrize("change", ["shorter", "longer"])
async def test_handshake_message_with_wrong_length(direction: str, index: int, change: str) -> None:
    def mutate(d: str, i: int, body: bytes) -> Sequence[bytes | None]:
        if (d, i) == (direction, index):
            return [frame(body[:-1] if change == "shorter" else body + b"\x00")]
        return [frame(body)]

    async with mitm(mutate) as (a, b, _log):
        oi, orr = await both(a, b, Identity.generate(), Identity.generate())
    failed = orr if direction == "i2r" else oi
    with pytest.raises(HandshakeError, match="malformed handshake message"):
        failed.unwrap()


async def test_version_mismatch_is_reported_to_a_newer_initiator() -> None:
    a, b = trio.testing.memory_stream_pair()
    reject: list[bytes | None] = []

    async def future_initiator() -> None:
        await a.send_all(frame(b"DLTP\x02\x01" + bytes(40)))
        reject.append(await FrameReader(a).read_frame(5.0))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(future_initiator)
        with pytest.raises(VersionMismatch, match="version 2, this node speaks version 1"):
            await accept(b, Identity.generate())
    body = reject[0]
    assert body is not None and body[:6] == b"DLTP\x01" + bytes([REJECT])
    assert body[6] == 1 and b"this node speaks version 1" in body


async def test_garbage_peer_is_refused() -> None:
    a, b = trio.testing.memory_stream_pair()
    await a.send_all(b"GET / HTTP/1.1\r\n\r\n")
    with pytest.raises(HandshakeError, match="oversized frame"):
        await accept(b, Identity.generate())


async def test_handshake_times_out_on_a_silent_peer() -> None:
    a, _b = trio.testing.memory_stream_pair()
    start = trio.current_time()
    with pytest.raises(HandshakeError, match=r"timed out after 7\.0 s"):
        await connect(a, Identity.generate(), config=TransportConfig(handshake_timeout=7.0))
    assert trio.current_time() - start == pytest.approx(7.0)
    with pytest.raises(trio.ClosedResourceError):
        await a.send_all(b"x")  # the stream was closed


async def test_prologue_mismatch_fails() -> None:
    a, b = trio.testing.memory_stream_pair()
    oi, orr = await both(
        a,
        b,
        Identity.generate(),
        Identity.generate(),
        config_i=TransportConfig(prologue=b"table-1"),
        config_r=TransportConfig(prologue=b"table-2"),
    )
    with pytest.raises(HandshakeError, match="failed authentication"):
        oi.unwrap()
    with pytest.raises(HandshakeError):
        orr.unwrap()


class _WrongSigner(Identity):
    """Signs something other than the transcript (e.g. a signature lifted from elsewhere)."""

    def sign(self, data: bytes) -> bytes:
        return super().sign(b"some other session" + data)


def _impostor_of(victim: Identity) -> Identity:
    """Claims the victim's public key but can only sign with its own private key."""
    impostor = Identity.generate()
    impostor.peer_id = victim.peer_id
    return impostor


@pytest.mark.parametrize("who", ["responder", "initiator"])
@pytest.mark.parametrize("kind", ["wrong-data", "impostor"])
async def test_identity_signature_is_verified(who: str, kind: str) -> None:
    honest, victim = Identity.generate(), Identity.generate()
    if kind == "wrong-data":
        cheat: Identity = _WrongSigner(victim._private_key)
    else:
        cheat = _impostor_of(victim)
    a, b = trio.testing.memory_stream_pair()
    if who == "responder":
        oi, orr = await both(a, b, honest, cheat)
        failed, other = oi, orr
    else:
        oi, orr = await both(a, b, cheat, honest)
        failed, other = orr, oi
    with pytest.raises(HandshakeError, match=f"{who}'s identity signature is invalid"):
        failed.unwrap()
    if who == "responder":
        with pytest.raises(HandshakeError):
            other.unwrap()
