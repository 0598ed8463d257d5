"""Whole games between node processes whose only way to each other is real Nostr relays."""

from __future__ import annotations

from collections.abc import Callable

from node_cluster import Cluster, cluster, wait_for  # noqa: F401 - the fixture
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


def test_three_relays_one_killed_mid_game(cluster: Cluster, nostr_relays: Start) -> None:  # noqa: F811
    relays = [nostr_relays() for _ in range(3)]
    cluster.node_flags = ("--relays-only",)  # the relays carry the game when one dies
    host_on_nostr(cluster, "tuppen", 4, [r.url for r in relays])
    for seat in range(1, 4):
        cluster.join(seat)
    wait_for(lambda: cluster.count(0) > 40, 120, "the game under way", list(cluster.procs.values()))
    relays[1].kill()  # SIGKILL, mid-hand
    codes = cluster.wait([f"seat{s}" for s in range(4)], 300)
    assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tail()}"
    cluster.check_identical([0, 1, 2, 3])
    assert "verified: complete game" in cluster.audit_cli(1)


def test_a_strict_relay_that_refuses_big_events_and_rate_limits(
    cluster: Cluster,  # noqa: F811
    nostr_relays: Start,
) -> None:
    """The only relay takes event contents of at most 4096 characters and 25 events per second
    from an address (both seats share 127.0.0.1): the game completes, the big frames cut
    smaller after the relay's refusal, and the seats' own pace keeps them under its rate.
    Three hands of Limit (a classic game to 15 points took 150 s of CI's 25 minutes): every
    hand's setup has the big frames, and from the second on they are prepared during play."""
    relay = nostr_relays(max_event_size=4096, event_rate="25/s")
    cluster.node_flags = ("--relays-only",)  # every frame meets the relay's limits
    host_on_nostr(cluster, "limit-tuppen", 2, [relay.url], rules=("hands=3",))
    play_all(cluster, 2, timeout=400)
    cluster.check_identical([0, 1])
    log = relay.log_text()
    assert "280 characters should be enough" in log  # it did refuse a big event


def test_a_killed_seat_resumes_over_nostr(cluster: Cluster, nostr_relays: Start) -> None:  # noqa: F811
    """A joiner SIGKILLed mid-game comes back (`resume`, with a new Nostr key) and the table
    finishes: it fetches the frames it missed from the relay and the rest by catch-up. Then
    the host is killed and resumed too."""
    relay = nostr_relays()
    host_on_nostr(cluster, "limit-tuppen", 3, [relay.url], rules=("hands=3",))
    for seat in range(1, 3):
        cluster.join(seat)
    wait_for(lambda: cluster.count(2) >= 20, 120, "seat2 at record 20", cluster.procs.values())
    cluster.kill("seat2")
    joiner_killed_at = cluster.count(2)
    cluster.resume(2)
    target = joiner_killed_at + 12  # the host, a few steps further on, still mid-game
    wait_for(lambda: cluster.count(0) >= target, 180, "seat0 further on", cluster.procs.values())
    cluster.kill("seat0")
    host_killed_at = cluster.count(0)
    cluster.resume(0)
    codes = cluster.wait([f"seat{s}" for s in range(3)], 300)
    assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tail()}"
    audit = cluster.check_identical([0, 1, 2])
    assert joiner_killed_at < host_killed_at < len(audit.records)  # both died mid-game
    assert "resumed from" in cluster.logs["seat2#1"].read_text()
