# SPDX-License-Identifier: Apache-2.0
"""Shared helpers of the integration tests: the vmxkit binary, the vCenter simulator, plans."""

import os
import re
import select
import signal
import socket
import socketserver
import subprocess
import tempfile
import threading
import time

VMXKIT = os.environ.get("VMXKIT_BINARY", "vmxkit")
VCSIM = os.environ.get("VMXKIT_VCSIM", "")
SOURCE_DIR = os.environ.get(
    "VMXKIT_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
PLANS_DIR = os.path.join(SOURCE_DIR, "tests", "data", "vsphere", "plans")
TIMEOUT = 60


def vmxkit(*args, stdin=None):
    """Runs vmxkit and returns stdout (bytes); raises with stderr when it fails."""
    r = subprocess.run([VMXKIT, *args], input=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=TIMEOUT, check=False)
    if r.returncode != 0:
        raise AssertionError("vmxkit %s failed (%d): %s" % (" ".join(args), r.returncode,
                                                            r.stderr.decode(errors="replace")))
    return r.stdout


def plans():
    return sorted(os.path.join(PLANS_DIR, f) for f in os.listdir(PLANS_DIR) if f.endswith(".vmx"))


def read_vmx(path):
    """The plan's settings, parsed independently of vmxkit (`key = "value"` lines)."""
    settings = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r'\s*([^=\s]+)\s*=\s*"(.*)"\s*$', line)
            if m:
                value = re.sub(r"\|([0-9A-Fa-f]{2})", lambda x: chr(int(x.group(1), 16)), m.group(2))
                settings.append((m.group(1), value))
    return settings


def api_id(vmx_id):
    """`00000:059:00.0` -> `0000:3b:00.0`."""
    seg, bus, rest = vmx_id.split(":")
    dev, fn = rest.split(".")
    return "%04x:%02x:%02x.%d" % (int(seg), int(bus), int(dev), int(fn))


def signed_short(value):
    v = int(value, 0)
    return v - 0x10000 if v >= 0x8000 else v


def expected_spec(path):
    """What the ConfigSpec of a plan must hold, computed here from the vmx text."""
    settings = read_vmx(path)
    devices = {}
    extra = []
    spec = {"extraConfig": extra, "devices": devices}
    for key, value in settings:
        m = re.match(r"pciPassthru(\d+)\.(.+)$", key)
        if key == "memsize":
            spec["memoryMB"] = int(value)
        elif key == "firmware":
            spec["firmware"] = value
        elif key == "sched.mem.pin":
            spec["memoryReservationLockedToMax"] = value.upper() == "TRUE"
        elif m and m.group(2) in ("present", "id", "deviceId", "vendorId", "systemId", "pfId",
                                  "vgpu", "allowedDevices", "customLabel", "networkName"):
            devices.setdefault(int(m.group(1)), {})[m.group(2)] = value
        else:
            extra.append((key, value))
    return spec


class Simulator:
    """govmomi's vCenter simulator on 127.0.0.1, started and stopped by the tests."""

    def __init__(self, *args):
        """`args`: the simulator's options (-vms N, -delay METHOD=MS, -vanish NAME...)."""
        if not VCSIM:
            raise RuntimeError("VMXKIT_VCSIM is not set")
        # Its log goes to a file: a pipe nobody reads would stop it once full.
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([VCSIM, "-timeout", "300s", *args], stdout=subprocess.PIPE,
                                     stderr=self.log, start_new_session=True)
        deadline = time.monotonic() + 60
        line = b""
        while time.monotonic() < deadline and not line:
            if self.proc.poll() is not None:
                self.log.seek(0)
                raise RuntimeError("vcsim exited: " + self.log.read().decode(errors="replace"))
            # Wait for output without blocking past the deadline.
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.5)
            if ready:
                line = self.proc.stdout.readline()
        if not line:
            self.stop()
            raise RuntimeError("vcsim printed no URL in 60s")
        self.url, self.vm_moref, self.vm_name = line.decode().split()

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self.proc.stdout.close()
        self.log.close()


class ConnectProxy(socketserver.ThreadingTCPServer):
    """An HTTP CONNECT proxy on 127.0.0.1 that relays bytes and remembers each target."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self):
        self.targets = []
        super().__init__(("127.0.0.1", 0), ProxyHandler)
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.server_address[1]

    def stop(self):
        self.shutdown()
        self.server_close()


class ProxyHandler(socketserver.StreamRequestHandler):
    def handle(self):
        request = self.rfile.readline().decode("latin-1").split()
        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
            pass
        if len(request) < 2 or request[0] != "CONNECT":
            self.wfile.write(b"HTTP/1.1 405 Method Not Allowed\r\n\r\n")
            return
        host, port = request[1].rsplit(":", 1)
        self.server.targets.append(request[1])
        upstream = socket.create_connection((host, int(port)), timeout=30)
        self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        self.wfile.flush()
        sockets = [self.connection, upstream]
        try:
            while True:
                ready, _, _ = select.select(sockets, [], [], 30)
                if not ready:
                    return
                for s in ready:
                    data = s.recv(65536)
                    if not data:
                        return
                    (upstream if s is self.connection else self.connection).sendall(data)
        finally:
            upstream.close()
