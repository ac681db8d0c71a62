# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The one place the vmxkit.vmxkit modules talk to vmxkit.

Two backends give the same results:
  - ``python``: the vmxkit Python package (``import vmxkit``), and pyVmomi for vCenter;
  - ``binary``: the ``vmxkit`` command line (``vmxkit lint --format json``,
    ``vmxkit generate --plan-json``): JSON documents, never the text meant for people.

``auto`` (the default) takes the package when it imports, else the binary. The ``backend``
option, or the environment variable VMXKIT_ANSIBLE_BACKEND, forces one.

Findings are dicts with the fields of ``vmxkit.Finding``: rule, name, severity, message, path,
line, column, notes (a list of {message, line, column}) and fix ({title, safety} or None).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import inspect
import json
import os
import pathlib
import re
import ssl
import traceback

from ansible.module_utils.basic import env_fallback, missing_required_lib

try:
    import vmxkit  # type: ignore[import]
    HAS_VMXKIT = True
    VMXKIT_IMPORT_ERROR = None
except ImportError:
    HAS_VMXKIT = False
    VMXKIT_IMPORT_ERROR = traceback.format_exc()

try:
    from pyVim.connect import SmartConnect, Disconnect  # type: ignore[import]
    from pyVmomi import vim, vmodl  # type: ignore[import]
    HAS_PYVMOMI = True
    PYVMOMI_IMPORT_ERROR = None
except ImportError:
    HAS_PYVMOMI = False
    PYVMOMI_IMPORT_ERROR = traceback.format_exc()

BACKENDS = ("auto", "python", "binary")
SEVERITIES = ("error", "warning", "info", "style")
# The environment the binary must not take its server, session or TLS choice from: the
# module's options say them.
_SERVER_ENV = ("VMXKIT_SERVER", "VMXKIT_SESSION", "VMXKIT_INSECURE", "VMXKIT_USERNAME",
               "VMXKIT_PASSWORD")
# What the binary prints before a message on stderr.
_ERROR_PREFIX = "vmxkit: error: "
_WARNING_PREFIX = "vmxkit: warning: "
# configs fetched per RetrievePropertiesEx, as the binary's --batch-size default.
_BATCH = 100


def backend_argument_spec():
    """The options every module of the collection has."""
    return dict(
        backend=dict(type="str", default="auto", choices=list(BACKENDS),
                     fallback=(env_fallback, ["VMXKIT_ANSIBLE_BACKEND"])),
        vmxkit_binary=dict(type="path"),
    )


def vmware_argument_spec(hostname_required=False):
    """community.vmware's connection options (doc fragment vmxkit.vmxkit.vmware), with its
    VMWARE_* environment variables."""
    return dict(
        hostname=dict(type="str", required=hostname_required,
                      fallback=(env_fallback, ["VMWARE_HOST"])),
        username=dict(type="str", aliases=["admin", "user"],
                      fallback=(env_fallback, ["VMWARE_USER"])),
        password=dict(type="str", aliases=["pass", "pwd"], no_log=True,
                      fallback=(env_fallback, ["VMWARE_PASSWORD"])),
        port=dict(type="int", default=443, fallback=(env_fallback, ["VMWARE_PORT"])),
        validate_certs=dict(type="bool", default=True,
                            fallback=(env_fallback, ["VMWARE_VALIDATE_CERTS"])),
        proxy_host=dict(type="str", fallback=(env_fallback, ["VMWARE_PROXY_HOST"])),
        proxy_port=dict(type="int", fallback=(env_fallback, ["VMWARE_PROXY_PORT"])),
    )


def vm_argument_spec(name_aliases=None):
    """community.vmware's options that name a VM (doc fragment vmxkit.vmxkit.vmware.vm)."""
    name = dict(type="str")
    if name_aliases:
        name["aliases"] = list(name_aliases)
    return dict(
        name=name,
        uuid=dict(type="str"),
        use_instance_uuid=dict(type="bool", default=False),
        moid=dict(type="str"),
        datacenter=dict(type="str"),
        folder=dict(type="str"),
    )


def inventory_path(which):
    """The inventory path of ``which``'s folder or datacenter (``/DC0/vm/gpu``), or None. A
    folder that is no path is one of the datacenter's."""
    if which.folder and which.folder.startswith("/"):
        return which.folder
    if not which.datacenter:
        if which.folder:
            raise VmxkitError("folder '%s' is not an inventory path (/DC/vm/...): give the "
                              "datacenter too" % which.folder)
        return None
    if not which.folder:
        return "/" + which.datacenter
    under_vm = which.folder == "vm" or which.folder.startswith("vm/")
    return "/%s/%s%s" % (which.datacenter, "" if under_vm else "vm/", which.folder)


def server_from_params(p):
    """The Server the connection options name."""
    return Server(p["hostname"], p["port"], p["username"], p["password"], p["validate_certs"],
                  p["proxy_host"], p["proxy_port"])


class VmxkitError(Exception):
    """A condition that stops the work (vmxkit.Error, the binary's exit code 2), with the place
    it is about when known."""

    def __init__(self, message, path=None, line=None, column=None):
        super(VmxkitError, self).__init__(message)
        self.path = path
        self.line = line
        self.column = column

    def result(self):
        """The keys a module failure carries."""
        return dict(msg=str(self), file=self.path, line=self.line, column=self.column)


class Server:
    """vCenter (or ESXi) as the community.vmware modules name it."""

    def __init__(self, hostname, port, username, password, validate_certs, proxy_host=None,
                 proxy_port=None):
        self.hostname = hostname
        self.port = port
        self.username = username
        self.password = password
        self.validate_certs = validate_certs
        self.proxy_host = proxy_host
        self.proxy_port = proxy_port

    @property
    def proxy(self):
        """The HTTP proxy as a URL (``http://host:port``), or None."""
        if not self.proxy_host:
            return None
        host = self.proxy_host
        if ":" in host and not host.startswith("["):
            host = "[%s]" % host
        return "http://%s:%d" % (host, self.proxy_port)

    @property
    def netloc(self):
        host = self.hostname
        if ":" in host and not host.startswith("["):
            host = "[%s]" % host  # an IPv6 address
        return "%s:%d" % (host, self.port)

    @property
    def url(self):
        """The SDK endpoint, without credentials (they never go into a URL)."""
        return "https://%s/sdk" % self.netloc


class LintResult:
    def __init__(self, findings, files, host_checked, warnings):
        self.findings = findings          # list of finding dicts
        self.files = files                # list of {path, format}
        self.host_checked = host_checked  # every document was linted against a host
        self.warnings = warnings          # list of str


class GenerateResult:
    def __init__(self, content, gpus, nics, vgpu, memory_mb, explanation, warnings):
        self.content = content            # bytes: the plan in the format asked
        self.gpus = gpus                  # list of {address, label, sriov_vf}
        self.nics = nics
        self.vgpu = vgpu
        self.memory_mb = memory_mb
        self.explanation = explanation    # list of str
        self.warnings = warnings


def counts(findings):
    """Findings per severity."""
    out = dict((s, 0) for s in SEVERITIES)
    for f in findings:
        out[f["severity"]] += 1
    return out


def at_least(severity, threshold):
    """Whether ``severity`` reaches ``threshold`` (error > warning > info > style; none: never)."""
    if threshold == "none":
        return False
    return SEVERITIES.index(severity) <= SEVERITIES.index(threshold)


def open_backend(module, vcenter=False):
    """The backend the module's ``backend`` option asks for. ``vcenter``: the Python backend
    also needs pyVmomi. Fails the module when the one asked for is not there."""
    choice = module.params.get("backend") or "auto"
    python_ok = HAS_VMXKIT and (HAS_PYVMOMI or not vcenter)
    if choice == "python" or (choice == "auto" and python_ok):
        if not HAS_VMXKIT:
            module.fail_json(msg=missing_required_lib(
                "vmxkit (the Python package: PYTHONPATH=BUILD/python, or cmake --install)"),
                exception=VMXKIT_IMPORT_ERROR)
        if vcenter and not HAS_PYVMOMI:
            module.fail_json(msg=missing_required_lib("pyVmomi (python3-pyvmomi)"),
                             exception=PYVMOMI_IMPORT_ERROR)
        return PythonBackend(module)
    binary = module.params.get("vmxkit_binary") or module.get_bin_path("vmxkit")
    if not binary:
        why = "backend=binary" if choice == "binary" else (
            "the vmxkit Python package does not import" if not HAS_VMXKIT else
            "pyVmomi does not import")
        module.fail_json(msg="%s and no vmxkit binary was found on PATH; install vmxkit or give "
                             "vmxkit_binary" % why)
    if not os.access(binary, os.X_OK):
        module.fail_json(msg="vmxkit_binary %s is not an executable file" % binary)
    return BinaryBackend(module, binary)


# --------------------------------------------------------------------------------------------
# The Python package


def _finding_dict(f):
    """A vmxkit.Finding as a dict."""
    return dict(
        rule=f.rule, name=f.name, severity=f.severity, message=f.message, path=f.path,
        line=f.line, column=f.column,
        notes=[dict(message=n.message, line=n.line, column=n.column) for n in f.notes],
        fix=dict(title=f.fix.title, safety=f.fix.safety) if f.fix is not None else None)


def _format(name):
    """The file format as `lint --format json` names it: the format table's name (vmx,
    configspec-xml, soap, vi-json, terraform-json, vmclass...), the same in the package."""
    return name


def _device_dict(d):
    return dict(address=d.address, label=d.label, sriov_vf=bool(d.sriov_vf))


class PythonBackend:
    name = "python"

    def __init__(self, module):
        self.module = module

    def _error(self, e):
        return VmxkitError(str(e), getattr(e, "path", None), getattr(e, "line", None),
                           getattr(e, "column", None))

    def _host(self, paths):
        host = vmxkit.Host(list(paths))
        return host, list(host.warnings)

    def lint_file(self, path, host_paths):
        try:
            warnings = []
            host = None
            if host_paths:
                host, warnings = self._host(host_paths)
            # A path object: a str would be taken as document text when it looks like one.
            found = vmxkit.lint(pathlib.Path(path), host=host)
        except vmxkit.Error as e:
            raise self._error(e)
        return LintResult([_finding_dict(f) for f in found], [dict(path=found.path,
                                                                   format=_format(found.format))],
                          host is not None, warnings)

    def _connect(self, server):
        if server.validate_certs:
            context = ssl.create_default_context(cafile=os.environ.get("VMXKIT_CA_FILE") or None)
        else:
            context = ssl._create_unverified_context()
        try:
            proxy = {}
            if server.proxy_host:
                # SmartConnect takes a proxy from pyVmomi 8.0 on (6.7, Debian 12's, does not).
                if "httpProxyHost" not in inspect.signature(SmartConnect).parameters:
                    raise VmxkitError("proxy_host: this pyVmomi's SmartConnect takes no proxy "
                                      "(pyVmomi 8.0 does); give backend: binary")
                proxy = dict(httpProxyHost=server.proxy_host, httpProxyPort=server.proxy_port)
            return SmartConnect(host=server.hostname, port=server.port, user=server.username,
                                pwd=server.password, sslContext=context, **proxy)
        except vim.fault.InvalidLogin as e:
            raise VmxkitError("%s: Login: the server refused the user name or password "
                              "(InvalidLogin: %s)" % (server.url, e.msg))
        except ssl.SSLError as e:
            raise VmxkitError("%s: the server's TLS certificate does not verify (%s); give its "
                              "CA with VMXKIT_CA_FILE, or set validate_certs: false"
                              % (server.url, e))
        except vmodl.MethodFault as e:
            raise VmxkitError("%s: %s" % (server.url, e.msg))
        except (OSError, IOError) as e:
            raise VmxkitError("%s: cannot connect: %s" % (server.url, e))

    def _retrieve(self, si, objects, paths, obj_type):
        """[(object, {path: value})] of ``objects`` (or of a ContainerView's contents) in pages,
        as the binary reads them: one RetrievePropertiesEx and its continuations."""
        pc = si.content.propertyCollector
        Collector = vmodl.query.PropertyCollector
        if isinstance(objects, vim.view.ContainerView):
            traversal = Collector.TraversalSpec(name="view", path="view", skip=False,
                                                type=vim.view.ContainerView)
            object_specs = [Collector.ObjectSpec(obj=objects, skip=True, selectSet=[traversal])]
        else:
            object_specs = [Collector.ObjectSpec(obj=o, skip=False) for o in objects]
        spec = Collector.FilterSpec(objectSet=object_specs,
                                    propSet=[Collector.PropertySpec(type=obj_type,
                                                                    pathSet=paths)])
        out = []
        result = pc.RetrievePropertiesEx([spec], Collector.RetrieveOptions(maxObjects=_BATCH))
        while result is not None:
            for content in result.objects:
                out.append((content.obj, dict((p.name, p.val) for p in content.propSet or [])))
            if not result.token:
                break
            result = pc.ContinueRetrievePropertiesEx(result.token)
        return out

    def lint_vcenter(self, server, which, all_vms):
        si = self._connect(server)
        try:
            return self._lint_vcenter(si, server, which, all_vms)
        except vmodl.MethodFault as e:
            raise VmxkitError("%s: %s: %s" % (server.url, type(e).__name__, e.msg))
        finally:
            try:
                Disconnect(si)
            except Exception:  # a logout that fails changes nothing linted
                pass

    def _container(self, content, server, which):
        """The folder or datacenter ``which`` names (the root folder when none), as the binary
        finds it: an inventory path."""
        path = inventory_path(which)
        if path is None:
            return content.rootFolder
        found = content.searchIndex.FindByInventoryPath(path)
        if found is None:
            raise VmxkitError("%s: nothing at inventory path '%s'" % (server.url, path))
        return found

    def _lint_vcenter(self, si, server, which, all_vms):
        content = si.RetrieveContent()
        wanted = which.moid or which.name
        if which.uuid:
            datacenter = None
            if which.datacenter:
                datacenter = content.searchIndex.FindByInventoryPath("/" + which.datacenter)
            found = content.searchIndex.FindByUuid(datacenter, which.uuid, True,
                                                   bool(which.use_instance_uuid))
            if found is None:
                raise VmxkitError("%s: no VM with %s '%s'" % (
                    server.url, "instance UUID" if which.use_instance_uuid else "BIOS UUID",
                    which.uuid))
            wanted = found._moId
        view = content.viewManager.CreateContainerView(self._container(content, server, which),
                                                       [vim.VirtualMachine], True)
        try:
            listed = self._retrieve(si, view, ["name", "runtime.host"], vim.VirtualMachine)
        finally:
            view.DestroyView()
        # The binary takes a name or a moref, and every VM of that name.
        picked = [(vm, props) for vm, props in listed
                  if all_vms or props.get("name") == wanted or vm._moId == wanted]
        if not picked:
            raise VmxkitError("%s: no VM named '%s'" % (server.url, wanted))
        supports_vsphere_host = hasattr(vmxkit.Host, "from_vsphere")
        hosts = {}
        warnings = []
        if not supports_vsphere_host:
            warnings.append("this vmxkit package has no Host.from_vsphere: VMs are linted "
                            "without their host's PCIe tree (no TOPO rules); the binary backend "
                            "checks them")
        findings = []
        files = []
        host_checked = supports_vsphere_host
        for first in range(0, len(picked), _BATCH):
            batch = picked[first:first + _BATCH]
            configs = dict((vm._moId, props.get("config")) for vm, props in
                           self._retrieve(si, [vm for vm, _ in batch], ["config"],
                                          vim.VirtualMachine))
            for vm, props in batch:
                name = props.get("name", vm._moId)
                config = configs.get(vm._moId)
                if config is None:
                    raise VmxkitError("%s: VM '%s' (%s) vanished while it was listed or has no "
                                      "configuration; not linted" % (server.url, name, vm._moId))
                host = None
                esx = props.get("runtime.host")
                if supports_vsphere_host and esx is not None:
                    if esx._moId not in hosts:
                        try:
                            hosts[esx._moId] = vmxkit.Host.from_vsphere(esx)
                        except (vmxkit.Error, vmodl.MethodFault) as e:
                            # As the binary does: the VM is still linted, without the host.
                            warnings.append("%s host %s: %s; its VMs are linted without it"
                                            % (server.url, esx._moId,
                                               getattr(e, "msg", None) or e))
                            hosts[esx._moId] = None
                    host = hosts[esx._moId]
                if host is None:
                    host_checked = False
                try:
                    found = vmxkit.lint(config, host=host)
                except vmxkit.Error as e:
                    raise self._error(e)
                # Named as the binary names a live VM, so both backends report the same path.
                path = "%s/vm/%s" % (server.netloc, name)
                for f in found:
                    d = _finding_dict(f)
                    d["path"] = path
                    findings.append(d)
                # A live VM's configuration is the vSphere API's answer, which the binary reads
                # as SOAP (the package gets it through pyVmomi): named alike.
                files.append(dict(path=path, format="soap"))
        return LintResult(findings, files, host_checked, warnings)

    def output_formats(self):
        """The formats generate writes, from vmxkit's format table."""
        return vmxkit.output_formats()

    def _vcenter_host(self, server, name):
        """The ESXi host ``name`` read live: vmxkit.Host.from_vsphere (its UUID, vGPU types)."""
        si = self._connect(server)
        try:
            content = si.RetrieveContent()
            view = content.viewManager.CreateContainerView(content.rootFolder, [vim.HostSystem],
                                                           True)
            try:
                hosts = self._retrieve(si, view, ["name"], vim.HostSystem)
            finally:
                view.DestroyView()
            match = [h for h, props in hosts if props.get("name") == name or h._moId == name]
            if len(match) != 1:
                raise VmxkitError("%s: %s ESXi host named '%s' (the server has: %s)" % (
                    server.url, "no" if not match else len(match), name,
                    ", ".join(sorted(props.get("name", "") for _, props in hosts)) or "none"))
            if not hasattr(vmxkit.Host, "from_vsphere"):
                raise VmxkitError("this vmxkit package has no Host.from_vsphere; the binary "
                                  "backend (backend: binary) reads a host from vCenter")
            return vmxkit.Host.from_vsphere(match[0])
        except vmodl.MethodFault as e:
            raise VmxkitError("%s: %s: %s" % (server.url, type(e).__name__, e.msg))
        finally:
            try:
                Disconnect(si)
            except Exception:  # a logout that fails changes nothing planned
                pass

    def generate(self, request):
        gpus = request["gpus"]
        nic = request["nic"]
        try:
            if request.get("esxi_hostname"):
                host = self._vcenter_host(request["server"], request["esxi_hostname"])
                warnings = list(host.warnings)
            else:
                host, warnings = self._host(request["host"])
            plan = vmxkit.generate(
                host, gpus=gpus, nic=nic, vgpu=request.get("vgpu"),
                sriov=bool(request.get("sriov")), network=request.get("network") or "VM Network",
                memory_mb=request.get("memory_mb"), system_id=request.get("system_id") or "",
                allow_degraded=bool(request.get("allow_degraded")))
            content = plan.render(request["format"])
        except vmxkit.Error as e:
            raise self._error(e)
        except (ValueError, TypeError) as e:
            raise VmxkitError(str(e))
        return GenerateResult(content, [_device_dict(d) for d in plan.gpus],
                              [_device_dict(d) for d in plan.nics], plan.vgpu, plan.memory_mb,
                              list(plan.explanation), warnings)


# --------------------------------------------------------------------------------------------
# The binary


def _location(message, known_paths):
    """(path, line, column) that a message of the binary starts with, for the inputs it was
    given (a path may hold ':', so only known ones are matched).

    An error (exit 2) starts with ``FILE:LINE:COL: `` or ``FILE: ``: the command line's
    documented contract for errors (docs/cli.md, "Errors"), the form compilers and editors
    read too. So this parse stays, where results (findings, plans) come from JSON only."""
    for p in sorted(set(known_paths), key=len, reverse=True):
        if not message.startswith(p + ":"):
            continue
        m = re.match(r":(\d+):(\d+): ", message[len(p):])
        if m:
            return p, int(m.group(1)), int(m.group(2))
        return p, None, None
    m = re.match(r"(<[^>]*>):(\d+):(\d+): ", message)
    if m:
        return m.group(1), int(m.group(2)), int(m.group(3))
    return None, None, None


def _json_finding(d, path):
    """A diagnostic of `lint --format json` as the dict the Python backend makes."""
    fix = d.get("fix")
    return dict(
        rule=d["rule"], name=d["name"], severity=d["severity"], message=d["message"], path=path,
        line=d["start"]["line"], column=d["start"]["column"],
        notes=[dict(message=n["message"], line=n["start"]["line"], column=n["start"]["column"])
               for n in d.get("notes") or []],
        fix=dict(title=fix["title"], safety=fix["safety"]) if fix else None)


# The version of `generate --plan-json`'s document this module reads (its "schema" member).
_PLAN_SCHEMA = 1


def _plan_device(d):
    """A device of `generate --plan-json` as the dict the Python backend makes."""
    return dict(address=d["address"], label=d["label"], sriov_vf=bool(d["sriov_vf"]))


class BinaryBackend:
    name = "binary"

    def __init__(self, module, binary):
        self.module = module
        self.binary = binary

    def _run(self, args, known_paths, env=None):
        """(rc, stdout, stderr) of the binary; exit 2 and 3 raise VmxkitError."""
        environ = dict((k, "") for k in _SERVER_ENV)
        environ.update(env or {})
        # run_command's environ_update cannot unset; an empty value is "not given" to vmxkit.
        rc, out, err = self.module.run_command([self.binary] + args, environ_update=environ,
                                               encoding="utf-8", errors="replace")
        if rc in (0, 1):
            return rc, out, err
        errors = [line[len(_ERROR_PREFIX):] for line in err.splitlines()
                  if line.startswith(_ERROR_PREFIX)]
        message = "; ".join(errors) if errors else (err.strip() or "vmxkit exited with %d" % rc)
        if rc != 2:
            message = "vmxkit failed (exit %d): %s" % (rc, message)
        # The place is the first error's.
        path, line, column = _location(errors[0] if errors else message, known_paths)
        raise VmxkitError(message, path, line, column)

    def _warnings(self, err):
        return [line[len(_WARNING_PREFIX):] for line in err.splitlines()
                if line.startswith(_WARNING_PREFIX)]

    def _parse_lint(self, out, err, host_checked):
        try:
            doc = json.loads(out)
        except ValueError as e:
            raise VmxkitError("vmxkit lint printed no JSON (%s): %s" % (e, err.strip()))
        findings = []
        files = []
        for f in doc.get("files", []):
            files.append(dict(path=f["path"], format=f["format"]))
            findings.extend(_json_finding(d, f["path"]) for d in f.get("diagnostics", []))
        warnings = self._warnings(err)
        if any("linted without it" in w for w in warnings):
            host_checked = False
        return LintResult(findings, files, host_checked, warnings)

    def lint_file(self, path, host_paths):
        args = ["lint", "--format", "json", "--color", "never"]
        for h in host_paths or []:
            args += ["--host", h]
        # `--`: --host takes many values, and a path may start with '-'.
        rc, out, err = self._run(args + ["--", path], [path] + list(host_paths or []))
        return self._parse_lint(out, err, bool(host_paths))

    def lint_vcenter(self, server, which, all_vms):
        args = ["lint", "--server", server.url, "--format", "json", "--color", "never"]
        if all_vms:
            args.append("--all-vms")
        elif which.uuid:
            args += ["--instance-uuid" if which.use_instance_uuid else "--uuid", which.uuid]
        else:
            args += ["--vm", which.moid or which.name]
        path = inventory_path(which)
        if path is not None:
            args += ["--folder", path]
        if not server.validate_certs:
            args.append("--insecure")
        # Credentials through the environment only: never on a command line.
        env = dict(VMXKIT_USERNAME=server.username or "", VMXKIT_PASSWORD=server.password or "",
                   VMXKIT_PROXY=server.proxy or "")
        try:
            rc, out, err = self._run(args, [], env)
        except VmxkitError as e:
            if "certificate does not verify" in str(e):
                e.args = ("%s (with this module: validate_certs: false)" % e,)
            raise
        # The binary lints each VM against the host it runs on.
        return self._parse_lint(out, err, True)

    def _generate_args(self, request):
        args = ["generate", "--color", "never"]
        for h in request["host"]:
            args += ["--host", h]
        if request.get("esxi_hostname"):
            server = request["server"]
            args += ["--server", server.url, "--esx-host", request["esxi_hostname"]]
            if not server.validate_certs:
                args.append("--insecure")
        gpus = request["gpus"]
        if isinstance(gpus, int):
            args += ["--gpu", "auto", "--gpus", str(gpus)]
        elif gpus == "auto":
            args += ["--gpu", "auto"]
        else:
            for g in gpus:
                args += ["--gpu", g]
        nic = request["nic"]
        if nic == "auto":
            args += ["--nic", "auto"]
        elif nic:
            for n in nic:
                args += ["--nic", n]
        if request.get("vgpu"):
            args += ["--vgpu", request["vgpu"]]
        if request.get("sriov"):
            args.append("--sriov")
        if request.get("network"):
            args += ["--network", request["network"]]
        if request.get("memory_mb") is not None:
            args += ["--memory-mb", str(request["memory_mb"])]
        if request.get("system_id"):
            args += ["--system-id", request["system_id"]]
        if request.get("allow_degraded"):
            args.append("--allow-degraded")
        return args

    def output_formats(self):
        """The formats generate writes, from vmxkit's format table (`vmxkit formats`)."""
        rc, out, err = self._run(["formats", "--format", "json"], [])
        try:
            return [f["name"] for f in json.loads(out)["formats"] if f.get("output")]
        except (ValueError, KeyError, TypeError) as e:
            raise VmxkitError("vmxkit formats printed no format table (%s): %s" % (e, err.strip()))

    def generate(self, request):
        # One run: the plan's rendering to one file, the plan as data (`--plan-json`) to
        # another. Nothing is read from the rendering's comments or from stderr's prose.
        args = self._generate_args(request)
        out_path = os.path.join(self.module.tmpdir, "plan.out")
        json_path = os.path.join(self.module.tmpdir, "plan.json")
        try:
            env = None
            if request.get("server") is not None:
                # Credentials through the environment only: never on a command line.
                server = request["server"]
                env = dict(VMXKIT_USERNAME=server.username or "",
                           VMXKIT_PASSWORD=server.password or "", VMXKIT_PROXY=server.proxy or "")
            self._run(args + ["--format", request["format"], "-o", out_path, "--plan-json",
                              json_path], list(request["host"]), env)
            with open(out_path, "rb") as f:
                content = f.read()
            with open(json_path, "rb") as f:
                text = f.read().decode("utf-8", "replace")
        finally:
            for path in (out_path, json_path):
                if os.path.exists(path):
                    os.unlink(path)
        try:
            doc = json.loads(text)
            if doc.get("schema") != _PLAN_SCHEMA:
                raise ValueError("schema %r, this module reads %d" % (doc.get("schema"),
                                                                       _PLAN_SCHEMA))
            return GenerateResult(content, [_plan_device(d) for d in doc["gpus"]],
                                  [_plan_device(d) for d in doc["nics"]], doc["vgpu"],
                                  doc["memory_mb"], list(doc["explanation"]),
                                  list(doc["warnings"]))
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise VmxkitError("vmxkit generate --plan-json wrote no plan this module reads "
                              "(%s); is %s older than the collection?" % (e, self.binary))
