#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The Ansible collection vmxkit.vmxkit (ansible/ansible_collections/vmxkit/vmxkit): its
modules run by ansible-playbook on localhost with the playbooks in playbooks/, once with the
Python package backend and once with the binary backend, against what the vmxkit binary itself
says; the vCenter mode against govmomi's simulator; the collection's metadata and documentation.

Environment:
  VMXKIT_BINARY      the vmxkit binary (required)
  VMXKIT_PYTHONPATH  the folder holding the vmxkit package (BUILD/python): Python* classes
  VMXKIT_VCSIM       the simulator (BUILD/tests/integration/vcsim): *Vcenter* classes
  VMXKIT_SOURCE_DIR  the source tree (default: two folders up)
  VMXKIT_ANSIBLE_PLAYBOOK  ansible-playbook (default: the one on PATH)
  VMXKIT_VERSION     the project's version, to compare with galaxy.yml (default: read from
                     CMakeLists.txt)

Run one class: /usr/bin/python3 tests/ansible/test_ansible.py BinaryFilesTest
"""

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import unittest
from urllib.parse import urlparse

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("VMXKIT_SOURCE_DIR") or os.path.dirname(os.path.dirname(HERE))
VMXKIT = os.environ.get("VMXKIT_BINARY", "")
PACKAGE_PATH = os.environ.get("VMXKIT_PYTHONPATH", "")
PLAYBOOK = os.environ.get("VMXKIT_ANSIBLE_PLAYBOOK") or shutil.which("ansible-playbook") or \
    "/usr/bin/ansible-playbook"
COLLECTIONS = os.path.join(SOURCE_DIR, "ansible")
COLLECTION = os.path.join(COLLECTIONS, "ansible_collections", "vmxkit", "vmxkit")
PLAYBOOKS = os.path.join(HERE, "playbooks")
DATA = os.path.join(HERE, "data")
HOST_CAPTURE = os.path.join(SOURCE_DIR, "examples", "hosts",
                            "synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt")
BROKEN_VMX = os.path.join(SOURCE_DIR, "examples", "vmx", "gpu-rdma-worker.vmx")
CLEAN_VMX = os.path.join(DATA, "clean-gpu-rdma.vmx")
BAD_JSON = os.path.join(DATA, "bad-memory.json")
SYSTEM_ID = "65a1b2c3-d4e5-f607-1829-3a4b5c6d7e8f"
GPU_VM = "DC0_H0_VM0"
GPU_HOST = "DC0_H0"
GPU_HOST_UUID = "4c4c4544-0048-3510-8052-b4c04f4e3332"
WRONG_PASSWORD = "Wr0ng-S3cret"
TIMEOUT = 300

# No __pycache__ in the source or build tree (the package is imported here from the build tree).
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "integration"))
import peers  # noqa: E402  (the simulator; reads VMXKIT_VCSIM)


def require(value, name):
    if not value:
        raise RuntimeError("%s is not set (see the docstring of %s)" % (name, __file__))
    return value


def vmxkit(*args, env=None):
    """(exit code, stdout, stderr) of the vmxkit binary."""
    r = subprocess.run([require(VMXKIT, "VMXKIT_BINARY"), *args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=TIMEOUT, check=False,
                       env=dict(os.environ, **(env or {})))
    return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")


def binary_lint(*args):
    """The findings `vmxkit lint --format json` gives, as (rule, severity, line, column)."""
    rc, out, err = vmxkit("lint", "--format", "json", *args)
    if rc not in (0, 1):
        raise AssertionError("vmxkit lint %s: exit %d: %s" % (" ".join(args), rc, err))
    doc = json.loads(out)
    return doc, [(d["rule"], d["severity"], d["start"]["line"], d["start"]["column"])
                 for f in doc["files"] for d in f["diagnostics"]]


def vm_ids(url, name):
    """(moid, BIOS UUID) of the VM, read with pyVmomi."""
    import ssl

    from pyVim.connect import Disconnect, SmartConnect
    from pyVmomi import vim

    u = urlparse(url)
    si = SmartConnect(host=u.hostname, port=u.port, user=u.username, pwd=u.password,
                      sslContext=ssl._create_unverified_context())
    try:
        content = si.RetrieveContent()
        view = content.viewManager.CreateContainerView(content.rootFolder, [vim.VirtualMachine],
                                                       True)
        found = {vm.name: (vm._moId, vm.config.uuid) for vm in view.view}
        view.Destroy()
        return found[name]
    finally:
        Disconnect(si)


def host_rules():
    """The ids of the rules that need a host (TOPO*), from `vmxkit rules`."""
    rc, out, err = vmxkit("rules")
    assert rc == 0, err
    rules = set()
    for line in out.splitlines():
        m = re.match(r"(TOPO\d+)\s", line)
        if m:
            rules.add(m.group(1))
    assert rules, out
    return rules


# The vmxkit on PATH for the binary backend: logs each run's arguments, one a line, and a line
# that ends the run (an argument may be `--`), then runs the binary.
END_OF_RUN = "<end of run>"
RUN_LOGGER = """#!/bin/sh
printf '%%s\\n' "$@" '<end of run>' >> '%(log)s'
exec '%(binary)s' "$@"
"""


class Ansible:
    """ansible-playbook on localhost with the repository's collection, writing nothing outside
    a temporary folder: HOME, ANSIBLE_HOME and the temporary folders point into it."""

    def __init__(self, backend):
        self.backend = backend
        self.tmp = tempfile.mkdtemp(prefix="vmxkit-ansible-")
        self.home = os.path.join(self.tmp, "home")
        os.mkdir(self.home)
        self.runs = 0
        bin_dir = os.path.join(self.tmp, "bin")
        os.mkdir(bin_dir)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ANSIBLE_", "VMWARE_", "VMXKIT_ANSIBLE_", "PYTHON"))}
        env.update({
            "HOME": self.home,
            "ANSIBLE_HOME": os.path.join(self.home, ".ansible"),
            "ANSIBLE_LOCAL_TEMP": os.path.join(self.tmp, "local-tmp"),
            "ANSIBLE_REMOTE_TEMP": os.path.join(self.tmp, "remote-tmp"),
            "ANSIBLE_COLLECTIONS_PATH": COLLECTIONS,
            "ANSIBLE_COLLECTIONS_SCAN_SYS_PATH": "false",
            "ANSIBLE_CONFIG": os.path.join(self.tmp, "ansible.cfg"),
            "ANSIBLE_NOCOLOR": "1",
            "ANSIBLE_RETRY_FILES_ENABLED": "false",
            "ANSIBLE_LOCALHOST_WARNING": "false",
            "ANSIBLE_INVENTORY_UNPARSED_WARNING": "false",
            "ANSIBLE_DEPRECATION_WARNINGS": "false",
            "PYTHONDONTWRITEBYTECODE": "1",
        })
        with open(env["ANSIBLE_CONFIG"], "w", encoding="utf-8") as f:
            f.write("[defaults]\n")
        if backend == "python":
            env["PYTHONPATH"] = require(PACKAGE_PATH, "VMXKIT_PYTHONPATH")
            env["VMXKIT_ANSIBLE_BACKEND"] = "python"
        elif backend == "binary":
            # The binary on PATH as `vmxkit`, through a script that logs each run's arguments
            # (runs()); and a package that does not import, so that even `auto` (and an
            # installed package) cannot take the Python backend.
            wrapper = os.path.join(bin_dir, "vmxkit")
            with open(wrapper, "w", encoding="utf-8") as f:
                f.write(RUN_LOGGER % dict(log=self.path("vmxkit-runs"),
                                          binary=os.path.abspath(require(VMXKIT,
                                                                         "VMXKIT_BINARY"))))
            os.chmod(wrapper, 0o755)
            shadow = os.path.join(self.tmp, "no-package", "vmxkit")
            os.makedirs(shadow)
            with open(os.path.join(shadow, "__init__.py"), "w", encoding="utf-8") as f:
                f.write('raise ImportError("the test hides the vmxkit package")\n')
            env["PYTHONPATH"] = os.path.dirname(shadow)
            env["VMXKIT_ANSIBLE_BACKEND"] = "binary"
        env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "/usr/bin:/bin")
        self.env = env

    def path(self, name):
        return os.path.join(self.tmp, name)

    def binary_runs(self):
        """The arguments of each run of the binary on PATH so far (the binary backend)."""
        try:
            with open(self.path("vmxkit-runs"), encoding="utf-8") as f:
                text = f.read()
        except FileNotFoundError:
            return []
        return [run.splitlines() for run in text.split(END_OF_RUN + "\n")[:-1]]

    def warned_capture(self):
        """The example host's capture with a line of lspci's library before its devices, which
        the loader skips with a warning; in this run's folder."""
        path = self.path("warned.lspci-vvv.txt")
        with open(HOST_CAPTURE, encoding="utf-8") as f:
            text = f.read()
        with open(path, "w", encoding="utf-8") as f:
            f.write("pcilib: sysfs_read_vpd: read failed: Input/output error\n" + text)
        return path

    def run(self, playbook, extra_vars, env=None, expect_rc=0):
        """Runs a playbook with extra vars from a JSON file; returns (results, output), the
        results being what the playbook wrote to results_file."""
        self.runs += 1
        results = self.path("results-%d.json" % self.runs)
        vars_file = self.path("vars-%d.json" % self.runs)
        fd = os.open(vars_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(dict(extra_vars, results_file=results,
                           ansible_python_interpreter=sys.executable), f)
        run_env = dict(self.env)
        for k, v in (env or {}).items():
            if v is None:
                run_env.pop(k, None)
            else:
                run_env[k] = v
        start = time.monotonic()
        r = subprocess.run([PLAYBOOK, "-i", "localhost,", "-c", "local", "-v",
                            "-e", "@" + vars_file, os.path.join(PLAYBOOKS, playbook)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=run_env,
                           cwd=self.tmp, timeout=TIMEOUT, check=False)
        output = r.stdout.decode("utf-8", "replace")
        self.seconds = time.monotonic() - start
        if r.returncode != expect_rc:
            raise AssertionError("ansible-playbook %s: exit %d, expected %d:\n%s"
                                 % (playbook, r.returncode, expect_rc, output[-12000:]))
        with open(results, encoding="utf-8") as f:
            return json.load(f), output

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


def rules_of(result):
    return [(f["rule"], f["severity"], f["line"], f["column"]) for f in result["findings"]]


# --------------------------------------------------------------------------------------------
# Files: lint and generate


class FilesScenarios:
    """lint_files.yml, generate.yml and auto_backend.yml with one backend."""

    backend = ""

    @classmethod
    def setUpClass(cls):
        cls.ansible = Ansible(cls.backend)
        cls.lint, cls.lint_output = cls.ansible.run("lint_files.yml", dict(
            clean_vmx=CLEAN_VMX, broken_vmx=BROKEN_VMX, bad_json=BAD_JSON,
            missing_file=cls.ansible.path("no-such.vmx"), host_capture=HOST_CAPTURE))
        cls.dest = cls.ansible.path("plans/gpu-worker.vmx")
        cls.new_dest = cls.ansible.path("plans/never-written.vmx")
        cls.xml_dest = cls.ansible.path("plans/gpu-worker.xml")
        os.mkdir(os.path.dirname(cls.dest))
        cls.warned = cls.ansible.warned_capture()
        cls.gen, cls.gen_output = cls.ansible.run("generate.yml", dict(
            host_capture=HOST_CAPTURE, warned_capture=cls.warned, system_id=SYSTEM_ID,
            dest=cls.dest, new_dest=cls.new_dest, xml_dest=cls.xml_dest))

    @classmethod
    def tearDownClass(cls):
        cls.ansible.close()

    def test_every_task_ran_with_the_backend_asked_for(self):
        for name, result in list(self.lint.items()) + list(self.gen.items()):
            self.assertEqual(result.get("backend"), self.backend, (name, result))
            self.assertFalse(result.get("changed") and name.startswith(("clean", "broken")))

    def test_a_clean_file_has_no_findings(self):
        for name in ("clean_with_host", "clean_without_host"):
            r = self.lint[name]
            self.assertFalse(r["failed"], r)
            self.assertFalse(r["changed"])
            self.assertEqual(r["findings"], [])
            self.assertEqual(r["counts"], dict(error=0, warning=0, info=0, style=0))
            self.assertEqual(r["files"], [dict(path=CLEAN_VMX, format="vmx")])
        self.assertTrue(self.lint["clean_with_host"]["host_checked"])
        self.assertFalse(self.lint["clean_without_host"]["host_checked"])

    def test_a_broken_file_has_the_findings_the_binary_prints(self):
        _, expected = binary_lint(BROKEN_VMX)
        self.assertEqual({e[0] for e in expected}, {"MMIO004", "MMIO005", "PT008", "P2P002"})
        r = self.lint["broken_none"]
        self.assertFalse(r["failed"], r)
        self.assertEqual(rules_of(r), expected)
        self.assertEqual(r["counts"], dict(error=3, warning=1, info=0, style=0))
        for f in r["findings"]:
            self.assertEqual(f["path"], BROKEN_VMX)
            self.assertEqual(set(f), {"rule", "name", "severity", "message", "path", "line",
                                      "column", "notes", "fix"})
        mmio = [f for f in r["findings"] if f["rule"] == "MMIO004"][0]
        self.assertEqual(mmio["fix"], dict(title="Set it to 256", safety="safe"))
        self.assertIn(dict(message="KB 323402: 2 x 80 GB total framebuffer = 160 -> 256",
                           line=24, column=1), mmio["notes"])
        self.assertEqual(self.lint["broken_check"]["findings"], r["findings"])

    def test_fail_on_fails_on_findings_at_or_above_it(self):
        r = self.lint["broken_default"]
        self.assertTrue(r["failed"])
        self.assertRegex(r["msg"], r"^3 findings at or above error: ")
        for rule in ("MMIO004", "MMIO005", "PT008"):
            self.assertIn("[%s]" % rule, r["msg"])
        self.assertNotIn("P2P002", r["msg"])  # a warning
        self.assertIn("%s:6:13: error: " % BROKEN_VMX, r["msg"])
        self.assertEqual(len(r["findings"]), 4)  # all of them, failing ones or not
        r = self.lint["broken_warning"]
        self.assertTrue(r["failed"])
        self.assertRegex(r["msg"], r"^4 findings at or above warning: ")

    def test_input_vmxkit_cannot_read_fails_with_its_place(self):
        r = self.lint["unreadable"]
        self.assertTrue(r["failed"])
        self.assertEqual(r["msg"], "%s:1:55: memoryMB must be an integer, not a string" % BAD_JSON)
        self.assertEqual((r["file"], r["line"], r["column"]), (BAD_JSON, 1, 55))
        r = self.lint["missing"]
        self.assertTrue(r["failed"])
        missing = self.ansible.path("no-such.vmx")
        self.assertIn("%s: cannot open" % missing, r["msg"])
        self.assertEqual((r["file"], r["line"], r["column"]), (missing, None, None))

    def expected_plan(self, *args):
        rc, out, err = vmxkit("generate", "--host", HOST_CAPTURE, "--system-id", SYSTEM_ID, *args)
        self.assertEqual(rc, 0, err)
        return out

    def test_generate_writes_the_plan_once(self):
        first, second = self.gen["first"], self.gen["second"]
        self.assertTrue(first["changed"], first)
        self.assertFalse(second["changed"], second)
        with open(self.dest, encoding="utf-8") as f:
            written = f.read()
        self.assertEqual(written, self.expected_plan("--gpu", "auto", "--gpus", "2", "--nic",
                                                     "auto"))
        self.assertEqual(stat.S_IMODE(os.stat(self.dest).st_mode), 0o640)
        # No temporary file is left beside it.
        self.assertEqual(sorted(os.listdir(os.path.dirname(self.dest))),
                         ["gpu-worker.vmx", "gpu-worker.xml"])
        self.assertEqual(first["dest"], self.dest)
        self.assertEqual([g["address"] for g in first["gpus"]], ["0000:18:00.0", "0000:1a:00.0"])
        self.assertEqual([n["address"] for n in first["nics"]], ["0000:19:00.0", "0000:1b:00.0"])
        self.assertEqual(first["gpus"][0], dict(address="0000:18:00.0",
                                                label="0000:18:00.0 (H100 PCIe)", sriov_vf=False))
        self.assertEqual(first["memory_mb"], 65536)
        self.assertIsNone(first["vgpu"])
        # The explanation is the comment block of the .vmx, less its title.
        block = [line[2:] for line in written.splitlines()
                 if line.startswith("# ")][1:]
        self.assertEqual(first["explanation"], block)
        self.assertIn("GPU0 <-> NIC0: PIX (ok)", first["explanation"])
        self.assertEqual(second["explanation"], first["explanation"])

    def plan_json(self, *args):
        """What `vmxkit generate ... --plan-json` says of the plan."""
        out = self.ansible.path("expected.out")
        doc = self.ansible.path("expected.json")
        rc, _, err = vmxkit("generate", "--system-id", SYSTEM_ID, *args, "-o", out,
                            "--plan-json", doc)
        self.assertEqual(rc, 0, err)
        with open(doc, encoding="utf-8") as f:
            return json.load(f)

    def assert_plan(self, result, doc):
        """The module's result holds what the binary's plan document says."""
        devices = lambda key: [dict(address=d["address"], label=d["label"],
                                    sriov_vf=d["sriov_vf"]) for d in doc[key]]
        self.assertEqual(result["gpus"], devices("gpus"))
        self.assertEqual(result["nics"], devices("nics"))
        self.assertEqual(result["vgpu"], doc["vgpu"])
        self.assertEqual(result["memory_mb"], doc["memory_mb"])
        self.assertEqual(result["explanation"], doc["explanation"])
        self.assertEqual(result.get("warnings", []), doc["warnings"])

    def test_generate_returns_what_the_plan_document_says(self):
        self.assert_plan(self.gen["first"], self.plan_json(
            "--host", HOST_CAPTURE, "--gpu", "auto", "--gpus", "2", "--nic", "auto"))
        self.assert_plan(self.gen["xml"], self.plan_json(
            "--host", HOST_CAPTURE, "--gpu", "0000:18:00.0", "--gpu", "0000:1a:00.0", "--nic",
            "auto", "--format", "configspec-xml"))

    def test_generate_returns_a_vgpu_and_sriov_vfs(self):
        r = self.gen["vgpu_sriov"]
        self.assertTrue(r["changed"], r)
        self.assertEqual(r["vgpu"], "grid_h100-80c")
        self.assertEqual([g["address"] for g in r["gpus"]], ["0000:18:00.0"])
        self.assertTrue(r["nics"] and all(n["sriov_vf"] for n in r["nics"]), r["nics"])
        self.assert_plan(r, self.plan_json("--host", HOST_CAPTURE, "--gpu", "auto", "--gpus", "1",
                                           "--vgpu", "grid_h100-80c", "--sriov", "--format",
                                           "vi-json"))

    def test_generate_passes_on_the_hosts_warnings(self):
        r = self.gen["warned"]
        self.assertFalse(r.get("failed"), r)
        self.assertEqual(len(r["warnings"]), 1, r)
        self.assertTrue(r["warnings"][0].startswith(
            "%s:1: skipped a tool message, not lspci output: pcilib: " % self.warned), r)
        self.assert_plan(r, self.plan_json("--host", self.warned, "--gpu", "0000:18:00.0",
                                           "--nic", "auto"))

    def test_check_mode_writes_nothing(self):
        r = self.gen["check_new"]
        self.assertTrue(r["changed"], r)
        self.assertFalse(os.path.exists(self.new_dest))
        r = self.gen["check_change"]
        self.assertTrue(r["changed"], r)
        self.assertEqual([g["address"] for g in r["gpus"]], ["0000:18:00.0"])
        with open(self.dest, encoding="utf-8") as f:
            self.assertIn("pciPassthru3.present", f.read())  # still the two-GPU plan
        diff = r["diff"][0]
        self.assertEqual(diff["before_header"], self.dest)
        self.assertIn('pciPassthru3.present = "TRUE"', diff["before"])
        self.assertNotIn('pciPassthru3.present', diff["after"])
        self.assertEqual(diff["after"], self.expected_plan("--gpu", "auto", "--gpus", "1",
                                                           "--nic", "auto"))

    def test_generate_writes_other_formats(self):
        r = self.gen["xml"]
        self.assertTrue(r["changed"], r)
        with open(self.xml_dest, encoding="utf-8") as f:
            self.assertEqual(f.read(), self.expected_plan(
                "--gpu", "0000:18:00.0", "--gpu", "0000:1a:00.0", "--nic", "auto", "--format",
                "configspec-xml"))
        self.assertEqual(r["explanation"], self.gen["first"]["explanation"])

    def test_generate_writes_the_format_tables_outputs(self):
        r = self.gen["terraform"]
        self.assertTrue(r["changed"], r)
        self.assertFalse(os.path.exists(self.new_dest))
        self.assertEqual(r["diff"][0]["after"], self.expected_plan(
            "--gpu", "0000:18:00.0", "--gpu", "0000:1a:00.0", "--nic", "auto", "--format",
            "terraform"))
        r = self.gen["no_such_format"]
        self.assertTrue(r["failed"])
        # The choices are the format table's outputs, as `vmxkit formats` lists them.
        rc, out, err = vmxkit("formats", "--format", "json")
        self.assertEqual(rc, 0, err)
        outputs = [f["name"] for f in json.loads(out)["formats"] if f["output"]]
        self.assertIn("vmclass", outputs)
        self.assertEqual(r["msg"], "format: one of %s, not 'hcl2'" % ", ".join(outputs))
        self.assertFalse(os.path.exists(self.new_dest))

    def test_generate_fails_on_a_request_that_cannot_work(self):
        r = self.gen["no_such_gpu"]
        self.assertTrue(r["failed"])
        self.assertIn("0000:77:00.0", r["msg"])
        self.assertFalse(os.path.exists(self.new_dest))

    def test_the_generated_plan_lints_clean_against_its_host(self):
        r = self.gen["plan_lint"]
        self.assertFalse(r["failed"], r)
        self.assertEqual(r["findings"], [])
        self.assertTrue(r["host_checked"])
        _, expected = binary_lint("--host", HOST_CAPTURE, "--", self.dest)
        self.assertEqual(expected, [])

    def test_auto_takes_this_backend_when_it_is_the_one_there(self):
        # Without VMXKIT_ANSIBLE_BACKEND: the package when PYTHONPATH has it, else the binary.
        results, _ = self.ansible.run("auto_backend.yml", dict(clean_vmx=CLEAN_VMX),
                                      env={"VMXKIT_ANSIBLE_BACKEND": None})
        self.assertEqual(results["auto"]["backend"], self.backend)
        self.assertEqual(results["auto"]["findings"], [])


class PythonFilesTest(FilesScenarios, unittest.TestCase):
    backend = "python"


class BinaryFilesTest(FilesScenarios, unittest.TestCase):
    backend = "binary"

    def test_the_binary_runs_once_per_plan_and_hands_over_json(self):
        runs = [args for args in self.ansible.binary_runs() if args[:1] == ["generate"]]
        # Every generate task but the one whose format the module refuses before generating.
        tasks = [name for name in self.gen if name not in ("plan_lint", "no_such_format")]
        self.assertEqual(len(runs), len(tasks), runs)
        for args in runs:
            self.assertEqual(args.count("--plan-json"), 1, args)
            self.assertEqual(args.count("-o"), 1, args)


# --------------------------------------------------------------------------------------------
# vCenter


WRAPPER = """#!/bin/sh
# What the module hands the binary, appended for each run: its arguments, and which credentials
# are in the environment (their names only).
printf '%%s\\n' "$@" -- >> '%(log)s.args'
{
  [ -n "$VMXKIT_USERNAME" ] && echo VMXKIT_USERNAME
  [ -n "$VMXKIT_PASSWORD" ] && echo VMXKIT_PASSWORD
  echo --
} >> '%(log)s.env'
exec '%(binary)s' "$@"
"""


class VcenterScenarios:
    """vcenter.yml against the simulator's GPU VM with one backend."""

    backend = ""

    @classmethod
    def setUpClass(cls):
        cls.ansible = Ansible(cls.backend)
        cls.sim = peers.Simulator()
        try:
            cls.setUpScenario()
        except BaseException:
            cls.sim.stop()
            cls.ansible.close()
            raise

    @classmethod
    def setUpScenario(cls):
        u = urlparse(cls.sim.url)
        cls.netloc = "%s:%d" % (u.hostname, u.port)
        cls.password = u.password
        cls.moid, cls.uuid = vm_ids(cls.sim.url, GPU_VM)
        cls.plan_file = cls.ansible.path("plan.vmx")
        extra = dict(hostname=u.hostname, port=u.port, username=u.username, password=u.password,
                     vm=GPU_VM, vm_moid=cls.moid, vm_uuid=cls.uuid, esxi_host=GPU_HOST,
                     plan_file=cls.plan_file)
        if cls.backend == "binary":
            cls.log = cls.ansible.path("binary")
            wrapper = cls.ansible.path("vmxkit-wrapper")
            with open(wrapper, "w", encoding="utf-8") as f:
                f.write(WRAPPER % dict(log=cls.log, binary=os.path.abspath(VMXKIT)))
            os.chmod(wrapper, 0o755)
            extra["vmxkit_binary"] = wrapper
        # What the binary finds in the same VM, run here.
        cls.expected_doc, cls.expected = binary_lint("--server", cls.sim.url, "--insecure",
                                                     "--vm", GPU_VM)
        rc, out, err = vmxkit("lint", "--server", cls.sim.url, "--insecure", "--all-vms",
                              "--format", "json")
        assert rc in (0, 1), err
        cls.expected_all = sorted(f["path"] for f in json.loads(out)["files"])
        cls.results, cls.output = cls.ansible.run("vcenter.yml", extra)
        with open(cls.ansible.path("results-1.json"), encoding="utf-8") as f:
            cls.results_text = f.read()

    @classmethod
    def tearDownClass(cls):
        cls.sim.stop()
        cls.ansible.close()

    def expected_rules(self, result):
        """The binary's rule ids; without a host (a package with no Host.from_vsphere) less the
        rules that need one."""
        rules = {e[0] for e in self.expected}
        if self.backend == "binary":
            self.assertTrue(result["host_checked"], result)
        else:
            sys.path.insert(0, require(PACKAGE_PATH, "VMXKIT_PYTHONPATH"))
            import vmxkit
            self.assertEqual(result["host_checked"], hasattr(vmxkit.Host, "from_vsphere"))
        if not result["host_checked"]:
            rules -= host_rules()
        return rules

    def test_every_task_ran_with_the_backend_asked_for(self):
        for name, result in self.results.items():
            self.assertEqual(result.get("backend"), self.backend, (name, result))
            # Lint changes nothing; generate wrote its plan.
            self.assertEqual(result["changed"], name == "generated", name)

    def test_the_vm_by_name_moid_and_uuid_as_community_vmware_names_it(self):
        expected = self.results["vm_none"]["findings"]
        self.assertTrue(expected)
        for name in ("by_name", "by_moid", "by_uuid"):
            r = self.results[name]
            self.assertFalse(r["failed"], (name, r))
            self.assertEqual(r["findings"], expected, name)
        r = self.results["no_such_datacenter"]
        self.assertTrue(r["failed"])
        self.assertIn("nothing at inventory path '/DC9'", r["msg"])

    def test_generate_reads_the_host_from_vcenter_with_its_uuid(self):
        r = self.results["generated"]
        self.assertFalse(r["failed"], r)
        self.assertEqual([g["address"] for g in r["gpus"]], ["0000:9a:00.0"])
        self.assertEqual([n["address"] for n in r["nics"]], ["0000:9b:00.0"])
        with open(self.plan_file, encoding="utf-8") as f:
            plan = f.read()
        self.assertIn('pciPassthru0.systemId = "%s"' % GPU_HOST_UUID, plan)
        self.assertNotIn("<fill in", plan)
        self.assertFalse(any("placeholder" in w for w in r.get("warnings", [])), r)
        r = self.results["not_offered"]
        self.assertTrue(r["failed"])
        self.assertIn("--vgpu nvidia_h100xm-16c: host %s does not offer it" % GPU_HOST, r["msg"])
        self.assertFalse(os.path.exists(self.plan_file + ".vgpu"))

    def test_the_vm_has_the_findings_the_binary_finds(self):
        self.assertTrue({"P2P001", "P2P002", "MMIO002", "MMIO005", "TOPO004"} <=
                        {e[0] for e in self.expected}, self.expected)
        r = self.results["vm_none"]
        self.assertFalse(r["failed"], r)
        self.assertEqual({f["rule"] for f in r["findings"]}, self.expected_rules(r))
        self.assertEqual({f["path"] for f in r["findings"]}, {"%s/vm/%s" % (self.netloc, GPU_VM)})
        # A live VM's configuration is the server's SOAP answer.
        self.assertEqual(r["files"], [dict(path="%s/vm/%s" % (self.netloc, GPU_VM),
                                           format="soap")])
        self.assertEqual(self.results["from_environment"]["findings"], r["findings"])

    def test_errors_fail_the_task(self):
        r = self.results["vm_default"]
        self.assertTrue(r["failed"])
        self.assertIn("[MMIO005]", r["msg"])
        self.assertEqual({f["rule"] for f in r["findings"]},
                         {f["rule"] for f in self.results["vm_none"]["findings"]})

    def test_every_vm_is_linted(self):
        r = self.results["every_vm"]
        self.assertFalse(r["failed"], r)
        self.assertEqual(sorted(f["path"] for f in r["files"]), self.expected_all)
        self.assertIn("%s/vm/%s" % (self.netloc, GPU_VM), self.expected_all)

    def test_a_vm_that_is_not_there_is_an_error(self):
        r = self.results["no_such_vm"]
        self.assertTrue(r["failed"])
        self.assertIn("no VM named 'no-such-vm'", r["msg"])

    def test_a_certificate_that_does_not_verify_is_refused(self):
        r = self.results["verified"]
        self.assertTrue(r["failed"])
        self.assertIn("certificate", r["msg"])

    def test_a_wrong_password_is_refused_and_never_shown(self):
        r = self.results["wrong_password"]
        self.assertTrue(r["failed"])
        self.assertIn("InvalidLogin", r["msg"])
        self.assertNotIn(WRONG_PASSWORD, self.output)
        self.assertNotIn(WRONG_PASSWORD, self.results_text)

    def test_credentials_never_go_on_the_command_line(self):
        if self.backend != "binary":
            # The Python backend starts no program: it logs in with pyVmomi.
            self.assertNotIn(WRONG_PASSWORD, self.output)
            return
        with open(self.log + ".args", encoding="utf-8") as f:
            args = f.read().splitlines()
        with open(self.log + ".env", encoding="utf-8") as f:
            runs = f.read().split("--\n")[:-1]
        # The arguments of each run ("--" ends one; none of these runs has "--" of its own).
        commands, current = [], []
        for a in args:
            if a == "--":
                commands.append(current)
                current = []
            else:
                current.append(a)
        self.assertEqual(len(commands), len(runs))
        # One run per task of vcenter.yml, each with both credentials in its environment; and
        # generate's question for the output formats, which reaches no server.
        talked = [names for command, names in zip(commands, runs) if command[0] != "formats"]
        self.assertEqual(len(talked), len(self.results))
        for names in talked:
            self.assertEqual(names.split(), ["VMXKIT_USERNAME", "VMXKIT_PASSWORD"])
        self.assertIn("https://%s/sdk" % self.netloc, args)
        for a in args:
            self.assertNotIn(self.password, a)
            self.assertNotIn(WRONG_PASSWORD, a)
            self.assertNotIn("@", a)


class PythonVcenterTest(VcenterScenarios, unittest.TestCase):
    backend = "python"


class BinaryVcenterTest(VcenterScenarios, unittest.TestCase):
    backend = "binary"


# --------------------------------------------------------------------------------------------
# The fleet playbook of the collection's README, as it is, against two vCenters at once


FLEET = os.path.join(COLLECTION, "examples", "fleet")


class FleetScenarios:
    """examples/fleet/fleet-lint.yml with an inventory of two simulated vCenters."""

    backend = ""

    @classmethod
    def setUpClass(cls):
        cls.ansible = Ansible(cls.backend)
        cls.sims = []
        try:
            cls.sims = [peers.Simulator(), peers.Simulator("-vms", "3")]
            cls.setUpScenario()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def setUpScenario(cls):
        hosts = {}
        cls.expected = {}
        for name, sim in zip(("vc-a", "vc-b"), cls.sims):
            u = urlparse(sim.url)
            hosts[name] = dict(vcenter_hostname=u.hostname, vcenter_port=u.port,
                               vcenter_validate_certs=False)
            rc, out, err = vmxkit("lint", "--server", sim.url, "--insecure", "--all-vms",
                                  "--format", "json")
            assert rc in (0, 1), err
            doc = json.loads(out)
            cls.expected[name] = (sorted(f["path"] for f in doc["files"]),
                                  doc["summary"]["errors"])
            cls.username, cls.password = u.username, u.password
        inventory = cls.ansible.path("vcenters.json")
        # A JSON document is YAML: the inventory of the README with the simulators' addresses.
        with open(inventory, "w", encoding="utf-8") as f:
            json.dump({"vcenters": {"hosts": hosts, "vars": {
                "ansible_connection": "local", "ansible_python_interpreter": sys.executable,
                "vcenter_username": cls.username, "vcenter_password": cls.password}}}, f)
        cls.reports = cls.ansible.path("reports")
        os.mkdir(cls.reports)
        start = time.monotonic()
        r = subprocess.run([PLAYBOOK, "-i", inventory, "--forks", "2",
                            "-e", "report_dir=" + cls.reports,
                            "-e", "ansible_python_interpreter=" + sys.executable,
                            os.path.join(FLEET, "fleet-lint.yml")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=cls.ansible.env,
                           cwd=cls.ansible.tmp, timeout=TIMEOUT, check=False)
        cls.seconds = time.monotonic() - start
        cls.rc, cls.output = r.returncode, r.stdout.decode("utf-8", "replace")

    @classmethod
    def tearDownClass(cls):
        for sim in cls.sims:
            sim.stop()
        cls.ansible.close()

    def test_each_vcenter_report_holds_the_findings_of_every_vm(self):
        for name, (paths, errors) in self.expected.items():
            with open(os.path.join(self.reports, name + ".json"), encoding="utf-8") as f:
                findings = json.load(f)
            # Every VM with a finding is one `vmxkit lint --all-vms` lints on that vCenter.
            self.assertLessEqual({f["path"] for f in findings}, set(paths), name)
            self.assertIn("%s/vm/%s" % (paths[0].split("/vm/")[0], GPU_VM),
                          {f["path"] for f in findings}, name)
            self.assertEqual(sum(f["severity"] == "error" for f in findings), errors, name)

    def test_the_report_counts_vms_and_errors_per_vcenter(self):
        for name, (paths, errors) in self.expected.items():
            self.assertIn("%s: %d errors in %d VMs" % (name, errors, len(paths)), self.output)

    def test_a_vm_with_errors_fails_the_run(self):
        self.assertNotEqual(self.rc, 0, self.output[-4000:])
        self.assertIn("Fail when any vCenter has a VM with errors", self.output)
        self.assertRegex(self.output, r"(?m)^localhost\s+: ok=\d+ .*failed=1")
        self.assertNotIn(WRONG_PASSWORD, self.output)


class PythonFleetTest(FleetScenarios, unittest.TestCase):
    backend = "python"


class BinaryFleetTest(FleetScenarios, unittest.TestCase):
    backend = "binary"


# Both backends, and the collection itself


class BackendParityTest(unittest.TestCase):
    """The two backends return the same results for the same tasks, field for field."""

    @classmethod
    def setUpClass(cls):
        cls.runs = {}
        for backend in ("python", "binary"):
            ansible = Ansible(backend)
            try:
                dest = ansible.path("plans/gpu-worker.vmx")
                os.mkdir(os.path.dirname(dest))
                lint, _ = ansible.run("lint_files.yml", dict(
                    clean_vmx=CLEAN_VMX, broken_vmx=BROKEN_VMX, bad_json=BAD_JSON,
                    missing_file="/nonexistent/no-such.vmx", host_capture=HOST_CAPTURE))
                gen, _ = ansible.run("generate.yml", dict(
                    host_capture=HOST_CAPTURE, warned_capture=ansible.warned_capture(),
                    system_id=SYSTEM_ID, dest=dest,
                    new_dest=ansible.path("plans/never-written.vmx"),
                    xml_dest=ansible.path("plans/gpu-worker.xml")))
                with open(dest, "rb") as f:
                    plan = f.read()
            finally:
                ansible.close()
            cls.runs[backend] = (lint, gen, plan, ansible.tmp)

    def same(self, python, binary, python_tmp, binary_tmp):
        # Paths under each run's own temporary folder differ; everything else must not.
        drop = ("backend", "invocation", "diff")
        a = json.dumps({k: v for k, v in python.items() if k not in drop}, sort_keys=True)
        b = json.dumps({k: v for k, v in binary.items() if k not in drop}, sort_keys=True)
        self.assertEqual(a.replace(python_tmp, "TMP"), b.replace(binary_tmp, "TMP"))

    def test_lint_results_are_the_same(self):
        (py, _, _, pt), (bi, _, _, bt) = self.runs["python"], self.runs["binary"]
        for name in py:
            with self.subTest(task=name):
                self.same(py[name], bi[name], pt, bt)

    def test_generate_results_and_plans_are_the_same(self):
        (_, py, pp, pt), (_, bi, bp, bt) = self.runs["python"], self.runs["binary"]
        for name in py:
            with self.subTest(task=name):
                self.same(py[name], bi[name], pt, bt)
        self.assertEqual(pp, bp)
        a = py["check_change"]["diff"]
        b = bi["check_change"]["diff"]
        self.assertEqual(json.dumps(a).replace(pt, "TMP"), json.dumps(b).replace(bt, "TMP"))


def project_version():
    version = os.environ.get("VMXKIT_VERSION")
    if version:
        return version
    with open(os.path.join(SOURCE_DIR, "CMakeLists.txt"), encoding="utf-8") as f:
        return re.search(r"project\(vmxkit VERSION (\S+)", f.read()).group(1)


# The sanity tests of ansible-test that need no pip install: those that need one (validate-modules,
# pep8, pylint, yamllint, import, ansible-doc, runtime-metadata) download their requirements
# and cannot run offline.
OFFLINE_SANITY = (
    "action-plugin-docs", "compile", "empty-init", "future-import-boilerplate", "line-endings",
    "metaclass-boilerplate", "no-assert", "no-basestring", "no-dict-iteritems",
    "no-dict-iterkeys", "no-dict-itervalues", "no-get-exception", "no-illegal-filenames",
    "no-main-display", "no-smart-quotes", "no-unicode-literals", "replace-urlopen", "shebang",
    "symlinks", "use-argspec-type-path", "use-compat-six")


MODULES = ("vmxkit.vmxkit.lint", "vmxkit.vmxkit.generate", "vmxkit.vmxkit.apply")
# The modules that talk to vCenter, with community.vmware's connection options: the action group
# of meta/runtime.yml that module_defaults reaches them through.
VMWARE_GROUP = ["apply", "generate", "lint"]
CONNECTION_OPTIONS = ("hostname", "username", "password", "port", "validate_certs", "proxy_host",
                      "proxy_port")


class CollectionTest(unittest.TestCase):
    """galaxy.yml, the modules' documentation against their argument specs, ansible-doc,
    ansible-galaxy build and the offline subset of ansible-test sanity."""

    @classmethod
    def setUpClass(cls):
        cls.ansible = Ansible("none")
        cls.bin_dir = os.path.dirname(os.path.realpath(PLAYBOOK))

    @classmethod
    def tearDownClass(cls):
        cls.ansible.close()

    def tool(self, name, *args, cwd=None):
        r = subprocess.run([os.path.join(self.bin_dir, name), *args], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, env=self.ansible.env,
                           cwd=cwd or self.ansible.tmp, timeout=TIMEOUT, check=False)
        out = r.stdout.decode("utf-8", "replace")
        self.assertEqual(r.returncode, 0, "%s %s:\n%s" % (name, " ".join(args), out[-8000:]))
        return out

    def test_the_readme_shows_the_fleet_files_as_they_are(self):
        with open(os.path.join(COLLECTION, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        for name in ("vcenters.yml", "fleet-lint.yml"):
            with open(os.path.join(FLEET, name), encoding="utf-8") as f:
                self.assertIn("```yaml\n" + f.read() + "```", readme, name)

    def test_galaxy_metadata(self):
        import yaml
        with open(os.path.join(COLLECTION, "galaxy.yml"), encoding="utf-8") as f:
            galaxy = yaml.safe_load(f)
        self.assertEqual((galaxy["namespace"], galaxy["name"]), ("vmxkit", "vmxkit"))
        self.assertEqual(galaxy["version"], project_version())
        self.assertEqual(galaxy["license"], ["Apache-2.0"])
        self.assertEqual(galaxy["readme"], "README.md")
        self.assertTrue(os.path.exists(os.path.join(COLLECTION, "README.md")))
        with open(os.path.join(COLLECTION, "meta", "runtime.yml"), encoding="utf-8") as f:
            runtime = yaml.safe_load(f)
        self.assertEqual(runtime["requires_ansible"], ">=2.14")
        self.assertEqual(sorted(runtime["action_groups"]["vmware"]), VMWARE_GROUP)

    def test_the_vmware_group_takes_community_vmwares_connection_options(self):
        # What module_defaults gives the group must be an option of each of its modules.
        for module in VMWARE_GROUP:
            spec = self.argument_spec(module)["argument_spec"]
            for option in CONNECTION_OPTIONS:
                self.assertIn(option, spec, (module, option))
            self.assertTrue(spec["password"]["no_log"], module)

    def test_galaxy_builds_and_installs_the_collection(self):
        out_dir = self.ansible.path("build")
        self.tool("ansible-galaxy", "collection", "build", COLLECTION, "--output-path", out_dir)
        tarball = os.path.join(out_dir, "vmxkit-vmxkit-%s.tar.gz" % project_version())
        self.assertTrue(os.path.exists(tarball), os.listdir(out_dir))
        # From the tarball, and from the folder as the README says.
        for source, dest in ((tarball, "from-tarball"), (COLLECTION, "from-folder")):
            dest = self.ansible.path(dest)
            self.tool("ansible-galaxy", "collection", "install", source, "-p", dest)
            installed = os.path.join(dest, "ansible_collections", "vmxkit", "vmxkit")
            for f in ("plugins/modules/lint.py", "plugins/modules/generate.py",
                      "plugins/modules/apply.py", "plugins/module_utils/vmxkit_apply.py",
                      "plugins/module_utils/vmxkit_backend.py",
                      "plugins/doc_fragments/backend.py", "plugins/doc_fragments/vmware.py",
                      "MANIFEST.json"):
                self.assertTrue(os.path.exists(os.path.join(installed, f)), (source, f))

    def test_ansible_doc_reads_every_module(self):
        out = self.tool("ansible-doc", "--json", *MODULES)
        docs = json.loads(out)
        self.assertEqual(set(docs), set(MODULES))
        for name, doc in docs.items():
            self.assertTrue(doc["examples"].strip(), name)
            self.assertTrue(doc["return"], name)
            self.assertIn("backend", doc["doc"]["options"], name)
        listed = self.tool("ansible-doc", "--list", "vmxkit.vmxkit")
        self.assertIn("vmxkit.vmxkit.lint", listed)
        self.assertIn("vmxkit.vmxkit.generate", listed)
        self.assertIn("vmxkit.vmxkit.apply", listed)

    def argument_spec(self, module):
        """The argument spec and options a module's main() gives AnsibleModule."""
        sys.path.insert(0, COLLECTIONS)
        try:
            import importlib
            from ansible.module_utils import basic
            mod = importlib.import_module("ansible_collections.vmxkit.vmxkit.plugins.modules."
                                          + module)
            captured = {}

            class Stop(Exception):
                pass

            def fake(*args, **kwargs):
                captured.update(kwargs)
                raise Stop()

            saved = mod.AnsibleModule
            mod.AnsibleModule = fake
            try:
                mod.main()
            except Stop:
                pass
            finally:
                mod.AnsibleModule = saved
            if captured.get("add_file_common_args"):
                captured["argument_spec"].update(basic.FILE_COMMON_ARGUMENTS)
            return captured
        finally:
            sys.path.remove(COLLECTIONS)

    def test_documented_options_are_the_argument_spec(self):
        # What validate-modules checks (it needs pip downloads): names, types, defaults,
        # choices, elements, aliases, required, and check mode.
        out = self.tool("ansible-doc", "--json", *MODULES)
        docs = json.loads(out)
        for module in (m.rsplit(".", 1)[1] for m in MODULES):
            options = docs["vmxkit.vmxkit." + module]["doc"]["options"]
            captured = self.argument_spec(module)
            spec = captured["argument_spec"]
            self.assertTrue(captured["supports_check_mode"], module)
            self.assertEqual(set(options), set(spec), module)
            for name, o in spec.items():
                with self.subTest(module=module, option=name):
                    d = options[name]
                    self.assertEqual(d.get("type", "str"), o.get("type", "str"))
                    self.assertEqual(d.get("default"), o.get("default"))
                    self.assertEqual(d.get("choices"), o.get("choices"))
                    self.assertEqual(d.get("elements"), o.get("elements"))
                    self.assertEqual(sorted(d.get("aliases", [])), sorted(o.get("aliases", [])))
                    self.assertEqual(bool(d.get("required")), bool(o.get("required")))

    def test_ansible_test_sanity_offline_subset(self):
        # ansible-test wants the collection at ansible_collections/NS/NAME: a copy, so that its
        # tests/output stays out of the source tree.
        root = self.ansible.path("sanity/ansible_collections/vmxkit/vmxkit")
        shutil.copytree(COLLECTION, root, ignore=shutil.ignore_patterns("output", "__pycache__"))
        args = ["sanity", "--python", "%d.%d" % sys.version_info[:2], "--color", "no"]
        for t in OFFLINE_SANITY:
            args += ["--test", t]
        out = self.tool("ansible-test", *args, cwd=root)
        for t in OFFLINE_SANITY:
            self.assertRegex(out, r'Running sanity test "%s"' % re.escape(t))
        self.assertNotIn("No tests applicable", out.replace('"changelog"', ""))


if __name__ == "__main__":
    unittest.main(verbosity=2)
