"""Wiring between sources and attribution: who is who in a run (ranks, nodes, pids, GPUs) and
the findings of every matched line, shared by replay and the sidecar."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from detector.attribution.attribute import RankInfo
from detector.pipeline.scan import FailureRecord, FileScan, Hit, last_activity
from detector.rules.engine import RuleSet
from detector.sources.pci import normalize_pci
from detector.sources.runs import LogFile
from detector.support.numbers import small_int
from detector.types import Cause, Finding, Role, Severity, StreamKind


@dataclass
class RunIndex:
    """What the logs say about each rank: node, local rank, pid, GPU, last activity."""

    file_rank: dict[str, int] = field(default_factory=dict)  # display path -> global rank
    rank_node: dict[int, str] = field(default_factory=dict)
    rank_local: dict[int, int] = field(default_factory=dict)
    rank_pid: dict[int, int] = field(default_factory=dict)
    rank_gpu: dict[int, str] = field(default_factory=dict)
    pid_rank: dict[tuple[str | None, int], int] = field(default_factory=dict)
    gpu_rank: dict[tuple[str | None, str], int] = field(default_factory=dict)
    local_rank_global: dict[tuple[str | None, int, int | None], int] = field(default_factory=dict)
    host_alias: dict[str, str] = field(default_factory=dict)
    world_size: int | None = None
    nodes: set[str] = field(default_factory=set)

    def node(self, name: str | None) -> str | None:
        if name is None:
            return None
        return self.host_alias.get(name, name)

    def ranks(self) -> set[int]:
        return set(self.file_rank.values()) | set(self.rank_node) | set(self.rank_local) | set(self.rank_pid)


def _int(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return int(value.strip().strip("'"))
    except ValueError:
        return None


def _field(fields: Iterable[tuple[str, str]], name: str) -> str | None:
    for k, v in fields:
        if k == name:
            return v
    return None


def build_index(scans: Sequence[FileScan]) -> RunIndex:
    idx = RunIndex()
    init_hosts: dict[str, Counter[str]] = defaultdict(Counter)  # folder node -> NCCL hosts
    nranks: Counter[int] = Counter()
    cuda_local: dict[int, int] = {}  # rank -> cudaDev (the local rank when each rank sees all GPUs)
    for scan in scans:
        f = scan.file
        if f.kind.value != "rank_log":
            continue
        own: set[int] = set()
        for hit in scan.hits:
            for m in hit.matches:
                busid = _field(m.fields, "busid")
                rank = _int(_field(m.fields, "rank"))
                if busid is None or rank is None:
                    continue
                host = _field(m.fields, "host")
                pid = _int(_field(m.fields, "pid"))
                gpu = normalize_pci(busid)
                n = _int(_field(m.fields, "nranks"))
                if n:
                    nranks[n] += 1
                own.add(rank)
                cudadev = _int(_field(m.fields, "cudadev"))
                if cudadev is not None:
                    cuda_local.setdefault(rank, cudadev)
                if gpu:
                    idx.rank_gpu.setdefault(rank, gpu)
                if pid is not None:
                    idx.rank_pid.setdefault(rank, pid)
                if host:
                    if f.node:
                        init_hosts[f.node][host] += 1
                    else:
                        idx.rank_node.setdefault(rank, host)
        combined = len(scan.prefix_ranks) >= 2
        if f.rank is not None and not combined:
            idx.file_rank[f.display] = f.rank
        elif len(scan.prefix_ranks) == 1 and f.rank is None and f.local_rank is not None:
            # a torchrun per-rank file whose error lines carry [rankN]: (a console log that has
            # shown only one rank so far is still a console log: its other lines are the launcher's)
            idx.file_rank[f.display] = next(iter(scan.prefix_ranks))
        elif len(own) == 1 and f.local_rank is not None:
            idx.file_rank[f.display] = next(iter(own))
        rank = idx.file_rank.get(f.display)
        if rank is not None:
            if f.node:
                idx.rank_node[rank] = f.node
            if f.local_rank is not None:
                idx.rank_local.setdefault(rank, f.local_rank)
        for fr in scan.failures:
            _add_failure(idx, fr, f)
    for folder, hosts in init_hosts.items():
        host = hosts.most_common(1)[0][0]
        if host != folder:
            idx.host_alias[host] = folder
    if nranks:
        idx.world_size = nranks.most_common(1)[0][0]
    # torchrun trees without any other hint: one node, global rank = local rank
    single_node = len({s.file.node for s in scans if s.file.kind.value == "rank_log"}) <= 1
    for scan in scans:
        f = scan.file
        if f.display in idx.file_rank or f.local_rank is None:
            continue
        g = idx.local_rank_global.get((f.node, f.local_rank, f.attempt)) or idx.local_rank_global.get((f.node, f.local_rank, None))
        if g is None and single_node and not idx.rank_node:
            g = f.local_rank
        if g is None and single_node:
            g = next((r for (n, lr, _a), r in idx.local_rank_global.items() if lr == f.local_rank), None)
            if g is None:
                g = f.local_rank
        if g is not None:
            idx.file_rank[f.display] = g
            idx.rank_local.setdefault(g, f.local_rank)
            if f.node:
                idx.rank_node.setdefault(g, f.node)
    for rank, node in list(idx.rank_node.items()):
        idx.rank_node[rank] = idx.node(node) or node
    per_node: dict[str | None, list[int]] = defaultdict(list)
    for rank, dev in cuda_local.items():
        per_node[idx.rank_node.get(rank)].append(dev)
    for rank, dev in cuda_local.items():
        devs = per_node[idx.rank_node.get(rank)]
        if len(devs) == len(set(devs)):  # distinct devices per node: cudaDev is the local rank
            idx.rank_local.setdefault(rank, dev)
    for rank, pid in idx.rank_pid.items():
        idx.pid_rank[(idx.rank_node.get(rank), pid)] = rank
        idx.pid_rank.setdefault((None, pid), rank)
    for rank, gpu in idx.rank_gpu.items():
        idx.gpu_rank[(idx.rank_node.get(rank), gpu)] = rank
    idx.nodes = {n for n in idx.rank_node.values() if n}
    if idx.world_size is None and idx.ranks():
        idx.world_size = max(idx.ranks()) + 1
    return idx


def _add_failure(idx: RunIndex, fr: FailureRecord, f: LogFile) -> None:
    if fr.rank is None:
        return
    node = fr.host if fr.host and fr.host not in ("localhost",) else f.node
    if node:
        idx.rank_node.setdefault(fr.rank, node)
    if fr.local_rank is not None:
        idx.rank_local.setdefault(fr.rank, fr.local_rank)
        idx.local_rank_global[(node, fr.local_rank, f.attempt)] = fr.rank
        idx.local_rank_global.setdefault((node, fr.local_rank, None), fr.rank)
        if f.node and node != f.node:
            idx.local_rank_global.setdefault((f.node, fr.local_rank, None), fr.rank)
    if fr.pid is not None:
        idx.rank_pid.setdefault(fr.rank, fr.pid)


def resolve_rank(idx: RunIndex, f: LogFile, event_rank: int | None, event_local: int | None) -> int | None:
    """The global rank a line of ``f`` is about (its prefix's rank or local rank, else the
    file's); used for matched lines and for step lines, in replay and in the sidecar."""
    if event_rank is not None:
        return event_rank
    file_rank = idx.file_rank.get(f.display)
    if file_rank is not None:
        return file_rank
    if event_local is not None:
        g = idx.local_rank_global.get((f.node, event_local, f.attempt)) or idx.local_rank_global.get((f.node, event_local, None))
        if g is not None:
            return g
        if len(idx.nodes) <= 1:
            return event_local
    return None


def findings_from_hit(hit: Hit, f: LogFile, idx: RunIndex) -> list[Finding]:
    ev = hit.event
    out: list[Finding] = []
    kernel = ev.kind is StreamKind.KERNEL
    for m in hit.matches:
        fields = m.fields
        pci = _field(fields, "pci")
        gpu = normalize_pci(pci) if pci else None
        pid = _int(_field(fields, "pid"))
        node = idx.node(ev.node or f.node)
        if kernel:
            rank = None
            if gpu is not None:
                rank = idx.gpu_rank.get((node, gpu))
                if rank is None and node is None:
                    cands = {r for (n, g), r in idx.gpu_rank.items() if g == gpu}
                    rank = cands.pop() if len(cands) == 1 else None
            if rank is None and pid is not None:
                rank = idx.pid_rank.get((node, pid)) or (idx.pid_rank.get((None, pid)) if node is None else None)
            if node is None and rank is not None:
                node = idx.rank_node.get(rank)
        else:
            rank = resolve_rank(idx, f, ev.rank, ev.local_rank)
            if node is None and rank is not None:
                node = idx.rank_node.get(rank)
            if gpu is None:
                busid = _field(fields, "busid")
                gpu = normalize_pci(busid) if busid else None
        if m.rule.cause is Cause.PREEMPTION or (m.rule.role is Role.INITIATOR and rank is None):
            host = _field(fields, "host")
            if host:
                node = idx.node(host)
        local = ev.local_rank if ev.local_rank is not None else (idx.rank_local.get(rank) if rank is not None else None)
        out.append(Finding(
            rule=m.rule.id, role=m.rule.role, cause=m.rule.cause, severity=m.rule.severity,
            text=ev.text, file=ev.file, line=ev.line, time=ev.time, rank=rank, local_rank=local,
            node=node, pid=pid if pid is not None else (idx.rank_pid.get(rank) if rank is not None and not kernel else None),
            gpu=gpu, fields=fields, context=hit.context, attempt=f.attempt, confidence=m.rule.confidence,
        ))
    return out


def expand_ranks(text: str) -> list[int]:
    """'16-18,20-23' -> [16, 17, 18, 20, 21, 22, 23] (bounded to 100000 ranks)."""
    out: list[int] = []
    for part in text.replace(" ", "").split(","):
        lo, _, hi = part.partition("-")
        a, b = small_int(lo), small_int(hi) if hi else small_int(lo)
        if a is None or b is None or b < a or b - a > 100000:
            continue
        out.extend(range(a, b + 1))
    return out


_SIGNAL_CODES = {
    "Killed": -9, "Aborted": -6, "Segmentation fault": -11, "Bus error": -7, "Terminated": -15,
    "Floating point exception": -8, "Illegal instruction": -4, "Hangup": -1, "Interrupt": -2,
}
_SIGNALS = {-4: "SIGILL", -6: "SIGABRT", -7: "SIGBUS", -8: "SIGFPE", -9: "SIGKILL", -11: "SIGSEGV", -15: "SIGTERM", -2: "SIGINT", -1: "SIGHUP"}


def exit_findings(scans: Sequence[FileScan], idx: RunIndex, rank_findings: Sequence[Finding]) -> list[Finding]:
    """Turn exit codes (torchelastic summaries, agent lines) into evidence: death by a signal is
    initiator-grade (unless the rank was aborting on a watchdog timeout), SIGTERM is collateral."""
    aborting = {f.rank for f in rank_findings if f.role is Role.COLLATERAL and f.rank is not None}
    records: dict[tuple[int | None, int], tuple[int, int | None, str | None, datetime | None, str, int, str, int | None]] = {}
    for scan in scans:
        f = scan.file
        for fr in scan.failures:
            if fr.rank is None or fr.exitcode is None:
                continue
            node = idx.node(fr.host if fr.host and fr.host != "localhost" else f.node) or idx.rank_node.get(fr.rank)
            records.setdefault((f.attempt, fr.rank), (fr.exitcode, fr.pid, node, fr.time, fr.file, fr.line, fr.text, f.attempt))
    for fnd in rank_findings:
        tasks = fnd.field("task")
        if tasks is not None:  # srun: "task 19: Aborted", "tasks 0-7: Exited with exit code 1"
            signal = fnd.field("signal")
            scode = _SIGNAL_CODES.get(signal or "") if signal else _int(fnd.field("exitcode"))
            if scode is None:
                continue
            for task_rank in expand_ranks(tasks):
                node = idx.node(fnd.field("host")) or idx.rank_node.get(task_rank)
                records.setdefault((fnd.attempt, task_rank), (scode, None, node, fnd.time, fnd.file or "", fnd.line or 0, fnd.text, fnd.attempt))
            continue
        code = _int(fnd.field("exitcode"))
        if code is None:
            continue
        rank = _int(fnd.field("rank"))
        local = _int(fnd.field("local_rank"))
        if rank is None and local is not None:
            rank = idx.local_rank_global.get((fnd.node, local, fnd.attempt)) or idx.local_rank_global.get((fnd.node, local, None))
            if rank is None and len(idx.nodes) <= 1:
                rank = local
        if rank is None:
            continue
        records.setdefault((fnd.attempt, rank), (code, _int(fnd.field("pid")), fnd.node or idx.rank_node.get(rank), fnd.time, fnd.file or "", fnd.line or 0, fnd.text, fnd.attempt))
    out = []
    for (_attempt, rank), (code, pid, node, time, file, line, _text, att) in records.items():
        sig = _SIGNALS.get(code)
        if code == -15 or code == -2 or code == -1 or (code == -6 and rank in aborting):
            role, cause, conf = Role.COLLATERAL, None, 1.0
        elif code == -9:
            role, cause, conf = Role.INITIATOR, Cause.CRASH_SIGNAL, 0.7
        elif code < 0:
            role, cause, conf = Role.INITIATOR, Cause.CRASH_SIGNAL, 0.8
        else:
            role, cause, conf = Role.CONTEXT, None, 1.0
        desc = f"rank {rank} exited with code {code}" + (f" ({sig})" if sig else "") + (f", pid {pid}" if pid else "")
        out.append(Finding(
            rule="torchelastic.exitcode", role=role, cause=cause, severity=Severity.ERROR, text=desc,
            file=file, line=line, time=time, rank=rank, local_rank=idx.rank_local.get(rank), node=node,
            pid=pid, fields=(("exitcode", str(code)),) + ((("signal", sig),) if sig else ()),
            attempt=att, confidence=conf,
        ))
    return out


def elastic_error_findings(f: LogFile, rules: RuleSet, idx: RunIndex) -> tuple[list[Finding], list[str]]:
    """A torchelastic ``error.json``: the child's exception message, matched by the rules."""
    try:
        data = json.loads(Path(f.path).read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError) as exc:
        return [], [f"{f.display}: unreadable torchelastic error file ({exc})"]
    msg = data.get("message") if isinstance(data, dict) else None
    if isinstance(msg, dict):
        text = msg.get("message")
        extra = msg.get("extraInfo") if isinstance(msg.get("extraInfo"), dict) else {}
    else:
        text, extra = msg, {}
    if not isinstance(text, str) or not text.strip():
        return [], []
    line = text.strip().splitlines()[-1]
    time = None
    stamp = extra.get("timestamp") if isinstance(extra, dict) else None
    if isinstance(stamp, str | int) and str(stamp).isdigit() and len(str(stamp)) <= 12:
        try:
            time = datetime.fromtimestamp(int(stamp), tz=UTC)
        except (OverflowError, OSError, ValueError):  # a nonsense stamp: keep the finding, not the time
            time = None
    rank = resolve_rank(idx, f, None, f.local_rank)
    out = []
    for m in rules.match(line, StreamKind.RANK_LOG):
        out.append(Finding(
            rule=m.rule.id, role=m.rule.role, cause=m.rule.cause, severity=m.rule.severity, text=line,
            file=f.display, line=1, time=time, rank=rank, local_rank=f.local_rank,
            node=idx.rank_node.get(rank) if rank is not None else f.node, pid=idx.rank_pid.get(rank) if rank is not None else None,
            fields=m.fields, attempt=f.attempt, confidence=m.rule.confidence,
        ))
    return out, []


def rank_infos(scans: Sequence[FileScan], idx: RunIndex) -> dict[int, RankInfo]:
    last: dict[int, datetime] = {}
    for scan in scans:
        if scan.file.kind.value != "rank_log":
            continue
        for prefix_rank, time in last_activity(scan).items():
            rank = resolve_rank(idx, scan.file, prefix_rank, None)
            if rank is None:
                continue
            if rank not in last or time > last[rank]:
                last[rank] = time
    ranks = idx.ranks() | set(last)
    return {
        r: RankInfo(rank=r, local_rank=idx.rank_local.get(r), node=idx.rank_node.get(r), pid=idx.rank_pid.get(r),
                    gpu=idx.rank_gpu.get(r), last_time=last.get(r))
        for r in sorted(ranks)
    }
