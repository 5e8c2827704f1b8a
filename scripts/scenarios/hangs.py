"""Ranks that stop or slow down: a silent hang, the lowest-sequence hang, a DataLoader stall, an
all-ranks timeout with no culprit, and a straggler throttled by its GPU."""

from __future__ import annotations

import json
from typing import Any

from .agent import Agent, Exit
from .expected import expect, incident, others
from .failures import (
    conn_closed,
    pg_not_destroyed,
    remote_error,
    user_frames,
    watchdog_timeout,
)
from .formats import dcgm_pci
from .model import DGX_A100, DGX_H100, E22, E24, E25, E26, WS_4GPU
from .training import make_comm, nccl_init, schedule, std_run_start, train
from .writer import Scenario, Stream


def sc_hang_silent(sc: Scenario) -> dict[str, Any]:
    era = E26
    (node,) = sc.nodes(["gpu-node-21"], DGX_H100)
    procs = sc.procs([node], 8)
    comm = make_comm(sc, procs)
    bad = procs[6]
    streams = [Stream(sc, f"gpu-node-21/rank_{p.rank}.log", p, era) for p in procs]
    t_train = std_run_start(sc, streams, comm, "resume from /ckpt/step_1600",
                            extra=["loaded checkpoint step 1600 in 31.2 s"])
    last = 2207
    sch = schedule(sc.rng, t_train, 1601, last, 951.0)
    for s in streams:
        train(s, "plain", sch, 1601, last - 1 if s.p is bad else last, 1, 100_000)
    seq = 4412
    t_enq = sch.at(last) + 0.41
    exits = []
    tos = []
    for s in streams:
        if s.p is bad:
            continue
        ran = 600_000 + sc.rng.randint(20, 900)
        t_to = t_enq + ran / 1000.0
        tos.append(t_to)
        watchdog_timeout(s, t_to, seq, seq, seq - 1, ran_ms=ran)
        exits.append(Exit(s.p, t_to + 1.1, -6))
    sb = streams[6]
    sb.c10d(min(tos) + 1.0, "E", "ProcessGroupNCCL.cpp:1417",
            f"{era.pgp(6)} Observed flight recorder dump signal from another rank via TCPStore.")
    ag = Agent(sc, "gpu-node-21/launcher.log", node, era)
    ag.banner(0.5)
    ag.teardown(exits, alive=[bad], poll=0.3)
    return expect(
        "One node, a step printed on every rank every step. Rank 6 prints its last step (2206) one step before the "
        "others (2207) and then nothing: it is stuck outside the collective (no watchdog timeout of its own; only "
        "'Observed flight recorder dump signal from another rank'). Ranks 0-5 and 7 time out ~600 s later in "
        "ALLREDUCE SeqNum 4412 with last completed work 4411 and abort; torchrun names one of them as root cause.",
        [incident("hang", rank=6, node="gpu-node-21", collateral=others(procs, 6), drain=False)])


def sc_hang_lowest_seq(sc: Scenario) -> dict[str, Any]:
    era = E24
    nodes = sc.nodes([f"node{i:02d}" for i in range(1, 17)], DGX_H100)
    procs = sc.procs(nodes, 8)
    comm = make_comm(sc, procs)
    bad = procs[77]
    streams = [Stream(sc, f"{p.node.name}/rank{p.rank}.log", p, era, py="plain") for p in procs]
    for s in streams:
        s.py(2.0 + sc.rng.uniform(0, 0.5), "INFO", f"rank {s.p.rank}/{s.p.world} on {s.p.node.name} "
                                                   f"(local {s.p.local}), torch {era.torch}")
        nccl_init(s, 8.0 + sc.rng.uniform(0, 0.3), comm, brief=True)
    last = 1500
    sch = schedule(sc.rng, 45.0, 1, last, 1312.0)
    for s in streams:
        train(s, "plain", sch, 1, last, 100, 100_000)
    seq_others = 9021
    t_enq = sch.at(last) + 0.9
    order = sorted(range(len(procs)), key=lambda _: sc.rng.random())
    jit = {r: 0.02 + 0.9 * i / len(procs) for i, r in enumerate(order)}
    jit[77] = 0.47
    for s in streams:
        r = s.p.rank
        ran = 600_000 + int(jit[r] * 1000)
        if s.p is bad:
            watchdog_timeout(s, t_enq + ran / 1000.0, seq_others - 1, seq_others, seq_others - 2, ran_ms=ran)
        else:
            watchdog_timeout(s, t_enq + ran / 1000.0, seq_others, seq_others, seq_others - 1, ran_ms=ran)
    return expect(
        "16 nodes x 8 GPUs (node01..node16/rankN.log, brief logs). Every rank, the culprit included, times out in the "
        "watchdog at about the same time. Rank 77 (node10, local 5) is the only one whose timed-out work is 9020 with "
        "last completed NCCL work 9019; all others completed 9020 and wait on 9021. The lowest last-completed sequence "
        "singles out rank 77; its timeout is not the earliest.",
        [incident("hang", rank=77, node="node10", collateral=others(procs, 77), drain=False)])


def sc_dataloader(sc: Scenario) -> dict[str, Any]:
    era = E24
    (node,) = sc.nodes(["ml-box-9"], WS_4GPU)
    procs = sc.procs([node], 4)
    comm = make_comm(sc, procs, net="Socket")
    bad = procs[1]
    streams = [Stream(sc, f"ml-box-9/rank_{p.rank}.log", p, era) for p in procs]
    t_train = std_run_start(sc, streams, comm, "speech encoder pretrain (webdataset on NFS, DataLoader(timeout=600))")
    last = 1902
    sch = schedule(sc.rng, t_train, 1, last, 734.0)
    for s in streams:
        train(s, "plain", sch, 1, last - 1 if s.p is bad else last, 10, 40_000)
    sb = streams[1]
    t_stall = sch.at(last - 1) + 0.02
    sb.py(t_stall + 30.2, "WARNING", "shard /mnt/nfs/speech/shard-00421.tar: read took 30.1 s (retrying)", "data")
    t_err = t_stall + 600.0
    sb.tb(t_err, [
        *user_frames(sb, "train.py", [
            (f"{era.site}/torch/utils/data/dataloader.py", 1243, "_try_get_data",
             "data = self._data_queue.get(timeout=timeout)"),
            ("/usr/lib/python3.10/multiprocessing/queues.py", 114, "get", "raise Empty"),
        ]),
        "_queue.Empty", "",
        "The above exception was the direct cause of the following exception:", "",
        *user_frames(sb, "train.py", [
            ("/home/asr/train.py", 355, "<module>", "main()"),
            ("/home/asr/train.py", 318, "main", "for batch in loader:"),
            (f"{era.site}/torch/utils/data/dataloader.py", 701, "__next__", "data = self._next_data()"),
            (f"{era.site}/torch/utils/data/dataloader.py", 1448, "_next_data", "idx, data = self._get_data()"),
            (f"{era.site}/torch/utils/data/dataloader.py", 1402, "_get_data", "success, data = self._try_get_data()"),
            (f"{era.site}/torch/utils/data/dataloader.py", 1256, "_try_get_data",
             "raise RuntimeError(f'DataLoader timed out after {timeout} seconds') from e"),
        ]),
        "RuntimeError: DataLoader timed out after 600 seconds",
    ])
    pg_not_destroyed(sb, t_err + 0.3)
    for s in streams:
        if s.p is not bad:
            conn_closed(s, t_err + 0.5 + 0.002 * s.p.local, bad.local)
    ag = Agent(sc, "ml-box-9/launcher.log", node, era)
    ag.banner(0.5)
    ag.teardown([Exit(bad, t_err + 0.4, 1)], alive=[p for p in procs if p is not bad])
    return expect(
        "One node, 4 ranks. Rank 1 stalls in its DataLoader at step 1902 while reading a shard from NFS (a 'read "
        "took 30.1 s' warning), and 600 s later raises 'RuntimeError: DataLoader timed out after 600 seconds'. The others wait in "
        "the next all-reduce and are SIGTERMed by torchrun before their own NCCL timeout fires.",
        [incident("data_loader_stall", rank=1, node="ml-box-9", collateral=others(procs, 1), drain=False)])


def sc_hang_all_timeout(sc: Scenario) -> dict[str, Any]:
    era = E22
    (node,) = sc.nodes(["gpu-node-30"], DGX_A100)
    procs = sc.procs([node], 4)
    comm = make_comm(sc, procs)
    streams = [Stream(sc, f"gpu-node-30/rank_{p.rank}.log", p, era) for p in procs]
    t_train = std_run_start(sc, streams, comm, "t5-xl finetune")
    last = 1103
    sch = schedule(sc.rng, t_train, 1, last, 1020.0)
    for s in streams:
        train(s, "plain", sch, 1, last, 10, 10_000, jitter_ms=0.0)
    t_enq = sch.at(last) + 0.5
    exits = []
    for s in streams:
        ran = 600_041
        watchdog_timeout(s, t_enq + ran / 1000.0, 2207, 2207, 2206, ran_ms=ran)
        exits.append(Exit(s.p, t_enq + ran / 1000.0 + 0.2, -6))
    ag = Agent(sc, "gpu-node-30/launcher.log", node, era)
    ag.banner(0.5)
    ag.teardown(exits, alive=[], poll=5.0)
    return expect(
        "One node, 4 ranks (torch 2.2: watchdog lines carry no time stamp). All ranks print their last step (1100) at "
        "the same millisecond, then the identical watchdog timeout (ALLREDUCE SeqNum 2207, last completed 2206) and "
        "abort together; no kernel log, no exception. Nothing singles a rank out (torchrun's 'root cause' is just the "
        "first exit it saw): the collective hung (cause hang), initiator rank null.",
        [incident("hang", rank=None, drain=False, omit_node=True)])


def sc_straggler(sc: Scenario) -> dict[str, Any]:
    era = E25
    (node,) = sc.nodes(["node01"], DGX_H100)
    procs = sc.procs([node], 8)
    comm = make_comm(sc, procs)
    bad = procs[5]
    streams = [Stream(sc, f"node01/rank_{p.rank}.log", p, era, py="plain") for p in procs]
    t_train = std_run_start(sc, streams, comm, "ddp resnet-152 benchmark run")
    n, slow_from = 1000, 700
    fwd = {p.rank: 200.0 + sc.rng.uniform(-2, 2) for p in procs}
    bwd = {p.rank: 400.0 + sc.rng.uniform(-3, 3) for p in procs}
    t = t_train
    step_end: dict[int, float] = {}
    for k in range(1, n + 1):
        comp = {}
        for p in procs:
            f = fwd[p.rank] * (1 + sc.rng.gauss(0, 0.005))
            b = bwd[p.rank] * (1 + sc.rng.gauss(0, 0.005))
            if p is bad and k >= slow_from:
                f *= 1.25 + sc.rng.gauss(0, 0.01)
                b *= 1.25 + sc.rng.gauss(0, 0.01)
            comp[p.rank] = (f, b, 3.0 + abs(sc.rng.gauss(0, 0.4)))
        step_ms = max(f + b + d for f, b, d in comp.values()) + 195.0 + sc.rng.gauss(0, 2.0)
        t += step_ms / 1000.0
        step_end[k] = t
        for s in streams:
            f, b, d = comp[s.p.rank]
            s.py(t + sc.rng.uniform(0, 0.004), "INFO",
                 f"step {k} | step_ms {step_ms:.1f} | fwd_ms {f:.1f} | bwd_ms {b:.1f} | data_ms {d:.1f}")
    t_end = step_end[n] + 2.0
    for s in streams:
        s.py(t_end, "INFO", f"finished {n} steps; saving final checkpoint")
        s.py(t_end + 4.0, "INFO", "destroy_process_group(); exiting")
    ag = Agent(sc, "node01/launcher.log", node, era)
    ag.banner(0.5)
    # DCGM exporter metrics through Prometheus (range query, 15 s step)
    uuids = {p.rank: sc.uuid() for p in procs}
    t_slow = step_end[slow_from] - 6.0
    series = []
    start_epoch = sc.base.timestamp()
    for name in ("DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "DCGM_FI_DEV_GPU_TEMP"):
        for p in procs:
            values = []
            tt = 0.0
            while tt <= t_end + 15.0:
                slow = p is bad and tt >= t_slow
                if name == "DCGM_FI_DEV_SM_CLOCK":
                    v = str(1575 if slow else 1980)
                elif name == "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS":
                    v = str(8 if slow else (1 if tt < t_train else 0))
                else:
                    v = str(round((71 if slow else 58) + sc.rng.uniform(-1.5, 1.5) + p.local * 0.4))
                values.append([round(start_epoch + tt, 3), v])
                tt += 15.0
            series.append({"metric": {"__name__": name, "gpu": str(p.nvml_dev), "UUID": uuids[p.rank],
                                      "pci_bus_id": dcgm_pci(p.pci), "device": f"nvidia{p.nvml_dev}",
                                      "modelName": "NVIDIA H100 80GB HBM3", "Hostname": node.name,
                                      "DCGM_FI_DRIVER_VERSION": "550.90.07", "instance": f"{node.name}:9400",
                                      "job": "dcgm-exporter"},
                           "values": values})
    sc.logs.blob("metrics/dcgm.json", json.dumps({"status": "success", "data": {"resultType": "matrix",
                                                                               "result": series}},
                                                separators=(",", ":")) + "\n")
    return expect(
        "One node, a run that does not crash (1000 steps). Every rank prints the same step_ms each step, but from step "
        "700 rank 5's own fwd_ms/bwd_ms are ~25% above its peers' (the others wait for it in the all-reduce). "
        "metrics/dcgm.json (Prometheus range query of the DCGM exporter) shows GPU 5 (00000000:AB:00.0) SM clock "
        "falling from 1980 to 1575 MHz with clock-throttle reason 8 (HW_SLOWDOWN) from then on: hardware evidence, so "
        "drain.",
        [incident("straggler", rank=5, node="node01", gpu="0000:ab:00", drain=True)])


def sc_unknown_remote_error(sc: Scenario) -> dict[str, Any]:
    era = E22
    (node,) = sc.nodes(["gpu-node-31"], DGX_A100)
    procs = sc.procs([node], 4)
    comm = make_comm(sc, procs)
    streams = [Stream(sc, f"gpu-node-31/rank_{p.rank}.log", p, era) for p in procs]
    t_train = std_run_start(sc, streams, comm, "t5-xl finetune")
    last = 1103
    sch = schedule(sc.rng, t_train, 1, last, 1020.0)
    for s in streams:
        train(s, "plain", sch, 1, last, 10, 10_000, jitter_ms=0.0)
    t_err = sch.at(last) + 42.0
    exits = []
    for s in streams:
        remote_error(s, t_err)
        exits.append(Exit(s.p, t_err + 0.2, -6))
    ag = Agent(sc, "gpu-node-31/launcher.log", node, era)
    ag.banner(0.5)
    ag.teardown(exits, alive=[], poll=5.0)
    return expect(
        "One node, 4 ranks. At the same millisecond every rank's watchdog surfaces ncclRemoteError (a remote process "
        "exited or the network failed) and aborts; no rank names a peer, no kernel log, no exception, no exit code "
        "other than the aborts. Something outside the logs failed: cause unknown, initiator rank null.",
        [incident("unknown", rank=None, drain=False, omit_node=True)])
