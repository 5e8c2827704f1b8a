"""Rank processes on this host (or in a pod's shared process namespace), from ``/proc``.

A process is a rank when its environment has ``RANK`` and ``LOCAL_RANK`` (torchrun, and most
launchers, set them); it is this job's when ``TORCHELASTIC_ERROR_FILE`` (its torchrun log
folder) lies under a followed folder — which also ties it to its log file and tells sidecars
of two "nodes" on one host apart — or when its standard output or error, or its launcher's, is
a followed file (``torchrun train.py > console.log``; ``python train.py > rank1.log``), or, for
other launchers, when its environment has every ``processes.match_env`` pair (e.g.
``SLURM_JOB_ID``). New
processes are discovered every ``discover_s``; known ones are checked every ``poll_s``.

A rank whose process vanished while its peers live is initiator-grade evidence (``process.exited``):
its cause is unknown until a line or the launcher's exit code says more, unless the sidecar
caught the zombie and read its exit status. Ranks that exit after another rank of the same
attempt are collateral; ranks that all exit at once look like the end of the job (context).

A process seen younger than ``YOUNG_S`` that is not (yet) a rank is looked at again at the next
discovery instead of being remembered as not one: between its launcher's fork and its exec, a
rank's ``/proc/PID/environ`` is still the launcher's (no ``RANK``), and a busy host can catch it
there; remembered, it would stay unseen for ``IGNORED_REFRESH`` discoveries, and a hang in that
time would be reported without the stalled rank's process.

A process forked by a rank without a new program (a DataLoader worker, a multiprocessing
helper) inherits the rank's environment; it is not a rank: a process whose parent has the same
``RANK`` / ``LOCAL_RANK`` and runs the same executable is left out.

As the engine's hang discriminator (:meth:`ProcessWatcher.suspects`), when the stall rule fires
it asks the :class:`~detector.sidecar.sources.stacks.StackSampler` (py-spy stacks: where each
main thread is, and who is not where its peers are); when py-spy is missing or ptrace is refused
it falls back to :func:`odd_ones` over the ``/proc/PID/wchan`` wait states: when every rank
stopped at the same step, the rank whose main thread waits somewhere else than its peers' stopped
first.
"""

from __future__ import annotations

import fnmatch
import os
import signal
import time as _time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from detector.sidecar.config import ProcessConfig
from detector.sidecar.gate import EXIT_RULE
from detector.sidecar.model import Inbox, LiveFindings, Processes, Suspect
from detector.sidecar.sources.stacks import StackSampler
from detector.support.numbers import small_int
from detector.types import Cause, Finding, RankProcess, Role, Severity

CASCADE_S = 60.0
SAMPLES = 5  # of each rank's wait state; the one a majority of them shows is the rank's
SAMPLE_GAP_S = 0.05
STACKS_FRESH_S = 10.0  # signatures() reuses the last stack snapshot for this long
IGNORED_REFRESH = 15  # every this many discoveries, processes known not to be ranks are looked at again
YOUNG_S = 5.0  # a process younger than this is not yet remembered as not a rank (see _discover)
YOUNG_TICKS_MAX = 10 * 100  # (YOUNG_S plus slack, in clock ticks at USER_HZ 100)


@dataclass(frozen=True, slots=True)
class ProcStat:
    state: str
    start_ticks: int
    exit_code: int | None  # waitpid-style status; only meaningful for a zombie
    ppid: int = 0


def read_stat(proc_root: Path, pid: int) -> ProcStat | None:
    """``/proc/PID/stat``: state, start time, exit code (Linux 3.5+); None when gone."""
    try:
        text = (proc_root / str(pid) / "stat").read_text()
    except (OSError, ValueError):
        return None
    end = text.rfind(")")
    fields = text[end + 2 :].split()
    if len(fields) < 20:
        return None
    try:
        start = int(fields[19])
        exit_code = int(fields[49]) if len(fields) > 49 else None
        ppid = int(fields[1])
    except ValueError:
        return None
    return ProcStat(fields[0], start, exit_code, ppid)


def read_environ(proc_root: Path, pid: int) -> dict[str, str] | None:
    try:
        raw = (proc_root / str(pid) / "environ").read_bytes()
    except OSError:
        return None
    out: dict[str, str] = {}
    for item in raw.split(b"\0"):
        key, sep, value = item.partition(b"=")
        if sep:
            out[key.decode("utf-8", "replace")] = value.decode("utf-8", "replace")
    return out


def rank_process(env: Mapping[str, str], pid: int, start_ticks: int, node: str | None) -> RankProcess | None:
    rank = small_int(env.get("RANK"))
    local = small_int(env.get("LOCAL_RANK"))
    if rank is None or local is None:
        return None
    attempt = small_int(env.get("TORCHELASTIC_RESTART_COUNT") or env.get("SLURM_RESTART_COUNT"))
    error_file = env.get("TORCHELASTIC_ERROR_FILE")
    log_dir = str(Path(error_file).parent) if error_file else None
    return RankProcess(rank, local, pid, attempt, node, log_dir, start_ticks)


def _exe(proc_root: Path, pid: int) -> str | None:
    try:
        return os.readlink(proc_root / str(pid) / "exe")
    except OSError:
        return None


def forked_helper(proc_root: Path, pid: int, ppid: int, env: Mapping[str, str]) -> bool:
    """A child of a rank that did not start a new program (a DataLoader worker): its parent has
    the same RANK and LOCAL_RANK and runs the same executable (or neither can be read)."""
    if ppid <= 1:
        return False
    parent = read_environ(proc_root, ppid)
    if parent is None or parent.get("RANK") != env.get("RANK") or parent.get("LOCAL_RANK") != env.get("LOCAL_RANK"):
        return False
    return _exe(proc_root, pid) == _exe(proc_root, ppid)


def describe_exit(status: int | None) -> tuple[int | None, str | None]:
    """waitpid status -> (torchelastic-style exit code: -N for signal N, signal name)."""
    if status is None:
        return None, None
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        return -sig, name
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status), None
    return None, None


def wait_signature(proc_root: Path, pid: int) -> str | None:
    """Where a process's main thread waits: its wchan, else its current syscall, else its state."""
    stat = read_stat(proc_root, pid)
    if stat is None:
        return None
    if stat.state == "R":
        return "running"
    try:
        wchan = (proc_root / str(pid) / "wchan").read_text().strip()
    except OSError:
        wchan = ""
    if wchan and wchan != "0":
        return wchan
    try:
        syscall = (proc_root / str(pid) / "syscall").read_text().split()
    except OSError:
        syscall = []
    if syscall and syscall[0].lstrip("-").isdigit():
        return f"syscall {syscall[0]}"
    return f"state {stat.state}"


def odd_ones(signatures: Mapping[int, str]) -> list[int]:
    """Ranks that wait somewhere else than a clear majority of their peers, or []."""
    n = len(signatures)
    if n < 3:
        return []
    common, count = Counter(signatures.values()).most_common(1)[0]
    if count < 2 or count * 2 <= n:
        return []
    odd = sorted(r for r, s in signatures.items() if s != common)
    if not odd or len(odd) > max(1, n // 4):
        return []
    return odd


def fixed_prefix(spec: str) -> Path:
    """A --logs argument without its glob part: the folder its files are under."""
    parts = Path(spec).parts
    for i, part in enumerate(parts):
        if any(c in part for c in "*?["):
            return Path(*parts[:i]) if i else Path(".")
    return Path(spec)


def _absolute_spec(spec: str) -> str:
    """A --logs argument as an absolute path (its links resolved up to its glob part), for
    comparing with the targets of /proc/PID/fd."""
    head = fixed_prefix(spec)
    rest = Path(spec).parts[len(head.parts):]
    try:
        base = str(head.resolve())
    except (OSError, RuntimeError):
        base = os.path.abspath(head)
    return os.path.join(base, *rest) if rest else base


class ProcessWatcher:
    name = "processes"

    def __init__(self, config: ProcessConfig, *, node: str | None, log_roots: Sequence[Path | str] = (),
                 sleep: Callable[[float], None] = _time.sleep, stacks: StackSampler | None = None,
                 clock: Callable[[], float] = _time.monotonic) -> None:
        """``log_roots``: what --logs named (folders, files, globs)."""
        self._cfg = config
        self._stacks = stacks
        self._clock = clock
        self._node = node
        self._roots = [str(fixed_prefix(str(p)).resolve()) for p in log_roots]
        # an output file is followed when a --logs argument takes it (a glob's folder is no
        # followed folder: "logs/expA*.log" is not "logs/expB.log")
        self._specs = [_absolute_spec(str(p)) for p in log_roots]
        self._sleep = sleep
        self._inbox: Inbox | None = None
        self._tracked: dict[int, RankProcess] = {}
        self._ignored: dict[int, int] = {}  # pid -> start ticks of processes that are not ranks
        self._exits: dict[int | None, float] = {}  # attempt -> time of its first exit
        self._next_discover = 0.0
        self._next_check = 0.0
        self._discoveries = 0

    def start(self, inbox: Inbox) -> None:
        if not self._cfg.proc_root.is_dir():
            raise OSError(f"{self._cfg.proc_root} is not readable: rank processes are not watched")
        self._inbox = inbox

    def close(self) -> None:
        self._tracked.clear()

    @property
    def alive(self) -> tuple[RankProcess, ...]:
        return tuple(self._tracked.values())

    def poll(self, now: float) -> None:
        changed = False
        if now >= self._next_check:
            self._next_check = now + self._cfg.poll_s
            changed = self._check(now)
        if now >= self._next_discover:
            self._next_discover = now + self._cfg.discover_s
            changed = self._discover() or changed
        if changed and self._inbox is not None:
            self._inbox.put(Processes(self.alive))

    def _wanted(self, env: Mapping[str, str], pid: int | None = None, ppid: int | None = None) -> bool:
        """This job's rank: its torchrun log folder is under a followed folder, or (launchers
        without torchrun, e.g. srun) its environment has every ``match_env`` pair, or its output
        (or its launcher's: torchrun's ``--tee``) goes to a followed file (``torchrun train.py >
        console.log`` without ``--log-dir``; ranks started one by one, ``python train.py >
        rank1.log``). Other rank processes on the host (another job, another simulated node) are
        not ours."""
        for key, value in self._cfg.match_env:
            if env.get(key) != value:
                return False
        error_file = env.get("TORCHELASTIC_ERROR_FILE")
        if error_file and self._roots and self._followed(os.path.realpath(error_file)):
            return True
        # (a log folder of its own that is not followed, torchrun's --log-dir elsewhere, is another
        # job's or another simulated node's: only torchrun's default folder, a temporary
        # "torchelastic_..." one, or none at all, lets the output decide)
        if (self._roots and pid is not None and (not error_file or "/torchelastic_" in error_file)
                and self._writes_to_followed(pid, ppid)):
            return True
        if error_file and self._roots:
            return False
        return bool(self._cfg.match_env) or not self._roots

    def _followed(self, real: str) -> bool:
        return any(real == root or real.startswith(root.rstrip("/") + "/") for root in self._roots)

    def _writes_to_followed(self, pid: int, ppid: int | None) -> bool:
        """The standard output or error of ``pid``, or of its parent ``ppid`` (the launcher that
        copies its ranks' output), is a followed file."""
        for p in (pid, ppid):
            if p is None or p <= 1:
                continue
            for fd in (1, 2):
                try:
                    target = os.readlink(self._cfg.proc_root / str(p) / "fd" / str(fd))
                except OSError:
                    continue
                if target.startswith("/") and self._output_followed(target.removesuffix(" (deleted)")):
                    return True
        return False

    def _output_followed(self, target: str) -> bool:
        for spec in self._specs:
            if any(c in spec for c in "*?["):
                if fnmatch.fnmatchcase(target, spec):
                    return True
            elif target == spec or target.startswith(spec.rstrip("/") + "/"):
                return True
        return False

    def _discover(self) -> bool:
        root = self._cfg.proc_root
        try:
            names = os.listdir(root)
        except OSError:
            return False
        found = False
        live_pids = set()
        refresh = self._discoveries % IGNORED_REFRESH == 0  # now and then, look at known pids again
        self._discoveries += 1
        young_from = self._young_from()
        for name in names:
            if not name.isdigit():
                continue
            pid = int(name)
            live_pids.add(pid)
            if pid in self._tracked or (pid in self._ignored and not refresh):
                continue
            stat = read_stat(root, pid)
            if stat is None or stat.state in ("Z", "X"):
                continue
            if self._ignored.get(pid) == stat.start_ticks:
                continue
            env = read_environ(root, pid)
            proc = rank_process(env, pid, stat.start_ticks, self._node) if env is not None else None
            if proc is None or env is None or not self._wanted(env, pid, stat.ppid) \
                    or forked_helper(root, pid, stat.ppid, env):
                if young_from is None or not young_from <= stat.start_ticks <= young_from + YOUNG_TICKS_MAX:
                    self._ignored[pid] = stat.start_ticks  # (started "after now": /proc/uptime is a container's)
                continue
            self._tracked[pid] = proc
            found = True
        self._ignored = {p: t for p, t in self._ignored.items() if p in live_pids}
        return found

    def _young_from(self) -> int | None:
        """The start time (clock ticks since boot, as in ``/proc/PID/stat``) from which a process
        is younger than ``YOUNG_S``; None when ``/proc/uptime`` cannot be read."""
        try:
            uptime = float((self._cfg.proc_root / "uptime").read_text().split()[0])
            ticks = os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return None
        return int((uptime - YOUNG_S) * ticks)  # (a process started up to YOUNG_S * ticks after it is young)

    def _check(self, now: float) -> bool:
        gone: list[tuple[RankProcess, int | None]] = []
        for pid, proc in list(self._tracked.items()):
            stat = read_stat(self._cfg.proc_root, pid)
            if stat is None or stat.start_ticks != proc.start_ticks:
                gone.append((proc, None))
            elif stat.state in ("Z", "X"):
                gone.append((proc, stat.exit_code))
        if not gone:
            return False
        for proc, _ in gone:
            self._tracked.pop(proc.pid, None)
        findings = [self._exit_finding(proc, status, now) for proc, status in gone]
        for proc, _ in gone:
            self._exits.setdefault(proc.attempt, now)
        if self._inbox is not None:
            self._inbox.put(LiveFindings(self.name, tuple(findings)))
        return True

    def _exit_finding(self, proc: RankProcess, status: int | None, now: float) -> Finding:
        code, sig = describe_exit(status)
        peers_alive = any(p.attempt == proc.attempt for p in self._tracked.values())
        first = self._exits.get(proc.attempt)
        cascade = first is not None and now - first <= CASCADE_S
        cause: Cause | None = Cause.UNKNOWN
        confidence = 0.6
        if code is not None and code == 0:
            role, cause = Role.CONTEXT, None
        elif sig in ("SIGTERM", "SIGINT", "SIGHUP") or cascade:
            role, cause = Role.COLLATERAL, None
        elif not peers_alive:
            role, cause = Role.CONTEXT, None  # every rank went at once: the logs must say why
        else:
            role = Role.INITIATOR
            if code is not None and code < 0:
                cause, confidence = Cause.CRASH_SIGNAL, 0.7 if sig == "SIGKILL" else 0.8
        detail = "exit status unknown" if code is None else (f"killed by {sig}" if sig else f"exit code {code}")
        fields: tuple[tuple[str, str], ...] = ()
        if code is not None:
            fields += (("exitcode", str(code)),)
        if sig:
            fields += (("signal", sig),)
        return Finding(
            rule=EXIT_RULE, role=role, cause=cause, severity=Severity.ERROR,
            text=f"rank {proc.rank} process {proc.pid} exited ({detail}) while "
                 + ("other ranks were still running" if peers_alive else "no other rank was left"),
            time=datetime.fromtimestamp(now, tz=UTC), rank=proc.rank, local_rank=proc.local_rank,
            node=proc.node, pid=proc.pid, fields=fields, attempt=proc.attempt, confidence=confidence,
        )

    # --- hang discriminator ---

    def suspects(self, ranks: Sequence[int]) -> list[Suspect]:
        """Among ``ranks`` (stalled), those that are not where their peers are: from the ranks'
        stacks when the sampler can take them (each a :class:`Suspect`: cause, place, stack
        excerpt), else (also when some ranks' stacks could not be taken and the others' single
        nobody out) from where their main threads wait in the kernel."""
        wanted = set(ranks)
        by_rank = {p.rank: p.pid for p in self._tracked.values() if p.rank in wanted}
        if self._stacks is not None:
            found = self._stacks.suspects(by_rank)
            last = self._stacks.last
            if found is not None and (found or last is None or not last.errors):
                return list(found)
            # no stacks, or some ranks could not be dumped (a dump timed out on a busy host) and
            # none of the others stands out: the one left out may be the one that stopped, and
            # its wait state still says where it is
        return list(self._proc_suspects(by_rank))

    def _proc_suspects(self, by_rank: Mapping[int, int]) -> list[Suspect]:
        if len(by_rank) < 3:
            return []
        seen: dict[int, Counter[str]] = {r: Counter() for r in by_rank}
        for i in range(SAMPLES):
            if i:
                self._sleep(SAMPLE_GAP_S)
            for rank, pid in by_rank.items():
                sig = wait_signature(self._cfg.proc_root, pid)
                if sig is not None:
                    seen[rank][sig] += 1
        # a rank's wait state is the one most of its samples show: a waiting thread caught awake
        # once (a timer's wake-up, a busy machine) keeps its place among its peers
        stable = {r: c.most_common(1)[0][0] for r, c in seen.items() if c and c.most_common(1)[0][1] * 2 > SAMPLES}
        odd = odd_ones(stable)
        if not odd:
            return []
        common = Counter(stable.values()).most_common(1)[0][0]
        others = sorted(r for r in stable if r not in odd)
        return [Suspect(r, f"its main thread waits in {stable[r]} while ranks "
                           f"{', '.join(map(str, others))} wait in {common}",
                        place=stable[r], basis="process_state") for r in odd]

    def signatures(self) -> dict[int, str]:
        """Each tracked rank's wait state now (exported for the coordinator): where its stack says
        it is when a snapshot was just taken, else its kernel wait channel."""
        ranks = {p.rank for p in self._tracked.values()}
        last = self._stacks.last if self._stacks is not None else None
        if last is not None and last.stacks and self._clock() - last.taken_at <= STACKS_FRESH_S:
            return {r: sig for r, sig in last.signatures().items() if r in ranks}
        out: dict[int, str] = {}
        for proc in self._tracked.values():
            sig = wait_signature(self._cfg.proc_root, proc.pid)
            if sig is not None:
                out[proc.rank] = sig
        return out


def local_ranks(config: ProcessConfig, *, log_roots: Sequence[Path] = (), node: str | None = None) -> list[RankProcess]:
    """The rank processes on this host now (of the job whose torchrun logs are under ``log_roots``
    when given), ordered by rank."""
    watcher = ProcessWatcher(config, node=node, log_roots=log_roots)
    watcher._discover()
    return sorted(watcher.alive, key=lambda p: (p.rank, p.pid))
