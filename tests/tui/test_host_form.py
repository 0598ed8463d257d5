"""The start screen's host form (issue 25, item 1): "Host a table" asks the game, the seats,
how many bots fill, the time per move, the ways in and the house rules, starting from the last
choice; Enter hosts exactly that. Driven by keys on the real screen (no terminal), and the
form's model directly."""

from __future__ import annotations

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from dealerless.client import start_launch
from dealerless.client.cli import build_parser
from dealerless.client.tui.host_form import HostForm
from dealerless.client.tui.settings import Settings
from dealerless.client.tui.start import StartChoice, StartScreen

RIGHT, LEFT, DOWN, ENTER, ESC = "\x1b[C", "\x1b[D", "\x1b[B", "\r", "\x1b"


def run_start(keys: list[str], settings: Settings) -> tuple[StartScreen, StartChoice]:
    with create_pipe_input() as inp:
        screen = StartScreen(settings, input=inp, output=DummyOutput(), can_host=True)
        for key in keys:
            inp.send_text(key)
        choice = screen.run()
    return screen, choice


def test_the_form_asks_and_hosts_exactly_what_was_chosen() -> None:
    settings = Settings(name="ann", timeout_s=60)  # host form defaults: limit-tuppen, 2 seats
    keys = [
        "2",  # Host a table (internet): the form opens, it does not host yet
        DOWN, RIGHT, RIGHT,  # seats 2 -> 4
        DOWN, RIGHT,  # one bot
        DOWN, RIGHT, RIGHT,  # time per move 60 -> 80 s
        ENTER,
    ]  # fmt: skip
    _screen, choice = run_start(keys, settings)
    assert (choice.kind, choice.game, choice.seats, choice.bots) == ("host", "limit-tuppen", 4, 1)
    assert not choice.lan_only
    assert settings.timeout_s == 80
    # remembered for next time (the settings file's [host])
    config = settings.to_config()
    assert (config.host_game, config.host_seats, config.host_bots) == ("limit-tuppen", 4, 1)
    argv = start_launch.host_argv(settings, choice)
    args = build_parser().parse_args(argv)
    assert (args.game, args.seats, args.bots, args.step_timeout) == ("limit-tuppen", 4, 1, 80)


def test_the_lan_entry_and_the_ways_row_choose_the_ways_in() -> None:
    settings = Settings()
    _, choice = run_start(["3", ENTER], settings)  # Host a table (this network only)
    assert choice.lan_only
    _, choice = run_start(["3", *[DOWN] * 4, RIGHT, ENTER], settings)  # ways: back to internet
    assert not choice.lan_only


def test_escape_leaves_the_form_without_hosting() -> None:
    settings = Settings()
    screen, choice = run_start(["2", ESC, "q"], settings)
    assert choice.kind == "quit" and screen.mode == "menu"


def test_seats_and_bots_stay_within_the_game() -> None:
    settings = Settings()
    settings.host_game, settings.host_seats, settings.host_bots = "limit-tuppen", 8, 7
    form = HostForm(settings, lan_only=False)
    assert form.people == 0 and "Only you and bots" in form.summary("en")
    form.change("seats", 1)
    assert form.seats == 8  # the game's most
    form.change("bots", 1)
    assert form.bots == 7  # every seat but ours
    while form.game != "belote":
        form.change("game", 1)
    assert (form.seats, form.bots) == (4, 3)  # belote is for 4; the bots follow
    form.change("bots", -5)
    assert form.bots == 0 and form.people == 3
    assert "3 player(s)" in form.summary("en")


def test_the_house_rules_of_the_chosen_game_change_on_their_rows() -> None:
    settings = Settings()
    form = HostForm(settings, lan_only=False)
    keys = [key for key, _ in form.rows("en")]
    assert keys[:5] == ["game", "seats", "bots", "time", "ways"]
    hands = "rule:hands"
    assert hands in keys
    before = form.rows("en")[keys.index(hands)][1]
    form.change(hands, 1)
    assert form.rows("en")[keys.index(hands)][1] != before
    assert "hands" in settings.rules["limit-tuppen"]
