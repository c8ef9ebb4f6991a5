#!/usr/bin/python3
"""Plots a combined benchmark JSON (scripts/bench_torch.py's output): bandwidth against
size, ours and torch's, for each (op, type), with the device-to-device copy bound.
    /usr/bin/python3 scripts/plot_bench.py combined.json docs/performance.png [COPY_TB_S]
Needs Debian's python3-matplotlib."""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    data = json.load(open(sys.argv[1]))
    copy_bound = float(sys.argv[3]) if len(sys.argv) > 3 else None
    ops = sorted({r["op"] for r in data["results"]})
    types = sorted({r["type"] for r in data["results"]})
    cols = 3
    rows_n = (len(ops) + cols - 1) // cols
    fig, axes = plt.subplots(rows_n, cols, figsize=(12, 3.6 * rows_n), sharey=True, squeeze=False)
    for ax, op in zip(axes.flat, ops):
        for i, typ in enumerate(types):
            rows = sorted((r for r in data["results"] if r["op"] == op and r["type"] == typ),
                          key=lambda r: r["n"])
            if not rows:
                continue
            color = f"C{i}"
            ax.plot([r["n"] for r in rows], [r["device_tb_per_s"] for r in rows], "o-",
                    color=color, label=f"{typ} ours")
            theirs = [r for r in rows if "torch_tb_per_s" in r]
            ax.plot([r["n"] for r in theirs], [r["torch_tb_per_s"] for r in theirs], "x--",
                    color=color, label=f"{typ} torch")
        if copy_bound:
            ax.axhline(copy_bound, color="k", linestyle=":", linewidth=1)
        ax.set_title(op)
        ax.set_xscale("log", base=2)
        ax.grid(True, which="both", alpha=0.3)
        ax.set_xlabel("elements")
    for ax in axes[:, 0]:
        ax.set_ylabel("TB/s (read + written)")
    for ax in list(axes.flat)[len(ops):]:
        ax.set_visible(False)
    axes[0, 0].legend(fontsize=7, ncol=2)
    copy_note = f"; dotted: device copy {copy_bound} TB/s" if copy_bound else ""
    fig.suptitle(f"Device entry points (solid) vs torch (dashed) on {data['device']} "
                 f"({data['arch']}){copy_note}")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=80)


if __name__ == "__main__":
    main()
