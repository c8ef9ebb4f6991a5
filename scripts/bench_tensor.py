#!/usr/bin/env python3
"""Tensor cases of ours and torch's, side by side on one GPU in one call: our device entry
points get torch's CUDA tensors through DLPack (no copies), with ctypes. Bytes moved are
each input's own elements read once plus the output written once (a row bias counts its
C elements, a broadcast column its R), per second; medians of 20 CUDA-event timings after
three warm-ups (bench_torch.py's time_device); the copy is torch's copy into a contiguous
tensor of the output's size. Prints a table on stderr, JSON on stdout; --table turns
that JSON into docs/performance.md's table.
Usage:
    python3 scripts/bench_tensor.py build-gpu/runtime/libtokitai_hip.so [R C] > tensor.json
    python3 scripts/bench_tensor.py --table tensor.json
    /usr/bin/python3 scripts/bench_tensor.py --plot tensor.json docs/performance_tensors.png
(--plot needs Debian's python3-matplotlib.)
"""
import ctypes
import json
import statistics
import sys


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class Managed(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


ctypes.pythonapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
ctypes.pythonapi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
KEEP = []  # capsules stay alive while their DLTensors are used


def dl(t):
    capsule = torch.utils.dlpack.to_dlpack(t)
    KEEP.append(capsule)
    return ctypes.pointer(Managed.from_address(ctypes.pythonapi.PyCapsule_GetPointer(capsule, b"dltensor")).dl_tensor)


GOALS = {"add, contiguous": "no slower than the flat path", "add a row bias [C]": ">= 0.9 x copy",
         "add a column [R, 1]": ">= 0.9 x copy", "add with one input transposed": ">= 0.75 x copy",
         "copy a transposed view to contiguous": ">= 0.75 x copy", "sum over dim 1 (rows)": ">= 0.95 x copy",
         "sum over dim 0 (columns)": ">= 0.95 x copy", "amax over dim 1": ">= 0.9 x copy"}


def table(path):
    rows, small = {}, None
    for r in json.load(open(path)):
        if "ours_tb_s" in r:
            rows.setdefault(r["case"], {})[r["type"]] = r
        else:
            small = r
    print("| case | f32: ours (x copy) / torch | f16 | bf16 | goal |")
    print("| --- | --- | --- | --- | --- |")
    for case, by_type in rows.items():
        cells = [f"{r['ours_tb_s']:.2f} ({r['ours_tb_s'] / r['copy_tb_s']:.2f}) / {r['torch_tb_s']:.2f}"
                 for r in (by_type[t] for t in ("f32", "f16", "bf16"))]
        print(f"| {case} | " + " | ".join(cells) + f" | {GOALS.get(case, '')} |")
    copy = " / ".join(f"{rows['add, contiguous'][t]['copy_tb_s']:.2f}" for t in ("f32", "f16", "bf16"))
    print(f"\nThe copy: {copy} TB/s (f32 / f16 / bf16).")
    if small:
        print(f"{small['case']}: ours {small['ours_s'] * 1e6:.1f} us, torch {small['torch_s'] * 1e6:.1f} us, "
              f"the flat kernel's device entry point {small['flat_launch_s'] * 1e6:.1f} us "
              f"({small['ours_s'] / small['flat_launch_s']:.2f} x; goal 1.2 x).")


def plot(path, png):
    """Bars of ours and torch's rate as a multiple of the copy's, per case and type."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = [r for r in json.load(open(path)) if "ours_tb_s" in r]
    cases = list(dict.fromkeys(r["case"] for r in rows))
    types = ("f32", "f16", "bf16")
    fig, axes = plt.subplots(1, len(types), figsize=(15, 5), sharey=True)
    for ax, t in zip(axes, types):
        by_case = {r["case"]: r for r in rows if r["type"] == t}
        y = range(len(cases))
        ax.barh([i - 0.2 for i in y], [by_case[c]["ours_tb_s"] / by_case[c]["copy_tb_s"] for c in cases],
                height=0.4, label="ours")
        ax.barh([i + 0.2 for i in y], [by_case[c]["torch_tb_s"] / by_case[c]["copy_tb_s"] for c in cases],
                height=0.4, label="torch")
        ax.axvline(1.0, color="k", linestyle=":", linewidth=1)
        ax.set_yticks(list(y))
        ax.set_yticklabels(cases, fontsize=8)
        ax.invert_yaxis()
        ax.set_title(t)
        ax.set_xlabel("x the device copy's rate")
        ax.grid(True, axis="x", alpha=0.3)
    axes[0].legend(fontsize=8)
    shape = rows[0]["shape"]
    fig.suptitle(f"Tensor calls on [{shape[0]}, {shape[1]}]: our device entry points and torch, against the copy")
    fig.tight_layout()
    fig.savefig(png, dpi=80)


def table_or_plot(table, plot):
    """Runs `--table FILE` or `--plot FILE PNG` from the command line; False for neither."""
    if sys.argv[1] == "--table":
        table(sys.argv[2])
    elif sys.argv[1] == "--plot":
        plot(sys.argv[2], sys.argv[3])
    else:
        return False
    return True


def session():
    """For measuring (--table runs without torch): imports torch for dl(), opens the
    library of argv[1] with a context, and gives it, the context, torch's current stream
    and the shape [R, C] of argv[2:4] (default [16384, 16384])."""
    global torch
    import torch
    lib = ctypes.CDLL(sys.argv[1])
    rows, cols = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (16384, 16384)
    ctx = ctypes.c_void_p()
    assert lib.tkh_context_create(ctypes.byref(ctx), -1) == 0
    lib.tkh_last_error.restype = ctypes.c_char_p
    return lib, ctx, ctypes.c_void_p(torch.cuda.current_stream().cuda_stream), rows, cols


def main():
    if table_or_plot(table, plot):
        return
    lib, ctx, stream, rows, cols = session()
    from bench_torch import time_device  # the same timing as the flat cases

    def timed(fn):
        return time_device(fn, 20)

    def ours(name, *tensors, axes=None, keepdims=0):
        fn = getattr(lib, name)
        args = [dl(t) for t in tensors]
        if axes is None:
            call = lambda: fn(ctx, *args, stream, None)
        else:
            ax = (ctypes.c_int64 * len(axes))(*axes)
            call = lambda: fn(ctx, args[0], args[1], ax, len(axes), keepdims, stream, None)

        def run():
            st = call()
            if st != 0:
                raise RuntimeError(f"{name}: {lib.tkh_last_error().decode()}")
        return run

    results = []
    for tname, dtype in (("f32", torch.float32), ("f16", torch.float16), ("bf16", torch.bfloat16)):
        g = torch.Generator(device="cuda").manual_seed(2026)
        a = torch.rand(rows, cols, device="cuda", dtype=dtype, generator=g)
        b = torch.rand(rows, cols, device="cuda", dtype=dtype, generator=g)
        bias = torch.rand(cols, device="cuda", dtype=dtype, generator=g)
        column = torch.rand(rows, 1, device="cuda", dtype=dtype, generator=g)
        out = torch.empty(rows, cols, device="cuda", dtype=dtype)
        size = a.element_size()
        n = rows * cols
        copy_time = timed(lambda: out.copy_(a))
        square = torch.rand(cols, rows, device="cuda", dtype=dtype, generator=g) if rows != cols else b
        cases = [
            ("add, contiguous", 3 * n, ours(f"tkh_add_{tname}_tensor", a, b, out), lambda: torch.add(a, b, out=out)),
            ("add a row bias [C]", 2 * n + cols, ours(f"tkh_add_{tname}_tensor", a, bias, out),
             lambda: torch.add(a, bias, out=out)),
            ("add a column [R, 1]", 2 * n + rows, ours(f"tkh_add_{tname}_tensor", a, column, out),
             lambda: torch.add(a, column, out=out)),
            ("add with one input transposed", 3 * n, ours(f"tkh_add_{tname}_tensor", a, square.t(), out),
             lambda: torch.add(a, square.t(), out=out)),
            ("copy a transposed view to contiguous", 2 * n, ours(f"tkh_cast_{tname}_{tname}_tensor", square.t(), out),
             lambda: out.copy_(square.t())),
        ]
        sums = {"rows": torch.empty(rows, device="cuda", dtype=dtype), "cols": torch.empty(cols, device="cuda", dtype=dtype)}
        cases += [
            ("sum over dim 1 (rows)", n + rows, ours(f"tkh_sum_{tname}_tensor", a, sums["rows"], axes=[1]),
             lambda: torch.sum(a, dim=1, out=sums["rows"])),
            ("sum over dim 0 (columns)", n + cols, ours(f"tkh_sum_{tname}_tensor", a, sums["cols"], axes=[0]),
             lambda: torch.sum(a, dim=0, out=sums["cols"])),
            ("amax over dim 1", n + rows, ours(f"tkh_amax_{tname}_tensor", a, sums["rows"], axes=[1]),
             lambda: torch.amax(a, dim=1, out=sums["rows"])),
        ]
        for case, elements, mine, theirs in cases:
            t_ours, t_torch = timed(mine), timed(theirs)
            results.append({"case": case, "type": tname, "shape": [rows, cols], "bytes": elements * size,
                            "ours_s": t_ours, "torch_s": t_torch, "copy_s": copy_time,
                            "ours_tb_s": elements * size / t_ours / 1e12,
                            "torch_tb_s": elements * size / t_torch / 1e12,
                            "copy_tb_s": 2 * n * size / copy_time / 1e12})
        del a, b, out, square
        KEEP.clear()
        torch.cuda.empty_cache()
    # per call, a small broadcast: ours against torch and a bare launch of the flat kernel
    x, y, z = (torch.rand(32, 32, device="cuda"), torch.rand(32, device="cuda"), torch.empty(32, 32, device="cuda"))
    small = ours("tkh_add_f32_tensor", x, y, z)
    flat = (lambda f: lambda: f(ctx, ctypes.c_void_p(x.data_ptr()), ctypes.c_void_p(x.data_ptr()),
                                ctypes.c_void_p(z.data_ptr()), ctypes.c_size_t(1024), stream))(lib.tkh_add_f32_device)

    def per_call(fn, calls=1000):
        fn()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) * 1e-3 / calls
    results.append({"case": "add [32, 32] + [32], per call", "type": "f32", "ours_s": per_call(small),
                    "torch_s": per_call(lambda: torch.add(x, y, out=z)), "flat_launch_s": per_call(flat)})
    print(json.dumps(results, indent=1))
    for r in results:
        if "ours_tb_s" in r:
            print(f"{r['case']:40s} {r['type']:5s} ours {r['ours_tb_s']:.2f} TB/s ({r['ours_tb_s'] / r['copy_tb_s']:.2f} x copy)"
                  f"  torch {r['torch_tb_s']:.2f}  copy {r['copy_tb_s']:.2f}  ours/torch {r['ours_tb_s'] / r['torch_tb_s']:.2f}",
                  file=sys.stderr)
        else:
            print(f"{r['case']:40s} ours {r['ours_s'] * 1e6:.1f} us, torch {r['torch_s'] * 1e6:.1f} us, "
                  f"flat launch {r['flat_launch_s'] * 1e6:.1f} us", file=sys.stderr)


if __name__ == "__main__":
    main()
