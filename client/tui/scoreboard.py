"""The final scoreboard of the game-over panel (issue 25, item 6): every seat ranked (winners
first, then by score the way the game counts it: fewest penalty points, most chips or points),
its final score and a small chart of its score after each hand.

Pure: lines of text from a snapshot, tested without a terminal.
"""

from __future__ import annotations

from dealerless.client.tui.i18n import tr
from dealerless.client.tui.model import TableSnapshot
from dealerless.client.tui.wording import Look, seat_name
from dealerless.protocol.table.events import HandEnded

BARS_UNICODE = "▁▂▃▄▅▆▇█"
BARS_ASCII = "_.-=+*#@"
CHART_HANDS = 24  # the last hands charted (the panel is at most 80 columns wide)
NAME_WIDTH = 30  # a long name is cut here (seat_name already makes it printable)
LOWER_IS_BETTER = frozenset({"penalty points"})


def score_history(snap: TableSnapshot) -> list[tuple[int, ...]]:
    """Every seat's score after each hand, in order (hands that carry no scores are skipped;
    after a seat change the seats differ and the chart starts again)."""
    history = [
        e.scores
        for e in snap.log
        if isinstance(e, HandEnded) and e.scores and len(e.scores) == len(snap.scores)
    ]
    return history


def sparkline(values: list[int], low: int, high: int, look: Look) -> str:
    """One character a value, its height within [low, high] (all seats share one scale)."""
    bars = BARS_UNICODE if look.unicode else BARS_ASCII
    if high == low:
        return bars[len(bars) // 2] * len(values)
    top = len(bars) - 1
    return "".join(bars[round((v - low) * top / (high - low))] for v in values)


def ranking(snap: TableSnapshot) -> list[int]:
    """Seats, best first: the winners, then by final score in the game's sense."""
    winners = set(snap.outcome.winners) if snap.outcome is not None else set()
    scores = snap.outcome.standings if snap.outcome is not None else snap.scores
    sign = 1 if snap.score_kind in LOWER_IS_BETTER else -1
    return sorted(range(len(scores)), key=lambda s: (s not in winners, sign * scores[s], s))


def scoreboard_lines(snap: TableSnapshot, look: Look) -> list[str]:
    """The scoreboard: a title, then one line a seat (rank, name, score, chart)."""
    if snap.outcome is None or len(snap.outcome.standings) != len(snap.names):
        return []
    scores = snap.outcome.standings
    history = score_history(snap)[-CHART_HANDS:]
    lows = [min(h) for h in history] or [0]
    highs = [max(h) for h in history] or [0]
    low, high = min(lows), max(highs)
    names = [seat_name(snap, seat, look)[:NAME_WIDTH] for seat in range(len(snap.names))]
    width = max(len(name) for name in names)
    winners = set(snap.outcome.winners)
    label = tr(look.lang, f"score.{snap.score_kind}")
    lines = [tr(look.lang, "end.scoreboard", kind=label, hands=len(history))]
    for rank, seat in enumerate(ranking(snap), start=1):
        mark = "*" if seat in winners else " "
        chart = sparkline([h[seat] for h in history], low, high, look) if history else ""
        name = names[seat].ljust(width)
        lines.append(f"{mark}{rank}. {name}  {scores[seat]:>6}  {chart}".rstrip())
    return lines
