#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Apply a vmxkit plan to a VM through vCenter with pyVmomi, then read it back and check it.

    apply_configspec.py --server https://user:pass@vcenter.example/sdk --vm gpu-vm-01 \
        --plan gpu-vm.vmx [--vmxkit vmxkit] [--insecure] [--power-off]

vmxkit renders the plan (a .vmx, ConfigSpec or VI/JSON file) as a vim25 ConfigSpec document;
pyVmomi deserializes it into vim.vm.ConfigSpec and sends ReconfigVM_Task. The script then reads
config.extraConfig, config.firmware, config.memoryReservationLockedToMax and the passthrough
devices back, prints a JSON summary and exits 0 when everything asked for is there, 1 when not,
2 on usage or connection errors.
"""

import argparse
import json
import ssl
import subprocess
import sys
import time
from urllib.parse import urlparse

from pyVim.connect import Disconnect, SmartConnect
from pyVmomi import SoapAdapter, vim


def render_spec(vmxkit, plan, timeout):
    """Asks vmxkit for the ConfigSpec XML of the plan and deserializes it."""
    result = subprocess.run([vmxkit, "convert", plan, "--to", "configspec-xml"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                            check=False)
    if result.returncode != 0:
        raise SystemExit("vmxkit failed: " + result.stderr.decode(errors="replace").strip())
    return SoapAdapter.Deserialize(result.stdout, vim.vm.ConfigSpec)


def wait(task, timeout):
    deadline = time.monotonic() + timeout
    while task.info.state not in (vim.TaskInfo.State.success, vim.TaskInfo.State.error):
        if time.monotonic() > deadline:
            raise TimeoutError("task %s did not finish in %ss" % (task, timeout))
        time.sleep(0.2)
    if task.info.state == vim.TaskInfo.State.error:
        raise RuntimeError("task failed: %s" % task.info.error.msg)


def find_vm(content, name):
    view = content.viewManager.CreateContainerView(content.rootFolder, [vim.VirtualMachine], True)
    try:
        for vm in view.view:
            if vm.name == name:
                return vm
    finally:
        view.Destroy()
    return None


def describe_device(device):
    """What identifies a passthrough device: its backing's host address, vGPU profile or PF."""
    backing = device.backing
    if isinstance(device, vim.vm.device.VirtualSriovEthernetCard):
        pf = device.sriovBacking.physicalFunctionBacking if device.sriovBacking else None
        return {"type": "sriov", "pf": pf.id if pf else None}
    if isinstance(backing, vim.vm.device.VirtualPCIPassthrough.DeviceBackingInfo):
        return {"type": "directpath", "id": backing.id, "deviceId": backing.deviceId,
                "vendorId": backing.vendorId, "systemId": backing.systemId}
    if isinstance(backing, vim.vm.device.VirtualPCIPassthrough.VmiopBackingInfo):
        return {"type": "vgpu", "vgpu": backing.vgpu}
    return {"type": type(backing).__name__ if backing else "none"}


def passthrough_devices(devices):
    return [describe_device(d) for d in devices
            if isinstance(d, (vim.vm.device.VirtualPCIPassthrough,
                              vim.vm.device.VirtualSriovEthernetCard))]


def check(spec, vm):
    """Returns (summary, problems): what the VM has now and what of the spec is missing."""
    problems = []
    extra = {o.key: o.value for o in vm.config.extraConfig}
    for option in spec.extraConfig:
        if option.value and extra.get(option.key) != option.value:
            problems.append("extraConfig %s is %r, not %r"
                            % (option.key, extra.get(option.key), option.value))
    if spec.firmware and vm.config.firmware != spec.firmware:
        problems.append("firmware is %s, not %s" % (vm.config.firmware, spec.firmware))
    if (spec.memoryReservationLockedToMax is not None and
            vm.config.memoryReservationLockedToMax != spec.memoryReservationLockedToMax):
        problems.append("memoryReservationLockedToMax is %s" % vm.config.memoryReservationLockedToMax)
    have = passthrough_devices(vm.config.hardware.device)
    for change in spec.deviceChange:
        if change.operation != "add":
            continue
        want = describe_device(change.device)
        if not any(all(h.get(k) == v for k, v in want.items()) for h in have):
            problems.append("passthrough device %s is missing" % json.dumps(want, sort_keys=True))
    summary = {
        "vm": vm._moId,
        "firmware": vm.config.firmware,
        "memoryReservationLockedToMax": vm.config.memoryReservationLockedToMax,
        "extraConfig": {o.key: extra.get(o.key) for o in spec.extraConfig},
        "passthrough": have,
    }
    return summary, problems


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True,
                        help="vCenter URL, https://user:password@host[:port]/sdk")
    parser.add_argument("--vm", required=True, help="the VM's name")
    parser.add_argument("--plan", required=True, help="the plan: a .vmx, ConfigSpec or VI/JSON file")
    parser.add_argument("--vmxkit", default="vmxkit", help="the vmxkit binary")
    parser.add_argument("--insecure", action="store_true", help="do not verify the certificate")
    parser.add_argument("--power-off", action="store_true",
                        help="power the VM off first (passthrough devices cannot be hot-added)")
    parser.add_argument("--timeout", type=float, default=60, help="seconds per step")
    args = parser.parse_args(argv)

    spec = render_spec(args.vmxkit, args.plan, args.timeout)
    url = urlparse(args.server)
    context = ssl._create_unverified_context() if args.insecure else ssl.create_default_context()
    try:
        si = SmartConnect(host=url.hostname, port=url.port or 443, user=url.username or "",
                          pwd=url.password or "", sslContext=context,
                          connectionPoolTimeout=int(args.timeout))
    except Exception as e:  # pyVmomi raises many kinds
        print("cannot connect to %s: %s" % (url.hostname, e), file=sys.stderr)
        return 2
    try:
        vm = find_vm(si.RetrieveContent(), args.vm)
        if vm is None:
            print("no VM named %r" % args.vm, file=sys.stderr)
            return 2
        if vm.runtime.powerState == vim.VirtualMachinePowerState.poweredOn:
            if not args.power_off:
                print("%s is powered on; use --power-off" % args.vm, file=sys.stderr)
                return 2
            wait(vm.PowerOffVM_Task(), args.timeout)
        wait(vm.ReconfigVM_Task(spec=spec), args.timeout)
        summary, problems = check(spec, vm)
        summary["problems"] = problems
        print(json.dumps(summary, indent=2, sort_keys=True))
        return 1 if problems else 0
    finally:
        Disconnect(si)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
