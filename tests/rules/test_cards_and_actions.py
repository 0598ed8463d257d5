import pytest

from dealerless.protocol.cards import DECK, Card, Rank, Suit
from dealerless.protocol.rules.base import Action, ActionKind
from dealerless.protocol.rules.tuppen_tricks import trick_winner


def test_deck_has_32_distinct_cards_with_stable_indices() -> None:
    assert len(set(DECK)) == 32
    assert [c.index for c in DECK] == list(range(32))
    assert Card.from_index(31) == Card(Suit.SPADES, Rank.ACE)


@pytest.mark.parametrize("text", ["QH", "10s", "T♠", "7d", "AC"])
def test_card_parse_round_trips(text: str) -> None:
    card = Card.parse(text)
    assert Card.parse(str(card)) == card


@pytest.mark.parametrize("bad", ["", "X", "1H", "QZ", "11C"])
def test_card_parse_rejects_garbage(bad: str) -> None:
    with pytest.raises(ValueError):
        Card.parse(bad)


def test_action_wire_round_trip() -> None:
    a = Action(ActionKind.PLAY, 3, card=Card.parse("9C"), position=17)
    assert Action.from_wire(a.to_wire()) == a


@pytest.mark.parametrize(
    "wire",
    [
        [],
        {"kind": "dance", "seat": 0},
        {"kind": "play", "seat": 9},
        {"kind": "play", "seat": True},
        {"kind": "play", "seat": 0, "card": 32},
        {"kind": "play", "seat": 0, "extra": 1},
        {"kind": "bet", "seat": 0, "amount": 10**12},
        {"kind": 5, "seat": 0},
    ],
)
def test_action_from_wire_rejects_malformed(wire: object) -> None:
    with pytest.raises(ValueError):
        Action.from_wire(wire)


def test_folded_leader_special_case() -> None:
    # Leader (seat 0) folded: no active seat followed hearts, so seat 1's suit decides.
    plays = [(0, Card.parse("10H")), (1, Card.parse("JS")), (2, Card.parse("7S"))]
    assert trick_winner(plays, {1, 2}) == 2
    assert trick_winner(plays, {0, 1, 2}) == 0
