"""The lobby of a networked seat (before every seat has joined) and the hand-over to the table
screen, with Trio in guest mode: pipe input, in-memory output, a Trio task for the node."""

from __future__ import annotations

import random
import subprocess
import threading
import time
from collections.abc import Awaitable, Callable
from types import SimpleNamespace

import trio
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from tui_helpers import screen_output

from dealerless.client.protocol_sim import start_game
from dealerless.client.tui.lobby import LobbyApp, invite_lines, lobby_text, run_node_client
from dealerless.client.tui.node_session import DriverSession, LobbyState
from dealerless.node.drivers import LobbyView
from dealerless.node.notices import Who, notice
from dealerless.protocol.rules.registry import make_config

INVITE = "dl1:" + "AbCd" * 40


def text_of(lobby: LobbyState, width: int = 80) -> str:
    return "".join(t for _, t, *_ in lobby_text(lobby, "en", width))


def test_the_host_lobby_shows_the_invite_ready_to_copy_and_who_is_missing() -> None:
    session = DriverSession(lobby=LobbyState(role="host", name="ann", game="tuppen", seats=4))
    assert session.lobby.names == ["ann"] and session.lobby.need == 3
    session.on_ready(SimpleNamespace(invite=INVITE, table_id="ab" * 16, seats=4, game="tuppen"))
    session.say(
        notice("joined", who=Who(name="bob"), fingerprint="EF56-7890-AB12", count=2, seats=4)
    )
    session.on_lobby(LobbyView(("ann", "bob"), 2))
    text = text_of(session.lobby)
    lines = text.splitlines()
    start = lines.index("Invite code (give it to the other players):") + 1
    # a join command whose code sits in quotes: wrapped at 80 columns, pasted into a shell the
    # line break stays inside the quoted argument (join drops white space in a code), so no
    # half of the code runs as a command of its own
    end = next(i for i in range(start, len(lines)) if lines[i].endswith("'"))
    pasted = "\n".join(lines[start : end + 1])
    assert all(len(line) <= 79 for line in lines[start : end + 1])
    assert pasted.startswith("dealerless join 'dl1:") and pasted.count("'") == 2
    assert "".join(pasted.split("'")[1].split()) == INVITE
    short = "dl1:" + "AbCd" * 10
    (one,) = invite_lines(short, 80)
    assert one == f"dealerless join '{short}'"

    assert "Tuppen (classic, penalty points), 4 seats" in text
    assert "At the table (2/4):" in text and "1. ann  (you)  host" in text and "2. bob" in text
    assert "waiting for 2 more player(s)" in text
    session.say(notice("at_table", listed="ann, bob", need=2))
    session.say(notice("at_table", listed="ann, bob", need=2))
    assert "at the table:" not in text_of(session.lobby)  # the list above says it, once
    session.say(notice("peer_down", who=Who(name="bob")))
    session.on_lobby(LobbyView(("ann",), 3))
    assert session.lobby.names == ["ann"] and session.lobby.need == 3
    # the node's messages are shown, in the screen's words: the name without its repr quotes
    assert "bob lost the connection" in text_of(session.lobby)
    assert "'bob'" not in text_of(session.lobby)


def test_a_default_size_code_keeps_a_line_of_its_own_at_80_columns() -> None:
    """A 74-character code (the default invite, spec/node.md §4): the command ends in a
    backslash and the quoted code is whole on the next line; a shell runs the two lines as one
    command with the code as its only argument, and the code copied with its quotes decodes."""
    code = "dl3:" + "Ab_-" * 17 + "xy"
    command, quoted = invite_lines(code, 79)
    assert command == "dealerless join \\" and quoted == f"'{code}'"
    shell = subprocess.run(
        ["sh", "-c", 'dealerless() { printf "%s|" "$@"; }\n' + command + "\n" + quoted],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert shell.stdout == f"join|{code}|"


def test_the_joiner_lobby_follows_the_hosts_list() -> None:
    session = DriverSession(lobby=LobbyState(role="join", name="bob", game="belote", seats=4))
    assert "connecting to the host" in text_of(session.lobby)
    session.on_lobby(LobbyView(("ann", "bob", "carl"), 1))
    text = text_of(session.lobby)
    assert session.lobby.names == ["ann", "bob", "carl"] and session.lobby.need == 1
    assert "1. ann  host" in text and "2. bob  (you)" in text
    assert "waiting for 1 more player(s)" in text
    session.on_lobby(LobbyView(("ann", "bob", "carl", "dan"), 0))
    assert "everyone is here" in text_of(session.lobby)


def test_c_copies_the_invite_through_the_terminal() -> None:
    session = DriverSession(lobby=LobbyState(role="host", name="ann", game="tuppen", seats=2))
    session.on_ready(SimpleNamespace(invite=INVITE, table_id="", seats=2, game="tuppen"))
    out, buffer = screen_output()
    with create_pipe_input() as inp:
        lobby = LobbyApp(session, input=inp, output=out)
        sequence = lobby.copy()
    assert sequence.startswith("\x1b]52;c;") and sequence in buffer.getvalue()
    assert lobby.copied


def _sim_node(session: DriverSession, seen: list[str]) -> Callable[[], Awaitable[int]]:
    """A stand-in node: says lobby messages, waits, then the table machine appears."""

    async def node_main() -> int:
        session.say(notice("connected", peers=1))
        session.on_lobby(LobbyView(("ann", "bob"), 1))
        await trio.sleep(0.2)
        seen.append("lobby" if not session.ready else "table")
        sim = start_game(make_config("tuppen", 3), random.Random(3))
        session.observe(sim.machines[1])
        await trio.sleep_forever()
        return 0

    return node_main


def test_the_lobby_hands_over_to_the_table_and_leaving_stops_the_node() -> None:
    session = DriverSession(lobby=LobbyState(role="join", name="bob", game="tuppen", seats=3))
    seen: list[str] = []
    reports: list[str] = []
    with create_pipe_input() as inp:
        node = _sim_node(session, seen)

        async def node_and_player() -> int:
            async with trio.open_nursery() as nursery:

                async def player() -> None:
                    while not session.ready:
                        await trio.sleep(0.01)
                    await trio.sleep(0.2)  # the table screen is up
                    inp.send_text("q")
                    await trio.sleep(0.1)
                    inp.send_text("y")

                nursery.start_soon(player)
                return await node()

        code = run_node_client(
            session, node_and_player, input=inp, output=DummyOutput(), report=reports.append
        )
    assert seen == ["lobby"]
    assert session.ready and session.snapshot().names == ("bot0", "bot1", "bot2")
    assert code == 1  # left before the end of the game
    assert reports[-1] == "left the table before the end of the game"


def test_a_node_that_ends_in_the_lobby_says_why_until_the_player_leaves() -> None:
    session = DriverSession(lobby=LobbyState(role="join", name="bob", game="tuppen", seats=3))
    reports: list[str] = []

    async def refused() -> int:
        await trio.sleep(0.05)
        session.say(notice("host_refused", reason="the table is full"))
        return 1

    shown: list[str] = []
    with create_pipe_input() as inp:

        def player() -> None:
            # the lobby stays and says why, instead of closing (or waiting for the players)
            for _ in range(1000):
                if session.lobby.ended:
                    break
                time.sleep(0.01)
            shown.append("".join(t for _, t, *_ in lobby_text(session.lobby, "en")))
            inp.send_text("q")

        leaving = threading.Thread(target=player)
        leaving.start()
        code = run_node_client(
            session, refused, input=inp, output=DummyOutput(), report=reports.append
        )
        leaving.join()
    assert code == 1 and not session.ready
    assert "The table did not start: The table is full" in shown[0]
    assert "more player(s)" not in shown[0] and "connecting" not in shown[0]
    assert reports == ["The table is full: the host refused the seat."]


def test_q_in_the_lobby_leaves_and_cancels_the_node() -> None:
    session = DriverSession(lobby=LobbyState(role="host", name="ann", game="tuppen", seats=3))
    cancelled: list[bool] = []

    async def waiting() -> int:
        try:
            await trio.sleep_forever()
        finally:
            cancelled.append(True)
        return 0

    with create_pipe_input() as inp:
        inp.send_text("q")
        code = run_node_client(session, waiting, input=inp, output=DummyOutput(), report=print)
    assert code == 1 and cancelled == [True]
