#!/usr/bin/env python3
"""Checks `gpu-runner gemm` and `gpu-runner transpose` against NumPy, on the
GPU machine (NumPy needed, no network):

    python3 kernels/gemm-check.py RUNNER PTX [--m 384 --n 256 --k 96 --t 320]

For each GEMM kernel: random A and B (entries in [-1, 1); f16 kernels get
the f16-rounded values, and NumPy multiplies those same values in f64) saved
in the kernel's storage order, `RUNNER gemm PTX KERNEL A.npy B.npy C.npy`,
then C (dtype, shape, C-order) against NumPy's product: every entry within
k * eps * sum|a b| of it (eps of the accumulator: f32, or f16 for
hgemm_f16), and the relative Frobenius error below 1e-5 (f32 accumulators)
or 1e-2 (f16). Then `transpose_f32` on a random T x T matrix, exactly; and
two inputs the runner must refuse (exit code 2, one line on stderr).
One line per check; exit code 1 on any mismatch.

The default shape, 384 x 256 x 96, is one the runner's own checks never use
(they run n x n x n): M = 3 tiles, N = 2, K = 3 k-blocks of the HGEMM and
12 of the SGEMM.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

# (kernel, f16 inputs, B stored N x K, A stored M-major, C dtype)
GEMMS = [
    ("sgemm_f32", False, False, False, np.float32),
    ("sgemm_nt_f32", False, False, True, np.float32),
    ("hgemm_f32", True, True, False, np.float32),
    ("hgemm_f16", True, True, False, np.float16),
]


def run(runner, args):
    return subprocess.run([runner, *args], capture_output=True, text=True, timeout=300)


def check_output(path, dtype, shape):
    """C as np.load reads it, or a reason it is not what the runner promises."""
    c = np.load(path)
    if c.dtype != np.dtype(dtype) or c.shape != shape or not c.flags.c_contiguous:
        return None, f"C is {c.dtype} {c.shape} (C-order: {c.flags.c_contiguous}), expected {np.dtype(dtype)} {shape} C-order"
    return c, None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("runner", help="the gpu-runner binary")
    p.add_argument("ptx", help="layout_kernels.ptx")
    p.add_argument("--m", type=int, default=384)
    p.add_argument("--n", type=int, default=256)
    p.add_argument("--k", type=int, default=96)
    p.add_argument("--t", type=int, default=320, help="side of the transpose (a multiple of 64)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    m, n, k = args.m, args.n, args.k
    rng = np.random.default_rng(args.seed)
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        a_path, b_path, c_path = (os.path.join(d, f) for f in ("A.npy", "B.npy", "C.npy"))
        for kernel, half, b_nk, a_m_major, c_dtype in GEMMS:
            in_dtype = np.float16 if half else np.float32
            a = rng.uniform(-1, 1, (m, k)).astype(in_dtype)
            b = rng.uniform(-1, 1, (n, k) if b_nk else (k, n)).astype(in_dtype)
            np.save(a_path, np.asfortranarray(a) if a_m_major else a)
            np.save(b_path, b)
            if os.path.exists(c_path):
                os.remove(c_path)
            r = run(args.runner, ["gemm", args.ptx, kernel, a_path, b_path, c_path])
            what = f"{kernel} {m}x{n}x{k}"
            if r.returncode != 0:
                print(f"{what}: FAILED, exit code {r.returncode}: {r.stderr.strip()}")
                bad += 1
                continue
            c, why = check_output(c_path, c_dtype, (m, n))
            if c is None:
                print(f"{what}: MISMATCH, {why}")
                bad += 1
                continue
            a64 = a.astype(np.float64)
            b64 = b.astype(np.float64)
            if b_nk:
                b64 = b64.T
            want = a64 @ b64
            size = np.abs(a64) @ np.abs(b64)
            eps = float(np.finfo(np.float16 if c_dtype == np.float16 else np.float32).eps)
            err = np.abs(c.astype(np.float64) - want)
            beyond = int(np.count_nonzero(err > k * eps * size + 1e-30))
            rel = float(np.linalg.norm(err) / np.linalg.norm(want))
            limit = 1e-2 if c_dtype == np.float16 else 1e-5
            ok = beyond == 0 and rel < limit
            bad += not ok
            print(f"{what}: {'ok' if ok else 'MISMATCH'}, max |err| {err.max():.2e}, "
                  f"{beyond} of {m * n} beyond k*eps*sum|ab|, relative error {rel:.1e} (limit {limit:.0e})")

        t = args.t
        x = rng.uniform(-1, 1, (t, t)).astype(np.float32)
        x_path, y_path = os.path.join(d, "X.npy"), os.path.join(d, "Y.npy")
        np.save(x_path, x)
        r = run(args.runner, ["transpose", args.ptx, "transpose_f32", x_path, y_path])
        what = f"transpose_f32 {t}x{t}"
        if r.returncode != 0:
            print(f"{what}: FAILED, exit code {r.returncode}: {r.stderr.strip()}")
            bad += 1
        else:
            y, why = check_output(y_path, np.float32, (t, t))
            wrong = (t * t) if y is None else int(np.count_nonzero(y != x.T))
            bad += wrong != 0
            print(f"{what}: {'exact' if wrong == 0 else f'MISMATCH, {wrong} of {t * t} wrong'}"
                  + (f" ({why})" if why else ""))

        # Refusals: a shape off the tile, an A in the wrong order.
        np.save(a_path, rng.uniform(-1, 1, (m - 1, k)).astype(np.float32))
        np.save(b_path, rng.uniform(-1, 1, (k, n)).astype(np.float32))
        refusals = [("sgemm_f32, M off the tile", ["gemm", args.ptx, "sgemm_f32", a_path, b_path, c_path])]
        a_c = os.path.join(d, "A_c.npy")
        np.save(a_c, rng.uniform(-1, 1, (m, k)).astype(np.float32))
        refusals.append(("sgemm_nt_f32, A C-order", ["gemm", args.ptx, "sgemm_nt_f32", a_c, b_path, c_path]))
        for what, argv in refusals:
            r = run(args.runner, argv)
            lines = r.stderr.strip().splitlines()
            ok = r.returncode == 2 and len(lines) == 1
            bad += not ok
            print(f"refused ({what}): {'ok' if ok else 'MISMATCH'}, exit code {r.returncode}: "
                  f"{' / '.join(lines)}")
    print("gemm-check: " + ("all ok" if bad == 0 else f"{bad} check(s) failed"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
