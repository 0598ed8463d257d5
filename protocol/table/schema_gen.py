"""The JSON Schema (draft 2020-12) of a table frame: ``spec/schema/table-frame.schema.json``.

``python -m dealerless.protocol.table.schema_gen --write spec/schema/table-frame.schema.json``
writes it; without ``--write`` it prints it. A test fails when the checked-in file and this
generator disagree, so the file follows the code: the envelope from ``ENVELOPE_FIELDS``, one body
per kind of ``TABLE_REGISTRY`` converted from its field types, and the deck payloads, game action
and table configuration the registry leaves open from :mod:`.schema_payloads`.

The schema validates the *data model* of a frame, not its bytes (spec/schema/README.md):
:func:`frame_data_model` is the reference mapping (msgpack bin -> ``{"$bin": hex}``; the frame ->
``{"envelope": [...9 items], "signature": {"$bin": ...}}``).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from dealerless.protocol.messages import (
    PRINTABLE_ASCII,
    Bool,
    Bytes,
    Custom,
    Dict,
    Either,
    EmbeddedMessage,
    Enum,
    Field,
    Int,
    KindRegistry,
    List,
    Map,
    Nil,
    Opt,
    Str,
    Text,
)
from dealerless.protocol.table.kinds import SIDE_KINDS, TABLE_REGISTRY, AnyValue
from dealerless.protocol.table.schema_payloads import (
    BIN_KEY,
    PAYLOADS,
    Schema,
    array,
    bin_schema,
    integer,
    payload_defs,
    record,
    ref,
)
from dealerless.protocol.wire.codec import DEFAULT_LIMITS, unpack
from dealerless.protocol.wire.envelope import ENVELOPE_FIELDS, SUPPORTED_VERSIONS
from dealerless.protocol.wire.identity import SIGNATURE_BYTES

__all__ = ["SCHEMA_PATH", "build_schema", "frame_data_model", "render", "to_data_model"]

SCHEMA_PATH = "spec/schema/table-frame.schema.json"
SCHEMA_ID = "https://dealerless.invalid/spec/schema/table-frame.schema.json"

# What Text refuses that a regular expression can name without a Unicode database: controls (Cc),
# line and paragraph separators (Zl, Zp) and the format characters of the Basic Multilingual Plane
# (Cf, as of Unicode 14). The code also refuses private-use, surrogate, unassigned and
# supplementary-plane format code points, which this pattern leaves to it.
TEXT_REFUSED = (
    r"[\u0000-\u001f\u007f-\u009f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"
    r"\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]"
)


def _char_class(chars: frozenset[str]) -> str:
    """A regex character class of exactly ``chars`` (runs of code points as ranges)."""
    points = sorted(ord(c) for c in chars)
    runs: list[tuple[int, int]] = []
    for p in points:
        if runs and p == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], p)
        else:
            runs.append((p, p))

    def esc(p: int) -> str:
        return f"\\u{p:04x}"

    return "".join(esc(a) if a == b else f"{esc(a)}-{esc(b)}" for a, b in runs)


def _string(field: Str) -> Schema:
    out: Schema = {"type": "string", "minLength": field.min_len, "maxLength": field.max_len}
    # "not: pattern" rather than "^[...]*$": a search for one bad character means the same in
    # every regex dialect ('$' also matches before a final newline in some).
    if isinstance(field, Text):
        out["not"] = {"pattern": TEXT_REFUSED}
    elif field.charset is not None:
        if field.charset == frozenset(PRINTABLE_ASCII):
            out["not"] = {"pattern": r"[^\u0020-\u007e]"}
        else:
            out["not"] = {"pattern": f"[^{_char_class(field.charset)}]"}
    return out


def field_schema(field: Field, path: str) -> Schema:
    """The JSON Schema of one field type (``path``: ``kind.field``, ``[]`` for a list item)."""
    if isinstance(field, AnyValue | Custom):
        if path not in PAYLOADS:
            raise ValueError(f"no schema for the payload at {path}: add it to schema_payloads")
        return PAYLOADS[path]
    if isinstance(field, Opt):
        return field_schema(field.inner, path)
    if isinstance(field, Int):
        return integer(field.minimum, field.maximum)
    if isinstance(field, Bool):
        return {"type": "boolean"}
    if isinstance(field, Nil):
        return {"type": "null"}
    if isinstance(field, Bytes):
        return bin_schema(field.min_len, field.max_len)
    if isinstance(field, EmbeddedMessage):
        kinds = "any kind" if field.kinds is None else "kind " + " or ".join(sorted(field.kinds))
        return bin_schema(
            SIGNATURE_BYTES + 1,
            field.limits.max_message_bytes,
            description=f"a whole signed frame of {kinds}: validate it as a frame too",
        )
    if isinstance(field, Str):
        return _string(field)
    if isinstance(field, Enum):
        return {"enum": list(field.choices)}
    if isinstance(field, List):
        return array(
            field_schema(field.item, f"{path}[]"), field.min_len, field.max_len, unique=field.unique
        )
    if isinstance(field, Map):
        return map_schema(field, path)
    if isinstance(field, Dict):
        return {
            "type": "object",
            "maxProperties": field.max_len,
            "propertyNames": _string(field.key),
            "additionalProperties": field_schema(field.value, f"{path}{{}}"),
        }
    if isinstance(field, Either):
        return {"anyOf": [field_schema(alt, path) for alt in field.alternatives]}
    raise ValueError(f"{path}: no JSON Schema for field type {type(field).__name__}")


def map_schema(field: Map, path: str, description: str = "") -> Schema:
    properties = {name: field_schema(f, f"{path}.{name}") for name, f in field.fields.items()}
    optional = tuple(name for name, f in field.fields.items() if isinstance(f, Opt))
    return record(properties, optional=optional, description=description)


def body_defs(registry: KindRegistry) -> dict[str, Schema]:
    out: dict[str, Schema] = {}
    for kind in registry:
        side = " (side message, not a chain element)" if kind in SIDE_KINDS else ""
        out[f"body-{kind}"] = map_schema(
            registry.schema(kind), kind, description=registry.description(kind) + side
        )
    return out


def envelope_schema(registry: KindRegistry) -> Schema:
    items: list[Schema | bool] = [{"enum": sorted(SUPPORTED_VERSIONS), "description": "version"}]
    for name, field in ENVELOPE_FIELDS:
        schema = field_schema(field, f"envelope.{name}")
        if name == "kind":
            schema = {"enum": list(registry), "description": "a registered kind"}
        items.append({**schema, "description": name})
    items.append({"type": "object", "description": "body: the kind's schema below"})
    kind_at = 1 + [name for name, _ in ENVELOPE_FIELDS].index("kind")
    dispatch: list[Schema] = []
    for kind in registry:
        when: list[Schema | bool] = [True] * kind_at + [{"const": kind}]
        then: list[Schema | bool] = [True] * (len(items) - 1) + [ref(f"body-{kind}")]
        dispatch.append({"if": {"prefixItems": when}, "then": {"prefixItems": then}})
    return {
        "description": "the signed msgpack array [version, table_id, hand, seq, prev, seat, "
        "author, kind, body]",
        "type": "array",
        "prefixItems": items,
        "minItems": len(items),
        "maxItems": len(items),
        "allOf": dispatch,
    }


def _referenced_byte_lengths(node: Any) -> set[int]:
    found: set[int] = set()
    if isinstance(node, dict):
        target = node.get("$ref")
        if isinstance(target, str) and (m := re.fullmatch(r"#/\$defs/bytes-(\d+)", target)):
            found.add(int(m.group(1)))
        for value in node.values():
            found |= _referenced_byte_lengths(value)
    elif isinstance(node, list):
        for value in node:
            found |= _referenced_byte_lengths(value)
    return found


def build_schema(registry: KindRegistry = TABLE_REGISTRY) -> Schema:
    defs: dict[str, Schema] = {
        "hex": {
            "description": "the bytes of a msgpack bin, two lowercase hex digits each",
            "type": "string",
            "pattern": "^(?:[0-9a-f]{2})*$",
            "contentEncoding": "base16",
        },
        "envelope": envelope_schema(registry),
        **body_defs(registry),
        **payload_defs(),
    }
    document: Schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "dealerless table frame",
        "description": "One signed table message in the data model of spec/schema/README.md: "
        "the msgpack envelope and the 64-byte Ed25519 signature that follows it. Generated by "
        "dealerless.protocol.table.schema_gen from the code's kind registry; do not edit.",
        "type": "object",
        "properties": {
            "envelope": ref("envelope"),
            "signature": bin_schema(SIGNATURE_BYTES, SIGNATURE_BYTES),
        },
        "required": ["envelope", "signature"],
        "additionalProperties": False,
        "$defs": defs,
    }
    for length in sorted(_referenced_byte_lengths(document)):
        defs[f"bytes-{length}"] = bin_schema(length, length, description=f"{length} bytes")
    return document


def render(registry: KindRegistry = TABLE_REGISTRY) -> str:
    return json.dumps(build_schema(registry), indent=2, ensure_ascii=True) + "\n"


# --- the data model -----------------------------------------------------------------------------


def to_data_model(value: object) -> Any:
    """A decoded msgpack value in the schema's data model: bin -> ``{"$bin": hex}``; a map with
    a ``$bin`` key is refused, so the mapping stays one-to-one."""
    if isinstance(value, bytes):
        return {BIN_KEY: value.hex()}
    if isinstance(value, list):
        return [to_data_model(v) for v in value]
    if isinstance(value, dict):
        if BIN_KEY in value:
            raise ValueError(f"a map with the key {BIN_KEY!r} has no place in the data model")
        return {k: to_data_model(v) for k, v in value.items()}
    return value


def frame_data_model(frame: bytes) -> dict[str, Any]:
    """A frame as the schema sees it. Only the strict msgpack decoding is done here (no
    signature or kind check): validating is the schema's job."""
    if len(frame) <= SIGNATURE_BYTES:
        raise ValueError(f"a frame is longer than its {SIGNATURE_BYTES}-byte signature")
    packed, signature = frame[:-SIGNATURE_BYTES], frame[-SIGNATURE_BYTES:]
    return {
        "envelope": to_data_model(unpack(packed, DEFAULT_LIMITS, path="envelope")),
        "signature": to_data_model(signature),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", metavar="FILE", help=f"write the schema to FILE ({SCHEMA_PATH})")
    args = parser.parse_args()
    if args.write:
        Path(args.write).write_text(render())
    else:
        sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    sys.exit(main())
