#!/usr/bin/env bash
# Builds the PTX of both kernel crates and copies it into layout-gpu/ptx/,
# the PTX that layout-gpu ships (run it after changing a kernel; CI fails
# when the shipped PTX is not what the sources build).
#
#   kernels/scripts/embed-ptx.sh [OUT_DIR]     (default: target/ptx)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-target/ptx}
kernels/scripts/build-ptx.sh "$out"
cargo run -q -p layout-ptx -- kernels/sm90 "$out" --arch sm_90a --ptx 8.3
cp "$out/layout_kernels.ptx" "$out/layout_kernels_sm90.ptx" layout-gpu/ptx/
echo "layout-gpu/ptx: the PTX of $out"
