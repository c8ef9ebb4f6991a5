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
    series = {}
    for r in data["results"]:
        series.setdefault((r["op"], r["type"]), []).append(r)
    fig, ax = plt.subplots(figsize=(9, 5.5))
    for i, ((op, typ), rows) in enumerate(sorted(series.items())):
        rows.sort(key=lambda r: r["n"])
        color = f"C{i % 10}"
        ax.plot([r["n"] for r in rows], [r["device_tb_per_s"] for r in rows], "o-",
                color=color, label=f"{op} {typ} (TokitaiHip)")
        torch_rows = [r for r in rows if "torch_tb_per_s" in r]
        if torch_rows:
            ax.plot([r["n"] for r in torch_rows], [r["torch_tb_per_s"] for r in torch_rows],
                    "x--", color=color, label=f"{op} {typ} (torch)")
    if copy_bound:
        ax.axhline(copy_bound, color="k", linestyle=":", label=f"device copy {copy_bound} TB/s")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("elements")
    ax.set_ylabel("TB/s (bytes read + written / device time)")
    ax.set_title(f"Device entry points vs torch on {data['device']} ({data['arch']})")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
