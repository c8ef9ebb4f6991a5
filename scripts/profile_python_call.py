#!/usr/bin/env python3
"""Where the time of one small device call goes: th.add(x, y, out=z) on [32, 32] + [32, 32]
f32 torch tensors on the GPU, device oracle off, broken into the pieces the package runs
(torch's current stream, each __dlpack__(stream=), dropping a capsule, which gives the
tensor back, and tkh_tensor_call alone with its arguments built once, and that call's own
pieces in the CUDA runtime), against the whole call with and without a report and
torch.add(x, y, out=z). Median microseconds a call, as JSON. Usage (a build with add):
  TOKITAI_HIP_LIBRARY=build/runtime/libtokitai_hip.so PYTHONPATH=python \\
      python3 scripts/profile_python_call.py"""
import ctypes
import json
import statistics
import time

import torch

import tokitai_hip as th

n = th._native


def per_call(fn, calls=2000, runs=15, setup=None):
    """Median seconds a call, the GPU's queue drained at the end of each run."""
    times = []
    for run in range(runs + 1):
        state = setup() if setup else None
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(calls):
            fn(state)
        torch.cuda.synchronize()
        if run:  # the first run warms up
            times.append((time.perf_counter() - t) / calls)
    return round(statistics.median(times) * 1e6, 2)


x, y, z = (torch.rand(32, 32, device="cuda") for _ in range(3))
dev = x.device.index or 0
stream = torch.cuda.current_stream(x.device).cuda_stream or 1
quiet, reporting = th.Context(device=dev, reports=False), th.Context(device=dev)
out = {"case": "add f32 [32, 32] + [32, 32], device, out=", "device": torch.cuda.get_device_name(dev)}
out["current_stream"] = per_call(lambda s: torch.cuda.current_stream(x.device).cuda_stream)
out["current_stream_raw"] = per_call(lambda s: torch._C._cuda_getCurrentRawStream(dev))  # what the package asks
for name, t in (("x", x), ("y", y), ("z", z)):
    out[f"dlpack_{name}"] = per_call(lambda s: t.__dlpack__(stream=stream))  # made and dropped
out["dlpack_no_sync"] = per_call(lambda s: x.__dlpack__(stream=-1))  # what the package asks on torch's own stream
# what a DLTensor could be filled from without a capsule: the attributes torch's own export reads
out["torch_attributes"] = per_call(lambda s: (x.data_ptr(), x.shape, x.stride(), x.dtype, x.device.index,
                                              x.requires_grad, x.is_conj(), x.is_neg(), x.layout))
out["capsule_drop"] = per_call(lambda s: s.pop(), setup=lambda: [x.__dlpack__(stream=stream) for _ in range(2000)])
capsules = [t.__dlpack__(stream=stream) for t in (x, y, z)]
ptrs = [th._arrays._get_pointer(c, b"dltensor") for c in capsules]
arrays = (ctypes.c_void_p * 3)(*ptrs)
tensors = ctypes.POINTER(ctypes.POINTER(n.DLTensor))
args = n.TensorArgs(ctypes.cast(arrays, tensors), 2, ctypes.cast(ctypes.addressof(arrays) + 2 * ctypes.sizeof(ctypes.c_void_p), tensors), 1)
args.stream = stream
kernel = next(kp for kp in th.add.op.kernels if kp.contents.type == b"f32")
handle, report = quiet.handle, n.Report()
out["c_call"] = per_call(lambda s: n.tkh_tensor_call(handle, kernel, ctypes.byref(args), None))
out["c_call_report"] = per_call(lambda s: n.tkh_tensor_call(handle, kernel, ctypes.byref(args), ctypes.byref(report)))
# the C call's pieces in the CUDA runtime the library links (a flat kernel's launch, beside
# cudaGetDevice and cudaSetDevice, which a call asks and sets, and cudaGetLastError), from
# the same foreign calls, whose own cost is a call of a library function that does nothing
out["ctypes_call"] = per_call(lambda s: n.tkh_status_name(0))
maps = [line.split()[-1] for line in open("/proc/self/maps") if "libcudart" in line]
ours = [p for p in maps if "-packages" not in p] or maps
if ours:
    cudart, current = ctypes.CDLL(ours[0]), ctypes.c_int()
    out["cudart"] = ours[0]
    out["cuda_get_device"] = per_call(lambda s: cudart.cudaGetDevice(ctypes.byref(current)))
    out["cuda_set_device"] = per_call(lambda s: cudart.cudaSetDevice(dev))
    out["cuda_get_last_error"] = per_call(lambda s: cudart.cudaGetLastError())
out["torch_launch"] = per_call(lambda s: torch.cuda._sleep(0))  # one kernel launch from torch's C++
out["th_add"] = per_call(lambda s: th.add(x, y, out=z, ctx=quiet))
out["th_add_report"] = per_call(lambda s: th.add(x, y, out=z, ctx=reporting))
out["th_add_new_output"] = per_call(lambda s: th.add(x, y, ctx=quiet))
out["torch_add"] = per_call(lambda s: torch.add(x, y, out=z))
torch.testing.assert_close(z, x + y)
out["ratio"] = round(out["th_add"] / out["torch_add"], 2)
print(json.dumps(out, indent=1))
