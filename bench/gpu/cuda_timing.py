"""CUDA-event timing shared by the GPU bench scripts (bench_*.py import it from their folder)."""
import numpy as np
import torch


def time_cuda(fn, iters, warmup=3):
    """Median milliseconds of `fn` over `iters` launches, each between its own pair of CUDA
    events, after `warmup` untimed launches."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record(); e.synchronize()
        times.append(s.elapsed_time(e))
    return float(np.median(times))
