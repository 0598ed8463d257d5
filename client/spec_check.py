"""The conformance runner behind ``dealerless spec check DIR`` (spec/conformance.md).

Another implementation points it at a folder of its own transcripts. Each ``*.dlt`` file is
read (spec/messages.md's file format), every frame (and every frame carried inside one) is
validated against the JSON Schema of spec/schema/, decoded and its signature verified, the whole
file is audited as ``dealerless audit`` does, and the report is compared with ``NAME.audit.json``
beside it when there is one. The first problem of a file is told as one line that names the
record, its kind and the field; :func:`diagnose` finds the field the audit's reason leaves
implicit by looking at the table's state just before the record.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dealerless.protocol.messages import MessageError, SignedMessage, decode_message
from dealerless.protocol.rules.base import ConfigError
from dealerless.protocol.table.audit import audit_records
from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.table.elements import result_digest
from dealerless.protocol.table.kinds import TABLE_REGISTRY
from dealerless.protocol.table.machine import TableMachine
from dealerless.protocol.table.schema_gen import build_schema, to_data_model
from dealerless.protocol.table.schema_payloads import BIN_KEY
from dealerless.protocol.transcript import (
    BadMagic,
    TranscriptError,
    TranscriptReader,
    TruncatedTranscript,
)
from dealerless.protocol.wire.codec import DEFAULT_LIMITS, unpack
from dealerless.protocol.wire.envelope import ENVELOPE_FIELDS
from dealerless.protocol.wire.errors import BadSignature
from dealerless.protocol.wire.identity import SIGNATURE_BYTES

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

ENVELOPE_NAMES = ("version", *(name for name, _ in ENVELOPE_FIELDS), "body")


@dataclass(frozen=True)
class Problem:
    text: str
    record: int | None = None
    kind: str | None = None
    field: str | None = None

    def line(self) -> str:
        where = "" if self.record is None else f"record {self.record} ({self.kind or '?'}): "
        what = "" if self.field is None else f"field '{self.field}': "
        return f"{where}{what}{self.text}"


@dataclass(frozen=True)
class FileResult:
    name: str
    problem: Problem | None
    summary: str = ""

    def line(self) -> str:
        if self.problem is None:
            return f"{self.name}: OK ({self.summary})"
        return f"{self.name}: {self.problem.line()}"


def dotted(path: Sequence[str | int]) -> str:
    """A path into a value as ``a.b[2].c``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


class Checker:
    """Validators made once (the schema is the code's own, which spec/schema/ holds: a test
    keeps the two equal), used for every file."""

    def __init__(self, schema: dict[str, Any] | None = None) -> None:
        from jsonschema import Draft202012Validator  # only this command needs it

        schema = build_schema() if schema is None else schema
        self.frames: Draft202012Validator = Draft202012Validator(schema)
        config_schema = {"$defs": schema["$defs"], "$ref": "#/$defs/table-config"}
        self.configs: Draft202012Validator = Draft202012Validator(config_schema)

    def check_file(self, path: Path) -> FileResult:
        name = path.name
        try:
            config_data, frames = _read(path)
        except _Refused as refused:
            return FileResult(name, refused.problem)
        problem = self.config_problem(config_data)
        if problem is not None:
            return FileResult(name, problem)
        config = TableConfig.from_wire(config_data)
        first = next((p for i, f in enumerate(frames) if (p := self.frame_problem(f, i))), None)
        report = audit_records(config, frames)
        got = json.loads(json.dumps(report.to_json()))
        expected, problem = _expected(path)
        if problem is not None:
            return FileResult(name, problem)
        if expected is not None and expected == got:
            return FileResult(name, None, f"{report.verdict}, {len(frames)} records, as expected")
        if first is not None:
            return FileResult(name, first)
        if report.failure is not None:
            return FileResult(name, _audit_problem(config, frames, report.failure_record, report))
        if expected is not None:
            return FileResult(name, _json_difference(expected, got))
        return FileResult(name, None, f"{report.verdict}, {len(frames)} records, no audit JSON")

    def config_problem(self, data: dict[str, Any]) -> Problem | None:
        try:
            model = to_data_model(data)
        except ValueError as exc:
            return Problem(f"header configuration: {exc}", field="config")
        error = _best(self.configs, model)
        if error is not None:
            return Problem(
                f"header configuration: {_short(error.message)}",
                field=dotted(["config", *error.absolute_path]),
            )
        try:
            TableConfig.from_wire(data)
        except (ConfigError, ValueError) as exc:
            return Problem(f"header configuration: {exc}", field="config")
        return None

    def frame_problem(self, frame: bytes, number: int, inside: str = "") -> Problem | None:
        """Schema first (it names the field), then what a schema cannot say: canonical
        encoding, the signature, the body's own checks."""
        kind = _kind_of(frame)
        try:
            packed = unpack(frame[:-SIGNATURE_BYTES], DEFAULT_LIMITS, path="envelope")
            model = {"envelope": to_data_model(packed), "signature": to_data_model(frame[-64:])}
        except (MessageError, ValueError) as exc:
            return Problem(f"{inside}not a frame: {exc}", number, kind, _field_in(str(exc)))
        error = _best(self.frames, model)
        if error is not None:
            path = list(error.absolute_path)
            if path[:1] == ["envelope"] and len(path) > 1 and isinstance(path[1], int):
                path = [ENVELOPE_NAMES[path[1]] if path[1] < 9 else path[1], *path[2:]]
            if path[-1:] == [BIN_KEY]:  # the data model's wrapper of bin, no field of its own
                path.pop()
            where = dotted([*_prefix(inside), *path])
            return Problem(f"{_short(error.message)} (schema)", number, kind, where or None)
        try:
            message = decode_message(frame, registry=TABLE_REGISTRY)
        except BadSignature as exc:
            return Problem(f"{inside}{exc}", number, kind, dotted([*_prefix(inside), "signature"]))
        except MessageError as exc:
            named = _field_in(str(exc))
            field = None if named is None else dotted([*_prefix(inside), named])
            return Problem(f"{inside}{exc}", number, kind, field)
        for label, inner in _embedded(message):
            problem = self.frame_problem(inner, number, f"{inside}{label}: ")
            if problem is not None:
                return Problem(problem.text, number, kind, problem.field)
        return None


class _Refused(Exception):
    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.text)
        self.problem = problem


def _read(path: Path) -> tuple[dict[str, Any], list[bytes]]:
    try:
        with TranscriptReader(path) as reader:
            return reader.header.config, [r.frame for r in reader.records()]
    except BadMagic:
        raise _Refused(Problem("not a dealerless transcript (no transcript magic bytes)")) from None
    except TruncatedTranscript as exc:
        raise _Refused(Problem(f"truncated: {exc}")) from None
    except TranscriptError as exc:
        raise _Refused(Problem(str(exc))) from None
    except OSError as exc:
        raise _Refused(Problem(f"unreadable: {exc.strerror or exc}")) from None


def _expected(path: Path) -> tuple[Any, Problem | None]:
    beside = path.with_name(path.name.removesuffix(".dlt") + ".audit.json")
    if not beside.exists():
        return None, None
    try:
        return json.loads(beside.read_text()), None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return None, Problem(f"{beside.name} is not readable JSON: {exc}")


def _best(validator: Draft202012Validator, model: object) -> Any:
    from jsonschema.exceptions import best_match

    return best_match(validator.iter_errors(model))


def _prefix(inside: str) -> list[str]:
    """The field path of a frame carried inside another (``body.evidence[0]: ``)."""
    return [inside.removesuffix(": ")] if inside else []


def _short(text: str) -> str:
    return text if len(text) <= 160 else text[:157] + "..."


def _kind_of(frame: bytes) -> str | None:
    try:
        envelope = unpack(frame[:-SIGNATURE_BYTES], DEFAULT_LIMITS, path="envelope")
    except (MessageError, ValueError):
        return None
    kind = envelope[7] if isinstance(envelope, list) and len(envelope) == 9 else None
    return kind if isinstance(kind, str) else None


_PATH = re.compile(r"\b(?:envelope|body|config)(?:\.[\w-]+|\[\d+\])*")


def _field_in(text: str) -> str | None:
    """The field a decoding error names (``envelope.seat: expected ...``)."""
    found = _PATH.search(text)
    if found is None:
        return None
    return found.group(0).removeprefix("envelope.")


def _embedded(message: SignedMessage) -> list[tuple[str, bytes]]:
    if message.kind == "admit":
        return [("body.request", message.body["request"])]
    if message.kind == "abort-vote":
        return [(f"body.evidence[{i}]", f) for i, f in enumerate(message.body.get("evidence", []))]
    return []


def _json_difference(expected: Any, got: Any, path: tuple[str | int, ...] = ()) -> Problem:
    """The first place the audit differs from the expected audit JSON."""
    if isinstance(expected, dict) and isinstance(got, dict):
        for key in [*expected, *(k for k in got if k not in expected)]:
            if expected.get(key, ...) != got.get(key, ...):
                if key not in expected or key not in got:
                    want, have = expected.get(key, "(absent)"), got.get(key, "(absent)")
                    text = f"expected {want!r}, audit has {have!r}"
                    return Problem(f"audit JSON: {text}", field=dotted(["audit", *path, key]))
                return _json_difference(expected[key], got[key], (*path, key))
    if isinstance(expected, list) and isinstance(got, list) and len(expected) == len(got):
        for i, (a, b) in enumerate(zip(expected, got, strict=True)):
            if a != b:
                return _json_difference(a, b, (*path, i))
    text = f"expected {_short(repr(expected))}, audit has {_short(repr(got))}"
    return Problem(f"audit JSON: {text}", field=dotted(["audit", *path]))


def _audit_problem(
    config: TableConfig, frames: Sequence[bytes], number: int | None, report: Any
) -> Problem:
    reason = str(report.failure)
    if number is None:
        return Problem(f"audit: {reason}")
    kind = _kind_of(frames[number])
    if number == 0:
        header = _header_changed(config, frames[0])
        if header is not None:
            return Problem(header, 0, kind, "config")
    try:
        field = diagnose(config, frames, number, reason)
    except Exception:  # the diagnosis is a courtesy; the audit's reason stands without it
        field = None
    return Problem(f"{reason} (audit)", number, kind, field)


def _header_changed(config: TableConfig, frame: bytes) -> str | None:
    """The first frame signs the configuration and chains to it: when both agree with each
    other and not with the header, the header is what changed."""
    message = decode_message(frame, registry=TABLE_REGISTRY)
    signed = message.body.get("config_hash") if message.kind == "config-sign" else None
    if signed is None or signed != message.prev or signed == config.digest():
        return None
    return (
        f"the header configuration's digest is {config.digest().hex()[:16]}..., the seats "
        f"signed {signed.hex()[:16]}...: the header is not the configuration they signed"
    )


def diagnose(config: TableConfig, frames: Sequence[bytes], number: int, reason: str) -> str | None:
    """The field of record ``number`` that makes the audit refuse it: the table is replayed to
    just before it (as the audit does) and the record compared with what that state expects."""
    message = decode_message(frames[number], registry=TABLE_REGISTRY)
    machine = TableMachine(config, None, replay=True)
    for frame in frames[:number]:
        machine._receive(frame)
        machine.votes.check_certificates()
        machine.take_events()
    now = machine.config
    body: dict[str, Any] = dict(message.body)
    if message.table_id != now.table_id:
        return "table_id"
    author = now.seat_of(message.author.raw)
    if message.kind != "next-config" and author is None:
        return "author"
    if message.kind != "next-config" and message.seat != author:
        return "seat"
    sequence = re.search(r"hand (\d+) seq (\d+), expected (\d+)/(\d+)", reason)
    if sequence is not None:
        hand, _, want_hand, _ = (int(g) for g in sequence.groups())
        return "hand" if hand != want_hand else "seq"
    if message.prev != machine.head and message.prev not in machine.history:
        return "prev"
    return _body_field(machine, message, body, reason)


_NEXT_CONFIG = {
    "another table": "table_id",
    "game or its house rules": "game",
    "step timeout": "step_timeout_ms",
    "carries nothing": "carry",
    "every seat that stays": "seats",
}


def _body_field(
    machine: TableMachine, message: SignedMessage, body: dict[str, Any], reason: str
) -> str | None:
    kind = message.kind
    if kind == "timeout-vote":
        if body["head"] != message.prev:
            return "body.head"
        return "body.silent" if "malformed" in reason else None
    if kind == "abort-vote":
        if body["anchor"] != message.prev:
            return "body.anchor"
        return "body.culprit" if "malformed" in reason else None
    if kind == "config-sign" and body["config_hash"] != machine.config.digest():
        return "body.config_hash"
    if kind == "result" and machine.engine.hand_result is not None:
        if body["result"] != result_digest(machine.engine.hand_result):
            return "body.result"
        if body["state"] != machine.engine.public_digest():
            return "body.state"
    if kind == "next-config":
        carry = re.search(r"\bcarry\.(\w+)", reason)
        if carry is not None:
            return f"body.config.carry.{carry.group(1)}"
        named = next((f for words, f in _NEXT_CONFIG.items() if words in reason), None)
        return None if named is None else f"body.config.{named}"
    if kind == "action":
        return _action_field(machine, message, body["action"], reason)
    if "proof" in reason or "not verify" in reason:
        return _proof_field(body, reason)
    return None


def _action_field(
    machine: TableMachine, message: SignedMessage, action: dict[str, Any], reason: str
) -> str | None:
    if action.get("seat") != message.seat:
        return "body.action.seat"
    if "opened card" in reason or "card" in reason.split(":")[-1]:
        return "body.action.card"
    legal = [a.to_wire() for a in machine.engine.legal_actions(message.seat or 0)]
    best: list[str] | None = None
    for option in legal:
        differ = sorted(k for k in {*option, *action} if option.get(k) != action.get(k))
        if best is None or len(differ) < len(best):
            best = differ
    if not best:
        return None
    return f"body.action.{best[0] if len(best) == 1 or 'kind' not in best else 'kind'}"


def _proof_field(body: dict[str, Any], reason: str) -> str | None:
    """The proof a crypto check refused: a legality proof's by its position, else the
    payload's (a batch of shares has one proof)."""
    position = re.search(r"position (\d+)", reason)
    for name in ("batch", "reveal", "shuffle", "commit", "nonmember", "proof"):
        if name not in body:
            continue
        value = body[name]
        if isinstance(value, list) and position is not None:
            for i, item in enumerate(value):
                if isinstance(item, dict) and item.get("pos") == int(position.group(1)):
                    return f"body.{name}[{i}].proof"
        if isinstance(value, dict) and "proof" in value:
            return f"body.{name}.proof"
        return f"body.{name}"
    return None
