#!/usr/bin/env python3
"""Normalizations along the last axis, ours and torch's side by side on one GPU in one call
(docs/normalizations.md): softmax and layer_norm (with weight and bias), f32, f16 and
bf16, at [16384, 16384] and at rows of 128, 1024, 4096 and 65536 elements with the same
total. Our device entry points get torch's CUDA tensors through DLPack (bench_tensor.py's
ctypes), torch runs torch.softmax and torch.nn.functional.layer_norm. Bytes moved: the
input read once and the output written once, per second; medians of 20 CUDA-event
timings after three warm-ups (bench_torch.py's time_device); the copy is torch's
out.copy_(x) of the same size in the same run. Prints a table on stderr, JSON on stdout.
Usage: python3 scripts/bench_norm.py build-gpu/runtime/libtokitai_hip.so > norm.json
"""
import ctypes
import json
import sys

import bench_tensor
from bench_tensor import dl


COLUMNS = (16384, 128, 1024, 4096, 65536)


def cells(path):
    """{(op, type): {row length: result}} from bench_norm's JSON."""
    by = {}
    for r in json.load(open(path)):
        by.setdefault((r["op"], r["type"]), {})[r["shape"][1]] = r
    return by


def table(path):
    """Markdown: ours in TB/s (x the copy) / torch's, per op, type and row length."""
    print("| op, type | [16384, 16384] | rows of 128 | 1024 | 4096 | 65536 |")
    print("| --- | --- | --- | --- | --- | --- |")
    for (op, t), by_len in cells(path).items():
        row = [f"{by_len[c]['ours_tb_s']:.2f} ({by_len[c]['ours_tb_s'] / by_len[c]['copy_tb_s']:.2f}) / "
               f"{by_len[c]['torch_tb_s']:.2f}" for c in COLUMNS]
        print(f"| {op} {t} | " + " | ".join(row) + " |")


def plot(path, png):
    """Ours and torch's rate against the row length, as a multiple of the copy's, per type."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    by = cells(path)
    types = ("f32", "f16", "bf16")
    lengths = sorted(COLUMNS)
    fig, axes = plt.subplots(1, len(types), figsize=(15, 4.5), sharey=True)
    for ax, t in zip(axes, types):
        for op, color in (("softmax", "tab:blue"), ("layer_norm", "tab:orange")):
            r = by[(op, t)]
            ax.plot(lengths, [r[c]["ours_tb_s"] / r[c]["copy_tb_s"] for c in lengths], "o-", color=color,
                    label=f"{op}, ours")
            ax.plot(lengths, [r[c]["torch_tb_s"] / r[c]["copy_tb_s"] for c in lengths], "s--", color=color,
                    alpha=0.6, label=f"{op}, torch")
        ax.axhline(1.0, color="k", linestyle=":", linewidth=1)
        ax.axhline(0.85, color="gray", linestyle="-.", linewidth=1)
        ax.set_xscale("log", base=2)
        ax.set_xticks(lengths)
        ax.set_xticklabels([str(c) for c in lengths])
        ax.set_title(t)
        ax.set_xlabel("row length (2^28 elements in all)")
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("x the device copy's rate")
    axes[0].legend(fontsize=8)
    fig.suptitle("Normalizations along the last axis on the H200: our device entry points and torch "
                 "(dash-dot: the goal's 0.85 x copy)")
    fig.tight_layout()
    fig.savefig(png, dpi=80)


def main():
    if bench_tensor.table_or_plot(table, plot):
        return
    import torch
    from bench_torch import time_device
    bench_tensor.torch = torch  # dl() converts through it
    lib = ctypes.CDLL(sys.argv[1])
    ctx = ctypes.c_void_p()
    assert lib.tkh_context_create(ctypes.byref(ctx), -1) == 0
    lib.tkh_last_error.restype = ctypes.c_char_p
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)

    def checked(fn, *args):
        def run():
            if fn(ctx, *args, stream, None) != 0:
                raise RuntimeError(lib.tkh_last_error().decode())
        return run

    results = []
    total = 16384 * 16384
    for tname, dtype in (("f32", torch.float32), ("f16", torch.float16), ("bf16", torch.bfloat16)):
        for cols in COLUMNS:
            rows = total // cols
            g = torch.Generator(device="cuda").manual_seed(2026)
            x = torch.randn(rows, cols, device="cuda", dtype=dtype, generator=g)
            w = torch.randn(cols, device="cuda", dtype=dtype, generator=g)
            b = torch.randn(cols, device="cuda", dtype=dtype, generator=g)
            out = torch.empty_like(x)
            copy = time_device(lambda: out.copy_(x), 20)
            axis = ctypes.c_int64(1)
            eps = ctypes.c_float(1e-5)
            cases = [
                ("softmax", checked(getattr(lib, f"tkh_softmax_{tname}_tensor"), dl(x), dl(out), axis),
                 lambda: torch.softmax(x, dim=1)),
                ("layer_norm", checked(getattr(lib, f"tkh_layer_norm_{tname}_tensor"), dl(x), dl(w), dl(b), eps,
                                       dl(out), axis),
                 lambda: torch.nn.functional.layer_norm(x, (cols,), w, b, 1e-5)),
            ]
            nbytes = 2 * total * x.element_size()
            for op, mine, theirs in cases:
                t_ours, t_torch = time_device(mine, 20), time_device(theirs, 20)
                results.append({"op": op, "type": tname, "shape": [rows, cols], "bytes": nbytes,
                                "ours_s": t_ours, "torch_s": t_torch, "copy_s": copy,
                                "ours_tb_s": nbytes / t_ours / 1e12, "torch_tb_s": nbytes / t_torch / 1e12,
                                "copy_tb_s": nbytes / copy / 1e12})
            del x, w, b, out
            bench_tensor.KEEP.clear()
            torch.cuda.empty_cache()
    print(json.dumps(results, indent=1))
    for r in results:
        print(f"{r['op']:10s} {r['type']:5s} [{r['shape'][0]}, {r['shape'][1]}]".ljust(36)
              + f" ours {r['ours_tb_s']:.2f} TB/s ({r['ours_tb_s'] / r['copy_tb_s']:.2f} x copy)"
              f"  torch {r['torch_tb_s']:.2f}  copy {r['copy_tb_s']:.2f}  ours/torch {r['ours_tb_s'] / r['torch_tb_s']:.2f}",
              file=sys.stderr)


if __name__ == "__main__":
    main()
