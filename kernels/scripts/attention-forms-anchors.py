#!/usr/bin/env python3
"""The anchors of the attention forms real models use, timed as
attention-anchors.py times the plain ones (5 rounds after 100 ms idle, 2
warm-up calls, 10 timed by CUDA events, the median round), one markdown
table, each row's anchors in the same run as ours:

    python3 kernels/scripts/attention-forms-anchors.py --runner RUNNER \\
        --sm90-ptx layout_kernels_sm90.ptx [--ptx layout_kernels.ptx]

- GQA: 32 query heads on 8 K/V heads, d = 128, seq 4096 (batch 4) and
  8192 (batch 2), causal and not, against cuDNN through torch's SDPA with
  `enable_gqa=True` (and FLASH where it runs);
- variable length: 16 sequences of lengths drawn from 128 to 8192 (about
  32k tokens), 32 heads, d = 128, causal, against torch's FlashAttention-2
  varlen path (`torch.ops.aten._flash_attention_forward` with cumulative
  offsets) and cuDNN on the batch padded to the longest;
- d = 256: seq 4096 (batch 4) and 8192 (batch 2), 16 heads, causal and
  not, against cuDNN (and FLASH where it runs);
- a sliding window of 4096 keys (causal, left 4096) at seq 16384, 16
  heads, d = 128, against FlashAttention-2 with `window_size_left`.

FLOPs: 4 · heads · d · (the keys each row sees, summed over rows), so a
masked kernel is not credited for the work the mask removes (the same
count for ours and the anchors).
"""
import argparse
import os
import re
import subprocess
import tempfile

import numpy as np
import torch
import torch.nn.functional as F
from anchor_timing import median_round

TIMING = re.compile(r": ([0-9.]+) ms, ")



def seen(sq, sk, causal, window_left=None):
    """Keys the rows see in all (top-left causal, windows left of it)."""
    i = np.arange(sq)
    hi = np.minimum(i, sk - 1) if causal else np.full(sq, sk - 1)
    lo = np.maximum(i - window_left, 0) if window_left is not None else np.zeros(sq, int)
    return int(np.maximum(hi - lo + 1, 0).sum())


def tflops(flop, ms):
    return flop / (ms * 1e-3) / 1e12


def ours(runner, ptx, family, tmp, arrays, flags):
    paths = {}
    for n, a in arrays.items():
        paths[n] = os.path.join(tmp, f"{n}.npy")
        np.save(paths[n], a)
    r = subprocess.run([runner, "attention", ptx, family, paths["Q"], paths["K"], paths["V"],
                        os.path.join(tmp, "O.npy"), *flags, "--time"],
                       capture_output=True, text=True, timeout=300)
    m = TIMING.search(r.stdout)
    if r.returncode != 0 or not m:
        return None, (r.stderr.strip() or r.stdout.strip())[:120]
    return float(m.group(1)), None


def sdpa(backend, q, k, v, causal, gqa=False):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    with sdpa_kernel(getattr(SDPBackend, backend)):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa)


def try_ms(f):
    try:
        f()
        return median_round(f), None
    except Exception as e:  # an anchor this torch lacks for the form
        return None, f"{type(e).__name__}: {str(e).splitlines()[0][:90]}"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runner", required=True)
    p.add_argument("--sm90-ptx", required=True)
    p.add_argument("--ptx", help="layout_kernels.ptx: the SM80 kernel too")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    rng = np.random.default_rng(args.seed)
    kernels = [("sm90", args.sm90_ptx, "flash_attn_fwd_sm90")]
    if args.ptx:
        kernels.append(("SM80", args.ptx, "flash_attn_fwd"))
    print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, "
          f"{torch.cuda.get_device_name(0)}")
    print("| form | shape | ours (TFLOP/s) | anchor (TFLOP/s) | ours / anchor |")
    print("| --- | --- | --- | --- | --- |")
    normal = lambda *s: rng.standard_normal(s, dtype=np.float32).astype(np.float16)

    def report(form, shape, ours_ms, flop, anchors, why=None):
        mine = {k: (f"{tflops(flop, ms):.1f}" if ms else f"- ({w})") for k, (ms, w) in ours_ms.items()}
        for name, (ms, w) in anchors.items():
            a = f"{tflops(flop, ms):.1f}" if ms else f"- ({w})"
            for k, (oms, _) in ours_ms.items():
                ratio = f"{ms / oms:.2f}" if ms and oms else "-"
                print(f"| {form} ({k}) | {shape} | {mine[k]} | {name}: {a} | {ratio} |")

    with tempfile.TemporaryDirectory() as tmp:
        # GQA: 32 query heads, 8 K/V heads, d = 128.
        for seq, b in ((4096, 4), (8192, 2)):
            for causal in (False, True):
                h, hkv, d = 32, 8, 128
                q, k, v = normal(b, seq, h, d), normal(b, seq, hkv, d), normal(b, seq, hkv, d)
                flop = 4 * b * h * d * seen(seq, seq, causal)
                flags = ["--causal"] if causal else []
                mine = {n: ours(args.runner, ptx, fam, tmp, {"Q": q, "K": k, "V": v}, flags)
                        for n, ptx, fam in kernels}
                tq, tk, tv = (torch.from_numpy(x).cuda().transpose(1, 2) for x in (q, k, v))
                anchors = {n: try_ms(lambda n=n: sdpa(n, tq, tk, tv, causal, gqa=True))
                           for n in ("CUDNN_ATTENTION", "FLASH_ATTENTION")}
                report("GQA 32/8" + (" causal" if causal else ""), f"b={b} seq={seq} d=128", mine, flop,
                       anchors)
        # Variable length: 16 sequences, 128..8192, causal.
        lens = rng.integers(128, 8193, 16)
        lens = (lens * (32768 / lens.sum())).astype(int).clip(128, 8192)
        h, d = 32, 128
        total = int(lens.sum())
        cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
        q, k, v = normal(total, h, d), normal(total, h, d), normal(total, h, d)
        flop = sum(4 * h * d * seen(int(n), int(n), True) for n in lens)
        mine = {n: ours(args.runner, ptx, fam, tmp, {"Q": q, "K": k, "V": v, "CUQ": cu, "CUK": cu},
                        ["--causal", "--seqlens-q", os.path.join(tmp, "CUQ.npy"),
                         "--seqlens-k", os.path.join(tmp, "CUK.npy")])
                for n, ptx, fam in kernels}
        tq, tk, tv = (torch.from_numpy(x).cuda() for x in (q, k, v))
        tcu = torch.from_numpy(cu).cuda()
        mx = int(lens.max())
        fa = lambda: torch.ops.aten._flash_attention_forward(tq, tk, tv, tcu, tcu, mx, mx, 0.0, True, False)
        pq = torch.zeros(16, mx, h, d, dtype=torch.float16, device="cuda")
        for i, n in enumerate(lens):
            pq[i, :n] = tq[cu[i]:cu[i + 1]]
        pt = pq.transpose(1, 2)
        anchors = {"FA2 varlen": try_ms(fa),
                   "cuDNN padded": try_ms(lambda: sdpa("CUDNN_ATTENTION", pt, pt, pt, True))}
        report("varlen causal", f"16 seqs, {total} tokens, h=32 d=128", mine, flop, anchors)
        # d = 256.
        for seq, b in ((4096, 4), (8192, 2)):
            for causal in (False, True):
                h, d = 16, 256
                q, k, v = normal(b, seq, h, d), normal(b, seq, h, d), normal(b, seq, h, d)
                flop = 4 * b * h * d * seen(seq, seq, causal)
                mine = {n: ours(args.runner, ptx, fam, tmp, {"Q": q, "K": k, "V": v},
                                ["--causal"] if causal else []) for n, ptx, fam in kernels}
                tq, tk, tv = (torch.from_numpy(x).cuda().transpose(1, 2) for x in (q, k, v))
                anchors = {n: try_ms(lambda n=n: sdpa(n, tq, tk, tv, causal))
                           for n in ("CUDNN_ATTENTION", "FLASH_ATTENTION")}
                report("d 256" + (" causal" if causal else ""), f"b={b} seq={seq} h=16", mine, flop, anchors)
        # Sliding window 4096 at seq 16384.
        seq, b, h, d, left = 16384, 1, 16, 128, 4096
        q, k, v = normal(b, seq, h, d), normal(b, seq, h, d), normal(b, seq, h, d)
        flop = 4 * b * h * d * seen(seq, seq, True, left)
        mine = {n: ours(args.runner, ptx, fam, tmp, {"Q": q, "K": k, "V": v},
                        ["--causal", "--window", str(left), "0"]) for n, ptx, fam in kernels}
        tq, tk, tv = (torch.from_numpy(x).cuda().reshape(seq, h, d) for x in (q, k, v))
        c = torch.tensor([0, seq], dtype=torch.int32, device="cuda")
        fw = lambda: torch.ops.aten._flash_attention_forward(tq, tk, tv, c, c, seq, seq, 0.0, True, False,
                                                              window_size_left=left, window_size_right=0)
        report("window 4096 causal", f"seq={seq} h=16 d=128", mine, flop, {"FA2 window": try_ms(fw)})


if __name__ == "__main__":
    main()
