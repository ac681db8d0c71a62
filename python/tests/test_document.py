# SPDX-License-Identifier: Apache-2.0
"""vmxkit.Document: byte-identical round trips, edits, atomic and lock-aware saves."""

import os
import shutil
import stat
import tempfile
import unittest

import support
import vmxkit


class DocumentTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.path = os.path.join(self.tmp, "vm.vmx")
        shutil.copyfile(support.WORKER_VMX, self.path)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_an_unchanged_document_is_its_input_byte_for_byte(self):
        files = support.vmx_files()
        self.assertGreater(len(files), 10)
        for path in files:
            with self.subTest(path=os.path.relpath(path, support.SOURCE_DIR)):
                data = support.read(path)
                self.assertEqual(vmxkit.Document(path).bytes(), data)
                self.assertEqual(vmxkit.Document(data).bytes(), data)
                self.assertFalse(vmxkit.Document(path).modified)

    def test_get_set_unset(self):
        doc = vmxkit.Document(self.path)
        self.assertEqual(doc.get("FIRMWARE"), "bios")
        self.assertEqual(doc["firmware"], "bios")
        self.assertIn("firmware", doc)
        self.assertIsNone(doc.get("no.such.key"))
        self.assertEqual(doc.get("no.such.key", "x"), "x")
        with self.assertRaises(KeyError):
            doc["no.such.key"]
        original = doc.bytes()
        doc.set("firmware", "efi")
        self.assertEqual(doc.get("firmware"), "efi")
        self.assertEqual(doc.bytes(), original.replace(b'firmware = "bios"', b'firmware = "efi"'))
        self.assertTrue(doc.modified)
        doc.set("firmware", "bios")
        self.assertEqual(doc.bytes(), original)
        # A new key and its removal give the original bytes back.
        doc["pciPassthru.RelaxACSforP2P"] = True
        self.assertEqual(doc.get("pcipassthru.relaxacsforp2p"), "TRUE")
        self.assertIn(b'pciPassthru.RelaxACSforP2P = "TRUE"', doc.bytes())
        del doc["pciPassthru.RelaxACSforP2P"]
        self.assertEqual(doc.bytes(), original)
        self.assertFalse(doc.unset("no.such.key"))
        with self.assertRaises(KeyError):
            del doc["no.such.key"]
        doc["memsize"] = 4096  # the entry keeps its spelling, memSize
        self.assertEqual(doc["memsize"], "4096")
        self.assertIn(b'\nmemSize = "4096"\n', doc.bytes())
        self.assertEqual(doc.keys()[0], doc.items()[0][0])
        self.assertIn("memSize", list(doc))

    def test_values_are_escaped_and_bytes_kept(self):
        doc = vmxkit.Document(b'# comment\r\nkey = "a|22b"\r\n', path=self.path)
        self.assertEqual(doc["key"], 'a"b')
        doc.set("key", b'\xff"x')
        self.assertEqual(doc.bytes(), b'# comment\r\nkey = "\xff|22x"\r\n')
        self.assertEqual(doc.get_bytes("key"), b'\xff"x')
        self.assertEqual(doc.get("key").encode("utf-8", "surrogateescape"), b'\xff"x')

    def test_bad_keys_are_refused(self):
        doc = vmxkit.Document(self.path)
        for key in ("", "a b", "a=b", "a#b", 'a"b', "a\nb"):
            with self.subTest(key=key), self.assertRaises(ValueError):
                doc.set(key, "x")
        with self.assertRaises(TypeError):
            doc.set("key", 1.5)  # type: ignore[arg-type]

    def test_save_in_place_is_atomic_and_keeps_the_mode(self):
        os.chmod(self.path, 0o640)
        inode = os.stat(self.path).st_ino
        doc = vmxkit.Document(self.path)
        doc.set("firmware", "efi")
        self.assertTrue(doc.save())
        self.assertEqual(support.read(self.path), doc.bytes())
        st = os.stat(self.path)
        self.assertEqual(stat.S_IMODE(st.st_mode), 0o640)
        self.assertNotEqual(st.st_ino, inode)  # a new file renamed over the old one
        self.assertEqual(os.listdir(self.tmp), ["vm.vmx"])  # no temporary file left
        self.assertFalse(doc.modified)
        # Nothing changed: nothing written.
        self.assertFalse(doc.save())
        self.assertEqual(os.stat(self.path).st_ino, st.st_ino)

    def test_save_is_refused_while_the_vm_holds_its_lock(self):
        os.mkdir(self.path + ".lck")
        doc = vmxkit.Document(self.path)
        doc.set("firmware", "efi")
        with self.assertRaises(vmxkit.Error) as cm:
            doc.save()
        self.assertIn("lock", str(cm.exception))
        self.assertEqual(cm.exception.path, self.path)
        self.assertEqual(support.read(self.path), support.read(support.WORKER_VMX))
        other = os.path.join(self.tmp, "other.vmx")
        os.mkdir(other + ".lck")
        with self.assertRaises(vmxkit.Error):
            doc.save(other)
        self.assertFalse(os.path.exists(other))
        self.assertTrue(doc.save(force=True))
        self.assertIn(b'firmware = "efi"', support.read(self.path))

    def test_save_is_refused_when_the_file_changed_since_it_was_read(self):
        doc = vmxkit.Document(self.path)
        doc.set("firmware", "efi")
        with open(self.path, "ab") as f:
            f.write(b'annotation = "edited elsewhere"\n')
        changed = support.read(self.path)
        with self.assertRaises(vmxkit.Error) as cm:
            doc.save()
        self.assertIn("changed", str(cm.exception))
        self.assertEqual(support.read(self.path), changed)

    def test_save_as_writes_a_new_file_and_moves_the_document(self):
        doc = vmxkit.Document(support.read(support.WORKER_VMX))
        self.assertIsNone(doc.path)
        with self.assertRaises(ValueError):
            doc.save()
        target = os.path.join(self.tmp, "new.vmx")
        doc.set("firmware", "efi")
        self.assertTrue(doc.save(target))
        self.assertEqual(doc.path, target)
        self.assertEqual(support.read(target), doc.bytes())
        doc.set("memsize", "4096")
        self.assertTrue(doc.save())
        self.assertIn(b'memSize = "4096"', support.read(target))

    def test_a_document_lints_as_it_is_now(self):
        doc = vmxkit.Document(self.path)
        self.assertIn("MMIO005", [f.rule for f in doc.lint()])
        doc.set("firmware", "efi")
        self.assertNotIn("MMIO005", [f.rule for f in doc.lint()])
        self.assertNotIn("MMIO005", [f.rule for f in vmxkit.lint(doc)])
        self.assertIn("modified", repr(doc))

    def test_malformed_lines_are_kept_and_reported(self):
        data = b'good = "1"\nthis is not a setting\n'
        doc = vmxkit.Document(data)
        self.assertEqual(doc.bytes(), data)
        (problem,) = doc.problems()
        self.assertEqual(problem[1], 2)
        doc.set("good", "2")
        self.assertEqual(doc.bytes(), b'good = "2"\nthis is not a setting\n')

    def test_a_missing_file_is_an_error(self):
        with self.assertRaises(vmxkit.Error) as cm:
            vmxkit.Document(os.path.join(self.tmp, "missing.vmx"))
        self.assertEqual(cm.exception.path, os.path.join(self.tmp, "missing.vmx"))


if __name__ == "__main__":
    unittest.main()
