"""A Limit Tuppen tournament between four bot nodes (separate OS processes, direct links on
loopback): out when broke, the ante rising by hand number, played until one seat holds every
chip; the seat count of the hands shrinks as players go out, and a player who is out may even
leave the table for good while the others play on.

Bots and decks are random (the deck comes from every seat's secret key share), and about one
tournament in ten ends with all three losers going out in the same hand. Such a tournament is
checked like any other, but it cannot show a table that plays on with fewer seats, so a test
plays another one (up to ``TRIES`` in all) until one does.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from node_cluster import CLI, Cluster

from dealerless.protocol.messages import decode_message
from dealerless.protocol.table import TableConfig, TableMachine
from dealerless.protocol.table.events import HandStarted
from dealerless.protocol.table.kinds import TABLE_REGISTRY

SEATS = 4
STARTING_CHIPS = 4
ANTE = 1
ANTE_INCREASE_EVERY = 2
RULES = [
    "mode=tournament",
    f"starting_chips={STARTING_CHIPS}",
    f"ante={ANTE}",
    f"ante_increase_every={ANTE_INCREASE_EVERY}",
]
TRIES = 5
NAMES = [f"seat{s}" for s in range(SEATS)]  # the process names, which are the players' names
# What every seat in a hand writes: its key share's commitment and reveal, its shuffle, its
# signature of the result (decryption shares too, but a hand may end before all are due).
DECK_STEPS = {"key-commit", "key-reveal", "shuffle", "result"}


@dataclass
class Tournament:
    """What the transcript says: per hand, who wrote which kinds of record, and the result."""

    writers: list[dict[str, set[int]]]  # hand -> kind -> seats that wrote one
    starts: list[dict[str, Any]]  # hand -> the rules' public state when it started
    audit: dict[str, Any]  # `dealerless audit --json` of one seat's transcript

    def stacks_before(self) -> list[list[int]]:
        """The stacks at the start of every hand, and after the last one (from the deltas the
        audit replayed)."""
        stacks = [STARTING_CHIPS] * SEATS
        out = [list(stacks)]
        for hand in self.audit["hands"]:
            stacks = [s + d for s, d in zip(stacks, hand["deltas"], strict=True)]
            out.append(list(stacks))
        return out


def ante_of(hand: int) -> int:
    return ANTE + (hand - 1) // ANTE_INCREASE_EVERY


def writers_by_hand(config: TableConfig, records: list[bytes]) -> list[dict[str, set[int]]]:
    """Split the records into hands (each starts with its key-commit round) and note who wrote
    what; the configuration's signatures come before the first hand."""
    hands: list[dict[str, set[int]]] = []
    previous = ""
    for frame in records:
        message = decode_message(frame, registry=TABLE_REGISTRY)
        seat = config.seat_of(message.author.raw)
        assert seat is not None, "a record signed by a key that is not at the table"
        if message.kind == "key-commit" and previous != "key-commit":
            hands.append({})
        previous = message.kind
        if message.kind == "config-sign":
            assert not hands, "a configuration signature inside a hand"
            continue
        hands[-1].setdefault(message.kind, set()).add(seat)
    return hands


def hand_starts(config: TableConfig, records: list[bytes]) -> list[dict[str, Any]]:
    """The public state of the rules at the start of every hand (antes paid, who is dealt in,
    the dealer), from an observer's replay of the records."""
    observer = TableMachine(config, None, replay=True)
    starts: list[dict[str, Any]] = []
    for frame in records:
        for event in observer.receive(frame, 0.0):
            if isinstance(event, HandStarted):
                assert event.hand == len(starts) + 1
                starts.append(observer.engine.public_state())
    assert observer.over
    return starts


def audit_json(cluster: Cluster, seat: int) -> dict[str, Any]:
    """``dealerless audit --json`` on this seat's transcript file: it must accept it."""
    result = subprocess.run(
        [
            *CLI,
            "audit",
            "--json",
            "--home",
            str(cluster.homes[seat]),
            str(cluster.store(seat).transcript_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    assert report["verdict"] == "clean" and report["complete"], report
    return report


def reported_result(cluster: Cluster, seat: int) -> tuple[str, str]:
    """What the node said at the end (its ``game over:`` line) and put in its history."""
    name = f"seat{seat}"
    log = "".join(
        path.read_text(errors="replace")
        for key, path in cluster.logs.items()
        if key.split("#")[0] == name
    )
    said = re.findall(r"^game over: (.*)$", log, re.MULTILINE)
    assert len(said) == 1, f"{name} said game over {len(said)} times\n{log}"
    games = subprocess.run(
        [*CLI, "games", "--json", "--home", str(cluster.homes[seat])],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    rows = json.loads(games.stdout)["games"]
    assert len(rows) == 1 and rows[0]["verified"], rows
    return said[0], str(rows[0]["result"])


def start(root: Path) -> Cluster:
    root.mkdir()
    cluster = Cluster(root)
    cluster.host("limit-tuppen", SEATS, RULES, linger=3)
    for seat in range(1, SEATS):
        cluster.join(seat, linger=3)
    return cluster


def check_tournament(cluster: Cluster, finished: list[int]) -> Tournament:
    """Everything that must hold for the seats that played to the end (``finished``)."""
    cluster.check_identical(finished)  # the same records everywhere, and the replay accepts them
    audits = [audit_json(cluster, seat) for seat in finished]
    for other in audits[1:]:
        assert other == audits[0], "two seats' transcripts audit differently"
    audit = audits[0]
    config, records = cluster.transcript(finished[0])
    tournament = Tournament(writers_by_hand(config, records), hand_starts(config, records), audit)
    hands = audit["hands"]
    assert len(tournament.writers) == len(tournament.starts) == len(hands) >= 1
    assert [h["hand"] for h in hands] == list(range(1, len(hands) + 1))

    # One seat holds every chip, the others none: the game ended for that reason.
    total = SEATS * STARTING_CHIPS
    final = audit["standings"]
    assert sorted(final) == [0] * (SEATS - 1) + [total], final
    assert audit["winners"] == [final.index(total)]
    stacks = tournament.stacks_before()
    assert stacks[-1] == final

    for number, (hand, writers, started, before) in enumerate(
        zip(hands, tournament.writers, tournament.starts, stacks, strict=False), start=1
    ):
        assert sum(before) == total, f"hand {number}: the chips are not conserved: {before}"
        assert min(before) >= 0
        in_game = {s for s in range(SEATS) if before[s] > 0}
        assert len(in_game) >= 2, f"hand {number} was played with one seat left"
        # Exactly the seats with chips take part: the joint key, the shuffles and the result
        # are theirs alone; a seat that is out writes nothing at all in the hand.
        for kind in DECK_STEPS:
            assert writers.get(kind) == in_game, (number, kind, writers.get(kind), in_game)
        wrote = set().union(*writers.values())
        assert wrote == in_game, f"hand {number}: seats {wrote - in_game} are out but wrote"
        assert all(hand["deltas"][s] == 0 for s in range(SEATS) if s not in in_game)
        # Only they are dealt in and deal; each pays the ante of this hand's number (all it
        # has if that is less), and a seat that is out pays nothing.
        assert set(started["active"]) == in_game and started["dealer"] in in_game, started
        ante = ante_of(number)
        paid = [min(ante, before[s]) if s in in_game else 0 for s in range(SEATS)]
        assert started["ante"] == ante and started["ante_paid"] == paid, (number, started)
        # No side pots: every seat that did not win lost at least what it paid in.
        for s in in_game - set(hand["winners"]):
            assert hand["deltas"][s] <= -paid[s], (number, s, hand)
    counts = [len(w["key-commit"]) for w in tournament.writers]
    assert counts[0] == SEATS
    assert counts == sorted(counts, reverse=True), f"the seat count grew: {counts}"
    # Each node reported the same end, and it is the audited one.
    results = {reported_result(cluster, seat) for seat in finished}
    assert len(results) == 1, results
    said, history = results.pop()
    assert said.startswith("one seat has all the chips; won by seat "), said
    winner = final.index(total)
    assert f"won by seat {winner} (seat" in said and "Outcome(" not in said, said
    seated = [seat.name for seat in config.seats]  # in joining order, as the audit counts them
    assert said.endswith(", ".join(f"{n} {x}" for n, x in zip(seated, final, strict=True))), said
    assert history.endswith("scores " + ", ".join(str(x) for x in final)), history
    return tournament


def played_on_with_fewer_seats(tournament: Tournament) -> bool:
    counts = [len(w["key-commit"]) for w in tournament.writers]
    return any(1 < c < SEATS for c in counts)


def test_a_tournament_of_four_bots_plays_until_one_is_left(tmp_path: Path) -> None:
    seen: list[list[int]] = []
    for attempt in range(TRIES):
        cluster = start(tmp_path / f"tournament{attempt}")
        try:
            codes = cluster.wait(NAMES, 240)
            assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tail()}"
            tournament = check_tournament(cluster, list(range(SEATS)))
        finally:
            cluster.stop()
        seen.append([len(w["key-commit"]) for w in tournament.writers])
        if played_on_with_fewer_seats(tournament):
            return
    raise AssertionError(f"no tournament of {TRIES} played on with fewer seats: {seen}")


def busted_joiner(cluster: Cluster) -> int | None:
    """The process number of a joiner that is out while the tournament goes on, once the
    next hand has started (so it has signed the result of the hand it lost)."""
    try:
        config, records = cluster.transcript(0)
        writers = writers_by_hand(config, records)
    except Exception:  # the host's store is being written
        return None
    if len(writers) < 2 or len(writers[-1]["key-commit"]) < 2:
        return None
    out = [s for s in range(SEATS) if s not in writers[-1]["key-commit"]]
    processes = [int(config.seats[s].name.removeprefix("seat")) for s in out]
    joiners = [p for p in processes if p != 0]  # direct links: the host is every seat's hub
    return joiners[0] if joiners else None


def test_a_player_who_is_out_may_leave_and_the_others_play_on(tmp_path: Path) -> None:
    """A busted joiner's process is killed for good; the hands after it need nothing of it
    (no key share, no vote), so the others finish the tournament and exit 0."""
    for attempt in range(TRIES):
        cluster = start(tmp_path / f"tournament{attempt}")
        try:
            gone = None
            while gone is None and cluster.procs["seat0"].poll() is None:
                gone = busted_joiner(cluster)
                time.sleep(0.05)
            if gone is None:  # over before a joiner was out with the game going on
                codes = cluster.wait(NAMES, 240)
                assert all(code == 0 for code in codes.values()), cluster.tail()
                continue
            cluster.kill(f"seat{gone}")
            rest = [p for p in range(SEATS) if p != gone]
            codes = cluster.wait([f"seat{p}" for p in rest], 240)
            assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tail()}"
            tournament = check_tournament(cluster, rest)
        finally:
            cluster.stop()
        assert played_on_with_fewer_seats(tournament)
        return
    raise AssertionError(f"in {TRIES} tournaments no joiner was out before the end")
