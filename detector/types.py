"""Values passed between modules: frozen, slotted dataclasses and enums. No logic here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

# Rule ids of the findings that code (not a YAML rule) produces; the YAML rule ids live in rules/.
RULE_STALL = "stats.stall"
RULE_FINISH = "stats.finish"  # some ranks printed their end of training, others did not
RULE_STALL_WHERE = "stats.stall_where"  # a stalled rank whose stack names another cause than hang
RULE_STRAGGLER = "stats.straggler"
RULE_SLOWDOWN = "stats.slowdown"
# rule-id hints of a network error that a peer's going away explains as well as a network fault
# ("remote process exited or there was a network error", a closed or reset connection)
PEER_GONE_HINTS = ("ib_completion", "ofi_completion", "remote", "closed", "reset", "peer_lost", "connection_lost")
RULE_MEGATRON_STRAGGLER = "launcher.megatron_straggler"  # Megatron's own straggler reports (pipeline.findings)
RULE_SLOWEST_STRAGGLER = "launcher.slowest_rank_straggler"  # a trainer's reports naming its slowest rank (pipeline.findings)
RULE_STACK_DUMP_MAIN = "python.stack_dump_main_thread"  # rules/python.yaml: py-spy's dump of a process's main thread
RULE_GPU_OUTLIER = "stats.gpu_outlier"
RULE_EXIT_CODE = "torchelastic.exitcode"
RULE_RUN_UNFINISHED = "python.run_unfinished"  # a benchmark run that started and never said it stopped (pipeline.findings)
RULE_PROCESS_EXITED = "process.exited"
# YAML rules whose meaning code relies on (rules/torch.yaml, rules/nccl.yaml)
RULE_NCCL_TEARDOWN = "torch.nccl_teardown"  # "Some NCCL operations have failed or timed out": a rank stopping
RULE_NCCL_PROXY = "nccl.proxy_error"  # alone, the noise of processes exiting at the end of a run
RULE_LOCAL_CLOSE = "nccl.connection_closed_by_local_rank"  # a process of the node closed its proxy connection
# a console progress bar drawn again after a watchdog's timeout report (rules/torch.yaml): the
# process drawing it was slow, not stuck
RULE_PROGRESS_AFTER_TIMEOUT = "torch.progress_after_timeout"
RULE_MAIN_FIRST = "torch.main_first_wait"  # a traceback through a main-process-first barrier
RULE_DATA_PREP = "torch.data_prep_progress"  # a data-preparation bar that had not finished
RAISED = "raised"  # a field of a collateral finding on a Python traceback's exception line (pipeline.findings)
RULE_WEIGHT_LOADING = "torch.weight_loading_progress"  # a model's weights being read into host memory
RULE_STACK_COLLECTIVE = "python.stack_in_collective"  # a stack dump of a thread waiting in a collective
RULE_STACK_LOADER = "python.stack_in_data_loader"  # a stack dump of a main loop waiting for its data loader
# a file's last lines: where a run that stopped says its last words (the last-progress search in a
# file's tail and attribution's terminal() both look this far)
TERMINAL_LINES = 400
# Horovod's stall inspector (rules/launchers.yaml): a warning that some ranks wait for others; alone,
# no failure (the job may be pausing on one rank, and Horovod goes on)
# the launcher sending its teardown signal to a worker still running (rules/torch.yaml,
# launchers.yaml)
SIGNAL_SENT = frozenset({"torch.elastic_sending_signal", "launcher.deepspeed_killing_subprocess"})
RULE_HOROVOD_STALL = "launcher.horovod_stall_timeout"  # the report's header line
STALL_WARNING_RULES = frozenset({RULE_HOROVOD_STALL, "launcher.horovod_op_missing_ranks"})


class Role(StrEnum):
    INITIATOR = "initiator"
    COLLATERAL = "collateral"
    CONTEXT = "context"


class Severity(StrEnum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"
    CRITICAL = "critical"


class Cause(StrEnum):
    GPU_HARDWARE = "gpu_hardware"
    ECC_MEMORY = "ecc_memory"
    NVLINK = "nvlink"
    NETWORK = "network"
    CUDA_OOM = "cuda_oom"
    ILLEGAL_MEMORY_ACCESS = "illegal_memory_access"
    PYTHON_EXCEPTION = "python_exception"
    HOST_OOM_KILL = "host_oom_kill"
    CRASH_SIGNAL = "crash_signal"
    PREEMPTION = "preemption"
    HANG = "hang"
    DATA_LOADER_STALL = "data_loader_stall"
    COLLECTIVE_MISMATCH = "collective_mismatch"
    STRAGGLER = "straggler"
    UNKNOWN = "unknown"


class StreamKind(StrEnum):
    """What kind of text a line comes from; rules select on it (`source:`)."""

    RANK_LOG = "rank_log"
    KERNEL = "kernel"


@dataclass(frozen=True, slots=True)
class Event:
    """One line of input, parsed at the edge (sources/)."""

    file: str
    line: int  # 1-based line number in `file`
    kind: StreamKind
    text: str  # the raw line, without its newline
    message: str  # the line with rank prefixes removed; what rules match
    time: datetime | None = None  # aware (UTC) when known
    time_inferred: bool = False  # True when inherited from an earlier line
    rank: int | None = None
    local_rank: int | None = None
    node: str | None = None
    pid: int | None = None


@dataclass(frozen=True, slots=True)
class Finding:
    """A piece of evidence produced by a detector (a rule match or a statistic)."""

    rule: str
    role: Role
    cause: Cause | None
    severity: Severity
    text: str
    file: str | None = None
    line: int | None = None
    time: datetime | None = None
    rank: int | None = None
    local_rank: int | None = None
    node: str | None = None
    pid: int | None = None
    gpu: str | None = None  # normalised PCI id "dddd:bb:dd"
    fields: tuple[tuple[str, str], ...] = ()
    context: tuple[str, ...] = ()  # following lines (a traceback, a multi-line message)
    attempt: int | None = None  # torchrun restart attempt, when the path tells
    confidence: float = 1.0  # how strongly this evidence supports its cause

    def field(self, name: str) -> str | None:
        for key, value in self.fields:
            if key == name:
                return value
        return None


@dataclass(frozen=True, slots=True)
class RankInfo:
    """Who one rank is (node, local rank, pid, GPU) and its last sign of life."""

    rank: int
    local_rank: int | None = None
    node: str | None = None
    pid: int | None = None
    gpu: str | None = None
    last_time: datetime | None = None  # last line the rank wrote
    last_step: int | None = None


@dataclass(frozen=True, slots=True)
class RankProcess:
    """A rank process seen on this host, from its environment."""

    rank: int
    local_rank: int | None
    pid: int
    attempt: int | None
    node: str | None
    log_dir: str | None  # the torchrun attempt folder of its logs (TORCHELASTIC_ERROR_FILE's folder)
    start_ticks: int = 0  # /proc start time, to tell a reused pid apart


@dataclass(frozen=True, slots=True)
class RunFacts:
    """Everything attribution needs about a run: its findings and who is who."""

    findings: tuple[Finding, ...]
    ranks: Mapping[int, RankInfo] = field(default_factory=dict)
    world_size: int | None = None
    median_step_s: float | None = None
    # ranks that matched a rule although the evidence cap kept none of their lines (a cascade of
    # 100,000 timeouts): they belong to the run and to every incident's collateral list
    seen_ranks: frozenset[int] = frozenset()
    # the lines of each file (by its display name) and whether the logs were read to their end (a
    # replay; the sidecar reads logs still being written): what the last-resort readings need to
    # tell a run's last words from lines that training went on after
    file_lines: Mapping[str, int] = field(default_factory=dict)
    ended: bool = False
    last_progress: Mapping[str, int] = field(default_factory=dict)  # each file's last line of training progress
    # the last attempt of a job whose attempts are files of their own (a requeued job's output per
    # restart: pipeline.model.numbered_file_attempts numbered its findings' attempts); None: none
    last_file_attempt: int | None = None
    last_attempt_ended_well: bool = False  # (and whether that attempt said it ended well)
    last_attempt_hosts: frozenset[str] = frozenset()  # (the hosts its output names; empty: not known)
    last_attempt_nodes: frozenset[str] = frozenset()  # (and the nodes the scheduler gave it, as its script echoed them)
    file_starts: Mapping[str, datetime] = field(default_factory=dict)  # each file's first stamped line's time (replay)


@dataclass(frozen=True, slots=True)
class Initiator:
    rank: int | None = None
    local_rank: int | None = None
    node: str | None = None
    gpu: str | None = None
    pid: int | None = None


@dataclass(frozen=True, slots=True)
class Remediation:
    drain_node: bool
    resubmit: bool
    fix: str
    verify: str


@dataclass(frozen=True, slots=True)
class Incident:
    id: str
    cause: Cause
    initiator: Initiator
    collateral_ranks: tuple[int, ...]
    confidence: float
    first_evidence_time: datetime | None
    explanation: str
    evidence: tuple[Finding, ...]
    remediation: Remediation


@dataclass(frozen=True, slots=True)
class Summary:
    files: int = 0
    lines: int = 0
    ranks: int = 0
    nodes: int = 0
    start: datetime | None = None
    end: datetime | None = None
    # where each node name came from, (name, how) sorted by name: "folder" (a folder named like a
    # host), "pod" (the kubelet's pod folder), "file" (the one host a file's own lines name) or
    # "lines" (a line that names the host of a rank: NCCL / UCX headers, launcher tables and maps)
    node_sources: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Report:
    source: str
    summary: Summary
    incidents: tuple[Incident, ...] = ()
    warnings: tuple[str, ...] = ()
    # per-rank last activity, for the timeline views: rank -> (last time, last step)
    progress: tuple[tuple[int, datetime | None, int | None], ...] = field(default=())
    # the failures the job recovered from (its workers restarted and trained on), one line each
    recovered: tuple[str, ...] = ()


def tells_a_lost_peer(f: Finding) -> bool:
    """The finding's rule is one of a peer or connection lost (:data:`PEER_GONE_HINTS`), whatever
    its cause (a gloo "Connection closed by peer" is collateral, no network fault)."""
    return any(h in f.rule for h in PEER_GONE_HINTS)


def peer_gone(f: Finding) -> bool:
    """A network finding that a peer's going away explains as well (:data:`PEER_GONE_HINTS`)."""
    return f.cause is Cause.NETWORK and tells_a_lost_peer(f)


def amd_gpu_evidence(f: Finding) -> bool:
    """The finding is an AMD GPU's (the amdgpu driver's RAS and reset lines, the ROCm runtime's
    faults): its node is checked with AMD's tools, not NVIDIA's, and its links are xGMI, not NVLink."""
    return f.rule.startswith(("system.amdgpu", "cuda.rocm_", "cuda.hsa_"))


# a fault of a GPU, its memory or its links: the node's hardware, wherever it is reported
GPU_FAULTS = frozenset({Cause.GPU_HARDWARE, Cause.ECC_MEMORY, Cause.NVLINK})


# a process's own death (its exception, its GPU's OOM or fault, its crash): its peers' network
# errors that name a peer gone follow from it
PROCESS_DEATHS = frozenset({Cause.CUDA_OOM, Cause.ILLEGAL_MEMORY_ACCESS, Cause.PYTHON_EXCEPTION, Cause.CRASH_SIGNAL})
# and with a data loader's worker killed (the trainer raises for it and exits): what a peer's
# "remote process exited" may follow
DEATHS_OF_PEERS = PROCESS_DEATHS | {Cause.DATA_LOADER_STALL}
