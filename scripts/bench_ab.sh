#!/bin/bash
# Side by side on a GPU builder: this tree and a variant of it (the tree with PATCH applied,
# `git diff main...BRANCH > PATCH` made beforehand: builders have no history), each built with
# the matrix products alone, then scripts/bench_matmul.py over both, alternately, ROUNDS
# times (default 2), so that both see the same device and clocks (AB_OPS, AB_TYPES: the ops and
# types built; AB_TEST: a ctest regular expression run on the variant's build first, a
# failure ending the run: a variant's first run on a GPU). Extra arguments go to
# bench_matmul.py (default: --types f32,bf16 --sizes 4096,8192 --oracle projected).
# Logs in $OUT (default ./ab-run): build-main.log, build-variant.log, test-variant.log, bench.log.
#   bash scripts/bench_ab.sh f32-occupancy.patch --types f32 --oracle off
set -uo pipefail
patch_file=$(realpath "$1") && shift || { echo "usage: bench_ab.sh PATCH [bench_matmul.py options]" >&2; exit 2; }
out=${OUT:-$PWD/ab-run}
rounds=${ROUNDS:-2}
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(--types f32,bf16 --sizes 4096,8192 --oracle projected)
tree=$(cd "$(dirname "$0")/.." && pwd)
variant=$(mktemp -d)/tree
trap 'rm -rf "$(dirname "$variant")"' EXIT
mkdir -p "$out"
cp -r "$tree" "$variant" && rm -rf "$variant"/build*
(cd "$variant" && if command -v patch >/dev/null; then patch -p1 --quiet < "$patch_file"
  else git apply --unsafe-paths --directory=. "$patch_file"; fi) \
  || { echo "bench_ab.sh: $patch_file does not apply" >&2; exit 1; }
configure=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DTOKITAI_HIP_PLATFORM=nvidia
  "-DTOKITAI_HIP_OPS=${AB_OPS:-matmul;linear;linear_gelu}" "-DTOKITAI_HIP_TYPES=${AB_TYPES:-all}"
  "-DGPU_TARGETS=${GPU_TARGETS:-sm_90a}")
for side in main variant; do
  src=$tree; [ $side = main ] || src=$variant
  { cmake -S "$src" -B "$src/build-ab" "${configure[@]}" && cmake --build "$src/build-ab"; } \
    > "$out/build-$side.log" 2>&1 || { echo "bench_ab.sh: the $side build failed (build-$side.log)" >&2; exit 1; }
done
if [ -n "${AB_TEST:-}" ]; then
  ctest --test-dir "$variant/build-ab" -R "$AB_TEST" --timeout 300 --output-on-failure > "$out/test-variant.log" 2>&1 \
    || { echo "bench_ab.sh: the variant failed ctest -R '$AB_TEST' (test-variant.log)" >&2; exit 1; }
  grep -E "tests passed" "$out/test-variant.log"
fi
for ((r = 1; r <= rounds; ++r)); do
  for side in main variant; do
    src=$tree; [ $side = main ] || src=$variant
    echo "== round $r, $side" | tee -a "$out/bench.log"
    /usr/bin/env python3 "$tree/scripts/bench_matmul.py" "$src/build-ab/tools/tokitai-hip" "${args[@]}" \
      2>&1 | tee -a "$out/bench.log"
  done
done
