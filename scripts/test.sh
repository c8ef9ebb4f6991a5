#!/bin/bash
# The test command: builds and runs the whole suite with ctest in the default
# configuration (amd when hipcc is installed); where hipcc is found, once more with the
# host code under AddressSanitizer and UndefinedBehaviorSanitizer; where nvcc is found,
# in the nvidia configuration too. GPU tests show as skipped where there is no device.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --workflow --preset default
if command -v hipcc >/dev/null; then
  cmake --workflow --preset asan
fi
if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
  cmake --workflow --preset nvidia
else
  echo "nvidia configuration: not built (no nvcc on this machine)"
fi
