#!/usr/bin/env bash
# Builds the GPU kernels of `layout-kernels` to PTX for sm_90 and checks it.
#
#   kernels/build-ptx.sh [OUT_DIR]     (default: target/ptx)
#
# Writes OUT_DIR/layout_kernels.ptx and, compiled from it by ptxas,
# OUT_DIR/layout_kernels.sm_90.cubin. Installs what is missing: Debian's
# rustc-web toolchain (its LLVM has the NVPTX backend; rustup's stable stays
# first on PATH and is not used here) and ptxas from the PyPI wheel
# nvidia-cuda-nvcc (13.0.88, the CUDA 13 of the GPU machine). Fails when a
# kernel's PTX calls a function, uses local memory, or divides where its
# shapes are all static, or when ptxas rejects it or spills registers.
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

# Launch bounds (CUDA's __launch_bounds__), which Rust cannot state: the
# SGEMM runs 256 threads (its 16 x 16 TiledMMA) and wants two blocks per SM,
# so ptxas keeps it within 128 registers.
python3 - "$ptx" <<'PY'
import sys
bounds = {"sgemm_f32": (256, 2), "sgemm_nt_f32": (256, 2)}
path = sys.argv[1]
text = open(path).read()
for name, (threads, blocks) in bounds.items():
    head = text.find(f".entry {name}(")
    brace = text.find("\n)\n{", head)
    if head < 0 or brace < 0:
        sys.exit(f"build-ptx: no kernel {name} to bound")
    text = (text[:brace] + f"\n)\n.maxntid {threads}, 1, 1\n.minnctapersm {blocks}\n{{"
            + text[brace + 4:])
open(path, "w").write(text)
PY

# The checks, per kernel (.entry ... up to its closing brace).
python3 - "$ptx" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
# No kernel divides: the transpose's and the MMA atom's shapes are static;
# the SGEMM's run-time M, N, K are only divided by static powers of two.
bad = []
entries = re.findall(r"\.entry\s+(\w+)\((.*?)\n}\n", text, re.S)
if not entries:
    bad.append("no kernel in the PTX")
for name, body in entries:
    if re.search(r"^\s*call", body, re.M):
        bad.append(f"{name}: calls a function")
    if ".local" in body:
        bad.append(f"{name}: uses local memory")
    if name == "mma_atom" and body.count("mma.sync.aligned.m16n8k16") != 2:
        bad.append(f"{name}: expected its two mma.sync instructions")
    if re.search(r"^\s*(div|rem)\.", body, re.M):
        bad.append(f"{name}: divides")
    fmas = len(re.findall(r"fma\.rn\.f32", body))
    divs = len(re.findall(r"^\s*(?:div|rem)\.", body, re.M))
    print(f"build-ptx: {name}: {len(body.splitlines())} lines of PTX, {fmas} fma, {divs} div/rem")
if bad:
    sys.exit("build-ptx: " + "; ".join(bad))
PY

# ptxas: on PATH, else from the nvidia-cuda-nvcc wheel (installed if missing).
find_ptxas() {
    command -v ptxas 2>/dev/null && return
    python3 - <<'PY' 2>/dev/null
import pathlib, site, sys
for d in site.getsitepackages() + [site.getusersitepackages()]:
    for p in pathlib.Path(d).glob("nvidia/cu*/bin/ptxas"):
        print(p); sys.exit(0)
sys.exit(1)
PY
}
ptxas=$(find_ptxas || true)
if [ -z "$ptxas" ]; then
    echo "build-ptx: installing ptxas (pip: nvidia-cuda-nvcc==13.0.88)" >&2
    # (A Python whose packages the system manages refuses plain installs.)
    python3 -m pip install --quiet --disable-pip-version-check nvidia-cuda-nvcc==13.0.88 >&2 \
        || python3 -m pip install --quiet --disable-pip-version-check --user --break-system-packages \
            nvidia-cuda-nvcc==13.0.88 >&2
    ptxas=$(find_ptxas)
fi
report=$("$ptxas" -arch=sm_90 -v "$ptx" -o "$out/layout_kernels.sm_90.cubin" 2>&1) || {
    echo "$report" >&2
    echo "build-ptx: ptxas rejected $ptx" >&2
    exit 1
}
# One line per kernel: registers, shared memory, spills.
echo "$report" | python3 -c '
import re, sys
text = sys.stdin.read()
bad = False
for name, body in re.findall(r"Compiling entry function .(\w+). for .sm_90.\n(.*?)(?=ptxas info    : Compiling|\Z)", text, re.S):
    regs = re.search(r"Used (\d+) registers", body).group(1)
    smem = re.search(r"(\d+) bytes smem", body)
    spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", body)
    print(f"ptxas: {name}: {regs} registers, {smem.group(1) if smem else 0} bytes shared, "
          f"{spill.group(1)}/{spill.group(2)} bytes spilled (stores/loads)")
    bad |= spill.group(1) != "0" or spill.group(2) != "0"
sys.exit("build-ptx: a kernel spills registers" if bad else 0)
'
echo "build-ptx: wrote $ptx and $out/layout_kernels.sm_90.cubin" >&2
