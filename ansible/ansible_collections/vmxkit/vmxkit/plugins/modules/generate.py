#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: generate
short_description: Write a VM's GPU/NIC passthrough settings for GPUDirect RDMA and GPU P2P
description:
  - Plans a VM's passthrough devices from a host's PCIe tree, as C(vmxkit generate) does. It
    picks GPUs and the NICs that share a PCIe switch with them, sizes
    C(pciPassthru.64bitMMIOSizeGB) from the BARs, and writes every prerequisite (EFI firmware,
    reserved memory, C(pciPassthru.allowP2P), C(pciPassthru.RelaxACSforP2P)).
  - The plan is written to I(dest) in I(format), atomically (a temporary file in the same folder,
    then a rename), and only when its content differs from the file's.
  - The host is read from captures (I(host)), or live from vCenter or ESXi (I(hostname) with
    I(esxi_hostname), as C(vmxkit generate --server URL --esx-host NAME) reads it), with its
    PCI devices, passthrough and SR-IOV state, NUMA nodes, vGPU types and system UUID, which
    becomes every device's C(systemId).
  - A plan made against a host is one that M(vmxkit.vmxkit.lint) accepts against the same host.
    From captures, give I(system_id), or the plan holds a placeholder (the module warns, and
    M(vmxkit.vmxkit.apply) refuses it).
version_added: "0.1.0"
author:
  - vmxkit authors
options:
  host:
    description:
      - Captures of the host, merged. Each is C(lspci -vvv) (with or without C(-nn)/C(-D)),
        C(lspci -tv), C(esxcli hardware pci list), C(esxcli hardware pci pcipassthru list),
        C(numactl --hardware), C(esxcli hardware memory get), a saved C(RetrievePropertiesEx)
        answer of a HostSystem, a sysfs directory, or C(live).
      - Exactly one of I(host) and I(esxi_hostname) is given.
    type: list
    elements: str
  esxi_hostname:
    description:
      - The ESXi host to plan for, by its name in I(hostname)'s inventory (as community.vmware
        names a host), read live.
    type: str
  gpus:
    description:
      - Which GPUs the VM gets. C(auto) is every GPU of the host; a number N is the N
        best-connected GPUs; a list names host addresses (C(0000:3b:00.0)).
    type: raw
    default: auto
  nic:
    description:
      - The NICs. C(auto) is the closest NIC for each GPU (distinct where possible); a list
        names host addresses (quoted). C(none), or leaving it out, gives no NIC, except with
        I(sriov), where it means C(auto).
    type: list
    elements: str
  vgpu:
    description:
      - A vGPU profile (C(grid_a100-40c)) for the GPUs instead of full passthrough. A host read
        from vCenter refuses a profile it does not offer (C(config.sharedPassthruGpuTypes)).
    type: str
  sriov:
    description:
      - Pass SR-IOV virtual functions of the NICs instead of the whole NICs.
    type: bool
    default: false
  network:
    description:
      - The port group of SR-IOV VF entries. vmxkit's default is C(VM Network).
    type: str
  system_id:
    description:
      - The host's system UUID (C(esxcli system uuid get)) for the devices' C(systemId).
        With I(esxi_hostname) the host's own UUID is taken. Without either, the plan holds a
        placeholder that M(vmxkit.vmxkit.lint) reports (PT009).
    type: str
  memory_mb:
    description:
      - Guest memory in MB, all of it reserved. vmxkit's default is 65536.
    type: int
  allow_degraded:
    description:
      - Accept GPU/NIC pairs that meet only at the CPU (PHB/NODE).
    type: bool
    default: false
  format:
    description:
      - What I(dest) holds. C(vmx) is the settings as C(.vmx) lines under a comment block saying
        what was chosen and why; C(configspec-xml) a vim25 C(VirtualMachineConfigSpec);
        C(vi-json) its vSphere VI/JSON form; C(govc) a shell script of govc commands;
        C(powercli) a PowerShell script; C(terraform) the arguments of Terraform's
        C(vsphere_virtual_machine) (a C(vsphere_virtual_machine_class) for vGPUs) as HCL;
        C(vmclass) a VM Operator C(VirtualMachineClass) YAML.
      - Any output of vmxkit's format table is accepted (C(vmxkit formats)); the module asks the
        backend which there are.
    type: str
    default: vmx
  dest:
    description:
      - The file to write. Its folder must exist.
    type: path
    required: true
  force:
    description:
      - Write I(dest) even while a VM holds its lock (C(DEST.lck) exists), as
        C(vmxkit generate --force) does.
    type: bool
    default: false
extends_documentation_fragment:
  - vmxkit.vmxkit.vmware
  - vmxkit.vmxkit.backend
  - ansible.builtin.files
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Reports whether I(dest) would change, and writes nothing.
  diff_mode:
    support: full
  platform:
    platforms: posix
'''

EXAMPLES = r'''
- name: Two GPUs and their nearest NICs, as a .vmx
  vmxkit.vmxkit.generate:
    host:
      - captures/esx01.lspci-vvv.txt
    gpus: 2
    nic: auto
    system_id: 65a1b2c3-d4e5-f607-1829-3a4b5c6d7e8f
    dest: plans/gpu-worker-01.vmx
    mode: "0644"
  register: plan

- name: Say what was chosen
  ansible.builtin.debug:
    var: plan.explanation

- name: One GPU and its nearest NIC, for a host read from vCenter (its UUID the systemId)
  vmxkit.vmxkit.generate:
    hostname: vc.example.com
    username: administrator@vsphere.local
    password: "{{ vault_vcenter_password }}"
    esxi_hostname: esx01.example.com
    gpus: 1
    nic: auto
    dest: plans/gpu-worker-01.vmx
  delegate_to: localhost

- name: These two GPUs with SR-IOV VFs, as a ConfigSpec for pyVmomi or the vSphere API
  vmxkit.vmxkit.generate:
    host:
      - captures/esx01.esxcli-pci.txt
      - captures/esx01.esxcli-memory.txt
    gpus: ["0000:18:00.0", "0000:1a:00.0"]
    sriov: true
    network: rdma-portgroup
    format: configspec-xml
    dest: plans/gpu-worker-01.xml
'''

RETURN = r'''
dest:
  description: The file written (or that would be, in check mode).
  returned: success
  type: str
  sample: plans/gpu-worker-01.vmx
gpus:
  description: The GPUs the VM gets, in entry order.
  returned: success
  type: list
  elements: dict
  contains:
    address:
      description: The host's PCI address.
      type: str
      sample: "0000:18:00.0"
    label:
      description: The address and the model.
      type: str
      sample: "0000:18:00.0 (H100 PCIe)"
    sriov_vf:
      description: Whether the entry is an SR-IOV VF of the device (then I(address) is the PF's).
      type: bool
      sample: false
nics:
  description: The NICs the VM gets, with the same keys as I(gpus).
  returned: success
  type: list
  elements: dict
  sample: [{"address": "0000:19:00.0", "label": "0000:19:00.0 (ConnectX-7)", "sriov_vf": false}]
vgpu:
  description: The vGPU profile, or null.
  returned: success
  type: str
  sample: null
memory_mb:
  description: The guest memory, all reserved.
  returned: success
  type: int
  sample: 65536
explanation:
  description: What was chosen and why, one line each (the comment block of a generated .vmx).
  returned: success
  type: list
  elements: str
  sample: ["GPU0: 0000:18:00.0 (H100 PCIe)", "NIC0: 0000:19:00.0 (ConnectX-7)", "GPU0 <-> NIC0: PIX (ok)"]
backend:
  description: The backend that did the work, C(python) or C(binary).
  returned: always
  type: str
  sample: python
file:
  description: When vmxkit cannot read an input, the file it is about.
  returned: failure
  type: str
line:
  description: When vmxkit cannot read an input, the line it stopped at (or null).
  returned: failure
  type: int
column:
  description: When vmxkit cannot read an input, the column it stopped at (or null).
  returned: failure
  type: int
'''

import os
import re
import tempfile

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_native, to_text

from ansible_collections.vmxkit.vmxkit.plugins.module_utils.vmxkit_backend import (
    VmxkitError, backend_argument_spec, open_backend, server_from_params, vmware_argument_spec)

# Text diffs of larger files are left out, as ansible.builtin.copy does past max_file_size.
MAX_DIFF_BYTES = 1024 * 1024


def gpus_option(module, value):
    """'auto', a count, or a list of addresses (a YAML scalar address is one)."""
    if isinstance(value, bool):
        module.fail_json(msg="gpus: give auto, a number or addresses, not %r" % value)
    if isinstance(value, float) or (isinstance(value, list) and
                                    any(not isinstance(v, str) for v in value)):
        # YAML 1.1 reads an unquoted 0000:18:00.0 as a base-60 number.
        module.fail_json(msg="gpus: quote PCI addresses (\"0000:18:00.0\"); got %r" % (value,))
    if isinstance(value, int):
        count = value
    elif isinstance(value, str) and re.match(r"^\s*\d+\s*$", value):
        count = int(value)  # a templated number arrives as text
    elif isinstance(value, str):
        return "auto" if value.strip() == "auto" else [value.strip()]
    elif isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
        return list(value)
    else:
        module.fail_json(msg="gpus: give auto, a number or a list of addresses, not %r" % (value,))
    if count < 1:
        module.fail_json(msg="gpus: at least 1")
    return count


def nic_option(module, value):
    """None (no NIC), 'auto', or a list of addresses."""
    if not value:
        return None
    if len(value) == 1 and value[0] in ("auto", "none"):
        return None if value[0] == "none" else "auto"
    if "auto" in value or "none" in value:
        module.fail_json(msg="nic: auto and none stand alone, not in a list of addresses")
    return list(value)


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None


def write_atomically(module, dest, content):
    """A temporary file beside dest, flushed, then renamed over it (module.atomic_move keeps an
    existing file's mode and owner, or gives a new one the default mode)."""
    fd, tmp = tempfile.mkstemp(prefix=".%s." % os.path.basename(dest), suffix=".tmp",
                               dir=os.path.dirname(dest) or ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(content)
            f.flush()
            os.fsync(f.fileno())
        module.atomic_move(tmp, dest, unsafe_writes=module.params["unsafe_writes"])
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def main():
    argument_spec = dict(
        host=dict(type="list", elements="str"),
        esxi_hostname=dict(type="str"),
        gpus=dict(type="raw", default="auto"),
        nic=dict(type="list", elements="str"),
        vgpu=dict(type="str"),
        sriov=dict(type="bool", default=False),
        network=dict(type="str"),
        system_id=dict(type="str"),
        memory_mb=dict(type="int"),
        allow_degraded=dict(type="bool", default=False),
        format=dict(type="str", default="vmx"),
        dest=dict(type="path", required=True),
        force=dict(type="bool", default=False),
    )
    argument_spec.update(vmware_argument_spec())
    argument_spec.update(backend_argument_spec())
    module = AnsibleModule(argument_spec=argument_spec, add_file_common_args=True,
                           mutually_exclusive=[("host", "esxi_hostname")],
                           required_one_of=[("host", "esxi_hostname")],
                           required_by=dict(esxi_hostname="hostname"),
                           required_together=[("proxy_host", "proxy_port")],
                           supports_check_mode=True)
    p = module.params
    dest = p["dest"]
    if p["memory_mb"] is not None and p["memory_mb"] < 1:
        module.fail_json(msg="memory_mb: at least 1")
    folder = os.path.dirname(os.path.abspath(dest))
    if not os.path.isdir(folder):
        module.fail_json(msg="dest: the folder %s does not exist" % folder, dest=dest)
    if os.path.isdir(dest):
        module.fail_json(msg="dest: %s is a folder; give the file to write" % dest, dest=dest)

    live = bool(p["esxi_hostname"])
    request = dict(host=p["host"] or [], esxi_hostname=p["esxi_hostname"],
                   server=server_from_params(p) if live else None,
                   gpus=gpus_option(module, p["gpus"]),
                   nic=nic_option(module, p["nic"]), vgpu=p["vgpu"], sriov=p["sriov"],
                   network=p["network"], system_id=p["system_id"], memory_mb=p["memory_mb"],
                   allow_degraded=p["allow_degraded"], format=p["format"])
    backend = open_backend(module, vcenter=live)
    try:
        # The choices are vmxkit's own: its format table's outputs.
        formats = backend.output_formats()
        if p["format"] not in formats:
            module.fail_json(msg="format: one of %s, not %r" % (", ".join(formats), p["format"]),
                             dest=dest, backend=backend.name)
        plan = backend.generate(request)
    except VmxkitError as e:
        module.fail_json(changed=False, backend=backend.name, dest=dest, **e.result())
    for w in plan.warnings:
        module.warn(w)
    placeholders = plan.content.count(b"<fill in:")
    if placeholders:
        # Such a plan cannot be applied (vmxkit.vmxkit.apply refuses it): say so now.
        module.warn("the plan holds %d '<fill in: ...>' placeholder(s) (the host's system UUID): "
                    "give system_id, or read the host from vCenter (hostname, esxi_hostname)"
                    % placeholders)

    before = read(dest)
    changed = before != plan.content
    if changed and os.path.exists(dest + ".lck") and not p["force"]:
        # What vmxkit's own writes refuse: the VM is running (or its lock was left behind).
        module.fail_json(msg="%s: the VM holds its lock (%s.lck exists); power it off, or give "
                             "force: true" % (dest, dest), dest=dest, backend=backend.name)
    if changed and not module.check_mode:
        try:
            write_atomically(module, dest, plan.content)
        except (IOError, OSError) as e:
            module.fail_json(msg="%s: cannot write: %s" % (dest, to_native(e)), dest=dest,
                             backend=backend.name)

    diffs = []
    if changed and module._diff:
        content_diff = dict(before_header=dest, after_header=dest)
        if len(before or b"") > MAX_DIFF_BYTES or len(plan.content) > MAX_DIFF_BYTES:
            content_diff["before"] = content_diff["after"] = ""
            content_diff["after_header"] = "%s (over %d bytes: no diff)" % (dest, MAX_DIFF_BYTES)
        else:
            content_diff["before"] = to_text(before or b"", errors="surrogate_or_replace")
            content_diff["after"] = to_text(plan.content, errors="surrogate_or_replace")
        diffs.append(content_diff)

    # mode, owner, group, SELinux context: on the file written, or on the file that stays.
    # In check mode a file that does not exist yet has none to compare (and is a change).
    if os.path.exists(dest):
        attr_diff = dict(before=dict(path=dest), after=dict(path=dest))
        file_args = module.load_file_common_arguments(p, path=dest)
        changed = module.set_fs_attributes_if_different(file_args, changed, diff=attr_diff)
        if attr_diff["before"] != attr_diff["after"]:
            diffs.append(attr_diff)

    result = dict(changed=changed, backend=backend.name, dest=dest, gpus=plan.gpus,
                  nics=plan.nics, vgpu=plan.vgpu, memory_mb=plan.memory_mb,
                  explanation=plan.explanation)
    if diffs:
        result["diff"] = diffs
    module.exit_json(**result)


if __name__ == "__main__":
    main()
