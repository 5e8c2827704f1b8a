"""The sidecar process: builds the sources, the engine and the outputs from a validated config,
runs the main loop, isolates failing sources, stops cleanly and reloads on request.

The main loop (one thread) waits for the inbox (at most ``detection.poll_s``, less when an
incident is due), polls every source, hands what arrived to the engine, and emits the
incidents the engine returns. Threads (watchdog, NVML events, Prometheus pollers) only put
items into the inbox. A source that raises is reported (``rankdoctor_source_up`` 0, one
warning per change) and restarted with backoff; the others keep going.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from detector.errors import ConfigError
from detector.rules.reload import RuleReloader
from detector.sidecar.config import KMSG_JOURNAL, SidecarConfig, load_config
from detector.sidecar.coordinator import CoordinatorSource
from detector.sidecar.engine import LiveEngine
from detector.sidecar.gate import IncidentGate
from detector.sidecar.lines import LineProcessor
from detector.sidecar.metrics import SidecarMetrics
from detector.sidecar.model import Inbox, Item, Source, SourceState, SourceStatus
from detector.sidecar.sink import IncidentHandler, IncidentSink
from detector.sidecar.sources.kernel import JournalSource, KmsgSource
from detector.sidecar.sources.logs import LogFollower, default_observer
from detector.sidecar.sources.nvml import NvmlSource, default_nvml
from detector.sidecar.sources.procs import ProcessWatcher
from detector.sidecar.sources.prom import DcgmSource, PromClient, default_client
from detector.sidecar.sources.stacks import StackSampler
from detector.sidecar.state import SidecarStore, hold_state_dir
from detector.stats.steps import custom_preset, preset_by_name
from detector.support.clock import SystemClock

MAX_BACKOFF_S = 60.0
RULES_CHECK_S = 5.0
TICK_EVERY = 64  # pieces dispatched between two looks at the incident gate's deadline in a burst
FLUSH_TICKS = 4  # attributions at shutdown (a held incident needs a second one)


@dataclass
class Outside:
    """What the outside world gives the sidecar; tests replace any of it."""

    clock: SystemClock = field(default_factory=SystemClock)
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    out: TextIO | None = field(default_factory=lambda: sys.stdout)
    err: TextIO = field(default_factory=lambda: sys.stderr)
    nvml_loader: Callable[[], Any] = default_nvml
    prom_client: Callable[[str, float], PromClient] = default_client
    observer_factory: Callable[[], Any] | None = default_observer
    remediation: Callable[[SidecarConfig], IncidentHandler | None] | None = None  # None: the package's


def build_remediation(config: SidecarConfig, environ: Mapping[str, str],
                      metrics: SidecarMetrics | None = None) -> tuple[IncidentHandler, Any]:
    """The remediation package's worker (dry-run unless ``act``), counting its hook calls,
    decisions, verifications and errors in ``metrics``. Raises ConfigError."""
    from detector.remediation.build import build_remediator
    from detector.remediation.config import parse_remediation
    from detector.remediation.worker import RemediationWorker

    section: dict[str, Any] = dict(config.remediation or {})
    if "state_dir" not in section:
        base = config.state_dir or Path(tempfile.mkdtemp(prefix="rankdoctor-sidecar-"))
        section["state_dir"] = str(base / "remediation")
    path = config.path or "<command line>"
    base_dir = Path(config.path).resolve().parent if config.path else Path.cwd()
    rcfg = parse_remediation(section, path, base_dir=base_dir, environ=environ, line=config.remediation_line)
    remediator = build_remediator(rcfg, environ=environ, act=config.act or rcfg.act)
    if config.job != "default":
        remediator.job_name = config.job  # (the audit log's and the budgets' job, where no hook names it)
    if metrics is None:
        worker = RemediationWorker(remediator)
    else:
        remediator.on_hook = metrics.remediation_hook
        metrics.add_breaker(lambda: _open_or_none(remediator.store.breaker_now()))
        worker = RemediationWorker(remediator, on_result=metrics.remediation_result,
                                   on_error=metrics.remediation_error)
    return worker, worker


def _open_or_none(state: Any) -> bool | None:
    return bool(state.open) if state is not None else None


class Sidecar:
    def __init__(self, config: SidecarConfig, outside: Outside | None = None, *,
                 rules: RuleReloader | None = None) -> None:
        self.config = config
        self.outside = outside or Outside()
        self.node = config.node_name()
        self.inbox = Inbox()
        self._stop = threading.Event()
        self._reload = threading.Event()
        # raises when invalid: fail before starting
        self.rules = rules if rules is not None else RuleReloader(config.rules, engine=config.engine)
        self._file_rules = self._rules_in_file(config)  # the file's "rules:" list at start, for a reload to compare
        # (one watch to a state folder: a second is refused before it reads anything)
        self._state_lock = hold_state_dir(config.state_dir) if config.state_dir is not None else None
        if config.state_dir is not None and self._state_lock is None:
            self.warn(f"the state folder {config.state_dir} cannot be locked (its file system takes no locks): "
                      "make sure no other watch uses it")
        self.store = SidecarStore(config.state_dir, warn=self.warn)  # a corrupt one is moved aside
        self.metrics = SidecarMetrics(config.job, self.node)
        self.gate = IncidentGate(config.detection, self.store)
        if config.detection.history_s > 0:
            # (old runs' failures in the followed folders, stamped before it, are history)
            self.gate.history_from(self.outside.clock.time() - config.detection.history_s)
        self.processor = LineProcessor(self.rules.current, year=time.gmtime().tm_year,
                                       tolerance_s=config.detection.time_tolerance_s, preset=_preset(config))
        self.procs: ProcessWatcher | None = None
        self.nvml: NvmlSource | None = None
        self.logs: LogFollower | None = None
        self.sources: list[Source] = self._make_sources()
        self.engine = LiveEngine(self.rules.current, self.processor, self.gate, node=self.node,
                                 hang=config.hang if not config.coordinator.enabled else _no_hang(config),
                                 rank_gpus=dict(config.rank_gpus), discriminator=self.procs)
        self.metrics.add_evidence(lambda: self.engine.evidence, lambda: self.engine.lines_read,
                                  lambda: self.nvml.gpus if self.nvml is not None else [],
                                  lambda: self.engine.evidence_dropped)
        self._remediation_closer: Any = None
        handler = self._make_remediation()
        self.sink = IncidentSink(config.incidents, out=self.outside.out, count=self.metrics.count_incident,
                                 handler=handler, warn=self.warn)
        self._retry_at: dict[str, float] = {}
        self._failures: dict[str, int] = {}
        self._started: set[str] = set()
        self._states: dict[str, SourceState] = {}
        self._next_rules = 0.0
        self.metrics_address: tuple[str, int] | None = None
        self.incidents: list[dict[str, Any]] = []

    # --- construction ---

    def _make_sources(self) -> list[Source]:
        cfg = self.config
        out: list[Source] = []
        kernel_files: list[Path] = []
        if cfg.kmsg == "/dev/kmsg" or (cfg.kmsg and Path(cfg.kmsg).is_char_device()):
            out.append(KmsgSource(Path(cfg.kmsg), node=self.node, store=self.store, from_start=cfg.kmsg_from_start))
        elif cfg.kmsg == KMSG_JOURNAL:
            out.append(JournalSource(node=self.node))
        elif cfg.kmsg:
            kernel_files.append(Path(cfg.kmsg))
            if not Path(cfg.kmsg).exists():
                # (as `rankdoctor check` says: a typo would otherwise go unnoticed)
                self.warn(f"kernel log {cfg.kmsg} does not exist yet: it is followed once it appears")
        if cfg.logs or kernel_files:
            self.logs = LogFollower(cfg.logs, node=self.node, store=self.store, kernel_files=kernel_files,
                                    kernel_from_start=cfg.kmsg_from_start, poll_s=cfg.detection.poll_s,
                                    observer_factory=self.outside.observer_factory, warn=self.warn)
            out.append(self.logs)
        if cfg.processes.enabled and not cfg.coordinator.enabled:
            stacks = StackSampler(cfg.stacks, proc_root=cfg.processes.proc_root, warn=self.warn,
                                  notice=self.notice) if cfg.stacks.enabled else None
            self.procs = ProcessWatcher(cfg.processes, node=self.node, log_roots=cfg.logs, stacks=stacks)
            out.append(self.procs)
        if cfg.nvml and not cfg.coordinator.enabled:
            self.nvml = NvmlSource(node=self.node, poll_s=cfg.nvml_poll_s, loader=self.outside.nvml_loader,
                                   on_notice=self.notice)
            out.append(self.nvml)
        url = cfg.prometheus.url
        if url:
            def factory() -> PromClient:
                return self.outside.prom_client(url, cfg.prometheus.timeout_s)

            if cfg.coordinator.enabled:
                out.append(CoordinatorSource(factory, job=cfg.job, interval_s=cfg.coordinator.interval_s,
                                             clock=self.outside.clock.time))
            nodes = list(cfg.prometheus.nodes) or ([self.node] if not cfg.coordinator.enabled else [])
            out.append(DcgmSource(factory, nodes=nodes, interval_s=cfg.prometheus.interval_s,
                                  clock=self.outside.clock.time))
        return out

    def _make_remediation(self) -> IncidentHandler | None:
        if not self.config.remediate:
            return None
        if self.outside.remediation is not None:
            return self.outside.remediation(self.config)
        handler, closer = build_remediation(self.config, self.outside.environ, self.metrics)
        self._remediation_closer = closer
        return handler

    # --- messages ---

    def warn(self, message: str) -> None:
        print(f"rankdoctor watch: warning: {message}", file=self.outside.err, flush=True)

    def notice(self, message: str) -> None:
        print(f"rankdoctor watch: {message}", file=self.outside.err, flush=True)

    # --- control (signal handlers call these) ---

    def request_stop(self) -> None:
        self._stop.set()
        self.inbox.wake()

    def request_reload(self) -> None:
        self._reload.set()
        self.inbox.wake()

    # --- running ---

    def start(self) -> None:
        endpoint = self.config.metrics_endpoint()
        if endpoint is not None:
            self.metrics_address = self.metrics.serve(*endpoint)
        now = self.outside.clock.time()
        for source in self.sources:
            self._start(source, now)
        if self.config.kmsg and self.logs is not None and not any(isinstance(s, KmsgSource | JournalSource)
                                                                  for s in self.sources):
            self._status(SourceStatus("kernel", SourceState.UP, f"following {self.config.kmsg}"))
        self._check_state()
        files = len(self.logs.files) if self.logs is not None else 0
        where = f"; metrics on http://{self.metrics_address[0]}:{self.metrics_address[1]}/metrics" if self.metrics_address else ""
        self.notice(f"watching as node {self.node}: {files} files, sources "
                    f"{', '.join(s.name for s in self.sources) or 'none'}{where}; ready")

    def run(self) -> int:
        self.start()
        try:
            while not self._stop.is_set():
                self.step()
        finally:
            self.shutdown()
        return 0

    def step(self) -> None:
        """One turn of the main loop."""
        if self._reload.is_set():
            self._reload.clear()
            self.reload()
        clock = self.outside.clock
        now = clock.time()
        poll_s = self.config.detection.poll_s
        deadline = self.engine.next_deadline()
        timeout = poll_s if deadline is None else max(0.0, min(poll_s, deadline - now))
        if self.logs is not None and self.logs.more:
            timeout = 0.0  # (a followed file behind its end: read on now, what arrived meanwhile with it)
        items = list(self.inbox.drain(timeout))
        now = clock.time()
        for source in self.sources:
            self._poll(source, now)
        self._check_state()
        items.extend(self.inbox.drain(0.0))
        for n, item in enumerate(items, 1):
            self._dispatch(item)
            if n % TICK_EVERY == 0:  # a burst of pieces: an incident whose settle time has come goes out now
                deadline = self.engine.next_deadline()
                if deadline is not None and clock.time() >= deadline:
                    self._tick(clock.time())
        if now >= self._next_rules:
            self._next_rules = now + RULES_CHECK_S
            if self.rules.changed():
                self._apply_rules(self.rules.reload())
        self._tick(now)

    def _tick(self, now: float) -> None:
        try:
            incidents = self.engine.tick(now)
        except Exception as exc:  # a bug must not stop the sidecar; the evidence was set aside
            self.warn(f"attribution failed: {type(exc).__name__}: {exc}")
            return
        for incident in incidents:
            self.incidents.append(self.sink.emit(incident, self.outside.clock.time(),
                                                 self.gate.replaced_by(incident.id)))
        if self.logs is not None:
            self.logs.evidence_pending = self.gate.pending()

    def _dispatch(self, item: Item) -> None:
        if isinstance(item, SourceStatus):
            self._status(item)
        try:
            self.engine.dispatch(item)
        except Exception as exc:  # never stop on one bad piece of input
            self.warn(f"could not process input from {type(item).__name__}: {type(exc).__name__}: {exc}")

    def _status(self, status: SourceStatus) -> None:
        before = self._states.get(status.source)
        self._states[status.source] = status.state
        self.metrics.set_source(status.source, status.state is SourceState.UP)
        if before is not status.state:
            if status.state is SourceState.DOWN:
                self.warn(f"source {status.source} is down: {status.detail}")
            elif before is SourceState.DOWN:
                self.notice(f"source {status.source} is up again")

    def _check_state(self) -> None:
        """The state database as a source of its own (``state``): down while writes it could not
        take (locked by another process, disk full) wait in memory; retried every second."""
        self.store.flush()
        error = self.store.error
        state = SourceState.UP if error is None else SourceState.DOWN
        if self._states.get("state") is not state:
            detail = "" if error is None else (f"{error}; detection goes on, offsets and reported incidents "
                                               "are kept in memory and saved when it works again")
            self._status(SourceStatus("state", state, detail))

    def _start(self, source: Source, now: float) -> None:
        try:
            source.start(self.inbox)
        except Exception as exc:
            self._failed(source, now, exc)
            return
        self._started.add(source.name)
        off = isinstance(source, NvmlSource) and source.off_reason is not None
        self._status(SourceStatus(source.name, SourceState.OFF if off else SourceState.UP))

    def _poll(self, source: Source, now: float) -> None:
        if source.name not in self._started:
            if now >= self._retry_at.get(source.name, 0.0):
                self._start(source, now)
            return
        try:
            source.poll(now)
        except Exception as exc:
            self._failed(source, now, exc)

    def _failed(self, source: Source, now: float, exc: BaseException) -> None:
        count = self._failures.get(source.name, 0) + 1
        self._failures[source.name] = count
        delay = min(MAX_BACKOFF_S, 0.5 * 2 ** min(count, 8))
        self._retry_at[source.name] = now + delay
        self._started.discard(source.name)
        with contextlib.suppress(Exception):
            source.close()
        self._status(SourceStatus(source.name, SourceState.DOWN,
                                  f"{type(exc).__name__}: {exc} (retrying in {delay:.0f} s)"))

    # --- reload and stop ---

    def reload(self) -> None:
        """SIGHUP: the config file's detection settings and the rules, checked before use."""
        if self.config.path is not None:
            try:
                fresh = load_config(Path(self.config.path), environ=self.outside.environ)
            except ConfigError as exc:
                self.warn(f"config not reloaded: {exc.format()}")
                return
            self.gate.configure(fresh.detection)
            if fresh.logs != self.config.logs or fresh.kmsg != self.config.kmsg:
                self.warn("changed sources (logs, kmsg) take effect after a restart")
            if self._file_rules is not None and tuple(fresh.rules) != self._file_rules:
                self.warn("a changed 'rules:' list takes effect after a restart; the rule files in force are "
                          "reloaded from where they were")
            self.config = fresh
        self._apply_rules(self.rules.reload())

    def _rules_in_file(self, config: SidecarConfig) -> tuple[Path, ...] | None:
        """The 'rules:' list of the config file as the sidecar started (None: no file, or not
        readable now)."""
        if config.path is None:
            return None
        try:
            return tuple(load_config(Path(config.path), environ=self.outside.environ).rules)
        except ConfigError:
            return None

    def _apply_rules(self, result: Any) -> None:
        if isinstance(result, list):
            self.warn("rules not reloaded; the old rules stay in force:\n  "
                      + "\n  ".join(p.format() for p in result))
            return
        self.processor.set_rules(result)
        self.engine.rules = result
        self.notice(f"rules reloaded ({len(result.rules)} rules)")

    def shutdown(self) -> None:
        for source in self.sources:
            with contextlib.suppress(Exception):
                source.close()
        for item in list(self.inbox.drain(0.0)):
            self._dispatch(item)
        now = self.outside.clock.time()
        # what is still settling or held is attributed now, not lost with the process (a pod torn
        # down just after its trainer died): its windows are cut short
        flushed_all = True
        for _ in range(FLUSH_TICKS):
            deadline = self.engine.next_deadline()
            try:
                flushed = self.engine.tick(now if deadline is None else max(now, deadline))
            except Exception as exc:  # (as _tick: a bug must not stop the shutdown)
                self.warn(f"attribution failed: {type(exc).__name__}: {exc}")
                flushed_all = False
                break
            for incident in flushed:
                self.incidents.append(self.sink.emit(incident, now, self.gate.replaced_by(incident.id)))
            if deadline is None:
                break
        if self.logs is not None and flushed_all:  # (else the evidence is read again at the next start)
            self.logs.save(now)
        self.metrics.close()
        if self._remediation_closer is not None:
            with contextlib.suppress(Exception):
                self._remediation_closer.close(timeout=5.0)
        self.store.close()
        if self._state_lock is not None:
            self._state_lock.close()


def _preset(config: SidecarConfig) -> Any:
    if config.hang.step_preset:
        return preset_by_name(config.hang.step_preset, where=config.path or "--config")
    if config.hang.step_pattern:
        return custom_preset(config.hang.step_pattern, where=config.path or "--config")
    return None


def _no_hang(config: SidecarConfig) -> Any:
    import dataclasses

    return dataclasses.replace(config.hang, enabled=False)
