"""The end of a seat's part of the table: it lingers (bounded) until every peer holds our last
records, checks the whole transcript as an auditor would (in a worker thread), reports the
cheats it caught and the result, and files the game in the history. A part of
:class:`~dealerless.node.seat.SeatNode`; see spec/node.md §3."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

import trio

from dealerless.node.catch_up import CatchUp
from dealerless.node.notices import Notice, Who, notice
from dealerless.node.seat_changes import away_keys
from dealerless.node.store import TableMeta, TableStore
from dealerless.protocol.rules.base import Outcome
from dealerless.protocol.table import TableConfig, TableMachine
from dealerless.protocol.table.events import LocalProtocolError, Violation

CHEATS_KEPT = 64  # caught cheats are kept (never evicted by later junk); later ones counted


class EndNode(Protocol):
    """What the end uses of its node."""

    say: Callable[[Notice], None]

    @property
    def key(self) -> bytes: ...

    @property
    def machine(self) -> TableMachine | None: ...

    @property
    def config(self) -> TableConfig | None: ...

    @property
    def nursery(self) -> trio.Nursery | None: ...

    def name_of(self, seat: int | None) -> Who: ...

    def emit(self, **fields: Any) -> None: ...

    def sent_total(self) -> int: ...

    def end_checked(self, code: int) -> None: ...


class SeatEnd:
    """It owns the linger's deadline, the checks of the end (a late certificate may move the
    end: each is checked again), and the cheats caught on the way."""

    def __init__(
        self,
        node: EndNode,
        catch_up: CatchUp,
        *,
        store: TableStore,
        meta: TableMeta,
        linger: float,
    ) -> None:
        self.node, self.catch_up = node, catch_up
        self.store, self.meta, self.linger = store, meta, linger
        self.until: float | None = None  # the end of the linger, once it started
        self.generation = 0  # each end of the table we check (a late certificate moves it)
        self.checked = -1  # the last of them whose check is done and reported
        self.cheats: list[Violation] = []
        self.cheats_uncounted = 0

    def caught(self, violation: Violation) -> None:
        """A seat's violation: kept to the end, whatever junk follows (bounded)."""
        if len(self.cheats) < CHEATS_KEPT:
            self.cheats.append(violation)
        else:
            self.cheats_uncounted += 1

    def moved(self) -> None:
        """The end moved (our transcript was cut): check and report it again."""
        self.until = None

    def over(self, machine: TableMachine, now: float) -> bool:
        """We linger after our part of the table: True once the end is checked and every peer
        holds our records, or the linger ran out and no certificate waits."""
        if self.until is None:
            self.until = now + self.linger
            self._check(machine)
        checked = self.checked == self.generation
        settled = now >= self.until and not machine.certificate_waits()
        return checked and (self.peers_caught_up() or settled)

    def peers_caught_up(self) -> bool:
        """Every other seat (and every seat sitting out that told us its count) has told us it
        holds exactly our records. One that holds more ended otherwise (its certificate against
        a late last result, which reaches us and wins): we stay, within the linger time, until
        we hold the same. So does one that holds as many but told us another last record (two
        branches of one length): catch-up serves it the fork and one of us rolls back."""
        machine = self.node.machine
        assert machine is not None
        keys = [s.key for s in machine.config.seats]
        # A seat sitting out that follows the table and told us its count fetches the last
        # records from us too (one that never spoke is not waited for: silence).
        keys += [k for k in away_keys(machine) if k in self.catch_up.peer_counts]
        return all(self.catch_up.holds_ours(k, machine) for k in keys if k != self.node.key)

    def _check(self, machine: TableMachine) -> None:
        """Replay the whole transcript as an auditor would, in a worker thread: it takes
        seconds on a long game, and meanwhile the node keeps hearing the table (a certificate
        against a late last result may still move the end) and the screen stays live. A check
        of an end that moved meanwhile is dropped; the new end is checked again."""
        self.generation += 1
        generation = self.generation
        records, expected = list(machine.records), machine.state_hash()
        config = self.node.config
        assert config is not None
        nursery = self.node.nursery
        if nursery is None:  # no event loop around us: check here
            code = self._finish(machine, _replay_check(config, records, expected))
            self.checked = generation
            self.node.end_checked(code)
            return

        async def check() -> None:
            found = await trio.to_thread.run_sync(_replay_check, config, records, expected)
            if generation == self.generation:
                code = self._finish(machine, found)
                self.checked = generation
                self.node.end_checked(code)

        nursery.start_soon(check)

    def _finish(self, machine: TableMachine, found: tuple[bool, str | None]) -> int:
        """Report the checked end and file the game; returns the node's exit code."""
        say = self.node.say
        verified, failure = found
        if failure is not None:
            say(notice("auditor_failed", failure=str(failure)))
        say(
            notice(
                "transcript",
                records=len(machine.records),
                verified=int(verified),
                violations=len(machine.violations),
            )
        )
        # Unattributable garbage (culprit None: a damaged or misrouted frame, e.g. from a hub)
        # is dropped and fetched again; only a seat's violation spoils the game, and those are
        # kept by the node itself (the machine's own list is bounded and evicts).
        blamed = self.cheats or [v for v in machine.violations if v.culprit is not None]
        if blamed:
            culprits = tuple(sorted({self.node.name_of(v.culprit) for v in blamed}, key=str))
            say(
                notice("cheating", culprits=culprits, count=len(blamed), more=self.cheats_uncounted)
            )
        started = machine.hand >= 1  # hand 0 is the configuration's signatures
        if not started:
            say(notice("never_started"))
        self.meta.finished = True
        self.store.save_meta(self.meta)
        # The game is over: no resume needs the key shares any more (with the transcript they
        # would open every hidden card of the game); the game goes into the history.
        self.store.delete_secrets()
        outcome = machine.engine.outcome
        seating = machine.config  # the last segment's seats: the outcome numbers them
        if outcome is not None:
            text = _result_text(outcome, seating)
        elif machine.seat_change is not None and machine.seat is not None:
            ledger = machine.engine.seat_ledger(machine.seat)
            text = f"left after hand {machine.hand}: " + ", ".join(
                f"{k} {v}" for k, v in sorted(ledger.items())
            )
        else:
            text = "unfinished"
        self.store.record_game(tuple(s.name for s in seating.seats), text, verified and not blamed)
        # cpu: this process's CPU seconds so far (the bench divides by the hands)
        self.node.emit(
            ev="over",
            records=len(machine.records),
            hands=machine.hand,
            sent=self.node.sent_total(),
            cpu=round(time.process_time(), 3),
        )
        return 0 if verified and started and not blamed else 1


def _result_text(outcome: Outcome, config: TableConfig) -> str:
    """``winners: ann, bob; scores 12, 3, 0``: what ``dealerless games`` shows."""
    names = [s.name for s in config.seats]
    winners = ", ".join(names[w] for w in outcome.winners if 0 <= w < len(names))
    scores = ", ".join(str(x) for x in outcome.standings)
    return f"winners: {winners or '-'}; scores {scores}"


def _replay_check(
    config: TableConfig, records: list[bytes], expected: bytes
) -> tuple[bool, str | None]:
    """(verified, why not): the records replayed by a machine with no key, as the auditor does
    but without the zero-knowledge proofs our machine verified as each record came
    (TableMachine.confirm), end the game in the state we hold. Runs in a worker thread (pure:
    no shared state)."""
    try:
        audit = TableMachine.confirm(config, records)
    except LocalProtocolError as exc:
        return False, str(exc)
    return audit.over and audit.state_hash() == expected, None
