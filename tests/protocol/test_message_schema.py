"""The machine-readable schema of every table message (spec/schema/): it is what the generator
writes from the code, every frame of real games validates against it with a real JSON Schema
validator (jsonschema, draft 2020-12), and changing one field's type or length fails validation
naming that field."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, ValidationError
from schema_frames import (
    GAMES,
    SCENARIOS,
    all_frames,
    embedded_frames,
    game_frames,
    kind_of,
)

from dealerless.protocol.messages import SchemaViolation, Text, decode_message
from dealerless.protocol.rules.base import Action, ActionKind
from dealerless.protocol.table.kinds import TABLE_REGISTRY
from dealerless.protocol.table.schema_gen import (
    SCHEMA_PATH,
    TEXT_REFUSED,
    frame_data_model,
    render,
    to_data_model,
)
from dealerless.protocol.table.schema_payloads import ACTION_FIELDS

ROOT = Path(__file__).resolve().parents[2]
Path_ = tuple[str | int, ...]


@cache
def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((ROOT / SCHEMA_PATH).read_text())
    return loaded


@cache
def validator() -> Draft202012Validator:
    return Draft202012Validator(schema())


def errors(model: object) -> list[ValidationError]:
    return list(validator().iter_errors(model))


def explain(found: list[ValidationError]) -> str:
    return "; ".join(f"{list(e.absolute_path)}: {e.message[:160]}" for e in found[:5])


def assert_valid_frame(frame: bytes, where: str) -> None:
    """The code accepts the frame, the schema accepts its data model, and so for every frame
    it carries inside."""
    decode_message(frame, registry=TABLE_REGISTRY)
    found = errors(frame_data_model(frame))
    assert not found, f"{where}, a {kind_of(frame)} frame: {explain(found)}"
    for inner in embedded_frames(frame):
        assert_valid_frame(inner, f"{where}, inside a {kind_of(frame)}")


# --- the file follows the code ------------------------------------------------------------------


def test_the_checked_in_schema_is_what_the_generator_writes() -> None:
    assert (ROOT / SCHEMA_PATH).read_text() == render(), (
        f"run: python -m dealerless.protocol.table.schema_gen --write {SCHEMA_PATH}"
    )


def test_the_schema_is_a_valid_draft_2020_12_schema_with_a_body_per_registered_kind() -> None:
    Draft202012Validator.check_schema(schema())
    defs = schema()["$defs"]
    assert {name.removeprefix("body-") for name in defs if name.startswith("body-")} == set(
        TABLE_REGISTRY
    )
    assert schema()["$defs"]["envelope"]["prefixItems"][7]["enum"] == list(TABLE_REGISTRY)


# --- real frames validate -----------------------------------------------------------------------


@pytest.mark.parametrize("game", list(GAMES))
def test_every_frame_of_a_game_validates(game: str) -> None:
    frames = game_frames(game)
    for number, frame in enumerate(frames):
        assert_valid_frame(frame, f"{game} frame {number}")


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_every_frame_of_a_seat_change_a_certificate_or_a_hand_signed_kind_validates(
    scenario: str,
) -> None:
    frames = SCENARIOS[scenario]()
    for number, frame in enumerate(frames):
        assert_valid_frame(frame, f"{scenario} frame {number}")


def test_the_frames_validated_cover_every_registered_kind() -> None:
    seen = {kind_of(f) for f in all_frames()}
    seen |= {kind_of(inner) for f in all_frames() for inner in embedded_frames(f)}
    assert seen == set(TABLE_REGISTRY), f"never validated: {set(TABLE_REGISTRY) - seen}"
    changes = {
        decode_message(f, registry=TABLE_REGISTRY).body.get("change")
        for f in SCENARIOS["seat change"]()
        if kind_of(f) == "result"
    }
    assert {"stand", "reseat"} <= changes, "the seat change's results ask for the change"


# --- a changed field fails, naming the field ----------------------------------------------------


def b(n: int, first: str = "00") -> dict[str, str]:
    """A bin of ``n`` bytes in the data model."""
    return {"$bin": first + "00" * (n - 1)}


def drop_last(items: Any) -> Any:
    return items[:-1]


def action_is(kind: str) -> Callable[[dict[str, Any]], bool]:
    return lambda body: body["action"]["kind"] == kind


# (kind, path in the body, new value or a function of the old one, which frames of the kind)
BODY_CHANGES: list[tuple[str, Path_, Any, Callable[[dict[str, Any]], bool] | None]] = [
    ("config-sign", ("config_hash",), "ab" * 32, None),  # str instead of bin
    ("key-commit", ("commit", "commit"), b(31), None),
    ("key-commit", ("commit", "seat"), "0", None),
    ("key-reveal", ("reveal", "y"), b(32, "02"), None),  # a point is 33 bytes
    ("key-reveal", ("reveal", "nonce"), 7, None),
    ("key-reveal", ("reveal", "proof", 1), b(33), None),  # a scalar is 32 bytes
    ("shuffle", ("shuffle", "deck", 3, 0), "02" + "00" * 32, None),
    ("shuffle", ("shuffle", "proof", "s"), drop_last, None),
    ("shuffle", ("shuffle", "seat"), -1, None),
    ("shares", ("batch", "pos", 0), 32, None),  # positions are 0..31
    ("shares", ("batch", "pos"), [], None),  # at least one position
    ("shares", ("batch", "shares", 0), b(33, "04"), None),  # not a compressed point
    ("shares", ("batch", "proof"), drop_last, None),  # [e, z]
    ("reveal", ("batch", "seat"), "1", None),
    ("reveal", ("batch", "pos"), lambda pos: [*pos, *pos], None),  # each position once
    ("action", ("action", "seat"), "0", None),
    ("action", ("action", "card"), True, action_is("play")),  # a bool is not an int
    ("action", ("action", "amount"), 1, action_is("fold")),  # a fold carries no amount
    ("action", ("action", "kind"), "PLAY", action_is("play")),  # kinds are lowercase
    ("action", ("open", "share"), b(32, "02"), lambda body: "open" in body),
    ("action", ("nonmember", 0, "pos"), "1", lambda body: "nonmember" in body),
    ("request", ("action", "cards"), 5, None),  # a list of card indices
    ("admit", ("request",), "a request", None),
    ("admit", ("request",), b(64), None),  # shorter than any frame
    ("result", ("result",), b(31), None),
    ("result", ("state",), 5, None),
    ("result", ("change",), 1, lambda body: "change" in body),
    ("next-config", ("config", "step_timeout_ms"), "60000", None),
    ("next-config", ("config", "game", "options", "hands"), True, None),
    ("next-config", ("config", "carry", "previous"), b(16), None),
    ("next-config", ("config", "seats", 0, "key"), "key", None),
    ("timeout-vote", ("silent",), "1", None),
    ("timeout-vote", ("head",), b(33), None),
    ("abort-vote", ("culprit",), 8, None),  # seats are 0..7
    ("abort-vote", ("reason",), "a reason as text", None),  # the reason is bin
    ("abort-vote", ("evidence", 0), 1, lambda body: "evidence" in body),
    ("chat", ("text",), 5, None),
    ("chat", ("text",), "right \u202eto left", None),  # a bidi override
    ("join", ("name",), b(3), None),
    ("join", ("invite",), "token", lambda body: "invite" in body),
    ("leave", ("reason",), 3, lambda body: "reason" in body),
]
ENVELOPE_CHANGES: list[tuple[Path_, Any]] = [
    (("envelope", 0), 2),  # version
    (("envelope", 1), "00" * 16),  # table_id as str
    (("envelope", 2), -1),  # hand
    (("envelope", 3), "1"),  # seq
    (("envelope", 4), b(31)),  # prev
    (("envelope", 5), 16),  # seat
    (("envelope", 6), 0),  # author
    (("envelope", 7), "shuffles"),  # kind
    (("envelope", 8), []),  # body
    (("signature",), b(63)),
]


def get(model: Any, path: Path_) -> Any:
    for step in path:
        model = model[step]
    return model


def has(model: Any, path: Path_) -> bool:
    try:
        get(model, path)
    except (KeyError, IndexError, TypeError):
        return False
    return True


def changed(model: Any, path: Path_, new: Any) -> Any:
    out = copy.deepcopy(model)
    parent = get(out, path[:-1])
    parent[path[-1]] = new(parent[path[-1]]) if callable(new) else new  # a dict or a list
    return out


def assert_refused_at(model: Any, path: Path_) -> None:
    found = errors(model)
    assert found, f"the schema accepts the change at {list(path)}"
    named = [e for e in found if tuple(e.absolute_path)[: len(path)] == path]
    assert named, f"no error names {list(path)}: {explain(found)}"


def first_frame(kind: str, where: Callable[[dict[str, Any]], bool] | None) -> dict[str, Any]:
    for frame in all_frames():
        model = frame_data_model(frame)
        if model["envelope"][7] == kind and (where is None or where(model["envelope"][8])):
            return model
    raise AssertionError(f"no {kind} frame with the field to change")


@pytest.mark.parametrize(
    ("kind", "path", "new", "where"),
    BODY_CHANGES,
    ids=[f"{k}:{'.'.join(map(str, p))}" for k, p, _, _ in BODY_CHANGES],
)
def test_a_changed_body_field_fails_naming_the_field(
    kind: str,
    path: Path_,
    new: Any,
    where: Callable[[dict[str, Any]], bool] | None,
) -> None:
    model = first_frame(kind, where)
    full = ("envelope", 8, *path)
    assert not errors(model) and has(model, full[:-1])  # the field itself may be new
    assert_refused_at(changed(model, full, new), full)


def test_every_kind_has_a_changed_field_test() -> None:
    assert {kind for kind, *_ in BODY_CHANGES} == set(TABLE_REGISTRY)


@pytest.mark.parametrize(
    ("path", "new"), ENVELOPE_CHANGES, ids=[".".join(map(str, p)) for p, _ in ENVELOPE_CHANGES]
)
def test_a_changed_envelope_field_or_signature_fails_naming_it(path: Path_, new: Any) -> None:
    model = first_frame("shuffle", None)
    assert_refused_at(changed(model, path, new), path)


def test_a_body_of_another_kind_fails() -> None:
    model = first_frame("shuffle", None)
    model["envelope"][7] = "shares"
    assert_refused_at(model, ("envelope", 8))


# --- the action map per kind of action ----------------------------------------------------------

SAMPLE = {"card": 5, "amount": 2, "suit": 1, "cards": [1, 9, 17], "position": 12}


@cache
def action_validator() -> Draft202012Validator:
    return Draft202012Validator({"$defs": schema()["$defs"], "$ref": "#/$defs/action"})


# covers: W-3
@pytest.mark.parametrize("kind", list(ActionKind), ids=[k.value for k in ActionKind])
def test_each_kind_of_action_carries_exactly_its_fields(kind: ActionKind) -> None:
    required, optional = ACTION_FIELDS[kind]
    action = {"kind": kind.value, "seat": 1, **{f: SAMPLE[f] for f in required}}
    Action.from_wire(action)  # the code's decoder takes it too
    assert not list(action_validator().iter_errors(action))
    for name in required:
        less = {k: v for k, v in action.items() if k != name}
        assert list(action_validator().iter_errors(less)), f"{kind.value} without {name}"
    for name in SAMPLE.keys() - set(required) - set(optional):
        found = list(action_validator().iter_errors({**action, name: SAMPLE[name]}))
        assert any(tuple(e.absolute_path) == (name,) for e in found), f"{kind.value}+{name}"


# --- the data model and the text rule -----------------------------------------------------------


def test_the_data_model_maps_bin_to_tagged_hex_and_refuses_a_bin_key() -> None:
    assert to_data_model({"a": [b"\x00\xff", None, True, -3, "x"]}) == {
        "a": [{"$bin": "00ff"}, None, True, -3, "x"]
    }
    with pytest.raises(ValueError, match=r"\$bin"):
        to_data_model({"$bin": "00"})


def test_the_schema_refuses_no_text_the_code_accepts() -> None:
    refused = re.compile(TEXT_REFUSED)
    text = Text(4)
    for point in range(0x10000):
        char = chr(point)
        if refused.search(char):
            with pytest.raises(SchemaViolation):
                text.check(char, "text")
