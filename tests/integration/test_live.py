#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""vmxkit's vSphere API client against govmomi's vCenter simulator (tests/integration/vcsim): the
GPU host DC0_H0 read with --server --esx-host (topo, mmio, host-check, generate), live VMs linted
with --server --vm / --all-vms, and the failures: bad credentials, a dead server, a certificate
that does not verify, a slow server, a VM that vanishes while listed. Each is exit 2 with a
clear message. The 1,000-VM run counts the property collector requests (the simulator logs
them) and prints its time.

Environment: VMXKIT_BINARY, VMXKIT_VCSIM, VMXKIT_SOURCE_DIR (as test_configspec_peers.py).
"""

import json
import math
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import unittest
from urllib.parse import urlparse, urlunparse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402

GPU_HOST = "DC0_H0"
GPU_VM = "DC0_H0_VM0"
GPU_HOST_UUID = "4c4c4544-0048-3510-8052-b4c04f4e3332"


def run(*args, env=None, timeout=120):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("VMXKIT_") or
                k in ("VMXKIT_BINARY", "VMXKIT_VCSIM", "VMXKIT_SOURCE_DIR")}
    full_env.update(env or {})
    start = time.monotonic()
    r = subprocess.run([peers.VMXKIT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout, check=False, env=full_env)
    r.seconds = time.monotonic() - start
    r.out = r.stdout.decode(errors="replace")
    r.err = r.stderr.decode(errors="replace")
    return r


def with_password(url, password):
    u = urlparse(url)
    return urlunparse(u._replace(netloc="%s:%s@%s:%d" % (u.username, password, u.hostname, u.port)))


class GpuHostTest(unittest.TestCase):
    """The simulator's GPU host and its VM, read through the API."""

    @classmethod
    def setUpClass(cls):
        cls.sim = peers.Simulator()
        cls.server = ["--server", cls.sim.url, "--insecure"]

    @classmethod
    def tearDownClass(cls):
        cls.sim.stop()

    def check(self, r, code=0):
        self.assertEqual(r.returncode, code, r.out + r.err)

    def test_topo_prints_the_gpu_hosts_matrix(self):
        r = run("topo", *self.server, "--esx-host", GPU_HOST)
        self.check(r)
        self.assertRegex(r.out, r"GPU0\s+X\s+SYS\s+PIX")  # GPU0: 0000:18:00.0
        self.assertIn("NIC0", r.out)
        r = run("topo", *self.server, "--esx-host", GPU_HOST, "--format", "json")
        self.check(r)
        doc = json.loads(r.out)
        self.assertEqual([g["bdf"] for g in doc["gpus"]], ["0000:18:00.0", "0000:9a:00.0"])
        self.assertEqual([g["numa_node"] for g in doc["gpus"]], [0, 1])
        pix = [p for p in doc["pairs"] if p["path"] == "PIX"]
        self.assertTrue(pix, doc["pairs"])
        self.assertTrue(all(p["switches"] == 1 for p in pix))

    def test_mmio_sizes_a_host_device(self):
        r = run("mmio", *self.server, "--esx-host", GPU_HOST, "--device", "0000:18:00.0")
        self.check(r)
        self.assertIn('pciPassthru.64bitMMIOSizeGB = "256"', r.out)

    def test_host_check_reads_passthrough_and_sriov_state(self):
        r = run("host-check", *self.server, "--esx-host", GPU_HOST, "--format", "json")
        self.assertIn(r.returncode, (0, 1), r.err)
        doc = json.loads(r.out)
        findings = doc["findings"]
        self.assertEqual(doc["host_kind"], "ESXi", doc)
        self.assertFalse(any("0000:19:00.0" in f["subject"] and f["name"] == "sriov-no-vfs"
                             for f in findings), findings)

    def test_host_check_lists_the_hosts_vgpu_types(self):
        # config.sharedPassthruGpuTypes with config.sharedGpuCapabilities, as the text and the
        # JSON say them.
        r = run("host-check", *self.server, "--esx-host", GPU_HOST)
        self.assertIn(r.returncode, (0, 1), r.err)
        self.assertIn("vGPU types offered by %s (config.sharedPassthruGpuTypes, 4):" % GPU_HOST,
                      r.out)
        self.assertRegex(r.out, r"PROFILE\s+DISK-SNAPSHOT\s+MEMORY-SNAPSHOT\s+SUSPEND\s+MIGRATE")
        self.assertRegex(r.out, r"nvidia_h100xm-80c\s+yes\s+no\s+yes\s+no\n")
        self.assertRegex(r.out, r"nvidia_h100xm-40c\s+yes\s+no\s+yes\s+yes\n")
        r = run("host-check", *self.server, "--esx-host", GPU_HOST, "--format", "json")
        self.assertIn(r.returncode, (0, 1), r.err)
        types = json.loads(r.out)["vgpu_types"]
        self.assertEqual([t["vgpu"] for t in types], ["nvidia_h100xm-80c", "nvidia_h100xm-40c",
                                                      "nvidia_h100xm-20c", "nvidia_h100xm-10c"])
        self.assertEqual(types[0], dict(vgpu="nvidia_h100xm-80c", disk_snapshot_supported=True,
                                        memory_snapshot_supported=False, suspend_supported=True,
                                        migrate_supported=False))
        # A host read from lspci says nothing about vGPU types: null, and no section.
        host = os.path.join(peers.SOURCE_DIR, "examples", "hosts",
                            "synthetic-esxi-1s-2sw-4gpu-2nic.esxcli-pci.txt")
        r = run("host-check", host, "--format", "json")
        self.assertIn(r.returncode, (0, 1), r.err)
        self.assertIsNone(json.loads(r.out)["vgpu_types"])
        r = run("host-check", host)
        self.assertNotIn("vGPU types", r.out)

    def test_generate_refuses_a_vgpu_type_the_host_does_not_offer(self):
        # nvidia_h100xm-16c is a type of the H100 SXM5 in vmxkit's table, but not one this host
        # offers: refused, naming what it offers.
        r = run("generate", *self.server, "--esx-host", GPU_HOST, "--gpu", "auto", "--gpus", "1",
                "--vgpu", "nvidia_h100xm-16c")
        self.check(r, 2)
        self.assertIn("--vgpu nvidia_h100xm-16c: host %s does not offer it "
                      "(config.sharedPassthruGpuTypes); it offers: nvidia_h100xm-80c, "
                      "nvidia_h100xm-40c, nvidia_h100xm-20c, nvidia_h100xm-10c" % GPU_HOST, r.err)
        self.assertEqual(r.out, "")
        # One it offers is planned, with the host's UUID.
        r = run("generate", *self.server, "--esx-host", GPU_HOST, "--gpu", "0000:9a:00.0",
                "--vgpu", "nvidia_h100xm-40c")
        self.check(r)
        self.assertIn('pciPassthru0.vgpu = "nvidia_h100xm-40c"', r.out)

    def test_generate_writes_the_hosts_system_id(self):
        r = run("generate", *self.server, "--esx-host", GPU_HOST, "--gpu", "0000:9a:00.0",
                "--nic", "0000:9b:00.0")
        self.check(r)
        self.assertIn('pciPassthru0.systemId = "%s"' % GPU_HOST_UUID, r.out)
        self.assertIn("GPU0 <-> NIC0: PIX", r.out)
        # The same plan as data: the .vmx to a file, the document to stdout.
        with tempfile.TemporaryDirectory() as tmp:
            vmx = os.path.join(tmp, "vm.vmx")
            r2 = run("generate", *self.server, "--esx-host", GPU_HOST, "--gpu", "0000:9a:00.0",
                     "--nic", "0000:9b:00.0", "-o", vmx, "--plan-json", "-")
            self.check(r2)
            with open(vmx, encoding="utf-8") as f:
                self.assertEqual(f.read(), r.out)
        doc = json.loads(r2.out)
        self.assertEqual(doc["output"], dict(format="vmx", path=vmx))
        self.assertEqual([g["address"] for g in doc["gpus"]], ["0000:9a:00.0"])
        self.assertEqual([n["address"] for n in doc["nics"]], ["0000:9b:00.0"])
        self.assertEqual((doc["pairs"][0]["path"], doc["pairs"][0]["verdict"]), ("PIX", "ok"))
        self.assertIn("host: %s (vSphere API)" % GPU_HOST, doc["explanation"])
        self.assertEqual(doc["warnings"], [line[len("vmxkit: warning: "):]
                                           for line in r2.err.splitlines()
                                           if line.startswith("vmxkit: warning: ")])

    def test_generate_asks_the_host_for_its_device_groups(self):
        # QueryConfigTarget on the host's compute resource: the simulator offers no vendor
        # device groups, and generate says so for a vGPU with a NIC.
        r = run("generate", *self.server, "--esx-host", GPU_HOST, "--gpu", "0000:9a:00.0",
                "--nic", "0000:9b:00.0", "--vgpu", "nvidia_h100xm-80c", "--sriov", "--verbose")
        self.check(r)
        self.assertIn("QueryConfigTarget: the host offers no vendor device group of a vGPU and "
                      "a NIC (0 groups in all)", r.err)
        self.assertNotIn("warning", r.err)
        # A group the host does not offer is refused, naming what it offers.
        r = run("generate", *self.server, "--esx-host", GPU_HOST, "--gpu", "0000:9a:00.0",
                "--nic", "0000:9b:00.0", "--vgpu", "nvidia_h100xm-80c", "--sriov", "--format",
                "vi-json", "--device-group", "nvidia-h100-cx7-0")
        self.check(r, 2)
        self.assertIn("--device-group \"nvidia-h100-cx7-0\": " + GPU_HOST + " (vSphere API) "
                      "QueryConfigTarget offers no such group (it offers none)", r.err)
        # Without a vGPU nothing is said about groups.
        r = run("generate", *self.server, "--esx-host", GPU_HOST, "--gpu", "0000:9a:00.0",
                "--nic", "0000:9b:00.0")
        self.check(r)
        self.assertNotIn("device group", r.err)

    def test_lint_vm_finds_what_is_missing_in_the_live_vm(self):
        r = run("lint", *self.server, "--vm", GPU_VM, "--format", "json")
        self.check(r, 1)
        doc = json.loads(r.out)
        rules = {d["rule"] for f in doc["files"] for d in f["diagnostics"]}
        # allowP2P, RelaxACSforP2P, the MMIO size, EFI; and, from the host it runs on, the
        # GPU and NIC on different sockets.
        for rule in ("P2P001", "P2P002", "MMIO002", "MMIO005", "TOPO004"):
            self.assertIn(rule, rules, r.out)

    def test_lint_finds_the_vm_by_uuid_and_in_its_datacenter(self):
        # As apply (and community.vmware) name a VM: its BIOS UUID, a datacenter and its folders.
        import ssl

        from pyVim.connect import Disconnect, SmartConnect
        from pyVmomi import vim

        u = urlparse(self.sim.url)
        si = SmartConnect(host=u.hostname, port=u.port, user=u.username, pwd=u.password,
                          sslContext=ssl._create_unverified_context())
        try:
            content = si.RetrieveContent()
            view = content.viewManager.CreateContainerView(content.rootFolder,
                                                           [vim.VirtualMachine], True)
            uuid = {vm.name: vm.config.uuid for vm in view.view}[GPU_VM]
            view.Destroy()
        finally:
            Disconnect(si)
        by_name = run("lint", *self.server, "--vm", GPU_VM, "--format", "json")
        self.check(by_name, 1)
        for args in (["--uuid", uuid], ["--vm", GPU_VM, "--datacenter", "DC0"],
                     ["--vm", GPU_VM, "--datacenter", "DC0", "--folder", "vm"]):
            r = run("lint", *self.server, *args, "--format", "json")
            self.check(r, 1)
            self.assertEqual(r.out, by_name.out, args)
        r = run("lint", *self.server, "--vm", GPU_VM, "--datacenter", "DC9")
        self.check(r, 2)
        self.assertIn("nothing at inventory path '/DC9'", r.err)
        r = run("lint", *self.server, "--uuid", "00000000-0000-0000-0000-000000000000")
        self.check(r, 2)
        self.assertIn("no VM with BIOS UUID", r.err)
        r = run("lint", *self.server, "--uuid", uuid, "--vm", GPU_VM)
        self.check(r, 2)
        self.assertIn("--vm, --uuid and --all-vms exclude each other", r.err)

    def test_a_vm_that_is_not_there_is_an_error(self):
        r = run("lint", *self.server, "--vm", "no-such-vm")
        self.check(r, 2)
        self.assertIn("no VM named 'no-such-vm'", r.err)

    def test_an_unknown_esx_host_names_the_hosts_there_are(self):
        r = run("topo", *self.server, "--esx-host", "esx-nowhere")
        self.check(r, 2)
        self.assertIn("no ESXi host named 'esx-nowhere'", r.err)
        self.assertIn(GPU_HOST, r.err)

    def test_bad_credentials_are_refused_without_showing_the_password(self):
        r = run("topo", "--server", with_password(self.sim.url, "Wr0ng-S3cret"), "--insecure",
                "--esx-host", GPU_HOST)
        self.check(r, 2)
        self.assertIn("InvalidLogin", r.err)
        self.assertNotIn("Wr0ng-S3cret", r.err + r.out)

    def test_credentials_from_the_environment(self):
        u = urlparse(self.sim.url)
        bare = "https://%s:%d/sdk" % (u.hostname, u.port)
        r = run("topo", "--esx-host", GPU_HOST, env={
            "VMXKIT_SERVER": bare, "VMXKIT_USERNAME": u.username, "VMXKIT_PASSWORD": u.password,
            "VMXKIT_INSECURE": "1"})
        self.check(r)
        self.assertIn("GPU0", r.out)

    def test_a_certificate_that_does_not_verify_is_refused(self):
        r = run("topo", "--server", self.sim.url, "--esx-host", GPU_HOST)
        self.check(r, 2)
        self.assertIn("certificate does not verify", r.err)
        self.assertIn("--insecure", r.err)

    def test_verbose_counts_the_requests(self):
        r = run("topo", *self.server, "--esx-host", GPU_HOST, "--verbose")
        self.check(r)
        # RetrieveServiceContent, Login, CreateContainerView, RetrievePropertiesEx (names),
        # DestroyView, RetrievePropertiesEx (the host), Logout.
        self.assertIn("vmxkit: 7 requests to", r.err)


class FailureTest(unittest.TestCase):
    """A dead server, a slow one, a VM that vanishes while listed."""

    def test_a_dead_server_is_an_error(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        r = run("topo", "--server", "https://u:p@127.0.0.1:%d/sdk" % port, "--esx-host", "x")
        self.assertEqual(r.returncode, 2, r.err)
        self.assertIn("cannot connect", r.err)

    def test_a_slow_server_times_out(self):
        sim = peers.Simulator("-delay", "RetrievePropertiesEx=5000")
        try:
            r = run("topo", "--server", sim.url, "--insecure", "--esx-host", GPU_HOST,
                    "--timeout", "1")
        finally:
            sim.stop()
        self.assertEqual(r.returncode, 2, r.err)
        self.assertIn("timeout", r.err)
        self.assertLess(r.seconds, 5)

    def test_a_vm_that_vanishes_mid_listing_is_reported_and_the_rest_linted(self):
        sim = peers.Simulator("-vanish", "DC0_C0_RP0_VM1")
        try:
            r = run("lint", "--server", sim.url, "--insecure", "--all-vms", "--batch-size", "1",
                    "--format", "json")
        finally:
            sim.stop()
        self.assertEqual(r.returncode, 2, r.err)
        self.assertRegex(r.err, r"VM 'DC0_C0_RP0_VM1' \(vm-\d+\) vanished while it was listed")
        linted = [f["path"] for f in json.loads(r.out)["files"]]
        self.assertEqual(len(linted), 3, linted)
        self.assertFalse(any(p.endswith("/DC0_C0_RP0_VM1") for p in linted))


class ThousandVmsTest(unittest.TestCase):
    """lint --all-vms over 1,000 simulated VMs: O(batches) requests, and its time."""

    def test_all_vms_in_batches(self):
        vms, batch = 1000, 100
        with tempfile.TemporaryDirectory() as tmp:
            log = os.path.join(tmp, "requests.txt")
            sim = peers.Simulator("-vms", str(vms), "-requests", log)
            try:
                r = run("lint", "--server", sim.url, "--insecure", "--all-vms", "--batch-size",
                        str(batch), "--verbose", "--format", "json", timeout=600)
            finally:
                sim.stop()
            with open(log, encoding="utf-8") as f:
                collector_calls = [line.strip() for line in f if line.strip()]
        self.assertIn(r.returncode, (0, 1), r.err[-3000:])
        files = json.loads(r.out)["files"]
        self.assertGreaterEqual(len(files), vms)
        total = int(re.search(r"vmxkit: (\d+) requests to", r.err).group(1))
        batches = math.ceil(len(files) / batch)
        # The listing (maxObjects 10 x batch: 2 pages), the hosts, one per batch of configs.
        self.assertLessEqual(len(collector_calls), batches + 4, collector_calls)
        # Those plus RetrieveServiceContent, Login, Create/DestroyView, Logout.
        self.assertLessEqual(total, batches + 9, r.err[-2000:])
        sys.stderr.write("lint --all-vms: %d VMs, %d requests (%d to the property collector), "
                         "%.1f s\n" % (len(files), total, len(collector_calls), r.seconds))


if __name__ == "__main__":
    unittest.main(verbosity=2)
