"""Whole games between node processes whose only way to each other is real Nostr relays."""

from __future__ import annotations

from collections.abc import Callable

from node_cluster import Cluster, cluster  # noqa: F401 - the fixture
from nostr_cluster import host_on_nostr, play_all
from nostr_relay_process import RelayProcess

Start = Callable[..., RelayProcess]


def test_a_tuppen_game_over_one_relay(cluster: Cluster, nostr_relays: Start) -> None:  # noqa: F811
    relay = nostr_relays()
    host_on_nostr(cluster, "tuppen", 4, [relay.url])
    assert cluster.invite is not None and not cluster.invite.address  # Nostr is the only way
    play_all(cluster, 4)
    cluster.check_identical([0, 1, 2, 3])
    for seat in range(4):
        transcript = cluster.store(seat).transcript_path.read_bytes()
        assert transcript == cluster.store(0).transcript_path.read_bytes()  # byte-identical
    assert "verified: complete game" in cluster.audit_cli(3)
