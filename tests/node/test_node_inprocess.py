"""Nodes in one process over loopback TCP: a hub that alters or drops frames is detected and
the game still completes; a joiner with a wrong host key refuses to talk."""

from __future__ import annotations

import dataclasses
import stat
from pathlib import Path
from typing import Any

import trio

from dealerless.client.bots.driver import BotDriver
from dealerless.node.app import _remote_connector, _run_node, host_table, meta_for_invite
from dealerless.node.hub import Hub, Member, bound_port
from dealerless.node.identity import Identity
from dealerless.node.invite import Invite, host_pin
from dealerless.node.links import FatalLinkError, attach_message
from dealerless.node.notices import english
from dealerless.node.options import NodeOptions
from dealerless.node.store import TableMeta, TableStore
from dealerless.node.wire import decode, encode
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import TableMachine


class TamperingHub(Hub):
    """Flips a byte in every 7th table frame it forwards, and drops every 11th."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0
        self.altered = 0
        self.dropped = 0

    def _forward(self, member: Member, message: dict[str, Any]) -> None:
        payload = decode(message["data"])
        if payload["t"] == "f":
            self.count += 1
            if self.count % 11 == 0:
                self.dropped += 1
                return
            if self.count % 7 == 0:
                frame = bytearray(payload["f"])
                frame[len(frame) // 2] ^= 0x01
                payload["f"] = bytes(frame)
                message = {**message, "data": encode(payload)}
                self.altered += 1
        super()._forward(member, message)


def records(home: Path, table_id: bytes) -> list[bytes]:
    return TableStore(home, table_id).stored_records()


def test_tampering_hub_is_detected_and_the_game_completes(tmp_path: Path) -> None:
    game = make_config("limit-tuppen", 3, {"hands": 2})
    hub = TamperingHub()
    ids = [Identity.generate() for _ in range(3)]
    homes = [tmp_path / f"s{i}" for i in range(3)]
    lines: list[str] = []
    codes: dict[int, int] = {}
    options = NodeOptions(linger=3.0, stall=0.5)

    async def main() -> None:
        ready = trio.Event()
        invite: list[Invite] = []

        def on_ready(meta: TableMeta) -> None:
            invite.append(Invite.decode(meta.invite))
            ready.set()

        async def host() -> None:
            codes[0] = await host_table(
                ids[0],
                homes[0],
                game,
                name="h",
                bot=True,
                bot_driver=BotDriver,
                say=lambda n: lines.append(english(n)),
                options=options,
                hub=hub,
                on_ready=on_ready,
            )

        async def join(seat: int) -> None:
            await ready.wait()
            meta = meta_for_invite(invite[0], name=f"j{seat}", bot=True, transcript="")
            codes[seat] = await _run_node(
                ids[seat],
                homes[seat],
                meta,
                game=None,
                driver=None,
                bot_driver=BotDriver,
                say=lambda n: lines.append(english(n)),
                log=None,
                options=options,
            )

        with trio.fail_after(120):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host)
                nursery.start_soon(join, 1)
                nursery.start_soon(join, 2)
        assert invite

    trio.run(main)
    assert hub.altered > 0 and hub.dropped > 0
    assert codes == {0: 0, 1: 0, 2: 0}, "\n".join(lines[-30:])
    assert any("undecodable" in line or "refused a message" in line for line in lines)
    table_id = next(iter((tmp_path / "s0" / "tables").iterdir())).name
    tid = bytes.fromhex(table_id)
    first = records(homes[0], tid)
    assert all(records(h, tid) == first for h in homes[1:])
    config = TableStore(homes[0], tid).load_config()
    assert config is not None
    assert TableMachine.resume(config[0], None, first).over


def test_wrong_host_key_is_refused(tmp_path: Path) -> None:
    game = make_config("limit-tuppen", 2, {"hands": 1})
    host_id, joiner, impostor = Identity.generate(), Identity.generate(), Identity.generate()
    lines: list[str] = []
    codes: dict[str, int] = {}

    async def main() -> None:
        ready = trio.Event()
        invite: list[Invite] = []

        def on_ready(meta: TableMeta) -> None:
            invite.append(Invite.decode(meta.invite))
            ready.set()

        async def host() -> None:
            codes["host"] = await host_table(
                host_id,
                tmp_path / "h",
                game,
                name="h",
                bot=True,
                bot_driver=BotDriver,
                say=lambda _s: None,
                on_ready=on_ready,
            )

        async with trio.open_nursery() as nursery:
            nursery.start_soon(host)
            await ready.wait()
            real = invite[0]
            # The same table, pinned to another key (as if the code named the impostor).
            forged = dataclasses.replace(real, pin=host_pin(impostor.public_key, real.terms))
            meta = meta_for_invite(forged, name="j", bot=True, transcript="")
            with trio.fail_after(30):
                codes["join"] = await _run_node(
                    joiner,
                    tmp_path / "j",
                    meta,
                    game=None,
                    driver=None,
                    bot_driver=BotDriver,
                    say=lambda n: lines.append(english(n)),
                    log=None,
                    options=None,
                )
            nursery.cancel_scope.cancel()

    trio.run(main)
    assert codes["join"] == 1
    assert any("identity mismatch" in line for line in lines), lines


def test_a_relay_is_pinned_on_first_use(tmp_path: Path) -> None:
    """A relay the invite names without a fingerprint is pinned to the key it showed first
    (remembered 0600 per address); another key at that address later is refused."""
    host = Identity.generate()
    game = make_config("tuppen", 2, {})
    port = 0
    lines: list[str] = []

    async def attach(relay_identity: Identity, port: int) -> None:
        hub = Hub()
        async with trio.open_nursery() as nursery:
            listeners = await nursery.start(hub.serve_tcp, "127.0.0.1", port, relay_identity)
            bound = bound_port(listeners)
            invite = Invite.create(host.public_key, game, 60_000, relay=("127.0.0.1", bound))
            meta = meta_for_invite(invite, name="h", bot=True, transcript="")
            meta.role, meta.host_key = "host", host.public_key.hex()
            connector = _remote_connector(
                host,
                tmp_path,
                meta,
                invite,
                attach_message(invite, True),
                lambda n: lines.append(english(n)),
            )
            lines.append(f"port {bound}")
            try:
                link, _ = await connector()
                await link.aclose()
            except FatalLinkError as exc:
                lines.append(f"refused: {exc}")
            finally:
                nursery.cancel_scope.cancel()

    trio.run(attach, Identity.generate(), 0)
    port = int(next(x for x in lines if x.startswith("port")).split()[1])
    assert not any(x.startswith("refused") for x in lines), lines
    pins = tmp_path / "relays.json"
    assert pins.exists() and stat.S_IMODE(pins.stat().st_mode) == 0o600
    assert any("pinned from now on" in line for line in lines)
    trio.run(attach, Identity.generate(), port)  # another relay key at the same address
    assert "identity mismatch" in lines[-1], lines
