"""The settings file's Nostr relays (``[nostr] relays``, client/config.py) through the CLI with
real relays: ``dealerless host`` without a transport flag meets the players there, a flag
overrides the file, and a joiner goes by the relays its invite names, not by its own file."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from netns import RELAY_ADDRESS, Namespaces, make_namespaces, reaches  # noqa: F401 - fixture
from node_cluster import CLI, Cluster, wait_for
from nostr_relay_process import RelayProcess

from dealerless.client.config import ConfigFileError, read_config_file
from dealerless.node.invite import Invite

Start = Callable[..., RelayProcess]


def _settings(home: Path, relays: list[str]) -> None:
    home.mkdir(parents=True, exist_ok=True)
    listed = ", ".join(f'"{r}"' for r in relays)
    (home / "config.toml").write_text(f"[nostr]\nrelays = [{listed}]\n")


def _host_args(home: Path, invite_file: Path, *flags: str) -> list[str]:
    return ["host", "--home", str(home), "--game", "tuppen", "--seats", "2", "--bot", "--name",
            "ann", "--invite-file", str(invite_file), "--linger", "5", *flags]  # fmt: skip


def _invite_of(proc: subprocess.Popen[bytes], invite_file: Path) -> Invite:
    wait_for(invite_file.exists, 60, "the invite", [proc])
    return Invite.decode(invite_file.read_text().strip())


def test_a_flag_overrides_the_settings_files_relays(tmp_path: Path, nostr_relays: Start) -> None:
    from_file, from_flag = nostr_relays(), nostr_relays()
    home = tmp_path / "ann"
    _settings(home, [from_file.url])
    cluster = Cluster(tmp_path)
    invite_file = tmp_path / "invite"
    proc = cluster.spawn("host", _host_args(home, invite_file, "--nostr", from_flag.url))
    try:
        invite = _invite_of(proc, invite_file)
        assert invite.nostr == (from_flag.url,) and invite.direct == ()
    finally:
        proc.kill()
        proc.wait()
    invite_file.unlink()
    lan = cluster.spawn("lan", _host_args(home, invite_file, "--lan-only"))
    try:  # --lan-only: no relay at all, the file's neither
        assert _invite_of(lan, invite_file).nostr == ()
    finally:
        lan.kill()
        lan.wait()


@pytest.mark.parametrize(
    ("relays", "problem"),
    [(["http://relay.example"], "not a websocket"), (["ws://"], "no host"),
     ([f"wss://r{i}.example" for i in range(9)], "at most 8")],
)  # fmt: skip
def test_bad_relays_in_the_settings_file_are_named(
    tmp_path: Path, relays: list[str], problem: str
) -> None:
    _settings(tmp_path, relays)
    with pytest.raises(ConfigFileError, match=problem) as caught:
        read_config_file(tmp_path / "config.toml")
    assert "nostr.relays" in str(caught.value)
    done = subprocess.run(
        [*CLI, *_host_args(tmp_path, tmp_path / "invite")], capture_output=True, text=True
    )
    assert done.returncode == 2 and problem in done.stderr and "nostr.relays" in done.stderr
    assert not (tmp_path / "invite").exists()


def test_host_without_a_flag_meets_the_players_on_the_settings_files_relays(
    tmp_path: Path,
    make_namespaces: Callable[[int], Namespaces],  # noqa: F811
) -> None:
    """Host and joiner each in a namespace that reaches only the relay's: the host's LAN
    address in the code is no way in, so the game is carried by the file's relay. The joiner's
    own file names a relay where nothing listens; it goes by the invite."""
    spaces = make_namespaces(2)
    relay = RelayProcess(
        tmp_path / "relay", host=RELAY_ADDRESS, prefix=tuple(spaces.exec(spaces.relay))
    ).start()
    cluster = Cluster(tmp_path)
    procs: list[subprocess.Popen[bytes]] = []

    def spawn(i: int, args: list[str]) -> subprocess.Popen[bytes]:
        log = tmp_path / f"seat{i}.log"
        cluster.logs[f"seat{i}#0"] = log
        with open(log, "ab") as out:
            proc = subprocess.Popen(
                [*spaces.exec(spaces.players[i]), *CLI, *args],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                env=dict(os.environ, PYTHONUNBUFFERED="1"),
            )  # fmt: skip
        procs.append(proc)
        return proc

    try:
        homes = [tmp_path / "seat0", tmp_path / "seat1"]
        _settings(homes[0], [relay.url])
        _settings(homes[1], [f"ws://{RELAY_ADDRESS}:1"])
        invite_file = tmp_path / "invite"
        host = spawn(0, _host_args(homes[0], invite_file))
        invite = _invite_of(host, invite_file)
        assert invite.nostr == (relay.url,)  # the file's relay, not the shipped ones
        # and the LAN listener, as with no file; from the joiner's namespace it is no way in
        # (no route out of the host's namespace: its code names 127.0.0.1)
        ((address, port),) = invite.direct
        assert reaches(spaces, spaces.players[1], address, port).startswith(
            ("OSError", "ConnectionRefusedError")
        )
        spawn(1, ["join", invite_file.read_text().strip(), "--home", str(homes[1]), "--bot",
                  "--name", "bob", "--linger", "5"])  # fmt: skip
        for i, proc in enumerate(procs):
            try:
                assert proc.wait(300) == 0, cluster.tail()
            except subprocess.TimeoutExpired:
                raise AssertionError(f"seat {i} did not finish\n{cluster.tail()}") from None
        assert "Nostr (" + relay.url in (tmp_path / "seat0.log").read_text()  # "ways in: ..."
        cluster.homes, cluster.invite = homes, invite
        cluster.check_identical([0, 1])
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        relay.kill()
