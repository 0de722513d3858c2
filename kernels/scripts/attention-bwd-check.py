#!/usr/bin/env python3
"""Checks and times `gpu-runner attention-bwd` (the FlashAttention backward)
end to end on the GPU machine (torch needed):

    python3 kernels/scripts/attention-bwd-check.py --runner R --ptx P [--sm90-ptx P90] [--time]

For each case: random normal Q, K, V, dO rounded to float16 (BSHD, or packed
THD with cumulative offsets), our forward (`R attention P flash_attn_fwd ...
--lse`) for O and LSE, then our backward (`R attention-bwd P flash_attn_bwd
Q K V O dO LSE dQ dK dV ...`). The reference is torch autograd in float64 on
the same float16 values (the mask written out: causal top-left or
bottom-right, windows, grouped heads, each packed sequence on its own),
in both modes (dQ by atomics, the default, and `--deterministic`, run
twice: the same bits; dK and dV the same bits in both modes; with
--sm90-ptx, the sm_90a PTX's deterministic backward the same bits). The
error of each gradient is max |ours - ref| / max |ref|; where torch's own
FLASH backend runs the case (planes, top-left causal or none), its float16
gradients' error on the same inputs is printed beside ours, and ours must
be at most FACTOR times it (plus 1e-3) where it is finite; every case's
must be at most BOUND.
Then inputs the runner must refuse (exit code 2, one line). With --time,
the forward table's rows (d 64 and 128 at 4096 and 8192, causal and not)
are timed against torch's FLASH and cuDNN backward passes (5 rounds of 10
after 2 warm-up, median; FLOPs 2.5 x the forward's).
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

FACTOR = 2.0
BOUND = 1e-2
# How dQ is summed: by atomics (the default) or by its own launch.
MODES = [("atomic", []), ("deterministic", ["--deterministic"])]

# (label, [(seq_q, seq_k)] per sequence, packed, heads, kv_heads, d, mask, scale)
# mask: None, ("tl"|"br", left or None)
CASES = [
    ("odd lengths", [(77, 130)], False, 2, 2, 64, None, None),
    ("seq_q > seq_k causal", [(130, 65)] * 2, False, 4, 2, 128, ("tl", None), None),
    ("GQA 8/2 causal", [(257, 257)], False, 8, 2, 64, ("tl", None), None),
    ("bottom-right", [(45, 300)], False, 4, 1, 128, ("br", None), None),
    ("bottom-right, rows without keys", [(300, 100)], False, 2, 2, 64, ("br", None), None),
    ("scale 0", [(100, 100)], False, 2, 1, 64, None, 0.0),
    ("negative scale causal", [(129, 129)], False, 2, 2, 128, ("tl", None), -0.2),
    ("window 40", [(200, 200)], False, 2, 2, 128, ("tl", 40), None),
    ("varlen with length 1", [(70, 150), (1, 1), (0, 30), (5, 0), (130, 65)], True, 4, 2, 64, ("br", None), None),
    ("varlen d128", [(300, 300), (1, 7), (64, 64)], True, 2, 1, 128, None, None),
]


def reference(q, k, v, d_o, lens, packed, heads, kv, d, mask, scale):
    """(dQ, dK, dV) in float64 by autograd, per sequence."""
    q, k, v, d_o = (torch.tensor(x.astype(np.float64), requires_grad=(i < 3))
                    for i, x in enumerate((q, k, v, d_o)))
    outs = [torch.zeros_like(x) for x in (q, k, v)]
    q0 = k0 = 0
    for b, (sq, sk) in enumerate(lens):
        if packed:
            qs, ks = (slice(q0, q0 + sq),), (slice(k0, k0 + sk),)
        else:
            qs = ks = (b,)
        qq, kk, vv, oo = q[qs], k[ks], v[ks], d_o[qs]   # (s, h, d)
        g = heads // kv
        kk, vv = kk.repeat_interleave(g, dim=1), vv.repeat_interleave(g, dim=1)
        s = torch.einsum("ihd,jhd->hij", qq, kk) * scale
        i = torch.arange(sq)[:, None]
        j = torch.arange(sk)[None, :]
        seen = torch.ones(sq, sk, dtype=torch.bool)
        if mask is not None:
            align = sk - sq if mask[0] == "br" else 0
            seen = j <= i + align
            if mask[1] is not None:
                seen &= j >= i + align - mask[1]
        s = s.masked_fill(~seen, float("-inf"))
        any_key = seen.any(dim=1)[None, :, None]
        p = torch.where(any_key, torch.softmax(torch.where(any_key, s, torch.zeros_like(s)), -1), torch.zeros_like(s))
        p = torch.where(seen[None], p, torch.zeros_like(p))
        o = torch.einsum("hij,jhd->ihd", p, vv)
        if o.numel():
            gq, gk, gv = torch.autograd.grad(o, (q, k, v), grad_outputs=oo,
                                             allow_unused=True)
            for acc, gr in zip(outs, (gq, gk, gv)):
                if gr is not None:
                    acc += gr
        q0, k0 = q0 + sq, k0 + sk
    return [x.detach().numpy() for x in outs]


def torch_flash(q, k, v, d_o, heads, kv, mask, scale):
    """torch FLASH backend's float16 gradients, or None where it does not run the case."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    if mask is not None and (mask[0] != "tl" or mask[1] is not None):
        return None
    t = [torch.tensor(x, device="cuda").transpose(1, 2).requires_grad_(i < 3) for i, x in enumerate((q, k, v, d_o))]
    try:
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            o = F.scaled_dot_product_attention(t[0], t[1], t[2], is_causal=mask is not None, scale=scale,
                                               enable_gqa=heads != kv)
            gs = torch.autograd.grad(o, t[:3], grad_outputs=t[3])
    except (RuntimeError, TypeError):  # a case the backend refuses; enable_gqa before torch 2.5
        return None
    return [g.transpose(1, 2).float().cpu().numpy() for g in gs]


# A run that takes longer than this is reported as failed (a hung kernel
# must not stop the other cases); the timed rows take a few seconds each.
RUN_TIMEOUT_S = 90


def run(runner, args):
    try:
        return subprocess.run([runner, *args], capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess([runner, *args], 124, "", f"timed out after {RUN_TIMEOUT_S} s")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runner", required=True)
    ap.add_argument("--ptx", required=True)
    ap.add_argument("--time", action="store_true")
    ap.add_argument("--sm90-ptx", help="the sm_90a PTX: its deterministic backward must give the same bits")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = {n: os.path.join(tmp, n + ".npy") for n in
                ("Q", "K", "V", "O", "dO", "LSE", "dQ", "dK", "dV", "cq", "ck")}
        for label, lens, packed, heads, kv, d, mask, scale in CASES:
            sc = scale if scale is not None else 1 / np.sqrt(d)
            tq, tk = sum(x[0] for x in lens), sum(x[1] for x in lens)
            if packed:
                qsh, ksh = (tq, heads, d), (tk, kv, d)
            else:
                qsh, ksh = (len(lens), lens[0][0], heads, d), (len(lens), lens[0][1], kv, d)
            q, k, v, d_o = (rng.standard_normal(s).astype(np.float16) for s in (qsh, ksh, ksh, qsh))
            for n, x in (("Q", q), ("K", k), ("V", v), ("dO", d_o)):
                np.save(path[n], x)
            flags = []
            if mask is not None:
                flags += ["--causal", "top-left" if mask[0] == "tl" else "bottom-right"]
                if mask[1] is not None:
                    flags += ["--window", str(mask[1]), "0"]
            if scale is not None:
                flags += ["--scale", str(scale)]
            if packed:
                cq = np.concatenate([[0], np.cumsum([x[0] for x in lens])]).astype(np.int32)
                ck = np.concatenate([[0], np.cumsum([x[1] for x in lens])]).astype(np.int32)
                np.save(path["cq"], cq)
                np.save(path["ck"], ck)
                flags += ["--seqlens-q", path["cq"], "--seqlens-k", path["ck"]]
            r = run(a.runner, ["attention", a.ptx, "flash_attn_fwd", path["Q"], path["K"], path["V"],
                               path["O"], "--lse", path["LSE"], *flags])
            if r.returncode != 0:
                print(f"{label}: FAILED (forward): {r.stderr.strip()}")
                bad += 1
                continue
            ref = reference(q, k, v, d_o, lens, packed, heads, kv, d, mask, sc)
            fl = None if packed else torch_flash(q, k, v, d_o, heads, kv, mask, sc)
            runs = {}
            for mode, extra in MODES:
                bits = []
                # The deterministic mode twice: the same bits each run.
                for _ in range(2 if extra else 1):
                    r = run(a.runner, ["attention-bwd", a.ptx, "flash_attn_bwd", path["Q"], path["K"], path["V"],
                                       path["O"], path["dO"], path["LSE"], path["dQ"], path["dK"], path["dV"],
                                       *flags, *extra])
                    if r.returncode != 0:
                        break
                    bits.append([np.load(path[n]) for n in ("dQ", "dK", "dV")])
                if r.returncode != 0:
                    print(f"{label} ({mode}): FAILED (backward): {r.stderr.strip()}")
                    bad += 1
                    continue
                runs[mode] = bits[0]
                ours = [x.astype(np.float64) for x in bits[0]]
                parts, ok = [], True
                for i, n in enumerate(("dQ", "dK", "dV")):
                    top = max(np.abs(ref[i]).max(), 1e-30)
                    e = np.abs(ours[i] - ref[i]).max() / top if np.isfinite(ours[i]).all() else np.inf
                    if fl is not None:
                        et = np.abs(fl[i] - ref[i]).max() / top
                        # FLASH's own gradient can be NaN (scale 0, negative
                        # scales): then only the bound applies.
                        if np.isfinite(et):
                            ok &= e <= FACTOR * et + 1e-3
                        parts.append(f"{n} {e:.2e} (FLASH {et:.2e})")
                    else:
                        parts.append(f"{n} {e:.2e}")
                    ok &= e <= BOUND
                if len(bits) == 2:
                    same = all(x.tobytes() == y.tobytes() for x, y in zip(*bits))
                    ok &= same
                    parts.append("same bits twice" if same else "DIFFERENT BITS on a second run")
                bad += not ok
                print(f"{label} ({mode}): {'ok' if ok else 'MISMATCH'}: {', '.join(parts)}")
            if a.sm90_ptx and "deterministic" in runs:
                # The sm_90a PTX's entries are built from the same bodies.
                r = run(a.runner, ["attention-bwd", a.sm90_ptx, "flash_attn_bwd", path["Q"], path["K"], path["V"],
                                   path["O"], path["dO"], path["LSE"], path["dQ"], path["dK"], path["dV"],
                                   *flags, "--deterministic"])
                same = r.returncode == 0 and all(
                    np.load(path[n]).tobytes() == x.tobytes()
                    for n, x in zip(("dQ", "dK", "dV"), runs["deterministic"]))
                bad += not same
                print(f"{label}: sm_90a PTX {'the same bits' if same else 'DIFFERENT BITS or failed: ' + r.stderr.strip()}")
            if len(runs) == 2:
                # dK and dV do not depend on how dQ is summed.
                same = all(x.tobytes() == y.tobytes() for x, y in zip(runs["atomic"][1:], runs["deterministic"][1:]))
                bad += not same
                print(f"{label}: dK, dV {'the same bits in both modes' if same else 'DIFFER between the modes'}")
        # Refusals: one line, exit code 2.
        np.save(path["Q"], np.zeros((1, 8, 2, 96), np.float16))
        np.save(path["K"], np.zeros((1, 8, 2, 96), np.float16))
        for what, args in [
            ("d = 96", ["flash_attn_bwd"]),
            ("unknown kernel", ["flash_attn_fwd"]),
        ]:
            r = run(a.runner, ["attention-bwd", a.ptx, *args, path["Q"], path["K"], path["K"], path["Q"],
                               path["Q"], path["LSE"], path["dQ"], path["dK"], path["dV"]])
            lines = r.stderr.strip().splitlines()
            ok = r.returncode == 2 and len(lines) == 1
            bad += not ok
            print(f"refused ({what}): {'ok' if ok else 'MISMATCH'}: {' / '.join(lines)}")
        if a.time:
            timing(a, path)
    print("attention-bwd-check: " + ("all ok" if bad == 0 else f"{bad} check(s) failed"))
    return 1 if bad else 0


def timing(a, path):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    print("| d | seq | batch | heads | causal | ours ms | ours TFLOP/s | deterministic ms | FLASH bwd ms | cuDNN bwd ms | ours vs FLASH | ours vs cuDNN |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    line = re.compile(r": ([0-9.]+) ms, ([0-9.]+) TFLOP/s")
    for d, s, b, h in [(64, 4096, 4, 32), (64, 8192, 2, 32), (128, 4096, 4, 16), (128, 8192, 2, 16)]:
        for causal in (False, True):
            g = torch.Generator(device="cuda").manual_seed(1)
            q, k, v, d_o = (torch.randn(b, s, h, d, device="cuda", dtype=torch.float16, generator=g) for _ in range(4))
            qt, kt, vt = (x.transpose(1, 2).detach().requires_grad_() for x in (q, k, v))
            flags = ["--causal"] if causal else []
            res = {}
            for backend in ("FLASH_ATTENTION", "CUDNN_ATTENTION"):
                try:
                    with sdpa_kernel(getattr(SDPBackend, backend)):
                        o = F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)
                        dot = d_o.transpose(1, 2)
                        res[backend] = median_round(lambda: torch.autograd.grad(o, (qt, kt, vt), dot, retain_graph=True))
                except RuntimeError:
                    res[backend] = None
                # O and LSE for ours, from the FLASH forward's inputs.
            for n, x in (("Q", q), ("K", k), ("V", v), ("dO", d_o)):
                np.save(path[n], x.cpu().numpy())
            r = run(a.runner, ["attention", a.ptx, "flash_attn_fwd", path["Q"], path["K"], path["V"], path["O"],
                               "--lse", path["LSE"], *flags])
            times = []
            for _, extra in MODES:
                r = run(a.runner, ["attention-bwd", a.ptx, "flash_attn_bwd", path["Q"], path["K"], path["V"],
                                   path["O"], path["dO"], path["LSE"], path["dQ"], path["dK"], path["dV"], *flags,
                                   "--time", *extra])
                times.append(line.search(r.stdout))
            m = times[0]
            if not all(times):
                print(f"| {d} | {s} | {b} | {h} | {causal} | failed: {(r.stderr or r.stdout).strip()[:80]} |")
                continue
            ms, tf = float(m.group(1)), float(m.group(2))
            det = float(times[1].group(1))
            fl, cu = res["FLASH_ATTENTION"], res["CUDNN_ATTENTION"]
            fmt = lambda x: f"{x:.3f}" if x else "-"
            ratio = lambda x: f"{x / ms:.2f}x" if x else "-"
            print(f"| {d} | {s} | {b} | {h} | {causal} | {ms:.3f} | {tf:.1f} | {det:.3f} | {fmt(fl)} | {fmt(cu)} | {ratio(fl)} | {ratio(cu)} |")


if __name__ == "__main__":
    raise SystemExit(main())
