"""``dealerless ratings``: a leaderboard from audited transcripts, in a real SQLite store, with
transcripts that ``dealerless simulate`` made through the full protocol."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from dealerless.client.cli import main
from dealerless.client.leaderboard import build_board, placings
from dealerless.node.store_db import SCHEMA_VERSION, GameRow, ResultRow, StoreDB

# Seeds far apart: simulate draws the table id of game k from seed + k.
BATCHES = {
    "lt": ["--game", "limit-tuppen", "--players", "3", "--games", "3", "--seed", "100",
           "--rule", "hands=2"],
    "bel": ["--game", "belote", "--players", "4", "--games", "2", "--seed", "200",
            "--rule", "target=100"],
    "tup": ["--game", "tuppen", "--players", "3", "--games", "2", "--seed", "300"],
}  # fmt: skip
TOTAL_GAMES = 7


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse errors
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A club's shared folder: one sub-folder of transcripts per batch."""
    root = tmp_path_factory.mktemp("club")
    for name, argv in BATCHES.items():
        assert main(["simulate", *argv, "--transcripts", str(root / name)]) == 0
    return root


def audit(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    code, out, _ = run(["audit", "--json", str(path)], capsys)
    assert code == 0
    doc: dict[str, object] = json.loads(out)
    return doc


def ratings(
    home: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, dict[str, object], str]:
    code, out, err = run(["ratings", "--home", str(home), "--json", *extra], capsys)
    return code, json.loads(out), err


def files(club: Path, batch: str) -> list[Path]:
    return sorted((club / batch).glob("*.dlt"))


def test_import_twice_counts_each_game_once(
    club: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    code, doc, _ = ratings(home, capsys, "--import", *(str(club / b) for b in BATCHES))
    assert code == 0
    assert doc["games"] == TOTAL_GAMES
    assert [i["status"] for i in doc["imported"]] == ["counted"] * TOTAL_GAMES  # type: ignore[attr-defined]
    first = doc["players"]
    # A second player brings the same games (byte-identical copies in his own folder).
    other = tmp_path / "bob"
    shutil.copytree(club, other)
    code, doc, _ = ratings(home, capsys, "--import", *(str(other / b) for b in BATCHES))
    assert code == 0
    assert doc["games"] == TOTAL_GAMES
    assert {i["status"] for i in doc["imported"]} == {"already counted"}  # type: ignore[attr-defined]
    assert doc["players"] == first
    # Without --import the store alone gives the same board.
    code, doc, _ = ratings(home, capsys)
    assert code == 0 and doc["games"] == TOTAL_GAMES and doc["players"] == first
    kept = sorted(p.name for p in (home / "imported").iterdir())
    assert len(kept) == TOTAL_GAMES and all(not n.startswith(".") for n in kept)


def test_one_changed_byte_is_refused_and_named_nothing_else_lost(
    club: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = tmp_path / "shared"
    shutil.copytree(club / "lt", shared)
    victim = files(club, "lt")[1]
    forged = shared / victim.name
    data = bytearray(forged.read_bytes())
    data[len(data) // 2] ^= 0x01
    forged.write_bytes(bytes(data))
    home = tmp_path / "home"
    code, doc, err = ratings(home, capsys, "--import", str(shared))
    assert code == 1
    refused = [i for i in doc["imported"] if i["status"].startswith("refused")]  # type: ignore[attr-defined]
    assert [i["file"] for i in refused] == [str(forged)]
    assert "does not audit clean" in refused[0]["status"] or "unreadable" in refused[0]["status"]
    assert doc["games"] == 2  # the other two are counted
    # Text mode names the file on stderr too.
    code, out, err = run(["ratings", "--home", str(home), "--import", str(forged)], capsys)
    assert code == 1 and str(forged) in err and "refused" in err
    assert "2 verified games" in out
    assert not [p for p in (home / "imported").iterdir() if p.name.startswith(".")]
    # The genuine file is still welcome afterwards.
    code, doc, _ = ratings(home, capsys, "--import", str(victim))
    assert code == 0 and doc["games"] == 3


def test_json_structure(club: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, doc, _ = ratings(tmp_path, capsys, "--import", str(club / "lt"))
    assert code == 0
    assert set(doc) == {"game", "games", "players", "imported", "not_counted"}
    assert doc["game"] is None and doc["not_counted"] == []
    players = doc["players"]
    assert isinstance(players, list) and len(players) >= 3
    for rank, player in enumerate(players, 1):
        assert set(player) == {
            "rank", "fingerprint", "name", "games", "wins", "chips", "rating", "mu", "sigma"
        }  # fmt: skip
        assert player["rank"] == rank
        assert player["rating"] == pytest.approx(player["mu"] - 3 * player["sigma"], abs=0.01)
    assert [p["rating"] for p in players] == sorted((p["rating"] for p in players), reverse=True)


def test_chip_totals_are_the_sums_of_the_audited_standings(
    club: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected: dict[str, int] = {}
    for path in files(club, "lt"):
        report = audit(path, capsys)
        for seat, score in zip(report["seats"], report["standings"], strict=True):  # type: ignore[call-overload]
            expected[seat["fingerprint"]] = expected.get(seat["fingerprint"], 0) + score
    code, doc, _ = ratings(tmp_path, capsys, "--import", str(club))
    assert code == 0
    chips = {p["fingerprint"]: p["chips"] for p in doc["players"] if p["chips"] is not None}  # type: ignore[attr-defined]
    assert chips == expected
    assert sum(chips.values()) == 0  # zero-sum
    # Belote and classic Tuppen have no chips.
    _, belote, _ = ratings(tmp_path, capsys, "--game", "belote")
    assert {p["chips"] for p in belote["players"]} == {None}  # type: ignore[attr-defined]


def test_game_filter(club: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    belote_keys = {
        s["fingerprint"]
        for path in files(club, "bel")
        for s in audit(path, capsys)["seats"]  # type: ignore[attr-defined]
    }
    code, doc, _ = ratings(tmp_path, capsys, "--import", str(club), "--game", "belote")
    assert code == 0 and doc["game"] == "belote" and doc["games"] == 2
    assert {p["fingerprint"] for p in doc["players"]} == belote_keys  # type: ignore[attr-defined]
    _, every, _ = ratings(tmp_path, capsys)
    assert every["games"] == TOTAL_GAMES
    code, _, err = run(["ratings", "--home", str(tmp_path), "--game", "chess"], capsys)
    assert code == 2 and "chess" in err


def test_belote_partners_share_a_rating_and_winners_rank_above_losers(
    club: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, doc, _ = ratings(tmp_path, capsys, "--import", str(club / "bel"))
    by_key = {p["fingerprint"]: p for p in doc["players"]}  # type: ignore[attr-defined]
    for path in files(club, "bel"):
        report = audit(path, capsys)
        keys = [s["fingerprint"] for s in report["seats"]]  # type: ignore[attr-defined]
        assert by_key[keys[0]]["mu"] == by_key[keys[2]]["mu"]
        assert by_key[keys[1]]["mu"] == by_key[keys[3]]["mu"]
        winners = set(report["winners"])  # type: ignore[call-overload]
        assert winners in ({0, 2}, {1, 3})
        won = [by_key[keys[s]]["rating"] for s in winners]
        lost = [by_key[keys[s]]["rating"] for s in range(4) if s not in winners]
        assert min(won) > max(lost)


def row(table: str, seats: list[str], standings: list[int], winners: list[int]) -> ResultRow:
    return ResultRow(
        table, "00" * 32, 0.0, "limit-tuppen", {"mode": "play-money"},
        tuple((s, s.lower()) for s in seats), tuple(standings), tuple(winners), "file",
    )  # fmt: skip


def test_in_one_game_the_rating_follows_the_placing_with_tied_winners() -> None:
    """Two tied winners, then the others by score: the ratings keep that order (openskill's
    Plackett-Luce model, used before, rated the third above both winners)."""
    board = build_board([row("t1", ["A", "B", "C", "D"], [3, 3, -2, -4], [0, 1])])
    rating = {p.fingerprint: p.rating for p in board.players}
    assert rating["A"] == rating["B"] > rating["C"] > rating["D"]


def test_who_wins_every_game_is_rated_above_who_loses_every_game() -> None:
    games = [
        row("t1", ["A", "B", "C"], [5, 0, -5], [0]),
        row("t2", ["C", "A", "B"], [-4, 6, -2], [1]),
        row("t3", ["B", "C", "A"], [1, -3, 2], [2]),
    ]
    board = build_board(games)
    order = [p.fingerprint for p in board.players]
    assert order == ["A", "B", "C"]
    assert board.players[0].wins == 3 and board.players[2].wins == 0
    assert [p.chips for p in board.players] == [13, -1, -12]
    # Deterministic: the same rows give the same figures.
    assert [p.rating for p in build_board(games).players] == [p.rating for p in board.players]


def test_classic_tuppen_ranks_by_fewest_penalty_points() -> None:
    game = ResultRow(
        "t", "00", 0.0, "tuppen", {}, (("A", "a"), ("B", "b"), ("C", "c")), (11, 8, 12), (1,), "f"
    )
    assert placings(game) == ([[0], [1], [2]], [2, 1, 3])


def test_local_games_are_audited_and_a_bad_one_is_named(
    club: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good, bad = files(club, "tup")
    damaged = tmp_path / "damaged.dlt"
    damaged.write_bytes(bad.read_bytes()[:-40])
    with StoreDB(tmp_path) as db:
        for path, stamp in ((good, 1.0), (damaged, 2.0)):
            table = audit(good if path is good else bad, capsys)["table_id"]
            db.put_game(GameRow(str(table), stamp, "tuppen", ("a", "b", "c"), "x", str(path), True))
    code, doc, _ = ratings(tmp_path, capsys)
    assert code == 0 and doc["games"] == 1
    assert [n["file"] for n in doc["not_counted"]] == [str(damaged)]  # type: ignore[attr-defined]
    code, out, err = run(["ratings", "--home", str(tmp_path)], capsys)
    assert f"not counted: {damaged}" in err and "1 verified games" in out


def test_empty_home_gives_an_empty_board(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, doc, _ = ratings(tmp_path / "nobody", capsys)
    assert code == 0 and doc["games"] == 0 and doc["players"] == []
    assert not (tmp_path / "nobody" / "store.sqlite").exists()  # a look creates no store


def test_a_schema_1_store_is_migrated_and_keeps_its_games(tmp_path: Path) -> None:
    with StoreDB(tmp_path) as db:
        db.put_game(GameRow("ab" * 16, 1.0, "tuppen", ("a",), "won", "f.dlt", True))
        db.db.execute("DROP TABLE results")
        db.db.execute("PRAGMA user_version = 1")
    with StoreDB(tmp_path) as db:
        assert [g.table_id for g in db.games()] == ["ab" * 16]
        assert db.results() == []
        assert db.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2


def test_a_damaged_result_row_is_named(tmp_path: Path) -> None:
    from dealerless.node.store_db import StoreError

    with StoreDB(tmp_path) as db:
        db.put_result(row("cd" * 16, ["A", "B"], [1, -1], [0]))
    raw = sqlite3.connect(tmp_path / "store.sqlite")
    raw.execute("UPDATE results SET winners = '[7]'")
    raw.commit()
    raw.close()
    with StoreDB(tmp_path) as db, pytest.raises(StoreError, match="cdcdcdcdcdcd"):
        db.results()


def test_a_different_result_for_a_counted_table_is_refused_as_a_conflict(
    club: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The same seed gives the same table id: another game under a table id already counted.
    rival = tmp_path / "rival"
    argv = ["simulate", "--game", "tuppen", "--players", "3", "--games", "1", "--seed", "100"]
    code, _, _ = run([*argv, "--transcripts", str(rival)], capsys)
    assert code == 0
    (copy,) = rival.glob("*.dlt")
    first = files(club, "lt")[0]
    assert audit(copy, capsys)["table_id"] == audit(first, capsys)["table_id"]
    home = tmp_path / "home"
    ratings(home, capsys, "--import", str(first))
    code, doc, _ = ratings(home, capsys, "--import", str(copy))
    assert code == 1 and doc["games"] == 1
    (entry,) = doc["imported"]  # type: ignore[misc]
    assert entry["file"] == str(copy) and "different result" in entry["status"]
    assert [p.name for p in (home / "imported").iterdir()] == [f"{entry['table_id']}.dlt"]


def test_the_bots_of_play_keep_their_keys_so_ratings_name_each_once(tmp_path: Path) -> None:
    """Two local games against one bot (real bot processes): the bot keeps its identity key
    (in ``<home>/bots/<level>-<n>``), so ratings count both games for one ``bot1``, not a new
    ``bot1`` each game; another level is another opponent."""
    import subprocess
    import sys

    home = tmp_path / "home"

    def play(level: str) -> None:
        subprocess.run(
            [sys.executable, "-m", "dealerless.client.cli", "play", "--plain", "--bot",
             "--game", "limit-tuppen", "--bots", "1", "--rule", "hands=1", "--level", level,
             "--home", str(home)],
            capture_output=True, timeout=240, check=True,
        )  # fmt: skip

    play("strong")
    play("strong")
    play("basic")
    listed = subprocess.run(
        [sys.executable, "-m", "dealerless.client.cli", "ratings", "--home", str(home), "--json"],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    doc = json.loads(listed.stdout)
    games = {p["name"]: [] for p in doc["players"]}
    for p in doc["players"]:
        games[p["name"]].append(p["games"])
    assert doc["games"] == 3, doc
    assert sorted(games["bot1"]) == [1, 2], doc  # the strong bot1 twice, the basic one once
    assert (home / "bots" / "strong-1" / "identity.key").stat().st_mode & 0o077 == 0
