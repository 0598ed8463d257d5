"""A host that signs another configuration than its invite names (a changed game, house rule
or step timeout, or a step timeout under the joiner's floor): the joiner, a real process,
refuses it, says what differs, signs nothing and exits 1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from dealerless.client.bots.driver import BotDriver
from dealerless.node.app import host_table
from dealerless.node.identity import Identity
from dealerless.node.options import NodeOptions
from dealerless.node.seat import SeatNode
from dealerless.node.store import TableMeta, TableStore
from dealerless.protocol.rules.registry import make_config

CLI = [sys.executable, "-m", "dealerless.client.cli"]
INVITED = make_config("tuppen", 2, {})

CHANGES: dict[str, tuple[dict[str, Any], str, float]] = {
    "game": ({"game": make_config("pottuppen", 2, {})}, "it is pottuppen", 0.0),
    "rules": ({"game": make_config("tuppen", 2, {"poverty": False})}, "house rules differ", 0.0),
    "timeout": ({"step_timeout_ms": 100}, "step timeout is 100 ms", 0.0),
}


def _changed(change: dict[str, Any]) -> Any:
    def make(*args: Any, **kwargs: Any) -> SeatNode:
        node = SeatNode(*args, **kwargs)
        if "game" in change:
            node.handshake.game = change["game"]
        if "step_timeout_ms" in change:
            node.meta.step_timeout_ms = change["step_timeout_ms"]
        return node

    return make


def _join(tmp: Path, code: str, floor: float) -> subprocess.CompletedProcess[str]:
    args = [*CLI, "join", "-", "--bot", "--home", str(tmp / "joiner"), "--name", "j"]
    args += ["--min-step-timeout", str(floor)]
    return subprocess.run(
        args, input=code + "\n", capture_output=True, text=True, timeout=60, check=False
    )


def _play(tmp: Path, change: dict[str, Any], floor: float, timeout_ms: int) -> tuple[Any, str]:
    result: list[subprocess.CompletedProcess[str]] = []

    async def main() -> None:
        ready = trio.Event()
        codes: list[str] = []

        def on_ready(meta: TableMeta) -> None:
            codes.append(meta.invite)
            ready.set()

        async with trio.open_nursery() as nursery:

            async def host() -> None:
                await host_table(
                    Identity.generate(),
                    tmp / "host",
                    INVITED,
                    name="h",
                    bot=True,
                    bot_driver=BotDriver,
                    step_timeout_ms=timeout_ms,
                    say=lambda _s: None,
                    options=NodeOptions(linger=1.0),
                    on_ready=on_ready,
                    make_node=_changed(change),
                )

            nursery.start_soon(host)
            await ready.wait()
            result.append(await trio.to_thread.run_sync(_join, tmp, codes[0], floor))
            nursery.cancel_scope.cancel()

    trio.run(main)
    return result[0], result[0].stderr


@pytest.mark.parametrize("what", sorted(CHANGES))
def test_a_joiner_refuses_a_changed_configuration(tmp_path: Path, what: str) -> None:
    change, message, floor = CHANGES[what]
    joined, err = _play(tmp_path, change, floor, 60_000)
    assert joined.returncode == 1, err
    assert "refused the host's table configuration" in err and message in err, err
    _signed_nothing(tmp_path)


def test_a_joiner_refuses_a_step_timeout_below_its_floor(tmp_path: Path) -> None:
    # The invite itself names 2 s: refused before connecting, with the option that lowers it.
    joined, err = _play(tmp_path, {}, 10.0, 2000)
    assert joined.returncode == 1 and "below the floor" in err and "--min-step-timeout" in err
    _signed_nothing(tmp_path)
    # With the floor lowered (a bot table) the same invite is played.
    joined, err = _play(tmp_path / "again", {}, 1.0, 2000)
    assert joined.returncode == 0, err


def _signed_nothing(tmp: Path) -> None:
    tables = list((tmp / "joiner" / "tables").glob("*")) if (tmp / "joiner").exists() else []
    for table in tables:
        store = TableStore(tmp / "joiner", bytes.fromhex(table.name))
        assert store.load_config() is None  # no configuration accepted
        assert not store.stored_records() if store.transcript_path.exists() else True
