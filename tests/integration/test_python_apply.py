#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The Python package's apply against govmomi's vCenter simulator (tests/integration/vcsim), with
the plan test_apply.py makes for the GPU host (`vmxkit generate --esx-host`): vmxkit.apply()
swaps the VM's old GPU for the plan's, then finds nothing to change; a dry run, a powered-on VM
and a plan with a placeholder change nothing; the VM found by uuid, moid, datacenter and
folder; credentials as keywords, never in a message; a proxy. And plan.config_spec(vm=...)
through pyVmomi's own ReconfigVM_Task: the VM then holds exactly the plan; a plan generated
from Host.from_vsphere carries the host's UUID and knows its vGPU types. Each test starts its
own simulator (on 127.0.0.1), since apply changes it, and stops it.

Environment: VMXKIT_BINARY, VMXKIT_VCSIM, VMXKIT_SOURCE_DIR, PYTHONPATH (the package).
"""

import os
import ssl
import sys
import tempfile
import time
import unittest
import warnings
from urllib.parse import urlparse, urlunparse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402
from test_live import GPU_HOST, GPU_HOST_UUID, GPU_VM, run  # noqa: E402

import vmxkit  # noqa: E402

OLD_GPU = "0000:18:00.0"
NEW_GPU = "0000:9a:00.0"
NIC = "0000:9b:00.0"


def without_credentials(url):
    u = urlparse(url)
    return urlunparse(u._replace(netloc="%s:%d" % (u.hostname, u.port))), u.username, u.password


class PythonApplyTest(unittest.TestCase):
    def setUp(self):
        # pyVmomi 6.7's SmartConnect leaves a socket of its version probe open.
        warnings.filterwarnings("ignore", category=ResourceWarning)

    def start(self, *args):
        self.sim = peers.Simulator(*args)
        self.addCleanup(self.sim.stop)
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        self.plan = os.path.join(tmp.name, "plan.vmx")
        r = run("generate", "--server", self.sim.url, "--insecure", "--esx-host", GPU_HOST,
                "--gpu", NEW_GPU, "--nic", NIC, "--memory-mb", "2048", "-o", self.plan)
        self.assertEqual(r.returncode, 0, r.err)

    def apply(self, plan=None, **kwargs):
        kwargs.setdefault("vm", GPU_VM)
        return vmxkit.apply(plan or self.plan, server=self.sim.url, insecure=True, **kwargs)

    def pyvmomi(self):
        from pyVim.connect import Disconnect, SmartConnect
        from pyVmomi import vim

        u = urlparse(self.sim.url)
        si = SmartConnect(host=u.hostname, port=u.port, user=u.username, pwd=u.password,
                          sslContext=ssl._create_unverified_context())
        self.addCleanup(Disconnect, si)
        content = si.RetrieveContent()
        view = content.viewManager.CreateContainerView(content.rootFolder, [vim.VirtualMachine],
                                                       True)
        vms = {vm.name: vm for vm in view.view}
        view.Destroy()
        return vms

    def passthrough(self, vm):
        from pyVmomi import vim

        return sorted(d.backing.id for d in vm.config.hardware.device
                      if isinstance(d, vim.vm.device.VirtualPCIPassthrough))

    def test_apply_swaps_the_gpu_then_finds_no_changes(self):
        self.start("-apply")
        dry = self.apply(dry_run=True, firmware_change=True)
        self.assertEqual(dry.status, "dry-run")
        self.assertFalse(dry.changed)
        self.assertIsNone(dry.task)
        lines = [str(line) for line in dry.diff]
        self.assertIn("- passthrough %s 10de:2330 systemId %s" % (OLD_GPU, GPU_HOST_UUID), lines)
        self.assertIn("+ passthrough %s 10de:2330 systemId %s" % (NEW_GPU, GPU_HOST_UUID), lines)
        self.assertIn("~ firmware bios -> efi", lines)
        self.assertIn("VM 'DC0_H0_VM0' is powered off", dry.checks_passed)
        self.assertEqual(dry.checks_failed, ())
        self.assertEqual(self.apply(dry_run=True, firmware_change=True).diff, dry.diff,
                         "the dry run changed the VM")

        done = self.apply(firmware_change=True)
        self.assertEqual(done.status, "applied")
        self.assertTrue(done.changed)
        self.assertTrue(done.task.success, done.task)
        self.assertTrue(done.task.moref.startswith("task-"), done.task)
        self.assertEqual(done.left, ())
        # The VM read back lints clean against its host.
        self.assertEqual([str(f) for f in done.findings if f.at_least("warning")], [])
        self.assertFalse(done.findings.failed)

        again = self.apply(firmware_change=True)
        self.assertEqual(again.status, "no-changes")
        self.assertFalse(again.changed)
        self.assertIsNone(again.task)
        self.assertEqual([line.sign for line in again.diff], [])

        # What the CLI says of the same VM now: nothing to change either.
        r = run("apply", "--server", self.sim.url, "--insecure", "--vm", GPU_VM, self.plan,
                "--firmware-change")
        self.assertEqual(r.returncode, 0, r.out + r.err)
        self.assertIn("no changes", r.out)
        vm = self.pyvmomi()[GPU_VM]
        self.assertEqual(self.passthrough(vm), [NEW_GPU, NIC])
        self.assertEqual(vm.config.hardware.memoryMB, 2048)

    def test_a_powered_on_vm_is_not_changed(self):
        self.start()  # every VM powered on
        with self.assertRaises(vmxkit.ApplyError) as e:
            self.apply(firmware_change=True)
        r = e.exception.result
        self.assertEqual(r.status, "checks-failed")
        self.assertFalse(r.changed)
        self.assertIsNone(r.task)
        self.assertTrue(any("is poweredOn" in c for c in r.checks_failed), r.checks_failed)
        self.assertIn("nothing was sent", str(e.exception))
        with self.assertRaises(vmxkit.ApplyError) as again:
            self.apply(dry_run=True, firmware_change=True)
        self.assertEqual(again.exception.result.diff, r.diff)  # still the old devices

    def test_a_plan_with_a_placeholder_is_refused(self):
        self.start("-apply")
        with open(self.plan, encoding="utf-8") as f:
            text = f.read().replace(GPU_HOST_UUID, "<fill in: the host's system UUID>")
        with self.assertRaises(vmxkit.ApplyError) as e:
            self.apply(text)
        self.assertTrue(any("placeholder" in c for c in e.exception.result.checks_failed))
        after = [str(line) for line in self.apply(dry_run=True).diff]
        self.assertTrue(any(line.startswith("- passthrough " + OLD_GPU) for line in after), after)

    def test_the_vm_is_found_by_uuid_moid_datacenter_and_folder(self):
        self.start("-apply")
        vm = self.pyvmomi()[GPU_VM]
        expected = self.apply(dry_run=True).diff
        ways = [dict(vm=None, uuid=vm.config.uuid),
                dict(vm=None, uuid=vm.config.instanceUuid, use_instance_uuid=True),
                dict(vm=None, moid=vm._moId),
                dict(vm=vm),  # a pyVmomi VirtualMachine
                dict(vm=GPU_VM, datacenter="DC0"),
                dict(vm=GPU_VM, datacenter="DC0", folder="vm"),
                dict(vm=GPU_VM, folder="/DC0/vm")]
        for kwargs in ways:
            with self.subTest(**{k: str(v) for k, v in kwargs.items()}):
                r = self.apply(dry_run=True, **kwargs)
                self.assertEqual(r.moref, vm._moId)
                self.assertEqual(r.diff, expected)
        for kwargs, message in ((dict(datacenter="DC9"), "no datacenter at inventory path '/DC9'"),
                                (dict(folder="/DC0/vm/none"), "no folder at inventory path"),
                                (dict(folder="vm"), "give the datacenter too"),
                                (dict(vm=None, uuid="00000000-0000-0000-0000-000000000000"),
                                 "no VM with BIOS UUID")):
            with self.subTest(**kwargs):
                with self.assertRaises(vmxkit.Error) as e:
                    self.apply(dry_run=True, **kwargs)
                self.assertIn(message, str(e.exception))

    def test_credentials_as_keywords_and_never_in_a_message(self):
        self.start("-apply")
        url, user, password = without_credentials(self.sim.url)
        r = vmxkit.apply(self.plan, server=url, vm=GPU_VM, username=user, password=password,
                         insecure=True, dry_run=True)
        self.assertEqual(r.status, "dry-run")
        # Keywords replace the URL's credentials.
        with self.assertRaises(vmxkit.Error) as e:
            vmxkit.apply(self.plan, server=self.sim.url, vm=GPU_VM, password="Wr0ng-S3cret",
                         username=user, insecure=True, dry_run=True)
        self.assertIn("InvalidLogin", str(e.exception))
        self.assertNotIn("Wr0ng-S3cret", str(e.exception))
        self.assertNotIn(user + ":", str(e.exception))
        # A certificate that does not verify is refused unless insecure.
        with self.assertRaises(vmxkit.Error) as e:
            vmxkit.apply(self.plan, server=self.sim.url, vm=GPU_VM, dry_run=True)
        self.assertIn("certificate", str(e.exception))
        self.assertNotIn("%s:%s@" % (user, password), str(e.exception))

    def test_a_proxy_is_gone_through(self):
        self.start("-apply")
        proxy = peers.ConnectProxy()
        self.addCleanup(proxy.stop)
        r = self.apply(dry_run=True, proxy=proxy.url)
        self.assertEqual(r.status, "dry-run")
        port = urlparse(self.sim.url).port
        self.assertIn("127.0.0.1:%d" % port, proxy.targets)

    def test_config_spec_of_a_live_vm_through_pyvmomi_gives_exactly_the_plan(self):
        from pyVmomi import vim

        self.start("-apply")
        vm = self.pyvmomi()[GPU_VM]
        plan = vmxkit.generate(vmxkit.Host.from_vsphere(vm.runtime.host), gpus=[NEW_GPU],
                               nic=[NIC], memory_mb=2048, system_id=GPU_HOST_UUID)
        spec = plan.config_spec(vm=vm, firmware_change=True)
        removed = [(c.operation, c.device.backing.id) for c in spec.deviceChange
                   if c.operation == "remove"]
        self.assertEqual(removed, [("remove", OLD_GPU)])
        task = vm.ReconfigVM_Task(spec=spec)
        deadline = time.monotonic() + 60
        while task.info.state not in (vim.TaskInfo.State.success, vim.TaskInfo.State.error):
            self.assertLess(time.monotonic(), deadline, "the task did not end")
            time.sleep(0.2)
        self.assertEqual(task.info.state, vim.TaskInfo.State.success, task.info.error)
        # Exactly the plan's devices: the one it kept is not passed through twice.
        self.assertEqual(self.passthrough(vm), [NEW_GPU, NIC])
        self.assertTrue(plan.change(vm, firmware_change=True).empty,
                        str(plan.change(vm, firmware_change=True)))
        self.assertEqual(self.apply(plan, firmware_change=True).status, "no-changes")

    def test_a_plan_from_a_live_host_carries_its_uuid(self):
        # Host.from_vsphere reads hardware.systemInfo.uuid: generate() without system_id
        # writes it into every systemId, so no placeholder reaches the server.
        self.start("-apply")
        vm = self.pyvmomi()[GPU_VM]
        host = vmxkit.Host.from_vsphere(vm.runtime.host)
        plan = vmxkit.generate(host, gpus=1, nic="auto")
        for form in ("vmx", "configspec-xml", "vi-json"):
            text = plan.render(form).decode("utf-8")
            self.assertNotIn("<fill in", text, form)
            self.assertIn(GPU_HOST_UUID, text, form)
        spec = plan.config_spec(vm=vm, firmware_change=True)
        added = [c.device.backing for c in spec.deviceChange if c.operation == "add"]
        self.assertTrue(added)
        self.assertEqual({b.systemId for b in added}, {GPU_HOST_UUID})
        self.assertEqual(plan.change(vm).placeholders, ())
        # The host's vGPU types came with it: one it does not offer is refused.
        with self.assertRaises(vmxkit.Error) as e:
            vmxkit.generate(host, gpus=1, vgpu="nvidia_h100xm-16c")
        self.assertIn("does not offer it (config.sharedPassthruGpuTypes); it offers: "
                      "nvidia_h100xm-80c", str(e.exception))
        self.assertEqual(vmxkit.generate(host, gpus=[NEW_GPU], vgpu="nvidia_h100xm-40c").vgpu,
                         "nvidia_h100xm-40c")


if __name__ == "__main__":
    unittest.main()
