"""Rank prefixes of combined logs — recognised and removed, giving the message rules see, the
rank / local rank the line comes from and, where the prefix names one, its host.

Prefixes removed (at the start of a line, in any order, also after a leading wall-clock
timestamp such as ``2024-11-20 14:37:16 [rank3]:``):

- torchrun ``[rank3]:``, ``[default3]:`` (local rank), ``[default0]:[rank12]:``, ``[rank=3] ||``;
- srun ``--label`` ``3: `` (when the file uses it throughout, :class:`PrefixStyle.SRUN_LABEL`);
- Open MPI ``--tag-output`` ``[1,3]<stderr>:`` and horovodrun ``[3]<stdout>:`` (rank);
- Lightning ``[rank: 3] `` (rank), ``[host:3]:`` (host and local rank);
- a task label before one of those (NeMo-Run ``i.pretrain/0 [default2]:``), and on its own when
  the file uses it throughout (``torchx log``'s ``main/0 usage: torchrun …``,
  :class:`PrefixStyle.TASK_LABEL`);
- Ray actor prefixes ``(RayTrainWorker pid=1942, ip=10.0.0.7) `` (host: the ip), with the colour
  codes Ray adds (also when a paste lost their ESC byte: ``[2m[36m(…)[0m``);
- pdsh / DeepSpeed multi-node ``10.0.0.7: `` (an IPv4 address; a host name when the file uses it
  throughout, :class:`PrefixStyle.HOST_LABEL`);
- PyTorch/XLA's pod launcher ``10.164.0.29 [3] `` after its stamp (host: the address; the index
  is the VM's, not a rank).

Rank hints left in the message (``Prefixed.hinted``): a launcher's line about one worker
(``'--local_rank=1'`` in the command line DeepSpeed's launcher or ``torch.distributed.launch``
prints for a failed worker, torchelastic's ``local_rank: 0 (pid: …)``) gives the local rank;
PyTorch's ProcessGroupNCCL log prefix after a glog header gives the rank when no prefix did:
``[PG 0 Rank 3]`` / ``[PG ID 0 PG GUID 0(default_pg) Rank 3]`` (the default process group; a
subgroup's ``[PG 3 Rank 1]`` is not a global rank and is ignored) and torch < 2.2's bare
``[Rank 3]`` (``[E ProcessGroupNCCL.cpp:458] [Rank 3] Watchdog caught …``, no ``[rank3]:`` prefix;
it is the rank in the process group that timed out, the global rank for the default group); so
does a ``[Rank 0] `` that begins a message (DeepSpeed's and Megatron's rank-tagged lines, and the
``what():  [Rank 7] …`` of a watchdog exception the C++ runtime prints on termination). A
file with a rank of its own should prefer it to a hint.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

from detector.support.exports import platform_record
from detector.support.hosts import names_a_host


class PrefixStyle(StrEnum):
    NONE = "none"
    BRACKETS = "brackets"  # [rankN]: / [defaultN]: / [rank=N] || / [1,N]<stderr>: / Ray actors …
    SRUN_LABEL = "srun_label"  # "N: " at the start of every line
    HOST_LABEL = "host_label"  # "host: " at the start of every line (pdsh, clush, DeepSpeed multi-node)
    TASK_LABEL = "task_label"  # "role/N " at the start of every line (torchx log: the role and replica)


@dataclass(frozen=True, slots=True)
class Prefixed:
    message: str
    rank: int | None
    local_rank: int | None
    host: str | None = None  # a host the prefix names (pdsh label, Ray actor ip, [host:N]:)
    # the rank / local rank was read from a hint in the message ([Rank 3], --local_rank=1), not
    # from a prefix: a file with a rank of its own (rank_3.log, attempt_0/3/) should keep its own
    hinted: bool = False


# one prefix at a time, at the current position
_BRACKET = re.compile(r"\[(?:rank(?P<rank>\d{1,6})|default(?P<local>\d{1,4})|rank=(?P<rank_eq>\d{1,6}))\](?::|\s*\|\|)\s?")
# [1,3]<stderr>: / [3]<stderr>: / SageMaker's "[1,mpirank:3,algo-2]<stderr>:" (rank and host)
_MPI = re.compile(r"\[(?:\d{1,6},)?(?:mpirank:)?(?P<rank>\d{1,6})(?:,(?P<host>[A-Za-z][A-Za-z0-9.-]{0,62}))?\]<std(?:out|err)>:")
_LIGHTNING = re.compile(r"\[rank: ?(?P<rank>\d{1,6})\](?::? |:)")  # Lightning "[rank: 1] ", also "[rank:1]:"
_HOST_LOCAL = re.compile(r"\[(?P<host>[A-Za-z][A-Za-z0-9.-]{0,62}):(?P<local>\d{1,4})\]: ?")  # [gpu187:2]:
_TASK = re.compile(r"[A-Za-z][\w.-]{0,40}/\d{1,6} ")  # i.pretrain/0 before [default2]:, torchx ray/0 before (…)
# Metaflow's task prefix behind its stamp: "[67911/train/100 (pid 1777)] " (run id / step / task id)
_METAFLOW = re.compile(r"\[\d{1,20}/[\w.-]{1,64}/\d{1,20} \(pid \d{1,10}\)\] ")
_ANSI = r"(?:(?:\x1b|\^\[)?\[[0-9;]{1,8}m){0,4}"  # ESC, a paste's "^[" for it, or lost
_RAY = re.compile(
    _ANSI + r"\((?P<actor>[A-Za-z_][\w.:-]{0,80}(?:\((?:[\w.:-]{1,40}|[\w.:-]{1,40}\([\w.:-]{1,60}\))\))?)"
    r"(?: (?:TP|DP|PP|EP)\d{1,5}){0,4}(?: rank=(?P<worker_rank>\d{1,6}))?"
    r",? pid=(?P<pid>\d{1,10})"  # (SkyPilot's older task prefix: "(my-task, pid=16959) ")
    r"(?:, ip=(?P<ip>[0-9A-Fa-f.:]{3,45}))?"
    r"(?:, [^()]{0,120})?\)" + _ANSI + " ?"
)
# Ray's own daemons' lines forwarded to the driver: "(raylet, ip=172.27.221.101) ", "(raylet) ",
# "(gcs_server) " - the node they run on, where Ray names it
_RAY_DAEMON = re.compile(_ANSI + r"\((?:raylet|gcs_server|dashboard_agent|log_monitor|autoscaler)(?:, ip=(?P<ip>[0-9A-Fa-f.:]{3,45}))?\)"
                         + _ANSI + " ?")
# a Ray actor's or vLLM worker's prefix and the process it names, at a line's start (behind Ray's
# colour codes, torchx's or docker compose's label): "(VllmWorker rank=7 pid=9493) ",
# "(RayWorkerWrapper pid=219463, ip=10.12.1.160) ", "(Worker_TP2 pid=371746) ", a named actor's
# "(ActorWorker(reference-0) pid=7034, ip=22.1.34.130) ", Ray Data's "(MapWorker(MapBatches(vLLMEngineStageUDF))
# pid=32897, ip=10.0.19.13) " (match, not search)
WORKER_PID = re.compile(r"(?:[A-Za-z0-9][\w.-]{0,120} {1,40}\| |[A-Za-z][\w.-]{0,40}/\d{1,6} )?" + _ANSI
                        + r"\((?:[A-Za-z_][\w.:-]{0,80}(?:\((?:[\w.:-]{1,40}|[\w.:-]{1,40}\([\w.:-]{1,60}\))\)|\[rank=[0-9]{1,6}\])?)"
                        r"(?: (?:TP|DP|PP|EP)[0-9]{1,5}){0,4}(?: rank=[0-9]{1,6})?,? pid=(?P<pid>[0-9]{1,10})\b")
WORKER_PID_SPAN = 200  # the prefix lies within a line's first characters
# vLLM V1's worker names: "Worker_TP2", "Worker_TP1_EP1", "Worker_DP0_TP0_EP0", "Worker_PP0_TP3" -
# the TP index is the process's rank only in the first data-parallel replica and pipeline stage
_VLLM_TP_WORKER = re.compile(r"Worker_(?:DP0_)?(?:PP0_)?TP(?P<tp>\d{1,5})(?:_EP\d{1,5})?")
# SkyPilot's prefix of each node's lines: "(head, rank=0, pid=2435) ", "(worker1, rank=1, pid=2435,
# ip=10.0.0.2) " - its rank is the node's (SKYPILOT_NODE_RANK), not a process's: the node is named
_SKYPILOT = re.compile(r"\((?P<node>head|worker\d{1,5}), rank=\d{1,6}, pid=\d{1,10}(?:, ip=(?P<ip>[0-9A-Fa-f.:]{3,45}))?\) ?")
# "kubectl logs --prefix": "[pod/<pod>/<container>] " before each line of a pod (the pods of a
# job one after another in one file); the pod is the line's host
_KUBECTL_POD = re.compile(r"\[pod/(?P<pod>[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?)/[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\] ")
_IPV4 = r"(?:\d{1,3}\.){3}\d{1,3}"
_SYSLOG_FACILITY = re.compile(r"(?:kern|user|daemon|auth|authpriv|syslog|local[0-7]): ")
_PDSH_IP = re.compile(r"(?P<host>" + _IPV4 + r"): (?=\S)")
# PyTorch/XLA's pod launcher (torch_xla.distributed.xla_dist) after its stamp: "10.164.0.29 [3] " -
# the client VM's address and its index among the pod's VMs (each runs several processes: not a rank)
_XLA_DIST = re.compile(r"(?P<host>" + _IPV4 + r") \[\d{1,4}\] ")
_HOST_TOKEN = re.compile(r"(?P<host>[A-Za-z0-9][A-Za-z0-9._-]{0,62}): (?=\S| {1,40}\S)")  # pdsh keeps the line's own indent


def _host_token(line: str, pos: int) -> re.Match[str] | None:
    """A pdsh-style ``host: `` label: a host-name token with a letter and a digit in it (node07,
    gpu-a01, ip-10-0-0-7) — not ``Epoch:``, ``WARNING:`` or a date."""
    m = _HOST_TOKEN.match(line, pos)
    if m is None:
        return None
    host = m["host"]
    if not any(c.isdigit() for c in host) or not any(c.isalpha() for c in host):
        return None
    return m
# srun --label's "3: ", and Intel MPI's "mpirun -l" / MPICH's "-prepend-rank" "[3] " (read as one
# style: a file labelled so throughout)
_SRUN = re.compile(r"\s{0,6}(?P<br>\[)?(?P<task>\d{1,6})(?(br)\] |: )")
# a wall-clock stamp a collector or `ts` put before the launcher's prefix
LEAD_STAMP = re.compile(
    r"\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?: ?(?:Z|[+-]\d{2}:?\d{2}| UTC))?\]?:? {1,2}"
    r"(?:[A-Za-z][\w.-]{0,40} -- )?"  # a collector's replica label after its stamp (Polyaxon "master.0 -- ")
    # mpirun --timestamp-output's ctime, right before its "[1,3]<stderr>:" tag
    r"|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} {1,2}\d{1,2} \d{2}:\d{2}:\d{2} \d{4} ?"
)
_WEEKDAYS = frozenset(("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"))


def ctime_lead(line: str) -> bool:
    """Whether ``line`` may begin with mpirun --timestamp-output's ctime (one cheap test)."""
    return line[3:4] == " " and line[:3] in _WEEKDAYS
# ProcessGroupNCCL's own prefix, after a glog header: ".cpp:458] [Rank 3]" / "[PG 0 Rank 3]" /
# "[PG ID 0 PG GUID 0(default_pg) Rank 3]" (the default process group only)
_PG_RANK = re.compile(
    r"\.(?:cpp|hpp|cc):\d{1,6}\] \[(?:PG (?:ID )?0 (?:PG GUID 0(?:\([A-Za-z_]{0,40}\))? )?)?Rank (?P<rank>\d{1,6})\]"
)
# DeepSpeed / Megatron "[Rank 0] …" at a message's start; also the C++ runtime's "  what():  [Rank 7] …"
# (the watchdog's exception, rethrown when the process terminates)
_RANK_START = re.compile(r"(?:\s{0,4}what\(\): {1,4})?\[Rank (?P<rank>\d{1,6})\] ")
# Intel Gaudi's PyTorch bridge: "[Rank:39] Habana exception raised from ...", also behind the
# exception's class ("RuntimeError: [Rank:0] FATAL ERROR :: MODULE:PT_HCCL ...")
_HABANA_RANK = re.compile(r"(?:[A-Za-z_][\w.]{0,80}(?:Error|Exception): )?\[Rank:(?P<rank>\d{1,6})\] ")
# a logger's header that carries the rank ("[olmo.train:816, rank=0]", "[trainer.py:42 rank=3]")
# TensorRT-LLM's logger: "[07/23/2025-06:37:06] [TRT-LLM] [RANK 1] [E] ..." (the MPI rank of the process)
_TRTLLM_RANK = re.compile(r"\[TRT-LLM\] ?\[RANK (?P<rank>\d{1,6})\]")
_LOGGER_RANK = re.compile(r"\[[\w./-]{1,80}:\d{1,6},? rank=(?P<rank>\d{1,6})\]")
# a logger's rank field between its other fields: "... | INFO | rank  3 | step 12 | ...", "[rank 3] step 50",
# "[2024-12-21 23:46:57][rank5] it=96 loss=7.11", "[2024-10-25 02:19:15,085][INFO][rank 6] ...",
# "2025-07-23 11:40:15,400 rank=4 step=8600 fwd_bwd=10.586s"
# (the bracket at the message's start or after its stamp, or after the stamp, level and logger of
# Python logging's "%(asctime)s - %(levelname)s - %(name)s - " or a "|"-separated form; the field right
# after a level's)
_RANK_FIELD = re.compile(r"(?:\| (?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL) {0,8}\| rank {1,4}(?P<a>\d{1,6}) {1,4}\|"
                         r"|^(?:[0-9TZ:.,+ -]{8,64}(?: \| [A-Z]{4,8} {0,8}\| [\w.:-]{1,120} - | - [A-Z]{4,8} - [\w.:-]{1,120} - | ))?"
                         r"\[rank (?P<b>\d{1,6})\] "
                         r"|^\[[0-9TZ:.,+ -]{8,40}\] ?(?:\[(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\] ?)?\[rank ?(?P<c>\d{1,6})\] "
                         r"|^(?:[0-9TZ:.,+ -]{8,64} )?rank=(?P<d>\d{1,6}) "
                         # a logger's bracketed fields: "... INFO  [host=node0035 rank=5/32 local_rank=1] trainer: ..."
                         r"|^(?:[0-9TZ:.,+ -]{8,64} (?:[A-Z]{4,8} {1,8})?)?\[(?:[\w.-]{1,24}=[^\s\]=]{1,64} ){0,4}"
                         r"rank=(?P<e>\d{1,6})(?:/\d{1,6})?[ \]]"
                         # Composer's console format: "2026-10-10 18:40:15,714: rank2[656503][MainThread]: INFO: ..."
                         r"|^(?:[0-9TZ:.,+ -]{8,64}: )?rank(?P<f>\d{1,6})\[[0-9]{1,10}\]\[[^\]\s]{1,64}\]: "
                         # a structured logger's JSON record: {"ts": ..., "rank": 14, ...} (its quotes escaped
                         # where the record is itself a log line's message)
                         r"|^(?:[0-9TZ:.,+ -]{8,64} )?\{(?:[^{}\n]{0,300}?, ?)?\\?\"(?:global_)?rank\\?\": ?(?P<g>\d{1,6})[,}])")
# icefall / k2's logger: "INFO [train.py:1069] (5/8) Sanity check ..." (rank / world size)
_LOGGER_RANK_OF = re.compile(r"\[[\w./-]{1,80}:\d{1,6}\] \((?P<rank>\d{1,6})/(?P<world>\d{1,6})\) ")
_HINT_SPAN = 400  # the rank hint is looked for in the first characters of a message
# a timing line's own word for the rank it is about, anywhere in the line: "[rank 62] step 15000
# timing: fwd_bwd=3.19s", "[2024-12-05 23:58:39][rank   8] step 72 compute 4.87s", "[RANK:1] rank 1
# step 260 time 11.46s", "[timing] rank=1 step=1004 fwd_bwd=4.02s", "[timing] rank 3 fwd_bwd=167.6ms"
# (bracketed, "rank=N" / "rank:N", or "rank N" before the step or the timing words)
_TIMING_RANK = re.compile(r"\[rank[ :]{0,4}(?P<a>\d{1,6})\]|(?<![\w.-])rank ?[=:] ?(?P<b>\d{1,6})\b"
                          r"|(?<![\w.-])rank (?P<c>\d{1,6}),? (?:step|iter|it|epoch|timing|time|fwd|compute)(?![a-z])",
                          re.IGNORECASE)


def timing_rank(line: str) -> int | None:
    """The one rank a step or timing line names as its own (:data:`_TIMING_RANK`) where no prefix
    did (one rank printing every rank's timings: "0: [default1]:[timing] rank=1 step=1004 ..."); None
    when it names none or several ("max 2.52s (rank 11) min 1.45s (rank 23)")."""
    found = {int(next(g for g in m.groups() if g is not None)) for m in _TIMING_RANK.finditer(line)}
    return found.pop() if len(found) == 1 else None


# a launcher's line about one local worker: its command line ("'--local_rank=1'", DeepSpeed's
# launcher and torch.distributed.launch print the failed worker's command) or torchelastic's
# "local_rank: 0 (pid: 24024)" / "rank : 0 (local_rank: 0)"
_LOCAL_HINT = re.compile(r"(?:^|[\s'\"(\[,])--local[_-]rank[= ](?P<a>\d{1,4})\b|\blocal_rank: ?(?P<b>\d{1,4})\b")


def logger_rank(line: str) -> int | None:
    """The global rank a logger's own rank field names at a line's start ("... | INFO | rank 3 |",
    "[rank 3] ", "rank=3 "), without any launcher prefix before it; None when there is none."""
    m = _RANK_FIELD.search(line, 0, _HINT_SPAN)
    return _field_rank(m) if m else None


def _field_rank(m: re.Match[str]) -> int:
    """The rank a match of :data:`_RANK_FIELD` names, whichever of its forms matched."""
    return int(next(g for g in m.groups() if g is not None))


# What every prefix below begins with (a superset, one test): a bracket, a parenthesis or an
# ANSI escape (Ray), an IPv4 address (pdsh), a task label ("i.pretrain/0 "). A position where this
# does not match holds no prefix (host labels aside), so most lines cost one test, not eight.
# (A glog header, "[E1130 17:40:34…", starts none: torch's C++ lines after "[rank3]:".)
_MAYBE_PREFIX = re.compile(r"(?!\[[IWEF]\d{4} )[\[(\x1b]|\^\[|\d{1,3}\.|[A-Za-z][\w.-]{0,40}/")


def _strip_at(line: str, pos: int, style: PrefixStyle) -> tuple[int, int | None, int | None, str | None]:
    """Remove the prefixes found at ``pos``; returns (end, rank, local_rank, host)."""
    rank: int | None = None
    local: int | None = None
    host: str | None = None
    sky: str | None = None
    maybe = _MAYBE_PREFIX.match
    for _ in range(8):  # a line carries a handful of prefixes at most
        if maybe(line, pos) is None and (pos or style is not PrefixStyle.HOST_LABEL):
            break
        m = _BRACKET.match(line, pos)
        if m:
            if m["local"] is not None:
                local = int(m["local"])
            else:
                rank = int(m["rank"] if m["rank"] is not None else m["rank_eq"])
            pos = m.end()
            continue
        m = _MPI.match(line, pos)
        if m:
            rank = int(m["rank"])
            if m["host"] and host is None:
                host = m["host"]
            pos = m.end()
            continue
        m = _LIGHTNING.match(line, pos)
        if m:
            rank = int(m["rank"])
            pos = m.end()
            continue
        m = _RAY.match(line, pos)
        if m:
            if m["ip"] and host is None:
                host = m["ip"]
            if m["worker_rank"] is not None:  # vLLM's "(VllmWorker rank=3 pid=44710)"
                rank = int(m["worker_rank"])
            elif m["actor"].startswith("Worker_") and (tp := _VLLM_TP_WORKER.fullmatch(m["actor"])):
                rank = int(tp["tp"])  # vLLM V1's "(Worker_TP2 pid=371746)": one replica's tensor-parallel rank
            pos = m.end()
            continue
        m = _RAY_DAEMON.match(line, pos)
        if m:
            if m["ip"] and host is None:
                host = m["ip"]
            pos = m.end()
            continue
        m = _SKYPILOT.match(line, pos)
        if m:
            host = host or m["ip"]
            sky = m["node"]  # (the cluster's name for the node: a host name after it is better)
            pos = m.end()
            continue
        m = _KUBECTL_POD.match(line, pos)
        if m:
            host = host or m["pod"]
            pos = m.end()
            continue
        m = _HOST_LOCAL.match(line, pos)
        if m:
            local = int(m["local"])
            if names_a_host(m["host"]):
                host = host or m["host"]
            pos = m.end()
            continue
        m = _METAFLOW.match(line, pos)
        if m:
            pos = m.end()
            continue
        m = _TASK.match(line, pos)
        if m and (_BRACKET.match(line, m.end()) or _MPI.match(line, m.end()) or _RAY.match(line, m.end())):
            pos = m.end()
            continue
        m = _PDSH_IP.match(line, pos)
        if m is None and style is PrefixStyle.HOST_LABEL and pos == 0:
            m = _host_token(line, pos)
        if m and not _SYSLOG_FACILITY.match(line, m.end()):
            host = host or m["host"]
            pos = m.end()
            continue
        m = _XLA_DIST.match(line, pos)
        if m:
            host = host or m["host"]
            pos = m.end()
            continue
        break
    return pos, rank, local, host or sky


# One torchrun-style prefix and nothing after it that could start another (the commonest
# prefixed line): what strip_prefix would find, in one test.
_ONE_BRACKET = re.compile(
    r"\[(?:rank(?P<rank>\d{1,6})|default(?P<local>\d{1,4})|rank=(?P<rank_eq>\d{1,6}))\](?::|\s*\|\|)\s?+"
    r"(?!(?!\[[IWEF]\d{4} )[\[(\x1b]|\d{1,3}\.|[A-Za-z][\w.-]{0,40}/)"
)


def quick_prefix(line: str, style: PrefixStyle = PrefixStyle.BRACKETS) -> tuple[int | None, int | None, int] | None:
    """For the two commonest shapes of line, what :func:`strip_prefix` gives, cheaply: (rank,
    local rank, where the message starts) of a line with one ``[rankN]:`` / ``[defaultN]:`` /
    ``[rank=N] ||`` prefix and nothing after it that could start another, or of a line with no
    prefix and no rank hint (``(None, None, 0)``); host None and not hinted in both. None for
    every other line (and style): ask :func:`strip_prefix`."""
    if style is PrefixStyle.SRUN_LABEL or style is PrefixStyle.HOST_LABEL or style is PrefixStyle.TASK_LABEL:
        return None
    if line[:1] == "[":
        m = _ONE_BRACKET.match(line)
        if m is None:
            return None
        local = m["local"]
        if local is not None:
            end = m.end()
            if (line.find("[rank", end, end + _HINT_SPAN) >= 0 or line.find("| rank ", end, end + _HINT_SPAN) >= 0
                    or line.find("rank=", end, end + 80) >= 0):
                return None  # perhaps a logger's rank field, the global rank (strip_prefix reads it)
            return None, int(local), end
        if line.startswith(_LEVEL_WORDS, m.end()) and _VLLM_HEADER.match(line, m.end()) is not None:
            return None  # vLLM's header behind torchrun's prefix (its external launcher)
        rank = m["rank"]
        return int(rank if rank is not None else m["rank_eq"]), None, m.end()
    if _MAYBE_PREFIX.match(line) is not None:
        return None
    if line[:1].isalnum() and _K8S_LEAD.match(line) is not None:  # stern's pod and container before the time
        return None
    if line[:1] in "> \t" and "[" in line[:40]:  # perhaps a prefix behind a paste's quote or indent
        return None
    if line[:1].isdigit():
        ts = LEAD_STAMP.match(line)
        if ts is not None and (_MAYBE_PREFIX.match(line, ts.end()) is not None
                               or _CRI_STREAM.match(line, ts.end()) is not None):
            return None
    if (line.find("Rank ", 0, _HINT_SPAN) >= 0 or "local" in line or line.find("] (", 0, _HINT_SPAN) >= 0
            or line.find("rank ", 0, _HINT_SPAN) >= 0 or line.find("rank=", 0, 80) >= 0 or line.find(": rank", 0, 60) >= 0
            or line.find("[Rank:", 0, _HINT_SPAN) >= 0 or line.find("[RANK ", 0, _HINT_SPAN) >= 0):
        return None
    if ctime_lead(line):  # perhaps mpirun's tag behind its --timestamp-output stamp
        return None
    if line.find("[rank", 1, TOOL_LEAD_SPAN) > 0:  # perhaps torchrun's prefix behind a tool's (_TOOL_LEAD)
        return None
    if progress_bar_end(line):  # a prefix behind a progress bar the line was written after
        return None
    if line.find(" | (", 1, TOOL_LEAD_SPAN) > 0:  # perhaps a worker's prefix behind docker compose's (_COMPOSE_LEAD)
        return None
    if line[:1] in "DIWEC" and _VLLM_HEADER.match(line) is not None:
        return None
    if line.startswith('{"'):  # a JSON log record (_json_record)
        return None
    return None, None, 0


def strip_prefix(line: str, style: PrefixStyle = PrefixStyle.BRACKETS) -> Prefixed:
    """Remove rank prefixes from the start of ``line`` (also after a leading timestamp, which
    stays in the message). ``[defaultN]`` gives a local rank, ``[rankN]``/``[rank=N]``/srun
    labels/MPI tags a global rank; a ProcessGroupNCCL ``[Rank N]`` gives the rank when no
    prefix did."""
    quick = quick_prefix(line, style)  # the usual line: one test
    if quick is not None and not (line[:1].isdigit() and line.find(" {", 19, 48) > 0):  # (logcli's labels)
        return Prefixed(line[quick[2]:] if quick[2] else line, quick[0], quick[1])
    return _strip_prefix(line, style)


# vLLM's logger header ("ERROR 08-20 09:48:31 [multiproc_executor.py:487] "): each line of a
# traceback it logs carries it, so the message is what follows (its time, month and day without a
# year or a zone, is the line's own: LineParser.header_stamp; it is not lent to untimed lines)
_VLLM_HEADER = re.compile(r"(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})? \[?[\w.-]{1,80}:\d{1,6}\] ")
_LEVEL_WORDS = ("DEBUG ", "INFO ", "WARNING ", "ERROR ", "CRITICAL ")
_VLLM_HEADER_SPAN = 400  # a worker's prefixes before it, at most


def vllm_header_at(line: str) -> int | None:
    """Where vLLM's logger header begins in ``line`` (at its start or behind a worker's prefixes),
    or None."""
    for word in _LEVEL_WORDS:
        at = line.find(word, 0, _VLLM_HEADER_SPAN)
        if at >= 0 and (at == 0 or line[at - 1] in " )]:") and _VLLM_HEADER.match(line, at) is not None:
            return at
    return None

# the container runtime's own log formats, as a node keeps them (/var/log/pods, /var/lib/docker):
# CRI's "<RFC 3339 time> stderr F <line>" and Docker's json-file '{"log":"<line>\n","stream":...,"time":...}'
# (read as any JSON log record: _json_record)
_CRI_STREAM = re.compile(r"(?:stdout|stderr) [FP] ")

# what a paste puts before a log line: markdown quote markers and code-block indentation, a line
# number ("[1830] "); taken off only where a rank or host prefix follows it
_PASTE_LEAD = re.compile(r"(?:> ?){0,3}[ \t]{0,8}(?:\[[0-9]{1,7}\] )?")


# a syslog or journald header before a program's own line: "Oct  5 11:26:17 host python[4242]: " and
# journalctl -o short-iso's (rsyslog's RFC 3339 files too) "2026-10-05T11:26:17+05:30 host
# torchrun[4242]: ": taken off, the stamp kept, where the program's line begins with a prefix that
# places it ("[default4]:", "[rank3]:")
_SYSLOG_IDENT_LEAD = re.compile(
    r"(?P<stamp>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?"
    r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) {1,2}\d{1,2} \d{2}:\d{2}:\d{2}(?:\.\d{1,9})?) {1,2}"
    r"(?P<host>[A-Za-z0-9][\w.-]{0,62}) (?P<ident>[\w.@/-]{1,64})(?:\[\d{1,10}\])?: ")
_SYSLOG_MONTH_STARTS = frozenset("JFMASOND")

# docker compose's "service-1  | " before a Ray or vLLM worker's "(Worker_TP0 pid=488) ": taken off
# only where such a worker prefix follows it
_COMPOSE_LEAD = re.compile(r"[A-Za-z0-9][\w.-]{0,120} {1,40}\| (?=\()")

# what a tool that gathered the lines puts before torchrun's "[rankN]:": kubectl's
# "[pod/name/container] ", docker compose's "service  | ", pdsh's "host: ", a viewer's line
# number ("  101 | "); taken off only where "[rankN]:" follows it
_TOOL_LEAD = re.compile(r"[ \t]{0,8}[^\s\[]{0,120}?(?:[ \t]{0,4}\[[^\]\s]{1,200}\]:?){0,2}[ \t]{0,40}[|:]?[ \t]{0,4}"
                        r"(?<![\w.])(?=\[rank\d{1,6}\]:)")
# a collector's stamp and the pod or host it read, before torchrun's "[rankN]:" ("2026-01-09
# 17:40:31.169213 master-0 >> [rank7]: Traceback ..."): the host is the rank's
# (a log store's "stamp host >> [rankN]:", or with no separator where the word is host-shaped: a
# digit, "-" or "." in it - not a stream's or a logger's name, "stderr", "train")
_STAMP_HOST_LEAD = re.compile(r"(?P<stamp>\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?) {1,2}"
                              r"(?:(?P<host>[A-Za-z][\w.-]{0,62}) {1,4}(?:>>|\||-)"
                              r"|(?P<host2>[A-Za-z][\w]{0,30}[-.0-9][\w.-]{0,60}))"
                              r" {1,4}(?=\[rank\d{1,6}\]:)")
TOOL_LEAD_SPAN = 400  # a tool's lead and torchrun's "[rankN]:" after it lie within a line's first characters
_RAISED_LEAD = re.compile(r"(?:Error|Exception|Warning|Interrupt|Failure)\W*$")  # "RuntimeError: [rank3]: ..."
# a console progress bar that the next line was written right after (tqdm ends its bar with no
# newline; the error printed next joins it): "  0%|   | 1/7800 [00:01<2:37:37,  1.21s/it]F0000 ..."
PROGRESS_BAR_END = re.compile(r"[0-9?](?:it/s|s/it)(?:, [^\]\r\n]{0,200})?\](?=\S)")
PROGRESS_BAR_SPAN = 400  # the bar ends within a line's first characters
_LEAD_STARTS = frozenset("0123456789[MTWFS")  # what LEAD_STAMP can begin with (MTWFS: mpirun's ctime)


def progress_bar_end(text: str) -> int:
    """Where a console progress bar ends that ``text`` was written right behind (something follows
    the bar's closing bracket), within its first :data:`PROGRESS_BAR_SPAN` characters; 0 when none
    does (two cheap tests on most lines)."""
    if text.find("it/s", 1, PROGRESS_BAR_SPAN) < 0 and text.find("s/it", 1, PROGRESS_BAR_SPAN) < 0:
        return 0
    bar = PROGRESS_BAR_END.search(text, 0, PROGRESS_BAR_SPAN)
    return bar.end() if bar is not None else 0


def anchored_start(message: str) -> int:
    """Where a rule anchored at a message's start ('^') reads it from, besides its start: after a
    log collector's leading stamp (Kubernetes, fluentd, ``ts``), or after a console progress bar
    the message was written right behind; 0 when there is neither."""
    if message[:1] in _LEAD_STARTS:
        stamp = LEAD_STAMP.match(message)
        if stamp is not None:
            return stamp.end()
    return progress_bar_end(message)


# JSON log records (Docker's json-file, a log platform's export read as JSON lines) as a rule
# engine's prefilter should see them (:func:`json_record_messages`): the message a record holds,
# its string's escapes undone ('File "...", line 3' is 'File \\"...\\", line 3' in the record's
# bytes) and its end at the line's end (a pattern's "$"). Byte replacements, not a JSON parse of
# each record (ten times the scan's cost): the fields after the message are cut where the message
# is Docker's first field or a record's last (as detector.support.exports writes them); an escaped
# line feed stays two characters, so a record stays one line. A prefilter wants a superset of the
# lines: a record of another shape is looked at as it is.
_DOCKER_TAIL = re.compile(rb'", ?"stream": ?"[a-z]{1,16}", ?"time": ?"[^"\n]{0,64}"\}\r?$', re.MULTILINE)


def json_record_messages(data: bytes) -> bytes:
    """``data``'s JSON records as the prefilter should see them, a line each (see above)."""
    escaped = b"\\" in data
    text = data.replace(b"\\\\", b"\x00") if escaped else data  # (an escaped backslash, apart first)
    text = _DOCKER_TAIL.sub(b"", text).replace(b'"}\r\n', b"\n").replace(b'"}\n', b"\n")
    if not escaped:
        return text
    return (text.replace(b"\\n\n", b"\n").replace(b"\\r\n", b"\n").replace(b'\\"', b'"').replace(b"\\/", b"/")
            .replace(b"\\t", b"\t").replace(b"\x00", b"\\"))


_JSON_TEXT = ("log", "msg", "message", "text", "line", "MESSAGE", "data")  # (MESSAGE: journalctl -o json; data: milabench's {"event": "line", "data": ...})
_JSON_TIME = ("time", "timestamp", "@timestamp", "ts", "asctime")
_JSON_RANK = ("rank", "global_rank", "RANK")
_JSON_HOST = ("host", "hostname", "node", "node_name", "_HOSTNAME")
_JOURNAL_TIME = "__REALTIME_TIMESTAMP"  # journalctl -o json: microseconds since the epoch, a string


# where structured loggers put the traceback of an exception they log (python-json-logger's
# exc_info, structlog's exception, logstash's stack_trace), its lines joined by "\n"
_JSON_EXCEPTION = ("exc_info", "exception", "exc_text", "stack_trace", "traceback", "error.stack_trace")
TRACEBACK_HEAD = "Traceback (most recent call last):"


def _json_exception(record: dict[str, object], text: str | None) -> str | None:
    """The exception line (its last line) of a traceback a JSON record holds whole - in a field
    of its own or as its message - or None: a record's lines of one traceback are read as its
    exception's line, as a plain log's last traceback line is."""
    for value in (*(record.get(k) for k in _JSON_EXCEPTION), text):
        if isinstance(value, str) and TRACEBACK_HEAD in value and "\n" in value:
            last = next((x for x in reversed(value.rstrip().split("\n")) if x.strip()), "")
            if last and not last.startswith((" ", "\t")):
                return last
    return None


def _json_record(line: str) -> tuple[str, int | None, str | None] | None:
    """A JSON log record (Docker's json-file, a structured logger's line): the text it holds
    behind its time (read as the line's stamp), and its rank and host where it names them."""
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):  # (RecursionError: a line nested past the parser's depth)
        return None
    if not isinstance(record, dict):
        return None
    text = next((v for k in _JSON_TEXT if isinstance(v := record.get(k), str)), None)
    raised = _json_exception(record, text)
    if raised is not None:
        text = raised
    if text is None:
        # a log platform's record, one per line (Cloud Logging's sinks: textPayload or
        # jsonPayload.message, the pod in resource.labels): read as its whole-document export is
        platform = platform_record(record)
        if platform is None:
            return None
        stamp, where, text = platform
        when_text = stamp.strftime("%Y-%m-%dT%H:%M:%S.%fZ") if stamp is not None else None
        text = text.rstrip("\n")
        return (f"{when_text} {text}" if when_text else text), None, where
    text = text.rstrip("\n")
    when = next((v for k in _JSON_TIME if isinstance(v := record.get(k), str) and v[:1].isdigit()), None)
    if when is None and isinstance(micros := record.get(_JOURNAL_TIME), str) and micros.isdigit() and len(micros) <= 17:
        when = datetime.fromtimestamp(int(micros) / 1e6, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    rank = next((v for k in _JSON_RANK if isinstance(v := record.get(k), int) and not isinstance(v, bool)
                 and 0 <= v < 10_000_000), None)
    host = next((v for k in _JSON_HOST if isinstance(v := record.get(k), str) and v and len(v) <= 253), None)
    return (f"{when} {text}" if when else text), rank, host


# what Kubernetes log tools put before each line when asked for the pod and the time: kubectl
# logs --prefix --timestamps ("[pod/NAME/CONTAINER] 2024-12-13T16:43:25.425346375Z ...") and
# stern --timestamps ("NAME CONTAINER 2024-12-13T16:43:25.425346375Z ..."); the pod is the line's
# host, the time stays at the message's start
_K8S_LEAD = re.compile(
    r"(?:\[pod/(?P<pod>[^/\]\s]{1,253})/[^\]\s]{1,253}\]|(?P<spod>[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?) "
    r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?) (?=\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:?\d{2}) )")


# Loki's logcli in its default output: the entry's time, its stream's labels, the line
# ("2026-01-30T00:18:51Z {host="gn113", transport="kernel"} NVRM: Xid ..."); the labels name the
# pod or host, the time stays at the message's start
_LOGCLI_LEAD = re.compile(r"(?P<stamp>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})) {1,8}"
                          r"\{(?P<labels>[A-Za-z_][\w.]{0,63}=\"[^\"\n]{0,253}\"(?:, ?[A-Za-z_][\w.]{0,63}=\"[^\"\n]{0,253}\"){0,30})\} {1,8}")
_LOGCLI_LABEL = re.compile(r"([A-Za-z_][\w.]{0,63})=\"([^\"\n]{0,253})\"")
_LOGCLI_WHERE = ("pod", "pod_name", "host", "hostname", "node_name", "nodename", "node", "instance")


def _logcli_host(labels: str) -> str | None:
    found = dict(_LOGCLI_LABEL.findall(labels))
    return next((v for k in _LOGCLI_WHERE if (v := found.get(k)) and names_a_host(v.split(":")[0])), None)


def _strip_prefix(line: str, style: PrefixStyle) -> Prefixed:
    if line[:1].isdigit() and line.find(" {", 19, 48) > 0 and (logcli := _LOGCLI_LEAD.match(line)) is not None:
        inner = _strip_prefix(line[logcli.end():], style)
        host = _logcli_host(logcli["labels"])
        return Prefixed(logcli["stamp"] + " " + inner.message, inner.rank, inner.local_rank,
                        inner.host or (host.split(":")[0] if host else None), inner.hinted)
    if line[:1] == "[" or line[:1].isalnum():
        lead = _K8S_LEAD.match(line)
        if lead is not None and (lead["pod"] is not None or names_a_host(lead["spod"] or "")):
            inner = _strip_prefix(line[lead.end():], style)
            return Prefixed(inner.message, inner.rank, inner.local_rank, inner.host or lead["pod"] or lead["spod"],
                            inner.hinted)
    if line.startswith('{"') and line.rstrip().endswith("}"):
        record = _json_record(line)
        if record is not None:
            inner = _strip_prefix(record[0], style)
            rank = inner.rank if inner.rank is not None else record[1]
            host = inner.host or (record[2] if record[2] and names_a_host(record[2]) else None)
            # (a rank the record names is a field, no hint read in the message)
            return Prefixed(inner.message, rank, inner.local_rank, host, inner.hinted and rank == inner.rank)
    found = _strip_prefix_at(line, style)
    unplaced = found.hinted or (found.rank is None and found.local_rank is None and found.host is None)
    if unplaced and line[:1] in "> \t[":
        lead = _PASTE_LEAD.match(line)
        if lead is not None and lead.end() > 0:
            inner = _strip_prefix_at(line[lead.end():], style)
            if (inner.rank is not None or inner.local_rank is not None or inner.host is not None) and not inner.hinted:
                return inner
    if unplaced and line.find("[rank", 1, TOOL_LEAD_SPAN) > 0:
        lead = _STAMP_HOST_LEAD.match(line) if line[:1].isdigit() else None
        if lead is not None:
            inner = _strip_prefix_at(line[lead.end():], style)
            if inner.rank is not None and not inner.hinted:  # (the stamp stays: the line's time)
                lead_host = lead["host"] or lead["host2"]
                return Prefixed(lead["stamp"] + " " + inner.message, inner.rank, inner.local_rank,
                                inner.host or (lead_host if names_a_host(lead_host) else None), False)
        lead = _TOOL_LEAD.match(line)
        if lead is not None and lead.end() > 0 and not _RAISED_LEAD.search(line, 0, lead.end()):
            inner = _strip_prefix_at(line[lead.end():], style)
            if inner.rank is not None and not inner.hinted:
                return inner
    if unplaced and (line[:1].isdigit() or line[:1] in _SYSLOG_MONTH_STARTS):
        lead = _SYSLOG_IDENT_LEAD.match(line)
        if lead is not None and lead["ident"] != "kernel":
            inner = _strip_prefix_at(line[lead.end():], style)
            if inner.rank is not None or inner.local_rank is not None or inner.host is not None:
                # (the stamp stays: the line's time)
                return Prefixed(lead["stamp"] + " " + inner.message, inner.rank, inner.local_rank,
                                inner.host or (lead["host"] if names_a_host(lead["host"]) else None), inner.hinted)
    bar = progress_bar_end(line) if unplaced else 0
    if bar:
        inner = _strip_prefix_at(line[bar:], style)
        if (inner.rank is not None or inner.local_rank is not None or inner.host is not None) and not inner.hinted:
            return inner
    if unplaced and line.find(" | (", 1, TOOL_LEAD_SPAN) > 0:
        lead = _COMPOSE_LEAD.match(line)
        if lead is not None:
            inner = _strip_prefix_at(line[lead.end():], style)
            if (inner.rank is not None or inner.host is not None) and not inner.hinted:
                return inner
    return found


def _strip_prefix_at(line: str, style: PrefixStyle) -> Prefixed:
    rank: int | None = None
    start = 0
    if style is PrefixStyle.SRUN_LABEL:
        m = _SRUN.match(line)
        if m:
            rank = int(m["task"])
            start = m.end()
    elif style is PrefixStyle.TASK_LABEL:
        m = _TASK.match(line)
        if m:
            start = m.end()  # (the replica's index is torchx's, not a rank)
    pos, prank, local, host = _strip_at(line, start, style)
    if prank is not None:
        rank = prank
    if line.startswith(_LEVEL_WORDS, pos):
        header = _VLLM_HEADER.match(line, pos)
        if header is not None:
            pos = header.end()
    message = line[pos:]
    if pos == 0:
        ts = LEAD_STAMP.match(line) if line[:1].isdigit() or line[:1] == "[" or ctime_lead(line) else None
        if ts is not None:
            after = ts.end()
            cri = _CRI_STREAM.match(line, after)
            if cri is not None:
                after = cri.end()
            end, prank, local, host = _strip_at(line, after, PrefixStyle.BRACKETS)
            if end > after or cri is not None:
                rank = prank
                stamp = line[: ts.end()]  # (mpirun's ctime runs into its tag: keep a space after it)
                message = stamp + ("" if stamp.endswith(" ") else " ") + line[end:]
    hinted = False
    if rank is None and (message.find("rank ", 0, _HINT_SPAN) >= 0 or message.find("][rank", 0, _HINT_SPAN) >= 0
                         or message.find("] [rank", 0, _HINT_SPAN) >= 0 or message.find("rank=", 0, 120) >= 0
                         or message.find(": rank", 0, 60) >= 0):
        # a logger's own rank field, at the message's start or right after its stamp and level: the
        # global rank also where a launcher's prefix gave only the local one ("[default1]:")
        m = _RANK_FIELD.search(message, 0, _HINT_SPAN)
        if m:
            rank, hinted = _field_rank(m), True
    if rank is None and local is None:
        if message.find("Rank ", 0, _HINT_SPAN) >= 0:
            m = _RANK_START.match(message) or _PG_RANK.search(message, 0, _HINT_SPAN)
            if m:
                rank, hinted = int(m["rank"]), True
        if rank is None and message.find("[Rank:", 0, _HINT_SPAN) >= 0:
            m = _HABANA_RANK.match(message)
            if m:
                rank, hinted = int(m["rank"]), True
        if rank is None and message.find("[RANK ", 0, _HINT_SPAN) >= 0:
            m = _TRTLLM_RANK.search(message, 0, _HINT_SPAN)
            if m:
                rank, hinted = int(m["rank"]), True
        if rank is None and "rank=" in message:
            m = _LOGGER_RANK.search(message, 0, _HINT_SPAN)
            if m:
                rank, hinted = int(m["rank"]), True
        if rank is None and message.find("] (", 0, _HINT_SPAN) >= 0:
            m = _LOGGER_RANK_OF.search(message, 0, _HINT_SPAN)
            if m and int(m["rank"]) < int(m["world"]):
                rank, hinted = int(m["rank"]), True
        if rank is None and "local" in message:
            m = _LOCAL_HINT.search(message)
            if m:
                local, hinted = int(m["a"] if m["a"] is not None else m["b"]), True
    return Prefixed(message, rank, local, host, hinted)


def detect_style(sample: Iterable[str]) -> PrefixStyle:
    """Guess a file's prefix style from some of its lines: srun labels or host labels only when
    most lines carry one (a message may begin with ``12: `` or ``Epoch: `` by chance)."""
    lines = [s for s in sample if s.strip()]
    if not lines:
        return PrefixStyle.NONE
    kinds = [_line_kind(s) for s in lines]
    labelled = sum(1 for srun, _host, _br in kinds if srun)
    if labelled >= 3 and _labels_repeat(s for s, (srun, _host, _br) in zip(lines, kinds, strict=True) if srun):
        if labelled >= max(3, int(0.8 * len(lines))):
            return PrefixStyle.SRUN_LABEL
        if labelled >= 5:
            # a batch script's preamble (its "set -x" trace, its echo lines), then srun's output, then
            # perhaps the scheduler's epilogue (PBS's resource usage, LSF's job report)
            first = next(i for i, (srun, _host, _br) in enumerate(kinds) if srun)
            last = max(i for i, (srun, _host, _br) in enumerate(kinds) if srun)
            if labelled >= 0.9 * (last + 1 - first):
                return PrefixStyle.SRUN_LABEL
    hosts: Counter[str] = Counter()
    for s, (_srun, host, _br) in zip(lines, kinds, strict=True):
        if host:
            m = _host_token(s, 0) or _PDSH_IP.match(s)
            if m:
                hosts[m["host"]] += 1
    if sum(hosts.values()) >= max(3, int(0.8 * len(lines))) and len(hosts) <= max(2, len(lines) // 2):
        return PrefixStyle.HOST_LABEL
    # (torchx's label alone before the lines: with torchrun's own prefixes after it on most lines,
    # "trainer/1 [1]:[rank3]:", the bracketed style reads them as before)
    tasks: Counter[str] = Counter()
    bracketed = 0
    for s in lines:
        m = _TASK.match(s)
        if m is not None:
            tasks[m[0]] += 1
            bracketed += s[m.end():m.end() + 1] in ("[", "(")
    if (sum(tasks.values()) >= max(3, int(0.8 * len(lines))) and len(tasks) <= max(2, len(lines) // 4)
            and bracketed < sum(tasks.values()) // 2):
        return PrefixStyle.TASK_LABEL
    return PrefixStyle.BRACKETS if any(br for _srun, _host, br in kinds) else PrefixStyle.NONE


def _labels_repeat(labelled: Iterable[str]) -> bool:
    """srun's task labels come back line after line; a backtrace's or a list's numbers ("   0:
    rust_begin_unwind", "   1: core::panicking::panic_fmt") each appear once. MPI's bracketed
    ranks ("[3] ") are ranks only where they are few for their size (a program's pids, "[4456] ",
    are not: the ranks shown of a job are numbers from 0 up, some of them)."""
    seen: set[str] = set()
    repeated = False
    bracketed: set[int] = set()
    for line in labelled:
        m = _SRUN.match(line)
        if m is not None:
            if m["br"] is not None:
                bracketed.add(int(m["task"]))
            if m["task"] in seen:
                repeated = True
            seen.add(m["task"])
    if bracketed and (max(bracketed) >= _MPI_LABEL_SPAN * len(bracketed) + _MPI_LABEL_SLACK
                      or min(bracketed) >= 2 * len(bracketed) + _MPI_LOW_SLACK):
        return False  # (a container's pids, "[53] ", "[54] ": small, but none of them low)
    return repeated


_MPI_LABEL_SPAN = 4  # MPI's bracketed ranks: the largest at most this many times as many as are shown ...
_MPI_LABEL_SLACK = 64  # ... and this many more
_MPI_LOW_SLACK = 8  # and the smallest below twice as many as are shown, and this many more


_TO_ZERO = str.maketrans("1234567", "0000000")  # (8 and 9 kept: "local8: " is no syslog facility, "local0: " is)
_LINE_KINDS: dict[str, tuple[bool, bool, bool]] = {}  # a line's shape -> _line_kind's answer
_LINE_KINDS_MAX = 20_000


def _line_kind(s: str) -> tuple[bool, bool, bool]:
    """Whether a line begins with an srun label, with a host label (not a syslog facility's), and
    with a bracketed prefix. The answers depend on where digits are, not on their values: they
    are remembered by the line's shape (its digits 1-7 as 0), so that the per-rank logs of a large
    run, whose lines differ in their digits, are read once."""
    if len(s) > 320:
        s = s[:320]  # (the prefixes sit in a line's first characters; Ray's run to ~270)
    shape = s.translate(_TO_ZERO)
    kind = _LINE_KINDS.get(shape)
    if kind is None:
        m = _host_token(s, 0) or _PDSH_IP.match(s)
        kind = (_SRUN.match(s) is not None, bool(m and not _SYSLOG_FACILITY.match(s, m.end())),
                _strip_at(s, 0, PrefixStyle.BRACKETS)[0] > 0)
        if len(_LINE_KINDS) >= _LINE_KINDS_MAX:
            _LINE_KINDS.clear()
        _LINE_KINDS[shape] = kind
    return kind
