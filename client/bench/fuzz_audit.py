"""The audit target of ``dealerless bench fuzz``: whole transcripts, mutated, truncated,
reordered, padded with stray votes, or under crafted headers, go to ``audit_records``, which
must never raise and must never meet an exception it did not expect (``internal_error``).

Setup: short complete games (2-seat Limit Tuppen, one hand; 2-seat classic Tuppen, cut to its
first hands) played in memory give the valid transcripts. An audit replays every proof of the
records before the damage; to make a long run affordable, proof verifications are memoised
for the run (``memoised_proofs``): the functions are deterministic, so an unchanged record's
proofs give the same answer, and any changed input misses the memo and is verified for real.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from dealerless.client.bench.fuzz_inputs import mutate, random_value, resigned
from dealerless.client.protocol_sim import play_protocol_game
from dealerless.protocol.messages import IdentityKey, decode_message, sign_message
from dealerless.protocol.rules.base import ConfigError
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import TableConfig
from dealerless.protocol.table import hand_deck as hand_deck_module
from dealerless.protocol.table.audit import AuditReport, audit_records
from dealerless.protocol.table.kinds import TABLE_REGISTRY

MEMO_LIMIT = 200_000
PROOF_CHECKS = (
    "verify_key_reveal",
    "verify_nonmembership_message",
    "verify_share",
    "verify_shuffle_message",
)


class _Unkeyable(Exception):
    pass


def _freeze(value: Any) -> Any:
    """A hashable picture of a verification's inputs (points by their encoding)."""
    if value is None or isinstance(value, bool | int | str | bytes | float):
        return value
    encode = getattr(value, "encode", None)
    if callable(encode) and type(value).__name__ == "Point":
        return ("P", encode())
    if isinstance(value, dict):
        return ("d", tuple(sorted((_freeze(k), _freeze(v)) for k, v in value.items())))
    if isinstance(value, list | tuple):
        return ("l", tuple(_freeze(v) for v in value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (
            type(value).__name__,
            tuple(_freeze(getattr(value, f.name)) for f in dataclasses.fields(value)),
        )
    raise _Unkeyable(type(value).__name__)


def _memoised(function: Callable[..., Any], memo: dict[Any, Any]) -> Callable[..., Any]:
    def check(*args: Any, **kwargs: Any) -> Any:
        try:
            key = (function.__name__, _freeze(args), _freeze(kwargs))
        except _Unkeyable:
            return function(*args, **kwargs)
        if key in memo:
            ok, value = memo[key]
            if ok:
                return value
            raise value
        try:
            value = function(*args, **kwargs)
        except Exception as exc:
            if len(memo) < MEMO_LIMIT:
                memo[key] = (False, exc)
            raise
        if len(memo) < MEMO_LIMIT:
            memo[key] = (True, value)
        return value

    return check


@contextmanager
def memoised_proofs() -> Iterator[None]:
    memo: dict[Any, Any] = {}
    saved = {name: getattr(hand_deck_module, name) for name in PROOF_CHECKS}
    try:
        for name, function in saved.items():
            setattr(hand_deck_module, name, _memoised(function, memo))
        yield
    finally:
        for name, function in saved.items():
            setattr(hand_deck_module, name, function)


class AuditFuzzer:
    """Generates one damaged transcript per call and audits it."""

    def __init__(self, rng: random.Random, seed: int) -> None:
        self.rng = rng
        self.games = []
        for game in (
            make_config("limit-tuppen", 2, {"hands": 1}),
            make_config("tuppen", 2),
        ):
            sim = play_protocol_game(game, seed)
            records = list(sim.machines[0].records)
            self.games.append((sim.table, sim.keys, records[: min(len(records), 30)]))

    def transcript(self) -> tuple[Any, list[bytes], str]:
        """A header (as wire data) and records, damaged one of several ways."""
        config, keys, base = self.rng.choice(self.games)
        records = list(base)
        header: Any = config.to_wire()
        how = self.rng.choice(
            [
                "truncate",
                "mutate",
                "swap",
                "delete",
                "duplicate",
                "stray-vote",
                "resign",
                "header",
                "foreign",
            ]
        )
        rng = self.rng
        if how == "truncate":
            records = records[: rng.randrange(len(records) + 1)]
        elif how == "mutate":
            i = rng.randrange(len(records))
            records[i] = mutate(rng, records[i], rng.choice(records))
        elif how == "swap":
            i, j = rng.randrange(len(records)), rng.randrange(len(records))
            records[i], records[j] = records[j], records[i]
        elif how == "delete":
            del records[rng.randrange(len(records))]
        elif how == "duplicate":
            records.insert(rng.randrange(len(records) + 1), rng.choice(records))
        elif how == "stray-vote":
            records.insert(rng.randrange(len(records) + 1), self._vote(config, keys, records))
        elif how == "resign":
            i = rng.randrange(len(records))
            records[i] = self._resigned(keys, records[i])
        elif how == "header":
            header = self._header(header)
        else:  # a record of the other game
            _, _, other = rng.choice(self.games)
            records.insert(rng.randrange(len(records) + 1), rng.choice(other))
        return header, records, how

    def _vote(self, config: TableConfig, keys: list[IdentityKey], records: list[bytes]) -> bytes:
        rng = self.rng
        voter = rng.randrange(len(keys))
        accused = (voter + 1) % len(keys)
        head = decode_message(rng.choice(records), registry=TABLE_REGISTRY).prev
        if rng.random() < 0.5:
            kind, body = "timeout-vote", {"silent": accused, "head": head}
        else:
            evidence = [rng.choice(records)] if rng.random() < 0.7 else []
            body = {"culprit": accused, "anchor": head, "reason": b"fuzz", "evidence": evidence}
            kind = "abort-vote"
        return sign_message(
            keys[voter],
            table_id=config.table_id,
            hand=rng.randrange(4),
            seq=rng.randrange(80),
            prev=head,
            seat=voter,
            kind=kind,
            body=body,
            registry=TABLE_REGISTRY,
        ).frame

    def _resigned(self, keys: list[IdentityKey], frame: bytes) -> bytes:
        try:
            return resigned(self.rng, frame, {k.peer_id.raw: k for k in keys})
        except (ValueError, TypeError, OverflowError):  # msgpack cannot pack the value
            return frame[:-1]

    def _header(self, header: dict[str, Any]) -> Any:
        rng = self.rng
        header = dict(header)
        game = dict(header["game"])
        options = dict(game.get("options", {}))
        pick = rng.randrange(6)
        if pick == 0 and options:
            name = rng.choice(sorted(options))
            options[name] = rng.choice([random_value(rng), 0, -1, 10**9, True, "x"])
        elif pick == 1:
            options["ante"], options["starting_chips"] = 50, 10
        elif pick == 2:
            game["players"] = rng.choice([0, 1, 3, 9, -1, "2"])
        elif pick == 3:
            seats = list(header["seats"])
            if seats:
                seats[rng.randrange(len(seats))] = random_value(rng)
            header["seats"] = seats
        elif pick == 4:
            header[rng.choice(sorted(header))] = random_value(rng)
        else:
            return random_value(rng)
        game["options"] = options
        header["game"] = game
        return header

    def one(self) -> tuple[str, AuditReport | None, str | None]:
        """Audit one damaged transcript: (how, the report, an unexpected error's trace)."""
        header, records, how = self.transcript()
        try:
            config = TableConfig.from_wire(header)
        except ConfigError:
            return how, None, None
        report = audit_records(config, records)
        return how, report, report.internal_error
