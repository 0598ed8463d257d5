"""The node's notices in English are the sentences the node said before it said notices
(node/notices.py): its log file, a plain run's lines and the tests that grep them."""

from __future__ import annotations

import pytest

from dealerless.node.notices import ENGLISH, Notice, Who, english, notice, text_notice

BOB = Who(seat=2, name="bob")
PAIRS: list[tuple[Notice, str]] = [
    (notice("connected", peers=2), "connected; 2 other peer(s) present"),
    (
        notice("ready", game="tuppen", seats=3, who=Who(seat=0, name="ann")),
        "table ready: tuppen, 3 seats; we are seat 0 (ann)",
    ),
    (notice("outbox_full", n=1000), "1000 of our own messages wait for the link; giving up"),
    (
        notice(
            "retrying", error="every way in is down (direct 10.0.0.5:4000: refused)", seconds=0.4
        ),
        "every way in is down (direct 10.0.0.5:4000: refused); retrying in 0.4 s",
    ),
    (
        notice("link_lost_after_end", error="the local hub closed this link"),
        "link lost after the end (the local hub closed this link); reconnecting",
    ),
    (notice("link_lost", error="connection reset"), "link lost (connection reset); reconnecting"),
    (
        notice("share_damaged", path="/h/t/secrets", error="ValueError: bad scalar"),
        "cannot resume: a stored key share in /h/t/secrets is missing or damaged (ValueError: "
        "bad scalar); the transcript was left untouched",
    ),
    (
        notice("transcript_unusable", path="/h/t/transcript.dlt", error="bad magic"),
        "cannot resume: the stored transcript /h/t/transcript.dlt is unusable (bad magic); it "
        "was left untouched",
    ),
    (notice("move_refused", reason="it is not your turn"), "move refused: it is not your turn"),
    (
        notice("hand_starts", hand=1, dealer=Who(seat=3, name="bot2")),
        "hand 1 starts; dealer seat 3 (bot2)",
    ),
    (
        notice("hand_ended", hand=2, how="ended", reason="seat 1 (bob) took the last trick"),
        "hand 2 ended: seat 1 (bob) took the last trick",
    ),
    (
        notice("seats_change", hand=3, asked="nobody asked", silent="; seat 2 (bob) was silent"),
        "seats change after hand 3 (nobody asked; seat 2 (bob) was silent)",
    ),
    (
        notice("goes_on", seats=4, names=("ann", "bob", "cy", "dan")),
        "the table goes on with 4 seats: ann, bob, cy, dan",
    ),
    (notice("sit_out_following", names=("ann", "cy")), "we sit out and follow the table: ann, cy"),
    (notice("goes_on_without_us", names=("ann", "bob")), "the table goes on without us: ann, bob"),
    (
        notice("share_missing", hand=4, store="/h/t", reason="unreadable"),
        "our stored key share of hand 4 (store of /h/t) is missing or damaged (unreadable): "
        "we cannot play that hand, the others will time us out of it (silence: at most the "
        "bounded settlement), then we play on",
    ),
    (
        notice("timed_out", who=BOB, phase="play", hand=4),
        "seat 2 (bob) was timed out (play, hand 4)",
    ),
    (notice("vote", who=BOB), "seat 2 (bob) is too slow: we voted to time them out"),
    (
        notice("damaged", reason="bad frame"),
        "refused a damaged or misrouted message: bad frame",
    ),
    (
        notice("refused_from", who=BOB, reason="not your turn to play, seat 0 is to play"),
        "refused a message from seat 2 (bob): not your turn to play, seat 0 is to play",
    ),
    (
        notice("refused_from", who=Who(name="bob"), reason="not msgpack"),
        "refused a message from 'bob': not msgpack",
    ),
    (
        notice("refused_from", who=Who(fingerprint="7KQ2M4XA9"), reason="truncated"),
        "refused a message from 7KQ2M4XA9: truncated",
    ),
    (
        notice(
            "game_over",
            reason="10 hands played",
            winners="seat 0 (ann)",
            scores="ann 1, bob 0, cem 0",
        ),
        "game over: 10 hands played; won by seat 0 (ann); final scores: ann 1, bob 0, cem 0",
    ),
    (notice("waiting", who=BOB, seconds=31.2), "waiting for seat 2 (bob) (31 s)"),
    (
        notice("auditor_failed", failure="bad signature"),
        "the auditor replay failed: bad signature",
    ),
    (
        notice("transcript", records=220, verified=1, violations=0),
        "transcript: 220 records, verified by replay",
    ),
    (
        notice("transcript", records=220, verified=0, violations=0),
        "transcript: 220 records, NOT verified",
    ),
    (
        notice("transcript", records=221, verified=1, violations=2),
        "transcript: 221 records, verified by replay; 2 violation(s)",
    ),
    (
        notice("cheating", culprits=(BOB,), count=3, more=0),
        "caught cheating: seat 2 (bob): 3 violation(s)",
    ),
    (
        notice("cheating", culprits=(Who(seat=1, name="cy"), BOB), count=64, more=5),
        "caught cheating: seat 1 (cy), seat 2 (bob): 64 violation(s) (+5 more)",
    ),
    (
        notice("never_started"),
        "the table never started: the seats did not all sign the configuration",
    ),
    (
        notice("peer_records_bad", error="bad proof"),
        "records from the peers do not replay (bad proof); using our own",
    ),
    (
        notice("resumed", stored=40, peers=0, hand=2, phase="play", hold=0),
        "resumed from 40 stored record(s): hand 2, play",
    ),
    (
        notice("resumed", stored=40, peers=6, hand=3, phase="deal", hold=1),
        "resumed from 40 stored record(s) and 6 from the peers: hand 3, deal; no peer has "
        "answered yet, so we wait for one before we write",
    ),
    (notice("released"), "heard from a peer: writing again"),
    (notice("peer_left_end", who=BOB), "seat 2 (bob) left after the end of the game"),
    (
        notice("peer_down_wait", who=Who(seat=1, name="bob"), seconds=120.0),
        "seat 1 (bob) disconnected; the table waits up to 120 s at their step, then times them out",
    ),
    (notice("peer_up", who=BOB), "seat 2 (bob) connected"),
    (notice("peer_down", who=Who(name="bob")), "'bob' disconnected"),
    (notice("peer_up", who=Who(invalid=True)), "an invalid key connected"),
    (
        notice("bad_signature", kind="have", who=BOB),
        "refused a 'have' message with a bad signature (seat 2 (bob))",
    ),
    (
        notice("peer_quit", who=Who(seat=1, name="ann")),
        "seat 1 (ann) quit the table; if they do not come back they are timed out",
    ),
    (
        notice("direct_up", peer="T5P4-PN3M-OMQL-E622-QRJ2-OPH7", how="punched"),
        "direct link with T5P4-PN3M-OMQL-E622-QRJ2-OPH7 is up (punched)",
    ),
    (
        notice(
            "direct_refused", who=Who(seat=1, name="bob"), reason="a candidate is [address, port]"
        ),
        "refused the direct-link addresses of seat 1 (bob): a candidate is [address, port]",
    ),
    (
        notice("coming_back"),
        "we asked to come back: we sit down again at the next hand boundary",
    ),
    (
        notice("away_quiet", seconds=90.2),
        "the table made no progress for 90 s: we stop following it",
    ),
    (notice("asked_change", change="sit out"), "we asked to sit out after this hand"),
    (
        notice("cannot_change", change="sit-out", reason="no sit-out now"),
        "cannot sit-out here: no sit-out now",
    ),
    (
        notice("newcomer_waits", who=Who(name="bob"), fingerprint="ab12 cd34 ef56 7890", chips=200),
        "'bob' [ab12 cd34 ef56 7890] waits to sit down with 200 after this hand",
    ),
    (
        notice("comes_back", who=Who(name="bob"), fingerprint="ab12 cd34 ef56 7890"),
        "'bob' [ab12 cd34 ef56 7890] comes back after this hand",
    ),
    (
        notice("cannot_reform", reason="no reseat now"),
        "cannot re-form the table: no reseat now",
    ),
    (
        notice("next_host_wait", hand=6),
        "seats change after hand 6: waiting for the next host",
    ),
    (
        notice("newcomers_refused", reason="no next segment: not new"),
        "the newcomers cannot sit down (no next segment: not new); the table goes on without them",
    ),
    (
        notice("cannot_go_on", reason="no next segment"),
        "the table cannot go on: no next segment",
    ),
    (
        notice("back_from_silence"),
        "we were silent and sit out (our chips kept); we ask to come back",
    ),
    (
        notice("next_host_missing", seconds=360.0),
        "the next host sent no configuration in 360 s: the table ends here",
    ),
    (
        notice("unanswered", seconds=60.0),
        "nobody at the table answered for 60 s (the game may be over, or its host gone)",
    ),
    (
        notice("at_table", listed="ann [AB12-CD34], bob [EF56-7890]", need=1),
        "at the table: ann [AB12-CD34], bob [EF56-7890]; waiting for 1 more player(s)",
    ),
    (
        notice("host_refused", reason="the table is full"),
        "the host refused us: the table is full",
    ),
    (notice("finished", hands=7), "this table is finished: its game ended after 7 hands"),
    (notice("finished", hands=-1), "this table is finished: its game ended"),
    (
        notice("config_refused", reason="the game differs from the invite"),
        "refused the host's table configuration: the game differs from the invite",
    ),
    (
        notice("newcomer_refused", reason="missing field 'seats'"),
        "refused the table configuration: missing field 'seats'",
    ),
    (
        notice("offer_unreadable", reason="missing field 'seats'"),
        "no readable first configuration in a running table's offer (missing field 'seats'); "
        "refused",
    ),
    (
        notice("offer_checking", who=Who(fingerprint="AB12-CD34"), hand=3, records=135),
        "AB12-CD34 offers us a seat at the running table (after hand 3); checking its chain "
        "from the start (135 records)",
    ),
    (
        notice("offer_stalled", who=Who(fingerprint="AB12-CD34"), got=67, records=89),
        "AB12-CD34 sent no more of the table's chain (67 of 89 records); its offer is given up",
    ),
    (
        notice("chain_checked", records=135, seconds=0.31),
        "checked the table's chain from its start: 135 records in 0.3 s",
    ),
    (
        notice("joined", who=Who(name="bob"), fingerprint="EF56-7890", count=2, seats=3),
        "'bob' [EF56-7890] joined (2/3)",
    ),
    (
        notice("seat_open_elsewhere", table="85cbb126cda6"),
        "table 85cbb126cda6 is already open in another dealerless process on this computer (with "
        "this home): one node per seat",
    ),
    (
        notice("old_invite", table="0123456789ab", reason="bad version 1"),
        "cannot use table 0123456789ab: its stored invite is unusable (bad version 1); tables "
        "made before invite format 2 cannot be resumed",
    ),
    (
        notice("cannot_listen", address="0.0.0.0:4000", error="[Errno 98] Address already in use"),
        "cannot listen on 0.0.0.0:4000: [Errno 98] Address already in use",
    ),
    (
        notice("no_relay", states="wss://a.example: cannot carry the table: blocked"),
        "no Nostr relay will carry this table: wss://a.example: cannot carry the table: blocked",
    ),
    (
        notice("no_way_in"),
        "this table has no way in (no direct address, relay or Nostr relays)",
    ),
    (
        notice("serving_others"),
        "we left the table; this process keeps passing the others' messages (direct links) "
        "until they have all finished; Ctrl-C ends it for them too",
    ),
    (notice("connecting", address="127.0.0.1:40123"), "connecting to 127.0.0.1:40123"),
    (
        notice("pins_unreadable", path="/home/ann/relay_pins.json", error="Expecting value"),
        "/home/ann/relay_pins.json is unreadable (Expecting value); move it away to start afresh",
    ),
    (
        notice("wrong_host", address="10.0.0.5:4000"),
        "10.0.0.5:4000 names a host for this table that the invite does not (a relay or "
        "address that is not the host's); check the invite code",
    ),
    (
        notice("relay_pinned", address="10.0.0.9:7000", fingerprint="7KQ2-M4XA-9PLD"),
        "relay 10.0.0.9:7000 is 7KQ2-M4XA-9PLD: pinned from now on",
    ),
    (
        notice("not_invited_peer", address="10.0.0.5:4000", error="expected AB12, got CD34"),
        "10.0.0.5:4000 is not who the invite says (identity mismatch): expected AB12, got "
        "CD34; check the invite code",
    ),
    (
        notice("nothing_answered", seconds=30.0, tried="Nostr (2 relays): connecting"),
        "nothing answered within 30 s; tried Nostr (2 relays): connecting",
    ),
    (
        notice(
            "way_retry",
            way="relay 10.0.0.9:7000",
            kind="relay",
            where="10.0.0.9:7000",
            error="the hub refused: full",
        ),
        "relay 10.0.0.9:7000: the hub refused: full; trying again",
    ),
    (
        notice("relay_barred", url="wss://a.example", reason="auth-required: you must auth"),
        "relay wss://a.example cannot carry the table: auth-required: you must auth",
    ),
    (
        notice(
            "hub_note",
            kind="per-key",
            text="refused a connection from 127.0.0.9: it holds 64",
            more=12,
        ),
        "refused a connection from 127.0.0.9: it holds 64 (and 12 more like it since the last "
        "such line)",
    ),
    (
        notice(
            "hub_note",
            kind="handshake",
            text="refused a connection from 127.0.0.9: bad MAC",
            more=0,
        ),
        "refused a connection from 127.0.0.9: bad MAC",
    ),
    (
        notice("slow_invite", step=500, floor=5000),
        "refused: the invite's step timeout is 500 ms, below the floor of 5000 ms (a seat "
        "could be timed out before a person can act; --min-step-timeout lowers the floor for "
        "bot tables)",
    ),
    (notice("no_resume", table=""), "no table to resume"),
    (notice("no_resume", table="ab12"), "no table to resume matching 'ab12'"),
    (notice("ambiguous", table="ab"), "'ab' matches several tables; give more of the id"),
    (
        notice("resuming", table="0123456789ab", game="belote", role="join"),
        "resuming table 0123456789ab (belote, join)",
    ),
    (notice("bot_failed", codes="0, 1, 0"), "a bot process failed: exit codes [0, 1, 0]"),
    (text_notice("every way in is down"), "every way in is down"),
]


@pytest.mark.parametrize(("said", "sentence"), PAIRS, ids=lambda x: getattr(x, "code", ""))
def test_english_is_the_old_sentence(said: Notice, sentence: str) -> None:
    assert english(said) == sentence
    assert str(said) == sentence


def test_every_code_has_its_english_and_the_pairs_cover_most() -> None:
    covered = {said.code for said, _ in PAIRS}
    assert covered <= set(ENGLISH)
    assert len(covered) >= 0.8 * len(ENGLISH), sorted(set(ENGLISH) - covered)


def test_an_unknown_code_keeps_its_data() -> None:
    assert english(notice("from_the_future", n=3, who=Who(name="x"))) == (
        "from_the_future: n=3, who='x'"
    )
    assert english(Notice("bare")) == "bare"
