"""The panels over the table (the result panel, the hand history) fitted to the terminal:
wrapped at spaces to the panel's width and, when taller than the screen, scrolled with the
key line kept in view (issue 25, item 12: eight seats at 80x24 cut the footer off).

Also the state of the screen (:class:`UiState`), which the panels read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dealerless.client.tui import presenter as P
from dealerless.client.tui.i18n import tr
from dealerless.client.tui.model import TableSnapshot
from dealerless.client.tui.wrap import fit_panel, short_path, wrap_lines
from dealerless.protocol.rules.base import Action, HandResult

# A panel's frame takes two columns and two rows; a column is left free on either side.
FRAME_COLUMNS = 4
FRAME_ROWS = 2


@dataclass
class UiState:
    """What the player is doing on the screen (not part of the game)."""

    selected: int | None = None  # index into the sorted hand
    chooser: list[Action] | None = None  # variants of one kind of move (amounts, suits)
    chosen: int = 0
    help: bool = False
    confirm_quit: bool = False
    confirm_change: str | None = None  # "stand" / "sit-out" / "back" asked, waiting for y/n
    summary: HandResult | None = None
    summary_game: bool = False
    summary_top: int = 0  # first line shown of a result panel taller than the screen
    rematch: bool = False  # the player chose another game with the same settings (r)
    result_closed_at: float | None = None  # when Space last closed a hand's result panel
    results_seen: int = 0
    # not shown yet, each with the part of the table it is from (seats change between hands)
    waiting_results: list[tuple[int, HandResult]] = field(default_factory=list)
    summary_part: int = 1  # the part of the table of the result shown
    went_on_at: float | None = None  # when the game went on under the open result panel
    history: bool = False
    history_top: int = 0  # first line of the hand history shown
    log_back: int = 0  # lines the move log is scrolled back from the newest
    message: str = ""
    sent: list[Action] = field(default_factory=list)


@dataclass(frozen=True)
class PanelRoom:
    """The terminal's size, and what fits inside a panel's frame."""

    columns: int
    rows: int

    @property
    def width(self) -> int:
        return max(30, self.columns - FRAME_COLUMNS)

    @property
    def height(self) -> int:
        return max(3, self.rows - FRAME_ROWS)


def saved_text(lang: str, path: Path) -> str:
    """The message after saving: the path with the home folder as ``~`` (it stays whole)."""
    return tr(lang, "saved", path=short_path(path))


def result_panel(
    snap: TableSnapshot,
    look: P.Look,
    ui: UiState,
    room: PanelRoom,
    *,
    data_dir: Path | None = None,
    result_pause: float = 0.0,
    offers_rematch: bool = False,
    menu: bool = False,
    replay: bool = False,
) -> list[str]:
    """The lines of the result panel (of a hand, of the game, of our leaving): the result,
    then what the player needs now and the keys, which never scroll away. Moves
    ``ui.summary_top`` back within the result."""
    lang = look.lang
    parts = snap.segments()
    part = snap  # a result is shown with the names and scores of its part of the table
    if ui.summary is not None and 1 <= ui.summary_part <= len(parts):
        part = parts[ui.summary_part - 1]
    body = P.summary(part, look, ui.summary, width=room.width)
    if snap.over and ui.summary is None and data_dir is not None:
        body.append(tr(lang, "save.where", dir=short_path(data_dir)))
    footer: list[str] = []
    if ui.message:
        footer.append(ui.message)
    if ui.summary is not None and snap.my_turn and not snap.over:
        footer.append(tr(lang, "end.your_turn"))
    if result_pause > 0 and ui.summary is not None:
        go_on = tr(lang, "end.continue_pause", n=int(result_pause))
    elif snap.over and ui.summary is None and menu:  # started from the start screen
        go_on = tr(lang, "end.menu")
    else:
        go_on = tr(lang, "end.continue")
    keys = [go_on, tr(lang, "end.save"), tr(lang, "end.quit")]
    if replay:  # a replay is saved already
        keys.remove(tr(lang, "end.save"))
    if snap.over and ui.summary is None and offers_rematch:
        keys.insert(1, tr(lang, "end.rematch"))
    footer.append("   ".join(keys))
    more = tr(lang, "panel.more")  # filled in by fit_panel
    lines, ui.summary_top = fit_panel(
        wrap_lines(body, room.width),
        wrap_lines(footer, room.width),
        room.height,
        ui.summary_top,
        more,
    )
    return lines


def history_panel(lines: list[str], ui: UiState, room: PanelRoom, lang: str) -> list[str]:
    """The hand history (``lines`` wrapped already) from ``ui.history_top``, under its keys."""
    shown = room.height - 1
    ui.history_top = max(0, min(ui.history_top, len(lines) - shown))
    return [tr(lang, "history.keys"), *lines[ui.history_top : ui.history_top + shown]]
