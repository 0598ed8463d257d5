"""Network namespaces for the tests: a relay's namespace and one per player, each player
joined to the relay's by a veth pair and to nothing else, so players cannot reach one another
(no direct path at all). Needs root and ``ip``; the fixture fails, saying why, where they are
missing (never a silent pass)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator

import pytest

RELAY_ADDRESS = "10.77.255.1"


def _ip(*args: str) -> None:
    done = subprocess.run(["ip", *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {done.stderr.strip()}")


class Namespaces:
    """``relay`` plus one namespace per player, each joined to the relay's by a veth pair; the
    relay's namespace does not forward, so players have no path to one another."""

    def __init__(self, tag: str, players: int) -> None:
        self.relay = f"dlr{tag}"
        self.players = [f"dlp{tag}x{i}" for i in range(players)]
        self.made: list[str] = []

    def player_address(self, i: int) -> str:
        return f"10.77.{i}.2"

    def create(self) -> None:
        for name in [self.relay, *self.players]:
            _ip("netns", "add", name)
            self.made.append(name)
            _ip("-n", name, "link", "set", "lo", "up")
        _ip("-n", self.relay, "addr", "add", f"{RELAY_ADDRESS}/32", "dev", "lo")
        for i, player in enumerate(self.players):
            outer, inner = f"vr{i}", f"vp{i}"
            _ip("link", "add", outer, "netns", self.relay, "type", "veth", "peer", inner,
                "netns", player)  # fmt: skip
            _ip("-n", self.relay, "addr", "add", f"10.77.{i}.1/30", "dev", outer)
            _ip("-n", player, "addr", "add", f"{self.player_address(i)}/30", "dev", inner)
            _ip("-n", self.relay, "link", "set", outer, "up")
            _ip("-n", player, "link", "set", inner, "up")
            _ip("-n", player, "route", "add", f"{RELAY_ADDRESS}/32", "via", f"10.77.{i}.1")

    def delete(self) -> None:
        for name in self.made:
            subprocess.run(["ip", "netns", "delete", name], capture_output=True, check=False)

    def exec(self, name: str) -> list[str]:
        return ["ip", "netns", "exec", name]


@pytest.fixture
def make_namespaces() -> Iterator[Callable[[int], Namespaces]]:
    """``make_namespaces(players)``: the namespaces, deleted at the end of the test."""
    made: list[Namespaces] = []

    def make(players: int) -> Namespaces:
        spaces = _create(f"{os.getpid() % 100_000}n{len(made)}", players)
        made.append(spaces)
        return spaces

    try:
        yield make
    finally:
        for spaces in made:
            spaces.delete()


def _create(tag: str, players: int) -> Namespaces:
    if os.geteuid() != 0:
        pytest.fail("network namespaces need root; this test cannot run as an ordinary user")
    if shutil.which("ip") is None:
        pytest.fail("network namespaces need the ip command (iproute2), which is missing")
    spaces = Namespaces(tag, players)
    try:
        spaces.create()
    except RuntimeError as exc:
        spaces.delete()
        pytest.fail(f"cannot make network namespaces here: {exc}")
    return spaces


def reaches(spaces: Namespaces, name: str, address: str, port: int) -> str:
    probe = (
        "import socket\ntry:\n"
        f"    socket.create_connection(({address!r}, {port}), 2).close(); print('open')\n"
        "except OSError as e:\n    print(type(e).__name__, e)"
    )
    done = subprocess.run(
        [*spaces.exec(name), sys.executable, "-c", probe], capture_output=True, text=True
    )
    return done.stdout.strip()
