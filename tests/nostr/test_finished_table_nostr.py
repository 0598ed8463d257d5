"""Joining the invite of a table whose game is over (issue 25, item 5): the joiner hears from
the relays that the table is finished (its host's signed ``closed``, stored with the table's
frames) and says so at once, instead of waiting for a host that is gone."""

from __future__ import annotations

from collections.abc import Callable

from node_cluster import Cluster, cluster  # noqa: F401 - the fixture
from nostr_cluster import host_on_nostr, play_all
from nostr_relay_process import RelayProcess

Start = Callable[..., RelayProcess]


def test_a_joiner_of_a_finished_table_is_told_it_is_finished(
    cluster: Cluster,  # noqa: F811
    nostr_relays: Start,
) -> None:
    relay = nostr_relays()
    host_on_nostr(cluster, "limit-tuppen", 2, [relay.url], rules=("hands=2",), linger=2)
    play_all(cluster, 2)  # both seats played the game to its end and exited
    assert cluster.said(0, "game over")
    cluster.join_with(2)
    codes = cluster.wait(["seat2"], 120)
    assert codes["seat2"] == 1, cluster.tail()
    assert cluster.said(2, "this table is finished: its game ended after 2 hands"), cluster.tail()
    assert not cluster.said(2, "nobody at the table answered")  # not the 60 s wait for a host
