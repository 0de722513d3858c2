"""torch's counterparts of the Hopper GEMM entries that `gpu-runner sm90`
times, timed the way it times them (5 rounds of 10 launches after 2
warm-ups, each round after 100 ms idle; the median round), on normal
operands of the same sizes:

- `gemm_bf16_sm90`, `gemm_bf16_tma_sm90`: cuBLAS bf16 C = A·Bᵀ, f32
  accumulation (torch.matmul);
- `gemm_bias_gelu_bf16_sm90`: torch's fused `addmm` + exact GELU
  (F.linear then F.gelu, two kernels), the three calls A·Bᵀ, + bias and
  F.gelu, and cuBLASLt's GELU epilogue where
  torch exposes it (`torch._addmm_activation(..., use_gelu=True)`,
  tanh GELU);
- `gemm_bias_gelu_tanh_bf16_sm90`: the same with `approximate='tanh'`
  (unfused, and three calls);
- `gemm_e4m3_sm90`: `torch._scaled_mm` (e4m3 A and B, f32 scales, bf16 C);
- `gemm_grouped_bf16_sm90`: `torch._grouped_mm` on 8 groups of 64 to 2048
  rows, N = K = 4096 (gpu-runner's grouped problem), and the same groups
  as one cuBLAS call each.

    python3 kernels/scripts/gemm-anchors-sm90.py
"""
import torch
import torch.nn.functional as F
from anchor_timing import median_round

torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False


def row(name, n, flops, f):
    try:
        ms = median_round(f)
        print(f"| {name} | {n} | {ms:.4f} | {flops / ms / 1e9:.1f} |")
    except Exception as e:  # an anchor this torch lacks: say so, go on
        print(f"| {name} | {n} | - | unavailable: {type(e).__name__}: {str(e).splitlines()[0][:100]} |")


print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}")
print("| anchor | size | ms (median of 5 rounds) | TFLOP/s |")
print("| --- | --- | --- | --- |")
for n in (4096, 8192):
    flops = 2 * n**3
    a = torch.randn(n, n, device="cuda").bfloat16()
    b = torch.randn(n, n, device="cuda").bfloat16()
    c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
    bias = torch.randn(n, device="cuda").bfloat16()
    row("cuBLAS bf16 A·Bᵀ", n, flops, lambda: torch.matmul(a, b.t(), out=c))
    row("F.linear(A, B, bias) then F.gelu (exact), unfused", n, flops,
        lambda: F.gelu(F.linear(a, b, bias)))
    row("A·Bᵀ, + bias, F.gelu (exact): three calls", n, flops,
        lambda: F.gelu(torch.matmul(a, b.t()) + bias))
    row("F.linear(A, B, bias) then F.gelu (tanh), unfused", n, flops,
        lambda: F.gelu(F.linear(a, b, bias), approximate="tanh"))
    row("A·Bᵀ, + bias, F.gelu (tanh): three calls", n, flops,
        lambda: F.gelu(torch.matmul(a, b.t()) + bias, approximate="tanh"))
    row("cuBLASLt bias + GELU epilogue (_addmm_activation, tanh GELU)", n, flops,
        lambda: torch._addmm_activation(bias, a, b.t(), use_gelu=True))
    a8 = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn)
    b8 = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn)
    one = torch.tensor(1.0, device="cuda")
    row("torch._scaled_mm e4m3, bf16 out", n, flops,
        lambda: torch._scaled_mm(a8, b8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16))
    del a, b, c, a8, b8

sizes = [64, 2048, 512, 128, 1024, 256, 1536, 768]
n = k = 4096
rows = sum(sizes)
flops = 2 * rows * n * k
a = torch.randn(rows, k, device="cuda").bfloat16()
b = torch.randn(len(sizes), n, k, device="cuda").bfloat16()
offs = torch.tensor(sizes, device="cuda").cumsum(0).to(torch.int32)
row("torch._grouped_mm 8 groups (64..2048) x 4096 x 4096", rows, flops,
    lambda: torch._grouped_mm(a, b.transpose(-2, -1), offs=offs, out_dtype=torch.bfloat16))
starts = [0] + offs.tolist()[:-1]
row("one cuBLAS call per group", rows, flops,
    lambda: [torch.matmul(a[s:s + m], b[g].t()) for g, (s, m) in enumerate(zip(starts, sizes))])
