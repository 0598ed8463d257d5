"""Four players, each in its own network namespace, that can reach the relay's namespace and
not each other (no direct path at all): a whole game over Nostr, identical transcripts, and a
clean audit. Needs root and ``ip netns``; where they are missing the test fails and says why."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from node_cluster import CLI, Cluster, wait_for
from nostr_relay_process import RelayProcess

from dealerless.node.invite import Invite

RELAY_ADDRESS = "10.77.255.1"
SEATS = 4


def _ip(*args: str) -> None:
    done = subprocess.run(["ip", *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {done.stderr.strip()}")


class Namespaces:
    """``relay`` plus one namespace per player, each joined to the relay's by a veth pair; the
    relay's namespace does not forward, so players have no path to one another."""

    def __init__(self, tag: str) -> None:
        self.relay = f"dlr{tag}"
        self.players = [f"dlp{tag}x{i}" for i in range(SEATS)]
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
def namespaces() -> Iterator[Namespaces]:
    if os.geteuid() != 0:
        pytest.fail("network namespaces need root; this test cannot run as an ordinary user")
    if shutil.which("ip") is None:
        pytest.fail("network namespaces need the ip command (iproute2), which is missing")
    spaces = Namespaces(str(os.getpid() % 100_000))
    try:
        spaces.create()
    except RuntimeError as exc:
        spaces.delete()
        pytest.fail(f"cannot make network namespaces here: {exc}")
    try:
        yield spaces
    finally:
        spaces.delete()


def _reaches(spaces: Namespaces, name: str, address: str, port: int) -> str:
    probe = (
        "import socket\ntry:\n"
        f"    socket.create_connection(({address!r}, {port}), 2).close(); print('open')\n"
        "except OSError as e:\n    print(type(e).__name__, e)"
    )
    done = subprocess.run(
        [*spaces.exec(name), sys.executable, "-c", probe], capture_output=True, text=True
    )
    return done.stdout.strip()


def test_four_players_in_separate_namespaces_play_over_nostr(
    tmp_path: Path, namespaces: Namespaces
) -> None:
    relay = RelayProcess(
        tmp_path / "relay", host=RELAY_ADDRESS, prefix=tuple(namespaces.exec(namespaces.relay))
    ).start()
    cluster = Cluster(tmp_path)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        # Each player reaches the relay, and no player reaches another (not even a refusal).
        assert _reaches(namespaces, namespaces.players[1], RELAY_ADDRESS, relay.port) == "open"
        for other in (0, 2):
            answer = _reaches(
                namespaces, namespaces.players[1], namespaces.player_address(other), relay.port
            )
            assert answer.startswith("OSError") and "unreachable" in answer, answer

        homes = [tmp_path / f"seat{i}" for i in range(SEATS)]
        invite_file = tmp_path / "invite"

        def spawn(i: int, args: list[str]) -> subprocess.Popen[bytes]:
            log = open(tmp_path / f"seat{i}.log", "ab")  # noqa: SIM115
            cluster.logs[f"seat{i}#0"] = tmp_path / f"seat{i}.log"
            env = dict(os.environ, PYTHONUNBUFFERED="1")
            proc = subprocess.Popen(
                [*namespaces.exec(namespaces.players[i]), *CLI, *args],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
            )
            log.close()
            procs.append(proc)
            return proc

        # The host listens for direct links too: the joiners try that way and fail, and find
        # the table over Nostr.
        host = spawn(0, ["host", "--home", str(homes[0]), "--game", "tuppen", "--seats",
                         str(SEATS), "--bot", "--name", "seat0", "--nostr", relay.url,
                         "--listen", "0.0.0.0:0", "--invite-file", str(invite_file)])  # fmt: skip
        wait_for(invite_file.exists, 60, "the invite", [host])
        code = invite_file.read_text().strip()
        assert Invite.decode(code).nostr == (relay.url,)
        for i in range(1, SEATS):
            spawn(i, ["join", code, "--home", str(homes[i]), "--bot", "--name", f"seat{i}"])
        for i, proc in enumerate(procs):
            try:
                assert proc.wait(400) == 0, cluster.tail()
            except subprocess.TimeoutExpired:
                raise AssertionError(f"seat {i} did not finish\n{cluster.tail()}") from None
        cluster.homes = homes
        cluster.invite = Invite.decode(code)
        cluster.check_identical(list(range(SEATS)))
        transcripts = {cluster.store(i).transcript_path.read_bytes() for i in range(SEATS)}
        assert len(transcripts) == 1  # byte-identical
        assert "verified: complete game" in cluster.audit_cli(2)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        relay.kill()
