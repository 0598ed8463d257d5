"""What a node reports (its ``say``): a :class:`Notice`, a code with its data, never a sentence.

The node words a notice in English only for its log file and a plain run's stdout
(:func:`english`, the same lines as always: tests and people grep them); a client words it
by its code in the screen's language (client/tui/node_text.py). Free text from elsewhere (a
peer's reason, an exception's text, a relay's answer) stays a param, as it came: whoever
shows it escapes it.

Every code has its English in :data:`ENGLISH`: a format string over the params (``{who}``
is a :class:`Who`, a tuple is listed with ``", "``) or a function of the params.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = ["ENGLISH", "Notice", "Param", "Who", "english", "notice", "print_say", "text_notice"]


@dataclass(frozen=True)
class Who:
    """Someone a notice names: a seat (counted from 0, with its name), a name a peer gave (not
    yet seated), a key's short fingerprint, an invalid key, or nobody known (``?``)."""

    seat: int | None = None
    name: str | None = None
    fingerprint: str | None = None
    invalid: bool = False

    def __str__(self) -> str:
        if self.seat is not None:
            return f"seat {self.seat} ({self.name})"
        if self.name is not None:
            return repr(self.name)
        if self.fingerprint is not None:
            return self.fingerprint
        return "an invalid key" if self.invalid else "?"


Param = str | int | float | Who | tuple[str, ...] | tuple[Who, ...]
Params = Mapping[str, Param]


@dataclass(frozen=True)
class Notice:
    """One thing a node reports: what (``code``) and its data (``params``)."""

    code: str
    params: Params = field(default_factory=lambda: MappingProxyType({}))

    def __str__(self) -> str:
        return english(self)

    def __hash__(self) -> int:
        return hash((self.code, tuple(sorted(self.params.items()))))


def notice(code: str, **params: Param) -> Notice:
    """``notice("connected", peers=2)``."""
    return Notice(code, MappingProxyType(params))


def text_notice(text: str) -> Notice:
    """A line that is only text (an exception's own words, a hostile test node's lines)."""
    return notice("text", text=text)


def _resumed(p: Params) -> str:
    return (
        f"resumed from {p['stored']} stored record(s)"
        + (f" and {p['peers']} from the peers" if p["peers"] else "")
        + f": hand {p['hand']}, {p['phase']}"
        + ("; no peer has answered yet, so we wait for one before we write" if p["hold"] else "")
    )


def _transcript(p: Params) -> str:
    return (
        f"transcript: {p['records']} records, "
        + ("verified by replay" if p["verified"] else "NOT verified")
        + (f"; {p['violations']} violation(s)" if p["violations"] else "")
    )


def _cheating(p: Params) -> str:
    extra = f" (+{p['more']} more)" if p["more"] else ""
    return f"caught cheating: {_listed(p['culprits'])}: {p['count']} violation(s){extra}"


def _finished(p: Params) -> str:
    hands = p.get("hands")
    return "this table is finished: its game ended" + (
        f" after {hands} hands" if isinstance(hands, int) and hands >= 0 else ""
    )


def _no_resume(p: Params) -> str:
    table = p.get("table")
    return "no table to resume" + (f" matching {table!r}" if table else "")


def _hub_note(p: Params) -> str:
    more = p["more"]
    return f"{p['text']}" + (f" (and {more} more like it since the last such line)" if more else "")


English = str | Callable[[Params], str]

ENGLISH: Mapping[str, English] = {
    # ---- free text (an exception's words, a test node's lines): as it is
    "text": "{text}",
    # ---- the table (node/seat.py, node/seat_report.py, node/seat_end.py, node/catch_up.py)
    "outbox_full": "{n} of our own messages wait for the link; giving up",
    "retrying": "{error}; retrying in {seconds:.1f} s",
    "link_lost_after_end": "link lost after the end ({error}); reconnecting",
    "link_lost": "link lost ({error}); reconnecting",
    "connected": "connected; {peers} other peer(s) present",
    "ready": "table ready: {game}, {seats} seats; we are {who}",
    "share_damaged": (
        "cannot resume: a stored key share in {path} is missing or damaged ({error}); the "
        "transcript was left untouched"
    ),
    "transcript_unusable": (
        "cannot resume: the stored transcript {path} is unusable ({error}); it was left untouched"
    ),
    "move_refused": "move refused: {reason}",
    "hand_starts": "hand {hand} starts; dealer {dealer}",
    "hand_ended": "hand {hand} {how}: {reason}",
    "seats_change": "seats change after hand {hand} ({asked}{silent})",
    "goes_on": "the table goes on with {seats} seats: {names}",
    "sit_out_following": "we sit out and follow the table: {names}",
    "goes_on_without_us": "the table goes on without us: {names}",
    "share_missing": (
        "our stored key share of hand {hand} (store of {store}) is missing or damaged ({reason}): "
        "we cannot play that hand, the others will time us out of it (silence: at most the "
        "bounded settlement), then we play on"
    ),
    "timed_out": "{who} was timed out ({phase}, hand {hand})",
    "vote": "{who} is too slow: we voted to time them out",
    "damaged": "refused a damaged or misrouted message: {reason}",
    "refused_from": "refused a message from {who}: {reason}",
    "game_over": "game over: {reason}; won by {winners}; final scores: {scores}",
    "waiting": "waiting for {who} ({seconds:.0f} s)",
    "auditor_failed": "the auditor replay failed: {failure}",
    "transcript": _transcript,
    "cheating": _cheating,
    "never_started": "the table never started: the seats did not all sign the configuration",
    "peer_records_bad": "records from the peers do not replay ({error}); using our own",
    "resumed": _resumed,
    "released": "heard from a peer: writing again",
    # ---- the peers (node/seat_messages.py, node/seat_direct.py, node/mesh.py)
    "peer_left_end": "{who} left after the end of the game",
    "peer_down_wait": (
        "{who} disconnected; the table waits up to {seconds:.0f} s at their step, then times "
        "them out"
    ),
    "peer_up": "{who} connected",
    "peer_down": "{who} disconnected",
    "bad_signature": "refused a {kind!r} message with a bad signature ({who})",
    "peer_quit": "{who} quit the table; if they do not come back they are timed out",
    "direct_up": "direct link with {peer} is up ({how})",
    "direct_refused": "refused the direct-link addresses of {who}: {reason}",
    # ---- seats that change between hands (node/seat_changes.py)
    "coming_back": "we asked to come back: we sit down again at the next hand boundary",
    "away_quiet": "the table made no progress for {seconds:.0f} s: we stop following it",
    "asked_change": "we asked to {change} after this hand",
    "cannot_change": "cannot {change} here: {reason}",
    "newcomer_waits": "{who} [{fingerprint}] waits to sit down with {chips} after this hand",
    "cannot_reform": "cannot re-form the table: {reason}",
    "newcomer_came": "{who} [{fingerprint}] came: the table goes on",
    "comes_back": "{who} [{fingerprint}] comes back after this hand",
    "next_host_wait": "seats change after hand {hand}: waiting for the next host",
    "segment_voided": "the segment after hand {hand} is void: the others' certificate of that"
    " hand reached us after we had started it; the seats change again from there",
    "newcomers_refused": "the newcomers cannot sit down ({reason}); the table goes on without them",
    "cannot_go_on_yet": (
        "the table cannot go on yet ({reason}): waiting for a newcomer to sit down"
    ),
    "cannot_go_on": "the table cannot go on: {reason}",
    "back_from_silence": "we were silent and sit out (our chips kept); we ask to come back",
    "next_host_missing": (
        "the next host sent no configuration in {seconds:.0f} s: the table ends here"
    ),
    # ---- joining (node/join_handshake.py)
    "unanswered": (
        "nobody at the table answered for {seconds:.0f} s (the game may be over, or its host gone)"
    ),
    "lobby_broken": "refused a lobby message from the host: names, keys or need missing",
    "at_table": "at the table: {listed}; waiting for {need} more player(s)",
    "host_refused": "the host refused us: {reason}",
    "finished": _finished,
    "config_unreadable": "refused the table configuration: {reason}",
    "config_not_host": "refused a table configuration from a seat that does not host it",
    "config_bad_sig": "refused a table configuration with a bad host signature",
    "config_refused": "refused the host's table configuration: {reason}",
    "no_seat": "the table configuration has no seat for us",
    "newcomer_refused": "refused the table configuration: {reason}",
    "offer_unreadable": (
        "no readable first configuration in a running table's offer ({reason}); refused"
    ),
    "offer_unsigned": (
        "a running table's first configuration not signed by the invite's host; refused"
    ),
    "offer_wrong": "a running table's first configuration is wrong ({reason}); refused",
    "offer_ignored": "ignored the offer of {who}: {reason}",
    "offer_checking": (
        "{who} offers us a seat at the running table (after hand {hand}); checking its chain "
        "from the start ({records} records)"
    ),
    "offer_too_big": "gave up the offer of {who}: {reason}",
    "offer_stalled": (
        "{who} sent no more of the table's chain ({got} of {records} records); its offer is "
        "given up"
    ),
    "offer_refused": "refused the running table {who} offered: {reason}",
    "chain_checked": (
        "checked the table's chain from its start: {records} records in {seconds:.1f} s"
    ),
    "joined": "{who} [{fingerprint}] joined ({count}/{seats})",
    # ---- links and ways in (node/app.py, node/ways.py, node/links.py, node/hub.py, node/nostr/)
    "seat_open_elsewhere": (
        "table {table} is already open in another dealerless process on this computer (with "
        "this home): one node per seat"
    ),
    "old_invite": (
        "cannot use table {table}: its stored invite is unusable ({reason}); tables made before "
        "invite format 2 cannot be resumed"
    ),
    "cannot_listen": "cannot listen on {address}: {error}",
    "no_relay": "no Nostr relay will carry this table: {states}",
    "no_relay_now": "no Nostr relay carries the table now: {states}",
    "no_way_in": "this table has no way in (no direct address, relay or Nostr relays)",
    "serving_others": (
        "we left the table; this process keeps passing the others' messages (direct links) "
        "until they have all finished; Ctrl-C ends it for them too"
    ),
    "connecting": "connecting to {address}",
    "pins_unreadable": "{path} is unreadable ({error}); move it away to start afresh",
    "pins_not_map": "{path} does not hold a map of relay fingerprints",
    "wrong_host": (
        "{address} names a host for this table that the invite does not (a relay or address "
        "that is not the host's); check the invite code"
    ),
    "relay_pinned": "relay {address} is {fingerprint}: pinned from now on",
    "not_invited_peer": (
        "{address} is not who the invite says (identity mismatch): {error}; check the invite code"
    ),
    "no_way_works": "no way in to the table works ({tried})",
    "nothing_answered": "nothing answered within {seconds:.0f} s; tried {tried}",
    "way_retry": "{way}: {error}; trying again",
    "relay_barred": "relay {url} cannot carry the table: {reason}",
    "hub_note": _hub_note,
    "slow_invite": (
        "refused: the invite's step timeout is {step} ms, below the floor of {floor} ms (a seat "
        "could be timed out before a person can act; --min-step-timeout lowers the floor for "
        "bot tables)"
    ),
    "invite_no_way": (
        "refused: the invite code holds no way to reach the table this version can use"
    ),
    "known_table": "this table is known here: resuming it",
    "stored_unusable": "cannot use a stored table: {problem}",
    "no_resume": _no_resume,
    "ambiguous": "{table!r} matches several tables; give more of the id",
    "resuming": "resuming table {table} ({game}, {role})",
    "bot_failed": "a bot process failed: exit codes [{codes}]",
    # ---- the client's own line among the node's (client/tui/lobby.py)
    "left_early": "left the table before the end of the game",
}


def _listed(value: Param) -> str:
    if isinstance(value, tuple):
        return ", ".join(str(item) for item in value)
    return str(value)


def english(said: Notice) -> str:
    """The notice in the node's English (its log file, a plain run's lines). A code this
    version does not know is shown with its params, so nothing is lost."""
    rule = ENGLISH.get(said.code)
    params = said.params
    if rule is None:
        listed = ", ".join(f"{k}={_listed(v)}" for k, v in params.items())
        return f"{said.code}: {listed}" if listed else said.code
    if callable(rule):
        return rule(params)
    return rule.format_map(
        {k: _listed(v) if isinstance(v, tuple) else v for k, v in params.items()}
    )


def print_say(said: Notice) -> None:
    """A node's ``say`` without a client: its English on stdout."""
    print(english(said))
