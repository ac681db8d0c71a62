#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The documents vSphere clients hand back, made against govmomi's vCenter simulator.

To regenerate the committed documents (after building the integration tests, which build the
simulator and clientdocs; run with /usr/bin/python3, whose python3-pyvmomi 6.7.1 it needs):

    VMXKIT_VCSIM=build/dev/tests/integration/vcsim \\
    VMXKIT_CLIENTDOCS=build/dev/tests/integration/clientdocs \\
        /usr/bin/python3 tests/integration/make_client_documents.py --out tests/data/vsphere/clients

It starts the simulator on 127.0.0.1 (and stops it), renames two of its VMs and reconfigures them
with pyVmomi's ReconfigVM_Task:
  - gpu-rdma-worker: an H100 and a ConnectX-7 by DirectPath I/O, pciPassthru.allowP2P but no
    RelaxACSforP2P, 64-bit MMIO of 128 GB (the H100 needs 256), BIOS firmware, memory not
    reserved;
  - vgpu-worker: an NVIDIA vGPU (grid_a100-40c), EFI, all memory reserved, no 64-bit MMIO;
then writes what the clients get back for them:
  pyvmomi-configinfo.xml           SoapAdapter.Serialize(vm.config, version=the session's)
                                   of gpu-rdma-worker
  NEGATIVE-pyvmomi-configinfo-default-version.xml   the same without version=, which pyVmomi
                                   writes at vSphere 2.0's types: the devices have no xsi:type
  pyvmomi-configspec.xml           SoapAdapter.Serialize of the ConfigSpec sent to it
  pyvmomi-reconfigvm-request.xml   the ReconfigVM_Task request pyVmomi sends for it
  retrievepropertiesex-2vms.xml    the simulator's RetrievePropertiesEx response (name, config)
  retrieveproperties-2vms.xml      the same through RetrieveProperties
  fetch-config.xml                 the simulator's Fetch response for gpu-rdma-worker's config
  NEGATIVE-retrievepropertiesex-hosts.xml   a RetrievePropertiesEx response for HostSystems only
  hostsystem-retrievepropertiesex.xml   the simulator's RetrievePropertiesEx response for the GPU
                                   host DC0_H0's devices (the properties `--esx-host` reads), a
                                   host input (`vmxkit topo FILE`)
  pyvmomi-hostsystem-objectcontent.xml  what vmxkit.Host.from_vsphere reads of DC0_H0: that
                                   answer's ObjectContent, serialized by pyVmomi
  govc-vm-info.json                govc 0.24's `vm.info -json gpu-rdma-worker vgpu-worker`
  govc-object-collect-config.json  govc 0.24's `object.collect -json vm/gpu-rdma-worker config`
  govc-object-collect-type-m.json  govc 0.24's `object.collect -json -type m / config name`
(the requests are serialized by pyVmomi and posted with urllib, so the responses are the bytes
the simulator sends; the govc documents come from tests/integration/clientdocs, which calls
govmomi 0.24.2 as govc 0.24 does).

With --check DIR, it also checks that each fresh document loads in vmxkit (VMXKIT_BINARY) with
the same VMs and findings as the one of the same name in DIR (a host document: the same
`vmxkit topo --format json`).

Environment: VMXKIT_VCSIM, VMXKIT_CLIENTDOCS, VMXKIT_BINARY (for --check).
"""

import argparse
import json
import os
import re
import ssl
import subprocess
import sys
import urllib.request
from urllib.parse import urlparse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402

from pyVim.connect import Disconnect, SmartConnect  # noqa: E402
from pyVmomi import SoapAdapter, VmomiSupport, vim, vmodl  # noqa: E402

SYSTEM_ID = "5fe9d4dc-68b1-4c3a-9d1e-0123456789ab"
GPU_VM = "gpu-rdma-worker"
VGPU_VM = "vgpu-worker"
# What vmxkit.Host.from_vsphere and the CLI's --esx-host read of a HostSystem.
HOST_PROPERTIES = ("name", "hardware.pciDevice", "config.pciPassthruInfo", "hardware.numaInfo",
                   "hardware.systemInfo.uuid")


def wait(task, timeout=30):
    import time
    deadline = time.monotonic() + timeout
    while task.info.state not in (vim.TaskInfo.State.success, vim.TaskInfo.State.error):
        if time.monotonic() > deadline:
            raise TimeoutError("task %s did not finish in %ss" % (task, timeout))
        time.sleep(0.1)
    if task.info.state == vim.TaskInfo.State.error:
        raise RuntimeError("task failed: %s" % task.info.error.msg)


def directpath(key, bdf, device_id, vendor_id):
    backing = vim.vm.device.VirtualPCIPassthrough.DeviceBackingInfo(
        deviceName="", id=bdf, deviceId=device_id, systemId=SYSTEM_ID, vendorId=vendor_id)
    return vim.vm.device.VirtualDeviceSpec(
        operation="add", device=vim.vm.device.VirtualPCIPassthrough(key=key, backing=backing))


def option(key, value):
    return vim.option.OptionValue(key=key, value=value)


def gpu_spec():
    return vim.vm.ConfigSpec(
        name=GPU_VM, numCPUs=16, memoryMB=65536,
        deviceChange=[directpath(-100, "0000:3b:00.0", "2330", 0x10de),
                      directpath(-101, "0000:3c:00.0", "1021", 0x15b3)],
        extraConfig=[option("pciPassthru.allowP2P", "TRUE"),
                     option("pciPassthru.use64bitMMIO", "TRUE"),
                     option("pciPassthru.64bitMMIOSizeGB", "128")],
        firmware="bios")


def vgpu_spec():
    backing = vim.vm.device.VirtualPCIPassthrough.VmiopBackingInfo(vgpu="grid_a100-40c")
    change = vim.vm.device.VirtualDeviceSpec(
        operation="add", device=vim.vm.device.VirtualPCIPassthrough(key=-100, backing=backing))
    return vim.vm.ConfigSpec(name=VGPU_VM, numCPUs=8, memoryMB=32768, deviceChange=[change],
                             firmware="efi", memoryReservationLockedToMax=True)


def all_of(content, kind):
    view = content.viewManager.CreateContainerView(content.rootFolder, [kind], True)
    try:
        return sorted(view.view, key=lambda o: o._moId)
    finally:
        view.Destroy()


def post(sim, stub, body, action="urn:vim25/6.7"):
    """Posts a SOAP request with the pyVmomi session and returns the response body (bytes)."""
    url = urlparse(sim.url)
    endpoint = "https://%s:%d%s" % (url.hostname, url.port, url.path)
    request = urllib.request.Request(endpoint, data=body, method="POST", headers={
        "Content-Type": 'text/xml; charset="utf-8"', "SOAPAction": action,
        "Cookie": stub.cookie})
    handler = urllib.request.HTTPSHandler(context=ssl._create_unverified_context())
    opener = urllib.request.build_opener(handler, urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=30) as r:
            return r.read()
    except urllib.error.HTTPError as e:
        raise RuntimeError("%s: %s" % (e, e.read().decode(errors="replace")))


def filter_spec(kind, objs, paths):
    return vmodl.query.PropertyCollector.FilterSpec(
        propSet=[vmodl.query.PropertyCollector.PropertySpec(type=kind, pathSet=paths)],
        objectSet=[vmodl.query.PropertyCollector.ObjectSpec(obj=o) for o in objs])


def request(stub, mo, type_name, method, args):
    info = VmomiSupport.GetVmodlType(type_name)._GetMethodInfo(method)
    return stub.SerializeRequest(mo, info, args)


def write(out, name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data if data.endswith(b"\n") else data + b"\n")


def make(out):
    sim = peers.Simulator()
    try:
        url = urlparse(sim.url)
        si = SmartConnect(host=url.hostname, port=url.port, user=url.username, pwd=url.password,
                          sslContext=ssl._create_unverified_context())
        try:
            content = si.RetrieveContent()
            # Two VMs that have no passthrough device yet, so that each document holds exactly
            # what this script gave them, whatever else the simulator's inventory has.
            vms = [vm for vm in all_of(content, vim.VirtualMachine)
                   if not any(isinstance(d, (vim.vm.device.VirtualPCIPassthrough,
                                             vim.vm.device.VirtualSriovEthernetCard))
                              for d in vm.config.hardware.device)]
            if len(vms) < 2:
                raise RuntimeError("the simulator has fewer than two VMs without passthrough")
            gpu, vgpu = vms[0], vms[1]
            for vm in (gpu, vgpu):
                if vm.runtime.powerState == vim.VirtualMachinePowerState.poweredOn:
                    wait(vm.PowerOffVM_Task())
            stub = si._stub
            spec = gpu_spec()
            # At the session's API version: without version=, Serialize writes an object at
            # its type's own version (vSphere 2.0 for ConfigSpec and ConfigInfo), where every
            # newer type (VirtualPCIPassthrough, its backings) is its 2.0 base type, untyped.
            write(out, "pyvmomi-configspec.xml", SoapAdapter.Serialize(spec, version=stub.version))
            write(out, "pyvmomi-reconfigvm-request.xml",
                  request(stub, gpu, "vim.VirtualMachine", "Reconfigure", [spec]))
            wait(gpu.ReconfigVM_Task(spec=spec))
            wait(vgpu.ReconfigVM_Task(spec=vgpu_spec()))
            write(out, "pyvmomi-configinfo.xml",
                  SoapAdapter.Serialize(gpu.config, version=stub.version))
            write(out, "NEGATIVE-pyvmomi-configinfo-default-version.xml",
                  SoapAdapter.Serialize(gpu.config))

            pc = content.propertyCollector
            pair = [filter_spec(vim.VirtualMachine, [gpu, vgpu], ["name", "config"])]
            write(out, "retrievepropertiesex-2vms.xml", post(sim, stub, request(
                stub, pc, "vmodl.query.PropertyCollector", "RetrievePropertiesEx",
                [pair, vmodl.query.PropertyCollector.RetrieveOptions()])))
            write(out, "retrieveproperties-2vms.xml", post(sim, stub, request(
                stub, pc, "vmodl.query.PropertyCollector", "RetrieveContents", [pair])))
            hosts = [filter_spec(vim.HostSystem, all_of(content, vim.HostSystem), ["name"])]
            write(out, "NEGATIVE-retrievepropertiesex-hosts.xml", post(sim, stub, request(
                stub, pc, "vmodl.query.PropertyCollector", "RetrievePropertiesEx",
                [hosts, vmodl.query.PropertyCollector.RetrieveOptions()])))
            # The GPU host's devices, as `vmxkit --esx-host` and vmxkit.Host.from_vsphere ask.
            gpu_host = [h for h in all_of(content, vim.HostSystem) if h.name == "DC0_H0"]
            if len(gpu_host) != 1:
                raise RuntimeError("the simulator has no GPU host DC0_H0")
            host_props = [filter_spec(vim.HostSystem, gpu_host, list(HOST_PROPERTIES))]
            write(out, "hostsystem-retrievepropertiesex.xml", post(sim, stub, request(
                stub, pc, "vmodl.query.PropertyCollector", "RetrievePropertiesEx",
                [host_props, vmodl.query.PropertyCollector.RetrieveOptions()])))
            answer = pc.RetrievePropertiesEx(host_props,
                                             vmodl.query.PropertyCollector.RetrieveOptions())
            write(out, "pyvmomi-hostsystem-objectcontent.xml", SoapAdapter.Serialize(
                answer.objects[0], version=VmomiSupport.newestVersions.Get("vim")))
            fetch = ('<?xml version="1.0" encoding="UTF-8"?>\n<soapenv:Envelope xmlns:soapenv='
                     '"http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><Fetch xmlns='
                     '"urn:vim25"><_this type="VirtualMachine">%s</_this><prop>config</prop>'
                     '</Fetch></soapenv:Body></soapenv:Envelope>' % gpu._moId)
            write(out, "fetch-config.xml", post(sim, stub, fetch.encode()))
        finally:
            Disconnect(si)

        clientdocs = os.environ.get("VMXKIT_CLIENTDOCS", "clientdocs")
        r = subprocess.run([clientdocs, "-url", sim.url, "-insecure",
                            "-vm-info", os.path.join(out, "govc-vm-info.json"),
                            "-collect", os.path.join(out, "govc-object-collect-config.json"),
                            "-collect-type", os.path.join(out, "govc-object-collect-type-m.json"),
                            GPU_VM, VGPU_VM],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120,
                           check=False)
        if r.returncode != 0:
            raise RuntimeError("clientdocs failed: " + r.stderr.decode(errors="replace"))
    finally:
        sim.stop()


def topology(path):
    """What vmxkit makes of a host document: `vmxkit topo --format json`."""
    r = subprocess.run([peers.VMXKIT, "topo", "--format", "json", path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=peers.TIMEOUT, check=False)
    if r.returncode != 0:
        return {"error": r.stderr.decode(errors="replace")}
    topo = json.loads(r.stdout)
    # The inputs are named by path, which differs between the two folders.
    return json.loads(json.dumps(topo).replace(os.path.dirname(path), "DIR"))


def findings(path):
    """What vmxkit makes of a document: its findings without positions, for this script's VMs
    (in a document of several VMs, each message starts with the VM's name)."""
    r = subprocess.run([peers.VMXKIT, "lint", "--format", "json", path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=peers.TIMEOUT, check=False)
    if r.returncode not in (0, 1):
        first = r.stderr.decode(errors="replace").splitlines()[:1]
        return {"error": re.sub(r"^.*?:\d+:\d+: ", "", first[0] if first else "")}
    report = json.loads(r.stdout)
    diags = []
    for f in report.get("files", []):
        for d in f.get("diagnostics", []):
            diags.append((d.get("rule"), d.get("message")))
    ours = tuple(name + ": " for name in (GPU_VM, VGPU_VM))
    if any(m.startswith(ours) for _, m in diags):
        diags = [(r, m) for r, m in diags if m.startswith(ours)]
    return {"findings": sorted(diags)}


def check(out, reference):
    problems = []
    names = sorted(n for n in os.listdir(reference) if not n.startswith("."))
    for name in names:
        fresh = os.path.join(out, name)
        if not os.path.exists(fresh):
            problems.append("%s: not made" % name)
            continue
        load = topology if "hostsystem" in name else findings
        want, got = load(os.path.join(reference, name)), load(fresh)
        if want != got:
            problems.append("%s: committed %s, fresh %s" % (name, want, got))
    for p in problems:
        print(p, file=sys.stderr)
    print("checked %d documents, %d differ" % (len(names), len(problems)))
    return 1 if problems or not names else 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="folder for the documents")
    parser.add_argument("--check", help="folder of committed documents to compare with")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    make(args.out)
    return check(args.out, args.check) if args.check else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
