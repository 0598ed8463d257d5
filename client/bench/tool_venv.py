"""What both relay fixtures need around their child process: a cached virtualenv for a relay
package when the running interpreter lacks it, and a kill that takes the whole process group
(a relay that dies, not one that says goodbye)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["cached_venv", "kill_group"]


def cached_venv(name: str, packages: Sequence[str]) -> Path:
    """A venv under the user's cache holding ``packages``, made once (under a file lock, so
    xdist workers do not install it twice; a marker written last, so a half-made venv is made
    again)."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    venv = base / "dealerless" / name
    venv.parent.mkdir(parents=True, exist_ok=True)
    import fcntl  # POSIX only, and only on this path (a relay fixture's own venv)

    with open(venv.parent / f".{venv.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        marker = venv / ".installed"
        if not marker.exists():
            subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)  # noqa: S603
            subprocess.run(  # noqa: S603
                [str(venv / "bin" / "pip"), "install", "-q", *packages], check=True
            )
            marker.touch()
    return venv


def kill_group(proc: subprocess.Popen[bytes] | None) -> None:
    """SIGKILL a child started with ``start_new_session`` and everything it started."""
    if proc is not None and proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
