#!/bin/bash
# Writes a CTest resource spec file declaring the GPUs this machine's TokitaiHip runtime
# sees, one "gpus" resource per device with its index as id, SLOTS (default 1) slots
# each; with it, `ctest -j N --resource-spec-file FILE` runs each GPU test (they ask for
# gpus:1) on a GPU of its own, and TKH_DEVICE_FROM_ENV selects that GPU.
#   bash scripts/gpu-resource-spec.sh build/tools/tokitai-hip > gpus.json
# COUNT=N declares N devices without asking the runtime (a one-GPU machine can declare
# fewer than it has, never more).
set -euo pipefail
tool=${1:?usage: gpu-resource-spec.sh TOKITAI_HIP_TOOL > spec.json}
slots=${SLOTS:-1}
if [ -z "${COUNT:-}" ]; then
  COUNT=$("$tool" info --format json | sed -n 's/.*"device_count": *\([0-9][0-9]*\).*/\1/p')
fi
if ! [[ $COUNT =~ ^[0-9]+$ ]] || [ "$COUNT" -lt 1 ]; then
  echo "gpu-resource-spec.sh: no GPU found (device_count '${COUNT}')" >&2
  exit 1
fi
printf '{\n  "version": {"major": 1, "minor": 0},\n  "local": [{"gpus": ['
for ((i = 0; i < COUNT; i++)); do
  printf '%s\n    {"id": "%d", "slots": %d}' "$([ $i -gt 0 ] && echo ,)" "$i" "$slots"
done
printf '\n  ]}]\n}\n'
