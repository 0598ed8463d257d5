"""Fixed test vectors from spec/messages.md (another implementation must produce these bytes)."""

from __future__ import annotations

import io

from dealerless.protocol.messages import (
    GENESIS_PREV,
    IdentityKey,
    decode_message,
    sign_message,
)
from dealerless.protocol.transcript import TranscriptReader, TranscriptWriter

SPEC_FILE = bytes.fromhex(
    "89444c530d0a1a0a00010000001682a4"
    "67616d65a674757070656ea7706c6179"
    "657273044d8ebc24000000aa174795ea"
    "9901c410000102030405060708090a0b"
    "0c0d0e0f0000c4200000000000000000"
    "00000000000000000000000000000000"
    "0000000000000000c0c42003a107bff3"
    "ce10be1d70dd18e74bc09967e4d6309b"
    "a50d5f1ddc8664125531b8a46a6f696e"
    "81a46e616d65a3416e6e826c99bdc43d"
    "a06075e263fc40ede90d39d75f8a38ed"
    "abd8f2db594f25b71e50fcfe94752f64"
    "d9dd2cd4ca6e0da319f0a5b2f405a8d2"
    "c1d171849a9d64c66b0a793e36a6"
)
SPEC_HASH = "2ad64828c90b1ed1dbc8e83439137da9b03bd1259b9b50cf202d6a343548a9e8"


def test_spec_example() -> None:
    key = IdentityKey.from_private_bytes(bytes(range(32)))
    assert key.peer_id.raw.hex().startswith("03a107bf")
    assert key.peer_id.fingerprint == "KZDV-VJ2U-MNDU-YAUF-35O3-6K6K"
    msg = sign_message(
        key,
        table_id=bytes(range(16)),
        hand=0,
        seq=0,
        prev=GENESIS_PREV,
        seat=None,
        kind="join",
        body={"name": "Ann"},
    )
    assert len(msg.frame) == 170
    assert msg.digest.hex() == SPEC_HASH
    buf = io.BytesIO()
    TranscriptWriter.create(buf, {"game": "tuppen", "players": 4}).append(msg)
    assert buf.getvalue() == SPEC_FILE
    assert SPEC_FILE[0x30:0xDA] == msg.frame
    reader = TranscriptReader(io.BytesIO(SPEC_FILE))
    assert [m.frame for m in reader.messages()] == [msg.frame]
    assert decode_message(msg.frame).body == {"name": "Ann"}
