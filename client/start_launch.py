"""What the start screen's entries run: the command lines of the real ``play``, ``host`` and
``join`` commands (``dealerless.client.cli.start_launcher`` runs them).

The start screen only collects the choice (game, bots or seats, invite code) and the settings
(name, language, time per move, suit letters, house rules); each entry then runs the same
command a user could type, so the start screen plays on real nodes exactly like the commands.
"""

from __future__ import annotations

from dealerless.client.tui.settings import Settings
from dealerless.client.tui.start import StartChoice


def _common(settings: Settings) -> list[str]:
    argv = ["--name", settings.name, "--lang", settings.lang, "--from-menu"]
    if settings.ascii:
        argv.append("--ascii")
    return argv


def _rules(settings: Settings, game: str) -> list[str]:
    argv: list[str] = []
    for key, value in sorted(settings.rules.get(game, {}).items()):
        text = str(value).lower() if isinstance(value, bool) else str(value)
        argv += ["--rule", f"{key}={text}"]
    return argv


def play_argv(settings: Settings, choice: StartChoice) -> list[str]:
    return [
        "play",
        "--game",
        choice.game,
        "--bots",
        str(choice.bots),
        "--timeout",
        str(settings.timeout_s),
        "--level",
        settings.level,
        *_rules(settings, choice.game),
        *_common(settings),
    ]


def host_argv(settings: Settings, choice: StartChoice) -> list[str]:
    return [
        "host",
        "--game",
        choice.game,
        "--seats",
        str(choice.seats),
        "--bots",
        str(choice.bots),
        "--level",
        settings.level,
        "--step-timeout",
        str(settings.timeout_s),
        *(["--lan-only"] if choice.lan_only else []),  # default: the Nostr relays and the LAN
        *_rules(settings, choice.game),
        *_common(settings),
    ]


def join_argv(settings: Settings, choice: StartChoice) -> list[str]:
    return ["join", choice.code, *_common(settings)]
