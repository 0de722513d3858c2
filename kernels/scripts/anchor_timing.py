"""How the anchor scripts time a torch call, as `gpu-runner`'s `timing.rs`
times our kernels: ROUNDS rounds, each after IDLE_S seconds idle, of WARMUP
untimed calls then LAUNCHES timed by CUDA events; the median round's time
per call. Imported by the scripts beside it (`from anchor_timing import
median_round`)."""
import time

import torch

ROUNDS, WARMUP, LAUNCHES, IDLE_S = 5, 2, 10, 0.1


def median_round(f):
    """ms per call of f (see the module's docs)."""
    rounds = []
    for _ in range(ROUNDS):
        torch.cuda.synchronize()
        time.sleep(IDLE_S)
        for _ in range(WARMUP):
            f()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(LAUNCHES):
            f()
        end.record()
        torch.cuda.synchronize()
        rounds.append(start.elapsed_time(end) / LAUNCHES)
    return sorted(rounds)[ROUNDS // 2]
