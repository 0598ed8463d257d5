"""A whole table through home routers (issue 24): four bot seats, each a ``dealerless`` process
in its own player namespace behind its own router (two usual home routers, a double NAT, a
symmetric NAT), meet on a real Nostr relay on the lab's "internet" and punch direct links with
the STUN server there. Every pair that can punch goes direct; the symmetric NAT's pairs stay on
the relay; the four transcripts are identical and the audit accepts them."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

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
    common = ["--bot", "--direct-links", "--stun", STUN, "--linger", "5"]
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
