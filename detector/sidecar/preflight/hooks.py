"""Probes of the remediation section: its state folders, and each hook built (every setting
checked) but never called, with the commands it would run present."""

from __future__ import annotations

import os
from pathlib import Path

from detector.errors import ConfigError
from detector.sidecar.config import SidecarConfig
from detector.sidecar.preflight.files import probe_writable
from detector.sidecar.preflight.probe import Level, Outside, Probe


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
