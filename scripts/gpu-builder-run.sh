#!/bin/bash
# One call on a GPU builder: configure, build, run the whole ctest suite and the tool on
# 2^28 elements, compute-sanitizer over the GPU tests, the benchmark against torch, and
# the accuracy sweep of the math ops.
# Logs go to $OUT (default: ./gpu-run): machine.txt, build.log, ctest.log (the suite,
# then its GPU tests spread over the GPUs by a resource spec file, the device report and
# the 2^28 run), junit.xml, sanitizer.log, bench.log, ours.json (tokitai-hip bench),
# bench.json (with torch, when torch is installed), tensor.json (scripts/bench_tensor.py), accuracy.log and accuracy.json
# (tokitai-hip accuracy; ACCURACY_OPS / ACCURACY_TYPES, default all, ACCURACY_N samples).
# PHASES picks steps (default "build test sanitize bench accuracy"); extra arguments go
# to the configure step.
#   PHASES="build test" bash scripts/gpu-builder-run.sh [-DTOKITAI_HIP_PLATFORM=nvidia ...]
set -uo pipefail
out=${OUT:-$PWD/gpu-run}
build=${BUILD_DIR:-build-gpu}
phases=" ${PHASES:-build test sanitize bench accuracy} "
mkdir -p "$out"
status=0
step() { # step LOG COMMAND...: runs, appends to $out/LOG.log, remembers a failure
  local name=$1; shift
  echo "== $name: $*" | tee -a "$out/$name.log"
  local start=$SECONDS
  "$@" > "$out/step.tmp" 2>&1
  local rc=$?
  cat "$out/step.tmp" >> "$out/$name.log"
  tail -n 15 "$out/step.tmp"
  rm -f "$out/step.tmp"
  echo "== $name: exit $rc after $((SECONDS - start)) s" | tee -a "$out/$name.log"
  [ $rc -eq 0 ] || status=1
  return $rc
}
has() { [[ $phases == *" $1 "* ]]; }
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>/dev/null
  rocminfo 2>/dev/null | grep -m1 -E 'Name: +gfx'
  lscpu 2>/dev/null | grep -E "^(Model name|Socket|Core|Thread|CPU\(s\)|L3)"
  echo "Vector extensions: $(grep -o -w -E 'f16c|avx2|avx512f|avx512bw' /proc/cpuinfo | sort -u | tr '\n' ' ')"
} >> "$out/machine.txt"
cat "$out/machine.txt"
tool="$build/tools/tokitai-hip"
if has build; then
  step build cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" || exit 1
  step build cmake --build "$build" -j "$(nproc)" || exit 1
fi
if has test; then
  step ctest ctest --test-dir "$build" --output-on-failure --output-junit "$out/junit.xml"
  # the GPU tests again, spread by ctest over the GPUs a resource spec file declares
  step ctest sh -c 'bash scripts/gpu-resource-spec.sh "$0" > "$1" && cat "$1"' "$tool" "$PWD/$build/gpus.json"
  step ctest ctest --test-dir "$build" -L gpu -j 4 --resource-spec-file "$PWD/$build/gpus.json" \
    --output-on-failure
  step ctest "$build/tests/test_gpu_runtime" # its counts: fault sites, sampled detection rate
  step ctest "$tool" info
  step ctest "$tool" run add i32 --n 268435456 --seed 2026 --format json
  grep -h -E 'tests passed|tests failed' "$out/ctest.log"
fi
if has sanitize && command -v compute-sanitizer >/dev/null; then
  for test in test_gpu_runtime test_gpu_kernels; do
    step sanitizer compute-sanitizer --tool memcheck --leak-check full --error-exitcode 1 \
      "$build/tests/$test"
  done
  step sanitizer compute-sanitizer --tool racecheck --error-exitcode 1 "$build/tests/test_gpu_kernels"
  step sanitizer compute-sanitizer --tool initcheck --error-exitcode 1 "$build/tests/test_gpu_runtime"
fi
if has bench; then
  step bench sh -c '"$0" bench ${BENCH_OPS:-add,mul,neg,sqrt,sum,amax} ${BENCH_TYPES:-i32,f32,f16,f64} --reps 50 > "$1"' \
    "$tool" "$out/ours.json"
  if python3 -c 'import torch' 2>/dev/null; then
    step bench sh -c 'python3 scripts/bench_torch.py "$0" > "$1"' "$out/ours.json" "$out/bench.json"
    step bench sh -c 'python3 scripts/bench_tensor.py "$0" > "$1"' "$build/runtime/libtokitai_hip.so" "$out/tensor.json"
  fi
fi
if has accuracy; then
  step accuracy sh -c '"$0" accuracy ${ACCURACY_OPS:-all} ${ACCURACY_TYPES:-all} --n ${ACCURACY_N:-100000000} > "$1"' \
    "$tool" "$out/accuracy.json"
fi
exit $status
