"""How long a joiner waits, over real nodes and sockets in one process:

- the host's signed ``config`` is lost on the way to the last joiner: the joiner asks again as
  soon as it hears the table run (a seat's ``have`` or frame), not at the quiet pace of an
  admitted seat, so the others do not time it out at the configuration step;
- a joiner in a lobby whose host went away gives up after ``first_join_wait`` and says what it
  tried, instead of reconnecting for ever."""

from __future__ import annotations

from pathlib import Path

import trio

from dealerless.client.bots.driver import BotDriver
from dealerless.node.app import host_table, join_table
from dealerless.node.hostile import run_table
from dealerless.node.hub import Hub, Member
from dealerless.node.identity import Identity
from dealerless.node.invite import Invite
from dealerless.node.notices import english
from dealerless.node.options import NodeOptions
from dealerless.node.store import TableMeta
from dealerless.node.wire import WireError, decode
from dealerless.protocol.rules.registry import make_config


def _signed_kind(out: bytes) -> str | None:
    try:
        envelope = decode(out)
        payload = decode(envelope["data"])
        return str(decode(payload["b"])["t"]) if payload.get("t") == "sig" else None
    except (WireError, KeyError, TypeError):
        return None


class ConfigLosingHub(Hub):
    """Forwards everything but the first ``config`` message of every joiner."""

    def __init__(self) -> None:
        super().__init__(say=lambda _s: None)
        self.lost: set[bytes] = set()

    def _relay(self, sender: Member, target: Member, out: bytes) -> None:
        if target.key not in self.lost and _signed_kind(out) == "config":
            self.lost.add(target.key)
            return
        super()._relay(sender, target, out)


def test_a_lost_configuration_is_asked_for_again_at_once(tmp_path: Path) -> None:
    hub = ConfigLosingHub()
    game = make_config("limit-tuppen", 3, {"hands": 1})
    # An admitted joiner would say hello again only after quiet_every (here: never within the
    # game): without the prompt ask the seats would time it out of the configuration.
    options = NodeOptions(linger=1.5, stall=0.5, sync_wait=1.0, quiet_every=600.0)
    run = run_table(
        tmp_path, game, None, bot=BotDriver, hub=hub, step_timeout_ms=20_000, options=options
    )
    assert len(hub.lost) == 2, "the hub lost no configuration: the test tests nothing"
    assert all(code == 0 for code in run.codes.values()), run.log()
    for seat in range(3):
        assert not any("timed out" in line for line in run.lines[seat]), run.log()
        assert any("game over" in line for line in run.lines[seat]), run.log()


def test_a_joiner_gives_up_a_lobby_whose_host_went_away(tmp_path: Path) -> None:
    said: list[str] = []
    code: list[int] = []

    async def main() -> None:
        joined = trio.Event()
        invites: list[str] = []

        def on_ready(meta: TableMeta) -> None:
            invites.append(meta.invite)

        def host_said(text: str) -> None:
            if "joined (2/3)" in text:
                joined.set()

        async def joiner() -> None:
            while not invites:
                await trio.sleep(0.05)
            code.append(
                await join_table(
                    Identity.generate(),
                    tmp_path / "joiner",
                    Invite.decode(invites[0]),
                    name="j",
                    bot=True,
                    bot_driver=BotDriver,
                    say=lambda n: said.append(english(n)),
                    options=NodeOptions(first_join_wait=3.0),
                )
            )

        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                host_scope = trio.CancelScope()

                async def host() -> None:
                    with host_scope:
                        await host_table(
                            Identity.generate(),
                            tmp_path / "host",
                            make_config("tuppen", 3, {}),
                            name="h",
                            bot=True,
                            bot_driver=BotDriver,
                            say=lambda n: host_said(english(n)),
                            on_ready=on_ready,
                        )

                nursery.start_soon(host)
                nursery.start_soon(joiner)
                await joined.wait()
                host_scope.cancel()  # the host quits while the lobby waits for a third player

    trio.run(main)
    assert code == [1], said
    assert "nothing answered within 3 s" in said[-1], said
    assert "cannot connect" in said[-1], said
