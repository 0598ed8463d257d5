"""The join handshake of a seat's node: a joiner proves it holds the invite's token (an HMAC
bound to its key, the table and the host, never the token itself), the host keeps the lobby
(who is at the table with their fingerprints, told to every joiner and to its own driver),
admits exactly those keys at the hub, and when the last seat is taken signs the table
configuration. A joiner checks that configuration against the invite before its machine signs
anything. Every message here is signed by its author (node/wire.py ``seal``). A mixin of
:class:`~dealerless.node.seat.SeatNode`; see spec/node.md §3."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import trio

from dealerless.node.arrival import Arrival, Offer
from dealerless.node.drivers import Driver, LobbyView
from dealerless.node.identity import Identity, PeerId, format_fingerprint
from dealerless.node.invite import Invite
from dealerless.node.options import NodeOptions
from dealerless.node.store import TableMeta, TableStore
from dealerless.protocol.rules.base import ConfigError, Engine, GameConfig
from dealerless.protocol.rules.registry import new_engine
from dealerless.protocol.table import SeatInfo, TableConfig, TableMachine
from dealerless.protocol.table.carry import ledger_of
from dealerless.protocol.table.joining import JoinError, join_table

CONFIG_LABEL = b"dealerless/node/config"
REFUSALS_KEPT = 256  # strangers we remember refusing (so a flood of hellos costs one answer)
REFUSE_EVERY = 5.0  # seconds between two refusals to the same key
HOST_AWAY = 3.0  # seconds without the invite's host before a joiner asks the other seats
UNANSWERED_SLOW = 30.0  # seconds unanswered before a joiner says hello every quiet_every only
HELLO_TARGETS = 8  # other keys a joiner says hello to at most
NAME_CHARS = 40  # of a player's name, at the table


def config_signature_ok(config: TableConfig, signature: bytes, host_key: bytes) -> bool:
    return PeerId(host_key).verify(signature, CONFIG_LABEL + config.digest())


def config_problem(config: TableConfig, invite: Invite, host_key: bytes, floor_ms: int) -> str:
    """Why a joiner must not sign ``config`` (empty if it matches the invite)."""
    if config.table_id != invite.table_id:
        return "it is for another table"
    later = config.carry is not None  # a newcomer at a running table (seats changed before)
    if config.seats[0].key != host_key and not later:
        return "seat 0 is not the invite's host"
    try:
        agreed = invite.game_config()
    except ConfigError as exc:
        return f"the invite's game is not valid here ({exc})"
    if config.game.game != agreed.game or (config.players != agreed.players and not later):
        return (
            f"it is {config.game.game} for {config.players} seats, the invite says "
            f"{agreed.game} for {agreed.players}"
        )
    if dict(config.game.options) != dict(agreed.options):
        changed = sorted(
            k for k in {*config.game.options, *agreed.options}
            if config.game.options.get(k) != agreed.options.get(k)
        )  # fmt: skip
        return f"its house rules differ from the invite's ({', '.join(changed)})"
    if config.step_timeout_ms != invite.step_timeout_ms:
        return (
            f"its step timeout is {config.step_timeout_ms} ms, the invite says "
            f"{invite.step_timeout_ms} ms"
        )
    if config.step_timeout_ms < floor_ms:
        return f"its step timeout {config.step_timeout_ms} ms is below our floor of {floor_ms} ms"
    return ""


def default_buy_in(engine: Engine, options: Mapping[str, object]) -> int:
    """A newcomer's buy-in when it names none: the table's maximum, else its starting chips
    (the first the rules allow), else 0. The host and the newcomer compute the same."""
    for name in ("max_buy_in", "starting_chips"):
        value = options.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            try:
                engine.newcomer_ledger(value)
                return value
            except ConfigError:
                continue
    return 0


def newcomer_problem(config: TableConfig, key: bytes, buy_in: int | None) -> str:
    """Why a newcomer at a running table must not sign ``config`` (empty if its own ledger
    is exactly its buy-in): nobody may seat us with other chips than we brought."""
    carry, seat = config.carry, config.seat_of(key)
    if carry is None or seat is None:
        return ""
    engine = new_engine(config.game)
    if buy_in is None:
        buy_in = default_buy_in(engine, config.game.options)
    try:
        expected = ledger_of(engine.newcomer_ledger(buy_in))
    except ConfigError as exc:
        return f"our buy-in of {buy_in} is not allowed here ({exc})"
    ours = carry.ledgers[seat]  # one per seat: TableConfig checks it
    if ours != expected:
        return (
            f"carry.ledgers[{seat}] (our own) is {dict(ours)}, but a buy-in of {buy_in} "
            f"gives {dict(expected)}"
        )
    return ""


class JoinHandshake:
    # State and helpers of the seat node.
    identity: Identity
    store: TableStore
    meta: TableMeta
    invite: Invite
    opt: NodeOptions
    driver: Driver | None
    game: GameConfig | None
    key: bytes
    host_key: bytes
    config: TableConfig | None
    config_sig: bytes
    lobby: list[tuple[bytes, str]]
    nonce: bytes
    arrival: Arrival
    nursery: trio.Nursery | None
    last_hello: float
    refusals: dict[bytes, float]
    exit_code: int
    done: bool
    say: Callable[[str], None]
    # Of the seat-change mixin (annotations only, so the real methods are found at run time).
    segment_config: Callable[[bytes], tuple[TableConfig, bytes] | None]
    hello_targets: set[bytes]
    machine: TableMachine | None
    waiting: dict[bytes, tuple[str, int]]
    away_keys: Callable[[], frozenset[bytes]]
    first_hello: float | None
    last_answer: float | None
    is_host: bool
    peers_up: set[bytes]
    newcomer_hello: Callable[[bytes, str, dict[str, Any]], None]
    _who: Callable[[bytes], str]  # of the seat messages mixin, which comes after us
    send_chain_tail: Callable[[bytes, int], None]  # of the catch-up mixin

    def now(self) -> float:
        raise NotImplementedError

    def queue(self, payload: dict[str, Any], to: bytes | None = None) -> None:
        raise NotImplementedError

    def queue_signed(self, payload: dict[str, Any], to: bytes | None = None) -> None:
        raise NotImplementedError

    def queue_hub(self, message: dict[str, Any]) -> None:
        raise NotImplementedError

    def _start(self, extension: list[bytes]) -> None:
        raise NotImplementedError

    def _sit_down(self, offer: Offer, machine: TableMachine) -> None:
        raise NotImplementedError

    def _stop(self, reason: str) -> None:
        raise NotImplementedError

    # ---------------------------------------------------------------- joiner
    def _hello(self) -> None:
        self.last_hello = self.now()
        for target in self._hello_to():
            proof = self.invite.proof(self.key, target)  # bound to the key it is for
            # The host keeps 40 characters of a name; a longer one would only make the hello
            # too big for a lobby message (at most 4,096 bytes at a hub).
            name = self.meta.name[:NAME_CHARS]
            hello: dict[str, Any] = {"t": "hello", "name": name, "proof": proof}
            if self.opt.buy_in is not None:
                hello["buy_in"] = self.opt.buy_in
            self.queue_signed(hello, to=target)

    def _unanswered(self) -> bool:
        """Joiner: nobody who may seat us (the invite's host, or the seat hosting the table
        now) has answered for ``first_join_wait``: the table is over or its host gone."""
        if self.first_hello is None:
            return False
        since = self.last_answer if self.last_answer is not None else self.first_hello
        return self.now() - since >= self.opt.first_join_wait

    def _hello_to(self) -> list[bytes]:
        """The invite's host; when it has not seated us within a few seconds, also the other
        keys at the table (bounded): after seat changes another seat may host the running
        table (a seat that does not host ignores a hello)."""
        if self.first_hello is None:
            self.first_hello = self.now()
        targets = [self.host_key]
        if self.now() - self.first_hello >= HOST_AWAY:
            targets += sorted(k for k in self.peers_up if k != self.key)[:HELLO_TARGETS]
        self.hello_targets.update(targets[1:])
        return targets

    def _on_lobby(self, payload: dict[str, Any], sender: bytes) -> None:
        """Joiner: the host's list of who is at the table."""
        self.last_answer = self.now()
        names, keys, need = payload.get("names"), payload.get("keys"), payload.get("need")
        if (
            not isinstance(names, list)
            or not isinstance(keys, list)
            or len(keys) != len(names)
            or not isinstance(need, int)
            or isinstance(need, bool)
        ):
            self.say("refused a lobby message from the host: names, keys or need missing")
            return
        shown = names[: self.meta.seats]
        prints = tuple(
            format_fingerprint(k) if isinstance(k, bytes) and len(k) == 32 else "?"
            for k in keys[: len(shown)]
        )
        view = LobbyView(tuple(str(n)[:40] for n in shown), max(0, need), prints)
        listed = ", ".join(f"{n} [{p}]" for n, p in zip(view.names, prints, strict=True))
        self.say(f"at the table: {listed}; waiting for {view.need} more player(s)")
        self._lobby_hook(view)
        if need == 0 and self.arrival.wait_at(sender, self.now()):
            # A running table that seats us after this hand: fetch its chain meanwhile.
            self._ask_records(sender, 0)

    def _on_refused(self, payload: dict[str, Any]) -> None:
        reason = str(payload.get("reason", ""))[:200]
        self._stop(f"the host refused us: {reason}")

    def _on_closed(self, payload: dict[str, Any]) -> None:
        """The invite's host signed that its table's game is over: nobody will seat us."""
        hands = payload.get("hands")
        played = f" after {hands} hands" if isinstance(hands, int) and hands >= 0 else ""
        self._stop(f"this table is finished: its game ended{played}")

    def _on_config(self, payload: dict[str, Any], sender: bytes) -> None:
        if self.config is not None:
            return
        try:
            config = TableConfig.from_wire(payload.get("config"))
            signature = payload.get("sig", b"")
            if not isinstance(signature, bytes):
                raise TypeError("the signature is not bytes")
        except (ValueError, TypeError) as exc:
            self.say(f"refused the table configuration: {exc}")
            return
        if sender != self.host_key and (config.carry is None or config.seats[0].key != sender):
            # Only a later segment may come from another seat than the invite's host: from
            # the seat that hosts it (its seat 0), which signed it.
            self.say("refused a table configuration from a seat that does not host it")
            return
        if not config_signature_ok(config, signature, sender):
            self.say("refused a table configuration with a bad host signature")
            return
        problem = config_problem(config, self.invite, self.host_key, self.opt.min_step_timeout_ms)
        if problem:
            # The host itself signed terms we did not agree to: we sign nothing and stop.
            self._stop(f"refused the host's table configuration: {problem}")
            return
        if config.seat_of(self.key) is None:
            self.say("the table configuration has no seat for us")
            return
        problem = newcomer_problem(config, self.key, self.opt.buy_in)
        if problem:
            self._stop(f"refused the table configuration: {problem}")
            return
        if config.carry is not None:
            self._offered(config, signature, sender, payload)
            return
        self.store.save_config(config, signature)
        self.config, self.config_sig = config, signature
        self._start([])

    # ---------------------------------------------------------------- newcomer
    def _offered(
        self, config: TableConfig, signature: bytes, sender: bytes, payload: dict[str, Any]
    ) -> None:
        """A seat at a running table: take nothing of its carry on trust, fetch the table's
        chain from its first configuration (which the invite's host signed) and check it."""
        try:
            first = TableConfig.from_wire(payload.get("first"))
            first_sig = payload.get("first_sig", b"")
            if not isinstance(first_sig, bytes):
                raise TypeError("first_sig is not bytes")
        except (ValueError, TypeError) as exc:
            self.say(f"no readable first configuration in a running table's offer ({exc}); refused")
            return
        if not config_signature_ok(first, first_sig, self.host_key):
            self.say(
                "a running table's first configuration not signed by the invite's host; refused"
            )
            return
        problem = config_problem(first, self.invite, self.host_key, self.opt.min_step_timeout_ms)
        if first.carry is not None or problem:
            why = problem or "it has a carry"
            self.say(f"a running table's first configuration is wrong ({why}); refused")
            return
        now = self.now()
        offer = Offer(sender, config, signature, first, first_sig, heard=now)
        why = self.arrival.take(offer)
        if why:
            if sender not in self.arrival.refused and sender not in self.arrival.offers:
                self.say(f"ignored the offer of {self._who(sender)}: {why}")
            return
        self.last_answer = now
        carry = config.carry
        assert carry is not None
        self.say(
            f"{self._who(sender)} offers us a seat at the running table (after hand "
            f"{carry.hands}); checking its chain from the start ({offer.wanted} records)"
        )
        self._ask_chain(offer)

    def _ask_chain(self, offer: Offer) -> None:
        offer.asked = self.now()
        self._ask_records(offer.sender, len(offer.records))

    def _ask_records(self, to: bytes, n: int) -> None:
        # Our nonce says we wait for these records (nothing of them is on its way to us), so
        # the seat serves them at once rather than after its serve grace.
        self.queue_signed({"t": "have", "n": n, "ask": True, "nonce": self.nonce}, to=to)

    def chain_records(self, sender: bytes, start: int, frames: list[bytes]) -> None:
        """Records of the table's chain from a seat whose offer we check."""
        now = self.now()
        why = self.arrival.add(sender, start, frames, now)
        if why:
            self.say(f"gave up the offer of {self._who(sender)}: {why}")
            return
        self.last_answer = now
        offer = self.arrival.next_to_check()
        if offer is not None and self.nursery is not None:
            self.nursery.start_soon(self._check_offer, offer)

    def arrival_tick(self, now: float) -> bool:
        """Newcomer: ask again for records that do not come; True while an offer is open."""
        ask, stalled = self.arrival.due(now)
        for offer in ask:
            self._ask_chain(offer)
        for key, n in self.arrival.early_due(now):
            self._ask_records(key, n)
        for offer in stalled:
            self.say(
                f"{self._who(offer.sender)} sent no more of the table's chain "
                f"({len(offer.records)} of {offer.wanted} records); its offer is given up"
            )
        return bool(self.arrival)

    async def _check_offer(self, offer: Offer) -> None:
        """Check a complete chain away from the event loop (it is the audit's work: every
        proof of every hand so far), then sit down, or refuse its sender and say why."""
        key, now = self.identity.wire_key(), self.now()

        def check() -> TableMachine:
            return join_table(offer.first, offer.records, offer.config, key, now=now)

        try:
            machine = await trio.to_thread.run_sync(check)
        except Exception as exc:  # JoinError, or a chain no check foresaw: never a crash
            why = str(exc) if isinstance(exc, JoinError) else f"{type(exc).__name__}: {exc}"
            self.arrival.refuse(offer.sender)
            self.say(f"refused the running table {self._who(offer.sender)} offered: {why}")
            again = self.arrival.next_to_check()
            if again is not None and self.nursery is not None:
                self.nursery.start_soon(self._check_offer, again)
            return
        if self.config is not None or self.done:
            return
        machine.now = self.now()
        self.say(
            f"checked the table's chain from its start: {len(offer.records)} records in "
            f"{self.now() - now:.1f} s"
        )
        self._sit_down(offer, machine)

    # ---------------------------------------------------------------- host
    def _admit(self) -> None:
        """Host: tell the hub which keys may hear the table (the lobby, then the seats; after
        seat changes also every seat of the running segment and the newcomers waiting)."""
        if self.config is not None:
            keys = [s.key for s in self.config.seats]
            if self.machine is not None:
                keys += [s.key for s in self.machine.config.seats if s.key not in keys]
            keys += [k for k in self.waiting if k not in keys]
            keys += [k for k in self.away_keys() if k not in keys]  # they follow the table
        else:
            keys = [self.key, *(k for k, _ in self.lobby)]
        self.queue_hub({"t": "admit", "keys": keys})

    def _send_lobby(self, to: bytes | None = None) -> None:
        names = [self.meta.name] + [n for _, n in self.lobby]
        keys = [self.key] + [k for k, _ in self.lobby]
        payload = {"t": "lobby", "names": names, "keys": keys, "need": self.meta.seats - len(names)}
        self.queue_signed(payload, to)

    def _lobby_changed(self) -> None:
        """Host: tell our own driver who is at the table now."""
        names = (self.meta.name, *(n for _, n in self.lobby))
        prints = tuple(format_fingerprint(k) for k in (self.key, *(k for k, _ in self.lobby)))
        self._lobby_hook(LobbyView(names, max(0, self.meta.seats - len(names)), prints))

    def _lobby_hook(self, view: LobbyView) -> None:
        hook = getattr(self.driver, "on_lobby", None)
        if hook is not None:
            hook(view)

    def proof_ok(self, sender: bytes, payload: dict[str, Any]) -> bool:
        """Host, before any signature work: does this hello carry a valid token proof?"""
        return self.invite.proof_ok(payload.get("proof"), sender, self.key)

    def refuse(self, sender: bytes, reason: str) -> None:
        now = self.now()
        if now - self.refusals.get(sender, -1e9) < REFUSE_EVERY:
            return
        if len(self.refusals) >= REFUSALS_KEPT:
            self.refusals.pop(next(iter(self.refusals)))
        self.refusals[sender] = now
        self.queue_signed({"t": "refused", "reason": reason}, to=sender)

    def _on_hello(self, sender: bytes, payload: dict[str, Any]) -> None:
        """Host: a hello whose proof and signature were checked."""
        name = str(payload.get("name", ""))[:NAME_CHARS] or "player"
        if self.config is not None:
            later = self.segment_config(sender)
            if later is not None:  # a newcomer seated at a seat change
                if self.is_host:
                    self._admit()
                self.queue_signed(self.offer_payload(*later), to=sender)
                carry = later[0].carry
                assert carry is not None
                self.send_chain_tail(sender, carry.records)
            elif self.config.seat_of(sender) is None:
                self.newcomer_hello(sender, name, payload)
            else:
                if self.is_host:
                    self._admit()
                self._send_config(sender)
            return
        if sender == self.key:
            return
        if all(k != sender for k, _ in self.lobby):
            if len(self.lobby) + 1 >= self.meta.seats:
                self.refuse(sender, "the table is full")
                return
            self.lobby.append((sender, name))
            self.say(
                f"{name!r} [{format_fingerprint(sender)}] joined "
                f"({len(self.lobby) + 1}/{self.meta.seats})"
            )
            self._lobby_changed()
        self._admit()
        if len(self.lobby) + 1 < self.meta.seats:
            self._send_lobby()
            return
        assert self.game is not None
        seats = (SeatInfo(self.meta.name, self.key), *(SeatInfo(n, k) for k, n in self.lobby))
        config = TableConfig(self.store.table_id, self.game, seats, self.meta.step_timeout_ms)
        signature = self.identity.sign(CONFIG_LABEL + config.digest())
        self.store.save_config(config, signature)
        self.config, self.config_sig = config, signature
        self._admit()
        self._send_config(None)
        self._start([])

    def offer_payload(self, config: TableConfig, sig: bytes) -> dict[str, Any]:
        """A later segment's configuration for a newcomer, with the table's first (which the
        newcomer checks the whole chain from)."""
        assert self.config is not None and self.config.carry is None
        return {
            "t": "config",
            "config": config.to_wire(),
            "sig": sig,
            "first": self.config.to_wire(),
            "first_sig": self.config_sig,
        }

    def _send_config(self, to: bytes | None) -> None:
        assert self.config is not None
        payload = {"t": "config", "config": self.config.to_wire(), "sig": self.config_sig}
        self.queue_signed(payload, to)
