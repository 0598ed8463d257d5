"""In-memory tables whose seats change between hands (real keys, deck and signatures): the next
host's machine starts the next segment, the others follow its ``next-config``, and a newcomer's
machine is rebuilt from the chain it checked from the table's start (as a node's is)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from dealerless.client.protocol_sim import Bus, ProtocolGame, run_game, start_game
from dealerless.protocol.messages import IdentityKey
from dealerless.protocol.rules.base import GameConfig
from dealerless.protocol.table import SeatInfo, TableMachine
from dealerless.protocol.table.events import SegmentStarted
from dealerless.protocol.table.joining import join_table
from dealerless.protocol.table.segments import Newcomer


def start(game: GameConfig, rng: random.Random) -> ProtocolGame:
    return start_game(game, rng)


def play_segment(sim: ProtocolGame, rng: random.Random, wishes: dict[int, str]) -> None:
    for seat, change in wishes.items():
        sim.machines[seat].want_change(change)
    run_game(sim, rng)


def next_segment(
    sim: ProtocolGame,
    rng: random.Random,
    newcomers: Sequence[tuple[str, int]] = (),
    returning: Sequence[tuple[bytes, IdentityKey]] = (),
    followers: Sequence[TableMachine] = (),
) -> ProtocolGame:
    """The next host starts the next segment; every seat of the old one gets its frame (the
    ones that stay follow it); the new segment runs among exactly its seats."""
    plan = sim.machines[0].seat_plan()
    assert plan.host is not None
    host_seat = sim.table.seat_of(plan.host)
    assert host_seat is not None
    keys = {k.peer_id.raw: k for k in sim.keys}
    keys.update({key: k for key, k in returning})
    joining = []
    for name, buy_in in newcomers:
        key = IdentityKey.generate()
        keys[key.peer_id.raw] = key
        joining.append(Newcomer(SeatInfo(name, key.peer_id.raw), buy_in))
    host = sim.machines[host_seat]
    config = host.next_segment(joining, [key for key, _ in returning])
    frames = host.take_outgoing()
    for seat, machine in enumerate(sim.machines):
        if seat != host_seat and (seat in plan.stays or machine.seat_change is not None):
            started = [e for e in machine.receive(frames[0], 0.0) if isinstance(e, SegmentStarted)]
            assert started and started[0].config == config
            assert started[0].seated == (seat in plan.stays)
    following = {}  # machines of seats sitting out that follow the table
    for machine in followers:
        assert machine.key is not None
        machine.receive(frames[0], 0.0)
        following[machine.key.peer_id.raw] = machine
    assert config.carry is not None and host.chain_base == 0
    chain = host.records[: config.carry.records]  # through the next-config that seats them
    old = {s.key: n for n, s in enumerate(sim.table.seats)}
    machines = [
        sim.machines[old[s.key]] if s.key in old and old[s.key] in plan.stays
        else following[s.key] if s.key in following
        else join_table(host.segments[0], chain, config, keys[s.key])
        for s in config.seats
    ]  # fmt: skip
    game = ProtocolGame(
        config,
        [keys[s.key] for s in config.seats],
        machines,
        Bus(config.players, rng),
        [[] for _ in config.seats],
    )
    game.bus.broadcast(config.seat_of(plan.host) or 0, frames[1:])
    for seat in range(config.players):
        game.flush(seat)
    return game
