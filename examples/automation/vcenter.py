# SPDX-License-Identifier: Apache-2.0
"""What both example scripts share: connecting to vCenter (or ESXi) with pyVmomi, finding VMs,
waiting for tasks. Plain pyVmomi; nothing here is vmxkit's."""

import ssl
import time
from typing import Iterator, List, Optional
from urllib.parse import unquote, urlparse

from pyVim.connect import Disconnect, SmartConnect
from pyVmomi import vim


def connect(server: str, insecure: bool, timeout: float):
    """A ServiceInstance for `https://user:password@host[:port]/sdk` (user and password
    percent-encoded, as govc's GOVC_URL takes them). The certificate is verified unless
    `insecure`."""
    url = urlparse(server)
    if url.scheme != "https" or not url.hostname:
        raise SystemExit("--server: expected https://user:password@host[:port]/sdk")
    context = ssl._create_unverified_context() if insecure else ssl.create_default_context()
    return SmartConnect(host=url.hostname, port=url.port or 443,
                        user=unquote(url.username or ""), pwd=unquote(url.password or ""),
                        sslContext=context, connectionPoolTimeout=int(timeout))


def disconnect(si) -> None:
    Disconnect(si)


def all_vms(si) -> Iterator["vim.VirtualMachine"]:
    content = si.RetrieveContent()
    view = content.viewManager.CreateContainerView(content.rootFolder, [vim.VirtualMachine], True)
    try:
        yield from list(view.view)
    finally:
        view.Destroy()


def find_vms(si, names: List[str]) -> List["vim.VirtualMachine"]:
    """The VMs named (all of them when `names` is empty); SystemExit for a name not found."""
    vms = list(all_vms(si))
    if not names:
        return vms
    by_name = {vm.name: vm for vm in vms}
    missing = [n for n in names if n not in by_name]
    if missing:
        raise SystemExit("no VM named %s" % ", ".join(repr(n) for n in missing))
    return [by_name[n] for n in names]


def wait(task, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while task.info.state not in (vim.TaskInfo.State.success, vim.TaskInfo.State.error):
        if time.monotonic() > deadline:
            raise TimeoutError("task %s did not finish in %ss" % (task, timeout))
        time.sleep(0.2)
    if task.info.state == vim.TaskInfo.State.error:
        raise RuntimeError("task failed: %s" % task.info.error.msg)


def host_uuid(host: Optional["vim.HostSystem"]) -> str:
    return host.hardware.systemInfo.uuid if host is not None else ""
