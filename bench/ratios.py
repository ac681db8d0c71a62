#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Whole-process benchmarks of vmxkit against the fastest tool doing the baseline job, measured in
the same run, printed as ratios (these machines are noisy: absolute times mislead).

    bench/ratios.py [--vmxkit build/release/vmxkit] [--corpus DIR] [--quick] [--check]

Figures:
  * `vmxkit fmt` of a 64 MiB .vmx built from the corpus, against `wc -l` of the same file (wall
    time, the two run in turns, best of 15; goal <= 2x);
  * peak RSS of `fmt`, `get` and `set` on that file, as a multiple of its size;
  * `vmxkit lint` of 10,000 corpus files (one run, every core), against `cat` of them;
  * for reference, without goals: peak RSS and time of `lint` of the 64 MiB file, and of `fix`
    of 1,000,000 duplicate keys;
  * scaling: each of topo (matrix and SVG), generate (GPUs, and the keys of --base), lint
    (unique keys, keys each given twice, and SARIF of findings on one line), fix, the ConfigSpec
    XML reader and the VI/JSON reader at sizes 1x and 10x; the 10x run may cost at most 15x the
    CPU time (see TIME_GOAL) and 12x the memory above the base (the same command on a one-entry
    input: its start-up), else growth is superlinear. Best of 3 runs each, the three sizes run in
    turns; where time alone misses three times, valgrind's instruction count decides (<= 12x).
    Peak RSS is measured by bench/peak_rss.c (compiled with $CC or cc), as a child of Python
    would count the interpreter's memory too.
--check exits 1 when a goal is missed (the scaling goals always; with --quick only those), or
when nothing was measured. --quick runs in about a minute (ctest entry perf_scaling).
"""

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "..", "shared", "corpus", "vmx")


# 10x the input may cost at most 15x the time: the same binary measures 10x to 15x here from run
# to run, as the cost per element grows with the working set (page faults, cache misses). The
# superlinear costs this check exists for measured 30x and more (topo of an lspci capture was
# 131.7x, XSD validation 4x per doubling of attributes). Memory is deterministic: 12x.
TIME_GOAL = 15

PEAK_RSS = None  # the launcher measuring peak RSS (bench/peak_rss.c), built by main()


def build_peak_rss(work):
    """Compiles bench/peak_rss.c into `work`; a child of this Python process would count the
    interpreter's own RSS (Linux keeps the high-water mark across exec)."""
    global PEAK_RSS
    exe = os.path.join(work, "peak_rss")
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-o", exe,
                    os.path.join(ROOT, "bench", "peak_rss.c")], check=True)
    PEAK_RSS = exe


def run(argv, stdin=None, stdout=subprocess.DEVNULL):
    """Runs argv; returns (wall seconds, peak RSS in bytes, exit code, CPU seconds)."""
    read_end, write_end = os.pipe()
    start = time.perf_counter()
    with open(stdin, "rb") if stdin else open(os.devnull, "rb") as inp:
        proc = subprocess.Popen([PEAK_RSS, str(write_end), *argv], stdin=inp, stdout=stdout,
                                stderr=subprocess.DEVNULL, pass_fds=(write_end,))
        os.close(write_end)
        with os.fdopen(read_end) as report:
            text = report.read()
        proc.wait()
    elapsed = time.perf_counter() - start
    if proc.returncode != 0 or not text:
        raise SystemExit(f"peak_rss failed on {' '.join(argv)}")
    code, kib, cpu_us = (int(x) for x in text.split())
    return elapsed, kib * 1024, code, cpu_us / 1e6


def best(argv, repeat=3, cpu=False, **kw):
    """Best time and peak RSS over `repeat` runs. The time is wall-clock (what a user waits,
    what the ratios to `wc -l` and `cat` compare), or with `cpu` the command's user + system
    CPU time: what the scaling check compares, as it does not count the time the command
    waited for a core that another process of a busy machine held."""
    times, rss = [], []
    for _ in range(repeat):
        t, m, code, cpu_s = run(argv, **kw)
        if cpu:
            t = cpu_s
        if code not in (0, 1):  # 1: findings; anything else means the figure is not the job's
            raise SystemExit(f"{' '.join(argv)} exited {code}")
        times.append(t)
        rss.append(m)
    return min(times), min(rss)


def best_interleaved(argvs, repeat, cpu=True):
    """best(argv, repeat, cpu) of each of `argvs`, run in turns (each round runs every argv
    once), so that a burst of load on a shared machine falls on the 1x and the 10x runs alike
    rather than on whichever ran during it."""
    times = [[] for _ in argvs]
    rss = [[] for _ in argvs]
    for _ in range(repeat):
        for i, argv in enumerate(argvs):
            wall, m, code, cpu_s = run(argv)
            if code not in (0, 1):  # as in best()
                raise SystemExit(f"{' '.join(argv)} exited {code}")
            times[i].append(cpu_s if cpu else wall)
            rss[i].append(m)
    return [(min(t), min(m)) for t, m in zip(times, rss)]


def instructions(argv):
    """The instructions `argv` executes, counted by valgrind's callgrind (deterministic, unlike
    time), or None without valgrind."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    proc = subprocess.run([valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    for line in proc.stderr.splitlines():
        if "Collected :" in line:
            return int(line.rsplit(":", 1)[1])
    raise SystemExit(f"valgrind gave no instruction count for {' '.join(argv)}:\n{proc.stderr}")


def corpus_files(readable_by=None):
    """The corpus files' bytes, each ending in a line break. With `readable_by` (a vmxkit binary),
    only those that `fmt` accepts: it refuses files with malformed lines, so a file built from
    the others would measure an error exit instead of the job."""
    names = sorted(f for f in os.listdir(CORPUS) if f.endswith(".vmx"))
    out = []
    for n in names:
        if readable_by is not None:
            code = subprocess.run([readable_by, "fmt", "--check", os.path.join(CORPUS, n)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
            if code not in (0, 1):
                continue
        with open(os.path.join(CORPUS, n), "rb") as f:
            data = f.read()
        if not data.endswith((b"\n", b"\r")):
            data += b"\n"
        out.append(data)
    return out


def write_corpus_vmx(path, size, readable_by=None):
    files = corpus_files(readable_by)
    with open(path, "wb") as out:
        written = 0
        while written < size:
            for data in files:
                out.write(data)
                written += len(data)


def write_unique_vmx(path, lines):
    with open(path, "w") as out:
        out.write('.encoding = "UTF-8"\nmemsize = "65536"\nsched.mem.pin = "TRUE"\n')
        for i in range(lines):
            out.write(f'guestinfo.key{i} = "value {i} with some text"\n')


def write_duplicate_vmx(path, lines):
    with open(path, "w") as out:
        for i in range(lines):
            out.write(f'guestinfo.same = "{i}"\n')


def write_twice_vmx(path, keys):
    """`keys` distinct keys, then each again in reverse order and another letter case."""
    with open(path, "w") as out:
        for i in range(keys):
            out.write(f'guestinfo.key{i} = "{i}"\n')
        for i in reversed(range(keys)):
            out.write(f'GUESTINFO.KEY{i} = "again"\n')


def write_lspci(path, gpus):
    """`lspci -vvv -nn -D` of a host with `gpus` GPUs, each under its own root port."""
    with open(path, "w") as out:
        for g in range(gpus):
            domain, bus = divmod(g, 127)
            port_bus = 2 * bus
            gpu_bus = port_bus + 1
            out.write(
                f"{domain:04x}:{port_bus:02x}:01.0 PCI bridge [0604]: Intel Corporation Device [8086:347a]\n"
                f"\tBus: primary={port_bus:02x}, secondary={gpu_bus:02x}, subordinate={gpu_bus:02x}, sec-latency=0\n"
                f"\tNUMA node: {g % 2}\n"
                "\tCapabilities: [68] Express (v2) Root Port (Slot+), MSI 00\n"
                "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16\n\n"
                f"{domain:04x}:{gpu_bus:02x}:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 PCIe] [10de:2331]\n"
                f"\tNUMA node: {g % 2}\n"
                "\tRegion 0: Memory at 9e000000 (32-bit, non-prefetchable) [size=16M]\n"
                "\tRegion 1: Memory at 21a000000000 (64-bit, prefetchable) [size=128G]\n"
                "\tRegion 3: Memory at 21c000000000 (64-bit, prefetchable) [size=32M]\n"
                "\tCapabilities: [68] Express (v2) Endpoint, MSI 00\n"
                "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16\n\n")


def write_pipes(path, count):
    """One value of `count` raw `|` (each an escape VMware cannot read: a finding per byte, all
    on one line)."""
    with open(path, "w") as out:
        out.write('a = "' + "|" * count + '"\n')


def write_configspec_xml(path, entries):
    with open(path, "w") as out:
        out.write('<spec xmlns="urn:vim25" xmlns:xsd="http://www.w3.org/2001/XMLSchema" '
                  'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n')
        out.write("  <memoryMB>65536</memoryMB>\n")
        for i in range(entries):
            out.write(f'  <extraConfig><key>guestinfo.key{i}</key>'
                      f'<value xsi:type="xsd:string">value {i}</value></extraConfig>\n')
        out.write("</spec>\n")


def write_vi_json(path, entries):
    with open(path, "w") as out:
        out.write('{"_typeName": "VirtualMachineConfigSpec", "memoryMB": 65536, "extraConfig": [\n')
        out.write(",\n".join(
            f'{{"_typeName": "OptionValue", "key": "guestinfo.key{i}", "value": '
            f'{{"_typeName": "string", "_value": "value {i}"}}}}' for i in range(entries)))
        out.write("\n]}\n")


def ratio_line(name, t, base_name, t_base, goal=None):
    r = t / t_base if t_base > 0 else float("inf")
    goal_text = f" (goal <= {goal:g}x)" if goal else ""
    print(f"{name}: {t:.3f} s; {base_name}: {t_base:.3f} s; ratio {r:.2f}x{goal_text}")
    return goal is None or r <= goal


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vmxkit", default=os.path.join(ROOT, "build", "release", "vmxkit"))
    ap.add_argument("--corpus", help="the corpus's .vmx folder (default: ../shared/corpus/vmx "
                    "beside the repository)")
    ap.add_argument("--quick", action="store_true", help="scaling only, smaller sizes")
    ap.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    args = ap.parse_args()
    vmxkit = os.path.abspath(args.vmxkit)
    if args.corpus:
        global CORPUS
        CORPUS = os.path.abspath(args.corpus)
    ok = True
    work = tempfile.mkdtemp(prefix="vmxkit-bench-")
    build_peak_rss(work)
    try:
        if not args.quick:
            big = os.path.join(work, "big.vmx")
            write_corpus_vmx(big, 64 << 20, readable_by=vmxkit)
            size = os.path.getsize(big)
            # Wall time, in turns, best of 15: a 20 ms baseline is within a scheduler's noise.
            (t_wc, _), (t_fmt, _) = best_interleaved([["wc", "-l", big], [vmxkit, "fmt", big]],
                                                     15, cpu=False)
            print(f"input: {size / (1 << 20):.1f} MiB .vmx built from the corpus")
            ok &= ratio_line("vmxkit fmt", t_fmt, "wc -l", t_wc, 2)
            for name, argv in (("fmt", [vmxkit, "fmt", big]),
                               ("get", [vmxkit, "get", big, "memsize"]),
                               ("set", [vmxkit, "set", big, "memsize=4096"])):
                _, rss = best(argv, repeat=1)
                r = rss / size
                print(f"peak RSS of {name}: {rss / (1 << 20):.0f} MiB = {r:.2f}x the input (goal <= 2.5x)")
                ok &= r <= 2.5
            many = os.path.join(work, "many")
            os.mkdir(many)
            files = corpus_files()
            for i in range(10000):
                with open(os.path.join(many, f"vm{i}.vmx"), "wb") as f:
                    f.write(files[i % len(files)])
            names = sorted(os.path.join(many, n) for n in os.listdir(many))
            t_cat, _ = best(["cat", *names])
            t_lint, _ = best([vmxkit, "lint", "--format", "json", many])
            ok &= ratio_line("vmxkit lint of 10,000 files", t_lint, "cat", t_cat, 2)

            # Not goals of their own, but what issue 10 measured: a 64 MiB lint, 1,000,000
            # duplicate keys fixed.
            t_lint, rss_lint = best([vmxkit, "lint", big], repeat=1)
            print(f"vmxkit lint of the {size / (1 << 20):.0f} MiB file: {t_lint:.3f} s, peak RSS "
                  f"{rss_lint / (1 << 20):.0f} MiB = {rss_lint / size:.2f}x the input")
            dups = os.path.join(work, "dups.vmx")
            write_duplicate_vmx(dups, 1000000)
            t_fix, rss_fix = best([vmxkit, "fix", "--unsafe-fixes", dups], repeat=1)
            print(f"vmxkit fix of 1,000,000 duplicate keys: {t_fix:.3f} s, peak RSS "
                  f"{rss_fix / (1 << 20):.0f} MiB = {rss_fix / os.path.getsize(dups):.2f}x the input")

        # Sizes: the 1x run takes about 50 ms or more here, so process start-up and timer noise
        # do not decide the ratio (VI/JSON: its 10x stays under the reader's 16 MiB limit). The
        # SVG and SARIF cases start where their 1x memory is well above the base: SARIF of
        # 20,000 findings read 8.8x to 11.8x from one size to the next (vectors' capacities).
        # The ConfigSpec XML reader starts at 10,000 entries: at 5,000 its 1x run was only 9 MiB
        # above the base, and the allocator's rounding moved its memory ratio between 10.6x
        # and 12.1x from run to run (12x is the goal); at 10,000 it reads 10.6x. Like VI/JSON it
        # stays there without --quick: 200,000 entries (21 MB) are over the 16 MiB limit.
        scale = 1 if args.quick else 2
        cases = [
            ("topo (lspci -vvv, GPUs)", write_lspci, 4000 * scale, lambda p: [vmxkit, "topo", p]),
            ("topo --format svg (GPUs)", write_lspci, 4000 * scale,
             lambda p: [vmxkit, "topo", "--format", "svg", p]),
            ("generate --gpu auto (GPUs)", write_lspci, 2000 * scale,
             lambda p: [vmxkit, "generate", "--host", p, "--gpu", "auto"]),
            ("generate --base (.vmx lines)", write_unique_vmx, 50000 * scale,
             lambda p: [vmxkit, "generate", "--gpu", "a100-sxm4-40g", "--base", p]),
            ("lint --format sarif (findings on one line)", write_pipes, 40000 * scale,
             lambda p: [vmxkit, "lint", "--format", "sarif", p]),
            ("lint (.vmx lines)", write_unique_vmx, 100000 * scale, lambda p: [vmxkit, "lint", p]),
            ("lint (keys each twice)", write_twice_vmx, 50000 * scale,
             lambda p: [vmxkit, "lint", p]),
            ("fix (duplicate keys)", write_duplicate_vmx, 50000 * scale,
             lambda p: [vmxkit, "fix", "--unsafe-fixes", p]),
            ("ConfigSpec XML reader", write_configspec_xml, 10000,
             lambda p: [vmxkit, "convert", p, "--to", "vmx"]),
            ("VI/JSON reader", write_vi_json, 13000,
             lambda p: [vmxkit, "convert", p, "--to", "vmx"]),
        ]
        results = 0
        for name, writer, n, argv_of in cases:
            tiny, small, large = (os.path.join(work, f) for f in ("t.in", "s.in", "l.in"))
            writer(tiny, 1)
            writer(small, n)
            writer(large, 10 * n)
            # The base: the same command on a one-entry input (its code, its start-up). Memory
            # is deterministic; time is not: a miss on time alone is measured again (twice), best of 7
            # (a burst of load on a shared machine passes; quadratic growth, 100x, never does).
            for attempt, repeat in enumerate((3, 7, 7)):
                (t_base, rss_base), (t1, m1), (t10, m10) = best_interleaved(
                    [argv_of(tiny), argv_of(small), argv_of(large)], repeat)
                tr = (t10 - t_base) / max(t1 - t_base, 1e-3)
                mr = (m10 - rss_base) / max(m1 - rss_base, 1 << 20)
                good = tr <= TIME_GOAL and mr <= 12
                again = " (measured again)" if attempt else ""
                print(f"scaling {name}{again}: {n} -> {10 * n}: CPU time {t1:.3f} s -> {t10:.3f} s "
                      f"({tr:.1f}x above base {t_base:.3f} s), memory {m1 >> 20} -> "
                      f"{m10 >> 20} MiB ({mr:.1f}x above base {rss_base >> 20} MiB); "
                      f"{'linear' if good else 'SUPERLINEAR'} "
                      f"(goals: time <= {TIME_GOAL}x, memory <= 12x)", flush=True)
                if good or mr > 12:
                    break
            if not good and mr <= 12:
                # Time alone missed, three times: count instructions, which load does not move.
                # Growth in them is the algorithm's; time above them is cache and TLB misses of
                # the larger working set (lint of 1,000,000 lines: 9.8x the instructions of
                # 100,000, 12x-18x the CPU time from run to run here).
                counts = [instructions(argv_of(f)) for f in (tiny, small, large)]
                if None not in counts:
                    ir = (counts[2] - counts[0]) / max(counts[1] - counts[0], 1)
                    good = ir <= 12
                    print(f"scaling {name} (instructions, callgrind): {counts[1]:,} -> "
                          f"{counts[2]:,} ({ir:.1f}x above base {counts[0]:,}); "
                          f"{'linear' if good else 'SUPERLINEAR'} (goal: <= 12x)", flush=True)
            ok &= good
            results += 1
        # A check that measured nothing must not pass.
        ok &= results > 0
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.check and not ok:
        print("a goal was missed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
