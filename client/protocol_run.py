"""``dealerless simulate`` through the full table protocol, writing transcripts."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dealerless.client.protocol_sim import ProtocolSimError, run_game, start_game
from dealerless.protocol.rules.base import GameConfig
from dealerless.protocol.transcript import TranscriptWriter


class DivergedError(ProtocolSimError):
    """Honest peers ended a game with different transcripts or state."""


def simulate_game(
    config: GameConfig,
    seed: int,
    transcript_dir: Path | None,
    number: int,
    lineup: Sequence[str] | None = None,
) -> dict[str, Any]:
    rng = random.Random(seed)  # noqa: S311 - bot choices and delivery order only
    sim = start_game(config, rng, shuffle=True)
    run_game(sim, rng, lineup=lineup)
    first = sim.machines[0]
    for seat, machine in enumerate(sim.machines[1:], 1):
        if machine.records != first.records or machine.state_hash() != first.state_hash():
            raise DivergedError(f"seat {seat} ended with a different transcript")
    outcome = first.engine.outcome
    assert outcome is not None
    doc: dict[str, Any] = {
        "game": number,
        "seed": seed,
        "hands": first.hand,
        "standing": list(outcome.standings),
        "winners": list(outcome.winners),
        "records": len(first.records),
        "violations": len(sim.violations()),
        "state_hash": first.state_hash().hex(),
    }
    if transcript_dir is not None:
        path = transcript_dir / f"game-{number:04d}-{sim.table.table_id.hex()[:8]}.dlt"
        with TranscriptWriter.create(path, sim.table.to_wire(), fsync=False) as writer:
            for frame in first.records:
                writer.append(frame)
        doc["transcript"] = str(path)
    return doc
