#!/usr/bin/env python3
"""Checks `gpu-runner gemm PTX hgemm_sm90` against NumPy on the GPU machine
(NumPy needed, no network), one process per shape:

    python3 kernels/hgemm-sm90-check.py RUNNER SM90_PTX [--shapes MxNxK,...]

Integer inputs (A in -1..1, B in -2..2, as float16): every dot product is an
integer that f32 accumulates exactly (|sum| < 2^24), so C must equal NumPy's
integer product rounded once to float16, at every entry. Then random normal
inputs on two shapes, within k * eps(f32) * sum|a b| plus half an f16 ulp
of the result. Then inputs the runner must refuse (exit code 2, one line).
The default shapes have partial tiles in M, N and K (the kernel's tile is
128 x 256 x 64) and sizes no other check uses.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

SHAPES = "1x1x8,7x9x16,127x255x56,129x257x72,200x136x520,640x384x224,333x1031x136,1000x1500x1016,2048x40x4104,96x4000x64"


def run(runner, args):
    return subprocess.run([runner, *args], capture_output=True, text=True, timeout=300)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("runner")
    p.add_argument("ptx")
    p.add_argument("--shapes", default=SHAPES)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    rng = np.random.default_rng(args.seed)
    shapes = [tuple(int(v) for v in s.split("x")) for s in args.shapes.split(",")]
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        pa, pb, pc = (os.path.join(d, f) for f in ("A.npy", "B.npy", "C.npy"))

        def gemm(a, b):
            np.save(pa, a)
            np.save(pb, b)
            if os.path.exists(pc):
                os.remove(pc)
            r = run(args.runner, ["gemm", args.ptx, "hgemm_sm90", pa, pb, pc])
            if r.returncode != 0:
                return None, f"FAILED, exit code {r.returncode}: {r.stderr.strip()}"
            c = np.load(pc)
            if c.dtype != np.float16 or c.shape != (a.shape[0], b.shape[0]) or not c.flags.c_contiguous:
                return None, f"C is {c.dtype} {c.shape}, expected float16 {(a.shape[0], b.shape[0])} C-order"
            return c, None

        for m, n, k in shapes:
            a = rng.integers(-1, 2, (m, k)).astype(np.float16)
            b = rng.integers(-2, 3, (n, k)).astype(np.float16)
            c, why = gemm(a, b)
            what = f"hgemm_sm90 {m}x{n}x{k} (integers)"
            if c is None:
                print(f"{what}: {why}")
                bad += 1
                continue
            want = (a.astype(np.int64) @ b.astype(np.int64).T).astype(np.float64).astype(np.float16)
            wrong = np.argwhere(c != want)
            bad += len(wrong) != 0
            if len(wrong) == 0:
                print(f"{what}: every entry exact")
            else:
                i, j = wrong[0]
                print(f"{what}: MISMATCH, {len(wrong)} of {m * n} wrong (first [{i}][{j}] = {c[i, j]} not {want[i, j]})")

        for m, n, k in [(300, 520, 136), (1024, 1024, 1024)]:
            a = rng.standard_normal((m, k)).astype(np.float16)
            b = rng.standard_normal((n, k)).astype(np.float16)
            c, why = gemm(a, b)
            what = f"hgemm_sm90 {m}x{n}x{k} (normal)"
            if c is None:
                print(f"{what}: {why}")
                bad += 1
                continue
            a64, b64 = a.astype(np.float64), b.astype(np.float64).T
            want = a64 @ b64
            size = np.abs(a64) @ np.abs(b64)
            tol = k * np.finfo(np.float32).eps * size + np.abs(want) * np.finfo(np.float16).eps / 2 + 6e-8
            beyond = int(np.count_nonzero(np.abs(c.astype(np.float64) - want) > tol))
            bad += beyond != 0
            print(f"{what}: {'ok' if beyond == 0 else 'MISMATCH'}, {beyond} of {m * n} beyond the bound")

        refusals = [
            ("K = 12, not a multiple of 8", np.zeros((5, 12), np.float16), np.zeros((7, 12), np.float16)),
            ("A float32", np.zeros((5, 8), np.float32), np.zeros((7, 8), np.float16)),
            ("B K x N", np.zeros((5, 8), np.float16), np.zeros((8, 7), np.float16)),
        ]
        for what, a, b in refusals:
            np.save(pa, a)
            np.save(pb, b)
            r = run(args.runner, ["gemm", args.ptx, "hgemm_sm90", pa, pb, pc])
            lines = r.stderr.strip().splitlines()
            ok = r.returncode == 2 and len(lines) == 1
            bad += not ok
            print(f"refused ({what}): {'ok' if ok else 'MISMATCH'}, exit code {r.returncode}: {' / '.join(lines)}")
    print("hgemm-sm90-check: " + ("all ok" if bad == 0 else f"{bad} check(s) failed"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
