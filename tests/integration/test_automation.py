#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The vCenter automation examples (examples/automation/), written on the vmxkit Python package,
run against govmomi's vCenter simulator (its GPU host DC0_H0 and its VM DC0_H0_VM0, which has a
GPU and a NIC on different sockets and none of the P2P settings):

  - lint_vcenter.py lints every VM against its host: the same VMs as the C++ client's
    `vmxkit lint --all-vms`, and for DC0_H0_VM0 the same findings as `vmxkit lint --vm`;
  - apply_configspec.py --plan applies plan files and reads them back;
  - apply_configspec.py --generate plans for the VM's own host (Host.from_vsphere, the host's
    UUID as systemId without being given it), applies the change with
    ReconfigVM_Task(spec=plan.config_spec(vm=vm)), and the VM then holds exactly the plan's
    devices and lints clean against its host at --fail-on error, in the script and in the C++
    client.

Environment: VMXKIT_BINARY, VMXKIT_VCSIM, VMXKIT_SOURCE_DIR, PYTHONPATH (the package).
"""

import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402

EXAMPLES = os.path.join(peers.SOURCE_DIR, "examples", "automation")
GPU_VM = "DC0_H0_VM0"


def script(name, *args):
    """Runs an example script with this interpreter; returns (exit code, stdout, stderr)."""
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), *args],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=180, check=False)
    return r.returncode, r.stdout.decode(), r.stderr.decode()


def client_lint(url, *args):
    """The C++ client's verdict: {VM name: [rule ids]} from `vmxkit lint --server ...`."""
    r = subprocess.run([peers.VMXKIT, "lint", "--server", url, "--insecure", "--format", "json",
                        *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120,
                       check=False)
    if r.returncode not in (0, 1):
        raise AssertionError("vmxkit lint failed: " + r.stderr.decode(errors="replace"))
    report = json.loads(r.stdout)
    return {f["path"].rsplit("/", 1)[-1]: sorted(d["rule"] for d in f["diagnostics"])
            for f in report["files"]}


class LintVcenterTest(unittest.TestCase):
    def setUp(self):
        self.sim = peers.Simulator()
        self.addCleanup(self.sim.stop)

    def test_every_vm_is_linted_against_its_host_as_the_cli_does(self):
        code, out, err = script("lint_vcenter.py", "--server", self.sim.url, "--insecure",
                                "--json", "--threads", "3")
        self.assertEqual(code, 1, err)  # DC0_H0_VM0 has errors
        results = {r["vm"]: r for r in map(json.loads, out.splitlines())}
        cli = client_lint(self.sim.url, "--all-vms")
        self.assertEqual(sorted(results), sorted(cli))
        self.assertGreater(len(results), 2)
        gpu = results[GPU_VM]
        self.assertEqual(gpu["host"], "DC0_H0")
        self.assertTrue(gpu["failed"])
        rules = sorted(f["rule"] for f in gpu["findings"])
        self.assertEqual(rules, cli[GPU_VM])
        # TOPO004 needs the host's topology: the GPU and the NIC are on different sockets.
        self.assertIn("TOPO004", rules)
        for f in gpu["findings"]:
            self.assertGreater(f["line"], 0)
            self.assertGreater(f["column"], 0)

    def test_text_output_and_a_missing_vm(self):
        code, out, err = script("lint_vcenter.py", "--server", self.sim.url, "--insecure",
                                "--vm", GPU_VM)
        self.assertEqual(code, 1, err)
        self.assertRegex(out, r"(?m)^DC0_H0_VM0: <pyVmomi VirtualMachineConfigInfo>:1:\d+: "
                              r"error: .*\[TOPO004\]$")
        code, _, err = script("lint_vcenter.py", "--server", self.sim.url, "--insecure",
                              "--vm", "no-such-vm")
        self.assertEqual(code, 1)
        self.assertIn("no VM named 'no-such-vm'", err)

    def test_bad_credentials_exit_2_without_the_password(self):
        url = self.sim.url.replace(":pass@", ":Wr0ng-S3cret@")
        code, out, err = script("lint_vcenter.py", "--server", url, "--insecure")
        self.assertEqual(code, 2)
        self.assertIn("cannot connect", err)
        self.assertNotIn("Wr0ng-S3cret", out + err)


class ApplyTest(unittest.TestCase):
    def setUp(self):
        self.sim = peers.Simulator()
        self.addCleanup(self.sim.stop)

    def apply(self, vm, *args):
        code, out, err = script("apply_configspec.py", "--server", self.sim.url, "--vm", vm,
                                "--insecure", "--power-off", "--firmware-change", "--timeout",
                                "30", *args)
        self.assertEqual(code, 0, out + err)
        return json.loads(out)

    def test_plan_files_are_applied_and_read_back(self):
        summary = self.apply(self.sim.vm_name, "--plan",
                             os.path.join(peers.PLANS_DIR, "p2p_gpu_nic.vmx"))
        self.assertEqual(summary["problems"], [])
        self.assertEqual(summary["firmware"], "efi")
        self.assertTrue(summary["memoryReservationLockedToMax"])
        self.assertEqual(summary["extraConfig"]["pciPassthru.allowP2P"], "TRUE")
        self.assertEqual(summary["extraConfig"]["pciPassthru.64bitMMIOSizeGB"], "256")
        ids = {d.get("id"): d for d in summary["passthrough"] if d["type"] == "directpath"}
        self.assertEqual(ids["0000:3b:00.0"]["vendorId"], 4318)
        self.assertEqual(ids["0000:3b:00.0"]["deviceId"], "2330")
        self.assertEqual(ids["0000:86:00.1"]["vendorId"], -32634)
        summary = self.apply(self.sim.vm_name, "--plan", os.path.join(peers.PLANS_DIR, "vgpu.vmx"))
        # The plan's devices replace the VM's: the GPU and NIC of the first plan are gone.
        self.assertEqual(summary["passthrough"], [{"type": "vgpu", "vgpu": "grid_a100-40c"}])
        summary = self.apply(self.sim.vm_name, "--plan", os.path.join(peers.PLANS_DIR, "sriov.vmx"),
                             "--keep-devices")
        self.assertIn({"type": "sriov", "pf": "0000:1a:00.1"}, summary["passthrough"])
        self.assertIn({"type": "vgpu", "vgpu": "grid_a100-40c"}, summary["passthrough"])
        self.assertEqual(summary["extraConfig"]["annotation"], 'SR-IOV "VF" test')

    def test_a_plan_generated_for_the_vms_host_lints_clean_there(self):
        before = client_lint(self.sim.url, "--vm", GPU_VM)[GPU_VM]
        self.assertIn("TOPO004", before)
        summary = self.apply(GPU_VM, "--generate", "--gpus", "1", "--nic", "auto")
        self.assertEqual(summary["problems"], [])
        # The GPU and the NIC of one switch (socket 1), by the host's real ids and UUID.
        got = sorted((d["id"], d["systemId"]) for d in summary["passthrough"])
        self.assertEqual(got, [("0000:9a:00.0", "4c4c4544-0048-3510-8052-b4c04f4e3332"),
                               ("0000:9b:00.0", "4c4c4544-0048-3510-8052-b4c04f4e3332")])
        self.assertEqual(summary["extraConfig"]["pciPassthru.allowP2P"], "TRUE")
        self.assertTrue(summary["plan"])
        self.assertFalse([f for f in summary["lint"] if ": error: " in f], summary["lint"])
        # The C++ client, reading the reconfigured VM and its host on its own, agrees.
        r = subprocess.run([peers.VMXKIT, "lint", "--server", self.sim.url, "--insecure",
                            "--vm", GPU_VM, "--fail-on", "error"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=120, check=False)
        self.assertEqual(r.returncode, 0, r.stdout.decode() + r.stderr.decode())
        code, out, err = script("lint_vcenter.py", "--server", self.sim.url, "--insecure",
                                "--vm", GPU_VM, "--fail-on", "error")
        self.assertEqual(code, 0, out + err)

    def test_a_plan_the_host_cannot_do_is_refused_before_any_change(self):
        code, out, err = script("apply_configspec.py", "--server", self.sim.url, "--vm", GPU_VM,
                                "--insecure", "--power-off", "--generate", "--gpus", "2")
        self.assertEqual(code, 2, out + err)
        self.assertIn("cannot do peer-to-peer DMA", err)
        # Nothing changed: the VM still has its GPU and NIC across the sockets.
        self.assertIn("TOPO004", client_lint(self.sim.url, "--vm", GPU_VM)[GPU_VM])


if __name__ == "__main__":
    unittest.main()
