"""rust-nostr's relay (the ``nostr-sdk`` wheel's ``LocalRelay``) as a subprocess, configured like
public relays are (rate limits, proof of work, NIP-42, size and age limits, shadow rejection),
for the tests and the bench; the same interface as :class:`~.nostr_relay.RelayProcess`.

The child is rust_relay_main.py (asyncio, a process of its own). The wheel is a dev dependency,
so the running interpreter normally has it; where it does not, it is installed once into a
cached venv keyed by its version (pip, from PyPI), with ``websockets`` for the proxy."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from dealerless.client.bench.nostr_relay import free_port
from dealerless.client.bench.tool_venv import cached_venv, kill_group

__all__ = ["RustRelayProcess", "rust_relay_command"]

SDK_VERSION = "0.45.1"
PACKAGES = (f"nostr-sdk=={SDK_VERSION}", "websockets>=13")  # 13: the websockets.asyncio API
MAIN = Path(__file__).with_name("rust_relay_main.py")


def rust_relay_command() -> list[str]:
    """The command line that runs rust_relay_main (``--config FILE`` to be added)."""
    if all(importlib.util.find_spec(m) for m in ("nostr_sdk", "websockets")):
        return [sys.executable, "-m", "dealerless.client.bench.rust_relay_main"]
    python = cached_venv(f"nostr-sdk-{SDK_VERSION}", PACKAGES) / "bin" / "python"
    # That venv has no dealerless: run the file by path; -P keeps its folder (bench modules
    # named like top-level packages) off sys.path.
    return [str(python), "-P", str(MAIN)]


@dataclass
class RustRelayProcess:
    """One rust-nostr relay: its directory, port and policies; start, kill and start again."""

    root: Path
    rate_per_minute: int | None = None  # None: the builder's 60/min per connection; 0: none
    per_ip_per_minute: int = 0  # > 0: noteguard-like token bucket per address (burst N)
    min_pow: int = 0  # NIP-13 difficulty
    nip42_write: bool = False  # writes need NIP-42 AUTH
    max_event_bytes: int = 0  # serialized event JSON longer than this: "blocked: ... too large"
    ephemeral_max_age: int = 0  # seconds; older ephemeral events: strfry's "expired"
    shadow: bool = False  # every EVENT answered OK true and dropped
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None
    host: str = "127.0.0.1"  # an IP address (the builder takes no names)
    prefix: tuple[str, ...] = ()  # e.g. ("ip", "netns", "exec", NAME): run it elsewhere

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}"

    def _config(self) -> Path:
        self.root.mkdir(parents=True, exist_ok=True)
        options = {
            "host": self.host,
            "port": self.port,
            "rate_per_minute": self.rate_per_minute,
            "per_ip_per_minute": self.per_ip_per_minute,
            "min_pow": self.min_pow,
            "nip42_write": self.nip42_write,
            "max_event_bytes": self.max_event_bytes,
            "ephemeral_max_age": self.ephemeral_max_age,
            "shadow": self.shadow,
        }
        path = self.root / "rust-relay.json"
        path.write_text(json.dumps(options, indent=1) + "\n")
        return path

    def _listening(self, since: int) -> bool:
        # The line this start printed (the log is appended to across restarts), or the port.
        if b"listening ws://" in self._log_bytes()[since:]:
            return True
        if self.prefix:
            return False  # probing inside another namespace costs a process: the line will do
        with (
            contextlib.suppress(OSError),
            socket.create_connection((self.host, self.port), timeout=0.5),
        ):
            return True
        return False

    def start(self, timeout: float = 60.0) -> RustRelayProcess:
        config = self._config()
        command = rust_relay_command()  # before the clock: it may install the venv
        since = len(self._log_bytes())
        log = open(self.root / "relay.log", "ab")  # noqa: SIM115 - the child holds it
        self.proc = subprocess.Popen(  # noqa: S603 - our own command line
            [*self.prefix, *command, "--config", str(config)],
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=self.root,
            start_new_session=True,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"rust-nostr relay exited: {self.log_text()[-2000:]}")
            if self._listening(since):
                return self
            time.sleep(0.05)
        raise RuntimeError(f"rust-nostr relay did not listen within {timeout} s")

    def kill(self) -> None:
        kill_group(self.proc)
        self.proc = None

    def _log_bytes(self) -> bytes:
        path = self.root / "relay.log"
        return path.read_bytes() if path.exists() else b""

    def log_text(self) -> str:
        return self._log_bytes().decode(errors="replace")
