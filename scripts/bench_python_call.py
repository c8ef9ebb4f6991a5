#!/usr/bin/env python3
"""The Python call's own cost on a small device call, [32, 32] + [32] f32 on torch's CUDA
tensors: th.add(x, y, out=z) against torch.add(x, y, out=z), each timed on the host over
many calls (the GPU is not the bottleneck at this size), medians of 20 runs; ours also
under Context(reports=False) and making its output. TOKITAI_HIP_EXTENSION=0: without the
C call.
Usage: TOKITAI_HIP_LIBRARY=build/runtime/libtokitai_hip.so PYTHONPATH=python \
    python3 scripts/bench_python_call.py"""
import json
import statistics
import time

import torch

import tokitai_hip as th


def per_call(fn, calls=2000, runs=20):
    for _ in range(100):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t) / calls)
    return statistics.median(times)


x, y, z = torch.rand(32, 32, device="cuda"), torch.rand(32, device="cuda"), torch.empty(32, 32, device="cuda")
th.set_default_context(th.Context(device=x.device.index or 0, device_oracle="off"))
ours = per_call(lambda: th.add(x, y, out=z))
torch.testing.assert_close(z, x + y)
theirs = per_call(lambda: torch.add(x, y, out=z))
allocating = per_call(lambda: th.add(x, y))
with th.Context(device=x.device.index or 0, device_oracle="off", reports=False):
    quiet = per_call(lambda: th.add(x, y, out=z))
print(json.dumps({"case": "add f32 [32, 32] + [32], device", "extension": th.extension_path, "ours_out_s": ours,
                  "ours_quiet_out_s": quiet, "ours_alloc_s": allocating, "torch_out_s": theirs,
                  "ratio": ours / theirs, "quiet_ratio": quiet / theirs}, indent=1))
