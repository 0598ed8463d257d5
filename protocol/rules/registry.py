"""The games the project knows, their options, and how to make an engine for one.

Each engine module defines ``SPECS: dict[str, GameSpec]``; this registry only knows which
module holds which game, so engine modules never need to edit it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from dealerless.protocol.rules.base import ConfigError, Engine, GameConfig, OptionSpec, OptionValue

GAME_MODULES: dict[str, str] = {
    "tuppen": "tuppen",
    "limit-tuppen": "limit",
    "no-limit-tuppen": "limit",
    "pot-limit-tuppen": "limit",
    "pottuppen": "pottuppen",
    "belote": "belote",
}


@dataclass(frozen=True)
class GameSpec:
    name: str
    title: str
    min_players: int
    max_players: int
    score_kind: str  # "penalty points", "chips", "balance", "team points"
    options: tuple[OptionSpec, ...]
    factory: Callable[[GameConfig, int], Engine]  # (config, first_dealer) -> engine
    seeds: str  # which seed texts it is built from
    summary: str

    def option_spec(self, name: str) -> OptionSpec:
        for spec in self.options:
            if spec.name == name:
                return spec
        known = ", ".join(s.name for s in self.options) or "none"
        raise ConfigError(f"{self.name} has no option {name!r} (options: {known})")


def game_names() -> list[str]:
    return list(GAME_MODULES)


def game_spec(name: str) -> GameSpec:
    module_name = GAME_MODULES.get(name)
    if module_name is None:
        raise ConfigError(f"unknown game {name!r}; games: {', '.join(GAME_MODULES)}")
    module = importlib.import_module(f"dealerless.protocol.rules.{module_name}")
    specs: Mapping[str, GameSpec] = module.SPECS
    return specs[name]


def make_config(
    game: str, players: int, options: Mapping[str, OptionValue] | None = None
) -> GameConfig:
    """Validate a game, a seat count and options; fill in every default."""
    spec = game_spec(game)
    if isinstance(players, bool) or not isinstance(players, int):
        raise ConfigError(f"players must be a whole number, got {players!r}")
    if not spec.min_players <= players <= spec.max_players:
        seats = (
            f"exactly {spec.min_players}"
            if spec.min_players == spec.max_players
            else f"{spec.min_players} to {spec.max_players}"
        )
        raise ConfigError(f"{game} is for {seats} players, not {players}")
    full: dict[str, OptionValue] = {o.name: o.default for o in spec.options}
    for name, value in (options or {}).items():
        full[name] = spec.option_spec(name).validate(value)
    return GameConfig(game, players, full)


def parse_rule_args(game: str, rules: list[str]) -> dict[str, OptionValue]:
    """Parse ``KEY=VALUE`` strings from the command line."""
    spec = game_spec(game)
    out: dict[str, OptionValue] = {}
    for text in rules:
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--rule takes KEY=VALUE, got {text!r}")
        out[key.strip()] = spec.option_spec(key.strip()).parse(value)
    return out


def new_engine(config: GameConfig, first_dealer: int = 0) -> Engine:
    return game_spec(config.game).factory(config, first_dealer)
