"""Run hosts, joiners and relays as separate OS processes on loopback (test helper)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from dealerless.node.invite import Invite
from dealerless.node.store import TableStore
from dealerless.protocol.table import TableConfig, TableMachine
from dealerless.protocol.table.audit import audit_records

CLI = [sys.executable, "-m", "dealerless.client.cli"]


def wait_for(predicate, timeout: float, what: str, procs=()) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        for p in procs:
            if p.poll() is not None and p.returncode != 0:
                raise AssertionError(f"{what}: a process exited with {p.returncode}")
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


@dataclass
class Cluster:
    root: Path
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    logs: dict[str, Path] = field(default_factory=dict)
    invite: Invite | None = None
    invite_code: str = ""
    homes: list[Path] = field(default_factory=list)
    relay_fingerprint: str = ""
    prefix: tuple[str, ...] = ()  # e.g. ("ip", "netns", "exec", NAME): the nodes run there
    # flags for every host and join (("--relays-only",): a test of the relays' own path)
    node_flags: tuple[str, ...] = ()

    def spawn(
        self, name: str, args: list[str], stdin: bytes | None = None
    ) -> subprocess.Popen[bytes]:
        if args and args[0] in ("host", "join"):
            args = [*args, *self.node_flags]
        log = self.root / f"{name}.log"
        n = sum(1 for k in self.logs if k.split("#")[0] == name)
        self.logs[f"{name}#{n}"] = log
        out = open(log, "ab")  # noqa: SIM115
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        source = subprocess.DEVNULL if stdin is None else subprocess.PIPE
        proc = subprocess.Popen(
            [*self.prefix, *CLI, *args], stdout=out, stderr=subprocess.STDOUT, env=env,
            stdin=source,
        )  # fmt: skip
        out.close()
        if stdin is not None:
            assert proc.stdin is not None
            proc.stdin.write(stdin)
            proc.stdin.close()
        self.procs[name] = proc
        return proc

    def relay(self, *extra: str) -> int:
        """A ``dealerless relay`` process (``extra``: more of its flags); its port."""
        port_file = self.root / "relay.port"
        self.spawn(
            "relay",
            [
                "relay",
                "--home",
                str(self.root / "relay-home"),
                "--listen",
                "127.0.0.1:0",
                "--port-file",
                str(port_file),
                *extra,
            ],
        )
        wait_for(port_file.exists, 30, "the relay port", [self.procs["relay"]])
        log = self.logs["relay#0"]
        wait_for(lambda: "fingerprint" in log.read_text(), 30, "the relay's fingerprint")
        self.relay_fingerprint = log.read_text().split("fingerprint ")[1].split()[0]
        return int(port_file.read_text())

    def host(
        self,
        game: str,
        seats: int,
        rules: list[str],
        *,
        relay: int | None = None,
        step_timeout: float = 60.0,
        linger: float = 10.0,
        extra: tuple[str, ...] = (),
    ) -> None:
        home = self.root / "seat0"
        self.homes = [home] + [self.root / f"seat{i}" for i in range(1, seats)]
        invite_file = self.root / "invite"
        args = [
            "host",
            "--home",
            str(home),
            "--game",
            game,
            "--seats",
            str(seats),
            "--bot",
            "--name",
            "seat0",
            "--invite-file",
            str(invite_file),
            "--step-timeout",
            str(step_timeout),
            "--linger",
            str(linger),
            *extra,
        ]
        for rule in rules:
            args += ["--rule", rule]
        if relay:  # the relay's key is pinned by the host and, through the invite, the joiners
            args += ["--relay", f"127.0.0.1:{relay}", "--relay-fingerprint", self.relay_fingerprint]
        else:
            args += ["--listen", "127.0.0.1:0"]
        self.spawn("seat0", args)
        wait_for(invite_file.exists, 30, "the invite", [self.procs["seat0"]])
        self.invite_code = invite_file.read_text().strip()
        self.invite = Invite.decode(self.invite_code)

    def join(self, seat: int, linger: float = 10.0, floor: float = 0.0) -> None:
        """A joiner process; the code goes in on stdin (it holds the join token, so it is
        never on a command line), and the step-timeout floor is ``floor`` seconds."""
        self.spawn(
            f"seat{seat}",
            [
                "join",
                "-",
                "--min-step-timeout",
                str(floor),
                "--home",
                str(self.homes[seat]),
                "--bot",
                "--name",
                f"seat{seat}",
                "--linger",
                str(linger),
            ],
            stdin=self.invite_code.encode() + b"\n",
        )

    def join_with(self, seat: int, *extra: str, linger: float = 5.0) -> None:
        """A bot joiner with extra flags (``--buy-in``, ``--stand-after-hand`` ...); also a
        newcomer at a running table (its home is added)."""
        self.homes += [self.root / f"seat{s}" for s in range(len(self.homes), seat + 1)]
        args = ["join", "-", "--min-step-timeout", "0", "--home", str(self.homes[seat])]
        args += ["--bot", "--name", f"seat{seat}", "--linger", str(linger), *extra]
        self.spawn(f"seat{seat}", args, stdin=self.invite_code.encode() + b"\n")

    def said(self, seat: int, text: str) -> bool:
        """Has this seat's node said ``text`` (in any of its runs)?"""
        path = self.root / f"seat{seat}.log"
        return path.exists() and text in path.read_text(errors="replace")

    def wait_said(self, seats: list[int], text: str, timeout: float) -> None:
        """Until every seat of ``seats`` has said ``text`` (e.g. "game over")."""
        wait_for(
            lambda: all(self.said(seat, text) for seat in seats),
            timeout,
            f"{text!r} from seats {seats}",
            list(self.procs.values()),
        )

    def finished_state(self, seat: int) -> TableMachine:
        """This seat's transcript audited (complete, every record checks) and replayed."""
        config, records = self.transcript(seat)
        report = audit_records(config, records)
        assert report.ok and report.complete, (seat, report.failure)
        return TableMachine.resume(config, None, records)

    def resume(self, seat: int, linger: float = 10.0) -> None:
        self.spawn(
            f"seat{seat}",
            ["resume", "--home", str(self.homes[seat]), "--bot", "--linger", str(linger)],
        )

    def wait_for_config(self, seat: int, timeout: float = 60) -> None:
        """Until this seat holds the signed configuration (every seat is taken)."""

        def signed() -> bool:
            try:
                store = self.store(seat)
                return store.exists and store.load_config() is not None
            except Exception:  # not written yet, or being written
                return False

        wait_for(signed, timeout, f"seat {seat}'s configuration", list(self.procs.values()))

    def kill(self, name: str) -> None:
        proc = self.procs[name]
        proc.send_signal(signal.SIGKILL)
        proc.wait()

    def store(self, seat: int) -> TableStore:
        assert self.invite is not None
        return TableStore(self.homes[seat], self.invite.table_id)

    def count(self, seat: int) -> int:
        store = self.store(seat)
        try:
            return store.stored_count() if store.exists else 0
        except Exception:
            return 0

    def wait(self, names: list[str], timeout: float) -> dict[str, int]:
        deadline = time.monotonic() + timeout
        codes = {}
        for name in names:
            try:
                codes[name] = self.procs[name].wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.stop()
                raise AssertionError(f"{name} did not finish in time\n{self.tail()}") from None
        return codes

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()

    def tail(self, lines: int = 12) -> str:
        out = []
        for name, path in self.logs.items():
            text = path.read_text(errors="replace").splitlines() if path.exists() else []
            out.append(f"--- {name}\n" + "\n".join(text[-lines:]))
        return "\n".join(out)

    def transcript(self, seat: int) -> tuple[TableConfig, list[bytes]]:
        store = self.store(seat)
        loaded = store.load_config()
        assert loaded is not None
        return loaded[0], store.stored_records()

    def check_identical(self, seats: list[int]) -> TableMachine:
        """Every listed seat holds the same transcript, and an auditor replay accepts it."""
        config, first = self.transcript(seats[0])
        for seat in seats[1:]:
            other_config, records = self.transcript(seat)
            assert other_config == config
            assert records == first, f"seat {seat}'s transcript differs from seat {seats[0]}'s"
        audit = TableMachine.resume(config, None, first)
        assert audit.over, f"the game is not over after {len(first)} records"
        assert not audit.violations
        report = audit_records(config, first)  # the lead's auditor (dealerless audit)
        assert report.ok and report.complete, report
        return audit

    def audit_cli(self, seat: int) -> str:
        """``dealerless audit`` on this seat's transcript file; returns its output."""
        path = self.store(seat).transcript_path
        result = subprocess.run(
            [*CLI, "audit", str(path)], capture_output=True, text=True, timeout=120, check=False
        )
        assert result.returncode == 0, result.stdout + result.stderr
        return result.stdout


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    """A cluster whose processes are stopped after the test (import it where it is used)."""
    c = Cluster(tmp_path)
    try:
        yield c
    finally:
        c.stop()
