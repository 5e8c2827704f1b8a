"""Application failures on one rank: CUDA OOM, Python exceptions (a combined console, a skewed
clock), a host OOM kill and a collective mismatch."""

from __future__ import annotations

from typing import Any

from .agent import Agent, Exit
from .expected import expect, incident, others
from .failures import (
    MODULE_CALL,
    conn_closed,
    pg_not_destroyed,
    remote_error,
    user_frames,
)
from .kernel import Kernel
from .model import DGX_H100, E25, E26, HGX_B, WS_4GPU
from .training import make_comm, schedule, std_run_start, train
from .writer import Scenario, Stream


def sc_cuda_oom(sc: Scenario) -> dict[str, Any]:
    era = E25
    (node,) = sc.nodes(["node-gpu-07"], DGX_H100)
    procs = sc.procs([node], 8)
    comm = make_comm(sc, procs)
    bad = procs[3]
    streams = [Stream(sc, f"node-gpu-07/worker-{p.rank}.log", p, era, py="hydra") for p in procs]
    t_train = std_run_start(sc, streams, comm, "long-context finetune (seq_len ramps 8k -> 32k)")
    last = 880
    sch = schedule(sc.rng, t_train, 1, last, 1480.0, extra=lambda k: 0.0002 * k)
    for s in streams:
        train(s, "hydra", sch, 1, last, 5, 5_000)
    t_fail = sch.at(last) + 0.42
    sb = streams[3]
    sb.py(t_fail, "ERROR", "Uncaught exception at step 881 (seq_len=28672)")
    sb.tb(t_fail, [
        *user_frames(sb, "train.py", [
            ("/workspace/train.py", 412, "<module>", "main()"),
            ("/workspace/train.py", 398, "main", "loss = train_step(model, batch, optimizer)"),
            ("/workspace/train.py", 211, "train_step", 'logits = model(batch["input_ids"])'),
            *MODULE_CALL,
            ("/workspace/model.py", 141, "forward", "x = blk(x, freqs)"),
            *MODULE_CALL,
            ("/workspace/model.py", 88, "forward", "att = torch.softmax(scores.float(), dim=-1)"),
        ]),
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.11 GiB "
        "of which 1.19 GiB is free. Including non-PyTorch memory, this process has 77.90 GiB memory in use. Of the "
        "allocated memory 74.12 GiB is allocated by PyTorch, and 2.31 GiB is reserved by PyTorch but unallocated. If "
        "reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
        "fragmentation.  See documentation for Memory Management  "
        "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
    ])
    pg_not_destroyed(sb, t_fail + 0.6)
    for s in streams:
        if s.p is not bad and sc.rng.random() < 0.75:
            conn_closed(s, t_fail + 0.9 + sc.rng.uniform(0, 0.05), bad.local)
    ag = Agent(sc, "node-gpu-07/launcher.log", node, era)
    ag.banner(0.5)
    ag.teardown([Exit(bad, t_fail + 0.8, 1)], alive=[p for p in procs if p is not bad])
    return expect(
        "One node, per-rank files worker-N.log. Rank 3 raises torch.OutOfMemoryError ('CUDA out of memory. Tried to "
        "allocate 2.00 GiB. GPU 3 ...') as the sequence length ramps up and exits 1; siblings print 'Connection closed "
        "by localRank 3' and are SIGTERMed. A configuration problem: no drain.",
        [incident("cuda_oom", rank=3, node="node-gpu-07", collateral=others(procs, 3), drain=False)])


def sc_python_exception_combined(sc: Scenario) -> dict[str, Any]:
    era = E25
    (node,) = sc.nodes(["ml-box-2"], WS_4GPU)
    procs = sc.procs([node], 4)
    comm = make_comm(sc, procs, net="Socket")
    bad = procs[2]
    path = "train.log"
    ag = Agent(sc, path, node, era, "run_sft.py")
    ag.banner(0.2)
    streams = [Stream(sc, path, p, era, outer=f"[default{p.local}]:", py="hf", logger="run_sft.py:121")
               for p in procs]
    t_train = std_run_start(sc, streams, comm, "qwen2.5-1.5b sft")
    last = 412
    sch = schedule(sc.rng, t_train, 1, last, 702.0)
    for s in streams:
        train(s, "hf", sch, 1, last, 10, 3_000)
    t_fail = sch.at(last) + 0.33
    sb = streams[2]
    sb.tb(t_fail, [
        *user_frames(sb, "run_sft.py", [
            ("/home/ml/finetune/run_sft.py", 233, "<module>", "main()"),
            ("/home/ml/finetune/run_sft.py", 226, "main", "trainer.train()"),
            ("{site}/transformers/trainer.py", 2123, "train", "return inner_training_loop("),
            ("{site}/transformers/trainer.py", 2481, "_inner_training_loop",
             "tr_loss_step = self.training_step(model, inputs, num_items_in_batch)"),
            ("{site}/transformers/trainer.py", 3579, "training_step",
             "loss = self.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)"),
            ("/home/ml/finetune/run_sft.py", 98, "compute_loss",
             "loss = F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1))"),
            ("{site}/torch/nn/functional.py", 3479, "cross_entropy", "return torch._C._nn.cross_entropy_loss("),
        ]),
        "ValueError: Expected input batch_size (32) to match target batch_size (31).",
    ])
    pg_not_destroyed(sb, t_fail + 0.4)
    for s in streams:
        if s.p is not bad:
            conn_closed(s, t_fail + 0.7 + 0.002 * s.p.local, bad.local)
    ag.teardown([Exit(bad, t_fail + 0.6, 1)], alive=[p for p in procs if p is not bad])
    return expect(
        "One combined torchrun console log (train.log): every worker line starts with [default<local_rank>]:, the "
        "traceback lines also with [rank<N>]:. Rank 2 raises 'ValueError: Expected input batch_size (32) to match "
        "target batch_size (31).' and exits 1; ranks 0, 1 and 3 print 'Connection closed by localRank 2' and are "
        "SIGTERMed; the ChildFailedError summary names rank 2.",
        [incident("python_exception", rank=2, node="ml-box-2", collateral=others(procs, 2), drain=False)])


def sc_host_oom(sc: Scenario) -> dict[str, Any]:
    era = E26
    (node,) = sc.nodes(["gpu-node-11"], HGX_B)
    procs = sc.procs([node], 8)
    comm = make_comm(sc, procs)
    bad, invoker = procs[5], procs[2]
    streams = [Stream(sc, f"gpu-node-11/rank_{p.rank}.log", p, era) for p in procs]
    t_train = std_run_start(sc, streams, comm, "vit-h14 pretrain (16 dataloader workers per rank)")
    last = 2670
    sch = schedule(sc.rng, t_train, 1, last, 402.0)
    for s in streams:
        train(s, "plain", sch, 1, last, 20, 200_000)
        for i, pct in enumerate((71, 78, 84, 91)):
            s.py(t_train + 240.0 * (i + 1) + 0.5 * s.p.local, "WARNING",
                 f"host memory {pct}% used (rss of this rank {9.8 + 2.1 * i + 0.3 * (s.p.rank == 5) * i:.1f} GiB)",
                 "memwatch")
    t_fail = sch.at(last) + 0.18
    kj = Kernel(sc, "gpu-node-11/journal.log", node, "journal")
    kj.boot()
    kj.add(t_fail - 0.03, "python invoked oom-killer: gfp_mask=0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO), "
           "order=0, oom_score_adj=0")
    kj.add(t_fail - 0.03, f"CPU: 37 PID: {invoker.pid} Comm: python Not tainted 5.15.0-122-generic #132-Ubuntu")
    kj.add(t_fail - 0.02, "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,"
           f"task_memcg=/user.slice/user-1000.slice/session-41.scope,task=python,pid={bad.pid},uid=1000")
    kj.add(t_fail, f"Out of memory: Killed process {bad.pid} (python) total-vm:98765432kB, anon-rss:19818086kB, "
           "file-rss:412316kB, shmem-rss:2097152kB, UID:1000 pgtables:61240kB oom_score_adj:0", 3)
    kj.add(t_fail + 0.9, f"oom_reaper: reaped process {bad.pid} (python), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB")
    kj.flush()
    for s in streams:
        if s.p is not bad and sc.rng.random() < 0.75:
            conn_closed(s, t_fail + 0.05 + sc.rng.uniform(0, 0.05), bad.local)
    ag = Agent(sc, "gpu-node-11/launcher.log", node, era)
    ag.banner(0.5)
    ag.teardown([Exit(bad, t_fail + 0.01, -9)], alive=[p for p in procs if p is not bad])
    return expect(
        "One node. The kernel journal shows the OOM killer invoked by rank 2's process but killing pid <rank 5's pid> "
        "('Out of memory: Killed process ... (python)'); rank 5's log just stops, torchrun reports exitcode -9 (SIGKILL) "
        "for local_rank 5, its siblings print 'Connection closed by localRank 5' and are SIGTERMed.",
        [incident("host_oom_kill", rank=5, node="gpu-node-11", collateral=others(procs, 5), drain=False)])


def sc_skew(sc: Scenario) -> dict[str, Any]:
    era = E25
    nodes = sc.nodes(["gpu-a01", "gpu-b07"], DGX_H100, ips=["10.1.0.11", "10.1.0.27"], skews=[0.0, -4.0])
    procs = sc.procs(nodes, 4)
    comm = make_comm(sc, procs, net="Socket")
    bad = procs[2]
    paths = {n.name: f"{n.name}/console.log" for n in nodes}
    agents = {n.name: Agent(sc, paths[n.name], n, era) for n in nodes}
    for ag in agents.values():
        ag.banner(0.3)
    streams = [Stream(sc, paths[p.node.name], p, era, outer=f"[default{p.local}]:") for p in procs]
    t_train = std_run_start(sc, streams, comm, "bert-large mlm (2 nodes, TCP sockets)")
    last = 2112
    sch = schedule(sc.rng, t_train, 1, last, 520.0)
    for s in streams:
        train(s, "plain", sch, 1, last, 8, 40_000)
    t_fail = sch.at(last) + 0.38
    sa = streams[2]
    # in the console of gpu-a01 the siblings' NCCL lines land before rank 2's traceback
    for s in streams[:4]:
        if s.p is not bad:
            conn_closed(s, t_fail - 0.0005, bad.local)
    sa.tb(t_fail, [
        *user_frames(sa, "train.py", [
            ("/srv/mlm/train.py", 288, "<module>", "main(cfg)"),
            ("/srv/mlm/train.py", 251, "main", "loss = step(model, batch)"),
            ("/srv/mlm/train.py", 170, "step", "out = model(**batch)"),
            *MODULE_CALL,
            ("/srv/mlm/model.py", 77, "forward", "h = self.embed(input_ids) + self.pos[: input_ids.size(1)]"),
        ]),
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:2 and cpu!",
    ])
    agents["gpu-a01"].teardown([Exit(bad, t_fail + 0.35, 1)], alive=[p for p in procs[:4] if p is not bad])
    # gpu-b07 (clock 4 s behind): the NCCL socket to the dead peer closes, the watchdog raises ncclRemoteError
    sb4, sb6 = streams[4], streams[6]
    sb4.nccl_warn(t_fail + 1.18, "misc/socket.cc:50", "socketProgress: Connection closed by remote peer "
                                                      "gpu-a01<35112>")
    remote_error(sb4, t_fail + 1.2, ["socketProgress: Connection closed by remote peer gpu-a01<35112>"])
    remote_error(sb6, t_fail + 1.26, ["socketProgress: Connection closed by remote peer gpu-a01<35118>"])
    for s in (streams[5], streams[7]):
        conn_closed(s, t_fail + 1.5, 0)
    agents["gpu-b07"].teardown([Exit(procs[4], t_fail + 1.45, -6), Exit(procs[6], t_fail + 1.5, -6)],
                               alive=[procs[5], procs[7]])
    return expect(
        "2 nodes x 4 GPUs, one torchrun console per node ([default<local_rank>]: prefixes). gpu-b07's clock is 4 s "
        "behind gpu-a01's (compare the step lines), so gpu-b07's collateral ncclRemoteError ('remote process exited') "
        "lines carry times ~3 s EARLIER than the real cause, and in gpu-a01's console the siblings' 'Connection closed "
        "by localRank 2' lines come before rank 2's traceback. The initiator is rank 2 on gpu-a01: 'RuntimeError: "
        "Expected all tensors to be on the same device'. Naive earliest-line attribution picks rank 4 (wrong).",
        [incident("python_exception", rank=2, node="gpu-a01", collateral=others(procs, 2), drain=False)])


def sc_mismatch(sc: Scenario) -> dict[str, Any]:
    era = E25
    (node,) = sc.nodes(["dev-gpu-2"], WS_4GPU)
    procs = sc.procs([node], 4)
    comm = make_comm(sc, procs, net="Socket")
    streams = [Stream(sc, f"dev-gpu-2/rank_{p.rank}.log", p, era) for p in procs]
    t_train = std_run_start(sc, streams, comm, "ddp experiment (TORCH_DISTRIBUTED_DEBUG=DETAIL)",
                            extra=["TORCH_DISTRIBUTED_DEBUG=DETAIL: collectives are checked across ranks"])
    sch = schedule(sc.rng, t_train, 1, 4, 640.0)
    for s in streams:
        train(s, "plain", sch, 1, 3, 1, 1_000)
    t_fail = sch.at(3) + 0.21
    opts = ("TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false "
            "(default), pinned_memory=false (default), memory_format=(nullopt))")

    def fp(op: str) -> str:
        return f"CollectiveFingerPrint(SequenceNumber=12, OpType={op}, TensorShape=[1024], TensorDtypes=Float, " \
               f"TensorDeviceTypes={opts})"

    exits = []
    for s in streams:
        r = s.p.rank
        mine, peer, peer_op = ("BROADCAST", 0, "ALLREDUCE") if r == 3 else ("ALLREDUCE", 3, "BROADCAST")
        tt = t_fail + 0.002 + 0.003 * r
        msg = (f"RuntimeError: Detected mismatch between collectives on ranks. Rank {r} is running collective: "
               f"{fp(mine)}, but Rank {peer} is running collective: {fp(peer_op)}.Collectives differ in the following "
               f"aspects: \t Op type: {mine}vs {peer_op}")
        s.tb(tt, [
            *user_frames(s, "exp.py", [
                ("/home/dev/exp.py", 140, "<module>", "run()"),
                ("/home/dev/exp.py", 122, "run", "sync_stats(model)" if r == 3 else "loss.backward()"),
                *([("/home/dev/exp.py", 61, "sync_stats", "dist.broadcast(stats, src=3)"),
                   (f"{era.site}/torch/distributed/c10d_logger.py", 83, "wrapper", "return func(*args, **kwargs)"),
                   (f"{era.site}/torch/distributed/distributed_c10d.py", 2417, "broadcast",
                    "work = group.broadcast([tensor], opts)")] if r == 3 else
                  [(f"{era.site}/torch/_tensor.py", 581, "backward", "torch.autograd.backward("),
                   (f"{era.site}/torch/autograd/__init__.py", 347, "backward", "_engine_run_backward("),
                   (f"{era.site}/torch/autograd/graph.py", 825, "_engine_run_backward",
                    "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward "
                    "pass")]),
            ]),
            msg,
        ])
        exits.append(Exit(s.p, tt + 0.4, 1))
    ag = Agent(sc, "dev-gpu-2/launcher.log", node, era, "exp.py")
    ag.banner(0.5)
    ag.teardown(exits, alive=[], poll=0.1)
    return expect(
        "One node, 4 ranks, TORCH_DISTRIBUTED_DEBUG=DETAIL. At collective SequenceNumber=12 ranks 0, 1 and 2 run "
        "ALLREDUCE but rank 3 runs BROADCAST (a rank-conditional dist.broadcast). All four raise 'Detected mismatch "
        "between collectives on ranks' within 10 ms, rank 0 first; ranks 0-2 each name Rank 3 as the other side and "
        "rank 3 names Rank 0. The initiator is the odd one out by majority: rank 3; the other three are collateral.",
        [incident("collective_mismatch", rank=3, node="dev-gpu-2", collateral=[0, 1, 2], drain=False)])
