#!/usr/bin/env python3
"""Checks `gpu-runner decode` (decode attention over a paged KV cache)
against float64 NumPy, and its refusals.

Each case builds a cache of blocks in a scrambled order (a random
permutation), with the first blocks of sequences 0 and 1 shared (a common
prefix), runs one decode step through the runner (with `--split-keys` to
force splits, or the plan's), and compares O and LSE with a float64
reference of each sequence's context gathered in order, within a bound
derived from the kernel's roundings (the same as attention-check.py's,
with the merges of the warps' and splits' partial results added: a few
float32 roundings each). Covered: contexts of 0, 1, block_size - 1,
block_size and block_size + 1; several queries with the causal mask
(bottom-right: the first rows of a short context see no key, which must be
exactly O = 0 and LSE = -inf); grouped heads up to 64 rows a K/V head;
block sizes 16 to 256; split and unsplit; negative and zero scales; and a
step that first appends the new tokens' K and V (`--append`, kv_append).
Two split cases run with `--time`: the O and LSE checked are then the
last of some sixty steps, each of which found the split counters the one
before left (the last split of each row block merges and wraps its
counter to 0). Exit code 1 if any case is off.

    python3 kernels/scripts/decode-check.py target/gpu/layout_kernels.ptx target/gpu/gpu-runner
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

U16, U32, SAFETY, ATOL_O = 2.0**-11, 2.0**-24, 2.0, 2.0**-25
# The merges (4 warps, then the splits): exp2, a division and sums in
# float32, a few roundings each, relative to |O| and |LSE|.
MERGE = 32 * U32

# Split cases checked after many steps (`--time`): the counters' reuse.
REPEATED = {"causal q_len 4 split", "the plan's splits"}

# (label, d, block_size, contexts, q_len, q_heads, kv_heads, causal, split_keys, scale, append)
CASES = [
    ("edges", 128, 64, [1, 63, 64, 65, 0], 1, 32, 8, False, None, None, False),
    ("edges d64", 64, 16, [15, 16, 17, 1, 0], 1, 8, 2, False, None, None, False),
    ("causal q_len 4 split", 128, 64, [700, 65, 0, 3000], 4, 32, 8, True, 64, None, False),
    ("split d64", 64, 16, [1000, 129, 5], 1, 8, 1, False, 256, 0.3, False),
    ("causal short contexts, 2 row blocks", 64, 256, [300, 3, 40], 5, 16, 4, True, None, None, False),
    ("q_len 16 group 8 (8 row blocks)", 128, 32, [2000, 1500], 16, 64, 8, True, None, None, False),
    ("the plan's splits", 128, 128, [20000], 1, 32, 8, False, None, None, False),
    ("negative scale", 64, 32, [100, 64], 1, 4, 4, False, None, -0.5, False),
    ("zero scale", 128, 64, [77], 2, 2, 1, True, None, 0.0, False),
    ("append then attend", 128, 64, [100, 200, 64], 2, 32, 8, True, 128, None, True),
]


def run(runner, args):
    return subprocess.run([runner, *args], capture_output=True, text=True, timeout=300)


def reference(q, k, v, scale, causal):
    """O, LSE (float64) and their bounds for one sequence: q (q_len, h, d),
    k and v (ctx, kv_heads, d)."""
    q_len, h, d = q.shape
    ctx, hkv = k.shape[0], k.shape[1]
    o = np.zeros((q_len, h, d))
    o_tol = np.full((q_len, h, d), ATOL_O)
    lse = np.full((h, q_len), -np.inf)
    lse_tol = np.zeros((h, q_len))
    for hi in range(h):
        kh = hi // (h // hkv)
        for i in range(q_len):
            keys = ctx - q_len + i + 1 if causal else ctx
            keys = max(0, min(ctx, keys))
            if keys == 0:
                continue
            q64 = q[i, hi].astype(np.float64)
            k64 = k[:keys, kh].astype(np.float64)
            v64 = v[:keys, kh].astype(np.float64)
            s = scale * (k64 @ q64)
            a = abs(scale) * (np.abs(k64) @ np.abs(q64)).max()
            m = s.max()
            e = np.exp(s - m)
            z = e.sum()
            p = e / z
            o[i, hi] = p @ v64
            w = p @ np.abs(v64)
            mm = np.abs(s).max()
            eps = U16 + U32 * (d * a + 4 * mm + 8) + MERGE
            o_tol[i, hi] = SAFETY * ((2 * eps + keys * U32) * w + U16 * np.abs(o[i, hi])) + ATOL_O
            lse[hi, i] = m + np.log(z)
            lse_tol[hi, i] = SAFETY * (U16 + U32 * (d * a + 4 * mm + keys + 8 + abs(lse[hi, i])) + MERGE)
    return o, o_tol, lse, lse_tol


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ptx")
    ap.add_argument("runner")
    ap.add_argument("--kernel", default="decode_attn", help="the KERNEL argument (default decode_attn)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", metavar="TEXT", help="only the cases whose label contains TEXT, no refusals")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = {n: os.path.join(tmp, f"{n}.npy") for n in
                ("Q", "K", "V", "T", "L", "O", "LSE", "KN", "VN", "S")}
        for label, d, bs, ctxs, q_len, h, hkv, causal, split, scale, append in CASES:
            if args.only and args.only not in label:
                continue
            batch = len(ctxs)
            per = max(1, max((c + bs - 1) // bs for c in ctxs))
            blocks = batch * per + 3
            perm = rng.permutation(blocks).astype(np.int32)
            table = perm[: batch * per].reshape(batch, per).copy()
            if batch > 1 and ctxs[0] >= bs and ctxs[1] >= bs:
                table[1, 0] = table[0, 0]  # a shared prefix block
            normal = lambda *s: rng.standard_normal(s, dtype=np.float32).astype(np.float16)
            kc, vc = normal(blocks, bs, hkv, d), normal(blocks, bs, hkv, d)
            q = normal(batch, q_len, h, d)
            flags = ["--lse", path["LSE"]]
            if causal:
                flags.append("--causal")
            if split is not None:
                flags += ["--split-keys", str(split)]
            if scale is not None:
                flags += ["--scale", repr(scale)]
            if label in REPEATED:
                flags.append("--time")
            kv_seen = (kc.copy(), vc.copy())
            if append:
                # The last q_len tokens of each context are new: written by
                # kv_append into their slots (and garbage in the cache before).
                slots, kn, vn = [], [], []
                for b, c in enumerate(ctxs):
                    for t in range(max(0, c - q_len), c):
                        slots.append(table[b, t // bs] * bs + t % bs)
                kn, vn = normal(len(slots), hkv, d), normal(len(slots), hkv, d)
                slots.append(-1)  # a padding token: skipped
                kn = np.concatenate([kn, normal(1, hkv, d)])
                vn = np.concatenate([vn, normal(1, hkv, d)])
                for j, sl in enumerate(slots[:-1]):
                    kv_seen[0][sl // bs, sl % bs] = kn[j]
                    kv_seen[1][sl // bs, sl % bs] = vn[j]
                np.save(path["KN"], kn)
                np.save(path["VN"], vn)
                np.save(path["S"], np.array(slots, dtype=np.int32))
                flags += ["--append", path["KN"], path["VN"], path["S"]]
            for n, x in (("Q", q), ("K", kc), ("V", vc), ("T", table),
                         ("L", np.array(ctxs, dtype=np.int32))):
                np.save(path[n], x)
            what = f"decode {label}: d={d} block_size={bs} contexts={ctxs} q_len={q_len} heads={h}/{hkv}"
            r = run(args.runner, ["decode", args.ptx, args.kernel, path["Q"], path["K"], path["V"], path["T"],
                                  path["L"], path["O"], *flags])
            if r.returncode != 0:
                print(f"{what}: FAILED, exit code {r.returncode}: {r.stderr.strip()}")
                bad += 1
                continue
            o, lse = np.load(path["O"]), np.load(path["LSE"])
            s32 = float(np.float32(1.0 / np.sqrt(d) if scale is None else scale))
            worst_o = worst_l = 0.0
            off = []
            empty = exact = 0
            for b, c in enumerate(ctxs):
                blocks_b = [table[b, t // bs] for t in range(c)]
                rows = np.array([blk * bs + t % bs for t, blk in enumerate(blocks_b)], dtype=np.int64)
                kk = kv_seen[0].reshape(-1, hkv, d)[rows]
                vv = kv_seen[1].reshape(-1, hkv, d)[rows]
                ro, to, rl, tl = reference(q[b], kk, vv, s32, causal)
                eo = np.abs(o[b].astype(np.float64) - ro)
                none = np.isinf(rl)
                empty += int(none.sum())
                if none.any():
                    ok = (lse[b][none] == -np.inf).all() and (o[b].transpose(1, 0, 2)[none] == 0).all()
                    exact += int(ok) * int(none.sum())
                    if not ok:
                        off.append(f"sequence {b}: a row with no key is not O = 0, LSE = -inf")
                seen = ~none
                el = np.abs(lse[b].astype(np.float64)[seen] - rl[seen])
                if np.isnan(o[b]).any() or np.isnan(lse[b]).any():
                    off.append(f"sequence {b}: NaN")
                if (eo > to).any():
                    i = np.argwhere(eo > to)[0]
                    off.append(f"sequence {b}: O{tuple(i)} = {o[b][tuple(i)]}, want {ro[tuple(i)]:.6f} +- {to[tuple(i)]:.2e}")
                if (el > tl[seen]).any():
                    off.append(f"sequence {b}: LSE off by {el.max():.2e}")
                worst_o = max(worst_o, float((eo / to).max()))
                if el.size:
                    worst_l = max(worst_l, float((el / tl[seen]).max()))
            if off:
                print(f"{what}: FAILED, {'; '.join(off[:3])}")
                bad += 1
            else:
                print(f"{what}: ok, O within {worst_o:.3f} of its bound, LSE {worst_l:.3f}; "
                      f"{empty} (head, query) rows see no key ({exact} exactly 0 and -inf)")
        # Refusals: one line, exit code 2, no O written.
        h16 = lambda *s: np.zeros(s, np.float16)
        i32 = lambda *x: np.array(x, dtype=np.int32)
        base = dict(Q=h16(1, 1, 8, 64), K=h16(4, 16, 2, 64), V=h16(4, 16, 2, 64), T=i32([0, 1]),
                    L=i32(20))
        base["T"] = np.array([[0, 1]], dtype=np.int32)
        refusals = [
            ("d = 96", dict(Q=h16(1, 1, 8, 96), K=h16(4, 16, 2, 96), V=h16(4, 16, 2, 96)), []),
            ("q_len 17", dict(Q=h16(1, 17, 8, 64)), []),
            ("kv_heads 3", dict(Q=h16(1, 1, 8, 64), K=h16(4, 16, 3, 64), V=h16(4, 16, 3, 64)), []),
            ("block_size 48", dict(K=h16(4, 48, 2, 64), V=h16(4, 48, 2, 64)), []),
            ("LENS float32", dict(L=np.array([20.0], np.float32)), []),
            ("a context past the table", dict(L=i32(33)), []),
            ("--split-keys 100", {}, ["--split-keys", "100"]),
            ("the entry of another d", {}, ["KERNEL", "decode_attn_d128"]),
            ("an unknown kernel", {}, ["KERNEL", "flash_attn_fwd"]),
        ]
        for what, over, flags in [] if args.only else refusals:
            kernel = args.kernel
            if flags[:1] == ["KERNEL"]:
                kernel, flags = flags[1], flags[2:]
            for n, x in {**base, **over}.items():
                np.save(path[n], x)
            if os.path.exists(path["O"]):
                os.remove(path["O"])
            r = run(args.runner, ["decode", args.ptx, kernel, path["Q"], path["K"], path["V"], path["T"],
                                  path["L"], path["O"], *flags])
            lines = r.stderr.strip().splitlines()
            ok = r.returncode == 2 and len(lines) == 1 and not os.path.exists(path["O"])
            bad += not ok
            print(f"refused ({what}): {'ok' if ok else 'MISMATCH'}, exit code {r.returncode}: {' / '.join(lines)}")
    print("decode-check: " + ("all ok" if bad == 0 else f"{bad} check(s) failed"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
