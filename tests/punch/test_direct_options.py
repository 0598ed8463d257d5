"""`--stun` and `--relays-only` on host and join, `stun.servers` and `direct.punch` in the
settings file: checked, and carried to the node options (the table does not use them yet)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from dealerless.client.commands import host, join
from dealerless.client.commands.config import apply_setting
from dealerless.client.config import Config, ConfigFileError, apply_config, config_path, save_config
from dealerless.node.cli_common import node_options
from dealerless.node.options import NodeOptions
from dealerless.node.stun_servers import DEFAULT_STUN_SERVERS, parse_stun_servers


def _parser(module: object) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    module.add_arguments(parser)  # type: ignore[attr-defined]
    return parser


def test_defaults_punch_with_the_shipped_servers() -> None:
    assert NodeOptions().punch is True and NodeOptions().stun_servers == ()
    assert len(parse_stun_servers(list(DEFAULT_STUN_SERVERS))) == len(DEFAULT_STUN_SERVERS)


@pytest.mark.parametrize("module", [host, join])
def test_flags_reach_the_node_options(module: object, tmp_path: Path) -> None:
    parser = _parser(module)
    extra = ["CODE"] if module is join else ["--game", "limit-tuppen", "--seats", "2"]
    args = parser.parse_args([*extra, "--home", str(tmp_path), "--stun",
                              "198.18.0.1:3478,[2001:db8::1]:3478", "--relays-only"])  # fmt: skip
    apply_config(args)
    options = node_options(args)
    assert options.stun_servers == ("198.18.0.1:3478", "[2001:db8::1]:3478")
    assert options.punch is False
    with pytest.raises(SystemExit):
        parser.parse_args([*extra, "--stun", "host:notaport"])


HOST = ["--game", "limit-tuppen", "--seats", "2"]


def test_the_settings_file_fills_what_the_flags_left(tmp_path: Path) -> None:
    config = apply_setting(Config(), "stun.servers=198.18.0.1:3478, stun.example")
    config = apply_setting(config, "direct.punch=false")
    assert config.stun_servers == ["198.18.0.1:3478", "stun.example"]
    save_config(config, config_path(tmp_path))
    args = _parser(host).parse_args([*HOST, "--home", str(tmp_path)])
    apply_config(args)
    options = node_options(args)
    assert options.stun_servers == ("198.18.0.1:3478", "stun.example") and not options.punch
    # A flag wins over the file.
    args = _parser(host).parse_args([*HOST, "--home", str(tmp_path), "--stun", "10.0.0.1:3478"])
    apply_config(args)
    assert node_options(args).stun_servers == ("10.0.0.1:3478",)


@pytest.mark.parametrize(
    "assignment",
    ["stun.servers=h:0", "stun.servers=" + ",".join(["h"] * 9), "direct.punch=maybe"],
)
def test_bad_settings_are_refused(assignment: str) -> None:
    with pytest.raises(ConfigFileError, match=r"stun\.servers|direct\.punch"):
        apply_setting(Config(), assignment)
