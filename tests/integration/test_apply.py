#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""vmxkit apply against govmomi's vCenter simulator (tests/integration/vcsim): a VM holding an old
GPU and a NIC gets exactly the plan's devices, memory and systemId and lints clean; a second
apply says "no changes"; --dry-run changes nothing; a powered-on VM with --firmware-change, a GPU
held by another VM and a plan with a placeholder change nothing and say why; a task that fails
says what the VM holds after it. Without a plan file, generate's options are planned for the
VM's own host and applied the same way. Each test starts its own simulator, since apply changes
it.

Environment: VMXKIT_BINARY, VMXKIT_VCSIM, VMXKIT_SOURCE_DIR (as test_live.py).
"""

import json
import os
import ssl
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402
from test_live import GPU_HOST, GPU_HOST_UUID, GPU_VM, run  # noqa: E402


def bios_uuid(url, name):
    """The VM's config.uuid, read with pyVmomi."""
    from urllib.parse import urlparse

    from pyVim.connect import Disconnect, SmartConnect
    from pyVmomi import vim

    u = urlparse(url)
    si = SmartConnect(host=u.hostname, port=u.port, user=u.username, pwd=u.password,
                      sslContext=ssl._create_unverified_context())
    try:
        content = si.RetrieveContent()
        view = content.viewManager.CreateContainerView(content.rootFolder, [vim.VirtualMachine],
                                                       True)
        uuids = {vm.name: vm.config.uuid for vm in view.view}
        view.Destroy()
        return uuids[name]
    finally:
        Disconnect(si)


class ApplyTest(unittest.TestCase):
    def start(self, *args):
        sim = peers.Simulator(*args)
        self.addCleanup(sim.stop)
        self.server = ["--server", sim.url, "--insecure"]
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.plan = os.path.join(tmp.name, "plan.vmx")
        r = run("generate", *self.server, "--esx-host", GPU_HOST, "--gpu", "0000:9a:00.0",
                "--nic", "0000:9b:00.0", "--memory-mb", "2048", "-o", self.plan)
        self.assertEqual(r.returncode, 0, r.err)

    def apply(self, *more):
        return run("apply", *self.server, "--vm", GPU_VM, self.plan, *more)

    def test_apply_swaps_the_gpu_then_says_no_changes(self):
        self.start("-apply")
        dry = self.apply("--dry-run", "--firmware-change")
        self.assertEqual(dry.returncode, 0, dry.out + dry.err)
        self.assertIn("- passthrough 0000:18:00.0", dry.out)
        self.assertIn("+ passthrough 0000:9a:00.0", dry.out)
        self.assertIn("dry run: nothing was sent", dry.out)
        again = self.apply("--dry-run", "--firmware-change")
        self.assertEqual(again.out, dry.out, "the dry run changed the VM")

        r = self.apply("--firmware-change")
        self.assertEqual(r.returncode, 0, r.out + r.err)
        self.assertIn("applied: VM 'DC0_H0_VM0' now holds the plan", r.out)
        self.assertIn("No problems found", r.out)  # the read-back lints clean on its host

        second = self.apply("--firmware-change")
        self.assertEqual(second.returncode, 0, second.out + second.err)
        self.assertIn("no changes", second.out)
        self.assertNotIn("ReconfigVM_Task", second.err)

        # "no changes" means exactly the plan's devices (one more or a duplicate is removed),
        # the host's systemId, the plan's memory; and lint --server agrees.
        lint = run("lint", *self.server, "--vm", GPU_VM)
        self.assertEqual(lint.returncode, 0, lint.out + lint.err)

    def test_apply_with_generates_options_plans_for_the_vms_host(self):
        # No plan file: generate's options, planned for the host the VM runs on (read live, its
        # UUID the systemId), then applied as a plan is.
        self.start("-apply")
        ask = ["apply", *self.server, "--vm", GPU_VM, "--gpu", "auto", "--gpus", "1", "--nic",
               "auto", "--firmware-change"]
        dry = run(*ask, "--dry-run")
        self.assertEqual(dry.returncode, 0, dry.out + dry.err)
        self.assertIn("+++ plan generated for host %s (vSphere API)" % GPU_HOST, dry.out)
        # The best pair ready for passthrough: the GPU and NIC behind one switch on socket 1.
        self.assertIn("- passthrough 0000:18:00.0 10de:2330 systemId %s" % GPU_HOST_UUID, dry.out)
        self.assertIn("+ passthrough 0000:9a:00.0 10de:2330 systemId %s" % GPU_HOST_UUID, dry.out)
        self.assertNotIn("0000:9b:00.0", dry.out)  # the VM holds that NIC already: kept
        self.assertNotIn("fill in", dry.out)
        self.assertIn("(kept) memoryMB", dry.out)  # no --memory-mb: the VM's size stays
        self.assertIn("dry run: nothing was sent", dry.out)
        self.assertEqual(run(*ask, "--dry-run").out, dry.out, "the dry run changed the VM")

        r = run(*ask)
        self.assertEqual(r.returncode, 0, r.out + r.err)
        self.assertIn("applied: VM 'DC0_H0_VM0' now holds the plan", r.out)
        second = run(*ask)
        self.assertEqual(second.returncode, 0, second.out + second.err)
        self.assertIn("no changes: VM 'DC0_H0_VM0' already holds the plan", second.out)
        self.assertNotIn("ReconfigVM_Task", second.err)
        # The same VM against the plan file generate writes for that pair (and the size the VM
        # kept): nothing left to do.
        r = run("generate", *self.server, "--esx-host", GPU_HOST, "--gpu", "auto", "--gpus", "1",
                "--nic", "auto", "--memory-mb", "32", "-o", self.plan)
        self.assertEqual(r.returncode, 0, r.err)
        r = self.apply("--firmware-change", "--dry-run")
        self.assertEqual(r.returncode, 0, r.out + r.err)
        self.assertIn("no changes: VM 'DC0_H0_VM0' already holds the plan", r.out)

    def test_the_hosts_warnings_are_said_when_it_is_read(self):
        # The host read for generate's options names a device it does not list: a warning on
        # stderr as it is read, before the change is printed (both streams in one pipe).
        self.start("-apply", "-stray-passthru")
        merged = subprocess.run([peers.VMXKIT, "apply", *self.server, "--vm", GPU_VM, "--gpu",
                                 "auto", "--gpus", "1", "--nic", "auto", "--dry-run"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120,
                                check=False)
        out = merged.stdout.decode()
        self.assertEqual(merged.returncode, 0, out)
        self.assertRegex(out, r"^vmxkit: warning: https://127\.0\.0\.1:\d+/sdk host %s: "
                              r"config\.pciPassthruInfo names 0000:ff:1f\.7, which "
                              r"hardware\.pciDevice does not list; skipped\n--- VM " % GPU_HOST)
        self.assertEqual(out.count("vmxkit: warning:"), 1, out)
        self.assertIn("+++ plan generated for host %s (vSphere API)" % GPU_HOST, out)

    def test_apply_refuses_a_plan_file_with_generates_options(self):
        self.start("-apply")
        r = self.apply("--gpu", "auto", "--dry-run")
        self.assertEqual(r.returncode, 2, r.out + r.err)
        self.assertIn("give a PLAN file or generate's options (--gpu, --nic, --vgpu...), not both",
                      r.err)
        r = run("apply", *self.server, "--vm", GPU_VM, "--dry-run")
        self.assertEqual(r.returncode, 2, r.out + r.err)
        self.assertIn("--gpu auto --gpus 1 --nic auto", r.err)
        # A vGPU type the VM's host does not offer: refused, naming what it offers; nothing sent.
        r = run("apply", *self.server, "--vm", GPU_VM, "--gpu", "auto", "--gpus", "1", "--vgpu",
                "nvidia_h100xm-16c", "--dry-run")
        self.assertEqual(r.returncode, 2, r.out + r.err)
        self.assertIn("does not offer it (config.sharedPassthruGpuTypes); it offers: "
                      "nvidia_h100xm-80c", r.err)
        self.assertEqual(r.out, "")

    def test_json_output_and_the_vm_by_uuid_datacenter_and_folder(self):
        self.start("-apply")
        dry = self.apply("--dry-run", "--format", "json")
        self.assertEqual(dry.returncode, 0, dry.out + dry.err)
        doc = json.loads(dry.out)
        self.assertEqual((doc["schema"], doc["status"], doc["changed"]), (1, "dry-run", False))
        self.assertEqual(doc["vm"]["name"], GPU_VM)
        self.assertIn({"sign": "-", "what": "passthrough 0000:18:00.0 10de:2330 systemId %s"
                       % GPU_HOST_UUID}, doc["changes"])
        self.assertIn("VM 'DC0_H0_VM0' is powered off", doc["checks"]["passed"])
        self.assertEqual((doc["task"], doc["lint"]), (None, None))

        # The VM by datacenter and folder, then by its BIOS UUID: the same VM.
        r = run("apply", *self.server, "--datacenter", "DC0", "--folder", "vm", "--vm", GPU_VM,
                self.plan, "--firmware-change", "--format", "json")
        self.assertEqual(r.returncode, 0, r.out + r.err)
        doc = json.loads(r.out)
        self.assertEqual((doc["status"], doc["changed"]), ("applied", True))
        self.assertTrue(doc["task"]["success"], doc["task"])
        self.assertEqual([d["rule"] for d in doc["lint"]["files"][0]["diagnostics"]
                          if d["severity"] in ("error", "warning")], [])
        self.assertEqual(doc["left"], [])
        self.assertEqual(doc["lint"]["files"][0]["path"], "%s/vm/%s" % (
            self.server[1].split("@")[-1].split("/")[0], GPU_VM))
        r = run("apply", *self.server, "--uuid", bios_uuid(self.server[1], GPU_VM), self.plan,
                "--firmware-change", "--format", "json")
        self.assertEqual(r.returncode, 0, r.out + r.err)
        self.assertEqual(json.loads(r.out)["status"], "no-changes")
        for args, message in ((["--folder", "/DC0/vm/none", "--vm", GPU_VM], "no folder at"),
                              (["--uuid", "00000000-0000-0000-0000-000000000000"],
                               "no VM with BIOS UUID"),
                              (["--uuid", "x", "--vm", GPU_VM], "one way")):
            r = run("apply", *self.server, *args, self.plan, "--format", "json")
            self.assertEqual(r.returncode, 2, r.out + r.err)
            self.assertIn(message, r.err)
            self.assertEqual(r.out, "")

    def test_a_powered_on_vm_is_not_changed(self):
        self.start()  # every VM powered on
        r = self.apply("--firmware-change")
        self.assertEqual(r.returncode, 2, r.out + r.err)
        self.assertIn("is poweredOn: a firmware change needs it powered off", r.err)
        self.assertIn("nothing was sent", r.err)
        after = self.apply("--dry-run", "--firmware-change")
        self.assertIn("- passthrough 0000:18:00.0", after.out)

    def test_a_gpu_held_by_another_vm_is_refused(self):
        self.start("-apply", "-held")
        r = self.apply()
        self.assertEqual(r.returncode, 2, r.out + r.err)
        self.assertRegex(r.err, r"0000:9a:00.0: held by VM 'DC0_H0_VM1' \(vm-\d+\), which is poweredOn")
        # As JSON: the failed check on stdout, exit 2 all the same.
        r = self.apply("--format", "json")
        self.assertEqual(r.returncode, 2, r.out + r.err)
        doc = json.loads(r.out)
        self.assertEqual((doc["status"], doc["changed"], doc["task"]), ("checks-failed", False,
                                                                        None))
        self.assertTrue(any("held by VM 'DC0_H0_VM1'" in c for c in doc["checks"]["failed"]))
        after = self.apply("--dry-run")
        self.assertIn("+ passthrough 0000:9a:00.0", after.out)

    def test_a_failed_task_says_what_the_vm_holds(self):
        # The simulator fails the task after it applied the memory, before the devices.
        self.start("-apply", "-fail-reconfig")
        r = self.apply("--firmware-change")
        self.assertEqual(r.returncode, 2, r.out + r.err)
        self.assertIn("check ok: VM 'DC0_H0_VM0' is powered off", r.out)
        self.assertRegex(r.err, r"vmxkit: ReconfigVM_Task (task-\d+) sent\n"
                                r"vmxkit: error: task \1 failed: .*InvalidArgument\n"
                                r"vmxkit: VM 'DC0_H0_VM0' now holds 2 passthrough device\(s\), "
                                r"memoryMB 2048\n$")
        self.assertNotIn("applied", r.out)
        r = self.apply("--firmware-change", "--format", "json")
        self.assertEqual(r.returncode, 2, r.out + r.err)
        doc = json.loads(r.out)
        self.assertEqual((doc["status"], doc["changed"], doc["task"]["success"], doc["lint"]),
                         ("task-failed", False, False, None))
        self.assertIn("now holds 2 passthrough device(s), memoryMB 2048", r.err)
        # The change and the checks are shown before the task is sent: both streams in one pipe.
        merged = subprocess.run([peers.VMXKIT, "apply", *self.server, "--vm", GPU_VM, self.plan,
                                 "--firmware-change"], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, timeout=120, check=False).stdout.decode()
        self.assertLess(merged.index("check ok: VM 'DC0_H0_VM0' is powered off"),
                        merged.index("ReconfigVM_Task"), merged)
        self.assertLess(merged.index("ReconfigVM_Task"), merged.index("now holds"), merged)

    def test_a_plan_with_a_placeholder_is_refused(self):
        self.start("-apply")
        with open(self.plan) as f:
            text = f.read()
        with open(self.plan, "w") as f:
            f.write(text.replace(GPU_HOST_UUID, "<fill in: the host's system UUID>"))
        r = self.apply()
        self.assertEqual(r.returncode, 2, r.out + r.err)
        self.assertIn("the plan holds a placeholder", r.err)
        self.assertIn("nothing was sent", r.err)
        after = self.apply("--dry-run")
        self.assertIn("- passthrough 0000:18:00.0", after.out)


if __name__ == "__main__":
    unittest.main()
