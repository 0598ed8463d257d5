"""Fixed handshake test vectors (also printed in spec/transport.md), and an independent
re-derivation of the key schedule from the spec with only hashlib/hmac."""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path

import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from dealerless.node.identity import Identity
from dealerless.node.transport import TransportConfig
from dealerless.node.transport.cipher import CipherState
from dealerless.node.transport.framing import FrameReader
from dealerless.node.transport.handshake import (
    HandshakeResult,
    initiator_handshake,
    responder_handshake,
)

ID_I = "8a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c"
ID_R = "8139770ea87d175f56a35466c34c7ecccb8d8a91b4ee37a25df60f5b8fc9b394"
FP_I = "GR2Q-7GF5-LH6P-ZFDN-URNK-VPUT"
FP_R = "NI4A-HVPQ-LGIC-UHDN-V66J-XJDS"
MSG1 = "00000026444c545001015dfedd3b6bd47f6fa28ee15d969d5bb0ea53774d488bdaf9df1c6e0124b3ef22"
MSG2 = (
    "00000096444c54500102ac01b2209e86354fb853237b5de0f4fab13c7fcbf433a61c019369617fecf10ba1"
    "a103539ba3d916480df1269914b144a89118058f40f5c5b77a9746b32b23ed382e5869d16e405cf2d25ed2"
    "05454441234b52df68e290c80afb62cbebe3e6361fcd8b045cb6e18d5d821fdb738035b6eeb62ad45eb71d"
    "c4bb08c2afeb63bc423f7069b616a5eb9f55481440267c8c95"
)
MSG3 = (
    "00000076444c54500103ebbde7eabc304950754301a4d2cf951a04e9d425ef1c640324d810a6db7d3ab94e"
    "e197257b9f80319191d6e534ac55cecd976e0fa1c42c178b6231e9496c1016e492aafc7ab5f98907d5ec7d"
    "e7ff77e51c97a58f7ba5972466be65ada8145dcb4d96e9e9b6002151114347a0f015cd65"
)
H = "cd99b39f804443bc8c93458957958c25552393ae9e1c27bb6d6d03f45453474d"
K_I2R = "0bb144b3096ff6e7574d35c8811532d204ac6764c611fda1e894048108de6ed7"
K_R2I = "c2dfca4c6aed73ca7763702dce721ba6bc14d83414066c5b8d1cbbdf4784ac5f"
RECORD0 = "e12d4d51e62953e61859ab0512111060e2e3f9538e52"  # DATA "hello", counter 0
RECORD1 = "2425f0299f99b84ddc1e4295b58c86e6ca"  # KEEPALIVE, counter 1

SEED_ID_I, SEED_ID_R, SEED_E_I, SEED_E_R = (bytes([n]) * 32 for n in (1, 2, 3, 4))
PROLOGUE = b"test"


async def _run_vector() -> tuple[list[tuple[str, bytes]], HandshakeResult, HandshakeResult]:
    ii = Identity(Ed25519PrivateKey.from_private_bytes(SEED_ID_I))
    ir = Identity(Ed25519PrivateKey.from_private_bytes(SEED_ID_R))
    ei = X25519PrivateKey.from_private_bytes(SEED_E_I)
    er = X25519PrivateKey.from_private_bytes(SEED_E_R)
    a, b = trio.testing.memory_stream_pair()
    wire: list[tuple[str, bytes]] = []
    out: dict[str, HandshakeResult] = {}
    config = TransportConfig(prologue=PROLOGUE)

    class Tap(trio.abc.Stream):
        def __init__(self, inner: trio.abc.Stream, who: str) -> None:
            self.inner, self.who = inner, who

        async def send_all(self, data: bytes | bytearray | memoryview) -> None:
            wire.append((self.who, bytes(data)))
            await self.inner.send_all(data)

        async def wait_send_all_might_not_block(self) -> None:
            await self.inner.wait_send_all_might_not_block()

        async def receive_some(self, max_bytes: int | None = None) -> bytes:
            return bytes(await self.inner.receive_some(max_bytes))

        async def send_eof(self) -> None:
            pass

        async def aclose(self) -> None:
            await self.inner.aclose()

    ta, tb = Tap(a, "i"), Tap(b, "r")

    async def run_i() -> None:
        out["i"] = await initiator_handshake(ta, FrameReader(ta), ii, FP_R, config, ephemeral=ei)

    async def run_r() -> None:
        out["r"] = await responder_handshake(tb, FrameReader(tb), ir, FP_I, config, ephemeral=er)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run_i)
        nursery.start_soon(run_r)
    return wire, out["i"], out["r"]


def test_handshake_vector() -> None:
    wire, ri, rr = trio.run(_run_vector)
    assert [(who, data.hex()) for who, data in wire] == [("i", MSG1), ("r", MSG2), ("i", MSG3)]
    assert ri.handshake_hash.hex() == rr.handshake_hash.hex() == H
    assert (ri.send_key.hex(), ri.receive_key.hex()) == (K_I2R, K_R2I)
    assert (rr.send_key.hex(), rr.receive_key.hex()) == (K_R2I, K_I2R)
    assert ri.peer_id.public_key.hex() == ID_R and rr.peer_id.public_key.hex() == ID_I
    assert ri.peer_id.fingerprint == FP_R and rr.peer_id.fingerprint == FP_I
    cipher = CipherState(bytes.fromhex(K_I2R))
    assert cipher.encrypt(b"\x01hello").hex() == RECORD0
    assert cipher.encrypt(b"\x02").hex() == RECORD1


def _hkdf2(ck: bytes, ikm: bytes) -> tuple[bytes, bytes]:
    temp = hmac.new(ck, ikm, hashlib.sha256).digest()
    out1 = hmac.new(temp, b"\x01", hashlib.sha256).digest()
    out2 = hmac.new(temp, out1 + b"\x02", hashlib.sha256).digest()
    return out1, out2


def _sha(*parts: bytes) -> bytes:
    return hashlib.sha256(b"".join(parts)).digest()


def test_key_schedule_rederived_from_the_spec() -> None:
    """Recompute h, ck, k and the session keys from spec/transport.md, not from the code."""
    msg1, msg2, msg3 = (bytes.fromhex(m)[4:] for m in (MSG1, MSG2, MSG3))  # strip lengths
    name = b"dealerless-transport/1 XXsig_25519_ChaChaPoly_SHA256_Ed25519"
    h = _sha(name)  # longer than 32 bytes: hashed
    ck = h
    h = _sha(h, PROLOGUE)
    h = _sha(h, msg1[:6])
    h = _sha(h, msg1[6:38])
    h = _sha(h, msg2[:6])
    h = _sha(h, msg2[6:38])
    dh = X25519PrivateKey.from_private_bytes(SEED_E_I).exchange(
        X25519PublicKey.from_public_bytes(msg2[6:38])
    )
    ck, k = _hkdf2(ck, dh)
    aead = ChaCha20Poly1305(k)
    h_sig_r = h
    payload2 = aead.decrypt(bytes(12), msg2[38:], h)
    assert payload2[:32].hex() == ID_R
    Ed25519PublicKey.from_public_bytes(payload2[:32]).verify(
        payload2[32:], b"dealerless-transport/1 responder signature\x00" + h_sig_r + payload2[:32]
    )
    h = _sha(h, msg2[38:])
    h = _sha(h, msg3[:6])
    h_sig_i = h
    payload3 = aead.decrypt(bytes(4) + (1).to_bytes(8, "little"), msg3[6:], h)
    assert payload3[:32].hex() == ID_I
    Ed25519PublicKey.from_public_bytes(payload3[:32]).verify(
        payload3[32:], b"dealerless-transport/1 initiator signature\x00" + h_sig_i + payload3[:32]
    )
    h = _sha(h, msg3[6:])
    assert h.hex() == H
    k_i2r, k_r2i = _hkdf2(ck, b"")
    assert (k_i2r.hex(), k_r2i.hex()) == (K_I2R, K_R2I)
    record = ChaCha20Poly1305(k_i2r).decrypt(bytes(12), bytes.fromhex(RECORD0), b"")
    assert record == b"\x01hello"


def test_spec_shows_the_same_vectors() -> None:
    spec = (Path(__file__).parents[2] / "spec" / "transport.md").read_text()
    compact = "".join(spec.split())
    for value in (ID_I, ID_R, FP_I, FP_R, MSG1, MSG2, MSG3, H, K_I2R, K_R2I, RECORD0, RECORD1):
        assert value in compact
