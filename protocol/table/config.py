"""The agreed configuration of a table: game, options, seats and their identity keys."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dealerless.protocol.messages import MessageError, PeerId, config_hash
from dealerless.protocol.rules.base import ConfigError, GameConfig
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table.carry import Carry

PROTOCOL_VERSION = 4  # 2: parallel key and share rounds; 3: parallel results, batched shares;
# 4: the next hand's deck is prepared while a hand is played (P-53)
TABLE_ID_BYTES = 16
DEFAULT_STEP_TIMEOUT_MS = 60_000
MIN_STEP_TIMEOUT_MS = 100
MAX_STEP_TIMEOUT_MS = 24 * 3600 * 1000


@dataclass(frozen=True)
class SeatInfo:
    name: str
    key: bytes  # raw 32-byte Ed25519 public key

    @property
    def peer_id(self) -> PeerId:
        return PeerId(self.key)


@dataclass(frozen=True)
class TableConfig:
    """Everything the seats sign before the first hand (``config-sign``)."""

    table_id: bytes
    game: GameConfig
    seats: tuple[SeatInfo, ...]
    step_timeout_ms: int = DEFAULT_STEP_TIMEOUT_MS
    version: int = PROTOCOL_VERSION
    carry: Carry | None = None  # a later segment of a table whose seats changed (carry.py)

    def __post_init__(self) -> None:
        if len(self.table_id) != TABLE_ID_BYTES:
            raise ConfigError(f"table id must be {TABLE_ID_BYTES} bytes")
        if len(self.seats) != self.game.players:
            raise ConfigError(f"{len(self.seats)} seats for a {self.game.players}-player game")
        keys = [s.key for s in self.seats]
        if len(set(keys)) != len(keys):
            raise ConfigError("two seats have the same identity key")
        for number, seat in enumerate(self.seats):
            try:
                seat.peer_id  # noqa: B018 - validates the key
            except (MessageError, ValueError) as exc:
                raise ConfigError(f"seat {number}: not a valid identity key ({exc})") from None
        if not MIN_STEP_TIMEOUT_MS <= self.step_timeout_ms <= MAX_STEP_TIMEOUT_MS:
            raise ConfigError(
                f"the time per step must be {MIN_STEP_TIMEOUT_MS / 1000:g}.."
                f"{MAX_STEP_TIMEOUT_MS / 1000:g} seconds, got {self.step_timeout_ms / 1000:g}"
            )
        if self.version != PROTOCOL_VERSION:
            raise ConfigError(f"protocol version {self.version} is not supported")
        if self.carry is not None:
            if len(self.carry.ledgers) != len(self.seats):
                raise ConfigError(
                    f"carry has {len(self.carry.ledgers)} ledgers for {len(self.seats)} seats"
                )
            elsewhere = [d.key for d in (*self.carry.away, *self.carry.left)]
            if len(set(elsewhere)) != len(elsewhere) or set(elsewhere) & set(keys):
                raise ConfigError("carry: a seat is listed twice (seated, away or stood up)")

    @property
    def players(self) -> int:
        return self.game.players

    def seat_of(self, key: bytes) -> int | None:
        for number, seat in enumerate(self.seats):
            if seat.key == key:
                return number
        return None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "version": self.version,
            "table_id": self.table_id,
            "game": self.game.to_wire(),
            "seats": [{"name": s.name, "key": s.key} for s in self.seats],
            "step_timeout_ms": self.step_timeout_ms,
        }
        if self.carry is not None:
            wire["carry"] = self.carry.to_wire()
        return wire

    def digest(self) -> bytes:
        return config_hash(self.to_wire())

    @staticmethod
    def from_wire(data: object) -> TableConfig:
        """Strictly decode a configuration; raises ConfigError saying what is wrong."""
        if not isinstance(data, Mapping):
            raise ConfigError("table configuration must be a map")
        expected = {"version", "table_id", "game", "seats", "step_timeout_ms"}
        if set(data) - {"carry"} != expected:
            raise ConfigError(
                f"table configuration needs exactly the fields {sorted(expected)} "
                "(and carry, after a seat change)"
            )
        game = data["game"]
        if not isinstance(game, Mapping) or set(game) != {"game", "players", "options"}:
            raise ConfigError("configuration 'game' must have game, players and options")
        if not isinstance(game["game"], str) or not isinstance(game["options"], Mapping):
            raise ConfigError("configuration 'game' has wrong types")
        game_config = make_config(game["game"], game["players"], dict(game["options"]))
        seats_raw = data["seats"]
        if not isinstance(seats_raw, list):
            raise ConfigError("configuration 'seats' must be a list")
        seats = []
        for entry in seats_raw:
            if (
                not isinstance(entry, Mapping)
                or set(entry) != {"name", "key"}
                or not isinstance(entry["name"], str)
                or not isinstance(entry["key"], bytes)
            ):
                raise ConfigError("each seat must be {name: str, key: 32 bytes}")
            seats.append(SeatInfo(entry["name"], entry["key"]))
        table_id, timeout, version = data["table_id"], data["step_timeout_ms"], data["version"]
        if not isinstance(table_id, bytes):
            raise ConfigError("table_id must be bytes")
        if not isinstance(timeout, int) or isinstance(timeout, bool):
            raise ConfigError("step_timeout_ms must be an integer")
        if not isinstance(version, int) or isinstance(version, bool):
            raise ConfigError("version must be an integer")
        carry = Carry.from_wire(data["carry"]) if "carry" in data else None
        return TableConfig(table_id, game_config, tuple(seats), timeout, version, carry)
