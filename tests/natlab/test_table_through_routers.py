"""A whole table through home routers (issue 24): four bot seats, each a ``dealerless`` process
in its own player namespace behind its own router (two usual home routers, a double NAT, a
symmetric NAT), meet on a real Nostr relay on the lab's "internet" and punch direct links with
the STUN server there. Every pair that can punch goes direct; the symmetric NAT's pairs stay on
the relay; the four transcripts are identical and the audit accepts them."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from natlab import STUN_PORT, STUN_V4, STUN_V4_B, Lab

from dealerless.client.bench.nostr_relay import RelayProcess
from dealerless.node.invite import Invite
from dealerless.node.store import TableStore

CLI = [sys.executable, "-m", "dealerless.client.cli"]
STUN = f"{STUN_V4}:{STUN_PORT},{STUN_V4_B}:{STUN_PORT}"
PUNCHED = "is up (punched)"


def _wait(predicate, limit: float, what: str, procs: list[subprocess.Popen[bytes]]) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {limit} s")
        if any(p.poll() not in (None, 0) for p in procs):
            raise AssertionError(f"a seat failed while waiting for {what}")
        time.sleep(0.2)


def test_four_seats_behind_four_routers_punch_where_they_can(nat_lab: Lab, tmp_path: Path) -> None:
    lab = nat_lab
    players = [lab.add_player(kind) for kind in ("eim", "eim", "double", "symmetric")]
    relay = RelayProcess(
        tmp_path / "relay", host=STUN_V4, prefix=tuple(lab.exec_prefix(lab.internet))
    ).start()
    invite_file = tmp_path / "invite"
    homes = [tmp_path / f"seat{i}" for i in range(4)]
    logs = [tmp_path / f"seat{i}.log" for i in range(4)]
    common = ["--bot", "--stun", STUN, "--linger", "5"]  # direct links: on by default
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for seat, player in enumerate(players):
            if seat == 0:
                argv = ["host", "--game", "limit-tuppen", "--seats", "4", "--rule", "hands=3",
                        "--nostr", relay.url, "--invite-file", str(invite_file)]  # fmt: skip
            else:
                argv = ["join", "--invite-file", str(invite_file), "--min-step-timeout", "0"]
            with open(logs[seat], "wb") as out:
                procs.append(subprocess.Popen(
                    [*lab.exec_prefix(player.namespace), *CLI, *argv, *common, "--name",
                     f"seat{seat}", "--home", str(homes[seat])],
                    stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                ))  # fmt: skip
            if seat == 0:
                _wait(lambda: invite_file.exists() and invite_file.read_text().strip(), 60,
                      "the invite", procs)  # fmt: skip
        for proc in procs:
            assert proc.wait(300) == 0, "\n".join(p.read_text()[-2000:] for p in logs)
        said = [p.read_text(errors="replace") for p in logs]
        # every pair of the three that can punch did; the symmetric NAT punched with nobody
        assert [text.count(PUNCHED) for text in said[:3]] == [2, 2, 2], said
        assert PUNCHED not in said[3], said[3]
        invite = Invite.decode(invite_file.read_text().strip())
        transcripts = {TableStore(h, invite.table_id).transcript_path.read_bytes() for h in homes}
        assert len(transcripts) == 1  # byte-identical
        audit = subprocess.run(
            [*CLI, "audit", str(TableStore(homes[3], invite.table_id).transcript_path)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert audit.returncode == 0 and "verified: complete game" in audit.stdout, audit.stdout
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
        relay.kill()


def _report(path: Path, kind: str) -> dict[str, Any]:
    for line in path.read_text().splitlines():
        entry = json.loads(line)
        if entry.get("ev") == kind:
            return dict(entry)
    raise AssertionError(f"no {kind!r} report in {path}")


def test_behind_usual_home_routers_every_pair_goes_direct_and_survives_a_cut(
    nat_lab: Lab, tmp_path: Path
) -> None:
    """Four seats, each behind a usual home router: every pair punches, and once every seat
    had its links the relay carries at most 10 of a seat's messages for the rest of the game.
    Then the routers of seats 0 and 1 drop each other's traffic mid-game (no reset: the link
    dies silently): that pair goes on over the relay, nobody is timed out, the transcripts are
    identical."""
    lab = nat_lab
    players = [lab.add_player("eim") for _ in range(4)]
    relay = RelayProcess(
        tmp_path / "relay", host=STUN_V4, prefix=tuple(lab.exec_prefix(lab.internet))
    ).start()
    invite_file = tmp_path / "invite"
    homes = [tmp_path / f"seat{i}" for i in range(4)]
    logs = [tmp_path / f"seat{i}.log" for i in range(4)]
    events = [tmp_path / f"events{i}.jsonl" for i in range(4)]
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for seat, player in enumerate(players):
            if seat == 0:
                argv = ["host", "--game", "limit-tuppen", "--seats", "4", "--rule", "hands=8",
                        "--nostr", relay.url, "--invite-file", str(invite_file),
                        "--step-timeout", "60"]  # fmt: skip
            else:
                argv = ["join", "--invite-file", str(invite_file), "--min-step-timeout", "0"]
            with open(logs[seat], "wb") as out:
                procs.append(subprocess.Popen(
                    [*lab.exec_prefix(player.namespace), *CLI, *argv, "--bot",
                     "--stun", STUN, "--linger", "5", "--event-log", str(events[seat]),
                     "--name", f"seat{seat}", "--home", str(homes[seat])],
                    stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                ))  # fmt: skip
            if seat == 0:
                _wait(lambda: invite_file.exists() and invite_file.read_text().strip(), 60,
                      "the invite", procs)  # fmt: skip
        _wait(lambda: all(p.read_text(errors="replace").count(PUNCHED) == 3 for p in logs), 90,
              "every pair punched", procs)  # fmt: skip
        _wait(lambda: "hand 4 starts" in logs[0].read_text(errors="replace"), 120, "hand 4",
              procs)  # fmt: skip
        for one, other in ((0, 1), (1, 0)):  # each router drops the other's public address
            lab.ns(players[one].routers[-1], "iptables", "-I", "FORWARD", "-s",
                   players[other].public, "-j", "DROP")  # fmt: skip
            lab.ns(players[one].routers[-1], "iptables", "-I", "FORWARD", "-d",
                   players[other].public, "-j", "DROP")  # fmt: skip
        for proc in procs:
            assert proc.wait(300) == 0, "\n".join(p.read_text()[-2000:] for p in logs)
        for path in logs:
            assert "was timed out" not in path.read_text(errors="replace"), path.read_text()
        invite = Invite.decode(invite_file.read_text().strip())
        transcripts = {TableStore(h, invite.table_id).transcript_path.read_bytes() for h in homes}
        assert len(transcripts) == 1
        ways = [_report(path, "ways") for path in events]
        print("ways per seat:", ways)
        for seat in (2, 3):  # their links were never cut
            assert ways[seat]["relayed_after_links"] <= 10, ways
            assert ways[seat]["direct"] > 10 * ways[seat]["relayed_after_links"], ways
        for seat in (0, 1):  # the cut pair's messages went over the relay after the cut
            assert ways[seat]["relayed_after_links"] > 0, ways
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
        relay.kill()
