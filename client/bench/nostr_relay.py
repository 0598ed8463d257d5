"""A real Nostr relay (the ``nostr-relay`` package from PyPI) as a subprocess on loopback, for
the tests and ``dealerless bench hand --transport nostr``.

The package is a dev dependency of the project, so its ``nostr-relay`` command normally sits
beside the interpreter. Where it does not (a venv made without the dev extras), it is installed
once into a cached venv keyed by its version (pip, from PyPI)."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from dealerless.client.bench.tool_venv import cached_venv, kill_group

__all__ = ["RelayProcess", "free_port", "relay_command"]

RELAY_VERSION = "1.14"


def relay_command() -> str:
    beside = shutil.which("nostr-relay", path=str(Path(sys.executable).parent))
    if beside:
        return beside
    venv = cached_venv(f"nostr-relay-{RELAY_VERSION}", [f"nostr-relay=={RELAY_VERSION}"])
    binary = venv / "bin" / "nostr-relay"
    return str(binary)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class RelayProcess:
    """One relay: its directory, port and limits; start, kill and start again on the port."""

    root: Path
    max_event_size: int = 0  # characters of content; 0: no size validator
    event_rate: str = ""  # e.g. "20/s" per address
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None
    host: str = "127.0.0.1"
    prefix: tuple[str, ...] = ()  # e.g. ("ip", "netns", "exec", NAME): run it elsewhere

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}"

    def _listening(self) -> bool:
        if not self.prefix:
            with (
                contextlib.suppress(OSError),
                socket.create_connection((self.host, self.port), timeout=0.5),
            ):
                return True
            return False
        probe = f"import socket; socket.create_connection(({self.host!r}, {self.port}), 0.5)"
        done = subprocess.run(  # noqa: S603 - our own command line
            [*self.prefix, sys.executable, "-c", probe], capture_output=True, check=False
        )
        return done.returncode == 0

    def _config(self) -> Path:
        self.root.mkdir(parents=True, exist_ok=True)
        validators = ["nostr_relay.validators.is_signed"]
        if self.max_event_size:
            validators.append("nostr_relay.validators.is_not_too_large")
        lines = [
            "storage:",
            f"  sqlalchemy.url: sqlite+aiosqlite:///{self.root}/relay.sqlite3",
            "  validators:",
            *(f"    - {v}" for v in validators),
            "gunicorn:",
            f"  bind: {self.host}:{self.port}",
            "  workers: 1",
            "  loglevel: warning",
            "  reload: false",
            "authentication:",
            "  enabled: false",
            "subscription_limit: 32",
            "max_limit: 6000",
        ]
        if self.max_event_size:
            lines.append(f"max_event_size: {self.max_event_size}")
        if self.event_rate:
            lines += ["rate_limits:", "  ip:", f'    EVENT: "{self.event_rate}"']
        path = self.root / "config.yaml"
        path.write_text("\n".join(lines) + "\n")
        return path

    def start(self, timeout: float = 60.0) -> RelayProcess:
        config = self._config()
        log = open(self.root / "relay.log", "ab")  # noqa: SIM115 - the child holds it
        self.proc = subprocess.Popen(  # noqa: S603 - our own command line
            [*self.prefix, relay_command(), "-c", str(config), "serve"],
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=self.root,
            start_new_session=True,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nostr-relay exited: {self.log_text()[-2000:]}")
            if self._listening():
                return self
            time.sleep(0.1)
        raise RuntimeError(f"nostr-relay did not listen within {timeout} s")

    def kill(self) -> None:
        """SIGKILL the relay and its workers."""
        kill_group(self.proc)
        self.proc = None

    def log_text(self) -> str:
        path = self.root / "relay.log"
        return path.read_text(errors="replace") if path.exists() else ""
