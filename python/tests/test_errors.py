# SPDX-License-Identifier: Apache-2.0
"""vmxkit.Error: the file, line and column of input that cannot be read; never a crash."""

import os
import pickle
import tempfile
import unittest

import vmxkit


class ErrorTest(unittest.TestCase):
    def check_located(self, error, path):
        self.assertIsInstance(error, Exception)
        self.assertEqual(error.path, path)
        self.assertIsInstance(error.line, int)
        self.assertIsInstance(error.column, int)
        self.assertGreaterEqual(error.line, 1)
        self.assertGreaterEqual(error.column, 1)
        self.assertTrue(str(error).startswith("%s:%d:%d: " % (path, error.line, error.column)),
                        str(error))

    def test_malformed_xml_names_its_line_and_column(self):
        data = (b'<?xml version="1.0"?>\n'
                b'<obj xmlns="urn:vim25" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
                b'xsi:type="VirtualMachineConfigSpec">\n'
                b'  <memoryMB>4096</memoryMB>\n'
                b'  <firmware>efi</firm>\n'
                b'</obj>\n')
        with self.assertRaises(vmxkit.Error) as cm:
            vmxkit.lint(data)
        self.check_located(cm.exception, "<bytes>")
        self.assertEqual(cm.exception.line, 4)

    def test_malformed_json_names_its_line_and_column(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "spec.json")
            with open(path, "wb") as f:
                f.write(b'{\n  "_typeName": "VirtualMachineConfigSpec",\n  "memoryMB": ,\n}\n')
            with self.assertRaises(vmxkit.Error) as cm:
                vmxkit.lint(path)
            self.check_located(cm.exception, path)
            self.assertEqual(cm.exception.line, 3)

    def test_a_missing_file_names_the_file(self):
        with self.assertRaises(vmxkit.Error) as cm:
            vmxkit.lint("/nonexistent/vm.vmx")
        self.assertEqual(cm.exception.path, "/nonexistent/vm.vmx")
        self.assertIsNone(cm.exception.line)
        self.assertIn("/nonexistent/vm.vmx", str(cm.exception))

    def test_a_vmx_never_raises_its_problems_are_findings(self):
        findings = vmxkit.lint(b'memsize = "4096\ngarbage without equals\n\xff\xfe = "x"\n')
        self.assertTrue(findings)
        self.assertTrue(all(f.line >= 1 for f in findings))

    def test_arbitrary_bytes_never_crash(self):
        samples = [b"", b"\x00" * 100, b"<", b"{", b"\xef\xbb\xbf<x/>", b"[1,2", b"\xff\xfe\x00<",
                   b'{"_typeName": 5}', b"<Envelope/>", bytes(range(256))]
        for data in samples:
            with self.subTest(data=data[:20]):
                try:
                    vmxkit.lint(data)
                except vmxkit.Error as e:
                    self.assertTrue(str(e))

    def test_a_path_with_a_nul_byte_is_refused_not_cut_short(self):
        # The system calls would read the path up to the NUL: another file than the one given.
        with tempfile.TemporaryDirectory() as tmp:
            f = os.path.join(tmp, "f")
            with open(f, "wb") as out:
                out.write(b'memsize = "4096"\n')
            bad = f + "\x00x"
            calls = [lambda: vmxkit.lint(bad), lambda: vmxkit.Document(bad),
                     lambda: vmxkit.convert(bad, "vi-json"), lambda: vmxkit.Host(bad),
                     lambda: vmxkit.generate(gpus=["h100-sxm"], base=bad),
                     lambda: vmxkit.Document(b'a = "1"\n').save(bad),
                     lambda: vmxkit.Document(f).save(bad)]
            for call in calls:
                with self.subTest(call=call), self.assertRaises(ValueError) as cm:
                    call()
                self.assertIn("NUL byte", str(cm.exception))
            self.assertEqual(sorted(os.listdir(tmp)), ["f"])

    def test_errors_pickle_with_their_position(self):
        e = vmxkit.Error("f.xml:3:7: bad", "f.xml", 3, 7)
        again = pickle.loads(pickle.dumps(e))
        self.assertEqual((str(again), again.path, again.line, again.column),
                         ("f.xml:3:7: bad", "f.xml", 3, 7))


if __name__ == "__main__":
    unittest.main()
