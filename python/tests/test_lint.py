# SPDX-License-Identifier: Apache-2.0
"""vmxkit.lint(): paths, bytes, text, hosts, pyVmomi objects, fail_on."""

import dataclasses
import os
import pathlib
import unittest

import support
import vmxkit

WORKER_FINDINGS = [("MMIO005", 6, 13, "error"), ("PT008", 10, 18, "error"),
                   ("P2P002", 24, 1, "warning"), ("MMIO004", 35, 32, "error")]


def summary(findings):
    return [(f.rule, f.line, f.column, f.severity) for f in findings]


class LintTest(unittest.TestCase):
    def test_a_vmx_path_gives_the_command_lines_findings(self):
        findings = vmxkit.lint(support.WORKER_VMX)
        self.assertEqual(summary(findings), WORKER_FINDINGS)
        self.assertIsInstance(findings, list)
        self.assertTrue(findings.failed)
        self.assertEqual(findings.format, "vmx")
        f = findings[0]
        self.assertEqual(f.name, "firmware-not-efi")
        self.assertEqual(f.path, support.WORKER_VMX)
        self.assertEqual(str(f), support.WORKER_VMX + ":6:13: error: " + f.message + " [MMIO005]")
        self.assertIn("MMIO005", repr(f))
        with self.assertRaises(dataclasses.FrozenInstanceError):
            f.line = 1  # type: ignore[misc]
        mmio004 = findings[3]
        self.assertTrue(mmio004.notes)
        self.assertTrue(all(isinstance(n, vmxkit.Note) and n.line >= 1 for n in mmio004.notes))

    def test_a_pathlike_bytes_and_text_give_the_same_findings(self):
        by_path = summary(vmxkit.lint(pathlib.Path(support.WORKER_VMX)))
        data = support.read(support.WORKER_VMX)
        self.assertEqual(summary(vmxkit.lint(data)), by_path)
        self.assertEqual(summary(vmxkit.lint(bytearray(data))), by_path)
        self.assertEqual(summary(vmxkit.lint(data.decode("utf-8"))), by_path)
        self.assertEqual(vmxkit.lint(data)[0].path, "<bytes>")

    def test_a_fix_is_described(self):
        fixes = [f.fix for f in vmxkit.lint(support.WORKER_VMX) if f.fix is not None]
        self.assertTrue(fixes)
        for fix in fixes:
            self.assertIn(fix.safety, ("safe", "unsafe", "display-only"))
            self.assertTrue(fix.title)

    def test_the_host_enables_the_topology_rules(self):
        self.assertEqual(summary(vmxkit.lint(support.SPLIT_VMX)), [])
        with_paths = vmxkit.lint(support.SPLIT_VMX, host=[support.HOST_2S])
        self.assertEqual([f.rule for f in with_paths], ["TOPO005"])
        host = vmxkit.Host(support.HOST_2S)
        self.assertEqual(summary(vmxkit.lint(support.SPLIT_VMX, host=host)), summary(with_paths))
        self.assertEqual(summary(vmxkit.lint(support.SPLIT_VMX, host=support.HOST_2S)),
                         summary(with_paths))

    def test_fail_on_decides_failed(self):
        warning_only = vmxkit.lint(support.SPLIT_VMX, host=support.HOST_2S, fail_on="error")
        self.assertEqual([f.severity for f in warning_only], ["warning"])
        self.assertFalse(warning_only.failed)
        self.assertTrue(vmxkit.lint(support.SPLIT_VMX, host=support.HOST_2S).failed)
        self.assertFalse(vmxkit.lint(support.SPLIT_VMX).failed)
        with self.assertRaises(ValueError):
            vmxkit.lint(support.SPLIT_VMX, fail_on="fatal")  # type: ignore[arg-type]

    def test_a_vsphere_document_is_linted_too(self):
        path = os.path.join(support.PLANS_DIR, "p2p_gpu_nic.vmx")
        xml = vmxkit.convert(path, "configspec-xml")
        findings = vmxkit.lint(xml)
        self.assertEqual(findings.format, "configspec-xml")
        self.assertEqual(summary(findings), summary(vmxkit.lint(path)))

    def test_what_is_not_a_source_is_a_type_error(self):
        with self.assertRaises(TypeError):
            vmxkit.lint(42)

    def test_the_rule_catalogue(self):
        rules = {r.id: r for r in vmxkit.rules()}
        self.assertEqual(rules["MMIO005"].name, "firmware-not-efi")
        self.assertTrue(rules["TOPO004"].needs_host)
        self.assertGreaterEqual(len(rules), 40)


@unittest.skipUnless(support.have_pyvmomi(), "pyVmomi is not installed")
class PyVmomiLintTest(unittest.TestCase):
    """pyVmomi objects, serialized by pyVmomi's own SoapAdapter.Serialize."""

    def spec(self):
        from pyVmomi import vim

        def directpath(key, bdf, device_id, vendor_id):
            backing = vim.vm.device.VirtualPCIPassthrough.DeviceBackingInfo(
                deviceName="", id=bdf, deviceId=device_id, systemId=support.SYSTEM_ID,
                vendorId=vendor_id)
            return vim.vm.device.VirtualDeviceSpec(
                operation="add", device=vim.vm.device.VirtualPCIPassthrough(key=key,
                                                                            backing=backing))

        return vim.vm.ConfigSpec(
            name="gpu-rdma-worker", numCPUs=16, memoryMB=65536,
            deviceChange=[directpath(-100, "0000:18:00.0", "2331", 0x10de),
                          directpath(-101, "0000:19:00.0", "1021", 0x15b3)],
            extraConfig=[vim.option.OptionValue(key="pciPassthru.allowP2P", value="TRUE"),
                         vim.option.OptionValue(key="pciPassthru.use64bitMMIO", value="TRUE"),
                         vim.option.OptionValue(key="pciPassthru.64bitMMIOSizeGB",
                                                value="128")],
            firmware="bios")

    def test_a_config_spec_object_is_linted(self):
        from pyVmomi import SoapAdapter, VmomiSupport

        spec = self.spec()
        findings = vmxkit.lint(spec)
        rules = [f.rule for f in findings]
        for rule in ("MMIO004", "MMIO005", "P2P002", "PT008"):
            self.assertIn(rule, rules)
        self.assertEqual(findings[0].path, "<pyVmomi VirtualMachineConfigSpec>")
        # The same as linting pyVmomi's serialization by hand.
        self.assertEqual(summary(findings), summary(vmxkit.lint(SoapAdapter.Serialize(
            spec, version=VmomiSupport.newestVersions.Get("vim")))))
        # With the host the devices are on: checked there too, and still the same MMIO advice.
        on_host = [f.rule for f in vmxkit.lint(spec, host=support.HOST_2S)]
        self.assertIn("MMIO004", on_host)

    def test_a_config_info_object_is_linted(self):
        from pyVmomi import SoapAdapter, vim

        path = os.path.join(support.CLIENTS_DIR, "pyvmomi-configinfo.xml")
        try:
            expected = vmxkit.lint(path)
        except vmxkit.Error as e:
            self.skipTest("this library does not read a pyVmomi ConfigInfo yet: %s" % e)
        info = SoapAdapter.Deserialize(support.read(path), vim.vm.ConfigInfo)
        self.assertIsInstance(info, vim.vm.ConfigInfo)
        findings = vmxkit.lint(info)
        self.assertTrue(findings)
        self.assertEqual([(f.rule, f.message) for f in findings],
                         [(f.rule, f.message) for f in expected])


if __name__ == "__main__":
    unittest.main()
