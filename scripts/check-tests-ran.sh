#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails when a ctest entry of the last `ctest` run in BUILD_DIR ran no test case: a Catch2 entry
# whose name did not match any test case ("No tests ran", e.g. a TEST_CASE name that
# catch_discover_tests split at a `;`), a Python entry that ran 0 tests, or an entry of the build's
# test list that is missing from the run. Reads BUILD_DIR/Testing/Temporary/LastTest.log, which
# ctest writes with every test's full output, so run it right after `ctest --test-dir BUILD_DIR`.
#   usage: scripts/check-tests-ran.sh BUILD_DIR
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
build=$1
log="$build/Testing/Temporary/LastTest.log"
if [[ ! -f "$log" ]]; then
  echo "check-tests-ran: $log: no ctest log; run ctest --test-dir $build first" >&2
  exit 2
fi

# `ctest -N` rewrites LastTest.log: keep the run's log aside and put it back afterwards.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -p "$log" "$work/LastTest.log"
# Every entry the build defines, as `ctest -N` lists them ("  Test #12: name").
listed=$(ctest --test-dir "$build" -N | sed -n 's/^ *Test *#[0-9]*: //p')
cp -p "$work/LastTest.log" "$log"
if [[ -z "$listed" ]]; then
  echo "check-tests-ran: ctest --test-dir $build -N lists no tests" >&2
  exit 2
fi

# One line per entry in the log: "name<TAB>problem" for each entry that ran nothing, and
# "name<TAB>ok" for the others.
verdicts=$(awk '
  function verdict(   problem) {
    if (name == "") return
    problem = ""
    if (output ~ /(^|\n)No tests ran(\n|$)/) {
      problem = "its Catch2 test spec matched no test case (\"No tests ran\")"
    } else if (output ~ /(^|\n)Ran 0 tests /) {
      problem = "it ran 0 Python tests"
    } else if (output ~ /[( ]0 test cases?[ )]/ || output ~ /test cases?: *0[^0-9]/) {
      problem = "it ran 0 test cases"
    } else if (catch2 && output !~ /All tests passed \([0-9]+ assertions? in [1-9][0-9]* test cases?\)/ &&
               output !~ /test cases?: *[1-9][0-9]* *\|/) {
      problem = "its output has no Catch2 summary with at least one test case"
    }
    print name "\t" (problem == "" ? "ok" : problem)
    name = ""
  }
  /^[0-9]+\/[0-9]+ Testing: / { verdict(); name = $0; sub(/^[0-9]+\/[0-9]+ Testing: /, "", name);
                                catch2 = 0; output = ""; in_output = 0; next }
  name != "" && /^Command: / { catch2 = ($0 ~ /vmxkit_tests"/); next }
  name != "" && /^Output:$/ { in_output = 1; getline; next }  # skip the dashes under it
  in_output && /^<end of output>$/ { in_output = 0; next }
  in_output { output = output $0 "\n"; next }
  END { verdict() }
' "$work/LastTest.log")

failed=0
while IFS= read -r test; do
  [[ -z "$test" ]] && continue
  line=$(awk -F'\t' -v n="$test" '$1 == n { print $2; exit }' <<<"$verdicts")
  if [[ -z "$line" ]]; then
    echo "check-tests-ran: '$test' did not run in the last ctest run of $build" >&2
    failed=$((failed + 1))
  elif [[ "$line" != ok ]]; then
    echo "check-tests-ran: '$test' ran nothing: $line" >&2
    failed=$((failed + 1))
  fi
done <<<"$listed"

count=$(grep -c . <<<"$listed")
if [[ $failed -ne 0 ]]; then
  echo "check-tests-ran: $failed of $count ctest entries ran no test case" >&2
  exit 1
fi
echo "check-tests-ran: all $count ctest entries ran at least one test case"
