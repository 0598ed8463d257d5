"""Four players, each in its own network namespace, that can reach the relay's namespace and
not each other (no direct path at all): a whole game over Nostr, identical transcripts, and a
clean audit. Needs root and ``ip netns``; where they are missing the test fails and says why."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from netns import RELAY_ADDRESS, Namespaces, make_namespaces, reaches  # noqa: F401 - fixture
from node_cluster import CLI, Cluster, wait_for
from nostr_relay_process import RelayProcess

from dealerless.node.invite import Invite

SEATS = 4


def test_four_players_in_separate_namespaces_play_over_nostr(
    tmp_path: Path,
    make_namespaces: Callable[[int], Namespaces],  # noqa: F811
) -> None:
    namespaces = make_namespaces(SEATS)
    relay = RelayProcess(
        tmp_path / "relay", host=RELAY_ADDRESS, prefix=tuple(namespaces.exec(namespaces.relay))
    ).start()
    cluster = Cluster(tmp_path)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        # Each player reaches the relay, and no player reaches another (not even a refusal).
        assert reaches(namespaces, namespaces.players[1], RELAY_ADDRESS, relay.port) == "open"
        for other in (0, 2):
            answer = reaches(
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
