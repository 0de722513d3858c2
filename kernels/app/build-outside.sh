#!/usr/bin/env bash
# Builds the application example as a user's crate outside this workspace
# (CI runs it): copies kernels/app to a temporary folder, points its path
# dependency at this checkout, builds it.
#
#   kernels/app/build-outside.sh [OUT_DIR]   (default: target/app)
#
# OUT_DIR receives the binary my-app.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
out=$(realpath -m "${1:-target/app}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r kernels/app/. "$tmp/"
rm -rf "$tmp/target" "$tmp/build-outside.sh"
# The path as a user sets it: absolute, to this checkout.
sed -i "s|\"\.\./\.\./|\"$repo/|" "$tmp/Cargo.toml"
(cd "$tmp" && CARGO_TARGET_DIR="$tmp/target" cargo build -q --release)
mkdir -p "$out"
cp "$tmp/target/release/my-app" "$out/"
echo "app: $out/my-app"
