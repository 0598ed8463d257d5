"""Logging: a node's unexpected exception goes into the log file with its traceback while
stderr shows one line that says what happened and where the details are; stdout carries only
the invite line; a library that repeats itself (Trio's EMFILE retry) is shown once."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import trio

from dealerless.client import logs
from dealerless.client.cli import main
from dealerless.node.seat import SeatNode


def host_argv(home: Path, *extra: str) -> list[str]:
    return [
        "host",
        "--game",
        "limit-tuppen",
        "--seats",
        "2",
        "--bot",
        "--listen",
        "127.0.0.1:0",
        "--home",
        str(home),
        *extra,
    ]


def test_a_node_crash_is_one_line_on_stderr_and_a_traceback_in_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def broken_run(self: SeatNode) -> int:
        await trio.sleep(0)
        raise RuntimeError("the node broke")

    monkeypatch.setattr(SeatNode, "run", broken_run)
    code = main(host_argv(tmp_path, "-q"))
    out, err = capsys.readouterr()
    assert code == 1
    log_file = tmp_path / "logs" / logs.LOG_FILE_NAME
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "unexpected error: RuntimeError: the node broke" in lines[0]
    assert str(log_file) in lines[0]
    text = log_file.read_text()
    assert "Traceback (most recent call last)" in text
    assert "in broken_run" in text and "RuntimeError: the node broke" in text
    assert out.strip().startswith("dl3:") and len(out.strip().splitlines()) == 1


def test_stdout_is_only_the_invite_and_progress_goes_to_stderr_and_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def stop_at_once(self: SeatNode) -> int:
        self.say("hello from the node")
        self.emit(ev="probe", n=1)
        return 0

    monkeypatch.setattr(SeatNode, "run", stop_at_once)
    assert main(host_argv(tmp_path)) == 0
    out, err = capsys.readouterr()
    assert out.strip().startswith("dl3:") and len(out.strip().splitlines()) == 1
    assert "created a new identity" in err and "hello from the node" in err
    text = (tmp_path / "logs" / logs.LOG_FILE_NAME).read_text()
    assert "hello from the node" in text and "'ev': 'probe'" in text


def test_quiet_and_verbose(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ours = logging.getLogger("dealerless.test")
    logs.setup_logging(quiet=1, home=str(tmp_path))
    ours.info("progress")
    ours.warning("trouble")
    assert capsys.readouterr().err.splitlines() == ["trouble"]
    logs.setup_logging(verbose=2, home=str(tmp_path))
    ours.debug("detail")
    assert capsys.readouterr().err.splitlines() == ["detail"]
    assert "progress" in (tmp_path / "logs" / logs.LOG_FILE_NAME).read_text()


def test_a_repeating_library_error_is_shown_once_without_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log_file = logs.setup_logging(home=str(tmp_path))
    assert log_file is not None
    library = logging.getLogger("trio.serve_listeners")
    for _ in range(50):
        try:
            raise OSError(24, "Too many open files")
        except OSError:
            library.error(
                "accept returned %s; retrying in %s seconds", "EMFILE", 0.1, exc_info=True
            )
    err = capsys.readouterr().err
    assert err.splitlines() == ["accept returned EMFILE; retrying in 0.1 seconds"]
    assert log_file.read_text().count("Traceback (most recent call last)") == 50


def test_no_log_file_is_a_warning_not_a_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert logs.setup_logging(home=str(blocker)) is None  # logs/ cannot be made under a file
    assert "no log file" in capsys.readouterr().err


def test_nothing_reaches_stderr_under_a_full_screen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ours = logging.getLogger("dealerless.test")
    log_file = logs.setup_logging(home=str(tmp_path))
    with logs.screen_mode():
        ours.warning("under the start screen")
        logs.setup_logging(home=str(tmp_path))  # a command launched from the start screen
        with logs.screen_mode():
            ours.warning("under its table screen")
        ours.warning("back on the start screen")
    ours.warning("after")
    assert capsys.readouterr().err.splitlines() == ["after"]
    assert log_file is not None
    text = log_file.read_text()
    assert "under its table screen" in text and "back on the start screen" in text
