#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: lint
short_description: Check a VM's configuration for GPU/NIC passthrough and P2P mistakes
description:
  - Runs vmxkit's rule catalogue (C(vmxkit rules)) over a VM configuration and returns the
    findings, as C(vmxkit lint) does.
  - The configuration is a file (I(path)) in any format vmxkit reads, or the live configuration
    of VMs in vCenter or on ESXi (I(hostname) with I(name), I(uuid), I(moid) or I(all_vms), as
    the community.vmware modules name a VM).
  - With I(host), the TOPO rules check the VM's devices against that host's PCIe tree. A live VM
    is checked against the ESXi host it runs on.
  - The module changes nothing. It fails when a finding reaches I(fail_on).
version_added: "0.1.0"
author:
  - vmxkit authors
options:
  path:
    description:
      - The file to lint. A C(.vmx), ConfigSpec or ConfigInfo XML, a SOAP request, VI/JSON, OVF,
        a C(RetrievePropertiesEx) answer, or C(govc vm.info -json) output. Its format is told
        from its content.
      - Exactly one of I(path), I(name), I(uuid), I(moid) or I(all_vms) is given.
    type: path
  host:
    description:
      - Captures of the host the VM runs on, merged. Each is C(lspci -vvv) (with or without
        C(-nn)/C(-D)), C(lspci -tv), C(esxcli hardware pci list),
        C(esxcli hardware pci pcipassthru list), C(numactl --hardware),
        C(esxcli hardware memory get), a sysfs directory, or C(live).
      - Only with I(path). A live VM is linted against the host it runs on.
    type: list
    elements: str
  name:
    description:
      - The VM on I(hostname) to lint, by name (or moref, C(vm-42)). Every VM of that name (in
        I(datacenter) or under I(folder) when given) is linted.
      - I(vm) is the name this option had before; it is kept as an alias.
    aliases: [vm]
  all_vms:
    description:
      - Lint every VM on I(hostname) (in I(datacenter) or under I(folder) when given).
    type: bool
    default: false
  fail_on:
    description:
      - The module fails when a finding is of this severity or a more severe one
        (C(error) > C(warning) > C(info) > C(style)). C(none) never fails on findings.
    type: str
    choices: [error, warning, info, style, none]
    default: error
extends_documentation_fragment:
  - vmxkit.vmxkit.vmware
  - vmxkit.vmxkit.vmware.vm
  - vmxkit.vmxkit.backend
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: The module never changes anything; check mode runs it as it is.
  diff_mode:
    support: none
  platform:
    platforms: posix
notes:
  - For I(hostname), the C(python) backend connects with pyVmomi and reads each VM's host with
    C(vmxkit.Host.from_vsphere) where the package has it (else the VM is linted without its
    host, with a warning); the C(binary) backend runs
    C(vmxkit lint --server https://HOSTNAME:PORT/sdk --vm NAME) (C(--uuid), C(--folder)), with
    the credentials in the environment.
  - C(vmxkit rules) lists the rules and C(vmxkit rule ID) documents one (docs/rules.md in the
    vmxkit sources).
'''

EXAMPLES = r'''
- name: Lint a .vmx against the host's PCIe tree
  vmxkit.vmxkit.lint:
    path: /vmfs/volumes/datastore1/gpu-worker-01/gpu-worker-01.vmx
    host:
      - captures/esx01.lspci-vvv.txt
    fail_on: warning

- name: Lint a VM's live configuration in vCenter
  vmxkit.vmxkit.lint:
    hostname: vc.example.com
    username: administrator@vsphere.local
    password: "{{ vcenter_password }}"
    datacenter: DC1
    name: gpu-worker-01
  delegate_to: localhost

- name: Lint every VM, never failing, and keep the findings
  vmxkit.vmxkit.lint:
    hostname: vc.example.com
    username: administrator@vsphere.local
    password: "{{ vcenter_password }}"
    all_vms: true
    fail_on: none
  register: lint
  delegate_to: localhost

- name: Show the errors
  ansible.builtin.debug:
    msg: "{{ lint.findings | selectattr('severity', 'equalto', 'error') | map(attribute='message') }}"
'''

RETURN = r'''
findings:
  description:
    - Every finding, sorted by file, then position, then rule id (as C(vmxkit.Finding)).
    - For a live VM, I(path) is C(HOSTNAME:PORT/vm/NAME).
  returned: success, and failures on findings
  type: list
  elements: dict
  contains:
    rule:
      description: The rule's id.
      type: str
      sample: MMIO005
    name:
      description: The rule's kebab-case name.
      type: str
      sample: firmware-not-efi
    severity:
      description: C(error), C(warning), C(info) or C(style).
      type: str
      sample: error
    message:
      description: What is wrong.
      type: str
      sample: "firmware is 'bios': passthrough GPUs with large BARs need an EFI guest"
    path:
      description: The file (or live VM) the finding is in.
      type: str
      sample: gpu-worker-01.vmx
    line:
      description: 1-based line.
      type: int
      sample: 6
    column:
      description: 1-based column, in bytes.
      type: int
      sample: 13
    notes:
      description: Related places (the first of two duplicate keys, the MMIO arithmetic).
      type: list
      elements: dict
      contains:
        message:
          description: The note.
          type: str
        line:
          description: 1-based line.
          type: int
        column:
          description: 1-based column, in bytes.
          type: int
    fix:
      description: The fix C(vmxkit fix) offers, or null.
      type: dict
      contains:
        title:
          description: What the fix does.
          type: str
        safety:
          description: C(safe) (applied by C(vmxkit fix)), C(unsafe) (with C(--unsafe-fixes)) or
            C(display-only) (advice).
          type: str
counts:
  description: The number of findings per severity.
  returned: success, and failures on findings
  type: dict
  sample: {"error": 3, "warning": 1, "info": 0, "style": 0}
files:
  description: Each document linted, with the format vmxkit read it as (C(vmx) or C(configspec)).
  returned: success, and failures on findings
  type: list
  elements: dict
  sample: [{"path": "gpu-worker-01.vmx", "format": "vmx"}]
host_checked:
  description: Whether every document was linted against its host's PCIe tree (the TOPO rules ran).
  returned: success, and failures on findings
  type: bool
  sample: true
backend:
  description: The backend that did the work, C(python) or C(binary).
  returned: always
  type: str
  sample: python
file:
  description: When vmxkit cannot read an input, the file it is about.
  returned: failure
  type: str
  sample: gpu-worker-01.vmx
line:
  description: When vmxkit cannot read an input, the line it stopped at (or null).
  returned: failure
  type: int
  sample: 12
column:
  description: When vmxkit cannot read an input, the column it stopped at (or null).
  returned: failure
  type: int
  sample: 5
'''

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.vmxkit.vmxkit.plugins.module_utils.vmxkit_apply import VmSelector
from ansible_collections.vmxkit.vmxkit.plugins.module_utils.vmxkit_backend import (
    VmxkitError, at_least, backend_argument_spec, counts, open_backend, server_from_params,
    vm_argument_spec, vmware_argument_spec)

FAIL_ON = ["error", "warning", "info", "style", "none"]
# Findings named in a failure's message; the full list is in `findings`.
MAX_IN_MESSAGE = 10


def summary(findings, fail_on):
    """'3 findings at or above error: file:6:13: error: ... [MMIO005]; ...'"""
    failing = [f for f in findings if at_least(f["severity"], fail_on)]
    shown = ["%s:%d:%d: %s: %s [%s]" % (f["path"], f["line"], f["column"], f["severity"],
                                        f["message"], f["rule"]) for f in failing[:MAX_IN_MESSAGE]]
    more = len(failing) - len(shown)
    return "%d finding%s at or above %s: %s%s" % (
        len(failing), "" if len(failing) == 1 else "s", fail_on, "; ".join(shown),
        "; and %d more" % more if more > 0 else "")


def main():
    argument_spec = dict(
        path=dict(type="path"),
        host=dict(type="list", elements="str"),
        all_vms=dict(type="bool", default=False),
        fail_on=dict(type="str", default="error", choices=FAIL_ON),
    )
    argument_spec.update(vmware_argument_spec())
    argument_spec.update(vm_argument_spec(name_aliases=["vm"]))
    argument_spec.update(backend_argument_spec())
    module = AnsibleModule(
        argument_spec=argument_spec,
        mutually_exclusive=[("path", "name", "uuid", "moid", "all_vms"),
                            ("host", "name", "uuid", "moid", "all_vms")],
        required_together=[("proxy_host", "proxy_port")],
        supports_check_mode=True,
    )
    p = module.params
    live = bool(p["name"] or p["uuid"] or p["moid"]) or p["all_vms"]
    if not live and not p["path"]:
        module.fail_json(msg="give one of: path, name, uuid, moid, all_vms")
    if live and not p["hostname"]:
        module.fail_json(msg="name, uuid, moid and all_vms need hostname (or VMWARE_HOST)")
    which = VmSelector(p["name"], p["uuid"], p["use_instance_uuid"], p["moid"], p["datacenter"],
                       p["folder"])

    backend = open_backend(module, vcenter=live)
    try:
        if live:
            result = backend.lint_vcenter(server_from_params(p), which, p["all_vms"])
        else:
            result = backend.lint_file(p["path"], p["host"] or [])
    except VmxkitError as e:
        module.fail_json(changed=False, backend=backend.name, **e.result())

    for w in result.warnings:
        module.warn(w)
    out = dict(changed=False, backend=backend.name, findings=result.findings,
               counts=counts(result.findings), files=result.files,
               host_checked=result.host_checked)
    if any(at_least(f["severity"], p["fail_on"]) for f in result.findings):
        module.fail_json(msg=summary(result.findings, p["fail_on"]), **out)
    module.exit_json(**out)


if __name__ == "__main__":
    main()
