#!/usr/bin/env python3
"""Checks `gpu-runner attention PTX flash_attn_fwd` against NumPy on the GPU
machine (NumPy needed; no torch, no network), one process per case:

    python3 kernels/attention-check.py PTX RUNNER [--seed N]

For each case (shapes no other check uses: odd sequence lengths, seq_q
above and below seq_k, batch x heads not a multiple of anything, one query
or one key): random normal (std 1) Q, K, V rounded to float16 and saved in
BSHD (batch, seq, heads, d), `RUNNER attention PTX flash_attn_fwd Q K V O
[--causal] [--scale S] --lse LSE`, then O (float16, Q's shape) and LSE
(float32, (batch, heads, seq_q)) against a float64 reference computed from
the same float16 values: S = scale Q_bh K_bhᵀ, keys j > i masked when causal
(top-left: query i sees keys 0..=i), P = softmax(S), O = P V_bh, LSE =
log sum_j exp(S_ij). Every entry must lie within the bound below (derived
from the kernel's roundings, not from its results). Then inputs the runner
must refuse: exit code 2, one line on stderr, no O written.
Then the forms real models use, with the same bound: grouped-query heads
(K/V heads dividing Q's: groups of 1, 2, 8 and 64), the causal mask aligned
bottom-right (`--causal bottom-right`, including seq_q > seq_k: rows that
see no key must be exactly O = 0 and LSE = -inf), sliding windows
(`--window LEFT RIGHT`, wider than the sequence too), and packed sequences
of their own lengths (`--seqlens-q`, `--seqlens-k`: ragged, 0 and 1 long), and
head dimension 256; each sequence against the reference on its own.
One line per case; exit code 1 if any case is off (the first offending
entry named).
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

# The bound, per entry. The kernel's inputs are float16, everything it
# computes is float32 except two roundings to float16:
#  - each weight p_j = exp(S_ij - m) (in (0, 1]) is rounded to float16 before
#    P·V: relative error <= U16; and the row sum l (of the rounded or of the
#    unrounded weights) is off by at most as much. With relative errors
#    eps on the weights and on l, |O~ - O| <= 2 eps · sum_j P_ij |V_jc|
#    =: 2 eps · W_ic (P the exact softmax; W >= |O|);
#  - O is rounded to float16 at the end: <= U16 |O| (plus half of float16's
#    subnormal spacing, ATOL_O, below 2^-14).
# Its float32 work adds to eps, per row i (worst-case bounds, gamma_n = n U32):
#  - S_ij, a sum of d products (exact in float32): |dS| <= d U32 · A_i, A_i
#    = max_j scale sum_c |q_ic k_jc| over the keys row i sees; a weight's
#    relative error is dS;
#  - exp's argument (S times scale·log2(e), minus the max) and exp2: a few
#    ulps of |S|: 4 U32 · M_i (M_i = max_j |S_ij|) + 8 U32;
#  - the two sums over seq_k keys (l, and P·V in the accumulators):
#    seq_k U32 relative to W (and to l).
# So eps_i = U16 + U32 (d A_i + 4 M_i + 8), and
#    |O - ref|_ic <= SAFETY ((2 eps_i + seq_k U32) W_ic + U16 |ref_ic|) + ATOL_O
# LSE_i = m_i + log(l_i): l's relative error (U16 if summed from the rounded
# weights, + seq_k U32 + the weights' float32 part), the max's own dS, log's
# approximation and the float32 result:
#    |LSE - ref|_i <= SAFETY (U16 + U32 (d A_i + 4 M_i + seq_k + 8 + |ref_i|))
# SAFETY = 2 covers what these first-order bounds leave out (second-order
# terms, tensor-core accumulation not strictly IEEE float32). For std-1
# inputs the O bound is about 3e-3 · W (W ~ 0.8): ten times tighter than a
# plain 1e-2 relative tolerance, and far above the typical error (the
# roundings are independent: ~U16 · sqrt(sum_j P_ij^2 V_jc^2)).
U16 = 2.0**-11  # float16's unit roundoff
U32 = 2.0**-24  # float32's
SAFETY = 2.0
ATOL_O = 2.0**-25  # half of float16's subnormal spacing

# (batch, heads, seq_q, seq_k, d, causal, --scale or None for 1/sqrt(d))
CASES = [
    (1, 1, 1, 1, 64, False, None),
    (1, 1, 1, 1, 128, True, None),
    (2, 3, 77, 77, 64, True, None),
    (3, 5, 130, 257, 128, False, None),
    (1, 7, 1000, 1000, 128, True, None),
    (2, 1, 129, 63, 64, True, None),  # seq_q > seq_k: rows 63.. see every key
    (1, 2, 257, 1025, 64, False, 0.3),
    (5, 3, 4097 // 8 + 1, 300, 128, True, None),
    (1, 1, 64, 4096, 128, False, None),
    (2, 2, 1031, 2053, 64, True, 0.05),
    (1, 3, 300, 1, 128, False, -0.7),  # one key: O = V's row, any scale
    # Long key loops (the kernel's tile index, rows and offsets are 32-bit):
    # 1025 K/V tiles at d 128, 97 causal tiles at d 64; 40 heads (rows
    # 5120 halves apart).
    (1, 2, 301, 65537, 128, False, None),
    (1, 1, 12289, 12289, 64, True, None),
    (1, 40, 129, 200, 128, False, None),
    # A negative and a zero scale over many keys (the kernel negates S for
    # the first and takes the least normal float for the second).
    (1, 2, 67, 300, 64, True, -0.45),
    (2, 1, 90, 129, 128, False, 0.0),
]


def run(runner, args):
    return subprocess.run([runner, *args], capture_output=True, text=True, timeout=120)


def reference(q, k, v, scale, causal):
    """O, LSE (float64) and the per-entry bounds of O and LSE, per the
    comment above, from the float16 inputs (BSHD)."""
    b, sq, h, d = q.shape
    sk = k.shape[1]
    o = np.empty((b, sq, h, d))
    o_tol = np.empty((b, sq, h, d))
    lse = np.empty((b, h, sq))
    lse_tol = np.empty((b, h, sq))
    masked = np.arange(sk)[None, :] > np.arange(sq)[:, None] if causal else None
    for bi in range(b):
        for hi in range(h):
            q64 = q[bi, :, hi, :].astype(np.float64)
            k64 = k[bi, :, hi, :].astype(np.float64)
            v64 = v[bi, :, hi, :].astype(np.float64)
            s = scale * (q64 @ k64.T)
            a = abs(scale) * (np.abs(q64) @ np.abs(k64).T)
            if causal:
                s[masked] = -np.inf
                a[masked] = 0.0
            m = s.max(axis=1, keepdims=True)
            e = np.exp(s - m)
            l = e.sum(axis=1, keepdims=True)
            p = e / l
            o[bi, :, hi, :] = p @ v64
            w = p @ np.abs(v64)
            big_m = np.where(np.isinf(s), 0.0, np.abs(s)).max(axis=1, keepdims=True)
            eps = U16 + U32 * (d * a.max(axis=1, keepdims=True) + 4 * big_m + 8)
            ref = o[bi, :, hi, :]
            o_tol[bi, :, hi, :] = SAFETY * ((2 * eps + sk * U32) * w + U16 * np.abs(ref)) + ATOL_O
            lse_row = (m + np.log(l))[:, 0]
            lse[bi, hi, :] = lse_row
            extra = (d * a.max(axis=1) + 4 * big_m[:, 0] + sk + 8 + np.abs(lse_row))
            lse_tol[bi, hi, :] = SAFETY * (U16 + U32 * extra)
    return o, o_tol, lse, lse_tol


def reference_masked(q, k, v, scale, bounds):
    """As `reference` for one sequence (Q (sq, h, d), K, V (sk, hkv, d)),
    query head hi reading K/V head hi // (h // hkv), and `bounds` (offset,
    lower) or None: query i sees keys i + lower ..= i + offset (lower None:
    no lower bound). Rows that see no key: O = 0, LSE = -inf, bound 0."""
    sq, h, d = q.shape
    sk, hkv = k.shape[0], k.shape[1]
    o = np.zeros((sq, h, d))
    o_tol = np.zeros((sq, h, d))
    lse = np.full((h, sq), -np.inf)
    lse_tol = np.zeros((h, sq))
    i, j = np.arange(sq)[:, None], np.arange(sk)[None, :]
    seen = np.ones((sq, sk), bool)
    if bounds is not None:
        offset, lower = bounds
        seen &= j <= i + offset
        if lower is not None:
            seen &= j >= i + lower
    rows = seen.any(axis=1)
    for hi in range(h):
        hk = hi // (h // hkv)
        q64 = q[:, hi, :].astype(np.float64)
        k64, v64 = k[:, hk, :].astype(np.float64), v[:, hk, :].astype(np.float64)
        s = scale * (q64 @ k64.T)
        a = abs(scale) * (np.abs(q64) @ np.abs(k64).T)
        s[~seen], a[~seen] = -np.inf, 0.0
        s, a = s[rows], a[rows]
        if not rows.any():
            continue
        m = s.max(axis=1, keepdims=True)
        e = np.exp(s - m)
        l = e.sum(axis=1, keepdims=True)
        pr = e / l
        ref = pr @ v64
        o[rows, hi, :] = ref
        w = pr @ np.abs(v64)
        big_m = np.where(np.isinf(s), 0.0, np.abs(s)).max(axis=1, keepdims=True)
        eps = U16 + U32 * (d * a.max(axis=1, keepdims=True) + 4 * big_m + 8)
        o_tol[rows, hi, :] = SAFETY * ((2 * eps + sk * U32) * w + U16 * np.abs(ref)) + ATOL_O
        lse_row = (m + np.log(l))[:, 0]
        lse[hi, rows] = lse_row
        extra = d * a.max(axis=1) + 4 * big_m[:, 0] + sk + 8 + np.abs(lse_row)
        lse_tol[hi, rows] = SAFETY * (U16 + U32 * extra)
    return o, o_tol, lse, lse_tol


# The forms real models use: (label, sequences, heads, kv_heads, d, --causal
# value or None, --window (LEFT, RIGHT) or None). Sequences: (batch, seq_q,
# seq_k) planes, or a list of (seq_q, seq_k) packed.
FORMS = [
    ("GQA group 2", (2, 77, 130), 4, 2, 64, None, None),
    ("GQA group 8, causal", (1, 300, 300), 8, 1, 128, "top-left", None),
    ("MQA group 64", (1, 65, 129), 64, 1, 64, None, None),
    ("GQA group 1", (2, 33, 70), 3, 3, 128, "top-left", None),
    ("bottom-right, seq_q < seq_k", (2, 70, 300), 4, 2, 64, "bottom-right", None),
    ("bottom-right, seq_q > seq_k", (1, 300, 100), 2, 1, 128, "bottom-right", None),
    ("causal window 100", (1, 400, 400), 2, 1, 64, "top-left", (100, 0)),
    ("bottom-right window 257", (1, 150, 500), 2, 2, 128, "bottom-right", (257, 0)),
    ("two-sided window", (1, 300, 300), 4, 2, 64, None, (40, 70)),
    ("window wider than the sequence", (1, 90, 120), 2, 1, 128, "top-left", (5000, 0)),
    ("packed", [(70, 150), (0, 30), (1, 1), (200, 45), (5, 0), (130, 300)], 4, 2, 64, None, None),
    ("packed causal", [(300, 300), (1, 1), (0, 0), (129, 129), (64, 64)], 8, 2, 128, "top-left", None),
    ("packed bottom-right", [(70, 150), (200, 45), (5, 0), (1, 700)], 4, 1, 64, "bottom-right", None),
    ("packed window", [(400, 400), (90, 90), (1000, 1000)], 2, 2, 128, "bottom-right", (128, 0)),
]
# Head dimension 256 (both families).
FORMS_256 = [
    ("d 256", (2, 77, 300), 2, 2, 256, None, None),
    ("d 256 causal GQA", (1, 513, 513), 8, 2, 256, "top-left", None),
    ("d 256 bottom-right window", (1, 150, 700), 2, 1, 256, "bottom-right", (200, 0)),
    ("d 256 packed", [(70, 150), (0, 30), (1, 1), (300, 0), (129, 300)], 4, 1, 256, "top-left", None),
]


def bounds_of(causal, window, sq, sk):
    """The mask's (offset, lower) for one sequence, or None: keys i + lower ..=
    i + offset, aligned bottom-right (+ sk - sq) when asked."""
    if causal is None and window is None:
        return None
    a = sk - sq if causal == "bottom-right" else 0
    if window is None:
        return (a, None)
    left, right = window
    return (a + right, a - left)


def first_beyond(got, want, tol, names):
    """A description of the first entry beyond its bound (NaN counts), or None."""
    bad = ~(np.abs(got.astype(np.float64) - want) <= tol)
    if not bad.any():
        return None, 0
    at = tuple(int(x) for x in np.argwhere(bad)[0])
    where = ", ".join(f"{n}={x}" for n, x in zip(names, at))
    return f"[{where}] = {float(got[at]):.6g} not {want[at]:.6g} (bound {tol[at]:.3g})", int(bad.sum())


def verdict(what, o_beyond, lse_beyond, stats, exact=True):
    """Prints a case's line, ok or MISMATCH naming the first entries beyond
    their bounds (`first_beyond`'s results for O and LSE) and whether the
    rows that see no key are exactly O = 0 and LSE = -inf; 1 when off."""
    (o, (first_o, n_o)), (lse, (first_l, n_l)) = o_beyond, lse_beyond
    if first_o is None and first_l is None and exact:
        print(f"{what}: ok, {stats}")
        return 0
    parts = []
    if first_o is not None:
        parts.append(f"{n_o} of {o.size} O entries beyond the bound, first O{first_o}")
    if first_l is not None:
        parts.append(f"{n_l} of {lse.size} LSE entries beyond the bound, first LSE{first_l}")
    if not exact:
        parts.append("rows that see no key are not exactly O = 0 and LSE = -inf")
    print(f"{what}: MISMATCH, {'; '.join(parts)}; {stats}")
    return 1


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("ptx", help="layout_kernels.ptx")
    p.add_argument("runner", help="the gpu-runner binary")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--kernel", default="flash_attn_fwd",
                   help="the family: flash_attn_fwd (layout_kernels.ptx) or flash_attn_fwd_sm90 "
                        "(layout_kernels_sm90.ptx)")
    p.add_argument("--only", metavar="TEXT",
                   help="run only the cases whose line contains TEXT (e.g. 'd=256'), and not the refusals")
    args = p.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"bounds: |O - ref| <= {SAFETY:g} ((2 eps + seq_k U32) sum_j P_ij |V_jc| + U16 |ref|) + 2^-25; "
          f"|LSE - ref| <= {SAFETY:g} (U16 + U32 (d A + 4 M + seq_k + 8 + |ref|)); "
          "eps = U16 + U32 (d A + 4 M + 8), A = max_j scale sum_c |q_ic k_jc|, M = max_j |S_ij|, "
          "U16 = 2^-11, U32 = 2^-24")
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = {n: os.path.join(tmp, f"{n}.npy") for n in ("Q", "K", "V", "O", "LSE")}

        def attention(q, k, v, flags, kernel=args.kernel):
            for n in ("Q", "K", "V"):
                np.save(path[n], {"Q": q, "K": k, "V": v}[n])
            for n in ("O", "LSE"):
                if os.path.exists(path[n]):
                    os.remove(path[n])
            return run(args.runner, ["attention", args.ptx, kernel, path["Q"], path["K"], path["V"],
                                     path["O"], *flags])

        for b, h, sq, sk, d, causal, scale in CASES:
            what = (f"{args.kernel} b={b} h={h} sq={sq} sk={sk} d={d}"
                    f"{' causal' if causal else ''} scale={'1/sqrt(d)' if scale is None else scale}")
            normal = lambda *shape: rng.standard_normal(shape, dtype=np.float32).astype(np.float16)
            q, k, v = normal(b, sq, h, d), normal(b, sk, h, d), normal(b, sk, h, d)
            if args.only and args.only not in what:
                continue
            flags = (["--causal"] if causal else []) + ["--lse", path["LSE"]]
            if scale is not None:
                flags += ["--scale", repr(scale)]
            r = attention(q, k, v, flags)
            if r.returncode != 0:
                print(f"{what}: FAILED, exit code {r.returncode}: {r.stderr.strip()}")
                bad += 1
                continue
            o, lse = np.load(path["O"]), np.load(path["LSE"])
            wrong = []
            for name, x, dtype, shape in (("O", o, np.float16, (b, sq, h, d)),
                                          ("LSE", lse, np.float32, (b, h, sq))):
                if x.dtype != dtype or x.shape != shape or not x.flags.c_contiguous:
                    wrong.append(f"{name} is {x.dtype} {x.shape} (C-order: {x.flags.c_contiguous}), "
                                 f"expected {np.dtype(dtype)} {shape} C-order")
            if wrong:
                print(f"{what}: FAILED, {'; '.join(wrong)}")
                bad += 1
                continue
            # The kernel receives the scale as float32: the reference uses that value.
            s32 = float(np.float32(1.0 / np.sqrt(d) if scale is None else scale))
            want_o, tol_o, want_lse, tol_lse = reference(q, k, v, s32, causal)
            first_o, n_o = first_beyond(o, want_o, tol_o, ("b", "i", "h", "c"))
            first_l, n_l = first_beyond(lse, want_lse, tol_lse, ("b", "h", "i"))
            err_o = np.abs(o.astype(np.float64) - want_o)
            err_l = np.abs(lse.astype(np.float64) - want_lse)
            stats = (f"O max |err| {np.nanmax(err_o):.2e} ({np.nanmax(err_o / tol_o):.3f} of its bound), "
                     f"LSE max |err| {np.nanmax(err_l):.2e} ({np.nanmax(err_l / tol_lse):.3f} of its bound)")
            bad += verdict(what, (o, (first_o, n_o)), (lse, (first_l, n_l)), stats)

        forms = FORMS + FORMS_256
        for label, seqs, h, hkv, d, causal, window in forms:
            what = f"{args.kernel} {label}: h={h} kv_heads={hkv} d={d} {seqs}"
            packed = isinstance(seqs, list)
            lens = seqs if packed else [(seqs[1], seqs[2])] * seqs[0]
            tq, tk = sum(x for x, _ in lens), sum(y for _, y in lens)
            normal = lambda *shape: rng.standard_normal(shape, dtype=np.float32).astype(np.float16)
            q, k, v = normal(tq, h, d), normal(tk, hkv, d), normal(tk, hkv, d)
            if args.only and args.only not in what:
                continue
            flags = ["--lse", path["LSE"]]
            if causal is not None:
                flags += ["--causal", causal]
            if window is not None:
                flags += ["--window", str(window[0]), str(window[1])]
            if packed:
                cu = lambda xs: np.concatenate([[0], np.cumsum(xs)]).astype(np.int32)
                for n, xs in (("CUQ", [x for x, _ in lens]), ("CUK", [y for _, y in lens])):
                    path[n] = os.path.join(tmp, f"{n}.npy")
                    np.save(path[n], cu(xs))
                flags += ["--seqlens-q", path["CUQ"], "--seqlens-k", path["CUK"]]
                r = attention(q, k, v, flags)
            else:
                b, sq, sk = seqs
                r = attention(q.reshape(b, sq, h, d), k.reshape(b, sk, hkv, d), v.reshape(b, sk, hkv, d),
                              flags)
            if r.returncode != 0:
                print(f"{what}: FAILED, exit code {r.returncode}: {r.stderr.strip()}")
                bad += 1
                continue
            o, lse = np.load(path["O"]), np.load(path["LSE"])
            # Both as (rows, h, d) and (h, rows) over every row.
            o = o.reshape(tq, h, d)
            lse = lse.reshape(h, tq) if packed else lse.transpose(1, 0, 2).reshape(h, tq)
            s32 = float(np.float32(1.0 / np.sqrt(d)))
            want_o, tol_o = np.zeros((tq, h, d)), np.zeros((tq, h, d))
            want_l, tol_l = np.zeros((h, tq)), np.zeros((h, tq))
            q0 = k0 = 0
            for sq, sk in lens:
                ro, rto, rl, rtl = reference_masked(q[q0:q0 + sq], k[k0:k0 + sk], v[k0:k0 + sk], s32,
                                                    bounds_of(causal, window, sq, sk))
                want_o[q0:q0 + sq], tol_o[q0:q0 + sq] = ro, rto
                want_l[:, q0:q0 + sq], tol_l[:, q0:q0 + sq] = rl, rtl
                q0, k0 = q0 + sq, k0 + sk
            # Rows that see no key: exactly O = 0 and LSE = -inf.
            none = np.isneginf(want_l)
            exact = (o.transpose(1, 0, 2)[none] == 0).all() and np.isneginf(lse[none]).all()
            lse_cmp = np.where(none, 0.0, lse)
            want_cmp = np.where(none, 0.0, want_l)
            first_o, n_o = first_beyond(o, want_o, tol_o, ("row", "h", "c"))
            first_l, n_l = first_beyond(lse_cmp, want_cmp, tol_l, ("h", "row"))
            err_o = np.abs(o.astype(np.float64) - want_o)
            stats = (f"O max |err| {np.nanmax(err_o):.2e}, {int(none.sum())} (head, row) pairs see no key "
                     f"({'exactly 0 and -inf' if exact else 'NOT 0 and -inf'})")
            bad += verdict(what, (o, (first_o, n_o)), (lse_cmp, (first_l, n_l)), stats, exact)

        h16 = lambda *shape: np.zeros(shape, np.float16)
        refusals = [
            ("Q float32", np.zeros((1, 8, 2, 64), np.float32), h16(1, 8, 2, 64), h16(1, 8, 2, 64), [], None),
            ("d = 96", h16(1, 8, 2, 96), h16(1, 8, 2, 96), h16(1, 8, 2, 96), [], None),
            ("K with 3 heads, Q with 2", h16(1, 8, 2, 64), h16(1, 8, 3, 64), h16(1, 8, 3, 64), [], None),
            ("V longer than K", h16(1, 8, 2, 64), h16(1, 8, 2, 64), h16(1, 9, 2, 64), [], None),
            ("Q of rank 3", h16(8, 2, 64), h16(1, 8, 2, 64), h16(1, 8, 2, 64), [], None),
            ("--scale nan", h16(1, 8, 2, 64), h16(1, 8, 2, 64), h16(1, 8, 2, 64), ["--scale", "nan"], None),
            ("an entry point's name", h16(1, 8, 2, 64), h16(1, 8, 2, 64), h16(1, 8, 2, 64), [],
             args.kernel + "_d64"),
        ]
        for what, q, k, v, flags, kernel in [] if args.only else refusals:
            r = attention(q, k, v, flags, kernel or args.kernel)
            lines = r.stderr.strip().splitlines()
            ok = r.returncode == 2 and len(lines) == 1 and not os.path.exists(path["O"])
            bad += not ok
            print(f"refused ({what}): {'ok' if ok else 'MISMATCH'}, exit code {r.returncode}: {' / '.join(lines)}")
    print("attention-check: " + ("all ok" if bad == 0 else f"{bad} check(s) failed"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
