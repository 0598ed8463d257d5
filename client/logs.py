"""Standard ``logging`` for the command line: a rotating log file and one line per message on
stderr.

* The log file (``dealerless.log`` in the platform's log directory, or ``<home>/logs/`` with
  ``--home``/``$DEALERLESS_HOME``; 1 MB, 3 old files kept) receives everything at DEBUG: every
  node-level event and every unexpected exception with its traceback.
* stderr shows what a person can act on: the program's own messages at INFO (WARNING with
  ``-q``, DEBUG with ``-vv``), other libraries' only from WARNING, never a traceback, and the
  same library message at most once per :data:`REPEAT_SECONDS` (Trio logs an EMFILE accept
  failure every 0.1 s under fd pressure).
* stdout is not touched: it carries only what a command promises (an invite line, ``--json``
  documents).
* The full-screen client owns the terminal: :func:`screen_mode` takes stderr away from logging
  while it runs; the log file keeps recording.
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "LOG_FILE_NAME",
    "innermost",
    "report_crash",
    "reset_logging",
    "screen_mode",
    "setup_logging",
]

LOG_FILE_NAME = "dealerless.log"
MAX_BYTES = 1_000_000
BACKUPS = 3
REPEAT_SECONDS = 10.0
FILE_FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"

_OURS = "dealerless"
_installed: list[logging.Handler] = []
_screen_owners: list[None] = []  # one entry per full-screen app running (screen_mode)


class _OneLine(logging.Formatter):
    """The message alone, on one line: no traceback, no stack (those go to the file)."""

    def format(self, record: logging.LogRecord) -> str:
        return " ".join(record.getMessage().splitlines())


class _ScreenFilter(logging.Filter):
    """Our own records from ``level``; other libraries' from WARNING, each distinct message at
    most once per :data:`REPEAT_SECONDS`."""

    def __init__(self, level: int) -> None:
        super().__init__()
        self.level = level
        self._last: dict[tuple[str, str], float] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if _screen_owners:  # a full-screen app owns the terminal
            return False
        if record.name == _OURS or record.name.startswith(_OURS + "."):
            return record.levelno >= self.level
        if record.levelno < max(self.level, logging.WARNING):
            return False
        key = (record.name, str(record.msg))
        now = time.monotonic()
        if now - self._last.get(key, -REPEAT_SECONDS) < REPEAT_SECONDS:
            return False
        self._last[key] = now
        if len(self._last) > 1000:  # bounded: forget the oldest half
            for old in sorted(self._last, key=self._last.__getitem__)[:500]:
                del self._last[old]
        return True


def _screen_level(verbose: int, quiet: int) -> int:
    if quiet:
        return logging.WARNING
    if verbose >= 2:
        return logging.DEBUG
    return logging.INFO


def setup_logging(*, verbose: int = 0, quiet: int = 0, home: str | None = None) -> Path | None:
    """Install the stderr and log-file handlers on the root logger (replacing those of an
    earlier call); returns the log file, or None if its directory cannot be written (then a
    warning on stderr says so and the program goes on)."""
    from dealerless.node.portable import log_dir

    reset_logging()
    root = logging.getLogger()
    root.setLevel(logging.DEBUG)
    logging.getLogger("trio").setLevel(logging.INFO)

    screen = logging.StreamHandler(sys.stderr)
    screen.setFormatter(_OneLine())
    screen.addFilter(_ScreenFilter(_screen_level(verbose, quiet)))
    root.addHandler(screen)
    _installed.append(screen)

    path = log_dir(home) / LOG_FILE_NAME
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with contextlib.suppress(FileExistsError):  # private: names, addresses, table ids
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        file = logging.handlers.RotatingFileHandler(
            path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8"
        )
    except OSError as exc:
        logging.getLogger(_OURS).warning("no log file: cannot write %s (%s)", path, exc)
        return None
    file.setFormatter(logging.Formatter(FILE_FORMAT))
    file.setLevel(logging.DEBUG)
    root.addHandler(file)
    _installed.append(file)
    return path


def reset_logging() -> None:
    """Remove the handlers :func:`setup_logging` installed (tests; a caller done with the CLI)."""
    root = logging.getLogger()
    for handler in _installed:
        root.removeHandler(handler)
        handler.close()
    _installed.clear()


@contextlib.contextmanager
def screen_mode() -> Iterator[None]:
    """While a full-screen app runs, nothing is logged to stderr (it would tear the screen); the
    log file keeps recording. Nests, and survives a :func:`setup_logging` inside (a command run
    from the start screen)."""
    _screen_owners.append(None)
    try:
        yield
    finally:
        _screen_owners.pop()


def innermost(exc: BaseException) -> BaseException:
    """The first leaf of (nested) exception groups: what went wrong, not how Trio wrapped it."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def report_crash(who: str, exc: BaseException, log_file: Path | None) -> None:
    """An unexpected exception: its traceback into the log file, one line on stderr."""
    leaf = innermost(exc)
    where = f"the details are in {log_file}" if log_file else "no log file could be written"
    text = f"{who}: unexpected error: {type(leaf).__name__}: {leaf}; {where}"
    logging.getLogger(_OURS).error(text, exc_info=exc)
    if _screen_owners:
        print(text, file=sys.stderr)  # stderr logging is off under a full screen: still say it
