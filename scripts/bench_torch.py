#!/usr/bin/env python3
"""Runs the same cases as a `tokitai-hip bench` JSON through torch on the same GPU, in
the same call, and prints the ratios (ours / torch, by bandwidth: > 1 means we are
faster). Usage:
    tokitai-hip bench add,sum i32,f32 > ours.json
    python3 scripts/bench_torch.py ours.json > combined.json
"""
import json
import statistics
import sys

import torch

DTYPES = {"i8": torch.int8, "i16": torch.int16, "i32": torch.int32, "i64": torch.int64,
          "u8": torch.uint8, "u16": torch.uint16, "u32": torch.uint32, "u64": torch.uint64,
          "f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32,
          "f64": torch.float64}
BINARY = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div,
          "rem": torch.fmod, "min": torch.minimum, "max": torch.maximum,
          "bit_and": torch.bitwise_and, "bit_or": torch.bitwise_or,
          "bit_xor": torch.bitwise_xor, "shl": torch.bitwise_left_shift,
          "shr": torch.bitwise_right_shift}
UNARY = {"neg": torch.neg, "abs": torch.abs, "bit_not": torch.bitwise_not, "sqrt": torch.sqrt}
# The math ops torch has under the same name, and the activations of torch.nn.functional
# (which take no out=).
for _name in ("exp exp2 expm1 log log2 log10 log1p sin cos tan asin acos atan sinh cosh tanh "
              "asinh acosh atanh erf erfc rsqrt floor ceil trunc sigmoid").split():
    UNARY[_name] = getattr(torch, _name)
UNARY["rint"] = torch.round  # ties to even, as ours
BINARY.update({"atan2": torch.atan2, "pow": torch.pow, "hypot": torch.hypot,
               "copysign": torch.copysign, "fmin": torch.fmin, "fmax": torch.fmax})
F = torch.nn.functional
NO_OUT = {"silu": F.silu, "softplus": F.softplus, "gelu": F.gelu,
          "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
          "fast_exp": torch.exp, "fast_sigmoid": torch.sigmoid}
REDUCE = {"sum": torch.sum, "amin": torch.amin, "amax": torch.amax}
ARITY = {**{k: 2 for k in BINARY}, **{k: 1 for k in UNARY}, **{k: 1 for k in REDUCE},
         **{k: 1 for k in NO_OUT}}
COMPARE = {"eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le, "gt": torch.gt,
           "ge": torch.ge}
LOGICAL = {"logical_and": torch.logical_and, "logical_or": torch.logical_or,
           "logical_xor": torch.logical_xor}


def inputs(op, dtype, n, count=None):
    count = ARITY.get(op, 1) if count is None else count
    if dtype == torch.bool:
        return [torch.rand(n, device="cuda") < 0.5 for _ in range(count)]
    if dtype.is_floating_point:
        return [torch.rand(n, device="cuda", dtype=dtype) + 0.5 for _ in range(count)]
    return [torch.ones(n, device="cuda", dtype=dtype) for _ in range(count)]


def typed(op, type_name, n):
    """What torch users write for the ops with signatures of their own (None: no such op)."""
    if op == "cast":
        src, dst = (DTYPES.get(t, torch.bool) for t in type_name.split("_"))
        x, out = inputs(op, src, n, 1)[0], torch.empty(n, device="cuda", dtype=dst)
        return lambda: out.copy_(x)
    dtype = torch.bool if type_name == "bool" else DTYPES[type_name]
    if op in COMPARE:
        a, b = inputs(op, dtype, n, 2)
        out = torch.empty(n, device="cuda", dtype=torch.bool)
        return lambda: COMPARE[op](a, b, out=out)
    if op in LOGICAL:
        a, b = inputs(op, dtype, n, 2)
        out = torch.empty(n, device="cuda", dtype=torch.bool)
        return lambda: LOGICAL[op](a, b, out=out)
    if op == "where":
        cond = inputs(op, torch.bool, n, 1)[0]
        a, b = inputs(op, dtype, n, 2)
        out = torch.empty(n, device="cuda", dtype=dtype)
        return lambda: torch.where(cond, a, b, out=out)
    x = inputs(op, dtype, n, 1)[0]
    wide = torch.int64 if not dtype.is_floating_point else None
    return {
        "clamp": lambda: torch.clamp(x, 0.25, 0.75, out=torch.empty_like(x)),
        "axpby": lambda: torch.add(x * 2, x, alpha=3),
        "mean": lambda: torch.mean(x if wide is None else x.double()),
        "sumsq": lambda: torch.dot(x, x) if wide is None else torch.sum(x.long() * x.long()),
        "norm2": lambda: torch.linalg.vector_norm(x),
        "count_nonzero": lambda: torch.count_nonzero(x),
        "any": lambda: torch.any(x),
        "all": lambda: torch.all(x),
        "argmin": lambda: torch.min(x, dim=0),
        "argmax": lambda: torch.max(x, dim=0),
        "sum": lambda: torch.sum(x, dtype=wide),
    }.get(op)


def call(op, type_name, n):
    fn = typed(op, type_name, n)
    if fn is not None:
        return fn
    dtype = DTYPES[type_name]
    xs = inputs(op, dtype, n)
    if op in REDUCE:
        out = torch.empty((), device="cuda", dtype=dtype)
        return lambda: REDUCE[op](xs[0], dim=0, out=out)
    if op in NO_OUT:
        return lambda: NO_OUT[op](xs[0])
    out = torch.empty(n, device="cuda", dtype=dtype)
    fn = BINARY.get(op) or UNARY[op]
    return lambda: fn(*xs, out=out)


def time_device(fn, reps):
    for _ in range(3):
        fn()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    samples = []
    for _ in range(reps):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop) * 1e-3)
    return statistics.median(samples)


def main():
    ours = json.load(open(sys.argv[1]))
    rows = []
    for r in ours["results"]:
        entry = dict(r)
        fn = None
        try:
            fn = call(r["op"], r["type"], r["n"])
            t = time_device(fn, r["reps"])
            entry["torch_device_seconds"] = t
            entry["torch_tb_per_s"] = r["bytes"] / t * 1e-12
            entry["ratio_vs_torch"] = t / r["device_seconds"]["median"]
        except (RuntimeError, TypeError, NotImplementedError, KeyError) as e:
            entry["torch_error"] = str(e).splitlines()[0]
        rows.append(entry)
        del fn
        torch.cuda.empty_cache()
    ours["results"] = rows
    ours["torch"] = torch.__version__
    json.dump(ours, sys.stdout, indent=1)
    print()
    print(f"{'op':12} {'type':5} {'n':>10} {'ours TB/s':>10} {'torch TB/s':>10} {'ratio':>6} "
          f"{'copy TB/s':>10} {'/copy':>6}", file=sys.stderr)
    for r in rows:
        copy = r.get("copy_tb_per_s", 0)
        print(f"{r['op']:12} {r['type']:5} {r['n']:>10} {r['device_tb_per_s']:>10.3f} "
              f"{r.get('torch_tb_per_s', float('nan')):>10.3f} "
              f"{r.get('ratio_vs_torch', float('nan')):>6.2f} {copy:>10.3f} "
              f"{r['device_tb_per_s'] / copy if copy else float('nan'):>6.2f}", file=sys.stderr)


if __name__ == "__main__":
    main()
