#!/usr/bin/env python3
"""A/B timing of several builds of flash_attn_fwd in one run, next to
torch's FLASH backend, on the same data:

    python3 kernels/attention-ab.py DIR1 DIR2 ... [--shapes d:seq:batch:heads,...] [--reps N]
        [--sm90]

Each DIR holds a `gpu-runner` and its `layout_kernels.ptx` (with --sm90:
its `layout_kernels_sm90.ptx`, kernel flash_attn_fwd_sm90, against CUDNN).
For every shape (default: the anchors' table), causal and not, the anchor
(FLASH, or CUDNN with --sm90) is timed as attention-anchors.py times it,
then each build N times (default 2, interleaved) through `gpu-runner
attention --time`. A line per case gives each build's best TFLOP/s, its
ratio to the anchor and its max |O - the anchor's O|. The step tables of
docs/gpu.md's attention section come from it.
"""
import argparse
import importlib.util
import os
import tempfile

import torch

_spec = importlib.util.spec_from_file_location(
    "anchors", os.path.join(os.path.dirname(os.path.abspath(__file__)), "attention-anchors.py"))
anchors = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(anchors)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dirs", nargs="+", help="build directories (gpu-runner, layout_kernels.ptx)")
    p.add_argument("--shapes", help="d:seq:batch:heads,... (default: the anchors' table)")
    p.add_argument("--reps", type=int, default=2)
    p.add_argument("--sm90", action="store_true",
                   help="time flash_attn_fwd_sm90 (layout_kernels_sm90.ptx) against CUDNN")
    args = p.parse_args()
    anchor, ptx, kernel = (("CUDNN_ATTENTION", "layout_kernels_sm90.ptx", "flash_attn_fwd_sm90")
                           if args.sm90 else ("FLASH_ATTENTION", "layout_kernels.ptx", "flash_attn_fwd"))
    short = anchor.split("_")[0]
    shapes = ([tuple(int(v) for v in x.split(":")) for x in args.shapes.split(",")]
              if args.shapes else anchors.SHAPES)
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        for d, s, b, h in shapes:
            q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=torch.float16) for _ in range(3))
            for causal in (False, True):
                fl, ref = anchors.torch_backend(anchor, q, k, v, causal)
                if fl is None:
                    print(f"d={d} s={s} causal={int(causal)}: {short} n/a: {ref}")
                    continue
                cells = []
                for x in args.dirs:
                    best, err = None, None
                    for _ in range(args.reps):
                        rate, o, line = anchors.ours(os.path.join(x, "gpu-runner"),
                                                     os.path.join(x, ptx),
                                                     tmp, q, k, v, causal, kernel)
                        if rate is None:
                            err = line
                            break
                        best = rate if best is None else max(best, rate)
                        err = float((o.float() - ref.float()).abs().max())
                    name = os.path.basename(os.path.normpath(x))
                    cells.append(f"{name} failed: {err}" if best is None
                                 else f"{name} {best:.1f} ({best / fl:.3f}) err {err:.2e}")
                print(f"d={d} s={s} causal={int(causal)} {short} {fl:.1f} | " + " | ".join(cells), flush=True)


if __name__ == "__main__":
    main()
