"""Sitting out and coming back on the table screen of a node's seat (club play, spec/client.md):
the sitting-out panel and what ``o`` means there (presenters, no terminal), the keys, and a
real table whose seat sits out, follows the next part as an observer, asks to come back from
the screen and is seated again (in-memory machines, real keys, deck and signatures; the real
node over processes is tests/nostr/test_sit_out_and_back_nostr.py)."""

from __future__ import annotations

import random
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import trio
from prompt_toolkit.output import DummyOutput
from tui_helpers import FakeSession, run_keys, snapshot

from dealerless.client.tui import presenter as P
from dealerless.client.tui.app import TableApp
from dealerless.client.tui.i18n import tr
from dealerless.client.tui.node_session import DriverSession
from dealerless.node.options import NodeOptions
from dealerless.node.seat_changes import SeatChanges
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.events import (
    ActionApplied,
    HandStarted,
    SegmentStarted,
    TableEvent,
    Violation,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
from seat_change_sim import next_segment, play_segment, start

from dealerless.node.notices import english

EN, DE, NL = P.Look("en", True), P.Look("de", True), P.Look("nl", True)
CASH = {"mode": "cash", "hands": 4, "max_buy_in": 10}
KEPT = (("bought_in", 200), ("net", 0), ("stack", 240))


def text(fragments: P.Fragments) -> str:
    return "".join(t for _, t, *_ in fragments)


def away_snapshot(**changes: Any) -> Any:
    """A limit table seen by a seat that sits out: no seat, no hand, no moves."""
    base = snapshot(
        seat=None,
        my_turn=False,
        seat_changes=True,
        sitting_out=True,
        away_ledger=KEPT,
        away_score=40,
        statuses=((), ("to_act",), (), ()),
    )
    return replace(base, **changes)


# ---------------------------------------------------------------- presenters


def test_the_sitting_out_panel_shows_the_kept_chips_and_o_comes_back() -> None:
    snap = away_snapshot()
    shown = text(P.actions(snap, EN))
    assert "You sit out; 240 chips (+40 net) kept for you. The table goes on." in shown
    assert "  o come back" in shown
    german = text(P.actions(snap, DE))
    assert "Du setzt aus; 240 Chips" in german and "o zurückkehren" in german
    dutch = text(P.actions(snap, NL))
    assert "Je slaat over; 240 fiches" in dutch and "o terugkomen" in dutch
    assert P.hand(snap, EN, None) == [("", "")]  # no hand of ours
    assert P.change_note(snap, EN) == []


def test_o_asks_to_come_back_while_sitting_out_and_to_sit_out_while_seated() -> None:
    away = away_snapshot()
    assert P.seat_key(away, EN, "sit-out") == ("back", None)
    asked, why = P.seat_key(away, EN, "stand")
    assert asked is None and "press o to come back" in (why or "")
    seated = snapshot(seat_changes=True)
    assert P.seat_key(seated, EN, "sit-out") == ("sit-out", None)
    assert P.seat_key(seated, EN, "stand") == ("stand", None)
    ended = replace(away, over=True)
    assert P.seat_key(ended, EN, "sit-out")[0] is None


def test_once_asked_the_screen_says_so_and_does_not_ask_again() -> None:
    snap = away_snapshot(coming_back=True)
    pending = "you asked to come back: you sit down again between two hands"
    assert pending in text(P.change_note(snap, EN))
    fragments = P.actions(snap, EN)
    assert pending in text(fragments) and ("class:key", "  o") not in fragments
    asked, why = P.seat_key(snap, EN, "sit-out")
    assert asked is None and why == f"already asked: {pending}"
    assert "Rückkehr gewünscht" in text(P.change_note(snap, DE))


def test_the_key_help_says_what_o_does_in_each_state() -> None:
    for lang, seated, away in (
        ("en", "sit out after this hand", "sitting out: come back"),
        ("de", "aussetzen", "beim Aussetzen: an den Tisch zurückkehren"),
        ("nl", "overslaan", "tijdens overslaan: terug aan tafel"),
        ("fr", "faire une pause", "en pause\u00a0: revenir à la table"),
    ):
        help_text = tr(lang, "help.text")
        assert seated in help_text and away in help_text, lang


# ---------------------------------------------------------------- keys


def test_o_then_yes_asks_the_session_to_come_back() -> None:
    session = FakeSession(away_snapshot())
    _, app = run_keys(session, ["o", "y", "q", "y"])
    assert session.changes == ["back"]
    session = FakeSession(away_snapshot())
    _, app = run_keys(session, ["o", "n", "w", "q", "y"])
    assert session.changes == [] and "press o to come back" in app.ui.message


def test_in_french_o_answers_yes_and_n_stays_no() -> None:
    session = FakeSession(away_snapshot())
    run_keys(session, ["o", "o", "q", "o"], lang="fr")
    assert session.changes == ["back"]
    session = FakeSession(away_snapshot())
    _, app = run_keys(session, ["o", "n", "w", "q", "o"], lang="fr")
    assert session.changes == [] and "o pour revenir" in app.ui.message


def test_the_question_before_coming_back_is_in_the_players_language() -> None:
    app = TableApp(FakeSession(away_snapshot()), lang="de", output=DummyOutput())
    app.ask_change("sit-out")
    assert app.ui.confirm_change == "back"
    assert "zurückkehren" in text(app._change_question())


def test_a_seated_player_cannot_come_back_and_is_told_so_in_their_language() -> None:
    sim = start(make_config("limit-tuppen", 3, CASH), random.Random(4))
    options = NodeOptions(follow_away=True)
    session = DriverSession(sim.table, 0, clock=lambda: 0.0, options=options)
    session.observe(sim.machines[0])

    async def press_o() -> None:
        session.attach()
        session.come_back()
        await trio.sleep(0.01)

    trio.run(press_o)
    snap = session.snapshot()
    assert snap.errors == ("we are not sitting out",) and not snap.coming_back
    assert options.back_after is None
    assert P.log_lines(snap, DE)[-1].endswith("du setzt nicht aus: da gibt es keine Rückkehr")


# ---------------------------------------------------------------- a real table


class ScreenSeat:
    """The seat-change part of the real node (node/seat_changes.py) over one machine, with
    what it says and signs recorded instead of sent (this fake is the node it talks to)."""

    def __init__(self, machine: TableMachine, options: NodeOptions) -> None:
        assert machine.key is not None
        self.machine, self.config, self.host_key = machine, machine.config, b""
        self.said: list[str] = []
        self.signed: list[dict[str, Any]] = []
        self.say = lambda n: self.said.append(english(n))
        # Coming back uses neither the join handshake nor catch-up, and signs no segment.
        self.changes = SeatChanges(
            self,
            None,  # type: ignore[arg-type]
            None,  # type: ignore[arg-type]
            key=machine.key.peer_id.raw,
            sign=lambda _data: b"",
            is_host=False,
            opt=options,
        )

    def now(self) -> float:
        return 100.0

    def queue_signed(self, payload: dict[str, Any], to: bytes | None = None) -> None:
        self.signed.append(payload)

    def admit(self) -> None:
        raise AssertionError("a seat sitting out admits nobody")

    def report(self, events: list[TableEvent]) -> None:
        for event in events:  # the node's ticker asks on every tick; a hand start is one
            if isinstance(event, HandStarted):
                self.changes.ask_back(self.now())


def test_a_seat_sits_out_watches_the_table_comes_back_from_the_screen_and_plays_again() -> None:
    rng = random.Random(3)
    sim = start(make_config("limit-tuppen", 3, CASH), rng)
    away = sim.machines[1]
    options = NodeOptions(follow_away=True)
    away.follow_away = True  # what the node does with options.follow_away
    session = DriverSession(sim.table, 1, clock=lambda: 0.0, options=options)
    session.observe(away)
    node = ScreenSeat(away, options)
    play_segment(sim, rng, {1: "sit-out"})
    kept = sim.machines[0].engine.seat_ledger(1)
    assert away.seat_change is not None
    session.observe(away, [away.seat_change])

    seen: list[TableEvent] = []
    receive = away.receive

    def recorded(frame: bytes, now: float) -> list[TableEvent]:
        events = receive(frame, now)
        seen.extend(events)
        return events

    away.receive = recorded  # type: ignore[method-assign]
    second = next_segment(sim, rng, followers=[away])
    session.observe(away, seen)
    snap = session.snapshot()
    assert away.sitting_out and snap.sitting_out and snap.seat is None
    assert snap.names == tuple(s.name for s in second.table.seats) and snap.players == 2
    assert snap.away_ledger == tuple(sorted(kept.items()))
    assert snap.hand == () and snap.legal == () and not snap.my_turn
    assert len(snap.earlier) == 1 and snap.earlier[0].names == tuple(
        s.name for s in sim.table.seats
    )
    app = TableApp(session, output=DummyOutput(), clock=lambda: 0.0)
    app._before_render()  # every part of the screen draws without a seat of ours
    for part in (
        P.header(snap, EN),
        P.seats(snap, EN, 0.0),
        P.trick(snap, EN),
        P.hand(snap, EN, None),
        app._status_text(),
        app._log_text(),
    ):
        assert isinstance(text(part), str)
    assert f"{kept['stack']} chips" in text(P.actions(snap, EN))
    assert P.seat_key(snap, EN, "sit-out") == ("back", None)

    async def press_o() -> None:
        session.attach()
        session.want_change("back")  # what the screen asks after o, y
        await trio.sleep(0.01)  # run_sync_soon: on the Trio side, not on the caller's

    trio.run(press_o)
    assert session.snapshot().coming_back and options.back_after == away.hand
    assert node.signed == []  # the node asks when the table's next hand starts

    # the table goes on: the seat sees the others' public moves, and its node asks to come
    # back (a signed 'back' bound to the segment it sits out in)
    play_segment(second, rng, {0: "reseat"})
    host = second.machines[0]
    seen.clear()
    for frame in host.records[len(away.records) :]:
        away.receive(frame, 0.0)
    assert not [e for e in seen if isinstance(e, Violation)]
    node.report(seen)
    session.observe(away, seen)
    watched = session.snapshot()
    assert any(isinstance(e, ActionApplied) for e in watched.log)
    assert watched.hand == () and watched.coming_back
    assert node.changes.coming_back and node.signed
    # with the records it holds: the host seats it only once it caught up (node.md §7a)
    assert node.signed[0] == {
        "t": "back",
        "config": second.table.digest(),
        "n": away.chain_count,
    }
    assert "we asked to come back" in node.said[0]

    seen.clear()
    third = next_segment(
        second, rng, returning=[(sim.table.seats[1].key, sim.keys[1])], followers=[away]
    )
    assert any(isinstance(e, SegmentStarted) and e.seated for e in seen)
    session.observe(away, seen)
    back = session.snapshot()
    assert third.machines[2] is away and back.seat == 2 and not back.sitting_out
    assert not back.coming_back and options.back_after is None
    assert len(back.earlier) == 2 and back.names == tuple(s.name for s in third.table.seats)
    assert ("class:key", "  o") not in P.actions(back, EN)
    assert P.seat_key(back, EN, "sit-out") == ("sit-out", None)
