"""`dealerless replay` (plain and on screen) and the start screen, by pipe input."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from tui_helpers import play_by_bot

from dealerless.client.cli import main as cli_main
from dealerless.client.tui import presenter as P
from dealerless.client.tui.app import TableApp
from dealerless.client.tui.model import TableSnapshot
from dealerless.client.tui.replay import ReplaySession, load_replay
from dealerless.client.tui.session import LocalSession
from dealerless.client.tui.settings import Settings
from dealerless.client.tui.start import StartScreen
from dealerless.node.invite import Invite
from dealerless.protocol.messages import IdentityKey
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table.events import ActionApplied, HandStarted, TableEvent
from dealerless.protocol.transcript import TranscriptReader, TranscriptWriter


@pytest.fixture(scope="module")
def transcript(tmp_path_factory: pytest.TempPathFactory) -> Path:
    session = LocalSession(make_config("tuppen", 3), seed=2, human_name="ann")
    play_by_bot(session, until_hands=2)
    path = tmp_path_factory.mktemp("replay") / "game.dlt"
    session.save_transcript(path)
    return path


def test_replay_plain_verifies(transcript: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["replay", "--plain", "--ascii", str(transcript)]) == 0
    out = capsys.readouterr().out
    assert "Tuppen" in out and ": ann, bot1" in out and "seat 0" not in out
    assert "Hand 1 starts" in out and "Hand 1 signed by every seat" in out
    assert "Transcript verified" in out


def test_replay_plain_in_german(transcript: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["replay", "--plain", "--lang", "de", str(transcript)]) == 0
    assert "Mitschrift geprüft" in capsys.readouterr().out


def test_replay_of_a_tampered_transcript_fails(
    transcript: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with TranscriptReader(transcript) as reader:
        config = reader.header.config
        frames = [r.frame for r in reader.records()]
    bad = tmp_path / "bad.dlt"
    with TranscriptWriter.create(bad, config) as writer:
        for number, frame in enumerate(frames):
            if number != len(frames) // 2:  # a record goes missing
                writer.append(frame)
    assert cli_main(["replay", "--plain", str(bad)]) == 1
    assert "does not verify" in capsys.readouterr().out


def test_replay_of_garbage_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "junk.dlt"
    junk.write_bytes(b"not a transcript")
    assert cli_main(["replay", "--plain", str(junk)]) == 2
    assert "junk.dlt" in capsys.readouterr().err


def test_replay_steps_on_screen(transcript: Path) -> None:
    replay = load_replay(transcript)
    assert replay.verified
    session = ReplaySession(replay)
    with create_pipe_input() as inp:
        app = TableApp(session, input=inp, output=DummyOutput(), replay=session)
        inp.send_text("\x1b[C\x1b[C\x1b[C")  # three steps forward
        inp.send_text("\x1b[D")  # one back
        inp.send_text("q")  # no question in a replay
        assert app.run() == 0
    assert 0 < session.index < len(replay.snapshots) - 1
    status = "".join(t for _, t, *_ in app._status_text())
    assert "verified" in status
    session.go(10**6)
    assert session.snapshot().results


def run_start(keys: list[str], settings: Settings | None = None, **kw: bool) -> StartScreen:
    with create_pipe_input() as inp:
        screen = StartScreen(settings or Settings(), input=inp, output=DummyOutput(), **kw)
        for key in keys:
            inp.send_text(key)
        screen.choice = screen.run()  # type: ignore[attr-defined]
    return screen


def test_start_screen_play_against_bots() -> None:
    screen = run_start(["1", "\x1b[C", "-", "\r"])
    choice = screen.choice  # type: ignore[attr-defined]
    assert (choice.kind, choice.game, choice.bots) == ("play", "limit-tuppen", 2)


def test_start_screen_settings_and_rules() -> None:
    settings = Settings()
    # settings: language -> de; game row; a house rule of tuppen toggled; Esc; quit
    # (rows: name, language, time per move, bot level, suit letters, result panel, game, rules)
    keys = ["6", "\x1b[B", "\x1b[C", *["\x1b[B"] * 6, "\x1b[C", "\x1b"]
    screen = run_start([*keys, "5", "\x1b", "q"], settings)
    assert screen.choice.kind == "quit"  # type: ignore[attr-defined]
    assert settings.lang == "de"
    assert settings.rules["tuppen"] == {"poverty": False}


def _invite() -> str:
    key = IdentityKey.generate().peer_id.raw
    game = make_config("tuppen", 4)
    return Invite.create(key, game, 60_000, direct=(("127.0.0.1", 4242),)).encode()


def test_start_screen_host_join_need_a_node() -> None:
    screen = run_start(["2", "4", "q"])
    assert "dealerless host" in screen.message
    screen = run_start(["3", "q"])
    assert "dealerless host" in screen.message  # the LAN-only entry needs a node too
    code = _invite()
    half = len(code) // 2
    # pasted over two lines: the line break is no part of the code
    screen = run_start(["4", code[:half] + " " + code[half:], "\r"], can_join=True)
    choice = screen.choice  # type: ignore[attr-defined]
    assert (choice.kind, choice.code) == ("join", code)


def test_a_bad_invite_code_is_said_on_the_screen() -> None:
    good = _invite()
    screen = run_start(["4", "ABCD-1234", "\r", "\x1b", "q"], can_join=True)
    assert screen.choice.kind == "quit"  # type: ignore[attr-defined]
    assert "not a valid invite code" in screen.message or screen.mode == "menu"
    screen = run_start(["4", good[:-6], "\r", "\x03"], can_join=True)  # a cut code
    assert "That is not a valid invite code" in screen.message
    assert screen.editing == "code"  # the line stays open for another try


def test_the_host_entries_choose_internet_or_lan_only() -> None:
    # each opens the host form (tests/tui/test_host_form.py); Enter hosts what it shows
    internet = run_start(["2", "\r"], can_host=True).choice  # type: ignore[attr-defined]
    lan = run_start(["3", "\r"], can_host=True).choice  # type: ignore[attr-defined]
    assert (internet.kind, internet.lan_only) == ("host", False)
    assert (lan.kind, lan.lan_only) == ("host", True)


def test_settings_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    Settings(name="ann", lang="nl", rules={"tuppen": {"tupp": False}}).save(path)
    loaded = Settings.load(path)
    assert (loaded.name, loaded.lang, loaded.rules) == ("ann", "nl", {"tuppen": {"tupp": False}})
    path.write_text("{broken")
    assert Settings.load(path).lang == "en"


def _events_between(before: TableSnapshot, after: TableSnapshot) -> tuple[TableEvent, ...]:
    assert after.log[: len(before.log)] == before.log  # a step only adds to the log
    return after.log[len(before.log) :]


def test_replay_steps_by_move_and_deal_not_by_record(transcript: Path) -> None:
    """Every step is one player move or one deal; the deck's records (shuffles, shares,
    openings, signatures) are folded into the step they belong to."""
    replay = load_replay(transcript)
    steps = replay.snapshots
    final = steps[-1].log
    moves = sum(isinstance(e, ActionApplied) for e in final)
    deals = sum(isinstance(e, HandStarted) for e in final)
    assert len(steps) - 1 == moves + deals < len(replay.records)
    for before, after in itertools.pairwise(steps):
        new = _events_between(before, after)
        started = [type(e) for e in new if isinstance(e, ActionApplied | HandStarted)]
        assert started in ([ActionApplied], [HandStarted])
    session = ReplaySession(replay)
    status = "".join(t for _, t, *_ in session.status("en"))
    assert f"step 0 of {moves + deals}" in status


def test_replay_shows_no_move_clock(transcript: Path) -> None:
    replay = load_replay(transcript)
    look = P.Look("en", False)
    for snap in replay.snapshots:
        assert snap.deadline is None
        shown = [*P.countdown(snap, look, 0.0), *P.seats(snap, look, 0.0)]
        assert not any("countdown" in style for style, *_ in shown)


def test_replay_result_panel_is_the_viewed_hands_at_its_end(transcript: Path) -> None:
    replay = load_replay(transcript)
    steps = replay.snapshots
    ends = [i for i in range(1, len(steps)) if len(steps[i].results) > len(steps[i - 1].results)]
    assert len(ends) >= 2
    session = ReplaySession(replay)
    with create_pipe_input() as inp:
        app = TableApp(session, input=inp, output=DummyOutput(), replay=session)

        def shown(index: int) -> int | None:
            session.go(index)
            app._before_render()
            return None if app.ui.summary is None else app.ui.summary.hand_number

        assert shown(ends[0] - 1) is None
        assert shown(ends[0]) == 1
        panel = "".join(t for _, t, *_ in app._summary_text())
        assert "Every seat signed the result." in panel and "s: save" not in panel
        assert shown(ends[0] + 1) is None  # the next deal: hand 1's panel is gone
        # mid-hand 2 (how many hands the bots finish before the save depends on the deal)
        assert ends[1] - ends[0] > 3
        assert shown((ends[0] + ends[1]) // 2) is None  # no panel of an earlier hand
        assert shown(ends[1]) == 2
        assert shown(ends[0]) == 1  # stepping back opens it again
