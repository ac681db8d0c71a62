#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what is missing, builds vmxkit (release) and runs the main job on a bundled example:
# generate the settings of a GPUDirect RDMA VM from a host capture, then lint them against it.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)" --target vmxkit >/dev/null  # the program alone
vmxkit=build/release/vmxkit
host=examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt
out=build/demo/gpu-rdma-vm.vmx
mkdir -p build/demo
set -x
"$vmxkit" generate --host "$host" --gpu auto --gpus 2 --nic auto \
  --system-id 65a1b2c3-d4e5-f607-1829-3a4b5c6d7e8f --memory-mb 262144 -o "$out"
cat "$out"
"$vmxkit" lint --host "$host" "$out"
