"""The live sidecar (``rankdoctor watch``): the replay engine's pipeline fed by live sources and
clocked by the wall clock.

```
 tailer/logs ─┐                                           ┌─▶ incidents file, terminal
 kmsg/journal ─┤  Chunk / Finding    ┌──────────────┐      ├─▶ /metrics (per-rank evidence)
 processes ───┼──────────────────▶ │  LiveEngine   │ ─────┤
 NVML ────────┤     (inbox)         │ reader+pipeline│ Incident└─▶ remediation (dry-run unless --act)
 Prometheus ──┘                     │ +attribution  │
 coordinator (many nodes) ─────────▶ └──────────────┘
```

Modules: :mod:`.tailer` (one file: rotation, truncation, partial lines, offsets; its rotated
copies and fingerprints in :mod:`.rotation`), :mod:`.stacks` (py-spy snapshots of stalled ranks:
:mod:`.pyspy` runs it, :mod:`.stack_places` reads where each rank is), :mod:`.preflight` (the
probes of ``rankdoctor check``),
:mod:`.logs` (directories and globs through watchdog), :mod:`.kernel` (/dev/kmsg, journalctl),
:mod:`.procs` (rank processes), :mod:`.nvml`, :mod:`.prom` (DCGM through Prometheus),
:mod:`.lines` (chunks of lines -> rule hits and step samples, with the reader's one-scan
matcher), :mod:`.gate` (settle windows, one incident per failure), :mod:`.live` (the engine),
:mod:`.metrics`, :mod:`.sink`, :mod:`.coordinator`, :mod:`.runner` (threads, signals, reload).
"""
