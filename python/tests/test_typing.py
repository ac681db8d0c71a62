# SPDX-License-Identifier: Apache-2.0
"""The package's types (.pyi stubs, py.typed): `mypy --strict` accepts a program using it and the
package itself. mypy comes from python3-mypy (scripts/install-deps.sh); without it the test fails."""

import importlib.util
import os
import subprocess
import sys
import unittest

import vmxkit

HERE = os.path.dirname(os.path.abspath(__file__))


class TypingTest(unittest.TestCase):
    def test_mypy_strict_accepts_the_package_and_a_program_using_it(self):
        self.assertIsNotNone(importlib.util.find_spec("mypy"),
                             "mypy is not installed (python3-mypy, scripts/install-deps.sh)")
        package_root = os.path.dirname(os.path.dirname(os.path.abspath(vmxkit.__file__)))
        env = dict(os.environ, MYPYPATH=package_root)
        r = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                            "--cache-dir", os.devnull,
                            os.path.join(HERE, "typing_example.py")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, timeout=600,
                           check=False)
        self.assertEqual(r.returncode, 0, r.stdout.decode(errors="replace"))

    def test_the_package_is_typed(self):
        package = os.path.dirname(os.path.abspath(vmxkit.__file__))
        self.assertTrue(os.path.exists(os.path.join(package, "py.typed")))
        self.assertTrue(os.path.exists(os.path.join(package, "_vmxkit.pyi")))


if __name__ == "__main__":
    unittest.main()
