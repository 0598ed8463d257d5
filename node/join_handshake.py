"""The join handshake of a seat's node: a joiner proves it holds the invite's token (an HMAC
bound to its key, the table and the host, never the token itself), the host keeps the lobby
(who is at the table with their fingerprints, told to every joiner and to its own driver),
admits exactly those keys at the hub, and when the last seat is taken signs the table
configuration. A joiner checks that configuration against the invite before its machine signs
anything. Every message here is signed by its author (node/wire.py ``seal``). A part of
:class:`~dealerless.node.seat.SeatNode`; see spec/node.md §3."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

import trio

from dealerless.node.arrival import Arrival, Offer
from dealerless.node.catch_up import CatchUp
from dealerless.node.drivers import Driver, LobbyView
from dealerless.node.identity import Identity, PeerId, format_fingerprint
from dealerless.node.invite import Invite
from dealerless.node.notices import Notice, Who, notice
from dealerless.node.options import NodeOptions
from dealerless.node.store import TableMeta
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


def hello_name(payload: dict[str, Any]) -> str:
    """The name a hello gives (as the table keeps it)."""
    return str(payload.get("name", ""))[:NAME_CHARS] or "player"


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


class HandshakeNode(Protocol):
    """What the join handshake uses of its node."""

    say: Callable[[Notice], None]

    @property
    def host_key(self) -> bytes: ...

    @property
    def config(self) -> TableConfig | None: ...

    @property
    def config_sig(self) -> bytes: ...

    @property
    def done(self) -> bool: ...

    @property
    def nursery(self) -> trio.Nursery | None: ...

    def now(self) -> float: ...

    def queue_signed(self, payload: dict[str, Any], to: bytes | None = None) -> None: ...

    def admit(self) -> None: ...

    def who(self, key: bytes) -> Who: ...

    def give_up(self, reason: Notice) -> None: ...

    def adopt_config(self, config: TableConfig, signature: bytes) -> None: ...

    def start(self, extension: list[bytes]) -> None: ...

    def sit_down(self, offer: Offer, machine: TableMachine) -> None: ...


class JoinHandshake:
    """The join handshake of a seat's node: it owns the lobby (host), the refusals, and a
    joiner's hellos, answers and the running tables offered to it (``arrival``)."""

    def __init__(
        self,
        node: HandshakeNode,
        catch_up: CatchUp,
        *,
        identity: Identity,
        meta: TableMeta,
        table_id: bytes,
        opt: NodeOptions,
        driver: Driver | None,
        game: GameConfig | None,
    ) -> None:
        self.node, self.catch_up = node, catch_up
        self.identity, self.key, self.meta, self.table_id = (
            identity, identity.public_key, meta, table_id
        )  # fmt: skip
        self.is_host = meta.role == "host"
        self.invite = Invite.decode(meta.invite)
        self.opt, self.driver, self.game = opt, driver, game
        self.lobby: list[tuple[bytes, str]] = []  # host: who joined, before the table starts
        self.refusals: dict[bytes, float] = {}
        self.arrival = Arrival()  # newcomer: the running tables offered, while we check them
        self.last_hello = -1e9
        self.hello_targets: set[bytes] = set()  # joiner: other keys it said hello to
        self.first_hello: float | None = None
        self.last_answer: float | None = None  # joiner: the last lobby from a host

    def lobby_name(self, key: bytes) -> str | None:
        """The name ``key`` joined our lobby with (None if it did not)."""
        return next((name for k, name in self.lobby if k == key), None)

    # ---------------------------------------------------------------- joiner
    def hello(self, peers_up: set[bytes]) -> None:
        """Joiner: say hello (with our proof of the invite's token) to whoever may seat us."""
        self.last_hello = self.node.now()
        for target in self._hello_to(peers_up):
            proof = self.invite.proof(self.key, target)  # bound to the key it is for
            # The host keeps 40 characters of a name; a longer one would only make the hello
            # too big for a lobby message (at most 4,096 bytes at a hub).
            name = self.meta.name[:NAME_CHARS]
            hello: dict[str, Any] = {"t": "hello", "name": name, "proof": proof}
            if self.opt.buy_in is not None:
                hello["buy_in"] = self.opt.buy_in
            self.node.queue_signed(hello, to=target)

    def tick(self, now: float, admitted: bool, peers_up: set[bytes]) -> None:
        """Joiner with a link and no configuration yet: fetch an offered chain, else say hello
        again when due, or give up when nobody answers."""
        if self.arrival_tick(now):
            return  # fetching a running table's chain: no hello meanwhile
        if self.unanswered():
            self.node.give_up(notice("unanswered", seconds=self.opt.first_join_wait))
        elif self.hello_due(now, admitted):
            self.hello(peers_up)

    def unanswered(self) -> bool:
        """Joiner: nobody who may seat us (the invite's host, or the seat hosting the table
        now) has answered for ``first_join_wait``: the table is over or its host gone."""
        if self.first_hello is None:
            return False
        since = self.last_answer if self.last_answer is not None else self.first_hello
        return self.node.now() - since >= self.opt.first_join_wait

    def _hello_to(self, peers_up: set[bytes]) -> list[bytes]:
        """The invite's host; when it has not seated us within a few seconds, also the other
        keys at the table (bounded): after seat changes another seat may host the running
        table (a seat that does not host ignores a hello)."""
        now = self.node.now()
        if self.first_hello is None:
            self.first_hello = now
        targets = [self.node.host_key]
        if now - self.first_hello >= HOST_AWAY:
            targets += sorted(k for k in peers_up if k != self.key)[:HELLO_TARGETS]
        self.hello_targets.update(targets[1:])
        return targets

    def hello_due(self, now: float, admitted: bool) -> bool:
        """Joiner: is it time for our next hello? Quickly until admitted, and for a few hellos
        more: a table whose seats changed may be hosted by another seat than the invite's,
        which a joiner asks only after a while."""
        started = self.first_hello if self.first_hello is not None else now
        if not admitted and self.last_answer is None and now - started >= UNANSWERED_SLOW:
            # Nobody has answered for a while (a rematch whose host is still reading the
            # scoreboard): every hello is an event on relays that count a writer's events.
            every = self.opt.quiet_every
        elif not admitted or now - started < 4 * HOST_AWAY:
            every = self.opt.hello_every
        else:
            every = self.opt.quiet_every
        return now - self.last_hello >= every

    def config_missed(self, peers_up: set[bytes]) -> None:
        """Joiner: the table runs (a seat announced records or sent a frame) and we have no
        configuration: the host's ``config`` was lost on the way. Ask again now (at most once
        per ``hello_every``) instead of at the admitted joiner's quiet pace, or the seats would
        time us out at the configuration step."""
        if self.is_host or self.node.config is not None or self.arrival:
            return
        if self.node.now() - self.last_hello >= self.opt.hello_every:
            self.hello(peers_up)

    def on_lobby(self, payload: dict[str, Any], sender: bytes) -> None:
        """Joiner: the host's list of who is at the table."""
        self.last_answer = self.node.now()
        names, keys, need = payload.get("names"), payload.get("keys"), payload.get("need")
        if (
            not isinstance(names, list)
            or not isinstance(keys, list)
            or len(keys) != len(names)
            or not isinstance(need, int)
            or isinstance(need, bool)
        ):
            self.node.say(notice("lobby_broken"))
            return
        shown = names[: self.meta.seats]
        prints = tuple(
            format_fingerprint(k) if isinstance(k, bytes) and len(k) == 32 else "?"
            for k in keys[: len(shown)]
        )
        view = LobbyView(tuple(str(n)[:40] for n in shown), max(0, need), prints)
        listed = ", ".join(f"{n} [{p}]" for n, p in zip(view.names, prints, strict=True))
        self.node.say(notice("at_table", listed=listed, need=view.need))
        self._lobby_hook(view)
        if need == 0 and self.arrival.wait_at(sender, self.node.now()):
            # A running table that seats us after this hand: fetch its chain meanwhile.
            self.catch_up.ask_records(sender, 0)

    def on_refused(self, payload: dict[str, Any]) -> None:
        reason = str(payload.get("reason", ""))[:200]
        self.node.give_up(notice("host_refused", reason=reason))

    def on_closed(self, payload: dict[str, Any]) -> None:
        """The invite's host signed that its table's game is over: nobody will seat us."""
        hands = payload.get("hands")
        played = hands if isinstance(hands, int) and not isinstance(hands, bool) else -1
        self.node.give_up(notice("finished", hands=played))

    def on_config(self, payload: dict[str, Any], sender: bytes) -> None:
        if self.node.config is not None:
            return
        try:
            config = TableConfig.from_wire(payload.get("config"))
            signature = payload.get("sig", b"")
            if not isinstance(signature, bytes):
                raise TypeError("the signature is not bytes")
        except (ValueError, TypeError) as exc:
            self.node.say(notice("config_unreadable", reason=str(exc)))
            return
        if sender != self.node.host_key and (config.carry is None or config.seats[0].key != sender):
            # Only a later segment may come from another seat than the invite's host: from
            # the seat that hosts it (its seat 0), which signed it.
            self.node.say(notice("config_not_host"))
            return
        if not config_signature_ok(config, signature, sender):
            self.node.say(notice("config_bad_sig"))
            return
        problem = config_problem(
            config, self.invite, self.node.host_key, self.opt.min_step_timeout_ms
        )
        if problem:
            # The host itself signed terms we did not agree to: we sign nothing and stop.
            self.node.give_up(notice("config_refused", reason=problem))
            return
        if config.seat_of(self.key) is None:
            self.node.say(notice("no_seat"))
            return
        problem = newcomer_problem(config, self.key, self.opt.buy_in)
        if problem:
            self.node.give_up(notice("newcomer_refused", reason=problem))
            return
        if config.carry is not None:
            self._offered(config, signature, sender, payload)
            return
        self.node.adopt_config(config, signature)
        self.node.start([])

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
            self.node.say(notice("offer_unreadable", reason=str(exc)))
            return
        if not config_signature_ok(first, first_sig, self.node.host_key):
            self.node.say(notice("offer_unsigned"))
            return
        problem = config_problem(
            first, self.invite, self.node.host_key, self.opt.min_step_timeout_ms
        )
        if first.carry is not None or problem:
            why = problem or "it has a carry"
            self.node.say(notice("offer_wrong", reason=why))
            return
        now = self.node.now()
        offer = Offer(sender, config, signature, first, first_sig, heard=now)
        why = self.arrival.take(offer)
        if why:
            if sender not in self.arrival.refused and sender not in self.arrival.offers:
                self.node.say(notice("offer_ignored", who=self.node.who(sender), reason=why))
            return
        self.last_answer = now
        carry = config.carry
        assert carry is not None
        self.node.say(
            notice(
                "offer_checking", who=self.node.who(sender), hand=carry.hands, records=offer.wanted
            )
        )
        self._ask_chain(offer)

    def _ask_chain(self, offer: Offer) -> None:
        offer.asked = self.node.now()
        self.catch_up.ask_records(offer.sender, len(offer.records))

    def chain_records(self, sender: bytes, start: int, frames: list[bytes]) -> None:
        """Records of the table's chain from a seat whose offer we check."""
        now = self.node.now()
        why = self.arrival.add(sender, start, frames, now)
        if why:
            self.node.say(notice("offer_too_big", who=self.node.who(sender), reason=why))
            return
        self.last_answer = now
        offer = self.arrival.next_to_check()
        nursery = self.node.nursery
        if offer is not None and nursery is not None:
            nursery.start_soon(self._check_offer, offer)

    def arrival_tick(self, now: float) -> bool:
        """Newcomer: ask again for records that do not come; True while an offer is open."""
        ask, stalled = self.arrival.due(now)
        for offer in ask:
            self._ask_chain(offer)
        for key, n in self.arrival.early_due(now):
            self.catch_up.ask_records(key, n)
        for offer in stalled:
            self.node.say(
                notice(
                    "offer_stalled",
                    who=self.node.who(offer.sender),
                    got=len(offer.records),
                    records=offer.wanted,
                )
            )
        return bool(self.arrival)

    async def _check_offer(self, offer: Offer) -> None:
        """Check a complete chain away from the event loop (it is the audit's work: every
        proof of every hand so far), then sit down, or refuse its sender and say why."""
        key, now = self.identity.wire_key(), self.node.now()

        def check() -> TableMachine:
            return join_table(offer.first, offer.records, offer.config, key, now=now)

        try:
            machine = await trio.to_thread.run_sync(check)
        except Exception as exc:  # JoinError, or a chain no check foresaw: never a crash
            why = str(exc) if isinstance(exc, JoinError) else f"{type(exc).__name__}: {exc}"
            self.arrival.refuse(offer.sender)
            self.node.say(notice("offer_refused", who=self.node.who(offer.sender), reason=why))
            again = self.arrival.next_to_check()
            nursery = self.node.nursery
            if again is not None and nursery is not None:
                nursery.start_soon(self._check_offer, again)
            return
        if self.node.config is not None or self.node.done:
            return
        machine.now = self.node.now()
        self.node.say(
            notice("chain_checked", records=len(offer.records), seconds=self.node.now() - now)
        )
        self.arrival = Arrival()  # done with the offers: we sit down
        self.node.sit_down(offer, machine)

    # ---------------------------------------------------------------- host
    def send_lobby(self, to: bytes | None = None) -> None:
        names = [self.meta.name] + [n for _, n in self.lobby]
        keys = [self.key] + [k for k, _ in self.lobby]
        payload = {"t": "lobby", "names": names, "keys": keys, "need": self.meta.seats - len(names)}
        self.node.queue_signed(payload, to)

    def lobby_changed(self) -> None:
        """Host: tell our own driver who is at the table now."""
        names = (self.meta.name, *(n for _, n in self.lobby))
        prints = tuple(format_fingerprint(k) for k in (self.key, *(k for k, _ in self.lobby)))
        self._lobby_hook(LobbyView(names, max(0, self.meta.seats - len(names)), prints))

    def _lobby_hook(self, view: LobbyView) -> None:
        hook = getattr(self.driver, "on_lobby", None)
        if hook is not None:
            hook(view)

    def left(self, key: bytes) -> None:
        """Host, before the table starts: ``key`` lost its link, it leaves the lobby."""
        self.lobby = [(k, n) for k, n in self.lobby if k != key]
        self.node.admit()
        self.send_lobby()
        self.lobby_changed()

    def proof_ok(self, sender: bytes, payload: dict[str, Any]) -> bool:
        """Host, before any signature work: does this hello carry a valid token proof?"""
        return self.invite.proof_ok(payload.get("proof"), sender, self.key)

    def refuse(self, sender: bytes, reason: str) -> None:
        now = self.node.now()
        if now - self.refusals.get(sender, -1e9) < REFUSE_EVERY:
            return
        if len(self.refusals) >= REFUSALS_KEPT:
            self.refusals.pop(next(iter(self.refusals)))
        self.refusals[sender] = now
        self.node.queue_signed({"t": "refused", "reason": reason}, to=sender)

    def on_hello(self, sender: bytes, payload: dict[str, Any]) -> None:
        """Host, before the table starts: a hello whose proof and signature were checked (a
        hello at a running table is the seat-change part's)."""
        name = hello_name(payload)
        if sender == self.key:
            return
        if all(k != sender for k, _ in self.lobby):
            if len(self.lobby) + 1 >= self.meta.seats:
                self.refuse(sender, "the table is full")
                return
            self.lobby.append((sender, name))
            self.node.say(
                notice(
                    "joined",
                    who=Who(name=name),
                    fingerprint=format_fingerprint(sender),
                    count=len(self.lobby) + 1,
                    seats=self.meta.seats,
                )
            )
            self.lobby_changed()
        self.node.admit()
        if len(self.lobby) + 1 < self.meta.seats:
            self.send_lobby()
            return
        assert self.game is not None
        seats = (SeatInfo(self.meta.name, self.key), *(SeatInfo(n, k) for k, n in self.lobby))
        config = TableConfig(self.table_id, self.game, seats, self.meta.step_timeout_ms)
        signature = self.identity.sign(CONFIG_LABEL + config.digest())
        self.node.adopt_config(config, signature)
        self.node.admit()
        self.send_config(None)
        self.node.start([])

    def offer_payload(self, config: TableConfig, sig: bytes) -> dict[str, Any]:
        """A later segment's configuration for a newcomer, with the table's first (which the
        newcomer checks the whole chain from)."""
        first = self.node.config
        assert first is not None and first.carry is None
        return {
            "t": "config",
            "config": config.to_wire(),
            "sig": sig,
            "first": first.to_wire(),
            "first_sig": self.node.config_sig,
        }

    def send_config(self, to: bytes | None) -> None:
        config = self.node.config
        assert config is not None
        payload = {"t": "config", "config": config.to_wire(), "sig": self.node.config_sig}
        self.node.queue_signed(payload, to)
