"""Several files of one table, and which of them to count (``dealerless ratings --import``).

The files of a club table differ (spec/protocol.md §9): the host's and a newcomer's hold the
whole table, a leaver's stops at the change where it stood up, and an older node's newcomer
wrote one that starts with the segment it joined. Each is a run of the table's one chain: its
records stand at ``start`` .. ``end`` of the whole table's chain (a file that starts with a
later segment at that configuration's ``carry.records``, anyone else's at 0). Two files of
one table agree, record for record, where they overlap; the one that
covers the table best is counted: the one that reaches furthest into the chain (the end of the
game, if it got there), then the one that starts earliest (the most hands).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.transcript import TranscriptReader


class Relation(StrEnum):
    SAME = "same"  # the same run of the chain
    BETTER = "better"  # agrees where both have records, and covers the table better
    WORSE = "worse"  # agrees where both have records; the other covers the table better
    CONFLICT = "conflict"  # a different record where both have one: another game
    DISJOINT = "disjoint"  # no record in common: the two cannot be matched


@dataclass(frozen=True)
class Span:
    start: int  # where the file's first record stands in the table's chain
    digests: tuple[bytes, ...]  # SHA-256 of every record, in order

    @property
    def end(self) -> int:
        return self.start + len(self.digests)

    @property
    def coverage(self) -> tuple[int, int]:
        """Bigger is better: the furthest end, then the earliest start."""
        return (self.end, -self.start)

    def describe(self) -> str:
        return f"records {self.start + 1} to {self.end} of the table"


def span_of(config: TableConfig, frames: Sequence[bytes]) -> Span:
    start = 0 if config.carry is None else config.carry.records
    return Span(start, tuple(hashlib.sha256(frame).digest() for frame in frames))


def read_span(path: Path) -> Span:
    """The span of a file counted before (read, not audited again: it was audited when it was
    counted). Raises OSError, TranscriptError or ConfigError if it cannot be read."""
    with TranscriptReader(str(path)) as reader:
        config = TableConfig.from_wire(reader.header.config)
        return span_of(config, [record.frame for record in reader.records()])


def compare(new: Span, counted: Span) -> Relation:
    low, high = max(new.start, counted.start), min(new.end, counted.end)
    if low >= high:
        return Relation.DISJOINT
    if (
        new.digests[low - new.start : high - new.start]
        != (counted.digests[low - counted.start : high - counted.start])
    ):
        return Relation.CONFLICT
    if new.coverage == counted.coverage:
        return Relation.SAME
    return Relation.BETTER if new.coverage > counted.coverage else Relation.WORSE
