"""spec/rules/wire.md against the engines: the public-state layouts list exactly the keys the
engines' states have, the states hold only the documented msgpack types, and every hand and
game reason an engine gives is one the page lists."""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import msgpack
import pytest

from dealerless.client.bots import lineup_bot
from dealerless.client.simulate import play_hand
from dealerless.protocol.rules.base import Engine, HandResult
from dealerless.protocol.rules.registry import make_config, new_engine

ROOT = Path(__file__).resolve().parents[2]
WIRE = ROOT / "spec" / "rules" / "wire.md"

# game -> (layout name, seats, option sets); the option sets reach the laundry, Tupp and
# poverty paths and every Limit mode.
GAMES: dict[str, tuple[str, int, list[dict[str, Any]]]] = {
    "tuppen": (
        "tuppen",
        4,
        [{}, {"dirty_laundry": True, "tupp": True, "tupp_attempt": True, "poverty": True}],
    ),
    "limit-tuppen": (
        "limit-tuppen",
        4,
        [{"hands": 6, "dirty_laundry": True}, {"mode": "tournament"}, {"mode": "cash"}],
    ),
    "no-limit-tuppen": ("limit-tuppen", 3, [{"hands": 4}]),
    "pot-limit-tuppen": ("limit-tuppen", 3, [{"hands": 4}]),
    "pottuppen": ("pottuppen", 3, [{"hands": 8}]),
    "belote": ("belote", 4, [{"target": 300}]),
}
SEEDS = range(6)
ABORT_REASONS = ("seat 1 was silent past the deadline", "invalid shuffle proof")


def layout(name: str) -> set[str]:
    text = WIRE.read_text()
    block = re.search(rf"<!-- layout:{name} -->\n(.*?)<!-- /layout:{name} -->", text, re.S)
    assert block, f"wire.md has no layout:{name} block"
    return set(re.findall(r"^\| `([^`]+)` \|", block.group(1), re.M))


def paths(value: Any, prefix: str = "") -> Iterator[str]:
    """Every map key as a dotted path; map items of arrays as ``a[].b``. The option map and
    arrays of arrays are leaves."""
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            yield path
            if path != "options":
                yield from paths(item, path)
    elif isinstance(value, list | tuple):
        for item in value:
            if isinstance(item, dict):
                yield from paths(item, f"{prefix}[]")


def plain(value: Any) -> bool:
    """Only nil, bool, int, str, arrays and maps with str keys (no float, no bin)."""
    if value is None or isinstance(value, bool | int | str):
        return True
    if isinstance(value, list | tuple):
        return all(plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and plain(v) for k, v in value.items())
    return False


def canonical(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: canonical(value[k]) for k in sorted(value)}
    if isinstance(value, list | tuple):
        return [canonical(v) for v in value]
    return value


@cache
def observed(game: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """Key paths, hand reasons and game reasons over several games of ``game`` (one voided
    hand each), with every public state checked for its types and its digest."""
    _, seats, option_sets = GAMES[game]
    found: set[str] = set()
    hand_reasons: set[str] = set()
    game_reasons: set[str] = set()

    def look(engine: Engine, _action: object = None) -> None:
        state = engine.public_state()
        assert plain(state), f"{game}: a public state holds a type outside the data model"
        packed = msgpack.packb(canonical(state), use_bin_type=True)
        assert hashlib.sha256(packed).digest() == engine.public_digest()
        found.update(paths(state))

    for options in option_sets:
        for seed in SEEDS:
            rng = random.Random(seed)
            engine = new_engine(make_config(game, seats, options), first_dealer=seed % seats)
            bot = lineup_bot(game, None)
            look(engine)
            hands = 0
            while engine.outcome is None and hands < 12:
                engine.start_hand()
                look(engine)
                if hands == 1:  # one voided hand per game
                    result: HandResult = engine.abort_hand(1, ABORT_REASONS[seed % 2])
                else:
                    result = play_hand(engine, rng, bot, on_step=look)
                look(engine)
                hand_reasons.add(result.reason)
                hands += 1
            if engine.outcome is not None:
                game_reasons.add(engine.outcome.reason)
    return frozenset(found), frozenset(hand_reasons), frozenset(game_reasons)


# covers: W-6
@pytest.mark.parametrize("game", list(GAMES))
def test_the_public_state_has_exactly_the_documented_keys(game: str) -> None:
    documented = layout(GAMES[game][0])
    keys, _, _ = observed(game)
    assert not keys - documented, f"{game}: keys wire.md does not list: {sorted(keys - documented)}"


@pytest.mark.parametrize("name", sorted({g[0] for g in GAMES.values()}))
def test_every_documented_key_occurs(name: str) -> None:
    seen: set[str] = set()
    for game, (layout_name, _, _) in GAMES.items():
        if layout_name == name:
            seen |= observed(game)[0]
    missing = layout(name) - seen
    assert not missing, f"{name}: wire.md lists keys no state had: {sorted(missing)}"


def documented_reasons() -> list[re.Pattern[str]]:
    text = WIRE.read_text()
    section = text[text.index("## 4. The hand result") :]
    out = []
    for row in re.findall(r"^\| [^|]+ \| [^|]+ \| (.+?) \| `[a-z_]+` \|$", section, re.M):
        # `text` pieces are literal; *T*, *N*, *t*, *target* are free text or numbers.
        parts = re.findall(r"`([^`]*)`|\*([^*]+)\*", row)
        pattern = "".join(re.escape(lit) if lit else ".+" for lit, _ in parts)
        out.append(re.compile(pattern))
    return out


# covers: W-8
@pytest.mark.parametrize("game", list(GAMES))
def test_every_reason_is_a_documented_one(game: str) -> None:
    _, hands, ends = observed(game)
    patterns = documented_reasons()
    for reason in sorted(hands | ends):
        assert any(p.fullmatch(reason) for p in patterns), f"{game}: undocumented {reason!r}"


# covers: W-1
@pytest.mark.parametrize(
    "bad",
    [
        {"kind": "play", "seat": 0, "card": 3, "colour": 1},  # an unknown key
        {"kind": "PLAY", "seat": 0, "card": 3},  # kinds are lowercase
        {"kind": "shout", "seat": 0},  # no such kind
        {"kind": "play", "seat": 8, "card": 3},  # seat out of range
        {"kind": "play", "seat": 0, "card": 32},  # card out of range
        {"kind": "bid", "seat": 0, "suit": 4},  # suit out of range
        {"kind": "bet", "seat": 0, "amount": "3"},  # a string for an int
        {"kind": "bet", "seat": 0, "amount": True},  # a bool for an int
        {"kind": "tupp_attempt", "seat": 0, "cards": [], "position": 1},  # 1..8 cards
    ],
)
def test_the_action_codec_refuses_what_the_map_does_not_allow(bad: dict[str, Any]) -> None:
    from dealerless.protocol.rules.base import Action

    with pytest.raises(ValueError):
        Action.from_wire(bad)
