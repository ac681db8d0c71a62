#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what is missing, builds vmxkit (release) and runs the main job on a bundled example.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)" >/dev/null
vmxkit=build/release/vmxkit
example=examples/vmx/gpu-rdma-worker.vmx
set -x
"$vmxkit" get "$example" pciPassthru.64bitMMIOSizeGB firmware
"$vmxkit" set "$example" pciPassthru.RelaxACSforP2P=TRUE firmware=efi | "$vmxkit" fmt --check -
