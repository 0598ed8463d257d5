"""Batch verification of several shuffle proofs with one multi-scalar multiplication.

Every verification equation of :func:`.shuffle.verify_shuffle` has the form ``sum(a_j*P_j) = 0``.
The verifier draws an independent uniform weight rho (``secrets``) per equation and checks
``sum_eq rho_eq * (equation) = 0`` over all equations of all proofs. If any single equation is
false the combination is zero with probability <= 1/n, so this is as sound as checking them one
by one. It is cheaper because identical bases merge: the Pedersen bases h_i are shared by all
proofs, and the output deck of seat s is the input deck of seat s+1, so a node that checks the
whole shuffle round at once pays for each intermediate deck once, and c^_i appears once instead
of twice. On failure the proofs are re-checked one by one so the error names the culprit seat.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from .elgamal import Ciphertext
from .errors import ProofError
from .generators import g, g_table, h, shuffle_bases
from .group import N, Point, msm_distinct
from .shuffle import ShuffleProof, challenges, check_shapes, verify_shuffle
from .transcript import ProofContext


@dataclass(frozen=True, slots=True)
class ShuffleClaim:
    """One shuffle to check: context (seat inside), joint key, input deck, output deck, proof."""

    ctx: ProofContext
    y: Point
    deck_in: Sequence[Ciphertext]
    deck_out: Sequence[Ciphertext]
    proof: ShuffleProof


class _Acc:
    """Accumulates ``coefficient * point`` terms, merging identical points."""

    __slots__ = ("coef", "g_coef", "pts")

    def __init__(self) -> None:
        self.coef: dict[bytes, int] = {}
        self.pts: dict[bytes, Point] = {}
        self.g_coef = 0

    def add(self, k: int, p: Point) -> None:
        e = p.encode()
        if e in self.coef:
            self.coef[e] += k
        else:
            self.coef[e] = k
            self.pts[e] = p

    def total(self) -> Point:
        keys = list(self.coef)
        return g_table().mul(self.g_coef) + msm_distinct(
            [self.coef[k] % N for k in keys], [self.pts[k] for k in keys]
        )


def _accumulate(acc: _Acc, claim: ShuffleClaim, rand: secrets.SystemRandom) -> None:
    deck_in, deck_out, proof, y = claim.deck_in, claim.deck_out, claim.proof, claim.y
    n = len(deck_in)
    hs = shuffle_bases(n)
    u, c = challenges(claim.ctx, y, deck_in, deck_out, proof)
    s1, s2, s3, s4 = proof.s[:4]
    s_hat = proof.s[4 : 4 + n]
    s_p = proof.s[4 + n :]
    t1, t2, t3, t41, t42 = proof.t[:5]
    t_hat = proof.t[5:]
    r1, r2, r3, r41, r42 = (rand.randrange(1, N) for _ in range(5))
    u_prod = 1
    for ui in u:
        u_prod = u_prod * ui % N
    # eq1: -c*(sum c_i - sum h_i) + s1*g - t1 = 0
    # eq3: sum(-c*u_i)*c_i + s3*g + sum s'_i*h_i - t3 = 0
    for i in range(n):
        acc.add(-c * (r1 + r3 * u[i]), proof.pcommit[i])
        acc.add(c * r1 + r3 * s_p[i], hs[i])
    acc.g_coef += r1 * s1 + r2 * s2 + r3 * s3 - r42 * s4
    acc.add(-r1, t1)
    acc.add(-r3, t3)
    # eq2: -c*(chain_{N-1} - U*h) + s2*g - t2 = 0
    acc.add(-c * r2, proof.chain[-1])
    acc.add(c * r2 * u_prod, h())
    acc.add(-r2, t2)
    # eq41: sum(-c*u_i)*B_i - s4*Y + sum s'_i*B~_i - t41 = 0
    # eq42: sum(-c*u_i)*A_i - s4*g + sum s'_i*A~_i - t42 = 0
    for i in range(n):
        acc.add(-c * u[i] * r41, deck_in[i].c2)
        acc.add(-c * u[i] * r42, deck_in[i].c1)
        acc.add(s_p[i] * r41, deck_out[i].c2)
        acc.add(s_p[i] * r42, deck_out[i].c1)
    acc.add(-s4 * r41, y)
    acc.add(-r41, t41)
    acc.add(-r42, t42)
    # eq_i: -c*chain_i + s^_i*g + s'_i*chain_{i-1} - t^_i = 0   (chain_{-1} = h)
    prev = h()
    for i in range(n):
        ri = rand.randrange(1, N)
        acc.add(-c * ri, proof.chain[i])
        acc.add(s_p[i] * ri, prev)
        acc.g_coef += s_hat[i] * ri
        acc.add(-ri, t_hat[i])
        prev = proof.chain[i]


def batch_verify_shuffles(claims: Sequence[ShuffleClaim]) -> None:
    """Check every claim; raise :class:`ProofError` naming the first bad seat if one fails."""
    if not claims:
        return
    for cl in claims:
        check_shapes(cl.y, cl.deck_in, cl.deck_out, cl.proof)
    rand = secrets.SystemRandom()
    acc = _Acc()
    for cl in claims:
        _accumulate(acc, cl, rand)
    g_enc = g().encode()
    if g_enc in acc.coef:  # g as a deck point (the initial deck's c1) goes to the g table
        acc.g_coef += acc.coef.pop(g_enc)
        del acc.pts[g_enc]
    if acc.total().is_identity:
        return
    for cl in claims:
        try:
            verify_shuffle(cl.ctx, cl.y, cl.deck_in, cl.deck_out, cl.proof)
        except ProofError as exc:
            raise ProofError(f"shuffle by seat {cl.ctx.seat}: {exc}") from None
    raise ProofError("shuffle batch does not verify")  # pragma: no cover - 1/n chance
