#!/usr/bin/env bash
# On an H100/H200 (no Rust needed): checks and times the Hopper kernels of
# layout-kernels-sm90 and their anchors in one run.
#
#   kernels/scripts/gpu-bench-sm90.sh BIN_DIR [CUTLASS_DIR]
#
# BIN_DIR holds `gpu-runner` and `sm90/layout_kernels_sm90.ptx` (built on
# any Linux x86-64 machine: `cargo run -p layout-ptx -- kernels/sm90
# BIN_DIR/sm90 --arch sm_90a --ptx 8.3`, `cargo build --release -p
# layout-gpu-runner`). CUTLASS_DIR, when given, holds CUTLASS's `include/`,
# `tools/util/include/` and `examples/cute/tutorial/`: CuTe's Hopper
# tutorial GEMM (wgmma + TMA) is built with nvcc and run as the anchor.
set -uo pipefail
bin=${1:?usage: kernels/scripts/gpu-bench-sm90.sh BIN_DIR [CUTLASS_DIR]}
cutlass=${2:-}
here=$(dirname "$0")
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "## layout-kernels-sm90 (gpu-runner sm90)"
timeout 300 "$bin/gpu-runner" sm90 "$bin/sm90/layout_kernels_sm90.ptx" || echo "gpu-runner sm90 failed: $?"
echo "## hgemm_sm90 through gpu-runner gemm, against NumPy"
python3 "$here/hgemm-sm90-check.py" "$bin/gpu-runner" "$bin/sm90/layout_kernels_sm90.ptx"
echo "## cuBLAS (torch): C = A·Bᵀ, f16 in and out, f32 accumulate"
python3 - <<'PY'
import time
import torch
torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
for n in (4096, 8192):
    a = torch.randn(n, n, device="cuda").half()
    b = torch.randn(n, n, device="cuda").half()
    c = torch.empty(n, n, device="cuda", dtype=torch.half)
    rounds = []
    for _ in range(5):  # as gpu-runner's: 5 rounds of 10 after 2 warm-ups and 100 ms idle, the median
        torch.cuda.synchronize()
        time.sleep(0.1)
        for _ in range(2):
            torch.matmul(a, b.t(), out=c)
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(10):
            torch.matmul(a, b.t(), out=c)
        e.record()
        torch.cuda.synchronize()
        rounds.append(s.elapsed_time(e) / 10)
    ms = sorted(rounds)[2]
    print(f"cuBLAS hgemm A·Bᵀ {n}^3: {ms:.4f} ms (median of 5 rounds), {2 * n**3 / ms / 1e9:.1f} TFLOP/s")
PY
echo "## torch's counterparts of the bf16, bias-GELU, FP8 and grouped GEMM entries"
timeout 300 python3 "$here/gemm-anchors-sm90.py" || echo "gemm-anchors-sm90 failed: $?"
if [ -n "$cutlass" ]; then
    echo "## CuTe's Hopper tutorial GEMM (nvcc -O3 -arch=sm_90a)"
    tmp=$(mktemp -d)
    # The log whole (not piped into head, which would stop nvcc midway).
    nvcc -O3 -std=c++17 -arch=sm_90a -I"$cutlass/include" -I"$cutlass/tools/util/include" \
        "$cutlass/examples/cute/tutorial/hopper/wgmma_tma_sm90.cu" -o "$tmp/wgmma_tma_sm90" \
        >"$tmp/nvcc.log" 2>&1 || { echo "nvcc failed:"; grep -i error "$tmp/nvcc.log" | head -5; }
    for n in 4096 8192; do
        echo "wgmma_tma_sm90 $n^3 TN:"
        "$tmp/wgmma_tma_sm90" $n $n $n T N | grep -E "CUTE_GEMM" || true
    done
fi
# Last: a failed device check must fail the launch (the CUDA context is
# unusable after it, so nothing runs after this in its process).
echo "## a failed device-side check stops the kernel (kernels/scripts/trap-check.py)"
timeout 60 python3 "$here/trap-check.py" "$bin/layout_kernels_sm90.ptx" || echo "trap-check failed: $?"
