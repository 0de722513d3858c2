#!/usr/bin/env bash
# Builds the template as a user's crates outside this workspace (CI runs
# it): copies kernels/template to a temporary folder, points its path
# dependencies at this checkout, then
#   - builds the kernel crate to PTX with layout-ptx (its checks: no call,
#     no local memory, no spill, ptxas accepts it),
#   - runs the kernel crate's host tests,
#   - builds the launcher (host/).
#
#   kernels/template/build-outside.sh [OUT_DIR]   (default: target/template)
#
# OUT_DIR receives my_kernels.ptx, its cubin and the launcher my-host.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
out=$(realpath -m "${1:-target/template}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r kernels/template/. "$tmp/"
rm -rf "$tmp/target" "$tmp/host/target" "$tmp/build-outside.sh"
# The paths as a user sets them: absolute, to this checkout.
sed -i "s|\"\.\./\.\./\.\./|\"$repo/|; s|\"\.\./\.\./|\"$repo/|" "$tmp/Cargo.toml" "$tmp/host/Cargo.toml"
# Both crates share one target folder here, outside the workspace's (the
# tool itself is built in the workspace's, as kernels/scripts/build-ptx.sh does).
export CARGO_TARGET_DIR="$tmp/target"
cargo run -q --manifest-path "$repo/Cargo.toml" --target-dir "$repo/target" -p layout-ptx -- "$tmp" "$out"
(cd "$tmp" && cargo test -q)
(cd "$tmp/host" && cargo build -q)
cp "$tmp/target/debug/my-host" "$out/"
echo "template: $out/my_kernels.ptx and $out/my-host"
