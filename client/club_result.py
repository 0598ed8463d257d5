"""The result of a club table (seats that changed between hands) per identity, not per seat.

Seat numbers change at every segment (spec/protocol.md §9), so a club table's result names
everyone who played in the file by identity key: the seats of its last segment with their
audited scores, every seat that stood up at a change in the file with the score of the ledger it
took, and every seat still sitting out at the end with the score of the ledger kept for it
(``Engine.ledger_score``, the score as ``scores()`` counts it). They are ranked by that score
alone; the winners are the best of them, when the game ended in the file.

A file is credited with what it proves, no more. A file that starts at the table's start proves
every score in it (a newcomer's does: it checked the chain from the table's start and holds it).
A file that starts with a later segment (an older node's newcomer wrote one) takes the carry of
that first configuration as given (nobody in the file was checked against the hands before):
there, each seat is credited with what its score changed by in the file's hands (its score at the
end minus the score of its ledger in that first carry; a buy-in's score is 0), and the seats
that stood up or sat out before the file starts are not credited at all. Otherwise anyone could
write a "newcomer's" file whose first carry gives chips to himself or takes them from people
who never signed it.
"""

from __future__ import annotations

from dataclasses import dataclass

from dealerless.protocol.rules.registry import new_engine
from dealerless.protocol.table.audit import AuditReport
from dealerless.protocol.wire.identity import fingerprint_of


class NotCreditable(Exception):
    """The file audits clean but proves no result to credit; the message says why."""


@dataclass(frozen=True)
class ClubResult:
    seats: tuple[tuple[str, str], ...]  # (fingerprint, name): the last segment's seats first
    scores: tuple[int, ...]  # credited scores, in the order of ``seats``
    winners: tuple[int, ...]  # indices into ``seats``: the best scores, if the game ended


def has_seat_changes(report: AuditReport) -> bool:
    """A file of a table whose seats changed: it starts with a later segment, or holds one, or
    stops at a change."""
    return report.config.carry is not None or bool(report.segments) or report.ended_at_change


def club_result(report: AuditReport) -> ClubResult:
    """Everyone who played at the table in this file, by identity (see the module docstring);
    ``report`` must be a clean audit."""
    engine = new_engine(report.config.game)  # every segment is of the same game and house rules

    def score(ledger: tuple[tuple[str, int], ...]) -> int:
        return engine.ledger_score(dict(ledger))

    first = report.config
    configs = [first, *report.segments]
    last = configs[-1]
    baseline: dict[bytes, int] = {}
    if first.carry is not None:
        if first.game.options.get("mode") == "tournament":
            raise NotCreditable(
                "a tournament file that starts mid-table: tournaments take no newcomers, so it"
                " is no seat's whole record of the table"
            )
        for seat, ledger in zip(first.seats, first.carry.ledgers, strict=True):
            baseline[seat.key] = score(ledger)
        for away in first.carry.away:  # a seat that comes back in this file
            baseline[away.key] = score(away.ledger)
    played = {seat.key for config in configs for seat in config.seats}
    people: dict[bytes, tuple[str, int]] = {}
    for seat, standing in zip(last.seats, report.standings, strict=True):
        people[seat.key] = (seat.name, standing)
    departed = [d for config in report.segments if config.carry for d in config.carry.left]
    if last.carry is not None:
        departed += [d for d in last.carry.away if d.key in played]
    for gone in departed:
        people.setdefault(gone.key, (gone.name, score(gone.ledger)))
    keys = list(people)
    scores = tuple(people[key][1] - baseline.get(key, 0) for key in keys)
    best = max(scores)
    return ClubResult(
        seats=tuple((fingerprint_of(key), people[key][0]) for key in keys),
        scores=scores,
        # Who did best at the table: a seat that stood up with the most chips beat the seat
        # the game named its winner among those still seated. Only a game that ended has them.
        winners=tuple(i for i, s in enumerate(scores) if s == best) if report.winners else (),
    )
