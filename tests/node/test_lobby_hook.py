"""The node tells its driver who is at the table before the game starts (``on_lobby``): the
host on every join or leave, each joiner on every lobby list the host sends. The terminal client's
lobby is built from these views (client/tui/node_session.py), not from the node's messages."""

from __future__ import annotations

from pathlib import Path

from dealerless.client.bots.driver import BotDriver
from dealerless.node.drivers import LobbyView
from dealerless.node.hostile import run_table
from dealerless.node.identity import format_fingerprint
from dealerless.protocol.rules.registry import make_config


class Recording(BotDriver):
    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.views: list[LobbyView] = []

    def on_lobby(self, view: LobbyView) -> None:
        self.views.append(view)


def test_host_and_joiners_see_the_lobby_fill_up(tmp_path: Path) -> None:
    drivers: dict[int, Recording] = {}

    def driver(i: int) -> Recording:
        drivers[i] = Recording(i)
        return drivers[i]

    run = run_table(
        tmp_path,
        make_config("limit-tuppen", 3, {"hands": 1}),
        None,
        bot=BotDriver,
        honest_driver=driver,
    )
    assert all(code == 0 for code in run.codes.values()), run.log()
    prints = tuple(format_fingerprint((home / "key").read_bytes()) for home in run.homes)
    host = drivers[0].views
    # Every seat is shown with its key's fingerprint, so a person can check who sits there.
    assert host[-1] == LobbyView(("n0", "n1", "n2"), 0, prints)
    assert [v.need for v in host] == [1, 0]  # one view per join, the last one fills the table
    # the first joiner sees itself at the table, one seat still free; when the last seat is
    # taken the host sends the signed configuration instead of another lobby list
    assert drivers[1].views and set(drivers[1].views) == {LobbyView(("n0", "n1"), 1, prints[:2])}
    assert drivers[2].views == []
