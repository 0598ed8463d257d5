"""The commands' argument errors, and the hub's limits."""

from __future__ import annotations

import secrets
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from dealerless.node.hub import Hub, HubLimits, _Bucket, bound_port
from dealerless.node.identity import Identity
from dealerless.node.links import LinkError, open_remote
from dealerless.node.transport import TransportConfig

CLI = [sys.executable, "-m", "dealerless.client.cli"]


def run_cli(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args, "--home", str(home)], capture_output=True, text=True, timeout=60, check=False
    )


def test_join_with_a_damaged_code_says_so(tmp_path: Path) -> None:
    result = run_cli("join", "dl1:AAAAAAAAAAAAAAAAAAAA", home=tmp_path)
    assert result.returncode == 2
    assert "damaged" in result.stderr
    result = run_cli("join", "hello", home=tmp_path)
    assert result.returncode == 2 and "starts with 'dl1:'" in result.stderr


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

            async def connect(table: bytes, seats: int | None) -> object:
                return await open_remote(
                    "127.0.0.1", port, Identity.generate(), None, table, seats, config=small
                )

            t1 = secrets.token_bytes(16)
            host, _ = await connect(t1, 2)  # type: ignore[misc]
            with pytest.raises(LinkError, match="too many tables"):
                await connect(secrets.token_bytes(16), 2)
            joiner = await connect(t1, None)  # keep it open (and referenced)
            with pytest.raises(LinkError, match="full"):
                await connect(t1, None)
            with pytest.raises(LinkError, match="no such table"):
                await connect(secrets.token_bytes(16), None)
            # A frame over the limit: the sender's own channel refuses it before sending.
            with pytest.raises(Exception, match="exceeds"):
                await host.send({"t": "send", "data": b"x" * 5000})  # type: ignore[attr-defined]
            assert joiner is not None
            nursery.cancel_scope.cancel()

    trio.run(main)
