"""The join handshake of a seat's node: a joiner says hello, the host keeps the lobby (who is
at the table, told to every joiner and to its own driver) and, when the last seat is taken,
signs the table configuration and sends it to everyone. A mixin of
:class:`~dealerless.node.seat.SeatNode`; see spec/node.md §2."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dealerless.node.drivers import Driver, LobbyView
from dealerless.node.identity import Identity, PeerId
from dealerless.node.store import TableMeta, TableStore
from dealerless.protocol.rules.base import GameConfig
from dealerless.protocol.table import SeatInfo, TableConfig

CONFIG_LABEL = b"dealerless/node/config"


def config_signature_ok(config: TableConfig, signature: bytes, host_key: bytes) -> bool:
    return PeerId(host_key).verify(signature, CONFIG_LABEL + config.digest())


class JoinHandshake:
    # State and helpers of the seat node.
    identity: Identity
    store: TableStore
    meta: TableMeta
    driver: Driver | None
    game: GameConfig | None
    key: bytes
    host_key: bytes
    config: TableConfig | None
    config_sig: bytes
    lobby: list[tuple[bytes, str]]
    last_hello: float
    say: Callable[[str], None]

    def now(self) -> float:
        raise NotImplementedError

    def queue(self, payload: dict[str, Any], to: bytes | None = None) -> None:
        raise NotImplementedError

    def _start(self, extension: list[bytes]) -> None:
        raise NotImplementedError

    def _hello(self) -> None:
        self.last_hello = self.now()
        self.queue({"t": "hello", "name": self.meta.name}, to=self.host_key)

    def _send_lobby(self, to: bytes | None = None) -> None:
        names = [self.meta.name] + [n for _, n in self.lobby]
        self.queue({"t": "lobby", "names": names, "need": self.meta.seats - len(names)}, to)

    def _lobby_changed(self) -> None:
        """Host: tell our own driver who is at the table now."""
        names = (self.meta.name, *(n for _, n in self.lobby))
        self._lobby_hook(LobbyView(names, max(0, self.meta.seats - len(names))))

    def _on_lobby(self, payload: dict[str, Any]) -> None:
        """Joiner: the host's list of who is at the table."""
        names = payload.get("names")
        need = payload.get("need")
        if not isinstance(names, list) or not isinstance(need, int) or isinstance(need, bool):
            self.say("refused a lobby message from the host: names or need missing")
            return
        view = LobbyView(tuple(str(n)[:40] for n in names[: self.meta.seats]), max(0, need))
        self.say(f"at the table: {', '.join(view.names)}; waiting for {view.need} more player(s)")
        self._lobby_hook(view)

    def _lobby_hook(self, view: LobbyView) -> None:
        hook = getattr(self.driver, "on_lobby", None)
        if hook is not None:
            hook(view)

    def _on_hello(self, sender: bytes, payload: dict[str, Any]) -> None:
        name = str(payload.get("name", ""))[:40] or "player"
        if self.config is not None:
            if self.config.seat_of(sender) is None:
                self.queue({"t": "refused", "reason": "the table is full"}, to=sender)
            else:
                self._send_config(sender)
            return
        if sender == self.key:
            return
        if all(k != sender for k, _ in self.lobby):
            if len(self.lobby) + 1 >= self.meta.seats:
                self.queue({"t": "refused", "reason": "the table is full"}, to=sender)
                return
            self.lobby.append((sender, name))
            self.say(f"{name!r} joined ({len(self.lobby) + 1}/{self.meta.seats})")
            self._lobby_changed()
        if len(self.lobby) + 1 < self.meta.seats:
            self._send_lobby()
            return
        assert self.game is not None
        seats = (SeatInfo(self.meta.name, self.key), *(SeatInfo(n, k) for k, n in self.lobby))
        config = TableConfig(self.store.table_id, self.game, seats, self.meta.step_timeout_ms)
        signature = self.identity.sign(CONFIG_LABEL + config.digest())
        self.store.save_config(config, signature)
        self.config, self.config_sig = config, signature
        self._send_config(None)
        self._start([])

    def _send_config(self, to: bytes | None) -> None:
        assert self.config is not None
        self.queue({"t": "config", "config": self.config.to_wire(), "sig": self.config_sig}, to)

    def _on_config(self, payload: dict[str, Any]) -> None:
        if self.config is not None:
            return
        try:
            config = TableConfig.from_wire(payload.get("config"))
            signature = bytes(payload.get("sig", b""))
        except (ValueError, TypeError) as exc:
            self.say(f"refused the table configuration: {exc}")
            return
        if config.table_id != self.store.table_id or config.seats[0].key != self.host_key:
            self.say("refused a table configuration for another table or host")
            return
        if not config_signature_ok(config, signature, self.host_key):
            self.say("refused a table configuration with a bad host signature")
            return
        if config.seat_of(self.key) is None:
            self.say("the table configuration has no seat for us")
            return
        self.store.save_config(config, signature)
        self.config, self.config_sig = config, signature
        self._start([])
