"""Register-bank census of the FFMAs of each kernel in a cubin: how many
source registers each FFMA reads afresh, and how often two of them fall in
the same register bank (a bank conflict that delays the instruction).

    python3 kernels/sass-census.py [CUBIN]     (default: target/ptx/layout_kernels.sm_90.cubin)

The model: registers in two banks (index mod 2); an operand marked `.reuse`
stays in that slot's reuse cache, one entry per bank, until the slot reads
another register of the bank; any other instruction between FFMAs empties
the caches. It is a model, not the hardware's documentation: on the H200 it
told the SGEMM forms apart (docs/gpu.md: forms at 0.95 conflicts per FFMA
ran at 44 TFLOP/s, forms at 0.2 at 48-49, CuTe's sgemm_2 is at 0.2).
Needs `cuobjdump` and `nvdisasm` (PyPI: nvidia-cuda-cuobjdump,
nvidia-cuda-nvdisasm; installed when missing).
"""
import collections
import glob
import os
import re
import shutil
import site
import subprocess
import sys

BANKS = 2


def tool(name):
    """`name` on PATH, else from the nvidia wheels (installed if missing)."""
    dirs = [os.path.join(d, "nvidia", "cu13", "bin") for d in site.getsitepackages()]
    dirs.append(os.path.join(site.getusersitepackages(), "nvidia", "cu13", "bin"))
    for _ in range(2):
        found = shutil.which(name) or next(
            (p for d in dirs for p in glob.glob(os.path.join(d, name))), None)
        if found:
            return found
        wheel = {"cuobjdump": "nvidia-cuda-cuobjdump", "nvdisasm": "nvidia-cuda-nvdisasm"}[name]
        cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        if subprocess.call(cmd + [wheel]) != 0:
            subprocess.check_call(cmd + ["--user", "--break-system-packages", wheel])
    sys.exit(f"sass-census: no {name}")


def census(body):
    """(FFMAs, fresh source reads, conflicts) of one function's SASS."""
    cache, ffmas, fresh_reads, conflicts = {}, 0, 0, 0
    for line in body.splitlines():
        m = re.search(r"\*/\s+(?:@!?P\d\s+)?([A-Z0-9.]+)\s+([^;]*);", line)
        if not m:
            continue
        if not m.group(1).startswith("FFMA"):
            cache = {}
            continue
        fresh = []
        for slot, operand in enumerate(a.strip() for a in m.group(2).split(",")[1:4]):
            r = re.match(r"-?\|?R(\d+)(\.reuse)?", operand)
            if not r:
                continue
            reg = int(r.group(1))
            key = (slot, reg % BANKS)
            if cache.get(key) != reg:
                fresh.append(reg)
            if r.group(2):
                cache[key] = reg
            else:
                cache.pop(key, None)
        ffmas += 1
        fresh_reads += len(fresh)
        per_bank = collections.Counter(r % BANKS for r in fresh)
        conflicts += sum(c - 1 for c in per_bank.values() if c > 1)
    return ffmas, fresh_reads, conflicts


def main():
    cubin = sys.argv[1] if len(sys.argv) > 1 else "target/ptx/layout_kernels.sm_90.cubin"
    env = dict(os.environ, NVDISASM_PATH=os.path.dirname(tool("nvdisasm")))
    sass = subprocess.run([tool("cuobjdump"), "-sass", cubin], env=env, check=True,
                          capture_output=True, text=True).stdout
    for part in re.split(r"\n\s*Function : ", sass)[1:]:
        name = part.split("\n", 1)[0].strip()
        ffmas, fresh, conflicts = census(part)
        if ffmas:
            print(f"{name}: {ffmas} FFMA, {fresh / ffmas:.2f} fresh source reads each, "
                  f"{conflicts} bank conflicts ({conflicts / ffmas:.2f} per FFMA)")


main()
