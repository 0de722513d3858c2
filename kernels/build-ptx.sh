#!/usr/bin/env bash
# Builds the GPU kernels of `layout-kernels` to PTX for sm_90 and checks it.
#
#   kernels/build-ptx.sh [OUT_DIR]     (default: target/ptx)
#
# Writes OUT_DIR/layout_kernels.ptx. Installs what is missing: Debian's
# rustc-web toolchain (its LLVM has the NVPTX backend; rustup's stable stays
# first on PATH and is not used here) and, for the check, ptxas from the
# PyPI wheel nvidia-cuda-nvcc. Fails when a kernel's PTX calls a function,
# uses local memory, or divides where its shapes are all static, or when
# ptxas rejects it.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/ptx}
mkdir -p "$out"

if [ ! -x /usr/bin/rustc ] || ! /usr/bin/rustc --print target-list | grep -q '^nvptx64-nvidia-cuda$' \
    || [ ! -d /usr/lib/rustlib/src/rust/library/core ]; then
    echo "build-ptx: installing Debian's rustc-web, cargo-web, rust-web-src" >&2
    SUDO=; [ "$(id -u)" -ne 0 ] && SUDO=sudo
    $SUDO apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        rustc-web cargo-web rust-web-src >/dev/null
fi

# Everything the kernels use is instantiated in this rlib (a cdylib would
# need llvm-bitcode-linker); one codegen unit makes one PTX module.
# Panics abort (a trap), so the PTX has no calls into core's panic machinery.
RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 \
    RUSTFLAGS="-C target-cpu=sm_90 -Zunstable-options -Cpanic=immediate-abort" \
    CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 \
    /usr/bin/cargo rustc -q -p layout-kernels -Zbuild-std=core --target nvptx64-nvidia-cuda \
    --release --lib --target-dir target/nvptx -- --emit=asm
ptx=$(ls -t target/nvptx/nvptx64-nvidia-cuda/release/deps/layout_kernels-*.s | head -1)
cp "$ptx" "$out/layout_kernels.ptx"
ptx="$out/layout_kernels.ptx"

# The checks, per kernel (.entry ... up to its closing brace).
python3 - "$ptx" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
# Kernels whose shapes are all static: no division at all. The others take
# run-time sizes; their divisions happen once, before the main loop.
static = {"transpose_f32"}
bad = []
entries = re.findall(r"\.entry\s+(\w+)\((.*?)\n}\n", text, re.S)
if not entries:
    bad.append("no kernel in the PTX")
for name, body in entries:
    if re.search(r"^\s*call", body, re.M):
        bad.append(f"{name}: calls a function")
    if ".local" in body:
        bad.append(f"{name}: uses local memory")
    if name in static and re.search(r"^\s*(div|rem)\.", body, re.M):
        bad.append(f"{name}: divides, its shapes are static")
    fmas = len(re.findall(r"fma\.rn\.f32", body))
    divs = len(re.findall(r"^\s*(?:div|rem)\.", body, re.M))
    print(f"build-ptx: {name}: {len(body.splitlines())} lines, {fmas} fma, {divs} div/rem")
if bad:
    sys.exit("build-ptx: " + "; ".join(bad))
PY
echo "build-ptx: wrote $ptx" >&2
