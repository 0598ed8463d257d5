"""The start screen's entries run the real commands with the player's settings."""

from __future__ import annotations

import pytest

from dealerless.client import start_launch
from dealerless.client.cli import build_parser, start_launcher
from dealerless.client.tui import start
from dealerless.client.tui.settings import Settings
from dealerless.client.tui.start import StartChoice


def settings() -> Settings:
    s = Settings(name="ann", lang="de", timeout_s=45, ascii=True)
    s.rules = {"limit-tuppen": {"hands": 3, "dirty_laundry": True}}
    return s


def test_each_entry_builds_a_command_the_cli_accepts() -> None:
    parser = build_parser()
    play = parser.parse_args(
        start_launch.play_argv(settings(), StartChoice("play", "limit-tuppen", 2))
    )
    assert (play.game, play.bots, play.timeout, play.name, play.lang) == (
        "limit-tuppen",
        2,
        45,
        "ann",
        "de",
    )
    assert sorted(play.rule) == ["dirty_laundry=true", "hands=3"] and play.ascii
    chosen = StartChoice("host", "belote", 2, seats=4)  # 2 bots, 1 seat for a person
    host = parser.parse_args(start_launch.host_argv(settings(), chosen))
    assert (host.game, host.seats, host.bots, host.step_timeout) == ("belote", 4, 2, 45)
    assert host.level == settings().level
    assert not host.lan_only and not host.listen and not host.nostr  # the default: internet
    lan = StartChoice("host", "belote", 0, lan_only=True, seats=4)
    assert parser.parse_args(start_launch.host_argv(settings(), lan)).lan_only
    join = parser.parse_args(start_launch.join_argv(settings(), StartChoice("join", code="dl1:x")))
    assert (join.code, join.name) == ("dl1:x", "ann")


def test_run_client_hands_each_choice_to_its_launcher(monkeypatch: pytest.MonkeyPatch) -> None:
    choices = iter(
        [
            StartChoice("host", "tuppen", 2),
            StartChoice("join", code="dl1:abc"),
            StartChoice("play", "belote", 3),
            StartChoice("quit"),
        ]
    )
    monkeypatch.setattr(start, "run_start_screen", lambda *_a, **_k: next(choices))
    ran: list[tuple[str, StartChoice]] = []

    def launcher(kind: str) -> start.Launcher:
        return lambda _s, choice: ran.append((kind, choice)) or 0

    code = start.run_client(
        settings(),
        play=launcher("play"),
        host=launcher("host"),
        join=launcher("join"),
        save_settings=False,
    )
    assert code == 0
    assert [(k, c.kind) for k, c in ran] == [("host", "host"), ("join", "join"), ("play", "play")]
    assert ran[1][1].code == "dl1:abc"


def test_a_bad_entry_reports_instead_of_raising(capsys: pytest.CaptureFixture[str]) -> None:
    launch = start_launcher(start_launch.join_argv)
    code = launch(settings(), StartChoice("join", code="not-a-code"))
    assert code == 2
    assert "an invite code starts with 'dl3:'" in capsys.readouterr().err
