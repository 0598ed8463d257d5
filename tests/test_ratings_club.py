"""``dealerless ratings`` for club tables, whose seats change between hands: results by identity
across segments, and each table counted once from the file that covers it best. The tables are
played in memory through the full protocol (real keys, deck, proofs and signatures), every
seat's file written as a node writes it, then imported through the CLI into a real store."""

from __future__ import annotations

import json
import random
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "protocol"))  # the in-memory seat-change tables
from seat_change_sim import next_segment, play_segment, start

from dealerless.client.cli import main
from dealerless.client.club_result import NotCreditable, club_result
from dealerless.client.protocol_sim import ProtocolGame
from dealerless.client.table_copies import Relation, Span, compare
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table.audit import AuditReport
from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.transcript import TranscriptWriter
from dealerless.protocol.wire.identity import fingerprint_of

CASH = {"mode": "cash", "hands": 5, "max_buy_in": 10}


@dataclass
class Evening:
    """One club table of Limit Tuppen (cash): ann (seat 0, the host), bob and cid start; cid
    stands up after hand 1 and dora sits down; bob sits out after hand 2 (and stays away); ann
    and dora play on to hand 5. (The seats' names are bot0, bot1, bot2 and dora.)"""

    files: dict[str, Path]  # host, leaver, sitter, newcomer: each seat's own file; midway
    # (dora's records from where she sat down, as a node wrote them before it checked the
    # table's chain from its start: a file that starts with a carry)
    names: dict[str, str]  # fingerprint -> name
    final: dict[str, int]  # fingerprint -> score over the whole table, from the seats' engines
    at_join: dict[str, int]  # fingerprint -> score when dora sat down


def scores_of(sim: ProtocolGame) -> dict[str, int]:
    """Every seat's score in this segment, by fingerprint, as the seats' own engine counts."""
    engine = sim.machines[0].engine
    standings = engine.outcome.standings if engine.outcome is not None else engine.scores()
    return {
        fingerprint_of(seat.key): score
        for seat, score in zip(sim.table.seats, standings, strict=True)
    }


def write(path: Path, config: TableConfig, records: Sequence[bytes]) -> Path:
    with TranscriptWriter.create(path, config.to_wire(), fsync=False) as writer:
        for frame in records:
            writer.append(frame)
    return path


@pytest.fixture(scope="module")
def evening(tmp_path_factory: pytest.TempPathFactory) -> Evening:
    rng = random.Random(11)
    first = start(make_config("limit-tuppen", 3, CASH), rng)
    play_segment(first, rng, {2: "stand", 0: "reseat"})
    after_one = scores_of(first)
    second = next_segment(first, rng, newcomers=[("dora", 7)])
    play_segment(second, rng, {1: "sit-out"})
    after_two = scores_of(second)
    third = next_segment(second, rng)
    play_segment(third, rng, {})
    assert third.machines[0].engine.outcome is not None and third.machines[0].hand == 5
    fp = [fingerprint_of(s.key) for s in first.table.seats]  # ann, bob, cid
    final = {**scores_of(third), fp[1]: after_two[fp[1]], fp[2]: after_one[fp[2]]}
    folder = tmp_path_factory.mktemp("evening")
    files = {
        "host": write(folder / "ann.dlt", first.table, first.machines[0].records),
        "leaver": write(folder / "cid.dlt", first.table, first.machines[2].records),
        "sitter": write(folder / "bob.dlt", first.table, first.machines[1].records),
        "newcomer": write(folder / "dora.dlt", first.table, second.machines[2].records),
    }
    carry = second.table.carry
    assert carry is not None and second.machines[2].chain_base == 0
    midway = tmp_path_factory.mktemp("midway") / "dora-midway.dlt"
    files["midway"] = write(midway, second.table, second.machines[2].records[carry.records :])
    names = {fingerprint_of(s.key): s.name for s in (*first.table.seats, *second.table.seats)}
    return Evening(files, names, final, after_one)


def ratings(home: Path, capsys: pytest.CaptureFixture[str], *files: Path) -> tuple[int, dict]:  # type: ignore[type-arg]
    argv = ["ratings", "--home", str(home), "--json"]
    if files:
        argv += ["--import", *map(str, files)]
    code = main(argv)
    doc = json.loads(capsys.readouterr().out)
    return code, doc


def chips(doc: dict) -> dict[str, int]:  # type: ignore[type-arg]
    return {p["fingerprint"]: p["chips"] for p in doc["players"]}


def statuses(doc: dict) -> dict[str, str]:  # type: ignore[type-arg]
    return {Path(i["file"]).name: i["status"] for i in doc["imported"]}


def test_every_file_of_a_club_table_imported_twice_counts_it_once_by_identity(
    evening: Evening, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    folder = evening.files["host"].parent
    code, doc = ratings(home, capsys, folder)
    assert code == 0 and doc["games"] == 1
    seen = statuses(doc)
    assert seen["ann.dlt"] == "counted"  # the host's file holds the whole table
    for name in ("bob.dlt", "cid.dlt"):
        assert seen[name].startswith("already counted from a file that covers the table better")
    assert seen["dora.dlt"] == "already counted"  # she checked it from the start: the same
    # Chips go to the people who won or lost them, whatever their seat numbers were: cid stood
    # up after hand 1, bob sits out since hand 2, dora came in after hand 1.
    assert chips(doc) == evening.final
    assert sum(evening.final.values()) == 0 and len(evening.final) == 4
    assert {p["fingerprint"]: p["name"] for p in doc["players"]} == evening.names
    assert {p["games"] for p in doc["players"]} == {1}
    first = doc["players"]
    # Bob brings the same files from his own folder: nothing is counted twice.
    again = tmp_path / "bob"
    shutil.copytree(folder, again)
    code, doc = ratings(home, capsys, again)
    assert code == 0 and doc["games"] == 1 and doc["players"] == first
    assert all(s.startswith("already counted") for s in statuses(doc).values())
    table = doc["imported"][0]["table_id"]
    assert [p.name for p in (home / "imported").iterdir()] == [f"{table}.dlt"]


def test_the_file_that_covers_the_table_best_replaces_a_partial_one(
    evening: Evening, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    fp = list(evening.names)  # ann, bob, cid, dora
    code, doc = ratings(home, capsys, evening.files["leaver"])
    assert code == 0 and statuses(doc) == {"cid.dlt": "counted"}
    assert chips(doc) == {f: evening.at_join[f] for f in fp[:3]}  # the table as cid left it
    # A file that starts after cid's stops: not one record in common, so nothing can tell they
    # are one game. The counted file stays, and nothing is refused.
    code, doc = ratings(home, capsys, evening.files["midway"])
    assert code == 0 and doc["games"] == 1
    assert statuses(doc)["dora-midway.dlt"].startswith("set aside: no record in common")
    assert chips(doc) == {f: evening.at_join[f] for f in fp[:3]}
    # The host's file holds cid's records and more: it takes the place of cid's.
    code, doc = ratings(home, capsys, evening.files["host"])
    assert code == 0 and doc["games"] == 1
    status = statuses(doc)["ann.dlt"]
    assert status.startswith("counted: covers the table better") and "which it replaces" in status
    assert chips(doc) == evening.final
    code, doc = ratings(home, capsys, evening.files["sitter"], evening.files["midway"])
    assert code == 0 and doc["games"] == 1 and chips(doc) == evening.final
    assert all(s.startswith("already counted from a file") for s in statuses(doc).values())
    # Two files given at once: the better one is counted, whatever the order of FILES.
    other = tmp_path / "other"
    code, doc = ratings(other, capsys, evening.files["sitter"], evening.files["host"])
    assert code == 0 and statuses(doc)["ann.dlt"] == "counted"
    assert chips(doc) == evening.final


def test_a_newcomers_file_audits_from_the_tables_start_and_is_credited_for_all_of_it(
    evening: Evening, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Dora checked the chain from the table's start before she sat down, and her file holds
    it: it proves every hand, so it is credited as the host's is (issue 22)."""
    code, doc = ratings(tmp_path, capsys, evening.files["newcomer"])
    assert code == 0 and doc["games"] == 1 and statuses(doc)["dora.dlt"] == "counted"
    assert chips(doc) == evening.final
    code, doc = ratings(tmp_path, capsys, evening.files["host"])
    assert code == 0 and statuses(doc)["ann.dlt"] == "already counted"


def test_a_file_that_starts_mid_table_is_credited_with_what_it_proves(
    evening: Evening, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file that starts with a carry nobody in it was checked against: the seats there before
    are credited with what their scores changed by in its hands; cid, gone before it starts, is
    not in it at all."""
    ann, bob, cid, dora = evening.names
    code, doc = ratings(tmp_path, capsys, evening.files["midway"])
    assert code == 0 and doc["games"] == 1
    credited = chips(doc)
    assert cid not in credited
    assert credited[dora] == evening.final[dora]  # she sat down with a buy-in: score 0
    for seat in (ann, bob):
        assert credited[seat] == evening.final[seat] - evening.at_join[seat]
    assert sum(credited.values()) == 0
    # The host's file ends in the same state and proves the whole table: it replaces dora's.
    code, doc = ratings(tmp_path, capsys, evening.files["host"])
    assert code == 0 and doc["games"] == 1
    assert statuses(doc)["ann.dlt"].startswith("counted: covers the table better")
    assert chips(doc) == evening.final


def test_a_club_game_played_here_is_replaced_by_a_file_that_covers_it_better(
    evening: Evening, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from dealerless.node.store_db import GameRow, StoreDB

    table = TableConfig.from_wire(_header(evening.files["leaver"])).table_id.hex()
    with StoreDB(tmp_path) as db:  # cid played here and stood up after hand 1
        local = str(evening.files["leaver"])
        db.put_game(GameRow(table, 5.0, "limit-tuppen", ("cid",), "left", local, True))
    code, doc = ratings(tmp_path, capsys)
    assert code == 0 and doc["games"] == 1 and len(doc["players"]) == 3
    code, doc = ratings(tmp_path, capsys, evening.files["host"])
    assert code == 0 and statuses(doc)["ann.dlt"].startswith("counted: covers the table better")
    assert chips(doc) == evening.final
    with StoreDB(tmp_path) as db:
        (row,) = db.results()
    assert row.recorded_at == 5.0  # its place in the rating order is kept
    assert row.source == str(tmp_path / "imported" / f"{table}.dlt")
    code, doc = ratings(tmp_path, capsys)  # the local file is not counted again over it
    assert code == 0 and chips(doc) == evening.final


def test_pottuppen_balances_follow_their_players_and_the_pot_stays_with_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(5)
    first = start(make_config("pottuppen", 3, {"hands": 3}), rng)
    play_segment(first, rng, {1: "stand"})
    leaver = fingerprint_of(first.table.seats[1].key)
    left_with = scores_of(first)[leaver]
    second = next_segment(first, rng)
    play_segment(second, rng, {})
    expected = {**scores_of(second), leaver: left_with}
    path = write(tmp_path / "table.dlt", first.table, first.machines[0].records)
    code, doc = ratings(tmp_path / "home", capsys, path)
    assert code == 0 and doc["games"] == 1
    assert chips(doc) == expected
    pot = second.machines[0].engine.table_ledger()["pot"]
    assert sum(expected.values()) + pot == 0


def test_a_club_file_with_one_changed_byte_is_refused_and_named(
    evening: Evening, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    for key in ("newcomer", "leaver"):
        shutil.copy(evening.files[key], shared)
    forged = shared / evening.files["newcomer"].name
    data = bytearray(forged.read_bytes())
    data[len(data) // 2] ^= 0x01
    forged.write_bytes(bytes(data))
    code, doc = ratings(tmp_path / "home", capsys, shared)
    assert code == 1 and doc["games"] == 1
    refused = [i for i in doc["imported"] if i["status"].startswith("refused")]
    assert [i["file"] for i in refused] == [str(forged)]
    assert "does not audit clean" in refused[0]["status"] or "unreadable" in refused[0]["status"]
    assert statuses(doc)["cid.dlt"] == "counted"


def test_ratings_rank_the_players_of_a_club_table_by_their_scores(
    evening: Evening, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, doc = ratings(tmp_path, capsys, evening.files["host"])
    by_rating = [p["fingerprint"] for p in doc["players"]]
    best = max(evening.final.values())
    assert {p["fingerprint"] for p in doc["players"] if p["wins"]} == {
        f for f, s in evening.final.items() if s == best
    }
    scores = [evening.final[f] for f in by_rating]
    assert scores == sorted(scores, reverse=True)  # one game: the rating follows the ranking


def span(start: int, records: str) -> Span:
    return Span(start, tuple(c.encode() for c in records))


def test_spans_of_one_table_agree_where_they_overlap() -> None:
    full = span(0, "abcdefgh")
    assert compare(span(0, "abcdefgh"), full) is Relation.SAME
    assert compare(span(0, "abc"), full) is Relation.WORSE  # a leaver's file
    assert compare(span(4, "efgh"), full) is Relation.WORSE  # a newcomer's
    assert compare(full, span(4, "efgh")) is Relation.BETTER
    assert compare(span(4, "efgh"), span(0, "abc")) is Relation.DISJOINT
    assert compare(span(2, "cXef"), full) is Relation.CONFLICT  # another game under its id
    assert compare(span(0, "abcdefghi"), full) is Relation.BETTER  # reaches further
    assert compare(span(4, "efghi"), span(0, "abcdefg")) is Relation.BETTER


def test_a_tournament_file_that_starts_mid_table_is_not_credited(evening: Evening) -> None:
    from dealerless.client.leaderboard import audited_copy

    joined = audited_copy(evening.files["midway"], 0.0)
    assert joined.span.start > 0 and joined.span.end > joined.span.start
    header = TableConfig.from_wire(_header(evening.files["midway"]))
    tournament = make_config("limit-tuppen", header.players, {"mode": "tournament"})
    config = replace(header, game=tournament)
    with pytest.raises(NotCreditable, match="tournament"):
        club_result(AuditReport(config, 0))


def _header(path: Path) -> dict:  # type: ignore[type-arg]
    from dealerless.protocol.transcript import TranscriptReader

    with TranscriptReader(str(path)) as reader:
        return dict(reader.header.config)
