"""``dealerless host --bots N`` (issue 25, item 1: the start screen's host form fills seats with
bots): N bot node processes join the table with its invite once it is ready; the other seats
are for people. Real processes over loopback."""

from __future__ import annotations

import subprocess
import sys

from node_cluster import Cluster, cluster  # noqa: F401 - the fixture

from dealerless.node.store import list_games


def test_bots_fill_the_seats_people_do_not(cluster: Cluster) -> None:  # noqa: F811
    cluster.host("limit-tuppen", 3, ["hands=2"], extra=("--bots", "1", "--level", "basic"))
    cluster.join(2)  # the one person beside the host; bot1 took the other seat
    codes = cluster.wait(["seat0", "seat2"], 240)
    assert codes == {"seat0": 0, "seat2": 0}, cluster.tail()
    final = cluster.check_identical([0, 2])
    names = sorted(s.name for s in final.config.seats)
    assert names == ["bot1", "seat0", "seat2"], names
    assert final.engine.outcome is not None
    (game,) = list_games(cluster.homes[0])
    assert game.verified, game
    # the bot's copy of the table is gone with the game's end; its key stays for the next
    assert not (cluster.homes[0] / "bots" / "tables").exists() or not any(
        (cluster.homes[0] / "bots" / "tables").iterdir()
    )
    assert (cluster.homes[0] / "bots" / "basic-1").is_dir()


def test_more_bots_than_free_seats_is_refused_before_anything_starts(cluster: Cluster) -> None:  # noqa: F811
    for bots in ("2", "-1"):
        done = subprocess.run(
            [sys.executable, "-m", "dealerless", "host", "--game", "tuppen", "--seats", "2",
             "--bots", bots, "--bot", "--lan-only", "--home", str(cluster.root / "h")],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert "--bots must be 0..1 (the seats but ours)" in done.stderr
