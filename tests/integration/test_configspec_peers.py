#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""vmxkit's ConfigSpec documents against real peers: pyVmomi's deserializer, govmomi's vCenter
simulator (a SOAP envelope posted with curl; pyVmomi's ReconfigVM_Task through the automation
examples is test_automation.py), and vmxkit's own reader (read, write back, same bytes).

Environment: VMXKIT_BINARY (the vmxkit binary), VMXKIT_VCSIM (the simulator built from
tests/integration/vcsim), VMXKIT_SOURCE_DIR (the source tree).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from urllib.parse import urlparse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402

from pyVmomi import SoapAdapter, VmomiSupport, vim  # noqa: E402


def has_type(wsdl_name):
    try:
        VmomiSupport.GetWsdlType("urn:vim25", wsdl_name)
        return True
    except KeyError:
        return False


class DeserializeTest(unittest.TestCase):
    """(1) Every ConfigSpec vmxkit writes deserializes with pyVmomi and equals the plan."""

    def check_plan(self, path, spec):
        want = peers.expected_spec(path)
        self.assertEqual(spec.memoryMB, want.get("memoryMB"))
        self.assertEqual(spec.firmware, want.get("firmware"))
        self.assertEqual(spec.memoryReservationLockedToMax, want.get("memoryReservationLockedToMax"))
        self.assertEqual([(o.key, o.value) for o in spec.extraConfig], want["extraConfig"])
        self.assertEqual(len(spec.deviceChange), len(want["devices"]))
        for change, (index, dev) in zip(spec.deviceChange, sorted(want["devices"].items())):
            self.assertEqual(change.operation, "add")
            self.assertEqual(change.device.key, -100 - index)
            backing = change.device.backing
            if "vgpu" in dev:
                self.assertIsInstance(backing, vim.vm.device.VirtualPCIPassthrough.VmiopBackingInfo)
                self.assertEqual(backing.vgpu, dev["vgpu"])
            elif "pfId" in dev:
                self.assertIsInstance(change.device, vim.vm.device.VirtualSriovEthernetCard)
                pf = change.device.sriovBacking.physicalFunctionBacking
                self.assertEqual(pf.id, peers.api_id(dev["pfId"]))
                self.assertEqual(backing.deviceName, dev["networkName"])
            else:
                self.assertIsInstance(backing, vim.vm.device.VirtualPCIPassthrough.DeviceBackingInfo)
                self.assertEqual(backing.deviceName, "")
                self.assertEqual(backing.id, peers.api_id(dev["id"]))
                self.assertEqual(backing.deviceId, "%x" % int(dev["deviceId"], 16))
                self.assertEqual(backing.vendorId, peers.signed_short(dev["vendorId"]))
                self.assertEqual(backing.systemId, dev["systemId"])

    def test_every_plan_deserializes_and_equals_the_plan(self):
        checked = 0
        for path in peers.plans():
            with self.subTest(plan=os.path.basename(path)):
                xml = peers.vmxkit("convert", path, "--to", "configspec-xml")
                if b"VirtualPCIPassthroughDynamicBackingInfo" in xml and not has_type(
                        "VirtualPCIPassthroughDynamicBackingInfo"):
                    # This pyVmomi predates vSphere 7's Dynamic DirectPath: it must refuse the
                    # type by name, and nothing else in the document.
                    with self.assertRaises(Exception) as cm:
                        SoapAdapter.Deserialize(xml, vim.vm.ConfigSpec)
                    self.assertIn("col:", str(cm.exception))
                    continue
                self.check_plan(path, SoapAdapter.Deserialize(xml, vim.vm.ConfigSpec))
                checked += 1
        self.assertGreaterEqual(checked, 3)

    def test_soap_body_spec_deserializes_too(self):
        path = os.path.join(peers.PLANS_DIR, "p2p_gpu_nic.vmx")
        soap = peers.vmxkit("convert", path, "--to", "soap", "--vm", "vm-1").decode()
        start = soap.index("<spec>")
        end = soap.index("</spec>") + len("</spec>")
        body = ('<spec xmlns="urn:vim25" xmlns:xsd="http://www.w3.org/2001/XMLSchema" '
                'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
                soap[start + len("<spec>"):end])
        self.check_plan(path, SoapAdapter.Deserialize(body.encode(), vim.vm.ConfigSpec))


class RoundTripTest(unittest.TestCase):
    """(4) Reading a ConfigSpec and writing it back gives the same document."""

    def test_read_then_write_is_identity(self):
        for path in peers.plans():
            for fmt, extra in (("configspec-xml", []), ("vi-json", []), ("soap", ["--vm", "vm-7"])):
                with self.subTest(plan=os.path.basename(path), format=fmt):
                    first = peers.vmxkit("convert", path, "--to", fmt, *extra)
                    second = peers.vmxkit("convert", "-", "--to", fmt, *extra, stdin=first)
                    self.assertEqual(first, second)
                    vmx = peers.vmxkit("convert", "-", "--to", "vmx", stdin=first)
                    with open(path, "rb") as f:
                        self.assertEqual(vmx, f.read())


@unittest.skipUnless(peers.VCSIM, "VMXKIT_VCSIM is not set")
class SimulatorTest(unittest.TestCase):
    """(2) a SOAP envelope with curl, against the simulator (the automation examples, on the
    Python package: test_automation.py)."""

    @classmethod
    def setUpClass(cls):
        cls.sim = peers.Simulator()
        cls.tmp = tempfile.mkdtemp()

    @classmethod
    def tearDownClass(cls):
        cls.sim.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def curl(self, body, cookies, action):
        url = urlparse(self.sim.url)
        endpoint = "https://%s:%d%s" % (url.hostname, url.port, url.path)
        r = subprocess.run(["curl", "--silent", "--show-error", "--insecure", "--max-time", "20",
                            "--noproxy", "*", "-c", cookies, "-b", cookies,
                            "-H", 'Content-Type: text/xml; charset="utf-8"',
                            "-H", "SOAPAction: " + action, "--data-binary", "@-",
                            "-w", "\n%{http_code}", endpoint],
                           input=body, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=30, check=False)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        text, _, code = r.stdout.decode().rpartition("\n")
        return int(code), text

    def test_soap_envelope_posted_with_curl_succeeds(self):
        if shutil.which("curl") is None:
            self.skipTest("curl is not installed")
        url = urlparse(self.sim.url)
        cookies = os.path.join(self.tmp, "cookies")
        login = ('<?xml version="1.0" encoding="UTF-8"?>'
                 '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/">'
                 '<soapenv:Body><Login xmlns="urn:vim25">'
                 '<_this type="SessionManager">SessionManager</_this>'
                 '<userName>%s</userName><password>%s</password></Login>'
                 '</soapenv:Body></soapenv:Envelope>' % (url.username, url.password))
        code, text = self.curl(login.encode(), cookies, "urn:vim25/7.0")
        self.assertEqual(code, 200, text)
        plan = os.path.join(peers.PLANS_DIR, "p2p_gpu_nic.vmx")
        envelope = peers.vmxkit("convert", plan, "--to", "configspec-xml", "--envelope",
                                "--vm", self.sim.vm_moref)
        code, text = self.curl(envelope, cookies, "urn:vim25/7.0")
        self.assertEqual(code, 200, text)
        self.assertIn("ReconfigVM_TaskResponse", text)
        self.assertIn('type="Task"', text)
        self.assertNotIn("Fault", text)


if __name__ == "__main__":
    unittest.main(verbosity=2)
