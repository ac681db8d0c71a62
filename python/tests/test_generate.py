# SPDX-License-Identifier: Apache-2.0
"""vmxkit.generate(): plans in every format; a plan lints clean against its host."""

import json
import os
import unittest

import support
import vmxkit


def serious(findings):
    return [str(f) for f in findings if f.at_least("warning")]


class GenerateTest(unittest.TestCase):
    def test_a_plan_lints_clean_with_the_same_host(self):
        for host_paths in ([support.HOST_2S], support.HOST_ESXI):
            host = vmxkit.Host(host_paths)
            for gpus in (1, 2):
                with self.subTest(host=os.path.basename(host_paths[0]), gpus=gpus):
                    plan = vmxkit.generate(host, gpus=gpus, nic="auto",
                                           system_id=support.SYSTEM_ID)
                    self.assertEqual(len(plan.gpus), gpus)
                    self.assertTrue(plan.nics)
                    self.assertTrue(plan.p2p)
                    self.assertEqual(serious(vmxkit.lint(plan.vmx().encode(), host=host)), [])
                    self.assertEqual(serious(vmxkit.lint(plan.configspec_xml(), host=host)), [])

    def test_the_plan_as_data(self):
        host = vmxkit.Host(support.HOST_2S)
        plan = vmxkit.generate(host, gpus=2, nic="auto", system_id=support.SYSTEM_ID)
        self.assertEqual(plan.mmio.size_gb, 512)
        self.assertTrue(plan.needs_64bit_mmio)
        self.assertEqual(plan.gpus[0].address, "0000:18:00.0")
        self.assertEqual(plan.gpus[0].model, "H100 PCIe")
        self.assertTrue(plan.pairs)
        self.assertTrue(all(p.verdict is not None and p.verdict.verdict == "ok"
                            for p in plan.pairs))
        self.assertTrue(any("GPU0" in line for line in plan.explanation))
        vmx = plan.vmx()
        self.assertIn('pciPassthru.64bitMMIOSizeGB = "512"', vmx)
        self.assertIn('pciPassthru.allowP2P = "TRUE"', vmx)
        self.assertIn("512", repr(plan))
        spec = json.loads(plan.vi_json())
        self.assertIsInstance(spec, dict)
        self.assertTrue(plan.configspec_xml().lstrip().startswith("<"))
        self.assertIn("ReconfigVM_Task", plan.soap("vm-42"))
        self.assertIn("govc", plan.govc())
        self.assertIn("Get-VM", plan.powercli())
        self.assertEqual(plan.render("vmx"), vmx.encode())
        with self.assertRaises(ValueError):
            plan.render("yaml")

    def test_a_vendor_device_group_of_the_hosts_config_target(self):
        host = vmxkit.Host(support.HOST_2S)
        target = os.path.join(support.SOURCE_DIR, "tests", "data", "vsphere", "config-target",
                              "govc-vm-target-info.json")
        for source in (target, support.read(target)):
            with self.subTest(source=type(source).__name__):
                plan = vmxkit.generate(host, gpus=2, nic="auto", vgpu="grid_h100-80c",
                                       sriov=True, system_id=support.SYSTEM_ID,
                                       config_target=source, device_group="nvidia-h100-cx7-0")
                spec = json.loads(plan.vi_json())
                groups = spec["deviceGroups"]["deviceGroup"]
                self.assertEqual([g["deviceGroupName"] for g in groups],
                                 ["nvidia-h100-cx7-0"] * 2)
                findings = vmxkit.lint(plan.vi_json().encode(), host=host)
                self.assertEqual(serious(findings), [])
                self.assertNotIn("P2P005", [f.rule for f in findings])
                with self.assertRaisesRegex(vmxkit.Error, "the vmx output cannot carry a device group"):
                    plan.vmx()
        with self.assertRaisesRegex(vmxkit.Error, "offers no such group"):
            vmxkit.generate(host, gpus=1, nic="auto", vgpu="grid_h100-80c", sriov=True,
                            config_target=target, device_group="nope")

    def test_explicit_devices_models_and_a_base(self):
        host = vmxkit.Host(support.HOST_2S)
        plan = vmxkit.generate(host, gpus=["0000:18:00.0"], nic="0000:19:00.0",
                               system_id=support.SYSTEM_ID)
        self.assertEqual([d.address for d in plan.nics], ["0000:19:00.0"])
        # Without a host: catalogue models.
        by_model = vmxkit.generate(gpus="h100-pcie", nic="cx7")
        self.assertEqual(by_model.gpus[0].model, "H100 PCIe")
        self.assertEqual(by_model.mmio.size_gb, 256)
        # Merged into a base .vmx, which keeps its other bytes.
        based = vmxkit.generate(host, gpus=1, nic="auto", system_id=support.SYSTEM_ID,
                                base=support.WORKER_VMX)
        merged = based.vmx()
        self.assertIn('displayName = "gpu-rdma-worker-01"', merged)
        self.assertIn('firmware = "efi"', merged)
        doc = vmxkit.Document(support.WORKER_VMX)
        self.assertEqual(vmxkit.generate(host, gpus=1, nic="auto", system_id=support.SYSTEM_ID,
                                         base=doc).vmx(), merged)

    def test_a_request_that_cannot_work_is_an_error(self):
        host = vmxkit.Host(support.HOST_2S)
        with self.assertRaises(vmxkit.Error) as cm:
            vmxkit.generate(host, gpus=["0000:ff:1f.7"])
        self.assertIn("0000:ff:1f.7", str(cm.exception))
        t = host.topo()
        self.assertEqual(t.path(t.gpus[0].address, t.nics[4].address), "SYS")
        with self.assertRaises(vmxkit.Error):  # a pair across sockets
            vmxkit.generate(host, gpus=[t.gpus[0].address], nic=[t.nics[4].address],
                            system_id=support.SYSTEM_ID)
        with self.assertRaises(ValueError):
            vmxkit.generate(host, gpus=0)
        with self.assertRaises(TypeError):
            vmxkit.generate(host, gpus=True)

    def test_convert(self):
        path = os.path.join(support.PLANS_DIR, "p2p_gpu_nic.vmx")
        xml = vmxkit.convert(path, "configspec-xml")
        self.assertEqual(vmxkit.convert(xml.encode(), "vmx").encode(), support.read(path))
        with self.assertRaises(ValueError):
            vmxkit.convert(path, "yaml")


@unittest.skipUnless(support.have_pyvmomi(), "pyVmomi is not installed")
class ConfigSpecTest(unittest.TestCase):
    def test_a_plan_gives_a_pyvmomi_config_spec(self):
        from pyVmomi import vim

        host = vmxkit.Host(support.HOST_2S)
        plan = vmxkit.generate(host, gpus=2, nic="auto", system_id=support.SYSTEM_ID)
        spec = plan.config_spec()
        self.assertIsInstance(spec, vim.vm.ConfigSpec)
        extra = {o.key: o.value for o in spec.extraConfig}
        self.assertEqual(extra["pciPassthru.allowP2P"], "TRUE")
        self.assertEqual(extra["pciPassthru.64bitMMIOSizeGB"], "512")
        self.assertEqual(spec.firmware, "efi")
        self.assertTrue(spec.memoryReservationLockedToMax)
        self.assertEqual(len(spec.deviceChange), len(plan.gpus) + len(plan.nics))
        ids = [c.device.backing.id for c in spec.deviceChange]
        self.assertEqual(ids[:2], [d.address for d in plan.gpus])
        self.assertEqual(spec.deviceChange[0].device.backing.systemId, support.SYSTEM_ID)
        # And back: linting the pyVmomi object finds nothing either.
        self.assertEqual(serious(vmxkit.lint(spec, host=host)), [])

    def test_config_spec_of_a_vmx(self):
        from pyVmomi import vim

        spec = vmxkit.config_spec(support.WORKER_VMX)
        self.assertIsInstance(spec, vim.vm.ConfigSpec)
        self.assertEqual(spec.firmware, "bios")
        self.assertEqual(spec.memoryMB, 262144)
        self.assertEqual(len(spec.deviceChange), 2)
        doc = vmxkit.Document(support.WORKER_VMX)
        doc.set("firmware", "efi")
        self.assertEqual(vmxkit.config_spec(doc).firmware, "efi")


if __name__ == "__main__":
    unittest.main()
