"""Hardware faults the cause policy drains a node for: Xid 79 (fallen off the bus), Xid 48 (ECC DBE),
Xid 74 (NVLink), and a two-attempt run with Xid 119 (GSP timeout) then a CUDA OOM."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .agent import Agent, Exit
from .expected import expect, incident, others
from .failures import (
    MODULE_CALL,
    conn_closed,
    cpp_frames,
    cuda_error_tail,
    pg_not_destroyed,
    remote_error,
    user_frames,
    watchdog_timeout,
)
from .kernel import Kernel, gpu_id_lines, xid
from .model import DGX_H100, E24, E25, E26, E27, HGX_B, Proc
from .training import make_comm, nccl_init, schedule, startup, std_run_start, train
from .writer import Scenario, Stream


def sc_xid79(sc: Scenario) -> dict[str, Any]:
    era = E25
    nodes = sc.nodes(["node01", "node02"], HGX_B, ips=["10.0.0.11", "10.0.0.12"])
    procs = sc.procs(nodes, 8)
    comm = make_comm(sc, procs)
    bad = procs[9]
    streams = [Stream(sc, f"{p.node.name}/rank_{p.rank}.log", p, era) for p in procs]
    t_train = std_run_start(sc, streams, comm, "llama3-8b-pretrain",
                            extra=["resuming from /ckpt/llama3-8b/step_0 (fresh start)"])
    last = 2243
    sch = schedule(sc.rng, t_train, 1, last + 1, 812.0)
    every = 25
    for s in streams:
        train(s, "plain", sch, 1, last, every, 100_000)
    t_fail = sch.at(last) + 0.31
    seq = 3 * last + 12
    # kernel logs
    k1 = Kernel(sc, "node01/dmesg.log", nodes[0], "dmesg_T")
    k1.boot()
    k1.flush()
    k2 = Kernel(sc, "node02/kernel.log", nodes[1], "journal")
    k2.boot()
    k2.add(t_fail - 0.21, "pcieport 0000:37:01.0: AER: Uncorrected (Fatal) error received: 0000:3b:00.0", 3)
    k2.add(t_fail - 0.21, "nvidia 0000:3b:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Inaccessible, "
           "(Unregistered Agent ID)", 3)
    for line in gpu_id_lines(sc, bad.pci):
        k2.add(t_fail, line)
    k2.add(t_fail, xid(bad.pci, 79, "GPU has fallen off the bus."))
    k2.add(t_fail, f"NVRM: GPU {bad.pci}: GPU has fallen off the bus.")
    k2.add(t_fail + 0.4, "NVRM: nvGpuOpsReportFatalError: uvm encountered global fatal error 0x60, requiring os reboot "
           "to recover.")
    k2.flush()
    # collateral: everyone else times out ~600 s later; the rank on the lost GPU is stuck in the driver
    exits: dict[str, list[Exit]] = {"node01": [], "node02": []}
    for s in streams:
        p = s.p
        if p is bad:
            continue
        ran = 600_000 + sc.rng.randint(20, 900)
        t_to = t_fail + 0.05 + ran / 1000.0
        watchdog_timeout(s, t_to, seq + 1, seq + 1, seq, ran_ms=ran)
        exits[p.node.name].append(Exit(p, t_to + 0.3, -6))
    for node in nodes:
        ag = Agent(sc, f"{node.name}/launcher.log", node, era)
        ag.banner(0.5)
        local = [p for p in procs if p.node is node]
        stuck = [bad] if bad in local else []
        ag.teardown(exits[node.name], alive=stuck, stuck=stuck, poll=2.0)
    return expect(
        "2 nodes x 8 GPUs. At 08:31 node02's kernel journal shows a PCIe AER fatal error, then Xid 79 (GPU has fallen "
        "off the bus) for PCI 0000:3b:00. The rank on that GPU is found only through its NCCL init line "
        "(busId 3b000, rank 9); rank 9 never logs anything itself (it hangs in the driver and needs SIGKILL). Every "
        "other rank times out in the watchdog about 600 s later (SeqNum 6742) and aborts with -6; each node's "
        "torchrun names one of those collateral ranks as root cause.",
        [incident("gpu_hardware", rank=9, node="node02", gpu="0000:3b:00", collateral=others(procs, 9), drain=True)])


def sc_xid48(sc: Scenario) -> dict[str, Any]:
    era = E24
    (node,) = sc.nodes(["gpu-node-3"], DGX_H100)
    procs = sc.procs([node], 8)
    comm = make_comm(sc, procs)
    bad = procs[5]
    streams = [Stream(sc, f"gpu-node-3/rank_{p.rank}.log", p, era, py="bracket") for p in procs]
    t_train = std_run_start(sc, streams, comm, "gpt-13b (Megatron-LM core_r0.9.0)",
                            extra=["> building GPT model ...", "> number of parameters on (tensor, pipeline) model "
                                   "parallel rank (0, 0): 1628504064"])
    last = 1537
    sch = schedule(sc.rng, t_train, 1, last, 1953.0)
    for s in streams:
        train(s, "megatron", sch, 1, last, 10, 100_000)
    t_fail = sch.at(last) + 1.12
    kl = Kernel(sc, "gpu-node-3/kern.log", node, "syslog")
    kl.boot()
    for line in gpu_id_lines(sc, bad.pci):
        kl.add(t_fail, line)
    addr = sc.rng.randint(0x10000000, 0x7FFFFFFF) & ~0x7F
    kl.add(t_fail, xid(bad.pci, 48, f"An uncorrectable double bit error (DBE) has been detected on GPU in the "
                                    f"framebuffer at physAddr 0x{addr:08x} partition 16, subpartition 3."))
    kl.add(t_fail + 0.002, xid(bad.pci, 63, f"Row Remapper: New row (0x{addr:016x}) marked for remapping, reset gpu to "
                                            "activate.", pid=bad.pid))
    kl.add(t_fail + 0.004, xid(bad.pci, 94, "Contained: SM (0x1). RST: No, D-RST: No", pid=bad.pid))
    kl.flush()
    sb = streams[5]
    te = t_fail + 0.19
    sb.tb(te, [
        *user_frames(sb, "pretrain_gpt.py", [
            ("/workspace/Megatron-LM/pretrain_gpt.py", 243, "<module>", "pretrain("),
            ("/workspace/Megatron-LM/megatron/training/training.py", 347, "pretrain",
             "iteration, num_floating_point_operations_so_far = train("),
            ("/workspace/Megatron-LM/megatron/training/training.py", 1235, "train",
             "train_step(forward_step_func,"),
            ("/workspace/Megatron-LM/megatron/training/training.py", 705, "train_step",
             "losses_reduced = forward_backward_func("),
            ("/workspace/Megatron-LM/megatron/core/pipeline_parallel/schedules.py", 452,
             "forward_backward_no_pipelining", "output_tensor, num_tokens = forward_step("),
            ("/workspace/Megatron-LM/megatron/core/pipeline_parallel/schedules.py", 274, "forward_step",
             "output_tensor, loss_func = forward_step_func(data_iterator, model)"),
            ("/workspace/Megatron-LM/pretrain_gpt.py", 190, "forward_step",
             "output_tensor = model(tokens, position_ids, attention_mask,"),
        ]),
        *["RuntimeError: " + x if i == 0 else x for i, x in enumerate(cuda_error_tail("uncorrectable ECC error "
                                                                                     "encountered"))],
    ])
    pg_not_destroyed(sb, te + 0.3)
    for s in streams:
        if s.p is not bad and sc.rng.random() < 0.7:
            conn_closed(s, te + 0.55 + sc.rng.uniform(0, 0.05), bad.local)
    ag = Agent(sc, "gpu-node-3/launcher.log", node, era, "pretrain_gpt.py")
    ag.banner(0.5)
    ag.teardown([Exit(bad, te + 0.5, 1)], alive=[p for p in procs if p is not bad])
    return expect(
        "One DGX node. The syslog kern.log shows Xid 48 (uncorrectable double-bit ECC error) on PCI 0000:ab:00, then "
        "Xid 63 (row remap pending) and Xid 94 (contained) naming rank 5's pid; rank 5 (busId ab000) raises "
        "'CUDA error: uncorrectable ECC error encountered' 0.2 s later and exits 1. Its siblings print 'Connection "
        "closed by localRank 5' and are SIGTERMed by torchrun.",
        [incident("ecc_memory", rank=5, node="gpu-node-3", gpu="0000:ab:00", collateral=others(procs, 5), drain=True)])


def sc_xid74(sc: Scenario) -> dict[str, Any]:
    era = E26
    (node,) = sc.nodes(["dgx-a07"], DGX_H100)
    procs = sc.procs([node], 8)
    comm = make_comm(sc, procs)
    bad = procs[2]
    streams = [Stream(sc, f"dgx-a07/rank_{p.rank}.log", p, era, py="titan", logger="root") for p in procs]
    t_train = std_run_start(sc, streams, comm, "torchtitan llama3_70b (FSDP2, TP=8)")
    last = 906
    sch = schedule(sc.rng, t_train, 1, last, 2410.0)
    for s in streams:
        train(s, "titan", sch, 1, last, 10, 40_000)
    t_fail = sch.at(last) + 0.74
    kd = Kernel(sc, "dgx-a07/dmesg.txt", node, "dmesg")
    kd.boot()
    for line in gpu_id_lines(sc, bad.pci):
        kd.add(t_fail, line)
    kd.add(t_fail, xid(bad.pci, 74, "NVLink: fatal error detected on link 3(0x10000, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)",
                       pid=bad.pid))
    kd.add(t_fail + 0.001, xid(bad.pci, 74, "NVLink: fatal error detected on link 5(0x10000, 0x0, 0x0, 0x0, 0x0, 0x0, "
                                            "0x0)", pid=bad.pid))
    kd.add(t_fail + 1.9, xid(bad.pci, 45, "Ch 00000010", pid=bad.pid))
    kd.flush()
    sb = streams[2]
    te = t_fail + 0.06
    sb.nccl_warn(te - 0.01, "enqueue.cc:1556", "Cuda failure 'uncorrectable NVLink error detected during the execution'")
    term = (f"{era.pgp(2)} Process group watchdog thread terminated with exception: CUDA error: uncorrectable NVLink "
            "error detected during the execution")
    tail = cuda_error_tail("x")[1:]
    frames = cpp_frames(sb, "c10_cuda")
    origin = ("Exception raised from c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:43 "
              "(most recent call first):")
    sb.c10d(te, "E", "ProcessGroupNCCL.cpp:1895", term, *tail, origin, *frames, "")
    sb.raw(te + 0.001, "terminate called after throwing an instance of 'c10::DistBackendError'", f"  what():  {term}",
           *tail, origin, *frames, "")
    for s in streams:
        if s.p is not bad and sc.rng.random() < 0.6:
            conn_closed(s, te + 0.4 + sc.rng.uniform(0, 0.05), bad.local)
    ag = Agent(sc, "dgx-a07/launcher.log", node, era)
    ag.banner(0.5)
    ag.teardown([Exit(bad, te + 0.3, -6)], alive=[p for p in procs if p is not bad])
    return expect(
        "One node. Raw dmesg (seconds since boot) shows two Xid 74 NVLink fatal errors on PCI 0000:3a:00 naming rank "
        "2's pid; rank 2 (busId 3a000) logs NCCL 'Cuda failure uncorrectable NVLink error' and its watchdog aborts the "
        "process (exit -6). The later Xid 45 is cleanup after the kill. Siblings are SIGTERMed.",
        [incident("nvlink", rank=2, node="dgx-a07", gpu="0000:3a:00", collateral=others(procs, 2), drain=True)])


def sc_two_failures(sc: Scenario) -> dict[str, Any]:
    era = E27
    nodes = sc.nodes(["node17", "node18"], HGX_B, ips=["10.0.2.17", "10.0.2.18"])
    procs0 = sc.procs(nodes, 8, pin={4: 2024380})
    bad0 = procs0[4]
    procs1 = sc.respawn(procs0)
    run_dir = {"node17": "81234_k2j9x0qa", "node18": "81234_7tq3vz1m"}

    def streams_for(procs: Sequence[Proc], attempt: int) -> tuple[list[Stream], list[Stream]]:
        outs, errs = [], []
        for p in procs:
            d = f"{p.node.name}/{run_dir[p.node.name]}/attempt_{attempt}/{p.local}"
            outs.append(Stream(sc, f"{d}/stdout.log", p, era))
            errs.append(Stream(sc, f"{d}/stderr.log", p, era))
        return outs, errs

    agents = {n.name: Agent(sc, f"{n.name}/agent.log", n, era) for n in nodes}
    for ag in agents.values():
        ag.banner(0.5)
    # attempt 0: Xid 119 (GSP RPC timeout) on node17 GPU 4
    out0, err0 = streams_for(procs0, 0)
    comm0 = make_comm(sc, procs0)
    for o, e in zip(out0, err0, strict=True):
        startup(e, 2.0 + sc.rng.uniform(0, 0.4), "llama-13b pretrain (max_restarts=1)")
        nccl_init(o, 8.0 + sc.rng.uniform(0, 0.2), comm0)
    last0 = 1977
    sch0 = schedule(sc.rng, 45.0, 1, last0, 1210.0)
    for o in out0:
        train(o, "stdout_iso", sch0, 1, last0, 10, 40_000)
    t1 = sch0.at(last0) + 0.64
    km = Kernel(sc, "node17/kmsg.txt", nodes[0], "kmsg", driver="570.133.20")
    km.boot()
    km.add(t1, xid(bad0.pci, 119, "Timeout after 6s of waiting for RPC response from GPU4 GSP! Expected function 103 "
                                  "(GSP_RM_ALLOC) (0x2081 0x4).", pid=bad0.pid), 4)
    km.add(t1 + 0.001, "NVRM: GPU4 GSP RPC buffer contains function 103 (GSP_RM_ALLOC) and data 0x0000000000002081 "
           "0x0000000000000004.", 4)
    km.add(t1 + 0.001, "NVRM: GPU4 RPC history (CPU -> GSP):", 4)
    km.add(t1 + 0.001, "NVRM:     entry function                   data0              data1              ts_start"
           "           ts_end             duration actively_polling", 4)
    km.add(t1 + 0.001, "NVRM:      0    103   GSP_RM_ALLOC       0x0000000000002081 0x0000000000000004 "
           "0x0006236b0c9f44a5 0x0000000000000000          y", 4)
    km.add(t1 + 0.001, "NVRM:     -1    76    GSP_RM_CONTROL     0x000000002080205b 0x0000000000000004 "
           "0x0006236b0c9f4377 0x0006236b0c9f43c4     77us  ", 4)
    km.add(t1 + 6.2, xid(bad0.pci, 154, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)",
                         pid=None).replace("pid='<unknown>', name=<unknown>, ", ""), 4)
    # rank 4 hangs in the driver; its heartbeat monitor kills it after 480 s
    eb = err0[4]
    t_hb = t1 + 480.6
    eb.c10d(t_hb, "E", "ProcessGroupNCCL.cpp:1396", f"{era.pgp(4)} ProcessGroupNCCL's watchdog got stuck for 480 "
            "seconds without making progress in monitoring enqueued collectives. This typically indicates a NCCL/CUDA "
            "API (e.g., CudaEvent.query/synchronize) hang blocking the watchdog, and could be triggered by another "
            "thread holding the GIL inside a CUDA api (for example, CudaEvent.elapsed_time(event)), or other "
            "deadlock-prone behaviors.If you suspect the watchdog is not actually stuck and a longer timeout would help, "
            "you can either increase the timeout (TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC) to a larger value or disable the "
            "heartbeat monitor (TORCH_NCCL_ENABLE_MONITORING=0).If either of aforementioned helps, feel free to file an "
            "issue to PyTorch about the short timeout or false positive abort; otherwise, please attempt to debug the "
            "hang. ")
    eb.c10d(t_hb + 10.0, "F", "ProcessGroupNCCL.cpp:1306", f"{era.pgp(4)} {era.pgp(4)} Terminating the process after "
            "attempting to dump debug info, due to ProcessGroupNCCL watchdog hang.")
    t_dead = t_hb + 10.2
    for o in out0[:8]:
        if o.p is not bad0:
            conn_closed(o, t_dead + 0.05, 4)
    agents["node17"].teardown([Exit(bad0, t_dead, -6)], alive=[p for p in procs0[:8] if p is not bad0],
                              restart=(1, 1))
    ex18 = []
    for e in err0[8:]:
        tt = t_dead + 1.0 + sc.rng.uniform(0, 0.4)
        remote_error(e, tt)
        ex18.append(Exit(e.p, tt + 0.2, -6))
    agents["node18"].teardown(ex18, alive=[], restart=(1, 1))
    # attempt 1: starts ~40 s later, runs, then rank 13 runs out of GPU memory
    t_a1 = t_dead + 40.0
    out1, err1 = streams_for(procs1, 1)
    comm1 = make_comm(sc, procs1)
    for o, e in zip(out1, err1, strict=True):
        startup(e, t_a1 + sc.rng.uniform(0, 0.4), "llama-13b pretrain (max_restarts=1)",
                ["resuming from /ckpt/llama-13b/iter_0001500"])
        nccl_init(o, t_a1 + 6.0 + sc.rng.uniform(0, 0.2), comm1)
    last1 = 2384
    sch1 = schedule(sc.rng, t_a1 + 60.0, 1501, last1, 1212.0)
    for o in out1:
        train(o, "stdout_iso", sch1, 1501, last1, 10, 40_000)
    t2 = sch1.at(last1) + 0.71
    e13 = err1[13]
    oom = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 5 has a total capacity of "
           "79.10 GiB of which 2.87 GiB is free. Including non-PyTorch memory, this process has 76.22 GiB memory in use. "
           "Of the allocated memory 71.64 GiB is allocated by PyTorch, and 3.05 GiB is reserved by PyTorch but "
           "unallocated. If reserved but unallocated memory is large try setting "
           "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
           "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
    frames = user_frames(e13, "pretrain.py", [
        ("/job/pretrain.py", 311, "<module>", "main()"),
        (f"{era.site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", 355, "wrapper",
         "return f(*args, **kwargs)"),
        ("/job/pretrain.py", 290, "main", "loss = model(batch).loss"),
        *MODULE_CALL,
        ("/job/modeling.py", 412, "forward", "logits = self.lm_head(hidden).float()"),
    ])
    e13.py(t2, "ERROR", "iteration 2385 failed")
    e13.tb(t2, [*frames, oom])
    pg_not_destroyed(e13, t2 + 0.4)
    sc.logs.blob(f"node18/{run_dir['node18']}/attempt_1/5/error.json", json.dumps({
        "message": {"message": "OutOfMemoryError: " + oom.split(": ", 1)[1],
                    "extraInfo": {"py_callstack": "\n".join(frames) + "\n" + oom + "\n",
                                  "timestamp": str(int(sc.wall(nodes[1], t2).timestamp()))}}}, indent=4) + "\n")
    for o in out1[8:]:
        if o.p.rank != 13:
            conn_closed(o, t2 + 0.7, 5)
    agents["node18"].teardown([Exit(procs1[13], t2 + 0.6, 1)], alive=[p for p in procs1[8:] if p.rank != 13])
    ex17 = []
    for e in err1[:8]:
        tt = t2 + 1.4 + sc.rng.uniform(0, 0.4)
        remote_error(e, tt)
        ex17.append(Exit(e.p, tt + 0.2, -6))
    agents["node17"].teardown(ex17, alive=[])
    km.flush()
    return expect(
        "torchrun --log-dir trees for 2 nodes (node17/, node18/ each with <run_id>/attempt_N/<local_rank>/"
        "{stdout,stderr}.log), max_restarts=1. Attempt 0: node17's kmsg.txt (raw /dev/kmsg records) shows Xid 119 "
        "(GSP RPC timeout) on PCI 0000:9b:00 with pid=2024380 = rank 4, then Xid 154 (GPU Reset Required); rank 4 "
        "hangs until its heartbeat monitor aborts it (watchdog hang), the rest are SIGTERMed or see ncclRemoteError. "
        "Attempt 1 resumes and ~18 min later rank 13 (node18, local 5) hits torch.OutOfMemoryError (also in its "
        "error.json). Two incidents, the hardware one first.",
        [incident("gpu_hardware", rank=4, node="node17", gpu="0000:9b:00", collateral=others(procs0, 4), drain=True),
         incident("cuda_oom", rank=13, node="node18", collateral=others(procs1, 13), drain=False)],
        allow_more_incidents=False)
