"""Runs the Hopper kernels of layout-kernels-sm90 on the GPU and checks them
against NumPy (cupy loads the PTX; no Rust needed on the GPU machine).

    python3 kernels/sm90/check.py PTX

wgmma_atom: C (64 x 64 f32) = A (64 x 16 f16) x B (64 x 16 f16)^T, with
small integers so that the product is exact: every entry must match.
Exit status 0 when all match, 1 otherwise.
"""
import sys

import cupy as cp
import numpy as np


def main():
    mod = cp.RawModule(path=sys.argv[1])
    k = mod.get_function("wgmma_atom")
    rng = np.random.default_rng(29)
    a = rng.integers(-4, 5, (64, 16)).astype(np.float16)
    b = rng.integers(-4, 5, (64, 16)).astype(np.float16)
    da, db = cp.asarray(a.view(np.uint16)), cp.asarray(b.view(np.uint16))
    dc = cp.full((64, 64), np.nan, dtype=cp.float32)
    k((1,), (128,), (da, db, dc))
    cp.cuda.Device().synchronize()
    want = a.astype(np.float32) @ b.astype(np.float32).T
    got = dc.get()
    bad = int(np.sum(got != want))
    print(f"wgmma_atom m64n64k16 f32 (K-major INTERLEAVE descriptors): "
          f"{'exact' if bad == 0 else f'{bad} of 4096 entries wrong'}")
    if bad:
        i, j = np.argwhere(got != want)[0]
        print(f"  first: C[{i},{j}] = {got[i, j]}, expected {want[i, j]}")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
