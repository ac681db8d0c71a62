# SPDX-License-Identifier: Apache-2.0
"""vmxkit: lint, generate and edit VMware VM configurations for GPU/NIC passthrough with P2P.

The library the ``vmxkit`` command line is made of, inside a Python program (a vCenter automation
script with pyVmomi, an Ansible module)::

    import vmxkit
    host = vmxkit.Host(["host.lspci-vvv.txt"])
    for f in vmxkit.lint("vm.vmx", host=host):
        print(f)                                   # vm.vmx:6:13: error: ... [MMIO005]
    plan = vmxkit.generate(host, gpus=2, nic="auto", system_id="65a1b2c3-...")
    spec = plan.config_spec(vm=vm)                 # the delta: old devices removed, new added
    vm.ReconfigVM_Task(spec=spec)
    findings = vmxkit.lint(vm.config, host=host)   # a pyVmomi ConfigInfo
    result = vmxkit.apply(plan, server="https://vc/sdk", vm="gpu-worker-01")  # `vmxkit apply`

Sources (``lint``, ``convert``, ``config_spec``, ``Document``, ``generate(base=...)``) are:
  - ``bytes`` (or ``bytearray``/``memoryview``): the document's content, in any format lint
    reads (.vmx, ConfigSpec/ConfigInfo XML, SOAP, VI/JSON, OVF, govc JSON), told apart by content;
  - an ``os.PathLike``: a file;
  - a ``str``: document text when it holds a line break or starts (after blanks) with ``<`` or
    ``{``, else a file path. The rule looks at the string only, never at the file system, so a
    mistyped path is an error and never linted as text; pass ``bytes`` for content;
  - a pyVmomi data object (``vim.vm.ConfigSpec``, ``vim.vm.ConfigInfo``, any vim25 object
    vmxkit reads), serialized by pyVmomi's own ``SoapAdapter.Serialize`` at the newest API
    version that pyVmomi knows; a ``vim.VirtualMachine`` stands for its ``config``, serialized
    at its session's version;
  - a ``vmxkit.Document``: its current bytes.

Problems in a file are ``Finding`` values; a condition that stops the work raises
``vmxkit.Error`` with the ``path``, ``line`` and ``column`` it is about. The GIL is released
while the library works, so threads lint, analyse and plan in parallel; ``Host`` and ``Plan``
never change once made and may be shared by threads. A ``Document`` is for one thread at a time.
"""

from __future__ import annotations

import builtins
import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Literal, Optional, Sequence, Tuple, Union

from . import _vmxkit
from ._error import Error

if TYPE_CHECKING:
    from pyVmomi import vim  # type: ignore[import]

__version__: str = _vmxkit.__version__

__all__ = [
    "Document",
    "Error",
    "Finding",
    "Findings",
    "Fix",
    "Host",
    "HostDevice",
    "Mmio",
    "MmioBar",
    "Note",
    "Pair",
    "PairReason",
    "Plan",
    "PlannedDevice",
    "PlannedPair",
    "Check",
    "Topology",
    "ApplyError",
    "ApplyResult",
    "Change",
    "ChangeLine",
    "Task",
    "apply",
    "config_spec",
    "convert",
    "formats",
    "generate",
    "lint",
    "mmio",
    "output_formats",
    "rules",
]

Severity = Literal["error", "warning", "info", "style"]
StrPath = Union[str, "os.PathLike[str]"]
#: What lint(), convert(), config_spec() and Document() read (see the module's documentation).
Source = Union[StrPath, bytes, bytearray, memoryview, "Document", Any]
#: Host captures: a path (file, sysfs directory or ``live``), several, or a loaded Host.
HostArg = Union["Host", StrPath, Sequence[StrPath]]

_SEVERITIES: Tuple[str, ...] = ("error", "warning", "info", "style")


def formats() -> List[Dict[str, Any]]:
    """vmxkit's format table: every form it reads or writes, one dict each with ``name``,
    ``subject`` (``vm``, ``host`` or ``guest``), ``summary``, ``input``, ``output`` and
    ``carries`` (what a VM format can hold: ``host_address``, ``dynamic_directpath``, ``vgpu``,
    ``sriov``, ``device_groups``, ``dvx``)."""
    return [dict(f) for f in _vmxkit.format_table()]


def output_formats() -> List[str]:
    """The names of the formats ``Plan.render`` and ``convert`` write, from the format table."""
    return [f["name"] for f in _vmxkit.format_table() if f["output"]]


# --------------------------------------------------------------------------------------------
# Sources


def _is_text(s: str) -> bool:
    return "\n" in s or "\r" in s or s.lstrip()[:1] in ("<", "{")


def _pyvmomi_xml(obj: Any) -> Optional[Tuple[str, bytes]]:
    """(name, XML) of a pyVmomi object, or None when obj is not one (pyVmomi is imported only
    when the caller already has: a pyVmomi object cannot exist without it)."""
    if "pyVmomi" not in sys.modules:
        return None
    from pyVmomi import SoapAdapter, VmomiSupport, vim

    # At the session's API version when the object came from one, else the newest this pyVmomi
    # knows: without version=, Serialize writes vSphere 2.0's types, which lack the xsi:type of
    # every device added since (VirtualPCIPassthrough among them).
    version = None
    if isinstance(obj, vim.VirtualMachine):
        version = getattr(getattr(obj, "_stub", None), "version", None)
        config = obj.config
        if config is None:
            raise Error("%s: the VM has no configuration (is it accessible?)" % obj._moId)
        obj = config
    if not isinstance(obj, VmomiSupport.DataObject):
        return None
    if version is None:
        version = VmomiSupport.newestVersions.Get("vim")
    xml = SoapAdapter.Serialize(obj, version=version)
    if isinstance(xml, str):
        xml = xml.encode("utf-8")
    return "<pyVmomi %s>" % getattr(obj, "_wsdlName", type(obj).__name__), xml


def _source(source: Source) -> Tuple[bytes, Optional[bytes]]:
    """(name, content) for the C++ half: content None reads the file `name`."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return b"<bytes>", bytes(source)
    if isinstance(source, Document):
        return os.fsencode(source.path or "<Document>"), source.bytes()
    if isinstance(source, str):
        if _is_text(source):
            return b"<string>", source.encode("utf-8", "surrogateescape")
        return os.fsencode(source), None
    if isinstance(source, os.PathLike):
        return os.fsencode(source), None
    xml = _pyvmomi_xml(source)
    if xml is not None:
        return xml[0].encode("utf-8"), xml[1]
    raise TypeError("vmxkit: cannot read a %s: give a path, bytes, document text, a "
                    "vmxkit.Document or a pyVmomi object" % type(source).__name__)


def _paths(paths: Union[StrPath, Sequence[StrPath]]) -> List[str]:
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    if isinstance(paths, (bytes, bytearray)):
        raise TypeError("vmxkit.Host: give capture paths; for a capture's text use "
                        "Host.from_text()")
    out = [os.fspath(p) for p in paths]
    if not out:
        raise ValueError("vmxkit.Host: give at least one capture (a file, a sysfs directory "
                         "or 'live')")
    return out


def _host(host: Optional[HostArg]) -> Optional["Host"]:
    if host is None or isinstance(host, Host):
        return host
    return Host(host)


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


# --------------------------------------------------------------------------------------------
# Lint


@dataclass(frozen=True)
class Note:
    """A secondary place that explains a finding (the first of two duplicate keys)."""

    message: str
    line: int
    column: int


@dataclass(frozen=True)
class Fix:
    """The fix a finding offers: ``safe`` ones are applied by ``vmxkit fix``, ``unsafe`` ones
    with ``--unsafe-fixes``, ``display-only`` ones are advice."""

    title: str
    safety: Literal["safe", "unsafe", "display-only"]


@dataclass(frozen=True)
class Finding:
    """A problem the rule catalogue found in a file. ``line`` and ``column`` are 1-based (the
    column counts bytes); ``str()`` is the command line's ``file:line:col: severity: message
    [RULE]`` form."""

    rule: str
    name: str
    severity: Severity
    message: str
    path: str
    line: int
    column: int
    notes: Tuple[Note, ...] = ()
    fix: Optional[Fix] = None

    def __str__(self) -> str:
        return "%s:%d:%d: %s: %s [%s]" % (self.path, self.line, self.column, self.severity,
                                          self.message, self.rule)

    def at_least(self, severity: Severity) -> bool:
        """Whether the finding is at ``severity`` or more severe (error > warning > info >
        style)."""
        return _SEVERITIES.index(self.severity) <= _SEVERITIES.index(_check_severity(severity))


class Findings(List[Finding]):
    """What lint() returns: the findings (a list, sorted by position then rule id), with
    ``failed`` telling whether any is at or above ``fail_on``, as the command line's exit code
    1 does."""

    def __init__(self, findings: Sequence[Finding], *, path: str, format: str,
                 fail_on: Severity) -> None:
        super().__init__(findings)
        self.path = path
        self.format = format
        self.fail_on: Severity = fail_on

    @property
    def failed(self) -> bool:
        return any(f.at_least(self.fail_on) for f in self)

    def __repr__(self) -> str:
        return "Findings(%s, path=%r, format=%r, fail_on=%r)" % (list.__repr__(self), self.path,
                                                                 self.format, self.fail_on)


def _check_severity(severity: str) -> Severity:
    if severity not in _SEVERITIES:
        raise ValueError("fail_on: expected one of %s, got %r" % (", ".join(_SEVERITIES),
                                                                  severity))
    return severity  # type: ignore[return-value]


def _finding(t: Tuple[Any, ...]) -> Finding:
    rule, name, severity, message, path, line, column, notes, fix = t
    return Finding(rule, name, severity, message, path, line, column,
                   tuple(Note(*n) for n in notes), Fix(*fix) if fix is not None else None)


def lint(source: Source, *, host: Optional[HostArg] = None,
         fail_on: Severity = "warning") -> Findings:
    """Runs the rule catalogue over ``source`` (a path, bytes, document text, a Document or a
    pyVmomi ConfigSpec/ConfigInfo; every VM of a document with several). With ``host`` (capture
    paths or a Host) the TOPO rules check the devices on that host. Raises vmxkit.Error when the
    source cannot be read as its format (the command line's exit code 2)."""
    threshold = _check_severity(fail_on)
    name, data = _source(source)
    h = _host(host)
    path, fmt, findings = _vmxkit.lint(name, data, h._host if h is not None else None)
    return Findings([_finding(f) for f in findings], path=path, format=fmt, fail_on=threshold)


@dataclass(frozen=True)
class Check:
    """A rule of the catalogue (``vmxkit rules``)."""

    id: str
    name: str
    severity: Severity
    summary: str
    needs_host: bool


def rules() -> List[Check]:
    """The rule catalogue, sorted by id."""
    return [Check(i, n, _check_severity(s), summary, needs_host)
            for i, n, s, summary, needs_host in _vmxkit.rules()]


# --------------------------------------------------------------------------------------------
# Conversion


def convert(source: Source, to: str = "vmx") -> str:
    """``source`` written as ``to``, an output of the format table (``output_formats()``:
    ``vmx``, ``configspec-xml``, ``vi-json``, ``terraform``, ``vmclass``...; ``vmxkit convert``).
    The source must hold one VM."""
    if to not in output_formats():
        raise ValueError("convert: to must be one of %s, not %r" % (", ".join(output_formats()), to))
    name, data = _source(source)
    return _text(_vmxkit.convert(name, data, to))


def _deserialize_config_spec(xml: bytes, name: str) -> "vim.vm.ConfigSpec":
    try:
        from pyVmomi import SoapAdapter, vim
    except ImportError as e:
        raise ImportError("vmxkit: config_spec() needs pyVmomi (python3-pyvmomi)") from e
    try:
        spec = SoapAdapter.Deserialize(xml, vim.vm.ConfigSpec)
    except Exception as e:  # pyVmomi raises its parser's errors as they are
        raise Error("%s: pyVmomi cannot read the ConfigSpec vmxkit wrote: %s" % (name, e),
                    name) from e
    return spec


def config_spec(source: Source, *, vm: Optional[Source] = None,
                firmware_change: bool = False) -> "vim.vm.ConfigSpec":
    """The ``vim.vm.ConfigSpec`` (pyVmomi) that gives a VM the settings of ``source`` (a .vmx or
    any other input that holds one VM): vmxkit's ConfigSpec XML read by pyVmomi's own
    deserializer. With ``vm``, only the change that VM needs (``change(source, vm)``). Raises
    ImportError without pyVmomi."""
    if vm is not None:
        return change(source, vm, firmware_change=firmware_change).config_spec()
    name, data = _source(source)
    xml = _vmxkit.convert(name, data, "configspec-xml")
    return _deserialize_config_spec(xml, os.fsdecode(name))


# --------------------------------------------------------------------------------------------
# Apply: the change between a VM and a plan, and `vmxkit apply`


@dataclass(frozen=True)
class ChangeLine:
    """One line of a change's diff: ``-`` a device or value that goes, ``+`` one that comes,
    ``~`` a value that changes, ``=`` something the plan asks that is not sent (with why).
    ``str()`` is the line as ``vmxkit apply`` prints it."""

    sign: Literal["-", "+", "~", "="]
    what: str

    def __str__(self) -> str:
        return ("  (kept) " if self.sign == "=" else self.sign + " ") + self.what


def _lines(lines: Sequence[Tuple[str, str]]) -> Tuple[ChangeLine, ...]:
    return tuple(ChangeLine(sign, what) for sign, what in lines)  # type: ignore[arg-type]


class Change:
    """What a VM needs to become what a plan says, as ``vmxkit apply`` computes it: passthrough
    devices and vGPUs the plan does not hold are removed (``operation`` remove, the server's
    ``key``), those it holds and the VM does not are added (keys -1, -2, ...); the extraConfig
    keys whose value differs (an empty value removes a key); ``memoryMB`` only when the plan
    gives it; the reservation; the firmware only with ``firmware_change``. ``diff`` says it
    line by line; ``empty`` when the VM already is the plan."""

    def __init__(self, spec_xml: bytes, diff: Sequence[Tuple[str, str]],
                 placeholders: Sequence[str], empty: bool, name: str) -> None:
        self._spec_xml = bytes(spec_xml)
        self._name = name
        self.diff: Tuple[ChangeLine, ...] = _lines(diff)
        #: ``<fill in: ...>`` placeholders the plan still holds ("where: value"): such a change
        #: cannot be sent.
        self.placeholders: Tuple[str, ...] = tuple(placeholders)
        self.empty: bool = bool(empty)

    def configspec_xml(self) -> str:
        """The change as a vim25 VirtualMachineConfigSpec document."""
        return _text(self._spec_xml)

    def config_spec(self) -> "vim.vm.ConfigSpec":
        """The change as a pyVmomi ``vim.vm.ConfigSpec``, for ``vm.ReconfigVM_Task(spec=...)``.
        Raises vmxkit.Error while the plan holds a placeholder (a systemId or id to fill in:
        none may reach a server), ImportError without pyVmomi."""
        if self.placeholders:
            raise Error("%s: the plan holds %d placeholder(s), which no server may be sent: %s"
                        % (self._name, len(self.placeholders), "; ".join(self.placeholders)),
                        self._name)
        return _deserialize_config_spec(self._spec_xml, self._name)

    def __str__(self) -> str:
        return "\n".join(str(line) for line in self.diff)

    def __repr__(self) -> str:
        return "vmxkit.Change(%r)" % ([str(line) for line in self.diff],)


def _change(plan_name: bytes, plan_data: Optional[bytes], vm: Source, firmware_change: bool,
            keep_memory: bool) -> Change:
    vm_name, vm_data = _source(vm)
    xml, diff, placeholders, empty = _vmxkit.config_change(
        vm_name, vm_data, plan_name, plan_data, bool(firmware_change), keep_memory)
    return Change(xml, diff, placeholders, empty, os.fsdecode(plan_name))


def change(plan: Source, vm: Source, *, firmware_change: bool = False) -> Change:
    """The change that makes ``vm`` what ``plan`` says (``vmxkit apply --dry-run`` without a
    server). ``plan``: any source that holds one VM (a .vmx, a ConfigSpec...), or a ``Plan``.
    ``vm``: the VM as a vSphere client read it, with the server's device keys: a pyVmomi
    ``vim.VirtualMachine`` or its ``config`` (``vim.vm.ConfigInfo``), or a ConfigInfo document
    or RetrievePropertiesEx answer (a path, bytes or text). Raises vmxkit.Error for a ``vm``
    that is not such a document (a .vmx or a ConfigSpec holds no keys)."""
    if isinstance(plan, Plan):
        return plan.change(vm, firmware_change=firmware_change)
    name, data = _source(plan)
    return _change(name, data, vm, firmware_change, False)


@dataclass(frozen=True)
class Task:
    """The ReconfigVM_Task apply sent and how it ended (``fault``: the vim25 fault type)."""

    moref: str
    success: bool
    fault: str
    message: str


@dataclass(frozen=True)
class ApplyResult:
    """What ``apply`` did. ``status``: ``no-changes`` (the VM holds the plan; nothing checked
    or sent), ``dry-run`` (every check passed, nothing sent), ``applied`` (the task succeeded
    and the VM read back holds the plan); and, in the ``ApplyError`` raised for them,
    ``checks-failed`` (nothing sent), ``task-failed``, ``not-held`` (the VM read back lacks part
    of the plan). ``changed``: the VM was changed. ``checks_*``: each precondition that
    passed, failed, or could not be checked (with why). ``findings``: the VM read back,
    linted against its host (``applied`` only)."""

    status: Literal["no-changes", "checks-failed", "dry-run", "applied", "task-failed",
                    "not-held"]
    changed: bool
    vm: str
    moref: str
    power_state: str
    diff: Tuple[ChangeLine, ...]
    placeholders: Tuple[str, ...]
    checks_passed: Tuple[str, ...]
    checks_failed: Tuple[str, ...]
    checks_not_checked: Tuple[str, ...]
    task: Optional[Task]
    left: Tuple[ChangeLine, ...]
    findings: Findings

    def __str__(self) -> str:
        head = "VM '%s' (%s), %s: %s" % (self.vm, self.moref, self.power_state, self.status)
        return "\n".join([head] + [str(line) for line in self.diff])


class ApplyError(Error):
    """``apply`` stopped: a precondition failed (nothing was sent), the task failed, or the VM
    read back does not hold the plan. ``result`` says which and what the VM holds."""

    def __init__(self, message: str, result: ApplyResult) -> None:
        super().__init__(message)
        self.result = result

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (type(self), (str(self), self.result))


def _apply_result(d: Dict[str, Any]) -> ApplyResult:
    name, moref, power_state = d["vm"]
    passed, failed, not_checked = d["checks"]
    task = Task(*d["task"]) if d["task"] is not None else None
    findings = Findings([_finding(f) for f in d["findings"]], path=d["lint_path"],
                        format="soap", fail_on="warning")
    return ApplyResult(d["status"], bool(d["changed"]), name, moref, power_state,
                       _lines(d["diff"]), tuple(d["placeholders"]), tuple(passed), tuple(failed),
                       tuple(not_checked), task, _lines(d["left"]), findings)


def _apply_error(r: ApplyResult) -> ApplyError:
    if r.status == "checks-failed":
        message = "%d check(s) failed: nothing was sent, VM '%s' is unchanged: %s" % (
            len(r.checks_failed), r.vm, "; ".join(r.checks_failed))
    elif r.status == "task-failed" and r.task is not None:
        message = "task %s failed: %s%s" % (r.task.moref, r.task.fault + ": " if r.task.fault
                                            else "", r.task.message)
    else:
        message = "the task succeeded but VM '%s' does not hold the plan: %s" % (
            r.vm, "; ".join(str(line) for line in r.left))
    return ApplyError(message, r)


def _vm_selector(vm: Any, uuid: Optional[str], moid: Optional[str]) -> Tuple[str, str]:
    """(name, moid) from apply()'s vm=: a name or moref, or a pyVmomi vim.VirtualMachine."""
    name = ""
    if vm is not None and not isinstance(vm, str):
        if "pyVmomi" in sys.modules:
            from pyVmomi import vim

            if isinstance(vm, vim.VirtualMachine):
                if moid:
                    raise TypeError("apply: give vm or moid, not both")
                return "", vm._moId
        raise TypeError("apply: vm is a name (or moref) or a pyVmomi vim.VirtualMachine, not %s"
                        % type(vm).__name__)
    name = vm or ""
    if sum(1 for x in (name, uuid, moid) if x) != 1:
        raise TypeError("apply: give the VM one way: vm (a name), uuid or moid")
    return name, moid or ""


def apply(plan: Union["Plan", Source], *, vm: Any = None, server: Optional[str] = None,
          uuid: Optional[str] = None, use_instance_uuid: bool = False, moid: Optional[str] = None,
          datacenter: Optional[str] = None, folder: Optional[str] = None,
          username: Optional[str] = None, password: Optional[str] = None,
          insecure: bool = False, proxy: Optional[str] = None, dry_run: bool = False,
          firmware_change: bool = False, task_timeout: float = 600,
          timeout: float = 60) -> ApplyResult:
    """Makes a live VM what ``plan`` says, as ``vmxkit apply`` does: reads the VM, computes the
    change (``Change``), checks every precondition before anything is sent (power state, the
    host's passthrough list, a device held by another VM, memory, placeholders), then sends one
    ReconfigVM_Task, waits for it, reads the VM back and lints it against its host. A second
    apply finds nothing to change (``no-changes``). ``dry_run`` checks and sends nothing.

    ``plan``: a ``Plan`` (a plan generated without ``memory_mb`` or a base keeps the VM's
    memory: its 65536 MB is a default, not asked for) or any source holding one VM. The VM:
    ``vm`` (its name or moref, or a pyVmomi ``vim.VirtualMachine``), looked up in
    ``datacenter`` or under ``folder`` (an inventory path, ``/DC/vm/gpu``, or a folder of
    ``datacenter``) when given; or ``uuid`` (its BIOS UUID; ``use_instance_uuid``: its
    instance UUID); or ``moid``. ``server``: ``https://user:password@host/sdk`` as govc's
    GOVC_URL (default: VMXKIT_SERVER, else GOVC_URL); ``username``/``password`` replace the
    URL's, else they come from the URL or the environment as for the command line
    (VMXKIT_USERNAME/VMXKIT_PASSWORD, GOVC_USERNAME/GOVC_PASSWORD, VMXKIT_SESSION). No
    password is ever in a message. ``insecure`` skips the certificate checks (a private CA:
    VMXKIT_CA_FILE); ``proxy`` (``http://host:port``, or VMXKIT_PROXY) is the HTTP proxy to
    go through. ``timeout``: seconds per request; ``task_timeout``: for the task.

    Returns an ``ApplyResult``; raises ``ApplyError`` (with the result) when a check failed,
    the task failed, or the VM does not hold the plan afterwards, and vmxkit.Error when the
    work cannot start (no such VM, a server that cannot be reached or refuses the login)."""
    name, vm_moid = _vm_selector(vm, uuid, moid)
    keep_memory = False
    plan_data: Optional[bytes]
    if isinstance(plan, Plan):
        plan_name, plan_data = b"<plan>", plan.render("configspec-xml")
        keep_memory = not plan._memory_asked
    else:
        plan_name, plan_data = _source(plan)
    target = dict(server=server or "", username=username, password=password,
                  insecure=bool(insecure), proxy=proxy or "", timeout=float(timeout), name=name,
                  uuid=uuid or "", instance_uuid=bool(use_instance_uuid), moid=vm_moid,
                  datacenter=datacenter or "", folder=folder or "")
    result = _apply_result(_vmxkit.apply(target, plan_name, plan_data, bool(dry_run),
                                         bool(firmware_change), keep_memory,
                                         float(task_timeout)))
    if result.status in ("checks-failed", "task-failed", "not-held"):
        raise _apply_error(result)
    return result


# --------------------------------------------------------------------------------------------
# Hosts, topology, MMIO


@dataclass(frozen=True)
class HostDevice:
    """A PCI function of a host. ``role``: other, bridge, gpu, rdma-nic, nic-vf or nic."""

    address: str
    vendor_id: Optional[int]
    device_id: Optional[int]
    role: str
    description: str
    model: str
    numa_node: Optional[int]


@dataclass(frozen=True)
class PairReason:
    """Why a pair is not simply ok (or, for its path, why it is)."""

    effect: Literal["ok", "degraded", "unsupported"]
    text: str
    fix: str


@dataclass(frozen=True)
class Pair:
    """The GPUDirect RDMA / P2P verdict for a GPU<->GPU or GPU<->NIC pair. ``path`` is the
    nvidia-smi class: X, PIX, PXB, PHB, NODE, SYS or ``?``."""

    a: str
    b: str
    path: str
    path_detail: str
    verdict: Literal["ok", "degraded", "unsupported"]
    reasons: Tuple[PairReason, ...]


def _pair(t: Tuple[Any, ...]) -> Pair:
    a, b, path, detail, verdict, reasons = t
    return Pair(a, b, path, detail, verdict, tuple(PairReason(*r) for r in reasons))


@dataclass(frozen=True)
class Topology:
    """The GPU/NIC matrix as ``vmxkit topo`` prints it: ``matrix[i][j]`` is the path class
    between device i and j of ``gpus + nics``; ``pairs`` the GPU<->GPU then GPU<->NIC verdicts;
    ``best_nic[i]`` the NIC nearest ``gpus[i]``, if any."""

    gpus: Tuple[HostDevice, ...]
    nics: Tuple[HostDevice, ...]
    matrix: Tuple[Tuple[str, ...], ...]
    pairs: Tuple[Pair, ...]
    best_nic: Tuple[Optional[HostDevice], ...]

    def path(self, a: str, b: str) -> str:
        """The path class between two devices of the matrix, by address."""
        order = [d.address for d in self.gpus + self.nics]
        try:
            return self.matrix[order.index(a)][order.index(b)]
        except ValueError:
            raise KeyError("%s or %s is not a GPU or NIC of the matrix" % (a, b)) from None

    def pair(self, a: str, b: str) -> Optional[Pair]:
        """The verdict for the pair of these two addresses (either order), if judged."""
        for p in self.pairs:
            if (p.a, p.b) in ((a, b), (b, a)):
                return p
        return None


@dataclass(frozen=True)
class MmioBar:
    """A 64-bit BAR counted, where packing placed it, and where its size came from."""

    device: str
    bar: str
    size: int
    offset: int
    source: str


@dataclass(frozen=True)
class Mmio:
    """``pciPassthru.64bitMMIOSizeGB`` for a set of devices with its arithmetic (``lines``, as
    ``vmxkit mmio`` prints it). ``kb_gb`` is Broadcom KB 323402's figure; ``estimated`` means a
    GPU's BARs were not known and ``size_gb`` is that figure; ``unknown`` are devices not
    counted; ``unknown_gpus`` are NVIDIA GPUs whose BARs and framebuffer are both unknown (each
    sized at 64 GB, the smallest window NVIDIA lists for a data-center GPU); ``unassigned`` are
    BARs the host's kernel log says it found no space for."""

    size_gb: int
    kb_gb: Optional[int]
    total_bytes: int
    estimated: bool
    bars: Tuple[MmioBar, ...]
    lines: Tuple[str, ...]
    unknown: Tuple[str, ...]
    below_4g: Tuple[str, ...]
    unknown_gpus: Tuple[str, ...]
    unassigned: Tuple[str, ...]


def _mmio(t: Tuple[Any, ...]) -> Mmio:
    size_gb, kb_gb, total, estimated, bars, lines, unknown, below, unknown_gpus, unassigned = t
    return Mmio(size_gb, kb_gb, total, estimated, tuple(MmioBar(*b) for b in bars), tuple(lines),
                tuple(unknown), tuple(below), tuple(unknown_gpus), tuple(unassigned))


def _device(t: Tuple[Any, ...]) -> HostDevice:
    return HostDevice(*t)


#: The HostSystem properties a host is read from (those the vSphere client of the CLI asks).
_HOST_PROPERTIES = ("name", "hardware.pciDevice", "config.pciPassthruInfo", "hardware.numaInfo",
                    "hardware.systemInfo.uuid", "config.sharedPassthruGpuTypes",
                    "config.sharedGpuCapabilities")


class Host:
    """A host's PCIe tree from its captures: ``lspci -vvv`` (with or without ``-nn``/``-D``),
    ``lspci -tv``, ``esxcli hardware pci list``, ``esxcli hardware pci pcipassthru list``,
    ``numactl --hardware``, ``esxcli hardware memory get``, a vSphere HostSystem's properties
    (a saved RetrievePropertiesEx answer; see ``from_vsphere``) (format detected), a sysfs
    directory, or ``live``; several are merged. Raises vmxkit.Error for an input that cannot be read."""

    def __init__(self, paths: Union[StrPath, Sequence[StrPath]]) -> None:
        self.paths: Tuple[str, ...] = tuple(_paths(paths))
        self._host = _vmxkit.load_host([(os.fsencode(p), None) for p in self.paths])

    @classmethod
    def from_text(cls, *captures: Union[str, bytes], names: Optional[Sequence[str]] = None
                  ) -> "Host":
        """A host from captures already in memory (``names`` say how messages call them)."""
        if not captures:
            raise ValueError("Host.from_text: give at least one capture")
        labels = list(names) if names is not None else [
            "<capture %d>" % (i + 1) if len(captures) > 1 else "<capture>"
            for i in range(len(captures))]
        if len(labels) != len(captures):
            raise ValueError("Host.from_text: one name per capture")
        host = cls.__new__(cls)
        host.paths = tuple(labels)
        host._host = _vmxkit.load_host([
            (os.fsencode(n), c.encode("utf-8", "surrogateescape") if isinstance(c, str) else
             bytes(c)) for n, c in zip(labels, captures)])
        return host

    @classmethod
    def from_vsphere(cls, host_system: Any) -> "Host":
        """A host from a pyVmomi ``vim.HostSystem`` (``vm.runtime.host``): one PropertyCollector
        call reads the properties that ``vmxkit --esx-host`` reads (``hardware.pciDevice``,
        ``config.pciPassthruInfo``, ``hardware.numaInfo``, ``hardware.systemInfo.uuid``,
        ``config.sharedPassthruGpuTypes``, ``config.sharedGpuCapabilities``, ``name``), pyVmomi serializes the answer, and vmxkit reads it as it reads a saved
        RetrievePropertiesEx answer (``vmxkit topo host-properties.xml``). Raises vmxkit.Error
        when the host's devices cannot be read (a missing privilege: the fault is named)."""
        from pyVmomi import SoapAdapter, VmomiSupport, vim, vmodl  # type: ignore[import]

        if not isinstance(host_system, vim.HostSystem):
            raise TypeError("Host.from_vsphere: give a pyVmomi vim.HostSystem, not a %s"
                            % type(host_system).__name__)
        pc = vmodl.query.PropertyCollector
        content = vim.ServiceInstance("ServiceInstance", host_system._stub).RetrieveContent()
        paths = list(_HOST_PROPERTIES)
        # config.sharedGpuCapabilities is vSphere 6.7's (vim.version.version12): a session at an
        # older version (a 6.5 server) could not read the answer, so it is not asked there.
        if not VmomiSupport.IsChildVersion(getattr(host_system._stub, "version", ""),
                                           "vim.version.version12"):
            paths.remove("config.sharedGpuCapabilities")
        spec = pc.FilterSpec(objectSet=[pc.ObjectSpec(obj=host_system, skip=False)],
                             propSet=[pc.PropertySpec(type=vim.HostSystem, all=False,
                                                      pathSet=paths)])
        result = content.propertyCollector.RetrievePropertiesEx([spec], pc.RetrieveOptions())
        if result is None or not result.objects:
            raise Error("%s: the HostSystem returned no properties" % host_system._moId)
        # The newest version this pyVmomi knows: an older one drops properties added since
        # (HostNumaNode.pciId, the devices of each NUMA node, is vSphere 6.7's).
        xml = SoapAdapter.Serialize(result.objects[0],
                                    version=VmomiSupport.newestVersions.Get("vim"))
        name = "<pyVmomi HostSystem %s>" % host_system._moId
        return cls.from_text(xml if isinstance(xml, bytes) else xml.encode("utf-8"),
                             names=[name])

    @property
    def devices(self) -> List[HostDevice]:
        """Every PCI function, in address order."""
        return [_device(d) for d in self._host.devices()]

    def find(self, address: str) -> Optional[HostDevice]:
        """The device at ``address`` (``0000:3b:00.0``), or None."""
        for d in self.devices:
            if d.address == address:
                return d
        return None

    @property
    def warnings(self) -> List[str]:
        """What the loaders skipped or could not tell (``FILE:LINE: message``)."""
        return list(self._host.warnings())

    def topo(self, *, all_nics: bool = False,
             iommu_translating: Optional[bool] = None) -> Topology:
        """The GPU/NIC matrix, each pair's P2P verdict and the best NIC of each GPU."""
        gpus, nics, matrix, pairs, best = self._host.topo(all_nics, iommu_translating)
        g = tuple(_device(d) for d in gpus)
        n = tuple(_device(d) for d in nics)
        return Topology(g, n, tuple(tuple(r) for r in matrix), tuple(_pair(p) for p in pairs),
                        tuple(n[i] if i is not None else None for i in best))

    def mmio(self, devices: Union[str, Sequence[str]]) -> Mmio:
        """``64bitMMIOSizeGB`` for devices of this host (``0000:3b:00.0``), catalogue ids
        (``10de:2331``) or models (``h100-pcie``)."""
        return mmio(devices, host=self)

    def __repr__(self) -> str:
        return "vmxkit.Host(%r)" % (list(self.paths),)


def mmio(devices: Union[str, Sequence[str]], *, host: Optional[HostArg] = None) -> Mmio:
    """``64bitMMIOSizeGB`` for devices: host addresses (with ``host``), catalogue ids or model
    aliases. Raises vmxkit.Error for an address without a host or not on it."""
    names = [devices] if isinstance(devices, str) else list(devices)
    h = _host(host)
    return _mmio(_vmxkit.mmio(h._host if h is not None else None, names))


# --------------------------------------------------------------------------------------------
# Plans


@dataclass(frozen=True)
class PlannedDevice:
    """A device the VM gets; ``address`` is the host's (for an SR-IOV VF entry, the PF's)."""

    address: Optional[str]
    vendor_id: int
    device_id: int
    sriov_vf: bool
    label: str
    model: str


@dataclass(frozen=True)
class PlannedPair:
    """A GPU (index into Plan.gpus) and its peer (into Plan.nics, or Plan.gpus when
    ``peer_is_gpu``), with the pair's verdict when the plan had a host."""

    gpu: int
    peer: int
    peer_is_gpu: bool
    verdict: Optional[Pair]


class Plan:
    """The settings ``generate`` chose and why (``explanation``), in every output format. A plan
    made with a host is one that ``lint(plan.vmx(), host=host)`` accepts."""

    def __init__(self, plan: Any, memory_asked: bool = True) -> None:
        self._plan = plan
        # Whether memory_mb (or a base's memsize) was asked for: else the plan's memory is
        # generate's default, which a change to a live VM keeps out (Change, apply).
        self._memory_asked = memory_asked

    def render(self, format: str, *, template: Optional[str] = None,
               vm: Optional[str] = None) -> bytes:
        """The plan in ``format``, an output of the format table (``output_formats()``) as
        bytes; ``template`` a built-in template or a template file (vmx), ``vm`` the
        VirtualMachine moref a SOAP request targets."""
        if format not in output_formats():
            raise ValueError("render: format must be one of %s, not %r"
                             % (", ".join(output_formats()), format))
        return bytes(self._plan.render(format, template or "", vm or ""))

    def vmx(self, *, template: Optional[str] = None) -> str:
        """The ``.vmx`` (merged into the base when there is one, every other byte kept; bytes
        that are not UTF-8 come back as surrogate escapes)."""
        return _text(self.render("vmx", template=template))

    def configspec_xml(self) -> str:
        """A vim25 VirtualMachineConfigSpec document."""
        return _text(self.render("configspec-xml"))

    def vi_json(self) -> str:
        """A vSphere VI/JSON ConfigSpec."""
        return _text(self.render("vi-json"))

    def soap(self, vm: str) -> str:
        """A SOAP ReconfigVM_Task request for the VM ``vm`` (a moref, ``vm-42``)."""
        return _text(self.render("soap", vm=vm))

    def govc(self) -> str:
        """A POSIX shell script of govc commands."""
        return _text(self.render("govc"))

    def powercli(self) -> str:
        """A PowerShell script for VMware PowerCLI."""
        return _text(self.render("powercli"))

    def terraform(self) -> str:
        """HCL arguments of Terraform's ``vsphere_virtual_machine`` (a
        ``vsphere_virtual_machine_class`` for vGPUs), with the explanation as comments."""
        return _text(self.render("terraform"))

    def vmclass(self) -> str:
        """A VM Operator ``VirtualMachineClass`` (YAML) with the explanation as comments."""
        return _text(self.render("vmclass"))

    def config_spec(self, vm: Optional[Source] = None, *,
                    firmware_change: bool = False) -> "vim.vm.ConfigSpec":
        """The plan as a pyVmomi ``vim.vm.ConfigSpec``, for ``vm.ReconfigVM_Task(spec=...)``.
        Without ``vm``, the whole plan for a new VM: every device added, memoryMB set. With
        ``vm`` (a pyVmomi ``vim.VirtualMachine`` or its ``config``), only the change that VM
        needs (``change(vm).config_spec()``): the devices it holds that the plan does not
        removed, and a plan made without ``memory_mb`` keeps the VM's memory. Raises
        vmxkit.Error while the plan holds a placeholder (with ``vm``), ImportError without
        pyVmomi."""
        if vm is not None:
            return self.change(vm, firmware_change=firmware_change).config_spec()
        return _deserialize_config_spec(self.render("configspec-xml"), "<plan>")

    def change(self, vm: Source, *, firmware_change: bool = False) -> Change:
        """The change that makes ``vm`` what the plan says (see ``vmxkit.change``)."""
        return _change(b"<plan>", self.render("configspec-xml"), vm, firmware_change,
                       not self._memory_asked)

    @property
    def gpus(self) -> Tuple[PlannedDevice, ...]:
        return tuple(PlannedDevice(*d) for d in self._plan.gpus())

    @property
    def nics(self) -> Tuple[PlannedDevice, ...]:
        return tuple(PlannedDevice(*d) for d in self._plan.nics())

    @property
    def pairs(self) -> Tuple[PlannedPair, ...]:
        return tuple(PlannedPair(g, p, is_gpu, _pair(v) if v is not None else None)
                     for g, p, is_gpu, v in self._plan.pairs())

    @property
    def vgpu(self) -> Optional[str]:
        return self._plan.vgpu()  # type: ignore[no-any-return]

    @property
    def memory_mb(self) -> int:
        return int(self._plan.memory_mb())

    @property
    def mmio(self) -> Mmio:
        return _mmio(self._plan.mmio())

    @property
    def needs_64bit_mmio(self) -> bool:
        return bool(self._plan.needs_64bit_mmio())

    @property
    def p2p(self) -> bool:
        return bool(self._plan.p2p())

    @property
    def explanation(self) -> Tuple[str, ...]:
        """The comment block of a generated .vmx: choices and reasons, one line each."""
        return tuple(self._plan.explanation())

    def __repr__(self) -> str:
        return "vmxkit.Plan(gpus=%r, nics=%r, 64bitMMIOSizeGB=%d)" % (
            [d.label for d in self.gpus], [d.label for d in self.nics], self.mmio.size_gb)


def _names(value: Union[None, str, Sequence[str]], what: str) -> List[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    out = list(value)
    if not all(isinstance(v, str) for v in out):
        raise TypeError("generate: %s must be a str or a sequence of str" % what)
    return out


def generate(host: Optional[HostArg] = None, *, gpus: Union[int, str, Sequence[str]] = "auto",
             nic: Union[None, str, Sequence[str]] = None, vgpu: Optional[str] = None,
             sriov: bool = False, network: str = "VM Network", memory_mb: Optional[int] = None,
             system_id: str = "", allow_degraded: bool = False,
             base: Optional[Source] = None, config_target: Optional[Source] = None,
             device_group: str = "") -> Plan:
    """The VM settings for GPU passthrough with P2P (``vmxkit generate``).

    ``gpus``: ``"auto"`` (every GPU), N (the N best-connected GPUs), host addresses
    (``"0000:3b:00.0"``) or, without a host, catalogue models (``"h100-pcie"``). ``nic``:
    ``"auto"`` (the closest NIC for each GPU), addresses or models; None: no NIC (with
    ``sriov``: auto). ``vgpu``: a vGPU profile (``grid_a100-40c``) instead of passthrough.
    ``sriov``: SR-IOV VFs of the NICs instead of the PFs, on port group ``network``.
    ``system_id``: the host's system UUID (empty: a placeholder). ``base``: a .vmx to merge the
    plan into. ``config_target``: the host's QueryConfigTarget answer (a path, its text, or the
    pyVmomi ConfigTarget of ``EnvironmentBrowser.QueryConfigTarget(host)``), and
    ``device_group`` one of its vendor device groups: the plan's vGPUs and NICs become
    instances of it (the ConfigSpec, SOAP, VI/JSON and PowerCLI renderings carry it). Raises
    vmxkit.Error for a request that cannot work (a device not on the host, a pair across
    sockets, or through the CPU without ``allow_degraded``, a group the plan does not fit)."""
    h = _host(host)
    gpu_count: Optional[int] = None
    if isinstance(gpus, bool):
        raise TypeError("generate: gpus must be 'auto', a count, or addresses/models")
    if isinstance(gpus, int):
        if gpus < 1:
            raise ValueError("generate: gpus must be at least 1")
        gpu_list, gpu_count = ["auto"], gpus
    else:
        gpu_list = _names(gpus, "gpus")
    if memory_mb is not None and memory_mb < 1:
        raise ValueError("generate: memory_mb must be at least 1")
    base_arg = _source(base) if base is not None else None
    target_arg = _source(config_target) if config_target is not None else None
    if not isinstance(device_group, str):
        raise TypeError("generate: device_group must be a str")
    label = " + ".join(h.paths) if h is not None else ""
    plan = _vmxkit.plan(h._host if h is not None else None, gpu_list, gpu_count,
                        _names(nic, "nic"), vgpu, sriov, network, memory_mb, system_id,
                        allow_degraded, label, base_arg, target_arg, device_group)
    return Plan(plan, memory_asked=memory_mb is not None or base is not None)


# --------------------------------------------------------------------------------------------
# Editing a .vmx


def _check_key(key: str) -> str:
    """A key VMware reads back as one key (the command line's `set` rule)."""
    if not isinstance(key, str):
        raise TypeError("a .vmx key is a str, not %s" % type(key).__name__)
    if not key:
        raise ValueError("a .vmx key cannot be empty")
    for c in key:
        if c in ' \t#="' or ord(c) < 0x20:
            raise ValueError("%r: a key cannot contain whitespace, '#', '=', '\"' or control "
                             "characters" % key)
    return key


def _value(value: Union[str, bytes, bool, int]) -> bytes:
    if isinstance(value, bool):
        return b"TRUE" if value else b"FALSE"
    if isinstance(value, int):
        return str(value).encode()
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape")
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    raise TypeError("a .vmx value is a str, bytes, bool or int, not %s" % type(value).__name__)


class Document:
    """A ``.vmx`` file to read and edit, keeping every byte the edits do not touch (comments,
    order, key case, quoting, line endings, encoding): ``bytes()`` of an unchanged Document is
    the input, byte for byte.

    ``Document(path)`` reads a file (a str or os.PathLike; a str that holds a line break is
    taken as the text itself); ``Document(data)`` takes bytes, and ``path=`` names them and is
    where ``save()`` writes. Keys are compared ignoring ASCII case, as VMware does; values are
    the decoded values (``|22`` is ``"``), as str with surrogate escapes for bytes that are not
    UTF-8 (``get_bytes()`` gives the bytes)."""

    def __init__(self, source: Union[StrPath, builtins.bytes, bytearray, memoryview], *,
                 path: Optional[StrPath] = None) -> None:
        self.path: Optional[str] = os.fspath(path) if path is not None else None
        self._original: Optional[builtins.bytes] = None  # the bytes read from self.path
        self._baseline: builtins.bytes  # the bytes read or last saved, for `modified`
        if isinstance(source, (builtins.bytes, bytearray, memoryview)):
            data = bytes(source)
        elif isinstance(source, str) and _is_text(source):
            data = source.encode("utf-8", "surrogateescape")
        elif isinstance(source, (str, os.PathLike)):
            if path is not None:
                raise TypeError("Document(path): path= is for bytes")
            self.path = os.fspath(source)
            data = _vmxkit.read_file(os.fsencode(self.path))
            self._original = data
        else:
            raise TypeError("Document: give a path or bytes, not %s" % type(source).__name__)
        self._baseline = data
        self._doc = _vmxkit.Document(data, os.fsencode(self.path or "<bytes>"))

    def bytes(self) -> builtins.bytes:
        """The document as it is now."""
        return bytes(self._doc.bytes())

    def get(self, key: str, default: Optional[str] = None) -> Optional[str]:
        """The value of the first entry of ``key`` (any case), or ``default``."""
        value = self._doc.get(_check_key(key))
        return _text(value) if value is not None else default

    def get_bytes(self, key: str) -> Optional[builtins.bytes]:
        """The value's bytes, as VMware reads them."""
        value = self._doc.get(_check_key(key))
        return bytes(value) if value is not None else None

    def set(self, key: str, value: Union[str, builtins.bytes, bool, int]) -> None:
        """Gives ``key`` the value (True/False are written TRUE/FALSE): an existing entry keeps
        its spelling, quoting, comment and line ending, and later duplicates of it are removed;
        a new key goes beside the keys sharing its prefix (``vmxkit set``)."""
        self._doc.set(_check_key(key), _value(value))

    def unset(self, key: str) -> bool:
        """Removes every entry of ``key`` (any case); returns whether there was one."""
        return bool(self._doc.unset(_check_key(key)))

    def keys(self) -> List[str]:
        """The keys of the entries, in file order, as written."""
        return [_text(k) for k, _ in self._doc.entries()]

    def items(self) -> List[Tuple[str, str]]:
        """(key, value) of every entry, in file order."""
        return [(_text(k), _text(v)) for k, v in self._doc.entries()]

    def __getitem__(self, key: str) -> str:
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return value

    def __setitem__(self, key: str, value: Union[str, builtins.bytes, bool, int]) -> None:
        self.set(key, value)

    def __delitem__(self, key: str) -> None:
        if not self.unset(key):
            raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    @property
    def modified(self) -> bool:
        """Whether the bytes differ from those read (or last saved)."""
        return self.bytes() != self._baseline

    def problems(self) -> List[Tuple[str, int, int]]:
        """(message, line, column) of each line VMware cannot read (kept as it is by edits)."""
        return [tuple(p) for p in self._doc.problems()]  # type: ignore[misc]

    def lint(self, *, host: Optional[HostArg] = None, fail_on: Severity = "warning") -> Findings:
        """lint() of the document as it is now."""
        return lint(self, host=host, fail_on=fail_on)

    def save(self, path: Optional[StrPath] = None, *, force: bool = False) -> bool:
        """Writes the document atomically (a temporary file, fsync, rename; the file keeps its
        mode), as ``vmxkit set -i`` does. Saved over the file it was read from, the write is
        made under the file's lock (other vmxkit writers wait), is refused (vmxkit.Error) when
        another program changed the file since it was read, and is skipped when nothing
        changed. Refused while the VM holds its lock (``<path>.lck``) unless ``force``. Saving
        to another path makes that the Document's path. Returns whether it wrote."""
        target = os.fspath(path) if path is not None else self.path
        if target is None:
            raise ValueError("Document.save: the document has no path; give save(path)")
        data = self.bytes()
        # Whether `target` is the file the Document was read from is decided under the file's
        # lock, once: a test made before it (two stats) could see another writer's rename
        # between them and overwrite that writer's edit.
        source = os.fsencode(self.path) if self.path is not None else None
        wrote = bool(_vmxkit.save(os.fsencode(target), source, self._original, data, force))
        self.path = target
        self._original = data
        self._baseline = data
        return wrote

    def __repr__(self) -> str:
        return "vmxkit.Document(path=%r, %d entries%s)" % (
            self.path, len(self._doc.entries()), ", modified" if self.modified else "")
