"""Runs as Slurm prints them: a preemption notice, and an srun job with one output file per task."""

from __future__ import annotations

from typing import Any

from .expected import expect, incident, others
from .failures import (
    conn_closed,
    pg_not_destroyed,
    watchdog_timeout,
)
from .formats import ts_seconds
from .model import DGX_A100, DGX_H100, E24
from .training import make_comm, schedule, std_run_start, train
from .writer import Scenario, Stream


def sc_preemption(sc: Scenario) -> dict[str, Any]:
    era = E24
    nodes = sc.nodes(["node02", "node05"], DGX_H100)
    procs = sc.procs(nodes, 8)
    comm = make_comm(sc, procs)
    path = "slurm-81234.out"
    streams = [Stream(sc, path, p, era, outer=f"{p.rank:>2d}: ", py="std") for p in procs]
    t_train = std_run_start(sc, streams, comm, "pretrain-3b (srun, 1 task per GPU)")
    last = 2413
    sch = schedule(sc.rng, t_train, 1, last, 795.0)
    for s in streams:
        train(s, "plain", sch, 1, last, 50, 50_000)
    t_pre = sch.at(last) + 0.52
    cancel = ts_seconds(sc.wall(nodes[0], t_pre)).replace(" ", "T")
    sc.logs.add(path, t_pre, [f"slurmstepd: error: *** JOB 81234 ON node02 CANCELLED AT {cancel} DUE TO PREEMPTION ***"])
    sc.logs.add(path, t_pre + 0.01, ["srun: Job step aborted: Waiting up to 32 seconds for job step to finish."])
    for s in streams:
        tt = t_pre + 0.05 + sc.rng.uniform(0, 0.2)
        s.py(tt, "WARNING", f"received SIGTERM (signal 15) at step {last + 1}; exiting without checkpoint "
                            "(last checkpoint: step 2000)")
        pg_not_destroyed(s, tt + 0.3)
    sc.logs.add(path, t_pre + 1.2, ["srun: error: node05: tasks 8-15: Terminated",
                                   "srun: error: node02: tasks 0-7: Terminated",
                                   "srun: Force Terminated JobId=81234"])
    return expect(
        "srun --label combined output (slurm-81234.out, ' 3: ' prefixes), 2 nodes x 8. slurmstepd prints '*** JOB 81234 "
        "ON node02 CANCELLED AT ... DUE TO PREEMPTION ***', then every task logs SIGTERM and srun reports all tasks "
        "Terminated. The scheduler ended the job: no rank is to blame (initiator rank null, node node02 from the "
        "notice); resubmit, do not drain.",
        [incident("preemption", rank=None, node="node02", drain=False)])


def sc_sbatch_abort(sc: Scenario) -> dict[str, Any]:
    era = E24
    nodes = sc.nodes([f"a100-node{i:02d}" for i in range(1, 5)], DGX_A100)
    procs = sc.procs(nodes, 8)
    comm = make_comm(sc, procs)
    bad = procs[19]
    streams = [Stream(sc, f"job-90417-{p.rank}.out", p, era, py="bracket") for p in procs]
    t_train = std_run_start(sc, streams, comm, "tokenize-on-the-fly pretrain (srun --output=job-%j-%t.out)")
    last = 1644
    sch = schedule(sc.rng, t_train, 1, last, 905.0)
    for s in streams:
        train(s, "plain", sch, 1, last, 20, 100_000)
    t_fail = sch.at(last) + 0.37
    sb = streams[19]
    sb.py(t_fail - 0.11, "INFO", "opening shard /data/web/shard-00731.jsonl.zst (1.2 GiB)", "data")
    sb.raw(t_fail, "terminate called after throwing an instance of 'std::bad_alloc'", "  what():  std::bad_alloc",
           "Fatal Python error: Aborted", "",
           "Thread 0x00007fa1e2ffd640 (most recent call first):",
           '  File "/opt/tok/fast_tokenize.py", line 88 in encode_batch',
           '  File "/opt/job/data.py", line 142 in _fill_buffer',
           '  File "/usr/lib/python3.10/threading.py", line 953 in run',
           '  File "/usr/lib/python3.10/threading.py", line 1016 in _bootstrap_inner',
           '  File "/usr/lib/python3.10/threading.py", line 973 in _bootstrap', "",
           "Current thread 0x00007fa2f1e4b740 (most recent call first):",
           '  File "/opt/job/train.py", line 233 in train_step',
           '  File "/opt/job/train.py", line 301 in main',
           '  File "/opt/job/train.py", line 320 in <module>', "",
           "Extension modules: numpy.core._multiarray_umath, torch._C, torch._C._nn, zstandard.backend_c, "
           "fast_tokenize_ext (total: 17)")
    for s in streams[16:24]:
        if s.p is not bad:
            conn_closed(s, t_fail + 0.08, bad.local)
    seq = 2 * last + 9
    for s in streams:
        if s.p is bad:
            continue
        ran = 600_000 + sc.rng.randint(20, 900)
        watchdog_timeout(s, t_fail + 0.3 + ran / 1000.0, seq + 1, seq + 1, seq, ran_ms=ran)
    path = "slurm-90417.out"
    sc.logs.add(path, 1.0, ["+ srun --ntasks-per-node=8 --gpus-per-task=1 --output=job-%j-%t.out python train.py"])
    sc.logs.add(path, t_fail + 0.2, ["srun: error: a100-node03: task 19: Aborted (core dumped)"])
    t_ab = t_fail + 0.3 + 601.2
    sc.logs.add(path, t_ab, ["srun: error: a100-node01: tasks 0-7: Aborted (core dumped)",
                            "srun: error: a100-node02: tasks 8-15: Aborted (core dumped)",
                            "srun: error: a100-node04: tasks 24-31: Aborted (core dumped)",
                            "srun: error: a100-node03: tasks 16-18,20-23: Aborted (core dumped)"])
    return expect(
        "32 ranks on 4 nodes, one file per task (job-90417-<rank>.out, from srun --output=job-%j-%t.out) plus the batch "
        "output slurm-90417.out. Rank 19 (a100-node03) aborts with \"terminate called after throwing an instance of "
        "'std::bad_alloc'\" / 'Fatal Python error: Aborted' and srun reports 'task 19: Aborted (core dumped)'. Its "
        "node-mates print 'Connection closed by localRank 3'; every other rank hits the watchdog timeout ~600 s later "
        "and also aborts (the later 'Aborted' lines are watchdog aborts, collateral). No hardware evidence.",
        [incident("crash_signal", rank=19, node="a100-node03", collateral=others(procs, 19), drain=False)])
