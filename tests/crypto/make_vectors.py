"""Write spec/vectors/crypto/*.json (run: .venv/bin/python tests/crypto/make_vectors.py).

The vectors are deterministic: the recorded hand uses a seeded SHA-256 ``randbelow`` (test-only;
play uses ``secrets``). test_crypto_vectors.py re-verifies the files and checks that this
generator still reproduces them byte for byte.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from crypto_table import DetRand, SimTable

from dealerless.protocol.crypto import generators as gen
from dealerless.protocol.crypto.elgamal import initial_deck
from dealerless.protocol.crypto.group import Point
from dealerless.protocol.crypto.h2c import hash_to_curve, hash_to_field, map_to_curve

OUT_DIR = Path(__file__).resolve().parents[2] / "spec" / "vectors" / "crypto"
QUUX = b"QUUX-V01-CS02-with-secp256k1_XMD:SHA-256_SSWU_RO_"
SEED = b"dealerless-v1-test-vector-seed"


def hexify(obj: Any) -> Any:
    """Wire payload -> JSON: bytes become lowercase hex strings (no other strings occur)."""
    if isinstance(obj, bytes | bytearray):
        return bytes(obj).hex()
    if isinstance(obj, dict):
        return {k: hexify(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [hexify(v) for v in obj]
    return obj


def unhexify(obj: Any) -> Any:
    if isinstance(obj, str):
        return bytes.fromhex(obj)
    if isinstance(obj, dict):
        return {k: unhexify(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [unhexify(v) for v in obj]
    return obj


def _pt(p: Point) -> dict[str, str]:
    x, y = p.xy()
    return {"x": f"{x:064x}", "y": f"{y:064x}", "compressed": p.encode().hex()}


def h2c_vectors() -> dict[str, Any]:
    cases = []
    for msg in (b"", b"abc", b"abcdef0123456789"):
        u = hash_to_field(msg, QUUX)
        cases.append(
            {
                "msg": msg.decode(),
                "u0": f"{u[0]:064x}",
                "u1": f"{u[1]:064x}",
                "Q0": _pt(map_to_curve(u[0])),
                "Q1": _pt(map_to_curve(u[1])),
                "P": _pt(hash_to_curve(msg, QUUX)),
            }
        )
    return {
        "suite": "secp256k1_XMD:SHA-256_SSWU_RO_",
        "source": "RFC 9380 appendix J.8.1",
        "dst": QUUX.decode(),
        "cases": cases,
    }


def generator_vectors() -> dict[str, Any]:
    return {
        "suite": "secp256k1_XMD:SHA-256_SSWU_RO_",
        "generator_dst": gen.GEN_DST.decode(),
        "card_dst": gen.CARD_DST.decode(),
        "g": {"msg_hex": b"g".hex(), **_pt(gen.g())},
        "h": {"msg_hex": b"h".hex(), **_pt(gen.h())},
        "h_i": [
            {"i": i, "msg_hex": (b"h_i:" + i.to_bytes(2, "big")).hex(), **_pt(p)}
            for i, p in enumerate(gen.shuffle_bases(32))
        ],
        "cards": [
            {"index": i, "msg_hex": (b"card:" + bytes([i])).hex(), **_pt(p)}
            for i, p in enumerate(gen.card_points())
        ],
    }


def hand_vectors() -> dict[str, Any]:
    """Two players: keys, two shuffles, private deal of 4 cards each, one open, one proof."""
    from crypto_table import wire

    rand = DetRand(SEED)
    t = SimTable(2, table_id=b"vector-table", hand=3, rand=rand)
    commits = [wire(p.commit()) for p in t.players]
    t.setup_keys()
    reveals = [wire(p.reveal(rand)) for p in t.players]
    assert t.y is not None
    deck0 = initial_deck(t.y)
    t.shuffle_all()
    deal = []
    for pos in range(8):
        owner = pos % 2
        other = 1 - owner
        msg = t.publish_share(other, pos, "deal")
        t.shares.setdefault(pos, {})[other] = msg.share
        t.owner[pos] = owner
        from dealerless.protocol.crypto import recover_card

        card = recover_card(t.players[owner], pos, t.deck[pos], [msg.share])
        t.known[pos] = card
        deal.append({"position": pos, "owner": owner, "share": hexify(wire(msg)), "card": card})
    from dealerless.protocol.crypto import make_share_batch

    batches = [
        hexify(
            wire(
                make_share_batch(
                    t.players[s], [p for p in range(8) if p % 2 != s], t.deck, "deal", rand
                )
            )
        )
        for s in range(2)
    ]
    open_msg = t.publish_share(0, 0, "open")
    forbidden = sorted(c for c in range(32) if c // 8 == (t.known[1] // 8 + 1) % 4)
    nm = t.nonmember(1, forbidden, "trick1")
    return {
        "note": "deterministic test randomness (SHA-256 counter) - never used in play",
        "seed_hex": SEED.hex(),
        "table_id_hex": t.hctx.table_id.hex(),
        "hand": t.hctx.hand,
        "secret_keys": [f"{p.x:064x}" for p in t.players],
        "key_commits": hexify(commits),
        "key_reveals": hexify(reveals),
        "joint_key": t.y.encode().hex(),
        "initial_deck": hexify([ct.to_wire() for ct in deck0]),
        "shuffles": [hexify(m.to_wire()) for m in t.shuffles],
        "deal_step": "deal",
        "deal": deal,
        "deal_batches": batches,
        "open": {"position": 0, "step": "open", "share": hexify(wire(open_msg))},
        "nonmember": {
            "position": 1,
            "step": "trick1",
            "forbidden": forbidden,
            "message": hexify(nm.to_wire()),
        },
    }


def all_vectors() -> dict[str, Any]:
    return {
        "h2c.json": h2c_vectors(),
        "generators.json": generator_vectors(),
        "hand.json": hand_vectors(),
    }


def main() -> None:
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    for name, data in all_vectors().items():
        (OUT_DIR / name).write_text(json.dumps(data, indent=1) + "\n")
        print("wrote", OUT_DIR / name)


if __name__ == "__main__":
    main()
