"""The end of a run: finished, or hung on the way out.

- ``all_finished``: every rank prints its end-of-training line and exits; torchrun reports the
  worker group SUCCEEDED. Healthy.
- ``teardown_hang``: the other ranks print their end-of-training line and exit; the odd rank
  saves its last checkpoint shard and then sits in teardown (waiting for a helper thread to
  flush) and never prints that line; long after, the job is cancelled (torchrun receives
  SIGTERM and stops that rank). A hang on the odd rank.
- ``uneven_data``: an IterableDataset whose shards are uneven: the odd rank's loop ends early
  (it prints its end-of-training line and leaves through ``destroy_process_group``) while the
  others start the next step and wait in its gradient all-reduce until NCCL's watchdog aborts
  them. A hang on the rank that ran out of data.
- ``rank0_end_only``: only rank 0 prints the end-of-training line (``if rank == 0``), the others
  just stop after the last step and exit. Healthy.

:func:`build_finish_run` writes one from a :class:`FinishRun`; the catalog's scenarios and the
tests (tests/replay/test_teardown_hang.py) use it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .agent import Agent, Exit
from .expected import expect, incident, others
from .failures import watchdog_timeout
from .formats import ts_seconds
from .model import E24, E26, WS_4GPU, WS_4GPU_B
from .training import make_comm, schedule, std_run_start, train
from .writer import Scenario, Stream


@dataclass(frozen=True)
class FinishRun:
    mode: str  # all_finished, teardown_hang, uneven_data, rank0_end_only
    ranks: int = 4
    odd: int = 3  # the rank that hangs in teardown, or that runs out of data
    steps: int = 2400  # the run's planned steps (the others' in uneven_data)
    short: int = 1187  # uneven_data: the step at which the odd rank's data runs out
    every: int = 10
    step_ms: float = 734.0
    cancel_after_s: float = 2520.0  # teardown_hang: the job is cancelled this long after the others left
    cancel: str = "scancel"  # teardown_hang: "scancel" (torchrun gets SIGTERM) or "time_limit" (Slurm's)


def build_finish_run(sc: Scenario, run: FinishRun) -> dict[str, Any]:
    if run.mode == "uneven_data":
        return _uneven(sc, run)
    era = E26
    host = "ml-box-3"
    (node,) = sc.nodes([host], WS_4GPU)
    procs = sc.procs([node], run.ranks)
    comm = make_comm(sc, procs)
    streams = [Stream(sc, f"{host}/rank_{p.rank}.log", p, era, py="plain") for p in procs]
    t_train = std_run_start(sc, streams, comm, "vit-l/16 finetune (4 GPUs)")
    sch = schedule(sc.rng, t_train, 1, run.steps, run.step_ms)
    for s in streams:
        train(s, "plain", sch, 1, run.steps, run.every, run.steps)
    t_last = sch.at(run.steps)
    ag = Agent(sc, f"{host}/launcher.log", node, era)
    ag.banner(0.5)
    exits: list[float] = []
    for s in streams:
        r = s.p.rank
        t = t_last + 0.4 + sc.rng.uniform(0.0, 0.05)
        s.py(t, "INFO", f"saving final checkpoint shard {r + 1}/{run.ranks} to /ckpt/vit-l/final")
        t += 11.5 + sc.rng.uniform(0.0, 1.0)
        s.py(t, "INFO", f"final checkpoint shard {r + 1}/{run.ranks} saved")
        if run.mode == "teardown_hang" and r == run.odd:
            s.py(t + 0.02, "INFO", "waiting for the metrics uploader thread to flush")
            continue  # and nothing more: it never leaves
        if run.mode == "rank0_end_only" and r != 0:
            s.py(t + 0.05, "INFO", "destroy_process_group(); exiting")
            exits.append(t + 0.3)
            continue
        s.py(t + 0.05, "INFO", f"Training finished: {run.steps} steps")
        s.py(t + 0.08, "INFO", "destroy_process_group(); exiting")
        exits.append(t + 0.3)
    t_done = max(exits)
    if run.mode != "teardown_hang":
        ag.line(t_done + 0.4, "INFO", "torch/distributed/elastic/agent/server/api.py:879",
                "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish.")
        ag.line(t_done + 0.41, "INFO", "torch/distributed/elastic/agent/server/api.py:932",
                "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish")
        ag.line(t_done + 0.42, "INFO", "torch/distributed/elastic/agent/server/api.py:946",
                "Done waiting for other agents. Elapsed: 0.0006856918334960938 seconds")
        if run.mode == "all_finished":
            return expect(
                f"A healthy single-node run ({run.ranks} ranks): every rank saves its final checkpoint shard, prints "
                "'Training finished' and exits; torchrun reports the worker group SUCCEEDED. The logs end right "
                "there: no incident.", [])
        return expect(
            f"A healthy single-node run ({run.ranks} ranks) whose script prints 'Training finished' on rank 0 only: "
            "the other ranks save their checkpoint shard and exit without an end-of-training line; torchrun "
            "reports the worker group SUCCEEDED. No incident.", [])
    bad = procs[run.odd]
    t_cancel = t_done + run.cancel_after_s
    if run.cancel == "time_limit":
        stamp = ts_seconds(sc.wall(node, t_cancel - 0.2)).replace(" ", "T")
        sc.logs.add("slurm-4242.out", t_cancel - 0.2, [
            f"slurmstepd: error: *** STEP 4242.0 ON {host} CANCELLED AT {stamp} DUE TO TIME LIMIT ***"])
    ag.line(t_cancel, "WARNING", "torch/distributed/elastic/agent/server/api.py:719",
            "Received Signals.SIGTERM death signal, shutting down workers")
    ag.sigterm(t_cancel + 0.001, [bad])
    site = era.site
    sc.logs.add(f"{host}/launcher.log", t_cancel + 0.2, [
        "Traceback (most recent call last):",
        f'  File "{era.python.rsplit("/", 1)[0]}/torchrun", line 8, in <module>',
        "    sys.exit(main())",
        f'  File "{site}/torch/distributed/run.py", line 918, in main',
        "    run(args)",
        f'  File "{site}/torch/distributed/launcher/api.py", line 260, in launch_agent',
        "    result = agent.run()",
        f'  File "{site}/torch/distributed/elastic/multiprocessing/api.py", line 84, in _terminate_process_handler',
        "    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)",
        f"torch.distributed.elastic.multiprocessing.api.SignalException: Process {ag.pid} got signal: 15",
    ])
    done = [p.rank for p in procs if p is not bad]
    return expect(
        f"A single-node run ({run.ranks} ranks) that trained to the end: ranks {done[0]}-{done[-1]} save their final "
        f"checkpoint shard, print 'Training finished' and exit; rank {run.odd} saves its shard, logs 'waiting for the "
        "metrics uploader thread to flush' and never finishes (a teardown hang). Nothing else happens until the job "
        f"is cancelled {run.cancel_after_s / 60:.0f} minutes later (torchrun receives SIGTERM and stops rank "
        f"{run.odd}). A hang on rank {run.odd}; the others finished, so none is collateral.",
        [incident("hang", rank=run.odd, node=host, collateral=[], drain=False)])


def _uneven(sc: Scenario, run: FinishRun) -> dict[str, Any]:
    era = E24
    host = "gpu-node-12"
    (node,) = sc.nodes([host], WS_4GPU_B)
    procs = sc.procs([node], run.ranks)
    comm = make_comm(sc, procs)
    bad = procs[run.odd]
    streams = [Stream(sc, f"{host}/rank_{p.rank}.log", p, era, py="plain") for p in procs]
    t_train = std_run_start(sc, streams, comm, "wav2vec2 pretrain (webdataset IterableDataset, shards split by rank)")
    sch = schedule(sc.rng, t_train, 1, run.short, run.step_ms)
    for s in streams:
        train(s, "plain", sch, 1, run.short, run.every, run.steps)
    t_out = sch.at(run.short) + 0.03
    sb = streams[run.odd]
    sb.py(t_out, "INFO", f"data exhausted: shard iterator for rank {run.odd} ended after {run.short} steps "
                         f"(9 shards; the others have 10)")
    sb.py(t_out + 0.01, "INFO", f"Training finished: {run.short} steps")
    sb.py(t_out + 0.03, "INFO", "destroy_process_group(); exiting")
    seq = 2 * run.short + 3
    t_enq = t_out + run.step_ms / 1000.0 * 0.6
    exits = []
    for s in streams:
        if s.p is bad:
            continue
        ran = 600_000 + sc.rng.randint(20, 400)
        t_to = t_enq + ran / 1000.0
        watchdog_timeout(s, t_to, seq, seq, seq - 1, ran_ms=ran)
        exits.append(Exit(s.p, t_to + 0.01, -6))
    ag = Agent(sc, f"{host}/launcher.log", node, era)
    ag.banner(0.5)
    ag.teardown(exits, alive=[], poll=0.3)
    rest = others(procs, run.odd)
    return expect(
        f"One node, {run.ranks} ranks reading an IterableDataset whose shards are split unevenly. Rank {run.odd}'s "
        f"shards run out after step {run.short}: it logs 'data exhausted', prints 'Training finished' and leaves "
        f"through destroy_process_group() (exit 0). Ranks {', '.join(map(str, rest))} start step {run.short + 1} "
        f"and wait in its gradient all-reduce (SeqNum {seq}) until NCCL's watchdog aborts them 600 s later. A hang "
        f"caused by rank {run.odd}, which ran out of data; the others are collateral.",
        [incident("hang", rank=run.odd, node=host, collateral=rest, drain=False)])


def sc_teardown_hang(sc: Scenario) -> dict[str, Any]:
    return build_finish_run(sc, FinishRun("teardown_hang"))


def sc_uneven_data(sc: Scenario) -> dict[str, Any]:
    return build_finish_run(sc, FinishRun("uneven_data", odd=2))


def sc_all_finished(sc: Scenario) -> dict[str, Any]:
    return build_finish_run(sc, FinishRun("all_finished", steps=1600))
