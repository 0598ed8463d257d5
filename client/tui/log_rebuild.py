"""The move log of a table the client did not watch from the start (``dealerless resume``, a
node back from a crash): rebuilt from the engine's own history of applied steps, on a fresh
engine, so no proof is checked twice and it takes no time worth mentioning.

The history holds what this seat saw (its own cards, public moves, results); the events made
from it are the ones the screen shows: hands starting, moves with their tricks, hands ending.
Anything unexpected gives an empty log (the table screen then starts empty, as it did before),
never an error on the screen.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dealerless.protocol.rules.base import Action, Engine
from dealerless.protocol.rules.registry import new_engine
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.events import ActionApplied, HandEnded, HandStarted, TableEvent

__all__ = ["rebuild_log"]


def _kind(entry: Any) -> str:
    if isinstance(entry, Action):
        return "action"
    kind = getattr(entry, "kind", None)
    if isinstance(kind, str):
        return kind
    name = type(entry).__name__
    return {"HandStart": "start", "ChanceRecord": "chance", "AbortRecord": "abort"}.get(name, "")


def _replay(engine: Engine, history: Sequence[Any]) -> list[TableEvent]:
    events: list[TableEvent] = []
    results = 0
    for entry in history:
        kind = _kind(entry)
        if kind == "start":
            engine.start_hand()
            events.append(HandStarted(hand=engine.hand_number, dealer=engine.dealer))
        elif kind == "chance":
            engine.apply_chance(list(entry.cards))
        elif kind == "action":
            action = entry if isinstance(entry, Action) else entry.action
            rules_events = engine.apply(action)
            events.append(ActionApplied(action=action, rules_events=tuple(rules_events)))
        elif kind == "abort":
            engine.abort_hand(entry.culprit, entry.reason)
        else:
            break  # an agreed end of the game: nothing more to show
        while len(engine.results) > results:
            ended = engine.results[results]
            events.append(
                HandEnded(result=ended, aborted=kind == "abort", scores=tuple(engine.scores()))
            )
            results += 1
    return events


def rebuild_log(machine: TableMachine) -> list[TableEvent]:
    """The events of everything ``machine``'s engine has applied so far."""
    engine = machine.engine
    history = list(getattr(engine, "history", None) or [])
    if not history:
        return []
    # The first dealer was drawn from hand 1's joint key, which a resumed machine no longer
    # holds: the one whose replay ends where the engine is (every seat is tried; no crypto).
    for dealer in range(engine.config.players):
        trial = new_engine(engine.config, dealer)
        try:
            events = _replay(trial, history)
        except Exception:  # noqa: S112 - a wrong first dealer fails somewhere: the next one
            continue
        same = trial.public_digest() == engine.public_digest()
        if same or (trial.dealer == engine.dealer and trial.scores() == engine.scores()):
            return events
    return []  # a log we cannot rebuild is only a log we do not show
