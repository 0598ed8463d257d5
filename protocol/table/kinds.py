"""The message kinds of the table protocol and their body schemas.

Crypto payloads are checked only for shape here (the codec already bounds size and depth); the
state machine decodes them strictly with the deck's ``from_wire`` and treats a failure as the
author's violation, naming the field.
"""

from __future__ import annotations

from typing import Any

from dealerless.protocol.messages import (
    DEFAULT_REGISTRY,
    Bytes,
    Custom,
    EmbeddedMessage,
    Enum,
    Field,
    Int,
    KindRegistry,
    List,
    Map,
    Opt,
    SchemaViolation,
)
from dealerless.protocol.rules.base import Action


class AnyValue(Field):
    """Any value the strict codec accepts (decoded later by the deck's own strict decoders)."""

    def check(self, value: object, path: str) -> None:
        if value is None:
            raise SchemaViolation(path, self.describe(), "nil")

    def describe(self) -> str:
        return "a deck payload"


def _action(value: Any) -> None:
    Action.from_wire(value)


# What a seat may ask for in its result signature (spec/protocol.md §9): stand up for good,
# sit out from the next hand on, or re-form the table (newcomers or seats coming back).
SEAT_CHANGES = ("stand", "sit-out", "reseat")
ACTION = Custom(AnyValue(), _action, "a game action")
TABLE_REGISTRY: KindRegistry = DEFAULT_REGISTRY.copy()
PAYLOAD = AnyValue()
DIGEST = Bytes(32)

KINDS: dict[str, tuple[Map, str]] = {
    "key-commit": (Map({"commit": PAYLOAD}), "commit to this hand's key share"),
    "key-reveal": (Map({"reveal": PAYLOAD}), "reveal the key share with a proof of knowledge"),
    "shuffle": (Map({"shuffle": PAYLOAD}), "re-encrypt and permute the deck, with a proof"),
    "shares": (
        Map({"batch": PAYLOAD}),
        "decryption shares (one batched DLEQ proof) for cards dealt to other seats or turned up",
    ),
    "reveal": (
        Map({"batch": PAYLOAD}),
        "the owner opens hidden cards the rules ask it to show (a check, a claim)",
    ),
    "action": (
        Map(
            {
                "action": ACTION,
                "open": Opt(PAYLOAD),
                "nonmember": Opt(List(PAYLOAD, max_len=8)),
            }
        ),
        "a move of the rules engine; a card play opens the card and proves legality",
    ),
    "request": (
        Map({"action": ACTION}),
        "an out-of-turn move, waiting for the arbiter to admit it (not a chain element)",
    ),
    "admit": (
        Map({"request": EmbeddedMessage(frozenset({"request"}), registry=TABLE_REGISTRY)}),
        "the arbiter admits a pending out-of-turn request into the chain",
    ),
    "result": (
        Map({"result": DIGEST, "state": DIGEST, "change": Opt(Enum(*SEAT_CHANGES))}),
        "sign the hand result and the public state after it (and ask for a seat change)",
    ),
    "next-config": (
        Map({"config": PAYLOAD}),
        "the next host: the configuration of the table's next segment after a seat change",
    ),
    "timeout-vote": (
        Map({"silent": Int(0, 7), "head": DIGEST}),
        "the voter saw nothing from the silent seat at this head by the deadline",
    ),
    "abort-vote": (
        Map(
            {
                "culprit": Int(0, 7),
                "anchor": DIGEST,
                "reason": Bytes(max_len=200),
                "evidence": Opt(List(Bytes(max_len=65536), max_len=2)),
            }
        ),
        "end the hand with this seat as culprit (a violation or a dead table)",
    ),
}

for _name, (_schema, _description) in KINDS.items():
    TABLE_REGISTRY.register(_name, _schema, description=_description)

# Messages that are not chain elements by themselves.
SIDE_KINDS = frozenset({"request", "timeout-vote", "abort-vote", "chat", "next-config"})
NEXT_CONFIG = "next-config"  # between two segments (segments.py), never inside one
