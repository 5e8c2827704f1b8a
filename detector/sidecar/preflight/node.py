"""Probes of what this node lets the sidecar read and do: the kernel log (``/dev/kmsg`` or
journalctl), NVML, ptrace for stack snapshots (py-spy), and the port of its ``/metrics``."""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import os
import socket
import subprocess
from pathlib import Path

from detector.sidecar.config import KMSG_JOURNAL, SidecarConfig
from detector.sidecar.preflight.files import probe_logs
from detector.sidecar.preflight.probe import Level, Outside, Probe

CAP_SYS_PTRACE = 19  # linux/capability.h


# --- kernel log ------------------------------------------------------------------------------

KMSG_FIX = ("run the sidecar as root or with CAP_SYSLOG (kernel.dmesg_restrict=1 refuses others; "
            "Kubernetes: securityContext.capabilities.add [SYSLOG] and /dev/kmsg mounted read-only)")


def probe_kernel(kmsg: str, out: Outside) -> Probe:
    what = f"kernel log {kmsg}"
    if kmsg == KMSG_JOURNAL:
        return _probe_journal(out)
    if kmsg != "/dev/kmsg":  # a plain file (a dmesg -w capture): followed like a log
        return dataclasses.replace(probe_logs(kmsg), what=what)
    journal = " or use --kmsg journalctl" if out.which("journalctl") else ""
    try:
        fd = os.open(kmsg, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return Probe(Level.FAIL, what, "no such device (a container without it?)",
                     "mount the host's /dev/kmsg (hostPath, type CharDevice)" + journal)
    except PermissionError:
        return Probe(Level.FAIL, what, f"permission denied (euid {out.euid()})", KMSG_FIX + journal)
    try:
        with contextlib.suppress(BlockingIOError):
            os.read(fd, 8192)
    except OSError as exc:
        if exc.errno not in (errno.EPIPE, errno.EAGAIN):  # EPIPE: a record was overwritten: readable
            return Probe(Level.FAIL, what, f"cannot read: {exc.strerror}", KMSG_FIX + journal)
    finally:
        os.close(fd)
    return Probe(Level.OK, what, "readable")


def _probe_journal(out: Outside) -> Probe:
    what = "kernel log journalctl"
    tool = out.which("journalctl")
    if tool is None:
        return Probe(Level.FAIL, what, "journalctl not found",
                     "install systemd's journalctl, or use --kmsg /dev/kmsg")
    try:
        res = subprocess.run([tool, "-k", "-n", "1", "--no-pager", "-q"], capture_output=True, text=True,
                             timeout=out.timeout_s, stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Probe(Level.FAIL, what, f"{tool} did not answer: {exc}", "check journald on this node")
    if res.returncode != 0:
        first = (res.stderr.strip().splitlines() or [f"exit {res.returncode}"])[0]
        return Probe(Level.FAIL, what, f"{tool} -k failed: {first}",
                     "add the sidecar's user to the systemd-journal (or adm) group, or use --kmsg /dev/kmsg")
    if not res.stdout.strip():
        return Probe(Level.WARN, what, "works, but the journal holds no kernel message",
                     "check that journald stores kernel messages (Storage=, ForwardToSyslog=)")
    return Probe(Level.OK, what, f"{tool} -k works")


# --- NVML and ptrace -------------------------------------------------------------------------------


def probe_nvml(out: Outside) -> Probe:
    what = "NVML"
    try:
        nvml = out.nvml_loader()
    except ImportError as exc:
        return Probe(Level.FAIL, what, f"nvidia-ml-py is not installed ({exc})", "pip install nvidia-ml-py")
    try:
        nvml.nvmlInit()
    except Exception as exc:  # NVMLError_LibraryNotFound, DriverNotLoaded, NoPermission, ...
        name = type(exc).__name__
        no_driver = "LibraryNotFound" in name or "DriverNotLoaded" in name
        detail = f"no NVIDIA driver here ({name})" if no_driver else f"nvmlInit failed: {name}: {exc}"
        return Probe(Level.FAIL, what, detail,
                     "install the NVIDIA driver (libnvidia-ml.so.1); in a container use the NVIDIA container "
                     "toolkit (NVIDIA_VISIBLE_DEVICES=all, NVIDIA_DRIVER_CAPABILITIES=utility); on a node "
                     "without GPUs: --no-nvml (nvml: false)")
    try:
        count = int(nvml.nvmlDeviceGetCount())
        version = nvml.nvmlSystemGetDriverVersion()
        version = version.decode() if isinstance(version, bytes) else str(version)
    except Exception as exc:
        return Probe(Level.FAIL, what, f"NVML answers nvmlInit but not queries: {type(exc).__name__}: {exc}",
                     "check the driver (nvidia-smi) on this node")
    finally:
        with contextlib.suppress(Exception):
            nvml.nvmlShutdown()
    if count == 0:
        return Probe(Level.WARN, what, f"driver {version}, but no GPU visible",
                     "set NVIDIA_VISIBLE_DEVICES=all for the sidecar, or --no-nvml on a node without GPUs")
    return Probe(Level.OK, what, f"driver {version}, {count} GPU(s)")


def _capabilities(status: Path) -> int | None:
    try:
        for line in status.read_text().splitlines():
            if line.startswith("CapEff:"):
                return int(line.split()[1], 16)
    except (OSError, ValueError, IndexError):
        return None
    return None


PTRACE_FIX = ("grant CAP_SYS_PTRACE (Kubernetes: securityContext.capabilities.add [SYS_PTRACE]; docker: "
              "--cap-add SYS_PTRACE) or run as the trainers' user with kernel.yama.ptrace_scope=0")


def probe_ptrace(config: SidecarConfig, out: Outside) -> list[Probe]:
    """Stack snapshots of stalled ranks: py-spy, and permission to attach to the ranks."""
    from detector.sidecar.sources.pyspy import find_tool

    configured = config.stacks.tool
    tool = find_tool(configured)
    probes = []
    if tool is None:
        probes.append(Probe(Level.WARN, "stacks py-spy", f"{configured or 'py-spy'} not found: a stalled rank's "
                            "stack is not taken (its /proc wait state still is)", "pip install py-spy"))
    else:
        probes.append(Probe(Level.OK, "stacks py-spy", tool))
    caps = _capabilities(out.proc_status)
    has_cap = caps is not None and bool(caps >> CAP_SYS_PTRACE & 1)
    try:
        scope: int | None = int(out.yama_scope.read_text().strip())
    except (OSError, ValueError):
        scope = None
    what = "stacks ptrace"
    cap = "CAP_SYS_PTRACE " + ("held" if has_cap else "not held")
    if scope == 3:
        probes.append(Probe(Level.WARN, what, "kernel.yama.ptrace_scope=3: no process may attach until reboot",
                            "set kernel.yama.ptrace_scope to 0-2 at boot"))
    elif has_cap:
        detail = "no Yama" if scope is None else f"kernel.yama.ptrace_scope={scope}"
        probes.append(Probe(Level.OK, what, f"{detail}, {cap}"))
    elif scope in (None, 0):
        detail = "no Yama" if scope is None else "kernel.yama.ptrace_scope=0"
        probes.append(Probe(Level.WARN, what, f"{detail}, {cap}: only ranks of the sidecar's own user can be "
                            "attached to", PTRACE_FIX))
    else:
        probes.append(Probe(Level.WARN, what, f"kernel.yama.ptrace_scope={scope} and {cap}: py-spy cannot attach "
                            "to the ranks", PTRACE_FIX))
    return probes


# --- the metrics port ----------------------------------------------------------------------------


def probe_metrics_addr(config: SidecarConfig) -> Probe:
    endpoint = config.metrics_endpoint()
    assert endpoint is not None
    host, port = endpoint
    what = f"metrics {config.metrics_addr}"
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return Probe(Level.WARN, what, "port in use (a sidecar running already?)",
                             "stop what holds it, or choose another --metrics-addr")
            return Probe(Level.FAIL, what, f"cannot listen: {exc.strerror}",
                         "use an address of this node (127.0.0.1, 0.0.0.0) and a free port")
    return Probe(Level.OK, what, "free to listen on")
