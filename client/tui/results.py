"""What happened, in words: the move log, the chat, the result panel with its breakdown and the
hand history. Pure functions over a :class:`TableSnapshot` (tests call them directly).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from dealerless.client.tui.hand_log import (
    HandLog,
    LaundryCheck,
    Shown,
    Trick,
    hand_log,
    hands_of,
    shown_outcomes,
)
from dealerless.client.tui.i18n import tr
from dealerless.client.tui.model import NodeSaid, TableSnapshot
from dealerless.client.tui.node_text import node_notice
from dealerless.client.tui.safe_text import printable
from dealerless.client.tui.scoreboard import scoreboard_lines
from dealerless.client.tui.wording import (
    Look,
    action_text,
    card_text,
    cards_text,
    names_text,
    person_name,
    plain_name,
    seat_name,
    team_name,
)
from dealerless.protocol.rules.base import HandResult, Outcome
from dealerless.protocol.rules.reasons import GameEnd, HandEnd
from dealerless.protocol.rules.tuppen_stakes import TUPP_PENALTY
from dealerless.protocol.table.events import (
    ActionApplied,
    CardsDealt,
    CardsShown,
    GameOver,
    HandEnded,
    HandSigned,
    HandStarted,
    SeatsChanging,
    SegmentStarted,
    TableEvent,
    TimeoutVoted,
    Violation,
)

_SEAT_NUMBER = re.compile(r"\bseat (\d+)\b")

# The table machine's own refusals of a move or chat line typed on this screen
# (protocol/table/machine.py; client/tui/node_session.py says the first one too, and the
# come-back refusals), in the screen's words. The rules' refusals are the engines' English
# (machine_text).
LOCAL_REFUSALS = {
    "it is not your turn": "refusal.not_your_turn",
    "back after a restart: waiting to hear from the peers": "refusal.resync",
    "an empty chat line": "refusal.empty_chat",
    "an observer cannot chat": "refusal.observer_chat",
    "we are not sitting out": "refusal.not_sitting_out",
    "this table cannot take us back from the screen": "refusal.no_back",
}


def machine_text(snap: TableSnapshot, text: str, look: Look) -> str:
    """A reason written by the rules or the table machine (English, seats counted from 0) made
    fit for the screen: escaped, and every "seat N" replaced by that seat's name."""

    def name(match: re.Match[str]) -> str:
        return plain_name(snap, int(match.group(1)), look)

    return _SEAT_NUMBER.sub(name, printable(text, 300))


# ------------------------------------------------------------------ the log


def event_lines(snap: TableSnapshot, event: TableEvent, look: Look) -> list[str]:
    """An event in plain words ([] for the bookkeeping the player does not need)."""
    lang = look.lang
    if isinstance(event, HandStarted):
        return [
            tr(lang, "log.hand_started", n=event.hand, dealer=seat_name(snap, event.dealer, look))
        ]
    if isinstance(event, CardsDealt):
        return [tr(lang, "log.dealt", cards=cards_text([c for _, c in event.cards], look))]
    if isinstance(event, CardsShown):
        cards = cards_text([c for _, c in event.cards], look)
        if event.seat is None:
            return [tr(lang, "log.turned", cards=cards)]
        return [tr(lang, "log.shown", who=seat_name(snap, event.seat, look), cards=cards)]
    if isinstance(event, ActionApplied):
        a = event.action
        text = tr(lang, "log.action", who=seat_name(snap, a.seat, look), what=action_text(a, look))
        if event.by_timeout:
            text += tr(lang, "log.timeout")
        lines = [text]
        for r in event.rules_events:
            if r.kind in ("trick", "trick_won"):
                n = r.data.get("number", r.data.get("trick", ""))
                lines.append(tr(lang, "log.trick", who=seat_name(snap, r.seat, look), n=n))
        return lines
    if isinstance(event, HandEnded):
        return hand_result_lines(snap, event.result, look, aborted=event.aborted)
    if isinstance(event, HandSigned):
        return [tr(lang, "log.signed", n=event.hand)]
    if isinstance(event, GameOver):
        return [
            tr(
                lang,
                "log.game_over",
                winners=winners_text(snap, event.outcome.winners, look),
                reason=game_reason(snap, event.outcome, look),
            )
        ]
    if isinstance(event, Violation):
        return [
            tr(
                lang,
                "log.violation",
                who=seat_name(snap, event.culprit, look),
                reason=machine_text(snap, event.reason, look),
            )
        ]
    if isinstance(event, TimeoutVoted):
        return [tr(lang, "log.timeout_vote", who=seat_name(snap, event.silent, look))]
    if isinstance(event, SeatsChanging):
        what = [
            tr(lang, f"log.change.{change}", who=seat_name(snap, seat, look))
            for seat, change in event.changes
            if change in ("stand", "sit-out", "reseat")
        ]
        if event.silent is not None:
            what.append(tr(lang, "log.change.silent", who=seat_name(snap, event.silent, look)))
        return [tr(lang, "log.seats_change", n=event.hand, what="; ".join(what))]
    if isinstance(event, NodeSaid):
        shown = node_notice(event.said, lang)
        return [shown] if shown else []
    if isinstance(event, SegmentStarted):
        seats = getattr(event.config, "seats", ())
        names = ", ".join(person_name(lang, str(getattr(s, "name", "")), 40) for s in seats)
        if not event.seated:
            return [tr(lang, "log.segment_without_you", names=names)]
        return [tr(lang, "log.segment", n=len(seats), names=names)]
    return []


def ledger_text(ledger: Sequence[tuple[str, int]], score: int, look: Look) -> str:
    """What a seat takes away or keeps when it leaves the table: its chips and their net
    (the Limit games), or its balance (Pottuppen)."""
    values = dict(ledger)
    if "stack" in values:
        chips = tr(look.lang, "ledger.chips", n=values["stack"])
        return f"{chips} ({tr(look.lang, 'ledger.net', n=score)})"
    return tr(look.lang, "ledger.balance", n=score)


def new_results(
    snap: TableSnapshot, part: int, seen: int
) -> tuple[list[tuple[int, HandResult]], int, int]:
    """The results not shown yet, each with its part of the table, given the part and the
    count of its results already seen; and the part and count seen after them (a seat change
    starts a part whose results count from 0 again). A seat sitting out is shown the results
    of the parts it played, not those of the part it watches."""
    parts = snap.segments()
    new: list[tuple[int, HandResult]] = []
    while part < snap.segment:  # the rest of a part that ended
        old = parts[part - 1] if part <= len(parts) else snap
        new.extend((part, r) for r in old.results[seen:])
        part, seen = part + 1, 0
    if not snap.sitting_out:
        # Sitting out, the hands of the part we watch are not ours: they are in the log and
        # the history, not a panel each (two bots alone play a hand in a fraction of a
        # second, and their panels would queue faster than a player closes them).
        new.extend((part, r) for r in snap.results[seen:])
    return new, part, max(seen, len(snap.results))


def left_lines(snap: TableSnapshot, look: Look) -> list[str]:
    """The panel of a player who left a table that goes on: how, after which hand, with what."""
    lang = look.lang
    chips = ledger_text(snap.left_ledger, snap.left_score, look)
    return [
        tr(lang, f"end.left.{snap.left}", n=snap.left_hand, chips=chips),
        tr(lang, "end.left.on"),
    ]


def winners_text(snap: TableSnapshot, winners: Sequence[int], look: Look) -> str:
    """Who won: a Belote team by its number and names, else the seats by name."""
    if snap.teams and winners and len({snap.teams[s] for s in winners}) == 1:
        return team_name(snap, snap.teams[winners[0]], look)
    return names_text(snap, winners, look)


def hand_winners(snap: TableSnapshot, result: HandResult) -> tuple[int, ...]:
    """The seats to name as the hand's winners. A Pottuppen pass round names every seat but the
    taker of the last trick (the one that pays in), yet nobody wins anything: nobody is named."""
    if snap.game == "pottuppen" and result.code == HandEnd.PASS_ROUND:
        return ()
    return result.winners


def hand_reason(snap: TableSnapshot, result: HandResult, look: Look) -> str:
    """Why the hand ended, in the screen's language (the English text for an unknown code)."""
    lang, code, details = look.lang, result.code, result.details
    if code == HandEnd.VOIDED:
        return tr(lang, "reason.voided", why=machine_text(snap, result.note or result.reason, look))
    if code in (HandEnd.CONTRACT_MADE, HandEnd.CONTRACT_FAILED):
        text = tr(lang, f"reason.{code}")
        if details.get("solo_capot_seat") is not None:
            text += tr(lang, "reason.solo", who=seat_name(snap, details["solo_capot_seat"], look))
        elif details.get("capot_team") is not None:
            text += tr(lang, "reason.capot", team=team_name(snap, int(details["capot_team"]), look))
        return text
    if code in set(HandEnd):
        return tr(lang, f"reason.{code}")
    return machine_text(snap, result.reason, look)


def game_reason(snap: TableSnapshot, outcome: Outcome, look: Look) -> str:
    """Why the game ended, in the screen's language."""
    if outcome.code == GameEnd.TARGET_REACHED and outcome.winners:
        first = outcome.winners[0]
        points = outcome.standings[first]
        team = team_name(snap, first % 2, look)
        return tr(look.lang, "reason.target_reached", team=team, points=points)
    if outcome.code in set(GameEnd):
        return tr(look.lang, f"reason.{outcome.code}")
    return machine_text(snap, outcome.reason, look)


def deltas_text(snap: TableSnapshot, deltas: Sequence[int], look: Look) -> str:
    return ", ".join(
        f"{plain_name(snap, s, look)} {d:+d}"
        for s, d in enumerate(deltas)
        if d and s < snap.players
    )


def hand_result_lines(
    snap: TableSnapshot, result: HandResult, look: Look, *, aborted: bool = False
) -> list[str]:
    lang = look.lang
    if aborted:
        why = machine_text(snap, result.note or result.reason, look)
        first = tr(lang, "log.aborted", n=result.hand_number, reason=why)
    else:
        first = tr(
            lang,
            "log.hand_ended",
            n=result.hand_number,
            winners=winners_text(snap, hand_winners(snap, result), look),
            reason=hand_reason(snap, result, look),
        )
    deltas = deltas_text(snap, result.deltas, look)
    return [first] + ([tr(lang, "log.deltas", deltas=deltas)] if deltas else [])


def shown_line(snap: TableSnapshot, outcome: Shown, look: Look) -> str:
    """What a checked claim came to, said when the cards are shown (the move log, the hand
    history), not only on the result panel: who pays for a laundry check, a Tupp's cost."""
    lang = look.lang
    if isinstance(outcome, LaundryCheck):
        # classic Tuppen counts a penalty point (as its result panel says), the Limit games
        # take a chip into the pot
        if snap.game.endswith("limit-tuppen"):
            key = "log.laundry_true_chips" if outcome.true else "log.laundry_bluff_chips"
        else:
            key = "why.laundry_true" if outcome.true else "why.laundry_bluff"
        return tr(
            lang,
            key,
            checker=plain_name(snap, outcome.checker, look),
            declarer=plain_name(snap, outcome.declarer, look),
            who=plain_name(snap, outcome.payer, look),
        )
    who = plain_name(snap, outcome.seat, look)
    if outcome.attempt:
        return tr(lang, "log.tupp_attempt", who=who)
    return tr(lang, "log.tupp", who=who, points=TUPP_PENALTY)


def log_lines(snap: TableSnapshot, look: Look) -> list[str]:
    lines: list[str] = []
    for part in snap.segments():  # each part of the table with the names it had
        outcomes = shown_outcomes(part.log)
        for index, event in enumerate(part.log):
            lines.extend(event_lines(part, event, look))
            if index in outcomes:
                lines.append(shown_line(part, outcomes[index], look))
    for error in snap.errors:
        known = LOCAL_REFUSALS.get(error)
        if known is None and look.lang != "en" and not error.startswith("internal error"):
            # The rules' reasons for a refused move are English; another language says that
            # the move is not allowed in its own words.
            known = "refusal.illegal"
        text = tr(look.lang, known) if known else machine_text(snap, error, look)
        internal = error.startswith("internal error")
        lines.append(text if internal else tr(look.lang, "log.error", reason=text))
    return lines


def chat_lines(snap: TableSnapshot, look: Look) -> list[str]:
    return [
        tr(look.lang, "log.chat", who=seat_name(part, s, look), text=printable(t, 200))
        for part in snap.segments()  # each part of the table with the names it had
        for s, t in part.chat
    ]


# ------------------------------------------------------------------ tricks and the history


def trick_line(snap: TableSnapshot, trick: Trick, look: Look) -> str:
    plays = "  ".join(f"{plain_name(snap, s, look)} {card_text(c, look)}" for s, c in trick.plays)
    winner = plain_name(snap, trick.winner, look) if trick.winner is not None else "?"
    return tr(look.lang, "history.trick", n=trick.number, plays=plays, winner=winner)


def _history_of(snap: TableSnapshot, hand: HandLog, look: Look, moves_too: bool) -> list[str]:
    lang = look.lang
    lines = [tr(lang, "history.hand", n=hand.number, dealer=plain_name(snap, hand.dealer, look))]
    moves = list(zip(hand.moves_at, hand.moves, strict=True)) if moves_too else []
    for trick in [*hand.tricks, None]:
        before = len(hand.tricks) if trick is None else trick.number - 1
        for number, (at, move) in enumerate(moves, 1):
            if at == before:
                who = plain_name(snap, move.seat, look)
                lines.append("  " + tr(lang, "log.action", who=who, what=action_text(move, look)))
                # a checked claim right after the move that made it
                lines.extend("  " + shown_line(snap, o, look) for n, o in hand.shown if n == number)
        if trick is not None:
            lines.append("  " + trick_line(snap, trick, look))
    if hand.current:
        plays = "  ".join(
            f"{plain_name(snap, s, look)} {card_text(c, look)}" for s, c in hand.current
        )
        lines.append("  " + tr(lang, "history.current", plays=plays))
    if hand.result is not None:
        lines.extend("  " + line for line in hand_result_lines(snap, hand.result, look))
    return lines


def hand_history(snap: TableSnapshot, look: Look, moves_too: bool = True) -> list[str]:
    """Every hand so far, oldest first: its moves (unless not ``moves_too``: the column of a
    wide screen, beside the move log) and every trick with who played which card."""
    lines: list[str] = []
    for part in snap.segments():
        for hand in hands_of(part.log):
            lines.extend(_history_of(part, hand, look, moves_too))
            lines.append("")
    return lines or [tr(look.lang, "history.empty")]


# ------------------------------------------------------------------ the result panel


def _tuppen_costs(snap: TableSnapshot, result: HandResult, hand: HandLog, look: Look) -> list[str]:
    lang = look.lang
    lines: list[str] = []
    laundry = [0] * snap.players
    for check in hand.laundry:
        laundry[check.payer] += 1
        key = "why.laundry_true" if check.true else "why.laundry_bluff"
        lines.append(
            tr(
                lang,
                key,
                checker=plain_name(snap, check.checker, look),
                declarer=plain_name(snap, check.declarer, look),
                who=plain_name(snap, check.payer, look),
            )
        )
    stake = int(result.details.get("stake", 1))
    for seat, delta in enumerate(result.deltas):
        rest = delta - laundry[seat]
        name = plain_name(snap, seat, look)
        if seat in result.winners:
            if result.details.get("jack_win"):
                lines.append(tr(lang, "why.jack", who=name))
            continue
        if rest == 0:
            continue
        if result.code == HandEnd.TUPP:
            lines.append(tr(lang, "why.tupp", who=name, points=rest))
        elif seat in hand.folded:
            lines.append(tr(lang, "why.folded", who=name, points=rest))
        else:
            lines.append(tr(lang, "why.lost", who=name, points=rest, stake=stake))
    return lines


def _limit_costs(
    snap: TableSnapshot, result: HandResult, hand: HandLog, look: Look, width: int
) -> list[str]:
    lang = look.lang
    lines: list[str] = []
    paid_lines: list[str] = []
    pot = result.details.get("pot")
    paid = result.details.get("contributions")
    if isinstance(pot, int) and result.winners:
        lines.append(tr(lang, "why.pot", pot=pot, who=names_text(snap, result.winners, look)))
    if isinstance(paid, list):
        for seat, chips in enumerate(paid):
            if chips:
                key = "why.paid_folded" if seat in hand.folded else "why.paid"
                paid_lines.append(tr(lang, key, who=plain_name(snap, seat, look), chips=chips))
    return lines + paired(paid_lines, width)


def _belote_points(snap: TableSnapshot, result: HandResult, hand: HandLog, look: Look) -> list[str]:
    lang, d = look.lang, result.details
    lines: list[str] = []
    cards, points = d.get("card_points"), d.get("points")
    if isinstance(cards, list) and len(cards) == 2:
        lines.append(tr(lang, "why.card_points", one=cards[0], two=cards[1]))
    if hand.tricks and hand.tricks[-1].winner is not None:
        last = plain_name(snap, hand.tricks[-1].winner, look)
        lines.append(tr(lang, "why.last_trick", who=last))
    if isinstance(d.get("belote_seat"), int):
        lines.append(tr(lang, "why.belote", who=plain_name(snap, d["belote_seat"], look)))
    if isinstance(d.get("capot_team"), int):
        lines.append(tr(lang, "why.capot", team=team_name(snap, d["capot_team"], look)))
    if d.get("contract_made") is False:
        lines.append(tr(lang, "why.contract_failed"))
    if isinstance(points, list) and len(points) == 2:
        lines.append(tr(lang, "why.hand_points", one=points[0], two=points[1]))
    return lines


def _pottuppen_money(snap: TableSnapshot, result: HandResult, look: Look) -> list[str]:
    """Where the money went (pottuppen_money.Purse.settle): a bettor that takes the last trick
    is paid its bet out of the pot (it never paid it in), the other bettors pay theirs in; in a
    pass round the taker of the last trick pays in and nobody wins."""
    lang, d = look.lang, result.details
    lines: list[str] = []
    antes = d.get("antes")
    if isinstance(antes, int) and antes:
        lines.append(tr(lang, "why.antes", chips=antes))
    bets, taker = d.get("bets"), d.get("last_trick")
    if isinstance(bets, dict) and isinstance(taker, int):
        for seat, bet in sorted(bets.items()):
            who = plain_name(snap, int(seat), look)
            key = "why.bet_won" if int(seat) == taker else "why.bet_in"
            lines.append(tr(lang, key, who=who, chips=bet))
        if not bets and 0 <= taker < len(result.deltas):
            # the taker's change of balance is its antes and its pass-round payment
            paid = -result.deltas[taker] - (antes if isinstance(antes, int) else 0)
            who = plain_name(snap, taker, look)
            lines.append(tr(lang, "why.pass_round", who=who, chips=paid))
    pot = d.get("pot")
    if isinstance(pot, int):
        lines.append(tr(lang, "why.pot_left", pot=pot))
    return lines


def paired(lines: list[str], width: int = 76) -> list[str]:
    """More than four lines (Belote's eight tricks, eight seats' costs) in two columns when
    they fit ``width`` (the panel has 24 rows)."""
    column = max((len(line) for line in lines), default=0) + 2
    if len(lines) <= 4 or 2 * column > width:
        return lines
    half = (len(lines) + 1) // 2
    left, right = lines[:half], lines[half:]
    return [a.ljust(column) + b for a, b in zip(left, [*right, ""], strict=False)]


def breakdown(snap: TableSnapshot, result: HandResult, look: Look, width: int = 76) -> list[str]:
    """Who won which trick and what each knock, fold, check or bonus cost, and why; in two
    columns where they fit ``width`` (eight seats make a tall panel)."""
    hand = hand_log(snap.log, result.hand_number)
    if hand is None:
        return []
    lines = paired([trick_line(snap, t, look) for t in hand.tricks], width)
    if snap.game == "tuppen":
        costs = _tuppen_costs(snap, result, hand, look)
    elif snap.game.endswith("limit-tuppen"):
        return lines + _limit_costs(snap, result, hand, look, width)
    elif snap.game == "belote":
        costs = _belote_points(snap, result, hand, look)
    elif snap.game == "pottuppen":
        costs = _pottuppen_money(snap, result, look)
    else:
        costs = []
    return lines + (costs if snap.game == "belote" else paired(costs, width))


def standings_line(snap: TableSnapshot, look: Look, scores: tuple[int, ...] | None = None) -> str:
    """The standings (``scores``: as they were after a hand; default: now)."""
    label = tr(look.lang, f"score.{snap.score_kind}")
    scores = snap.scores if scores is None else scores
    if snap.teams:
        points = {t: scores[t] for t in (0, 1) if t < len(scores)}
        parts = [f"{team_name(snap, t, look)} {p}" for t, p in points.items()]
    else:
        parts = [f"{plain_name(snap, s, look)} {scores[s]}" for s in range(snap.players)]
    return tr(look.lang, "end.standings", kind=label, scores=", ".join(parts))


def _scores_after(snap: TableSnapshot, result: HandResult | None) -> tuple[int, ...] | None:
    """The standings right after the hand of ``result`` (None: now). A panel may wait while
    later hands are played: it shows its own hand's standings, not today's."""
    if result is None:
        return None
    for event in reversed(snap.log):
        if isinstance(event, HandEnded) and event.result == result and event.scores:
            return event.scores if len(event.scores) == len(snap.scores) else None
    return None


def summary(
    snap: TableSnapshot, look: Look, result: HandResult | None, width: int = 76
) -> list[str]:
    """The end-of-hand (or end-of-game) panel: who won what and why, the breakdown, the
    standings, the proofs (``width``: the panel's, for the columns of the breakdown)."""
    lang = look.lang
    lines: list[str] = []
    # The verdict on the proofs comes right after who won and why: a long breakdown that does
    # not fit a small terminal must not push it off the panel.
    if snap.violations:
        text = "; ".join(
            tr(
                lang,
                "end.cheat",
                who=seat_name(snap, v.culprit, look),
                reason=machine_text(snap, v.reason, look),
            )
            for v in snap.violations
        )
        verdict = tr(lang, "end.cheats", text=text)
    else:
        verdict = tr(lang, "end.proofs_ok")
    if snap.left is not None and result is None:
        lines.extend(left_lines(snap, look))
        lines.append(verdict)
    elif snap.over and snap.outcome is not None and result is None:
        lines.append(tr(lang, "end.game"))
        lines.append(tr(lang, "end.winners", names=winners_text(snap, snap.outcome.winners, look)))
        lines.append(tr(lang, "end.reason", reason=game_reason(snap, snap.outcome, look)))
        lines.append(verdict)
        board = scoreboard_lines(snap, look)
        if board:
            lines.extend(board)
            return lines  # the scoreboard holds the final standings
    elif result is not None:
        lines.append(tr(lang, "end.hand", n=result.hand_number))
        winners = winners_text(snap, hand_winners(snap, result), look)
        lines.append(tr(lang, "end.winners", names=winners))
        lines.append(tr(lang, "end.reason", reason=hand_reason(snap, result, look)))
        lines.append(verdict)
        lines.extend(breakdown(snap, result, look, width))
        if not snap.teams:  # Belote's breakdown ends with the points of the hand
            lines.extend(hand_result_lines(snap, result, look)[1:])
    lines.append(standings_line(snap, look, _scores_after(snap, result)))
    if result is not None and not snap.over:
        done = any(isinstance(e, HandSigned) and e.hand == result.hand_number for e in snap.log)
        lines.append(tr(lang, "end.signed" if done else "end.unsigned"))
    if len(lines) == 1:  # no result to show: the standings and the verdict
        lines.append(verdict)
    return lines


__all__ = [
    "breakdown",
    "chat_lines",
    "event_lines",
    "game_reason",
    "hand_history",
    "hand_reason",
    "hand_result_lines",
    "hand_winners",
    "ledger_text",
    "left_lines",
    "log_lines",
    "machine_text",
    "new_results",
    "shown_line",
    "summary",
    "winners_text",
]
