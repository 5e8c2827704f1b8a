"""Preflight probes: on this node, every source and hook a sidecar would use, each answered
OK, WARN or FAIL with what was found and, when something is wrong, the fix (a permission, a
capability, a package, a URL). Nothing is started, written or sent: files are opened for
reading, the state folders are checked with ``access(2)``, Prometheus gets one GET with a short
timeout. ``rankdoctor check`` (:mod:`detector.cli.check`) prints them.

- :mod:`.probe`: a probe's answer (:class:`~.probe.Probe`, :class:`~.probe.Level`) and what the
  probes look at (:class:`~.probe.Outside`, which tests replace);
- :mod:`.files`: log paths readable, state folders writable;
- :mod:`.node`: the kernel log, NVML, ptrace for stack snapshots, the metrics port;
- :mod:`.prometheus`: Prometheus reachable, DCGM series present;
- :mod:`.hooks`: the remediation section and its hooks' commands and URLs;
- :mod:`.run`: every probe a config calls for, in reading order.
"""
