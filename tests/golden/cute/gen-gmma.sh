#!/usr/bin/env bash
# Regenerates the Hopper GMMA golden records from CuTe itself: builds
# gmma.cpp (host-only g++, CUTLASS's include/ and the CUDA headers from PyPI
# wheels, as tests/golden/data/README.md describes) and prints its records.
#
#   tests/golden/cute/gen-gmma.sh CUTLASS_INCLUDE > records.jsonl
set -euo pipefail
cutlass=${1:?CUTLASS include directory}
root=$(cd "$(dirname "$0")/../../.." && pwd)
hdr=$root/target/buildtime/cuda-headers
if [ ! -e "$hdr/nvidia/cuda_cccl/include/cuda/std/utility" ]; then
  python3 -m pip install --quiet --disable-pip-version-check --target "$hdr" \
    nvidia-cuda-runtime-cu12==12.9.79 nvidia-cuda-nvcc-cu12==12.9.86 nvidia-cuda-cccl-cu12==12.9.27 >&2
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
g++ -std=c++17 -O0 -I"$cutlass" -I"$hdr/nvidia/cuda_cccl/include" \
  -I"$hdr/nvidia/cuda_runtime/include" -I"$hdr/nvidia/cuda_nvcc/include" \
  "$(dirname "$0")/gmma.cpp" -o "$out/gmma"
"$out/gmma"
