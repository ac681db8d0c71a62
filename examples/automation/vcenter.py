# SPDX-License-Identifier: Apache-2.0
"""What both example scripts share: connecting to vCenter (or ESXi) with pyVmomi, finding VMs,
waiting for tasks. Plain pyVmomi; nothing here is vmxkit's."""

import contextlib
import ssl
import sys
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


def add_server_arguments(parser, timeout_help: str) -> None:
    """--server, --insecure and --timeout, as both scripts take them."""
    parser.add_argument("--server", required=True,
                        help="vCenter or ESXi URL, https://user:password@host[:port]/sdk")
    parser.add_argument("--insecure", action="store_true", help="do not verify the certificate")
    parser.add_argument("--timeout", type=float, default=60, help=timeout_help)


@contextlib.contextmanager
def session(args) -> Iterator["vim.ServiceInstance"]:
    """A logged-in ServiceInstance for the scripts' --server, --insecure and --timeout, logged
    out at the end. A connection that fails exits 2 with the reason, never the URL (it holds
    the password)."""
    try:
        si = connect(args.server, args.insecure, args.timeout)
    except Exception as e:  # pyVmomi raises many kinds
        print("cannot connect: %s" % e, file=sys.stderr)
        raise SystemExit(2)
    try:
        yield si
    finally:
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
