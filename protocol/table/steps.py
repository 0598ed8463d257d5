"""The table protocol's phases and transitions, as data.

The machine reads these tables; spec/protocol.md is generated from them
(``python -m dealerless.protocol.table.steps``), so the document cannot drift from the code.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Phase(StrEnum):
    CONFIG = "config"
    KEY_COMMIT = "key-commit"
    KEY_REVEAL = "key-reveal"
    SHUFFLE = "shuffle"
    SHARES = "shares"
    REVEAL = "reveal"
    PLAY = "play"
    RESULT = "result"
    OVER = "over"


class After(StrEnum):
    """The transition the machine executes once a phase's element is accepted and its round, if
    it has one, is complete (HandCycle._advance looks it up here)."""

    START_HAND = "start-hand"  # the next hand: its key-commit round
    KEY_REVEALS = "key-reveals"  # the key-reveal round
    SHUFFLES = "shuffles"  # the shuffle round (the segment's first hand: draw the dealer first)
    OPEN_SHARED = "open-shared"  # owners decrypt / the turned-up card opens; then ENGINE_NEXT
    ENGINE_NEXT = "engine-next"  # the engine's chance step, the next action or the result round
    END_HAND = "end-hand"  # the next hand, the end of the game or the end of the segment


@dataclass(frozen=True)
class Step:
    phase: Phase
    kinds: tuple[str, ...]  # chain kinds accepted in this phase
    writer: str  # who may extend the chain
    automatic: bool  # the node writes it without asking the player
    then: str  # what follows when the step or round is complete
    after: After  # ... as the machine executes it
    on_timeout: str  # what a certificate of silence does here


STEPS: tuple[Step, ...] = (
    Step(
        Phase.CONFIG,
        ("config-sign",),
        "each seat in seat order",
        True,
        "start hand 1: key-commit",
        After.START_HAND,
        "the table does not start",
    ),
    Step(
        Phase.KEY_COMMIT,
        ("key-commit",),
        "each seat in the hand, all at once (a parallel round)",
        True,
        "key-reveal",
        After.KEY_REVEALS,
        "end the hand for silence: the rules' bounded settlement, no cheat",
    ),
    Step(
        Phase.KEY_REVEAL,
        ("key-reveal",),
        "each seat in the hand, all at once (a parallel round)",
        True,
        "shuffle (the joint key and the initial deck are fixed)",
        After.SHUFFLES,
        "end the hand for silence: the rules' bounded settlement, no cheat",
    ),
    Step(
        Phase.SHUFFLE,
        ("shuffle",),
        "each seat in the hand, in seat order",
        True,
        "the rules engine's first chance step",
        After.ENGINE_NEXT,
        "end the hand for silence: the rules' bounded settlement, no cheat",
    ),
    Step(
        Phase.SHARES,
        ("shares",),
        "each seat with a share due, all at once (a parallel round)",
        True,
        "deal: owners decrypt their cards; turn-up: the card is opened; then the engine goes on",
        After.OPEN_SHARED,
        "end the hand for silence: the rules' bounded settlement, no cheat",
    ),
    Step(
        Phase.REVEAL,
        ("reveal",),
        "the seat whose cards the rules ask to see",
        True,
        "the cards are opened; the engine checks the claim",
        After.ENGINE_NEXT,
        "end the hand for silence: the rules' bounded settlement, no cheat",
    ),
    Step(
        Phase.PLAY,
        ("action", "admit"),
        "the seat the rules engine waits for (the arbiter); it may admit out-of-turn requests",
        False,
        "a chance step (shares/reveal), the next action, or the result round",
        After.ENGINE_NEXT,
        "the engine's timeout action (a fold or pass) if the rules have one, else the hand"
        " ends for silence (bounded settlement, no cheat)",
    ),
    Step(
        Phase.RESULT,
        ("result",),
        "each seat in the hand, all at once (a parallel round)",
        True,
        "the next hand's key-commit, the end of the game, or (a seat asked for a change or was "
        "silent, in a hand-by-hand game) the end of the segment: §9",
        After.END_HAND,
        "the result stands without that signature",
    ),
)

STEP_BY_PHASE: dict[Phase, Step] = {step.phase: step for step in STEPS}

# Rounds whose frames do not depend on each other: every seat writes at the round's head at once
# and the round is one chain element (spec/protocol.md §2, "Parallel rounds").
PARALLEL_PHASES = frozenset({Phase.KEY_COMMIT, Phase.KEY_REVEAL, Phase.SHARES, Phase.RESULT})
# The phases of a prepared hand's setup (P-53), signed before the hand's start is known, and
# those in which a hand's own setup is not done (the configuration round's too).
PREPARED_PHASES = frozenset({Phase.KEY_COMMIT, Phase.KEY_REVEAL, Phase.SHUFFLE})
SETUP_PHASES = PREPARED_PHASES | {Phase.CONFIG}

ROUND_PHASES = frozenset(
    {Phase.CONFIG, Phase.KEY_COMMIT, Phase.KEY_REVEAL, Phase.SHUFFLE, Phase.SHARES, Phase.RESULT}
)


def transition_table_markdown() -> str:
    lines = [
        "| phase | chain kinds | who writes | automatic | then | transition | on silence |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for s in STEPS:
        lines.append(
            f"| {s.phase.value} | {', '.join(s.kinds)} | {s.writer} | "
            f"{'yes' if s.automatic else 'no (a player decides)'} | {s.then} | `{s.after}` | "
            f"{s.on_timeout} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(transition_table_markdown())
