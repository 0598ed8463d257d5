"""The presenters over real games: every game, every move the engines offered, three languages,
symbols and letters. The human seat is played by the bot through a LocalSession (the real table
protocol: keys, signatures, the mental-poker deck)."""

from __future__ import annotations

from collections import Counter

import pytest
from tui_helpers import play_by_bot

from dealerless.client.tui import presenter as P
from dealerless.client.tui.i18n import LANGUAGES
from dealerless.client.tui.model import TableSnapshot
from dealerless.client.tui.session import LocalSession
from dealerless.protocol.rules.base import ActionKind
from dealerless.protocol.rules.registry import make_config

GAMES = [
    # game, players, options, hands to play, info keys that must show up
    ("tuppen", 4, {}, None, {"info.stake"}),
    ("tuppen", 3, {"tupp_attempt": True}, 3, {"info.stake"}),
    ("limit-tuppen", 4, {}, 2, {"info.pot", "info.bet", "info.ante"}),
    ("no-limit-tuppen", 3, {}, 2, {"info.pot", "info.bet"}),
    ("pot-limit-tuppen", 3, {}, 2, {"info.pot", "info.bet"}),
    ("pottuppen", 3, {}, 3, {"info.pot"}),
    ("belote", 4, {}, 2, {"info.team"}),  # trump and taker: checked below when someone took
]


def text(fragments: P.Fragments) -> str:
    return "".join(t for _, t, *_ in fragments)


def render_all(snap: TableSnapshot) -> str:
    out = []
    for lang in LANGUAGES:
        for unicode in (True, False):
            look = P.Look(lang, unicode)
            out.append(text(P.header(snap, look)))
            out.append(text(P.seats(snap, look)))
            out.append(text(P.trick(snap, look)))
            out.append(text(P.hand(snap, look, 0)))
            out.append(text(P.actions(snap, look)))
            out.append(text(P.countdown(snap, look, snap.now)))
            out.extend(P.log_lines(snap, look))
            out.extend(P.summary(snap, look, snap.results[-1] if snap.results else None))
            group = P.grouped_actions(snap)
            if group:
                out.append(text(P.actions(snap, look, group[0][1], 0)))
    return "\n".join(out)


@pytest.mark.parametrize(("game", "players", "options", "hands", "infos"), GAMES)
def test_presenters_over_a_game(game, players, options, hands, infos) -> None:  # type: ignore[no-untyped-def]
    session = LocalSession(make_config(game, players, options), seed=11, human_name="ann")
    kinds: Counter[ActionKind] = Counter()
    seen_infos: set[str] = set()

    def check(snap: TableSnapshot) -> None:
        for action in snap.legal:
            kinds[action.kind] += 1
            assert action.kind is ActionKind.PLAY or action.kind in P.ACTION_KEYS
        for key, _ in snap.info:
            seen_infos.add(key.partition(":")[0])
        shown = render_all(snap)
        look = P.Look("en", False)
        actions = text(P.actions(snap, look))
        for kind, _ in P.grouped_actions(snap):
            assert f"{P.ACTION_KEYS[kind]} " in actions
        hand = text(P.hand(snap, look, None))
        for i, card in enumerate(snap.hand):
            assert f"{i + 1}:" in hand
            playable = card in snap.playable()
            if snap.playable():
                assert (f"({P.card_text(card, look)})" in hand) != playable
        assert "{" not in shown  # every text had its values filled in

    play_by_bot(session, until_hands=hands, on_decision=check)
    final = session.snapshot()
    # the deck is shuffled with real randomness (mental poker), so hands differ run to run
    assert kinds, "the human had moves"
    assert infos <= seen_infos, seen_infos
    if game == "belote" and any("redeal" not in r.reason for r in final.results):
        assert {"info.trump", "info.taker"} <= seen_infos, seen_infos
    assert final.results, "at least one hand ended"
    lines = P.summary(final, P.Look("en", True), final.results[-1])
    assert any("Every proof checked" in line for line in lines)
    for name in final.names:
        assert any(name in line for line in lines)
    log = P.log_lines(final, P.Look("en", True))
    assert any(line.startswith("Hand 1 starts") for line in log)
    assert any("signed by every seat" in line for line in log)
    assert not final.errors and not final.violations
    render_all(final)


def test_a_whole_tuppen_game_ends_with_the_outcome() -> None:
    session = LocalSession(make_config("tuppen", 2), seed=5, human_name="ann")
    play_by_bot(session)
    final = session.snapshot()
    assert final.over and final.outcome is not None
    lines = P.summary(final, P.Look("nl", True), None)
    assert lines[0] == "Het spel is voorbij"
    assert any(line.startswith("Winnaars:") for line in lines)
