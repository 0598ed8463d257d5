"""The player's settings (name, language, time per move, suit letters, house rules), kept as
JSON in the platform's config folder."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from dealerless.client.tui.i18n import LANGUAGES
from dealerless.protocol.rules.base import OptionValue


@dataclass
class Settings:
    name: str = "player"
    lang: str = "en"
    timeout_s: int = 120
    ascii: bool = False
    game: str = "tuppen"
    bots: int = 3
    result_pause_s: int = 0  # the result panel closes this long after the game goes on; 0: stays
    rules: dict[str, dict[str, OptionValue]] = field(default_factory=dict)  # game -> options

    @staticmethod
    def default_path() -> Path:
        import platformdirs

        return Path(platformdirs.user_config_dir("dealerless")) / "client.json"

    @classmethod
    def load(cls, path: Path | None = None) -> Settings:
        target = path or cls.default_path()
        # the login name (USER on Unix, USERNAME on Windows) until the player sets one
        user = os.environ.get("USER") or os.environ.get("USERNAME") or ""
        settings = cls(name=user.strip()[:24] or "player")
        try:
            data = json.loads(target.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return settings
        if isinstance(data, dict):
            for key, value in data.items():
                if hasattr(settings, key) and type(value) is type(getattr(settings, key)):
                    setattr(settings, key, value)
        if settings.lang not in LANGUAGES:
            settings.lang = "en"
        return settings

    def save(self, path: Path | None = None) -> None:
        target = path or self.default_path()
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(asdict(self), indent=2), encoding="utf-8")
