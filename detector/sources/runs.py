"""Find the files of a run and say what each one is (rank log, kernel log, torchelastic error
file, metrics) and which rank, node and attempt it belongs to, from its path and what its lines say.

A file's node is a parent folder whose name looks like a host name (:func:`looks_like_host`: never
``logs``, ``torchrun-logs``, ``attempt_0``, ``job_…``, rank folders or a title like a corpus case
folder) and that the file's own lines do not contradict (the hosts its NCCL / UCX / Open MPI /
syslog headers, pdsh labels, shell prompts and summaries name); without such a folder, the one
host the file's lines name throughout (a pasted ``root@node4:~# dmesg -T``, a console whose NCCL
lines all come from one host)."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import stat
from collections import Counter
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

from detector.errors import InputError
from detector.sources.archives import Budget, is_archive_name, scratch_folder, stem, unpack
from detector.sources.flight_recorder.names import looks_like_fr_dump, rank_from_dump_name
from detector.sources.prefixes import WORKER_PID, WORKER_PID_SPAN, logger_rank, strip_prefix
from detector.sources.timestamps import parse_timestamp
from detector.support.compressed import (
    NOTEBOOK_MAX,
    compressed_head,
    inner_name,
    is_compressed_log_name,
    open_log,
    open_regular,
    stream_size,
    wide_encoding,
)
from detector.support.hosts import host_shaped, names_a_host, same_host
from detector.support.walk import MAX_DEPTH, shortened, walk


class FileKind(StrEnum):
    RANK_LOG = "rank_log"
    KERNEL = "kernel"
    ELASTIC_ERROR = "elastic_error"
    METRICS = "metrics"
    FR_DUMP = "fr_dump"  # a PyTorch Flight Recorder dump (read safely, never unpickled as such)


@dataclass(frozen=True, slots=True)
class LogFile:
    path: Path
    display: str  # the path as shown in reports (relative to the run)
    kind: FileKind
    rank: int | None = None
    local_rank: int | None = None
    node: str | None = None
    attempt: int | None = None
    size: int = 0
    # (device, inode) of the file discovery vetted: a replay reads that file or nothing, so a
    # file swapped for a link (or anything else) between discovery and reading is skipped
    ident: tuple[int, int] | None = None
    compressed: bool = False  # gzip (a rotated kern.log.2.gz, rank3.log.gz): support.compressed
    # where ``node`` came from: "folder" (a folder named like a host, which the file's lines do
    # not contradict), "pod" (the kubelet's folder of the pod) or "file" (the one host the file's
    # own lines name: its shell prompts, NCCL / UCX / syslog headers)
    node_from: str | None = None


_ATTEMPT = re.compile(r"^attempt_(\d+)$")
_TORCHRUN_RUN_DIR = re.compile(r"^(?P<id>.{1,200})_[a-z0-9_]{8}$")  # torchrun's "<run_id>_<random>"
_RANK_NAME = (
    re.compile(r"(?:^|[^a-z])rank[_-]?(\d{1,6})(?![\d])", re.I),
    # (Azure ML's user_logs/std_log_process_3.txt: the process of global rank 3)
    re.compile(r"(?:^|[^a-z])(?:worker|process|proc|task)[_-]?(\d{1,6})(?![\d])", re.I),
    # ("train-3.log"; not a host name's number: "nvidia-smi-c404-066.txt", "dmesg-r12-c07.txt" - a
    # token that ends in a digit before it, or a zero-padded number; nor a pod's or a pid's of five
    # digits or more, "raycluster-head-27501.txt")
    re.compile(r"[A-Za-z_]-(0|[1-9]\d{0,3})\.(?:out|err|log|txt)$", re.I),
    re.compile(r"^(\d{1,6})\.(?:out|err|log|txt)$", re.I),
)
_KERNEL_NAME = re.compile(r"(?:^|[._-])(?:dmesg|kmsg|kern|kernel|journal|journalctl|syslog|messages)(?:[._-]|$)", re.I)
_GENERIC_DIRS = {
    "logs", "log", "ranks", "output", "outputs", "out", "stdout", "stderr", "metrics", "kernel",
    "run", "runs", "dmesg", "data", "tmp", "console", "slurm", "job", "jobs", "torchrun", "attempts",
    "results", "result", "artifacts", "checkpoints", "checkpoint", "ckpt", "wandb", "tensorboard",
    "events", "traces", "trace", "debug", "nccl", "journal", "syslog", "var", "home", "spool",
    "slurmd", "workspace", "scratch", "shared", "mnt", "local", "latest", "current", "none", "default",
}
# folder names that are not host names whatever their characters: torchrun attempts, job and run
# ids, rank / worker folders, dated or versioned folders, experiment / step / seed folders
_GENERIC_DIR = re.compile(
    r"^(?:attempt-?\d+|jobs?(?:-.*|\d+)|.*-?logs?|logs?-.*|(?:local-?|global-?|node-)?rank[.-]?\d+"
    r"|(?:worker|proc|process|task)-?\d+"
    r"|(?:run|exp|experiment|trial|seed|epoch|step|iter|checkpoint|ckpt|version|v)-?\d+(?:\.\d+)*"
    r"|\d+(?:[.-]\d+)*|\d{4}-?\d{2}-?\d{2}.*|none-.*)$",
    re.I,
)
_SKIP_NAMES = {"expected.json", "truth.json"}  # scenario / corpus ground truth, not input
_TEXT_SUFFIXES = {".log", ".out", ".err", ".txt", ".stderr", ".stdout", ".jsonl", ".ndjson", ""}  # (JSON lines: log records)
_HOST = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")
_IPV4 = re.compile(r"^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$")
HEAD_BYTES = 32 << 10  # how much of a file is read for the hosts it names
TAIL_BYTES = 8 << 10
HEAD_LINES = 300
TAIL_LINES = 60
# what names a host in a log: a shell prompt ("root@node4:~# dmesg -T", "user@cn-234 ~ % nvidia-smi",
# "(env) user@c002:~/dir $ "), a program printing its host, torchelastic's summary
_PROMPT = re.compile(
    r"^(?:\([\w.-]{1,64}\) )?[a-z_][\w.-]{0,31}@(?P<host>[A-Za-z0-9][A-Za-z0-9._-]{0,62})"
    r"(?::[^\s$#%>]{0,200}| [^\s$#%>]{1,200})? {0,8}[$#%>](?: |$)"
    # (bash's default prompt on Red Hat-like systems: "[root@gpu-2-12 nccl-tests]# nvidia-smi")
    r"|^(?:\([\w.-]{1,64}\) )?\[[a-z_][\w.-]{0,31}@(?P<bhost>[A-Za-z0-9][A-Za-z0-9._-]{0,62})(?: [^\]\n]{1,200})?\][$#](?: |$)"
)
# a command at that prompt that runs on other hosts (clush/pdsh's "node001: ..." lines, ssh, srun,
# kubectl): what it prints is theirs, not the prompt's host's
_REMOTE_COMMAND = re.compile(r" *(?:sudo +)?(?:clush|pdsh|pdcp|ssh|srun|salloc|sbatch|mpirun|mpiexec|kubectl|oc|"
                             r"ansible|parallel-ssh|pssh|xdsh|sacct|scontrol|squeue|sinfo)(?![\w-])")
_SAYS_HOST = re.compile(r"^\s*(?:[Hh]ostname|HOSTNAME|host)\s*[:=]\s*(?P<host>[A-Za-z0-9][A-Za-z0-9._-]{0,62})\s*$")


# a folder of one rank's files (Open MPI's --output-filename writes <dir>/1/rank.3/stdout)
_RANK_DIR = re.compile(r"^rank[._-]?(\d{1,6})$", re.I)
# srun --output=slurm-%j-%t.out / job.%j.%t.log: a job id (3+ digits), then the task (= rank)
_JOB_TASK_NAME = re.compile(r"(?:^|[._-])\d{3,12}[.-](\d{1,6})\.(?:out|err|log|txt)$", re.I)


# a date and a time of day stamped into a file's name ("<tool>-20230320-2024.log", "-20230320.142501.out")
_DATE_TIME_NAME = re.compile(r"(?:^|[._-])(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])[.-](?:[01]\d|2[0-3])[0-5]\d(?:[0-5]\d)?\.[A-Za-z]{1,4}$")


_SCHEDULER_NAME = re.compile(r"(?:slurm|job|srun|sbatch|task|pbs|lsf|flux)[._-]", re.I)


# an id in a file name (Ray's worker-<56 hex>-<job>-<pid>.out, a hash, a container id): its digits
# and the numbers after it are no rank
_HEX_ID = re.compile(r"[0-9a-f]{16,}", re.I)


# a stack dump's file, named for the tool and the process (py-spy-node07-241990.txt): a number of
# a pid's size in it is the pid (a small one may be a rank: stacks-7.txt)
_DUMP_NAME = re.compile(r"(?:^|[._-])(?:py-?spy|pystack|stacks?|stackdump|dump|gdb|backtrace)(?:[._-]|$)", re.I)
_PID_SIZED = re.compile(r"[._-][0-9]{4,10}\.[A-Za-z]{1,4}$")


# an EC2-style host name ("nhc-ip-10-2-196-249.log"): its address's last numbers are no job and task
_DASHED_ADDRESS = re.compile(r"(?:^|[._-])ip-(?:[0-9]{1,3}-){3}[0-9]{1,3}(?:\.[A-Za-z]{1,4}$|[._](?!(?:out|err|log|txt)$))", re.I)


def _rank_from_name(name: str) -> int | None:
    if ((_HEX_ID.search(name) or (_DUMP_NAME.search(name) and _PID_SIZED.search(name)) or _DASHED_ADDRESS.search(name))
            and not re.search(r"rank", name, re.I)):
        return None
    if name[:4].lower() in ("nhc-", "nhc_", "nhc."):  # (Node Health Check's log of its node: "nhc-node-3.log")
        return None
    m = _JOB_TASK_NAME.search(name)
    if m:
        # (not a date and a time of day: nccl-tests' "all_reduce_perf-20230320-2024.log"; a
        # scheduler's output is named for its job and task, "slurm-20240117.0002.out")
        dated = _DATE_TIME_NAME.search(name) and not _SCHEDULER_NAME.match(name)
        return None if dated else int(m.group(1))
    if name.startswith("slurm-"):  # slurm-<jobid>.out: the batch script's output, not a rank
        return None
    for pattern in _RANK_NAME:
        m = pattern.search(name)
        if m and not (pattern is _RANK_NAME[2] and _NUMBERED_NOT_BY_RANK.search(name)):
            return int(m.group(1))
    return None


# a file numbered for something other than a rank: a launcher's console of one launch ("console-2.log",
# the second launch's, holding every rank's output), an attempt or a retry ("attempt-1.log")
_NUMBERED_NOT_BY_RANK = re.compile(
    r"(?:^|[^a-z])(?:console|launcher|launch|driver|agent|combined|nohup|terminal|session|screen|tmux|attempt|retry"
    r"|try|rerun|requeue|restart)-\d{1,4}\.(?:out|err|log|txt)$", re.I)


def looks_like_host(name: str) -> bool:
    """A folder name that may be a host name: host-name characters (no ``_``), a digit or a dot in
    it (node07, gpu-a01, hgx-017.cluster, 10.0.0.7), and none of the generic names (logs,
    torchrun-logs, attempt_0, job_1234, rank3, worker-3, 2026-11-30, run_20261130_1200, a title
    such as a case folder's ``A-nccl-230-ib-local-catastrophic`` …)."""
    if _IPV4.match(name):
        return True
    if not _HOST.match(name) or "_" in name or name.lower() in _GENERIC_DIRS or _GENERIC_DIR.match(name):
        return False
    if not any(c.isalpha() for c in name):
        return False
    words = name.split("-")
    if len(words) >= 4 and 2 * sum(1 for w in words if len(w) >= 2 and w.isalpha() and w.islower()) > len(words):
        return False  # a title ("A-nccl-230-ib-local-catastrophic", "my-big-training-run-2"), not a host
    return any(c.isdigit() for c in name) or "." in name.strip(".")


def _node_from_dirs(parts: tuple[str, ...]) -> str | None:
    for part in reversed(parts):
        if looks_like_host(part):
            return part
    return None


def _read_head_tail(path: Path, compressed: bool = False) -> tuple[bytes, bytes]:
    """A file's first :data:`HEAD_BYTES` and its last :data:`TAIL_BYTES` after them (one read of
    each: listing a run reads every file once, whatever it asks of it)."""
    try:
        fh, _st, _note = open_log(path, compressed)
        with fh:
            head = fh.read(HEAD_BYTES)
            size = stream_size(fh)
            tail = b""
            if size > HEAD_BYTES:
                fh.seek(max(HEAD_BYTES, size - TAIL_BYTES))
                tail = fh.read(TAIL_BYTES)
    except OSError:
        return b"", b""
    return head, tail


def _ends(head: bytes, tail: bytes) -> list[str]:
    lines = head.decode("utf-8", "replace").splitlines()[:HEAD_LINES]
    if tail:
        lines += tail.decode("utf-8", "replace").split("\n", 1)[-1].splitlines()[-TAIL_LINES:]
    return lines


def _read_ends(path: Path) -> list[str]:
    return _ends(*_read_head_tail(path))


def hosts_named(lines: list[str]) -> tuple[set[str], set[str]]:
    """The hosts some lines name: (shell prompts, everything else: NCCL / UCX / Open MPI headers,
    syslog and journald hosts, pdsh labels, torchelastic summaries, "Hostname: x")."""
    prompts: set[str] = set()
    others: set[str] = set()
    # Lines of one shape (the same text but for its digits) name no host if one of them named
    # none and parsed as stamped: what decides a host here depends on where digits are, not on
    # their values, except a stamp's validity. Step lines are most of a big log: parse one, and
    # one for the run (the shapes are remembered across files: 16,384 per-rank logs print the
    # same step lines but for their rank's digits).
    quiet = _QUIET_SHAPES
    if len(quiet) > _QUIET_SHAPES_MAX:
        quiet.clear()
    ray_hosts = False
    ray_local = False
    nccl_heads: set[str] = set()
    for raw in lines:
        line = raw.rstrip("\r")
        if "pid=" in line[:WORKER_PID_SPAN] and (worker := WORKER_PID.match(line, 0, WORKER_PID_SPAN)) is not None:
            # (before the shapes' memo: a Ray worker's line without its node's address is quiet
            # otherwise, and what it says here is that the file holds an unnamed node)
            if line.startswith(", ip=", worker.end()):
                ray_hosts = True  # a Ray worker's prefix with its node's address
            else:
                ray_local = True  # a Ray (or vLLM) worker on the driver's own node: no address printed
        # NCCL's lines behind one process's header ("host:pid:tid [dev] NCCL INFO ...", by the
        # thousand under NCCL_DEBUG=INFO): what they name is their header's (and what comes before it)
        nccl = line.find(" NCCL ", 0, _NCCL_HEAD_SPAN)
        if nccl > 0:
            head = line[:nccl]
            if head in nccl_heads:
                continue
            nccl_heads.add(head)
        shape = line.encode("utf-8", "surrogateescape").translate(_DIGITS_TO_0)
        if shape in quiet:
            continue
        m = _PROMPT.match(line)
        if m:
            if not _REMOTE_COMMAND.match(line, m.end()):
                prompts.add(m["host"] or m["bhost"])
            continue
        pre = strip_prefix(line)
        if pre.host:
            others.add(pre.host)
        m = _SAYS_HOST.match(pre.message)
        if m and m["host"].lower() not in ("localhost", "<n/a>"):
            others.add(m["host"])
            continue
        stamp = parse_timestamp(pre.message, year=2000)
        if stamp is not None and stamp.host:
            others.add(stamp.host)
        elif stamp is not None and stamp.time is not None and not pre.host and len(shape) <= _QUIET_SHAPE_LEN:
            quiet.add(shape)
    if ray_hosts and ray_local:
        # a Ray driver's log: the workers of other nodes print their address, those on the
        # driver's node none: the file holds two nodes at least, one of them unnamed
        others.add(UNNAMED_HOST)
    return prompts, others


# what hosts_named adds where a file's lines come from a host they do not name (no host name
# can be written so: no file is taken for this host's)
UNNAMED_HOST = "(unnamed host)"


_DIGITS_TO_0 = bytes.maketrans(b"123456789", b"000000000")
_NCCL_HEAD_SPAN = 160  # where NCCL's " NCCL INFO"/" NCCL WARN" follows its header (hosts_named)
_QUIET_SHAPES: set[bytes] = set()  # shapes of lines that name no host (hosts_named)
_QUIET_SHAPES_MAX = 20_000
_QUIET_SHAPE_LEN = 400  # longer lines are parsed each time (the memo stays under ~10 MB)


def _node_of_file(path: Path, folder: str | None,
                  named_hosts: tuple[set[str], set[str]] | None = None) -> tuple[str | None, str | None]:
    """The node a file belongs to: its folder when the folder looks like a host name and the
    file's own lines name no other host; else the one host the file's lines name (its shell
    prompts, or else its NCCL / UCX / Open MPI / syslog headers), when they name only one.
    ``named_hosts``: :func:`hosts_named` of the file's ends, where the caller has it. Returns the
    node and where it came from (``LogFile.node_from``)."""
    prompts, others = hosts_named(_read_ends(path)) if named_hosts is None else named_hosts
    named = prompts | others
    if folder is not None:
        if not named or all(same_host(h, folder) for h in named):
            return folder, "folder"
        return None, None
    hosts = prompts or others
    first = min(hosts) if hosts else None  # (sorted: the same answer whatever the set's order)
    if first is not None and all(same_host(h, first) for h in named):
        return first, "file"  # the file names one host throughout (a shell prompt, NCCL / UCX / syslog headers)
    return None, None


def _json_kind(path: Path) -> FileKind | None:
    try:
        with open_regular(path) as fh:
            head = fh.read(4096)
    except OSError:
        return None
    text = head.decode("utf-8", "replace")
    if ('"resultType"' in text and '"streams"' not in text) or ('"metric"' in text and '"value' in text):  # (Loki's streams: logs)
        return FileKind.METRICS
    if path.name == "error.json" or '"extraInfo"' in text or '"py_callstack"' in text:
        return FileKind.ELASTIC_ERROR
    try:
        if path.stat().st_size < 4096:
            json.loads(text)
    except ValueError:
        return None
    return None


def _json_lines(path: Path) -> bool:
    """Whether a file begins with two lines that each hold a JSON object (a log of records)."""
    try:
        with open_regular(path) as fh:
            lines = fh.read(65536).split(b"\n", 2)[:2]
    except OSError:
        return False
    if len(lines) < 2:
        return False
    try:
        return all(isinstance(json.loads(line), dict) for line in lines)
    except (ValueError, RecursionError):
        return False


def _log_export(path: Path) -> bool:
    """Whether a JSON, CSV or YAML file is a log platform's export of records (support.exports)."""
    try:
        fh, _st, note = open_log(path, False)
    except OSError:
        return False
    with fh:
        return note is not None and note.startswith("a log platform's export")


# journalctl -o json's kernel records
_JOURNAL_KERNEL = re.compile(rb'"(?:_TRANSPORT|SYSLOG_IDENTIFIER)" ?: ?"kernel"')


def _looks_like_kernel(head: bytes) -> bool:
    """Whether a file that begins with ``head`` reads as a kernel log (half of its first 40 lines)."""
    if head[:1] == b"{":  # journalctl -o json: most of its first records the kernel's
        records = head[:8192].split(b"\n")[:40]
        return sum(1 for r in records if _JOURNAL_KERNEL.search(r)) * 2 > len(records)
    lines = head[:8192].decode("utf-8", "replace").splitlines()[:40]
    if not lines:
        return False
    match = _KERNEL_LINE.match
    hits = sum(1 for line in lines if match(line))
    return hits >= max(2, len(lines) // 2)


# a journald or syslog line of a program other than the kernel ("host systemd[1]: ", "host
# torchrun[4242]: "), and one of a training program's own (journalctl -u trainer, a unit's output
# kept by syslog): the program is a launcher or Python, or its line begins with a rank's prefix
_JOURNAL_STAMP_HOST = r"(?:\d{4}-\d{2}-\d{2}T\S+|[A-Z][a-z]{2} {1,2}\d{1,2} \d\d:\d\d:\d\d(?:\.\d+)?) {1,2}\S+ "
_JOURNAL_LINE = re.compile(_JOURNAL_STAMP_HOST + r"(?!kernel:)[\w.@/-]{1,64}(?:\[\d{1,10}\])?: ")
_PROGRAM_JOURNAL_LINE = re.compile(
    _JOURNAL_STAMP_HOST
    + r"(?:(?:torchrun|python[0-9.]{0,5}|srun|mpirun|deepspeed|accelerate|ray|trainer|train[\w.-]{0,40})(?:\[\d{1,10}\])?: "
    r"|[\w.@/-]{1,64}(?:\[\d{1,10}\])?: \[(?:rank|default)\d{1,6}\]:)")
JOURNAL_LINES = 3  # of a head's first 40 lines, at least, and more than its kernel lines


# journalctl -o json's record of a training program's: a launcher's identifier, or a message of a
# rank (its prefix) or of NCCL or torch.distributed (a Python service's, WALinuxAgent's, is none)
# (or, read as an export's records, oldest first, {"time", "host", "log"}: the log's words alone)
_JOURNAL_PROGRAM_RECORD = re.compile(
    rb'"SYSLOG_IDENTIFIER" ?: ?"(?:torchrun|srun|mpirun|deepspeed|accelerate|trainer|train[\w.-]{0,40})"'
    rb'|"(?:MESSAGE|log)" ?: ?"(?:\[(?:rank|default)\d|[^"]{0,200}(?:NCCL INFO|NCCL WARN|torch\.distributed))')
_EXPORTED_KERNEL_RECORD = re.compile(rb'"log" ?: ?"(?:\[[^\]"]{0,40}\] ?)?(?:NVRM: |kernel: |[A-Za-z][\w.-]{0,62} kernel: )')


def _program_journal(head: bytes) -> bool:
    """Whether a file named as a kernel log (``*.journal.txt``, ``syslog``, ``journal-node7.json``)
    begins with programs' journald or syslog lines (or journalctl -o json records) more than with
    the kernel's, a training program's among them (``journalctl -u trainer``): its ranks' output
    is read as a rank log's (the kernel lines in it are read as pasted ones)."""
    if head[:1] == b"{":
        records = [r for r in head[:8192].split(b"\n")[:40] if r.strip()]
        kernel = sum(1 for r in records if _JOURNAL_KERNEL.search(r) or _EXPORTED_KERNEL_RECORD.search(r))
        return (len(records) - kernel >= JOURNAL_LINES and len(records) - kernel > kernel
                and any(_JOURNAL_PROGRAM_RECORD.search(r) for r in records))
    lines = head[:8192].decode("utf-8", "replace").splitlines()[:40]
    programs = sum(1 for line in lines if _JOURNAL_LINE.match(line))
    return (programs >= JOURNAL_LINES and programs > sum(1 for line in lines if _KERNEL_LINE.match(line))
            and any(_PROGRAM_JOURNAL_LINE.match(line) for line in lines))


# a kernel log's line: dmesg ("[  12.345678]", "[+0.000123]", "dmesg -T"), /dev/kmsg records,
# syslog and journald kernel lines, talosctl's "host: kern: "
_KERNEL_LINE = re.compile(
    r"\s*(?:\[\s*\+?\d{1,9}\.\d+\]|\d+,\d+,\d+,[^;]*;|\w{3}\s+\d+ \d\d:\d\d:\d\d \S+ kernel:|\S+T\S+ \S+ kernel:"
    r"|\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\]|\S+: kern: |kern {0,8}:[a-z]{3,6} {0,8}: )")


def classify(path: Path, root: Path) -> LogFile | None:
    """What ``path`` (inside ``root``) is, or None when it is not an input (nor when it is not a
    regular file: a FIFO's open waits for a writer, a device never ends)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
    except OSError:
        pass  # gone: reading it says so
    rel = path.relative_to(root) if path != root else Path(path.name)
    parts = rel.parts[:-1]
    name = path.name
    size = _size(path)
    display = str(rel)
    if name in _SKIP_NAMES or name.startswith("."):
        return None
    if is_compressed_log_name(name):
        return _classify_compressed(path, inner_name(name), parts, display, size)
    suffix = path.suffix.lower()
    if looks_like_fr_dump(path):  # before the text checks: a suffix-less dump is no rank log
        node = _node_from_dirs(parts)
        return LogFile(path, display, FileKind.FR_DUMP, rank_from_dump_name(name), None, node, None, size,
                       node_from="folder" if node else None)
    attempt = None
    local = None
    node = None
    # torchrun --log-dir: <run_id>/attempt_N/<local_rank>/{stdout,stderr}.log|error.json
    if len(parts) >= 2 and _ATTEMPT.match(parts[-2]) and parts[-1].isdigit():
        attempt = int(_ATTEMPT.match(parts[-2]).group(1))  # type: ignore[union-attr]
        local = int(parts[-1])
        # (torchrun makes "<run_id>_<random>/" in --log-dir; a log dir named after the run id
        # itself, "llama-1266/llama-1266_rdvprcs7/attempt_0/", names the run, not a host)
        above = parts[:-3]
        run_dir = _TORCHRUN_RUN_DIR.match(parts[-3]) if len(parts) >= 3 else None
        if run_dir is not None and above and above[-1] == run_dir.group("id"):
            above = above[:-1]
        node = _node_from_dirs(above)
        node_from = "folder" if node is not None else None
        if name != "error.json":
            node, node_from = _node_of_file(path, node)
        if name == "error.json":
            return LogFile(path, display, FileKind.ELASTIC_ERROR, None, local, node, attempt, size, node_from=node_from)
        if suffix in (".log", ".txt", ""):
            return LogFile(path, display, FileKind.RANK_LOG, None, local, node, attempt, size, node_from=node_from)
    if suffix in (".json",):
        kind = _json_kind(path)
        if kind is None:
            # JSON lines under a .json name (journalctl -o json > kern.json, a logger's records)
            return _text_log(path, name, parts, display, size) if _json_lines(path) or _log_export(path) else None
        node = _node_from_dirs(parts)
        return LogFile(path, display, kind, None, None, node, None, size, node_from="folder" if node else None)
    if suffix == ".ipynb":  # a notebook's cells' outputs (support.compressed.notebook_outputs)
        # (one too large to read is listed: reading it says why it was skipped)
        return _text_log(path, name, parts, display, size) if size > NOTEBOOK_MAX or _notebook_printed(path) else None
    if suffix in (".yaml", ".yml") and _log_export(path):  # gcloud logging read's entries
        return _text_log(path, name, parts, display, size)
    if suffix == ".csv":
        if _log_export(path):  # Kibana's, Datadog's or CloudWatch Insights' download of log records
            return _text_log(path, name, parts, display, size)
        node = _node_from_dirs(parts)
        return LogFile(path, display, FileKind.METRICS, None, None, node, None, size, node_from="folder" if node else None)
    if (suffix not in _TEXT_SUFFIXES and not _NUMBERED_SUFFIX.match(suffix) and not _RANK_SUFFIX.search(name)
            and not (_KERNEL_FILE.match(name) and suffix not in _NOT_LOG_SUFFIXES | _OBJECT_SUFFIXES)
            and not _PART_OF_A_LOG.search(name) and not _ROTATED_BY_DATE.search(name)
            and suffix not in _MORE_LOG_SUFFIXES):
        return None
    return _text_log(path, name, parts, display, size)


# a log's part saved under the log's own name and a word for what it is: "slurm-123.out.tail"
# (tail -n 5000 > ...), "train.log.head", "rank3.log.part2", "job.err.trimmed" (not a copy kept
# aside, "train.log.bak", "train.log.old": an earlier run's, which a launch script moved away)
_PART_OF_A_LOG = re.compile(r"\.(?:log|out|err|txt|stdout|stderr)\.(?:tail|head|part[0-9]{0,3}|excerpt|trimmed|cut|snippet"
                            r"|partial|short|last[0-9]{0,7}|first[0-9]{0,7})$", re.IGNORECASE)


# a log rotated by date: Python's TimedRotatingFileHandler ("train.log.2024-05-01",
# "train.log.2024-05-01_12-00-00"), logrotate's dateext ("rank3.log-20240501", "kern.log-20240501")
_ROTATED_BY_DATE = re.compile(r"\.(?:log|out|err|txt)[.-](?:20|19)[0-9]{2}-?[01][0-9]-?[0-3][0-9]"
                              r"(?:[_T.-][0-9]{2}(?:[-:.]?[0-9]{2}){0,2})?$", re.IGNORECASE)
# logs under a name of their own kind: "node02.dmesg", "node02.kmsg", "node02.syslog", "rank3.logs"
# and a terminal's recording, asciinema's ".cast" (read as what it showed: support.compressed)
_MORE_LOG_SUFFIXES = frozenset({".logs", ".dmesg", ".kmsg", ".syslog", ".cast"})


# detectron2's and fvcore's per-rank files beside rank 0's log.txt: log.txt.rank1, log.txt.rank2 ...
_RANK_SUFFIX = re.compile(r"\.(?:log|txt|out|err)\.rank[0-9]{1,6}$", re.IGNORECASE)


_KERNEL_WORDS = r"(?:dmesg|kern(?:el)?(?:\.log)?|journal(?:ctl)?|syslog|messages|kmsg)"
_KERNEL_NAME_HOST = re.compile(
    r"^(?:" + _KERNEL_WORDS + r"(?:[-_.](?:T|k|kernel|log))*[-_.](?P<after>.+)|(?P<before>.+?)[-_.]" + _KERNEL_WORDS
    + r"(?:[-_.](?:T|k|kernel|log))*)$", re.IGNORECASE)
# a node's GPU or network report saved under the node's name: "nvidia-smi_gpu-node-07.txt",
# "nvidia-smi-q.node12.log", "dcgmi-diag-node03.txt", "node07-rocm-smi.txt", "ibstat_ip-10-0-0-5.txt"
_TOOL_WORDS = (r"(?:nvidia[-_]smi|nvidia[-_]bug[-_]report|dcgmi?|rocm[-_]smi|amd[-_]smi|ibstat|ibv[-_]devinfo"
               r"|ibdiagnet|nvlink[-_]status|gpu[-_]health|gpu[-_]query)")
# what names a job or a model, not a host, before or after a tool's name in a file's name
_NOT_A_TOOL_HOST = re.compile(r"^(?:slurm|job|jobid|run|train|exp|sbatch|step|task)[-_.]?[0-9]+|(?:^|[-_.])[0-9]{1,4}[bBmMkK]$",
                              re.IGNORECASE)
# what the report holds, between the tool's name and the node's ("nvidia-smi-q-perf_dgx041.txt":
# nvidia-smi -q -d PERFORMANCE; "dcgmi-diag-r3_node07.txt")
_TOOL_OPTIONS = (r"diag|r[1-4]|query|status|log|out|output|perf(?:ormance)?|clocks?|power|temp(?:erature)?|ecc|topo"
                 r"|nvlink|mem(?:ory)?|pcie?|dmon|pmon|full|health"
                 # ("nvidia-smi-row-remapper-hgx-r10-n01.txt": nvidia-smi -q -d ROW_REMAPPER)
                 r"|rows?|remapp(?:er|ed|ing)|retired|pages|xids?|errors?|counters?|reset|mig")
_TOOL_NAME_HOST = re.compile(
    r"^(?:" + _TOOL_WORDS + r"(?:[-_.](?:[a-z]|(?-i:[A-Z_]{3,})|" + _TOOL_OPTIONS + r"))*[-_.](?P<after>.+)"
    r"|(?P<before>.+?)[-_.]" + _TOOL_WORDS + r"(?:[-_.](?:[a-z]|(?-i:[A-Z_]{3,})|" + _TOOL_OPTIONS + r"))*)$",
    re.IGNORECASE)
_DATE_LIKE = re.compile(r"^[0-9]{4}[-_.]?[0-9]{2}[-_.]?[0-9]{2}(?:[-_T.][0-9]{2,6})*$")
_NOT_A_HOST = re.compile(r"^(?:v|ver|version|rank|local[-_]?rank|r|part|attempt|try|run|job|step|epoch|day|test"
                         r"|txt|log|out|err)[-_.]?[0-9]{1,6}$",
                         re.IGNORECASE)  # "dmesg_v2.txt", "dmesg-rank3.txt": a version or a rank, not a host
# a rotation's number after a file's own suffix ("dmesg.txt.1", "kern.log.2")
_ROTATION_TAIL = re.compile(r"(?<=\.(?:txt|log|out|err))\.[0-9]{1,4}$", re.IGNORECASE)


def _host_of_kernel_name(name: str, shape: re.Pattern[str] = _KERNEL_NAME_HOST) -> str | None:
    """The node a kernel log's file name names, as collection scripts save them
    ("dmesg-node07.txt", "dmesg-T-ip-10-2-7-91.txt", "kern.log.gpu-3", "node07-dmesg.log",
    "journalctl-10.0.0.5.log"), or a node report's (``shape`` :data:`_TOOL_NAME_HOST`:
    "nvidia-smi_node07.txt"): a letter first and a digit in it, or an IPv4 address; not a word, a
    rotation number or a date."""
    stem = _ROTATION_TAIL.sub("", name)  # ("dmesg.txt.1", "dmesg.out.2": a rotation of "dmesg.txt")
    for suffix in (".txt", ".log", ".out"):
        if stem.lower().endswith(suffix) and len(stem) > len(suffix):
            stem = stem[: -len(suffix)]
            break
    m = shape.match(stem)
    if m is None:
        return None
    host = m["after"] or m["before"] or ""
    if _IPV4.match(host):
        return host
    # a cluster's host name: a letter first and a digit in it ("node07", "ip-10-0-0-1", "c441-064");
    # not a word ("before", "after-crash", "T") nor a date
    if (not host_shaped(host) or not names_a_host(host) or not host[0].isalpha() or _DATE_LIKE.match(host)
            or not any(c.isdigit() for c in host) or _NOT_A_HOST.match(host)):
        return None
    return host


_KERNEL_FOLDERS = frozenset({"dmesg", "kernel", "kern", "kernel_logs", "kernel-logs", "syslog", "journal", "kmsg"})


def _host_in_kernel_folder(name: str, parts: tuple[str, ...]) -> str | None:
    """The node a kernel log in a folder of kernel logs is named for: "dmesg/hgx051.log",
    "kernel/gpu-node-07.txt" (a name with a host's shape, as :func:`_host_of_kernel_name` checks it)."""
    if not parts or parts[-1].lower() not in _KERNEL_FOLDERS or _KERNEL_NAME.search(name):
        return None  # ("kernel/kern.log.1", "syslog/messages-20240305": a rotation, no node's name)
    stem = name.rsplit(".", 1)[0] if "." in name and name.rsplit(".", 1)[1].lower() in ("txt", "log", "out") else name
    if not looks_like_host(stem):
        return None  # ("dmesg/node07_20240305.log", "dmesg/dmesg.1")
    return _host_of_kernel_name(f"dmesg-{name}")


# a kernel log saved under its node's name: "kern.log.node89", "dmesg.gpu-node-07", "syslog.ip-10-0-0-1"
_KERNEL_FILE = re.compile(r"^(?:kern\.log|dmesg|syslog|messages|kmsg|journal|journalctl)\.", re.IGNORECASE)
# an object file ("messages.o" in a build tree) is no kernel log; a text job file may end so (it is
# read, when nothing else is, once its bytes say it is text)
_OBJECT_SUFFIXES = {".o"}
_NOT_LOG_SUFFIXES = {".py", ".sh", ".c", ".h", ".cc", ".cpp", ".cu", ".yaml", ".yml", ".toml", ".md", ".html",
                     ".png", ".jpg", ".pdf", ".so", ".pyc", ".tar", ".zip", ".xz", ".bz2", ".zst"}


# a rotation number (".1"), or PBS / Grid Engine's job output and error files ("train.o123456",
# "train.e123456")
_NUMBERED_SUFFIX = re.compile(r"^\.[oe]?\d+$")
# what a folder of no log-named files may hold as its log: notes and pages that quote one
_NOTES_SUFFIXES = {".md", ".markdown", ".rst", ".text", ".adoc", ".org"}


def _text_log(path: Path, name: str, parts: tuple[str, ...], display: str, size: int,
              compressed: bool = False) -> LogFile:
    """A text log: a kernel log by its name or its first lines, else a rank log (its rank from
    its name unless its lines say it holds several ranks), its node from its folders and lines."""
    head, tail = _read_head_tail(path, compressed)
    ends = _ends(head, tail)
    named = hosts_named(ends)
    node, node_from = _node_of_file(path, _node_from_dirs(parts), named)
    if (_KERNEL_NAME.search(name) and not _program_journal(head)) or _looks_like_kernel(head):
        if node is None and not (named[0] | named[1]) and (host := _host_of_kernel_name(name)) is not None:
            node, node_from = host, "file"  # "dmesg-node07.txt", "kern.log.gpu-3": a collection script's name
        elif node is None and not (named[0] | named[1]) and (host := _host_in_kernel_folder(name, parts)) is not None:
            node, node_from = host, "file"  # "dmesg/node07.log": the folder says what, the name whose
        return LogFile(path, display, FileKind.KERNEL, None, None, node, None, size, compressed=compressed,
                       node_from=node_from)
    if node is None and (described := _described_pod(ends)) is not None:
        # "kubectl describe pod": its events and its containers' last state (OOMKilled) are the
        # pod's, the node its logs are read under
        node, node_from = described, "pod"
    pod = _cri_pod(name, parts)
    if pod is not None:  # a container's log kept by the kubelet: its name counts restarts, not ranks;
        # the rank is the one every torchrun prefix in it names, when they name one (a pod of one
        # rank); its node the pod's name (the host name inside it) unless its lines name one
        rank = _one_line_rank(ends)
        if node is None and not named[0] | named[1]:
            node, node_from = pod, "pod"
    else:
        worker = _PADDLE_WORKERLOG.fullmatch(name)
        if worker is not None and not _not_one_rank(name, ends, named[0] | named[1]):
            # PaddlePaddle's launcher: <log_dir>/workerlog.N, the output of the node's N-th worker (its
            # local rank: the global one on a single node, else through the node's other lines)
            return LogFile(path, display, FileKind.RANK_LOG, None, int(worker[1]), node, None, size,
                           compressed=compressed, node_from=node_from)
        tool_host = _host_of_kernel_name(name, _TOOL_NAME_HOST)
        if tool_host is not None and _NOT_A_TOOL_HOST.search(tool_host):
            tool_host = None  # ("slurm-4521377_nvidia-smi.txt", "llama3-8b-nvidia-smi.log": a job's, a model's)
        if tool_host is not None and not (_PTJ_MASTER.search(name) or _PTJ_WORKER.search(name)):
            # a node's report ("nvidia-smi_node07.txt"): the node's, no rank's (a Kubeflow pod's
            # report, "..._job-master-0.txt", is its one rank's: read below as the pod's logs are)
            if node is None and not named[0] | named[1]:
                node, node_from = tool_host, "file"
            return LogFile(path, display, FileKind.RANK_LOG, None, None, node, None, size, compressed=compressed,
                           node_from=node_from)
        rank = _rank_from_name(name)
        if rank is None and parts and (folder := _RANK_DIR.match(parts[-1])) is not None:
            rank = int(folder[1])  # Open MPI's --output-filename: <dir>/1/rank.3/stdout
        if rank is not None and _not_one_rank(name, ends, named[0] | named[1], rank):
            rank = None
    return LogFile(path, display, FileKind.RANK_LOG, rank, None, node, None, size, compressed=compressed,
                   node_from=node_from)


_PADDLE_WORKERLOG = re.compile(r"workerlog\.(\d{1,4})")


# the kubelet's container logs: /var/log/pods/<namespace>_<pod>_<uid>/<container>/<restarts>.log
# (rotated: 0.log.20260301-101500, compressed .gz) and their links in /var/log/containers,
# <pod>_<namespace>_<container>-<64 hex>.log
_CRI_POD_DIR = re.compile(r"^[a-z0-9]([a-z0-9-]{0,62})_(?P<pod>[a-z0-9]([a-z0-9.-]{0,252}))_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_CRI_RESTARTS = re.compile(r"^\d{1,4}\.log(?:\.\d{8}-\d{6})?$")
_CRI_CONTAINER_LINK = re.compile(r"^(?P<pod>[a-z0-9][a-z0-9.-]{0,252})_[a-z0-9][a-z0-9-]{0,62}_[a-z0-9][a-z0-9-]{0,62}-[0-9a-f]{64}\.log$")


_DESCRIBE_NAME = re.compile(r"Name:\s{1,40}(?P<pod>[a-z0-9][a-z0-9.-]{0,252})\s*$")
_DESCRIBE_FIELD = re.compile(r"(?:Namespace|Node):\s{1,40}\S")


def _described_pod(lines: list[str]) -> str | None:
    """The pod ``kubectl describe pod`` describes, when a file opens with its header ("Name:",
    then "Namespace:" and "Node:" among the next lines)."""
    head = lines[:12]
    for i, line in enumerate(head):
        m = _DESCRIBE_NAME.match(line.rstrip("\r"))
        if m is not None:
            if sum(1 for later in head[i + 1:] if _DESCRIBE_FIELD.match(later)) >= 2:
                return m["pod"]
            return None
    return None


def _cri_pod(name: str, parts: tuple[str, ...]) -> str | None:
    """The pod whose container log this is, when the path is the kubelet's."""
    if len(parts) >= 2 and _CRI_RESTARTS.match(name):
        m = _CRI_POD_DIR.match(parts[-2])
        if m:
            return m["pod"]
    m = _CRI_CONTAINER_LINK.match(name)
    return m["pod"] if m else None


def _one_line_rank(lines: list[str]) -> int | None:
    """The rank every ``[rankN]:`` prefix of a file's first and last lines names, when they name
    one and at least twice (torchrun's own prefix on a rank's output). Only for a file known to
    be one process's output: a paste of a job's output often prefixes one rank's lines and not
    the others'."""
    seen = Counter(_LINE_RANK.findall("\n".join(lines)))
    if len(seen) == 1:
        value, count = next(iter(seen.items()))
        if count >= 2:
            return int(value)
    return None


def _classify_compressed(path: Path, name: str, parts: tuple[str, ...], display: str, size: int) -> LogFile | None:
    """A gzip-compressed log (``name``: the name it had before): a rank or kernel log as its
    plain twin would be (a name with a text suffix or a rotation number, or a kernel log's name)."""
    suffix = Path(name).suffix.lower()
    if suffix not in _TEXT_SUFFIXES and not re.match(r"\.\d+$", suffix) and not _KERNEL_NAME.search(name):
        return None
    try:
        with open_regular(path) as fh:
            gz = compressed_head(fh.read(6))  # (a plain log named .gz is read as it is)
    except OSError:
        gz = True  # reading it will say why not
    return _text_log(path, name, parts, display, size, compressed=gz)


_LINE_RANK = re.compile(r"^[^\[\n]{0,40}\[(?:rank|default)(\d{1,7})\]:", re.M)  # also behind a collector's stamp
# srun --label's "12: " and Open MPI's "[1,12]<stderr>:" before a line: the task that printed it
_LINE_TASK = re.compile(r"^(?: {0,6}(\d{1,6}): |\[\d{1,6},(\d{1,6})\]<std(?:out|err)>:)", re.M)


# a launcher's own lines (DeepSpeed's launch.py, torchrun's agent): the file is a node's launcher
# log, whatever number its name ends in
# (torchrun's own lines: its logger's names, or since torch 2.2 glog's source paths,
# "W0605 08:32:50.547000 386933 torch/distributed/run.py:779] Setting OMP_NUM_THREADS ...")
_LAUNCHER_LINE = re.compile(r"\[launch\.py:\d+:(?:main|sigkill_handler)\]|torch\.distributed\.elastic\.agent|torch\.distributed\.run:"
                            r"|torch/distributed/(?:run\.py|elastic/(?:agent|multiprocessing)/[a-z_/]{1,60}\.py):[0-9]{1,5}\]")


def _not_one_rank(name: str, lines: list[str], hosts: set[str], rank: int | None = None) -> bool:
    """Whether a file whose name ends in a number is not that rank's log: its lines carry the
    prefixes of several ranks (a node's or a job's combined log) or a launcher's own lines, or
    the name is one of ``hosts``, those its lines name ("node-31.log" holding node-31's NCCL lines)."""
    text = "\n".join(lines)
    if len(set(_LINE_RANK.findall(text))) >= 2 or _LAUNCHER_LINE.search(text):
        return True
    if "rank" in text:
        logged = {r for line in lines if "rank" in line and (r := logger_rank(line)) is not None}
        if len(logged) >= 2 and rank not in logged:
            # a logger's rank field names several ranks, none of them the name's ("| INFO | rank 12 |"
            # in "<job>-worker-0.log"): a pod's or a node's log (rank 0's own log may print a line
            # for every rank, timings it gathered: its name's rank is among them)
            return True
    seen = Counter(a or b for a, b in _LINE_TASK.findall(text))
    if sum(1 for n in seen.values() if n >= 2) >= 2:  # a job's output with every task's lines (a
        return True  # backtrace's numbered frames, "0: ...", "1: ...", appear once each)
    stem = name.rsplit(".", 1)[0]
    if not looks_like_host(stem) or not any(c.isalpha() for c in stem):
        return False
    low = stem.lower()
    return any(same_host(stem, h) or (len(h) >= 3 and low.endswith(h.lower())) for h in hosts)


def _vetted(item: LogFile) -> LogFile:
    try:
        st = item.path.stat()
    except OSError:
        return item  # gone already: reading it will say so
    return replace(item, ident=(st.st_dev, st.st_ino))


# Kubeflow's PyTorchJob names its pods <job>-master-0 and <job>-worker-N: with a master, worker N
# runs rank N + 1 (one process a pod; a pod of several ranks prints their prefixes instead)
_PTJ_MASTER = re.compile(r"(?:^|[-_.])master[-_]0\.(?:log|txt|out)$", re.I)
_PTJ_WORKER = re.compile(r"(?:^|[-_.])worker[-_](\d{1,6})\.(?:log|txt|out)$", re.I)


# what a worker pod's own files say its rank is: its environment in "kubectl describe pod" ("RANK:
# 26"), a training script's "distributed init (rank 26)"
_STATED_RANK = re.compile(rb"^\s{0,12}RANK:\s{1,40}(\d{1,6})\s*$|distributed init \(rank (\d{1,6})\)", re.MULTILINE)
_STATED_LOOKS = 4  # worker files read for a stated rank, at most


def _stated_shift(found: list[LogFile]) -> int | None:
    """The difference between a worker pod's rank, as its own files state it, and its number
    (1: Kubeflow's numbering beside a master, 0: the numbers are ranks), from the first worker
    files that state one; None where none does."""
    looked = 0
    for f in found:
        m = _PTJ_WORKER.search(f.path.name)
        if f.kind is not FileKind.RANK_LOG or m is None or f.compressed:
            continue
        looked += 1
        try:
            with f.path.open("rb") as fh:
                head = fh.read(HEAD_BYTES)
        except OSError:
            continue
        said = _STATED_RANK.search(head)
        if said is not None:
            shift = int(said[1] or said[2]) - int(m[1])
            return shift if shift in (0, 1) else None
        if looked >= _STATED_LOOKS:
            break
    return None


def _pytorchjob_ranks(found: list[LogFile]) -> list[LogFile]:
    masters = [f for f in found if f.kind is FileKind.RANK_LOG and _PTJ_MASTER.search(f.path.name)]
    if len(masters) != 1:
        return found
    workers = {int(m[1]) for f in found if f.kind is FileKind.RANK_LOG and (m := _PTJ_WORKER.search(f.path.name))}
    stated = _stated_shift(found)
    if stated == 0 or (stated is None and 0 not in workers):
        # (workers numbered from 1 beside the master, or a worker's own lines naming its number as
        # its rank: the numbers are ranks already; a partial attachment lacks worker 0 and says
        # so where a worker's lines or its pod's environment name its rank)
        return found
    # (the master's own name already gives it rank 0, unless its lines showed several ranks)
    out = []
    for f in found:
        if f.kind is FileKind.RANK_LOG and (m := _PTJ_WORKER.search(f.path.name)) and f.rank == int(m[1]):
            f = replace(f, rank=int(m[1]) + 1)
        out.append(f)
    return out


def _first_of_ranked_siblings(found: list[LogFile]) -> list[LogFile]:
    """``found`` with a file whose siblings are its name with ".rankN" after it (detectron2's
    and fvcore's log.txt beside log.txt.rank1 ... for the other ranks) given rank 0, the rank
    whose output the bare name holds, where its lines did not say otherwise."""
    names = {(f.path.parent, f.path.name) for f in found}
    out = []
    for f in found:
        if (f.kind is FileKind.RANK_LOG and f.rank is None and f.local_rank is None
                and (f.path.parent, f.path.name + ".rank1") in names):
            f = replace(f, rank=0)
        out.append(f)
    return out


_MAX_NOTES = 64
# text that is no log even when nothing else is there (a job's configuration, a notebook, a lock file)
_NOT_TEXT_LOGS = {".json", ".ipynb", ".cfg", ".ini", ".conf", ".js", ".css", ".xml", ".lock", ".csv", ".tsv", ".env"}


_FENCE = re.compile(rb"^ {0,3}(?:```|~~~)", re.MULTILINE)


def _notebook_printed(path: Path) -> bool:
    """A Jupyter notebook whose cells' outputs show a training run (read as its log): lines of
    training progress, many of them or a few beside lines of distributed training (ranks'
    prefixes, NCCL's, a launcher's). Not one that plotted a run's curves, checked the environment
    or loaded a checkpoint to look at it: its errors are no job's."""
    try:
        fh, _st, note = open_log(path, False)
        with fh:
            text = fh.read(NOTEBOOK_MAX)
    except OSError:
        return False
    if note is None or not note.startswith("a Jupyter notebook"):
        return False
    steps = sum(1 for _ in itertools.islice(_TRAINING_STEP.finditer(text), NOTEBOOK_STEPS))
    return steps >= NOTEBOOK_STEPS or (steps >= NOTEBOOK_RUN_STEPS and _DISTRIBUTED_WORDS.search(text) is not None)


# what a notebook's outputs show of a distributed run: a rank's prefix, NCCL's lines, the process
# group's, a launcher's (torchrun's, accelerate's notebook_launcher); not a checkpoint's arguments
# printed ("world_size=4") or DeepSpeed's zero_to_fp32 run on it
_DISTRIBUTED_WORDS = re.compile(rb"\[rank ?[0-9]|\[default[0-9]|\bNCCL (?:INFO|WARN)\b|ProcessGroupNCCL"
                                rb"|\btorchrun\b|notebook_launcher|Launching training on [0-9]|ChildFailedError")
_TRAINING_STEP = re.compile(rb"(?i)\b(?:step|iter(?:ation)?|epoch)\b\s{0,3}[:=#]?\s{0,3}\[?\s{0,3}[0-9]")
NOTEBOOK_STEPS = 20  # lines of training progress in a notebook's outputs that make it a run's log
NOTEBOOK_RUN_STEPS = 3  # and how many, at least, beside the lines of a distributed run


def _quotes_a_log(path: Path) -> bool:
    """A note (Markdown and the like) with a fenced code block in its first 256 KiB: where a
    thread's text or a question quotes the log it is about."""
    try:
        with open_regular(path) as fh:
            head = fh.read(256 << 10)
    except OSError:
        return False
    return _FENCE.search(head) is not None


def _looks_like_text(path: Path) -> bool:
    """The file's first 4 KiB hold text: no NUL byte, and (as UTF-8, or any 8-bit text) mostly
    printable characters and line breaks; or UTF-16 or UTF-32 (:func:`wide_encoding`: Windows
    PowerShell's ``>`` writes UTF-16 with its byte-order mark), mostly printable once decoded."""
    try:
        with open_regular(path) as fh:
            head = fh.read(4096)
    except OSError:
        return False
    wide = wide_encoding(head)
    if wide is not None:
        width = 4 if wide.startswith("utf-32") else 2
        text = head[:len(head) - len(head) % width].decode(wide, "replace")
    elif not head or b"\0" in head:
        return False
    else:
        text = head.decode("utf-8", "replace")
    if not text:
        return False
    printable = sum(1 for c in text if c.isprintable() or c in "\n\r\t")
    return printable >= 0.95 * len(text)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


# hidden folders that hold a job's own logs: submitit's (Hydra's submitit launcher writes each
# Slurm task's output to .submitit/<job>/<job>_<task>_log.out and .err); the others (.git, .hydra's
# config, caches) hold none
_HIDDEN_LOG_DIRS = frozenset({".submitit"})


_PSEUDO_ROOTS = ("/proc", "/sys")


def _pseudo_files(target: Path) -> bool:
    """``target`` (a link followed) lies in /proc or /sys, whose files report no size and some of
    which never end (/proc/PID/pagemap, /proc/kmsg)."""
    try:
        real = os.path.realpath(target)
    except (OSError, ValueError):
        return False
    return any(real == root or real.startswith(root + "/") for root in _PSEUDO_ROOTS)


def discover(target: Path, *, follow_symlinks: bool = False, archives: bool = True,
             read_notes: bool = True) -> tuple[list[LogFile], list[str]]:
    """All input files of a run (a directory, or one file), and warnings for what was skipped.

    Symbolic links are not followed out of the run directory unless ``follow_symlinks``. With
    ``archives``, the files of the tar and zip archives among them are read too, under the
    archive's name (:mod:`detector.sources.archives`; an archive's own archives are not).
    Without ``read_notes``, text that is no log by its name (a README's quoted traceback, notes) is
    never read as one (an archive's files: a repository's code packed beside the logs).
    Raises InputError when the path is missing or holds nothing to read.
    """
    try:
        os.lstat(target)
    except PermissionError:
        raise InputError(str(target), "permission denied (a folder on its path may not be entered)") from None
    except OSError:
        raise InputError(str(target), "no such file or directory") from None
    if target.is_dir():
        try:
            with os.scandir(target):
                pass
        except PermissionError:
            raise InputError(str(target), "cannot read this folder: permission denied") from None
        except OSError:
            pass  # (the walk says what it cannot read, and skips it)
    if _pseudo_files(target):
        raise InputError(str(target), "a kernel pseudo-filesystem (/proc, /sys), not a run's logs: its files never end "
                                      "(copy the log out first, e.g. dmesg > dmesg.txt)")
    warnings: list[str] = []
    if target.is_file() and archives and is_archive_name(target.name):
        unpacked, said = _archives_files([target], target.parent, Budget())
        if not unpacked:
            raise InputError(str(target), "an archive with no log among its files" + (
                f" ({'; '.join(said[:3])})" if said else ""))
        return unpacked, said
    if target.is_file():
        item = classify(target, target.parent)
        if item is None:
            item = LogFile(target, target.name, FileKind.RANK_LOG, _rank_from_name(target.name), size=target.stat().st_size)
        return [_vetted(item)], warnings
    if not target.is_dir():
        raise InputError(str(target), "not a regular file or directory")
    root = target.resolve()
    found: list[LogFile] = []
    notes: list[Path] = []  # .md and the like: read only when nothing else is a log
    others: list[Path] = []  # text files of other names: read only when neither logs nor notes are there
    seen_dirs: set[tuple[int, int]] = set()  # (device, inode) of the folders walked: links in a loop are walked once
    packed_logs: list[Path] = []  # tar and zip archives: their files are read too
    def unreadable(exc: OSError) -> None:  # a folder os.walk could not list: said, not skipped silently
        where = os.path.relpath(exc.filename, target) if exc.filename else "."
        warnings.append(f"{where}: folder not read ({exc.strerror or exc}), its logs are left out")

    def too_deep(folder: str) -> None:
        warnings.append(f"{shortened(os.path.relpath(folder, target))}: folders nested deeper than {MAX_DEPTH} "
                        "levels, those below not read")

    for dirpath, dirnames, filenames in walk(target, followlinks=follow_symlinks, onerror=unreadable,
                                             too_deep=too_deep):
        if follow_symlinks:
            try:
                st = os.stat(dirpath)
            except OSError:
                continue
            if (st.st_dev, st.st_ino) in seen_dirs:
                warnings.append(f"{Path(dirpath).relative_to(target)}: a folder already read (symbolic links in a loop), skipped")
                dirnames[:] = []
                continue
            seen_dirs.add((st.st_dev, st.st_ino))
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") or d in _HIDDEN_LOG_DIRS)
        for fname in sorted(filenames):
            path = Path(dirpath) / fname
            rel = path.relative_to(target)
            if path.is_symlink() and not follow_symlinks:
                try:
                    real = path.resolve(strict=True)
                except (OSError, RuntimeError):  # RuntimeError: links in a loop (Python < 3.13)
                    warnings.append(f"{rel}: broken symbolic link, skipped")
                    continue
                if root not in real.parents:
                    warnings.append(f"{rel}: symbolic link out of the run directory, not followed (use --follow-symlinks)")
                    continue
            if not path.is_file():
                if not fname.startswith("."):
                    warnings.append(f"{rel}: not a regular file, skipped")
                continue
            if not os.access(path, os.R_OK):
                warnings.append(f"{rel}: not readable (permission denied), skipped")
                continue
            item = classify(path, target)
            if item is not None:
                found.append(_vetted(item))
            elif archives and is_archive_name(fname):
                packed_logs.append(path)
            elif (packed := _unsupported_name(fname)) is not None:
                warnings.append(f"{rel}: {packed}, skipped")
            elif path.suffix.lower() in _NOTES_SUFFIXES and fname not in _SKIP_NAMES:
                notes.append(path)
            elif (fname not in _SKIP_NAMES and path.suffix.lower() not in _NOT_LOG_SUFFIXES | _NOT_TEXT_LOGS
                  and len(others) < _MAX_NOTES and _looks_like_text(path)):
                others.append(path)  # a forwarded e-mail (.eml), an export with a name of its own
    if packed_logs:
        unpacked, said = _archives_files(packed_logs, target, Budget())
        found += unpacked
        warnings += said
    if not read_notes:
        notes, others = [], []
    if not found and not notes and others:  # nothing else: text files of any other name are read
        notes = others
    quoting = [p for p in notes if _quotes_a_log(p)] if found else []
    if quoting:  # beside the logs, a note whose code blocks quote one (an issue's text, a question)
        found += [_vetted(_text_log(p, p.name, p.relative_to(target).parts[:-1], str(p.relative_to(target)),
                                    _size(p))) for p in quoting[:_MAX_NOTES]]
        shown = ", ".join(str(p.relative_to(target)) for p in quoting[:3]) + (", ..." if len(quoting) > 3 else "")
        warnings.append(f"read {shown} as log text too (Markdown code blocks beside the logs)")
    if not found and notes:  # nothing with a log's name: the notes that quote the log are read as logs
        found = [_vetted(_text_log(p, p.name, p.relative_to(target).parts[:-1], str(p.relative_to(target)),
                                   _size(p))) for p in notes[:_MAX_NOTES]]
        shown = ", ".join(str(p.relative_to(target)) for p in notes[:3]) + (", ..." if len(notes) > 3 else "")
        warnings.append(f"no file has a log's name: read {shown} as log text"
                        + (f" (the first {_MAX_NOTES} of {len(notes)})" if len(notes) > _MAX_NOTES else ""))
    found = _first_of_ranked_siblings(_pytorchjob_ranks(_without_copies(found, warnings)))
    if not found:
        skipped = f"; left out: {'; '.join(warnings[:5])}" + (" ..." if len(warnings) > 5 else "") if warnings else ""
        raise InputError(str(target), "no log files found (looked for *.log, *.out, *.err, *.txt, *.jsonl, PBS's *.o<job>, kernel logs, torchrun log dirs, Jupyter notebooks, parts saved as *.out.tail or *.log.head, those gzip-, bzip2- or xz-compressed, and inside tar and zip archives; *.md, then any text file, when nothing else)" + skipped)
    return found, warnings


COPY_MIN_BYTES = 256  # a file this small is no copy worth telling apart (an exit code, a hostfile)
_COPY_PROBE = 4096  # bytes of each end compared before a whole file is


def _without_copies(found: list[LogFile], warnings: list[str]) -> list[LogFile]:
    """``found`` with each byte-for-byte copy of another file left out (a log attached twice, "train
    (copy).log", a folder and its backup): read twice, its steps would seem to stand still and its
    evidence count double. Of the copies, the file with the shortest name (then the first by name)
    is read; files read under different nodes or ranks are no copies (:func:`_same_source`). Only
    files of one size are compared, their ends first, and only those whose ends agree are read
    whole: a run's distinct logs cost a stat each, or two short reads."""
    by_size: dict[int, list[LogFile]] = {}
    for f in found:
        if f.size >= COPY_MIN_BYTES:
            by_size.setdefault(f.size, []).append(f)
    dropped: set[int] = set()
    for same in by_size.values():
        if len(same) < 2:
            continue
        by_ends: dict[bytes, list[LogFile]] = {}
        for f in same:
            ends = _file_ends(f)
            if ends is not None:
                by_ends.setdefault(ends, []).append(f)
        for alike in by_ends.values():
            if len(alike) < 2:
                continue
            by_digest: dict[str, list[LogFile]] = {}
            for f in alike:
                digest = _file_digest(f) if f.size > 2 * _COPY_PROBE else ""
                if digest is not None:
                    by_digest.setdefault(digest, []).append(f)
            for copies in by_digest.values():
                if len(copies) < 2:
                    continue
                keep = min(copies, key=lambda f: (len(f.display), f.display))
                for f in copies:
                    if f is not keep and _same_source(f, keep):
                        dropped.add(id(f))
                        warnings.append(f"{f.display}: the same bytes as {keep.display}, read once")
    return [f for f in found if id(f) not in dropped] if dropped else found


def _same_source(a: LogFile, b: LogFile) -> bool:
    """Whether two files of the same bytes may be one log's copies: of one kind, and no node or
    rank that one is read under differs from the other's (two nodes' logs that happen to say the
    same are both read: each says its node ran), nor the torchrun attempt."""
    return (a.kind is b.kind and (a.node is None or b.node is None or same_host(a.node, b.node))
            and (a.rank is None or b.rank is None or a.rank == b.rank)
            # (torchrun's restart of a worker that fails the same way again writes the same bytes
            # into the next attempt's folder: two attempts, each read)
            and (a.attempt is None or b.attempt is None or a.attempt == b.attempt)
            and (a.local_rank is None or b.local_rank is None or a.local_rank == b.local_rank))


def _file_ends(f: LogFile) -> bytes | None:
    """The first and last :data:`_COPY_PROBE` bytes of a file (the whole of a small one)."""
    try:
        with open(f.path, "rb") as fh:
            head = fh.read(_COPY_PROBE)
            if f.size <= 2 * _COPY_PROBE:
                return head + fh.read()
            fh.seek(f.size - _COPY_PROBE)
            return head + fh.read(_COPY_PROBE)
    except OSError:
        return None


def _file_digest(f: LogFile) -> str | None:
    """A hash of a file's bytes, read in blocks."""
    h = hashlib.sha1(usedforsecurity=False)
    try:
        with open(f.path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    except OSError:
        return None
    return h.hexdigest()


def _archives_files(paths: list[Path], target: Path, budget: Budget) -> tuple[list[LogFile], list[str]]:
    """The log files of the archives ``paths`` (of the run at ``target``), each unpacked into a
    folder of its own named as the archive without its suffixes (a node's name, "node07.tar.gz",
    is read from it as from a folder), shown under the archive's name; and what was said."""
    found: list[LogFile] = []
    warnings: list[str] = []
    scratch = scratch_folder()
    for i, path in enumerate(paths):
        rel = str(path.relative_to(target)) if path != target else path.name
        where = scratch / str(i) / stem(path.name)
        notes = unpack(path, where, budget)
        warnings += [f"{rel}: {note}" for note in notes]
        if not where.is_dir():
            if not notes:
                warnings.append(f"{rel}: an archive with no file in it to read")
            continue
        try:
            inner, said = discover(where.parent, archives=False, read_notes=False)
        except InputError:
            warnings.append(f"{rel}: an archive with no log among its files")
            continue
        for f in inner:
            rest = f.display.replace("\\", "/").split("/", 1)
            found.append(replace(f, display=f"{rel}/{rest[1] if len(rest) > 1 else rest[0]}"))
        warnings += [f"{rel}: {w}" for w in said]
    return found, warnings


# what a log compressed in a format not read here, or packed in an archive, is named
_UNSUPPORTED_SUFFIX = {".zst": "zstd", ".lz4": "lz4", ".7z": "7z"}
_ARCHIVE_NAME = re.compile(r"\.(?:tar(?:\.(?:gz|xz|bz2|zst))?|tgz|txz|tbz2)$", re.I)


def _unsupported_name(name: str) -> str | None:
    """Why a file skipped for its name was not read, when that name says a log compressed in a
    format not read here (``rank3.log.xz``, ``kern.log.2.bz2``) or an archive (``logs.tar.gz``)."""
    m = _ARCHIVE_NAME.search(name)
    if m:
        packed = m[0][1:].lower()
        return "an archive (tar)" if packed == "tar" else f"compressed with an unsupported format ({packed})"
    stem, dot, suffix = name.rpartition(".")
    fmt = _UNSUPPORTED_SUFFIX.get(f".{suffix.lower()}") if dot else None
    if fmt is None:
        return None
    inner = Path(stem).suffix.lower()
    if inner in _TEXT_SUFFIXES or _NUMBERED_SUFFIX.match(inner) or _KERNEL_NAME.search(stem):
        return f"compressed with an unsupported format ({fmt})"
    return None
