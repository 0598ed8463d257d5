"""In-memory tables whose seats change between hands (real keys, deck and signatures)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from dealerless.client.protocol_sim import Bus, ProtocolGame, run_game, start_game
from dealerless.protocol.messages import IdentityKey
from dealerless.protocol.rules.base import GameConfig
from dealerless.protocol.table import SeatInfo, TableConfig, TableMachine
from dealerless.protocol.table.segments import (
    Newcomer,
    SeatPlan,
    open_next_config,
    sign_next_config,
)


@dataclass
class ChainedTable:
    """Every segment's observer transcript, joined the way a node stores it."""

    first: TableConfig
    records: list[bytes] = field(default_factory=list)
    configs: list[TableConfig] = field(default_factory=list)
    sims: list[ProtocolGame] = field(default_factory=list)
    keys: dict[bytes, IdentityKey] = field(default_factory=dict)


def play_segment(sim: ProtocolGame, rng: random.Random, wishes: dict[int, str]) -> None:
    for seat, change in wishes.items():
        sim.machines[seat].want_change(change)
    run_game(sim, rng)


def next_segment(
    table: ChainedTable,
    sim: ProtocolGame,
    rng: random.Random,
    newcomers: Sequence[tuple[str, int]] = (),
    returning: Sequence[bytes] = (),
) -> ProtocolGame:
    """The next host signs the next configuration; every seat that stays opens it; the new
    segment starts among exactly its seats."""
    plan = SeatPlan.of(sim.machines[0])
    assert plan.host is not None
    host_seat = sim.table.seat_of(plan.host)
    assert host_seat is not None
    joining = []
    for name, buy_in in newcomers:
        key = IdentityKey.generate()
        table.keys[key.peer_id.raw] = key
        joining.append(Newcomer(SeatInfo(name, key.peer_id.raw), buy_in))
    config = plan.next_config(joining, returning)
    frame = sign_next_config(sim.keys[host_seat], sim.machines[host_seat], config)
    for seat in plan.stays:
        assert open_next_config(sim.machines[seat], frame) == config
    table.records.extend(sim.machines[0].records)
    table.records.append(frame)
    table.configs.append(config)
    keys = [table.keys[s.key] for s in config.seats]
    machines = [TableMachine(config, k, now=0.0) for k in keys]
    following = ProtocolGame(config, keys, machines, Bus(config.players, rng), [[] for _ in keys])
    for seat in range(config.players):
        following.flush(seat)
    table.sims.append(following)
    return following


def start(game: GameConfig, rng: random.Random) -> tuple[ChainedTable, ProtocolGame]:
    sim = start_game(game, rng)
    table = ChainedTable(sim.table, configs=[sim.table])
    table.keys = {k.peer_id.raw: k for k in sim.keys}
    return table, sim


def finish(table: ChainedTable, sim: ProtocolGame) -> None:
    """Append the records of the segment played last (next_segment appends the others')."""
    table.records.extend(sim.machines[0].records)
