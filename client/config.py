"""The one settings file, ``config.toml``, that the CLI and the full-screen client both read.

Where: the platform's config directory (``dealerless`` under it), or ``<home>/config.toml``
with ``--home DIR`` / ``$DEALERLESS_HOME``. Read with :mod:`tomllib`, written atomically
(temporary file, fsync, rename) with ``tomli_w``. Command-line flags override it.

::

    name = "ann"
    language = "de"            # en, de, nl or fr; empty: from the locale
    level = "strong"           # bot strength (strong, normal, basic): play --level, join --level
    time_per_move = 120        # seconds a seat may think at its step
    ascii = false              # suit letters instead of symbols

    [nostr]
    relays = ["wss://relay.example"]   # where `host` meets the players when no --nostr,
                                       # --listen, --lan-only or --relay is given (also the
                                       # start screen's Host); empty: the shipped defaults

    [stun]
    servers = ["stun.example:3478"]    # STUN servers for direct links (--stun); empty: shipped

    [direct]
    punch = true               # false: no direct links, every frame via the relays
                               # (--relays-only): other seats never learn our address

    [start]                    # the start screen's last choice
    game = "tuppen"
    bots = 3

    [rules.limit-tuppen]       # house-rule defaults per game (as --rule KEY=VALUE)
    hands = 5

A file that cannot be read, a value of the wrong type, or a key this version does not know
gives :class:`ConfigFileError` naming the file and the key; nothing is overwritten.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dealerless.node.nostr.defaults import MAX_RELAYS, relay_url_problem
from dealerless.node.portable import config_dir, fsync_directory, user_name
from dealerless.node.stun_servers import MAX_STUN_SERVERS, parse_stun_servers
from dealerless.protocol.rules.base import ConfigError, OptionValue
from dealerless.protocol.rules.registry import GameSpec, game_spec
from dealerless.protocol.table.carry import NAME_CHARS  # the longest name a table carries

__all__ = [
    "CONFIG_NAME",
    "Config",
    "ConfigFileError",
    "config_path",
    "load_config",
    "read_config_file",
    "save_config",
]

CONFIG_NAME = "config.toml"
MAX_CONFIG_BYTES = 256 * 1024
LANGUAGES = ("en", "de", "nl", "fr")
LEVELS = ("strong", "normal", "basic")  # client/bots: what a person may choose
MAX_TIME_PER_MOVE_S = 24 * 3600
MAX_BOTS = 7  # the start screen's bots: a table has at most 8 seats


class ConfigFileError(Exception):
    """The settings file cannot be used; the message names the file and the key."""


@dataclass
class Config:
    name: str = field(default_factory=user_name)
    language: str = ""
    level: str = "strong"
    time_per_move: int = 120
    ascii: bool = False
    result_pause: int = 0  # seconds the result panel stays after the game goes on; 0: until closed
    nostr_relays: list[str] = field(default_factory=list)
    nostr_expiration_days: float = 7.0  # NIP-40: our stored frames leave the relays after this
    stun_servers: list[str] = field(default_factory=list)  # HOST:PORT; empty: shipped defaults
    direct_punch: bool = True  # False: relays only, no seat learns our address
    start_game: str = "tuppen"
    start_bots: int = 3
    # The start screen's "host a table" form, as last filled in.
    host_game: str = "limit-tuppen"
    host_seats: int = 2
    host_bots: int = 0  # seats filled by bots (the others are for people)
    host_lan_only: bool = False
    rules: dict[str, dict[str, OptionValue]] = field(default_factory=dict)

    def rules_for(self, game: str) -> dict[str, OptionValue]:
        return dict(self.rules.get(game, {}))

    def to_toml(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "name": self.name,
            "language": self.language,
            "level": self.level,
            "time_per_move": self.time_per_move,
            "ascii": self.ascii,
            "result_pause": self.result_pause,
            "nostr": {
                "relays": list(self.nostr_relays),
                "expiration_days": self.nostr_expiration_days,
            },
            "stun": {"servers": list(self.stun_servers)},
            "direct": {"punch": self.direct_punch},
            "start": {"game": self.start_game, "bots": self.start_bots},
            "host": {
                "game": self.host_game,
                "seats": self.host_seats,
                "bots": self.host_bots,
                "lan_only": self.host_lan_only,
            },
        }
        if self.rules:
            doc["rules"] = {game: dict(opts) for game, opts in sorted(self.rules.items())}
        return doc

    @classmethod
    def from_toml(cls, doc: dict[str, Any], where: str) -> Config:
        config = cls()
        known = {
            "name",
            "language",
            "level",
            "time_per_move",
            "ascii",
            "result_pause",
            "nostr",
            "stun",
            "direct",
            "start",
            "host",
            "rules",
        }
        _no_unknown(doc, known, where, "")
        config.name = _typed(doc, "name", str, config.name, where)
        problem = name_problem(config.name)
        if problem:
            raise ConfigFileError(f"{where}: name {problem}")
        config.language = _typed(doc, "language", str, config.language, where)
        if config.language and config.language not in LANGUAGES:
            raise ConfigFileError(f"{where}: language must be one of {', '.join(LANGUAGES)}")
        config.level = _typed(doc, "level", str, config.level, where)
        if config.level not in LEVELS:
            raise ConfigFileError(f"{where}: level must be one of {', '.join(LEVELS)}")
        config.time_per_move = _typed(doc, "time_per_move", int, config.time_per_move, where)
        if not 1 <= config.time_per_move <= MAX_TIME_PER_MOVE_S:
            raise ConfigFileError(
                f"{where}: time_per_move must be 1..{MAX_TIME_PER_MOVE_S} seconds"
            )
        config.ascii = _typed(doc, "ascii", bool, config.ascii, where)
        config.result_pause = _typed(doc, "result_pause", int, config.result_pause, where)
        if not 0 <= config.result_pause <= 600:
            raise ConfigFileError(f"{where}: result_pause must be 0..600 seconds")
        nostr = _typed(doc, "nostr", dict, {}, where)
        _no_unknown(nostr, {"relays", "expiration_days"}, where, "nostr.")
        days = nostr.get("expiration_days", config.nostr_expiration_days)
        if isinstance(days, bool) or not isinstance(days, (int, float)) or not 0 < days <= 365:
            raise ConfigFileError(f"{where}: nostr.expiration_days must be a number of days, 0-365")
        config.nostr_expiration_days = float(days)
        relays = _typed(nostr, "relays", list, [], where, "nostr.")
        if not all(isinstance(r, str) and r for r in relays):
            raise ConfigFileError(f"{where}: nostr.relays must be a list of relay addresses")
        if len(relays) > MAX_RELAYS:
            raise ConfigFileError(f"{where}: nostr.relays: at most {MAX_RELAYS} relays")
        for relay in relays:
            problem = relay_url_problem(relay)
            if problem:
                raise ConfigFileError(f"{where}: nostr.relays: {problem}")
        config.nostr_relays = list(relays)
        _read_direct(config, doc, where)
        start = _typed(doc, "start", dict, {}, where)
        _no_unknown(start, {"game", "bots"}, where, "start.")
        config.start_game = _typed(start, "game", str, config.start_game, where, "start.")
        _known_game(config.start_game, where, "start.game")
        config.start_bots = _typed(start, "bots", int, config.start_bots, where, "start.")
        if not 1 <= config.start_bots <= MAX_BOTS:
            raise ConfigFileError(f"{where}: start.bots must be 1..{MAX_BOTS}")
        _read_host(config, _typed(doc, "host", dict, {}, where), where)
        rules = _typed(doc, "rules", dict, {}, where)
        for game, options in rules.items():
            if not isinstance(options, dict):
                raise ConfigFileError(
                    f"{where}: rules.{game} must be a table of KEY = VALUE house rules"
                )
            spec = _known_game(game, where, f"rules.{game}")
            checked: dict[str, OptionValue] = {}
            for key, value in options.items():
                try:
                    checked[key] = spec.option_spec(key).validate(value)
                except ConfigError as exc:
                    raise ConfigFileError(f"{where}: rules.{game}.{key}: {exc}") from None
            config.rules[game] = checked
        return config


def _read_direct(config: Config, doc: dict[str, Any], where: str) -> None:
    """``[stun] servers`` and ``[direct] punch``: direct links between seats."""
    stun = _typed(doc, "stun", dict, {}, where)
    _no_unknown(stun, {"servers"}, where, "stun.")
    servers = _typed(stun, "servers", list, [], where, "stun.")
    if not all(isinstance(s, str) and s for s in servers) or len(servers) > MAX_STUN_SERVERS:
        raise ConfigFileError(
            f"{where}: stun.servers must be a list of at most {MAX_STUN_SERVERS} HOST:PORT"
        )
    try:
        parse_stun_servers(servers)
    except ValueError as exc:
        raise ConfigFileError(f"{where}: stun.servers: {exc}") from None
    config.stun_servers = list(servers)
    direct = _typed(doc, "direct", dict, {}, where)
    _no_unknown(direct, {"punch"}, where, "direct.")
    config.direct_punch = _typed(direct, "punch", bool, config.direct_punch, where, "direct.")


def _read_host(config: Config, host: dict[str, Any], where: str) -> None:
    """The ``[host]`` table: the host form's game, seats, bots and ways, checked together
    (bots fill seats other than ours: fewer than the seats)."""
    _no_unknown(host, {"game", "seats", "bots", "lan_only"}, where, "host.")
    config.host_game = _typed(host, "game", str, config.host_game, where, "host.")
    spec = _known_game(config.host_game, where, "host.game")
    config.host_seats = _typed(host, "seats", int, config.host_seats, where, "host.")
    if not spec.min_players <= config.host_seats <= spec.max_players:
        raise ConfigFileError(
            f"{where}: host.seats must be {spec.min_players}..{spec.max_players} "
            f"for {config.host_game}"
        )
    config.host_bots = _typed(host, "bots", int, config.host_bots, where, "host.")
    if not 0 <= config.host_bots < config.host_seats:
        raise ConfigFileError(f"{where}: host.bots must be 0..{config.host_seats - 1}")
    config.host_lan_only = _typed(host, "lan_only", bool, config.host_lan_only, where, "host.")


def name_problem(name: str) -> str | None:
    """What is wrong with a player's name (None if nothing): it is shown at every table."""
    if not name.strip():
        return "must not be empty"
    if len(name) > NAME_CHARS:
        return f"must be at most {NAME_CHARS} characters, got {len(name)}"
    if any(not ch.isprintable() for ch in name):
        return "must not contain control characters"
    return None


def _known_game(game: str, where: str, key: str) -> GameSpec:
    try:
        return game_spec(game)
    except ConfigError as exc:
        raise ConfigFileError(f"{where}: {key}: {exc}") from None


def _no_unknown(doc: dict[str, Any], known: set[str], where: str, prefix: str) -> None:
    unknown = sorted(set(doc) - known)
    if unknown:
        raise ConfigFileError(
            f"{where}: unknown setting(s) {', '.join(prefix + k for k in unknown)}"
        )


def _typed(
    doc: dict[str, Any], key: str, kind: type, default: Any, where: str, prefix: str = ""
) -> Any:
    if key not in doc:
        return default
    value = doc[key]
    # bool is an int in Python; a setting that wants a number must not take true/false
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ConfigFileError(f"{where}: {prefix}{key} must be {_KINDS[kind]}, got {value!r}")
    return value


_KINDS: dict[type, str] = {
    str: "text",
    int: "a whole number",
    bool: "true or false",
    dict: "a table",
    list: "a list",
}


def config_path(home: str | os.PathLike[str] | None = None) -> Path:
    return config_dir(home) / CONFIG_NAME


def load_config(home: str | os.PathLike[str] | None = None) -> Config:
    """The settings (defaults where the file is missing); ConfigFileError if it is unusable."""
    return read_config_file(config_path(home))


def read_config_file(path: Path) -> Config:
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        return Config()
    except OSError as exc:
        raise ConfigFileError(f"cannot read {path}: {exc.strerror}") from exc
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigFileError(f"{path}: larger than {MAX_CONFIG_BYTES} bytes")
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigFileError(f"{path}: not valid TOML ({exc})") from exc
    return Config.from_toml(doc, str(path))


def save_config(config: Config, path: Path) -> Path:
    """Write the settings atomically: a crash leaves the old file or the new one, never half."""
    import tomli_w

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    data = tomli_w.dumps(config.to_toml()).encode("utf-8")
    try:
        with open(tmp, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    fsync_directory(path.parent)
    return path


def apply_config(args: Any) -> Config:
    """Fill what the command line left unset from the settings file (flags override it):
    ``--name``, ``--lang``, ``--ascii``, the time per move (``--timeout`` / ``--step-timeout``),
    ``--level``, ``--stun``, ``--relays-only``, and house rules (the file's go first, so a
    ``--rule`` of the same key wins)."""
    config = load_config(getattr(args, "home", None))
    if getattr(args, "name", None) == "":
        args.name = config.name
    if hasattr(args, "lang") and args.lang is None and config.language:
        args.lang = config.language
    if hasattr(args, "ascii") and not args.ascii:
        args.ascii = config.ascii
    for flag in ("timeout", "step_timeout"):
        if hasattr(args, flag) and getattr(args, flag) is None:
            setattr(args, flag, config.time_per_move)
    if hasattr(args, "level") and args.level is None:
        args.level = config.level
    args.nostr_expiration_days = config.nostr_expiration_days
    if hasattr(args, "stun") and args.stun is None and config.stun_servers:
        args.stun = ",".join(config.stun_servers)
    if hasattr(args, "relays_only") and not config.direct_punch:
        args.relays_only = True  # the file can only make it stricter
    game = getattr(args, "game", None)
    if hasattr(args, "rule") and isinstance(game, str):
        defaults = [f"{k}={_rule_text(v)}" for k, v in sorted(config.rules_for(game).items())]
        args.rule = [*defaults, *args.rule]
    return config


def _rule_text(value: OptionValue) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
