"""The SQLite store on a real file: listing in one query, clear errors (naming the table) for
a damaged record, an unknown field and a newer schema, key shares gone when the game is over,
pruning, a hand's key share deleted once its result is signed, and the history of finished
games that ``dealerless games`` lists."""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from dealerless.client.bots.driver import BotDriver
from dealerless.client.cli import main
from dealerless.node import store_db
from dealerless.node.local_game import run_local_game
from dealerless.node.store import (
    PRUNE_AFTER_S,
    StoreError,
    TableMeta,
    TableStore,
    find_tables,
    list_games,
    list_tables,
    prune,
)
from dealerless.node.store_db import SCHEMA_VERSION, StoreDB
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table.events import HandSigned


def add_table(home: Path, number: int, *, finished: bool = False) -> TableStore:
    table_id = bytes([number]) * 16
    store = TableStore(home, table_id)
    meta = TableMeta(table_id.hex(), "join", "127.0.0.1", 4000 + number, "ab" * 32)
    meta.game, meta.seats, meta.name, meta.finished = "tuppen", 4, f"t{number}", finished
    store.save_meta(meta)
    store.save_secret(1, b"share-1")
    return store


def raw(home: Path) -> sqlite3.Connection:
    return sqlite3.connect(home / store_db.DB_NAME, isolation_level=None)


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_meta_round_trip_and_file_modes(tmp_path: Path) -> None:
    store = add_table(tmp_path, 1)
    assert store.exists and store.load_meta().name == "t1"
    assert store.load_secrets() == {1: b"share-1"}
    assert (tmp_path / store_db.DB_NAME).stat().st_mode & 0o077 == 0
    assert store.transcript_path.suffix == ".dlt"
    store.close()


def test_listing_is_one_query(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for number in range(1, 41):
        add_table(tmp_path, number, finished=number % 2 == 0).close()
    statements: list[str] = []
    connect = sqlite3.connect

    def traced(*args: object, **kwargs: object) -> sqlite3.Connection:
        connection = connect(*args, **kwargs)  # type: ignore[arg-type]
        connection.set_trace_callback(statements.append)
        return connection

    monkeypatch.setattr(store_db.sqlite3, "connect", traced)
    found, problems = list_tables(tmp_path, unfinished_only=True)
    assert problems == [] and len(found) == 20
    selects = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    assert len(selects) == 1, statements


def test_a_damaged_record_names_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    add_table(tmp_path, 1).close()
    add_table(tmp_path, 2).close()
    damaged = (bytes([2]) * 16).hex()
    raw(tmp_path).execute("UPDATE tables SET meta = ? WHERE table_id = ?", ('{"role": ', damaged))
    found, problems = list_tables(tmp_path)
    assert [m.name for _, m in found] == ["t1"]  # the good one is still listed ...
    assert len(problems) == 1 and damaged[:12] in str(problems[0])  # ... the bad one named
    assert "damaged" in str(problems[0])
    with pytest.raises(StoreError, match=damaged[:12]):
        find_tables(tmp_path)
    code, out, err = run_cli(["tables", "--home", str(tmp_path)], capsys)
    assert code == 1 and "t1" in out
    assert damaged[:12] in err and "damaged" in err and "Traceback" not in err


def test_an_unknown_field_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = add_table(tmp_path, 3)
    store.close()
    key = (bytes([3]) * 16).hex()
    connection = raw(tmp_path)
    meta = json.loads(connection.execute("SELECT meta FROM tables").fetchone()[0])
    connection.execute("UPDATE tables SET meta = ?", (json.dumps({**meta, "colour": "red"}),))
    with pytest.raises(StoreError, match=rf"table {key[:12]}.*unknown field\(s\) colour"):
        TableStore(tmp_path, bytes([3]) * 16).load_meta()
    code, _, err = run_cli(["resume", "--home", str(tmp_path), "--plain"], capsys)
    assert code == 1 and "colour" in err and key[:12] in err


def test_a_field_of_the_wrong_type_is_damage(tmp_path: Path) -> None:
    add_table(tmp_path, 4).close()
    connection = raw(tmp_path)
    meta = json.loads(connection.execute("SELECT meta FROM tables").fetchone()[0])
    connection.execute("UPDATE tables SET meta = ?", (json.dumps({**meta, "port": "x"}),))
    with pytest.raises(StoreError, match="field port is str, not int"):
        find_tables(tmp_path)


def test_a_newer_schema_is_refused_and_left_alone(tmp_path: Path) -> None:
    add_table(tmp_path, 5).close()
    raw(tmp_path).execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer than this dealerless"):
        StoreDB(tmp_path)
    version = raw(tmp_path).execute("PRAGMA user_version").fetchone()[0]
    assert version == SCHEMA_VERSION + 1


def test_a_file_that_is_no_database_is_refused(tmp_path: Path) -> None:
    (tmp_path / store_db.DB_NAME).write_bytes(b"not a database" * 100)
    with pytest.raises(StoreError, match="damaged"):
        StoreDB(tmp_path)


def test_migrating_twice_is_harmless(tmp_path: Path) -> None:
    StoreDB(tmp_path).close()
    with StoreDB(tmp_path) as db:
        assert db.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_prune_keeps_what_resume_needs(tmp_path: Path) -> None:
    running = add_table(tmp_path, 6)
    finished = add_table(tmp_path, 7, finished=True)
    abandoned = add_table(tmp_path, 8)
    old = time.time() - PRUNE_AFTER_S - 60
    raw(tmp_path).execute("UPDATE tables SET updated = ? WHERE table_id = ?", (old, abandoned.key))
    assert prune(tmp_path) == 2
    assert running.load_secrets() == {1: b"share-1"}
    assert finished.load_secrets() == {} and abandoned.load_secrets() == {}


def test_a_played_game_is_listed_and_its_key_shares_are_gone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`dealerless play` plays from the data directory: its game is saved and listed, the key
    shares are deleted when the game is over, and `audit 1` takes the game by number."""
    code = run_local_game(
        make_config("limit-tuppen", 2, {"hands": 2}),
        1,
        BotDriver(),
        cli=[sys.executable, "-m", "dealerless"],
        home=tmp_path,
        say=lambda _s: None,
    )
    assert code == 0
    (game,) = list_games(tmp_path)
    assert game.game == "limit-tuppen" and game.verified and len(game.players) == 2
    assert Path(game.transcript).exists() and game.transcript.endswith(".dlt")
    assert raw(tmp_path).execute("SELECT count(*) FROM shares").fetchone()[0] == 0
    code, out, _ = run_cli(["games", "--home", str(tmp_path), "--json"], capsys)
    assert code == 0
    listed = json.loads(out)["games"]
    assert [(g["number"], g["file"]) for g in listed] == [(1, game.transcript)]
    code, out, _ = run_cli(["audit", "1", "--home", str(tmp_path)], capsys)
    assert code == 0 and "verified: complete game" in out
    code, _, err = run_cli(["audit", "2", "--home", str(tmp_path)], capsys)
    assert code == 2 and "no game number 2" in err


def test_a_home_from_before_sqlite_is_imported_and_its_share_files_removed(
    tmp_path: Path,
) -> None:
    table_id = "cd" * 16
    folder = tmp_path / "tables" / table_id
    (folder / "secrets").mkdir(parents=True)
    meta = TableMeta(table_id, "join", "127.0.0.1", 4000, "ab" * 32, name="old", game="tuppen")
    (folder / "meta.json").write_text(json.dumps(meta.__dict__))
    (folder / "secrets" / "hand-2.key").write_bytes(b"share-2")
    (folder / "transcript.dls").write_bytes(b"records")
    (bad := tmp_path / "tables" / ("ee" * 16)).mkdir()
    (bad / "meta.json").write_text("{damaged")
    found, problems = list_tables(tmp_path)  # the first open migrates
    assert [m.name for _, m in found] == ["old"]
    assert len(problems) == 1 and ("ee" * 16)[:12] in str(problems[0])
    store = found[0][0]
    assert store.load_secrets() == {2: b"share-2"}
    assert store.transcript_path == folder / "transcript.dlt"
    assert (folder / "transcript.dlt").read_bytes() == b"records"
    assert not (folder / "secrets").exists() and not (folder / "meta.json").exists()


class WatchShares(BotDriver):
    """A bot that looks into its own store whenever a hand's result is signed."""

    def __init__(self, home: Path) -> None:
        super().__init__(5)
        self.home = home
        self.after_signed: dict[int, set[int]] = {}

    def on_events(self, machine: Any, events: list[Any]) -> None:
        for event in events:
            if isinstance(event, HandSigned):
                shares = TableStore(self.home, machine.config.table_id).load_secrets()
                self.after_signed[event.hand] = set(shares)


def test_a_hands_key_share_is_deleted_once_its_result_is_signed(tmp_path: Path) -> None:
    driver = WatchShares(tmp_path)
    code = run_local_game(
        make_config("limit-tuppen", 2, {"hands": 3}),
        1,
        driver,
        cli=[sys.executable, "-m", "dealerless"],
        home=tmp_path,
        say=lambda _s: None,
    )
    assert code == 0
    assert sorted(driver.after_signed) == [1, 2, 3]
    for hand, left in driver.after_signed.items():
        assert hand not in left and all(h > hand for h in left), (hand, left)
    assert raw(tmp_path).execute("SELECT count(*) FROM shares").fetchone()[0] == 0
