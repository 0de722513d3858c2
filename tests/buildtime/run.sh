#!/usr/bin/env bash
# Marginal build cost of typed layout-algebra ops: generate a program with N
# distinct ops (static or mixed), build it once in release, then time a touch
# rebuild (three runs, the median is printed).
#
#   tests/buildtime/run.sh [static|mixed] N...      e.g. tests/buildtime/run.sh static 1 17 60
#   tests/buildtime/run.sh only-OP N...             N distinct static ops of one kind, OP one of
#       composition zipped_divide logical_divide logical_divide_tuple logical_product complement coalesce
#   LAYOUT_ROOT=/path/to/other/checkout BUILDTIME_DIR=/tmp/bt tests/buildtime/run.sh ...  (another version)
#   tests/buildtime/cute.sh CUTLASS_INCLUDE static 1 17 60    (the same program with CuTe, g++ -O2)
#
# Each op differs from the others in a static constant, so every call is a
# new instantiation, as the distinct layouts of a kernel are.
set -euo pipefail
kind=${1:-static}; shift || true
sizes=${*:-1 17 60}
root=${LAYOUT_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
work=${BUILDTIME_DIR:-$root/target/buildtime}
mkdir -p "$work/src"
cat > "$work/Cargo.toml" <<TOML
[package]
name = "buildtime-probe"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
layout-core = { path = "$root/layout-core" }
[workspace]
TOML
for n in $sizes; do
  {
    echo '#![allow(unused)]'
    echo 'use layout_core::algebra::*;'
    echo 'use layout_core::{layout, C};'
    echo 'fn main() {'
    echo '    let m: usize = std::env::args().count() + 63;'
    echo '    let mut acc = 0usize;'
    for ((i = 0; i < n; i++)); do
      k=$((2 + i))
      if [ "$kind" = mixed ]; then a="layout!((m, $k):(1, m))"; p="layout!((2, m):(1, 2))"; else a="layout!((64, $k):(1, 64))"; p="layout!((2, 64):(1, 2))"; fi
      case $kind in
        only-composition) echo "    acc += composition($a, layout!((4,2):(1,4))).call(acc % 7);"; continue ;;
        only-zipped_divide) echo "    acc += zipped_divide($a, (C::<4>, C::<$k>)).call(acc % 7);"; continue ;;
        only-logical_divide) echo "    acc += logical_divide($a, layout!((4,2):(1,4))).call(acc % 7);"; continue ;;
        only-logical_divide_tuple) echo "    acc += logical_divide($a, (C::<4>, C::<$k>)).call(acc % 7);"; continue ;;
        only-logical_product) echo "    acc += logical_product($p, layout!(($k,2):(1,$k))).call(acc % 7);"; continue ;;
        only-complement) echo "    acc += complement(layout!((4, $k):(1, 4)), C::<$((64 * k))>).call(acc % 7);"; continue ;;
        only-coalesce) echo "    acc += coalesce(layout!((4, $k, 2):(1, 4, $((4 * k))))).call(acc % 7);"; continue ;;
        only-*) echo "unknown kind $kind" >&2; exit 2 ;;
      esac
      case $((i % 3)) in
        0) echo "    acc += composition($a, layout!((4,2):(1,4))).call(acc % 7);" ;;
        1) echo "    acc += zipped_divide($a, (C::<4>, C::<$k>)).call(acc % 7);" ;;
        2) echo "    acc += logical_product($p, layout!(($k,2):(1,$k))).call(acc % 7);" ;;
      esac
    done
    echo '    println!("{acc} {m}");'
    echo '}'
  } > "$work/src/main.rs"
  (cd "$work" && cargo build --release --quiet)
  times=()
  cpu=()
  for _ in 1 2 3; do
    touch "$work/src/main.rs"
    s=$(date +%s.%N)
    (cd "$work" && /usr/bin/time -f "%U %S" -o "$work/time" cargo build --release --quiet)
    e=$(date +%s.%N)
    times+=("$(echo "$e - $s" | bc)")
    cpu+=("$(awk '{print $1 + $2}' "$work/time")")
  done
  med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
  cmed=$(printf '%s\n' "${cpu[@]}" | sort -n | sed -n 2p)
  echo "$kind $n ops: touch rebuild (release) median ${med}s wall, ${cmed}s CPU (runs: ${times[*]}; CPU ${cpu[*]})"
done
