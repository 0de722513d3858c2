"""The anchors the GPU kernels of layout-kernels are compared with, timed
like `gpu-runner` times ours (CUDA events, 3 warm-up runs, mean of REPS):
a device copy, torch's transpose, and cuBLAS SGEMM through torch (TF32
off, so it is a real fp32 product).

    python3 kernels/anchors.py [N] [REPS]
"""
import sys

import torch

n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 20
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
