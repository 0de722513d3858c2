#!/usr/bin/env bash
# On an H100/H200 (no Rust needed): checks the FlashAttention forward kernels
# of layout-kernels against NumPy, then times them next to torch's SDPA
# backends (FlashAttention, cuDNN, memory-efficient) in one run.
#
#   kernels/gpu-bench-attention.sh BIN_DIR
#
# BIN_DIR holds `gpu-runner` and `layout_kernels.ptx` (built on any Linux
# x86-64 machine: kernels/build-ptx.sh BIN_DIR, cargo build --release -p
# layout-gpu-runner). Needs python3 with NumPy and torch.
set -uo pipefail
bin=${1:?usage: kernels/gpu-bench-attention.sh BIN_DIR}
here=$(dirname "$0")
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "## flash_attn_fwd through gpu-runner attention, against NumPy (float64)"
timeout 600 python3 "$here/attention-check.py" "$bin/layout_kernels.ptx" "$bin/gpu-runner" ||
    echo "attention-check failed: $?"
echo "## flash_attn_fwd (gpu-runner attention --time) and torch's scaled_dot_product_attention, BSHD f16"
timeout 900 python3 "$here/attention-anchors.py" --runner "$bin/gpu-runner" --ptx "$bin/layout_kernels.ptx" ||
    echo "attention-anchors failed: $?"
