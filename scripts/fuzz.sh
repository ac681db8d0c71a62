#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer targets (clang) and runs each over its seed corpus, as CI does.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each target runs a fixed number of inputs from a fixed seed, so that a run here repeats the
# run a developer made before submitting (a random seed finds new inputs on each run: that
# exploration is done locally, and what it finds becomes a seed under tests/fuzz/corpus).
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j"$(nproc)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run_fuzzer() {  # name, max_len, runs, seed dirs...
  local name=$1 max_len=$2 runs=$3
  shift 3
  mkdir -p "$work/$name"
  "build/fuzz/tests/fuzz/$name" -seed=1 -runs="$runs" -max_total_time=120 -max_len="$max_len" \
    -rss_limit_mb=2048 -print_final_stats=1 "$work/$name" "$@" 2>"$work/$name.log" ||
    { tail -50 "$work/$name.log"; exit 1; }
  grep -E "stat::number_of_executed_units|Done" "$work/$name.log" | sed "s/^/$name: /"
}
run_fuzzer fuzz_vmx_document 8192 120000 tests/fuzz/corpus/vmx ../shared/corpus/vmx
run_fuzzer fuzz_vmx_escape 8192 800000 tests/fuzz/corpus/escape
run_fuzzer fuzz_vsphere_load 16384 250000 tests/fuzz/corpus/vsphere ../shared/corpus/configspec
run_fuzzer fuzz_vi_json 16384 250000 tests/fuzz/corpus/vi_json ../shared/corpus/configspec
run_fuzzer fuzz_pci_loaders 16384 150000 tests/fuzz/corpus/pci ../shared/corpus/topology \
  tests/data/vsphere/clients
run_fuzzer fuzz_sysfs 4096 45000 tests/fuzz/corpus/sysfs
run_fuzzer fuzz_lint 8192 12000 tests/fuzz/corpus/vmx ../shared/corpus/vmx tests/checks
run_fuzzer fuzz_guest 16384 60000 tests/fuzz/corpus/guest tests/data/guest

echo "fuzz: every target ran clean"
