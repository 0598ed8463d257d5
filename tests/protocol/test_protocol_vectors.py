"""The protocol vectors of spec/vectors/protocol/ are what tests/protocol/make_protocol_vectors.py
writes, byte for byte (seeded randomness and keys make them deterministic), and each audits to
the JSON beside it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from make_protocol_vectors import OUT_DIR, SCENARIOS, make

from dealerless.client.commands.audit import read_transcript
from dealerless.protocol.table.audit import audit_records


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_the_generator_writes_the_checked_in_vector_byte_for_byte(name: str) -> None:
    data, report = make(name)
    assert data == (OUT_DIR / f"{name}.dlt").read_bytes(), (
        f"run: .venv/bin/python tests/protocol/make_protocol_vectors.py {name}"
    )
    assert report == (OUT_DIR / f"{name}.audit.json").read_text()


@pytest.mark.parametrize("name", sorted(p.stem for p in OUT_DIR.glob("*.dlt")))
def test_every_vector_audits_to_its_json(name: str) -> None:
    config, frames = read_transcript(str(OUT_DIR / f"{name}.dlt"))
    expected = json.loads(Path(OUT_DIR / f"{name}.audit.json").read_text())
    assert audit_records(config, frames).to_json() == expected


def test_the_vectors_show_what_spec_conformance_md_promises() -> None:
    def audit(name: str) -> dict[str, object]:
        loaded: dict[str, object] = json.loads((OUT_DIR / f"{name}.audit.json").read_text())
        return loaded

    games = {audit(n)["game"] for n in SCENARIOS}
    assert games == {
        "tuppen", "limit-tuppen", "no-limit-tuppen", "pot-limit-tuppen", "pottuppen", "belote"
    }  # fmt: skip
    changes = audit("limit-3p-seatchange")["seat_changes"]
    assert isinstance(changes, list) and len(changes) == 2
    left, back = ([s["name"] for s in c["seats"]] for c in changes)
    assert "bot1" not in left and "bot1" in back  # sat out, then returned
    assert audit("timeout-3p")["silences"] and audit("abort-3p")["caught"]
