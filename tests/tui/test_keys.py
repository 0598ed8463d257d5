"""Key bindings of the table screen, driven through prompt_toolkit's pipe input (no terminal)."""

from __future__ import annotations

import pytest
from tui_helpers import FakeSession, run_keys, snapshot

from dealerless.client.tui.presenter import ACTION_KEYS
from dealerless.protocol.cards import Card, Suit
from dealerless.protocol.rules.base import Action, ActionKind, HandResult

QUIT = ["q", "y"]
C = Card.parse


def variants(kind: ActionKind) -> list[Action]:
    """Two or more variants of a kind of move, as the engines list them."""
    if kind in (ActionKind.KNOCK, ActionKind.RAISE, ActionKind.BET):
        return [Action(kind, 0, amount=n) for n in (1, 2, 3)]
    if kind is ActionKind.BID:
        return [Action(kind, 0, suit=s) for s in (Suit.HEARTS, Suit.SPADES)]
    if kind is ActionKind.TUPP_ATTEMPT:
        three = (C("7C"), C("7D"), C("7H"))
        return [
            Action(kind, 0, cards=three, card=C("8S")),
            Action(kind, 0, cards=three, card=C("9S")),
        ]
    return [Action(kind, 0), Action(kind, 0, amount=0)]


@pytest.mark.parametrize("kind", [k for k in ActionKind if k is not ActionKind.PLAY])
def test_every_kind_of_move_has_a_key(kind: ActionKind) -> None:
    action = variants(kind)[0]
    session = FakeSession(snapshot([action, Action(ActionKind.PLAY, 0, card=C("AS"))], [C("AS")]))
    code, _ = run_keys(session, [ACTION_KEYS[kind], *QUIT])
    assert code == 0
    assert session.acted == [action]


@pytest.mark.parametrize("kind", [k for k in ActionKind if k is not ActionKind.PLAY])
def test_variants_open_a_chooser_number_arrows_escape(kind: ActionKind) -> None:
    options = variants(kind)
    session = FakeSession(snapshot(options))
    key = ACTION_KEYS[kind]
    # by number; by arrow + Enter; Escape closes the chooser without a move
    code, app = run_keys(session, [key, "2", key, "\x1b[C", "\r", key, "\x1b", "\r", *QUIT])
    assert code == 0
    assert session.acted == [options[1], options[1]]
    assert app.ui.chooser is None


def test_cards_by_number_and_arrows_illegal_ignored() -> None:
    hand = [C("7C"), C("JD"), C("8H"), C("7S")]
    legal = [Action(ActionKind.PLAY, 0, card=c) for c in (C("7C"), C("7S"))]
    session = FakeSession(snapshot(legal, hand))
    # sorted hand: 7C JD 8H 7S -> 2 (JD) is not playable; 4 (7S) is; the arrows move over
    # the playable cards only: Right selects 7C; Left, Left goes 7S then 7C
    code, _ = run_keys(session, ["2", "4", "\x1b[C", "\r", "\x1b[D", "\x1b[D", "\r", *QUIT])
    assert code == 0
    assert session.acted == [legal[1], legal[0], legal[0]]


def test_quit_asks_while_running_and_not_after() -> None:
    session = FakeSession(snapshot())
    code, _app = run_keys(session, ["q", "n", "q", "\x1b", "\x03", "y"])
    assert code == 0 and session.acted == [] and session.closed == 1
    over = FakeSession(snapshot(over=True))
    code, _ = run_keys(over, ["\r"])  # the end-of-game panel: Enter leaves
    assert code == 0


def test_ctrl_c_twice_and_german_yes() -> None:
    code, _ = run_keys(FakeSession(snapshot()), ["\x03", "\x03"])
    assert code == 130
    code, _ = run_keys(FakeSession(snapshot()), ["q", "j"], lang="de")
    assert code == 0


def test_french_yes_is_o() -> None:
    session = FakeSession(snapshot())
    code, _ = run_keys(session, ["q", "o"], lang="fr")
    assert code == 0 and session.acted == [] and session.closed == 1


def test_help_opens_and_any_key_closes() -> None:
    action = Action(ActionKind.KNOCK, 0)
    session = FakeSession(snapshot([action]))
    _code, _app = run_keys(session, ["?", "k", "?", "x", "k", *QUIT])
    assert session.acted == [action]  # the keys that closed help did nothing else


def test_chat_line() -> None:
    session = FakeSession(snapshot([Action(ActionKind.KNOCK, 0)]))
    _code, _ = run_keys(session, ["m", "hallo k", "\r", "m", "nope", "\x1b", *QUIT])
    assert session.chat == ["hallo k"]
    assert session.acted == []  # the k inside the chat line is text, not a knock


def test_hand_summary_shows_and_space_closes() -> None:
    result = HandResult(1, (2,), (0, 3, 0, 3), "last trick")
    session = FakeSession(snapshot([Action(ActionKind.KNOCK, 0)]))
    # the summary opens when a new result arrives; keys go to it until Space
    with_result = snapshot([Action(ActionKind.KNOCK, 0)], results=[result])

    def swap() -> None:
        session.snap = with_result

    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from dealerless.client.tui.app import TableApp

    with create_pipe_input() as inp:
        app = TableApp(session, input=inp, output=DummyOutput(), clock=lambda: 0.0)
        swap()
        app._before_render()
        assert app.ui.summary == result
        text = "".join(t for _, t, *_ in app._summary_text())
        assert "Hand 1 is over" in text and "cy" in text and "Every proof checked" in text
        inp.send_text("k")  # ignored while the panel shows
        inp.send_text(" ")
        inp.send_text("k")
        inp.send_text("q")
        inp.send_text("y")
        assert app.run() == 0
    assert session.acted == [Action(ActionKind.KNOCK, 0)]


def test_save_key(tmp_path) -> None:  # type: ignore[no-untyped-def]
    session = FakeSession(snapshot())
    _code, app = run_keys(session, ["s", *QUIT], save_dir=tmp_path)
    saved = list(tmp_path.iterdir())
    assert len(saved) == 1 and "saved" in app.ui.message.lower()


def test_trio_runs_in_guest_mode_beside_the_screen() -> None:
    """A Trio task (as a networked node would be) runs inside the app's loop: it sleeps on
    Trio's clock, acts through the session while the screen runs, then presses quit."""
    import trio
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from dealerless.client.tui.app import TableApp

    action = Action(ActionKind.KNOCK, 0)
    session = FakeSession(snapshot([action]))
    seen: list[str] = []
    with create_pipe_input() as inp:
        app = TableApp(session, input=inp, output=DummyOutput(), clock=lambda: 0.0)

        async def node() -> None:
            await trio.sleep(0.01)
            seen.append("trio ran")
            session.act(action)
            inp.send_text("q")
            inp.send_text("y")
            await trio.sleep_forever()  # cancelled when the player quits

        assert app.run(trio_main=node) == 0
    assert seen == ["trio ran"] and session.acted == [action]


def test_a_trio_crash_is_not_swallowed() -> None:
    import trio
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from dealerless.client.tui.app import TableApp

    with create_pipe_input() as inp:
        app = TableApp(FakeSession(snapshot()), input=inp, output=DummyOutput())

        async def node() -> None:
            await trio.sleep(0)
            raise RuntimeError("node failed")  # the screen closes by itself

        with pytest.raises(RuntimeError, match="node failed"):
            app.run(trio_main=node)


def test_r_on_the_game_over_panel_asks_for_another_game_where_one_is_offered() -> None:
    """``dealerless play`` offers a rematch (same settings, a new table): r on the game-over
    panel leaves the screen with ``ui.rematch`` set; where none is offered r does nothing."""
    code, app = run_keys(FakeSession(snapshot(over=True)), ["r"], rematch=True)
    assert code == 0 and app.ui.rematch
    assert "r: rematch" in "".join(text for _, text in app._summary_text())
    code, app = run_keys(FakeSession(snapshot(over=True)), ["r", "\r"])
    assert code == 0 and not app.ui.rematch
    assert "rematch" not in "".join(text for _, text in app._summary_text())
    running = FakeSession(snapshot())
    code, app = run_keys(running, ["r", "q", "y"], rematch=True)  # no game over: no rematch
    assert not app.ui.rematch


def test_a_space_typed_ahead_does_not_close_the_game_over_panel_unseen() -> None:
    """Issue 25 item 6: Space pressed twice on the last hand's panel, the second reaching the
    game-over panel that replaced it, is ignored; a Space after a glance leaves."""
    import time

    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from dealerless.client.tui.app import TYPED_AHEAD_S, TableApp

    result = HandResult(1, (2,), (0, 3, 0, 3), "last trick")
    session = FakeSession(snapshot())
    with create_pipe_input() as inp:
        app = TableApp(session, input=inp, output=DummyOutput(), clock=lambda: 0.0)
        session.snap = snapshot(over=True, results=[result])  # the last hand ends the game
        app._before_render()
        assert app.ui.summary == result  # the last hand's panel first

        async def keys() -> None:
            import asyncio

            inp.send_text("  ")  # closes the hand's panel, then typed ahead
            await asyncio.sleep(0.2)
            assert app.ui.summary is None and app.ui.summary_game
            assert app.app.is_running  # the game-over panel is still there
            await asyncio.sleep(TYPED_AHEAD_S)
            inp.send_text(" ")  # a person's Space, after a glance

        app.app.pre_run_callables.append(lambda: app.app.create_background_task(keys()))
        started = time.monotonic()
        assert app.run() == 0
        assert time.monotonic() - started >= TYPED_AHEAD_S


def test_from_the_start_screen_the_game_over_panel_goes_back_to_the_menu() -> None:
    code, app = run_keys(FakeSession(snapshot(over=True)), [" "], menu=True)
    text = "".join(text for _, text in app._summary_text())
    assert code == 0 and "Space: back to the menu" in text and "Space: continue" not in text
    code, app = run_keys(FakeSession(snapshot(over=True)), [" "])
    assert "Space: continue" in "".join(text for _, text in app._summary_text())
