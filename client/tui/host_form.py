"""The start screen's "host a table" form (issue 25, item 1): the game, how many seats, how many
of them bots fill, the time per move, the ways in (Nostr relays and this network, or this
network only) and the game's house rules; each row changes with Left/Right. It starts from the
last choice (the settings' ``[host]``), and what it returns is what ``dealerless host`` runs.

Model and presenter in one small class with no terminal: :meth:`rows` are the lines the view
draws, :meth:`change` is what a key does; tests drive it directly.
"""

from __future__ import annotations

from dealerless.client.tui.i18n import tr
from dealerless.client.tui.rules_book import option_name, value_text
from dealerless.client.tui.settings import Settings
from dealerless.client.tui.wording import game_title
from dealerless.protocol.rules.base import OptionSpec, OptionValue
from dealerless.protocol.rules.registry import game_names, game_spec

TIME_STEP_S = 10
TIME_RANGE_S = (10, 3600)


def step_option(spec: OptionSpec, value: OptionValue, step: int) -> OptionValue:
    """A house rule's next value (Left/Right): a flag flips, a number moves within its range,
    a choice cycles."""
    if isinstance(spec.default, bool):
        return not value
    if isinstance(spec.default, int) and isinstance(value, int):
        new = value + step
        if spec.minimum is not None:
            new = max(spec.minimum, new)
        if spec.maximum is not None:
            new = min(spec.maximum, new)
        return new
    if spec.choices and isinstance(value, str):
        index = spec.choices.index(value) if value in spec.choices else 0
        return spec.choices[(index + step) % len(spec.choices)]
    return value


def rule_rows(
    lang: str, game: str, rules: dict[str, dict[str, OptionValue]]
) -> list[tuple[str, str]]:
    """One ("rule:NAME", text) line per house rule of ``game``, with its value in ``rules``
    (the settings' per game) or its default."""
    options = rules.get(game, {})
    rows = []
    for o in game_spec(game).options:
        value = options.get(o.name, o.default)
        text = tr(lang, "settings.rule", name=option_name(lang, o), value=value_text(lang, value))
        rows.append((f"rule:{o.name}", text))
    return rows


def step_rule(rules: dict[str, dict[str, OptionValue]], game: str, name: str, step: int) -> None:
    """Left/Right on a house-rule line: its next value, kept in ``rules`` for ``game``."""
    option = game_spec(game).option_spec(name)
    options = rules.setdefault(game, {})
    options[option.name] = step_option(option, options.get(option.name, option.default), step)


class HostForm:
    def __init__(self, settings: Settings, *, lan_only: bool) -> None:
        self.settings = settings
        settings.host_lan_only = lan_only  # the menu entry chosen says which ways
        self._fit()

    # ------------------------------------------------------------------ what is chosen
    @property
    def game(self) -> str:
        return self.settings.host_game

    @property
    def seats(self) -> int:
        return self.settings.host_seats

    @property
    def bots(self) -> int:
        return self.settings.host_bots

    @property
    def people(self) -> int:
        """The seats left for the people we invite (ours and the bots' are taken)."""
        return self.seats - 1 - self.bots

    def _fit(self) -> None:
        """Seats within the game's range, bots within the other seats (a game change or an
        old settings file may leave them outside)."""
        s = self.settings
        if s.host_game not in game_names():
            s.host_game = "limit-tuppen"
        spec = game_spec(s.host_game)
        s.host_seats = max(spec.min_players, min(spec.max_players, s.host_seats))
        s.host_bots = max(0, min(s.host_seats - 1, s.host_bots))

    # ------------------------------------------------------------------ the view's lines
    def rows(self, lang: str) -> list[tuple[str, str]]:
        """(key, text) of each line, in the order Up/Down moves through them."""
        s = self.settings
        ways = "host.ways_lan" if s.host_lan_only else "host.ways_internet"
        rows = [
            ("game", tr(lang, "host.game", game=game_title(lang, s.host_game))),
            ("seats", tr(lang, "host.seats", n=s.host_seats)),
            ("bots", tr(lang, "host.bots", n=s.host_bots, people=self.people)),
            ("time", tr(lang, "settings.timeout", value=s.timeout_s)),
            ("ways", tr(lang, ways)),
        ]
        return rows + rule_rows(lang, s.host_game, s.rules)

    def summary(self, lang: str) -> str:
        """What Enter will do, in one line."""
        if self.people == 0:
            return tr(lang, "host.only_bots")
        return tr(lang, "host.invite_people", n=self.people)

    # ------------------------------------------------------------------ keys
    def change(self, key: str, step: int) -> None:
        s = self.settings
        if key == "game":
            names = game_names()
            index = names.index(s.host_game) if s.host_game in names else 0
            s.host_game = names[(index + step) % len(names)]
        elif key == "seats":
            s.host_seats += step
        elif key == "bots":
            s.host_bots += step
        elif key == "time":
            low, high = TIME_RANGE_S
            s.timeout_s = max(low, min(high, s.timeout_s + TIME_STEP_S * step))
        elif key == "ways":
            s.host_lan_only = not s.host_lan_only
        elif key.startswith("rule:"):
            step_rule(s.rules, s.host_game, key[5:], step)
        self._fit()
