#!/usr/bin/env bash
# The anchor of tests/buildtime/run.sh: the same program written with CuTe
# (the same ops on the same layouts, one distinct static constant each),
# built with g++ -O2, so that both build costs are measured in one run.
#
#   tests/buildtime/cute.sh CUTLASS_INCLUDE [static|mixed] N...    e.g. ... static 1 17 60
#
# CUTLASS_INCLUDE is CUTLASS's include/ (cute/ under it). CuTe's headers
# include CUDA's runtime and libcu++ headers even for the host; they come
# from the PyPI wheels nvidia-cuda-runtime-cu12, nvidia-cuda-nvcc-cu12 and
# nvidia-cuda-cccl-cu12, installed under target/buildtime/cuda-headers when
# missing. Prints, per N, the user+sys CPU seconds of three builds (and
# their median); the marginal cost of an op is (T(60) - T(1)) / 59.
set -euo pipefail
cutlass=${1:?CUTLASS include directory}
kind=${2:-static}
shift 2 || true
sizes=${*:-1 17 60}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${BUILDTIME_DIR:-$root/target/buildtime}/cute
hdr=${BUILDTIME_DIR:-$root/target/buildtime}/cuda-headers
mkdir -p "$work"
if [ ! -e "$hdr/nvidia/cuda_cccl/include/cuda/std/utility" ]; then
  echo "cute.sh: installing CUDA headers (pip) into $hdr" >&2
  python3 -m pip install --quiet --disable-pip-version-check --target "$hdr" \
    nvidia-cuda-runtime-cu12 nvidia-cuda-nvcc-cu12 nvidia-cuda-cccl-cu12 >&2
fi
inc=(-I"$cutlass" -I"$hdr/nvidia/cuda_cccl/include" -I"$hdr/nvidia/cuda_runtime/include"
  -I"$hdr/nvidia/cuda_nvcc/include")
for n in $sizes; do
  src=$work/${kind}_$n.cpp
  {
    echo '#include <cute/tensor.hpp>'
    echo '#include <cstdio>'
    echo 'using namespace cute;'
    echo 'int main(int argc, char**) {'
    echo '  int m = argc + 63;'
    echo '  size_t acc = 0;'
    for ((i = 0; i < n; i++)); do
      k=$((2 + i))
      if [ "$kind" = mixed ]; then
        a="make_layout(make_shape(m, Int<$k>{}), make_stride(_1{}, m))"
        p="make_layout(make_shape(_2{}, m), make_stride(_1{}, _2{}))"
      else
        a="make_layout(make_shape(_64{}, Int<$k>{}), make_stride(_1{}, _64{}))"
        p="make_layout(make_shape(_2{}, _64{}), make_stride(_1{}, _2{}))"
      fi
      case $((i % 3)) in
        0) echo "  acc += composition($a, make_layout(make_shape(_4{},_2{}), make_stride(_1{},_4{})))(int(acc % 7));" ;;
        1) echo "  acc += zipped_divide($a, make_tile(_4{}, Int<$k>{}))(int(acc % 7));" ;;
        2) echo "  acc += logical_product($p, make_layout(make_shape(Int<$k>{},_2{}), make_stride(_1{},Int<$k>{})))(int(acc % 7));" ;;
      esac
    done
    echo '  printf("%zu %d\n", acc, m);'
    echo '}'
  } > "$src"
  times=()
  for _ in 1 2 3; do
    /usr/bin/time -f "%U %S" -o "$work/time" g++ -O2 -std=c++17 "${inc[@]}" "$src" -o "$work/prog"
    times+=("$(awk '{print $1 + $2}' "$work/time")")
  done
  med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
  echo "cute $kind $n ops: g++ -O2 CPU median ${med}s (runs: ${times[*]})"
done
