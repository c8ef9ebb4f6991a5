"""The package's own cost per call, without a GPU: th.add on [32, 32] + [32, 32] f32 arrays
on the fake library (tests/python/fake_ops.c, whose kernels are loops on the CPU: 1024
adds, well under a microsecond), median microseconds a call, as JSON:

  device      fake device arrays (tests/python/test_fake.py's OnDevice), out=, device oracle off
  device_quiet  the same under Context(reports=False): no report filled
  described_quiet  the same over arrays described by their attributes as torch's are
              (test_fake.Described, th._arrays.Attributes): no __dlpack__ call
  host        NumPy arrays on the checked host path, oracle off, out=
  c_call      tkh_tensor_call alone over the device arrays, its arguments built once
  c_call_report  the same with a report to fill

PYTHONPATH chooses the package and TOKITAI_HIP_LIBRARY the fake library, so two versions
of the package can be timed in one session, and TOKITAI_HIP_EXTENSION=0 leaves the C call
out (docs/python.md, Limits):
  PYTHONPATH=python:tests/python TOKITAI_HIP_LIBRARY=build/tests/libtkh_python_fake.so \\
      /usr/bin/python3 scripts/bench_python_fake.py
"""
import ctypes
import json
import statistics
import sys
import time

import numpy as np

import tokitai_hip as th
from test_fake import Described, OnDevice

n = th._native


class Dev(OnDevice):  # OnDevice without recording the streams asked for
    def __dlpack__(self, stream=None):
        capsule = self.a.__dlpack__()
        n.DLManagedTensor.from_address(_get(capsule, b"dltensor")).dl_tensor.device.device_type = 10
        return capsule


_get = ctypes.pythonapi.PyCapsule_GetPointer
_get.restype, _get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]


def per_call(fn, calls=2000, runs=9):
    for _ in range(200):
        fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - t) / calls)
    return round(statistics.median(times) * 1e6, 2)


def main():
    x, y, z = (np.random.rand(32, 32).astype(np.float32) for _ in range(3))
    X, Y, Z = Dev(x), Dev(y), Dev(z)
    ctx = th.Context(oracle="off", device_oracle="off")
    th.set_default_context(ctx)
    out = {"package": th.__file__, "library": th.library_path, "extension": th.extension_path}
    out["device"] = per_call(lambda: th.add(X, Y, out=Z))
    assert np.array_equal(z, x + y)
    try:
        with th.Context(oracle="off", device_oracle="off", reports=False):
            out["device_quiet"] = per_call(lambda: th.add(X, Y, out=Z))
    except TypeError:  # a version without Context(reports=)
        out["device_quiet"] = None
    row = th._arrays.TYPES["f32"]
    th._arrays.EXPORTERS[Described] = th._arrays.Attributes(
        {np.dtype(np.float32): th._arrays._key(row.dlpack_code, row.bits)}, "strided", 10, stream=lambda index: 0)
    XD, YD, ZD = (Described(v, index=0) for v in (x, y, z))
    with th.Context(oracle="off", device_oracle="off", reports=False):
        out["described_quiet"] = per_call(lambda: th.add(XD, YD, out=ZD))
    assert Described.dlpacks == 0
    w = np.empty_like(x)
    out["host"] = per_call(lambda: th.add(x, y, out=w))
    caps = [a.__dlpack__() for a in (x, y, z)]
    ts = [n.DLManagedTensor.from_address(_get(c, b"dltensor")).dl_tensor for c in caps]
    for t in ts:
        t.device.device_type = 10
    ptr = ctypes.POINTER(n.DLTensor)
    ins, outs = (ptr * 2)(*(ctypes.pointer(t) for t in ts[:2])), (ptr * 1)(ctypes.pointer(ts[2]))
    args = n.TensorArgs(ins, 2, outs, 1)
    kernel = th.add.op.kernels[0]
    handle = ctx.handle
    out["c_call"] = per_call(lambda: n.tkh_tensor_call(handle, kernel, ctypes.byref(args), None))
    report = n.Report()
    out["c_call_report"] = per_call(lambda: n.tkh_tensor_call(handle, kernel, ctypes.byref(args), ctypes.byref(report)))
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main()
