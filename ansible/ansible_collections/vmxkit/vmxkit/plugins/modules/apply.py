#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: apply
short_description: Make a live VM's passthrough devices and settings what a vmxkit plan says
description:
  - Applies a plan (a file M(vmxkit.vmxkit.generate) or C(vmxkit generate) wrote, or any VM
    configuration vmxkit reads) to a VM in vCenter or on ESXi, all or nothing, as
    C(vmxkit apply) does.
  - It reads the VM and computes the change. Passthrough devices and vGPUs the plan does not
    hold are removed, those it holds and the VM does not are added (a device is never passed
    through twice); the extraConfig keys whose value differs are set (an empty value removes a
    key); memory and its reservation as the plan gives them; the firmware only with
    I(firmware_change).
  - It then checks every precondition before anything is sent. The plan holds no placeholder;
    the VM is powered off; each device added is on the VM's host with the plan's ids and the
    host's systemId, enabled and active for passthrough, and held by no other VM; each vGPU is
    one the host offers; the memory fits the host. When one fails, nothing is sent and the task
    fails, listing each.
  - Then it sends one C(ReconfigVM_Task), waits for it, reads the VM back and lints it against
    its host (I(findings)).
  - Idempotent. A VM that already holds the plan is not touched and the task is C(ok); it is
    C(changed) only when the VM was changed.
  - In check mode it computes the change and runs every check, and sends nothing. The task is
    C(changed) when the VM would change. With C(--diff), the change is shown as
    C(vmxkit apply) prints it.
version_added: "0.1.0"
author:
  - vmxkit authors
options:
  plan:
    description:
      - The plan, a file on the machine that runs the module. A C(.vmx) (as
        M(vmxkit.vmxkit.generate) writes it), a ConfigSpec XML, VI/JSON, or any other VM
        configuration vmxkit reads. It holds one VM.
    type: path
    required: true
  hostname:
    required: true
  name:
    description:
      - The VM's name. Exactly one of I(name), I(uuid) and I(moid) is given.
      - With I(datacenter) or I(folder), only the VMs there are searched. A name several VMs
        share is an error that lists their moids.
  firmware_change:
    description:
      - Send a firmware that differs from the VM's. Switching an installed guest between BIOS
        and EFI can make it unbootable, so without this the firmware is kept and the change
        says so.
    type: bool
    default: false
  task_timeout:
    description:
      - Seconds to wait for the C(ReconfigVM_Task).
    type: int
    default: 600
extends_documentation_fragment:
  - vmxkit.vmxkit.vmware
  - vmxkit.vmxkit.vmware.vm
  - vmxkit.vmxkit.backend
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Computes the change and runs every check; sends nothing.
  diff_mode:
    support: full
  platform:
    platforms: posix
notes:
  - The C(python) backend runs C(vmxkit.apply) of the Python package, which has its own vSphere
    client (no pyVmomi needed); the C(binary) backend runs
    C(vmxkit apply --server https://HOSTNAME:PORT/sdk --format json), with the user name,
    password and proxy in its environment.
  - The options that reach the server are those of the community.vmware modules. This
    collection's action group C(group/vmxkit.vmxkit.vmware) gives them to this module and to
    M(vmxkit.vmxkit.lint) through C(module_defaults); a group of another collection cannot
    reach them, so list both groups (a YAML anchor keeps one copy of the values).
  - C(docs/apply.md) in the vmxkit sources says what is checked, what cannot be, and why.
'''

EXAMPLES = r'''
- name: Plan one GPU and its nearest NIC for the VM's host
  vmxkit.vmxkit.generate:
    host: [captures/esx01.lspci-vvv.txt]
    gpus: 1
    nic: auto
    system_id: 65a1b2c3-d4e5-f607-1829-3a4b5c6d7e8f
    memory_mb: 65536
    dest: plans/gpu-worker-01.vmx

- name: Give the VM exactly the plan's devices
  vmxkit.vmxkit.apply:
    hostname: vc.example.com
    username: administrator@vsphere.local
    password: "{{ vault_vcenter_password }}"
    datacenter: DC1
    name: gpu-worker-01
    plan: plans/gpu-worker-01.vmx
    firmware_change: true
  delegate_to: localhost
  register: applied

- name: The connection once, for this collection's modules and community.vmware's
  module_defaults:
    group/vmxkit.vmxkit.vmware: &vcenter
      hostname: vc.example.com
      username: administrator@vsphere.local
      password: "{{ vault_vcenter_password }}"
    group/community.vmware.vmware: *vcenter
  delegate_to: localhost
  block:
    - name: Power the VM off
      community.vmware.vmware_guest_powerstate:
        name: gpu-worker-01
        state: powered-off

    - name: Apply the plan
      vmxkit.vmxkit.apply:
        name: gpu-worker-01
        plan: plans/gpu-worker-01.vmx
'''

RETURN = r'''
status:
  description:
    - How the apply ended. C(no-changes) (the VM holds the plan), C(dry-run) (check mode, every
      check passed), C(applied); and in failures C(checks-failed) (nothing was sent),
      C(task-failed), C(not-held) (the VM read back lacks part of the plan).
  returned: success, and failures of the apply
  type: str
  sample: applied
vm:
  description: The VM as read before the change.
  returned: success, and failures of the apply
  type: dict
  sample: {"name": "gpu-worker-01", "moref": "vm-57", "power_state": "poweredOff"}
changes:
  description:
    - The change, one entry a line as C(vmxkit apply) prints it. I(sign) is C(-) (a device or
      value that goes), C(+) (one that comes), C(~) (a value that changes) or C(=) (what the
      plan asks that is not sent, and why).
  returned: success, and failures of the apply
  type: list
  elements: dict
  sample: [{"sign": "-", "what": "passthrough 0000:18:00.0 10de:2330 systemId 4c4c4544-..."}]
placeholders:
  description: "The C(<fill in: ...>) placeholders the plan still holds (a failed check)."
  returned: success, and failures of the apply
  type: list
  elements: str
checks:
  description: Each precondition that passed, failed, or could not be checked (with why).
  returned: success, and failures of the apply
  type: dict
  sample: {"passed": ["VM 'gpu-worker-01' is powered off"], "failed": [], "not_checked": []}
task:
  description: The C(ReconfigVM_Task) sent (C(moref), C(success), C(fault), C(message)), or null.
  returned: success, and failures of the apply
  type: dict
left:
  description: With C(not-held), what the VM read back still lacks of the plan.
  returned: success, and failures of the apply
  type: list
  elements: dict
findings:
  description:
    - The VM read back after the change, linted against its host, as M(vmxkit.vmxkit.lint)
      returns findings. Empty unless the VM was changed.
  returned: success
  type: list
  elements: dict
counts:
  description: The number of I(findings) per severity.
  returned: success
  type: dict
  sample: {"error": 0, "warning": 0, "info": 0, "style": 0}
backend:
  description: The backend that did the work, C(python) or C(binary).
  returned: always
  type: str
  sample: binary
'''

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.vmxkit.vmxkit.plugins.module_utils.vmxkit_apply import (
    FAILED, VmSelector, apply_plan, diff_text, failure_message)
from ansible_collections.vmxkit.vmxkit.plugins.module_utils.vmxkit_backend import (
    VmxkitError, at_least, backend_argument_spec, counts, open_backend, server_from_params,
    vm_argument_spec, vmware_argument_spec)


def main():
    argument_spec = dict(
        plan=dict(type="path", required=True),
        firmware_change=dict(type="bool", default=False),
        task_timeout=dict(type="int", default=600),
    )
    argument_spec.update(vmware_argument_spec(hostname_required=True))
    argument_spec.update(vm_argument_spec())
    argument_spec.update(backend_argument_spec())
    module = AnsibleModule(
        argument_spec=argument_spec,
        mutually_exclusive=[("name", "uuid", "moid")],
        required_one_of=[("name", "uuid", "moid")],
        required_together=[("proxy_host", "proxy_port")],
        supports_check_mode=True,
    )
    p = module.params
    if p["task_timeout"] < 1:
        module.fail_json(msg="task_timeout: at least 1")
    server = server_from_params(p)
    which = VmSelector(p["name"], p["uuid"], p["use_instance_uuid"], p["moid"], p["datacenter"],
                       p["folder"])

    backend = open_backend(module)
    try:
        result = apply_plan(backend, server, which, p["plan"], module.check_mode,
                            p["firmware_change"], p["task_timeout"])
    except VmxkitError as e:
        module.fail_json(changed=False, backend=backend.name, **e.result())

    out = dict(result, backend=backend.name, counts=counts(result["findings"]))
    # In check mode, whether the VM would change.
    out["changed"] = result["changed"] or result["status"] == "dry-run"
    if module._diff and (out["changed"] or result["status"] in FAILED):
        out["diff"] = dict(prepared=diff_text(result, p["plan"]))
    if result["status"] in FAILED:
        module.fail_json(msg=failure_message(result), **out)
    serious = [f for f in result["findings"] if at_least(f["severity"], "warning")]
    if serious:
        module.warn("VM '%s' holds the plan; lint against its host finds %d problem(s) at warning "
                    "or above (findings)" % (result["vm"]["name"], len(serious)))
    module.exit_json(**out)


if __name__ == "__main__":
    main()
