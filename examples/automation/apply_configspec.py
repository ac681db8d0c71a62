#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Give a VM a vmxkit plan through vCenter with pyVmomi, then read it back and lint it.

    apply_configspec.py --server https://user:password@vcenter.example/sdk --vm gpu-vm-01 \
        (--plan gpu-vm.vmx | --generate [--gpus N] [--nic auto|none] [--sriov])
        [--firmware-change] [--keep-devices] [--insecure] [--power-off]

The plan is a file (`--plan`: a .vmx that `vmxkit generate` wrote, an existing VM's .vmx, a
ConfigSpec document or a VI/JSON file) or is made here for the VM's own ESXi host
(`--generate`: `vmxkit.Host.from_vsphere(vm.runtime.host)`, then `vmxkit.generate`, which takes
the host's UUID as systemId from what it read). `plan.config_spec(vm=vm)` /
`vmxkit.config_spec(file, vm=vm)` give the change the VM needs as a `vim.vm.ConfigSpec`: the
passthrough devices and vGPUs the VM holds that the plan does not are removed (by the server's
keys), those the plan adds are added once, extraConfig keys that differ are set, and a plan made
without a memory size keeps the VM's. `ReconfigVM_Task` applies it in one task. With
--keep-devices the removals are left out (the plan's devices are added to the VM's); the
firmware is sent only with --firmware-change (an installed guest may not boot after a switch).

Then the script reads config.extraConfig, the firmware, the memory reservation lock and the
passthrough devices back, and lints the VM (against its host with --generate). It prints a
JSON summary and exits 0 when everything asked for is there (and, with --generate, lint finds
no error), 1 when not, 2 on usage or connection errors.
"""

import argparse
import json
import sys

from pyVmomi import vim

import vmxkit
import vcenter

PASSTHROUGH = (vim.vm.device.VirtualPCIPassthrough, vim.vm.device.VirtualSriovEthernetCard)


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
    have = [describe_device(d) for d in vm.config.hardware.device if isinstance(d, PASSTHROUGH)]
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


def plan_spec(args, vm):
    """(the change as a ConfigSpec, the Host it was planned for or None, the plan's
    explanation). Raises vmxkit.Error for a plan the host cannot do or that holds a
    placeholder."""
    if args.plan:
        return (vmxkit.config_spec(args.plan, vm=vm, firmware_change=args.firmware_change), None,
                [])
    host = vmxkit.Host.from_vsphere(vm.runtime.host)
    plan = vmxkit.generate(host, gpus=args.gpus, nic=None if args.nic == "none" else args.nic,
                           sriov=args.sriov)
    return (plan.config_spec(vm=vm, firmware_change=args.firmware_change), host,
            list(plan.explanation))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    vcenter.add_server_arguments(parser, "seconds per step")
    parser.add_argument("--vm", required=True, help="the VM's name")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--plan", help="the plan: a .vmx, ConfigSpec or VI/JSON file")
    which.add_argument("--generate", action="store_true",
                       help="plan for the VM's own host (vmxkit.Host.from_vsphere)")
    parser.add_argument("--gpus", type=int, default=1, help="with --generate: how many GPUs")
    parser.add_argument("--nic", default="auto", help="with --generate: auto or none")
    parser.add_argument("--sriov", action="store_true", help="with --generate: SR-IOV VFs")
    parser.add_argument("--keep-devices", action="store_true",
                        help="keep the VM's passthrough devices (add the plan's to them)")
    parser.add_argument("--firmware-change", action="store_true",
                        help="send the plan's firmware when it differs from the VM's")
    parser.add_argument("--power-off", action="store_true",
                        help="power the VM off first (passthrough devices cannot be hot-added)")
    args = parser.parse_args(argv)

    with vcenter.session(args) as si:
        vm = vcenter.find_vms(si, [args.vm])[0]
        try:
            spec, host, explanation = plan_spec(args, vm)
        except vmxkit.Error as e:  # a plan that cannot work on this host, a bad file
            print("vmxkit: %s" % e, file=sys.stderr)
            return 2
        if vm.runtime.powerState == vim.VirtualMachinePowerState.poweredOn:
            if not args.power_off:
                print("%s is powered on; use --power-off" % args.vm, file=sys.stderr)
                return 2
            vcenter.wait(vm.PowerOffVM_Task(), args.timeout)
        if args.keep_devices:
            spec.deviceChange = [c for c in spec.deviceChange if c.operation != "remove"]
        vcenter.wait(vm.ReconfigVM_Task(spec=spec), args.timeout)
        summary, problems = check(spec, vm)
        findings = vmxkit.lint(vm, host=host, fail_on="error")
        if host is not None and findings.failed:
            problems.append("lint against the VM's host finds errors")
        summary["lint"] = [str(f) for f in findings]
        summary["plan"] = explanation
        summary["problems"] = problems
        print(json.dumps(summary, indent=2, sort_keys=True))
        return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
