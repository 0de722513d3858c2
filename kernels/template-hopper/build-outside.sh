#!/usr/bin/env bash
# Builds the Hopper template as a user's crates outside this workspace (CI
# runs it): copies kernels/template-hopper to a temporary folder, points
# its path dependencies at this checkout, then
#   - builds the kernel crate to sm_90a PTX with layout-ptx (its checks: no
#     call, no local memory, no spill, ptxas accepts it),
#   - runs the kernel crate's host tests (the body under the emulator),
#   - builds the launcher (host/).
#
#   kernels/template-hopper/build-outside.sh [OUT_DIR]   (default: target/template-hopper)
#
# OUT_DIR receives my_hopper_kernels.ptx, its cubin and the launcher
# my-hopper-host.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
out=$(realpath -m "${1:-target/template-hopper}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r kernels/template-hopper/. "$tmp/"
rm -rf "$tmp/target" "$tmp/host/target" "$tmp/build-outside.sh"
# The paths as a user sets them: absolute, to this checkout.
sed -i "s|\"\.\./\.\./\.\./|\"$repo/|; s|\"\.\./\.\./|\"$repo/|" "$tmp/Cargo.toml" "$tmp/host/Cargo.toml"
export CARGO_TARGET_DIR="$tmp/target"
cargo run -q --manifest-path "$repo/Cargo.toml" --target-dir "$repo/target" -p layout-ptx -- "$tmp" "$out" --arch sm_90a --ptx 8.3
(cd "$tmp" && cargo test -q)
(cd "$tmp/host" && cargo build -q)
cp "$tmp/target/debug/my-hopper-host" "$out/"
echo "template-hopper: $out/my_hopper_kernels.ptx and $out/my-hopper-host"
