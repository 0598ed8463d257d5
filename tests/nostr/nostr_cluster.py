"""Games between node processes over real Nostr relays (a test helper)."""

from __future__ import annotations

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


def play_all(cluster: Cluster, seats: int, timeout: float = 300) -> None:
    for seat in range(1, seats):
        cluster.join(seat)
    names = [f"seat{s}" for s in range(seats)]
    codes = cluster.wait(names, timeout)
    assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tail()}"
