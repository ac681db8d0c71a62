# SPDX-License-Identifier: Apache-2.0
"""Threads: lint, topo and generate from several threads at once give the serial results, the
GIL is released while the library works, and Document.save() from threads, beside every
command-line writer, loses no edit it reported written."""

import concurrent.futures
import os
import shutil
import subprocess
import tempfile
import threading
import time
import unittest

import support
import vmxkit


def summary(findings):
    return [(f.path, f.rule, f.line, f.column, f.message) for f in findings]


class ThreadTest(unittest.TestCase):
    def test_concurrent_work_gives_the_serial_results(self):
        host = vmxkit.Host(support.HOST_2S)
        files = support.vmx_files()
        serial = [summary(vmxkit.lint(p, host=host)) for p in files]
        topo = host.topo()
        plan_vmx = vmxkit.generate(host, gpus=2, nic="auto", system_id=support.SYSTEM_ID).vmx()

        def work(i):
            path = files[i % len(files)]
            out = [summary(vmxkit.lint(path, host=host))]
            if i % 5 == 0:
                out.append(host.topo())
                out.append(vmxkit.generate(host, gpus=2, nic="auto",
                                           system_id=support.SYSTEM_ID).vmx())
            return i, out

        with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
            for i, out in pool.map(work, range(4 * len(files))):
                self.assertEqual(out[0], serial[i % len(files)])
                if i % 5 == 0:
                    self.assertEqual(out[1], topo)
                    self.assertEqual(out[2], plan_vmx)

    def test_the_gil_is_released_while_linting(self):
        # A .vmx large enough that one lint takes a while, with distinct keys and so few
        # findings (what is done with the GIL held, making Finding objects, stays short).
        def vmx(n):
            return b"".join(b'guestinfo.key%d = "value"\n' % i for i in range(n))

        n = 100000
        while True:
            data = vmx(n)
            start = time.monotonic()
            self.assertEqual(len(vmxkit.lint(data)), 0)
            alone = time.monotonic() - start
            if alone >= 0.2 or n >= 10000000:
                break
            n = int(n * 0.3 / max(alone, 0.001))

        # While another thread lints, this one keeps running Python: the longest pause between
        # its ticks is far shorter than the lint (it would be the whole lint, were the GIL held).
        done = threading.Event()
        worker = threading.Thread(target=lambda: (vmxkit.lint(data), done.set()))
        ticks = []
        worker.start()
        while not done.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.001)
        worker.join()
        self.assertGreater(len(ticks), 3)
        gaps = [b - a for a, b in zip(ticks, ticks[1:])]
        self.assertLess(max(gaps), alone / 2,
                        "longest pause %.3fs while one lint takes %.3fs" % (max(gaps), alone))


BASE_VMX = (b'.encoding = "UTF-8"\n'
            b'# a comment that `vmxkit convert --to vmx` drops\n'
            b'firmware = "efi"\n'
            b'memsize = "4096"\n'
            b'sched.mem.pin = "TRUE"\n'
            b'pciPassthru0.present = "TRUE"\n'
            b'pciPassthru0.id = "0000:3b:00.0"\n'
            b'pciPassthru0.deviceId = "0x2331"\n'
            b'pciPassthru0.vendorId = "0x10de"\n'
            b'pciPassthru0.systemId = "x"\n'
            b'pciPassthru.use64bitMMIO = "TRUE"\n'
            b'pciPassthru.64bitMMIOSizeGB = "256"\n'
            b'old.k1 = "1"\nold.k2 = "1"\nold.k3 = "1"\n')


def save_edits(path, thread, count):
    """Sets py.t<thread>.e<i> = "1" for i < count, one Document and save() each, again from a
    fresh read when the save is refused (another writer's edit came first). Returns the keys
    whose save() returned True."""
    saved = []
    for i in range(count):
        key = "py.t%d.e%d" % (thread, i)
        for _ in range(500):
            doc = vmxkit.Document(path)
            doc[key] = "1"
            try:
                if doc.save():
                    saved.append(key)
                break
            except vmxkit.Error as e:
                if "changed" not in str(e):
                    raise
    return saved


class SaveTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.path = os.path.join(self.tmp, "vm.vmx")
        with open(self.path, "wb") as f:
            f.write(BASE_VMX)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def check_kept(self, saved):
        doc = vmxkit.Document(self.path)
        lost = [k for k in saved if doc.get(k) != "1"]
        self.assertEqual(lost, [], "%d of %d edits reported saved are not in the file"
                         % (len(lost), len(saved)))
        self.assertEqual(os.listdir(self.tmp), ["vm.vmx"])  # no temporary file left
        return doc

    def test_save_from_eight_threads_keeps_every_edit_it_reported(self):
        # Each save() renames a new file over the path; the test of whether the target is the
        # file the Document was read from, made with two stats before the lock, saw such a
        # rename between them and wrote unconditionally over another thread's edit.
        with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
            results = list(pool.map(lambda t: save_edits(self.path, t, 250), range(8)))
        saved = [k for r in results for k in r]
        self.assertEqual(len(saved), 8 * 250)
        self.check_kept(saved)

    def test_every_writer_at_once_keeps_every_edit_it_reported(self):
        # Python save() in threads, and every command-line writer as its own process: set,
        # unset, fix, fmt -i, convert -o onto its input, generate --base -o onto its input.
        binary = os.environ["VMXKIT_BINARY"]
        p = self.path
        jobs = [["set", "-i", p, "cli.k%d=1" % k] for k in range(4)]
        jobs += [["unset", "-i", p, "old.k%d" % k] for k in (1, 2, 3)]
        jobs += [["fix", "-i", "--unsafe-fixes", p]] * 2
        jobs += [["fmt", "-i", p]] * 2
        jobs += [["convert", p, "--to", "vmx", "-o", p]] * 2
        jobs += [["generate", "--gpu", "a100-sxm4-40g", "--base", p, "-o", p]] * 3
        ok = {"fix": (0, 1)}  # fix: 1 when findings remain; 2 would be a failed write
        procs = [subprocess.Popen([binary, *job], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE) for job in jobs]
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            results = list(pool.map(lambda t: save_edits(p, t, 10), range(4)))
        generated = 0
        for job, proc in zip(jobs, procs):
            err = proc.communicate(timeout=120)[1].decode(errors="replace")
            self.assertIn(proc.returncode, ok.get(job[0], (0,)), "%s: %s" % (job, err))
            generated += job[0] == "generate"
        doc = self.check_kept([k for r in results for k in r])
        for k in range(4):
            self.assertEqual(doc.get("cli.k%d" % k), "1")
        for k in (1, 2, 3):
            self.assertIsNone(doc.get("old.k%d" % k))
        self.assertEqual(doc.get("pciPassthru0.id"), "00000:059:00.0")  # fix's edit
        self.assertNotIn(b"# a comment", doc.bytes())  # convert's
        # generate adds one A100 each time: every run that exited 0 is in the file.
        self.assertEqual(doc.bytes().lower().count(b'deviceid = "0x20b0"'), generated)


if __name__ == "__main__":
    unittest.main()
