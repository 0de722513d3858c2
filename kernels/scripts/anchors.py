"""The anchors the GPU kernels of layout-kernels are compared with, timed
like `gpu-runner` times ours (CUDA events, 3 warm-up runs, mean of REPS):
a device copy, torch's transpose, and cuBLAS SGEMM through torch (TF32
off, so it is a real fp32 product), cuBLAS HGEMM.

    python3 kernels/anchors.py [N] [REPS] [PTX]

With PTX (layout_kernels.ptx), the HGEMMs of layout-kernels are also run
through cupy on N x N x N inputs and every entry is compared with cuBLAS's
product of the same inputs: f32 accumulation within 2 k eps32 sum|a b|
(two f32 sums of the same products in different orders), f16 accumulation
on ternary inputs, where every partial sum is a small integer and both must
agree exactly.
"""
import sys

import torch

n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 20
ptx = sys.argv[3] if len(sys.argv) > 3 else None
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def time(f):
    for _ in range(3):
        f()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        f()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / reps


x = torch.randn(n, n, device="cuda")
y = torch.empty_like(x)
a, b = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
c = torch.empty(n, n, device="cuda")
rows = [
    ("copy (torch)", time(lambda: y.copy_(x)), 8 * n * n, None),
    ("transpose (torch .t().contiguous())", time(lambda: y.copy_(x.t())), 8 * n * n, None),
    ("sgemm (cuBLAS via torch, TF32 off)", time(lambda: torch.mm(a, b, out=c)), None, 2 * n**3),
]
ah, bh = a.half(), b.half()
ch = torch.empty(n, n, device="cuda", dtype=torch.half)
rows.append(("hgemm A·Bᵀ (cuBLAS via torch, f16 in/out, f32 accumulate)",
             time(lambda: torch.mm(ah, bh.t(), out=ch)), None, 2 * n**3))
# cuBLAS with f16 accumulation where torch allows asking for it.
try:
    torch.backends.cuda.matmul.allow_fp16_accumulation = True
    rows.append(("hgemm A·Bᵀ (cuBLAS via torch, f16 accumulate)",
                 time(lambda: torch.mm(ah, bh.t(), out=ch)), None, 2 * n**3))
    torch.backends.cuda.matmul.allow_fp16_accumulation = False
except AttributeError:
    pass
print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}")
print("| anchor | size | ms | rate |")
print("| --- | --- | --- | --- |")
for name, ms, nbytes, flops in rows:
    rate = f"{nbytes / ms / 1e6:.0f} GB/s" if nbytes else f"{flops / ms / 1e9:.1f} TFLOP/s"
    print(f"| {name} | {n}x{n} | {ms:.4f} | {rate} |")

if ptx:
    import cupy as cp
    import numpy as np

    mod = cp.RawModule(path=ptx)
    grid, block = (n // 128, n // 128), (128,)
    dims = (np.uint64(n), np.uint64(n), np.uint64(n))
    print("| layout HGEMM vs cuBLAS, every entry | size | check |")
    print("| --- | --- | --- |")
    # f32 accumulation: random f16 inputs.
    a16 = torch.randn(n, n, device="cuda").half()
    b16 = torch.randn(n, n, device="cuda").half()
    c32 = torch.zeros(n, n, device="cuda")
    mod.get_function("hgemm_f32")(grid, block, (cp.asarray(a16), cp.asarray(b16), cp.asarray(c32), *dims))
    cp.cuda.Device().synchronize()
    ref = torch.mm(a16.float(), b16.float().t())
    bound = 2 * n * 2.0**-24 * torch.mm(a16.float().abs(), b16.float().abs().t())
    bad = int(((c32 - ref).abs() > bound).sum())
    print(f"| hgemm_f32 (f32 accumulate) vs cuBLAS SGEMM of the same f16 values | {n}x{n}x{n} | "
          f"{bad} of {n * n} beyond 2 k eps sum|ab| |")
    # f16 accumulation: ternary inputs, exact on both sides.
    t = lambda: torch.randint(-1, 2, (n, n), device="cuda").half()
    a16, b16 = t(), t()
    c16 = torch.zeros(n, n, device="cuda", dtype=torch.half)
    mod.get_function("hgemm_f16")(grid, block, (cp.asarray(a16), cp.asarray(b16), cp.asarray(c16), *dims))
    cp.cuda.Device().synchronize()
    try:
        torch.backends.cuda.matmul.allow_fp16_accumulation = True
    except AttributeError:
        pass
    ref16 = torch.mm(a16, b16.t())
    bad = int((c16 != ref16).sum())
    print(f"| hgemm_f16 (f16 accumulate) vs cuBLAS HGEMM, ternary inputs | {n}x{n}x{n} | "
          f"{bad} of {n * n} differ |")
