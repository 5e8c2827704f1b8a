"""The sidecar's config file (``rankdoctor watch --config FILE``), validated up front.

```yaml
logs: [/logs, "/shared/job-*/rank_*.log"]   # directories (followed recursively) and globs
kmsg: /dev/kmsg                  # /dev/kmsg, a plain file (dmesg -w capture) or "journalctl"
kmsg_from_start: false           # read kernel records already in the buffer / file
nvml: true                       # Xid events and a 1 Hz poll of ECC, row remap, clocks
nvml_poll_s: 1.0
prometheus: {url: http://prom:9090, interval_s: 15, timeout_s: 5, nodes: [node01, node02]}
state_dir: /var/lib/rankdoctor/sidecar      # SQLite: offsets, reported incidents
incidents: /var/log/rankdoctor/incidents.jsonl
metrics_addr: 127.0.0.1:9108     # null: no /metrics endpoint
node: node01                     # this node's name (default: the host name)
job: train-42                    # the job label on every exported series
rules: [/etc/rankdoctor/rules]   # extra rule files or folders over the shipped ones
engine: auto                     # auto | hyperscan | re
rank_gpus: ["0=0000:3b:00", "1=0000:5e:00"]   # global rank -> PCI id, where no NCCL line says
processes: {enabled: true, proc_root: /proc, poll_s: 0.1, discover_s: 2.0, match_env: {}}
stacks: {enabled: true, tool: null, native: true, timeout_s: 10.0, parallel: 8}
                                 # py-spy stacks of the local ranks when the stall rule fires
                                 # (tool: path or name; null: py-spy on PATH or beside this Python)
detection: {poll_s: 0.2, settle_s: 0.5, collateral_wait_s: 3.0, exit_wait_s: 2.0, confirm_wait_s: 5.0,
            recovery_s: 30.0, time_tolerance_s: 120.0, history_s: 0}
                                 # (history_s: begun with no state, lines stamped longer ago -
                                 # finished runs' beside the job - are no incidents; 0: off)
hang: {enabled: true, k: 5, floor_s: 30, min_intervals: 5, step_preset: null, step_pattern: null}
coordinator: {enabled: false, interval_s: 2.0}
remediate: true                  # hand incidents to remediation (false on nodes under a coordinator)
act: false                       # dry-run unless true (or --act)
remediation: {...}               # passed unchanged to detector.remediation.config.parse_remediation
```

Relative paths are taken from the config file's folder. Unknown keys are refused with the file
and line. Command-line options override the file (see :func:`with_overrides`).
"""

from __future__ import annotations

import dataclasses
import re
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from detector.errors import ConfigError
from detector.sources.pci import normalize_pci
from detector.support.settings import Settings
from detector.support.yamlfile import YamlMap, load_yaml_file

_ADDR = re.compile(r"^(?P<host>\[[0-9a-fA-F:]+\]|[A-Za-z0-9_.-]+):(?P<port>\d{1,5})$")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}")
KMSG_JOURNAL = "journalctl"


@dataclass(frozen=True, slots=True)
class PrometheusConfig:
    url: str | None = None
    interval_s: float = 15.0
    timeout_s: float = 5.0
    nodes: tuple[str, ...] = ()  # DCGM series of these hosts; default: this node


@dataclass(frozen=True, slots=True)
class ProcessConfig:
    enabled: bool = True
    proc_root: Path = Path("/proc")
    poll_s: float = 0.1
    discover_s: float = 2.0
    match_env: tuple[tuple[str, str], ...] = ()  # only processes whose environment has these


@dataclass(frozen=True, slots=True)
class StacksConfig:
    enabled: bool = True
    tool: str | None = None  # py-spy's path or name; None: on PATH, else beside this Python
    native: bool = True  # --native (C/C++ frames: c10d, NCCL, CUDA); retried without when it fails
    timeout_s: float = 10.0  # per rank and dump
    parallel: int = 8  # ranks dumped at once


@dataclass(frozen=True, slots=True)
class DetectionConfig:
    poll_s: float = 0.2  # how often followed files are checked for new data
    settle_s: float = 0.5  # after initiator-grade evidence, wait this long for corroboration
    collateral_wait_s: float = 3.0  # only collateral evidence: wait this long for an initiator
    exit_wait_s: float = 2.0  # only "process exited" evidence: wait this long for the reason
    # an exception (or a CUDA OOM) that nothing confirms - no exit, no launcher's failure, no peer's
    # error - waits this long for the job to show whether it goes on (a caught, logged exception)
    confirm_wait_s: float = 5.0
    recovery_s: float = 30.0  # progress this long after an incident closes its episode
    time_tolerance_s: float = 120.0  # a live line's own time farther than this from now is ignored
    # a watch begun with no state: lines stamped longer ago than this (finished runs', in a folder
    # of many runs) are read for who is who, not attributed; 0 (the default): every line is
    history_s: float = 0.0


@dataclass(frozen=True, slots=True)
class HangConfig:
    enabled: bool = True
    k: float = 5.0
    floor_s: float = 30.0
    min_intervals: int = 5
    boundary_multiple: int = 50
    boundary_pause_s: float = 300.0
    note_pause_s: float = 600.0
    step_preset: str | None = None  # a name from detector.stats.steps.PRESETS
    step_pattern: str | None = None  # or a custom pattern with a (?P<step>...) group


@dataclass(frozen=True, slots=True)
class CoordinatorConfig:
    enabled: bool = False
    interval_s: float = 2.0


@dataclass(frozen=True, slots=True)
class SidecarConfig:
    path: str | None = None  # the config file, None when built from the command line only
    logs: tuple[str, ...] = ()
    kmsg: str | None = None
    kmsg_from_start: bool = False
    nvml: bool = True
    nvml_poll_s: float = 1.0
    prometheus: PrometheusConfig = PrometheusConfig()
    state_dir: Path | None = None
    incidents: Path | None = None
    metrics_addr: str | None = "127.0.0.1:9108"
    node: str | None = None
    job: str = "default"
    rules: tuple[Path, ...] = ()
    engine: str = "auto"
    rank_gpus: tuple[tuple[int, str], ...] = ()
    processes: ProcessConfig = ProcessConfig()
    stacks: StacksConfig = StacksConfig()
    detection: DetectionConfig = DetectionConfig()
    hang: HangConfig = HangConfig()
    coordinator: CoordinatorConfig = CoordinatorConfig()
    remediate: bool = True
    act: bool = False
    remediation: Mapping[str, Any] | None = field(default=None, compare=False)
    remediation_line: int | None = None

    def node_name(self) -> str:
        return self.node or socket.gethostname().split(".")[0]

    def metrics_endpoint(self) -> tuple[str, int] | None:
        return parse_addr(self.metrics_addr, self.path or "--metrics-addr", None) if self.metrics_addr else None


def parse_addr(value: str, path: str, line: int | None) -> tuple[str, int]:
    """``host:port`` (IPv6 in brackets) -> (host, port)."""
    m = _ADDR.match(value.strip())
    if m is None or not 0 <= int(m["port"]) < 65536:
        raise ConfigError(path, line, f"metrics_addr: {value!r} is not HOST:PORT (e.g. 127.0.0.1:9108)")
    return m["host"].strip("[]"), int(m["port"])


def parse_rank_gpu(value: str, path: str = "--rank-gpu", line: int | None = None) -> tuple[int, str]:
    """``RANK=PCI`` (``2=0000:3b:00``) -> (2, "0000:3b:00")."""
    rank_text, sep, pci_text = value.partition("=")
    pci = normalize_pci(pci_text) if sep else None
    if not rank_text.strip().isdigit() or pci is None:
        raise ConfigError(path, line, f"rank GPU {value!r} is not RANK=PCI_ID (e.g. 2=0000:3b:00)")
    return int(rank_text), pci


def _path(value: str, base: Path) -> Path:
    p = Path(value).expanduser()
    return p if p.is_absolute() else base / p


def _opt_path(s: Settings, key: str, base: Path) -> Path | None:
    value = s.get_str(key, None)
    return _path(value, base) if value else None


def _prometheus(sec: Settings) -> PrometheusConfig:
    out = PrometheusConfig(
        url=sec.get_str("url", None),
        interval_s=sec.get_float("interval_s", 15.0, minimum=0.1, maximum=3600.0),
        timeout_s=sec.get_float("timeout_s", 5.0, minimum=0.1, maximum=300.0),
        nodes=tuple(_names(sec, "nodes")),
    )
    sec.done()
    return out


def _names(s: Settings, key: str) -> list[str]:
    names = list(s.get_str_list(key))
    for name in names:
        if not _NAME.fullmatch(name):
            raise s.error(key, f"{name!r} is not a node name")
    return names


def _processes(s: Settings, base: Path) -> ProcessConfig:
    out = ProcessConfig(
        enabled=s.get_bool("enabled", True),
        proc_root=_path(s.get_str("proc_root", "/proc"), base),
        poll_s=s.get_float("poll_s", 0.1, minimum=0.01, maximum=60.0),
        discover_s=s.get_float("discover_s", 2.0, minimum=0.1, maximum=600.0),
        match_env=tuple(sorted(s.get_str_map("match_env").items())),
    )
    s.done()
    return out


def _stacks(s: Settings, base: Path) -> StacksConfig:
    tool = s.get_str("tool", None)
    if tool is not None and (not tool.strip() or "\0" in tool):
        raise s.error("tool", "stacks.tool must be a path or a program name")
    if tool is not None and ("/" in tool or tool.startswith(".")):
        tool = str(_path(tool, base))
    out = StacksConfig(
        enabled=s.get_bool("enabled", True),
        tool=tool,
        native=s.get_bool("native", True),
        timeout_s=s.get_float("timeout_s", 10.0, minimum=0.1, maximum=600.0),
        parallel=s.get_int("parallel", 8, minimum=1),
    )
    s.done()
    return out


def _detection(s: Settings) -> DetectionConfig:
    out = DetectionConfig(
        poll_s=s.get_float("poll_s", 0.2, minimum=0.01, maximum=10.0),
        settle_s=s.get_float("settle_s", 0.5, minimum=0.0, maximum=60.0),
        collateral_wait_s=s.get_float("collateral_wait_s", 3.0, minimum=0.0, maximum=600.0),
        exit_wait_s=s.get_float("exit_wait_s", 2.0, minimum=0.0, maximum=600.0),
        confirm_wait_s=s.get_float("confirm_wait_s", 5.0, minimum=0.0, maximum=600.0),
        recovery_s=s.get_float("recovery_s", 30.0, minimum=0.0, maximum=86400.0),
        time_tolerance_s=s.get_float("time_tolerance_s", 120.0, minimum=1.0, maximum=86400.0),
        history_s=s.get_float("history_s", 0.0, minimum=0.0, maximum=365 * 86400.0),
    )
    s.done()
    return out


def _hang(s: Settings) -> HangConfig:
    preset = s.get_str("step_preset", None)
    pattern = s.get_str("step_pattern", None)
    if preset and pattern:
        raise s.error("step_pattern", "give either step_preset or step_pattern, not both")
    if preset or pattern:
        from detector.stats.steps import custom_preset, preset_by_name

        if preset:
            preset_by_name(preset, where=s.path, line=s.line_of("step_preset"))
        else:
            custom_preset(str(pattern), where=s.path, line=s.line_of("step_pattern"))
    out = HangConfig(
        enabled=s.get_bool("enabled", True),
        k=s.get_float("k", 5.0, minimum=0.1, maximum=1000.0),
        floor_s=s.get_float("floor_s", 30.0, minimum=0.1, maximum=86400.0),
        min_intervals=s.get_int("min_intervals", 5, minimum=1),
        boundary_multiple=s.get_int("boundary_multiple", 50, minimum=0),
        boundary_pause_s=s.get_float("boundary_pause_s", 300.0, minimum=0.0),
        note_pause_s=s.get_float("note_pause_s", 600.0, minimum=0.0),
        step_preset=preset,
        step_pattern=pattern,
    )
    s.done()
    return out


def _rank_gpus(s: Settings) -> tuple[tuple[int, str], ...]:
    out = [parse_rank_gpu(item, s.path, s.line_of("rank_gpus")) for item in s.get_str_list("rank_gpus")]
    return tuple(sorted(out))


def _metrics_addr(s: Settings, data: Mapping[str, Any]) -> str | None:
    if "metrics_addr" in data and data["metrics_addr"] is None:
        s.get_str("metrics_addr", None)
        return None  # metrics_addr: null turns the endpoint off
    value: str = s.get_str("metrics_addr", "127.0.0.1:9108")
    parse_addr(value, s.path, s.line_of("metrics_addr"))
    return value


def parse_config(data: Any, path: str, *, base_dir: Path, environ: Mapping[str, str]) -> SidecarConfig:
    """Validate a parsed config document (a mapping from :func:`~detector.support.yamlfile.load_yaml_file`)."""
    if data is None:
        data = YamlMap(1, 1)
    if not isinstance(data, Mapping):
        raise ConfigError(path, 1, f"the config must be a mapping of settings, not {type(data).__name__}")
    s = Settings(data, path, what="config", line=1, environ=environ)
    kmsg = s.get_str("kmsg", None)
    if kmsg is not None and kmsg not in (KMSG_JOURNAL, "/dev/kmsg"):
        kmsg = str(_path(kmsg, base_dir))
    remediation = data.get("remediation")
    s.get_section("remediation")  # a mapping; its keys are the remediation package's to check
    prom = PrometheusConfig()
    if isinstance(data.get("prometheus"), str):
        prom = PrometheusConfig(url=s.get_str("prometheus"))
    elif data.get("prometheus") is not None:
        prom = _prometheus(s.get_section("prometheus"))
    else:
        s.get_str("prometheus", None)
    cfg = SidecarConfig(
        path=path,
        logs=tuple(str(_path(p, base_dir)) for p in s.get_str_list("logs")),
        kmsg=kmsg,
        kmsg_from_start=s.get_bool("kmsg_from_start", False),
        nvml=s.get_bool("nvml", True),
        nvml_poll_s=s.get_float("nvml_poll_s", 1.0, minimum=0.05, maximum=600.0),
        prometheus=prom,
        state_dir=_opt_path(s, "state_dir", base_dir),
        incidents=_opt_path(s, "incidents", base_dir),
        metrics_addr=_metrics_addr(s, data),
        node=s.get_str("node", None, pattern=_NAME),
        job=s.get_str("job", "default", pattern=_NAME),
        rules=tuple(_path(p, base_dir) for p in s.get_str_list("rules")),
        engine=s.get_str("engine", "auto", choices=("auto", "hyperscan", "re")),
        rank_gpus=_rank_gpus(s),
        processes=_processes(s.get_section("processes"), base_dir),
        stacks=_stacks(s.get_section("stacks"), base_dir),
        detection=_detection(s.get_section("detection")),
        hang=_hang(s.get_section("hang")),
        coordinator=_coordinator(s.get_section("coordinator")),
        remediate=s.get_bool("remediate", True),
        act=s.get_bool("act", False),
        remediation=remediation,
        remediation_line=s.line_of("remediation") if remediation is not None else None,
    )
    s.done()
    return cfg


def _coordinator(s: Settings) -> CoordinatorConfig:
    out = CoordinatorConfig(
        enabled=s.get_bool("enabled", False),
        interval_s=s.get_float("interval_s", 2.0, minimum=0.1, maximum=3600.0),
    )
    s.done()
    return out


def load_config(path: Path, *, environ: Mapping[str, str]) -> SidecarConfig:
    """Read and validate a config file. Raises ConfigError naming the file and line."""
    data = load_yaml_file(path)
    return parse_config(data, str(path), base_dir=path.resolve().parent, environ=environ)


def with_overrides(cfg: SidecarConfig, **changes: Any) -> SidecarConfig:
    """The config with command-line values (those not None) replacing the file's."""
    given = {k: v for k, v in changes.items() if v is not None}
    unknown = set(given) - {f.name for f in dataclasses.fields(SidecarConfig)}
    if unknown:
        raise ValueError(f"unknown config fields: {sorted(unknown)}")
    return dataclasses.replace(cfg, **given)


def prometheus_url_problem(url: str) -> str | None:
    """Why no request could use ``url`` as a Prometheus base URL (malformed, a port that is not a
    number, not http or https, no host), or None: what ``watch`` refuses at start-up and
    ``check``'s probe fails."""
    import urllib.parse

    try:
        parts = urllib.parse.urlsplit(url)
        _ = parts.port  # raises on a port that is not a number
    except ValueError as exc:  # "http://[::1" and the like
        return f"not a valid URL ({exc})"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "not an http:// or https:// URL"
    return None
