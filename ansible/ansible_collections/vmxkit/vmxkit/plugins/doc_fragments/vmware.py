# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The options of the modules that talk to vCenter or ESXi, named as the community.vmware
modules name them: the connection (DOCUMENTATION) and the VM (VM)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    DOCUMENTATION = r'''
options:
  hostname:
    description:
      - The vCenter or ESXi server.
      - The environment variable C(VMWARE_HOST) sets it when the task does not.
    type: str
  username:
    description:
      - The user name on I(hostname).
      - The environment variable C(VMWARE_USER) sets it when the task does not.
    type: str
    aliases: [admin, user]
  password:
    description:
      - The password of I(username). It never goes on a command line, into a log or into the
        results.
      - The environment variable C(VMWARE_PASSWORD) sets it when the task does not.
    type: str
    aliases: [pass, pwd]
  port:
    description:
      - The server's HTTPS port.
      - The environment variable C(VMWARE_PORT) sets it when the task does not.
    type: int
    default: 443
  validate_certs:
    description:
      - Verify the server's TLS certificate. A private CA's certificates can be given in a PEM
        file named by the environment variable C(VMXKIT_CA_FILE).
      - The environment variable C(VMWARE_VALIDATE_CERTS) sets it when the task does not.
    type: bool
    default: true
  proxy_host:
    description:
      - An HTTP proxy to reach I(hostname) through (HTTPS goes through it with C(CONNECT)).
      - The environment variable C(VMWARE_PROXY_HOST) sets it when the task does not.
    type: str
  proxy_port:
    description:
      - The port of I(proxy_host).
      - The environment variable C(VMWARE_PROXY_PORT) sets it when the task does not.
    type: int
'''

    # The VM, as community.vmware's vmware_guest modules name one.
    VM = r'''
options:
  name:
    description:
      - The VM's name. At most one of I(name), I(uuid) and I(moid) is given.
      - With I(datacenter) or I(folder), only the VMs there are searched.
    type: str
  uuid:
    description:
      - The VM's BIOS UUID (C(config.uuid)), or with I(use_instance_uuid) its vCenter instance
        UUID, found with C(SearchIndex.FindByUuid) (in I(datacenter) when given).
    type: str
  use_instance_uuid:
    description:
      - I(uuid) is the VM's instance UUID (C(config.instanceUuid)).
    type: bool
    default: false
  moid:
    description:
      - The VM's managed object id (C(vm-42)).
    type: str
  datacenter:
    description:
      - The datacenter the VM is in.
    type: str
  folder:
    description:
      - The folder the VM is in (or below). An inventory path (C(/DC0/vm/gpu)), or a folder of
        I(datacenter) (C(gpu) or C(vm/gpu)).
    type: str
'''
