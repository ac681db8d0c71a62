#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs the generate x lint matrix (tests/data/generate/matrix.txt) through a vmxkit binary,
any version: `generate --host HOST --system-id U FLAGS -o vm.vmx`, then `lint --host HOST` on
what it wrote. Prints each plan that generate wrote and lint rejects (an error or a warning),
and the count. The ctest entry "every plan of the generate matrix ..." is the check; this
measures an older binary against the same cases (a flag it does not know skips the case).

Usage: scripts/matrix-report.py [path/to/vmxkit]   (default: build/dev/vmxkit)"""

import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cases():
    with open(os.path.join(ROOT, "tests", "data", "generate", "matrix.txt")) as f:
        for number, line in enumerate(f, 1):
            body = line.strip()
            if body and not body.startswith("#"):
                host, flags, verdict = (p.strip() for p in body.split("|", 2))
                yield number, host, flags, verdict


def main():
    vmxkit = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "dev", "vmxkit")
    ran = rejected = errors = warnings = 0
    skipped = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "vm.vmx")
        for number, host, flags, verdict in cases():
            path = os.path.join(ROOT, host if "/" in host else
                                os.path.join("examples", "hosts", host))
            hosts = ["--host", path]
            if host.endswith(".esxcli-pci.txt"):  # with its memory capture, as the test does
                hosts += ["--host", path[:-len("pci.txt")] + "memory.txt"]
            words = [os.path.join(ROOT, w) if w.startswith("tests/") else w for w in flags.split()]
            if os.path.exists(out):
                os.remove(out)
            gen = subprocess.run([vmxkit, "generate", "--system-id", "U", "-o", out, "--force"]
                                 + hosts + words, capture_output=True, text=True)
            if "arguments were not expected" in gen.stderr or "not found" in gen.stderr:
                skipped.append(number)
                continue
            ran += 1
            if gen.returncode != 0:
                continue
            lint = subprocess.run([vmxkit, "lint", "--format", "json", out] + hosts,
                                  capture_output=True, text=True)
            summary = json.loads(lint.stdout)["summary"]
            if summary["errors"] or summary["warnings"]:
                rejected += 1
                errors += summary["errors"]
                warnings += summary["warnings"]
                print("matrix.txt:%d: %d errors, %d warnings (expected %s): %s"
                      % (number, summary["errors"], summary["warnings"], verdict, flags))
    print("%d cases run (%d skipped: flags this binary does not know); %d plans written that "
          "lint --host rejects (%d errors, %d warnings)"
          % (ran, len(skipped), rejected, errors, warnings))
    return 1 if rejected else 0


if __name__ == "__main__":
    sys.exit(main())
