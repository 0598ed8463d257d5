"""An immutable picture of one seat's view of a table: what the screen shows.

:func:`build_snapshot` reads a :class:`TableMachine` (the caller must make sure nothing changes
the machine meanwhile: the session builds snapshots on its worker thread) and the per-game
public state. The UI only ever reads snapshots, so it never waits for proof work.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from dealerless.node.notices import Notice
from dealerless.protocol.cards import Card, Suit
from dealerless.protocol.rules.base import Action, ActionKind, ConfigError, HandResult, Outcome
from dealerless.protocol.rules.registry import game_spec
from dealerless.protocol.rules.tuppen_stakes import knock_cap
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.events import (
    ActionApplied,
    HandStarted,
    TableEvent,
    Violation,
)

InfoValue = int | str | Card | Suit | None

# What a seat's last move in the current hand says about it.
_STATUS_OF_KIND: Mapping[ActionKind, str] = {
    ActionKind.KNOCK: "knocked",
    ActionKind.CALL: "called",
    ActionKind.FOLD: "folded",
    ActionKind.PASS: "passed",
    ActionKind.BID: "bid",
    ActionKind.BET: "bet",
    ActionKind.RAISE: "raised",
    ActionKind.LAUNDRY: "laundry",
}


# Every status a seat line can show (i18n "status.*"; the translation test checks them).
STATUS_KEYS = (*_STATUS_OF_KIND.values(), "to_act", "out", "taker")


# The seat changes a player asks for on the table screen (spec/protocol.md §9; "reseat" is the
# node's own business: newcomers wait).
PLAYER_CHANGES = ("stand", "sit-out")


@dataclass(frozen=True)
class NodeSaid(TableEvent):
    """News about the people at the table that only the node knows (a peer quit, dropped,
    was timed out, comes back), kept in the move log in the order it happened: the status
    line would show it for a few seconds only. ``said`` is the node's notice; the log shows
    it in the screen's words (node_text)."""

    said: Notice


@dataclass(frozen=True)
class TableSnapshot:
    game: str
    title: str  # the registry's, in English: the screen names a game by wording.game_title
    score_kind: str
    seat: int | None  # the local seat (None: an auditor / replay viewer)
    names: tuple[str, ...]
    hand_number: int
    dealer: int
    scores: tuple[int, ...]
    phase: str  # the table machine's phase
    rules_phase: str  # the engine's phase where it has one
    to_act: tuple[int, ...]
    arbiter: int | None
    my_turn: bool
    may_act: bool
    legal: tuple[Action, ...]  # this seat's moves now (required or optional)
    hand: tuple[Card | None, ...]  # sorted; None for a card we cannot see
    trick: tuple[tuple[int, Card], ...]
    leader: int | None
    last_trick: tuple[tuple[tuple[int, Card], ...], int | None] | None
    statuses: tuple[tuple[str, ...], ...]  # per seat: status keys (i18n "status.*")
    info: tuple[tuple[str, InfoValue], ...]  # (i18n "info.*" key, value)
    log: tuple[TableEvent, ...]
    chat: tuple[tuple[int, str], ...] = ()
    deadline: float | None = None  # clock time when the waited-for seat times out
    now: float = 0.0
    over: bool = False
    outcome: Outcome | None = None
    results: tuple[HandResult, ...] = ()
    violations: tuple[Violation, ...] = ()
    errors: tuple[str, ...] = ()
    version: int = 0
    extra: Mapping[str, Any] = field(default_factory=dict)
    stacks: tuple[int, ...] = ()  # chips in front of each seat now (games with stacks)
    teams: tuple[int, ...] = ()  # Belote: each seat's team (0 or 1; shown counted from 1)
    # Why the moves are what they are (i18n "note.*" key, values): a knock refused by the cap,
    # a poverty hand, what calling or folding a knock costs.
    notes: tuple[tuple[str, Mapping[str, InfoValue]], ...] = ()
    # Seats that change between hands (spec/protocol.md §9)
    seat_changes: bool = False  # the game lets seats stand up and sit out between hands
    changing: bool = False  # a part of the table ended for a seat change; the next one comes
    change_wanted: str | None = None  # "stand" / "sit-out": asked, takes effect after the hand
    left: str | None = None  # we left the table: "stand", "sit-out" or "silent" (sat out)
    left_hand: int = 0  # the last hand we played
    left_ledger: tuple[tuple[str, int], ...] = ()  # what we took or keep (the rules' ledger)
    left_score: int = 0  # that ledger's score (net chips, a balance): the rules' ledger_score
    segment: int = 1  # which part of the table this is (one more after every seat change)
    # We sit out and follow the table (no seat, no hand of ours): our kept ledger and its score,
    # and whether we asked to come back (seated again at the next hand boundary).
    sitting_out: bool = False
    away_ledger: tuple[tuple[str, int], ...] = ()
    away_score: int = 0
    coming_back: bool = False
    # The parts of the table before each seat change, oldest first, each as it ended: seats
    # are numbered anew at a change, so each part is shown with its own names.
    earlier: tuple[TableSnapshot, ...] = ()

    @property
    def players(self) -> int:
        return len(self.names)

    def segments(self) -> list[TableSnapshot]:
        """The table part by part, oldest first (the move log, the chat and the hand history
        span every part; a result panel is shown with the names of its part)."""
        return [*self.earlier, self]

    def playable(self) -> dict[Card, Action]:
        return {a.card: a for a in self.legal if a.kind is ActionKind.PLAY and a.card is not None}

    def others(self) -> tuple[Action, ...]:
        return tuple(a for a in self.legal if a.kind is not ActionKind.PLAY)


def part_ended(
    last: TableSnapshot, log: Sequence[TableEvent], chat: Sequence[tuple[int, str]]
) -> TableSnapshot:
    """A part of the table that a seat change ended, as it is kept: the last picture of it
    (names, seats, scores, results) with its whole log and chat, and no moves."""
    return replace(
        last,
        log=tuple(log),
        chat=tuple(chat),
        legal=(),
        my_turn=False,
        may_act=False,
        deadline=None,
        over=True,
        change_wanted=None,
        earlier=(),
    )


def _trick_of(state: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The trick-play part of a public state (each engine keeps it in a different place)."""
    if "current" in state and "leader" in state:
        return state
    for key in ("trick", "hand"):
        sub = state.get(key)
        if isinstance(sub, Mapping):
            found = _trick_of(sub)
            if found is not None:
                return found
    return None


def _plays(raw: Sequence[Sequence[int]]) -> tuple[tuple[int, Card], ...]:
    return tuple((int(s), Card.from_index(int(c))) for s, c in raw)


def game_info(
    game: str, state: Mapping[str, Any]
) -> tuple[tuple[tuple[str, InfoValue], ...], dict[int, list[str]]]:
    """Per-game lines (stake, pot, trump, ...) and extra seat statuses from the public state."""
    info: list[tuple[str, InfoValue]] = []
    extra: dict[int, list[str]] = {}
    if game == "tuppen":
        hand = state.get("hand")
        if isinstance(hand, Mapping):
            info.append(("info.stake", int(hand.get("stake", 1))))
            info.append(("info.phase", str(hand.get("phase", ""))))
            in_hand = set(hand.get("in_hand", []))
            for seat in range(int(state.get("players", 0))):
                if seat not in in_hand:
                    extra.setdefault(seat, []).append("out")
            knocker = hand.get("last_knocker")
            if isinstance(knocker, int):
                extra.setdefault(knocker, []).append("knocked")
    elif game.endswith("limit-tuppen"):
        betting = state.get("betting", {})
        info.append(("info.pot", int(betting.get("pot", 0))))
        info.append(("info.bet", int(betting.get("current_bet", 0))))
        info.append(("info.ante", int(state.get("ante", 0))))
        info.append(("info.phase", str(state.get("phase", ""))))
        bank = state.get("bank", {})
        stacks = bank.get("stacks", [])
        for seat, stack in enumerate(stacks):
            if stack <= 0 and seat not in state.get("active", []):
                extra.setdefault(seat, []).append("out")
    elif game == "pottuppen":
        info.append(("info.pot", int(state.get("pot", 0))))
        mode = state.get("mode")
        if mode:
            info.append(("info.mode", str(mode)))
        info.append(("info.phase", str(state.get("phase", ""))))
        for seat, bet in enumerate(state.get("bets", [])):
            if isinstance(bet, int) and bet > 0:
                info.append((f"info.bet:{seat}", bet))
    elif game == "belote":
        trump = state.get("trump")
        if trump is not None:
            info.append(("info.trump", Suit(int(trump))))
        taker = state.get("taker")
        if isinstance(taker, int):
            info.append(("info.taker", taker))
            extra.setdefault(taker, []).append("taker")
        turned = state.get("turned")
        if turned and trump is None:
            info.append(("info.turned", Card.from_index(int(turned[1]))))
        for team, points in enumerate(state.get("team_scores", [])):
            info.append((f"info.team:{team + 1}", int(points)))
        info.append(("info.phase", str(state.get("phase", ""))))
    return tuple(info), extra


def _sort_key(card: Card | None) -> tuple[int, int]:
    return (9, 9) if card is None else (int(card.suit), int(card.rank))


def build_snapshot(
    machine: TableMachine,
    names: Sequence[str],
    log: Sequence[TableEvent],
    *,
    chat: Sequence[tuple[int, str]] = (),
    now: float = 0.0,
    errors: Sequence[str] = (),
    version: int = 0,
    wanted: str | None = None,
    earlier: Sequence[TableSnapshot] = (),
    coming_back: bool = False,
) -> TableSnapshot:
    """``wanted``: a seat change the session asked for and has not given the machine yet;
    ``coming_back``: sitting out, we asked to be seated again."""
    engine = machine.engine
    spec = game_spec(engine.config.game)
    state = engine.public_state()
    seat = machine.seat
    running = machine.phase.value == "play"
    my_turn = machine.my_turn_to_act()
    may = machine.may_act()
    legal: tuple[Action, ...] = ()
    if seat is not None and (my_turn or may):
        legal = tuple(engine.legal_actions(seat))
    hand: tuple[Card | None, ...] = ()
    if seat is not None:
        hand = tuple(sorted((s.card for s in engine.hand(seat)), key=_sort_key))
    trick_state = _trick_of(state)
    trick: tuple[tuple[int, Card], ...] = ()
    leader: int | None = None
    last: tuple[tuple[tuple[int, Card], ...], int | None] | None = None
    if trick_state is not None:
        trick = _plays(trick_state.get("current", []))
        lead = trick_state.get("leader")
        leader = trick[0][0] if trick else (lead if isinstance(lead, int) else None)
        done = trick_state.get("tricks", [])
        if done:
            winner = done[-1].get("winner")
            last = (_plays(done[-1].get("plays", [])), winner if isinstance(winner, int) else None)
    info, extra = game_info(engine.config.game, state)
    # seat statuses: the last move of each seat in this hand, then game-specific, then to act
    last_kind = last_moves(log)
    to_act = tuple(engine.to_act()) if running else ()
    statuses: list[tuple[str, ...]] = []
    for s in range(machine.players):
        keys: list[str] = []
        if s in to_act:
            keys.append("to_act")
        for key in [last_kind.get(s, ""), *extra.get(s, [])]:
            if key and key not in keys:
                keys.append(key)
        statuses.append(tuple(keys))
    changing = machine.over and machine.seat_change is not None and not machine.left_table
    deadline = None
    if not machine.over and machine.arbiter() is not None:
        deadline = machine.step_since + machine.timeout
    return TableSnapshot(
        game=engine.config.game,
        title=spec.title,
        score_kind=spec.score_kind,
        seat=seat,
        names=tuple(names),
        hand_number=engine.hand_number,
        dealer=engine.dealer,
        scores=tuple(engine.scores()),
        phase=str(machine.phase.value),
        rules_phase=str(next((v for k, v in info if k == "info.phase"), "")),
        to_act=to_act,
        arbiter=machine.arbiter(),
        my_turn=my_turn,
        may_act=may,
        legal=legal,
        hand=hand,
        trick=trick,
        leader=leader,
        last_trick=last,
        statuses=tuple(statuses),
        info=tuple((k, v) for k, v in info if k != "info.phase"),
        log=tuple(log),
        chat=tuple(chat),
        deadline=deadline,
        now=now,
        # between two parts of the table (a seat change, we stay): not over, the table goes on
        over=machine.over and not changing,
        changing=changing,
        outcome=engine.outcome,
        results=tuple(engine.results),
        violations=tuple(machine.violations),
        errors=tuple(errors),
        version=version,
        stacks=chips_in_front(state),
        teams=tuple(s % 2 for s in range(machine.players))
        if engine.config.game == "belote"
        else (),
        notes=move_notes(engine.config.game, state, seat, legal, tuple(engine.scores())),
        seat_changes=engine.seat_changes,
        change_wanted=None if machine.over else (wanted or _asked(machine)),
        segment=len(machine.segments),
        earlier=tuple(earlier),
        coming_back=coming_back and machine.sitting_out,
        **_departure(machine),
        **_away(machine),
    )


def _asked(machine: TableMachine) -> str | None:
    change = machine.change_wanted
    return change if change in PLAYER_CHANGES else None


def _departure(machine: TableMachine) -> dict[str, Any]:
    """How we left the table, if the table went on without us (SegmentStarted, not seated)."""
    change, seat = machine.seat_change, machine.seat
    if not machine.left_table or change is None or seat is None:
        return {}
    how = "silent" if change.silent == seat else dict(change.changes).get(seat, "stand")
    try:
        ledger = machine.engine.seat_ledger(seat)
        score = machine.engine.ledger_score(ledger)
    except ConfigError:
        ledger, score = {}, 0
    items = tuple(sorted(ledger.items()))
    return {"left": how, "left_hand": change.hand, "left_ledger": items, "left_score": score}


def _away(machine: TableMachine) -> dict[str, Any]:
    """Sitting out: the ledger the table keeps for us (in the running segment's carry)."""
    carry, key = machine.config.carry, machine.key
    if not machine.sitting_out or carry is None or key is None:
        return {}
    ledger = next((d.ledger for d in carry.away if d.key == key.peer_id.raw), ())
    try:
        score = machine.engine.ledger_score(dict(ledger))
    except ConfigError:
        score = 0
    return {"sitting_out": True, "away_ledger": tuple(ledger), "away_score": score}


def last_moves(log: Sequence[TableEvent]) -> dict[int, str]:
    """Each seat's status from its last move in the current hand (i18n "status.*")."""
    last_kind: dict[int, str] = {}
    for event in log:
        if isinstance(event, HandStarted):
            last_kind.clear()
        elif isinstance(event, ActionApplied):
            kind = event.action.kind
            if kind in (ActionKind.KNOCK, ActionKind.PLAY, ActionKind.BET, ActionKind.RAISE):
                # a pass of an earlier round (the laundry round, the bidding) is over: shown
                # while answering a knock it would read like a fold
                for s, earlier in list(last_kind.items()):
                    if earlier in ("passed", "bid"):
                        del last_kind[s]
            status = _STATUS_OF_KIND.get(kind)
            if status is not None:
                last_kind[event.action.seat] = status
    return last_kind


def _limit_notes(
    state: Mapping[str, Any], seat: int, legal: Sequence[Action]
) -> tuple[tuple[str, Mapping[str, InfoValue]], ...]:
    betting = state.get("betting")
    if not isinstance(betting, Mapping) or not any(a.kind is ActionKind.CALL for a in legal):
        return ()
    bets = betting.get("bets", [])
    mine = int(bets[seat]) if isinstance(bets, list) and seat < len(bets) else 0
    cost = int(betting.get("current_bet", 0)) - mine
    return (("note.call_cost", {"chips": cost, "pot": int(betting.get("pot", 0))}),)


def move_notes(
    game: str,
    state: Mapping[str, Any],
    seat: int | None,
    legal: Sequence[Action],
    scores: Sequence[int],
) -> tuple[tuple[str, Mapping[str, InfoValue]], ...]:
    """Why this seat's moves are what they are (classic Tuppen: the knock cap, a poverty hand,
    the price of calling or folding a knock; the Limit games: what a call costs); empty where
    nothing needs explaining."""
    if game.endswith("limit-tuppen") and seat is not None:
        return _limit_notes(state, seat, legal)
    hand = state.get("hand")
    if game != "tuppen" or seat is None or not isinstance(hand, Mapping):
        return ()
    notes: list[tuple[str, Mapping[str, InfoValue]]] = []
    stake = int(hand.get("stake", 1))
    active = [int(s) for s in hand.get("active", [])]
    queue = [int(s) for s in hand.get("answer_queue", [])]
    kinds = {a.kind for a in legal}
    if hand.get("answer_kind") == "poverty" and queue and queue[0] == seat:
        poor = [int(s) for s in hand.get("poor", [])]
        notes.append(("note.poverty", {"seats": ",".join(map(str, poor)), "stake": stake}))
    elif hand.get("answer_kind") == "knock" and queue and queue[0] == seat:
        knocker = hand.get("last_knocker")
        notes.append(
            (
                "note.answer",
                {
                    "seat": knocker if isinstance(knocker, int) else None,
                    "stake": stake,
                    "fold": stake - 1,
                },
            )
        )
    elif (
        hand.get("phase") == "play"
        and seat in active
        and not queue
        and hand.get("last_knocker") != seat
        and ActionKind.KNOCK not in kinds
        and active
    ):
        cap = knock_cap(scores, active)
        if stake + 1 > cap:
            top = max(active, key=lambda s: scores[s])
            notes.append(("note.knock_cap", {"seat": top, "points": scores[top], "cap": cap}))
    if ActionKind.KNOCK in kinds and seat < len(hand.get("holding", [])):
        holding = hand.get("holding", [])[seat]
        played = {int(p) for p in hand.get("played", [])}
        if holding is not None and all(int(pos) in played for pos, _ in holding):
            notes.append(("note.knock_empty", {"stake": stake + 1}))
    return tuple(notes)


def chips_in_front(state: Mapping[str, Any]) -> tuple[int, ...]:
    """Limit Tuppen and its variants: the chips each seat has in front of it now. The engine
    takes the ante and every bet off the stack when it is paid (limit_betting.Betting.pay), so
    the stack already is what is in front; the pot holds the rest."""
    bank = state.get("bank")
    stacks = bank.get("stacks") if isinstance(bank, Mapping) else None
    if not isinstance(stacks, list):
        return ()
    return tuple(int(st) for st in stacks)
