#!/usr/bin/env python3
"""Turns `tokitai-hip accuracy` JSON (measured on a GPU) into the table of
docs/accuracy.md: per op and type, the largest error found, where, how the inputs were
chosen, our bound on the measured platform and on the other one (from an AMD build's
manifest.json, when given), and the vendors' documented bounds. Usage:
    tokitai-hip accuracy all all > accuracy.json          # on the GPU builder
    python3 scripts/accuracy_table.py accuracy.json [build/generated/manifest.json]
"""
import json
import sys

# The vendors' documented maximum errors in ulps (f32, f64), read from the CUDA C++
# Programming Guide's tables (CUDA 12.8 to 13, against the correctly rounded result) and
# OCML.md of the ROCm device libraries ("c": correctly rounded). None: not stated.
CUDA = {
    "exp": (2, 1), "exp2": (2, 1), "expm1": (1, 1), "log": (1, 1), "log2": (1, 1),
    "log10": (2, 1), "log1p": (1, 1), "sin": (2, 2), "cos": (2, 2), "tan": (4, 2),
    "asin": (2, 2), "acos": (2, 2), "atan": (2, 2), "atan2": (3, 2), "sinh": (3, 2),
    "cosh": (2, 1), "tanh": (2, 1), "asinh": (3, 3), "acosh": (4, 3), "atanh": (3, 2),
    "erf": (2, 2), "erfc": (4, 5), "pow": (4, 2), "hypot": (3, 2), "cbrt": (1, 1),
    "rsqrt": (2, 1), "fast_exp": ("2 + floor(1.173 abs(x))", None),
}
OCML = {
    "exp": (3, 3), "exp2": (3, 3), "expm1": (3, 3), "log": (3, 3), "log2": (3, 3),
    "log10": (3, 3), "log1p": (2, 2), "sin": (4, 4), "cos": (4, 4), "tan": (5, 5),
    "asin": (4, 4), "acos": (4, 4), "atan": (5, 5), "atan2": (6, 6), "sinh": (4, 4),
    "cosh": (4, 4), "tanh": (5, 5), "asinh": (4, 4), "acosh": (4, 4), "atanh": (5, 5),
    "erf": (16, 16), "erfc": (16, 16), "pow": (16, 16), "hypot": (4, 4), "cbrt": (2, 2),
    "rsqrt": (2, 2),
}
TYPES = ["f16", "bf16", "f32", "f64"]


def vendor(table, op, t):
    if t not in ("f32", "f64") or op not in table:
        return "-"
    v = table[op][0 if t == "f32" else 1]
    return "not stated" if v is None else str(v)


def where(r):
    values = [x["value"] for x in r["at"]["inputs"]]
    return ", ".join(f"{v:.9g}" if isinstance(v, float) else str(v) for v in values)


def main():
    measured = json.load(open(sys.argv[1]))
    amd = {}
    if len(sys.argv) > 2:
        for k in json.load(open(sys.argv[2]))["kernels"]:
            if k.get("compare_rule") == "ulp":
                amd[(k["op"], k["scalar_type"])] = k["ulp_bound"]
    rows = sorted(measured["results"], key=lambda r: (r["op"], TYPES.index(r["type"])))
    print(f"Measured on {measured['device']} ({measured['arch']}, {measured['platform']}).\n")
    print("| op | type | inputs | largest error (ulps) | at | bound nvidia | bound amd | CUDA doc | OCML doc |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        inputs = "all 2^%d" % (8 * {"f16": 2, "bf16": 2, "f32": 4}[r["type"]]) \
            if r["method"] == "exhaustive" else "%.0e random + edges" % r["inputs"]
        err = r["max_ulp_error"]
        err = f"{err:.4f}" if isinstance(err, (int, float)) else err
        if r["exceeding"]:
            err += f" ({r['exceeding']} beyond the bound)"
        print(f"| {r['op']} | {r['type']} | {inputs} | {err} | {where(r)} | {r['bound']:g} | "
              f"{amd.get((r['op'], r['type']), '-')} | {vendor(CUDA, r['op'], r['type'])} | "
              f"{vendor(OCML, r['op'], r['type'])} |")


if __name__ == "__main__":
    main()
