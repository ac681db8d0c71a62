# SPDX-License-Identifier: Apache-2.0
"""vmxkit.Host: topo() and mmio() on the example hosts."""

import os
import tempfile
import unittest

import support
import vmxkit


class HostTest(unittest.TestCase):
    def test_the_matrix_of_a_two_socket_host(self):
        host = vmxkit.Host(support.HOST_2S)
        t = host.topo()
        self.assertEqual((len(t.gpus), len(t.nics)), (8, 8))
        self.assertEqual(len(t.matrix), 16)
        self.assertTrue(all(len(row) == 16 for row in t.matrix))
        gpu0, gpu1, gpu4 = t.gpus[0].address, t.gpus[1].address, t.gpus[4].address
        nic0 = t.nics[0].address
        self.assertEqual(t.gpus[0].role, "gpu")
        self.assertEqual(t.nics[0].role, "rdma-nic")
        self.assertEqual(t.matrix[0][0], "X")
        self.assertEqual(t.path(gpu0, gpu1), "PIX")
        self.assertEqual(t.path(gpu0, nic0), "PIX")
        self.assertEqual(t.path(gpu0, gpu4), "SYS")
        self.assertEqual(t.gpus[0].numa_node, 0)
        self.assertEqual(t.gpus[4].numa_node, 1)
        pix = t.pair(gpu0, nic0)
        self.assertIsNotNone(pix)
        self.assertEqual((pix.path, pix.verdict), ("PIX", "ok"))
        sys_pair = t.pair(gpu4, gpu0)
        self.assertEqual((sys_pair.path, sys_pair.verdict), ("SYS", "unsupported"))
        self.assertTrue(sys_pair.reasons)
        self.assertEqual(t.best_nic[0], t.nics[0])
        with self.assertRaises(KeyError):
            t.path(gpu0, "0000:ff:1f.7")

    def test_the_matrix_of_an_esxi_host_from_two_captures(self):
        host = vmxkit.Host(support.HOST_ESXI)
        t = host.topo()
        self.assertEqual((len(t.gpus), len(t.nics)), (4, 2))
        self.assertEqual([row[4] for row in t.matrix[:4]], ["PIX", "PIX", "NODE", "NODE"])
        self.assertEqual(len(host.paths), 2)
        self.assertIn("synthetic-esxi", repr(host))

    def test_devices_and_find(self):
        host = vmxkit.Host([support.HOST_2S])
        devices = host.devices
        self.assertGreater(len(devices), 16)
        gpu = host.find("0000:18:00.0")
        self.assertEqual(gpu.model, "H100 PCIe")
        self.assertEqual((gpu.vendor_id, gpu.device_id), (0x10de, 0x2331))
        self.assertIsNone(host.find("0000:ff:1f.7"))
        self.assertIsInstance(host.warnings, list)

    def test_mmio_with_its_arithmetic(self):
        host = vmxkit.Host(support.HOST_2S)
        m = host.mmio(["0000:18:00.0"])
        self.assertEqual(m.size_gb, 256)
        self.assertFalse(m.estimated)
        self.assertEqual(m.unknown, ())
        self.assertTrue(any("64bitMMIOSizeGB = 256" in line for line in m.lines))
        self.assertTrue(m.bars)
        self.assertEqual(m.bars[0].bar, "BAR1")
        two = host.mmio(["0000:18:00.0", "0000:19:00.0"])
        self.assertGreaterEqual(two.size_gb, 256)
        # Without a host: catalogue models.
        by_model = vmxkit.mmio("h100-pcie")
        self.assertEqual(by_model.size_gb, 256)
        with self.assertRaises(vmxkit.Error):
            vmxkit.mmio("0000:18:00.0")  # an address needs its host
        self.assertEqual(by_model.unknown_gpus, ())
        self.assertEqual(m.unassigned, ())
        with self.assertRaises(vmxkit.Error):
            host.mmio(["0000:ff:1f.7"])

    def test_mmio_names_an_unknown_gpu_and_a_bar_the_kernel_could_not_place(self):
        # A GPU whose BAR1 and framebuffer the catalogue does not give is sized, and named.
        unknown = vmxkit.mmio("10de:15fa")
        self.assertEqual(len(unknown.unknown_gpus), 1)
        self.assertIn("10de:15fa", unknown.unknown_gpus[0])
        self.assertEqual(unknown.size_gb, 64)
        # A kernel log (Linux 6.8 and later wording) with a BAR it found no space for.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "dmesg.txt")
            with open(path, "w", encoding="utf-8") as f:
                f.write("[    0.9] pci 0000:13:00.0: [10de:2331] type 00 class 0x030200 PCIe "
                        "Endpoint\n"
                        "[    1.0] pci 0000:13:00.0: BAR 1 [mem size 0x2000000000 64bit pref]: "
                        "can't assign; no space\n")
            m = vmxkit.Host(path).mmio(["0000:13:00.0"])
        self.assertEqual(len(m.unassigned), 1)
        self.assertIn("the kernel found no space for BAR1 (128G", m.unassigned[0])

    def test_captures_in_memory(self):
        text = support.read(support.HOST_2S)
        host = vmxkit.Host.from_text(text, names=["host.txt"])
        self.assertEqual(len(host.topo().gpus), 8)
        self.assertEqual(host.paths, ("host.txt",))
        self.assertEqual(vmxkit.Host.from_text(text.decode()).topo(), host.topo())

    def test_a_hosts_vsphere_properties(self):
        """The GPU host of the vCenter simulator, as Host.from_vsphere reads it (pyVmomi's
        ObjectContent) and as a saved RetrievePropertiesEx answer: one host, one matrix."""
        import os
        pyvmomi = vmxkit.Host([os.path.join(support.CLIENTS_DIR,
                                            "pyvmomi-hostsystem-objectcontent.xml")])
        soap = vmxkit.Host([os.path.join(support.CLIENTS_DIR,
                                         "hostsystem-retrievepropertiesex.xml")])
        self.assertEqual(pyvmomi.topo(), soap.topo())
        t = pyvmomi.topo()
        self.assertEqual([g.address for g in t.gpus], ["0000:18:00.0", "0000:9a:00.0"])
        self.assertEqual(t.path("0000:18:00.0", "0000:19:00.0"), "PIX")
        self.assertEqual(t.path("0000:18:00.0", "0000:9b:00.0"), "SYS")
        self.assertEqual([g.numa_node for g in t.gpus], [0, 1])
        with self.assertRaises(vmxkit.Error) as cm:
            vmxkit.Host([os.path.join(support.CLIENTS_DIR, "retrievepropertiesex-2vms.xml")])
        self.assertIn("no HostSystem properties", str(cm.exception))
        self.assertEqual(cm.exception.line, 2)

    @unittest.skipUnless(support.have_pyvmomi(), "needs pyVmomi")
    def test_from_vsphere_takes_a_host_system_only(self):
        from pyVmomi import vim
        with self.assertRaises(TypeError):
            vmxkit.Host.from_vsphere(vim.vm.ConfigSpec())

    def test_a_capture_that_cannot_be_read_is_an_error(self):
        with self.assertRaises(vmxkit.Error) as cm:
            vmxkit.Host("/nonexistent/host.txt")
        self.assertIn("/nonexistent/host.txt", str(cm.exception))
        with self.assertRaises(vmxkit.Error):
            vmxkit.Host.from_text(b"this is no capture of any kind\n")
        with self.assertRaises(ValueError):
            vmxkit.Host([])


if __name__ == "__main__":
    unittest.main()
