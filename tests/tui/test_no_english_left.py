"""German, Dutch and French are complete on every screen: what the screens draw (not only the
tables) holds no English word, and every language's help names the keys the English one does.

The screens are drawn by :mod:`screen_texts` (start screen, settings, host form, rules viewer,
lobby and node messages, the table of every game with its panels and states, a replay). What
is not a word of any language is taken out first: the players' names the tests give, the
games' proper names, command lines and the house rules' identifiers (the same in every
language), and the values the tests put in.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from node_message_samples import SAMPLES
from screen_texts import BAD_CODES, PLAYER, PROBLEM, Drawn, screen_texts

from dealerless.client.tui import i18n
from dealerless.client.tui.invite_text import invite_text
from dealerless.client.tui.node_text import node_notice
from dealerless.client.tui.start import invite_problem
from dealerless.client.tui.wording import person_name
from dealerless.node.notices import Notice
from dealerless.protocol.rules.registry import game_names, game_spec


def _word_list(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Common English words of the client's screens (and of its sentences). A word that is also a
# word of the language checked is in NATIVE below and not looked for there.
ENGLISH = _word_list(
    """
    the you your yours player players strong normal basic classic penalty points trick tricks
    knock knocked knocks fold folded seat seats score scores trump trumps taker with change
    changes waiting wait won lost game games card cards dealer deals nobody everyone table
    bid bids call called raise raised bet bets accept laundry dirty attempt and of is are not
    to from for this that has been have will can cannot none over out play plays played
    winner winners standings result results why what who which left back quit save help
    history keys sit contract made failed reached target stake verified record records
    round hands hand connected refused
    """
)

NATIVE: dict[str, frozenset[str]] = {
    "de": _word_list("hand normal was will"),
    "nl": _word_list("hand is of over was contract record records help score scores won lost bid"),
    "fr": _word_list("table change normal points record records score scores"),
}

# Node messages whose translation passes on a third party's own words, which no table can
# translate: a relay's or the hub's answer, an operating-system error, the host's reason.
PASSED_ON = {
    "way_retry": "why a way in failed: the relay's or the operating system's words",
    "no_relay": "each Nostr relay's own answer",
    "no_relay_now": "each Nostr relay's own answer",
    "relay_barred": "the relay's own answer",
    "hub_note": "the hub's own words",
    "host_refused": "the host's own reason",
    "text": "plain text (an exception's or a test node's own words), shown as it is",
}

# Names that stay as they are in every language: the players the tests seat (bots are
# "bot1"...), the games' proper names, the program's name.
NAMES = re.compile(
    r"\b(?:" + "|".join([PLAYER, "bob", "cy", "dee", "dora", "mallory", r"bot\d*"]) + r")\b"
    r"|\b(?:Pot)?(?:Tuppen|tuppen|Toepen|toepen)\b|\bBelote\b|\bdealerless\b"
)
OPTIONS = sorted({o.name for g in game_names() for o in game_spec(g).options}, key=len)
OPTION_NAMES = re.compile(r"\((?:" + "|".join(map(re.escape, OPTIONS[::-1])) + r")\)")
NOT_WORDS = re.compile(r"`[^`]*`|dealerless \w+ ?[\w-]*|--[\w-]+(?:=\S*)?")


def words_left(text: str) -> str:
    """``text`` without what is the same in every language."""
    text = NOT_WORDS.sub(" ", text)
    text = OPTION_NAMES.sub(" ", text)
    text = NAMES.sub(" ", text)
    return text.replace(PROBLEM, " ")


def english_words(text: str, lang: str) -> list[str]:
    looked_for = ENGLISH - NATIVE[lang]
    # a compound ("time-out", "Tupp-Versuch") is one word
    tokens = re.findall(r"[^\W\d_]+(?:[-'\u2019][^\W\d_]+)*", words_left(text))
    return [w for w in tokens if w.lower() in looked_for]


def _passed_on(said: Notice) -> bool:
    return said.code in PASSED_ON


def _checked(lang: str) -> Iterator[Drawn]:
    """The screens, without the node messages that pass on another's words."""
    passed = {
        node_notice(m, lang) for samples in SAMPLES.values() for m in samples if _passed_on(m)
    }
    for where, text in screen_texts(lang):
        if text not in passed:
            yield where, text


def test_the_word_check_catches_english_and_spares_the_languages() -> None:
    assert english_words("Tuppen (classic, penalty points)  Runde 3", "de") == [
        "classic",
        "penalty",
        "points",
    ]
    assert english_words("Punkte ändern sich um player +2, bot1 +2.", "de") == ["player"]
    assert english_words("Stärke der Bots: strong", "de") == ["strong"]
    assert not english_words("nach dieser Hand aufstehen; was nun?", "de")
    assert not english_words("Ronde 1 is voorbij of niet; Scores veranderen met ann +2", "nl")
    assert not english_words("À la table : les scores changent", "fr")
    assert english_words("atout: ♠  taker: ann", "fr") == ["taker"]
    assert not english_words("Armut: ja   (poverty)  `dealerless rules tuppen`", "de")
    assert not english_words("Pot Limit Tuppen, Pottuppen, Belote: dora, bot3", "nl")


def test_a_default_name_is_shown_in_the_screens_language() -> None:
    # what the programs call a player who chose no name is a word, not a name
    assert [person_name(lang, "player") for lang in ("en", "de", "nl", "fr")] == [
        "player",
        "Spieler",
        "speler",
        "joueur",
    ]
    assert person_name("de", "you") == "du"
    assert person_name("de", "Player") == "Player"  # a name someone chose stays as it is


@pytest.mark.parametrize("lang", ["de", "nl", "fr"])
def test_no_screen_shows_english(lang: str) -> None:
    i18n.MISSING.clear()
    found: dict[str, tuple[str, str]] = {}  # the first line of each English word seen
    for where, text in _checked(lang):
        for line in text.splitlines():
            for word in english_words(line, lang):
                found.setdefault(word.lower(), (where, line.strip()))
    assert not found, "\n".join(f"{w!r} in {where}: {line}" for w, (where, line) in found.items())
    assert not i18n.MISSING, sorted(i18n.MISSING)


# A key as the help and the key hints name it: one letter or sign standing alone.
KEY = re.compile(r"(?<![\w'\u2019-])([a-z?+-])(?![\w'\u2019-])")
KEY_TEXTS = ("keys.hint", "history.keys", "rules.hint", "lobby.keys", "replay.keys")


def _help_keys(lang: str) -> list[list[str]]:
    """Each line of the help: the keys in its first column (a line without one: [])."""
    lines = i18n.CATALOGS[lang]["help.text"].splitlines()
    return [KEY.findall(line[:12]) for line in lines]


@pytest.mark.parametrize("lang", ["de", "nl", "fr"])
def test_every_help_lists_the_keys_of_the_english_one(lang: str) -> None:
    assert _help_keys(lang) == _help_keys("en")
    english = i18n.CATALOGS["en"]["help.text"].splitlines()
    assert len(i18n.CATALOGS[lang]["help.text"].splitlines()) == len(english)
    for key in KEY_TEXTS:
        assert KEY.findall(i18n.CATALOGS[lang][key]) == KEY.findall(i18n.CATALOGS["en"][key]), key


# French puts a (no-break) space before : ; ? ! (texts_fr.py writes it), so a sign right after
# a word on a French screen is a label put together outside the tables.
GLUED_SIGN = re.compile(r"[^\s\u00a0\u202f][:;?!](?=\s|$)")


def test_french_screens_put_a_space_before_the_double_signs() -> None:
    glued: dict[str, str] = {}  # line: where it was first drawn
    for where, text in _checked("fr"):
        for line in text.splitlines():
            if GLUED_SIGN.search(words_left(line)):
                glued.setdefault(line.strip(), where)
    assert not glued, "\n".join(f"{where}: {line}" for line, where in list(glued.items())[:40])


def test_every_kind_of_refused_invite_code_has_its_own_words() -> None:
    """Each code of BAD_CODES is refused for a reason invite_text knows (not the catch-all),
    so a changed InviteError text in node/ shows here; the catch-all covers the rest."""
    generic = i18n.tr("de", "invite.invalid")
    for code in BAD_CODES:
        problem = invite_problem(code)
        assert problem is not None, code
        assert invite_text(problem, "de") != generic, problem
    assert invite_text("the invite code holds bad options", "de") == generic
