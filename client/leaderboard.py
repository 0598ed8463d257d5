"""The leaderboard: players ranked from audited game transcripts only.

A transcript counts when :func:`~dealerless.protocol.table.audit.audit_records` finds it
clean (every signature, the chain, the rules, every proof, the result signed by every seat);
anything else is refused with the file and the reason. A game is keyed by its table id: the
same game brought by two players (byte-identical or not, every seat's copy ends in the same
audited state hash) is one game, and a second, different result for a table already counted is
refused as a conflict.

A club table (seats that change between hands) is one game too, whoever brings it and however
much of it their file holds: its result is per identity (client/club_result.py), and of several
files of one table the one that covers it best is counted (client/table_copies.py).

Two figures per player, by identity fingerprint (the name is the one of the latest game):

* chips: the sum of the audited standings over the zero-sum games (Limit, No Limit, Pot Limit
  Tuppen: net chips; in tournament mode the stack minus the starting chips; Pottuppen: the
  balance);
* a skill rating for every game, from openskill's full-pairing Bradley-Terry model (its
  Plackett-Luce model rates a seat behind two tied winners above them): each game is one
  ranking of its seats (winners first, then by score; classic Tuppen by fewest penalty points),
  Belote as two teams of partners. The rating shown is the conservative ``mu - 3 sigma``.
Games are rated in their recorded order (finish time here, import time for others' games),
ties by table id, so the board is the same on every run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dealerless.client.club_result import NotCreditable, club_result, has_seat_changes
from dealerless.client.table_copies import Span, span_of
from dealerless.node.store_db import ResultRow
from dealerless.protocol.rules.base import ConfigError
from dealerless.protocol.rules.registry import game_spec
from dealerless.protocol.table.audit import Verdict, audit_records
from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.transcript import TranscriptError, TranscriptReader

CHIP_SCORES = frozenset({"chips", "balance"})  # zero-sum score kinds (GameSpec.score_kind)
LOWER_IS_BETTER = frozenset({"penalty points"})
BELOTE_TEAMS = ((0, 2), (1, 3))  # partners sit opposite (protocol/rules/belote.py)


class NotCounted(Exception):
    """A transcript that is not counted; the message says why (the caller names the file)."""


@dataclass(frozen=True)
class AuditedCopy:
    """One clean file of a game: its result, and which run of the table's chain it holds."""

    row: ResultRow
    span: Span


def audited_result(path: Path, recorded_at: float) -> ResultRow:
    """The result of the game in ``path`` if it audits clean, else :class:`NotCounted`."""
    return audited_copy(path, recorded_at).row


def audited_copy(path: Path, recorded_at: float) -> AuditedCopy:
    """:func:`audited_result` with the file's span (client/table_copies.py)."""
    try:
        with TranscriptReader(str(path)) as reader:
            config = TableConfig.from_wire(reader.header.config)
            frames = [record.frame for record in reader.records()]
    except FileNotFoundError as exc:
        raise NotCounted("no such file") from exc
    except (TranscriptError, ConfigError, OSError) as exc:
        raise NotCounted(f"unreadable transcript: {exc}") from exc
    except Exception as exc:  # a crafted header: say what, never a traceback
        raise NotCounted(f"unreadable transcript: {type(exc).__name__}: {exc}") from exc
    report = audit_records(config, frames)
    if report.verdict is not Verdict.CLEAN:
        where = "" if report.failure_record is None else f" at record {report.failure_record}"
        why = {
            Verdict.DAMAGED: f"damaged or forged{where}: {report.failure}",
            Verdict.CHEAT: "the table caught a cheat; the game has no agreed result",
            Verdict.INCOMPLETE: "incomplete game (no result signed by every seat)",
        }[report.verdict]
        raise NotCounted(f"does not audit clean: {why}")
    if has_seat_changes(report):  # seat numbers changed: the result is by identity
        try:
            club = club_result(report)
        except NotCreditable as exc:
            raise NotCounted(str(exc)) from exc
        seats, standings, winners = club.seats, club.scores, club.winners
    else:
        seats = tuple((s["fingerprint"], str(s["name"])) for s in report.seats())
        standings, winners = tuple(report.standings), tuple(report.winners)
    row = ResultRow(
        table_id=config.table_id.hex(),
        state_hash=report.state_hash.hex(),
        recorded_at=recorded_at,
        game=config.game.game,
        options=dict(config.game.options),
        seats=seats,
        standings=standings,
        winners=winners,
        source=str(path),
    )
    return AuditedCopy(row, span_of(config, frames))


def chips_of(row: ResultRow) -> tuple[int, ...] | None:
    """Every seat's chip result of a zero-sum game; None for the other games."""
    if game_spec(row.game).score_kind not in CHIP_SCORES:
        return None
    if row.options.get("mode") == "tournament":  # standings are stacks there
        start = row.options.get("starting_chips")
        if not isinstance(start, int):
            return None
        return tuple(s - start for s in row.standings)
    return row.standings


def placings(row: ResultRow) -> tuple[list[list[int]], list[int]]:
    """The game as openskill sees it: teams of seats and their ranks (1 is best, ties equal)."""
    kind = game_spec(row.game).score_kind
    winners = set(row.winners)
    if row.game == "belote" and len(row.seats) == 4:
        teams = [list(t) for t in BELOTE_TEAMS]
    else:
        teams = [[s] for s in range(len(row.seats))]
    sign = 1 if kind in LOWER_IS_BETTER else -1

    def key(team: list[int]) -> tuple[int, int]:
        seat = team[0]  # partners share one score
        return (0 if seat in winners else 1, sign * row.standings[seat])

    keys = [key(t) for t in teams]
    ordered = sorted(set(keys))
    return teams, [ordered.index(k) + 1 for k in keys]


@dataclass
class PlayerLine:
    fingerprint: str
    name: str
    games: int = 0
    wins: int = 0
    chips: int | None = None
    mu: float = 0.0
    sigma: float = 0.0

    @property
    def rating(self) -> float:
        return self.mu - 3 * self.sigma

    def to_json(self, rank: int) -> dict[str, Any]:
        return {
            "rank": rank,
            "fingerprint": self.fingerprint,
            "name": self.name,
            "games": self.games,
            "wins": self.wins,
            "chips": self.chips,
            "rating": round(self.rating, 3),
            "mu": round(self.mu, 3),
            "sigma": round(self.sigma, 3),
        }


@dataclass
class Board:
    games: int = 0
    players: list[PlayerLine] = field(default_factory=list)


def build_board(results: Iterable[ResultRow], game: str | None = None) -> Board:
    """Rate ``results`` in the given order (see the module docstring)."""
    from openskill.models import BradleyTerryFull  # slow to import: only for this command

    model = BradleyTerryFull()
    lines: dict[str, PlayerLine] = {}
    ratings: dict[str, Any] = {}
    board = Board()
    for row in results:
        if game is not None and row.game != game:
            continue
        board.games += 1
        chips = chips_of(row)
        for seat, (fingerprint, name) in enumerate(row.seats):
            line = lines.setdefault(fingerprint, PlayerLine(fingerprint, name))
            line.name = name
            line.games += 1
            line.wins += seat in row.winners
            if chips is not None:
                line.chips = (line.chips or 0) + chips[seat]
            if fingerprint not in ratings:
                ratings[fingerprint] = model.rating(name=fingerprint)
        teams, ranks = placings(row)
        fingerprints = [[row.seats[s][0] for s in team] for team in teams]
        if len({f for team in fingerprints for f in team}) != len(row.seats):
            continue  # one key in two seats: no ranking between a player and itself
        rated = model.rate(
            [[ratings[f] for f in team] for team in fingerprints], ranks=[float(r) for r in ranks]
        )
        for team, new in zip(fingerprints, rated, strict=True):
            for fingerprint, value in zip(team, new, strict=True):
                ratings[fingerprint] = value
    for fingerprint, line in lines.items():
        line.mu, line.sigma = float(ratings[fingerprint].mu), float(ratings[fingerprint].sigma)
    board.players = sorted(lines.values(), key=lambda p: (-p.rating, p.fingerprint))
    return board


def transcript_files(names: Sequence[str]) -> list[Path]:
    """FILES as given; a folder stands for the ``.dlt`` files in it and its sub-folders
    (sorted)."""
    out: list[Path] = []
    for name in names:
        path = Path(name)
        out.extend(sorted(path.rglob("*.dlt")) if path.is_dir() else [path])
    return out
