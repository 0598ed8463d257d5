"""JSON Schema pieces for what the body schemas of the table kinds leave open: the deck payloads
(checked by the crypto ``from_wire`` decoders, not by the kind registry), the game action and the
table configuration a ``next-config`` carries. :mod:`.schema_gen` assembles them into
``spec/schema/table-frame.schema.json``.

Every number here comes from the constant the decoder checks against where the code has one;
where a decoder writes a literal (``Action.from_wire``, ``ShuffleProof.from_wire``) the same
literal stands here with a comment naming the decoder. The frames of real games validate against
the result (tests/protocol/test_message_schema.py), so a schema stricter than the code fails there.

Data model (spec/schema/README.md): msgpack bin is the object ``{"$bin": "<lowercase hex>"}``.
"""

from __future__ import annotations

from typing import Any

from dealerless.protocol.crypto.generators import DECK_SIZE
from dealerless.protocol.crypto.group import POINT_BYTES, SCALAR_BYTES
from dealerless.protocol.crypto.keys import NONCE_BYTES
from dealerless.protocol.crypto.transcript import MAX_SEAT as CRYPTO_MAX_SEAT
from dealerless.protocol.rules.base import ActionKind, OptionSpec
from dealerless.protocol.rules.registry import game_names, game_spec
from dealerless.protocol.table import carry as carry_limits
from dealerless.protocol.table.config import (
    MAX_STEP_TIMEOUT_MS,
    MIN_STEP_TIMEOUT_MS,
    PROTOCOL_VERSION,
    TABLE_ID_BYTES,
)

Schema = dict[str, Any]

BIN_KEY = "$bin"


def ref(name: str) -> Schema:
    return {"$ref": f"#/$defs/{name}"}


def bin_schema(min_len: int, max_len: int, *, description: str = "") -> Schema:
    """msgpack bin of ``min_len..max_len`` bytes; an exact length is a shared ``bytes-N`` def
    (the generator adds every ``bytes-N`` it finds referenced)."""
    if min_len == max_len and not description:
        return ref(f"bytes-{min_len}")
    hex_text: Schema = {"$ref": "#/$defs/hex", "minLength": 2 * min_len, "maxLength": 2 * max_len}
    out: Schema = {
        "type": "object",
        "properties": {BIN_KEY: hex_text},
        "required": [BIN_KEY],
        "additionalProperties": False,
    }
    if description:
        out["description"] = description
    return out


def integer(minimum: int, maximum: int) -> Schema:
    return {"type": "integer", "minimum": minimum, "maximum": maximum}


def record(
    properties: dict[str, Schema], *, optional: tuple[str, ...] = (), description: str = ""
) -> Schema:
    """A map with exactly these fields (those in ``optional`` may be absent)."""
    out: Schema = {"type": "object"}
    if description:
        out["description"] = description
    out["properties"] = properties
    out["required"] = [name for name in properties if name not in optional]
    out["additionalProperties"] = False
    return out


def array(item: Schema, min_items: int, max_items: int, *, unique: bool = False) -> Schema:
    out: Schema = {"type": "array", "items": item, "minItems": min_items, "maxItems": max_items}
    if unique:
        out["uniqueItems"] = True
    return out


# --- deck payloads (protocol/crypto: to_wire / from_wire) ---------------------------------------

CARD_INDEX = integer(0, DECK_SIZE - 1)  # a card, or a deck position
CRYPTO_SEAT = integer(0, CRYPTO_MAX_SEAT)  # the crypto decoders' own bound, wider than a table's


def _proof_pair() -> Schema:
    return {**array(ref("scalar"), 2, 2), "description": "[e, z]: challenge and response"}


def deck_defs() -> dict[str, Schema]:
    n = DECK_SIZE
    return {
        "point": {
            "description": f"secp256k1 point, {POINT_BYTES}-byte compressed SEC1 (never the "
            "identity; that the x coordinate is on the curve is checked by the code)",
            "type": "object",
            "properties": {
                BIN_KEY: {
                    "$ref": "#/$defs/hex",
                    "pattern": f"^0[23][0-9a-f]{{{2 * (POINT_BYTES - 1)}}}$",
                }
            },
            "required": [BIN_KEY],
            "additionalProperties": False,
        },
        "scalar": bin_schema(
            SCALAR_BYTES,
            SCALAR_BYTES,
            description=f"a scalar, {SCALAR_BYTES} bytes big-endian (below the group order: "
            "checked by the code)",
        ),
        "sigma-proof": _proof_pair(),
        "ciphertext": {**array(ref("point"), 2, 2), "description": "[c1, c2]"},
        "key-commit": record(
            {"seat": CRYPTO_SEAT, "commit": ref("bytes-32")},
            description="KeyCommit: SHA-256 commitment to this hand's key share",
        ),
        "key-reveal": record(
            {
                "seat": CRYPTO_SEAT,
                "y": ref("point"),
                "nonce": ref(f"bytes-{NONCE_BYTES}"),
                "proof": ref("sigma-proof"),
            },
            description="KeyReveal: the key share y with its Schnorr proof of knowledge",
        ),
        # ShuffleProof.from_wire: pcommit n, chain n, t n + 5, s 2n + 4 for an n-card deck.
        "shuffle": record(
            {
                "seat": CRYPTO_SEAT,
                "deck": array(ref("ciphertext"), n, n),
                "proof": record(
                    {
                        "pcommit": array(ref("point"), n, n),
                        "chain": array(ref("point"), n, n),
                        "t": array(ref("point"), n + 5, n + 5),
                        "s": array(ref("scalar"), 2 * n + 4, 2 * n + 4),
                    }
                ),
            },
            description="ShuffleMessage: the re-encrypted, permuted deck and its proof",
        ),
        "share": record(
            {
                "seat": CRYPTO_SEAT,
                "pos": CARD_INDEX,
                "share": ref("point"),
                "proof": ref("sigma-proof"),
            },
            description="ShareMessage: a decryption share of one deck position, DLEQ proof",
        ),
        "share-batch": record(
            {
                "seat": CRYPTO_SEAT,
                "pos": {
                    **array(CARD_INDEX, 1, n, unique=True),
                    "description": "ascending (checked by the code): exactly the positions due",
                },
                "shares": {
                    **array(ref("point"), 1, n),
                    "description": "one decryption share per position of pos, in that order "
                    "(checked by the code)",
                },
                "proof": ref("sigma-proof"),
            },
            description="ShareBatchMessage: decryption shares of several deck positions under "
            "one batched DLEQ proof",
        ),
        "nonmember": record(
            {
                "seat": CRYPTO_SEAT,
                "pos": CARD_INDEX,
                "forbidden": {
                    **array(CARD_INDEX, 0, n - 1, unique=True),
                    "description": "ascending (checked by the code)",
                },
                "proof": {
                    **array(ref("sigma-proof"), 1, n),
                    "description": f"one [e, z] per allowed card: {n} minus len(forbidden) "
                    "(checked by the code)",
                },
            },
            description="NonMembershipMessage: the hidden card at pos is none of forbidden",
        ),
    }


# --- the game action (protocol/rules/base.py: Action.to_wire / from_wire) -----------------------

# Which optional fields each kind of action carries, over all six games: what the engines'
# verify() accepts (tuppen_verify._check_fields, limit.verify, pottuppen, belote). Every
# ActionKind must be listed: build_action() refuses a kind without an entry.
ACTION_FIELDS: dict[ActionKind, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # kind: (required, optional)
    ActionKind.PLAY: (("card",), ("position",)),  # position: the deck slot of a hidden card
    ActionKind.KNOCK: ((), ("amount",)),  # amount only in No Limit / Pot Limit
    ActionKind.CALL: ((), ()),
    ActionKind.FOLD: ((), ()),
    ActionKind.RAISE: ((), ("amount",)),  # amount only in No Limit / Pot Limit
    ActionKind.BET: (("amount",), ()),  # Pottuppen
    ActionKind.PASS: ((), ()),
    ActionKind.BID: (("suit",), ()),  # Belote
    ActionKind.LAUNDRY: ((), ()),
    ActionKind.TUPP_ATTEMPT: (("cards", "position"), ()),  # three shown, the fourth's slot
    ActionKind.TUPP: ((), ()),
    ActionKind.CHECK: ((), ()),
    ActionKind.ACCEPT: ((), ()),
}
ACTION_OPTIONAL = ("card", "amount", "suit", "cards", "position")
TUPP_ATTEMPT_SHOWS = 3


def build_action() -> Schema:
    missing = [k.value for k in ActionKind if k not in ACTION_FIELDS]
    if missing:
        raise ValueError(f"ACTION_FIELDS has no entry for action kind(s) {missing}")
    per_kind: list[Schema] = []
    for kind, (required, optional) in ACTION_FIELDS.items():
        then: Schema = {}
        if required:
            then["required"] = list(required)
        banned = [f for f in ACTION_OPTIONAL if f not in required + optional]
        # {"not": {}} rather than false: validators report it at the field, naming it.
        then["properties"] = {
            name: {"not": {}, "description": f"{kind.value} carries no {name}"} for name in banned
        }
        if kind is ActionKind.TUPP_ATTEMPT:
            then["properties"]["cards"] = {
                "minItems": TUPP_ATTEMPT_SHOWS,
                "maxItems": TUPP_ATTEMPT_SHOWS,
                "uniqueItems": True,
            }
        per_kind.append({"if": {"properties": {"kind": {"const": kind.value}}}, "then": then})
    # Bounds as Action.from_wire checks them.
    schema = record(
        {
            "kind": {"enum": [k.value for k in ActionKind]},
            "seat": integer(0, 7),
            "card": CARD_INDEX,
            "amount": integer(0, 10**9),
            "suit": {**integer(0, 3), "description": "clubs, diamonds, hearts, spades"},
            "cards": array(CARD_INDEX, 1, 8),
            "position": CARD_INDEX,
        },
        optional=ACTION_OPTIONAL,
        description="Action.to_wire: a move of the rules engine; the fields each kind carries "
        "are below (allOf); the seat equals the envelope's",
    )
    schema["allOf"] = per_kind
    return schema


# --- the table configuration (protocol/table/config.py, carry.py) -------------------------------


def option_schema(spec: OptionSpec) -> Schema:
    default = spec.default
    if isinstance(default, bool):
        out: Schema = {"type": "boolean"}
    elif isinstance(default, int):
        out = {"type": "integer"}
        if spec.minimum is not None:
            out["minimum"] = spec.minimum
        if spec.maximum is not None:
            out["maximum"] = spec.maximum
    elif spec.choices:
        out = {"enum": list(spec.choices)}
    else:
        out = {"type": "string"}
    out["default"] = default
    return out


def game_config() -> Schema:
    per_game: list[Schema] = []
    for name in game_names():
        spec = game_spec(name)
        options = {o.name: option_schema(o) for o in spec.options}
        per_game.append(
            {
                "if": {"properties": {"game": {"const": name}}},
                "then": {
                    "properties": {
                        "players": integer(spec.min_players, spec.max_players),
                        "options": {
                            "type": "object",
                            "properties": options,
                            "additionalProperties": False,
                        },
                    }
                },
            }
        )
    schema = record(
        {
            "game": {"enum": game_names()},
            "players": {"type": "integer"},
            "options": {
                "type": "object",
                "description": "every option of the game (to_wire writes them all, defaults "
                "filled in)",
            },
        },
        description="GameConfig.to_wire",
    )
    schema["allOf"] = per_game
    return schema


def _ledger() -> Schema:
    return {
        "type": "object",
        "maxProperties": carry_limits.LEDGER_KEYS_MAX,
        "propertyNames": {"minLength": 1, "maxLength": 16},
        "additionalProperties": integer(-carry_limits.MAX_CHIPS, carry_limits.MAX_CHIPS),
    }


def config_defs() -> dict[str, Schema]:
    players = [game_spec(name) for name in game_names()]
    most = max(s.max_players for s in players)
    fewest = min(s.min_players for s in players)
    departed = record(
        {
            "name": {"type": "string", "maxLength": carry_limits.NAME_CHARS},
            "key": ref("bytes-32"),
            "ledger": ref("ledger"),
        },
        description="a seat away from the table (sitting out or stood up)",
    )
    return {
        "table-config": record(
            {
                "version": {"const": PROTOCOL_VERSION},
                "table_id": ref(f"bytes-{TABLE_ID_BYTES}"),
                "game": ref("game-config"),
                "seats": {
                    **array(
                        record({"name": {"type": "string"}, "key": ref("bytes-32")}),
                        fewest,
                        most,
                    ),
                    "description": "one per player, in seat order; key: Ed25519 public key",
                },
                "step_timeout_ms": integer(MIN_STEP_TIMEOUT_MS, MAX_STEP_TIMEOUT_MS),
                "carry": ref("carry"),
            },
            optional=("carry",),
            description="TableConfig.to_wire (carry: every segment after a seat change)",
        ),
        "game-config": game_config(),
        "ledger": _ledger(),
        "departed": departed,
        "carry": record(
            {
                "previous": ref("bytes-32"),
                "segment": integer(1, carry_limits.MAX_SEGMENTS),
                "hands": integer(0, carry_limits.MAX_HANDS),
                "records": integer(1, carry_limits.MAX_RECORDS),
                "ledgers": array(ref("ledger"), 0, 8),  # Carry.from_wire's bound
                "table": ref("ledger"),
                "away": array(ref("departed"), 0, carry_limits.MAX_AWAY),
                "left": array(ref("departed"), 0, carry_limits.MAX_LEFT),
            },
            description="Carry.to_wire: what a seat change carries into the next segment",
        ),
    }


# Where the table kinds' bodies hold a payload the registry only checks for shape: the path
# (kind.field, [] for a list item) and its schema. schema_gen refuses a payload not listed here.
PAYLOADS: dict[str, Schema] = {
    "key-commit.commit": ref("key-commit"),
    "key-reveal.reveal": ref("key-reveal"),
    "shuffle.shuffle": ref("shuffle"),
    "shares.batch": ref("share-batch"),
    "reveal.batch": ref("share-batch"),
    "action.action": ref("action"),
    "action.open": ref("share"),
    "action.nonmember[]": ref("nonmember"),
    "request.action": ref("action"),
    "next-config.config": ref("table-config"),
}


def payload_defs() -> dict[str, Schema]:
    return {**deck_defs(), "action": build_action(), **config_defs()}
