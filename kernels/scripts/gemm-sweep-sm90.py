"""The Hopper dense GEMM, as `Gpu::hgemm_sm90` and `Gpu::gemm_bf16_sm90`
run it (the entry the host's plan picks per shape: split-K where the
tiles do not fill the GPU, else clusters of two with C stored by TMA),
beside cuBLAS (torch `a @ b.T`, f32 accumulation) on the same shapes:
4096³, 8192³ and a language model's sweep, M in {128, 512, 2048, 8192}
by (N, K) in {(4096, 4096), (14336, 4096), (4096, 14336), (128256, 4096)}.
Both timed by the same protocol (`anchor_timing.py`, gpu-runner's
`timing.rs`) on normal operands; ratio = cuBLAS's time / ours.

    python3 kernels/scripts/gemm-sweep-sm90.py target/gpu/gpu-runner \\
        target/gpu/sm90/layout_kernels_sm90.ptx [--dtype float16 bfloat16]
"""
import argparse
import math
import subprocess

import torch
from anchor_timing import median_round

torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False

SQUARE = [(4096, 4096, 4096), (8192, 8192, 8192)]
SWEEP = [(m, n, k) for m in (128, 512, 2048, 8192)
         for (n, k) in ((4096, 4096), (14336, 4096), (4096, 14336), (128256, 4096))]


def ours(runner, ptx, dtype, shapes):
    """gpu-runner gemm-time's rows: {(m, n, k): (entry, splits, ms)}."""
    args = [runner, "gemm-time", ptx, "--dtype", dtype]
    for m, n, k in shapes:
        args += ["--shape", f"{m}x{n}x{k}"]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    rows = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 8 and cells[2].isdigit():
            entry, splits, m, n, k, _, ms, _ = cells
            rows[(int(m), int(n), int(k))] = (entry, int(splits), float(ms))
    return rows


def cublas(dtype, m, n, k):
    t = getattr(torch, dtype)
    a = torch.randn(m, k, device="cuda").to(t)
    b = torch.randn(n, k, device="cuda").to(t)
    c = torch.empty(m, n, device="cuda", dtype=t)
    ms = median_round(lambda: torch.matmul(a, b.t(), out=c))
    del a, b, c
    torch.cuda.empty_cache()
    return ms


def main():
    p = argparse.ArgumentParser()
    p.add_argument("runner")
    p.add_argument("ptx")
    p.add_argument("--dtype", nargs="+", default=["float16", "bfloat16"])
    a = p.parse_args()
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}")
    for dtype in a.dtype:
        shapes = SQUARE + SWEEP
        mine = ours(a.runner, a.ptx, dtype, shapes)
        print(f"\n{dtype}")
        print("| M | N | K | entry | splits | ours ms | TFLOP/s | cuBLAS ms | TFLOP/s | cuBLAS / ours |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        ratios = []
        for (m, n, k) in shapes:
            entry, splits, ms = mine[(m, n, k)]
            ref = cublas(dtype, m, n, k)
            flops = 2 * m * n * k
            r = ref / ms
            if (m, n, k) in SWEEP:
                ratios.append(r)
            print(f"| {m} | {n} | {k} | {entry} | {splits} | {ms:.4f} | {flops / ms / 1e9:.1f} "
                  f"| {ref:.4f} | {flops / ref / 1e9:.1f} | {r:.3f} |")
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"\n{dtype} sweep: geomean {geo:.3f}, lowest {min(ratios):.3f} ({len(ratios)} shapes)")


if __name__ == "__main__":
    main()
