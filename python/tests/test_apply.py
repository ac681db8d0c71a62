# SPDX-License-Identifier: Apache-2.0
"""The change between a VM and a plan without a server: plan.config_spec(vm=...), Plan.change()
and vmxkit.change() against a VM's ConfigInfo as pyVmomi holds it (and as a document), computed
by the library's apply code, as `vmxkit apply --dry-run` computes it. vmxkit.apply() against a
server is tested against the simulator (tests/integration/test_python_apply.py).

The VM (tests/data/vsphere/clients/pyvmomi-configinfo.xml, what pyVmomi serialized of a
simulator's VM) holds two passthrough devices, keys 204 (GPU 0000:3b:00.0) and 205 (NIC
0000:3c:00.0), and 65536 MB. pyVmomi is needed (python3-pyvmomi); without it the tests fail."""

import os
import pickle
import unittest

import support
import vmxkit

CONFIGINFO = os.path.join(support.CLIENTS_DIR, "pyvmomi-configinfo.xml")
VM_UUID = "5fe9d4dc-68b1-4c3a-9d1e-0123456789ab"

# Keeps the VM's GPU (0000:3b:00.0), drops its NIC, adds another GPU; P2P settings.
PLAN_VMX = """\
firmware = "efi"
memsize = "2048"
sched.mem.pin = "TRUE"
sched.mem.min = "2048"
pciPassthru0.present = "TRUE"
pciPassthru0.id = "0000:3b:00.0"
pciPassthru0.deviceId = "0x2330"
pciPassthru0.vendorId = "0x10de"
pciPassthru0.systemId = "%(uuid)s"
pciPassthru1.present = "TRUE"
pciPassthru1.id = "0000:5e:00.0"
pciPassthru1.deviceId = "0x2330"
pciPassthru1.vendorId = "0x10de"
pciPassthru1.systemId = "%(uuid)s"
pciPassthru.allowP2P = "TRUE"
pciPassthru.use64bitMMIO = "TRUE"
pciPassthru.64bitMMIOSizeGB = "256"
"""


def pyvmomi():
    try:
        from pyVmomi import SoapAdapter, vim
    except ImportError:
        raise AssertionError("pyVmomi is not installed (python3-pyvmomi)") from None
    return SoapAdapter, vim


def config_info(memory_mb=None):
    """The VM's ConfigInfo as a pyVmomi object (deserialized by pyVmomi itself)."""
    SoapAdapter, vim = pyvmomi()
    xml = support.read(CONFIGINFO)
    if memory_mb is not None:
        xml = xml.replace(b"<memoryMB>65536</memoryMB>", b"<memoryMB>%d</memoryMB>" % memory_mb)
    info = SoapAdapter.Deserialize(xml, vim.vm.ConfigInfo)
    assert isinstance(info, vim.vm.ConfigInfo), type(info)
    return info


def plan_text(uuid=VM_UUID):
    return PLAN_VMX % dict(uuid=uuid)


class ConfigSpecDeltaTest(unittest.TestCase):
    def test_the_delta_removes_what_the_plan_does_not_hold_with_the_servers_key(self):
        _, vim = pyvmomi()
        spec = vmxkit.config_spec(plan_text(), vm=config_info())
        self.assertIsInstance(spec, vim.vm.ConfigSpec)
        ops = [(c.operation, c.device.key, c.device.backing.id) for c in spec.deviceChange]
        # The GPU the VM holds stays (no duplicate); its NIC goes by key 205; one GPU comes.
        self.assertEqual(ops, [("remove", 205, "0000:3c:00.0"), ("add", -1, "0000:5e:00.0")])
        added = spec.deviceChange[1].device.backing
        self.assertEqual((added.deviceId, added.vendorId, added.systemId),
                         ("2330", 0x10de, VM_UUID))
        self.assertEqual(spec.memoryMB, 2048)
        self.assertEqual(spec.memoryAllocation.reservation, 2048)
        self.assertTrue(spec.memoryReservationLockedToMax)
        # Only the extraConfig keys that differ: allowP2P and use64bitMMIO are already there.
        self.assertEqual({o.key: o.value for o in spec.extraConfig},
                         {"pciPassthru.64bitMMIOSizeGB": "256"})
        # The firmware only when asked.
        self.assertIsNone(spec.firmware)
        asked = vmxkit.config_spec(plan_text(), vm=config_info(), firmware_change=True)
        self.assertEqual(asked.firmware, "efi")

    def test_the_diff_says_it_line_by_line(self):
        change = vmxkit.change(plan_text(), config_info())
        self.assertFalse(change.empty)
        self.assertEqual(change.placeholders, ())
        lines = [str(line) for line in change.diff]
        self.assertIn("- passthrough 0000:3c:00.0 15b3:1021 systemId %s" % VM_UUID, lines)
        self.assertIn("+ passthrough 0000:5e:00.0 10de:2330 systemId %s" % VM_UUID, lines)
        self.assertIn("~ memoryMB 65536 -> 2048", lines)
        self.assertIn('~ pciPassthru.64bitMMIOSizeGB = "128" -> "256"', lines)
        self.assertTrue(any(line.sign == "=" and line.what.startswith("firmware stays bios")
                            for line in change.diff), lines)
        self.assertNotIn("0000:3b:00.0", str(change))  # kept: not in the diff

    def test_a_vm_given_as_a_document_gives_the_same_delta_as_the_pyvmomi_object(self):
        as_object = vmxkit.change(plan_text(), config_info())
        as_file = vmxkit.change(plan_text(), CONFIGINFO)
        self.assertEqual(as_file.diff, as_object.diff)
        self.assertEqual(as_file.configspec_xml(), as_object.configspec_xml())

        as_bytes = vmxkit.change(plan_text().encode(), support.read(CONFIGINFO))
        self.assertEqual(as_bytes.diff, as_object.diff)

    def test_a_vm_that_already_holds_the_plan_needs_no_change(self):
        info = config_info()
        # The plan the VM is: both devices, its memory, its extraConfig.
        same = "\n".join([
            'memsize = "65536"',
            'pciPassthru0.present = "TRUE"', 'pciPassthru0.id = "0000:3b:00.0"',
            'pciPassthru0.deviceId = "0x2330"', 'pciPassthru0.vendorId = "0x10de"',
            'pciPassthru0.systemId = "%s"' % VM_UUID,
            'pciPassthru1.present = "TRUE"', 'pciPassthru1.id = "0000:3c:00.0"',
            'pciPassthru1.deviceId = "0x1021"', 'pciPassthru1.vendorId = "0x15b3"',
            'pciPassthru1.systemId = "%s"' % VM_UUID,
            'pciPassthru.allowP2P = "TRUE"', ""])
        change = vmxkit.change(same, info)
        self.assertTrue(change.empty, str(change))
        spec = change.config_spec()
        self.assertEqual(list(spec.deviceChange), [])
        self.assertIsNone(spec.memoryMB)
        self.assertEqual(list(spec.extraConfig), [])

    def test_a_generated_plan_keeps_the_vms_memory_unless_it_was_asked(self):
        host = vmxkit.Host(support.HOST_2S)
        small = config_info(memory_mb=32)
        default = vmxkit.generate(host, gpus=1, nic="auto", system_id=VM_UUID)
        self.assertEqual(default.memory_mb, 65536)  # generate's default
        spec = default.config_spec(vm=small)
        self.assertIsNone(spec.memoryMB)  # a 32 MB VM does not become 64 GB
        self.assertIn("memoryMB stays 32", str(default.change(small)))
        # Every device the VM holds goes: the plan holds other addresses.
        removed = sorted(c.device.key for c in spec.deviceChange if c.operation == "remove")
        self.assertEqual(removed, [204, 205])
        added = [c.device.backing.id for c in spec.deviceChange if c.operation == "add"]
        self.assertEqual(added, [d.address for d in default.gpus + default.nics])

        asked = vmxkit.generate(host, gpus=1, nic="auto", system_id=VM_UUID, memory_mb=2048)
        self.assertEqual(asked.config_spec(vm=small).memoryMB, 2048)
        # Without vm=, the whole plan, as before.
        self.assertEqual(default.config_spec().memoryMB, 65536)

    def test_a_placeholder_never_reaches_a_spec_for_a_live_vm(self):
        host = vmxkit.Host(support.HOST_2S)
        plan = vmxkit.generate(host, gpus=1)  # no system_id: a placeholder
        change = plan.change(config_info())
        self.assertEqual(len(change.placeholders), 1, change.placeholders)
        self.assertIn("systemId", change.placeholders[0])
        with self.assertRaises(vmxkit.Error) as e:
            plan.config_spec(vm=config_info())
        self.assertIn("placeholder", str(e.exception))
        self.assertIn("<fill in:", str(e.exception))

    def test_a_vm_without_the_servers_keys_is_refused(self):
        # A .vmx and a ConfigSpec hold no device keys, so removals could not name a device.
        for vm in (plan_text(), os.path.join(support.CLIENTS_DIR, "pyvmomi-configspec.xml")):
            with self.subTest(vm=vm[:30]):
                with self.assertRaises(vmxkit.Error) as e:
                    vmxkit.change(plan_text(), vm)
                self.assertIn("ConfigInfo", str(e.exception))
        with self.assertRaises(vmxkit.Error) as e:
            vmxkit.change(plan_text(), os.path.join(support.CLIENTS_DIR,
                                                    "retrievepropertiesex-2vms.xml"))
        self.assertIn("holds 2 VMs", str(e.exception))


class ApplyArgumentsTest(unittest.TestCase):
    """What vmxkit.apply() refuses before it connects to anything."""

    def test_the_vm_is_given_exactly_one_way(self):
        for kwargs in ({}, dict(vm="a", uuid="u"), dict(vm="a", moid="vm-1"),
                       dict(uuid="u", moid="vm-1")):
            with self.subTest(**kwargs):
                with self.assertRaises(TypeError):
                    vmxkit.apply(plan_text(), server="https://127.0.0.1:9/sdk", **kwargs)
        with self.assertRaises(TypeError):
            vmxkit.apply(plan_text(), server="https://127.0.0.1:9/sdk", vm=42)

    def test_a_server_that_is_not_there_is_an_error_without_the_password(self):
        with self.assertRaises(vmxkit.Error) as e:
            vmxkit.apply(plan_text(), server="https://127.0.0.1:9/sdk", vm="x",
                         username="u", password="S3cret-Pw", timeout=5)
        self.assertNotIn("S3cret-Pw", str(e.exception))
        self.assertIn("127.0.0.1:9", str(e.exception))

    def test_an_apply_error_carries_its_result_and_pickles(self):
        r = vmxkit.ApplyResult(
            "checks-failed", False, "vm", "vm-1", "poweredOn",
            (vmxkit.ChangeLine("+", "passthrough x"),), (), (), ("VM 'vm' is poweredOn",), (),
            None, (), vmxkit.Findings([], path="p", format="soap", fail_on="warning"))
        e = vmxkit.ApplyError("1 check(s) failed", r)
        self.assertIsInstance(e, vmxkit.Error)
        again = pickle.loads(pickle.dumps(e))
        self.assertEqual(str(again), "1 check(s) failed")
        self.assertEqual(again.result.checks_failed, ("VM 'vm' is poweredOn",))
        self.assertEqual(str(r.diff[0]), "+ passthrough x")


if __name__ == "__main__":
    unittest.main()
