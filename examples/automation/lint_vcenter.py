#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Lint every VM of a vCenter (or the VMs named) against the PCIe topology of the host it runs on.

    lint_vcenter.py --server https://user:password@vcenter.example/sdk [--insecure]
                    [--vm NAME]... [--fail-on error|warning|info|style] [--json] [--threads N]

pyVmomi reads each VM's configuration and, once per ESXi host, the host's PCI devices
(`vmxkit.Host.from_vsphere`); `vmxkit.lint(vm, host=host)` checks each VM. The VMs are linted
in parallel threads (vmxkit releases the GIL while it works). Prints one line per finding
(`VM: file:line:col: severity: message [RULE]`, the position in pyVmomi's serialization of the
VM's config), or with --json one object per VM. Exits 1 when a finding reaches --fail-on, 2 on
usage or connection errors.
"""

import argparse
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict

import vmxkit
import vcenter


def lint_all(si, names, fail_on, threads):
    """(vm name, host name, findings or an error message) per VM, in inventory order."""
    vms = vcenter.find_vms(si, names)
    hosts = {}  # one Host per ESXi host, read once however many VMs it runs
    jobs = []
    for vm in vms:
        if vm.config is None:  # an inaccessible VM: say so, do not skip it silently
            jobs.append((vm.name, None, "the VM's configuration cannot be read"))
            continue
        esx = vm.runtime.host
        if esx is not None and esx._moId not in hosts:
            try:
                hosts[esx._moId] = vmxkit.Host.from_vsphere(esx)
            except vmxkit.Error as e:
                hosts[esx._moId] = e
        host = hosts.get(esx._moId) if esx is not None else None
        if isinstance(host, vmxkit.Error):  # lint without the topology rather than not at all
            print("%s: %s: linted without its host's topology" % (vm.name, host), file=sys.stderr)
            host = None
        jobs.append((vm.name, esx.name if esx is not None else None, (vm, host)))

    def work(job):
        name, esx_name, what = job
        if isinstance(what, str):
            return name, esx_name, what
        vm, host = what
        try:
            return name, esx_name, vmxkit.lint(vm, host=host, fail_on=fail_on)
        except vmxkit.Error as e:
            return name, esx_name, str(e)

    with ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(work, jobs))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    vcenter.add_server_arguments(parser, "seconds per request")
    parser.add_argument("--vm", action="append", default=[], help="lint only this VM (repeat)")
    parser.add_argument("--fail-on", default="warning",
                        choices=["error", "warning", "info", "style"])
    parser.add_argument("--json", action="store_true", help="one JSON object per VM")
    parser.add_argument("--threads", type=int, default=4)
    args = parser.parse_args(argv)
    with vcenter.session(args) as si:
        results = lint_all(si, args.vm, args.fail_on, args.threads)
    failed = False
    for name, esx, result in results:
        if isinstance(result, str):
            failed = True
            if args.json:
                print(json.dumps({"vm": name, "host": esx, "error": result}))
            else:
                print("%s: error: %s" % (name, result))
            continue
        failed = failed or result.failed
        if args.json:
            print(json.dumps({"vm": name, "host": esx, "failed": result.failed,
                              "findings": [asdict(f) for f in result]}))
        else:
            for f in result:
                print("%s: %s" % (name, f))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
