# SPDX-License-Identifier: Apache-2.0
"""A small program using the package, type-checked with `mypy --strict` by test_typing.py."""

from typing import List, Optional

import vmxkit


def errors(path: str, host_paths: List[str]) -> List[str]:
    host = vmxkit.Host(host_paths)
    findings: vmxkit.Findings = vmxkit.lint(path, host=host, fail_on="error")
    out = [f"{f.path}:{f.line}:{f.column}: {f.rule} {f.name}: {f.message}" for f in findings
           if f.at_least("error")]
    if findings.failed:
        out.append("failed")
    return out


def best_pairs(host: vmxkit.Host) -> List[str]:
    topo: vmxkit.Topology = host.topo()
    out: List[str] = []
    for gpu, nic in zip(topo.gpus, topo.best_nic):
        if nic is not None:
            pair: Optional[vmxkit.Pair] = topo.pair(gpu.address, nic.address)
            out.append(f"{gpu.address} {nic.address} {pair.verdict if pair else '?'}")
    return out


def plan_for(host: vmxkit.Host, system_id: str) -> str:
    plan: vmxkit.Plan = vmxkit.generate(host, gpus=2, nic="auto", system_id=system_id)
    size: int = plan.mmio.size_gb
    return plan.vmx() + f"# {size}\n"


def edit(path: str) -> bool:
    doc = vmxkit.Document(path)
    firmware: Optional[str] = doc.get("firmware")
    if firmware != "efi":
        doc["firmware"] = "efi"
    doc.set("pciPassthru.RelaxACSforP2P", True)
    data: bytes = doc.bytes()
    try:
        return doc.save() and bool(data)
    except vmxkit.Error as e:
        line: Optional[int] = e.line
        print(e.path, line, e.column)
        return False


def apply_plan(plan: vmxkit.Plan, vm_config: bytes, server: str) -> List[str]:
    change: vmxkit.Change = plan.change(vm_config)
    lines: List[str] = [str(line) for line in change.diff if line.sign in ("-", "+")]
    if change.placeholders or change.empty:
        return lines
    try:
        result: vmxkit.ApplyResult = vmxkit.apply(plan, server=server, vm="gpu-worker-01",
                                                  dry_run=True)
    except vmxkit.ApplyError as e:
        failed: List[str] = list(e.result.checks_failed)
        return lines + failed
    task: Optional[vmxkit.Task] = result.task
    return lines + [result.status, str(result.changed), task.moref if task else "-"] + [
        str(f) for f in result.findings]
