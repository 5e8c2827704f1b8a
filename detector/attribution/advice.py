"""What to do about an incident: drain or not, resubmit or not, the fix, and a command that
verifies it; and the one-or-two-sentence explanation. Pure functions of the cause and initiator."""

from __future__ import annotations

import shlex

from detector.support.hosts import host_shaped
from detector.types import RULE_EXIT_CODE, RULE_STRAGGLER, Cause, Finding, Initiator, Remediation, amd_gpu_evidence

_DRAIN = frozenset({Cause.GPU_HARDWARE, Cause.ECC_MEMORY, Cause.NVLINK, Cause.NETWORK})


def _on(node: str | None, command: str) -> str:
    """Run ``command`` on ``node`` over ssh (quoted), or locally when the node is unknown or its
    name does not have a host name's shape (text read from a log: "-oProxyCommand=..." would be an
    ssh option, whatever the quoting)."""
    if node and host_shaped(node):
        return f"ssh {shlex.quote(node)} {shlex.quote(command)}"
    return command


def _gpu_select(ini: Initiator) -> str:
    if ini.gpu:
        return f" -i {ini.gpu}.0"
    return ""


LOCAL_ADAPTER_RULES = frozenset({"nccl.ib_async_event"})
PORT_IN_USE = frozenset({"torch.store_port_in_use", "torch.store_bind_in_use", "torch.store_bind6_in_use"})  # rules/torch.yaml: a held port
PORT_DENIED = "torch.store_port_denied"  # rules/torch.yaml: a port the store may not use
SHM_FAILED = "nccl.shm_segment_failed"  # rules/nccl.yaml: NCCL's /dev/shm segment


def local_adapter_evidence(f: Finding, node: str | None) -> bool:
    """Evidence about ``node``'s own network adapter: the kernel's NIC/IB lines, an IB async
    event on its HCA (not a connect failure or a completion error, which may be the peer's)."""
    return (node is not None and f.node == node and f.cause is Cause.NETWORK
            and (f.rule.startswith("system.") or f.rule in LOCAL_ADAPTER_RULES))


def killed_by_sigkill(f: Finding) -> bool:
    """The line says a process ended by SIGKILL (signal 9, exit code -9 or 137)."""
    signal = (f.field("signal") or "").strip().upper()
    return signal in ("SIGKILL", "KILLED") or f.field("exitcode") in ("-9", "137") or f.field("signo") == "9"


def keyboard_interrupt(f: Finding) -> bool:
    """A line of a job stopped by an interrupt: a rank raising KeyboardInterrupt, or the launcher
    receiving (or passing on) SIGINT."""
    return (f.field("exc_type") == "KeyboardInterrupt" or (f.field("signal") or "").strip().upper() in ("2", "SIGINT")
            or f.field("signum") == "2")


def _interrupt(cause: Cause, anchor: Finding | None) -> bool:
    """A job stopped from outside by an interrupt (infer.interrupted): read as a preemption, or as
    a hang when it was stopped while waiting (someone stopping a job that stopped progressing)."""
    return cause is Cause.PREEMPTION and anchor is not None and anchor.field("exc_type") == "KeyboardInterrupt"


def _interrupted_hang(cause: Cause, anchor: Finding | None) -> bool:
    return cause is Cause.HANG and anchor is not None and keyboard_interrupt(anchor)


def _amd_gpu_remediation(cause: Cause, where: str, gpu: str, node: str | None) -> Remediation:
    if cause is Cause.ECC_MEMORY:
        return Remediation(True, True,
            f"Drain {where}; the driver retires the bad pages: reset{gpu} or reboot the node, and RMA the GPU if "
            "uncorrectable errors recur or its retired pages reach the limit.",
            _on(node, "rocm-smi --showrasinfo all && rocm-smi --showretiredpages"))
    if cause is Cause.NVLINK:
        return Remediation(True, True,
            f"Drain {where}; check the xGMI (Infinity Fabric) links between its GPUs, reset the GPUs of the hive or "
            "reboot the node, and reseat or RMA if link errors persist.",
            _on(node, "rocm-smi --showxgmierr && rocm-smi --showtopo"))
    return Remediation(True, True,
        f"Drain {where}; reset{gpu} (amd-smi reset) or reboot the node, run AMD's GPU validation (RVS or AGFHC) "
        "before returning it, and RMA the GPU if the fault repeats.",
        _on(node, "rocm-smi --showrasinfo all && amd-smi list"))


def remediation_for(cause: Cause, ini: Initiator, *, has_hardware_evidence: bool, anchor: Finding | None,
                    local_adapter: bool = False) -> Remediation:
    node = ini.node
    where = f"node {node}" if node else "the node"
    gpu = f" GPU {ini.gpu}" if ini.gpu else ""
    sel = _gpu_select(ini)
    pid = ini.pid
    if cause in (Cause.GPU_HARDWARE, Cause.ECC_MEMORY, Cause.NVLINK) and anchor is not None and amd_gpu_evidence(anchor):
        return _amd_gpu_remediation(cause, where, gpu, node)
    if cause is Cause.GPU_HARDWARE:
        return Remediation(True, True,
            f"Drain {where}; reset{gpu} (nvidia-smi -r) or reboot the node, run DCGM diagnostics before returning it, and RMA the GPU if the fault repeats.",
            _on(node, f"nvidia-smi --query-gpu=pci.bus_id,name,temperature.gpu,ecc.errors.uncorrected.volatile.total --format=csv{sel} && dcgmi diag -r 3"))
    if cause is Cause.ECC_MEMORY:
        return Remediation(True, True,
            f"Drain {where}; reset{gpu} to activate pending row remaps; if remapping failed or errors recur, RMA the GPU.",
            _on(node, f"nvidia-smi -q -d ROW_REMAPPER{sel}"))
    if cause is Cause.NVLINK:
        return Remediation(True, True,
            f"Drain {where}; check NVLink/NVSwitch health and fabric manager, reset the GPUs, and reseat or RMA if errors persist.",
            _on(node, f"nvidia-smi nvlink --status{sel} && nvidia-smi nvlink -e{sel}"))
    if cause is Cause.NETWORK and anchor is not None and anchor.rule in PORT_IN_USE:
        port = anchor.field("port") or (anchor.field("addr") or "").rpartition(":")[2]
        held = f"the store's port {port}" if port else "the store's port (MASTER_PORT)"
        return Remediation(False, True,
            f"Another process holds {held} on {where} (a second job with the same MASTER_PORT, "
            "or a leftover process of an earlier run): stop it or launch with a free port (--master-port / "
            "MASTER_PORT); no node is at fault.",
            _on(node, f"ss -ltnp | grep ':{port} '" if port else "ss -ltnp"))
    if cause is Cause.NETWORK and anchor is not None and anchor.rule == PORT_DENIED:
        denied = anchor.field("port") or anchor.field("port2")
        return Remediation(False, True,
            f"The store may not listen on port {denied or '(MASTER_PORT)'} on {where}: a port below 1024 needs root, "
            "or a security policy forbids it; launch with a free port of 1024 or above (--master-port / MASTER_PORT); "
            "no node is at fault.",
            _on(node, f"ss -ltnp | grep ':{denied} '" if denied else "ss -ltnp"))
    if cause is Cause.NETWORK:
        # drain only on evidence about this node's own adapter (the kernel's NIC/IB lines, an IB
        # async event on its HCA); a connect failure or a completion error one rank saw may be
        # the peer's or the fabric's
        drain = node is not None and local_adapter
        return Remediation(drain, True,
            f"Drain {where} and check its NIC, cable and switch port; resubmit the job without it." if drain
            else "Find the failing link (NIC, cable, switch) from the NCCL errors; resubmit once it is fixed.",
            _on(node, "ibstat && ip -s link"))
    if cause is Cause.CUDA_OOM:
        return Remediation(False, True,
            "Lower the per-GPU batch size or sequence length, enable activation checkpointing, or set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True; no node is at fault.",
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True <your launch command> with the smaller batch, then check torch.cuda.max_memory_allocated() on the rank")
    if cause is Cause.ILLEGAL_MEMORY_ACCESS:
        return Remediation(False, False,
            "An application GPU fault (bad index, out-of-bounds kernel): fix the code; rerun the failing step with CUDA_LAUNCH_BLOCKING=1 to find the kernel. The node is healthy.",
            "CUDA_LAUNCH_BLOCKING=1 compute-sanitizer --tool memcheck python <your training script> (one rank, the failing step)")
    if cause is Cause.PYTHON_EXCEPTION and anchor is not None and anchor.rule == RULE_EXIT_CODE:
        return Remediation(False, False,
            "The rank exited with code 1, Python's exit on an uncaught exception, and the logs at hand do not show "
            "the exception: read its traceback in the rank's own log or torchelastic error file, and fix it; the "
            "other ranks only stopped because it died.",
            "rankdoctor replay <the run's whole log dir, with each rank's own log or error.json>")
    if cause is Cause.PYTHON_EXCEPTION and anchor is not None and anchor.rule == EXECVE_FAILED:
        program = anchor.field("program") or "the task's program"
        return Remediation(False, False,
            f"Slurm could not start {program} ({anchor.field('reason') or 'execve failed'}), so no rank ran: load the "
            "module or activate the environment that provides it in the batch script, or give its full path "
            "(python -m torch.distributed.run in place of torchrun); the node is fine.",
            _on(node, f"command -v {shlex.quote(program)}"))
    if cause is Cause.PYTHON_EXCEPTION:
        where_code = ""
        if anchor is not None:
            where_code = f" ({anchor.text.strip()[:120]})"
        return Remediation(False, False,
            f"Fix the exception on the initiating rank{where_code}; the other ranks only stopped because it died.",
            "rankdoctor replay <the new run's log dir> after the fix")
    if cause is Cause.HOST_OOM_KILL:
        return Remediation(False, True,
            "The kernel OOM killer (or a cgroup limit) killed the rank: reduce host memory use (DataLoader workers, pinned memory, prefetch) or raise the job's memory limit.",
            _on(node, "dmesg -T | grep -iE 'out of memory|oom-kill|killed process'"))
    if cause is Cause.CRASH_SIGNAL:
        target = f" (pid {pid})" if pid else ""
        return Remediation(False, True,
            f"The rank's process{target} died by a signal with no hardware evidence: collect a core dump or faulthandler trace; check host memory if it was SIGKILL.",
            _on(node, "coredumpctl list --since today; dmesg -T | tail -n 50"))
    if _interrupt(cause, anchor):
        return Remediation(False, False,
            "The job was stopped from outside by an interrupt (Ctrl-C, or a SIGINT from its shell or launcher): "
            "no rank failed on its own and no node is at fault, so it is not resubmitted for you. Rerun it from "
            "its last checkpoint when wanted (under nohup, tmux or the scheduler if the interrupt was not meant).",
            "rankdoctor replay <the rerun's log dir>")
    if cause is Cause.PREEMPTION:
        return Remediation(False, True,
            "The scheduler preempted the job: resubmit it to resume from the last checkpoint; no node is at fault.",
            "squeue --me --states=PENDING,RUNNING && scontrol show job <job id>")
    if _interrupted_hang(cause, anchor):
        return Remediation(False, False,
            "Someone interrupted the job (Ctrl-C, or a SIGINT from its shell) while it waited and nothing had failed: "
            "most often a job that had stopped progressing. It is not resubmitted for you: next time, capture the "
            "ranks' stacks (py-spy dump) before interrupting, then rerun from the last checkpoint.",
            _on(node, "py-spy dump --pid <pid of each rank>"))
    if cause is Cause.HANG:
        target = f"--pid {pid}" if pid else "--pid <pid of the rank>"
        return Remediation(False, True,
            "A rank stopped progressing while the others waited in a collective: capture its stacks (py-spy dump) before restarting, and look for a dead data loader, a deadlock or a diverging code path.",
            _on(node, f"py-spy dump {target}"))
    if cause is Cause.DATA_LOADER_STALL:
        return Remediation(False, True,
            "A rank was stuck loading data: check the storage/network file system and the DataLoader workers (num_workers, timeout).",
            _on(node, "df -h; iostat -x 1 3"))
    if cause is Cause.COLLECTIVE_MISMATCH:
        return Remediation(False, False,
            "Ranks issued different collectives (type, size or an extra barrier): fix the divergent code path; the Flight Recorder shows which.",
            "TORCH_NCCL_TRACE_BUFFER_SIZE=2000 <rerun>; torchfrtrace <dump dir>")
    if cause is Cause.STRAGGLER:
        block = anchor.field("ranks") if anchor is not None and anchor.rule == RULE_STRAGGLER else None
        return Remediation(has_hardware_evidence and node is not None, False,
            (f"Rank {ini.rank} is slower than its peers" if ini.rank is not None else
             f"The ranks on node {node} are slower than the other nodes'" if node else
             f"Ranks {block} (a node's worth; the logs do not say which node runs them) are slower than the others"
             if block else "A rank (the logs do not say which) is slower than its peers")
            + (f"; its GPU shows hardware slowdown: drain {where} at a checkpoint boundary." if has_hardware_evidence else
               " (work only it does, such as evaluation, caching or checkpointing, or a slow GPU or host); where the"
               " others timed out waiting for it, give the process group a longer timeout or move that work out of the"
               " collectives' way; if it is slow at every step, check its GPU clocks, temperature and host load."
               if not block or ini.rank is not None or node else
               " (a slow host: its CPUs, its GPUs' clocks or temperature, its PCIe or network links); find the node"
               " that runs them (the job's host list in rank order) and check its GPUs and host load."),
            _on(node, f"nvidia-smi --query-gpu=pci.bus_id,clocks.sm,clocks_event_reasons.active,temperature.gpu,power.draw --format=csv{sel}"))
    if anchor is not None and anchor.rule == SHM_FAILED:
        return Remediation(False, True,
            f"NCCL could not set up its shared memory on {where}: give the container a larger /dev/shm (docker "
            "--shm-size=16g or --ipc=host; a Kubernetes emptyDir with medium Memory on /dev/shm) and remove stale "
            "/dev/shm/nccl-* segments; NCCL_SHM_DISABLE=1 works around it at some speed.",
            _on(node, "df -h /dev/shm && ls -la /dev/shm | head"))
    if anchor is not None and killed_by_sigkill(anchor):
        return Remediation(False, True,
            "Read the node's kernel log: an OOM-killer line there means host memory ran out (fewer DataLoader workers, less pinned memory or prefetch, or a higher memory limit for the job); without one, a person or the scheduler killed the rank.",
            _on(node, "dmesg -T | grep -iE 'out of memory|oom-kill|killed process'"))
    return Remediation(False, True,
        "No rank left initiator-grade evidence: rerun with NCCL_DEBUG=INFO and TORCH_NCCL_TRACE_BUFFER_SIZE=2000 to capture more next time.",
        "NCCL_DEBUG=INFO TORCH_NCCL_TRACE_BUFFER_SIZE=2000 <your launch command>")


EXECVE_FAILED = "scheduler.slurm_execve_failed"  # rules/scheduler.yaml: no rank ran; a setup error of the job's

_WHAT = {
    Cause.GPU_HARDWARE: "a GPU hardware fault",
    Cause.ECC_MEMORY: "an uncorrectable GPU memory (ECC) error",
    Cause.NVLINK: "an NVLink/NVSwitch error",
    Cause.NETWORK: "a network (NIC/InfiniBand/socket) failure",
    Cause.CUDA_OOM: "CUDA out of memory",
    Cause.ILLEGAL_MEMORY_ACCESS: "an application GPU fault (illegal memory access)",
    Cause.PYTHON_EXCEPTION: "an uncaught Python exception",
    Cause.HOST_OOM_KILL: "the host OOM killer",
    Cause.CRASH_SIGNAL: "a crash by signal",
    Cause.PREEMPTION: "scheduler preemption",
    Cause.HANG: "a hang",
    Cause.DATA_LOADER_STALL: "a data loader stall",
    Cause.COLLECTIVE_MISMATCH: "mismatched collectives",
    Cause.STRAGGLER: "a straggler",
    Cause.UNKNOWN: "an unknown cause",
}


def explain(cause: Cause, ini: Initiator, anchor: Finding | None, collateral: int, *, inferred_by: str | None = None) -> str:
    who = []
    if ini.rank is not None:
        who.append(f"rank {ini.rank}")
    if ini.node:
        who.append(f"on {ini.node}" if who else f"node {ini.node}")
    if ini.gpu:
        who.append(f"(GPU {ini.gpu})" if who else f"GPU {ini.gpu}")
    subject = " ".join(who) if who else "no single rank"
    what = _WHAT[cause]
    if cause is Cause.NVLINK and anchor is not None and amd_gpu_evidence(anchor):
        what = "an xGMI (Infinity Fabric) link error between AMD GPUs"  # (AMD's counterpart of NVLink)
    if anchor is not None and anchor.rule == EXECVE_FAILED:
        what = f"the job's command failing to start ({anchor.field('program')}: {anchor.field('reason')})"
    first = f"The failure started with {what} on {subject}" if who else f"The run failed with {what}; {subject} could be singled out"
    if cause is Cause.STRAGGLER:  # (a slow rank need not have failed anything: the sidecar says it while the job runs)
        first = (f"{subject[0].upper()}{subject[1:]} ran slower than its peers (a straggler)" if who
                 else f"The job ran slower than it should (a straggler); {subject} could be singled out")
    if _interrupt(cause, anchor):
        first = (f"The job was stopped from outside, by an interrupt; {subject} could be singled out" if not who
                 else f"The job was stopped from outside, by an interrupt, first on {subject}")
    killed = cause is Cause.UNKNOWN and anchor is not None and killed_by_sigkill(anchor)
    if killed:
        first = (f"The failure started when {subject if who else 'a process of the job'} was killed by SIGKILL, and no "
                 "line says by whom")
    if inferred_by:
        first += f": {inferred_by}"
    elif anchor is not None:
        first += f" ({anchor.rule})"
    first += "."
    if killed:
        first += " Most often that is the kernel's or a cgroup's OOM killer; else a person or the scheduler."
    if collateral and cause is Cause.PREEMPTION:
        first += f" {collateral} rank{'s' if collateral != 1 else ''} stopped with it."
    elif collateral:
        first += f" {collateral} other rank{'s' if collateral != 1 else ''} only failed as a consequence."
    return first
