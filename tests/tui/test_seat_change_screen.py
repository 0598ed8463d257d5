"""Standing up and sitting out from the table screen (spec/client.md, spec/protocol.md §9): the
presenters without a terminal, the local bot table across a seat change, the DriverSession
handing the wish to the machine on the Trio side, and the keys on a pipe input."""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace

import trio
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_app_local import ansi_free, choose_key
from tui_helpers import FakeSession, drive, run_keys, screen_output, snapshot

from dealerless.client.bots import bot_for
from dealerless.client.protocol_sim import run_game, start_game
from dealerless.client.tui import presenter as P
from dealerless.client.tui.app import TableApp
from dealerless.client.tui.lobby import run_node_client
from dealerless.client.tui.model import TableSnapshot, part_ended
from dealerless.client.tui.node_session import DriverSession, LobbyState
from dealerless.client.tui.session import LocalSession
from dealerless.protocol.rules.base import HandResult
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table.events import SeatsChanging, SegmentStarted

EN = P.Look("en", True)
DE = P.Look("de", True)


# ---------------------------------------------------------------- presenters


def test_fixed_seats_are_refused_with_the_game_named() -> None:
    snap = snapshot()  # classic Tuppen: seat_changes False
    # the game by its name in the screen's language (not the registry's English title)
    english = "Tuppen (classic, penalty points) keeps its seats for the whole game"
    assert english in (P.change_refusal(snap, EN) or "")
    assert "Tuppen (klassisch, Strafpunkte) behält die Plätze" in (P.change_refusal(snap, DE) or "")


def test_a_hand_by_hand_table_may_ask_once_and_shows_what_is_pending() -> None:
    snap = snapshot(seat_changes=True)
    assert P.change_refusal(snap, EN) is None
    assert P.change_note(snap, EN) == []
    pending = replace(snap, change_wanted="stand")
    assert "you stand up after this hand" in "".join(t for _, t in P.change_note(pending, EN))
    assert "already asked" in (P.change_refusal(pending, EN) or "")
    sitting = replace(snap, change_wanted="sit-out")
    assert "du setzt nach dieser Hand aus" in "".join(t for _, t in P.change_note(sitting, DE))
    assert "over" in (P.change_refusal(replace(snap, over=True), EN) or "")


def hand_result(hand: int, winners: tuple[int, ...], deltas: tuple[int, ...]) -> HandResult:
    return HandResult(hand, winners, deltas, "last trick", code="last_trick")


def _two_parts() -> tuple[TableSnapshot, HandResult, HandResult]:
    """bob stood up after hand 4: seat 1 was bob, in the new part seat 1 is cy."""
    first = hand_result(4, winners=(1,), deltas=(-2, 5, -3))
    second = hand_result(5, winners=(1,), deltas=(-1, 1))
    old = snapshot(names=("ann", "bob", "cy"), scores=(-2, 5, -3), results=(first,))
    ended = part_ended(old, (SeatsChanging(4, ((1, "stand"),)),), ((1, "bye"),))
    now = snapshot(
        names=("ann", "cy"),
        scores=(-3, -2),
        earlier=(ended,),
        segment=2,
        chat=((1, "hi"),),
        results=(second,),
    )
    return now, first, second


def test_the_log_and_chat_name_each_part_of_the_table_with_its_own_seats() -> None:
    snap, _, _ = _two_parts()
    assert "after hand 4 the seats change: bob stands up" in P.log_lines(snap, EN)
    assert [line for line in P.chat_lines(snap, EN) if "bye" in line or "hi" in line] == [
        "bob: bye",
        "cy: hi",
    ]


def test_results_of_a_part_that_ended_are_still_shown_with_its_names() -> None:
    snap, first, second = _two_parts()
    # the screen had seen no result of part 1 yet when the seats changed
    new, part, seen = P.new_results(snap, 1, 0)
    assert new == [(1, first), (2, second)] and (part, seen) == (2, 1)
    assert P.new_results(snap, part, seen) == ([], 2, 1)
    app = TableApp(FakeSession(snap), output=DummyOutput(), clock=lambda: 0.0)
    app.ui.results_seen, app._segment = 0, 1
    app._before_render()
    assert app.ui.summary == first and app.ui.summary_part == 1
    panel = "".join(t for _, t in app._summary_text())
    assert "bob" in panel  # hand 4's winner, seat 1 of its own part, not cy
    app.close_summary()
    app._before_render()
    assert app.ui.summary == second and "cy" in "".join(t for _, t in app._summary_text())


def test_a_seat_sitting_out_gets_no_panel_for_the_hands_it_watches() -> None:
    """ann sat out after hand 4: that hand (she played it) opens its panel; the hands the
    others play while she watches do not (they are in the log), however many come."""
    snap, first, second = _two_parts()
    watching = replace(snap, sitting_out=True)
    assert P.new_results(watching, 1, 0) == ([(1, first)], 2, 1)
    more = replace(watching, results=(second, hand_result(6, winners=(0,), deltas=(1, -1))))
    assert P.new_results(more, 2, 1) == ([], 2, 2)
    app = TableApp(FakeSession(more), output=DummyOutput(), clock=lambda: 0.0)
    app.ui.results_seen, app._segment = 0, 1
    app._before_render()
    assert app.ui.summary == first
    app.close_summary()
    app._before_render()
    assert app.ui.summary is None and not app.ui.waiting_results


def test_between_two_parts_the_table_is_not_over() -> None:
    snap = snapshot(seat_changes=True, changing=True, legal=(), my_turn=False, arbiter=None)
    assert not snap.over
    assert "waiting for the next host" in "".join(t for _, t in P.actions(snap, EN))
    assert "ask again" in (P.change_refusal(snap, EN) or "")


def test_the_panel_of_a_player_who_left_says_how_and_with_what() -> None:
    ledger = (("bought_in", 200), ("net", 0), ("stack", 240))
    snap = snapshot(over=True, left="stand", left_hand=4, left_ledger=ledger, left_score=40)
    lines = P.summary(snap, EN, None)
    assert "You stood up after hand 4, taking 240 chips (+40 net)." in lines
    assert "The table goes on without you." in lines
    silent = replace(snap, left="silent", left_ledger=(("balance", -3),), left_score=-3)
    assert "You were silent in hand 4, so you sit out; a balance of -3 kept for you." in (
        P.summary(silent, EN, None)
    )


# ---------------------------------------------------------------- the local bot table


def _play(session: LocalSession, until: int, stand_at: int | None) -> None:
    """The human plays like a bot; at hand ``stand_at`` it asks to stand up."""
    bot, rng = bot_for(session.config.game.game), random.Random(5)
    for _ in range(5000):
        session.run_until_idle()
        snap = session.snapshot()
        if snap.over or snap.hand_number > until:
            return
        if stand_at is not None and snap.hand_number >= stand_at and snap.change_wanted is None:
            session.want_change("stand")
            continue
        machine = session.machine
        if machine.my_turn_to_act():
            assert machine.seat is not None
            move = bot(machine.engine, machine.seat, rng, True)
            assert move is not None
            session.act(move)
    raise AssertionError("the local table did not get there")


def test_a_local_table_where_nobody_asks_keeps_its_seats() -> None:
    session = LocalSession(make_config("limit-tuppen", 3), seed=2, human_name="ann")
    session.start(threaded=False)
    _play(session, until=3, stand_at=None)
    snap = session.snapshot()
    assert snap.hand_number > 3 and snap.segment == 1 and snap.left is None
    assert not any(isinstance(e, SeatsChanging) for e in snap.log)
    assert not snap.errors and not snap.violations


def test_standing_up_at_a_local_table_ends_the_game_for_the_human_only() -> None:
    session = LocalSession(make_config("limit-tuppen", 3), seed=3, human_name="ann")
    session.start(threaded=False)
    _play(session, until=99, stand_at=2)
    snap = session.snapshot()
    assert snap.over and snap.left == "stand" and snap.left_hand >= 2
    assert not snap.errors and not snap.violations
    # the bots went on in the next part of the table; what ann took is what they carried
    bots = [m for m in session._machines if m is not session.machine]
    assert all(len(m.segments) == 2 and not m.over for m in bots)
    carried = bots[0].segments[1].carry
    assert carried is not None
    (gone,) = carried.left
    assert gone.name == "ann" and gone.ledger == snap.left_ledger
    lines = P.summary(snap, EN, None)
    assert any(line.startswith(f"You stood up after hand {snap.left_hand}") for line in lines)
    assert any(isinstance(e, SegmentStarted) and not e.seated for e in snap.log)
    session.run_until_idle()  # the human's part is over: nothing more runs for it
    assert session.snapshot().version == snap.version


# ---------------------------------------------------------------- the node's session


def test_the_driver_session_gives_the_wish_to_the_machine_on_the_trio_side() -> None:
    sim = start_game(make_config("limit-tuppen", 3), random.Random(4))
    session = DriverSession(sim.table, 0, clock=lambda: 0.0)
    me = sim.machines[0]
    session.observe(me)

    async def main() -> None:
        session.attach()
        session.want_change("sit-out")
        await trio.sleep(0.01)  # run_sync_soon: on the Trio side, not on the caller's

    trio.run(main)
    assert me.change_wanted == "sit-out"
    assert session.snapshot().change_wanted == "sit-out"


def test_the_driver_session_waits_while_newcomers_wait_and_refuses_fixed_seats() -> None:
    sim = start_game(make_config("limit-tuppen", 3), random.Random(4))
    session = DriverSession(sim.table, 0, clock=lambda: 0.0)
    me = sim.machines[0]
    session.observe(me)
    me.want_change("reseat")  # the host's node: newcomers wait to sit down

    async def ask() -> None:
        session.attach()
        session.want_change("stand")
        await trio.sleep(0.01)

    trio.run(ask)
    assert me.change_wanted == "reseat"  # they sit down first, we stand up a hand later
    assert session.snapshot().change_wanted == "stand"

    fixed = start_game(make_config("tuppen", 3), random.Random(4))
    session = DriverSession(fixed.table, 0, clock=lambda: 0.0)
    session.observe(fixed.machines[0])
    trio.run(ask)
    snap = session.snapshot()
    assert snap.change_wanted is None and fixed.machines[0].change_wanted is None
    assert any("keeps its seats" in e for e in snap.errors)


# ---------------------------------------------------------------- keys


def test_the_key_in_a_fixed_seat_game_says_why_and_asks_nothing() -> None:
    session = FakeSession(snapshot())
    code, app = run_keys(session, ["w", "q", "y"])
    assert code == 0 and session.changes == []
    assert "keeps its seats" in app.ui.message


def test_no_is_no() -> None:
    session = FakeSession(snapshot(seat_changes=True))
    _, app = run_keys(session, ["o", "n", "w", "\x1b", "q", "y"])
    assert session.changes == [] and app.ui.confirm_change is None


def test_standing_up_by_keys_at_a_local_table() -> None:
    session = LocalSession(make_config("limit-tuppen", 3), seed=7, human_name="ann")
    output, drawn = screen_output()
    seen: list[str] = []

    async def main() -> int:
        with create_pipe_input() as inp:
            app = TableApp(session, input=inp, output=output)
            task = asyncio.create_task(app.app.run_async())
            for _ in range(400):  # the table has drawn (bounded, not timed)
                if app.snap.hand_number:
                    break
                await asyncio.sleep(0.02)
            inp.send_text("w")
            inp.send_text("y")
            for _ in range(400):
                if app.snap.change_wanted == "stand":
                    break
                await asyncio.sleep(0.02)
            for _ in range(400):
                if "you stand up after this hand" in ansi_free(drawn.getvalue()):
                    seen.append("pending")
                    break
                await asyncio.sleep(0.02)
            await drive(
                app,
                lambda snap: choose_key(app, snap),
                lambda snap: snap.left is not None and app.ui.summary is None,
                inp.send_text,
            )
            for _ in range(400):
                if "You left the table" in ansi_free(drawn.getvalue()):
                    seen.append("panel")
                    break
                await asyncio.sleep(0.02)
            inp.send_text("q")
            code = await task
            app.session.close()
            return code

    assert asyncio.run(main()) == 0
    assert seen == ["pending", "panel"]
    snap = session.snapshot()
    assert snap.left == "stand" and not snap.errors and session.failure is None
    assert "The table goes on without you." in ansi_free(drawn.getvalue())


def test_the_driver_session_follows_the_table_into_its_next_part() -> None:
    rng = random.Random(8)
    sim = start_game(make_config("limit-tuppen", 3), rng)
    me = sim.machines[2]
    session = DriverSession(sim.table, 2, clock=lambda: 0.0)
    session.observe(me)
    before = session.snapshot().names
    sim.machines[0].want_change("stand")  # seat 0 stands up after this hand
    run_game(sim, rng)
    assert me.seat_change is not None
    session.observe(me, [me.seat_change])
    between = session.snapshot()
    assert between.changing and not between.over  # the screen must not say "game over"
    host = sim.machines[1]  # the first seat that stays hosts the next part
    config = host.next_segment()
    events = me.receive(host.take_outgoing()[0], 0.0)  # the next-config, checked by our machine
    assert any(isinstance(e, SegmentStarted) and e.seated for e in events)
    session.observe(me, events)
    snap = session.snapshot()
    assert snap.segment == 2 and snap.names == tuple(s.name for s in config.seats)
    assert snap.seat == 1 and len(snap.names) == 2 and not snap.over
    (old,) = snap.earlier
    assert old.names == before and old.seat == 2 and old.results
    assert any("stands up" in line for line in P.log_lines(snap, EN))


def test_closing_the_screen_after_standing_up_lets_the_node_finish() -> None:
    """A host that stood up may be the others' direct-link hub: closing its screen must not
    cancel the node (which passes their messages until they finish), only Ctrl-C does."""
    session = DriverSession(lobby=LobbyState(role="host", name="bot0", game="limit-tuppen"))
    rng = random.Random(8)
    done: list[str] = []
    reports: list[str] = []
    with create_pipe_input() as inp:

        async def node_main() -> int:
            sim = start_game(make_config("limit-tuppen", 3), rng)
            me = sim.machines[0]
            session.observe(me)
            me.want_change("stand")
            run_game(sim, rng)
            host = sim.machines[1]
            host.next_segment()
            session.observe(me, me.receive(host.take_outgoing()[0], 0.0))
            assert session.snapshot().left == "stand"
            await trio.sleep(0.3)  # the table screen is up
            for _ in range(8):  # the result panels, then "You left the table": Space closes
                inp.send_text(" ")
                await trio.sleep(0.1)
            await trio.sleep(1.5)  # still serving after the screen closed
            done.append("served")
            return 0

        code = run_node_client(
            session, node_main, input=inp, output=DummyOutput(), report=reports.append
        )
    assert done == ["served"] and code == 0
    assert reports[0].startswith("You left the table. Letting the others catch up first")
