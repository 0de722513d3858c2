#!/usr/bin/env bash
# On an H100/H200 (no Rust needed): checks the FlashAttention forward kernels
# of layout-kernels against NumPy, then times them next to torch's SDPA
# backends (FlashAttention, cuDNN, memory-efficient) in one run.
#
#   kernels/scripts/gpu-bench-attention.sh BIN_DIR
#
# BIN_DIR holds `gpu-runner` and `layout_kernels.ptx` (built on any Linux
# x86-64 machine: kernels/scripts/build-ptx.sh BIN_DIR, cargo build --release -p
# layout-gpu-runner), and `layout_kernels_sm90.ptx` for the Hopper kernel
# (cargo run -p layout-ptx -- kernels/sm90 BIN_DIR --arch sm_90a --ptx 8.3;
# without it only the SM80 kernel runs). Needs python3 with NumPy and torch.
set -uo pipefail
bin=${1:?usage: kernels/scripts/gpu-bench-attention.sh BIN_DIR}
here=$(dirname "$0")
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "## flash_attn_fwd through gpu-runner attention, against NumPy (float64)"
timeout 600 python3 "$here/attention-check.py" "$bin/layout_kernels.ptx" "$bin/gpu-runner" ||
    echo "attention-check failed: $?"
sm90=()
if [ -f "$bin/layout_kernels_sm90.ptx" ]; then
    echo "## flash_attn_fwd_sm90 through gpu-runner attention, against NumPy (float64)"
    timeout 600 python3 "$here/attention-check.py" "$bin/layout_kernels_sm90.ptx" "$bin/gpu-runner" \
        --kernel flash_attn_fwd_sm90 || echo "attention-check (sm90) failed: $?"
    sm90=(--sm90-ptx "$bin/layout_kernels_sm90.ptx")
fi
echo "## flash_attn_fwd[_sm90] (gpu-runner attention --time) and torch's scaled_dot_product_attention, BSHD f16"
timeout 900 python3 "$here/attention-anchors.py" --runner "$bin/gpu-runner" --ptx "$bin/layout_kernels.ptx" "${sm90[@]}" ||
    echo "attention-anchors failed: $?"
if [ -f "$bin/layout_kernels_sm90.ptx" ]; then
    echo "## the forms real models use (GQA, packed sequences, d = 256, a sliding window) and their anchors"
    timeout 900 python3 "$here/attention-forms-anchors.py" --runner "$bin/gpu-runner" \
        --sm90-ptx "$bin/layout_kernels_sm90.ptx" --ptx "$bin/layout_kernels.ptx" ||
        echo "attention-forms-anchors failed: $?"
fi
