"""Command-line conventions: --version, python -m dealerless, lazy loading (the top-level help
imports no command), one summary per command in one place, completion scripts, seconds for
every time on the command line, and the settings file read by the commands."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dealerless.client.cli import COMMANDS, build_parser, main
from dealerless.client.commands.completion import completion_script
from dealerless.client.config import (
    Config,
    ConfigFileError,
    apply_config,
    config_path,
    load_config,
    save_config,
)

HEAVY = ("trio", "prompt_toolkit", "coincurve", "cryptography", "dealerless.client.commands.play")


def python(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *argv], capture_output=True, text=True, timeout=120, check=False
    )


def test_version_and_python_m() -> None:
    from importlib.metadata import version

    result = python("-m", "dealerless", "--version")
    assert result.returncode == 0 and result.stdout.strip() == f"dealerless {version('dealerless')}"
    result = python("-m", "dealerless", "--help")
    assert result.returncode == 0 and "play" in result.stdout and "completion" in result.stdout


def test_the_top_level_help_imports_no_command_and_nothing_heavy() -> None:
    probe = (
        "import sys\n"
        "from dealerless.client.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
        "print(sorted(m for m in sys.modules if m.startswith('dealerless.client.commands.')))\n"
    )
    result = python("-c", probe)
    heavy, commands = result.stdout.strip().splitlines()[-2:]
    assert heavy == "[]" and commands == "[]", result.stdout


def test_each_summary_is_the_command_modules_help() -> None:
    for name, summary in COMMANDS.items():
        module = importlib.import_module(f"dealerless.client.commands.{name}")
        assert summary == module.HELP, name


def test_log_options_before_and_after_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    assert parser.parse_args(["-v", "rules"]).verbose == 1
    assert parser.parse_args(["rules", "-vv"]).verbose == 2
    assert parser.parse_args(["-q", "rules"]).quiet == 1


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts_know_the_commands_and_options(shell: str) -> None:
    script = completion_script(shell)
    options = ("-l step-timeout", "-l plain") if shell == "fish" else ("--step-timeout", "--plain")
    for word in ("play", "host", "resume", "games", *options):
        assert word in script, (shell, word)


def test_bash_completion_script_is_valid_bash(tmp_path: Path) -> None:
    path = tmp_path / "dealerless.bash"
    path.write_text(completion_script("bash"))
    result = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_times_on_the_command_line_are_seconds() -> None:
    parser = build_parser()
    for action_owner in parser._subparsers._group_actions:  # type: ignore[union-attr]
        for name, sub in action_owner.choices.items():  # type: ignore[union-attr]
            for action in sub._actions:
                words = " ".join(action.option_strings) + " " + str(action.metavar or "")
                assert "-ms" not in words and "MS" not in words.split(), (name, words)
    host = parser.parse_args(["host", "--game", "tuppen", "--seats", "2", "--step-timeout", "30"])
    assert host.step_timeout == 30.0


def test_settings_round_trip_and_flags_override(tmp_path: Path) -> None:
    config = Config(name="ann", language="de", time_per_move=45, nostr_relays=["wss://r.example"])
    config.rules = {"limit-tuppen": {"hands": 3, "dirty_laundry": True}}
    save_config(config, config_path(tmp_path))
    assert load_config(tmp_path) == config
    parser = build_parser()
    args = parser.parse_args(
        ["play", "--game", "limit-tuppen", "--rule", "hands=5", "--home", str(tmp_path)]
    )
    apply_config(args)
    assert (args.name, args.lang, args.timeout) == ("ann", "de", 45)
    assert args.rule == ["dirty_laundry=true", "hands=3", "hands=5"]  # the flag comes last, wins
    args = parser.parse_args(["play", "--name", "bob", "--timeout", "9", "--home", str(tmp_path)])
    apply_config(args)
    assert (args.name, args.timeout) == ("bob", 9)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("time_per_move = 'soon'", "time_per_move must be a whole number, got 'soon'"),
        ("time_per_move = true", "time_per_move must be a whole number, got True"),
        ("name = ''", "name must not be empty"),
        ("name = '   '", "name must not be empty"),
        (f"name = '{'a' * 41}'", "name must be at most 40 characters"),
        ('name = "a\\u0007b"', "name must not contain control characters"),
        ("[rules.nosuch]\nx = 1", "rules.nosuch: unknown game 'nosuch'"),
        ("[rules.limit-tuppen]\nhands = 0", "rules.limit-tuppen.hands: option hands must be at"),
        ("[rules.limit-tuppen]\nspeed = 3", "limit-tuppen has no option 'speed'"),
        ("[rules.tuppen]\ntupp = 3", "rules.tuppen.tupp: option tupp takes true or false"),
        ("[start]\ngame = 'chess'", "start.game: unknown game 'chess'"),
        ("[start]\nbots = 0", "start.bots must be 1..7"),
        ("[host]\ngame = 'chess'", "host.game: unknown game 'chess'"),
        ("[host]\ngame = 'belote'\nseats = 3", "host.seats must be 4..4 for belote"),
        ("[host]\nseats = 3\nbots = 3", "host.bots must be 0..2"),
        ("[host]\nlan_only = 1", "host.lan_only must be true or false"),
        ("[host]\nwho = 1", "unknown setting(s) host.who"),
        ("result_pause = 601", "result_pause must be 0..600 seconds"),
        ("colour = 'red'", "unknown setting(s) colour"),
        ("[nostr]\nrelays = [1]", "nostr.relays"),
        ("language = 'xx'", "language must be one of"),
        ("name = ", "not valid TOML"),
    ],
)
def test_a_bad_settings_file_is_named_and_left_alone(
    tmp_path: Path, text: str, problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = config_path(tmp_path)
    path.write_text(text)
    with pytest.raises(ConfigFileError) as caught:
        load_config(tmp_path)
    assert problem in str(caught.value) and str(path) in str(caught.value)
    code = main(["play", "--plain", "--bot", "--home", str(tmp_path)])
    assert code == 2 and problem in capsys.readouterr().err
    assert path.read_text() == text


def test_config_command_sets_one_value(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "--home", str(tmp_path), "--set", "time_per_move=30"]) == 0
    assert main(["config", "--home", str(tmp_path), "--set", "nostr.relays=wss://a,wss://b"]) == 0
    assert main(["config", "--home", str(tmp_path), "--set", "rules.tuppen.tupp=false"]) == 0
    config = load_config(tmp_path)
    assert config.time_per_move == 30 and config.nostr_relays == ["wss://a", "wss://b"]
    assert config.rules == {"tuppen": {"tupp": False}}
    capsys.readouterr()
    assert main(["config", "--home", str(tmp_path), "--set", "speed=3"]) == 2
    assert main(["config", "--home", str(tmp_path), "--set", "result_pause=5"]) == 0
    assert main(["config", "--home", str(tmp_path), "--set", "start.bots=2"]) == 0
    assert main(["config", "--home", str(tmp_path), "--set", "rules.limit-tuppen.mode=cash"]) == 0
    assert (load_config(tmp_path).result_pause, load_config(tmp_path).start_bots) == (5, 2)
    # one --set moves the host form to belote: its seats follow the game's range
    assert main(["config", "--home", str(tmp_path), "--set", "host.bots=1"]) == 0
    assert main(["config", "--home", str(tmp_path), "--set", "host.game=belote"]) == 0
    host = load_config(tmp_path)
    assert (host.host_game, host.host_seats, host.host_bots) == ("belote", 4, 1)
    saved = config_path(tmp_path).read_text()
    for bad in ("rules.nosuch.x=1", "rules.limit-tuppen.hands=0", "rules.tuppen.hands=3",
                "name=", "name=  ", "start.game=chess", "result_pause=-1", "host.bots=4",
                "host.seats=9", "host.lan_only=maybe"):  # fmt: skip
        assert main(["config", "--home", str(tmp_path), "--set", bad]) == 2, bad
        assert config_path(tmp_path).read_text() == saved, bad  # nothing written
    assert "unknown setting 'speed'" in capsys.readouterr().err


def test_the_tui_settings_read_the_same_file(tmp_path: Path) -> None:
    from dealerless.client.tui.settings import Settings

    save_config(Config(name="cem", language="nl", time_per_move=50), config_path(tmp_path))
    settings = Settings.load(home=str(tmp_path))
    assert (settings.name, settings.lang, settings.timeout_s) == ("cem", "nl", 50)
    settings.ascii = True
    settings.save(home=str(tmp_path))
    assert load_config(tmp_path).ascii and load_config(tmp_path).name == "cem"


def test_the_old_json_settings_are_read_once_and_saved_as_toml(tmp_path: Path) -> None:
    import json

    from dealerless.client.tui.settings import Settings

    (tmp_path / "client.json").write_text(json.dumps({"name": "dora", "timeout_s": 30}))
    settings = Settings.load(home=str(tmp_path))
    assert (settings.name, settings.timeout_s) == ("dora", 30)
    settings.save(home=str(tmp_path))
    assert load_config(tmp_path).name == "dora" and load_config(tmp_path).time_per_move == 30


@pytest.mark.parametrize(
    "argv",
    [
        ["rules", "belote"],
        ["simulate", "--game", "tuppen", "--games", "3", "--engine-only", "--json"],
    ],
)
def test_output_into_a_reader_that_stopped_is_no_error(argv: list[str]) -> None:
    """``dealerless rules belote | head``: the reader is gone before the command writes (its
    end of the pipe is closed before the command has even started up); the command stops
    quietly with a SIGPIPE's status, no "unexpected error" and no traceback."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # every write meets EPIPE
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "dealerless.client.cli", *argv],
            stdout=write_end, stderr=subprocess.PIPE, timeout=120, check=False,
        )  # fmt: skip
    finally:
        os.close(write_end)
    err = proc.stderr.decode()
    assert proc.returncode == 141, err
    assert err == ""
