#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 30) from the committed corpus
# (fuzz/corpus/<target>; new inputs go to a scratch copy, not the repo).
# Installs cargo-fuzz when missing; on this stable toolchain cargo-fuzz runs
# with RUSTC_BOOTSTRAP=1. Fails on the first finding, printing the input.
#
#   fuzz/run.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-30}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(parse dyn_ops eval oracle differential tensor)
export RUSTC_BOOTSTRAP=1
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz: installing cargo-fuzz" >&2
    cargo install --quiet --locked cargo-fuzz
fi
cargo fuzz build -O >&2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for t in "${targets[@]}"; do
    mkdir -p "$scratch/$t"
    log="$scratch/$t.log"
    if ! cargo fuzz run -O "$t" "$scratch/$t" corpus/"$t" -- \
        -max_total_time="$secs" -max_len=256 -print_final_stats=1 >"$log" 2>&1; then
        grep -E "panicked|ERROR|SUMMARY|crash-|Reproduce" "$log" >&2 || tail -40 "$log" >&2
        echo "fuzz: $t found a failing input (above)" >&2
        exit 1
    fi
    runs=$(grep -oE "stat::number_of_executed_units: *[0-9]+" "$log" | grep -oE "[0-9]+$" || echo "?")
    echo "fuzz: $t: $runs executions in ${secs} s, no finding"
done
