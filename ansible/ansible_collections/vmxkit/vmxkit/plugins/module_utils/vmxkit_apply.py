# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""``vmxkit apply`` for the vmxkit.vmxkit.apply module, with either backend of vmxkit_backend:

  - ``python``: ``vmxkit.apply()`` of the Python package (the library's own vSphere client; no
    pyVmomi needed);
  - ``binary``: ``vmxkit apply --format json``, with the credentials and the proxy in its
    environment (``VMXKIT_USERNAME``, ``VMXKIT_PASSWORD``, ``VMXKIT_PROXY``), never on its
    command line. Only its JSON document is read, and an error's message on stderr.

Both return the same dict: status, changed, vm {name, moref, power_state}, changes [{sign,
what}], placeholders, checks {passed, failed, not_checked}, task {moref, success, fault, message}
or None, left [{sign, what}], findings (as the lint module's).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import pathlib

from ansible_collections.vmxkit.vmxkit.plugins.module_utils.vmxkit_backend import (
    HAS_VMXKIT, VmxkitError, _ERROR_PREFIX, _SERVER_ENV, _finding_dict, _json_finding)

if HAS_VMXKIT:
    import vmxkit  # type: ignore[import]

# The statuses of an apply that stopped: the task fails.
FAILED = ("checks-failed", "task-failed", "not-held")
# The version of `vmxkit apply --format json`'s document this module reads.
_SCHEMA = 1


class VmSelector:
    """The VM, as the community.vmware modules name one."""

    def __init__(self, name=None, uuid=None, use_instance_uuid=False, moid=None, datacenter=None,
                 folder=None):
        self.name = name
        self.uuid = uuid
        self.use_instance_uuid = use_instance_uuid
        self.moid = moid
        self.datacenter = datacenter
        self.folder = folder


def failure_message(result):
    """What the task's msg says when the apply stopped (the same for both backends)."""
    status = result["status"]
    if status == "checks-failed":
        return "%d check(s) failed: nothing was sent, VM '%s' is unchanged: %s" % (
            len(result["checks"]["failed"]), result["vm"]["name"],
            "; ".join(result["checks"]["failed"]))
    task = result["task"] or {}
    if status == "task-failed":
        return "task %s failed: %s%s" % (task.get("moref"), task["fault"] + ": " if
                                         task.get("fault") else "", task.get("message"))
    return "the task succeeded but VM '%s' does not hold the plan: %s" % (
        result["vm"]["name"], "; ".join("%s %s" % (c["sign"], c["what"]) for c in result["left"]))


def diff_text(result, plan):
    """The change as `vmxkit apply` prints it: Ansible's `prepared` diff."""
    vm = result["vm"]
    lines = ["--- VM '%s' (%s), %s" % (vm["name"], vm["moref"], vm["power_state"]),
             "+++ plan %s" % plan]
    for c in result["changes"]:
        lines.append(("  (kept) " if c["sign"] == "=" else c["sign"] + " ") + c["what"])
    return "\n".join(lines) + "\n"


def _lines(lines):
    return [dict(sign=line.sign, what=line.what) for line in lines]


def _python_result(r):
    """A vmxkit.ApplyResult as the dict."""
    task = None
    if r.task is not None:
        task = dict(moref=r.task.moref, success=r.task.success, fault=r.task.fault,
                    message=r.task.message)
    return dict(status=r.status, changed=r.changed,
                vm=dict(name=r.vm, moref=r.moref, power_state=r.power_state),
                changes=_lines(r.diff), placeholders=list(r.placeholders),
                checks=dict(passed=list(r.checks_passed), failed=list(r.checks_failed),
                            not_checked=list(r.checks_not_checked)),
                task=task, left=_lines(r.left), findings=[_finding_dict(f) for f in r.findings])


def _python_apply(backend, server, which, plan, dry_run, firmware_change, task_timeout):
    if not hasattr(vmxkit, "apply"):
        raise VmxkitError("this vmxkit package has no apply(); the binary backend (backend: "
                          "binary) or a newer package does it")
    # The server, session and proxy are the task's: none from the module's environment.
    for name in _SERVER_ENV + ("VMXKIT_PROXY",):
        os.environ.pop(name, None)
    try:
        r = vmxkit.apply(
            pathlib.Path(plan), server=server.url, username=server.username,
            password=server.password, insecure=not server.validate_certs, proxy=server.proxy,
            vm=which.name, uuid=which.uuid, use_instance_uuid=bool(which.use_instance_uuid),
            moid=which.moid, datacenter=which.datacenter, folder=which.folder, dry_run=dry_run,
            firmware_change=firmware_change, task_timeout=task_timeout)
    except vmxkit.ApplyError as e:
        return _python_result(e.result)
    except vmxkit.Error as e:
        raise VmxkitError(str(e), getattr(e, "path", None), getattr(e, "line", None),
                          getattr(e, "column", None))
    except (TypeError, ValueError) as e:
        raise VmxkitError(str(e))
    return _python_result(r)


def _binary_args(server, which, plan, dry_run, firmware_change, task_timeout):
    args = ["apply", "--server", server.url, "--format", "json", "--color", "never",
            "--task-timeout", str(task_timeout)]
    if not server.validate_certs:
        args.append("--insecure")
    if which.name:
        args += ["--vm", which.name]
    if which.moid:
        args += ["--vm", which.moid]
    if which.uuid:
        args += ["--instance-uuid" if which.use_instance_uuid else "--uuid", which.uuid]
    if which.datacenter:
        args += ["--datacenter", which.datacenter]
    if which.folder:
        args += ["--folder", which.folder]
    if dry_run:
        args.append("--dry-run")
    if firmware_change:
        args.append("--firmware-change")
    # `--`: a plan path may start with '-'.
    return args + ["--", plan]


def _binary_result(doc):
    if doc.get("schema") != _SCHEMA:
        raise ValueError("schema %r, this module reads %d" % (doc.get("schema"), _SCHEMA))
    findings = []
    for f in (doc.get("lint") or {}).get("files", []):
        findings.extend(_json_finding(d, f["path"]) for d in f.get("diagnostics", []))
    vm = doc["vm"]
    return dict(status=doc["status"], changed=bool(doc["changed"]),
                vm=dict(name=vm["name"], moref=vm["moref"], power_state=vm["power_state"]),
                changes=list(doc["changes"]), placeholders=list(doc["placeholders"]),
                checks=dict(passed=list(doc["checks"]["passed"]),
                            failed=list(doc["checks"]["failed"]),
                            not_checked=list(doc["checks"]["not_checked"])),
                task=doc["task"], left=list(doc["left"]), findings=findings)


def _binary_apply(backend, server, which, plan, dry_run, firmware_change, task_timeout):
    environ = dict((k, "") for k in _SERVER_ENV)
    # Credentials through the environment only: never on a command line.
    environ.update(VMXKIT_USERNAME=server.username or "", VMXKIT_PASSWORD=server.password or "",
                   VMXKIT_PROXY=server.proxy or "")
    args = _binary_args(server, which, plan, dry_run, firmware_change, task_timeout)
    rc, out, err = backend.module.run_command([backend.binary] + args, environ_update=environ,
                                              encoding="utf-8", errors="replace")
    # An apply that ran prints its document (exit 0, 1 for findings, 2 when it stopped);
    # anything else is an error on stderr.
    if out.strip() and rc in (0, 1, 2):
        try:
            return _binary_result(json.loads(out))
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise VmxkitError("vmxkit apply --format json wrote no document this module reads "
                              "(%s); is %s older than the collection?" % (e, backend.binary))
    errors = [line[len(_ERROR_PREFIX):] for line in err.splitlines()
              if line.startswith(_ERROR_PREFIX)]
    message = "; ".join(errors) if errors else (err.strip() or "vmxkit exited with %d" % rc)
    if rc != 2:
        message = "vmxkit failed (exit %d): %s" % (rc, message)
    if "certificate does not verify" in message:
        message += " (with this module: validate_certs: false)"
    path = plan if message.startswith(plan + ":") else None
    raise VmxkitError(message, path)


def apply_plan(backend, server, which, plan, dry_run, firmware_change, task_timeout):
    """Runs the apply with ``backend`` (vmxkit_backend.open_backend()); returns the dict.
    Raises VmxkitError when it cannot run (no such VM, a server that refuses the login)."""
    run = _python_apply if backend.name == "python" else _binary_apply
    return run(backend, server, which, plan, dry_run, firmware_change, task_timeout)
