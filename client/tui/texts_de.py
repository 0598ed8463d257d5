"""The German texts of the terminal client (keys: see texts_en.py)."""

from __future__ import annotations

TEXTS: dict[str, str] = {
    "lobby.title": "{game}, {seats} Plätze: warten auf die Spieler",
    "lobby.invite": "Einladungscode (für die anderen Spieler):",
    "lobby.copy": "c kopiert ihn in die Zwischenablage (Terminals mit OSC 52)",
    "lobby.copied": "kopiert",
    "lobby.opening": "der Tisch wird geöffnet...",
    "lobby.players": "Am Tisch ({n}/{seats}):",
    "lobby.host": "Gastgeber",
    "lobby.rematch_host": "Noch ein Spiel: die anderen kommen, wenn sie r beim Endstand drücken",
    "lobby.rematch_join": (
        "Noch ein Spiel: warten, bis der Gastgeber den Tisch öffnet (wenn er auch r drückt)"
    ),
    "lobby.connecting": "Verbindung zum Gastgeber...",
    "lobby.waiting": "warten auf {n} weitere(n) Spieler",
    "lobby.starting": "alle sind da: der Tisch startet",
    "lobby.keys": "c Code kopieren  q verlassen",
    "hand.title": "Runde {n}",
    "seat.you": "du",
    "name.player": "Spieler",
    "seat.dealer": "Geber",
    "seat.stack": "vor sich",
    "panel.table": "Tisch",
    "panel.trick": "Stich",
    "panel.hand": "Deine Karten",
    "panel.actions": "Deine Züge",
    "panel.log": "Was geschah",
    "panel.chat": "Chat",
    "label.colon": "{label}:",
    "trick.led": "{name} kam raus",
    "trick.last": "letzter Stich an {name}",
    "trick.empty": "(keine Karten auf dem Tisch)",
    "actions.wait": "warte auf {names}",
    "actions.none": "gerade nichts zu tun",
    "actions.optional": "(jetzt freiwillig)",
    "actions.choose": "{what} wählen: Zahl oder Pfeile + Enter, Esc zurück",
    "actions.play": "Karte spielen: ihre Zahl, oder Pfeile + Enter",
    "deadline": "noch {seconds}s für {name}",
    "keys.hint": "? Hilfe  h Verlauf  m Chat  s speichern  q beenden",
    "status.to_act": "am Zug",
    "status.knocked": "geklopft",
    "status.called": "mitgegangen",
    "status.folded": "ausgestiegen",
    "status.out": "raus",
    "status.passed": "gepasst",
    "status.bid": "geboten",
    "status.bet": "gesetzt",
    "status.raised": "erhöht",
    "status.taker": "Spieler",
    "status.laundry": "schmutzige Wäsche",
    "info.stake": "Einsatz",
    "info.pot": "Pott",
    "info.bet": "aktuelles Gebot",
    "info.ante": "Ante",
    "info.trump": "Trumpf",
    "info.taker": "Spieler",
    "info.turned": "aufgedeckt",
    "info.mode": "Modus",
    "info.phase": "Phase",
    "info.team": "Team {n}",
    "info.bet_of": "{name} gesetzt",
    "info.line": "{label}: {value}",
    "score.penalty points": "Strafpunkte",
    "score.chips": "netto",
    "score.balance": "Saldo",
    "score.team points": "Team",
    "act.play": "spielen",
    "act.knock": "klopfen",
    "act.call": "mitgehen",
    "act.fold": "aussteigen",
    "act.raise": "erhöhen",
    "act.bet": "setzen",
    "act.pass": "passen",
    "act.bid": "bieten",
    "act.laundry": "schmutzige Wäsche",
    "act.tupp_attempt": "Tupp-Versuch",
    "act.tupp": "Tupp",
    "act.check": "Wäsche prüfen",
    "act.accept": "annehmen",
    "log.hand_started": "Runde {n} beginnt; {dealer} gibt.",
    "log.dealt": "Du bekommst {cards}.",
    "log.shown": "{who} zeigt {cards}.",
    "log.turned": "Aufgedeckt: {cards}.",
    "log.action": "{who}: {what}.",
    "log.timeout": " (Zeit abgelaufen)",
    "log.trick": "{who} nimmt Stich {n}.",
    "log.hand_ended": "Runde {n}: {winners} gewinnt ({reason}).",
    "log.deltas": "Punkte ändern sich um {deltas}.",
    "log.aborted": "Runde {n} abgebrochen: {reason}.",
    "log.signed": "Runde {n} von allen unterschrieben: jeder Beweis geprüft.",
    "log.game_over": "Spielende: {winners} gewinnt ({reason}).",
    "reason.last_trick": "letzter Stich",
    "reason.all_folded": "alle anderen sind ausgestiegen",
    "reason.tupp": "Tupp",
    "reason.contract_made": "Kontrakt erfüllt",
    "reason.contract_failed": "Kontrakt verfehlt",
    "reason.capot": ", Capot für {team}",
    "reason.solo": ", {who} hat alle Stiche gemacht",
    "reason.redeal": "alle haben gepasst: neu geben",
    "reason.single_bettor_won": "der einzige Bieter hat den letzten Stich gemacht",
    "reason.defenders_won": "die Gegenspieler haben den Bieter geschlagen",
    "reason.pass_round": "Passrunde: der letzte Stich zahlt in den Pott",
    "reason.voided": "annulliert: {why}",
    "reason.one_left": "nur noch ein Spieler unter 10",
    "reason.none_left": "niemand mehr unter 10: die wenigsten Punkte der letzten Runde gewinnen",
    "reason.all_chips": "ein Platz hat alle Chips",
    "reason.hands_played": "die vereinbarten Runden sind gespielt",
    "reason.players_ended": "die Spieler haben das Spiel beendet",
    "reason.target_reached": "{team} hat mit {points} Punkten das Ziel erreicht",
    "log.violation": "BETRUG ODER FEHLER von {who}: {reason}",
    "log.timeout_vote": "{who} schweigt: der Tisch stimmt über eine Zeitüberschreitung ab.",
    "log.error": "Nicht erlaubt: {reason}",
    "who.nobody": "niemand",
    "who.table": "der Tisch",
    "end.hand": "Runde {n} ist vorbei",
    "end.title": "Ergebnis",
    "end.signed": "Alle haben das Ergebnis unterschrieben.",
    "end.unsigned": "Warte auf die Unterschriften aller...",
    "end.game": "Das Spiel ist vorbei",
    "end.scoreboard": "Endstand ({kind}; Kurve: die letzten {hands} Runden)",
    "end.winners": "Gewinner: {names}",
    "end.reason": "Warum: {reason}",
    "end.standings": "Stand ({kind}): {scores}",
    "end.proofs_ok": "Jeder Beweis geprüft: niemand hat betrogen.",
    "end.cheats": "Betrug gefunden: {text}",
    "end.cheat": "{who}: {reason}",
    "end.continue": "Leertaste: weiter",
    "end.quit": "q: beenden",
    "end.menu": "Leertaste: zurück zum Menü",
    "end.rematch": "r: noch ein Spiel",
    "help.title": "Tasten",
    "help.text": (
        "1-8         die Karte mit dieser Zahl spielen\n"
        "Links/Rechts Karte wählen, Enter spielt sie\n"
        "k c f r     klopfen, mitgehen, aussteigen, erhöhen\n"
        "b p d       setzen, passen, bieten (Trumpf)\n"
        "l u t       schmutzige Wäsche, Tupp-Versuch, Tupp\n"
        "x a         Wäsche prüfen, annehmen\n"
        "h           der Rundenverlauf: jeder Stich, wer was gespielt hat\n"
        "Bild auf/ab den Spielverlauf blättern (Ende: zurück zum Neuesten)\n"
        "m           Chat-Nachricht schreiben (Enter sendet)\n"
        "w o         nach dieser Hand aufstehen / aussetzen (Spiele Hand für Hand)\n"
        "o           beim Aussetzen: an den Tisch zurückkehren\n"
        "s           Mitschrift speichern (dealerless replay DATEI)\n"
        "?           diese Hilfe (jede Taste schließt)\n"
        "q, Strg-C   beenden (fragt während eines Spiels)"
    ),
    "quit.confirm": "Ein Spiel läuft. Beenden? (j/n)",
    "chat.prompt": "sagen: ",
    "saved": "Mitschrift gespeichert: {path}",
    "save.failed": "Speichern fehlgeschlagen: {reason}",
    "start.title": "dealerless - Kartenspiele ohne Geber",
    "start.play": "Gegen Bots spielen",
    "start.host": "Tisch eröffnen (Internet)",
    "start.host-lan": "Tisch eröffnen (nur dieses Netz)",
    "start.join": "Mit Code beitreten",
    "start.rules": "Regeln lesen",
    "start.settings": "Einstellungen",
    "start.quit": "Beenden",
    "start.hint": "Hoch/Runter + Enter, oder die Zahl; q beendet",
    "start.game": "Spiel: {game}  (Links/Rechts)",
    "start.bots": "Bots: {n}  (+/-)",
    "start.go": "Enter: starten  Esc: zurück",
    "host.title": "Einen Tisch eröffnen",
    "host.game": "Spiel: {game}",
    "host.seats": "Plätze: {n}",
    "host.bots": "Bots: {n}  ({people} Platz/Plätze für Eingeladene)",
    "host.ways_internet": "Zugang: Nostr-Relays und dieses Netz",
    "host.ways_lan": "Zugang: nur dieses Netz",
    "host.hint": "Hoch/Runter: wählen  Links/Rechts: ändern  Enter: eröffnen  Esc: zurück",
    "host.only_bots": "Nur du und Bots: das Spiel beginnt, sobald die Bots sitzen.",
    "host.invite_people": "Enter eröffnet den Tisch und zeigt den Einladungscode für {n} Spieler.",
    "start.unavailable": "Netzwerkspiel: `dealerless host` / `dealerless join` (Node).",
    "settings.name": "Name: {value}",
    "settings.lang": "Sprache: {value}",
    "settings.timeout": "Zeit pro Zug: {value}s",
    "settings.level": "Stärke der Bots: {value}",
    "level.strong": "stark",
    "level.normal": "normal",
    "level.basic": "einfach",
    "settings.ascii": "Farbbuchstaben statt Symbole: {value}",
    "settings.hint": "Hoch/Runter wählen, Links/Rechts ändern, Esc zurück",
    "replay.title": "Wiedergabe: {file}",
    "replay.step": "Schritt {i} von {n}",
    "replay.ok_short": "geprüft",
    "replay.bad_short": "STIMMT NICHT: {problem}",
    "replay.keys": "Rechts: weiter  Links: zurück  Pos1/Ende  q: Ende",
    "replay.ok": "Mitschrift geprüft: jede Unterschrift und jeder Beweis stimmt.",
    "replay.bad": "Mitschrift stimmt nicht: {reason}",
    "who.seat": "Platz {n}",
    "team.name": "Team {n} ({names})",
    "seat.partner": "dein Partner",
    "seat.clock": "noch {seconds}s",
    "hand.empty": "(alle deine Karten sind gespielt)",
    "mode.contest": "die Bieter spielen aus",
    "mode.single": "ein Bieter gegen alle",
    "mode.pass_round": "Passrunde",
    "note.poverty": (
        "Armut: {names} hat 9 Punkte. Mitgehen (c): Verlust kostet {stake}; aussteigen (f): 1."
    ),
    "note.answer": (
        "{name} hat geklopft, Einsatz {stake}. Mitgehen (c): "
        "Verlust kostet {stake}; aussteigen (f): {fold}."
    ),
    "note.knock_cap": (
        "Kein Klopfen: {name} hat {points} Punkte und käme über 10 (höchster Einsatz {cap})."
    ),
    "note.knock_empty": (
        "Deine Karten sind gespielt; Klopfen erhöht den Einsatz dieser Runde trotzdem auf {stake}."
    ),
    "history.title": "Rundenverlauf",
    "history.hand": "Runde {n} (Geber: {dealer})",
    "history.trick": "Stich {n}: {plays}  -> {winner}",
    "history.current": "auf dem Tisch: {plays}",
    "history.empty": "Es wurde noch nichts gespielt.",
    "history.keys": "Hoch/Runter, Bild auf/ab: blättern   h oder Esc: schließen",
    "panel.more": (
        "-- Hoch/Runter, Bild auf/ab: blättern ({above} Zeilen darüber, {below} darunter) --"
    ),
    "log.laundry_true_chips": (
        "{checker} prüfte die Wäsche von {declarer}, sie war echt: "
        "{checker} zahlt 1 Chip in den Pott"
    ),
    "log.laundry_bluff_chips": (
        "{checker} prüfte die Wäsche von {declarer}, ein Bluff: "
        "{declarer} zahlt 1 Chip in den Pott"
    ),
    "log.tupp": (
        "{who} hat einen Tupp (vier Gleiche) und gewinnt die Runde: "
        "jeder andere Platz +{points}"
    ),
    "log.tupp_attempt": (
        "{who} hat wirklich drei Gleiche: "
        "{who} zieht eine neue vierte Karte"
    ),
    "why.laundry_true": "{checker} prüfte die Wäsche von {declarer}, sie war echt: {checker} +1",
    "why.laundry_bluff": "{checker} prüfte die Wäsche von {declarer}, ein Bluff: {declarer} +1",
    "why.jack": "{who} machte den letzten Stich mit einem Buben: 1 Punkt weniger",
    "why.tupp": "{who} +{points}: ein Tupp kostet jeden anderen Platz 3",
    "why.folded": "{who} +{points}: ausgestiegen (der Einsatz vor dem Klopfen)",
    "why.lost": "{who} +{points}: weitergespielt und verloren bei Einsatz {stake}",
    "why.pot": "Der Pott von {pot} geht an {who}.",
    "why.paid": "{who} zahlte {chips} in den Pott (Ante und Einsätze)",
    "why.paid_folded": "{who} zahlte {chips} in den Pott und stieg aus",
    "why.card_points": "Kartenpunkte: Team 1 {one}, Team 2 {two} (mit dem letzten Stich)",
    "why.last_trick": "Letzter Stich (+10): {who}",
    "why.belote": "Belote (König und Dame in Trumpf): Team von {who} +20",
    "why.capot": "Capot: {team} machte alle Stiche",
    "why.contract_failed": "Kontrakt verfehlt: die Gegenspieler bekommen alle Punkte",
    "why.hand_points": "Punkte der Runde: Team 1 {one}, Team 2 {two}",
    "why.pot_left": "Jetzt im Pott: {pot}",
    "node.connected": "mit dem Tisch verbunden",
    "node.verified": (
        "Spiel geprüft: alle {n} Einträge durch Nachspielen des ganzen Spiels bestätigt"
    ),
    "node.not_verified": "die Mitschrift ließ sich NICHT durch Nachspielen bestätigen",
    "node.waiting": "warte auf {name} ({seconds} s)",
    "node.link_lost": "Verbindung verloren; neuer Versuch...",
    "node.refused_full": "Der Tisch ist voll: der Gastgeber hat den Platz abgelehnt.",
    "node.table_finished": (
        "Dieser Tisch ist beendet: das Spiel ist vorbei. Bitte um eine neue Einladung."
    ),
    "node.table_finished_after": (
        "Dieser Tisch ist beendet: das Spiel endete nach {hands} Runden. "
        "Bitte um eine neue Einladung."
    ),
    "lobby.ended": "Der Tisch hat nicht begonnen: {reason}",
    "lobby.ended_keys": "q: zurück",
    "save.where": "Die Mitschrift jedes Tisches liegt in {dir}",
    "end.save": "s: Kopie speichern",
    "end.continue_pause": "Leertaste: weiter (schließt sich {n} s nachdem das Spiel weitergeht)",
    "end.your_turn": "Du bist am Zug: Leertaste schließt diese Anzeige.",
    "settings.result_pause": "Ergebnisanzeige: {value}",
    "settings.until_closed": "bleibt, bis du sie schließt",
    "settings.after": "schließt {n} s nachdem das Spiel weitergeht",
    "settings.yes": "ja",
    "settings.no": "nein",
    "settings.edit_name": "Dein Name (Enter speichert, Esc bricht ab): ",
    "settings.edit_code": "Einladungscode (Enter tritt bei, Esc bricht ab): ",
    "settings.rule": "{name}: {value}",
    "settings.hint_name": "Enter: Namen ändern  Hoch/Runter wählen  Esc zurück",
    "rules.hint": "Links/Rechts: anderes Spiel  Hoch/Runter, Bild auf/ab: blättern  Esc: zurück",
    "start.bad_code": "Das ist kein gültiger Einladungscode: {reason}",
    "invite.too_long": "ein Einladungscode hat höchstens {n} Zeichen",
    "invite.old": (
        "dieser Einladungscode stammt von einem älteren dealerless; bitte den Gastgeber"
        " um einen neuen"
    ),
    "invite.newer": (
        "dieser Einladungscode stammt von einem neueren dealerless; aktualisiere dieses,"
        " um beizutreten"
    ),
    "invite.prefix": "ein Einladungscode beginnt mit `{prefix}`",
    "invite.damaged": (
        "der Einladungscode ist beschädigt oder abgeschnitten: kopiere ihn noch einmal ganz"
    ),
    "invite.characters": "der Einladungscode enthält Zeichen, die nicht hineingehören",
    "invite.game": "der Einladungscode nennt ein Spiel, das diese Version nicht spielen kann",
    "invite.invalid": (
        "der Einladungscode enthält keine gültige Einladung: bitte den Gastgeber, ihn"
        " noch einmal zu schicken"
    ),
    "screen.too_small": "Terminal zu klein ({cols}x{rows}): bitte mindestens 80x24.",
    "replay.header": "{title}: {names}; {n} Schritte (Züge und Austeilen)",
    "line.hand": "deine Karten: {cards}",
    "line.scores": "Stand: {scores}",
    "line.choice": "dein Zug (eine Zahl von 1 bis {n})> ",
    "line.stdin_closed": (
        "die Standardeingabe ist geschlossen: niemand kann für dich ziehen, "
        "dein Platz wird bei jedem Zug nach Ablauf der Zeit übergangen"
    ),
    "line.bad_choice": "bitte eine Zahl von 1 bis {n}",
    "line.note": "({text})",
    "line.saved": "Mitschrift dieses Tisches: {path}",
    "log.chat": "{who}: {text}",
    "app.title": "dealerless",
    "game.tuppen": "Tuppen (klassisch, Strafpunkte)",
    "game.limit-tuppen": "Limit Tuppen",
    "game.no-limit-tuppen": "No Limit Tuppen",
    "game.pot-limit-tuppen": "Pot Limit Tuppen",
    "game.pottuppen": "Pottuppen",
    "game.belote": "Belote",
    "rule.poverty": "Armut (ein Platz mit 9 Punkten)",
    "rule.tupp": "Tupp (vier Gleiche)",
    "rule.tupp_attempt": "Tupp-Versuch",
    "rule.dirty_laundry": "Schmutzige Wäsche",
    "rule.jack_win": "Sieg mit einem Buben",
    "rule.knock_timing": "Wann klopfen",
    "rule.mode": "Modus",
    "rule.starting_chips": "Startchips",
    "rule.ante": "Ante",
    "rule.hands": "Runden pro Spiel",
    "rule.max_buy_in": "Cash: Einkauf",
    "rule.ante_increase_every": "Turnier: Ante +1 alle N Runden",
    "rule.pot_minimum": "Mindestpott",
    "rule.pass_round_payment": "Zahlung der Passrunde",
    "rule.target": "Zielpunkte",
    "rule.first_lead": "Erstes Ausspiel",
    "rule.overtrump_partner_on_trump_lead": "Bei Trumpf-Ausspiel den Partner übertrumpfen",
    "rule.capot": "Capot",
    "rule.contract_counts_belote": "Belote zählt für den Kontrakt",
    "value.own-turn": "wenn man am Zug ist",
    "value.any-time": "jederzeit",
    "value.play-money": "Spielgeld",
    "value.cash": "Cash",
    "value.tournament": "Turnier",
    "value.dealer": "der Geber",
    "value.next": "der Platz nach dem Geber",
    "value.replace": "ersetzt die Kartenpunkte",
    "value.add": "zusätzlich zu den Kartenpunkten",
    "rules.players": "{low} bis {high} Spieler.",
    "rules.options": "Hausregeln (Vorgabe; auf der Kommandozeile: --rule NAME=WERT):",
    "rules.option": "{name}: {value}   ({option})",
    "rules.more": "Derselbe Text: dealerless rules {game}",
    "node.ready": "der Tisch ist bereit: {game}, {seats} Plätze; du spielst als {name}",
    "why.antes": "Jeder Platz zahlte {chips} in den Pott (Ante)",
    "why.bet_won": (
        "{who} machte den letzten Stich und gewinnt seinen Einsatz: {chips} aus dem Pott"
    ),
    "why.bet_in": "{who} zahlte seinen Einsatz von {chips} in den Pott",
    "why.pass_round": (
        "Eine Passrunde (niemand hat gesetzt), also gewinnt niemand: "
        "{who} machte den letzten Stich und zahlt {chips} in den Pott"
    ),
    "note.call_cost": (
        "Mitgehen kostet {chips}; im Pott sind {pot}. Wer aussteigt, lässt seinen Einsatz dort."
    ),
    # the node's progress messages (client/tui/node_text.py)
    "node.verified_violations": (
        "Spiel durch Nachspielen geprüft ({n} Einträge); {v} regelwidrige Nachricht(en) abgelehnt"
    ),
    "node.retrying": "noch keine Verbindung zum Tisch; neuer Versuch in {seconds} s",
    "node.peer_records_bad": (
        "die Einträge der anderen lassen sich nicht nachspielen; es geht mit unseren eigenen weiter"
    ),
    "node.resumed": "Spiel fortgesetzt aus {n} gespeicherten Einträgen, Runde {hand}",
    "node.resumed_peers": (
        "Spiel fortgesetzt aus {n} gespeicherten Einträgen und {m} von den anderen, Runde {hand}"
    ),
    "node.resumed_wait": (
        "; noch hat niemand geantwortet: wir warten auf einen Mitspieler, bevor wir ziehen"
    ),
    "node.share_damaged": (
        "Fortsetzen unmöglich: ein gespeicherter Schlüsselanteil dieses Tisches fehlt oder "
        "ist beschädigt; das gespeicherte Spiel bleibt unverändert (Einzelheiten in der "
        "Protokolldatei)"
    ),
    "node.transcript_unusable": (
        "Fortsetzen unmöglich: das gespeicherte Spiel dieses Tisches ist unbrauchbar; es "
        "bleibt unverändert (Einzelheiten in der Protokolldatei)"
    ),
    "node.outbox_full": (
        "{n} unserer Nachrichten hängen fest und warten auf die Verbindung: wir geben auf"
    ),
    "node.move_refused": "dein Zug wurde abgelehnt (Einzelheiten in der Protokolldatei)",
    "node.share_missing": (
        "unser gespeicherter Schlüsselanteil für Runde {n} fehlt oder ist beschädigt: die "
        "anderen nehmen uns wegen Zeitüberschreitung aus dieser Runde, dann spielen wir "
        "weiter"
    ),
    "node.timed_out": "{name} hat die Zeit überschritten (Runde {n})",
    "node.damaged": (
        "eine beschädigte oder fehlgeleitete Nachricht wurde verworfen; wir fragen die "
        "anderen erneut"
    ),
    "node.refused_from": "Nachricht von {name} abgelehnt",
    "node.auditor_failed": (
        "das prüfende Nachspielen des Spiels ist fehlgeschlagen (Einzelheiten in der "
        "Protokolldatei)"
    ),
    "node.cheating": "beim Betrug erwischt: {names} ({n} Regelverstoß/-verstöße)",
    "node.never_started": (
        "der Tisch hat nie begonnen: nicht alle Spieler haben die Tischregeln unterschrieben"
    ),
    "node.refused_proof": (
        "Der Gastgeber hat den Platz abgelehnt: der Einladungscode passt nicht zu diesem Tisch."
    ),
    "node.host_refused": "Der Gastgeber hat den Platz abgelehnt: {reason}",
    "node.config_refused": (
        "die Tischregeln des Gastgebers weichen von der Einladung ab: wir haben nichts "
        "unterschrieben (Einzelheiten in der Protokolldatei)"
    ),
    "node.lobby_broken": "der Gastgeber hat eine fehlerhafte Spielerliste geschickt; ignoriert",
    "node.config_unreadable": "der Gastgeber hat unlesbare Tischregeln geschickt; ignoriert",
    "node.config_not_host": (
        "Tischregeln von einem Platz, der den Tisch nicht leitet, wurden ignoriert"
    ),
    "node.seat_open_elsewhere": (
        "Tisch {table} ist schon in einem anderen dealerless-Programm auf diesem Rechner offen: "
        "ein Programm pro Platz"
    ),
    "node.unanswered": (
        "Niemand am Tisch hat {seconds} s lang geantwortet: das "
        "Spiel ist wohl vorbei oder der Gastgeber weg"
    ),
    "node.config_bad_sig": "Tischregeln ohne gültige Unterschrift des Gastgebers wurden ignoriert",
    "node.offer_unproven": (
        "ein Platz am laufenden Tisch wurde ohne Nachweis des Tischbeginns angeboten; ignoriert"
        " (Einzelheiten in der Logdatei)"
    ),
    "node.offer_ignored": "ein weiteres Platzangebot von {name} wurde ignoriert",
    "node.offer_checking": (
        "{name} bietet uns nach Runde {hand} einen Platz an: wir prüfen den Tisch von Anfang an"
        " ({n} Einträge)"
    ),
    "node.offer_too_big": (
        "Angebot von {name} aufgegeben: die Einträge des Tisches sind zu groß zum Abrufen"
    ),
    "node.offer_stalled": (
        "{name} schickt die Einträge des Tisches nicht weiter ({got} von {n}); das Angebot wird"
        " aufgegeben"
    ),
    "node.offer_refused": (
        "den von {name} angebotenen Tisch abgelehnt: seine Einträge belegen ihn nicht "
        "(Einzelheiten in der Logdatei)"
    ),
    "node.chain_checked": "Tisch von Anfang an geprüft: {n} Einträge in {seconds} s",
    "node.no_seat": "am Tisch des Gastgebers ist kein Platz für uns",
    "node.joined": "{name} hat Platz genommen ({k} von {n})",
    "node.bad_signature": "Nachricht mit ungültiger Unterschrift von {name} abgelehnt",
    "node.peer_up": "{name} ist verbunden",
    "node.peer_left_end": "{name} ist gegangen: das Spiel ist vorbei",
    "node.peer_down_wait": (
        "{name} hat die Verbindung verloren; "
        "der Tisch wartet bis zu {seconds} s auf den Zug, dann hat {name} die Zeit überschritten"
    ),
    "node.peer_down": "{name} hat die Verbindung verloren",
    "node.peer_quit": (
        "{name} hat den Tisch verlassen; kommt er nicht zurück, läuft seine Zeit ab"
    ),
    "node.invalid_key": "ein unbekannter Spieler",
    "node.released": "ein Mitspieler hat geantwortet: das Spiel geht weiter",
    "node.no_way_works": (
        "keiner der Wege zum Tisch funktioniert (Einzelheiten in der Protokolldatei)"
    ),
    "node.nothing_answered": (
        "innerhalb von {seconds} s hat niemand geantwortet: ist der Gastgeber noch da, stimmt"
        " der Einladungscode?"
    ),
    "node.wrong_host": (
        "{address} antwortet für einen anderen Gastgeber als den der Einladung; prüfe den "
        "Einladungscode"
    ),
    "node.not_invited_peer": (
        "{address} ist nicht der Rechner, den die Einladung nennt; prüfe den Einladungscode"
    ),
    "node.pins_bad": (
        "die Datei der gemerkten Relais {path} ist beschädigt; verschiebe sie, um neu anzufangen"
    ),
    "node.way_direct": "direkte Verbindung {address}",
    "node.way_relay": "Relais {address}",
    "node.way_nostr": "Nostr ({n} Relais)",
    "node.way_nostr_one": "Nostr (1 Relais)",
    "node.way_retry": "{way}: {detail}; neuer Versuch",
    "node.no_relay": ("kein Nostr-Relay nimmt diesen Tisch an; die Antworten der Relays: {states}"),
    "node.no_relay_now": "derzeit trägt kein Nostr-Relay den Tisch: {states}",
    "node.relay_barred": "Relay {url} kann den Tisch nicht tragen: {reason}",
    "node.refused_connection": (
        "eine Verbindung ohne gültigen sicheren Verbindungsaufbau wurde abgelehnt"
    ),
    "node.hub_note": "Hub des Tisches: {text}",
    "node.hub_note_more": " ({n} weitere dieser Art seitdem)",
    "node.old_invite": (
        "dieser gespeicherte Tisch lässt sich nicht fortsetzen: sein Einladungscode stammt "
        "aus einer älteren Version"
    ),
    "node.cannot_listen": (
        "{address} lässt sich für den Tisch nicht öffnen (Einzelheiten in der Protokolldatei)"
    ),
    "node.no_way_in": (
        "zu diesem Tisch führt kein Weg: keine direkte Adresse, kein Relais, keine Nostr-Relais"
    ),
    "node.connecting": "Verbindung zu {address}...",
    "node.relay_pinned": "Relais {address} ist {fingerprint}: ab jetzt gemerkt",
    "node.slow_invite": (
        "abgelehnt: die Einladung erlaubt {n} ms pro Zug, weniger als das Minimum von {floor}"
        " ms (--min-step-timeout senkt es für Bot-Tische)"
    ),
    "node.invite_no_way": (
        "abgelehnt: der Einladungscode enthält keinen Weg zum Tisch, den diese Version nutzen kann"
    ),
    "node.known_table": "dieser Tisch ist hier bekannt: er wird fortgesetzt",
    "node.stored_unusable": (
        "ein gespeicherter Tisch ist unbrauchbar (Einzelheiten in der Protokolldatei)"
    ),
    "node.no_resume": "kein Tisch zum Fortsetzen",
    "node.no_resume_id": "kein Tisch zum Fortsetzen passt zu {id}",
    "node.ambiguous": "{id} passt zu mehreren Tischen; gib mehr von der Kennung an",
    "node.resuming_host": "Tisch {id} wird fortgesetzt ({game}, du bist Gastgeber)",
    "node.resuming_join": "Tisch {id} wird fortgesetzt ({game}, du bist beigetreten)",
    "node.bot_failed": "ein Bot-Prozess ist fehlgeschlagen (Exit-Codes {codes})",
    "node.left_early": "Tisch vor dem Ende des Spiels verlassen",
    # the table machine's refusals of what this screen sent (client/tui/results.py)
    "refusal.illegal": "dieser Zug ist jetzt nicht erlaubt",
    "refusal.not_your_turn": "du bist nicht am Zug",
    "refusal.resync": "nach einem Neustart: wir warten auf Nachricht von den anderen Spielern",
    "refusal.empty_chat": "eine leere Chatzeile",
    "refusal.observer_chat": "ein Zuschauer kann nicht chatten",
    "refusal.not_sitting_out": "du setzt nicht aus: da gibt es keine Rückkehr",
    "refusal.no_back": "an diesen Tisch kannst du nicht vom Bildschirm aus zurückkehren",
    # Plätze, die zwischen den Händen wechseln
    "change.stand": "aufstehen",
    "change.sit-out": "aussetzen",
    "node.refused_waiting_full": (
        "Der Gastgeber hat den Platz abgelehnt: der Tisch ist voll und genug Spieler warten schon."
    ),
    "node.refused_buy_in": "Der Gastgeber hat den Platz abgelehnt: {why}",
    "node.buy_in_range": "ein Einkauf muss {low} bis {high} Chips betragen",
    "node.buy_in_fixed": "an diesem Spielgeldtisch setzt sich jeder mit {n} Chips",
    "node.buy_in_tournament": "ein laufendes Turnier nimmt keine Neuen auf",
    "node.buy_in_pottuppen": "beim Pottuppen setzt sich ein Neuer ohne Einkauf",
    "node.asked_change": "gewünscht: nach dieser Hand {change}",
    "node.cannot_change": "an diesem Tisch kannst du nicht {change} (Einzelheiten in der "
    "Protokolldatei)",
    "node.newcomer_waits": "{name} wartet mit {chips} Chips auf einen Platz nach dieser Hand",
    "node.cannot_reform": "die Neuen können hier nicht Platz nehmen (Einzelheiten in der "
    "Protokolldatei)",
    "node.next_host_wait": "nach Hand {n} wechseln die Plätze: warte auf den nächsten Gastgeber",
    "node.segment_voided": "der Platzwechsel nach Hand {n} ist ungültig: die Stimmen der anderen"
    " zu dieser Hand kamen erst, als wir schon weiter waren; die Plätze wechseln von dort neu",
    "node.newcomers_refused": (
        "die Neuen konnten sich nicht setzen: der Tisch spielt ohne sie weiter (Einzelheiten in "
        "der Protokolldatei)"
    ),
    "node.cannot_go_on": "nach dem Platzwechsel geht es nicht weiter (Einzelheiten in der "
    "Protokolldatei)",
    "node.cannot_go_on_yet": (
        "zu wenige Spieler nach dem Platzwechsel: warte, bis sich ein Neuer hinsetzt"
    ),
    "node.newcomer_came": "{name} ist da: der Tisch geht weiter",
    "node.next_host_missing": (
        "der nächste Gastgeber hat in {seconds} s nichts geschickt: der Tisch endet hier"
    ),
    "node.serving_others": (
        "du hast den Tisch verlassen; dieses Programm reicht die Nachrichten der anderen weiter, "
        "bis sie fertig sind (Strg-C beendet es auch für sie)"
    ),
    "seatchange.confirm.stand": "Nach dieser Hand mit deinen Chips aufstehen? (j/n)",
    "seatchange.confirm.sit-out": "Nach dieser Hand aussetzen? Deine Chips bleiben dir. (j/n)",
    "seatchange.pending.stand": "du stehst nach dieser Hand auf",
    "seatchange.pending.sit-out": "du setzt nach dieser Hand aus",
    "seatchange.fixed": "{game} behält die Plätze für das ganze Spiel: niemand steht zwischen "
    "den Händen auf",
    "seatchange.already": "schon gewünscht: {pending}",
    "seatchange.over": "das Spiel ist vorbei: da gibt es nichts zum Aufstehen",
    "seatchange.confirm.back": "Mit deinen Chips an den Tisch zurückkehren? (j/n)",
    "seatchange.pending.back": "Rückkehr gewünscht: du sitzt zwischen zwei Händen wieder mit",
    "seatchange.away": "du setzt aus: o bringt dich zurück an den Tisch",
    "away.text": "Du setzt aus; {chips} bleiben dir. Der Tisch spielt weiter.",
    "away.key": "zurückkehren",
    "node.coming_back": "Rückkehr gewünscht: nach dieser Hand sitzt du wieder mit am Tisch",
    "node.away_quiet": "am Tisch tat sich {seconds} s lang nichts: du schaust nicht mehr zu",
    "node.comes_back": "{name} kommt nach dieser Hand zurück",
    "node.back_from_silence": (
        "du hast geschwiegen und setzt aus (deine Chips bleiben); Rückkehr gewünscht"
    ),
    "log.seats_change": "nach Hand {n} wechseln die Plätze: {what}",
    "log.change.stand": "{who} steht auf",
    "log.change.sit-out": "{who} setzt aus",
    "log.change.reseat": "{who} macht Platz für Neue",
    "log.change.silent": "{who} hat geschwiegen und setzt aus",
    "log.segment": "der Tisch spielt mit {n} Spielern weiter: {names}",
    "log.segment_without_you": "der Tisch spielt ohne dich weiter: {names}",
    "end.left": "Du hast den Tisch verlassen",
    "end.left.stand": "Du bist nach Hand {n} aufgestanden, mit {chips}.",
    "end.left.sit-out": "Du setzt seit Hand {n} aus; {chips} bleiben dir.",
    "end.left.silent": "Du hast in Hand {n} geschwiegen und setzt aus; {chips} bleiben dir.",
    "end.left.on": "Der Tisch spielt ohne dich weiter.",
    "ledger.chips": "{n} Chips",
    "ledger.net": "{n:+d} netto",
    "ledger.balance": "ein Saldo von {n:+d}",
    "actions.changing": "die Plätze wechseln: warte, bis der nächste Gastgeber den Tisch neu setzt",
    "seatchange.between": (
        "die Plätze wechseln gerade: frag noch einmal, wenn die nächste Hand begonnen hat"
    ),
    "lobby.leaving": (
        "Du hast den Tisch verlassen. Die anderen holen erst auf; wenn dein Rechner sie "
        "verbindet (du warst Gastgeber), bis sie fertig sind. Strg-C bricht ab, auch für sie."
    ),
}
