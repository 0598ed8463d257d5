"""The player's settings as the start screen edits them (name, language, time per move, bot
level, suit letters, the last game chosen, house rules), kept in the one settings file that the
CLI reads too (client/config.py: ``config.toml``)."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

from dealerless.client.bots import DEFAULT_LEVEL, LEVELS
from dealerless.client.config import Config, ConfigFileError, config_path, read_config_file
from dealerless.client.config import save_config as write_config
from dealerless.client.tui.i18n import LANGUAGES
from dealerless.node.portable import user_name
from dealerless.protocol.rules.base import OptionValue

_LOG = logging.getLogger("dealerless.client")


@dataclass
class Settings:
    name: str = "player"
    lang: str = "en"
    timeout_s: int = 120
    level: str = DEFAULT_LEVEL  # of the bots that fill the seats
    ascii: bool = False
    game: str = "tuppen"
    bots: int = 3
    result_pause_s: int = 0  # the result panel closes this long after the game goes on; 0: stays
    # the host form's last choice (config.toml [host])
    host_game: str = "limit-tuppen"
    host_seats: int = 2
    host_bots: int = 0
    host_lan_only: bool = False
    rules: dict[str, dict[str, OptionValue]] = field(default_factory=dict)  # game -> options
    # the settings the start screen does not edit (Nostr relays), kept as read
    base: Config = field(default_factory=Config, repr=False, compare=False)
    # False when the file could not be read: saving then would overwrite the player's file
    writable: bool = field(default=True, repr=False, compare=False)

    @staticmethod
    def default_path(home: str | None = None) -> Path:
        return config_path(home)

    @classmethod
    def load(cls, path: Path | None = None, *, home: str | None = None) -> Settings:
        target = path or cls.default_path(home)
        legacy = target.with_name("client.json")
        if not target.exists() and legacy.exists():
            return cls._from_legacy(legacy)
        try:
            config = read_config_file(target)
        except ConfigFileError as exc:
            _LOG.warning("%s; using the default settings (the file is left as it is)", exc)
            settings = cls(name=user_name())
            settings.writable = False
            return settings
        settings = cls(
            name=config.name,
            lang=config.language if config.language in LANGUAGES else "en",
            timeout_s=config.time_per_move,
            level=config.level if config.level in LEVELS else DEFAULT_LEVEL,
            result_pause_s=config.result_pause,
            ascii=config.ascii,
            game=config.start_game,
            bots=config.start_bots,
            host_game=config.host_game,
            host_seats=config.host_seats,
            host_bots=config.host_bots,
            host_lan_only=config.host_lan_only,
            rules={game: dict(opts) for game, opts in config.rules.items()},
            base=config,
        )
        return settings

    @classmethod
    def _from_legacy(cls, legacy: Path) -> Settings:
        """The JSON file of earlier versions (read once; the next save writes config.toml)."""
        settings = cls(name=user_name())
        try:
            data = json.loads(legacy.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            _LOG.warning(
                "cannot read the old settings file %s (%s); using the defaults", legacy, exc
            )
            return settings
        if isinstance(data, dict):
            for key, value in data.items():
                editable = key in cls.__dataclass_fields__ and key not in ("base", "writable")
                if editable and type(value) is type(getattr(settings, key)):
                    setattr(settings, key, value)
        if settings.lang not in LANGUAGES:
            settings.lang = "en"
        if settings.level not in LEVELS:
            settings.level = DEFAULT_LEVEL
        return settings

    def to_config(self) -> Config:
        config = Config(**{**self.base.__dict__})
        config.name, config.language = self.name, self.lang
        config.time_per_move, config.ascii = self.timeout_s, self.ascii
        config.level = self.level
        config.result_pause = self.result_pause_s
        config.start_game, config.start_bots = self.game, self.bots
        config.host_game, config.host_seats = self.host_game, self.host_seats
        config.host_bots, config.host_lan_only = self.host_bots, self.host_lan_only
        config.rules = {game: dict(opts) for game, opts in self.rules.items()}
        return config

    def save(self, path: Path | None = None, *, home: str | None = None) -> None:
        if not self.writable:
            return
        write_config(self.to_config(), path or self.default_path(home))
