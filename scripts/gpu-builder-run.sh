#!/bin/bash
# One call on a GPU builder: configure, build, run the whole ctest suite, the tool on
# 2^28 elements, and compute-sanitizer (memcheck, racecheck) over the GPU tests.
# Logs go to $OUT (default: ./gpu-run): machine.txt, build.log, ctest.log (with the device
# report), junit.xml, run-2e28.log (JSON report), sanitizer-*.log. Extra arguments are
# passed to the configure step.
#   bash scripts/gpu-builder-run.sh [-DTOKITAI_HIP_PLATFORM=nvidia ...]
set -uo pipefail
out=${OUT:-$PWD/gpu-run}
build=${BUILD_DIR:-build-gpu}
mkdir -p "$out"
status=0
step() { # step NAME COMMAND...: runs, appends to $out/NAME.log, remembers a failure
  local name=$1; shift
  echo "== $name: $*" | tee -a "$out/$name.log"
  "$@" > "$out/step.tmp" 2>&1
  local rc=$?
  cat "$out/step.tmp" >> "$out/$name.log"
  tail -n 25 "$out/step.tmp"
  rm -f "$out/step.tmp"
  echo "== $name: exit $rc"
  [ $rc -eq 0 ] || status=1
  return $rc
}
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>/dev/null
  rocminfo 2>/dev/null | grep -m1 -E 'Name: +gfx'
} > "$out/machine.txt"
cat "$out/machine.txt"
step build cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" || exit 1
step build cmake --build "$build" -j "$(nproc)" || exit 1
step ctest ctest --test-dir "$build" --output-on-failure --output-junit "$out/junit.xml"
tool="$build/tools/tokitai-hip"
step ctest "$tool" info
step run-2e28 "$tool" run add i32 --n 268435456 --seed 2026 --format json
if command -v compute-sanitizer >/dev/null; then
  for tool_name in memcheck racecheck; do
    step "sanitizer-$tool_name" compute-sanitizer --tool "$tool_name" --error-exitcode 1 \
      "$build/tests/test_gpu_kernels"
  done
fi
grep -h -E 'tests passed|tests failed' "$out/ctest.log"
exit $status
