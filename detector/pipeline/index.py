"""Who is who in a run: ranks, nodes, local ranks, pids and GPUs, from what the logs say
(NCCL init lines, torchelastic summaries, file names and prefixes) and, in the sidecar, from what
only a live process sees (the rank processes' environment, NVML's processes per GPU, the
config's ``rank_gpus``). One set of functions for replay and the sidecar."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from detector.pipeline.filescan import FileScan
from detector.pipeline.tail import tail_of
from detector.sources.pci import normalize_pci
from detector.sources.prefixes import WORKER_PID, WORKER_PID_SPAN, PrefixStyle, strip_prefix
from detector.sources.runs import LogFile
from detector.sources.torchelastic import FailureRecord
from detector.support.hosts import names_a_host, placeholder_host
from detector.support.numbers import MAX_RANKS, small_int
from detector.types import RankProcess

# words a file name puts before its node's name ("node-<host>-dmesg.txt"): RunIndex.node
_NAMING_WORDS = frozenset({"node-", "node_", "host-", "host_"})


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
    # a torchrun rank folder (``attempt_N/<local rank>/``) -> the global rank one of its files names:
    # its stderr.log, stdout.log and error.json are the same process's
    folder_rank: dict[str, int] = field(default_factory=dict)
    # a node's combined torchrun log (``--tee``: "[default3]:[rank11]:") -> global rank minus local
    # rank, where its lines naming both agree on it: its lines that name only "[default5]:" (a
    # rank's output before its process group, or an older torchrun's) are global rank 5 + that
    file_offset: dict[str, int] = field(default_factory=dict)
    host_alias: dict[str, str] = field(default_factory=dict)
    # a pod -> the Kubernetes node `kubectl get pods -o wide` or `kubectl describe pod` places it on
    # (the host a cordon names): the ranks keep their pods' names (pods of one node number their
    # processes alike), the report names the node
    pod_node: dict[str, str] = field(default_factory=dict)
    world_size: int | None = None
    nodes: set[str] = field(default_factory=set)
    # process ids two ranks or more have (containers on several nodes number their processes
    # alike): a line that names only the pid, on no known node, is none of theirs for sure
    shared_pids: set[int] = field(default_factory=set)
    # a file no one node's (a pdsh or clush combined log) -> the hosts its matched lines' own
    # prefixes name: where two or more, a local rank on one of its lines is no global rank by itself
    file_hosts: dict[str, set[str]] = field(default_factory=dict)
    # (host, local rank) -> global rank as DeepSpeed's "node_rank=K, num_local_procs=L" gives it
    # (K * L + local): where no exact map (its global_rank_mapping, torchrun's records) says otherwise
    estimated_global: dict[tuple[str, int], int] = field(default_factory=dict)

    def node(self, name: str | None) -> str | None:
        if name is None or placeholder_host(name):
            return None
        alias = self.host_alias.get(name)
        if alias is None and name[:5].lower() in _NAMING_WORDS:
            # a file named for its node with a word before the name ("node-<host>-dmesg.txt"):
            # the name without it, where the run knows that host by another name
            alias = self.host_alias.get(name[5:])
        return alias if alias is not None else name

    def ranks(self) -> set[int]:
        return set(self.file_rank.values()) | set(self.rank_node) | set(self.rank_local) | set(self.rank_pid)




def _num(value: str | None) -> int | None:
    """A number from log text (a rank, pid, exit code, world size): bounded, never sized by a
    claim; a pid may be quoted (``pid='1234'``), an exit code negative."""
    if value is None:
        return None
    return small_int(value.strip().strip("'"), signed=True)


def _rank(value: str | None) -> int | None:
    """A rank id or world size from log text, below :data:`MAX_RANKS` (else not believed)."""
    n = _num(value)
    return n if n is not None and 0 <= n < MAX_RANKS else None


def _field(fields: Iterable[tuple[str, str]], name: str) -> str | None:
    for k, v in fields:
        if k == name:
            if name == "host" and placeholder_host(v):
                return None  # a redacted host ("on node xxxxxxxx") names no node
            return v
    return None


_NCCL_PROCESS = re.compile(r"(?:^|[\s\]])[A-Za-z0-9][-A-Za-z0-9_.]{0,62}:[0-9]{1,10}:[0-9]{1,10} \[(?P<dev>[0-9]{1,6})\] NCCL ")
MAX_LOCAL_DEVS = 64  # a device tag above it is a service thread's unset one ("[32626]")


def _widest_communicators(scans: Sequence[FileScan]) -> dict[tuple[str | None, int], int]:
    """Each process's (host, pid) widest communicator its NCCL set-up lines name ("rank 22 nranks
    64 ... busId ba000"): the world's, whose rank is the global one; its sub-communicators' lines
    ("rank 0 nranks 2", a pipeline's or an expert group's) number their ranks their own way."""
    widest: dict[tuple[str | None, int], int] = {}
    for scan in scans:
        if scan.file.kind.value != "rank_log":
            continue
        for hit in scan.hits:
            for m in hit.matches:
                if _field(m.fields, "busid") is None:
                    continue
                pid, n = _num(_field(m.fields, "pid")), _rank(_field(m.fields, "nranks"))
                if pid is not None and n:
                    key = (_field(m.fields, "host") or scan.file.node, pid)
                    widest[key] = max(widest.get(key, 0), n)
    return widest


def build_index(scans: Sequence[FileScan]) -> RunIndex:
    idx = RunIndex()
    init_hosts: dict[str, Counter[str]] = defaultdict(Counter)  # folder node -> NCCL hosts
    nranks: Counter[int] = Counter()
    cuda_local: dict[int, int] = {}  # rank -> cudaDev (the local rank when each rank sees all GPUs)
    # a file is one node's where it names its node or the run keeps its logs in several files (one
    # paste of several nodes' lines holds "[default0]:" of each: no offset read from it)
    per_node_files = sum(1 for s in scans if s.file.kind.value == "rank_log") >= 2
    ds_spawned: list[tuple[str | None, int, int]] = []  # DeepSpeed's workers: (node, local rank, pid)
    pod_nodes: dict[str, set[str]] = defaultdict(set)  # kubectl's placement of each pod (get -o wide, describe)
    widest = _widest_communicators(scans)
    for scan in scans:
        f = scan.file
        if f.kind.value != "rank_log":
            continue
        own: set[int] = set()
        nccl_devs: set[int] = set()  # devices whose NCCL lines ("host:pid:tid [dev] NCCL ...") the file holds
        own_hosts = _line_hosts(scan) if f.node is None else None
        if own_hosts:
            idx.file_hosts[f.display] = own_hosts
        for hit in scan.hits:
            if (len(nccl_devs) < 2 and "NCCL " in hit.event.message
                    and (nccl := _NCCL_PROCESS.search(hit.event.message)) is not None and int(nccl["dev"]) < MAX_LOCAL_DEVS):
                nccl_devs.add(int(nccl["dev"]))
            if hit.event.rank is not None and "pid=" in hit.event.text[:WORKER_PID_SPAN]:
                _add_worker_pid(idx, hit.event.rank, hit.event.text, hit.event.node or f.node)
            for m in hit.matches:
                if m.rule.id in _PREFIX_RANK_RULES:
                    _add_prefixed_rank(idx, m.fields, hit.event.text, hit.event.node or f.node)
                    continue
                if m.rule.id == RULE_DS_NODE_RANK:
                    _add_node_ranks(idx, m.fields, hit.event.node or f.node)
                    continue
                if m.rule.id == RULE_DS_SPAWNED:
                    local, spawned = _rank(_field(m.fields, "local_rank")), _num(_field(m.fields, "pid"))
                    if local is not None and spawned is not None:
                        ds_spawned.append((hit.event.node or f.node, local, spawned))
                    continue
                mapping = _field(m.fields, "rank_mapping")
                if mapping is not None:
                    _add_rank_mapping(idx, mapping)
                    continue
                k8s_node, pod = _field(m.fields, "k8s_node"), _field(m.fields, "pod")
                if k8s_node is not None and pod is not None:  # the node's kernel log is the pod's
                    idx.host_alias.setdefault(k8s_node, pod)
                    pod_nodes[pod].add(k8s_node)
                    continue
                busid = _field(m.fields, "busid")
                rank = _rank(_field(m.fields, "rank"))
                if rank is None:
                    if m.rule.id == RULE_LIGHTNING_RANK and (world := _rank(_field(m.fields, "world"))):
                        nranks[world] += 1  # (Lightning's "GLOBAL_RANK: 43, MEMBER: 44/64": the world's size)
                    continue
                if busid is None:  # NCCL's "host:pid:tid [dev] … rank 1 nranks 2": whose pid is whose
                    if m.rule.id in RULES_PALS_RANK:  # PALS's "x3008c0s13b1n0: rank 52 exited with code 1"
                        host = _field(m.fields, "host")
                        if host and names_a_host(host):
                            idx.rank_node.setdefault(rank, host)
                    elif m.rule.id == RULE_COMM_RANK:  # (not comm_info: a sub-communicator's rank is its own)
                        _add_comm_rank(idx, rank, _num(_field(m.fields, "pid")), _field(m.fields, "host"), f.node)
                    elif m.rule.id == RULE_RAY_WORKER:
                        _add_ray_worker(idx, rank, _num(_field(m.fields, "pid")), _field(m.fields, "host"),
                                        _rank(_field(m.fields, "local_rank")))
                    continue
                host = _field(m.fields, "host")
                pid = _num(_field(m.fields, "pid"))
                gpu = normalize_pci(busid)
                n = _rank(_field(m.fields, "nranks"))
                if n and pid is not None and n < widest.get((host or f.node, pid), n):
                    continue  # a sub-communicator's rank (a pipeline's or an expert group's): its own numbering
                if n:
                    nranks[n] += 1
                own.add(rank)
                cudadev = _rank(_field(m.fields, "cudadev"))
                if cudadev is not None:
                    cuda_local.setdefault(rank, cudadev)
                if gpu:
                    idx.rank_gpu.setdefault(rank, gpu)
                if pid is not None:
                    idx.rank_pid.setdefault(rank, pid)
                if host:
                    if f.node:
                        init_hosts[f.node][host] += 1
                    idx.rank_node.setdefault(rank, f.node or host)
        # (a file of several ranks: their prefixes, NCCL's init lines of several ranks or NCCL lines of
        # several devices, as in a Kubernetes pod's log named "...-worker-4", the node's and not rank
        # 4's; one rank restarted in the same file prints one device under two pids)
        combined = len(scan.prefix_ranks) >= 2 or len(own) >= 2 or len(nccl_devs) >= 2
        if f.rank is not None and not combined and own and f.rank not in own:
            pass  # the number its name ends in is no rank ("metaflow-99855-train-100.log": a task's
            # id): NCCL's set-up line in it names another rank (perhaps one of a node's several)
        elif f.rank is not None and not combined:
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
        offset = _node_offset(scan.prefix_pairs) if (f.node is not None or per_node_files) else None
        if offset is not None:
            idx.file_offset[f.display] = offset
    for folder, hosts in init_hosts.items():
        host = hosts.most_common(1)[0][0]
        if host != folder:
            idx.host_alias[host] = folder
    if nranks:
        idx.world_size = nranks.most_common(1)[0][0]
        for display, rank in list(idx.file_rank.items()):
            if rank >= idx.world_size:  # a name's number past the job's ranks: no rank of its
                del idx.file_rank[display]
    _note_folders(idx, (s.file for s in scans))
    # torchrun trees without any other hint: one node, global rank = local rank
    single_node = len({s.file.node for s in scans if s.file.kind.value == "rank_log"}) <= 1
    for scan in scans:
        f = scan.file
        if f.display in idx.file_rank or f.local_rank is None:
            continue
        g = idx.folder_rank.get(str(f.path.parent))
        if g is None:
            g = idx.local_rank_global.get((f.node, f.local_rank, f.attempt))
            if g is None:
                g = idx.local_rank_global.get((f.node, f.local_rank, None))
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
    for at, local, spawned in ds_spawned:
        # (the global rank its node's place gives; on one node, the local rank is the global one)
        g = global_of_local(idx, at, local, None)
        if g is None and len({n for n, _l, _p in ds_spawned}) == 1 and not idx.local_rank_global:
            g = local
        if g is not None:
            idx.rank_pid.setdefault(g, spawned)
            if at:
                idx.rank_node.setdefault(g, idx.node(at) or at)
    seen_pids: set[int] = set()
    for rank, pid in idx.rank_pid.items():
        idx.pid_rank[(idx.rank_node.get(rank), pid)] = rank
        idx.pid_rank.setdefault((None, pid), rank)
        if pid in seen_pids:
            idx.shared_pids.add(pid)
        seen_pids.add(pid)
    for rank, gpu in idx.rank_gpu.items():
        idx.gpu_rank[(idx.rank_node.get(rank), gpu)] = rank
    idx.nodes = {n for n in idx.rank_node.values() if n}
    # (a pod listed on two nodes, a listing of an earlier job's pods beside today's: no node is its)
    idx.pod_node = {pod: next(iter(nodes)) for pod, nodes in pod_nodes.items() if len(nodes) == 1 and pod not in nodes}
    if idx.world_size is None and idx.ranks():
        idx.world_size = max(idx.ranks()) + 1
    return idx


RULE_LIGHTNING_RANK = "launcher.lightning_init_rank"  # rules/launchers.yaml
RULE_COMM_RANK = "nccl.comm_rank"  # rules/nccl.yaml: NCCL < 2.4's one communicator line
# rules/launchers.yaml: the node a rank of HPE's mpiexec ran on, in its report of the rank's exit
RULES_PALS_RANK = frozenset({"launcher.pals_rank_exit", "launcher.pals_rank_terminated"})
RULE_VLLM_RANK = "launcher.vllm_rank_assigned"  # rules/launchers.yaml: "rank 10 in world size 24 is assigned as ..."
RULE_BARRIER_DEVICE = "torch.barrier_device_guess"  # rules/torch.yaml: "[PG ID 0 ... Rank 7]  using GPU 7 to perform barrier"
RULE_RAY_PG = "launcher.ray_train_process_group"  # "(RayTrainWorker pid=N) Setting up process group for: env:// [rank=3, ...]"
RULE_DS_NODE_RANK = "launcher.deepspeed_node_rank"  # rules/launchers.yaml: "nnodes=8, num_local_procs=8, node_rank=7"
RULE_DS_SPAWNED = "launcher.deepspeed_spawned"  # rules/launchers.yaml: "process 931900 spawned with command: [... '--local_rank=0' ...]"
RULE_RAY_WORKER = "launcher.ray_train_worker"  # Ray Train's table: "- (ip=10.0.0.1, pid=N) world_rank=3, local_rank=3, ..."
# rules whose line gives the global rank of the process its worker prefix names
_PREFIX_RANK_RULES = frozenset({RULE_VLLM_RANK, RULE_RAY_PG, RULE_BARRIER_DEVICE})


def _add_prefixed_rank(idx: RunIndex, fields: Iterable[tuple[str, str]], text: str, host: str | None) -> None:
    """A line that says its process's global rank behind a worker's prefix (vLLM's "rank 10 in
    world size 24 is assigned as DP rank 0, PP rank 1, TP rank 2", a Ray Train worker's "Setting up
    process group for: env:// [rank=10, world_size=24]"): the process the prefix names is that
    global rank (where the prefix names one), on the prefix's node."""
    rank = _rank(_field(fields, "global_rank") or _field(fields, "rank"))
    m = WORKER_PID.match(text, 0, WORKER_PID_SPAN)
    if rank is None or m is None:
        return
    pid = int(m["pid"])
    idx.rank_pid.setdefault(rank, pid)
    if host:
        idx.rank_node.setdefault(rank, host)
    idx.pid_rank.setdefault((idx.node(host) if host else None, pid), rank)


def _add_worker_pid(idx: RunIndex, rank: int, text: str, host: str | None) -> None:
    """A line of a rank's own ("[rank13]:") behind its worker's prefix ("(MegatronPolicyWorker[rank=13]
    pid=344023, ip=10.0.0.5) "): that process is the rank's (a kernel line naming the pid - an Xid,
    the OOM killer - is that rank's). Only pid to rank: the jobs of several process groups (an
    actor's and a reference model's, each with its rank 0) give one rank several processes."""
    m = WORKER_PID.match(text, 0, WORKER_PID_SPAN)
    if m is None:
        return
    pid = int(m["pid"])
    if host:
        idx.pid_rank.setdefault((idx.node(host), pid), rank)
    idx.pid_rank.setdefault((None, pid), rank)


# a training operator's word on the whole job: its line names the operator's stream, no node of the
# job ("@logStream": "kubeflow-training-operator" in a log platform's export)
_CONTROL_PLANE = frozenset({"scheduler.k8s_job_succeeded", "scheduler.k8s_job_failed", "scheduler.k8s_job_evicted"})


def _line_hosts(scan: FileScan) -> set[str]:
    """The hosts a combined log's lines name in their own prefixes (pdsh's "host: "): its matched
    lines' (not a training operator's word on the whole job), and where those name fewer than two,
    its tail's (until two are found)."""
    hosts = {hit.event.node for hit in scan.hits
             if hit.event.node and not all(m.rule.id in _CONTROL_PLANE for m in hit.matches)}
    parser = scan.parser
    if len(hosts) < 2 and parser is not None and parser.style is PrefixStyle.HOST_LABEL:
        for raw in reversed(tail_of(scan)):
            host = strip_prefix(raw, PrefixStyle.HOST_LABEL).host
            if host and names_a_host(host):
                hosts.add(host)
                if len(hosts) >= 2:
                    break
    return hosts


def _add_node_ranks(idx: RunIndex, fields: Iterable[tuple[str, str]], host: str | None) -> None:
    """DeepSpeed's launcher's "nnodes=8, num_local_procs=8, node_rank=7" on a node: local rank L of
    that node is global rank 7 * 8 + L (its exit lines name only --local_rank)."""
    node_rank, procs = _rank(_field(fields, "node_rank")), _rank(_field(fields, "local_procs"))
    node = idx.node(host)
    if node is None or node_rank is None or not procs or procs > MAX_LOCAL_DEVS:
        return
    for local in range(procs):
        rank = node_rank * procs + local
        if rank >= MAX_RANKS:
            break
        idx.estimated_global.setdefault((node, local), rank)


def _add_ray_worker(idx: RunIndex, rank: int, pid: int | None, host: str | None, local: int | None) -> None:
    """A row of Ray Train's table of its workers: that rank's process, node address and local rank
    (the workers on the driver's node print no address in their prefixes: the row says it)."""
    if pid is not None:
        idx.rank_pid.setdefault(rank, pid)
    if host and names_a_host(host):
        idx.rank_node.setdefault(rank, host)
    if local is not None:
        idx.rank_local.setdefault(rank, local)


def _add_comm_rank(idx: RunIndex, rank: int, pid: int | None, host: str | None, folder_node: str | None) -> None:
    """NCCL < 2.4's communicator line (``host:pid:tid [0] NCCL INFO rank 1 nranks 2``): the pid
    and host of its header are that rank's, for lines the header alone places."""
    if pid is None or host is None:
        return
    idx.rank_pid.setdefault(rank, pid)
    idx.rank_node.setdefault(rank, folder_node or host)


_HOST_RANKS = re.compile(r"'([A-Za-z0-9][A-Za-z0-9._-]{0,62})': \[([0-9, ]{0,20000})\]")


def _add_rank_mapping(idx: RunIndex, text: str) -> None:
    """The DeepSpeed launcher's ``{'host': [global ranks]}``: local rank i of a host is its i-th."""
    for host, ranks in _HOST_RANKS.findall(text):
        # a single-node launch maps "localhost": the ranks' local ranks, but no node name
        node = host if names_a_host(host) else None
        for local, tok in enumerate(ranks.replace(",", " ").split()):
            rank = small_int(tok)
            if rank is None or rank >= MAX_RANKS:
                continue
            idx.local_rank_global.setdefault((node, local, None), rank)
            if node is not None:
                idx.rank_node.setdefault(rank, node)
            idx.rank_local.setdefault(rank, local)


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


def _node_offset(pairs: set[tuple[int, int]]) -> int | None:
    """Global minus local rank, where two local ranks or more pair with global ranks and every
    pair agrees on it (one node's workers: torchrun numbers them from the node's first global
    rank); None where they disagree (a paste of several nodes' lines) or too few say it."""
    if len({local for local, _rank in pairs}) < 2:
        return None
    offsets = {rank - local for local, rank in pairs}
    return offsets.pop() if len(offsets) == 1 else None


def _note_folders(idx: RunIndex, files: Iterable[LogFile]) -> None:
    """A torchrun rank folder whose one file names its global rank names it for its siblings
    (the error file is written before the traceback that carries ``[rankN]:``)."""
    for f in files:
        rank = idx.file_rank.get(f.display)
        if rank is not None and f.local_rank is not None:
            idx.folder_rank.setdefault(str(f.path.parent), rank)


def global_of_local(idx: RunIndex, node: str | None, local: int, attempt: int | None) -> int | None:
    """The global rank torchrun's records give local rank ``local`` of ``node`` (in that attempt,
    else in any)."""
    g = idx.local_rank_global.get((node, local, attempt))
    if g is None:
        g = idx.local_rank_global.get((node, local, None))
    if g is None and node is not None:
        g = idx.estimated_global.get((node, local))
    return g


def resolve_rank(idx: RunIndex, f: LogFile, event_rank: int | None, event_local: int | None) -> int | None:
    """The global rank a line of ``f`` is about (its prefix's rank or local rank, else the
    file's or its rank folder's); used for matched lines and for step lines, in replay and in the
    sidecar."""
    if event_rank is not None:
        return event_rank if 0 <= event_rank < MAX_RANKS else None
    file_rank = idx.file_rank.get(f.display)
    if file_rank is not None:
        return file_rank
    if f.local_rank is not None:
        folder = idx.folder_rank.get(str(f.path.parent))
        if folder is not None:
            return folder
    if event_local is not None:
        g = global_of_local(idx, f.node, event_local, f.attempt)
        if g is not None:
            return g
        offset = idx.file_offset.get(f.display)
        if offset is not None:
            return event_local + offset if 0 <= event_local + offset < MAX_RANKS else None
        if len(idx.nodes) <= 1:
            return event_local
    return None


def resolve_line_rank(idx: RunIndex, f: LogFile, node: str | None, rank: int | None, local: int | None) -> int | None:
    """:func:`resolve_rank` for a line whose own prefix names its host (pdsh's "host: ..." in a log
    of several hosts): a local rank there is that host's, as the run's map of that host gives it,
    and no rank where the file shows several hosts and nothing maps this one (not the file's own
    offset, not a one-node reading)."""
    if rank is None and local is not None and f.node is None and node is not None:
        g = global_of_local(idx, node, local, f.attempt)
        if g is not None or len(idx.file_hosts.get(f.display, ())) >= 2:
            return g
    return resolve_rank(idx, f, rank, local)


@dataclass(frozen=True, slots=True)
class LiveFacts:
    """What only a live sidecar sees about who is who."""

    node: str | None = None
    processes: tuple[RankProcess, ...] = ()  # latest process of each (attempt, rank)
    gpu_pids: tuple[tuple[str, tuple[int, ...]], ...] = ()  # GPU PCI id -> pids on it (NVML)
    rank_gpus: Mapping[int, str] = field(default_factory=dict)  # from the config


def apply_live(idx: RunIndex, live: LiveFacts, files: Iterable[LogFile]) -> RunIndex:
    """Add what the rank processes, NVML and the config say to an index built from the logs."""
    by_dir: dict[str, list[LogFile]] = {}
    for f in files:
        by_dir.setdefault(str(f.path.parent), []).append(f)
    for proc in sorted(live.processes, key=lambda p: (p.attempt or 0, p.rank)):
        rank, attempt = proc.rank, proc.attempt
        node = proc.node or live.node
        if proc.local_rank is not None:
            idx.local_rank_global[(node, proc.local_rank, attempt)] = rank
            idx.local_rank_global.setdefault((node, proc.local_rank, None), rank)
            idx.rank_local[rank] = proc.local_rank
        idx.rank_pid[rank] = proc.pid
        idx.pid_rank[(node, proc.pid)] = rank
        idx.pid_rank.setdefault((None, proc.pid), rank)
        if node:
            idx.rank_node[rank] = node
        for f in by_dir.get(proc.log_dir or "", []):
            idx.file_rank[f.display] = rank
        if proc.log_dir:
            idx.folder_rank[proc.log_dir] = rank
    pid_rank = {pid: rank for (_, pid), rank in idx.pid_rank.items()}
    for gpu, pids in live.gpu_pids:
        for pid in pids:
            if pid in pid_rank:
                idx.rank_gpu[pid_rank[pid]] = gpu
    for rank, gpu in live.rank_gpus.items():
        idx.rank_gpu.setdefault(rank, gpu)
    for rank, gpu in idx.rank_gpu.items():
        idx.gpu_rank[(idx.rank_node.get(rank), gpu)] = rank
        idx.gpu_rank.setdefault((live.node, gpu), rank)
    idx.nodes = {n for n in idx.rank_node.values() if n}
    ranks = idx.ranks()
    if ranks and (idx.world_size is None or idx.world_size <= max(ranks)):
        idx.world_size = max(ranks) + 1
    return idx
