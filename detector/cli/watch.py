"""``rankdoctor watch``: the live sidecar. Thin: arguments -> config -> :class:`Sidecar`."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import errno
import os
import signal
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

from detector.cli.argtypes import between, seconds_up_to
from detector.errors import ConfigError, RankdoctorError
from detector.sidecar.config import (
    SidecarConfig,
    load_config,
    parse_addr,
    parse_rank_gpu,
    prometheus_url_problem,
    with_overrides,
)

DESCRIPTION = """\
Run next to the trainers (a sidecar container in the job's pod, or one process per node under
Slurm) and report an incident -- the same object the replay report holds -- as soon as the
evidence is there: rank logs, the launcher's console, rank processes, the kernel log, NVML and
DCGM through Prometheus. Each incident is appended as one JSON line to --incidents, printed,
counted on /metrics and handed to remediation (dry-run unless --act).
SIGTERM stops it cleanly (offsets saved); SIGHUP reloads the config file and the rules.
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rankdoctor watch", description=DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", type=Path, help="YAML config file (command-line options override it)")
    p.add_argument("--logs", nargs="+", action="extend", metavar="DIR_OR_GLOB",
                   help="rank logs and the launcher's console: directories (recursive), files or globs")
    p.add_argument("--kmsg", metavar="PATH", help="kernel log: /dev/kmsg, a plain file, or 'journalctl'")
    p.add_argument("--kmsg-from-start", action="store_true", default=None,
                   help="also read kernel records already there (default: start at the end)")
    p.add_argument("--no-nvml", action="store_true", help="do not use NVML")
    p.add_argument("--prometheus", metavar="URL", help="Prometheus for DCGM series (and the coordinator)")
    p.add_argument("--state", type=Path, metavar="DIR", help="state directory (offsets, reported incidents)")
    p.add_argument("--incidents", type=Path, metavar="FILE", help="append each incident as a JSON line here")
    p.add_argument("--metrics-addr", metavar="HOST:PORT", help="the /metrics endpoint (default 127.0.0.1:9108)")
    p.add_argument("--no-metrics", action="store_true", help="no /metrics endpoint")
    p.add_argument("--act", action="store_true", default=None, help="let remediation act (default: dry-run)")
    p.add_argument("--no-remediate", action="store_true",
                   help="do not hand incidents to remediation (a node's sidecar under a coordinator)")
    p.add_argument("--coordinator", action="store_true",
                   help="attribute across nodes from every sidecar's evidence in Prometheus (needs --prometheus)")
    p.add_argument("--node", help="this node's name (default: the host name)")
    p.add_argument("--job", help="the job's name on exported series (default: 'default')")
    p.add_argument("--rank-gpu", action="append", default=[], metavar="RANK=PCI",
                   help="tie a global rank to a GPU's PCI id, e.g. 2=0000:3b:00 (repeatable)")
    p.add_argument("--rules", type=Path, action="append", default=[], metavar="PATH",
                   help="extra rule file or directory over the shipped rules (repeatable; default: the "
                        "config file's, else those in $RANKDOCTOR_RULES, separated by ':')")
    p.add_argument("--hang-k", type=between(0.1, 1000.0), metavar="K",
                   help="hang after K x the median step time (default 5; 0.1 to 1000)")
    p.add_argument("--hang-floor", type=between(0.1, 86400.0), metavar="SECONDS",
                   help="... and at least this long (default 30; 0.1 to 86400)")
    p.add_argument("--settle", type=seconds_up_to(60.0), metavar="SECONDS",
                   help="settle window after initiator evidence (0.5; at most 60)")
    p.add_argument("--history", type=seconds_up_to(365 * 86400.0), metavar="SECONDS",
                   help="begun with no state, lines stamped longer ago than this (finished runs' in the followed "
                        "folders: 3600 where they hold past runs) are read for who is who but reported as no incident "
                        "(default 0: every line may be)")
    return p


def _check_url(url: str, where: str) -> None:
    """A Prometheus URL that no request could use is a configuration error at start-up, not a
    source that is down every 30 s from then on."""
    problem = prometheus_url_problem(url)
    if problem is not None:
        raise ConfigError(str(where), None, f"Prometheus URL {url!r} is {problem}; e.g. "
                          "http://prometheus.monitoring:9090")


KMSG_DEVICE = (1, 11)  # /dev/kmsg's major and minor numbers, wherever it is mounted


def _check_kmsg(path: str | None, where: str) -> None:
    """A character device given as the kernel log must be the kernel's (``/dev/kmsg`` mounted
    anywhere): ``/dev/zero`` was read as records, 80 MB a poll, for ever."""
    if not path or path == "journalctl":
        return
    try:
        st = os.stat(path)
    except OSError:
        return  # (a missing file is followed once it appears; the probe says so)
    import stat

    if stat.S_ISCHR(st.st_mode) and (os.major(st.st_rdev), os.minor(st.st_rdev)) != KMSG_DEVICE:
        raise ConfigError(where, None, f"--kmsg {path}: a device that is not the kernel's log (/dev/kmsg is "
                          f"character device {KMSG_DEVICE[0]},{KMSG_DEVICE[1]}): give /dev/kmsg, 'journalctl' or a file")


def config_from_args(args: argparse.Namespace, environ: dict[str, str]) -> SidecarConfig:
    from detector.rules.loader import user_rule_paths

    cfg = load_config(args.config, environ=environ) if args.config else SidecarConfig()
    where = "command line"
    metrics_addr: str | None = cfg.metrics_addr
    if args.metrics_addr:
        parse_addr(args.metrics_addr, "--metrics-addr", None)
        metrics_addr = args.metrics_addr
    if args.no_metrics:
        metrics_addr = None
    gpus = dict(cfg.rank_gpus)
    gpus.update(parse_rank_gpu(v, where) for v in args.rank_gpu)
    prom = cfg.prometheus
    if args.prometheus:
        prom = dataclasses.replace(prom, url=args.prometheus)
    hang = cfg.hang
    if args.hang_k is not None or args.hang_floor is not None:
        hang = dataclasses.replace(hang, k=args.hang_k if args.hang_k is not None else hang.k,
                                   floor_s=args.hang_floor if args.hang_floor is not None else hang.floor_s)
    detection = cfg.detection
    if args.settle is not None:
        detection = dataclasses.replace(detection, settle_s=args.settle)
    if args.history is not None:
        detection = dataclasses.replace(detection, history_s=args.history)
    coordinator = cfg.coordinator
    if args.coordinator:
        coordinator = dataclasses.replace(coordinator, enabled=True)
    if prom.url:
        _check_url(prom.url, args.config if args.config and not args.prometheus else where)
    if coordinator.enabled and not prom.url:
        raise ConfigError(where, None, "--coordinator needs --prometheus URL (the Prometheus that scrapes the sidecars)")
    logs = tuple(os.path.abspath(x) for x in args.logs) if args.logs else cfg.logs
    kmsg = args.kmsg if args.kmsg in (None, "/dev/kmsg", "journalctl") else os.path.abspath(args.kmsg)
    _check_kmsg(kmsg or cfg.kmsg, where if args.kmsg else str(args.config or where))
    merged = with_overrides(
        cfg, logs=logs, kmsg=kmsg, kmsg_from_start=args.kmsg_from_start,
        nvml=False if args.no_nvml else None, prometheus=prom, state_dir=args.state, incidents=args.incidents,
        node=args.node, job=args.job, rules=tuple([*cfg.rules, *args.rules] or user_rule_paths(None, environ)), rank_gpus=tuple(sorted(gpus.items())),
        hang=hang, detection=detection, coordinator=coordinator, act=args.act,
        remediate=False if args.no_remediate else None,
    )
    return dataclasses.replace(merged, metrics_addr=metrics_addr)


def _raise_open_files_limit() -> None:
    """The soft limit on open files raised to the hard one: the sidecar keeps each followed log
    open, and a job's folder of a thousand ranks' logs is past the usual soft limit of 1,024."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard > soft:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    environ = dict(os.environ)
    try:
        config = config_from_args(args, environ)
        if not (config.logs or config.kmsg or config.coordinator.enabled or config.prometheus.url):
            print("rankdoctor watch: nothing to watch: give --logs, --kmsg, --prometheus or --config",
                  file=sys.stderr)
            return 2
        sink = config.incidents
        if sink is not None and sink.exists() and not sink.is_file():
            # (a folder or a device takes no appended line: every incident would be lost)
            print(f"rankdoctor watch: error: --incidents {sink} is {'a folder' if sink.is_dir() else 'not a regular file'}: "
                  "name a file to append each incident to", file=sys.stderr)
            return 2
        for place in config.logs:
            if not any(c in place for c in "*?[") and not os.path.exists(place):
                print(f"rankdoctor watch: warning: {place} does not exist (yet): its logs are read once it appears",
                      file=sys.stderr)
        _raise_open_files_limit()
        from detector.sidecar.service import Sidecar

        sidecar = Sidecar(config)
    except RankdoctorError as exc:
        print(f"rankdoctor watch: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # a state folder that is a file or not writable, ...
        print(f"rankdoctor watch: error: {_os_error(exc)}", file=sys.stderr)
        return 1

    def stop(_sig: int, _frame: FrameType | None) -> None:
        sidecar.request_stop()

    def reload(_sig: int, _frame: FrameType | None) -> None:
        sidecar.request_reload()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGHUP, reload)
    try:
        return sidecar.run()
    except RankdoctorError as exc:
        print(f"rankdoctor watch: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # the metrics port already taken, its host unknown, ...
        print(f"rankdoctor watch: error: {_os_error(exc)}", file=sys.stderr)
        return 1


def _os_error(exc: OSError) -> str:
    what = exc.strerror or str(exc)
    where = exc.filename if exc.filename is not None else None
    if isinstance(exc, socket.gaierror):
        return f"the metrics address's host is unknown ({what}): check --metrics-addr"
    if exc.errno == errno.EADDRINUSE:
        return f"the metrics port is already in use ({what}): another sidecar on this node? give --metrics-addr HOST:PORT"
    if isinstance(exc, FileExistsError) and where:
        return f"{where}: is a file, not a folder (give --state a folder)"
    return f"{where}: {what}" if where else what
