"""English, German and Dutch texts of the terminal client.

``tr(lang, key, **values)`` looks a key up (falling back to English, then to the key itself);
:func:`detect_language` picks a language from ``--lang`` or the locale environment.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

LANGUAGES = ("en", "de", "nl")

_EN: dict[str, str] = {
    # screens and panels
    "app.title": "dealerless",
    "hand.title": "Hand {n}",
    "seat.you": "you",
    "seat.dealer": "dealer",
    "panel.table": "Table",
    "panel.trick": "Trick",
    "panel.hand": "Your hand",
    "panel.actions": "Your moves",
    "panel.log": "What happened",
    "panel.chat": "Chat",
    "trick.led": "{name} led",
    "trick.last": "last trick won by {name}",
    "trick.empty": "(no cards on the table)",
    "actions.wait": "waiting for {names}",
    "actions.none": "nothing to do now",
    "actions.optional": "(optional now)",
    "actions.choose": "choose {what}: number or arrows + Enter, Esc to go back",
    "actions.play": "play a card: its number, or arrows + Enter",
    "deadline": "{seconds}s left for {name}",
    "keys.hint": "? help  m chat  s save  q quit",
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
    "score.penalty points": "penalty",
    "score.chips": "chips",
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
    "act.tupp": "Tupp!",
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
    "log.aborted": "Hand {n} aborted: {reason}.",
    "log.signed": "Hand {n} signed by every seat: every proof checked.",
    "log.game_over": "Game over: {winners} won ({reason}).",
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
    "end.winners": "Winners: {names}",
    "end.reason": "Why: {reason}",
    "end.standings": "Standings",
    "end.proofs_ok": "Every proof checked: no one cheated.",
    "end.cheats": "Cheating found: {text}",
    "end.continue": "Space: continue",
    "end.quit": "q: quit",
    # help and dialogs
    "help.title": "Keys",
    "help.text": (
        "1-8         play the card with that number\n"
        "Left/Right  select a card, Enter plays it\n"
        "k c f r     knock, call, fold, raise\n"
        "b p d       bet, pass, bid (trump suit)\n"
        "l u t       dirty laundry, Tupp attempt, Tupp\n"
        "x a         check the laundry, accept it\n"
        "m           write a chat message (Enter sends)\n"
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
    "start.host": "Host a table",
    "start.join": "Join with a code",
    "start.rules": "Read the rules",
    "start.settings": "Settings",
    "start.quit": "Quit",
    "start.hint": "Up/Down + Enter, or the number; q quits",
    "start.game": "Game: {game}  (Left/Right)",
    "start.bots": "Bots: {n}  (+/-)",
    "start.go": "Enter: start  Esc: back",
    "start.unavailable": "Networked play needs `dealerless host` / `dealerless join` (node).",
    "settings.name": "Name: {value}",
    "settings.lang": "Language: {value}",
    "settings.timeout": "Time per move: {value}s",
    "settings.ascii": "Suit letters instead of symbols: {value}",
    "settings.hint": "Up/Down select, Left/Right change, Esc back",
    # replay
    "replay.title": "Replay: {file}",
    "replay.step": "record {i} of {n}",
    "replay.ok_short": "verified",
    "replay.bad_short": "DOES NOT VERIFY",
    "replay.keys": "Right: next  Left: back  Home/End  q: quit",
    "replay.ok": "Transcript verified: every signature and proof checked.",
    "replay.bad": "Transcript does not verify: {reason}",
}

_DE: dict[str, str] = {
    "hand.title": "Runde {n}",
    "seat.you": "du",
    "seat.dealer": "Geber",
    "panel.table": "Tisch",
    "panel.trick": "Stich",
    "panel.hand": "Deine Karten",
    "panel.actions": "Deine Züge",
    "panel.log": "Was geschah",
    "panel.chat": "Chat",
    "trick.led": "{name} kam raus",
    "trick.last": "letzter Stich an {name}",
    "trick.empty": "(keine Karten auf dem Tisch)",
    "actions.wait": "warte auf {names}",
    "actions.none": "gerade nichts zu tun",
    "actions.optional": "(jetzt freiwillig)",
    "actions.choose": "{what} wählen: Zahl oder Pfeile + Enter, Esc zurück",
    "actions.play": "Karte spielen: ihre Zahl, oder Pfeile + Enter",
    "deadline": "noch {seconds}s für {name}",
    "keys.hint": "? Hilfe  m Chat  s speichern  q beenden",
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
    "score.penalty points": "Strafpunkte",
    "score.chips": "Chips",
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
    "act.tupp": "Tupp!",
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
    "end.winners": "Gewinner: {names}",
    "end.reason": "Warum: {reason}",
    "end.standings": "Stand",
    "end.proofs_ok": "Jeder Beweis geprüft: niemand hat betrogen.",
    "end.cheats": "Betrug gefunden: {text}",
    "end.continue": "Leertaste: weiter",
    "end.quit": "q: beenden",
    "help.title": "Tasten",
    "help.text": (
        "1-8         die Karte mit dieser Zahl spielen\n"
        "Links/Rechts Karte wählen, Enter spielt sie\n"
        "k c f r     klopfen, mitgehen, aussteigen, erhöhen\n"
        "b p d       setzen, passen, bieten (Trumpf)\n"
        "l u t       schmutzige Wäsche, Tupp-Versuch, Tupp\n"
        "x a         Wäsche prüfen, annehmen\n"
        "m           Chat-Nachricht schreiben (Enter sendet)\n"
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
    "start.host": "Tisch eröffnen",
    "start.join": "Mit Code beitreten",
    "start.rules": "Regeln lesen",
    "start.settings": "Einstellungen",
    "start.quit": "Beenden",
    "start.hint": "Hoch/Runter + Enter, oder die Zahl; q beendet",
    "start.game": "Spiel: {game}  (Links/Rechts)",
    "start.bots": "Bots: {n}  (+/-)",
    "start.go": "Enter: starten  Esc: zurück",
    "start.unavailable": "Netzwerkspiel: `dealerless host` / `dealerless join` (Node).",
    "settings.name": "Name: {value}",
    "settings.lang": "Sprache: {value}",
    "settings.timeout": "Zeit pro Zug: {value}s",
    "settings.ascii": "Farbbuchstaben statt Symbole: {value}",
    "settings.hint": "Hoch/Runter wählen, Links/Rechts ändern, Esc zurück",
    "replay.title": "Wiedergabe: {file}",
    "replay.step": "Eintrag {i} von {n}",
    "replay.ok_short": "geprüft",
    "replay.bad_short": "STIMMT NICHT",
    "replay.keys": "Rechts: weiter  Links: zurück  Pos1/Ende  q: Ende",
    "replay.ok": "Mitschrift geprüft: jede Unterschrift und jeder Beweis stimmt.",
    "replay.bad": "Mitschrift stimmt nicht: {reason}",
}

_NL: dict[str, str] = {
    "hand.title": "Ronde {n}",
    "seat.you": "jij",
    "seat.dealer": "gever",
    "panel.table": "Tafel",
    "panel.trick": "Slag",
    "panel.hand": "Jouw kaarten",
    "panel.actions": "Jouw zetten",
    "panel.log": "Wat er gebeurde",
    "panel.chat": "Chat",
    "trick.led": "{name} kwam uit",
    "trick.last": "laatste slag naar {name}",
    "trick.empty": "(geen kaarten op tafel)",
    "actions.wait": "wacht op {names}",
    "actions.none": "nu niets te doen",
    "actions.optional": "(nu optioneel)",
    "actions.choose": "kies {what}: nummer of pijlen + Enter, Esc terug",
    "actions.play": "speel een kaart: het nummer, of pijlen + Enter",
    "deadline": "nog {seconds}s voor {name}",
    "keys.hint": "? hulp  m chat  s opslaan  q stoppen",
    "status.to_act": "aan zet",
    "status.knocked": "geklopt",
    "status.called": "meegegaan",
    "status.folded": "gepast",
    "status.out": "uit",
    "status.passed": "gepast",
    "status.bid": "geboden",
    "status.bet": "ingezet",
    "status.raised": "verhoogd",
    "status.taker": "speler",
    "status.laundry": "vuile was",
    "info.stake": "inzet",
    "info.pot": "pot",
    "info.bet": "huidige inzet",
    "info.ante": "ante",
    "info.trump": "troef",
    "info.taker": "speler",
    "info.turned": "omgedraaid",
    "info.mode": "modus",
    "info.phase": "fase",
    "info.team": "team {n}",
    "score.penalty points": "strafpunten",
    "score.chips": "fiches",
    "score.balance": "saldo",
    "score.team points": "team",
    "act.play": "spelen",
    "act.knock": "kloppen",
    "act.call": "meegaan",
    "act.fold": "passen",
    "act.raise": "verhogen",
    "act.bet": "inzetten",
    "act.pass": "passen",
    "act.bid": "bieden",
    "act.laundry": "vuile was",
    "act.tupp_attempt": "Toep-poging",
    "act.tupp": "Toep!",
    "act.check": "was controleren",
    "act.accept": "accepteren",
    "log.hand_started": "Ronde {n} begint; {dealer} geeft.",
    "log.dealt": "Je krijgt {cards}.",
    "log.shown": "{who} laat {cards} zien.",
    "log.turned": "Omgedraaid: {cards}.",
    "log.action": "{who}: {what}.",
    "log.timeout": " (tijd om)",
    "log.trick": "{who} wint slag {n}.",
    "log.hand_ended": "Ronde {n}: {winners} wint ({reason}).",
    "log.deltas": "Scores veranderen met {deltas}.",
    "log.aborted": "Ronde {n} afgebroken: {reason}.",
    "log.signed": "Ronde {n} door iedereen getekend: elk bewijs klopt.",
    "log.game_over": "Einde spel: {winners} wint ({reason}).",
    "log.violation": "VALSSPEL OF FOUT van {who}: {reason}",
    "log.timeout_vote": "{who} zwijgt: de tafel stemt over een time-out.",
    "log.error": "Niet toegestaan: {reason}",
    "who.nobody": "niemand",
    "who.table": "de tafel",
    "end.hand": "Ronde {n} is voorbij",
    "end.title": "Uitslag",
    "end.signed": "Iedereen heeft de uitslag getekend.",
    "end.unsigned": "Wacht op de handtekeningen van iedereen...",
    "end.game": "Het spel is voorbij",
    "end.winners": "Winnaars: {names}",
    "end.reason": "Waarom: {reason}",
    "end.standings": "Stand",
    "end.proofs_ok": "Elk bewijs gecontroleerd: niemand speelde vals.",
    "end.cheats": "Valsspel gevonden: {text}",
    "end.continue": "Spatie: verder",
    "end.quit": "q: stoppen",
    "help.title": "Toetsen",
    "help.text": (
        "1-8         speel de kaart met dat nummer\n"
        "Links/Rechts kies een kaart, Enter speelt hem\n"
        "k c f r     kloppen, meegaan, passen, verhogen\n"
        "b p d       inzetten, passen, bieden (troef)\n"
        "l u t       vuile was, Toep-poging, Toep\n"
        "x a         was controleren, accepteren\n"
        "m           chatbericht schrijven (Enter verstuurt)\n"
        "s           verslag opslaan (dealerless replay BESTAND)\n"
        "?           deze hulp (elke toets sluit)\n"
        "q, Ctrl-C   stoppen (vraagt tijdens een spel)"
    ),
    "quit.confirm": "Er loopt een spel. Stoppen? (j/n)",
    "chat.prompt": "zeg: ",
    "saved": "Verslag opgeslagen: {path}",
    "save.failed": "Opslaan mislukt: {reason}",
    "start.title": "dealerless - kaartspellen zonder gever",
    "start.play": "Tegen bots spelen",
    "start.host": "Een tafel openen",
    "start.join": "Meedoen met een code",
    "start.rules": "Regels lezen",
    "start.settings": "Instellingen",
    "start.quit": "Stoppen",
    "start.hint": "Op/Neer + Enter, of het nummer; q stopt",
    "start.game": "Spel: {game}  (Links/Rechts)",
    "start.bots": "Bots: {n}  (+/-)",
    "start.go": "Enter: starten  Esc: terug",
    "start.unavailable": "Netwerkspel: `dealerless host` / `dealerless join` (node).",
    "settings.name": "Naam: {value}",
    "settings.lang": "Taal: {value}",
    "settings.timeout": "Tijd per zet: {value}s",
    "settings.ascii": "Kleurletters in plaats van symbolen: {value}",
    "settings.hint": "Op/Neer kiezen, Links/Rechts wijzigen, Esc terug",
    "replay.title": "Terugkijken: {file}",
    "replay.step": "record {i} van {n}",
    "replay.ok_short": "gecontroleerd",
    "replay.bad_short": "KLOPT NIET",
    "replay.keys": "Rechts: verder  Links: terug  Home/End  q: stop",
    "replay.ok": "Verslag gecontroleerd: elke handtekening en elk bewijs klopt.",
    "replay.bad": "Verslag klopt niet: {reason}",
}

CATALOGS: Mapping[str, Mapping[str, str]] = {"en": _EN, "de": _DE, "nl": _NL}

# Keys that answer yes in the quit confirmation, per language.
YES_KEYS: Mapping[str, str] = {"en": "y", "de": "j", "nl": "j"}


def tr(lang: str, key: str, **values: object) -> str:
    """The text for ``key`` in ``lang`` with ``values`` filled in."""
    text = CATALOGS.get(lang, _EN).get(key) or _EN.get(key) or key
    return text.format(**values) if values else text


def detect_language(explicit: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """``explicit`` if it names a known language, else the locale (LC_ALL, LC_MESSAGES, LANG)."""
    if explicit:
        code = explicit.strip().lower()[:2]
        if code in CATALOGS:
            return code
    env = os.environ if environ is None else environ
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = env.get(var, "")
        code = value.strip().lower()[:2]
        if code in CATALOGS:
            return code
    return "en"
