#!/usr/bin/python3
"""Registers, spills, scratch and LDS of the kernels an amd build compiled, read from its
code objects, as a Markdown table (docs/matmul.md quotes it).

    scripts/amd_kernel_resources.py BUILD_DIR [--target gfx90a] [--kernels REGEX]

Each kernel unit's object (BUILD_DIR/**/*_kernels/*.o) carries an offload bundle in its
.hip_fatbin section; the code object of the target is unbundled and its AMDGPU metadata
(llvm-readelf --notes) gives the counts, its disassembly the MFMA instructions of each
kernel. The LLVM tools are looked up on PATH, then in ROCm's and Debian's LLVM folders.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOOLS = ("clang-offload-bundler", "llvm-objcopy", "llvm-readelf", "llvm-objdump", "llvm-cxxfilt")
FIELDS = (".vgpr_count", ".agpr_count", ".sgpr_count", ".vgpr_spill_count", ".sgpr_spill_count",
          ".private_segment_fixed_size", ".group_segment_fixed_size")


def tool(name):
    found = shutil.which(name)
    if found:
        return found
    folders = ["/opt/rocm/llvm/bin"] + sorted(glob.glob("/usr/lib/llvm-*/bin"),
                                              key=lambda d: int(re.sub(r"\D", "", d) or 0), reverse=True)
    for folder in folders:
        path = os.path.join(folder, name)
        if os.access(path, os.X_OK):
            return path
    sys.exit(f"amd_kernel_resources: {name} not found on PATH, in /opt/rocm/llvm/bin or /usr/lib/llvm-*/bin")


def run(args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def code_object(tools, obj, target, work):
    """The code object of 'target' in obj's bundle, or None where obj has none."""
    fatbin = os.path.join(work, "fatbin")
    try:
        run([tools["llvm-objcopy"], f"--dump-section=.hip_fatbin={fatbin}", obj, os.path.join(work, "scratch.o")])
    except subprocess.CalledProcessError:
        return None
    bundles = run([tools["clang-offload-bundler"], "--list", "--type=o", f"--input={fatbin}"]).split()
    chosen = [b for b in bundles if re.search(r"--" + re.escape(target) + r"(:|$)", b)]
    if not chosen:
        return None
    out = os.path.join(work, "code_object")
    run([tools["clang-offload-bundler"], "--unbundle", "--type=o", f"--input={fatbin}", f"--targets={chosen[0]}",
         f"--output={out}"])
    return out


def kernels(tools, co):
    """{symbol: {field: value}} from the code object's metadata."""
    found, current = {}, None
    for line in run([tools["llvm-readelf"], "--notes", co]).splitlines():
        if re.match(r"^  - \.", line):
            current = {}
        m = re.match(r"^(?:  - |    )(\.[a-z_]+):\s+(\S+)$", line)
        if current is None or not m:
            continue
        current[m.group(1)] = m.group(2)
        if m.group(1) == ".name":
            found[m.group(2)] = current
    return found


def mfma_counts(tools, co):
    """{symbol: number of v_mfma instructions} from the disassembly."""
    counts, symbol = {}, None
    for line in run([tools["llvm-objdump"], "-d", co]).splitlines():
        m = re.match(r"^[0-9a-f]+ <(\S+)>:$", line)
        if m:
            symbol = m.group(1)
            counts.setdefault(symbol, 0)
        elif symbol and re.search(r"\bv_mfma_", line):
            counts[symbol] += 1
    return counts


def short_name(tools, symbol):
    """tkhk_matmul_f16_mfma<true, false> from its mangled name."""
    name = run([tools["llvm-cxxfilt"], symbol]).strip()
    name = re.sub(r"^void ", "", name)
    depth = 0
    for i, c in enumerate(name):  # drop the parameter list
        depth += c == "<"
        depth -= c == ">"
        if c == "(" and depth == 0:
            return name[:i]
    return name


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build_dir")
    parser.add_argument("--target", default="gfx90a", help="the GPU target's processor (default gfx90a)")
    parser.add_argument("--kernels", default=".", help="a regular expression on the kernels' names")
    args = parser.parse_args()
    tools = {name: tool(name) for name in TOOLS}
    objects = sorted(glob.glob(os.path.join(args.build_dir, "**", "*_kernels", "*.o"), recursive=True))
    if not objects:
        sys.exit(f"amd_kernel_resources: no kernel objects (*_kernels/*.o) under {args.build_dir}")
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for obj in objects:
            co = code_object(tools, obj, args.target, work)
            if co is None:
                continue
            mfma = mfma_counts(tools, co)
            for symbol, f in kernels(tools, co).items():
                name = short_name(tools, symbol)
                if re.search(args.kernels, name):
                    rows.append([name] + [f.get(k, "0") for k in FIELDS] + [str(mfma.get(symbol, 0))])
    if not rows:
        sys.exit(f"amd_kernel_resources: no kernel for {args.target} matches '{args.kernels}'")
    print(f"| kernel ({args.target}) | VGPRs (arch + acc) | AGPRs | SGPRs | VGPR spills | SGPR spills "
          "| scratch bytes | LDS bytes | v_mfma |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
