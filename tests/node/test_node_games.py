"""Complete games between separate OS processes over loopback TCP, direct and via a relay."""

from __future__ import annotations

import pytest
from node_cluster import Cluster

GAMES = [
    ("tuppen", 2, []),
    ("limit-tuppen", 3, ["hands=2"]),
    ("no-limit-tuppen", 2, ["hands=2"]),
    ("pot-limit-tuppen", 2, ["hands=2"]),
    ("pottuppen", 3, ["hands=2"]),
    ("belote", 4, ["target=100"]),
]


def play(cluster: Cluster, game: str, seats: int, rules: list[str], relay: bool) -> None:
    port = cluster.relay() if relay else None
    cluster.host(game, seats, rules, relay=port)
    for seat in range(1, seats):
        cluster.join(seat)
    names = [f"seat{s}" for s in range(seats)]
    codes = cluster.wait(names, 240)
    assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tail()}"
    cluster.check_identical(list(range(seats)))
    if game == "belote":
        assert "verified: complete game" in cluster.audit_cli(seats - 1)


@pytest.mark.parametrize(("game", "seats", "rules"), GAMES, ids=[g[0] for g in GAMES])
def test_direct_game(cluster: Cluster, game: str, seats: int, rules: list[str]) -> None:
    play(cluster, game, seats, rules, relay=False)


@pytest.mark.parametrize(("game", "seats", "rules"), GAMES, ids=[g[0] for g in GAMES])
def test_relay_game(cluster: Cluster, game: str, seats: int, rules: list[str]) -> None:
    play(cluster, game, seats, rules, relay=True)


def test_a_human_seat_plays_from_the_terminal(cluster: Cluster) -> None:
    """Without --bot, a joiner reads its moves as numbers from standard input."""
    cluster.host("limit-tuppen", 2, ["hands=2"])
    cluster.spawn(
        "seat1",
        [
            "join",
            "--invite-file",  # stdin carries the moves; the code holds the token: not in argv
            str(cluster.root / "invite"),
            "--home",
            str(cluster.homes[1]),
            "--name",
            "human",
            "--linger",
            "3",
        ],
        stdin=b"1\n" * 500,
    )
    codes = cluster.wait(["seat0", "seat1"], 240)
    assert codes == {"seat0": 0, "seat1": 0}, cluster.tail()
    cluster.check_identical([0, 1])
    assert "your move (a number from 1 to" in cluster.logs["seat1#0"].read_text()
