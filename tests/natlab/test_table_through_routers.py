"""A whole table through home routers (issue 24): four bot seats, each a ``dealerless`` process
in its own player namespace behind its own router (two usual home routers, a double NAT, a
symmetric NAT), meet on a real Nostr relay on the lab's "internet" and punch direct links with
the STUN server there. Every pair that can punch goes direct; the symmetric NAT's pairs stay on
the relay; the four transcripts are identical and the audit accepts them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from natlab import STUN_PORT, STUN_V4, STUN_V4_B, Lab, Player

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


@dataclass
class Table:
    """A bot table, one seat per player namespace, on the lab's relay (seat 0 hosts)."""

    procs: list[subprocess.Popen[bytes]]
    invite_file: Path
    homes: list[Path]
    logs: list[Path]

    def invited(self) -> bool:
        return self.invite_file.exists() and bool(self.invite_file.read_text().strip())

    def said(self) -> list[str]:
        return [p.read_text(errors="replace") for p in self.logs]

    def finish(self) -> Invite:
        """Every seat ends with 0; the transcripts are byte-identical; the table's invite."""
        for proc in self.procs:
            assert proc.wait(300) == 0, "\n".join(t[-2000:] for t in self.said())
        invite = Invite.decode(self.invite_file.read_text().strip())
        copies = {TableStore(h, invite.table_id).transcript_path.read_bytes() for h in self.homes}
        assert len(copies) == 1  # byte-identical
        return invite


def _start_table(
    lab: Lab, players: list[Player], url: str, root: Path, host: list[str], extra: list[str]
) -> Table:
    """``host``: the host's game flags; ``extra``: every seat's, ``{seat}`` in them its number
    (direct links are on by default)."""
    table = Table([], root / "invite", [root / f"seat{i}" for i in range(len(players))],
                  [root / f"seat{i}.log" for i in range(len(players))])  # fmt: skip
    for seat, player in enumerate(players):
        if seat == 0:
            argv = ["host", *host, "--nostr", url, "--invite-file", str(table.invite_file)]
        else:
            argv = ["join", "--invite-file", str(table.invite_file), "--min-step-timeout", "0"]
        argv += ["--bot", "--stun", STUN, "--linger", "5", *(a.format(seat=seat) for a in extra)]
        argv += ["--name", f"seat{seat}", "--home", str(table.homes[seat])]
        with open(table.logs[seat], "wb") as out:
            table.procs.append(subprocess.Popen(
                [*lab.exec_prefix(player.namespace), *CLI, *argv],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            ))  # fmt: skip
        if seat == 0:
            _wait(table.invited, 60, "the invite", table.procs)
    return table


def _relay(lab: Lab, root: Path) -> RelayProcess:
    """A Nostr relay on the lab's internet."""
    return RelayProcess(root / "relay", host=STUN_V4, prefix=tuple(lab.exec_prefix(lab.internet)))


def test_four_seats_behind_four_routers_punch_where_they_can(nat_lab: Lab, tmp_path: Path) -> None:
    lab = nat_lab
    players = [lab.add_player(kind) for kind in ("eim", "eim", "double", "symmetric")]
    relay = _relay(lab, tmp_path).start()
    game = ["--game", "limit-tuppen", "--seats", "4", "--rule", "hands=3"]
    table: Table | None = None
    try:
        table = _start_table(lab, players, relay.url, tmp_path, game, [])
        invite = table.finish()
        said = table.said()
        # every pair of the three that can punch did; the symmetric NAT punched with nobody
        assert [text.count(PUNCHED) for text in said[:3]] == [2, 2, 2], said
        assert PUNCHED not in said[3], said[3]
        audit = subprocess.run(
            [*CLI, "audit", str(TableStore(table.homes[3], invite.table_id).transcript_path)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert audit.returncode == 0 and "verified: complete game" in audit.stdout, audit.stdout
    finally:
        for proc in table.procs if table else []:
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
    relay = _relay(lab, tmp_path).start()
    events = [tmp_path / f"events{i}.jsonl" for i in range(4)]
    game = ["--game", "limit-tuppen", "--seats", "4", "--rule", "hands=8", "--step-timeout", "60"]
    table: Table | None = None
    try:
        table = _start_table(
            lab,
            players,
            relay.url,
            tmp_path,
            game,
            ["--event-log", str(tmp_path / "events{seat}.jsonl")],
        )
        logs, procs = table.logs, table.procs
        _wait(lambda: all(t.count(PUNCHED) == 3 for t in table.said()), 90,
              "every pair punched", procs)  # fmt: skip
        _wait(lambda: "hand 4 starts" in logs[0].read_text(errors="replace"), 120, "hand 4",
              procs)  # fmt: skip
        for one, other in ((0, 1), (1, 0)):  # each router drops the other's public address
            for way in ("-s", "-d"):
                lab.ns(players[one].routers[-1], "iptables", "-I", "FORWARD", way,
                       players[other].public, "-j", "DROP")  # fmt: skip
        table.finish()
        for text in table.said():
            assert "was timed out" not in text, text
        ways = [_report(path, "ways") for path in events]
        print("ways per seat:", ways)
        for seat in (2, 3):  # their links were never cut
            assert ways[seat]["relayed_after_links"] <= 10, ways
            assert ways[seat]["direct"] > 10 * ways[seat]["relayed_after_links"], ways
        for seat in (0, 1):  # the cut pair's messages went over the relay after the cut
            assert ways[seat]["relayed_after_links"] > 0, ways
    finally:
        for proc in table.procs if table else []:
            if proc.poll() is None:
                proc.kill()
        relay.kill()


LONG = os.environ.get("DEALERLESS_LONG") == "1"


@pytest.mark.skipif(not LONG, reason="a measurement (about 2 minutes): DEALERLESS_LONG=1")
def test_a_card_play_behind_home_routers_is_as_fast_as_on_one_lan(
    nat_lab: Lab, tmp_path: Path
) -> None:
    """The issue's latency figure, measured (never a timed assertion of CI): the same 4-seat
    table, 6 hands, once behind four usual home routers (punched links) and once with all four
    seats on one network (the first player's); the card play's median latency from the event
    logs, as ``dealerless bench hand`` computes it. Printed; the test asserts only that both
    tables finished identically and that the routed one punched every pair."""
    from dealerless.client.bench.hand import summarize

    lab = nat_lab
    routed = [lab.add_player("eim") for _ in range(4)]
    relay = _relay(lab, tmp_path).start()
    game = ["--game", "limit-tuppen", "--seats", "4", "--rule", "hands=6"]
    figures: dict[str, float] = {}
    try:
        for name, players in (("routers", routed), ("one network", [routed[0]] * 4)):
            root = tmp_path / name.replace(" ", "-")
            root.mkdir()
            log = str(root / "events{seat}.jsonl")
            table = _start_table(lab, players, relay.url, root, game, ["--event-log", log])
            table.finish()
            if name == "routers":
                assert all(t.count(PUNCHED) == 3 for t in table.said()), table.said()
            events = [
                [json.loads(line) for line in (root / f"events{i}.jsonl").read_text().splitlines()]
                for i in range(4)
            ]
            figures[name] = summarize(events, [0] * 4)["move_latency_median_ms"]
        print("card play latency median (ms):", figures)
    finally:
        relay.kill()
