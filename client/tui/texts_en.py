"""The English texts of the terminal client (keys: see texts_en.py)."""

from __future__ import annotations

TEXTS: dict[str, str] = {
    "lobby.title": "{game}, {seats} seats: waiting for the players",
    "lobby.invite": "Invite code (give it to the other players):",
    "lobby.copy": "c copies it to the clipboard (terminals with OSC 52)",
    "lobby.copied": "copied",
    "lobby.opening": "opening the table...",
    "lobby.players": "At the table ({n}/{seats}):",
    "lobby.host": "host",
    "lobby.rematch_host": "Rematch: the others come when they press r on their final standings",
    "lobby.rematch_join": "Rematch: waiting for the host to open the table (when they press r too)",
    "lobby.connecting": "connecting to the host...",
    "lobby.waiting": "waiting for {n} more player(s)",
    "lobby.starting": "everyone is here: the table starts",
    "lobby.keys": "c copy invite  q leave",
    # screens and panels
    "app.title": "dealerless",
    # the games' names (protocol/rules/registry.py game_names(); its titles are English)
    "game.tuppen": "Tuppen (classic, penalty points)",
    "game.limit-tuppen": "Limit Tuppen",
    "game.no-limit-tuppen": "No Limit Tuppen",
    "game.pot-limit-tuppen": "Pot Limit Tuppen",
    "game.pottuppen": "Pottuppen",
    "game.belote": "Belote",
    "hand.title": "Hand {n}",
    "seat.you": "you",
    # the name of a player who chose none (wording.DEFAULT_NAMES)
    "name.player": "player",
    "seat.dealer": "dealer",
    "seat.stack": "in front",
    "panel.table": "Table",
    "panel.trick": "Trick",
    "panel.hand": "Your hand",
    "panel.actions": "Your moves",
    "panel.log": "What happened",
    "panel.chat": "Chat",
    # a label before what it names (French: a space before the colon)
    "label.colon": "{label}:",
    "trick.led": "{name} led",
    "trick.last": "last trick won by {name}",
    "trick.empty": "(no cards on the table)",
    "actions.wait": "waiting for {names}",
    "actions.none": "nothing to do now",
    "actions.optional": "(optional now)",
    "actions.choose": "choose {what}: number or arrows + Enter, Esc to go back",
    "actions.play": "play a card: its number, or arrows + Enter",
    "deadline": "{seconds}s left for {name}",
    "keys.hint": "? help  h history  m chat  s save  q quit",
    "status.to_act": "to act",
    "status.knocked": "knocked",
    "status.called": "called",
    "status.folded": "folded",
    "status.out": "out",
    "status.passed": "passed",
    "status.bid": "bid",
    "status.bet": "bet",
    "status.raised": "raised",
    "status.taker": "taker",
    "status.laundry": "laundry",
    "info.stake": "stake",
    "info.pot": "pot",
    "info.bet": "current bet",
    "info.ante": "ante",
    "info.trump": "trump",
    "info.taker": "taker",
    "info.turned": "turned up",
    "info.mode": "mode",
    "info.phase": "phase",
    "info.team": "team {n}",
    "info.bet_of": "{name} bet",
    "info.line": "{label}: {value}",
    "score.penalty points": "penalty",
    "score.chips": "net",
    "score.balance": "balance",
    "score.team points": "team",
    # actions
    "act.play": "play",
    "act.knock": "knock",
    "act.call": "call",
    "act.fold": "fold",
    "act.raise": "raise",
    "act.bet": "bet",
    "act.pass": "pass",
    "act.bid": "bid",
    "act.laundry": "dirty laundry",
    "act.tupp_attempt": "Tupp attempt",
    "act.tupp": "Tupp",
    "act.check": "check the laundry",
    "act.accept": "accept",
    # log
    "log.hand_started": "Hand {n} starts; {dealer} deals.",
    "log.dealt": "You get {cards}.",
    "log.shown": "{who} shows {cards}.",
    "log.turned": "Turned up: {cards}.",
    "log.action": "{who}: {what}.",
    "log.timeout": " (by timeout)",
    "log.trick": "{who} takes trick {n}.",
    "log.hand_ended": "Hand {n}: {winners} won ({reason}).",
    "log.deltas": "Scores change by {deltas}.",
    "log.aborted": "Hand {n} voided: {reason}.",
    "log.signed": "Hand {n} signed by every seat: every proof checked.",
    "log.game_over": "Game over: {winners} won ({reason}).",
    # why a hand or a game ended (protocol/rules/reasons.py)
    "reason.last_trick": "last trick",
    "reason.all_folded": "all others folded",
    "reason.tupp": "Tupp",
    "reason.contract_made": "contract made",
    "reason.contract_failed": "contract failed",
    "reason.capot": ", capot by {team}",
    "reason.solo": ", {who} took every trick",
    "reason.redeal": "everyone passed: new deal",
    "reason.single_bettor_won": "the single bettor took the last trick",
    "reason.defenders_won": "the defenders beat the bettor",
    "reason.pass_round": "pass round: the last trick pays into the pot",
    "reason.voided": "voided: {why}",
    "reason.one_left": "one player left under 10",
    "reason.none_left": "nobody left under 10: the fewest points of the last hand win",
    "reason.all_chips": "one seat has all the chips",
    "reason.hands_played": "the agreed number of hands was played",
    "reason.players_ended": "the players ended the game",
    "reason.target_reached": "{team} reached the target with {points} points",
    "log.violation": "CHEATING OR FAULT by {who}: {reason}",
    "log.timeout_vote": "{who} is silent: the table votes a timeout.",
    "log.error": "Not allowed: {reason}",
    "log.chat": "{who}: {text}",
    "who.nobody": "nobody",
    "who.table": "the table",
    # end of hand / game
    "end.hand": "Hand {n} is over",
    "end.title": "Result",
    "end.signed": "Every seat signed the result.",
    "end.unsigned": "Waiting for every seat to sign the result...",
    "end.game": "The game is over",
    "end.scoreboard": "Final standings ({kind}; chart: the last {hands} hands)",
    "end.winners": "Winners: {names}",
    "end.reason": "Why: {reason}",
    "end.standings": "Standings ({kind}): {scores}",
    "end.proofs_ok": "Every proof checked: no one cheated.",
    "end.cheats": "Cheating found: {text}",
    "end.cheat": "{who}: {reason}",
    "end.continue": "Space: continue",
    "end.quit": "q: quit",
    "end.menu": "Space: back to the menu",
    "end.rematch": "r: rematch",
    # help and dialogs
    "help.title": "Keys",
    "help.text": (
        "1-8         play the card with that number\n"
        "Left/Right  select a card, Enter plays it\n"
        "k c f r     knock, call, fold, raise\n"
        "b p d       bet, pass, bid (trump suit)\n"
        "l u t       dirty laundry, Tupp attempt, Tupp\n"
        "x a         check the laundry, accept it\n"
        "h           the hand history: every trick, who played what\n"
        "PgUp/PgDn   scroll the move log (End: back to the newest)\n"
        "m           write a chat message (Enter sends)\n"
        "w o         stand up / sit out after this hand (hand-by-hand games)\n"
        "o           sitting out: come back to the table\n"
        "s           save the transcript (replay: dealerless replay FILE)\n"
        "?           this help (any key closes it)\n"
        "q, Ctrl-C   quit (asks first while a game runs)"
    ),
    "quit.confirm": "A game is running. Quit? (y/n)",
    "chat.prompt": "say: ",
    "saved": "Transcript saved to {path}",
    "save.failed": "Could not save: {reason}",
    # start screen
    "start.title": "dealerless - card games with no dealer",
    "start.play": "Play against bots",
    "start.host": "Host a table (internet)",
    "start.host-lan": "Host a table (this network only)",
    "start.join": "Join with a code",
    "start.rules": "Read the rules",
    "start.settings": "Settings",
    "start.quit": "Quit",
    "start.hint": "Up/Down + Enter, or the number; q quits",
    "start.game": "Game: {game}  (Left/Right)",
    "start.bots": "Bots: {n}  (+/-)",
    "start.go": "Enter: start  Esc: back",
    "host.title": "Host a table",
    "host.game": "Game: {game}",
    "host.seats": "Seats: {n}",
    "host.bots": "Bots: {n}  ({people} seat(s) for people you invite)",
    "host.ways_internet": "Ways in: Nostr relays and this network",
    "host.ways_lan": "Ways in: this network only",
    "host.hint": "Up/Down: choose  Left/Right: change  Enter: host  Esc: back",
    "host.only_bots": "Only you and bots: the game starts as soon as the bots sit down.",
    "host.invite_people": "Enter opens the table and shows its invite code for {n} player(s).",
    "start.unavailable": "Networked play needs `dealerless host` / `dealerless join` (node).",
    "settings.name": "Name: {value}",
    "settings.lang": "Language: {value}",
    "settings.timeout": "Time per move: {value}s",
    "settings.level": "Bot level: {value}",
    # the bot levels (client/bots LEVELS; the settings file and --level keep the English)
    "level.strong": "strong",
    "level.normal": "normal",
    "level.basic": "basic",
    "settings.ascii": "Suit letters instead of symbols: {value}",
    "settings.hint": "Up/Down select, Left/Right change, Esc back",
    # replay
    "replay.title": "Replay: {file}",
    "replay.step": "step {i} of {n}",
    "replay.ok_short": "verified",
    "replay.bad_short": "DOES NOT VERIFY: {problem}",
    "replay.keys": "Right: next  Left: back  Home/End  q: quit",
    "replay.ok": "Transcript verified: every signature and proof checked.",
    "replay.bad": "Transcript does not verify: {reason}",
    # added for issue 13: seats, teams, notes, history, breakdown, node notices, lobby, settings
    "who.seat": "seat {n}",
    "team.name": "team {n} ({names})",
    "seat.partner": "your partner",
    "seat.clock": "{seconds}s left",
    "hand.empty": "(all your cards are played)",
    "mode.contest": "bettors play it out",
    "mode.single": "one bettor against all",
    "mode.pass_round": "pass round",
    "note.poverty": (
        "Poverty: {names} has 9 points. Call (c): losing costs {stake}; fold (f): costs 1."
    ),
    "note.answer": (
        "{name} knocked, stake {stake}. Call (c): a loss costs {stake}; fold (f): {fold}."
    ),
    "note.knock_cap": "No knock: {name} has {points} points and could pass 10 (stake cap {cap}).",
    "note.knock_empty": "Your cards are played; a knock still raises this hand's stake to {stake}.",
    "history.title": "Hand history",
    "history.hand": "Hand {n} (dealer: {dealer})",
    "history.trick": "trick {n}: {plays}  -> {winner}",
    "history.current": "on the table: {plays}",
    "history.empty": "Nothing has been played yet.",
    "history.keys": "Up/Down, PgUp/PgDn: scroll   h or Esc: close",
    "panel.more": "-- Up/Down, PgUp/PgDn: scroll ({above} lines above, {below} below) --",
    "log.laundry_true_chips": (
        "{checker} checked {declarer}'s dirty laundry, it was genuine: "
        "{checker} pays 1 chip into the pot"
    ),
    "log.laundry_bluff_chips": (
        "{checker} checked {declarer}'s dirty laundry, a bluff: "
        "{declarer} pays 1 chip into the pot"
    ),
    "log.tupp": (
        "{who} has a Tupp (four of a kind) and wins the hand: "
        "every other seat +{points}"
    ),
    "log.tupp_attempt": (
        "{who}'s three of a kind are real: "
        "{who} draws a new fourth card"
    ),
    "why.laundry_true": (
        "{checker} checked {declarer}'s dirty laundry, it was genuine: {checker} +1"
    ),
    "why.laundry_bluff": "{checker} checked {declarer}'s dirty laundry, a bluff: {declarer} +1",
    "why.jack": "{who} took the last trick with a jack: 1 point off",
    "why.tupp": "{who} +{points}: a Tupp costs every other seat 3",
    "why.folded": "{who} +{points}: folded (the stake before the knock)",
    "why.lost": "{who} +{points}: played on and lost at stake {stake}",
    "why.pot": "The pot of {pot} goes to {who}.",
    "why.paid": "{who} put {chips} into the pot (ante and bets)",
    "why.paid_folded": "{who} put {chips} into the pot, then folded",
    "why.card_points": "Card points: team 1 {one}, team 2 {two} (with the last trick)",
    "why.last_trick": "Last trick (+10): {who}",
    "why.belote": "Belote (king and queen of trumps): {who}'s team +20",
    "why.capot": "Capot: {team} took every trick",
    "why.contract_failed": "The contract failed: the defenders score all the points",
    "why.hand_points": "Points for the hand: team 1 {one}, team 2 {two}",
    "why.pot_left": "In the pot now: {pot}",
    "node.connected": "connected to the table",
    "node.verified": "game checked: all {n} records verified by replaying the whole game",
    "node.not_verified": "the transcript did NOT verify by replay",
    "node.waiting": "waiting for {name} ({seconds} s)",
    "node.link_lost": "connection lost; reconnecting...",
    "node.refused_full": "The table is full: the host refused the seat.",
    "node.table_finished": "This table is finished: its game is over. Ask for a new invite.",
    "node.table_finished_after": (
        "This table is finished: its game ended after {hands} hands. Ask for a new invite."
    ),
    "lobby.ended": "The table did not start: {reason}",
    "lobby.ended_keys": "q: back",
    "save.where": "Every table's transcript is kept in {dir}",
    "end.save": "s: save a copy",
    "end.continue_pause": "Space: continue (closes itself {n} s after the game goes on)",
    "end.your_turn": "It is your turn: Space closes this panel.",
    "settings.result_pause": "Result panel: {value}",
    "settings.until_closed": "stays until you close it",
    "settings.after": "closes {n} s after the game goes on",
    "settings.yes": "yes",
    "settings.no": "no",
    "settings.edit_name": "Your name (Enter saves, Esc cancels): ",
    "settings.edit_code": "Invite code (Enter joins, Esc cancels): ",
    "settings.rule": "{name}: {value}",
    "settings.hint_name": "Enter: edit the name  Up/Down select  Esc back",
    "rules.hint": "Left/Right: other game  Up/Down, PgUp/PgDn: scroll  Esc: back",
    "start.bad_code": "That is not a valid invite code: {reason}",
    # why a typed invite code is refused (client/tui/invite_text.py)
    "invite.too_long": "an invite code is at most {n} characters",
    "invite.old": "this invite code was made by an older dealerless; ask the host for a new one",
    "invite.newer": "this invite code was made by a newer dealerless; update this one to join",
    "invite.prefix": "an invite code starts with `{prefix}`",
    "invite.damaged": "the invite code is damaged or cut short: copy all of it again",
    "invite.characters": "the invite code has characters that do not belong in it",
    "invite.game": "the invite code names a game this version cannot play",
    "invite.invalid": "the invite code does not hold a valid invite: ask the host to send it again",
    "screen.too_small": "Terminal too small ({cols}x{rows}): make it at least 80x24.",
    "replay.header": "{title}: {names}; {n} steps (moves and deals)",
    "line.hand": "your hand: {cards}",
    "line.scores": "standings: {scores}",
    "line.choice": "your move (a number from 1 to {n})> ",
    "line.stdin_closed": (
        "standard input is closed: nobody can move for you, so your seat is timed out at its turns"
    ),
    "line.bad_choice": "type a number from 1 to {n}",
    "line.note": "({text})",
    "line.saved": "this table's transcript: {path}",
    "rule.poverty": "Poverty (a 9-point seat)",
    "rule.tupp": "Tupp (four of a kind)",
    "rule.tupp_attempt": "Tupp attempt",
    "rule.dirty_laundry": "Dirty laundry",
    "rule.jack_win": "Winning with a jack",
    "rule.knock_timing": "When to knock",
    "rule.mode": "Mode",
    "rule.starting_chips": "Starting chips",
    "rule.ante": "Ante",
    "rule.hands": "Hands per game",
    "rule.max_buy_in": "Cash: buy-in",
    "rule.ante_increase_every": "Tournament: ante +1 every N hands",
    "rule.pot_minimum": "Pot minimum",
    "rule.pass_round_payment": "Pass round payment",
    "rule.target": "Target points",
    "rule.first_lead": "First lead",
    "rule.overtrump_partner_on_trump_lead": "Over-trump the partner on a trump lead",
    "rule.capot": "Capot",
    "rule.contract_counts_belote": "Belote counts for the contract",
    "value.own-turn": "on your own turn",
    "value.any-time": "any time",
    "value.play-money": "play money",
    "value.cash": "cash",
    "value.tournament": "tournament",
    "value.dealer": "the dealer",
    "value.next": "the seat after the dealer",
    "value.replace": "replaces the card points",
    "value.add": "on top of the card points",
    "rules.players": "{low} to {high} players.",
    "rules.options": "House rules (default; on the command line: --rule NAME=VALUE):",
    "rules.option": "{name}: {value}   ({option})",
    "rules.more": "The same text: dealerless rules {game}",
    "node.ready": "the table is ready: {game}, {seats} seats; you play as {name}",
    "why.antes": "Every seat paid {chips} into the pot (ante)",
    "why.bet_won": "{who} took the last trick and wins its bet: {chips} out of the pot",
    "why.bet_in": "{who} paid its bet of {chips} into the pot",
    "why.pass_round": (
        "A pass round (nobody bet), so nobody wins: "
        "{who} took the last trick and pays {chips} into the pot"
    ),
    "note.call_cost": "A call costs {chips}; the pot is {pot}. A fold leaves what you put in.",
    # the node's progress messages (client/tui/node_text.py)
    "node.verified_violations": (
        "game checked by replay ({n} records); {v} message(s) that broke the rules were refused"
    ),
    "node.retrying": "no connection to the table yet; trying again in {seconds} s",
    "node.peer_records_bad": "the others' records do not replay; going on from our own",
    "node.resumed": "game resumed from {n} saved records, hand {hand}",
    "node.resumed_peers": (
        "game resumed from {n} saved records and {m} from the others, hand {hand}"
    ),
    "node.resumed_wait": "; nobody has answered yet: we wait for another player before we move",
    "node.share_damaged": (
        "cannot resume: a saved key share of this table is missing or damaged; the saved game"
        " was left untouched (details in the log file)"
    ),
    "node.transcript_unusable": (
        "cannot resume: the saved game of this table is unusable; it was left untouched "
        "(details in the log file)"
    ),
    "node.outbox_full": "{n} of our messages are stuck waiting for the connection: giving up",
    "node.move_refused": "your move was refused (details in the log file)",
    "node.share_missing": (
        "our saved key share for hand {n} is missing or damaged: the others will time us out "
        "of that hand, then we play on"
    ),
    "node.timed_out": "{name} was timed out (hand {n})",
    "node.damaged": "a damaged or misdirected message was dropped; asking the others again",
    "node.refused_from": "refused a message from {name}",
    "node.auditor_failed": "replaying the game to check it failed (details in the log file)",
    "node.cheating": "caught cheating: {names} ({n} broken rule(s))",
    "node.never_started": "the table never started: not every player signed the table's terms",
    "node.refused_proof": "The host refused the seat: the invite code does not fit this table.",
    "node.host_refused": "The host refused the seat: {reason}",
    "node.config_refused": (
        "the host's table terms differ from the invite: we signed nothing (details in the log file)"
    ),
    "node.lobby_broken": "the host sent a broken list of players; ignored",
    "node.config_unreadable": "the host sent an unreadable table configuration; ignored",
    "node.config_not_host": (
        "a table configuration from a seat that does not host the table was ignored"
    ),
    "node.seat_open_elsewhere": (
        "table {table} is already open in another dealerless program on this computer: "
        "one program per seat"
    ),
    "node.unanswered": (
        "nobody at the table answered for {seconds} s: the game may be over, or its host gone"
    ),
    "node.config_bad_sig": "a table configuration without the host's valid signature was ignored",
    "node.offer_unproven": (
        "a seat at the running table was offered without proof of the table's start; ignored "
        "(details in the log file)"
    ),
    "node.offer_ignored": "another offer of a seat from {name} was ignored",
    "node.offer_checking": (
        "{name} offers us a seat after hand {hand}: checking the table from its start ({n} records)"
    ),
    "node.offer_too_big": "gave up {name}'s offer: the table's records are too large to fetch",
    "node.offer_stalled": (
        "{name} stopped sending the table's records ({got} of {n}); its offer is given up"
    ),
    "node.offer_refused": (
        "refused the table {name} offered: its records do not prove it (details in the log file)"
    ),
    "node.chain_checked": "checked the table from its start: {n} records in {seconds} s",
    "node.no_seat": "the host's table has no seat for us",
    "node.joined": "{name} sat down ({k} of {n})",
    "node.bad_signature": "refused a message with a bad signature from {name}",
    "node.peer_up": "{name} is connected",
    "node.peer_left_end": "{name} left: the game is over",
    "node.peer_down_wait": (
        "{name} lost the connection; "
        "the table waits up to {seconds} s at their turn, then times them out"
    ),
    "node.peer_down": "{name} lost the connection",
    "node.peer_quit": "{name} quit the table; if they do not come back they are timed out",
    "node.invalid_key": "an unknown player",
    "node.released": "another player answered: the game goes on",
    "node.no_way_works": "none of the ways to the table works (details in the log file)",
    "node.nothing_answered": (
        "nothing answered within {seconds} s: is the host still there, is the invite code right?"
    ),
    "node.wrong_host": (
        "{address} answers for another host than the invite names; check the invite code"
    ),
    "node.not_invited_peer": (
        "{address} is not the computer the invite names; check the invite code"
    ),
    "node.pins_bad": (
        "the file of remembered relays {path} is damaged; move it away to start afresh"
    ),
    "node.way_direct": "direct connection {address}",
    "node.way_relay": "relay {address}",
    "node.way_nostr": "Nostr ({n} relays)",
    "node.way_nostr_one": "Nostr (1 relay)",
    "node.way_retry": "{way}: {detail}; trying again",
    "node.no_relay": "no Nostr relay will carry this table; each relay answered: {states}",
    "node.no_relay_now": "no Nostr relay carries the table now: {states}",
    "node.relay_barred": "relay {url} cannot carry the table: {reason}",
    "node.refused_connection": "refused a connection that failed the secure handshake",
    "node.hub_note": "the table's hub: {text}",
    "node.hub_note_more": " ({n} more like it since)",
    "node.old_invite": (
        "this saved table cannot be resumed: its invite code is from an older version"
    ),
    "node.cannot_listen": "cannot open {address} for the table (details in the log file)",
    "node.no_way_in": "this table has no way in: no direct address, no relay, no Nostr relays",
    "node.connecting": "connecting to {address}",
    "node.relay_pinned": "relay {address} is {fingerprint}: remembered from now on",
    "node.slow_invite": (
        "refused: the invite allows {n} ms per move, less than the minimum of {floor} ms "
        "(--min-step-timeout lowers it for bot tables)"
    ),
    "node.invite_no_way": (
        "refused: the invite code holds no way to the table that this version can use"
    ),
    "node.known_table": "this table is known here: resuming it",
    "node.stored_unusable": "a saved table cannot be used (details in the log file)",
    "node.no_resume": "no table to resume",
    "node.no_resume_id": "no table to resume matching {id}",
    "node.ambiguous": "{id} matches several tables; give more of the id",
    "node.resuming_host": "resuming table {id} ({game}, you host it)",
    "node.resuming_join": "resuming table {id} ({game}, you joined it)",
    "node.bot_failed": "a bot process failed (exit codes {codes})",
    "node.left_early": "left the table before the end of the game",
    # the table machine's refusals of what this screen sent (client/tui/results.py)
    "refusal.illegal": "that move is not allowed now",
    "refusal.not_your_turn": "it is not your turn",
    "refusal.resync": "back after a restart: waiting to hear from the other players",
    "refusal.empty_chat": "an empty chat line",
    "refusal.observer_chat": "an observer cannot chat",
    "refusal.not_sitting_out": "you are not sitting out: there is nothing to come back from",
    "refusal.no_back": "this table cannot take you back from the screen",
    # seats that change between hands (client/tui/node_text.py, the table screen)
    "change.stand": "stand up",
    "change.sit-out": "sit out",
    "node.refused_waiting_full": (
        "The host refused the seat: the table is full and enough players already wait for one."
    ),
    "node.refused_buy_in": "The host refused the seat: {why}",
    "node.buy_in_range": "a buy-in must be {low} to {high} chips",
    "node.buy_in_fixed": "at this play-money table everyone sits down with {n} chips",
    "node.buy_in_tournament": "a tournament takes no newcomers once it has started",
    "node.buy_in_pottuppen": "in Pottuppen a newcomer sits down with nothing (no buy-in)",
    "node.asked_change": "asked to {change} after this hand",
    "node.cannot_change": "you cannot {change} at this table (details in the log file)",
    "node.newcomer_waits": "{name} waits to sit down with {chips} chips after this hand",
    "node.cannot_reform": "the newcomers cannot be seated at this table (details in the log file)",
    "node.next_host_wait": "the seats change after hand {n}: waiting for the next host",
    "node.segment_voided": "the seat change after hand {n} is void: the others' votes on that"
    " hand reached us after we had gone on; the seats change again from there",
    "node.newcomers_refused": (
        "the newcomers could not sit down: the table goes on without them (details in the log file)"
    ),
    "node.cannot_go_on": "the table cannot go on after the seat change (details in the log file)",
    "node.cannot_go_on_yet": (
        "too few players to go on after the seat change: waiting for a newcomer to sit down"
    ),
    "node.newcomer_came": "{name} has come: the table goes on",
    "node.next_host_missing": "the next host sent nothing in {seconds} s: the table ends here",
    "node.serving_others": (
        "you left the table; this program keeps passing on the others' messages until they "
        "have finished (Ctrl-C ends it for them too)"
    ),
    "seatchange.confirm.stand": "Stand up after this hand, taking your chips? (y/n)",
    "seatchange.confirm.sit-out": "Sit out after this hand? Your chips are kept. (y/n)",
    "seatchange.pending.stand": "you stand up after this hand",
    "seatchange.pending.sit-out": "you sit out after this hand",
    "seatchange.fixed": "{game} keeps its seats for the whole game: nobody stands up between hands",
    "seatchange.already": "already asked: {pending}",
    "seatchange.over": "the game is over: there is nothing to stand up from",
    "seatchange.confirm.back": "Come back to the table with your kept chips? (y/n)",
    "seatchange.pending.back": "you asked to come back: you sit down again between two hands",
    "seatchange.away": "you sit out: press o to come back to the table",
    "away.text": "You sit out; {chips} kept for you. The table goes on.",
    "away.key": "come back",
    "node.coming_back": "you asked to come back: you sit down again after this hand",
    "node.away_quiet": "the table made no progress for {seconds} s: you stop watching it",
    "node.comes_back": "{name} comes back after this hand",
    "node.back_from_silence": (
        "you were silent and sit out (your chips are kept); you asked to come back"
    ),
    "log.seats_change": "after hand {n} the seats change: {what}",
    "log.change.stand": "{who} stands up",
    "log.change.sit-out": "{who} sits out",
    "log.change.reseat": "{who} makes room for players coming in",
    "log.change.silent": "{who} was silent and sits out",
    "log.segment": "the table goes on with {n} players: {names}",
    "log.segment_without_you": "the table goes on without you: {names}",
    "end.left": "You left the table",
    "end.left.stand": "You stood up after hand {n}, taking {chips}.",
    "end.left.sit-out": "You sit out since hand {n}; {chips} kept for you.",
    "end.left.silent": "You were silent in hand {n}, so you sit out; {chips} kept for you.",
    "end.left.on": "The table goes on without you.",
    "ledger.chips": "{n} chips",
    "ledger.net": "{n:+d} net",
    "ledger.balance": "a balance of {n:+d}",
    "actions.changing": "the seats change: waiting for the next host to seat the table",
    "seatchange.between": "the seats are changing now: ask again once the next hand has started",
    "lobby.leaving": (
        "You left the table. Letting the others catch up first; if your computer links them "
        "(you hosted), until they have finished. Ctrl-C stops it, for them too."
    ),
}
