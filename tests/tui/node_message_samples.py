"""One or more concrete notices per code a node reports (node/notices.py: ENGLISH), for
tests/tui/test_node_messages.py and the screen-text tests (screen_texts.py).

Keys are the codes; each value is a tuple of notices of that code, with the data a node
gives (seats counted from 0 with their names, names from the lobby, fingerprints, counts,
the words of a peer or an exception).
"""

from __future__ import annotations

from dealerless.node.notices import Notice, Who, notice, text_notice

ANN, BOB = Who(seat=0, name="ann"), Who(seat=2, name="bob")
LOBBY_BOB = Who(name="bob")
PRINT = Who(fingerprint="7KQ2M4XA9")

SAMPLES: dict[str, tuple[Notice, ...]] = {
    "text": (text_notice("a line from the hostile node of the tests"),),
    # ---- the table
    "connected": (notice("connected", peers=0), notice("connected", peers=2)),
    "hand_starts": (notice("hand_starts", hand=1, dealer=Who(seat=3, name="bot2")),),
    "hand_ended": (
        notice("hand_ended", hand=2, how="ended", reason="seat 1 (bob) took the last trick"),
        notice("hand_ended", hand=3, how="aborted", reason="voided"),
    ),
    "game_over": (
        notice(
            "game_over",
            reason="10 hands played",
            winners="seat 0 (ann)",
            scores="ann 1, bob 0, cem 0",
        ),
    ),
    "vote": (notice("vote", who=BOB),),
    "transcript": (
        notice("transcript", records=220, verified=1, violations=0),
        notice("transcript", records=220, verified=0, violations=0),
        notice("transcript", records=221, verified=1, violations=2),
        notice("transcript", records=90, verified=0, violations=1),
    ),
    "waiting": (notice("waiting", who=BOB, seconds=31.0),),
    "link_lost": (notice("link_lost", error="connection reset"),),
    "link_lost_after_end": (notice("link_lost_after_end", error="the local hub closed this link"),),
    "retrying": (
        notice(
            "retrying",
            error="every way in is down (direct 10.0.0.5:4000: connection refused)",
            seconds=0.4,
        ),
    ),
    "ready": (
        notice("ready", game="tuppen", seats=3, who=ANN),
        notice("ready", game="limit-tuppen", seats=4, who=Who(seat=3, name="dora")),
    ),
    "peer_records_bad": (notice("peer_records_bad", error="bad proof"),),
    "resumed": (
        notice("resumed", stored=40, peers=0, hand=2, phase="play", hold=0),
        notice("resumed", stored=40, peers=6, hand=3, phase="deal", hold=1),
    ),
    "share_damaged": (
        notice("share_damaged", path="/h/t/secrets", error="ValueError: bad scalar"),
    ),
    "transcript_unusable": (
        notice("transcript_unusable", path="/h/t/transcript.dlt", error="bad magic"),
    ),
    "outbox_full": (notice("outbox_full", n=1000),),
    "move_refused": (notice("move_refused", reason="it is not your turn"),),
    "share_missing": (notice("share_missing", hand=4, store="/h/t", reason="unreadable"),),
    "timed_out": (notice("timed_out", who=BOB, phase="play", hand=4),),
    "damaged": (notice("damaged", reason="bad frame"),),
    "refused_from": (
        notice("refused_from", who=BOB, reason="not your turn to play, seat 0 is to play"),
        notice("refused_from", who=LOBBY_BOB, reason="not msgpack"),
        notice("refused_from", who=PRINT, reason="truncated"),
    ),
    "auditor_failed": (notice("auditor_failed", failure="bad signature"),),
    "cheating": (
        notice("cheating", culprits=(BOB,), count=3, more=0),
        notice("cheating", culprits=(Who(seat=1, name="cy"), BOB), count=64, more=5),
    ),
    "never_started": (notice("never_started"),),
    "peer_left_end": (
        notice("peer_left_end", who=BOB),
        notice("peer_left_end", who=LOBBY_BOB),
    ),
    "peer_down_wait": (notice("peer_down_wait", who=Who(seat=1, name="bob"), seconds=120.0),),
    "peer_up": (notice("peer_up", who=BOB), notice("peer_up", who=Who(invalid=True))),
    "peer_down": (notice("peer_down", who=LOBBY_BOB), notice("peer_down", who=PRINT)),
    "bad_signature": (
        notice("bad_signature", kind="have", who=BOB),
        notice("bad_signature", kind="hello", who=Who(name="mallory")),
    ),
    "peer_quit": (notice("peer_quit", who=Who(seat=1, name="ann")),),
    "released": (notice("released"),),
    "direct_up": (notice("direct_up", peer="T5P4-PN3M-OMQL-E622-QRJ2-OPH7", how="punched"),),
    "direct_refused": (
        notice(
            "direct_refused", who=Who(seat=1, name="bob"), reason="a candidate is [address, port]"
        ),
    ),
    # ---- seats that change between hands
    "seats_change": (
        notice("seats_change", hand=4, asked="seat 1 (bob): stand", silent=""),
        notice("seats_change", hand=3, asked="nobody asked", silent="; seat 2 (bob) was silent"),
    ),
    "goes_on": (notice("goes_on", seats=4, names=("ann", "bob", "cy", "dan")),),
    "goes_on_without_us": (notice("goes_on_without_us", names=("ann", "bob")),),
    "sit_out_following": (notice("sit_out_following", names=("ann", "cy")),),
    "coming_back": (notice("coming_back"),),
    "away_quiet": (notice("away_quiet", seconds=90.0),),
    "asked_change": (
        notice("asked_change", change="stand"),
        notice("asked_change", change="sit out"),
    ),
    "cannot_change": (
        notice("cannot_change", change="stand", reason="tuppen keeps its seats: no stand"),
        notice("cannot_change", change="sit-out", reason="no sit-out now: the table is over"),
    ),
    "newcomer_waits": (
        notice("newcomer_waits", who=LOBBY_BOB, fingerprint="ab12 cd34 ef56 7890", chips=200),
    ),
    "cannot_reform": (notice("cannot_reform", reason="no reseat now: the table is over"),),
    "newcomer_came": (notice("newcomer_came", who=LOBBY_BOB, fingerprint="ab12 cd34 ef56 7890"),),
    "comes_back": (notice("comes_back", who=LOBBY_BOB, fingerprint="ab12 cd34 ef56 7890"),),
    "next_host_wait": (notice("next_host_wait", hand=6),),
    "segment_voided": (notice("segment_voided", hand=6),),
    "newcomers_refused": (notice("newcomers_refused", reason="no next segment: not new"),),
    "cannot_go_on_yet": (
        notice("cannot_go_on_yet", reason="no next segment: too few seats for the game"),
    ),
    "cannot_go_on": (
        notice("cannot_go_on", reason="no next segment: only the next host signs it"),
    ),
    "back_from_silence": (notice("back_from_silence"),),
    "next_host_missing": (notice("next_host_missing", seconds=360.0),),
    # ---- joining
    "unanswered": (notice("unanswered", seconds=60.0),),
    "lobby_broken": (notice("lobby_broken"),),
    "at_table": (notice("at_table", listed="ann [AB12-CD34], bob [EF56-7890]", need=1),),
    "host_refused": (
        notice("host_refused", reason="the table is full"),
        notice("host_refused", reason="no valid proof of the invite's token"),
        notice("host_refused", reason="this table is finished: its game is over"),
        notice("host_refused", reason="the table is full and enough players wait for a seat"),
        notice(
            "host_refused",
            reason="buy-in refused: a buy-in must be 10..1000 chips (the ante to the maximum)",
        ),
        notice(
            "host_refused",
            reason="buy-in refused: in play-money every seat sits down with 500 chips",
        ),
        notice(
            "host_refused",
            reason="buy-in refused: a tournament takes no newcomers once it has started",
        ),
        notice(
            "host_refused",
            reason="buy-in refused: in Pottuppen a newcomer sits down with a balance of 0 "
            "(no buy-in)",
        ),
        notice("host_refused", reason="buy-in refused: bob brings 3 ledgers"),
    ),
    "finished": (notice("finished", hands=12), notice("finished", hands=-1)),
    "config_unreadable": (notice("config_unreadable", reason="missing field 'seats'"),),
    "config_not_host": (notice("config_not_host"),),
    "config_bad_sig": (notice("config_bad_sig"),),
    "config_refused": (notice("config_refused", reason="the game differs from the invite"),),
    "no_seat": (notice("no_seat"),),
    "newcomer_refused": (notice("newcomer_refused", reason="the buy-in is not ours"),),
    "offer_unreadable": (notice("offer_unreadable", reason="missing field 'seats'"),),
    "offer_unsigned": (notice("offer_unsigned"),),
    "offer_wrong": (notice("offer_wrong", reason="it is for another table"),),
    "offer_ignored": (
        notice(
            "offer_ignored", who=Who(fingerprint="AB12-CD34"), reason="we fetch 9 chains already"
        ),
    ),
    "offer_checking": (
        notice("offer_checking", who=Who(fingerprint="AB12-CD34"), hand=3, records=135),
    ),
    "offer_too_big": (
        notice("offer_too_big", who=LOBBY_BOB, reason="its chain is over 64 MiB before our seat"),
    ),
    "offer_stalled": (notice("offer_stalled", who=BOB, got=67, records=89),),
    "offer_refused": (
        notice("offer_refused", who=Who(fingerprint="AB12-CD34"), reason="not the chain's"),
    ),
    "chain_checked": (notice("chain_checked", records=135, seconds=0.3),),
    "joined": (notice("joined", who=LOBBY_BOB, fingerprint="EF56-7890", count=2, seats=3),),
    # ---- links and ways in
    "seat_open_elsewhere": (notice("seat_open_elsewhere", table="85cbb126cda6"),),
    "old_invite": (notice("old_invite", table="0123456789ab", reason="bad version 1"),),
    "cannot_listen": (
        notice("cannot_listen", address="0.0.0.0:4000", error="[Errno 98] Address already in use"),
    ),
    "no_relay": (
        notice(
            "no_relay",
            states="wss://a.example: cannot carry the table: blocked: kind 4318 is not allowed",
        ),
    ),
    "no_relay_now": (
        notice(
            "no_relay_now",
            states="wss://a.example: cannot carry the table: pow: required a difficulty >= 30",
        ),
    ),
    "no_way_in": (notice("no_way_in"),),
    "serving_others": (notice("serving_others"),),
    "connecting": (notice("connecting", address="127.0.0.1:40123"),),
    "pins_unreadable": (
        notice("pins_unreadable", path="/home/ann/relay_pins.json", error="Expecting value"),
    ),
    "pins_not_map": (notice("pins_not_map", path="/home/ann/relay_pins.json"),),
    "wrong_host": (notice("wrong_host", address="10.0.0.5:4000"),),
    "relay_pinned": (
        notice("relay_pinned", address="10.0.0.9:7000", fingerprint="7KQ2-M4XA-9PLD"),
    ),
    "not_invited_peer": (
        notice("not_invited_peer", address="10.0.0.5:4000", error="expected AB12, got CD34"),
    ),
    "no_way_works": (
        notice("no_way_works", tried="direct 10.0.0.5:4000: refused; Nostr (3 relays): closed"),
    ),
    "nothing_answered": (
        notice("nothing_answered", seconds=30.0, tried="Nostr (2 relays): connecting"),
    ),
    "way_retry": (
        notice(
            "way_retry",
            way="direct 10.0.0.5:4000",
            kind="direct",
            where="10.0.0.5:4000",
            error="cannot connect to 10.0.0.5:4000: refused",
        ),
        notice(
            "way_retry",
            way="relay 10.0.0.9:7000",
            kind="relay",
            where="10.0.0.9:7000",
            error="the hub refused: full",
        ),
        notice(
            "way_retry",
            way="Nostr (3 relays)",
            kind="nostr",
            where="3",
            error="no Nostr relay answered within 10 s (3 relays)",
        ),
        notice(
            "way_retry",
            way="Nostr (1 relay)",
            kind="nostr",
            where="1",
            error="this Nostr link is closed",
        ),
    ),
    "relay_barred": (
        notice("relay_barred", url="wss://a.example", reason="auth-required: you must auth"),
        notice("relay_barred", url="ws://127.0.0.1:7777", reason="silent: no answer to our events"),
    ),
    "hub_note": (
        notice(
            "hub_note",
            kind="handshake",
            text="refused a connection from 127.0.0.9: handshake failed: bad MAC",
            more=0,
        ),
        notice(
            "hub_note",
            kind="per-source",
            text="refused a connection from 127.0.0.9: it holds 64",
            more=12,
        ),
        notice(
            "hub_note",
            kind="table-refused",
            text="refused a table of 127.0.0.9: too many tables from your address",
            more=0,
        ),
        notice(
            "hub_note",
            kind="host-busy",
            text="the host's own queue is full (8388608 bytes): messages from its table wait "
            "for it (the host's link is never cut)",
            more=0,
        ),
    ),
    "slow_invite": (notice("slow_invite", step=500, floor=5000),),
    "invite_no_way": (notice("invite_no_way"),),
    "known_table": (notice("known_table"),),
    "stored_unusable": (
        notice("stored_unusable", problem="/home/ann/.local/share/dealerless/tables/ab12: bad"),
    ),
    "no_resume": (notice("no_resume", table=""), notice("no_resume", table="ab12")),
    "ambiguous": (notice("ambiguous", table="ab"),),
    "resuming": (
        notice("resuming", table="0123456789ab", game="tuppen", role="host"),
        notice("resuming", table="0123456789ab", game="belote", role="join"),
    ),
    "bot_failed": (notice("bot_failed", codes="0, 1, 0"),),
    # ---- the client's own (client/tui/lobby.py)
    "left_early": (notice("left_early"),),
}
