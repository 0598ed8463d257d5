"""The conformance runner (``dealerless spec check DIR``, client/spec_check.py) over the protocol
vectors of spec/vectors/protocol/: it accepts every one, and refuses a copy of each with one field
changed (re-signed with the author's key, so that only that field is wrong), naming the record,
its kind and the field. Bad input is one line, never a traceback."""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import msgpack
import pytest
from make_protocol_vectors import vector_keys

from dealerless.client.cli import main
from dealerless.client.spec_check import Checker
from dealerless.protocol.messages import DOMAIN, IdentityKey, decode_message, sign_message
from dealerless.protocol.table.kinds import TABLE_REGISTRY
from dealerless.protocol.transcript import TranscriptReader, encode_header, encode_record

VECTORS = Path(__file__).resolve().parents[2] / "spec" / "vectors" / "protocol"
NAMES = sorted(p.stem for p in VECTORS.glob("*.dlt"))
Body = dict[str, Any]


@cache
def checker() -> Checker:
    return Checker()


@cache
def vector(name: str) -> tuple[dict[str, Any], tuple[bytes, ...]]:
    with TranscriptReader(VECTORS / f"{name}.dlt") as reader:
        return reader.header.config, tuple(r.frame for r in reader.records())


def write(folder: Path, name: str, config: dict[str, Any], frames: list[bytes]) -> Path:
    path = folder / f"{name}.dlt"
    path.write_bytes(encode_header(config) + b"".join(encode_record(f) for f in frames))
    shutil.copy(VECTORS / f"{name}.audit.json", folder / f"{name}.audit.json")
    return path


def flip(data: bytes, at: int = 0) -> bytes:
    return data[:at] + bytes([data[at] ^ 1]) + data[at + 1 :]


def find(name: str, kind: str, test: Callable[[Any], bool] = lambda m: True, nth: int = 0) -> int:
    found = [
        i
        for i, f in enumerate(vector(name)[1])
        if (m := decode_message(f, registry=TABLE_REGISTRY)).kind == kind and test(m)
    ]
    return found[nth]


def resign(name: str, frame: bytes, change: Callable[[dict[str, Any]], None]) -> bytes:
    """The frame with ``change`` applied to its fields, signed again by its author."""
    message = decode_message(frame, registry=TABLE_REGISTRY)
    fields: dict[str, Any] = {
        "table_id": message.table_id,
        "hand": message.hand,
        "seq": message.seq,
        "prev": message.prev,
        "seat": message.seat,
        "kind": message.kind,
        "body": copy.deepcopy(dict(message.body)),
    }
    change(fields)
    key = vector_keys(name)[message.author.raw]
    return sign_message(key, registry=TABLE_REGISTRY, **fields).frame


def raw_resign(name: str, frame: bytes, change: Callable[[list[Any]], None]) -> bytes:
    """Re-sign an envelope changed outside the schema (sign_message would refuse it)."""
    envelope = msgpack.unpackb(frame[:-64], raw=False, strict_map_key=False)
    change(envelope)
    packed: bytes = msgpack.packb(envelope, use_bin_type=True)
    key: IdentityKey = vector_keys(name)[envelope[6]]
    return packed + key.sign(DOMAIN + packed)


def body(edit: Callable[[Body], None]) -> Callable[[dict[str, Any]], None]:
    return lambda fields: edit(fields["body"])


def envelope(name: str, value: Callable[[Any], Any]) -> Callable[[dict[str, Any]], None]:
    return lambda fields: fields.__setitem__(name, value(fields[name]))


def is_play(m: Any) -> bool:
    return m.kind == "action" and m.body["action"]["kind"] == "play"


def next_card(b: Body) -> None:
    b["action"]["card"] = (b["action"]["card"] + 1) % 32


def share_proof(b: Body) -> None:
    b["batch"]["proof"][1] = flip(b["batch"]["proof"][1], 31)


# (vector, kind, which record of that kind, the change, the field the runner must name)
Case = tuple[str, str, Callable[[Any], bool], Callable[[dict[str, Any]], None], str]
ACTION: Callable[[Any], bool] = lambda m: True  # noqa: E731
CASES: dict[str, Case] = {
    "tuppen prev": ("tuppen-3p", "action", ACTION, envelope("prev", flip), "prev"),
    "tuppen seq": ("tuppen-3p", "action", ACTION, envelope("seq", lambda s: s + 1), "seq"),
    "tuppen hand": ("tuppen-3p", "shuffle", ACTION, envelope("hand", lambda h: h + 1), "hand"),
    "tuppen seat": ("tuppen-3p", "action", ACTION, envelope("seat", lambda s: (s + 1) % 3), "seat"),
    "tuppen table": ("tuppen-3p", "shares", ACTION, envelope("table_id", flip), "table_id"),
    "tuppen key proof": (
        "tuppen-3p",
        "key-reveal",
        ACTION,
        body(
            lambda b: b["reveal"].__setitem__(
                "proof", [b["reveal"]["proof"][0], flip(b["reveal"]["proof"][1], 31)]
            )
        ),
        "body.reveal.proof",
    ),
    "tuppen result": (
        "tuppen-3p",
        "result",
        ACTION,
        body(lambda b: b.__setitem__("state", flip(b["state"]))),
        "body.state",
    ),
    "tuppen config hash": (
        "tuppen-3p",
        "config-sign",
        ACTION,
        body(lambda b: b.__setitem__("config_hash", flip(b["config_hash"]))),
        "body.config_hash",
    ),
    "pot-limit card": ("pot-limit-3p", "action", is_play, body(next_card), "body.action.card"),
    "no-limit share proof": (
        "no-limit-2p",
        "shares",
        ACTION,
        body(share_proof),
        "body.batch.proof",
    ),
    "pottuppen action seat": (
        "pottuppen-3p",
        "action",
        ACTION,
        body(lambda b: b["action"].__setitem__("seat", (b["action"]["seat"] + 1) % 3)),
        "body.action.seat",
    ),
    "belote shuffle proof": (
        "belote-4p",
        "shuffle",
        ACTION,
        body(
            lambda b: b["shuffle"]["proof"]["s"].__setitem__(
                0, flip(b["shuffle"]["proof"]["s"][0], 31)
            )
        ),
        "body.shuffle.proof",
    ),
    "belote bid suit": (
        "belote-4p",
        "action",
        lambda m: m.body["action"]["kind"] == "bid",
        body(lambda b: b["action"].__setitem__("suit", (b["action"]["suit"] + 1) % 4)),
        "body.action.suit",
    ),
    "timeout certificate hash": (
        "timeout-3p",
        "timeout-vote",
        ACTION,
        body(lambda b: b.__setitem__("head", flip(b["head"]))),
        "body.head",
    ),
    "abort certificate anchor": (
        "abort-3p",
        "abort-vote",
        ACTION,
        body(lambda b: b.__setitem__("anchor", flip(b["anchor"]))),
        "body.anchor",
    ),
    "abort evidence signature": (
        "abort-3p",
        "abort-vote",
        ACTION,
        body(
            lambda b: b.__setitem__("evidence", [flip(b["evidence"][0], len(b["evidence"][0]) - 1)])
        ),
        "body.evidence[0].signature",
    ),
    "next-config step timeout": (
        "limit-3p-nextconfig",
        "next-config",
        ACTION,
        body(lambda b: b["config"].__setitem__("step_timeout_ms", 30_000)),
        "body.config.step_timeout_ms",
    ),
    "returner's ledger": (
        "limit-3p-seatchange",
        "next-config",
        lambda m: m.body["config"]["carry"]["segment"] == 2,
        body(lambda b: b["config"]["carry"]["ledgers"][2].__setitem__("stack", 99)),
        "body.config.carry.ledgers",
    ),
    "card after the return": (
        "limit-3p-seatchange",
        "action",
        lambda m: is_play(m) and m.hand == 4,
        body(next_card),
        "body.action.card",
    ),
}


def refusal(
    tmp_path: Path, name: str, frames: list[bytes], config: dict[str, Any] | None = None
) -> str:
    path = write(tmp_path, name, vector(name)[0] if config is None else config, frames)
    result = checker().check_file(path)
    assert result.problem is not None, f"{name}: the changed copy was accepted"
    return result.line()


@pytest.mark.parametrize("case", list(CASES))
def test_one_field_changed_is_refused_naming_the_field(tmp_path: Path, case: str) -> None:
    name, kind, which, change, field = CASES[case]
    number = find(name, kind, which)
    frames = list(vector(name)[1])
    frames[number] = resign(name, frames[number], change)
    line = refusal(tmp_path, name, frames)
    assert line.startswith(f"{name}.dlt: record {number} ({kind}): field '{field}': "), line


@pytest.mark.parametrize("name", NAMES)
def test_a_flipped_signature_byte_is_refused_in_every_vector(tmp_path: Path, name: str) -> None:
    frames = list(vector(name)[1])
    number = len(frames) // 2
    frames[number] = flip(frames[number], len(frames[number]) - 5)
    line = refusal(tmp_path, name, frames)
    assert f": record {number} (" in line and "field 'signature'" in line, line


@pytest.mark.parametrize(
    ("name", "kind", "change", "field"),
    [
        (
            "tuppen-3p",
            "action",
            lambda e: e[8]["action"].__setitem__("card", "AH"),
            "body.action.card",
        ),
        ("belote-4p", "shares", lambda e: e.__setitem__(5, "0"), "seat"),
        ("pottuppen-3p", "result", lambda e: e[8].__setitem__("state", b"\x00" * 31), "body.state"),
    ],
)
def test_a_type_changed_outside_the_schema_is_refused_by_the_schema(
    tmp_path: Path, name: str, kind: str, change: Callable[[list[Any]], None], field: str
) -> None:
    number = find(name, kind, is_play if kind == "action" else ACTION)
    frames = list(vector(name)[1])
    frames[number] = raw_resign(name, frames[number], change)
    line = refusal(tmp_path, name, frames)
    assert line.startswith(f"{name}.dlt: record {number} ({kind}): field '{field}': "), line
    assert line.endswith("(schema)")


def test_a_changed_header_configuration_names_the_configuration(tmp_path: Path) -> None:
    config = dict(vector("no-limit-2p")[0], step_timeout_ms=30_000)
    line = refusal(tmp_path, "no-limit-2p", list(vector("no-limit-2p")[1]), config)
    assert "record 0 (config-sign): field 'config': the header configuration's digest" in line
    config = dict(vector("no-limit-2p")[0], step_timeout_ms="60 s")
    line = refusal(tmp_path, "no-limit-2p", list(vector("no-limit-2p")[1]), config)
    assert line.startswith("no-limit-2p.dlt: field 'config.step_timeout_ms': "), line


def test_an_audit_that_differs_from_the_expected_json_names_the_key(tmp_path: Path) -> None:
    path = write(
        tmp_path, "pot-limit-3p", *vector("pot-limit-3p")[:1], list(vector("pot-limit-3p")[1])
    )
    expected = json.loads(path.with_name("pot-limit-3p.audit.json").read_text())
    expected["hands"][1]["deltas"][0] += 1
    path.with_name("pot-limit-3p.audit.json").write_text(json.dumps(expected))
    line = checker().check_file(path).line()
    assert line.startswith("pot-limit-3p.dlt: field 'audit.hands[1].deltas[0]': audit JSON"), line


# --- the command ---------------------------------------------------------------------------------


def test_the_runner_accepts_every_vector(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spec", "check", str(VECTORS)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"{n}.dlt: OK ({line.split('(', 1)[1]}" for n, line in zip(NAMES, lines, strict=True)
    ]
    assert all("as expected" in line for line in lines)


def test_bad_input_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spec", "check", str(tmp_path / "nowhere")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["spec", "check", str(VECTORS / "tuppen-3p.dlt")]) == 2
    assert "is not a folder" in capsys.readouterr().err
    assert main(["spec", "check", str(tmp_path)]) == 2
    assert "holds no transcript" in capsys.readouterr().err
    data = (VECTORS / "abort-3p.dlt").read_bytes()
    (tmp_path / "a-foreign.dlt").write_bytes(b"PK\x03\x04 a zip file, not a transcript")
    (tmp_path / "b-truncated.dlt").write_bytes(data[: len(data) - 100])
    (tmp_path / "c-empty.dlt").write_bytes(b"")
    (tmp_path / "d-good.dlt").write_bytes(data)
    (tmp_path / "d-good.audit.json").write_text("{not json")
    assert main(["spec", "check", str(tmp_path)]) == 1
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    lines = out.out.splitlines()
    assert lines[0].startswith("a-foreign.dlt: not a dealerless transcript")
    assert lines[1].startswith("b-truncated.dlt: truncated: ")
    assert lines[2].startswith("c-empty.dlt: truncated: ")
    assert lines[3].startswith("d-good.dlt: d-good.audit.json is not readable JSON")
    assert len(lines) == 4
