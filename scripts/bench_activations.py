#!/usr/bin/env python3
"""The activations and the math functions they build on, ours and torch's side by side on
one GPU in one call: our device entry points over torch's CUDA tensors through DLPack
(unchecked, as torch's are), torch's own functions, and the copy, on one contiguous
[R, C] tensor per type (bytes read + written per second, medians of 20 CUDA-event timings
after three warm-ups, as bench_tensor.py). Prints a table on stderr, JSON on stdout;
--table turns that JSON into the speed table of docs/accuracy.md.
Usage:
    python3 scripts/bench_activations.py build-gpu/runtime/libtokitai_hip.so [R C] > activations.json
    python3 scripts/bench_activations.py --table activations.json
"""
import json
import sys

from bench_tensor import dl, session, table_or_plot

# op, torch's own kernel of x into out (ATen's out= forms: no allocation in the timing)
CASES = [
    ("exp", lambda aten, x, out: aten.exp.out(x, out=out)),
    ("sigmoid", lambda aten, x, out: aten.sigmoid.out(x, out=out)),
    ("silu", lambda aten, x, out: aten.silu.out(x, out=out)),
    ("softplus", lambda aten, x, out: aten.softplus.out(x, 1, 20, out=out)),
    ("gelu", lambda aten, x, out: aten.gelu.out(x, approximate="none", out=out)),
    ("gelu_tanh", lambda aten, x, out: aten.gelu.out(x, approximate="tanh", out=out)),
    ("tanh", lambda aten, x, out: aten.tanh.out(x, out=out)),
    ("erf", lambda aten, x, out: aten.erf.out(x, out=out)),
]
GOAL = {"f32": 0.9, "f16": 0.95, "bf16": 0.95}


def table(path):
    rows = {}
    for r in json.load(open(path)):
        rows.setdefault(r["op"], {})[r["type"]] = r
    print("| op | f32: ours / torch (ratio) | f16 | bf16 |")
    print("| --- | --- | --- | --- |")
    for op, by_type in rows.items():
        cells = [f"{r['ours_tb_s']:.2f} / {r['torch_tb_s']:.2f} ({r['ours_tb_s'] / r['torch_tb_s']:.2f})"
                 for r in (by_type[t] for t in ("f32", "f16", "bf16"))]
        print(f"| {op} | " + " | ".join(cells) + " |")
    first = next(iter(rows.values()))
    print("\nThe copy: " + " / ".join(f"{first[t]['copy_tb_s']:.2f}" for t in ("f32", "f16", "bf16"))
          + " TB/s (f32 / f16 / bf16); goals: 0.9 x torch in f32, 0.95 x in f16 and bf16.")


def main():
    if table_or_plot(table, None):
        return
    lib, ctx, stream, rows, cols = session()
    import torch
    from bench_torch import time_device
    aten = torch.ops.aten
    results = []
    for tname, dtype in (("f32", torch.float32), ("f16", torch.float16), ("bf16", torch.bfloat16)):
        g = torch.Generator(device="cuda").manual_seed(2026)
        x = (torch.rand(rows, cols, device="cuda", dtype=torch.float32, generator=g) * 16 - 8).to(dtype)
        out = torch.empty_like(x)
        n = rows * cols
        copy_time = time_device(lambda: out.copy_(x), 20)
        for op, theirs in CASES:
            fn, args = getattr(lib, f"tkh_{op}_{tname}_tensor"), (dl(x), dl(out))

            def mine():
                if fn(ctx, *args, stream, None) != 0:
                    raise RuntimeError(f"{op} {tname}: {lib.tkh_last_error().decode()}")
            t_ours = time_device(mine, 20)
            t_torch = time_device(lambda: theirs(aten, x, out), 20)
            size = 2 * n * x.element_size()
            results.append({"op": op, "type": tname, "shape": [rows, cols], "ours_s": t_ours, "torch_s": t_torch,
                            "copy_s": copy_time, "ours_tb_s": size / t_ours / 1e12,
                            "torch_tb_s": size / t_torch / 1e12, "copy_tb_s": size / copy_time / 1e12})
            r = results[-1]
            print(f"{op:10s} {tname:5s} ours {r['ours_tb_s']:.2f} TB/s  torch {r['torch_tb_s']:.2f}  copy "
                  f"{r['copy_tb_s']:.2f}  ours/torch {r['ours_tb_s'] / r['torch_tb_s']:.3f} (goal {GOAL[tname]})",
                  file=sys.stderr)
        del x, out
        torch.cuda.empty_cache()
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
