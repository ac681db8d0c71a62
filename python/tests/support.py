# SPDX-License-Identifier: Apache-2.0
"""Paths shared by the Python package's tests (run from python/tests/ with PYTHONPATH at the
build tree's python/ folder, as ctest does)."""

import os

SOURCE_DIR = os.environ.get(
    "VMXKIT_SOURCE_DIR",
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
EXAMPLES = os.path.join(SOURCE_DIR, "examples")
HOST_2S = os.path.join(EXAMPLES, "hosts", "synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt")
HOST_ESXI = [os.path.join(EXAMPLES, "hosts", "synthetic-esxi-1s-2sw-4gpu-2nic.esxcli-pci.txt"),
             os.path.join(EXAMPLES, "hosts", "synthetic-esxi-1s-2sw-4gpu-2nic.esxcli-memory.txt")]
WORKER_VMX = os.path.join(EXAMPLES, "vmx", "gpu-rdma-worker.vmx")
SPLIT_VMX = os.path.join(EXAMPLES, "vmx", "split-across-sockets.vmx")
PLANS_DIR = os.path.join(SOURCE_DIR, "tests", "data", "vsphere", "plans")
CLIENTS_DIR = os.path.join(SOURCE_DIR, "tests", "data", "vsphere", "clients")
SYSTEM_ID = "65a1b2c3-d4e5-f607-1829-3a4b5c6d7e8f"


def read(path):
    with open(path, "rb") as f:
        return f.read()


def vmx_files():
    """Every .vmx of the examples, the plans and the rule fixtures."""
    found = []
    for root in (EXAMPLES, PLANS_DIR, os.path.join(SOURCE_DIR, "tests", "checks")):
        for dirpath, _, files in os.walk(root):
            found.extend(os.path.join(dirpath, f) for f in files if f.endswith(".vmx"))
    return sorted(found)


def have_pyvmomi():
    try:
        import pyVmomi  # noqa: F401
        return True
    except ImportError:
        return False
