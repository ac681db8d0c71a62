#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""vmxkit.vmxkit.apply run by ansible-playbook (playbooks/apply.yml) against govmomi's vCenter
simulator, with each backend: check mode shows the diff and changes nothing, the first apply
changes the VM (exactly the plan's devices, as `vmxkit apply` itself then says: "no changes"),
the second is ok; community.vmware's options (name/uuid/moid, datacenter, folder, proxy_host and
proxy_port) and the collection's action group; failures that change nothing. The plan is the one
tests/integration/test_apply.py makes (`vmxkit generate --esx-host`).

Environment: as test_ansible.py (VMXKIT_BINARY, VMXKIT_VCSIM, VMXKIT_PYTHONPATH for the Python
backend). Run one class: /usr/bin/python3 tests/ansible/test_ansible_apply.py BinaryApplyTest
"""

import os
import ssl
import sys
import unittest
import warnings
from urllib.parse import urlparse

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_ansible import (GPU_VM, VMXKIT, WRAPPER, WRONG_PASSWORD, Ansible,  # noqa: E402
                          peers, vmxkit)

GPU_HOST = "DC0_H0"
GPU_HOST_UUID = "4c4c4544-0048-3510-8052-b4c04f4e3332"
OTHER_VM = "DC0_H0_VM1"  # powered on
OLD_GPU = "0000:18:00.0"
NEW_GPU = "0000:9a:00.0"
SIM_PASSWORD = "S1m-Pw-4-apply"


def vm_facts(url):
    """{name: (moid, BIOS uuid, [passthrough ids])} of the simulator's VMs, read with pyVmomi."""
    from pyVim.connect import Disconnect, SmartConnect
    from pyVmomi import vim

    u = urlparse(url)
    si = SmartConnect(host=u.hostname, port=u.port, user=u.username, pwd=u.password,
                      sslContext=ssl._create_unverified_context())
    try:
        content = si.RetrieveContent()
        view = content.viewManager.CreateContainerView(content.rootFolder, [vim.VirtualMachine],
                                                       True)
        out = {}
        for vm in view.view:
            out[vm.name] = (vm._moId, vm.config.uuid, sorted(
                d.backing.id for d in vm.config.hardware.device
                if isinstance(d, vim.vm.device.VirtualPCIPassthrough)))
        view.Destroy()
        return out
    finally:
        Disconnect(si)


class ApplyScenarios:
    """apply.yml against a simulator whose GPU VM is powered off (-apply), with one backend."""

    backend = ""

    @classmethod
    def setUpClass(cls):
        # pyVmomi 6.7's SmartConnect leaves a socket of its version probe open.
        warnings.filterwarnings("ignore", category=ResourceWarning)
        cls.ansible = Ansible(cls.backend)
        # A password no word of the output holds: Ansible masks the password (no_log) wherever
        # it appears, and the simulator's default, "pass", is in "passthrough".
        cls.sim = peers.Simulator("-apply", "-password", SIM_PASSWORD)
        cls.proxy = peers.ConnectProxy()
        try:
            cls.setUpScenario()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def setUpScenario(cls):
        u = urlparse(cls.sim.url)
        cls.netloc = "%s:%d" % (u.hostname, u.port)
        cls.password = u.password
        cls.plan = cls.ansible.path("plan.vmx")
        rc, out, err = vmxkit("generate", "--server", cls.sim.url, "--insecure", "--esx-host",
                              GPU_HOST, "--gpu", NEW_GPU, "--nic", "0000:9b:00.0",
                              "--memory-mb", "2048", "-o", cls.plan)
        assert rc == 0, err
        with open(cls.plan, encoding="utf-8") as f:
            text = f.read()
        cls.placeholder_plan = cls.ansible.path("placeholder.vmx")
        with open(cls.placeholder_plan, "w", encoding="utf-8") as f:
            f.write(text.replace(GPU_HOST_UUID, "<fill in: the host's system UUID>"))
        cls.before = vm_facts(cls.sim.url)
        moid, uuid, _ = cls.before[GPU_VM]
        extra = dict(hostname=u.hostname, port=u.port, username=u.username, password=u.password,
                     vm=GPU_VM, moid=moid, uuid=uuid, other_vm=OTHER_VM, plan=cls.plan,
                     placeholder_plan=cls.placeholder_plan,
                     proxy_port=cls.proxy.server_address[1])
        if cls.backend == "binary":
            cls.log = cls.ansible.path("binary")
            wrapper = cls.ansible.path("vmxkit-wrapper")
            with open(wrapper, "w", encoding="utf-8") as f:
                f.write(WRAPPER % dict(log=cls.log, binary=os.path.abspath(VMXKIT)))
            os.chmod(wrapper, 0o755)
            extra["vmxkit_binary"] = wrapper
        cls.results, cls.output = cls.ansible.run("apply.yml", extra)
        with open(cls.ansible.path("results-1.json"), encoding="utf-8") as f:
            cls.results_text = f.read()
        cls.after = vm_facts(cls.sim.url)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.sim.stop()
        cls.ansible.close()

    def test_every_task_ran_with_the_backend_asked_for(self):
        for name, result in self.results.items():
            self.assertEqual(result.get("backend"), self.backend, (name, result))

    def test_check_mode_shows_the_diff_and_changes_nothing(self):
        r = self.results["check"]
        self.assertFalse(r.get("failed"), r)
        self.assertTrue(r["changed"])  # the VM would change
        self.assertEqual(r["status"], "dry-run")
        self.assertIsNone(r["task"])
        diff = r["diff"]["prepared"]
        self.assertIn("--- VM '%s' (%s), poweredOff" % (GPU_VM, self.before[GPU_VM][0]), diff)
        self.assertIn("- passthrough %s 10de:2330 systemId %s" % (OLD_GPU, GPU_HOST_UUID), diff)
        self.assertIn("+ passthrough %s 10de:2330 systemId %s" % (NEW_GPU, GPU_HOST_UUID), diff)
        self.assertIn("~ firmware bios -> efi", diff)
        self.assertIn("~ firmware bios -> efi", self.output)  # --diff shows it
        self.assertIn({"sign": "-", "what": "passthrough %s 10de:2330 systemId %s"
                       % (OLD_GPU, GPU_HOST_UUID)}, r["changes"])
        self.assertIn("VM '%s' is powered off" % GPU_VM, r["checks"]["passed"])
        self.assertEqual(self.results["check_again"]["changes"], r["changes"])
        self.assertNotIn("diff", self.results["check_again"])  # without diff: true

    def test_the_first_apply_changes_the_vm_and_the_second_is_ok(self):
        first = self.results["first"]
        self.assertFalse(first.get("failed"), first)
        self.assertTrue(first["changed"])
        self.assertEqual(first["status"], "applied")
        self.assertTrue(first["task"]["success"], first["task"])
        self.assertIn("+ passthrough %s" % NEW_GPU, first["diff"]["prepared"])
        self.assertEqual([f for f in first["findings"] if f["severity"] in ("error", "warning")],
                         [])
        self.assertEqual(first["counts"]["error"], 0)
        second = self.results["second"]
        self.assertFalse(second.get("failed"), second)
        self.assertFalse(second["changed"])
        self.assertEqual(second["status"], "no-changes")
        self.assertIsNone(second["task"])
        after = self.results["check_after"]
        self.assertFalse(after["changed"])
        self.assertNotIn("diff", after)  # nothing would change: no diff to show
        # Exactly the plan's devices, and the binary agrees that nothing is left to change.
        self.assertEqual(self.before[GPU_VM][2], [OLD_GPU, "0000:9b:00.0"])  # the NIC stays
        self.assertEqual(self.after[GPU_VM][2], [NEW_GPU, "0000:9b:00.0"])
        rc, out, err = vmxkit("apply", "--server", self.sim.url, "--insecure", "--vm", GPU_VM,
                              "--firmware-change", self.plan)
        self.assertEqual(rc, 0, out + err)
        self.assertIn("no changes", out)

    def test_the_vm_by_moid_through_a_proxy_and_by_uuid(self):
        for name in ("by_moid", "by_uuid"):
            r = self.results[name]
            self.assertFalse(r.get("failed"), r)
            self.assertFalse(r["changed"], r)
            self.assertEqual((r["status"], r["vm"]["name"]), ("no-changes", GPU_VM))
        self.assertIn(self.netloc, self.proxy.targets)

    def test_failures_change_nothing_and_say_why(self):
        r = self.results["placeholder"]
        self.assertTrue(r["failed"])
        self.assertFalse(r["changed"])
        self.assertEqual(r["status"], "checks-failed")
        self.assertIn("nothing was sent", r["msg"])
        self.assertIn("placeholder", r["msg"])
        r = self.results["powered_on"]
        self.assertTrue(r["failed"])
        self.assertFalse(r["changed"])
        self.assertIn("is poweredOn", r["msg"])
        self.assertIn("+ passthrough %s" % NEW_GPU, r["diff"]["prepared"])
        self.assertEqual(self.after[OTHER_VM][2], self.before[OTHER_VM][2])
        r = self.results["no_such_vm"]
        self.assertTrue(r["failed"])
        self.assertIn("no VM named 'no-such-vm'", r["msg"])

    def test_a_wrong_password_is_refused_and_never_shown(self):
        r = self.results["wrong_password"]
        self.assertTrue(r["failed"])
        self.assertFalse(r["changed"])
        self.assertIn("InvalidLogin", r["msg"])
        for secret in (WRONG_PASSWORD, self.password):
            self.assertNotIn(secret, self.output)
            self.assertNotIn(secret, self.results_text)

    def test_credentials_never_go_on_the_command_line(self):
        if self.backend != "binary":
            return  # the Python backend starts no program
        with open(self.log + ".args", encoding="utf-8") as f:
            args = f.read().splitlines()
        with open(self.log + ".env", encoding="utf-8") as f:
            runs = f.read().split("--\n")[:-1]
        self.assertEqual(len(runs), len(self.results))
        for names in runs:
            self.assertEqual(names.split(), ["VMXKIT_USERNAME", "VMXKIT_PASSWORD"])
        self.assertIn("https://%s/sdk" % self.netloc, args)
        for a in args:
            self.assertNotIn(self.password, a)
            self.assertNotIn(WRONG_PASSWORD, a)
            self.assertNotIn("@", a)


class PythonApplyTest(ApplyScenarios, unittest.TestCase):
    backend = "python"


class BinaryApplyTest(ApplyScenarios, unittest.TestCase):
    backend = "binary"


if __name__ == "__main__":
    unittest.main(verbosity=2)
