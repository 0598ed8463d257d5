"""The Dutch texts of the terminal client (keys: see texts_en.py)."""

from __future__ import annotations

TEXTS: dict[str, str] = {
    "lobby.title": "{game}, {seats} plaatsen: wachten op de spelers",
    "lobby.invite": "Uitnodigingscode (voor de andere spelers):",
    "lobby.copy": "c kopieert hem naar het klembord (terminals met OSC 52)",
    "lobby.copied": "gekopieerd",
    "lobby.opening": "de tafel wordt geopend...",
    "lobby.players": "Aan tafel ({n}/{seats}):",
    "lobby.host": "gastheer",
    "lobby.rematch_host": "Nog een spel: de anderen komen als ze r drukken bij de eindstand",
    "lobby.rematch_join": (
        "Nog een spel: wachten tot de gastheer de tafel opent (als die ook r drukt)"
    ),
    "lobby.connecting": "verbinden met de gastheer...",
    "lobby.waiting": "wachten op nog {n} speler(s)",
    "lobby.starting": "iedereen is er: de tafel begint",
    "lobby.keys": "c code kopiëren  q verlaten",
    "hand.title": "Ronde {n}",
    "seat.you": "jij",
    "name.player": "speler",
    "seat.dealer": "gever",
    "seat.stack": "voor zich",
    "panel.table": "Tafel",
    "panel.trick": "Slag",
    "panel.hand": "Jouw kaarten",
    "panel.actions": "Jouw zetten",
    "panel.log": "Wat er gebeurde",
    "panel.chat": "Chat",
    "label.colon": "{label}:",
    "trick.led": "{name} kwam uit",
    "trick.last": "laatste slag naar {name}",
    "trick.empty": "(geen kaarten op tafel)",
    "actions.wait": "wacht op {names}",
    "actions.none": "nu niets te doen",
    "actions.optional": "(nu optioneel)",
    "actions.choose": "kies {what}: nummer of pijlen + Enter, Esc terug",
    "actions.play": "speel een kaart: het nummer, of pijlen + Enter",
    "deadline": "nog {seconds}s voor {name}",
    "keys.hint": "? hulp  h verloop  m chat  s opslaan  q stoppen",
    "status.to_act": "aan zet",
    "status.knocked": "geklopt",
    "status.called": "meegegaan",
    "status.folded": "afgehaakt",
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
    "info.bet_of": "{name} ingezet",
    "info.line": "{label}: {value}",
    "score.penalty points": "strafpunten",
    "score.chips": "netto",
    "score.balance": "saldo",
    "score.team points": "team",
    "act.play": "spelen",
    "act.knock": "kloppen",
    "act.call": "meegaan",
    "act.fold": "afhaken",
    "act.raise": "verhogen",
    "act.bet": "inzetten",
    "act.pass": "passen",
    "act.bid": "bieden",
    "act.laundry": "vuile was",
    "act.tupp_attempt": "Toep-poging",
    "act.tupp": "Toep",
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
    "reason.last_trick": "laatste slag",
    "reason.all_folded": "alle anderen zijn afgehaakt",
    "reason.tupp": "Tupp",
    "reason.contract_made": "contract gehaald",
    "reason.contract_failed": "contract niet gehaald",
    "reason.capot": ", capot voor {team}",
    "reason.solo": ", {who} haalde alle slagen",
    "reason.redeal": "iedereen paste: opnieuw delen",
    "reason.single_bettor_won": "de enige bieder haalde de laatste slag",
    "reason.defenders_won": "de tegenspelers versloegen de bieder",
    "reason.pass_round": "pasronde: de laatste slag betaalt in de pot",
    "reason.voided": "ongeldig: {why}",
    "reason.one_left": "nog één speler onder de 10",
    "reason.none_left": "niemand meer onder de 10: de minste punten van de laatste ronde winnen",
    "reason.all_chips": "één plaats heeft alle fiches",
    "reason.hands_played": "het afgesproken aantal rondes is gespeeld",
    "reason.players_ended": "de spelers hebben het spel beëindigd",
    "reason.target_reached": "{team} haalde het doel met {points} punten",
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
    "end.scoreboard": "Eindstand ({kind}; grafiek: de laatste {hands} rondes)",
    "end.winners": "Winnaars: {names}",
    "end.reason": "Waarom: {reason}",
    "end.standings": "Stand ({kind}): {scores}",
    "end.proofs_ok": "Elk bewijs gecontroleerd: niemand speelde vals.",
    "end.cheats": "Valsspel gevonden: {text}",
    "end.cheat": "{who}: {reason}",
    "end.continue": "Spatie: verder",
    "end.quit": "q: stoppen",
    "end.menu": "Spatie: terug naar het menu",
    "end.rematch": "r: nog een spel",
    "help.title": "Toetsen",
    "help.text": (
        "1-8         speel de kaart met dat nummer\n"
        "Links/Rechts kies een kaart, Enter speelt hem\n"
        "k c f r     kloppen, meegaan, afhaken, verhogen\n"
        "b p d       inzetten, passen, bieden (troef)\n"
        "l u t       vuile was, Toep-poging, Toep\n"
        "x a         was controleren, accepteren\n"
        "h           het verloop van de ronde: elke slag, wie wat speelde\n"
        "PgUp/PgDn   door de zetten bladeren (End: terug naar de nieuwste)\n"
        "m           chatbericht schrijven (Enter verstuurt)\n"
        "w o         na deze hand opstaan / overslaan (spellen per hand)\n"
        "o           tijdens overslaan: terug aan tafel\n"
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
    "start.host": "Een tafel openen (internet)",
    "start.host-lan": "Een tafel openen (alleen dit netwerk)",
    "start.join": "Meedoen met een code",
    "start.rules": "Regels lezen",
    "start.settings": "Instellingen",
    "start.quit": "Stoppen",
    "start.hint": "Op/Neer + Enter, of het nummer; q stopt",
    "start.game": "Spel: {game}  (Links/Rechts)",
    "start.bots": "Bots: {n}  (+/-)",
    "start.go": "Enter: starten  Esc: terug",
    "host.title": "Een tafel openen",
    "host.game": "Spel: {game}",
    "host.seats": "Plaatsen: {n}",
    "host.bots": "Bots: {n}  ({people} plaats(en) voor wie je uitnodigt)",
    "host.ways_internet": "Toegang: Nostr-relays en dit netwerk",
    "host.ways_lan": "Toegang: alleen dit netwerk",
    "host.hint": "Op/Neer: kiezen  Links/Rechts: wijzigen  Enter: openen  Esc: terug",
    "host.only_bots": "Alleen jij en bots: het spel begint zodra de bots zitten.",
    "host.invite_people": "Enter opent de tafel en toont de uitnodigingscode voor {n} speler(s).",
    "start.unavailable": "Netwerkspel: `dealerless host` / `dealerless join` (node).",
    "settings.name": "Naam: {value}",
    "settings.lang": "Taal: {value}",
    "settings.timeout": "Tijd per zet: {value}s",
    "settings.level": "Sterkte van de bots: {value}",
    "level.strong": "sterk",
    "level.normal": "gemiddeld",
    "level.basic": "eenvoudig",
    "settings.ascii": "Kleurletters in plaats van symbolen: {value}",
    "settings.hint": "Op/Neer kiezen, Links/Rechts wijzigen, Esc terug",
    "replay.title": "Terugkijken: {file}",
    "replay.step": "stap {i} van {n}",
    "replay.ok_short": "gecontroleerd",
    "replay.bad_short": "KLOPT NIET: {problem}",
    "replay.keys": "Rechts: verder  Links: terug  Home/End  q: stop",
    "replay.ok": "Verslag gecontroleerd: elke handtekening en elk bewijs klopt.",
    "replay.bad": "Verslag klopt niet: {reason}",
    "who.seat": "plaats {n}",
    "team.name": "team {n} ({names})",
    "seat.partner": "je partner",
    "seat.clock": "nog {seconds}s",
    "hand.empty": "(al je kaarten zijn gespeeld)",
    "mode.contest": "de inzetters spelen het uit",
    "mode.single": "één inzetter tegen allen",
    "mode.pass_round": "pasronde",
    "note.poverty": (
        "Armoede: {names} heeft 9 punten. Meegaan (c): verlies kost {stake}; afhaken (f): 1."
    ),
    "note.answer": (
        "{name} klopte, inzet {stake}. Meegaan (c): verlies kost {stake}; afhaken (f): {fold}."
    ),
    "note.knock_cap": (
        "Niet kloppen: {name} heeft {points} punten en kan over de 10 gaan (hoogste inzet {cap})."
    ),
    "note.knock_empty": (
        "Je kaarten zijn gespeeld; kloppen verhoogt de inzet van deze ronde toch tot {stake}."
    ),
    "history.title": "Verloop van de ronde",
    "history.hand": "Ronde {n} (gever: {dealer})",
    "history.trick": "slag {n}: {plays}  -> {winner}",
    "history.current": "op tafel: {plays}",
    "history.empty": "Er is nog niets gespeeld.",
    "history.keys": "Op/Neer, PgUp/PgDn: bladeren   h of Esc: sluiten",
    "panel.more": "-- Op/Neer, PgUp/PgDn: bladeren ({above} regels erboven, {below} eronder) --",
    "log.laundry_true_chips": (
        "{checker} controleerde de was van {declarer}, die was echt: "
        "{checker} betaalt 1 fiche in de pot"
    ),
    "log.laundry_bluff_chips": (
        "{checker} controleerde de was van {declarer}, een bluf: "
        "{declarer} betaalt 1 fiche in de pot"
    ),
    "log.tupp": (
        "{who} heeft een Toep (vier gelijke) en wint de ronde: "
        "elke andere plaats +{points}"
    ),
    "log.tupp_attempt": (
        "{who} heeft echt drie gelijke: "
        "{who} trekt een nieuwe vierde kaart"
    ),
    "why.laundry_true": "{checker} controleerde de was van {declarer}, die was echt: {checker} +1",
    "why.laundry_bluff": "{checker} controleerde de was van {declarer}, een bluf: {declarer} +1",
    "why.jack": "{who} haalde de laatste slag met een boer: 1 punt eraf",
    "why.tupp": "{who} +{points}: een Toep kost elke andere plaats 3",
    "why.folded": "{who} +{points}: afgehaakt (de inzet van voor het kloppen)",
    "why.lost": "{who} +{points}: doorgespeeld en verloren bij inzet {stake}",
    "why.pot": "De pot van {pot} gaat naar {who}.",
    "why.paid": "{who} deed {chips} in de pot (ante en inzetten)",
    "why.paid_folded": "{who} deed {chips} in de pot en haakte af",
    "why.card_points": "Kaartpunten: team 1 {one}, team 2 {two} (met de laatste slag)",
    "why.last_trick": "Laatste slag (+10): {who}",
    "why.belote": "Belote (heer en vrouw van troef): team van {who} +20",
    "why.capot": "Capot: {team} haalde alle slagen",
    "why.contract_failed": "Contract niet gehaald: de tegenspelers krijgen alle punten",
    "why.hand_points": "Punten van de ronde: team 1 {one}, team 2 {two}",
    "why.pot_left": "Nu in de pot: {pot}",
    "node.connected": "verbonden met de tafel",
    "node.verified": (
        "spel gecontroleerd: alle {n} records bevestigd door het hele spel na te spelen"
    ),
    "node.not_verified": "het verslag kon NIET worden bevestigd door naspelen",
    "node.waiting": "wacht op {name} ({seconds} s)",
    "node.link_lost": "verbinding verbroken; opnieuw verbinden...",
    "node.refused_full": "De tafel is vol: de gastheer weigerde de plaats.",
    "node.table_finished": (
        "Deze tafel is klaar: het spel is voorbij. Vraag om een nieuwe uitnodiging."
    ),
    "node.table_finished_after": (
        "Deze tafel is klaar: het spel eindigde na {hands} rondes. Vraag om een nieuwe uitnodiging."
    ),
    "lobby.ended": "De tafel is niet begonnen: {reason}",
    "lobby.ended_keys": "q: terug",
    "save.where": "Het verslag van elke tafel staat in {dir}",
    "end.save": "s: kopie opslaan",
    "end.continue_pause": "Spatie: verder (sluit {n} s nadat het spel verdergaat)",
    "end.your_turn": "Je bent aan zet: Spatie sluit dit venster.",
    "settings.result_pause": "Uitslagvenster: {value}",
    "settings.until_closed": "blijft tot je het sluit",
    "settings.after": "sluit {n} s nadat het spel verdergaat",
    "settings.yes": "ja",
    "settings.no": "nee",
    "settings.edit_name": "Je naam (Enter bewaart, Esc annuleert): ",
    "settings.edit_code": "Uitnodigingscode (Enter doet mee, Esc annuleert): ",
    "settings.rule": "{name}: {value}",
    "settings.hint_name": "Enter: naam wijzigen  Op/Neer kiezen  Esc terug",
    "rules.hint": "Links/Rechts: ander spel  Op/Neer, PgUp/PgDn: bladeren  Esc: terug",
    "start.bad_code": "Dat is geen geldige uitnodigingscode: {reason}",
    "invite.too_long": "een uitnodigingscode heeft hoogstens {n} tekens",
    "invite.old": (
        "deze uitnodigingscode komt van een oudere dealerless; vraag de gastheer om een nieuwe"
    ),
    "invite.newer": (
        "deze uitnodigingscode komt van een nieuwere dealerless; werk deze bij om mee te doen"
    ),
    "invite.prefix": "een uitnodigingscode begint met `{prefix}`",
    "invite.damaged": (
        "de uitnodigingscode is beschadigd of afgebroken: kopieer hem opnieuw helemaal"
    ),
    "invite.characters": "de uitnodigingscode bevat tekens die er niet in horen",
    "invite.game": "de uitnodigingscode noemt een spel dat deze versie niet kan spelen",
    "invite.invalid": (
        "de uitnodigingscode bevat geen geldige uitnodiging: vraag de gastheer hem"
        " opnieuw te sturen"
    ),
    "screen.too_small": "Terminal te klein ({cols}x{rows}): minstens 80x24 nodig.",
    "replay.header": "{title}: {names}; {n} stappen (zetten en delen)",
    "line.hand": "jouw kaarten: {cards}",
    "line.scores": "stand: {scores}",
    "line.choice": "jouw zet (een nummer van 1 tot {n})> ",
    "line.stdin_closed": (
        "standaardinvoer is gesloten: niemand kan voor jou zetten, "
        "dus je plaats krijgt bij elke beurt een time-out"
    ),
    "line.bad_choice": "typ een nummer van 1 tot {n}",
    "line.note": "({text})",
    "line.saved": "verslag van deze tafel: {path}",
    "log.chat": "{who}: {text}",
    "app.title": "dealerless",
    "game.tuppen": "Toepen (klassiek, strafpunten)",
    "game.limit-tuppen": "Limit Toepen",
    "game.no-limit-tuppen": "No Limit Toepen",
    "game.pot-limit-tuppen": "Pot Limit Toepen",
    "game.pottuppen": "Pottoepen",
    "game.belote": "Belote",
    "rule.poverty": "Armoede (een plaats met 9 punten)",
    "rule.tupp": "Toep (vier gelijke)",
    "rule.tupp_attempt": "Toep-poging",
    "rule.dirty_laundry": "Vuile was",
    "rule.jack_win": "Winnen met een boer",
    "rule.knock_timing": "Wanneer kloppen",
    "rule.mode": "Modus",
    "rule.starting_chips": "Startfiches",
    "rule.ante": "Ante",
    "rule.hands": "Rondes per spel",
    "rule.max_buy_in": "Cash: inkoop",
    "rule.ante_increase_every": "Toernooi: ante +1 elke N rondes",
    "rule.pot_minimum": "Minimale pot",
    "rule.pass_round_payment": "Betaling van de pasronde",
    "rule.target": "Doelpunten",
    "rule.first_lead": "Eerste uitkomst",
    "rule.overtrump_partner_on_trump_lead": "Bij troefuitkomst de partner overtroeven",
    "rule.capot": "Capot",
    "rule.contract_counts_belote": "Belote telt mee voor het contract",
    "value.own-turn": "als je aan zet bent",
    "value.any-time": "altijd",
    "value.play-money": "speelgeld",
    "value.cash": "cash",
    "value.tournament": "toernooi",
    "value.dealer": "de gever",
    "value.next": "de plaats na de gever",
    "value.replace": "vervangt de kaartpunten",
    "value.add": "bovenop de kaartpunten",
    "rules.players": "{low} tot {high} spelers.",
    "rules.options": "Huisregels (standaard; op de opdrachtregel: --rule NAAM=WAARDE):",
    "rules.option": "{name}: {value}   ({option})",
    "rules.more": "Dezelfde tekst: dealerless rules {game}",
    "node.ready": "de tafel is klaar: {game}, {seats} plaatsen; je speelt als {name}",
    "why.antes": "Elke plaats legde {chips} in de pot (ante)",
    "why.bet_won": "{who} haalde de laatste slag en wint zijn inzet: {chips} uit de pot",
    "why.bet_in": "{who} legde zijn inzet van {chips} in de pot",
    "why.pass_round": (
        "Een pasronde (niemand zette in), dus niemand wint: "
        "{who} haalde de laatste slag en betaalt {chips} in de pot"
    ),
    "note.call_cost": (
        "Meegaan kost {chips}; in de pot zit {pot}. Wie afhaakt, laat zijn inzet liggen."
    ),
    # the node's progress messages (client/tui/node_text.py)
    "node.verified_violations": (
        "spel gecontroleerd door naspelen ({n} records); {v} bericht(en) tegen de regels geweigerd"
    ),
    "node.retrying": "nog geen verbinding met de tafel; nieuwe poging over {seconds} s",
    "node.peer_records_bad": (
        "de records van de anderen laten zich niet naspelen; we gaan verder met onze eigen"
    ),
    "node.resumed": "spel hervat uit {n} opgeslagen records, ronde {hand}",
    "node.resumed_peers": (
        "spel hervat uit {n} opgeslagen records en {m} van de anderen, ronde {hand}"
    ),
    "node.resumed_wait": (
        "; nog niemand heeft geantwoord: we wachten op een medespeler voordat we zetten"
    ),
    "node.share_damaged": (
        "hervatten kan niet: een opgeslagen sleuteldeel van deze tafel ontbreekt of is "
        "beschadigd; het opgeslagen spel blijft onaangeroerd (details in het logbestand)"
    ),
    "node.transcript_unusable": (
        "hervatten kan niet: het opgeslagen spel van deze tafel is onbruikbaar; het blijft "
        "onaangeroerd (details in het logbestand)"
    ),
    "node.outbox_full": (
        "{n} van onze berichten blijven hangen en wachten op de verbinding: we geven op"
    ),
    "node.move_refused": "je zet werd geweigerd (details in het logbestand)",
    "node.share_missing": (
        "ons opgeslagen sleuteldeel voor ronde {n} ontbreekt of is beschadigd: de anderen "
        "nemen ons met een time-out uit die ronde, daarna spelen we verder"
    ),
    "node.timed_out": "{name} kreeg een time-out (ronde {n})",
    "node.damaged": (
        "een beschadigd of verkeerd bezorgd bericht is weggegooid; we vragen het de anderen opnieuw"
    ),
    "node.refused_from": "bericht van {name} geweigerd",
    "node.auditor_failed": (
        "het controlerend naspelen van het spel is mislukt (details in het logbestand)"
    ),
    "node.cheating": "betrapt op valsspel: {names} ({n} overtreding(en))",
    "node.never_started": (
        "de tafel is nooit begonnen: niet alle spelers hebben de tafelafspraken ondertekend"
    ),
    "node.refused_proof": (
        "De gastheer weigerde de plaats: de uitnodigingscode past niet bij deze tafel."
    ),
    "node.host_refused": "De gastheer weigerde de plaats: {reason}",
    "node.config_refused": (
        "de tafelafspraken van de gastheer wijken af van de uitnodiging: we hebben niets "
        "ondertekend (details in het logbestand)"
    ),
    "node.lobby_broken": "de gastheer stuurde een kapotte spelerslijst; genegeerd",
    "node.config_unreadable": "de gastheer stuurde onleesbare tafelafspraken; genegeerd",
    "node.config_not_host": "tafelregels van een plaats die de tafel niet leidt zijn genegeerd",
    "node.seat_open_elsewhere": (
        "tafel {table} is al open in een ander dealerless-programma op deze computer: "
        "één programma per plaats"
    ),
    "node.unanswered": (
        "niemand aan tafel antwoordde {seconds} s lang: het spel is "
        "misschien voorbij of de gastheer weg"
    ),
    "node.config_bad_sig": (
        "tafelafspraken zonder geldige handtekening van de gastheer zijn genegeerd"
    ),
    "node.offer_unproven": (
        "een plaats aan de lopende tafel werd aangeboden zonder bewijs van het begin van de "
        "tafel; genegeerd (details in het logbestand)"
    ),
    "node.offer_ignored": "nog een aanbod van een plaats van {name} werd genegeerd",
    "node.offer_checking": (
        "{name} biedt ons na ronde {hand} een plaats aan: we controleren de tafel vanaf het "
        "begin ({n} records)"
    ),
    "node.offer_too_big": (
        "aanbod van {name} opgegeven: de records van de tafel zijn te groot om op te halen"
    ),
    "node.offer_stalled": (
        "{name} stuurt de records van de tafel niet verder ({got} van {n}); het aanbod wordt "
        "opgegeven"
    ),
    "node.offer_refused": (
        "de tafel die {name} aanbood geweigerd: de records bewijzen haar niet (details in het "
        "logbestand)"
    ),
    "node.chain_checked": "tafel vanaf het begin gecontroleerd: {n} records in {seconds} s",
    "node.no_seat": "aan de tafel van de gastheer is geen plaats voor ons",
    "node.joined": "{name} is aangeschoven ({k} van {n})",
    "node.bad_signature": "bericht met een ongeldige handtekening van {name} geweigerd",
    "node.peer_up": "{name} is verbonden",
    "node.peer_left_end": "{name} is weg: het spel is voorbij",
    "node.peer_down_wait": (
        "{name} is de verbinding kwijt; "
        "de tafel wacht tot {seconds} s op de zet, dan krijgt {name} een time-out"
    ),
    "node.peer_down": "{name} is de verbinding kwijt",
    "node.peer_quit": "{name} heeft de tafel verlaten; komt die niet terug, dan verloopt de tijd",
    "node.invalid_key": "een onbekende speler",
    "node.released": "een medespeler heeft geantwoord: het spel gaat verder",
    "node.no_way_works": "geen enkele weg naar de tafel werkt (details in het logbestand)",
    "node.nothing_answered": (
        "binnen {seconds} s antwoordde niemand: is de gastheer er nog, klopt de uitnodigingscode?"
    ),
    "node.wrong_host": (
        "{address} antwoordt voor een andere gastheer dan de uitnodiging noemt; controleer de"
        " uitnodigingscode"
    ),
    "node.not_invited_peer": (
        "{address} is niet de computer die de uitnodiging noemt; controleer de uitnodigingscode"
    ),
    "node.pins_bad": (
        "het bestand met onthouden relays {path} is beschadigd; zet het opzij om opnieuw te "
        "beginnen"
    ),
    "node.way_direct": "directe verbinding {address}",
    "node.way_relay": "relay {address}",
    "node.way_nostr": "Nostr ({n} relays)",
    "node.way_nostr_one": "Nostr (1 relay)",
    "node.way_retry": "{way}: {detail}; nieuwe poging",
    "node.no_relay": (
        "geen Nostr-relay wil deze tafel dragen; de antwoorden van de relays: {states}"
    ),
    "node.no_relay_now": "op dit moment draagt geen Nostr-relay de tafel: {states}",
    "node.relay_barred": "relay {url} kan de tafel niet dragen: {reason}",
    "node.refused_connection": "een verbinding zonder geldige beveiligde opbouw is geweigerd",
    "node.hub_note": "hub van de tafel: {text}",
    "node.hub_note_more": " ({n} meer van deze soort sindsdien)",
    "node.old_invite": (
        "deze opgeslagen tafel kan niet worden hervat: de uitnodigingscode komt uit een "
        "oudere versie"
    ),
    "node.cannot_listen": (
        "{address} kan niet worden geopend voor de tafel (details in het logbestand)"
    ),
    "node.no_way_in": (
        "er leidt geen weg naar deze tafel: geen direct adres, geen relay, geen Nostr-relays"
    ),
    "node.connecting": "verbinden met {address}...",
    "node.relay_pinned": "relay {address} is {fingerprint}: vanaf nu onthouden",
    "node.slow_invite": (
        "geweigerd: de uitnodiging geeft {n} ms per zet, minder dan het minimum van {floor} "
        "ms (--min-step-timeout verlaagt het voor bottafels)"
    ),
    "node.invite_no_way": (
        "geweigerd: de uitnodigingscode bevat geen weg naar de tafel die deze versie kan gebruiken"
    ),
    "node.known_table": "deze tafel is hier bekend: hij wordt hervat",
    "node.stored_unusable": "een opgeslagen tafel is onbruikbaar (details in het logbestand)",
    "node.no_resume": "geen tafel om te hervatten",
    "node.no_resume_id": "geen tafel om te hervatten past bij {id}",
    "node.ambiguous": "{id} past bij meerdere tafels; geef meer van de code",
    "node.resuming_host": "tafel {id} wordt hervat ({game}, jij bent gastheer)",
    "node.resuming_join": "tafel {id} wordt hervat ({game}, jij bent aangeschoven)",
    "node.bot_failed": "een botproces is mislukt (exitcodes {codes})",
    "node.left_early": "tafel verlaten voor het einde van het spel",
    # the table machine's refusals of what this screen sent (client/tui/results.py)
    "refusal.illegal": "die zet mag nu niet",
    "refusal.not_your_turn": "je bent niet aan de beurt",
    "refusal.resync": "terug na een herstart: we wachten op bericht van de andere spelers",
    "refusal.empty_chat": "een lege chatregel",
    "refusal.observer_chat": "een toeschouwer kan niet chatten",
    "refusal.not_sitting_out": "je slaat niet over: er valt niets terug te komen",
    "refusal.no_back": "aan deze tafel kun je niet vanaf het scherm terugkomen",
    # plaatsen die tussen de handen wisselen
    "change.stand": "opstaan",
    "change.sit-out": "een beurt overslaan",
    "node.refused_waiting_full": (
        "De gastheer weigerde de plaats: de tafel is vol en er wachten al genoeg spelers."
    ),
    "node.refused_buy_in": "De gastheer weigerde de plaats: {why}",
    "node.buy_in_range": "een inkoop moet {low} tot {high} fiches zijn",
    "node.buy_in_fixed": "aan deze speelgeldtafel begint iedereen met {n} fiches",
    "node.buy_in_tournament": "een lopend toernooi neemt geen nieuwkomers aan",
    "node.buy_in_pottuppen": "bij Pottoepen begint een nieuwkomer zonder inkoop",
    "node.asked_change": "gevraagd: na deze hand {change}",
    "node.cannot_change": "aan deze tafel kun je niet {change} (details in het logbestand)",
    "node.newcomer_waits": "{name} wacht met {chips} fiches op een plaats na deze hand",
    "node.cannot_reform": "de nieuwkomers kunnen hier niet gaan zitten (details in het logbestand)",
    "node.next_host_wait": "na hand {n} wisselen de plaatsen: wacht op de volgende gastheer",
    "node.segment_voided": "de plaatswissel na hand {n} vervalt: de stemmen van de anderen over"
    " die hand kwamen pas toen wij al verder waren; de plaatsen wisselen van daar opnieuw",
    "node.newcomers_refused": (
        "de nieuwkomers konden niet gaan zitten: de tafel speelt zonder hen verder (details in "
        "het logbestand)"
    ),
    "node.cannot_go_on": "na de plaatswissel kan de tafel niet verder (details in het logbestand)",
    "node.cannot_go_on_yet": (
        "te weinig spelers na de plaatswissel: wacht tot een nieuwkomer aanschuift"
    ),
    "node.newcomer_came": "{name} is er: de tafel gaat verder",
    "node.next_host_missing": (
        "de volgende gastheer stuurde in {seconds} s niets: de tafel eindigt hier"
    ),
    "node.serving_others": (
        "je hebt de tafel verlaten; dit programma geeft de berichten van de anderen door tot "
        "zij klaar zijn (Ctrl-C stopt het ook voor hen)"
    ),
    "seatchange.confirm.stand": "Na deze hand opstaan met je fiches? (j/n)",
    "seatchange.confirm.sit-out": "Na deze hand een beurt overslaan? Je fiches blijven van jou. "
    "(j/n)",
    "seatchange.pending.stand": "je staat op na deze hand",
    "seatchange.pending.sit-out": "je slaat een beurt over na deze hand",
    "seatchange.fixed": "{game} houdt de plaatsen het hele spel: niemand staat tussen de handen op",
    "seatchange.already": "al gevraagd: {pending}",
    "seatchange.over": "het spel is voorbij: er valt niets meer op te staan",
    "seatchange.confirm.back": "Met je fiches terug aan tafel? (j/n)",
    "seatchange.pending.back": "terugkeer gevraagd: je schuift tussen twee handen weer aan",
    "seatchange.away": "je slaat over: o brengt je terug aan tafel",
    "away.text": "Je slaat over; {chips} blijven van jou. De tafel speelt verder.",
    "away.key": "terugkomen",
    "node.coming_back": "terugkeer gevraagd: na deze hand zit je weer aan tafel",
    "node.away_quiet": "aan tafel gebeurde {seconds} s lang niets: je kijkt niet langer mee",
    "node.comes_back": "{name} komt na deze hand terug",
    "node.back_from_silence": ("je zweeg en slaat over (je fiches blijven); terugkeer is gevraagd"),
    "log.seats_change": "na hand {n} wisselen de plaatsen: {what}",
    "log.change.stand": "{who} staat op",
    "log.change.sit-out": "{who} slaat over",
    "log.change.reseat": "{who} maakt plaats voor nieuwkomers",
    "log.change.silent": "{who} zweeg en slaat over",
    "log.segment": "de tafel speelt verder met {n} spelers: {names}",
    "log.segment_without_you": "de tafel speelt zonder jou verder: {names}",
    "end.left": "Je hebt de tafel verlaten",
    "end.left.stand": "Je bent na hand {n} opgestaan, met {chips}.",
    "end.left.sit-out": "Je slaat over sinds hand {n}; {chips} blijven van jou.",
    "end.left.silent": "Je zweeg in hand {n} en slaat over; {chips} blijven van jou.",
    "end.left.on": "De tafel speelt zonder jou verder.",
    "ledger.chips": "{n} fiches",
    "ledger.net": "{n:+d} netto",
    "ledger.balance": "een saldo van {n:+d}",
    "actions.changing": (
        "de plaatsen wisselen: wacht tot de volgende gastheer de tafel opnieuw indeelt"
    ),
    "seatchange.between": (
        "de plaatsen wisselen nu: vraag het opnieuw zodra de volgende hand begonnen is"
    ),
    "lobby.leaving": (
        "Je hebt de tafel verlaten. De anderen halen eerst bij; als jouw computer hen verbindt "
        "(jij was gastheer), tot zij klaar zijn. Ctrl-C stopt het, ook voor hen."
    ),
}
