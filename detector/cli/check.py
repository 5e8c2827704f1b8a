"""``rankdoctor check``: probe, on this node, every source and hook a sidecar would use.

It takes the same options and config file as ``rankdoctor watch`` (the same parser and config
code), and prints one line per probe — ``OK``, ``WARN`` or ``FAIL``, what was probed, what was
found and, when something is wrong, the fix (a permission, a capability, a package, a URL).
Exit 0 when everything configured works (warnings allowed), 1 when something configured fails,
2 on usage errors. Nothing is started, written or sent: files are opened for reading, the
state folders are checked with ``access(2)``, Prometheus gets one GET with a short timeout.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import glob
import os
import shutil
import socket
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, TextIO

from detector.errors import ConfigError, RankdoctorError
from detector.sidecar.config import KMSG_JOURNAL, SidecarConfig

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
CAP_SYS_PTRACE = 19  # linux/capability.h
YAMA_SCOPE = Path("/proc/sys/kernel/yama/ptrace_scope")
WALK_LIMIT = 20_000  # files looked at under one --logs folder
DESCRIPTION = """\
Probe every source and hook that `rankdoctor watch` would use on this node, with the same
options and config file: log paths readable, the kernel log (/dev/kmsg or journalctl), NVML,
ptrace for stack snapshots (py-spy), Prometheus, the remediation hooks' commands and URLs, and
the state folders. One line per probe: OK / WARN / FAIL, what, and the fix.
Exit 0: everything configured works; 1: something configured fails; 2: usage error.
"""


class Level(StrEnum):
    OK = "OK"
    WARN = "WARN"
    FAIL = "FAIL"


@dataclass(frozen=True, slots=True)
class Probe:
    level: Level
    what: str
    detail: str
    fix: str = ""

    def line(self) -> str:
        """One line, whatever the detail holds (a multi-line config error is joined)."""
        text = f"{self.level.value:<4}  {self.what}: {self.detail}"
        if self.fix and self.level is not Level.OK:
            text += f" -- fix: {self.fix}"
        return " / ".join(part.strip() for part in text.splitlines() if part.strip())


def _http_get(url: str, timeout: float) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"User-Agent": "rankdoctor-check"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as resp:  # http(s) only, checked before
            return int(resp.status), resp.read(1 << 20)
    except urllib.error.HTTPError as exc:
        return int(exc.code), b""


def _nvml() -> Any:
    import pynvml

    return pynvml


@dataclass
class Outside:
    """What the probes look at; tests replace any of it."""

    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    which: Callable[[str], str | None] = shutil.which
    http_get: Callable[[str, float], tuple[int, bytes]] = _http_get
    nvml_loader: Callable[[], Any] = _nvml
    proc_status: Path = Path("/proc/self/status")
    yama_scope: Path = YAMA_SCOPE
    euid: Callable[[], int] = os.geteuid
    timeout_s: float = 3.0


# --- files -------------------------------------------------------------------------------


def _denied_fix(path: str) -> str:
    return (f"give the sidecar's user read access ('setfacl -R -m u:USER:rX {path}', or run it as the "
            "trainers' user or group); in a pod mount the log volume into the sidecar")


def probe_logs(spec: str) -> Probe:
    what = f"logs {spec}"
    if any(c in spec for c in "*?["):
        matches = [p for p in glob.glob(spec, recursive=True) if os.path.isfile(p)]
        if not matches:
            return Probe(Level.WARN, what, "no file matches yet (files that appear later are followed)",
                         "check the pattern if the trainers already write logs")
        return _files(what, matches, spec)
    path = Path(spec)
    if path.is_dir():
        if not os.access(path, os.R_OK | os.X_OK):
            return Probe(Level.FAIL, what, "folder not readable (permission denied)", _denied_fix(spec))
        return _files(what, list(_walk(path)), spec, folder=True)
    if path.exists():
        return _files(what, [str(path)], spec)
    parent = path.parent
    if parent.is_dir():
        return Probe(Level.WARN, what, "does not exist yet (followed once it appears)",
                     "check the path if the trainers already write logs")
    return Probe(Level.FAIL, what, f"neither it nor its folder {parent} exists",
                 "fix the path, or mount the trainers' log volume into the sidecar")


def _walk(root: Path) -> Iterator[str]:
    count = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            count += 1
            if count > WALK_LIMIT:
                return
            yield os.path.join(dirpath, name)


def _files(what: str, files: Sequence[str], spec: str, *, folder: bool = False) -> Probe:
    unreadable = [f for f in files if not os.access(f, os.R_OK)]
    readable = len(files) - len(unreadable)
    if unreadable and not readable:
        return Probe(Level.FAIL, what, f"{len(unreadable)} file(s), none readable (first: {unreadable[0]})",
                     _denied_fix(spec))
    if unreadable:
        return Probe(Level.WARN, what, f"{readable} readable, {len(unreadable)} not (first: {unreadable[0]})",
                     _denied_fix(spec))
    if folder and not files:
        return Probe(Level.OK, what, "folder readable, no files yet (new files are followed)")
    return Probe(Level.OK, what, f"{len(files)} file(s) readable")


def probe_writable(what: str, path: Path, *, is_file: bool = False) -> Probe:
    """A folder (or a file's folder) the sidecar will write: it, or the nearest existing
    ancestor it would be created in, must be writable."""
    target = path.parent if is_file else path
    existing = target
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return Probe(Level.FAIL, what, f"{existing} is not a folder", f"point it at a folder ({path})")
    if not os.access(existing, os.W_OK | os.X_OK):
        return Probe(Level.FAIL, what, f"{existing} is not writable",
                     f"make {target} writable for the sidecar's user (in a pod: a volume at {target})")
    note = "writable" if existing == target else f"will be created in {existing}"
    return Probe(Level.OK, what, f"{path}: {note}")


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
    from detector.sidecar.sources.stacks import find_tool

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


# --- Prometheus -------------------------------------------------------------------------------


def probe_prometheus(url: str, out: Outside, timeout_s: float) -> list[Probe]:
    what = f"prometheus {url}"
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return [Probe(Level.FAIL, what, "not an http:// or https:// URL", "e.g. http://prometheus.monitoring:9090")]
    base = url.rstrip("/")
    try:
        status, _ = out.http_get(f"{base}/-/ready", timeout_s)
        if status == 404:  # a Prometheus-compatible API without /-/ready (Thanos Query, Mimir, ...)
            status, _ = out.http_get(f"{base}/api/v1/query?query=1", timeout_s)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return [Probe(Level.FAIL, what, f"unreachable within {timeout_s:g} s: {reason}",
                      "check the URL and that this node may reach it (network policy, firewall, proxy "
                      "variables)")]
    if status != 200:
        return [Probe(Level.FAIL, what, f"answered HTTP {status}", "check the URL (and a path prefix, if any)")]
    probes = [Probe(Level.OK, what, "ready")]
    query = "count(DCGM_FI_DEV_XID_ERRORS) or count(DCGM_FI_DEV_XID_ERROR)"
    try:
        status, body = out.http_get(f"{base}/api/v1/query?" + urllib.parse.urlencode({"query": query}), timeout_s)
        has_dcgm = status == 200 and b'"result":[]' not in body.replace(b" ", b"")
    except (urllib.error.URLError, OSError, ValueError):
        has_dcgm = False
    if not has_dcgm:
        probes.append(Probe(Level.WARN, "prometheus DCGM series", "no DCGM_FI_DEV_XID_ERRORS series: GPU faults "
                            "come only from the kernel log and NVML", "let this Prometheus scrape dcgm-exporter (:9400)"))
    else:
        probes.append(Probe(Level.OK, "prometheus DCGM series", "present"))
    return probes


# --- remediation hooks -----------------------------------------------------------------------


def _binary(what: str, name: str, out: Outside, fix: str) -> Probe:
    found = out.which(name)
    if found is None:
        return Probe(Level.FAIL, what, f"{name} not found", fix)
    return Probe(Level.OK, what, found)


def probe_hooks(config: SidecarConfig, out: Outside) -> list[Probe]:
    from detector.remediation.config import parse_remediation
    from detector.remediation.exec.process import SubprocessRunner
    from detector.remediation.hooks.base import HookEnv
    from detector.remediation.hooks.registry import build_hook, installed_entry_points
    from detector.remediation.hooks.webhook import UrllibPoster, public_url
    from detector.support.clock import SystemClock

    path = config.path or "<command line>"
    base_dir = Path(config.path).resolve().parent if config.path else Path.cwd()
    try:
        rcfg = parse_remediation(dict(config.remediation or {}), path, base_dir=base_dir, environ=out.environ,
                                 line=config.remediation_line)
    except ConfigError as exc:
        return [Probe(Level.FAIL, "remediation", exc.format(), "fix the remediation: section")]
    probes = [probe_writable("remediation state_dir", rcfg.state_dir),
              probe_writable("remediation audit_log", rcfg.audit_log, is_file=True)]
    # the hooks are built (every setting checked) but never called: nothing runs, nothing is posted
    env = HookEnv(runner=SubprocessRunner(), clock=SystemClock(), poster=UrllibPoster(), environ=out.environ)
    for spec in rcfg.hooks:
        what = f"hook {spec.label} ({spec.type})"
        try:
            build_hook(spec, env, installed_entry_points)
        except ConfigError as exc:
            probes.append(Probe(Level.FAIL, what, exc.format(), "fix this hook's settings"))
            continue
        s = spec.settings
        if spec.type == "slurm":
            fix = "install the Slurm client (Debian: slurm-client) on this node, or set the hook's {key}: PATH"
            probes.append(_binary(f"{what} scontrol", s.get_str("scontrol", "scontrol"), out,
                                  fix.format(key="scontrol")))
            if s.get_str("resubmit", "requeue") == "sbatch":
                for key in ("sbatch", "scancel"):
                    probes.append(_binary(f"{what} {key}", s.get_str(key, key), out, fix.format(key=key)))
        elif spec.type == "kubernetes":
            probes.append(_binary(f"{what} kubectl", s.get_str("kubectl", "kubectl"), out,
                                  "install kubectl in the sidecar image, or set the hook's kubectl: PATH"))
            kubeconfig = s.get_str("kubeconfig", None)
            if kubeconfig and not os.access(kubeconfig, os.R_OK):
                probes.append(Probe(Level.FAIL, f"{what} kubeconfig", f"{kubeconfig} not readable",
                                    "mount the kubeconfig (or use the pod's service account: no kubeconfig)"))
        elif spec.type == "command":
            program = s.get_str_list("argv")[0]
            probes.append(_binary(f"{what} argv[0]", program, out, "install it or give its full path in argv"))
        elif spec.type == "webhook":
            url = s.get_secret("url")
            probes.append(Probe(Level.OK, what, f"posts to {public_url(str(url))}"))
        elif spec.type == "checkpoint":
            folder = s.get_str("dir")
            ok = os.path.isdir(folder) and os.access(folder, os.R_OK | os.X_OK)
            probes.append(Probe(Level.OK, what, f"{folder} readable") if ok else
                          Probe(Level.WARN, what, f"{folder} is not a readable folder (yet)",
                                "mount the checkpoint folder read-only into the sidecar"))
        else:
            probes.append(Probe(Level.OK, what, "plugin loaded"))
    return probes


# --- all of it -----------------------------------------------------------------------------


def run_probes(config: SidecarConfig, out: Outside) -> list[Probe]:
    """Every probe for ``config``, in the order a person reads them."""
    probes: list[Probe] = []
    try:
        from detector.rules.compile import load_ruleset

        rules = load_ruleset(config.rules, engine=config.engine)
        probes.append(Probe(Level.OK, "rules", f"{len(rules.rules)} rules compiled"))
    except RankdoctorError as exc:
        detail = exc.format() if isinstance(exc, ConfigError) else str(exc)
        probes.append(Probe(Level.FAIL, "rules", detail, "fix the rule file (rankdoctor rules validate PATH)"))
    probes.extend(probe_logs(spec) for spec in config.logs)
    if config.kmsg:
        probes.append(probe_kernel(config.kmsg, out))
    if config.nvml:
        probes.append(probe_nvml(out))
    if config.processes.enabled:
        root = config.processes.proc_root
        probes.append(Probe(Level.OK, "processes", f"{root} readable") if os.access(root, os.R_OK | os.X_OK)
                      else Probe(Level.FAIL, "processes", f"{root} not readable",
                                 "mount /proc (shareProcessNamespace in a pod) or processes.enabled: false"))
        if config.stacks.enabled:
            probes.extend(probe_ptrace(config, out))
    if config.prometheus.url:
        probes.extend(probe_prometheus(config.prometheus.url, out, min(out.timeout_s, config.prometheus.timeout_s)))
    if config.state_dir is not None:
        probes.append(probe_writable("state_dir", config.state_dir))
    if config.incidents is not None:
        probes.append(probe_writable("incidents", config.incidents, is_file=True))
    if config.metrics_addr:
        probes.append(probe_metrics_addr(config))
    if config.remediate and config.remediation is not None:
        probes.extend(probe_hooks(config, out))
    return probes


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


def report(probes: Iterable[Probe], stdout: TextIO) -> int:
    counts = dict.fromkeys(Level, 0)
    for probe in probes:
        counts[probe.level] += 1
        print(probe.line(), file=stdout)
    print(f"{counts[Level.OK]} ok, {counts[Level.WARN]} warnings, {counts[Level.FAIL]} failed", file=stdout)
    return EXIT_FAILED if counts[Level.FAIL] else EXIT_OK


def build_parser() -> Any:
    from detector.cli.watch import build_parser as watch_parser

    parser = watch_parser()  # the same source options as watch, so that one command line fits both
    parser.prog = "rankdoctor check"
    parser.description = DESCRIPTION
    parser.add_argument("--timeout", type=float, default=3.0, metavar="SECONDS",
                        help="limit for each network probe (default 3)")
    return parser


def main(argv: Sequence[str] | None = None, *, outside: Outside | None = None,
         stdout: TextIO | None = None) -> int:
    from detector.cli.watch import config_from_args

    stdout = stdout or sys.stdout
    try:
        args = build_parser().parse_args(list(argv) if argv is not None else None)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return int(exc.code or 0)
    if args.timeout <= 0:
        print("rankdoctor check: --timeout must be positive", file=sys.stderr)
        return EXIT_USAGE
    out = outside or Outside()
    out.timeout_s = args.timeout
    try:
        config = config_from_args(args, dict(out.environ))
    except RankdoctorError as exc:
        detail = exc.format() if isinstance(exc, ConfigError) else str(exc)
        if args.config is None or str(args.config) not in detail:  # a bad option: a usage error
            print(f"rankdoctor check: error: {detail}", file=sys.stderr)
            return EXIT_USAGE
        print(Probe(Level.FAIL, "config", detail, "fix the config file").line(), file=stdout)
        print("0 ok, 0 warnings, 1 failed", file=stdout)
        return EXIT_FAILED
    if not (config.logs or config.kmsg or config.coordinator.enabled or config.prometheus.url):
        print("rankdoctor check: nothing to check: give --logs, --kmsg, --prometheus or --config", file=sys.stderr)
        return EXIT_USAGE
    probes = []
    if config.path:
        probes.append(Probe(Level.OK, "config", f"{config.path} valid"))
    probes.extend(run_probes(config, out))
    return report(probes, stdout)
