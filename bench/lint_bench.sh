#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Lint 10,000 .vmx files (copies of the corpus files, cycled) in one `vmxkit lint` run and
# compare with `cat` over the same files, both measured here, best of 3 runs each. The machine
# is noisy, so the ratio is the figure to read.
# Usage: bench/lint_bench.sh [VMXKIT_BINARY] [COUNT]
set -euo pipefail
cd "$(dirname "$0")/.."
vmxkit=${1:-build/release/vmxkit}
count=${2:-10000}
corpus=../shared/corpus/vmx
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mapfile -t sources < <(ls "$corpus"/*.vmx | sort)
for ((i = 0; i < count; i++)); do
  cp "${sources[i % ${#sources[@]}]}" "$work/vm$i.vmx"
done
bytes=$(cat "$work"/*.vmx | wc -c)

best() {  # best wall time in seconds of 3 runs of "$@"
  local best=999999 t
  for _ in 1 2 3; do
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || true
    end=$(date +%s.%N)
    t=$(echo "$end - $start" | bc -l)
    if (($(echo "$t < $best" | bc -l))); then best=$t; fi
  done
  echo "$best"
}

t_cat=$(best sh -c "cat '$work'/*.vmx")
t_lint=$(best "$vmxkit" lint --format json "$work")
printf 'files: %d (%d bytes) from %s\n' "$count" "$bytes" "$corpus"
printf 'cat:         %8.3f s  %10.0f files/s\n' "$t_cat" "$(echo "$count / $t_cat" | bc -l)"
printf 'vmxkit lint: %8.3f s  %10.0f files/s\n' "$t_lint" "$(echo "$count / $t_lint" | bc -l)"
printf 'ratio lint / cat: %.1fx the time of cat\n' "$(echo "$t_lint / $t_cat" | bc -l)"
