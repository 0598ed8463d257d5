"""Trust on first use for relays: the fingerprint a relay address showed the first time is
remembered in ``<home>/relays.json`` (0600) and pinned on every later link to that address.

An invite that names a relay's fingerprint pins it outright; this is for the others, so that
a relay link is always pinned (spec/node.md §4).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from dealerless.node.identity import normalize_fingerprint
from dealerless.node.notices import Notice, english, notice

__all__ = ["PinsError", "RelayPins"]

MAX_PINS = 1024


class PinsError(ValueError):
    """The pins file cannot be used; ``notice`` says so (its English is the message)."""

    def __init__(self, said: Notice) -> None:
        self.notice = said
        super().__init__(english(said))


class RelayPins:
    def __init__(self, home: Path) -> None:
        self.path = home / "relays.json"

    def _load(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise PinsError(
                notice("pins_unreadable", path=str(self.path), error=str(exc))
            ) from None
        if not isinstance(data, dict):
            raise PinsError(notice("pins_not_map", path=str(self.path)))
        return {str(k): normalize_fingerprint(str(v)) for k, v in data.items()}

    def get(self, address: str, port: int) -> str:
        return self._load().get(f"{address}:{port}", "")

    def remember(self, address: str, port: int, fingerprint: str) -> None:
        pins = self._load()
        key = f"{address}:{port}"
        if key in pins or len(pins) >= MAX_PINS:
            return
        pins[key] = normalize_fingerprint(fingerprint)
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        tmp = self.path.with_name(".relays.json.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, json.dumps(pins, indent=1).encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, self.path)
