# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The options every module of vmxkit.vmxkit has: which vmxkit does the work."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    DOCUMENTATION = r'''
options:
  backend:
    description:
      - Which vmxkit does the work.
      - C(auto) uses the vmxkit Python package when C(import vmxkit) works for the module's
        interpreter (for I(hostname)/I(vm), pyVmomi too), else the C(vmxkit) binary.
      - C(python) requires the package, C(binary) requires the binary. Both give the same
        results.
      - The environment variable C(VMXKIT_ANSIBLE_BACKEND) sets it when the task does not.
    type: str
    choices: [auto, python, binary]
    default: auto
  vmxkit_binary:
    description:
      - The C(vmxkit) binary the C(binary) backend runs. Without it, C(vmxkit) is looked up on
        C(PATH).
      - The backend reads the binary's JSON documents (C(vmxkit lint --format json),
        C(vmxkit generate --plan-json)), so the binary must be as new as the collection.
    type: path
requirements:
  - the vmxkit Python package (C(import vmxkit)) or the C(vmxkit) binary
'''
