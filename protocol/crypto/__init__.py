"""Mental-poker deck for dealerless card games (pure code, no I/O).

Group: secp256k1 via libsecp256k1 (coincurve cffi). Generators g, h, h_i and the 32 card
points M_i come from RFC 9380 hash-to-curve (``secp256k1_XMD:SHA-256_SSWU_RO_``) with
dealerless DSTs. Every proof is a Fiat-Shamir proof bound to table id, hand, seat and step.
Full specification: ``spec/crypto.md``.

Modules: ``group`` (Point with explicit identity, scalars, fixed-base tables), ``h2c``
(RFC 9380), ``generators`` (g, h, h_i, card points), ``transcript`` (ProofContext,
HandDeckContext, Fiat-Shamir), ``elgamal``, ``dleq`` (Schnorr, Chaum-Pedersen), ``keys``
(commit-reveal joint key), ``shuffle`` (Terelius-Wikstrom prove/verify), ``shuffle_batch``
(one-MSM check of a shuffle round), ``nonmember`` (CDS OR-proof), ``deck`` (messages and steps),
``share_batch`` (all of a seat's deal shares under one proof), ``wire`` (strict decoders),
``errors``.

API used by the table protocol (every message has ``to_wire()`` -> msgpack-friendly dict and a
strict ``from_wire(data)``; every ``verify_*`` raises a :class:`CryptoError` subclass)::

    hctx = HandDeckContext(table_id: bytes, hand: int)

    # 1. joint key (commit, then reveal once all commitments are in)
    me = PlayerSecret.generate(hctx, seat)              # secret state, stays local
    me.commit() -> KeyCommit                             # broadcast
    me.reveal() -> KeyReveal                             # broadcast after all commits
    verify_key_reveal(hctx, commit, reveal) -> Point     # Y_j of that seat
    y = joint_key([Y_j ...]) -> Point

    # 2. deck and shuffle chain (each seat in turn)
    deck = initial_deck(y) -> list[Ciphertext]
    make_shuffle(me, y, deck) -> ShuffleMessage
    verify_shuffle_message(hctx, y, deck, msg, seat) -> list[Ciphertext]   # the new deck
    # or, once the whole round is in (batched, ~1/3 cheaper; names the culprit on failure):
    verify_shuffle_round(hctx, y, deck0, msgs, seats, own_seat=me.seat) -> list[Ciphertext]

    # 3. private deal / draw of position p to seat s: every other seat j publishes
    make_share(me, p, deck[p], step="deal") -> ShareMessage
    verify_share(hctx, Y_j, p, deck[p], msg, seat=j, step="deal") -> Point
    recover_card(me, p, deck[p], other_shares) -> int    # owner learns the card index
    # the table's deal and reveal frames: one message per seat for all it owes (step "deal"
    # for the positions going to other seats, "open" for cards turned up or shown):
    make_share_batch(me, positions, deck, step="deal") -> ShareBatchMessage
    verify_share_batch(hctx, Y_j, deck, msg, seat=j, positions=..., step="deal")
        -> Mapping[int, Point]                           # position -> verified share

    # 4. open a card (play / show): the owner publishes its share too
    make_share(me, p, deck[p], step="open") ; verify_share(..., step="open")
    open_card(p, deck[p], all_shares) -> int

    # 5. legality: hidden card at p is not in forbidden set F
    make_nonmembership(me, p, deck[p], others_sum, F, step) -> NonMembershipMessage
    verify_nonmembership_message(hctx, Y_owner, p, deck[p], others_sum, F, msg, seat, step)

``others_sum`` is ``sum_points(shares of every seat but the owner)`` from the deal. Step labels
are free text chosen by the table protocol (e.g. "deal", "draw", "open", "trick3"), at most 54
bytes; a proof made for one (table, hand, seat, step, position) verifies in no other.
Randomness comes from ``secrets``; every function taking ``rand`` accepts a deterministic
``randbelow``-like callable only so tests can record vectors.
"""

from __future__ import annotations

from .deck import (
    NonMembershipMessage,
    ShareMessage,
    ShuffleMessage,
    check_shuffle_shape,
    make_nonmembership,
    make_share,
    make_shuffle,
    open_card,
    recover_card,
    share_of,
    verify_nonmembership_message,
    verify_share,
    verify_shuffle_message,
    verify_shuffle_round,
)
from .elgamal import Ciphertext, deck_from_wire, deck_to_wire, initial_deck
from .errors import (
    CommitmentError,
    CryptoError,
    DecodeError,
    InvalidPoint,
    InvalidScalar,
    NotACard,
    ProofError,
)
from .generators import card_index, card_point, card_points, g, h, shuffle_bases
from .group import IDENTITY, Point, decode_point, encode_point, sum_points
from .keys import KeyCommit, KeyReveal, PlayerSecret, joint_key, opened_key, verify_key_reveal
from .share_batch import (
    ShareBatchMessage,
    batch_statement,
    make_share_batch,
    verify_share_batch,
)
from .transcript import HandDeckContext, ProofContext

__all__ = [
    "IDENTITY",
    "Ciphertext",
    "CommitmentError",
    "CryptoError",
    "DecodeError",
    "HandDeckContext",
    "InvalidPoint",
    "InvalidScalar",
    "KeyCommit",
    "KeyReveal",
    "NonMembershipMessage",
    "NotACard",
    "PlayerSecret",
    "Point",
    "ProofContext",
    "ProofError",
    "ShareBatchMessage",
    "ShareMessage",
    "ShuffleMessage",
    "batch_statement",
    "card_index",
    "card_point",
    "card_points",
    "check_shuffle_shape",
    "deck_from_wire",
    "deck_to_wire",
    "decode_point",
    "encode_point",
    "g",
    "h",
    "initial_deck",
    "joint_key",
    "make_nonmembership",
    "make_share",
    "make_share_batch",
    "make_shuffle",
    "open_card",
    "opened_key",
    "recover_card",
    "share_of",
    "shuffle_bases",
    "sum_points",
    "verify_key_reveal",
    "verify_nonmembership_message",
    "verify_share",
    "verify_share_batch",
    "verify_shuffle_message",
    "verify_shuffle_round",
]
