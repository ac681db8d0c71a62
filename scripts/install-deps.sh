#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian 12 packages vmxkit needs to build and test (run as root). Packages that are
# already installed are skipped, so a second run does not touch apt at all.
set -euo pipefail

packages=(
  # build
  cmake g++ make pkg-config
  libfmt-dev libpugixml-dev libcli11-dev libxml2-dev catch2 nlohmann-json3-dev
  # Graphviz's C library (libgvc, libcgraph and its plugins): `vmxkit topo --format svg`
  libgraphviz-dev
  # yaml-cpp: VM Operator VirtualMachineClass documents (read and written)
  libyaml-cpp-dev
  # libcurl (OpenSSL): the vSphere API client (`--server`)
  libcurl4-openssl-dev
  # sanitizers and libFuzzer (clang)
  clang libclang-rt-14-dev
  # style checks (scripts/check-style.sh)
  clang-format clang-tidy
  # the Python package (python/): pybind11 over the library
  pybind11-dev python3-dev python3-mypy
  # the Ansible collection (ansible/): its modules run by ansible-playbook in the tests
  ansible-core
  # tests: real pciutils for the differential check, SARIF schema validation, vSphere peers
  pciutils python3 python3-jsonschema python3-pyvmomi golang-go golang-github-vmware-govmomi-dev
  # Terraform's own HCL and plan-JSON libraries: the Terraform outputs and fixtures are checked
  golang-github-hashicorp-hcl-v2-dev golang-github-hashicorp-terraform-json-dev
  curl ca-certificates
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "installing: ${missing[*]}" >&2
if [[ $(id -u) -ne 0 ]]; then
  echo "error: run as root (or install the packages above with sudo apt-get install)" >&2
  exit 2
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
