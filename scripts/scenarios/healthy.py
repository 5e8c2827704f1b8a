"""Healthy runs that must yield no incident: scary-looking warnings, checkpoint pauses."""

from __future__ import annotations

import math
from typing import Any

from .agent import Agent
from .expected import expect
from .formats import ts_seconds
from .kernel import Kernel, gpu_id_lines, xid
from .model import DGX_H100, E24, E25
from .training import loss_at, make_comm, schedule, std_run_start, train
from .writer import Scenario, Stream


def sc_healthy_scary(sc: Scenario) -> dict[str, Any]:
    era = E25
    (node,) = sc.nodes(["gpu-node-5"], DGX_H100, ips=["10.1.4.5"])
    procs = sc.procs([node], 8)
    comm = make_comm(sc, procs, net="Socket")
    streams = [Stream(sc, f"gpu-node-5/rank_{p.rank}.log", p, era, py="hf", logger="run_clm.py:412") for p in procs]
    t_train = std_run_start(sc, streams, comm, "gpt2-xl continued pretraining", no_ib_warn=True)
    total = 1500
    sch = schedule(sc.rng, t_train, 1, total, 540.0)
    site = era.site
    for s in streams:
        r = s.p.rank
        s.raw(t_train - 5.0, f"{site}/torch/utils/checkpoint.py:1399: UserWarning: torch.utils.checkpoint: the "
                             "use_reentrant parameter should be passed explicitly. In version 2.5 we will raise an "
                             "exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you "
                             "need to preserve the current default behavior, you can pass use_reentrant=True. Refer to "
                             "docs for more details on the differences between the two variants.",
              "  return CheckpointFunction.apply(function, preserve, *args)")
        s.c10d(t_train + 2.0 + sc.rng.uniform(0.0, 0.3), "W", "reducer.cpp:1400", "Warning: find_unused_parameters=True was specified in DDP "
               "constructor, but did not find any unused parameters in the forward pass. This flag results in an extra "
               "traversal of the autograd graph every iteration,  which can adversely affect performance. If your "
               "model indeed never has any unused parameters in the forward pass, consider turning this flag off. Note "
               "that this warning may be a false positive if your model has flow control causing later iterations to "
               "have unused parameters. (function operator())")
        train(s, "hf", sch, 1, total, 10, total)
        for k in (37, 38, 412):
            s.py(sch.at(k), "WARNING", f"Gradient overflow. Skipping step, loss scaler 0 reducing loss scale to "
                                       f"{65536 // (2 ** (k % 3 + 1))}", "loss_scaler.py:183")
        s.py(sch.at(903), "WARNING", "Grad norm is nan, skipping step 903", "run_clm.py:288")
        if r == 0:
            s.py(sch.at(500) + 1.0, "INFO", "Saving model checkpoint to /ckpt/gpt2-xl/checkpoint-500", "trainer.py:3705")
            s.py(sch.at(1000) + 1.0, "INFO", "Saving model checkpoint to /ckpt/gpt2-xl/checkpoint-1000",
                 "trainer.py:3705")
        t_end = sch.at(total) + 1.5
        s.raw(t_end, "", "", "Training completed. Do not forget to share your model on huggingface.co/models =)", "", "")
        if r == 0:
            s.raw(t_end, "{'train_runtime': %.4f, 'train_samples_per_second': 59.12, 'train_steps_per_second': 1.848, "
                         "'train_loss': 2.4518, 'epoch': 3.0}" % (t_end - t_train))
    kd = Kernel(sc, "gpu-node-5/dmesg.log", node, "dmesg")
    kd.boot()
    kd.add(sch.at(300), "pcieport 0000:17:01.0: AER: Corrected error received: 0000:18:00.0", 4)
    kd.add(sch.at(300), "nvidia 0000:18:00.0: PCIe Bus Error: severity=Corrected, type=Data Link Layer, "
           "(Transmitter ID)", 4)
    kd.add(sch.at(300), "nvidia 0000:18:00.0:   device [10de:2330] error status/mask=00001000/0000e000", 4)
    kd.add(sch.at(300), "nvidia 0000:18:00.0:    [12] Timeout", 4)
    p1 = procs[1]
    for line in gpu_id_lines(sc, p1.pci):
        kd.add(sch.at(777), line)
    kd.add(sch.at(777), xid(p1.pci, 63, "Row Remapper: New row (0x00000000a7f32c80) marked for remapping, reset gpu to "
                                        "activate.", pid=p1.pid))
    kd.flush()
    ag = Agent(sc, "gpu-node-5/launcher.log", node, era, "run_clm.py")
    ag.banner(0.5)
    return expect(
        "A healthy run (exits 0) full of scary lines: 'NCCL WARN NET/IB : No device found.' then the socket transport, "
        "UserWarnings, a c10d [W...] DDP warning, 'Gradient overflow. Skipping step', 'Grad norm is nan, skipping "
        "step', a corrected PCIe AER error on GPU 0000:18:00, and Xid 63 (row remap pending, no DBE) on GPU "
        "0000:2a:00. None of it is a failure: no incident.",
        [])


def sc_healthy_ckpt(sc: Scenario) -> dict[str, Any]:
    era = E24
    nodes = sc.nodes(["hgx-017", "hgx-018"], DGX_H100)
    procs = sc.procs(nodes, 8)
    comm = make_comm(sc, procs)
    streams = [Stream(sc, f"{p.node.name}/rank_{p.rank}.log", p, era, py="bracket") for p in procs]
    t_train = std_run_start(sc, streams, comm, "gpt-3b (Megatron-LM core_r0.8.0)")
    total, every = 3000, 20
    step_ms = 1190.0

    def pause(k: int) -> float:
        if k % 1000 == 0:
            return 10 * step_ms / 1000.0 + 25.0
        if k % 500 == 0:
            return 10 * step_ms / 1000.0
        return 0.0

    sch = schedule(sc.rng, t_train, 1, total, step_ms)
    # the pause after step k delays step k+1: shift every later end
    shift = 0.0
    for k in range(1, total + 1):
        sch.ends[k] += shift
        shift += pause(k)
    for s in streams:
        train(s, "megatron", sch, 1, total, every, total)
        for k in range(500, total + 1, 500):
            t = sch.at(k) + 0.05
            if k % 1000 == 0:
                s.raw(t, "-" * 100, f" validation loss at iteration {k} | lm loss value: {loss_at(sc.rng, k):.6E} | "
                      f"lm loss PPL: {math.exp(loss_at(sc.rng, k)):.6E} | ", "-" * 100)
                t += 25.0
            s.raw(t, f"saving checkpoint at iteration {k:7d} to /lustre/ckpt/gpt-3b in torch_dist format")
            s.raw(t + 10 * step_ms / 1000.0 - 0.2, f"  successfully saved checkpoint from iteration {k:7d} to "
                                                    "/lustre/ckpt/gpt-3b [ t 1/1, p 1/1 ]")
        t_end = sch.at(total) + 10 * step_ms / 1000.0 + 30.0
        s.raw(t_end, f"[after training is done] datetime: {ts_seconds(s.wall(t_end))} ")
    for node in nodes:
        Agent(sc, f"{node.name}/launcher.log", node, era, "pretrain_gpt.py").banner(0.5)
    return expect(
        "A healthy 2-node Megatron run: every 500 iterations a checkpoint save pauses training for ~10 step times, and "
        "every 1000 an evaluation adds ~25 s more (the gaps show in the wall clock, not in 'elapsed time per "
        "iteration'). It finishes normally: no incident.",
        [])
