"""Everything that differs between Linux, macOS and Windows, in one place.

Nothing here imports a platform-only module (``resource``, ``fcntl``) at start-up, and nothing
names ``signal.SIGKILL`` (Windows has none): each function imports or looks up what it needs
when it is called and says plainly when the platform cannot do it.

Where files go: with ``--home DIR`` or ``$DEALERLESS_HOME`` every file of the program lives
under that one directory (``config.toml``, ``logs/``, ``store.sqlite``, ``tables/``,
``saves/``); without it each kind goes to the platform's own directory (platformdirs).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

__all__ = [
    "APP_NAME",
    "ENV_HOME",
    "config_dir",
    "data_dir",
    "explicit_home",
    "fsync_directory",
    "killed_by_kill",
    "log_dir",
    "raise_open_file_limit",
    "user_name",
]

APP_NAME = "dealerless"
ENV_HOME = "DEALERLESS_HOME"


def explicit_home(home: str | os.PathLike[str] | None = None) -> Path | None:
    """``home`` if given, else ``$DEALERLESS_HOME``, else None (use the platform's dirs)."""
    if home is not None and str(home) != "":
        return Path(home).expanduser()
    env = os.environ.get(ENV_HOME)
    if env:
        return Path(env).expanduser()
    return None


def data_dir(home: str | os.PathLike[str] | None = None) -> Path:
    """Identity key, table store and transcripts."""
    chosen = explicit_home(home)
    if chosen is not None:
        return chosen
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME))


def config_dir(home: str | os.PathLike[str] | None = None) -> Path:
    """Where ``config.toml`` lives."""
    chosen = explicit_home(home)
    if chosen is not None:
        return chosen
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME))


def log_dir(home: str | os.PathLike[str] | None = None) -> Path:
    """Where the rotating log file lives."""
    chosen = explicit_home(home)
    if chosen is not None:
        return chosen / "logs"
    import platformdirs

    return Path(platformdirs.user_log_dir(APP_NAME))


def fsync_directory(directory: str | os.PathLike[str]) -> None:
    """Make a rename or create in ``directory`` durable. POSIX fsyncs the directory; Windows
    cannot open a directory with ``os.open`` and makes renames durable by itself (NTFS
    journals metadata), so there it does nothing."""
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def user_name(fallback: str = "player") -> str:
    """The login name: ``$USER`` (POSIX) or ``%USERNAME%`` (Windows), else ``fallback``."""
    for variable in ("USER", "USERNAME", "LOGNAME"):
        value = os.environ.get(variable, "").strip()
        if value:
            return value
    return fallback


def raise_open_file_limit(need: int) -> int:
    """Raise this process's soft limit on open files to ``need`` (at most the hard limit);
    returns the limit in force afterwards. Windows has no such limit (``resource`` is POSIX
    only): there it returns ``need`` unchanged."""
    try:
        import resource
    except ImportError:
        return need
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= need:
        return soft
    target = need if hard == resource.RLIM_INFINITY else min(hard, need)
    resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return target


def killed_by_kill(returncode: int | None) -> bool:
    """Did a child process end by :meth:`subprocess.Popen.kill`? On POSIX that is SIGKILL (a
    negative return code); on Windows ``kill`` is TerminateProcess with exit code 1."""
    if returncode is None:
        return False
    import signal

    sigkill = getattr(signal, "SIGKILL", None)
    if sigkill is None:
        return returncode == 1
    return returncode == -int(sigkill)


def hold_lock(path: Path) -> Callable[[], None] | None:
    """Hold an exclusive lock on ``path`` for this process (its pid written in it); returns the
    function that lets it go, or None when another process holds it. The operating system
    lets it go when the process dies, so a crash leaves nothing to clean up."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if sys.platform == "win32":
            import msvcrt

            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    os.ftruncate(fd, 0)
    os.write(fd, str(os.getpid()).encode())

    def release() -> None:
        os.close(fd)  # closing the descriptor lets the lock go

    return release
