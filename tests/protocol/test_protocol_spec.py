"""spec/protocol.md's generated tables match the code; the example transcript audits."""

from __future__ import annotations

import json
from pathlib import Path

from dealerless.client.commands.audit import read_transcript
from dealerless.protocol.table.audit import audit_records
from dealerless.protocol.table.spec_gen import render

ROOT = Path(__file__).resolve().parents[2]


def test_protocol_spec_is_generated_from_the_code() -> None:
    document = (ROOT / "spec" / "protocol.md").read_text()
    assert render(document) == document, "run: python -m dealerless.protocol.table.spec_gen"


def test_example_transcript_audits_to_its_recorded_report() -> None:
    vectors = ROOT / "spec" / "vectors" / "protocol"
    config, frames = read_transcript(str(vectors / "tuppen-2p.dlt"))
    report = audit_records(config, frames).to_json()
    expected = json.loads((vectors / "tuppen-2p.audit.json").read_text())
    assert report == expected
    assert report["ok"] and report["complete"]
