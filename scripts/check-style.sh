#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks the tree's style: every C++ file as clang-format writes it (.clang-format), and clang-tidy
# clean with the checks the project keeps (.clang-tidy). Needs a configured build directory for
# compile_commands.json (default build/dev).
# clang-format findings fail; clang-tidy findings fail only with --strict (the tree is not yet
# clang-tidy clean: the findings are printed so that each round removes some).
# Usage: scripts/check-style.sh [BUILD_DIR] [--format-only | --strict]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/dev}
mapfile -t files < <(git ls-files '*.cpp' '*.h')

echo "clang-format: ${#files[@]} files"
bad=()
for f in "${files[@]}"; do
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
if ((${#bad[@]})); then
  printf 'not formatted (run: clang-format -i FILE):\n' >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
[[ ${2:-} == --format-only ]] && exit 0

# clang-tidy over the library and the CLI (the sources compile_commands.json knows).
mapfile -t sources < <(git ls-files 'src/*.cpp')
echo "clang-tidy: ${#sources[@]} files"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! run-clang-tidy -p "$build" -j "$(nproc)" -quiet "${sources[@]/#/$PWD/}" >"$log" 2>&1; then
  grep -E "(warning|error):" "$log" | sed 's/\x1b\[[0-9;]*m//g' | sort -u >&2 || true
  if [[ ${2:-} == --strict ]]; then
    echo "clang-tidy found problems" >&2
    exit 1
  fi
  echo "style: clang-format clean; clang-tidy findings above (reported, not yet enforced)"
  exit 0
fi
echo "style: clean"
