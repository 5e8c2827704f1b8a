"""Fault injection: the initiating fault, its cascade over the other ranks, decoys."""
from b7_core import ts_py, ts_plain, ts_slurm, ts_iso
from b7_text import (watchdog_timeout_block, dump_signal_from_other, heartbeat_kill, nccl_remote_error_block,
                     cuda_error_watchdog_block, py_tb, frames_train_entry, frames_allreduce, lib, xid, oom_killer_lines,
                     hexaddr)
from b7_sim import fail

OPS = [("ALLREDUCE", None), ("_REDUCE_SCATTER_BASE", None), ("_ALLGATHER_BASE", None), ("ALLREDUCE", None)]


def coll_info(j, rng, F):
    cps = j.colls_per_step
    seq = j.seq0 + (F - j.resume_step) * cps + rng.randint(0, cps - 1)
    op = rng.choice(["ALLREDUCE", "_REDUCE_SCATTER_BASE", "_ALLGATHER_BASE", "ALLREDUCE", "ALLREDUCE"]) if j.trainer != "megatron" else rng.choice(["_REDUCE_SCATTER_BASE", "_ALLGATHER_BASE", "ALLREDUCE"])
    numel = rng.choice([1, 1, 4096, 262144, 40108032, 25165824, 131072000])
    if op != "ALLREDUCE":
        numel = rng.choice([5013504, 40108032, 12582912])
    return seq, op, numel


# ---------------------------------------------------------------------------------------
# NCCL transport error lines
# ---------------------------------------------------------------------------------------
def transport_error(j, rng, r, t, peer_node, kind=None):
    """NCCL WARN + INFO unwind lines for a transport failure seen by rank r towards peer_node.
    returns (lines, last_error_text)"""
    me = j.node(r)
    pp = j.nccl_prefix(r, "proxy")
    net = kind or j.net
    L = []
    if net == "ib":
        port = rng.randint(32768, 60999)
        hca = "mlx5_%d" % rng.choice(j.hca_ids)
        st = rng.choice([12, 12, 12, 5])
        vend = {12: 129, 5: 249}[st]
        dirn = rng.choice(["Send", "Recv"])
        if j.torch_minor >= 4:
            err = "NET/IB : Got completion from peer %s<%d> with status=%d opcode=%d len=0 vendor err %d (%s) localGid ::ffff:%s remoteGids::ffff:%s hca %s" % (
                peer_node.ip, port, st, rng.choice([0, 1, 32616]), vend, dirn, me.ip, peer_node.ip, hca)
            src = "transport/net_ib.cc:1696"
        else:
            err = "NET/IB : Got completion from peer %s<%d> with error %d, opcode %d, len %d, vendor err %d (%s)" % (peer_node.ip, port, st, 0, 0, vend, dirn)
            src = "transport/net_ib.cc:1295"
        L.append("%s %s NCCL WARN %s" % (pp, src, err))
        L.append("%s NCCL INFO transport/net.cc:1302 -> 6" % pp)
        L.append("%s NCCL INFO proxy.cc:698 -> 6" % pp)
        L.append("%s NCCL INFO proxy.cc:878 -> 6 [Progress Thread]" % pp)
    elif net == "ofi":
        req = hexaddr(rng)
        err = "NET/OFI Request %s completed with error. RC: 21. Error: 4 (Interrupted system call). Completed length: 0, Request: { dev: %d, size: 0, state: CREATED, direction: %s }" % (req, rng.randint(0, 3), rng.choice(["SEND", "RECV"]))
        L.append("%s NCCL WARN %s" % (pp, err))
        L.append("%s NCCL INFO transport/net.cc:1302 -> 6" % pp)
        L.append("%s NCCL INFO proxy.cc:698 -> 6" % pp)
        L.append("%s NCCL INFO proxy.cc:878 -> 6 [Progress Thread]" % pp)
    else:
        port = rng.randint(32768, 60999)
        err = "socketProgress: Connection closed by remote peer %s<%d>" % (peer_node.name, port)
        L.append("%s misc/socket.cc:50 NCCL WARN %s" % (pp, err))
        L.append("%s NCCL INFO misc/socket.cc:752 -> 6" % pp)
        L.append("%s NCCL INFO transport/net_socket.cc:474 -> 6" % pp)
        L.append("%s NCCL INFO transport/net.cc:1302 -> 6" % pp)
        L.append("%s NCCL INFO proxy.cc:698 -> 6" % pp)
        L.append("%s NCCL INFO proxy.cc:878 -> 6 [Progress Thread]" % pp)
        err = "socketProgress: Connection closed by remote peer %s<%d>" % (peer_node.name, port)
    return L, err


def remote_failure(j, rng, r, t, peer_node, kind=None):
    """rank r notices that peer_node went away (process died / link down) and aborts."""
    L, err = transport_error(j, rng, r, t, peer_node, kind)
    j.emit(r, t, "\n".join(L), "o")
    blk = nccl_remote_error_block(j, r, t + rng.uniform(0.01, 0.6), err, "remote" if j.net != "socket" or rng.random() < 0.5 else "system")
    j.emit(r, t + 0.6, "\n".join(blk), "e")
    fail(j, r, t + rng.uniform(0.7, 2.0), -6, "abort")


def timeout_failure(j, rng, r, t_coll, seq, op, numel, last_enq=None, last_done=None, dump=True):
    ran = int(j.pg_timeout * 1000 + rng.randint(5, 900))
    t = t_coll + ran / 1000.0 + rng.uniform(0, 0.2)
    le = last_enq if last_enq is not None else seq + rng.randint(0, 3)
    ld = last_done if last_done is not None else seq - 1
    blk = watchdog_timeout_block(j, r, t, seq, op, numel, ran, le, ld, dump=dump)
    j.emit(r, t, "\n".join(blk), "e")
    fail(j, r, t + rng.uniform(0.05, 1.5), -6, "abort")
    return t


def cascade(j, rng, t0, origin_nodes, exclude, mode, seq, op, numel, t_coll=None):
    """spread a failure that started at t0 on origin_nodes to every other rank.
    mode: 'fast' (transport errors within seconds), 'timeout' (watchdog), 'mixed'"""
    t_coll = t_coll if t_coll is not None else t0 - rng.uniform(0.0, 0.5)
    others = [r for r in range(j.world) if r not in exclude and j.node_of[r] not in origin_nodes]
    # ranks co-located with the origin are handled by the launcher (agent kill) unless srun/mpirun
    if j.launcher in ("srun", "mpirun"):
        others += [r for r in range(j.world) if r not in exclude and j.node_of[r] in origin_nodes]
    wave1 = set()
    if origin_nodes:
        for on in origin_nodes:
            for d in (-1, 1):
                wave1.add((on + d) % len(j.nodes))
    for r in others:
        if r in j.fates:
            continue
        m = mode
        if mode == "mixed":
            m = "fast" if j.node_of[r] in wave1 or rng.random() < 0.4 else "timeout"
        if m == "fast" and origin_nodes:
            if j.node_of[r] in wave1 or j.node_of[r] in origin_nodes:
                peer = j.nodes[rng.choice(list(origin_nodes))]
                t = t0 + rng.uniform(0.4, 8)
            else:
                # second wave: their neighbours aborted
                nb = j.nodes[(j.node_of[r] + rng.choice([-1, 1])) % len(j.nodes)]
                peer = nb
                t = t0 + rng.uniform(6, 45)
            if peer.idx == j.node_of[r]:
                peer = j.nodes[(peer.idx + 1) % len(j.nodes)]
            remote_failure(j, rng, r, t, peer)
        else:
            timeout_failure(j, rng, r, t_coll, seq, op, numel)


# ---------------------------------------------------------------------------------------
# kernel collateral
# ---------------------------------------------------------------------------------------
def xid45_collateral(j, rng, nodes, pname):
    for ni in nodes:
        n = j.nodes[ni]
        for r in n.ranks:
            f = j.fates.get(r)
            if f and f["code"] in (-9, -6) and rng.random() < 0.5:
                j.kern(ni, f["t"] + rng.uniform(0.05, 1.0), xid(j, n, j.local[r], 45, j.pid[r], pname, "Ch %08x" % rng.randint(8, 40)))


def culprit_python_exit(j, rng, r, t, exc_lines, frames_extra, code=1, chained=None):
    frames = frames_train_entry(j) + frames_extra
    j.emit(r, t, "\n".join(py_tb(j, r, frames, exc_lines, chained)), "e")
    fail(j, r, t + rng.uniform(0.5, 3), code, "exc")


def cuda_err_lines(err):
    return ["RuntimeError: CUDA error: %s" % err,
            "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
            "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
            "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""]


def sync_frames(j, rng):
    w = j.workdir
    return rng.choice([
        [(w + "/train.py" if j.trainer not in ("megatron",) else w + "/megatron/training/training.py", 1186 if j.trainer == "megatron" else 344,
          "training_log" if j.trainer == "megatron" else "train_step", "loss_item = loss.item()" if j.trainer != "megatron" else "total_loss_dict[key] = total_loss_dict.get(key, torch.tensor([0.0], dtype=torch.float, device='cuda')) + loss_dict[key]")],
        [(lib(j, "torch/_tensor.py"), 581, "backward", "torch.autograd.backward("),
         (lib(j, "torch/autograd/__init__.py"), 347, "backward", "_engine_run_backward("),
         (lib(j, "torch/autograd/graph.py"), 825, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")],
        [(lib(j, "torch/optim/optimizer.py"), 487, "wrapper", "out = func(*args, **kwargs)"),
         (lib(j, "torch/optim/adamw.py"), 220, "step", "adamw("),
         (lib(j, "torch/optim/adamw.py"), 782, "adamw", "func(")],
    ])
