#!/usr/bin/env python3
"""Checks on the GPU that a failed device-side check stops the kernel and
fails the launch: `check_trap` (layout_kernels_sm90.ptx) stores through a
checked buffer, in bounds (the store lands, no error) and one past it (the
bounds check calls `layout_device::trap`: the launch must fail, and the
word past the buffer's length, which the test allocates, must stay 0).

    python3 kernels/scripts/trap-check.py layout_kernels_sm90.ptx

Needs cupy. The failed launch leaves the CUDA context unusable: run it
last, in its own process (this script is one)."""
import sys

import cupy as cp


def main():
    mod = cp.RawModule(path=sys.argv[1])
    f = mod.get_function("check_trap")
    buf = cp.zeros(8, cp.uint32)  # the kernel is told 4: words 4.. lie past it
    f((1,), (32,), (buf, cp.uint32(4), cp.uint32(3)))
    cp.cuda.runtime.deviceSynchronize()
    inside = buf.get().tolist()
    ok_inside = inside == [0, 0, 0, 1, 0, 0, 0, 0]
    print(f"in bounds (at 3 of 4): {'ok' if ok_inside else 'MISMATCH'}, words {inside}")
    try:
        f((1,), (32,), (buf, cp.uint32(4), cp.uint32(4)))
        cp.cuda.runtime.deviceSynchronize()
        after = buf.get().tolist()
        print(f"past the end (at 4 of 4): MISMATCH, no error; words {after}")
        ok_past = False
    except cp.cuda.runtime.CUDARuntimeError as e:
        print(f"past the end (at 4 of 4): ok, the launch failed: {e}")
        ok_past = True
    print("trap-check: " + ("all ok" if ok_inside and ok_past else "FAILED"))
    # The context is dead after the failure: leave without cupy's teardown.
    sys.stdout.flush()
    import os
    os._exit(0 if ok_inside and ok_past else 1)


if __name__ == "__main__":
    main()
