"""Games between node processes over real Nostr relays (a test helper)."""

from __future__ import annotations

import subprocess

from node_cluster import Cluster, wait_for

from dealerless.node.invite import Invite


def host_on_nostr(
    cluster: Cluster,
    game: str,
    seats: int,
    urls: list[str],
    *,
    rules: tuple[str, ...] = (),
    extra: tuple[str, ...] = (),
    linger: float = 10.0,
) -> None:
    """``dealerless host --game G --seats N --bot --nostr URL,... --invite-file F``."""
    home = cluster.root / "seat0"
    cluster.homes = [home] + [cluster.root / f"seat{i}" for i in range(1, seats)]
    invite_file = cluster.root / "invite"
    args = [
        "host",
        "--home",
        str(home),
        "--game",
        game,
        "--seats",
        str(seats),
        "--bot",
        "--name",
        "seat0",
        "--nostr",
        ",".join(urls),
        "--invite-file",
        str(invite_file),
        "--linger",
        str(linger),
        *extra,
    ]
    for rule in rules:
        args += ["--rule", rule]
    cluster.spawn("seat0", args)
    wait_for(invite_file.exists, 30, "the invite", [cluster.procs["seat0"]])
    cluster.invite_code = invite_file.read_text().strip()
    cluster.invite = Invite.decode(cluster.invite_code)


CASH = ("mode=cash", "max_buy_in=10")


def three_cash_seats(
    cluster: Cluster, url: str, hands: int, *, watcher: int = 1, step_timeout: int = 3
) -> list[subprocess.Popen[bytes]]:
    """Limit Tuppen for cash, 3 bot seats on one relay, short steps: host, two joins; returns
    their processes once seat ``watcher`` says hand 2 starts."""
    host_on_nostr(
        cluster,
        "limit-tuppen",
        3,
        [url],
        rules=(*CASH, f"hands={hands}"),
        extra=("--step-timeout", str(step_timeout)),
        linger=5,
    )
    cluster.join_with(1)
    cluster.join_with(2)
    procs = list(cluster.procs.values())
    wait_for(lambda: cluster.said(watcher, "hand 2 starts"), 120, "hand 2", procs)
    return procs


def play_all(cluster: Cluster, seats: int, timeout: float = 300) -> None:
    for seat in range(1, seats):
        cluster.join(seat)
    names = [f"seat{s}" for s in range(seats)]
    codes = cluster.wait(names, timeout)
    assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tail()}"
