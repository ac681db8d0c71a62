# SPDX-License-Identifier: Apache-2.0
"""Threads: lint, topo and generate from several threads at once give the serial results, and
the GIL is released while the library works."""

import concurrent.futures
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


if __name__ == "__main__":
    unittest.main()
