"""Starts everywhere: with ``resource`` and ``fcntl`` missing and no ``signal.SIGKILL`` (as on
Windows), every module imports and every command's ``--help`` works; the platform differences
behind node/portable.py behave on Windows-style names and variables."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path, PureWindowsPath

import pytest

from dealerless.client.commands.games import resolve_game_file
from dealerless.node import portable

WINDOWS_LIKE = textwrap.dedent(
    """
    import importlib, importlib.abc, pkgutil, signal, sys

    class NotOnThisPlatform(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name in ("resource", "fcntl"):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    for name in ("resource", "fcntl"):
        sys.modules.pop(name, None)
    sys.meta_path.insert(0, NotOnThisPlatform())
    if hasattr(signal, "SIGKILL"):
        del signal.SIGKILL
    for blocked in ("resource", "fcntl"):
        try:
            importlib.import_module(blocked)
        except ImportError:
            pass
        else:
            raise SystemExit(f"the test set-up failed: {blocked} still imports")

    imported = 0
    for top in ("protocol", "node", "client"):
        package = importlib.import_module(f"dealerless.{top}")
        for info in pkgutil.walk_packages(package.__path__, f"dealerless.{top}."):
            importlib.import_module(info.name)
            imported += 1
    importlib.import_module("dealerless.__main__")

    from dealerless.client.cli import COMMANDS, main
    from dealerless.client.commands.bench import TARGETS

    helps = [[name, "--help"] for name in COMMANDS] + [["--help"], ["--version"]]
    helps += [["bench", target, "--help"] for target in TARGETS]
    for argv in helps:
        try:
            main(argv)
        except SystemExit as exc:
            if exc.code not in (0, None):
                raise SystemExit(f"{argv} exited {exc.code}")
        else:
            raise SystemExit(f"{argv} did not exit")
    print(f"OK {imported} modules, {len(helps)} helps", file=sys.stderr)
    """
)


def test_every_module_and_every_help_without_resource_fcntl_or_sigkill(tmp_path: Path) -> None:
    env = {**os.environ, "DEALERLESS_HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-c", WINDOWS_LIKE],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("OK ") and int(last.split()[1]) > 100, last


def test_the_blocker_really_blocks() -> None:
    """The same set-up makes a module that needs ``resource`` at import fail (so the test
    above would catch one)."""
    probe = WINDOWS_LIKE.split("imported = 0")[0] + "import resource\n"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode != 0 and "No module named 'resource'" in result.stderr


def test_user_name_reads_windows_username(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("USER", "LOGNAME"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("USERNAME", "Ann")
    assert portable.user_name() == "Ann"
    monkeypatch.delenv("USERNAME")
    assert portable.user_name("you") == "you"


def test_killed_by_kill_without_sigkill(monkeypatch: pytest.MonkeyPatch) -> None:
    import signal

    if hasattr(signal, "SIGKILL"):
        assert portable.killed_by_kill(-int(signal.SIGKILL))
        monkeypatch.delattr(signal, "SIGKILL")
    assert portable.killed_by_kill(1)  # TerminateProcess's exit code
    assert not portable.killed_by_kill(0) and not portable.killed_by_kill(None)


def test_fsync_directory_is_skipped_where_directories_cannot_be_opened(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def no_open(*_args: object) -> int:
        raise PermissionError("directories cannot be opened here")

    monkeypatch.setattr(portable.os, "name", "nt")
    monkeypatch.setattr(portable.os, "open", no_open)
    portable.fsync_directory(tmp_path)  # no error: Windows makes renames durable itself


def test_home_rules_with_windows_style_names(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("DEALERLESS_HOME", str(tmp_path))
    assert portable.data_dir() == tmp_path
    assert portable.config_dir() == tmp_path
    assert portable.log_dir() == tmp_path / "logs"
    windows = PureWindowsPath(r"C:\Users\Ann\AppData\Local\dealerless\tables\ab\transcript.dlt")
    # a game given by file name is a file, whatever its drive letter or separators
    assert resolve_game_file(str(windows), None) == Path(str(windows))
    assert resolve_game_file(r"D:\games\7.dlt", None) == Path(r"D:\games\7.dlt")
