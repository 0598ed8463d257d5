"""A newcomer's offers to sit down at a running table, while it fetches the chain that proves
them (spec/node.md §3.4).

A seat that hosts the running segment answers a newcomer's hello with the configuration that
seats it and the table's first configuration (signed by the invite's host). The newcomer then
asks that seat for the table's records from the start, through the ``next-config`` that seats it,
and checks them (protocol/table/joining.py) before it signs anything. Several keys may answer
(the newcomer says hello to a few); each offer collects its own sender's records, so junk from
one cannot spoil another's, and each is bounded in records, bytes and time. An offer whose
chain does not check is dropped and its sender is not heard again.

A newcomer that a seat lists as waiting to sit down (a ``lobby`` with ``need`` 0: it is seated
after this hand) fetches that seat's chain *early*, while the hand is played, every
``EARLY_ASK_EVERY`` seconds; when that seat's offer comes, the records it already holds count
for it, so only the last records and the check remain for the new segment's first step (whose
step timeout the other seats wait). Early records are checked with the offer like any others.

Pure bookkeeping: the node asks, receives and checks; this part says what to ask and when an
offer is complete or has stalled.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dealerless.protocol.table import TableConfig

PREFIX_RECORDS_MAX = 1_000_000  # records before our seat that we fetch at most (~20,000 hands)
PREFIX_BYTES_MAX = 64 << 20  # bytes of those records, per offer
OFFERS_KEPT = 9  # the invite's host and the eight other keys a joiner says hello to
ASK_EVERY = 2.0  # s: an offer's sender that sent nothing for this long is asked again
STALL = 30.0  # s: ... and one that sent nothing for this long is given up
EARLY_ASK_EVERY = 10.0  # s: while we wait for our seat, the chain so far is fetched this often


@dataclass
class Early:
    """The chain so far from a seat that listed us as waiting, before its offer."""

    asked: float
    records: list[bytes] = field(default_factory=list)
    size: int = 0


@dataclass
class Offer:
    sender: bytes
    config: TableConfig  # the running segment's, which seats us (it has a carry)
    sig: bytes
    first: TableConfig  # the table's first configuration, signed by the invite's host
    first_sig: bytes
    heard: float  # when the offer came or its sender last sent us records
    asked: float = -1e9
    records: list[bytes] = field(default_factory=list)
    size: int = 0

    @property
    def wanted(self) -> int:
        carry = self.config.carry
        assert carry is not None
        return carry.records

    @property
    def complete(self) -> bool:
        return len(self.records) == self.wanted


class Arrival:
    """The offers a newcomer holds (see the module docstring)."""

    def __init__(self) -> None:
        self.offers: dict[bytes, Offer] = {}
        self.early: dict[bytes, Early] = {}  # bounded like the offers
        self.refused: set[bytes] = set()  # senders whose chain did not check
        self.checking: bytes | None = None  # the offer whose chain is being checked

    def __bool__(self) -> bool:
        return bool(self.offers)

    def take(self, offer: Offer) -> str:
        """Keep a new offer (empty), or say why not."""
        if offer.sender in self.refused:
            return "its sender's chain did not check before"
        held = self.offers.get(offer.sender)
        if held is not None and held.config == offer.config:
            return "we are fetching its sender's chain already"
        if held is not None:
            # Its sender now offers another configuration: the one before is void (a late
            # certificate undid that seat change, protocol.md P-52). The records we hold
            # count as far as they are the same chain (_extend cuts where they are not).
            _adopt(offer, held.records)
            self.offers[offer.sender] = offer
            return ""
        if offer.wanted > PREFIX_RECORDS_MAX:
            return (
                f"its chain holds {offer.wanted} records before our seat, more than the "
                f"{PREFIX_RECORDS_MAX} we fetch"
            )
        if len(self.offers) >= OFFERS_KEPT:
            return f"we are fetching {OFFERS_KEPT} chains already"
        early = self.early.pop(offer.sender, None)
        if early is not None:  # what it sent while we waited counts (checked with the rest)
            _adopt(offer, early.records)
        self.offers[offer.sender] = offer
        return ""

    def wait_at(self, sender: bytes, now: float) -> bool:
        """``sender`` listed us as waiting to sit down: fetch its chain early (True: ask now)."""
        if sender in self.early or sender in self.offers or sender in self.refused:
            return False
        if len(self.early) >= OFFERS_KEPT:
            return False
        self.early[sender] = Early(asked=now)
        return True

    def expects(self, sender: bytes) -> bool:
        offer = self.offers.get(sender)
        return sender in self.early or (offer is not None and not offer.complete)

    def add(self, sender: bytes, start: int, frames: list[bytes], now: float) -> str:
        """Records ``start``.. of the table's chain from ``sender``: kept in order up to the
        offer's length; says why not, when they break a bound (the offer is then dropped)."""
        early = self.early.get(sender)
        if early is not None:
            if not _extend(early, start, frames):
                del self.early[sender]
                return f"its chain is over {PREFIX_BYTES_MAX >> 20} MiB"
            return ""
        offer = self.offers.get(sender)
        if offer is None or offer.complete:
            return ""
        before = len(offer.records)
        if not _extend(offer, start, frames, offer.wanted):
            del self.offers[sender]
            return f"its chain is over {PREFIX_BYTES_MAX >> 20} MiB before our seat"
        if len(offer.records) > before:
            offer.heard = now
        return ""

    def next_to_check(self) -> Offer | None:
        """A complete offer to check now (one at a time: checking is the audit's work)."""
        if self.checking is not None:
            return None
        for offer in self.offers.values():
            if offer.complete:
                self.checking = offer.sender
                return offer
        return None

    def refuse(self, sender: bytes) -> None:
        self.offers.pop(sender, None)
        self.refused.add(sender)
        if self.checking == sender:
            self.checking = None

    def early_due(self, now: float) -> list[tuple[bytes, int]]:
        """The seats to ask for the chain so far (while we wait for our seat), with our count."""
        due = [
            (k, len(e.records)) for k, e in self.early.items() if now - e.asked >= EARLY_ASK_EVERY
        ]
        for key, _ in due:
            self.early[key].asked = now
        return due

    def due(self, now: float) -> tuple[list[Offer], list[Offer]]:
        """The offers to ask again for records now, and those given up (removed)."""
        ask: list[Offer] = []
        stalled: list[Offer] = []
        for offer in list(self.offers.values()):
            if offer.complete:
                continue
            if now - offer.heard >= STALL:
                del self.offers[offer.sender]
                stalled.append(offer)
            elif now - max(offer.heard, offer.asked) >= ASK_EVERY:
                offer.asked = now
                ask.append(offer)
        return ask, stalled


def _adopt(offer: Offer, records: list[bytes]) -> None:
    """``offer`` starts with the records already fetched from its sender (up to its length)."""
    offer.records = records[: offer.wanted]
    offer.size = sum(len(f) for f in offer.records)


def _extend(held: Early | Offer, start: int, frames: list[bytes], end: int | None = None) -> bool:
    """Keep the frames that continue ``held.records`` (up to the chain count ``end``); False,
    keeping nothing, when they would pass the byte bound. Frames that differ from records we
    hold replace them from there on: the sender's chain changed (a roll-back, a void seat
    change); the whole chain is checked before we sit down."""
    if start > len(held.records):
        return True  # a gap: not ours to fill
    overlap = held.records[start : start + len(frames)]
    if overlap != frames[: len(overlap)]:
        del held.records[start:]
        held.size = sum(len(f) for f in held.records)
    fresh = frames[len(held.records) - start : None if end is None else end - start]
    size = sum(len(f) for f in fresh)
    if held.size + size > PREFIX_BYTES_MAX:
        return False
    held.records.extend(fresh)
    held.size += size
    return True
