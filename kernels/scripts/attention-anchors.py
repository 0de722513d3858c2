#!/usr/bin/env python3
"""The anchors of the FlashAttention forward kernels: torch's
scaled_dot_product_attention with one backend forced at a time
(torch.nn.attention.sdpa_kernel: FLASH_ATTENTION, CUDNN_ATTENTION,
EFFICIENT_ATTENTION), timed as `gpu-runner attention --time` times ours,
on the same shapes, printed as one markdown table:

    python3 kernels/attention-anchors.py [--runner RUNNER --ptx PTX]

Q, K, V are float16 BSHD tensors (batch, seq, heads, d) of normal random
values; torch takes (batch, heads, seq, d), so it gets transposed views of
them, as FlashAttention's own benchmarks pass them. The scale is 1/sqrt(d)
(both sides' default). Timing protocol (gpu-runner's `timing.rs`): 5
rounds, each after 100 ms idle, of 2 warm-up calls then 10 timed by CUDA
events; the median round's time per call. FLOPs: 4 * batch * heads *
seq_q * seq_k * d, half when causal.

With RUNNER and PTX, our kernel (`RUNNER attention PTX flash_attn_fwd
Q.npy K.npy V.npy O.npy [--causal] --time`) runs on the same Q, K, V (saved
as .npy), its TFLOP/s is the one it prints, and its O is compared with the
FLASH backend's (the largest |difference|; attention-check.py is the
correctness check).
"""
import argparse
import os
import re
import subprocess
import tempfile
import warnings

import numpy as np
import torch
import torch.nn.functional as F
from anchor_timing import median_round


# (head dim, seq, batch, heads)
SHAPES = [(64, 4096, 4, 32), (64, 8192, 2, 32), (128, 4096, 4, 16), (128, 8192, 2, 16)]
BACKENDS = ["FLASH_ATTENTION", "CUDNN_ATTENTION", "EFFICIENT_ATTENTION"]
OURS = re.compile(r"^(\S+) b=(\d+) h=(\d+) sq=(\d+) sk=(\d+): ([0-9.]+) ms, ([0-9.]+) TFLOP/s$")



def flops(b, h, sq, sk, d, causal):
    f = 4 * b * h * sq * sk * d
    return f / 2 if causal else f


def torch_backend(name, q, k, v, causal):
    """(TFLOP/s, O as (b, s, h, d)) of torch's SDPA with backend `name`
    forced, or (None, reason) where that backend does not run this case."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    backend = getattr(SDPBackend, name, None)
    if backend is None:
        return None, f"no SDPBackend.{name} in torch {torch.__version__}"
    qt, kt, vt = (x.transpose(1, 2) for x in (q, k, v))
    call = lambda: F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)
    # Why a backend does not run comes as warnings, then a RuntimeError.
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        try:
            with sdpa_kernel(backend):
                out = call()
                torch.cuda.synchronize()
                ms = median_round(call)
        except RuntimeError as e:
            why = [str(w.message).strip().splitlines()[0] for w in said if str(w.message).strip()]
            why.append((str(e).strip().splitlines() or [type(e).__name__])[0])
            return None, " / ".join(why)
    b, sq, h, d = q.shape
    return flops(b, h, sq, k.shape[1], d, causal) / ms / 1e9, out.transpose(1, 2)


def ours(runner, ptx, tmp, q, k, v, causal, kernel="flash_attn_fwd"):
    """(TFLOP/s, O, the runner's line) of our kernel through gpu-runner, or
    (None, None, why not)."""
    paths = [os.path.join(tmp, f"{n}.npy") for n in ("Q", "K", "V", "O")]
    for p, x in zip(paths, (q, k, v)):
        np.save(p, x.cpu().numpy())
    if os.path.exists(paths[3]):
        os.remove(paths[3])
    cmd = [runner, "attention", ptx, kernel, *paths] + (["--causal"] if causal else []) + ["--time"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        return None, None, f"exit code {r.returncode}: {r.stderr.strip()}"
    lines = [m for m in map(OURS.match, r.stdout.strip().splitlines()) if m]
    if not lines:
        return None, None, f"no timing line in: {r.stdout.strip()!r}"
    o = torch.from_numpy(np.load(paths[3])).cuda()
    return float(lines[-1].group(7)), o, lines[-1].group(0)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runner", help="the gpu-runner binary (with --ptx: our kernel too)")
    p.add_argument("--ptx", help="layout_kernels.ptx")
    p.add_argument("--sm90-ptx", help="layout_kernels_sm90.ptx: flash_attn_fwd_sm90 too (with --runner)")
    p.add_argument("--shapes", help="d:seq:batch:heads,... (default: the table's "
                   + ",".join(":".join(map(str, x)) for x in SHAPES) + ")")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    shapes = [tuple(int(v) for v in x.split(":")) for x in args.shapes.split(",")] if args.shapes else SHAPES
    if (args.runner is None) != (args.ptx is None):
        p.error("--runner and --ptx go together")
    torch.manual_seed(args.seed)
    print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, {torch.cuda.get_device_name(0)}")
    notes, rows = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for d, s, b, h in shapes:
            q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=torch.float16) for _ in range(3))
            for causal in (False, True):
                what = f"d={d} seq={s} b={b} h={h}{' causal' if causal else ''}"
                rates, outs = {}, {}
                for name in BACKENDS:
                    rate, out = torch_backend(name, q, k, v, causal)
                    if rate is None:
                        notes.append(f"{what}: {name} n/a: {out}")
                    else:
                        rates[name], outs[name] = rate, out
                def timed(ptx, kernel, label):
                    """Our kernel's TFLOP/s (None if it failed) and its
                    max |O - FLASH's O| (None without FLASH), with notes."""
                    rate, o, line = ours(args.runner, ptx, tmp, q, k, v, causal, kernel)
                    if rate is None:
                        notes.append(f"{what}: {label} failed: {line}")
                        return None, None
                    notes.append(f"{what}: {line}")
                    ref = outs.get("FLASH_ATTENTION")
                    diff = None if ref is None else float((o.float() - ref.float()).abs().max())
                    return rate, diff

                mine, diff, hopper = None, None, None
                if args.runner and args.sm90_ptx:
                    hopper, hdiff = timed(args.sm90_ptx, "flash_attn_fwd_sm90", "sm90")
                    if hdiff is not None:
                        notes.append(f"{what}: sm90 max abs(O - FLASH's) {hdiff:.2e}")
                if args.runner:
                    mine, diff = timed(args.ptx, "flash_attn_fwd", "ours")
                outs.clear()
                rows.append((d, s, b, h, causal, mine, rates, diff, hopper))
            del q, k, v
            torch.cuda.empty_cache()
    for n in notes:
        print(n)
    fmt = lambda x: "-" if x is None else f"{x:.1f}"
    ratio = lambda a, b: "-" if a is None or b is None else f"{a / b:.2f}"
    print("| head dim | seq (batch, heads) | causal | ours TFLOP/s | FLASH | CUDNN | EFFICIENT "
          "| ours/FLASH | ours/CUDNN | max abs(O - FLASH's) | ours sm90 | sm90/FLASH | sm90/CUDNN |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for d, s, b, h, causal, mine, rates, diff, hopper in rows:
        fl, cu, ef = (rates.get(n) for n in BACKENDS)
        print(f"| {d} | {s} ({b}, {h}) | {'yes' if causal else 'no'} | {fmt(mine)} | {fmt(fl)} | {fmt(cu)} "
              f"| {fmt(ef)} | {ratio(mine, fl)} | {ratio(mine, cu)} | {'-' if diff is None else f'{diff:.2e}'} "
              f"| {fmt(hopper)} | {ratio(hopper, fl)} | {ratio(hopper, cu)} |")


if __name__ == "__main__":
    main()
