"""One or more concrete messages per place in node/ (and client/tui/) where a node message is
made, for tests/tui/test_node_messages.py.

Keys are ``file: template`` (the message's format string with ``{}`` for each value, its first
48 characters; see :func:`template` in the test); a value is a tuple of concrete messages (each
must fit the format string) or, for a place that only passes on what it is given, a string
saying where those messages are listed instead.
"""

from __future__ import annotations

PASSED_ON = str
Samples = tuple[str, ...] | PASSED_ON

HOSTILE = "the hostile node of the tests (node/hostile.py): never on a person's screen"
FATAL = "a FatalLinkError's own text: listed under each raise FatalLinkError(...)"

SAMPLES: dict[str, Samples] = {
    # ---- node/app.py
    "app.py: resuming table {} ({}, {})": (
        "resuming table 0123456789ab (tuppen, host)",
        "resuming table 0123456789ab (belote, join)",
    ),
    "app.py: {text}": "logged_say/stderr_say pass on the lines of the other places",
    "app.py: {stopping[0]}": "no_relay() passes on link.py's 'no Nostr relay will carry ...'",
    "app.py: connecting to {}:{}": ("connecting to 127.0.0.1:40123",),
    "app.py: {}:{} names a host for this table that the invit": (
        "10.0.0.5:4000 names a host for this table that the invite does not (a relay or "
        "address that is not the host's); check the invite code",
    ),
    "app.py: refused: the invite's step timeout is {} ms, bel": (
        "refused: the invite's step timeout is 500 ms, below the floor of 5000 ms (a seat "
        "could be timed out before a person can act; --min-step-timeout lowers the floor for "
        "bot tables)",
    ),
    "app.py: refused: the invite code holds no way to reach t": (
        "refused: the invite code holds no way to reach the table this version can use",
    ),
    "app.py: we left the table; this process keeps passing th": (
        "we left the table; this process keeps passing the others' messages (direct links) "
        "until they have all finished; Ctrl-C ends it for them too",
    ),
    "app.py: this table is known here: resuming it": ("this table is known here: resuming it",),
    "app.py: cannot use a stored table: {}": (
        "cannot use a stored table: /home/ann/.local/share/dealerless/tables/ab12: bad meta",
    ),
    "app.py: no table to resume{ matching {}|}": (
        "no table to resume",
        "no table to resume matching 'ab12'",
    ),
    "app.py: {} matches several tables; give more of the id": (
        "'ab' matches several tables; give more of the id",
    ),
    "app.py: cannot use table {}: its stored invite is unusab": (
        "cannot use table 0123456789ab: its stored invite is unusable (bad version 1); tables "
        "made before invite format 2 cannot be resumed",
    ),
    "app.py: relay {}:{} is {}: pinned from now on": (
        "relay 10.0.0.9:7000 is 7KQ2-M4XA-9PLD: pinned from now on",
    ),
    "app.py: this table has no way in (no direct address, rel": (
        "this table has no way in (no direct address, relay or Nostr relays)",
    ),
    "app.py: {str(exc)}": "relay_pins.py's ValueError as a FatalLinkError: listed there",
    "app.py: cannot listen on {}:{}: {}": (
        "cannot listen on 0.0.0.0:4000: [Errno 98] Address already in use",
    ),
    # ---- node/catch_up.py, node/hub.py, node/hostile.py, node/local_game.py
    "catch_up.py: heard from a peer: writing again": ("heard from a peer: writing again",),
    "hub.py: {text}": "the hub's Notes pass on its notes: listed under hub_state.py",
    "hub_state.py: {text}{ (and {} more like it since the last such": (
        "refused a connection from 127.0.0.9: handshake failed: bad MAC",
        "refused a connection from 127.0.0.9: it holds 64 (and 12 more like it since the last "
        "such line)",
        "refused a table of 127.0.0.9: too many tables from your address",
        "closed the idle table of 127.0.0.7 (no message for 30 s) to make room for a table of "
        "127.0.0.8",
        "closed a table opened from 127.0.0.7: it carried no message for 300 s",
        "dropped a 900000-byte message from 127.0.0.5 at 127.0.0.5: 4096 bytes a message (a hello)",
        "the hub is full: ended a connection from 127.0.0.7 (idle) to make room for one from "
        "127.0.0.8",
        "the host's own queue is full (8388608 bytes): messages from its table wait for it "
        "(the host's link is never cut)",
    ),
    "hostile.py: hostile: disconnecting for good": HOSTILE,
    "hostile.py: {text}": HOSTILE,
    "local_game.py: a bot process failed: exit codes {}": (
        "a bot process failed: exit codes [0, 1, 0]",
    ),
    # ---- node/join_handshake.py
    "join_handshake.py: at the table: {}; waiting for {} more player(s)": (
        "at the table: ann [AB12-CD34], bob [EF56-7890]; waiting for 1 more player(s)",
    ),
    "join_handshake.py: the host refused us: {}": (
        "the host refused us: the table is full",
        "the host refused us: no valid proof of the invite's token",
    ),
    "join_handshake.py: refused a lobby message from the host: names, ke": (
        "refused a lobby message from the host: names, keys or need missing",
    ),
    "join_handshake.py: refused a table configuration with a bad host si": (
        "refused a table configuration with a bad host signature",
    ),
    "join_handshake.py: refused a table configuration from a seat that d": (
        "refused a table configuration from a seat that does not host it",
    ),
    "join_handshake.py: refused the host's table configuration: {}": (
        "refused the host's table configuration: the game differs from the invite",
    ),
    "join_handshake.py: the table configuration has no seat for us": (
        "the table configuration has no seat for us",
    ),
    "join_handshake.py: {} [{}] joined ({}/{})": ("'bob' [EF56-7890] joined (2/3)",),
    "join_handshake.py: refused the table configuration: {}": (
        "refused the table configuration: missing field 'seats'",
    ),
    "join_handshake.py: the table is full": ("the host refused us: the table is full",),
    "seat_messages.py: {} quit the table; if they do not come back they": (
        "seat 1 (ann) quit the table; if they do not come back they are timed out",
    ),
    "join_handshake.py: this table is finished: its game ended{}": (
        "this table is finished: its game ended after 12 hands",
        "this table is finished: its game ended",
    ),
    "join_handshake.py: no readable first configuration in a running tab": (
        "no readable first configuration in a running table's offer (missing field 'seats'); "
        "refused",
    ),
    "join_handshake.py: a running table's first configuration not signed": (
        "a running table's first configuration not signed by the invite's host; refused",
    ),
    "join_handshake.py: a running table's first configuration is wrong (": (
        "a running table's first configuration is wrong (it is for another table); refused",
    ),
    "join_handshake.py: ignored the offer of {}: {}": (
        "ignored the offer of AB12-CD34: we are fetching 9 chains already",
    ),
    "join_handshake.py: {} offers us a seat at the running table (after ": (
        "AB12-CD34 offers us a seat at the running table (after hand 3); checking its chain "
        "from the start (135 records)",
    ),
    "join_handshake.py: gave up the offer of {}: {}": (
        "gave up the offer of AB12-CD34: its chain is over 64 MiB before our seat",
    ),
    "join_handshake.py: {} sent no more of the table's chain ({} of {} r": (
        "AB12-CD34 sent no more of the table's chain (67 of 89 records); its offer is given up",
    ),
    "join_handshake.py: refused the running table {} offered: {}": (
        "refused the running table AB12-CD34 offered: the configuration offered is not the "
        "chain's: carry.ledgers is not what the chain says",
    ),
    "join_handshake.py: checked the table's chain from its start: {} rec": (
        "checked the table's chain from its start: 135 records in 0.3 s",
    ),
    # ---- node/links.py, node/ways.py, node/relay_pins.py
    "links.py: {}:{} is not who the invite says (identity misma": (
        "10.0.0.5:4000 is not who the invite says (identity mismatch): expected AB12, got "
        "CD34; check the invite code",
    ),
    "ways.py: no way in to the table works ({})": (
        "no way in to the table works (direct 10.0.0.5:4000: refused; Nostr (3 relays): closed)",
    ),
    "ways.py: nothing answered within {} s; tried {}": (
        "nothing answered within 30 s; tried Nostr (2 relays): connecting",
    ),
    "ways.py: {}: {}; trying again": (
        "direct 10.0.0.5:4000: cannot connect to 10.0.0.5:4000: refused; trying again",
        "relay 10.0.0.9:7000: the hub refused: full; trying again",
        "Nostr (3 relays): no Nostr relay answered within 10 s (3 relays); trying again",
        "Nostr (1 relay): this Nostr link is closed; trying again",
    ),
    "app.py: no Nostr relay carries the table now: {}": (
        "no Nostr relay carries the table now: wss://a.example: cannot carry the table: "
        "pow: required a difficulty >= 30",
    ),
    "relay.py: relay {} cannot carry the table: {}": (
        "relay wss://a.example cannot carry the table: auth-required: you must auth",
        "relay ws://127.0.0.1:7777 cannot carry the table: silent: no answer to our events",
    ),
    "link.py: no Nostr relay will carry this table: {}": (
        "no Nostr relay will carry this table: wss://a.example: cannot carry the table: "
        "blocked: kind 4318 is not allowed",
    ),
    "relay_pins.py: {} is unreadable ({}); move it away to start afr": (
        "/home/ann/relay_pins.json is unreadable (Expecting value); move it away to start afresh",
    ),
    "relay_pins.py: {} does not hold a map of relay fingerprints": (
        "/home/ann/relay_pins.json does not hold a map of relay fingerprints",
    ),
    # ---- node/seat.py
    "seat.py: {reason}": "_stop says what its callers give it: listed under their _stop(...)",
    "seat.py: connected; {} other peer(s) present": (
        "connected; 0 other peer(s) present",
        "connected; 2 other peer(s) present",
    ),
    "seat.py: table ready: {}, {} seats; we are {}": (
        "table ready: tuppen, 3 seats; we are seat 0 (ann)",
    ),
    "seat.py: table ready: {}, {} seats; we are seat {} ({})": (
        "table ready: limit-tuppen, 4 seats; we are seat 3 (dora)",
    ),
    "seat.py: cannot resume: the stored transcript {} is unusa": (
        "cannot resume: the stored transcript /h/t/transcript.dlt is unusable (bad magic); it "
        "was left untouched",
    ),
    "seat_end.py: transcript: {} records, {verified by replay|NOT ": (
        "transcript: 220 records, verified by replay",
        "transcript: 220 records, NOT verified",
        "transcript: 221 records, verified by replay; 2 violation(s)",
        "transcript: 90 records, NOT verified; 1 violation(s)",
    ),
    "seat.py: {} of our own messages wait for the link; giving": (
        "1000 of our own messages wait for the link; giving up",
    ),
    "catch_up.py: resumed from {} stored record(s){ and {} from th": (
        "resumed from 40 stored record(s): hand 2, play",
        "resumed from 40 stored record(s) and 6 from the peers: hand 3, deal; no peer has "
        "answered yet, so we wait for one before we write",
    ),
    "seat_report.py: hand {} starts; dealer {}": ("hand 1 starts; dealer seat 3 (bot2)",),
    "seat_report.py: waiting for {} ({} s)": ("waiting for seat 2 (bob) (31 s)",),
    "seat_end.py: caught cheating: {}: {} violation(s){}": (
        "caught cheating: seat 2 (bob): 3 violation(s)",
        "caught cheating: seat 1 (cy), seat 2 (bob): 64 violation(s) (+5 more)",
    ),
    "seat_end.py: the table never started: the seats did not all s": (
        "the table never started: the seats did not all sign the configuration",
    ),
    "seat.py: cannot resume: a stored key share in {} is missi": (
        "cannot resume: a stored key share in /h/t/secrets is missing or damaged (ValueError: "
        "bad scalar); the transcript was left untouched",
    ),
    "seat_end.py: the auditor replay failed: {}": ("the auditor replay failed: bad signature",),
    "seat.py: move refused: {}": ("move refused: it is not your turn",),
    "seat_report.py: hand {} {}: {}": (
        "hand 2 ended: seat 1 (bob) took the last trick",
        "hand 3 aborted: voided",
    ),
    "seat.py: {str(exc)}": FATAL,
    "seat.py: {}; retrying in {} s": (
        "every way in is down (direct 10.0.0.5:4000: connection refused); retrying in 0.4 s",
    ),
    "catch_up.py: records from the peers do not replay ({}); using": (
        "records from the peers do not replay (bad proof); using our own",
    ),
    "seat_report.py: our stored key share of hand {} (store of {}) is": (
        "our stored key share of hand 4 (store of /h/t) is missing or damaged (unreadable): "
        "we cannot play that hand, the others will time us out of it (silence: at most the "
        "bounded settlement), then we play on",
    ),
    "seat_report.py: {} was timed out ({}, hand {})": (
        "seat 2 (bob) was timed out (play, hand 4)",
    ),
    "seat.py: link lost after the end ({}); reconnecting": (
        "link lost after the end (the local hub closed this link); reconnecting",
    ),
    "seat.py: link lost ({}); reconnecting": ("link lost (connection reset); reconnecting",),
    "seat_report.py: {} is too slow: we voted to time them out": (
        "seat 2 (bob) is too slow: we voted to time them out",
    ),
    "seat_report.py: refused a damaged or misrouted message: {}": (
        "refused a damaged or misrouted message: bad frame",
    ),
    "seat_report.py: refused a message from {}: {}": (
        "refused a message from seat 2 (bob): not your turn to play, seat 0 is to play",
    ),
    "seat_report.py: game over: {}; won by {}; final scores: {}": (
        "game over: 10 hands played; won by seat 0 (ann); final scores: ann 1, bob 0, cem 0",
    ),
    "seat_report.py: seats change after hand {} ({}{})": (
        "seats change after hand 4 (seat 1 (bob): stand)",
        "seats change after hand 2 (seat 0 (ann): reseat)",
        "seats change after hand 3 (nobody asked; seat 2 (bob) was silent)",
    ),
    "seat_report.py: the table goes on with {} seats: {}": (
        "the table goes on with 4 seats: ann, bob, cy, dan",
    ),
    "seat_report.py: the table goes on without us: {}": ("the table goes on without us: ann, bob",),
    "seat_report.py: we sit out and follow the table: {}": (
        "we sit out and follow the table: ann, cy",
    ),
    "join_handshake.py: nobody at the table answered for {} s (the game ": (
        "nobody at the table answered for 60 s (the game may be over, or its host gone)",
    ),
    # ---- node/seat_changes.py
    "seat_changes.py: we asked to {} after this hand": (
        "we asked to stand after this hand",
        "we asked to sit out after this hand",
    ),
    "seat_changes.py: cannot {} here: {}": (
        "cannot stand here: tuppen keeps its seats for the whole game: no stand",
        "cannot sit-out here: no sit-out now: the table is over or we have no seat",
    ),
    "seat_changes.py: the table is full": ("the host refused us: the table is full",),
    "seat_changes.py: this table is finished: its game is over": (
        "the host refused us: this table is finished: its game is over",
    ),
    "seat_changes.py: the table is full and enough players wait for a ": (
        "the host refused us: the table is full and enough players wait for a seat",
    ),
    "seat_changes.py: buy-in refused: {}": (
        "the host refused us: buy-in refused: a buy-in must be 10..1000 chips (the ante to the "
        "maximum)",
        "the host refused us: buy-in refused: in play-money every seat sits down with 500 chips",
        "the host refused us: buy-in refused: a tournament takes no newcomers once it has started",
        "the host refused us: buy-in refused: in Pottuppen a newcomer sits down with a balance "
        "of 0 (no buy-in)",
        "the host refused us: buy-in refused: bob brings 3 ledgers",
    ),
    "seat_changes.py: {} [{}] waits to sit down with {} after this han": (
        "'bob' [ab12 cd34 ef56 7890] waits to sit down with 200 after this hand",
    ),
    "seat_changes.py: we asked to come back: we sit down again at the ": (
        "we asked to come back: we sit down again at the next hand boundary",
    ),
    "seat_changes.py: the table made no progress for {} s: we stop fol": (
        "the table made no progress for 90 s: we stop following it",
    ),
    "seat_changes.py: {} [{}] comes back after this hand": (
        "'bob' [ab12 cd34 ef56 7890] comes back after this hand",
    ),
    "seat_changes.py: we were silent and sit out (our chips kept); we ": (
        "we were silent and sit out (our chips kept); we ask to come back",
    ),
    "seat_changes.py: cannot re-form the table: {}": (
        "cannot re-form the table: no reseat now: the table is over or we have no seat",
    ),
    "seat_changes.py: seats change after hand {}: waiting for the next": (
        "seats change after hand 6: waiting for the next host",
    ),
    "seat_changes.py: the newcomers cannot sit down ({}); the table go": (
        "the newcomers cannot sit down (no next segment: not new); the table goes on without them",
    ),
    "seat_changes.py: the table cannot go on: {}": (
        "the table cannot go on: no next segment: only the next host signs the next configuration",
    ),
    "seat_changes.py: the next host sent no configuration in {} s: the": (
        "the next host sent no configuration in 360 s: the table ends here",
    ),
    "app.py: table {} is already open in another dealerless p": (
        "table 85cbb126cda6 is already open in another dealerless process on this computer (with "
        "this home): one node per seat",
    ),
    # ---- node/seat_messages.py
    "seat_messages.py: refused a {} message with a bad signature ({})": (
        "refused a 'have' message with a bad signature (seat 2 (bob))",
        "refused a 'hello' message with a bad signature ('mallory')",
    ),
    "seat_messages.py: no valid proof of the invite's token": (
        "the host refused us: no valid proof of the invite's token",
    ),
    "seat_messages.py: refused a message from {}: {}": (
        "refused a message from 'bob': not msgpack",
        "refused a message from 7KQ2M4XA9: truncated",
    ),
    "seat_messages.py: {} left after the end of the game": (
        "seat 2 (bob) left after the end of the game",
        "'bob' left after the end of the game",
    ),
    "seat_messages.py: {} disconnected; the table waits up to {} s at t": (
        "seat 1 (bob) disconnected; the table waits up to 120 s at their step, then times them out",
    ),
    "seat_messages.py: {} {connected|disconnected}": (
        "seat 2 (bob) connected",
        "'bob' disconnected",
        "an invalid key connected",
        "7KQ2M4XA9 disconnected",
    ),
    "mesh.py: direct link with {} is up ({})": (
        "direct link with T5P4-PN3M-OMQL-E622-QRJ2-OPH7 is up (punched)",
    ),
    "seat_direct.py: refused the direct-link addresses of {}: {}": (
        "refused the direct-link addresses of seat 1 (bob): a candidate is [address, port]",
    ),
    # ---- the client's own (client/tui/)
    "node_session.py: {text}": "DriverSession.say keeps the node's lines: listed at their places",
    "lobby.py: left the table before the end of the game": (
        "left the table before the end of the game",
    ),
}
