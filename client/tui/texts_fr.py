"""The French texts of the terminal client (keys: see texts_en.py).

Belote keeps its own French terms (atout, preneur, belote et rebelote, capot, dix de der); the
Tuppen games say frapper (knock), suivre (call), se coucher (fold), relancer (raise). A hand is
a "donne", a seat a "place", chips "jetons"; the player is addressed as "vous".
"""

from __future__ import annotations

import re

_TEXTS: dict[str, str] = {
    "lobby.title": "{game}, {seats} places : en attente des joueurs",
    "lobby.invite": "Code d'invitation (à donner aux autres joueurs) :",
    "lobby.copy": "c le copie dans le presse-papiers (terminaux avec OSC 52)",
    "lobby.copied": "copié",
    "lobby.opening": "ouverture de la table...",
    "lobby.players": "À la table ({n}/{seats}) :",
    "lobby.host": "hôte",
    "lobby.rematch_host": (
        "Une autre partie : les autres viennent quand ils appuient sur r au classement final"
    ),
    "lobby.rematch_join": (
        "Une autre partie : on attend que l'hôte ouvre la table (quand il appuie aussi sur r)"
    ),
    "lobby.connecting": "connexion à l'hôte...",
    "lobby.waiting": "encore {n} joueur(s) attendu(s)",
    "lobby.starting": "tout le monde est là : la partie commence",
    "lobby.keys": "c copier l'invitation  q partir",
    # screens and panels
    "app.title": "dealerless",
    "game.tuppen": "Tuppen (classique, points de pénalité)",
    "game.limit-tuppen": "Tuppen Limit",
    "game.no-limit-tuppen": "Tuppen No Limit",
    "game.pot-limit-tuppen": "Tuppen Pot Limit",
    "game.pottuppen": "Pottuppen",
    "game.belote": "Belote",
    "hand.title": "Donne {n}",
    "seat.you": "vous",
    "name.player": "joueur",
    "seat.dealer": "donneur",
    "seat.stack": "tapis",
    "panel.table": "Table",
    "panel.trick": "Pli",
    "panel.hand": "Votre main",
    "panel.actions": "Vos coups",
    "panel.log": "Déroulement",
    "panel.chat": "Discussion",
    "label.colon": "{label} :",
    "trick.led": "{name} a entamé",
    "trick.last": "dernier pli pour {name}",
    "trick.empty": "(aucune carte sur la table)",
    "actions.wait": "en attente de {names}",
    "actions.none": "rien à faire pour l'instant",
    "actions.optional": "(facultatif pour l'instant)",
    "actions.choose": "{what} : numéro ou flèches + Entrée, Échap pour revenir",
    "actions.play": "jouer une carte : son numéro, ou flèches + Entrée",
    "deadline": "{seconds} s pour {name}",
    "keys.hint": "? aide  h historique  m chat  s sauver  q quitter",
    "status.to_act": "doit jouer",
    "status.knocked": "a frappé",
    "status.called": "a suivi",
    "status.folded": "s'est couché",
    "status.out": "éliminé",
    "status.passed": "a passé",
    "status.bid": "a pris",
    "status.bet": "a misé",
    "status.raised": "a relancé",
    "status.taker": "preneur",
    "status.laundry": "linge sale",
    "info.stake": "enjeu",
    "info.pot": "pot",
    "info.bet": "mise actuelle",
    "info.ante": "ante",
    "info.trump": "atout",
    "info.taker": "preneur",
    "info.turned": "retournée",
    "info.mode": "mode",
    "info.phase": "phase",
    "info.team": "équipe {n}",
    "info.bet_of": "{name} a misé",
    "info.line": "{label} : {value}",
    "score.penalty points": "pénalités",
    "score.chips": "bilan",
    "score.balance": "solde",
    "score.team points": "équipe",
    # actions
    "act.play": "jouer",
    "act.knock": "frapper",
    "act.call": "suivre",
    "act.fold": "se coucher",
    "act.raise": "relancer",
    "act.bet": "miser",
    "act.pass": "passer",
    "act.bid": "prendre",
    "act.laundry": "linge sale",
    "act.tupp_attempt": "tentative de Tupp",
    "act.tupp": "Tupp",
    "act.check": "vérifier le linge",
    "act.accept": "accepter",
    # log
    "log.hand_started": "Début de la donne {n} ; {dealer} distribue.",
    "log.dealt": "Vous recevez {cards}.",
    "log.shown": "{who} montre {cards}.",
    "log.turned": "Retournée : {cards}.",
    "log.action": "{who} : {what}.",
    "log.timeout": " (temps écoulé)",
    "log.trick": "{who} remporte le pli {n}.",
    "log.hand_ended": "Donne {n} : victoire de {winners} ({reason}).",
    "log.deltas": "Les scores changent de {deltas}.",
    "log.aborted": "Donne {n} annulée : {reason}.",
    "log.signed": "Donne {n} signée par toutes les places : chaque preuve vérifiée.",
    "log.game_over": "Partie terminée : victoire de {winners} ({reason}).",
    # why a hand or a game ended (protocol/rules/reasons.py)
    "reason.last_trick": "dernier pli",
    "reason.all_folded": "tous les autres se sont couchés",
    "reason.tupp": "Tupp",
    "reason.contract_made": "contrat rempli",
    "reason.contract_failed": "contrat chuté",
    "reason.capot": ", capot pour {team}",
    "reason.solo": ", {who} a fait tous les plis",
    "reason.redeal": "tout le monde a passé : on redistribue",
    "reason.single_bettor_won": "le seul miseur a fait le dernier pli",
    "reason.defenders_won": "les défenseurs ont battu le miseur",
    "reason.pass_round": "tour sans mise : le dernier pli paie au pot",
    "reason.voided": "annulée : {why}",
    "reason.one_left": "un seul joueur encore sous 10",
    "reason.none_left": "plus personne sous 10 : le moins de points à la dernière donne gagne",
    "reason.all_chips": "une place a tous les jetons",
    "reason.hands_played": "le nombre de donnes convenu a été joué",
    "reason.players_ended": "les joueurs ont mis fin à la partie",
    "reason.target_reached": "{team} a atteint l'objectif avec {points} points",
    "log.violation": "TRICHE OU FAUTE de {who} : {reason}",
    "log.timeout_vote": "{who} ne répond plus : la table vote le dépassement de temps.",
    "log.error": "Interdit : {reason}",
    "log.chat": "{who} : {text}",
    "who.nobody": "personne",
    "who.table": "la table",
    # end of hand / game
    "end.hand": "La donne {n} est terminée",
    "end.title": "Résultat",
    "end.signed": "Toutes les places ont signé le résultat.",
    "end.unsigned": "En attente de la signature de toutes les places...",
    "end.game": "La partie est terminée",
    "end.scoreboard": "Classement final ({kind} ; courbe : les {hands} dernières donnes)",
    "end.winners": "Gagnants : {names}",
    "end.reason": "Pourquoi : {reason}",
    "end.standings": "Classement ({kind}) : {scores}",
    "end.proofs_ok": "Chaque preuve vérifiée : personne n'a triché.",
    "end.cheats": "Triche détectée : {text}",
    "end.cheat": "{who} : {reason}",
    "end.continue": "Espace : continuer",
    "end.quit": "q : quitter",
    "end.menu": "Espace : retour au menu",
    "end.rematch": "r : une autre partie",
    # help and dialogs
    "help.title": "Touches",
    "help.text": (
        "1-8         jouer la carte de ce numéro\n"
        "Flèches     choisir une carte (gauche/droite), Entrée la joue\n"
        "k c f r     frapper, suivre, se coucher, relancer\n"
        "b p d       miser, passer, prendre (couleur d'atout)\n"
        "l u t       linge sale, tentative de Tupp, Tupp\n"
        "x a         vérifier le linge sale, l'accepter\n"
        "h           l'historique de la donne : chaque pli, qui a joué quoi\n"
        "PgPréc/Suiv faire défiler les coups (Fin : revenir au plus récent)\n"
        "m           écrire un message (Entrée l'envoie)\n"
        "w o         se lever / faire une pause après la donne (selon le jeu)\n"
        "o           en pause : revenir à la table\n"
        "s           sauver la partie (la revoir : dealerless replay FICHIER)\n"
        "?           cette aide (n'importe quelle touche la ferme)\n"
        "q, Ctrl-C   quitter (demande d'abord pendant une partie)"
    ),
    "quit.confirm": "Une partie est en cours. Quitter ? (o/n)",
    "chat.prompt": "dire : ",
    "saved": "Partie enregistrée dans {path}",
    "save.failed": "Impossible d'enregistrer : {reason}",
    # start screen
    "start.title": "dealerless - jeux de cartes sans donneur",
    "start.play": "Jouer contre des bots",
    "start.host": "Ouvrir une table (internet)",
    "start.host-lan": "Ouvrir une table (ce réseau seulement)",
    "start.join": "Rejoindre avec un code",
    "start.rules": "Lire les règles",
    "start.settings": "Réglages",
    "start.quit": "Quitter",
    "start.hint": "Haut/Bas + Entrée, ou le numéro ; q quitte",
    "start.game": "Jeu : {game}  (Gauche/Droite)",
    "start.bots": "Bots : {n}  (+/-)",
    "start.go": "Entrée : commencer  Échap : retour",
    "host.title": "Ouvrir une table",
    "host.game": "Jeu : {game}",
    "host.seats": "Places : {n}",
    "host.bots": "Bots : {n}  ({people} place(s) pour vos invités)",
    "host.ways_internet": "Accès : relais Nostr et ce réseau",
    "host.ways_lan": "Accès : ce réseau seulement",
    "host.hint": ("Haut/Bas : choisir  Gauche/Droite : changer  Entrée : ouvrir  Échap : retour"),
    "host.only_bots": (
        "Vous et des bots seulement : la partie commence dès que les bots s'assoient."
    ),
    "host.invite_people": (
        "Entrée ouvre la table et montre son code d'invitation pour {n} joueur(s)."
    ),
    "start.unavailable": "Jeu en réseau : `dealerless host` / `dealerless join` (nœud).",
    "settings.name": "Nom : {value}",
    "settings.lang": "Langue : {value}",
    "settings.timeout": "Temps par coup : {value} s",
    "settings.level": "Niveau des bots : {value}",
    "level.strong": "fort",
    "level.normal": "moyen",
    "level.basic": "simple",
    "settings.ascii": "Lettres au lieu des symboles de couleur : {value}",
    "settings.hint": "Haut/Bas choisir, Gauche/Droite changer, Échap retour",
    # replay
    "replay.title": "Relecture : {file}",
    "replay.step": "étape {i} sur {n}",
    "replay.ok_short": "vérifié",
    "replay.bad_short": "INVALIDE : {problem}",
    "replay.keys": "Droite : suivant  Gauche : retour  Début/Fin  q : quitter",
    "replay.ok": "Partie vérifiée : chaque signature et chaque preuve contrôlées.",
    "replay.bad": "La partie enregistrée ne se vérifie pas : {reason}",
    # added for issue 13: seats, teams, notes, history, breakdown, node notices, lobby, settings
    "who.seat": "place {n}",
    "team.name": "équipe {n} ({names})",
    "seat.partner": "votre partenaire",
    "seat.clock": "encore {seconds} s",
    "hand.empty": "(toutes vos cartes sont jouées)",
    "mode.contest": "les miseurs jouent entre eux",
    "mode.single": "un miseur contre tous",
    "mode.pass_round": "tour sans mise",
    "note.poverty": (
        "Pauvreté : {names} a 9 points. Suivre (c) : perdre coûte {stake} ; "
        "se coucher (f) : coûte 1."
    ),
    "note.answer": (
        "{name} a frappé, enjeu {stake}. Suivre (c) : perdre coûte {stake} ; "
        "se coucher (f) : {fold}."
    ),
    "note.knock_cap": (
        "Pas de frappe : {name} a {points} points et pourrait dépasser 10 (enjeu max. {cap})."
    ),
    "note.knock_empty": (
        "Vos cartes sont jouées ; frapper porte quand même l'enjeu de la donne à {stake}."
    ),
    "history.title": "Historique de la donne",
    "history.hand": "Donne {n} (donneur : {dealer})",
    "history.trick": "pli {n} : {plays}  -> {winner}",
    "history.current": "sur la table : {plays}",
    "history.empty": "Rien n'a encore été joué.",
    "history.keys": "Haut/Bas, PgPréc/PgSuiv : défiler   h ou Échap : fermer",
    "panel.more": "-- Haut/Bas, PgPréc/PgSuiv : défiler ({above} lignes avant, {below} après) --",
    "log.laundry_true_chips": (
        "{checker} a vérifié le linge sale de {declarer}, il était vrai : "
        "{checker} verse 1 jeton au pot"
    ),
    "log.laundry_bluff_chips": (
        "{checker} a vérifié le linge sale de {declarer}, c'était du bluff : "
        "{declarer} verse 1 jeton au pot"
    ),
    "log.tupp": (
        "{who} a un Tupp (quatre cartes égales) et gagne la donne : "
        "chaque autre place +{points}"
    ),
    "log.tupp_attempt": (
        "{who} a vraiment un brelan : "
        "{who} tire une nouvelle quatrième carte"
    ),
    "why.laundry_true": (
        "{checker} a vérifié le linge sale de {declarer}, il était vrai : {checker} +1"
    ),
    "why.laundry_bluff": (
        "{checker} a vérifié le linge sale de {declarer}, c'était du bluff : {declarer} +1"
    ),
    "why.jack": "{who} a fait le dernier pli avec un valet : 1 point de moins",
    "why.tupp": "{who} +{points} : un Tupp coûte 3 à chaque autre place",
    "why.folded": "{who} +{points} : s'est couché (l'enjeu d'avant la frappe)",
    "why.lost": "{who} +{points} : a continué et perdu avec un enjeu de {stake}",
    "why.pot": "Le pot de {pot} va à {who}.",
    "why.paid": "{who} a mis {chips} au pot (ante et mises)",
    "why.paid_folded": "{who} a mis {chips} au pot, puis s'est couché",
    "why.card_points": "Points des cartes : équipe 1 {one}, équipe 2 {two} (avec le dernier pli)",
    "why.last_trick": "Dix de der (+10) : {who}",
    "why.belote": "Belote et rebelote (roi et dame d'atout) : équipe de {who} +20",
    "why.capot": "Capot : {team} a fait tous les plis",
    "why.contract_failed": "Le preneur est dedans : la défense marque tous les points",
    "why.hand_points": "Points de la donne : équipe 1 {one}, équipe 2 {two}",
    "why.pot_left": "Dans le pot maintenant : {pot}",
    "node.connected": "connecté à la table",
    "node.verified": "partie contrôlée : les {n} entrées vérifiées en rejouant toute la partie",
    "node.not_verified": "la partie enregistrée ne s'est PAS vérifiée en la rejouant",
    "node.waiting": "en attente de {name} ({seconds} s)",
    "node.link_lost": "connexion perdue ; reconnexion...",
    "node.refused_full": "La table est complète : l'hôte a refusé la place.",
    "node.table_finished": (
        "Cette table est terminée : sa partie est finie. Demandez une nouvelle invitation."
    ),
    "node.table_finished_after": (
        "Cette table est terminée : sa partie s'est achevée après {hands} donnes. "
        "Demandez une nouvelle invitation."
    ),
    "lobby.ended": "La table n'a pas commencé : {reason}",
    "lobby.ended_keys": "q : retour",
    "save.where": "L'enregistrement de chaque table est conservé dans {dir}",
    "end.save": "s : en sauver une copie",
    "end.continue_pause": "Espace : continuer (se ferme seul {n} s après la reprise du jeu)",
    "end.your_turn": "C'est à vous : Espace ferme ce panneau.",
    "settings.result_pause": "Panneau de résultat : {value}",
    "settings.until_closed": "reste jusqu'à ce que vous le fermiez",
    "settings.after": "se ferme {n} s après la reprise du jeu",
    "settings.yes": "oui",
    "settings.no": "non",
    "settings.edit_name": "Votre nom (Entrée enregistre, Échap annule) : ",
    "settings.edit_code": "Code d'invitation (Entrée rejoint, Échap annule) : ",
    "settings.rule": "{name} : {value}",
    "settings.hint_name": "Entrée : modifier le nom  Haut/Bas choisir  Échap retour",
    "rules.hint": "Gauche/Droite : autre jeu  Haut/Bas, PgPréc/PgSuiv : défiler  Échap : retour",
    "start.bad_code": "Ce n'est pas un code d'invitation valide : {reason}",
    "invite.too_long": "un code d'invitation a au plus {n} caractères",
    "invite.old": (
        "ce code d'invitation vient d'un dealerless plus ancien ; demandez-en un nouveau à l'hôte"
    ),
    "invite.newer": (
        "ce code d'invitation vient d'un dealerless plus récent ; mettez celui-ci à jour"
        " pour rejoindre"
    ),
    "invite.prefix": "un code d'invitation commence par `{prefix}`",
    "invite.damaged": "le code d'invitation est abîmé ou coupé : copiez-le à nouveau en entier",
    "invite.characters": "le code d'invitation contient des caractères qui n'y ont pas leur place",
    "invite.game": "le code d'invitation nomme un jeu que cette version ne sait pas jouer",
    "invite.invalid": (
        "le code d'invitation ne contient pas d'invitation valide : demandez à l'hôte de"
        " le renvoyer"
    ),
    "screen.too_small": "Terminal trop petit ({cols}x{rows}) : il faut au moins 80x24.",
    "replay.header": "{title} : {names} ; {n} étapes (coups et donnes)",
    "line.hand": "votre main : {cards}",
    "line.scores": "classement : {scores}",
    "line.choice": "votre coup (un nombre de 1 à {n})> ",
    "line.stdin_closed": (
        "l'entrée standard est fermée : personne ne peut jouer pour vous, votre place dépasse "
        "donc son temps à chaque tour"
    ),
    "line.bad_choice": "tapez un nombre de 1 à {n}",
    "line.note": "({text})",
    "line.saved": "l'enregistrement de cette table : {path}",
    "rule.poverty": "Pauvreté (une place à 9 points)",
    "rule.tupp": "Tupp (un carré)",
    "rule.tupp_attempt": "Tentative de Tupp",
    "rule.dirty_laundry": "Linge sale",
    "rule.jack_win": "Gagner avec un valet",
    "rule.knock_timing": "Quand frapper",
    "rule.mode": "Mode",
    "rule.starting_chips": "Jetons de départ",
    "rule.ante": "Ante",
    "rule.hands": "Donnes par partie",
    "rule.max_buy_in": "Partie cash : cave",
    "rule.ante_increase_every": "Tournoi : ante +1 toutes les N donnes",
    "rule.pot_minimum": "Minimum du pot",
    "rule.pass_round_payment": "Paiement du tour sans mise",
    "rule.target": "Points à atteindre",
    "rule.first_lead": "Première entame",
    "rule.overtrump_partner_on_trump_lead": "Monter sur le partenaire quand l'atout est entamé",
    "rule.capot": "Capot",
    "rule.contract_counts_belote": "La belote compte pour le contrat",
    "value.own-turn": "à son tour",
    "value.any-time": "à tout moment",
    "value.play-money": "argent fictif",
    "value.cash": "partie cash",
    "value.tournament": "tournoi",
    "value.dealer": "le donneur",
    "value.next": "la place après le donneur",
    "value.replace": "remplace les points des cartes",
    "value.add": "en plus des points des cartes",
    "rules.players": "De {low} à {high} joueurs.",
    "rules.options": "Règles maison (par défaut ; en ligne de commande : --rule NOM=VALEUR) :",
    "rules.option": "{name} : {value}   ({option})",
    "rules.more": "Le même texte : dealerless rules {game}",
    "node.ready": "la table est prête : {game}, {seats} places ; vous jouez sous le nom {name}",
    "why.antes": "Chaque place a mis {chips} au pot (ante)",
    "why.bet_won": "{who} a fait le dernier pli et gagne sa mise : {chips} pris dans le pot",
    "why.bet_in": "{who} a versé sa mise de {chips} au pot",
    "why.pass_round": (
        "Tour sans mise (personne n'a misé), donc personne ne gagne : "
        "{who} a fait le dernier pli et paie {chips} au pot"
    ),
    "note.call_cost": (
        "Suivre coûte {chips} ; le pot est de {pot}. Se coucher laisse ce que vous avez mis."
    ),
    # the node's progress messages (client/tui/node_text.py)
    "node.verified_violations": (
        "partie contrôlée en la rejouant ({n} entrées) ; {v} message(s) contraire(s) aux "
        "règles refusé(s)"
    ),
    "node.retrying": "pas encore de connexion à la table ; nouvel essai dans {seconds} s",
    "node.peer_records_bad": (
        "les entrées des autres ne se rejouent pas ; on continue avec les nôtres"
    ),
    "node.resumed": "partie reprise à partir de {n} entrées sauvegardées, donne {hand}",
    "node.resumed_peers": (
        "partie reprise à partir de {n} entrées sauvegardées et de {m} venues des autres, "
        "donne {hand}"
    ),
    "node.resumed_wait": (
        " ; personne n'a encore répondu : on attend un autre joueur avant de jouer"
    ),
    "node.share_damaged": (
        "reprise impossible : une part de clé sauvegardée de cette table manque ou est "
        "endommagée ; la partie sauvegardée n'a pas été touchée (détails dans le fichier journal)"
    ),
    "node.transcript_unusable": (
        "reprise impossible : la partie sauvegardée de cette table est inutilisable ; elle n'a "
        "pas été touchée (détails dans le fichier journal)"
    ),
    "node.outbox_full": "{n} de nos messages restent bloqués en attendant la connexion : abandon",
    "node.move_refused": "votre coup a été refusé (détails dans le fichier journal)",
    "node.share_missing": (
        "notre part de clé sauvegardée pour la donne {n} manque ou est endommagée : les autres "
        "nous excluront de cette donne faute de réponse, puis nous continuerons"
    ),
    "node.timed_out": "{name} a dépassé son temps (donne {n})",
    "node.damaged": "un message endommagé ou mal adressé a été écarté ; on redemande aux autres",
    "node.refused_from": "message de {name} refusé",
    "node.auditor_failed": (
        "la vérification de la partie en la rejouant a échoué (détails dans le fichier journal)"
    ),
    "node.cheating": "triche détectée : {names} ({n} règle(s) enfreinte(s))",
    "node.never_started": (
        "la table n'a jamais commencé : tous les joueurs n'ont pas signé les conditions de la table"
    ),
    "node.refused_proof": (
        "L'hôte a refusé la place : le code d'invitation ne correspond pas à cette table."
    ),
    "node.host_refused": "L'hôte a refusé la place : {reason}",
    "node.config_refused": (
        "les conditions de table de l'hôte diffèrent de l'invitation : nous n'avons rien signé "
        "(détails dans le fichier journal)"
    ),
    "node.lobby_broken": "l'hôte a envoyé une liste de joueurs invalide ; ignorée",
    "node.config_unreadable": "l'hôte a envoyé une configuration de table illisible ; ignorée",
    "node.config_not_host": (
        "une configuration de table venant d'une place qui n'héberge pas la table a été ignorée"
    ),
    "node.seat_open_elsewhere": (
        "la table {table} est déjà ouverte dans un autre programme dealerless sur cet "
        "ordinateur : un programme par place"
    ),
    "node.unanswered": (
        "personne à la table n'a répondu depuis {seconds} s : la partie est peut-être finie, "
        "ou son hôte parti"
    ),
    "node.config_bad_sig": (
        "une configuration de table sans signature valide de l'hôte a été ignorée"
    ),
    "node.offer_unproven": (
        "une place à la table en cours a été proposée sans preuve du début de la table ; "
        "ignorée (détails dans le fichier journal)"
    ),
    "node.offer_ignored": "une autre offre de place de {name} a été ignorée",
    "node.offer_checking": (
        "{name} nous propose une place après la donne {hand} : vérification de la table depuis "
        "son début ({n} entrées)"
    ),
    "node.offer_too_big": (
        "offre de {name} abandonnée : les entrées de la table sont trop volumineuses à récupérer"
    ),
    "node.offer_stalled": (
        "{name} n'envoie plus les entrées de la table ({got} sur {n}) ; son offre est abandonnée"
    ),
    "node.offer_refused": (
        "table proposée par {name} refusée : ses entrées ne la prouvent pas (détails dans le "
        "fichier journal)"
    ),
    "node.chain_checked": "table vérifiée depuis son début : {n} entrées en {seconds} s",
    "node.no_seat": "la table de l'hôte n'a pas de place pour nous",
    "node.joined": "{name} a pris place ({k} sur {n})",
    "node.bad_signature": "message de {name} refusé : signature invalide",
    "node.peer_up": "{name} est en ligne",
    "node.peer_left_end": "{name} a quitté la table : la partie est terminée",
    "node.peer_down_wait": (
        "{name} a perdu la connexion ; "
        "la table attend jusqu'à {seconds} s à son tour, puis l'exclut pour silence"
    ),
    "node.peer_down": "{name} a perdu la connexion",
    "node.peer_quit": "{name} a abandonné la table ; sans retour de sa part, son temps expirera",
    "node.invalid_key": "un joueur inconnu",
    "node.released": "un autre joueur a répondu : la partie continue",
    "node.no_way_works": (
        "aucun des chemins vers la table ne fonctionne (détails dans le fichier journal)"
    ),
    "node.nothing_answered": (
        "aucune réponse en {seconds} s : l'hôte est-il toujours là, le code d'invitation "
        "est-il correct ?"
    ),
    "node.wrong_host": (
        "{address} répond pour un autre hôte que celui de l'invitation ; vérifiez le code "
        "d'invitation"
    ),
    "node.not_invited_peer": (
        "{address} n'est pas l'ordinateur désigné par l'invitation ; vérifiez le code d'invitation"
    ),
    "node.pins_bad": (
        "le fichier des relais mémorisés {path} est endommagé ; déplacez-le pour repartir de zéro"
    ),
    "node.way_direct": "connexion directe {address}",
    "node.way_relay": "relais {address}",
    "node.way_nostr": "Nostr ({n} relais)",
    "node.way_nostr_one": "Nostr (1 relais)",
    "node.way_retry": "{way} : {detail} ; nouvel essai",
    "node.no_relay": (
        "aucun relais Nostr n'acceptera cette table ; réponse de chaque relais : {states}"
    ),
    "node.no_relay_now": "aucun relais Nostr ne porte la table en ce moment : {states}",
    "node.relay_barred": "le relais {url} ne peut pas porter la table : {reason}",
    "node.refused_connection": (
        "connexion refusée : l'établissement de la liaison sécurisée a échoué"
    ),
    "node.hub_note": "le hub de la table : {text}",
    "node.hub_note_more": " ({n} autre(s) du même genre depuis)",
    "node.old_invite": (
        "cette table sauvegardée ne peut pas être reprise : son code d'invitation vient d'une "
        "version plus ancienne"
    ),
    "node.cannot_listen": (
        "impossible d'ouvrir {address} pour la table (détails dans le fichier journal)"
    ),
    "node.no_way_in": "aucun accès à cette table : ni adresse directe, ni relais, ni relais Nostr",
    "node.connecting": "connexion à {address}",
    "node.relay_pinned": "le relais {address} est {fingerprint} : mémorisé désormais",
    "node.slow_invite": (
        "refusé : l'invitation accorde {n} ms par coup, moins que le minimum de {floor} ms "
        "(--min-step-timeout le réduit pour les tables de bots)"
    ),
    "node.invite_no_way": (
        "refusé : le code d'invitation ne contient aucun chemin vers la table utilisable par "
        "cette version"
    ),
    "node.known_table": "cette table est connue ici : elle reprend",
    "node.stored_unusable": (
        "une table sauvegardée est inutilisable (détails dans le fichier journal)"
    ),
    "node.no_resume": "aucune table à reprendre",
    "node.no_resume_id": "aucune table à reprendre ne correspond à {id}",
    "node.ambiguous": "{id} correspond à plusieurs tables ; donnez davantage de l'identifiant",
    "node.resuming_host": "reprise de la table {id} ({game}, vous êtes l'hôte)",
    "node.resuming_join": "reprise de la table {id} ({game}, vous l'avez rejointe)",
    "node.bot_failed": "un processus de bot a échoué (codes de sortie {codes})",
    "node.left_early": "table quittée avant la fin de la partie",
    # the table machine's refusals of what this screen sent (client/tui/results.py)
    "refusal.illegal": "ce coup n'est pas permis maintenant",
    "refusal.not_your_turn": "ce n'est pas votre tour",
    "refusal.resync": "de retour après un redémarrage : en attente des autres joueurs",
    "refusal.empty_chat": "un message vide",
    "refusal.observer_chat": "un observateur ne peut pas discuter",
    "refusal.not_sitting_out": "vous n'êtes pas en pause : il n'y a rien dont revenir",
    "refusal.no_back": "cette table ne peut pas vous reprendre depuis l'écran",
    # seats that change between hands (client/tui/node_text.py, the table screen)
    "change.stand": "se lever",
    "change.sit-out": "faire une pause",
    "node.refused_waiting_full": (
        "L'hôte a refusé la place : la table est complète et assez de joueurs attendent déjà."
    ),
    "node.refused_buy_in": "L'hôte a refusé la place : {why}",
    "node.buy_in_range": "une cave doit être de {low} à {high} jetons",
    "node.buy_in_fixed": "à cette table en argent fictif, chacun s'assoit avec {n} jetons",
    "node.buy_in_tournament": "un tournoi n'accepte plus de nouveaux joueurs une fois commencé",
    "node.buy_in_pottuppen": "au Pottuppen, un nouveau venu s'assoit sans rien (pas de cave)",
    "node.asked_change": "demande enregistrée : {change} après cette donne",
    "node.cannot_change": "impossible de {change} à cette table (détails dans le fichier journal)",
    "node.newcomer_waits": "{name} attend de s'asseoir avec {chips} jetons après cette donne",
    "node.cannot_reform": (
        "les nouveaux venus ne peuvent pas prendre place à cette table (détails dans le fichier "
        "journal)"
    ),
    "node.next_host_wait": "les places changent après la donne {n} : en attente du prochain hôte",
    "node.segment_voided": "le changement de places après la donne {n} est annulé : les votes"
    " des autres sur cette donne nous sont parvenus après notre départ ; les places changent"
    " à nouveau depuis là",
    "node.newcomers_refused": (
        "les nouveaux venus n'ont pas pu s'asseoir : la table continue sans eux (détails dans le "
        "fichier journal)"
    ),
    "node.cannot_go_on": (
        "la table ne peut pas continuer après le changement de places (détails dans le fichier "
        "journal)"
    ),
    "node.cannot_go_on_yet": (
        "trop peu de joueurs après le changement de places : en attente d'un nouveau venu"
    ),
    "node.newcomer_came": "{name} est arrivé : la table continue",
    "node.next_host_missing": (
        "le prochain hôte n'a rien envoyé en {seconds} s : la table s'arrête ici"
    ),
    "node.serving_others": (
        "vous avez quitté la table ; ce programme continue de transmettre les messages des autres "
        "jusqu'à ce qu'ils aient fini (Ctrl-C l'arrête, pour eux aussi)"
    ),
    "seatchange.confirm.stand": "Vous lever après cette donne, avec vos jetons ? (o/n)",
    "seatchange.confirm.sit-out": (
        "Faire une pause après cette donne ? Vos jetons sont conservés. (o/n)"
    ),
    "seatchange.pending.stand": "vous vous levez après cette donne",
    "seatchange.pending.sit-out": "vous faites une pause après cette donne",
    "seatchange.fixed": (
        "{game} garde ses places toute la partie : personne ne se lève entre les donnes"
    ),
    "seatchange.already": "déjà demandé : {pending}",
    "seatchange.over": "la partie est terminée : il n'y a plus de place à quitter",
    "seatchange.confirm.back": "Revenir à la table avec vos jetons conservés ? (o/n)",
    "seatchange.pending.back": "vous avez demandé à revenir : vous vous rasseyez entre deux donnes",
    "seatchange.away": "vous êtes en pause : o pour revenir à la table",
    "away.text": "Vous êtes en pause ; on vous garde {chips}. La table continue.",
    "away.key": "revenir",
    "node.coming_back": "vous avez demandé à revenir : vous vous rasseyez après cette donne",
    "node.away_quiet": "la table n'a pas avancé depuis {seconds} s : vous cessez de la suivre",
    "node.comes_back": "{name} revient après cette donne",
    "node.back_from_silence": (
        "vous n'avez pas répondu et êtes en pause (vos jetons sont conservés) ; vous avez "
        "demandé à revenir"
    ),
    "log.seats_change": "après la donne {n}, les places changent : {what}",
    "log.change.stand": "{who} se lève",
    "log.change.sit-out": "{who} fait une pause",
    "log.change.reseat": "{who} laisse la place aux nouveaux venus",
    "log.change.silent": "{who} n'a pas répondu et fait une pause",
    "log.segment": "la table continue avec {n} joueurs : {names}",
    "log.segment_without_you": "la table continue sans vous : {names}",
    "end.left": "Vous avez quitté la table",
    "end.left.stand": "Vous avez quitté la table après la donne {n}, avec {chips}.",
    "end.left.sit-out": "Vous êtes en pause depuis la donne {n} ; on vous garde {chips}.",
    "end.left.silent": (
        "Vous n'avez pas répondu à la donne {n} : vous voilà en pause ; on vous garde {chips}."
    ),
    "end.left.on": "La table continue sans vous.",
    "ledger.chips": "{n} jetons",
    "ledger.net": "bilan {n:+d}",
    "ledger.balance": "un solde de {n:+d}",
    "actions.changing": "les places changent : en attente du prochain hôte pour installer la table",
    "seatchange.between": (
        "les places changent en ce moment : redemandez une fois la donne suivante commencée"
    ),
    "lobby.leaving": (
        "Vous avez quitté la table. Les autres rattrapent d'abord leur retard ; si votre "
        "ordinateur les relie (vous étiez l'hôte), jusqu'à ce qu'ils aient fini. Ctrl-C "
        "l'arrête, pour eux aussi."
    ),
}


def _no_break(text: str) -> str:
    """French puts a space before : ; ? ! (written as a plain one above, for the reader of
    this file); a no-break space, so that wrapping (rules viewer, result panel) never starts a
    line with the sign."""
    return re.sub(r" (?=[:;?!])", "\u00a0", text)


TEXTS: dict[str, str] = {key: _no_break(text) for key, text in _TEXTS.items()}
