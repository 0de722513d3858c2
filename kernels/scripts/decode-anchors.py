#!/usr/bin/env python3
"""Times the decode kernel (`gpu-runner decode-time`: a random block table,
32 query heads on 8 K/V heads, d = 128, block size 64, one new query per
sequence) at batch 1, 8, 64 and 256 x context 512, 4096 and 32768, next to:

- a device-to-device copy of the same K and V bytes (the runner times it in
  the same process): the bandwidth ratio, K and V bytes read per second
  against the copy's bytes read and written per second;
- torch's scaled_dot_product_attention on the same context stored
  contiguously (q_len 1, `enable_gqa=True`), with the cuDNN and the
  FlashAttention backends (the faster one is the anchor), timed with the
  same protocol (anchor_timing.median_round).

One table; the per-launch time at batch 1, context 512 is the overhead
figure, and the host's time to issue a step (the runner's, queued
without waiting) tells whether small steps are bound by the host.

    python3 kernels/scripts/decode-anchors.py --runner target/gpu/gpu-runner \\
        --ptx target/gpu/layout_kernels.ptx
"""
import argparse
import re
import subprocess

import torch
import torch.nn.functional as F
from anchor_timing import median_round

LINE = re.compile(r"splits=(\d+): ([0-9.]+) ms, ([0-9.]+) GB/s of K and V \(([0-9.]+) MB\); "
                  r"copy ([0-9.]+) GB/s; ratio ([0-9.]+); host ([0-9.]+) us")


def sdpa(backend, q, k, v):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    with sdpa_kernel(getattr(SDPBackend, backend)):
        return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runner", required=True)
    ap.add_argument("--ptx", required=True)
    ap.add_argument("--batches", default="1,8,64,256")
    ap.add_argument("--contexts", default="512,4096,32768")
    args = ap.parse_args()
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}")
    print("| batch | context | K+V MB | splits | ours ms | ours GB/s | copy GB/s | ours / copy "
          "| host us to issue | SDPA best ms (backend) | ours vs SDPA |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    h, hkv, d = 32, 8, 128
    for b in map(int, args.batches.split(",")):
        for ctx in map(int, args.contexts.split(",")):
            r = subprocess.run([args.runner, "decode-time", args.ptx, "--batch", str(b),
                                "--context", str(ctx)], capture_output=True, text=True, timeout=600)
            m = LINE.search(r.stdout)
            if r.returncode != 0 or not m:
                print(f"| {b} | {ctx} | - | - | failed: {(r.stderr or r.stdout).strip()[:100]} |")
                continue
            splits, ms, gbs, mb, copy, ratio, host = m.groups()
            best = None
            try:
                q = torch.randn(b, h, 1, d, device="cuda", dtype=torch.float16)
                k = torch.randn(b, hkv, ctx, d, device="cuda", dtype=torch.float16)
                v = torch.randn(b, hkv, ctx, d, device="cuda", dtype=torch.float16)
                for backend in ("CUDNN_ATTENTION", "FLASH_ATTENTION"):
                    try:
                        sdpa(backend, q, k, v)
                        t = median_round(lambda: sdpa(backend, q, k, v))
                        if best is None or t < best[0]:
                            best = (t, backend)
                    except Exception:
                        pass
                del q, k, v
                torch.cuda.empty_cache()
            except torch.OutOfMemoryError:
                best = None
            anchor = f"{best[0]:.4f} ({best[1]})" if best else "-"
            vs = f"{best[0] / float(ms):.2f}" if best else "-"
            print(f"| {b} | {ctx} | {float(mb):.1f} | {splits} | {float(ms):.4f} | {float(gbs):.1f} | "
                  f"{float(copy):.1f} | {float(ratio):.3f} | {float(host):.1f} | {anchor} | {vs} |", flush=True)


if __name__ == "__main__":
    main()
