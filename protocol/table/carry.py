"""What a seat change carries from one segment of a table to the next (spec/protocol.md §9).

A table whose seats change between hands is a chain of *segments*: each has its own
configuration (its seats, its joint keys and shuffles among exactly those seats) and every
segment after the first names, in its configuration's ``carry``, the last head of the segment
before, the hands played so far and every ledger: the chips of each seat at the table, of the
seats sitting out and of the seats that stood up at this change. Nothing but newcomers' buy-ins
may appear or vanish at a change, which is how chips are conserved.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dealerless.protocol.rules.base import ConfigError

MAX_SEGMENTS = 1_000_000
MAX_HANDS = 10_000_000
MAX_RECORDS = 10**12
MAX_AWAY = 64  # seats sitting out that a table remembers
MAX_LEFT = 8  # seats that stand up at one change (at most the whole table)
MAX_CHIPS = 10**12
LEDGER_KEYS_MAX = 4
NAME_CHARS = 40

Ledger = tuple[tuple[str, int], ...]  # sorted (field, value) pairs: hashable and canonical


def ledger_of(entries: Mapping[str, int]) -> Ledger:
    return tuple(sorted(entries.items()))


def ledger_wire(ledger: Ledger) -> dict[str, int]:
    return dict(ledger)


def _ledger_from_wire(data: object, path: str) -> Ledger:
    if not isinstance(data, Mapping) or not 0 <= len(data) <= LEDGER_KEYS_MAX:
        raise ConfigError(f"{path} must be a map of at most {LEDGER_KEYS_MAX} fields")
    out: dict[str, int] = {}
    for key, value in data.items():
        if not isinstance(key, str) or not key or len(key) > 16:
            raise ConfigError(f"{path}: a field name must be a short string")
        if not isinstance(value, int) or isinstance(value, bool) or abs(value) > MAX_CHIPS:
            raise ConfigError(f"{path}.{key} must be an integer of at most {MAX_CHIPS}")
        out[key] = value
    return ledger_of(out)


@dataclass(frozen=True)
class Departed:
    """A seat that is not at the table: sitting out (it may come back) or stood up (gone)."""

    name: str
    key: bytes
    ledger: Ledger

    def to_wire(self) -> dict[str, Any]:
        return {"name": self.name, "key": self.key, "ledger": ledger_wire(self.ledger)}

    @staticmethod
    def from_wire(data: object, path: str) -> Departed:
        if not isinstance(data, Mapping) or set(data) != {"name", "key", "ledger"}:
            raise ConfigError(f"{path} must be {{name, key, ledger}}")
        name, key = data["name"], data["key"]
        if not isinstance(name, str) or len(name) > NAME_CHARS:
            raise ConfigError(f"{path}.name must be a string of at most {NAME_CHARS} characters")
        if not isinstance(key, bytes) or len(key) != 32:
            raise ConfigError(f"{path}.key must be a 32-byte identity key")
        return Departed(name, key, _ledger_from_wire(data["ledger"], f"{path}.ledger"))


@dataclass(frozen=True)
class Carry:
    previous: bytes  # the last head of the segment before
    segment: int  # 1 for the first change; the first segment has no carry
    hands: int  # hands played before this segment
    records: int  # where this segment's first record stands in the whole table's chain
    ledgers: tuple[Ledger, ...]  # one per seat of this segment, in seat order
    table: Ledger  # what stays with the table (a pot)
    away: tuple[Departed, ...]  # sitting out, in the order they sat out
    left: tuple[Departed, ...]  # stood up at this change, with what they took

    def __post_init__(self) -> None:
        if len(self.previous) != 32:
            raise ConfigError("carry.previous must be a 32-byte head")
        if not 1 <= self.segment <= MAX_SEGMENTS or not 0 <= self.hands <= MAX_HANDS:
            raise ConfigError("carry.segment or carry.hands is out of range")
        if not 1 <= self.records <= MAX_RECORDS:
            raise ConfigError("carry.records is out of range")
        if len(self.away) > MAX_AWAY or len(self.left) > MAX_LEFT:
            raise ConfigError(
                f"carry: at most {MAX_AWAY} seats away and {MAX_LEFT} standing up at once"
            )

    def to_wire(self) -> dict[str, Any]:
        return {
            "previous": self.previous,
            "segment": self.segment,
            "hands": self.hands,
            "records": self.records,
            "ledgers": [ledger_wire(x) for x in self.ledgers],
            "table": ledger_wire(self.table),
            "away": [d.to_wire() for d in self.away],
            "left": [d.to_wire() for d in self.left],
        }

    @staticmethod
    def from_wire(data: object) -> Carry:
        fields = {"previous", "segment", "hands", "records", "ledgers", "table", "away", "left"}
        if not isinstance(data, Mapping) or set(data) != fields:
            raise ConfigError(f"carry needs exactly the fields {sorted(fields)}")
        previous, segment, hands = data["previous"], data["segment"], data["hands"]
        records = data["records"]
        if not isinstance(previous, bytes):
            raise ConfigError("carry.previous must be bytes")
        for name, value in (("segment", segment), ("hands", hands), ("records", records)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise ConfigError(f"carry.{name} must be an integer")
        lists = {}
        for name, bound in (("ledgers", 8), ("away", MAX_AWAY), ("left", MAX_LEFT)):
            value = data[name]
            if not isinstance(value, list) or len(value) > bound:
                raise ConfigError(f"carry.{name} must be a list of at most {bound}")
            lists[name] = value
        return Carry(
            previous,
            segment,
            hands,
            records,
            tuple(
                _ledger_from_wire(x, f"carry.ledgers[{i}]") for i, x in enumerate(lists["ledgers"])
            ),
            _ledger_from_wire(data["table"], "carry.table"),
            tuple(Departed.from_wire(x, f"carry.away[{i}]") for i, x in enumerate(lists["away"])),
            tuple(Departed.from_wire(x, f"carry.left[{i}]") for i, x in enumerate(lists["left"])),
        )
