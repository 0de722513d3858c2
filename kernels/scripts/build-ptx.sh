#!/usr/bin/env bash
# Builds the GPU kernels of `layout-kernels` to PTX for sm_90 and checks it.
#
#   kernels/scripts/build-ptx.sh [OUT_DIR]     (default: target/ptx)
#
# Writes OUT_DIR/layout_kernels.ptx and, compiled from it by ptxas,
# OUT_DIR/layout_kernels.sm_90.cubin. All of it is done by the workspace's
# build tool layout-ptx (layout-ptx/src/main.rs), built here by rustup's
# stable cargo (dev profile: quicker to build than release, as quick to
# run). It installs what is missing: Debian's rustc-web toolchain (its LLVM
# has the NVPTX backend; it builds the kernels, into target/nvptx/sm_90)
# and ptxas from the PyPI wheel nvidia-cuda-nvcc (13.0.88, the CUDA 13 of
# the GPU machine). It writes into the PTX the launch bounds that
# kernels/sm80/src/device.rs declares (SGEMM_F32_LAUNCH_BOUNDS, ...), and fails
# when a kernel's PTX calls a function, uses local memory, divides where
# its source says it must not (every kernel here: MMA_ATOM_NO_DIVISION,
# ...) or lacks its declared instructions (MMA_ATOM_EXPECT_INSTRUCTIONS),
# or when ptxas rejects it or spills registers.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec cargo run -q -p layout-ptx -- kernels/sm80 "${1:-target/ptx}"
