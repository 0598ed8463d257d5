from __future__ import annotations

from typing import Any

import pytest
from msg_helpers import SAMPLE, sample_body

from dealerless.protocol.messages import (
    DEFAULT_REGISTRY,
    Bytes,
    Either,
    Int,
    KindRegistry,
    List,
    Map,
    SchemaViolation,
    Str,
    UnknownKind,
    register_kind,
)


def test_sample_body_fits() -> None:
    SAMPLE.check(sample_body(), "body")


def _with(**changes: Any) -> dict[str, Any]:
    body = sample_body()
    for k, v in changes.items():
        if v is ...:
            del body[k]
        else:
            body[k] = v
    return body


@pytest.mark.parametrize(
    ("body", "path", "expected", "got"),
    [
        (_with(n=1001), "body.n", "int in -5..1000", "int 1001"),
        (_with(n=-6), "body.n", "int in -5..1000", "int -6"),
        (_with(n=True), "body.n", "int in -5..1000", "bool True"),
        (_with(n="7"), "body.n", "int in -5..1000", "str '7'"),
        (_with(flag=1), "body.flag", "bool", "int 1"),
        (_with(blob=b"abc"), "body.blob", "bytes of length 4", "bytes of length 3"),
        (_with(blob="abcd"), "body.blob", "bytes of length 4", "str 'abcd'"),
        (_with(tag="abd"), "body.tag", "of [abc]", "character 'd' (U+0064) at index 2"),
        (_with(tag="a" * 9), "body.tag", "str of 0..8 chars", "9 chars"),
        (_with(text="bell\x07"), "body.text", "without control", "U+0007"),
        (_with(text="a\u202eb"), "body.text", "without control", "U+202E"),
        (_with(mode="medium"), "body.mode", "one of 'fast', 'slow'", "str 'medium'"),
        (_with(items=[1, 2, 3, 4, 5]), "body.items", "array of 0..4", "array of length 5"),
        (_with(items=[1, 32]), "body.items[1]", "int in 0..31", "int 32"),
        (_with(items=[1, 2, 1]), "body.items[2]", "no repeated items", "a repeat of int 1"),
        (_with(items={"a": 1}), "body.items", "array", "map of 1 entries"),
        (_with(inner={"x": 2}), "body.inner.x", "int in 0..1", "int 2"),
        (_with(inner={"x": 0, "y": b"abcd"}), "body.inner.y", "bytes of length 0..3", "length 4"),
        (_with(inner={"y": b""}), "body.inner.x", "int in 0..1", "nothing (missing)"),
        (_with(inner={"x": 0, "z": 1}), "body.inner", "only the fields x, y", "'z'"),
        (_with(opts={"a": [1]}), "body.opts.a", "(int in 0..9) or (bool)", "array of length 1"),
        (_with(opts={"a" * 11: 1}), "body.opts key", "str of 0..10", "11 chars"),
        (_with(opts={"a": 1, "b": 2, "c": 3, "d": 4}), "body.opts", "at most 3", "4 entries"),
        (_with(none=0), "body.none", "nil", "int 0"),
        (_with(n=...), "body.n", "int in -5..1000", "nothing (missing)"),
        (_with(extra=1), "body", "only the fields", "unknown field(s) 'extra'"),
        ([1], "body", "map", "array of length 1"),
    ],
)
def test_violations_say_where_what_and_why(body: Any, path: str, expected: str, got: str) -> None:
    with pytest.raises(SchemaViolation) as info:
        SAMPLE.check(body, "body")
    err = info.value
    assert err.path == path
    assert expected in err.expected
    assert got in err.got
    assert str(err).startswith(f"{path}: expected ")


def test_optional_fields_may_be_absent() -> None:
    body = _with(opts=..., inner={"x": 0})
    SAMPLE.check(body, "body")


def test_registry_rules() -> None:
    reg = KindRegistry()
    reg.register("key-commit", Map({"c": Bytes(32)}), description="commit")
    assert "key-commit" in reg
    assert list(reg) == ["key-commit"]
    assert reg.description("key-commit") == "commit"
    with pytest.raises(ValueError, match="already registered"):
        reg.register("key-commit", Map({}))
    for bad in ["", "Key", "1abc", "a_b", "a" * 33, "a b"]:
        with pytest.raises(ValueError, match="kind name"):
            reg.register(bad, Map({}))
    with pytest.raises(ValueError, match="must be a Map"):
        reg.register("x", Int(0, 1))  # type: ignore[arg-type]
    with pytest.raises(UnknownKind, match="kind 'nope' is not registered"):
        reg.check_body("nope", {})
    copy = reg.copy()
    copy.register("other", Map({}))
    assert "other" not in reg


def test_generic_kinds_are_registered() -> None:
    for kind in ("join", "config-sign", "chat", "leave"):
        assert kind in DEFAULT_REGISTRY
    DEFAULT_REGISTRY.check_body("join", {"name": "Ann", "client": "dealerless 0.1"})
    DEFAULT_REGISTRY.check_body("config-sign", {"config_hash": bytes(32)})
    DEFAULT_REGISTRY.check_body("leave", {})
    with pytest.raises(SchemaViolation, match=r"body\.name"):
        DEFAULT_REGISTRY.check_body("join", {"name": ""})
    with pytest.raises(SchemaViolation, match=r"body\.text"):
        DEFAULT_REGISTRY.check_body("chat", {"text": "x" * 501})


def test_register_kind_into_a_given_registry() -> None:
    reg = KindRegistry()
    register_kind("x", Map({"s": Str(3)}), registry=reg)
    assert "x" in reg and "x" not in DEFAULT_REGISTRY


@pytest.mark.parametrize(
    "build",
    [
        lambda: Int(2, 1),
        lambda: Bytes(),
        lambda: Bytes(4, max_len=5),
        lambda: Str(3, min_len=4),
    ],
)
def test_bad_schema_definitions_are_refused(build: Any) -> None:
    with pytest.raises(ValueError):
        build()


def test_custom_validator_plugs_in_the_rules_engine_decoder() -> None:
    from dealerless.protocol.messages import Custom, Dict
    from dealerless.protocol.rules.base import Action

    action = Custom(
        Dict(Str(16), Either(Int(0, 10**9), List(Int(0, 31), max_len=8), Str(16)), max_len=8),
        Action.from_wire,
        "a valid action",
    )
    schema = Map({"action": action})
    schema.check({"action": {"kind": "play", "seat": 2, "card": 5}}, "body")
    with pytest.raises(SchemaViolation) as info:
        schema.check({"action": {"kind": "play", "seat": 9}}, "body")
    assert info.value.path == "body.action"
    assert "seat must be in 0..7, got 9" in info.value.got
    with pytest.raises(SchemaViolation, match=r"body\.action\.seat"):
        schema.check({"action": {"kind": "play", "seat": True}}, "body")
