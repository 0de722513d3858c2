#!/usr/bin/env bash
# On a machine with an NVIDIA GPU (no Rust needed): runs, checks and times
# the kernels of layout-kernels and their anchors in one go.
#
#   kernels/scripts/gpu-bench.sh BIN_DIR [CUTLASS_DIR]
#
# BIN_DIR holds `gpu-runner` and `layout_kernels.ptx` (built on any Linux
# x86-64 machine: kernels/scripts/build-ptx.sh, cargo build --release -p
# layout-gpu-runner). CUTLASS_DIR, when given, holds CUTLASS's `include/`,
# `tools/util/include/` and `examples/cute/tutorial/`: CuTe's tutorial
# kernels are built with nvcc (timed) and run as anchors.
set -uo pipefail
bin=${1:?usage: kernels/scripts/gpu-bench.sh BIN_DIR [CUTLASS_DIR]}
cutlass=${2:-}
here=$(dirname "$0")
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
nvcc --version | tail -2 | head -1
echo "## layout-kernels (gpu-runner)"
"$bin/gpu-runner" "$bin/layout_kernels.ptx" || echo "gpu-runner failed: $?"
echo "## anchors (torch)"
python3 "$here/anchors.py" 4096 20 "$bin/layout_kernels.ptx"
if [ -n "$cutlass" ]; then
    echo "## CuTe tutorial kernels (nvcc -O3 -arch=sm_90a)"
    tmp=$(mktemp -d)
    for k in sgemm_2 tiled_copy sgemm_sm80; do
        start=$(date +%s%N)
        nvcc -O3 -std=c++17 -arch=sm_90a -I"$cutlass/include" -I"$cutlass/tools/util/include" \
            "$cutlass/examples/cute/tutorial/$k.cu" -o "$tmp/$k" 2>&1 | grep -v "warning" | head -5
        end=$(date +%s%N)
        echo "build $k.cu: $(( (end - start) / 1000000 )) ms"
    done
    # CuTe's SGEMM, NT (its default) and TN, 4096^3.
    "$tmp/sgemm_2" 4096 4096 4096 N T | grep -E "CUTE_GEMM|Verif|M =|N =|K =" || true
    "$tmp/sgemm_2" 4096 4096 4096 T N | grep -E "CUTE_GEMM" || true
    # CuTe's SM80 tensor-core HGEMM (f16 in/out), TN as its tutorial runs it.
    "$tmp/sgemm_sm80" 4096 4096 4096 T N | grep -E "CUTE_GEMM|C =" || true
fi
