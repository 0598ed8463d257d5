"""``dealerless config``: where the settings file is and what it says; ``--set KEY=VALUE``
changes one setting (the file is written atomically, every other setting kept)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from dealerless.client.commands.games import add_home
from dealerless.client.config import Config, ConfigFileError, config_path, load_config, save_config
from dealerless.protocol.rules.base import ConfigError, OptionValue
from dealerless.protocol.rules.registry import game_spec

HELP = "show the settings file, or set a value in it"
KEYS = (
    "name, language, level, time_per_move, ascii, result_pause, nostr.relays (comma-separated), "
    "nostr.expiration_days, stun.servers (comma-separated), direct.punch, start.game, "
    "start.bots, host.game, host.seats, host.bots, host.lan_only, rules.GAME.KEY"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_home(parser)
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"change a setting; KEY is one of: {KEYS}",
    )
    parser.add_argument("--json", action="store_true", help="print the settings as JSON")


def _parse_value(text: str) -> bool | int | str:
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered.lstrip("-").isdigit():
        return int(lowered)
    return text.strip()


def _rule_value(game: str, option: str, text: str) -> OptionValue:
    """A house rule's value read as ``--rule`` reads it (the file check names what is wrong)."""
    try:
        return game_spec(game).option_spec(option).parse(text)
    except ConfigError:
        return _parse_value(text)  # from_toml says what is wrong, naming the key


def apply_setting(config: Config, assignment: str) -> Config:
    """``config`` with one ``KEY=VALUE`` applied; ConfigFileError if the key or value is bad."""
    key, sep, value = assignment.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigFileError(f"--set takes KEY=VALUE, got {assignment!r}")
    doc: dict[str, Any] = config.to_toml()
    if key == "nostr.relays":
        doc["nostr"]["relays"] = [r.strip() for r in value.split(",") if r.strip()]
    elif key == "nostr.expiration_days":
        try:
            doc["nostr"]["expiration_days"] = float(value)
        except ValueError:
            raise ConfigFileError(f"--set {key}: {value.strip()!r} is not a number") from None
    elif key == "stun.servers":
        doc["stun"]["servers"] = [s.strip() for s in value.split(",") if s.strip()]
    elif key == "direct.punch":
        doc["direct"]["punch"] = _parse_value(value)
    elif key.startswith("rules."):
        parts = key.split(".", 2)
        if len(parts) != 3 or not parts[1] or not parts[2]:
            raise ConfigFileError(f"--set {key}: write rules.GAME.KEY=VALUE")
        doc.setdefault("rules", {}).setdefault(parts[1], {})[parts[2]] = _rule_value(
            parts[1], parts[2], value
        )
    elif key in ("name", "language", "level"):
        doc[key] = value.strip()
    elif key in ("time_per_move", "ascii", "result_pause"):
        doc[key] = _parse_value(value)
    elif key == "start.game":
        doc["start"]["game"] = value.strip()
    elif key == "start.bots":
        doc["start"]["bots"] = _parse_value(value)
    elif key == "host.game":
        # Another game: the seats move into its range (belote has 4), so one --set suffices.
        host = doc["host"]
        host["game"] = value.strip()
        try:
            spec = game_spec(host["game"])
        except ConfigError:
            pass  # from_toml names the unknown game
        else:
            host["seats"] = max(spec.min_players, min(spec.max_players, host["seats"]))
            host["bots"] = min(host["bots"], host["seats"] - 1)
    elif key in ("host.seats", "host.bots", "host.lan_only"):
        doc["host"][key[5:]] = _parse_value(value)
    else:
        raise ConfigFileError(f"--set: unknown setting {key!r}; one of: {KEYS}")
    return Config.from_toml(doc, f"--set {key}")


def run(args: argparse.Namespace) -> int:
    path = config_path(args.home)
    try:
        config = load_config(args.home)
        if args.set:
            for assignment in args.set:
                config = apply_setting(config, assignment)
            save_config(config, path)
            print(f"saved {path}", file=sys.stderr)
    except ConfigFileError as exc:
        print(f"dealerless config: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"dealerless config: cannot write {path}: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"file": str(path), "settings": config.to_toml()}, indent=1))
        return 0
    import tomli_w

    print(f"# {path}{'' if path.exists() else ' (not written yet: the defaults)'}")
    print(tomli_w.dumps(config.to_toml()), end="")
    return 0
