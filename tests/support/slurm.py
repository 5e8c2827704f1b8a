"""A real Slurm cluster for tests: munged, slurmctld and two slurmd (n1, n2) on one host.

Follows ``shared/reference/infra-recipes.md``: everything lives under one temp dir (``/etc`` is
untouched), two node names share this host on loopback with distinct ports, ``cred_expire=5`` so
that a requeued job may start again after about 6 s, accounting is off. The daemons are stopped
by the PIDs in their pid files at the end of the session.

Use the session-scoped ``slurm_cluster`` fixture (import it into the test module). It skips only
when the binaries are missing; in CI they are installed, so the tests run there.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

BINARIES = ("munged", "mungekey", "slurmctld", "slurmd", "sbatch", "scontrol", "sinfo", "squeue",
            "scancel")
NODES = ("n1", "n2")


def missing_binaries() -> list[str]:
    return [b for b in BINARIES if shutil.which(b) is None
            and not Path("/usr/sbin", b).exists()]


def _which(name: str) -> str:
    found = shutil.which(name)
    if found is not None:
        return found
    return str(Path("/usr/sbin", name))


def _free_ports(count: int) -> list[int]:
    socks = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


@dataclass(frozen=True)
class SlurmCluster:
    """A running test cluster. ``env`` is what Slurm clients need (``SLURM_CONF``)."""

    base: Path
    conf: Path
    env: Mapping[str, str]
    nodes: tuple[str, ...]

    def run(self, *args: str, check: bool = True, timeout: float = 30.0
            ) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(list(args), env=dict(self.env), capture_output=True, text=True,
                              timeout=timeout, check=False)
        if check and proc.returncode != 0:
            raise AssertionError(f"{args!r} failed ({proc.returncode}): {proc.stderr.strip()}")
        return proc

    def node_state(self, node: str) -> tuple[str, str]:
        """(state, reason) as ``sinfo`` shows them, e.g. ('drained', 'rankdoctor: ...')."""
        out = self.run("sinfo", "-h", "-N", "-n", node, "-o", "%T|%E").stdout.strip()
        state, _, reason = out.splitlines()[0].partition("|")
        return state.strip(), reason.strip()

    def job_field(self, job_id: str, field: str) -> str | None:
        proc = self.run("scontrol", "show", "job", "-o", job_id, check=False)
        for token in proc.stdout.split():
            key, sep, value = token.partition("=")
            if sep and key == field:
                return value
        return None

    def wait_for(self, what: str, predicate: Callable[[], bool], timeout: float = 60.0,
                 interval: float = 0.2) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(interval)
        raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")

    def resume_all(self) -> None:
        """Return every node to service and wait until they are idle (between tests)."""
        for node in self.nodes:
            state, _ = self.node_state(node)
            if "drain" in state or "down" in state:
                self.run("scontrol", "update", f"NodeName={node}", "State=RESUME")
        self.wait_for("all nodes idle", lambda: all(
            self.node_state(n)[0] in ("idle", "mixed", "allocated") for n in self.nodes),
            timeout=30)

    def cancel_all(self) -> None:
        self.run("scancel", "--user", str(os.getuid()), check=False)
        self.wait_for("no jobs left", lambda: not self.run(
            "squeue", "-h", "-o", "%i", "-t", "PD,R,CG,CF,RQ,S").stdout.strip(), timeout=30)


def _write_conf(base: Path, host: str, ports: list[int]) -> Path:
    munge_socket = base / "munge" / "munge.socket"
    (base / "log").mkdir()
    (base / "state").mkdir()
    (base / "spool").mkdir()
    conf = base / "slurm.conf"
    nodes = "\n".join(
        f"NodeName={name} NodeHostname={host} NodeAddr=127.0.0.1 Port={ports[i + 1]} CPUs=2 "
        f"RealMemory=1000 Weight={i + 1} State=UNKNOWN"
        for i, name in enumerate(NODES)
    )
    conf.write_text(f"""\
ClusterName=rdtest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ports[0]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={munge_socket},cred_expire=5
StateSaveLocation={base}/state
SlurmdSpoolDir={base}/spool/%n
SlurmctldPidFile={base}/slurmctld.pid
SlurmdPidFile={base}/slurmd-%n.pid
SlurmctldLogFile={base}/log/slurmctld.log
SlurmdLogFile={base}/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
ReturnToService=2
MpiDefault=none
JobRequeue=1
MinJobAge=600
KillWait=2
{nodes}
PartitionName=debug Nodes={','.join(NODES)} Default=YES MaxTime=INFINITE State=UP
""")
    return conf


def _pid(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _stop(pid_files: list[Path]) -> None:
    pids = [p for p in (_pid(f) for f in pid_files) if p is not None]
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    for pid in pids:
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _start_daemon(argv: list[str], env: Mapping[str, str], base: Path, what: str) -> None:
    proc = subprocess.run(argv, env=dict(env), capture_output=True, text=True, timeout=30,
                          check=False)
    if proc.returncode != 0:
        logs = "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-2000:]}"
                         for p in sorted((base / "log").glob("*")))
        raise RuntimeError(f"{what} failed to start ({proc.returncode}): "
                           f"{proc.stderr.strip()}\n{logs}")


def start_cluster(base: Path) -> tuple[SlurmCluster, list[Path]]:
    """Start munged, slurmctld and one slurmd per node under ``base``; returns the cluster and
    the pid files to stop. Raises RuntimeError (with the daemons' logs) when one fails."""
    base.mkdir(parents=True, exist_ok=True)
    base.chmod(0o755)
    munge_dir = base / "munge"
    munge_dir.mkdir(mode=0o755)
    key = munge_dir / "munge.key"
    subprocess.run([_which("mungekey"), "--create", f"--keyfile={key}"], check=True,
                   capture_output=True, timeout=30)
    key.chmod(0o400)
    host = socket.gethostname().split(".")[0]
    ports = _free_ports(1 + len(NODES))
    conf = _write_conf(base, host, ports)
    env = dict(os.environ)
    env["SLURM_CONF"] = str(conf)
    for var in [k for k in env if k.startswith("SLURM_") and k != "SLURM_CONF"]:
        del env[var]
    pid_files = [munge_dir / "munged.pid", base / "slurmctld.pid",
                 *(base / f"slurmd-{n}.pid" for n in NODES)]
    try:
        _start_daemon([_which("munged"), "--force", f"--socket={munge_dir / 'munge.socket'}",
                       f"--key-file={key}", f"--pid-file={munge_dir / 'munged.pid'}",
                       f"--log-file={base / 'log' / 'munged.log'}",
                       f"--seed-file={munge_dir / 'munged.seed'}"], env, base, "munged")
        _start_daemon([_which("slurmctld"), "-f", str(conf)], env, base, "slurmctld")
        for node in NODES:
            _start_daemon([_which("slurmd"), "-f", str(conf), "-N", node], env, base,
                          f"slurmd {node}")
        cluster = SlurmCluster(base=base, conf=conf, env=env, nodes=NODES)
        cluster.wait_for("nodes idle", lambda: all(
            cluster.node_state(n)[0] == "idle" for n in NODES), timeout=30)
    except BaseException:
        _stop(pid_files[::-1])
        raise
    return cluster, pid_files


@pytest.fixture(scope="session")
def slurm_cluster() -> Iterator[SlurmCluster]:
    missing = missing_binaries()
    if missing:
        pytest.skip(f"Slurm/munge binaries not installed: {', '.join(missing)} "
                    "(apt-get install slurmctld slurmd slurm-client munge)")
    base = Path(tempfile.mkdtemp(prefix="rd-slurm-"))
    cluster, pid_files = start_cluster(base)
    try:
        yield cluster
    finally:
        cluster.run("scancel", "--user", str(os.getuid()), check=False)
        _stop(pid_files[::-1])
        shutil.rmtree(base, ignore_errors=True)
