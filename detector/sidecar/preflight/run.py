"""Every probe a sidecar config calls for, in the order a person reads them."""

from __future__ import annotations

import os

from detector.errors import ConfigError, RankdoctorError
from detector.sidecar.config import SidecarConfig
from detector.sidecar.preflight.files import probe_logs, probe_open_files, probe_writable
from detector.sidecar.preflight.hooks import probe_hooks
from detector.sidecar.preflight.node import probe_kernel, probe_metrics_addr, probe_nvml, probe_ptrace
from detector.sidecar.preflight.probe import Level, Outside, Probe
from detector.sidecar.preflight.prometheus import probe_prometheus


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
    if (files := probe_open_files(config.logs)) is not None:
        probes.append(files)
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
