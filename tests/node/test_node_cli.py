"""The commands' argument errors, and the hub's limits."""

from __future__ import annotations

import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import trio

from dealerless.node.hub import Hub, HubLimits, _Bucket, bound_port
from dealerless.node.identity import Identity
from dealerless.node.invite import Invite
from dealerless.node.links import LinkError, attach_message, open_remote
from dealerless.node.store import TableStore
from dealerless.node.transport import TransportConfig
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import SeatInfo, TableConfig

CLI = [sys.executable, "-m", "dealerless.client.cli"]


def run_cli(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args, "--home", str(home)], capture_output=True, text=True, timeout=60, check=False
    )


def test_join_with_a_damaged_code_says_so(tmp_path: Path) -> None:
    result = run_cli("join", "dl3:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", home=tmp_path)
    assert result.returncode == 2
    assert "damaged" in result.stderr
    result = run_cli("join", "hello", home=tmp_path)
    assert result.returncode == 2 and "starts with 'dl3:'" in result.stderr


def test_host_refuses_a_bad_rule(tmp_path: Path) -> None:
    result = run_cli(
        "host", "--game", "limit-tuppen", "--seats", "2", "--rule", "hands=x", home=tmp_path
    )
    assert result.returncode == 2 and "dealerless host:" in result.stderr
    result = run_cli(
        "host", "--game", "belote", "--seats", "4", "--step-timeout", "0.005", home=tmp_path
    )
    assert result.returncode == 2 and "--step-timeout" in result.stderr


def test_resume_without_a_table(tmp_path: Path) -> None:
    result = run_cli("resume", home=tmp_path)
    assert result.returncode == 1 and "no table to resume" in result.stderr


def test_bucket_slows_a_fast_sender() -> None:
    async def main() -> None:
        bucket = _Bucket(10.0, 10.0)
        assert all(bucket.delay(1) == 0 for _ in range(10))
        assert bucket.delay(1) > 0

    trio.run(main)


def test_hub_caps_frames_tables_and_members() -> None:
    async def main() -> None:
        limits = HubLimits(max_frame_size=4096, max_tables=1, max_members=2)
        hub = Hub(limits)
        relay_id = Identity.generate()
        async with trio.open_nursery() as nursery:
            listeners = await nursery.start(hub.serve_tcp, "127.0.0.1", 0, relay_id)
            port = bound_port(listeners)
            small = TransportConfig(max_frame_size=4096)

            async def connect(table: Invite, host: bool, who: Identity | None = None) -> Any:
                who = who or Identity.generate()
                message = attach_message(table, host)
                return await open_remote("127.0.0.1", port, who, None, message, config=small)

            def new_table(host: Identity) -> Invite:
                return Invite.create(host.public_key, make_config("tuppen", 2, {}), 60_000)

            owner, seated, third = Identity.generate(), Identity.generate(), Identity.generate()
            t1 = new_table(owner)
            host, _ = await connect(t1, True, owner)
            await host.send({"t": "admit", "keys": [seated.public_key, third.public_key]})
            with pytest.raises(LinkError, match="too many tables"):
                other = Identity.generate()
                await connect(new_table(other), True, other)
            joiner = await connect(t1, False, seated)  # keep it open (and referenced)
            with pytest.raises(LinkError, match="full"):
                await connect(t1, False, third)
            with pytest.raises(LinkError, match="no such table"):
                await connect(new_table(Identity.generate()), False)
            # A frame over the limit: the sender's own channel refuses it before sending.
            with pytest.raises(Exception, match="exceeds"):
                await host.send({"t": "send", "data": b"x" * 5000})  # type: ignore[attr-defined]
            assert joiner is not None
            nursery.cancel_scope.cancel()

    trio.run(main)


def test_table_files_are_private(tmp_path: Path) -> None:
    """Transcripts, invite files and table directories are readable by their owner only."""
    invite_file = tmp_path / "invite"
    host = subprocess.Popen(
        [*CLI, "host", "--game", "tuppen", "--seats", "2", "--bot", "--home", str(tmp_path),
         "--listen", "127.0.0.1:0", "--invite-file", str(invite_file)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        tables = tmp_path / "tables"
        while not (invite_file.exists() and tables.exists() and any(tables.iterdir())):
            assert time.monotonic() < deadline, "no invite file"
            time.sleep(0.05)
        table = next(tables.iterdir())
        assert stat.S_IMODE(invite_file.stat().st_mode) == 0o600
        assert stat.S_IMODE(tables.stat().st_mode) == 0o700
        assert stat.S_IMODE(table.stat().st_mode) == 0o700
        # the table's meta, the invite's token and the key shares live in the store
        assert stat.S_IMODE((tmp_path / "store.sqlite").stat().st_mode) == 0o600
    finally:
        host.kill()
        host.wait()
    store = TableStore(tmp_path, bytes.fromhex(table.name))
    seats = tuple(SeatInfo(n, Identity.generate().public_key) for n in "ab")
    config = TableConfig(store.table_id, make_config("tuppen", 2, {}), seats)
    store.open_transcript(config)
    store.close()
    assert stat.S_IMODE(store.transcript_path.stat().st_mode) == 0o600
