#!/usr/bin/env python3
"""Matrix products side by side in one process run: `tokitai-hip bench` over device
tensors (each case's first call checked by the device oracle, by projection unless --oracle
says otherwise: the tool's own default, full, takes minutes at 4096^3) and
torch.matmul / torch.nn.functional.linear / torch._int_mm on the same shapes, medians of
CUDA-event timings, and the fastest of 3 warm checked calls on the host's clock (the check's
cost: checked_call_seconds / the device median - 1). f32 with TF32 off on both sides. Prints
JSON, and a Markdown table on stderr. Usage:
    python3 scripts/bench_matmul.py build/tools/tokitai-hip [--reps 20] [--sizes 4096,8192]
        [--types f64,f32,bf16,f16,i8] [--ops matmul,linear_gelu] [--oracle projected|sampled:1000|off] > matmul.json
    python3 scripts/bench_matmul.py build/tools/tokitai-hip --small-m --ops linear,linear_gelu --types bf16,f16
        [--rows 1,16] > small_m.json
(--small-m: m = 1 and 16 (--rows) against (n, k) = (4096, 4096), (14336, 4096), (4096, 14336),
the shapes of inference, where the time is reading the weight: bytes moved (a, b, the bias,
the output) per second, and their share of the device's copy rate for as many bytes, measured
in the same run: a torch copy of half of them, read and written, timed the same way)
    python3 scripts/bench_matmul.py build/tools/tokitai-hip --layers --types bf16,f16 [--rows 128] > layers.json
(--layers: issue #35's shapes of transformer layers: linear (with its bias, on both sides) at m =
128, 2048 and 8192 (--rows) against (n, k) = (4096, 4096), (14336, 4096), (4096, 14336); linear_gelu
against torch's gelu(F.linear(x, w, b)) at m = 2048 and 8192, (n, k) = (14336, 4096); the batched
[256, 512, 64] @ [256, 64, 512]; TFLOP/s)
    /usr/bin/python3 scripts/bench_matmul.py --plot matmul.json docs/performance_matmul.png
(the plot needs Debian's python3-matplotlib, not torch).
"""
import argparse
import json
import statistics
import subprocess
import sys

def plot(json_path, png_path):
    """Ours and torch's rate for each case of a run, side by side."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    run = json.load(open(json_path))
    rows = [r for r in run["results"] if "ours_tflops" in r]
    labels = [f"{r['op']}\n{r['type']} {r['m']}^3" for r in rows]
    x = range(len(rows))
    fig, ax = plt.subplots(figsize=(max(8, len(rows) * 0.7), 4.5))
    ax.bar([i - 0.2 for i in x], [r["ours_tflops"] for r in rows], 0.4, label="TokitaiHip (checked)")
    ax.bar([i + 0.2 for i in x], [r["torch_tflops"] for r in rows], 0.4, label="torch (cuBLAS)")
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_yscale("log")
    ax.set_ylabel("TFLOP/s (i8: TOP/s), log scale")
    ax.set_title(f"Matrix products, {run['device']}, torch {run['torch']}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)


def torch_seconds(fn, reps):
    import torch
    """Median of 'reps' CUDA-event timings of fn() after 3 warm-ups."""
    times = []
    for r in range(-3, reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        if r >= 0:
            times.append(start.elapsed_time(stop) * 1e-3)
    return statistics.median(times)


def torch_case(op, type_, m, n, k, reps, batch=()):
    import torch
    dt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32, "f64": torch.float64,
          "i8": torch.int8}[type_]
    if dt == torch.int8:
        a = torch.randint(-128, 128, (m, k), dtype=dt, device="cuda")
        b = torch.randint(-128, 128, (k, n), dtype=dt, device="cuda")
        return torch_seconds(lambda: torch._int_mm(a, b), reps), "torch._int_mm"
    a = torch.rand(*batch, m, k, dtype=dt, device="cuda") * 2 - 1
    if op == "matmul":
        b = torch.rand(*batch, k, n, dtype=dt, device="cuda") * 2 - 1
        return torch_seconds(lambda: torch.matmul(a, b), reps), "torch.matmul"
    w = torch.rand(n, k, dtype=dt, device="cuda") * 2 - 1
    bias = torch.rand(n, dtype=dt, device="cuda")
    act = {"linear": lambda y: y, "linear_relu": torch.relu,
           "linear_gelu": torch.nn.functional.gelu, "linear_silu": torch.nn.functional.silu}[op]
    F = torch.nn.functional
    return torch_seconds(lambda: act(F.linear(a, w, bias)), reps), "F.linear + activation"


def ours(tool, op, type_, m, n, k, reps, oracle, batch=()):
    lead = "".join(f"{d}," for d in batch)
    b_shape = f"{n},{k}" if op.startswith("linear") else f"{lead}{k},{n}"
    cmd = [tool, "bench", op, type_, "--shape", f"{lead}{m},{k}", "--shape", b_shape, "--reps", str(reps)]
    if oracle:
        cmd += ["--oracle", oracle]
    run = subprocess.run(cmd, capture_output=True, text=True)
    results = json.loads(run.stdout)["results"] if run.returncode == 0 else []
    return results[0] if results else {"error": (run.stderr + run.stdout).strip()}


def small_m(args):
    """The small-m shapes: bytes moved per second, ours and torch's, against the copy rate."""
    import torch
    sizes = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i8": 1}
    rows, copy_rates = [], {}
    for m in (int(r) for r in (args.rows or "1,16").split(",")):
        for n, k in ((4096, 4096), (14336, 4096), (4096, 14336)):
            for op in args.ops.split(","):
                for type_ in args.types.split(","):
                    if type_ == "i8" and op != "matmul":
                        continue
                    mine = ours(args.tool, op, type_, m, n, k, args.reps, args.oracle)
                    theirs, what = torch_case(op, type_, m, n, k, args.reps)
                    out = 4 if type_ == "i8" else sizes[type_]
                    moved = (n * k + m * k + (n if op.startswith("linear") else 0)) * sizes[type_] + m * n * out
                    row = {"op": op, "type": type_, "m": m, "n": n, "k": k, "torch": what, "bytes": moved,
                           "torch_seconds": theirs, "torch_gbs": moved / theirs * 1e-9, "ours": mine}
                    if moved not in copy_rates:
                        src = torch.empty(moved // 2, dtype=torch.uint8, device="cuda")
                        dst = torch.empty_like(src)
                        copy_rates[moved] = moved / torch_seconds(lambda: dst.copy_(src), args.reps)
                        del src, dst
                    row["copy_gbs"] = copy_rates[moved] * 1e-9
                    if "device_seconds" in mine:
                        t = mine["device_seconds"]["median"]
                        row["ours_gbs"] = moved / t * 1e-9
                        row["of_copy_rate"] = moved / t / copy_rates[moved]
                        row["ratio"] = theirs / t
                    rows.append(row)
                    print(json.dumps(row), file=sys.stderr, flush=True)
                    torch.cuda.empty_cache()
    json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "results": rows}, sys.stdout,
              indent=1)
    print("| op | type | m x n x k | ours GB/s | copy GB/s | of the copy rate | torch GB/s | ours / torch |",
          file=sys.stderr)
    print("| --- | --- | --- | --- | --- | --- | --- | --- |", file=sys.stderr)
    for r in rows:
        print(f"| {r['op']} | {r['type']} | {r['m']} x {r['n']} x {r['k']} | {r.get('ours_gbs', float('nan')):.0f} | "
              f"{r['copy_gbs']:.0f} | {r.get('of_copy_rate', float('nan')):.3f} | {r['torch_gbs']:.0f} | "
              f"{r.get('ratio', float('nan')):.3f} |", file=sys.stderr)


def rate_row(args, op, type_, m, n, k, batch=()):
    """One case timed on both sides: TFLOP/s (i8: TOP/s), ours / torch, and the check's share."""
    import torch
    mine = ours(args.tool, op, type_, m, n, k, args.reps, args.oracle, batch)
    theirs, what = torch_case(op, type_, m, n, k, args.reps, batch)
    flops = 2.0 * m * n * k * (batch[0] if batch else 1)
    row = {"op": op, "type": type_, "batch": list(batch), "m": m, "n": n, "k": k, "torch": what,
           "torch_seconds": theirs, "torch_tflops": flops / theirs * 1e-12, "ours": mine}
    if "device_seconds" in mine:
        row["ours_tflops"] = flops / mine["device_seconds"]["median"] * 1e-12
        row["ratio"] = theirs / mine["device_seconds"]["median"]
    if "enqueue_seconds" in mine:  # the call's host work, inside the device time (small m)
        row["enqueue_us"] = mine["enqueue_seconds"]["median"] * 1e6
    if "checked_call_seconds" in mine:  # the check's cost beside the product's device time
        row["check_share"] = mine["checked_call_seconds"] / mine["device_seconds"]["median"] - 1
    torch.cuda.empty_cache()
    print(json.dumps(row), file=sys.stderr, flush=True)  # each row as it comes: a cut run keeps its rows
    return row


def layers(args):
    """Issue #35's shapes of transformer layers, TFLOP/s, ours and torch's."""
    import torch
    ms = [int(r) for r in (args.rows or "128,2048,8192").split(",")]
    cases = [("linear", m, n, k, ()) for m in ms for n, k in ((4096, 4096), (14336, 4096), (4096, 14336))]
    cases += [("linear_gelu", m, 14336, 4096, ()) for m in ms if m >= 2048] + [("matmul", 512, 512, 64, (256,))]
    rows = [rate_row(args, op, type_, m, n, k, batch) for op, m, n, k, batch in cases
            for type_ in args.types.split(",")]
    json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "results": rows},
              sys.stdout, indent=1)
    print("| op | type | batch x m x n x k | ours TFLOP/s | torch TFLOP/s | ours / torch | ours us (host) |",
          file=sys.stderr)
    print("| --- | --- | --- | --- | --- | --- | --- |", file=sys.stderr)
    for r in rows:
        size = "x".join(map(str, r["batch"] + [r["m"], r["n"], r["k"]]))
        us = r["ours"]["device_seconds"]["median"] * 1e6 if "device_seconds" in r["ours"] else float("nan")
        print(f"| {r['op']} | {r['type']} | {size} | {r.get('ours_tflops', float('nan')):.1f} | "
              f"{r['torch_tflops']:.1f} | {r.get('ratio', float('nan')):.3f} | {us:.1f} ({r.get('enqueue_us', float('nan')):.1f}) |",
              file=sys.stderr)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--plot":
        plot(sys.argv[2], sys.argv[3])
        return
    import torch
    p = argparse.ArgumentParser()
    p.add_argument("tool")
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--sizes", default="4096,8192")
    p.add_argument("--types", default="f64,f32,bf16,f16,i8")
    p.add_argument("--ops", default="matmul")
    p.add_argument("--oracle", default="projected")
    p.add_argument("--small-m", action="store_true")
    p.add_argument("--layers", action="store_true")
    p.add_argument("--rows", help="the values of m (--small-m: 1,16; --layers: 128,2048,8192)")
    args = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    rows = []
    if args.small_m:
        return small_m(args)
    if args.layers:
        return layers(args)
    for size in map(int, args.sizes.split(",")):
        for op in args.ops.split(","):
            for type_ in args.types.split(","):
                if type_ == "i8" and op != "matmul":
                    continue
                rows.append(rate_row(args, op, type_, size, size, size))
    json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "results": rows},
              sys.stdout, indent=1)
    print("| op | type | size | ours TFLOP/s | torch TFLOP/s | ours / torch | checked call / device time - 1 |",
          file=sys.stderr)
    print("| --- | --- | --- | --- | --- | --- | --- |", file=sys.stderr)
    for r in rows:
        print(f"| {r['op']} | {r['type']} | {r['m']}^3 | {r.get('ours_tflops', float('nan')):.2f} | "
              f"{r['torch_tflops']:.2f} | {r.get('ratio', float('nan')):.3f} | {r.get('check_share', float('nan')):.3f} |",
              file=sys.stderr)


if __name__ == "__main__":
    main()
