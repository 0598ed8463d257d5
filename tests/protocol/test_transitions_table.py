"""The phase table (protocol/table/steps.py) is what the machine executes (issue 23): a frame of
a kind the table does not list for the phase is refused as the author's protocol error, for
every (phase, kind) pair, and the kinds it lists get past that check.

A real Tuppen game (with a reveal) is played in memory; for each phase an auditor's machine is
rebuilt from the transcript up to a head in that phase, and a frame of each kind, signed by a
seat of the table at that head, is fed to it. Bodies are real bodies of each kind (from the
message schema test's frames): the kind is judged before the body."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest
from schema_frames import game_frames, hand_signed_frames

from dealerless.client.protocol_sim import ProtocolGame, run_game, start_game
from dealerless.protocol.messages import decode_message, sign_message
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table.events import Violation
from dealerless.protocol.table.kinds import NEXT_CONFIG, SIDE_KINDS, TABLE_REGISTRY
from dealerless.protocol.table.machine import TableMachine
from dealerless.protocol.table.steps import STEP_BY_PHASE, Phase

# Side messages (votes, requests, chat) and the next segment's configuration are no chain
# elements: the machine routes them before it looks at the phase (spec/protocol.md §2, §9).
CHAIN_KINDS = sorted(set(TABLE_REGISTRY._kinds) - SIDE_KINDS - {NEXT_CONFIG})
TRIES = 20


@cache
def _bodies() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for frame in (*game_frames("tuppen"), *hand_signed_frames()):
        message = decode_message(frame, registry=TABLE_REGISTRY)
        out.setdefault(message.kind, dict(message.body))
    return out


@cache
def _game() -> tuple[ProtocolGame, dict[Phase, int]]:
    """A played game and, per phase, a transcript length at which an auditor is in it."""
    for seed in range(TRIES):
        rng = random.Random(seed)
        sim = start_game(make_config("tuppen", 3, {}), rng)
        run_game(sim, rng)
        records = sim.machines[0].records
        at: dict[Phase, int] = {}
        auditor = TableMachine.confirm(sim.table, [])
        for n, frame in enumerate([*records, None]):
            rnd = auditor.this_hand.round
            if auditor.phase not in at and (rnd is None or not rnd.frames):
                at[auditor.phase] = n
            if frame is not None:
                auditor.receive(frame, 0.0)
        if set(at) == set(Phase):
            return sim, at
    raise AssertionError(f"no game in {TRIES} seeds reached every phase")


def _feed(phase: Phase, kind: str) -> list[str]:
    """The reasons the auditor gives for a frame of ``kind`` at a head in ``phase``."""
    sim, at = _game()
    machine = TableMachine.confirm(sim.table, sim.machines[0].records[: at[phase]])
    assert machine.phase is phase
    seat = machine.arbiter() or 0
    frame = sign_message(
        sim.keys[seat],
        table_id=sim.table.table_id,
        hand=machine.hand,
        seq=machine.seq,
        prev=machine.head,
        seat=seat,
        kind=kind,
        body=_bodies()[kind],
        registry=TABLE_REGISTRY,
    ).frame
    events = machine.receive(frame, 0.0)
    return [e.reason for e in events if isinstance(e, Violation) and e.culprit == seat]


def _pairs(allowed: bool) -> list[tuple[Phase, str]]:
    out = []
    for phase in Phase:
        step = STEP_BY_PHASE.get(phase)
        listed = step.kinds if step is not None else ()
        out += [(phase, kind) for kind in CHAIN_KINDS if (kind in listed) == allowed]
    return out


@pytest.mark.parametrize(("phase", "kind"), _pairs(allowed=False))
def test_a_kind_the_table_does_not_list_for_the_phase_is_refused(phase: Phase, kind: str) -> None:
    assert _feed(phase, kind) == [f"{kind!r} is not allowed in the {phase} phase"]


@pytest.mark.parametrize(("phase", "kind"), _pairs(allowed=True))
def test_a_kind_the_table_lists_gets_past_the_phase_check(phase: Phase, kind: str) -> None:
    # the reused body may be wrong here (another table's deck), but not for its kind
    assert not [r for r in _feed(phase, kind) if "is not allowed in the" in r]


def test_every_chain_kind_and_phase_is_covered() -> None:
    assert len(_pairs(True)) + len(_pairs(False)) == len(Phase) * len(CHAIN_KINDS)
    assert {k for s in STEP_BY_PHASE.values() for k in s.kinds} <= set(CHAIN_KINDS)
