"""``rankdoctor check``: probe, on this node, every source and hook a sidecar would use.

It takes the same options and config file as ``rankdoctor watch`` (the same parser and config
code), and prints one line per probe — ``OK``, ``WARN`` or ``FAIL``, what was probed, what was
found and, when something is wrong, the fix (a permission, a capability, a package, a URL).
Exit 0 when everything configured works (warnings allowed), 1 when something configured fails,
2 on usage errors. Nothing is started, written or sent: files are opened for reading, the
state folders are checked with ``access(2)``, Prometheus gets one GET with a short timeout.
The probes themselves are :mod:`detector.sidecar.preflight`.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

from detector.cli.argtypes import positive
from detector.errors import ConfigError, RankdoctorError
from detector.sidecar.preflight.probe import Level, Outside, Probe
from detector.sidecar.preflight.run import run_probes

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
DESCRIPTION = """\
Probe every source and hook that `rankdoctor watch` would use on this node, with the same
options and config file: log paths readable, the kernel log (/dev/kmsg or journalctl), NVML,
ptrace for stack snapshots (py-spy), Prometheus, the remediation hooks' commands and URLs, and
the state folders. One line per probe: OK / WARN / FAIL, what, and the fix.
Exit 0: everything configured works; 1: something configured fails; 2: usage error.
"""


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
    parser.add_argument("--timeout", type=positive, default=3.0, metavar="SECONDS",
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
