"""The command line: rules, simulate and audit, with good and bad arguments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dealerless.client.cli import main
from dealerless.protocol.rules.registry import game_names, game_spec
from dealerless.protocol.transcript import TranscriptReader, TranscriptWriter


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse errors
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_rules_lists_every_game_with_options(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["rules", "--json"], capsys)
    assert code == 0
    games = json.loads(out)
    assert [g["game"] for g in games] == game_names()
    tuppen = next(g for g in games if g["game"] == "tuppen")
    assert any(o["name"] == "dirty_laundry" for o in tuppen["options"])


def test_rules_of_an_unknown_game_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["rules", "skat"], capsys)
    assert code == 2
    assert "unknown game 'skat'" in err


@pytest.mark.parametrize("game", game_names())
def test_simulate_every_game_for_every_player_count(
    game: str, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = game_spec(game)
    for players in range(spec.min_players, spec.max_players + 1):
        code, out, err = run(
            [
                "simulate",
                "--engine-only",
                "--game",
                game,
                "--players",
                str(players),
                "--games",
                "2",
                "--seed",
                "9",
                "--json",
            ],
            capsys,
        )
        assert code == 0, err
        doc = json.loads(out)
        assert len(doc["games"]) == 2
        for g in doc["games"]:
            assert g["hands"] >= 1
            assert len(g["standing"]) == players


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "tuppen", "--players", "9"], "tuppen is for 2 to 8 players, not 9"),
        (["--game", "belote", "--players", "3"], "belote is for exactly 4 players, not 3"),
        (["--game", "tuppen", "--rule", "bogus=1"], "tuppen has no option 'bogus'"),
        (["--game", "tuppen", "--rule", "poverty=maybe"], "option poverty takes true or false"),
        (["--game", "pottuppen", "--rule", "hands=x"], "option hands takes a whole number"),
        (["--game", "tuppen", "--rule", "poverty"], "--rule takes KEY=VALUE"),
        (["--game", "tuppen", "--games", "0"], "--games must be 1..1000000"),
        (["--game", "skat"], "invalid choice: 'skat'"),
        (["--game", "tuppen", "--players", "four"], "invalid int value: 'four'"),
    ],
)
def test_simulate_rejects_bad_arguments_with_a_clear_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["simulate", "--engine-only", *argv], capsys)
    assert code == 2
    assert message in err


def test_simulate_through_the_protocol_writes_transcripts_that_audit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        [
            "simulate",
            "--game",
            "pottuppen",
            "--players",
            "3",
            "--games",
            "2",
            "--seed",
            "1",
            "--rule",
            "hands=2",
            "--transcripts",
            str(tmp_path),
            "--json",
        ],
        capsys,
    )
    assert code == 0, err
    doc = json.loads(out)
    assert doc["path"] == "protocol"
    for game in doc["games"]:
        code, out, err = run(["audit", game["transcript"], "--json"], capsys)
        assert code == 0, err
        report = json.loads(out)
        assert report["ok"] and report["complete"]
        assert report["standings"] == game["standing"]


def _tamper(src: Path, dst: Path, record: int) -> None:
    """Re-write a transcript with one byte of one record's signature flipped (CRCs valid)."""
    with TranscriptReader(str(src)) as reader:
        config = reader.header.config
        frames = [r.frame for r in reader.records()]
    flipped = bytearray(frames[record])
    flipped[-1] ^= 0x01
    frames[record] = bytes(flipped)
    with TranscriptWriter.create(dst, config, fsync=False) as writer:
        for frame in frames:
            writer.append(frame)


def test_audit_names_the_first_record_that_does_not_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vectors = Path(__file__).resolve().parents[1] / "spec" / "vectors" / "protocol"
    bad = tmp_path / "bad.dlt"
    _tamper(vectors / "tuppen-2p.dlt", bad, record=7)
    code, out, _ = run(["audit", str(bad)], capsys)
    assert code == 1
    assert "DAMAGED at record 7" in out


def test_audit_counts_seats_from_one(capsys: pytest.CaptureFixture[str]) -> None:
    vectors = Path(__file__).resolve().parents[1] / "spec" / "vectors" / "protocol"
    code, out, _ = run(["audit", str(vectors / "tuppen-2p.dlt")], capsys)
    listed = [line.split(":")[0].strip() for line in out.splitlines() if line.startswith("  seat")]
    assert code == 0 and listed == ["seat 1", "seat 2"], out


def test_audit_of_a_missing_or_damaged_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["audit", str(tmp_path / "nope.dlt")], capsys)
    assert code == 2 and "no such file" in err
    junk = tmp_path / "junk.dlt"
    junk.write_bytes(b"this is not a transcript")
    code, _, err = run(["audit", str(junk)], capsys)
    assert code == 1 and "junk.dlt" in err and "not a dealerless transcript" in err
    code, _, err = run(["audit", str(tmp_path)], capsys)
    assert code == 2 and "is a folder; give a transcript file (.dlt)" in err
    assert "Errno" not in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--back-after-hand", "0"], "argument --back-after-hand: a hand number is 1..1000000"),
        (["--back-after-hand", "x"], "argument --back-after-hand: 'x' is not a hand number"),
        (["--sit-out-after-hand", "-1"], "a hand number is 1..1000000"),
        (["--buy-in", "lots"], "'lots' is not a number of chips"),
        (
            ["--stand-after-hand", "2", "--sit-out-after-hand", "3"],
            "not allowed with argument --stand-after-hand",
        ),
    ],
)
def test_join_rejects_bad_seat_change_arguments(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["join", "-", *argv], capsys)
    assert code == 2
    assert message in err


@pytest.mark.parametrize(
    ("flag", "value", "said"),
    [
        ("--max-per-key", "0", "0 is not a cap: at least 1"),
        ("--tables-per-address", "-4", "-4 is not a cap"),
        ("--max-connections", "many", "'many' is not a whole number"),
    ],
)
def test_relay_refuses_a_cap_that_is_not_a_positive_count(
    capsys: pytest.CaptureFixture[str], flag: str, value: str, said: str
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["relay", flag, value])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {flag}: {said}" in err, err
