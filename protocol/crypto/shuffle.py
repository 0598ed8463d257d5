"""Verifiable re-encryption shuffle: Terelius-Wikstrom proof as in CHVote (ePrint 2017/325).

Algorithms GenShuffle / GenShuffleProof / CheckShuffleProof (CHVote spec, section 8.3),
rewritten in additive notation for EC ElGamal ``(A, B) = (r*g, M + r*Y)``:

    input  e_i = (A_i, B_i)                    i = 0..N-1
    output e~_i = (A_psi(i) + r~_i*g, B_psi(i) + r~_i*Y)

Prover (all random scalars from ``secrets``):
    c_psi(i) = r_psi(i)*g + h_i                            permutation commitment
    u_i      = H_i(ctx, N, g, h, h_0..h_N-1, Y, e, e~, c)   i = 0..N-1   (full 256-bit scalars)
    u'_i     = u_psi(i)
    c^_-1 = h;  c^_i = r^_i*g + u'_i*c^_(i-1)             commitment chain
    t1 = w1*g;  t2 = w2*g;  t3 = w3*g + sum w'_i*h_i
    t41 = -w4*Y + sum w'_i*B~_i;  t42 = -w4*g + sum w'_i*A~_i
    t^_i = w^_i*g + w'_i*c^_(i-1)
    c = H(same transcript + c^ + t)
    s1 = w1 + c*sum r_i;  s2 = w2 + c*sum r^_i*v_i (v_i = prod_{j>i} u'_j)
    s3 = w3 + c*sum r_i*u_i;  s4 = w4 + c*sum r~_i*u'_i
    s^_i = w^_i + c*r^_i;  s'_i = w'_i + c*u'_i
Proof = (c_0..N-1, c^_0..N-1, t = (t1, t2, t3, t41, t42, t^_0..N-1),
         s = (s1, s2, s3, s4, s^_0..N-1, s'_0..N-1)).

Verifier recomputes u, c, then checks (with c- = sum c_i - sum h_i, c^ = c^_N-1 - (prod u_i)*h):
    t1 == -c*c- + s1*g
    t2 == -c*c^ + s2*g
    t3 == sum(-c*u_i)*c_i + s3*g + sum s'_i*h_i
    t41 == sum(-c*u_i)*B_i - s4*Y + sum s'_i*B~_i
    t42 == sum(-c*u_i)*A_i - s4*g + sum s'_i*A~_i
    t^_i == -c*c^_i + s^_i*g + s'_i*c^_(i-1)
Soundness: the challenges are uniform mod n (~2^256), so the soundness error of the
protocol is ~N/n + negligible, far below 2^-128.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .elgamal import Ciphertext
from .errors import DecodeError, ProofError
from .generators import g, g_table, h, h_table, shuffle_bases
from .group import (
    IDENTITY,
    N,
    Point,
    RandBelow,
    encode_point,
    encode_scalar,
    msm,
    random_permutation,
    random_scalar,
    sum_points,
)
from .transcript import ProofContext, Transcript
from .wire import expect_fields, get_list, points_list, scalars_list


@dataclass(frozen=True, slots=True)
class ShuffleProof:
    pcommit: tuple[Point, ...]
    chain: tuple[Point, ...]
    t: tuple[Point, ...]  # t1, t2, t3, t41, t42, t^_0..N-1
    s: tuple[int, ...]  # s1, s2, s3, s4, s^_0..N-1, s'_0..N-1

    FIELDS = ("pcommit", "chain", "t", "s")

    def to_wire(self, what: str = "shuffle_proof") -> dict[str, Any]:
        return {
            "pcommit": [
                encode_point(p, f"{what}.pcommit[{i}]") for i, p in enumerate(self.pcommit)
            ],
            "chain": [encode_point(p, f"{what}.chain[{i}]") for i, p in enumerate(self.chain)],
            "t": [encode_point(p, f"{what}.t[{i}]") for i, p in enumerate(self.t)],
            "s": [encode_scalar(k) for k in self.s],
        }

    @staticmethod
    def from_wire(data: object, n: int, what: str = "shuffle_proof") -> ShuffleProof:
        d = expect_fields(data, what, ShuffleProof.FIELDS)
        return ShuffleProof(
            tuple(points_list(get_list(d, "pcommit", what, n), f"{what}.pcommit")),
            tuple(points_list(get_list(d, "chain", what, n), f"{what}.chain")),
            tuple(points_list(get_list(d, "t", what, n + 5), f"{what}.t")),
            tuple(scalars_list(get_list(d, "s", what, 2 * n + 4), f"{what}.s")),
        )

    def size_bytes(self) -> int:
        return 33 * (len(self.pcommit) + len(self.chain) + len(self.t)) + 32 * len(self.s)


def _statement_transcript(
    ctx: ProofContext,
    y: Point,
    deck_in: Sequence[Ciphertext],
    deck_out: Sequence[Ciphertext],
    pcommit: Sequence[Point],
) -> Transcript:
    n = len(deck_in)
    tr = Transcript(b"shuffle", ctx)
    tr.append(b"n", n.to_bytes(2, "big"))
    tr.points(b"gens", (g(), h(), *shuffle_bases(n)))
    tr.point(b"Y", y)
    tr.points(b"input", [p for ct in deck_in for p in (ct.c1, ct.c2)])
    tr.points(b"output", [p for ct in deck_out for p in (ct.c1, ct.c2)])
    tr.points(b"pcommit", pcommit)
    return tr


def _final_challenge(tr: Transcript, chain: Sequence[Point], t: Sequence[Point]) -> int:
    tr.points(b"chain", chain)
    tr.points(b"t", t)
    return tr.challenge()


def shuffle_deck(
    ctx: ProofContext,
    y: Point,
    deck_in: Sequence[Ciphertext],
    rand: RandBelow = secrets.randbelow,
) -> tuple[list[Ciphertext], ShuffleProof]:
    """Re-encrypt and permute ``deck_in`` under joint key ``y``; return the new deck and proof."""
    n = len(deck_in)
    if n < 2:
        raise ValueError("a shuffle needs at least two ciphertexts")
    gt = g_table()
    hs = shuffle_bases(n)
    psi = random_permutation(n, rand)
    # GenShuffle
    r_tilde = [random_scalar(rand) for _ in range(n)]
    out: list[Ciphertext] = []
    for i in range(n):
        src = deck_in[psi[i]]
        ct = Ciphertext(src.c1 + gt.mul(r_tilde[i]), src.c2 + y * r_tilde[i])
        if ct.c1.is_identity or ct.c2.is_identity:  # pragma: no cover - probability ~2^-256
            return shuffle_deck(ctx, y, deck_in, rand)
        out.append(ct)
    # permutation commitment
    r = [0] * n
    pcommit: list[Point] = [IDENTITY] * n
    for i in range(n):
        j = psi[i]
        r[j] = random_scalar(rand)
        pcommit[j] = gt.mul(r[j]) + hs[i]
    tr = _statement_transcript(ctx, y, deck_in, out, pcommit)
    u = tr.challenges(n)
    u_p = [u[psi[i]] for i in range(n)]
    # commitment chain
    r_hat = [random_scalar(rand) for _ in range(n)]
    # c^_i = a_i*g + b_i*h with a_i = r^_i + u'_i*a_(i-1), b_i = u'_i*b_(i-1) (a_-1 = 0, b_-1 = 1):
    # the prover knows both logs, so every chain point and t^_i costs two fixed-base mults.
    ht = h_table()
    a_log = [0] * (n + 1)  # a_log[i + 1] = a_i, a_log[0] = a_-1
    b_log = [1] * (n + 1)
    chain: list[Point] = []
    for i in range(n):
        a_log[i + 1] = (r_hat[i] + u_p[i] * a_log[i]) % N
        b_log[i + 1] = u_p[i] * b_log[i] % N
        chain.append(gt.mul(a_log[i + 1]) + ht.mul(b_log[i + 1]))
    w1, w2, w3, w4 = (random_scalar(rand) for _ in range(4))
    w_hat = [random_scalar(rand) for _ in range(n)]
    w_p = [random_scalar(rand) for _ in range(n)]
    t1 = gt.mul(w1)
    t2 = gt.mul(w2)
    t3 = gt.mul(w3) + msm(w_p, hs)
    t41 = msm([N - w4, *w_p], [y, *(ct.c2 for ct in out)])
    # sum w'_i*A~_i = (sum w'_i*r~_i)*g + sum w'_i*A_psi(i): same point, but msm merges equal
    # inputs (the initial deck's c1 are all g), which makes the first shuffle cheaper.
    wr = sum(a * b for a, b in zip(w_p, r_tilde, strict=True))
    t42 = gt.mul(wr - w4) + msm(w_p, [deck_in[psi[i]].c1 for i in range(n)])
    t_hat = [
        gt.mul(w_hat[i] + w_p[i] * a_log[i]) + ht.mul(w_p[i] * b_log[i]) for i in range(n)
    ]  # = w^_i*g + w'_i*c^_(i-1)
    t = (t1, t2, t3, t41, t42, *t_hat)
    c = _final_challenge(tr, chain, t)
    v = [1] * n
    for i in range(n - 2, -1, -1):
        v[i] = u_p[i + 1] * v[i + 1] % N
    s1 = (w1 + c * sum(r)) % N
    s2 = (w2 + c * sum(a * b for a, b in zip(r_hat, v, strict=True))) % N
    s3 = (w3 + c * sum(a * b for a, b in zip(r, u, strict=True))) % N
    s4 = (w4 + c * sum(a * b for a, b in zip(r_tilde, u_p, strict=True))) % N
    s_hat = [(w_hat[i] + c * r_hat[i]) % N for i in range(n)]
    s_p = [(w_p[i] + c * u_p[i]) % N for i in range(n)]
    proof = ShuffleProof(tuple(pcommit), tuple(chain), t, (s1, s2, s3, s4, *s_hat, *s_p))
    return out, proof


def check_shapes(
    y: Point, deck_in: Sequence[Ciphertext], deck_out: Sequence[Ciphertext], proof: ShuffleProof
) -> None:
    """Counts, scalar ranges and no identity anywhere (before any arithmetic)."""
    n = len(deck_in)
    if n < 2 or len(deck_out) != n:
        raise ProofError(f"shuffle: expected {n} output ciphertexts, got {len(deck_out)}")
    if len(proof.pcommit) != n or len(proof.chain) != n or len(proof.t) != n + 5:
        raise DecodeError("shuffle proof: wrong number of points")
    if len(proof.s) != 2 * n + 4 or not all(0 <= k < N for k in proof.s):
        raise DecodeError("shuffle proof: wrong number of scalars or scalar out of range")
    pts = [y, *proof.pcommit, *proof.chain, *proof.t]
    pts += [p for ct in (*deck_in, *deck_out) for p in (ct.c1, ct.c2)]
    if any(p.is_identity for p in pts):
        raise ProofError("shuffle: identity point in statement or proof")


def challenges(
    ctx: ProofContext,
    y: Point,
    deck_in: Sequence[Ciphertext],
    deck_out: Sequence[Ciphertext],
    proof: ShuffleProof,
) -> tuple[list[int], int]:
    """The verifier's u_0..u_{N-1} and c for this statement and proof."""
    tr = _statement_transcript(ctx, y, deck_in, deck_out, proof.pcommit)
    u = tr.challenges(len(deck_in))
    return u, _final_challenge(tr, proof.chain, proof.t)


def verify_shuffle(
    ctx: ProofContext,
    y: Point,
    deck_in: Sequence[Ciphertext],
    deck_out: Sequence[Ciphertext],
    proof: ShuffleProof,
) -> None:
    """Raise :class:`ProofError` unless ``deck_out`` is a re-encrypted permutation of ``deck_in``.

    Every point must already be a decoded non-identity group element (``from_wire`` does that);
    this is re-checked here so that programmatic callers cannot skip it.
    """
    check_shapes(y, deck_in, deck_out, proof)
    n = len(deck_in)
    gt = g_table()
    hs = shuffle_bases(n)
    u, c = challenges(ctx, y, deck_in, deck_out, proof)
    s1, s2, s3, s4 = proof.s[:4]
    s_hat = proof.s[4 : 4 + n]
    s_p = proof.s[4 + n :]
    t1, t2, t3, t41, t42 = proof.t[:5]
    t_hat = proof.t[5:]
    neg_c = N - c
    neg_cu = [neg_c * ui % N for ui in u]
    u_prod = 1
    for ui in u:
        u_prod = u_prod * ui % N
    c_bar = sum_points(proof.pcommit) - sum_points(hs)
    c_hat = proof.chain[-1] - h() * u_prod
    failed = []
    if c_bar * neg_c + gt.mul(s1) != t1:
        failed.append("t1 (permutation commitment sum)")
    if c_hat * neg_c + gt.mul(s2) != t2:
        failed.append("t2 (commitment chain end)")
    if msm([*neg_cu, *s_p], [*proof.pcommit, *hs]) + gt.mul(s3) != t3:
        failed.append("t3 (permutation commitment opening)")
    b_in = [ct.c2 for ct in deck_in]
    b_out = [ct.c2 for ct in deck_out]
    if msm([*neg_cu, N - s4, *s_p], [*b_in, y, *b_out]) != t41:
        failed.append("t4,1 (re-encryption, second components)")
    a_in = [ct.c1 for ct in deck_in]
    a_out = [ct.c1 for ct in deck_out]
    if msm([*neg_cu, *s_p], [*a_in, *a_out]) + gt.mul(N - s4) != t42:
        failed.append("t4,2 (re-encryption, first components)")
    prev = h()
    for i in range(n):
        if msm([neg_c, s_p[i]], [proof.chain[i], prev]) + gt.mul(s_hat[i]) != t_hat[i]:
            failed.append(f"t^_{i} (commitment chain link {i})")
            break
        prev = proof.chain[i]
    if failed:
        raise ProofError("shuffle proof does not verify: " + ", ".join(failed))
