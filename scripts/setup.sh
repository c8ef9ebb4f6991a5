#!/bin/bash
# Quick start, as root on Debian 12: installs the Debian packages TokitaiHip needs, then
# configures and builds (preset 'default') and shows the registry and the device report.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y $(grep -v '^#' scripts/debian-packages.txt)
cmake --preset default
cmake --build --preset default
build/tools/tokitai-hip list
build/tools/tokitai-hip info || echo "(no usable GPU here: the library is built; GPU tests will show as skipped)"
