"""Fault injectors.  Each injector drives the training timeline, writes the
evidence of its fault (rank output, kernel messages, ...) and schedules how
the other ranks react.  It returns the truth record for the run."""
from b3_core import fmt, xid_pci, hexid
from b3_sim import schedule
import b3_train as T


class Ctx(object):
    def __init__(self, job, t_train, step_time):
        self.job = job
        self.t = t_train
        self.step_time = step_time
        self.step = job.flags.get("resume_step", 0)
        self.total = job.flags.get("total_steps", 0) or None

    def train(self, n, **kw):
        t, last = T.progress(self.job, self.t, n, self.step_time, step0=self.step, total=self.total, **kw)
        self.t, self.step = t, last
        return t


def pick_culprit(job, avoid_zero=True, prefer_node=None):
    rng = job.rng
    cands = [rk.r for rk in job.ranks if not (avoid_zero and rk.r == 0 and job.world > 1)]
    if prefer_node is not None:
        cands = [rk.r for rk in job.ranks_on(prefer_node)]
    if rng.random() < 0.12 and not avoid_zero:
        return 0
    return cands[int(rng.random() * len(cands))]


def make_work(job, step):
    rng = job.rng
    fw = job.framework
    if fw in ("fsdp", "deepspeed", "nemo") and rng.random() < 0.7:
        op = rng.choice(["_REDUCE_SCATTER_BASE", "_ALLGATHER_BASE"])
        nout = rng.choice([68124672, 131072000, 54525952, 25690112])
        nin = nout * job.world if op == "_REDUCE_SCATTER_BASE" else nout // max(job.world, 1)
        if op == "_ALLGATHER_BASE":
            nin, nout = nout // max(job.world, 1), nout
        per = rng.choice([96, 130, 162])
    elif fw == "megatron":
        op = rng.choice(["ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "COALESCED"])
        nin = rng.choice([16777216, 4194304, 33554432])
        nout = nin
        per = rng.choice([210, 340])
    else:
        op = rng.choice(["ALLREDUCE", "ALLREDUCE", "ALLREDUCE", "COALESCED"])
        nin = rng.choice([25165824, 6553600, 466119168, 9801523, 1])
        nout = nin
        per = rng.choice([6, 12, 27])
    seq = step * per + rng.randint(3, per)
    return dict(seq=seq, op=op, nin=nin, nout=nout)


def _wd_cb(work, ran_ms, enq, comp):
    def cb(job, r, t):
        return (T.watchdog_timeout(job, r, t, work, ran_ms, enq, comp), -6)
    return cb


def peers_timeout(job, skip, t_coll, work, bump=(1, 3), only=None):
    rng = job.rng
    for rk in job.ranks:
        if rk.r in skip or (only is not None and rk.r not in only):
            continue
        t_to = t_coll + job.timeout_ms / 1000.0 + rng.uniform(0.005, 1.2)
        ran = int((t_to - t_coll) * 1000) + rng.randint(0, 40)
        enq = work["seq"] + rng.randint(*bump)
        schedule(job, rk.r, t_to, _wd_cb(work, ran, enq, work["seq"] - 1))


def ib_last_error(job, peer_node, my_node, recv=True):
    rng = job.rng
    p = job.nodes[peer_node]
    m = job.nodes[my_node]
    port = rng.randint(32768, 60999)
    pip = p.ib_ip or p.ip
    mip = m.ib_ip or m.ip
    if job.fabric == "socket":
        if job.nccl >= "2.18":
            return "socketProgress: Connection closed by remote peer %s<%d>" % (pip, port)
        return "Net : Connection closed by remote peer %s<%d>" % (pip, port)
    if job.nccl >= "2.19":
        return ("NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (%s) localGid ::ffff:%s remoteGids::ffff:%s"
                % (pip, port, 0 if recv else 1, "Recv" if recv else "Send", mip, pip))
    return "NET/IB : Got completion from peer %s<%d> with error 12, opcode %d, len 0, vendor err 129" % (pip, port, 0 if recv else 1)


def _nccl_err_cb(peer_node, kind="remote", warn=True):
    def cb(job, r, t):
        le = ib_last_error(job, peer_node, job.ranks[r].node, recv=job.rng.random() < 0.6)
        if job.nccl_debug and warn:
            srcf = "transport/net_ib.cc:1696" if job.fabric in ("ib", "roce") else "misc/socket.cc:49"
            job.nccl_line(r, t - 0.002, le, level="WARN", src=srcf)
            job.nccl_line(r, t - 0.001, "transport/net.cc:1302 -> 6" if job.fabric != "socket" else "misc/socket.cc:752 -> 6")
            job.nccl_line(r, t - 0.0005, "proxy.cc:%d -> 6 [Progress Thread]" % (878 if job.nccl < "2.20" else 1523))
        d = T.nccl_remote_error(job, r, t, le, kind="remote" if job.fabric != "socket" or kind == "remote" else "system",
                                via="python" if job.rng.random() < 0.35 else "watchdog")
        return (d, -6 if job.tv() >= 202 else 1)
    return cb


def peers_react_to_death(job, dead_ranks, tf, work, mode=None):
    """After culprit(s) died at tf: peers either time out, or get a fast NCCL
    error (cascade along the ring), depending on the fabric and luck."""
    rng = job.rng
    dead_nodes = sorted(set(job.ranks[r].node for r in dead_ranks))
    mode = mode or job.flags.get("peer_mode") or rng.choice(["timeout", "timeout", "fast"])
    t_coll = tf + rng.uniform(0.05, max(0.1, job.flags.get("step_time", 1.0)))
    if len(job.nodes) == 1 or mode == "timeout":
        peers_timeout(job, dead_ranks, t_coll, work)
        return "timeout"
    n = len(job.nodes)
    for rk in job.ranks:
        if rk.r in dead_ranks:
            continue
        if rk.node in dead_nodes:
            # same node: P2P/NVLink peers just hang -> timeout (unless agent kills them)
            schedule(job, rk.r, t_coll + job.timeout_ms / 1000.0 + rng.uniform(0.01, 1.0),
                     _wd_cb(work, job.timeout_ms + rng.randint(5, 900), work["seq"] + rng.randint(1, 3), work["seq"] - 1))
            continue
        dist = min((abs(rk.node - d) % n, n - abs(rk.node - d) % n) for d in dead_nodes)[0]
        if dist <= 1:
            peer = dead_nodes[0]
            schedule(job, rk.r, tf + rng.uniform(8, 25), _nccl_err_cb(peer))
        elif dist == 2 and rng.random() < 0.6:
            # cascade: neighbour of the dead node aborted, we see *its* address
            nb = [x for x in range(n) if x not in dead_nodes and min(abs(x - d) % n for d in dead_nodes) == 1]
            peer = nb[0] if nb else dead_nodes[0]
            schedule(job, rk.r, tf + rng.uniform(30, 60), _nccl_err_cb(peer))
        else:
            schedule(job, rk.r, t_coll + job.timeout_ms / 1000.0 + rng.uniform(0.01, 1.0),
                     _wd_cb(work, job.timeout_ms + rng.randint(5, 900), work["seq"] + rng.randint(1, 3), work["seq"] - 1))
    return "fast"


# --------------------------------------------------------------------------
# kernel message helpers
# --------------------------------------------------------------------------

def k_gpu_banner(job, nidx, t, pci, uuid):
    job.kmsg(nidx, t, "NVRM: GPU at PCI:%s: %s" % (xid_pci(pci), uuid), 4)
    job.kmsg(nidx, t + 1e-4, "NVRM: GPU Board Serial Number: %d" % job.rng.randint(1320000000000, 1659999999999), 4)


def gpu_uuid(job):
    h = hexid(job.rng, 32)
    return "GPU-%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


def rank_pids_table(job, nidx, killed_pid, rss_big):
    rng = job.rng
    rows = ["Tasks state (memory values in pages):",
            "[  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name"]
    for rk in job.ranks_on(nidx):
        rss = rss_big if rk.pid == killed_pid else int(rss_big * rng.uniform(0.55, 0.8))
        rows.append("[%7d]  %4d %7d %8d %8d %14d %8d %13d python" % (rk.pid, 1000, rk.pid, int(rss * 1.6), rss, int(rss * 8.4), 0, 0))
    rows.append("[%7d]  %4d %7d %8d %8d %14d %8d %13d %s" % (job.nodes[nidx].agent_pid, 1000, job.nodes[nidx].agent_pid, 412341, 98123, 1032192, 0, 0,
                                                          "torchrun" if job.launcher == "torchrun" else "bash"))
    return "\n".join(rows)


def oom_kill_report(job, nidx, t, victim_pid, comm="python", cgroup=None, task_memcg="/"):
    rng = job.rng
    rss_pages = rng.randint(28000000, 52000000)
    job.kmsg(nidx, t, "%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % comm, 4)
    job.kmsg(nidx, t + 1e-4, "CPU: %d PID: %d Comm: %s Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu"
             % (rng.randint(0, 111), victim_pid + rng.randint(1, 40), comm, rng.choice([105, 113, 119]), rng.choice([115, 123, 129])), 4)
    job.kmsg(nidx, t + 2e-4, "Hardware name: %s" % rng.choice(["Supermicro SYS-821GE-TNHR/X13DEG-OAD, BIOS 2.1 04/12/2024",
                                                                "Dell Inc. PowerEdge XE9680/0RRJ2C, BIOS 1.6.10 02/15/2024",
                                                                "NVIDIA DGXH100/DGXH100, BIOS 1.3.7 05/23/2024"]), 4)
    job.kmsg(nidx, t + 3e-4, "Call Trace:\n <TASK>\n dump_stack_lvl+0x4a/0x63\n dump_header+0x4a/0x1f4\n oom_kill_process.cold+0xb/0x10\n"
             " out_of_memory+0x106/0x2e0\n __alloc_pages_slowpath.constprop.0+0x9b4/0xa60\n __alloc_pages+0x30f/0x340\n"
             " alloc_pages+0x8e/0x110\n __page_cache_alloc+0x79/0x90\n pagecache_get_page+0x1f9/0x420\n filemap_fault+0x4e2/0x9d0\n"
             " __do_fault+0x3c/0x130\n do_fault+0x211/0x3e0\n __handle_mm_fault+0x5cb/0x800\n handle_mm_fault+0xd8/0x2c0\n"
             " do_user_addr_fault+0x1c9/0x670\n exc_page_fault+0x77/0x170\n asm_exc_page_fault+0x27/0x30\n </TASK>", 4)
    job.kmsg(nidx, t + 4e-4, "Mem-Info:\nactive_anon:%d inactive_anon:%d isolated_anon:0\n active_file:412 inactive_file:233 isolated_file:0\n"
             " unevictable:0 dirty:0 writeback:0\n slab_reclaimable:512341 slab_unreclaimable:401233\n mapped:1320 shmem:6123412 pagetables:1623411 bounce:0\n"
             " kernel_misc_reclaimable:0\n free:1432211 free_pcp:1231 free_cma:0" % (rss_pages * 7, rss_pages // 9), 4)
    job.kmsg(nidx, t + 5e-4, rank_pids_table(job, nidx, victim_pid, rss_pages), 6)
    if cgroup:
        job.kmsg(nidx, t + 6e-4, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=%s,mems_allowed=0-1,oom_memcg=%s,task_memcg=%s,task=%s,pid=%d,uid=1000"
                 % (cgroup, cgroup, task_memcg, comm, victim_pid), 6)
        job.kmsg(nidx, t + 7e-4, "Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:0kB, UID:1000 pgtables:%dkB oom_score_adj:0"
                 % (victim_pid, comm, rss_pages * 6, rss_pages * 4, rng.randint(60000, 90000), rss_pages // 30), 3)
    else:
        job.kmsg(nidx, t + 6e-4, "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=%s,task=%s,pid=%d,uid=1000"
                 % (task_memcg, comm, victim_pid), 6)
        job.kmsg(nidx, t + 7e-4, "Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:0kB, UID:1000 pgtables:%dkB oom_score_adj:0"
                 % (victim_pid, comm, rss_pages * 6, rss_pages * 4, rng.randint(60000, 90000), rss_pages // 30), 3)
    job.kmsg(nidx, t + rng.uniform(0.3, 2.0), "oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % (victim_pid, comm), 6)


# --------------------------------------------------------------------------
# decoys
# --------------------------------------------------------------------------

def decoy_kernel_noise(job, nidx, t0, t1):
    rng = job.rng
    picks = rng.sample(["edac", "perf", "syn", "nfsok", "hrtimer", "peermem", "mlxfw", "cpuhot"], rng.randint(1, 3))
    for p in picks:
        t = rng.uniform(t0, t1)
        if p == "edac":
            job.kmsg(nidx, t, "EDAC MC%d: 1 CE memory read error on CPU_SrcID#%d_MC#%d_Chan#%d_DIMM#0 (channel:%d slot:0 page:0x%x offset:0x%x grain:32 syndrome:0x0 - err_code:0x0000:0x0090 SystemAddress:0x%x ProcessorSocketId:0x%d MemoryControllerId:0x0 ChannelAddress:0x%x ChannelId:0x0 RankAddress:0x%x PhysicalRankId:0x0 DimmSlotId:0x0 Row:0x%x Column:0x3f0 Bank:0x1 BankGroup:0x2 ChipSelect:0x0 ChipId:0x0)"
                     % (rng.randint(0, 3), rng.randint(0, 1), rng.randint(0, 3), rng.randint(0, 1), rng.randint(0, 1), rng.randint(0x100000, 0xffffff),
                        rng.randint(0x100, 0xfff), rng.randint(0x1000000000, 0x9fffffffff), rng.randint(0, 1), rng.randint(0x1000000, 0xfffffff),
                        rng.randint(0x1000000, 0xfffffff), rng.randint(0x1000, 0xffff)), 3, "kernel")
        elif p == "perf":
            job.kmsg(nidx, t, "perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d"
                     % (rng.randint(2502, 3200), 2500, rng.choice([79750, 63750, 50000])), 4)
        elif p == "syn" and nidx == 0:
            job.kmsg(nidx, t, "TCP: request_sock_TCP: Possible SYN flooding on port 29500. Sending cookies.  Check SNMP counters.", 6)
        elif p == "nfsok":
            srv = job.flags.get("nfs_server", "nfs01")
            job.kmsg(nidx, t, "nfs: server %s not responding, still trying" % srv, 5)
            job.kmsg(nidx, t + rng.uniform(4, 20), "nfs: server %s OK" % srv, 5)
        elif p == "hrtimer":
            job.kmsg(nidx, t, "hrtimer: interrupt took %d ns" % rng.randint(120000, 990000), 4)
        elif p == "peermem":
            job.kmsg(nidx, t, "nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing", 3)
        elif p == "mlxfw":
            job.kmsg(nidx, t, "mlx5_core 0000:%02x:00.0: mlx5_pcie_event:301:(pid %d): PCIe slot advertised sufficient power (75W)."
                     % (rng.choice([0x1a, 0x3c, 0x4d, 0x5e]), rng.randint(1000, 9999)), 6)
        elif p == "cpuhot":
            job.kmsg(nidx, t, "mce: CPU%d: Package temperature above threshold, cpu clock throttled (total events = %d)" % (rng.randint(0, 95), rng.randint(1, 40)), 4)
            job.kmsg(nidx, t + rng.uniform(0.001, 0.5), "mce: CPU%d: Package temperature/speed normal" % rng.randint(0, 95), 4)


def decoy_old_xid(job, nidx):
    """An Xid from a previous job, days before this job started."""
    rng = job.rng
    t = job.t0 - rng.uniform(2, 9) * 86400
    if t < job.nodes[nidx].boot + 600:
        t = job.nodes[nidx].boot + rng.uniform(600, 5000)
        if t > job.t0 - 600:
            return None
    rk = job.ranks_on(nidx)[int(rng.random() * len(job.ranks_on(nidx)))]
    kind = rng.choice(["13", "31", "43", "63"])
    pci = xid_pci(rk.pci)
    opid = rng.randint(20000, 990000)
    if kind == "13":
        job.kmsg(nidx, t, "NVRM: Xid (PCI:%s): 13, pid=%d, name=python3, Graphics SM Warp Exception on (GPC 4, TPC 1, SM 0): Out Of Range Address" % (pci, opid), 4)
        job.kmsg(nidx, t + 1e-4, "NVRM: Xid (PCI:%s): 13, pid=%d, name=python3, Graphics Exception: ESR 0x524730=0x201000e 0x524734=0x24 0x524728=0xc81eb60 0x52472c=0x1174" % (pci, opid), 4)
    elif kind == "31":
        job.kmsg(nidx, t, "NVRM: Xid (PCI:%s): 31, pid=%d, name=python, Ch 00000010, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC3 GPCCLIENT_T1_7 faulted @ 0x7f3c_1a220000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (pci, opid), 4)
    elif kind == "43":
        job.kmsg(nidx, t, "NVRM: Xid (PCI:%s): 43, pid=%d, name=pt_main_thread, Ch 00000008" % (pci, opid), 4)
    else:
        job.kmsg(nidx, t, "NVRM: Xid (PCI:%s): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row (0x0000000000%s) marked for remapping, reset gpu to activate."
                 % (pci, hexid(rng, 6)), 4)
    return (t, rk.r, kind)


def decoy_later_fault(job, t, avoid_nodes):
    """A second, later and unrelated-looking event (the earlier fault is the cause)."""
    rng = job.rng
    others = [nd.idx for nd in job.nodes if nd.idx not in avoid_nodes]
    if not others or not job.flags.get("has_kernel"):
        return None
    n = rng.choice(others)
    kind = rng.choice(["flap", "nfs", "edac"])
    if kind == "flap" and job.fabric in ("ib", "roce"):
        bus = rng.choice(["1a", "3c", "9c", "cc"])
        job.kmsg(n, t, "mlx5_core 0000:%s:00.0: Port module event: module %d, Cable unplugged" % (bus, rng.randint(0, 7)), 3)
        job.kmsg(n, t + rng.uniform(20, 90), "mlx5_core 0000:%s:00.0: Port module event: module %d, Cable plugged" % (bus, rng.randint(0, 7)), 6)
        return "later NIC module event on %s" % job.nodes[n].host
    if kind == "nfs":
        job.kmsg(n, t, "nfs: server %s not responding, still trying" % job.flags.get("nfs_server", "nfs01"), 5)
        job.kmsg(n, t + rng.uniform(30, 200), "nfs: server %s OK" % job.flags.get("nfs_server", "nfs01"), 5)
        return "later NFS hiccup on %s" % job.nodes[n].host
    decoy_kernel_noise(job, n, t, t + 60)
    return "later kernel noise on %s" % job.nodes[n].host


# --------------------------------------------------------------------------
# injectors
# --------------------------------------------------------------------------

def _truth(cause, rank=None, node=None, inferable=True, notes="", drain=False):
    return dict(cause=cause, rank=rank, node=node, rank_inferable=inferable, notes=notes, drain=drain)


def _run_steps(job, ctx, lo=40, hi=600):
    rng = job.rng
    n = rng.randint(lo, hi)
    n = max(lo, int(n * job.verbosity))
    ckpt = job.flags.get("ckpt_every", 0)
    ctx.train(n, ckpt_every=ckpt, skip_nan=job.flags.get("nan_steps"))
    return ctx.t


def inj_cuda_oom(job, ctx):
    rng = job.rng
    tf = _run_steps(job, ctx)
    r = pick_culprit(job, avoid_zero=rng.random() < 0.8)
    t = tf + rng.uniform(0.1, job.flags.get("step_time", 1.0))
    where = rng.choice(["fwd", "bwd", "opt", "eval"])
    fr = T.user_frames(job)
    site = job.site
    if where == "fwd":
        fr = fr + [("/workspace/" + job.script, 311, "train_step", "logits = model(input_ids, attention_mask=attn_mask)")] + T.model_frames(job) + [
            ("/workspace/model/attention.py", 141, "forward", "scores = torch.matmul(q, k.transpose(-2, -1)) * self.scale")]
    elif where == "bwd":
        fr = fr + [("/workspace/" + job.script, 318, "train_step", "scaler.scale(loss).backward()"),
                   (site + "/torch/_tensor.py", 521 if job.tv() >= 204 else 492, "backward", "torch.autograd.backward("),
                   (site + "/torch/autograd/__init__.py", 289 if job.tv() >= 204 else 251, "backward", "_engine_run_backward("),
                   (site + "/torch/autograd/graph.py", 768, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]
    elif where == "opt":
        fr = fr + [("/workspace/" + job.script, 326, "train_step", "optimizer.step()"),
                   (site + "/torch/optim/optimizer.py", 484, "wrapper", "out = func(*args, **kwargs)"),
                   (site + "/torch/optim/adamw.py", 227, "step", "adamw("),
                   (site + "/torch/optim/adamw.py", 767, "adamw", "func(")]
    else:
        fr = fr[:2] + [("/workspace/" + job.script, 455, "train", "val_loss = evaluate(model, val_loader)"),
                       ("/workspace/" + job.script, 207, "evaluate", "out = model(batch[\"input_ids\"].cuda(non_blocking=True))")] + T.model_frames(job)
    gib = rng.choice([1.95, 2.0, 3.91, 7.81, 15.62, 896.0 / 1024, 10.5])
    exc = T.cuda_oom_text(job, r, gib, rng.uniform(80, 1900))
    job.pytrace(r, t, T.py_traceback(job, fr, exc))
    job.errtext[r] = exc
    job.end[r] = (t + rng.uniform(0.3, 3.0), 1)
    work = make_work(job, ctx.step)
    peers_react_to_death(job, [r], t, work)
    notes = "CUDA OOM (%s pass) on rank %d; peers time out or get NCCL errors afterwards" % (where, r)
    if rng.random() < 0.3 and job.world > 2:
        r2 = pick_culprit(job)
        if r2 != r and job.ranks[r2].node != job.ranks[r].node:
            t2 = t + rng.uniform(2, 15)
            job.pytrace(r2, t2, T.py_traceback(job, T.user_frames(job) + [("/workspace/" + job.script, 318, "train_step", "scaler.scale(loss).backward()")],
                                               T.cuda_oom_text(job, r2, gib / 2, rng.uniform(50, 600))))
            job.errtext[r2] = "torch.OutOfMemoryError: CUDA out of memory."
            job.end[r2] = (t2 + 1.0, 1)
            notes += "; a second rank %d also OOMs %.0fs later" % (r2, t2 - t)
    return _truth("cuda_oom", r, job.ranks[r].node, True, notes)


def inj_illegal_memory_access(job, ctx):
    rng = job.rng
    tf = _run_steps(job, ctx)
    r = pick_culprit(job)
    rk = job.ranks[r]
    t = tf + rng.uniform(0.1, 1.0)
    variant = rng.choice(["python", "watchdog", "nccl"])
    msg = "an illegal memory access was encountered"
    if variant == "python":
        fr = T.user_frames(job) + [("/workspace/" + job.script, 322, "train_step", "loss_val = loss.item()")]
        job.pytrace(r, t, T.py_traceback(job, fr, T.cuda_err_text(job, msg).rstrip("\n")))
        job.errtext[r] = "RuntimeError: CUDA error: " + msg
        job.end[r] = (t + rng.uniform(0.5, 3), 1)
    elif variant == "watchdog" and job.tv() >= 202:
        s = T.src(job)
        body = T.cuda_err_text(job, msg)
        m = "%s Process group watchdog thread terminated with exception: CUDA error: %s\n%s" % (job.pg(r), msg, body.split("\n", 1)[1].rstrip("\n"))
        job.c10d(r, t, "E", "ProcessGroupNCCL.cpp:%d" % s["term"], m)
        fr = T.frames_watchdog(job, "c10_cuda_check_implementation").replace("ProcessGroupNCCL.cpp", "CUDAException.cpp")
        job.out(r, t + 0.001, fr)
        job.out(r, t + 0.002, "terminate called after throwing an instance of 'c10::DistBackendError'\n  what():  %s\n%s" % (m, fr))
        job.errtext[r] = "Signal 6 (SIGABRT)"
        job.end[r] = (t + rng.uniform(0.2, 2), -6)
    else:
        if job.nccl_debug:
            job.nccl_line(r, t - 0.001, "Cuda failure '%s'" % msg, "WARN", "enqueue.cc:1556")
        job.pytrace(r, t, T.py_traceback(job, T.user_frames(job) + [
            ("/workspace/" + job.script, 330, "train_step", "dist.all_reduce(grad_norm_sq)"),
            (job.site + "/torch/distributed/c10d_logger.py", 83, "wrapper", "return func(*args, **kwargs)"),
            (job.site + "/torch/distributed/distributed_c10d.py", 2288 if job.tv() >= 204 else 2050, "all_reduce", "work = group.allreduce([tensor], opts)")],
            "torch.distributed.DistBackendError: NCCL error in: %s/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s\n"
            "ncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\nCuda failure '%s'" % (T.torch_src_prefix(job), 1970 if job.tv() >= 204 else 1691, job.nccl, msg)))
        job.errtext[r] = "torch.distributed.DistBackendError: NCCL error ... unhandled cuda error"
        job.end[r] = (t + rng.uniform(0.5, 3), 1)
    if job.flags.get("has_kernel"):
        pci = xid_pci(rk.pci)
        job.kmsg(rk.node, t - rng.uniform(0.001, 0.05), "NVRM: Xid (PCI:%s): 31, pid=%d, name=python, Ch 00000%03x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x7f%s_%s000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_%s"
                 % (pci, rk.pid, rng.randint(8, 40), rng.randint(0, 7), rng.randint(0, 15), hexid(rng, 2), hexid(rng, 5), rng.choice(["READ", "WRITE"])), 4)
    work = make_work(job, ctx.step)
    peers_react_to_death(job, [r], t, work)
    return _truth("illegal_memory_access", r, rk.node, True,
                  "illegal memory access (%s path) on rank %d%s" % (variant, r, " with an app-caused Xid 31 in the kernel log" if job.flags.get("has_kernel") else ""))


EXC_VARIANTS = ["keyerror", "fnf", "assert", "shape", "quota", "json", "zerodiv", "value"]


def inj_python_exception(job, ctx):
    rng = job.rng
    tf = _run_steps(job, ctx)
    v = rng.choice(EXC_VARIANTS)
    r = pick_culprit(job, avoid_zero=(v != "quota"))
    if v == "quota":
        r = 0
    t = tf + rng.uniform(0.1, 2.0)
    site = job.site
    uf = T.user_frames(job)
    if v == "keyerror":
        w = rng.randint(0, 7)
        tb = T.py_traceback(job, T.user_frames(job, "data") + [
            (site + "/torch/utils/data/dataloader.py", 630 if job.tv() >= 204 else 633, "__next__", "data = self._next_data()"),
            (site + "/torch/utils/data/dataloader.py", 1344, "_next_data", "return self._process_data(data)"),
            (site + "/torch/utils/data/dataloader.py", 1370, "_process_data", "data.reraise()"),
            (site + "/torch/_utils.py", 706, "reraise", "raise exception")],
            "KeyError: Caught KeyError in DataLoader worker process %d.\nOriginal Traceback (most recent call last):\n"
            "  File \"%s/torch/utils/data/_utils/worker.py\", line 309, in _worker_loop\n    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]\n"
            "  File \"%s/torch/utils/data/_utils/fetch.py\", line 52, in fetch\n    data = [self.dataset[idx] for idx in possibly_batched_index]\n"
            "  File \"%s/torch/utils/data/_utils/fetch.py\", line 52, in <listcomp>\n    data = [self.dataset[idx] for idx in possibly_batched_index]\n"
            "  File \"/workspace/data/jsonl_dataset.py\", line 77, in __getitem__\n    text = record[\"text\"]\nKeyError: 'text'" % (w, site, site, site))
        et = "KeyError: Caught KeyError in DataLoader worker process %d." % w
    elif v == "fnf":
        shard = "/scratch/%s/data/train-%05d-of-01024.parquet" % (job.jobname, rng.randint(0, 1023))
        tb = T.py_traceback(job, T.user_frames(job, "data") + [
            ("/workspace/data/sharded.py", 141, "__iter__", "table = pq.read_table(path, columns=self.columns)"),
            (site + "/pyarrow/parquet/core.py", 1793, "read_table", "dataset = ParquetDataset("),
            (site + "/pyarrow/parquet/core.py", 1371, "__init__", "self._dataset = ds.dataset(path_or_paths, filesystem=filesystem,")],
            "FileNotFoundError: [Errno 2] Failed to open local file '%s'. Detail: [errno 2] No such file or directory" % shard)
        et = "FileNotFoundError: %s" % shard
    elif v == "assert":
        tb = T.py_traceback(job, uf + [("/workspace/" + job.script, 298, "train_step", "assert torch.isfinite(loss).all(), f\"non-finite loss {loss.item()} at step {step}\"")],
                            "AssertionError: non-finite loss nan at step %d" % (ctx.step + 1))
        et = "AssertionError: non-finite loss nan"
    elif v == "shape":
        tb = T.py_traceback(job, uf + [("/workspace/" + job.script, 311, "train_step", "logits = model(input_ids, attention_mask=attn_mask)")] + T.model_frames(job) + [
            ("/workspace/model/rope.py", 58, "apply_rotary_emb", "return (x * cos) + (rotate_half(x) * sin)")],
            "RuntimeError: The size of tensor a (4097) must match the size of tensor b (4096) at non-singleton dimension 2")
        et = "RuntimeError: The size of tensor a (4097) must match the size of tensor b (4096)"
    elif v == "quota":
        tb = T.py_traceback(job, uf[:2] + [("/workspace/" + job.script, 477, "train", "save_checkpoint(model, optimizer, step, cfg.ckpt_dir)"),
                                           ("/workspace/utils/ckpt.py", 64, "save_checkpoint", "torch.save(state, tmp_path)"),
                                           (site + "/torch/serialization.py", 652, "save", "with _open_zipfile_writer(f) as opened_zipfile:"),
                                           (site + "/torch/serialization.py", 499, "__exit__", "self.file_like.write_end_of_file()")],
                            "RuntimeError: [enforce fail at inline_container.cc:603] . unexpected pos 3477289856 vs 3477289744",
                            chained=T.py_traceback(job, [(site + "/torch/serialization.py", 653, "save", "_save(obj, opened_zipfile, pickle_module, pickle_protocol, _disable_byteorder_record)"),
                                                         (site + "/torch/serialization.py", 887, "_save", "zip_file.write_record(name, storage, num_bytes)")],
                                                   "OSError: [Errno 122] Disk quota exceeded"))
        et = "OSError: [Errno 122] Disk quota exceeded"
    elif v == "json":
        tb = T.py_traceback(job, T.user_frames(job, "data") + [("/workspace/data/jsonl_dataset.py", 71, "__getitem__", "record = json.loads(line)"),
                                                                ("/usr/lib/python3.10/json/__init__.py", 346, "loads", "return _default_decoder.decode(s)"),
                                                                ("/usr/lib/python3.10/json/decoder.py", 337, "decode", "obj, end = self.raw_decode(s, idx=_w(s, 0))"),
                                                                ("/usr/lib/python3.10/json/decoder.py", 353, "raw_decode", "obj, end = self.scan_once(s, idx)")],
                            "json.decoder.JSONDecodeError: Unterminated string starting at: line 1 column 1822 (char 1821)")
        et = "json.decoder.JSONDecodeError: Unterminated string"
    elif v == "zerodiv":
        tb = T.py_traceback(job, uf + [("/workspace/" + job.script, 341, "train_step", "tokens_per_sec = n_tokens / (time.perf_counter() - t_data)"),
                                       ], "ZeroDivisionError: float division by zero")
        et = "ZeroDivisionError: float division by zero"
    else:
        tb = T.py_traceback(job, uf + [("/workspace/" + job.script, 305, "train_step", "loss = F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1), ignore_index=-100)"),
                                       (site + "/torch/nn/functional.py", 3104 if job.tv() >= 204 else 3059, "cross_entropy", "return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)")],
                            "ValueError: Expected input batch_size (8176) to match target batch_size (8192).")
        et = "ValueError: Expected input batch_size (8176) to match target batch_size (8192)."
    job.pytrace(r, t, tb)
    job.errtext[r] = et
    job.errtb[r] = tb
    job.end[r] = (t + rng.uniform(0.5, 4.0), 1)
    work = make_work(job, ctx.step)
    peers_react_to_death(job, [r], t, work)
    return _truth("python_exception", r, job.ranks[r].node, True, "%s raised on rank %d (%s)" % (et.split(":")[0], r, v))


def inj_crash_signal(job, ctx):
    rng = job.rng
    tf = _run_steps(job, ctx)
    r = pick_culprit(job)
    rk = job.ranks[r]
    t = tf + rng.uniform(0.05, 1.0)
    v = rng.choice(["segv", "segv", "segv_silent", "bus", "abort"])
    site = job.site
    lib = rng.choice([("flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so", site + "/flash_attn/flash_attn_interface.py", 90, "_flash_attn_forward"),
                      ("libcustom_fused_ops.so", "/workspace/kernels/fused_ops.py", 41, "fused_rmsnorm"),
                      ("_C.cpython-310-x86_64-linux-gnu.so", site + "/apex/normalization/fused_layer_norm.py", 253, "forward")])
    if v in ("segv", "bus"):
        nm = "Segmentation fault" if v == "segv" else "Bus error"
        txt = ("Fatal Python error: %s\n\nThread 0x%016x (most recent call first):\n  File \"/usr/lib/python3.10/threading.py\", line 324 in wait\n"
               "  File \"/usr/lib/python3.10/threading.py\", line 607 in wait\n  File \"%s/tqdm/_monitor.py\", line 60 in run\n"
               "  File \"/usr/lib/python3.10/threading.py\", line 1016 in _bootstrap_inner\n  File \"/usr/lib/python3.10/threading.py\", line 973 in _bootstrap\n\n"
               "Current thread 0x%016x (most recent call first):\n  File \"%s\", line %d in %s\n  File \"/workspace/model/attention.py\", line 152 in forward\n"
               "  File \"%s/torch/nn/modules/module.py\", line 1562 in _call_impl\n  File \"%s/torch/nn/modules/module.py\", line 1553 in _wrapped_call_impl\n"
               "  File \"/workspace/model/transformer.py\", line 288 in forward\n  File \"/workspace/%s\", line 311 in train_step\n  File \"/workspace/%s\", line 402 in train\n"
               "  File \"/workspace/%s\", line 571 in main\n  File \"/workspace/%s\", line 618 in <module>\n\n"
               "Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, numpy.linalg._umath_linalg, torch._C, torch._C._fft, torch._C._linalg, "
               "torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special, yaml._yaml, pyarrow.lib, pandas._libs.tslibs.np_datetime (total: %d)"
               % (nm, 0x7f0000000000 + rng.randint(0, 0xffffffff) * 0x1000 + 0x640, site, 0x7f0000000000 + rng.randint(0, 0xffffffff) * 0x1000 + 0x740,
                  lib[1], lib[2], lib[3], site, site, job.script, job.script, job.script, job.script, rng.randint(90, 140)))
        job.out(r, t, txt)
        code = -11 if v == "segv" else -7
        job.errtext[r] = "Signal %d (%s)" % (-code, "SIGSEGV" if v == "segv" else "SIGBUS")
    elif v == "segv_silent":
        code = -11
        job.errtext[r] = "Signal 11 (SIGSEGV)"
    else:
        job.out(r, t, rng.choice(["free(): invalid pointer", "double free or corruption (!prev)", "corrupted size vs. prev_size",
                                  "malloc(): unaligned tcache chunk detected"]))
        code = -6
        job.errtext[r] = "Signal 6 (SIGABRT)"
    if job.flags.get("has_kernel") and v in ("segv", "segv_silent"):
        base = 0x7f0000000000 + rng.randint(0, 0xffffff) * 0x1000
        job.kmsg(rk.node, t + 0.001, "python[%d]: segfault at %x ip %016x sp %016x error %d in %s[%x+%x] likely on CPU %d (core %d, socket %d)"
                 % (rk.pid, rng.choice([0, 8, 0x18, 0x7f3a00000010]), base + rng.randint(0x1000, 0x50000), 0x7ffd00000000 + rng.randint(0, 0xffffffff),
                    rng.choice([4, 6]), lib[0], base, rng.randint(0x50000, 0x900000), rng.randint(0, 111), rng.randint(0, 55), rng.randint(0, 1)), 6)
        job.kmsg(rk.node, t + 0.0011, "Code: 48 8b 47 18 48 85 c0 74 0c 48 8b 10 48 89 c7 ff 52 08 <48> 8b 43 08 48 83 c4 08 5b 5d c3 0f 1f 40 00 66 2e 0f 1f", 6)
    job.end[r] = (t + 0.01, code)
    work = make_work(job, ctx.step)
    peers_react_to_death(job, [r], t, work)
    return _truth("crash_signal", r, rk.node, True, "rank %d died from %s (%s) without a hardware cause" % (r, job.errtext[r], v))


def _hang_evidence(job, r, t_stop, work, kind):
    """Write evidence that rank r stopped at t_stop while peers wait."""
    rng = job.rng
    site = job.site
    ev = []
    if job.flags.get("pyspy") or job.tv() < 204:
        # operator ran py-spy on the suspect node some minutes in
        tp = t_stop + rng.uniform(120, job.timeout_ms / 1000.0 * 0.8)
        stacks = []
        for rk in job.ranks_on(job.ranks[r].node):
            if rk.r == r:
                if kind == "logging":
                    st = ["    acquire (logging/__init__.py:917)", "    handle (logging/__init__.py:1632)", "    callHandlers (logging/__init__.py:1706)",
                          "    handle (logging/__init__.py:1644)", "    _log (logging/__init__.py:1624)", "    info (logging/__init__.py:1477)",
                          "    log_metrics (utils/metrics.py:88)", "    train (%s:431)" % job.script, "    main (%s:571)" % job.script, "    <module> (%s:618)" % job.script]
                    state = "idle"
                elif kind == "data":
                    st = ["    wait (threading.py:324)", "    get (multiprocessing/queues.py:113)", "    _try_get_data (torch/utils/data/dataloader.py:1133)",
                          "    _get_data (torch/utils/data/dataloader.py:1294)", "    _next_data (torch/utils/data/dataloader.py:1332)",
                          "    __next__ (torch/utils/data/dataloader.py:630)", "    train (%s:388)" % job.script, "    main (%s:571)" % job.script,
                          "    <module> (%s:618)" % job.script]
                    state = "idle"
                else:
                    st = ["    join (threading.py:1116)", "    wait_for_pending_save (utils/async_ckpt.py:51)", "    maybe_save (utils/async_ckpt.py:77)",
                          "    train (%s:469)" % job.script, "    main (%s:571)" % job.script, "    <module> (%s:618)" % job.script]
                    state = "idle"
            else:
                st = ["    synchronize (torch/cuda/__init__.py:892)", "    train_step (%s:333)" % job.script, "    train (%s:402)" % job.script,
                      "    main (%s:571)" % job.script, "    <module> (%s:618)" % job.script]
                state = "active+gil"
            stacks.append("Process %d: /usr/bin/python -u /workspace/%s --config configs/%s.yaml\nPython v3.10.12 (/usr/bin/python3.10)\n\n"
                          "Thread %d (%s): \"MainThread\"\n%s\nThread %d (idle): \"Thread-2 (_pin_memory_loop)\"\n    wait (threading.py:324)\n"
                          "    get (queue.py:180)\n    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:55)\n    run (threading.py:953)\n"
                          "    _bootstrap_inner (threading.py:1016)\n    _bootstrap (threading.py:973)\n"
                          % (rk.pid, job.script, job.jobname, rk.pid, state, "\n".join(st), rk.pid + rng.randint(40, 90)))
        job.extra_files["debug/py-spy-%s-%s.txt" % (job.nodes[job.ranks[r].node].host, fmt(tp, "slurm", job.tz).replace(":", ""))] = (
            "$ for p in $(pgrep -f %s); do py-spy dump --pid $p; done\n" % job.script + "\n".join(stacks))
        ev.append("py-spy dump")
    if job.tv() >= 204:
        ev.append("flight recorder last-enqueued")
    return ev


def inj_hang(job, ctx):
    rng = job.rng
    tf = _run_steps(job, ctx)
    r = pick_culprit(job)
    kind = rng.choice(["logging", "ckpt", "logging"])
    work = make_work(job, ctx.step)
    t_stop = tf + rng.uniform(0.05, 0.5)
    if job.tv() < 204:
        job.flags["pyspy"] = True
    ev = _hang_evidence(job, r, t_stop, work, kind)
    t_coll = t_stop + rng.uniform(0.05, 0.3)
    peers_timeout(job, [r], t_coll, work)
    if job.tv() >= 204:
        t_first = t_coll + job.timeout_ms / 1000.0 + 0.05

        def cb(job_, rr, t):
            from_rank = 0 if r != 0 else 1
            td = T.dump_signal_from_peer(job_, rr, t, from_rank, work["seq"] - 1, work["seq"] - 1)
            return (td, -6)
        schedule(job, r, t_first + rng.uniform(0.5, 3.0), cb)
    job.flags["hung_rank"] = r
    return _truth("hang", r, job.ranks[r].node, True,
                  "rank %d stopped issuing collectives (%s) while peers waited in %s seq %d; evidence: %s"
                  % (r, {"logging": "deadlock on a logging lock", "ckpt": "blocked joining an async checkpoint thread"}[kind],
                     work["op"], work["seq"], ", ".join(ev)))


def inj_data_loader_stall(job, ctx):
    rng = job.rng
    tf = _run_steps(job, ctx)
    r = pick_culprit(job)
    rk = job.ranks[r]
    work = make_work(job, ctx.step)
    t_stop = tf + rng.uniform(0.05, 0.5)
    v = rng.choice(["nfs", "lustre", "timeout", "faulthandler"])
    if v in ("nfs", "lustre") and not job.flags.get("has_kernel"):
        v = rng.choice(["timeout", "faulthandler"])
    notes = ""
    if v == "nfs":
        srv = job.flags.get("nfs_server", "nfs01")
        job.kmsg(rk.node, t_stop - rng.uniform(1, 20), "nfs: server %s not responding, still trying" % srv, 5)
        tt = t_stop + 122 + rng.uniform(0, 5)
        job.kmsg(rk.node, tt, "INFO: task pt_data_worker:%d blocked for more than 122 seconds.\n      Tainted: P           OE     5.15.0-113-generic #123-Ubuntu\n"
                 "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.\ntask:pt_data_worker state:D stack:    0 pid:%d ppid:%d flags:0x00004002\n"
                 "Call Trace:\n <TASK>\n __schedule+0x2cd/0x890\n schedule+0x69/0x110\n rpc_wait_bit_killable+0x11/0x70 [sunrpc]\n __wait_on_bit+0x33/0xa0\n"
                 " out_of_line_wait_on_bit+0x8d/0xb0\n __rpc_execute+0x11a/0x4a0 [sunrpc]\n rpc_execute+0xa5/0xc0 [sunrpc]\n rpc_run_task+0x121/0x190 [sunrpc]\n"
                 " nfs4_call_sync_sequence+0x74/0xb0 [nfsv4]\n _nfs4_proc_getattr+0xd3/0x110 [nfsv4]\n nfs4_proc_getattr+0x6d/0x110 [nfsv4]\n"
                 " __nfs_revalidate_inode+0xac/0x290 [nfs]\n nfs_file_read+0x4b/0xa0 [nfs]\n new_sync_read+0x10d/0x1a0\n vfs_read+0x104/0x1a0\n"
                 " ksys_read+0x67/0xf0\n __x64_sys_read+0x19/0x20\n do_syscall_64+0x5c/0xc0\n entry_SYSCALL_64_after_hwframe+0x62/0xcc\n </TASK>"
                 % (rk.pid + 11, rk.pid + 11, rk.pid), 3)
        notes = "NFS server %s stopped responding on %s; rank %d's DataLoader workers stuck in D state" % (srv, job.nodes[rk.node].host, r)
        job.flags["pyspy"] = True
        _hang_evidence(job, r, t_stop, work, "data")
    elif v == "lustre":
        ost = "scratch-OST%04x" % rng.randint(0, 0x3f)
        oss_ip = "10.%d.%d.%d" % (rng.randint(1, 250), rng.randint(0, 250), rng.randint(2, 250))
        job.kmsg(rk.node, t_stop - rng.uniform(1, 30), "Lustre: %s-osc-ffff%s: Connection to %s (at %s@o2ib) was lost; in progress operations using this service will wait for recovery to complete"
                 % (ost, hexid(rng, 12), ost, oss_ip), 4)
        job.kmsg(rk.node, t_stop + rng.uniform(60, 200), "LustreError: 11-0: %s-osc-ffff%s: operation ost_read to node %s@o2ib failed: rc = -107"
                 % (ost, hexid(rng, 12), oss_ip), 3)
        notes = "Lustre OST %s unreachable from %s; rank %d blocked reading its shard" % (ost, job.nodes[rk.node].host, r)
        job.flags["pyspy"] = True
        _hang_evidence(job, r, t_stop, work, "data")
    elif v == "timeout":
        dl_to = rng.choice([120, 300, 600])
        if dl_to * 1000 >= job.timeout_ms:
            dl_to = int(job.timeout_ms / 1000 / 2)
        t = t_stop + dl_to + rng.uniform(0.0, 0.2)
        tb = T.py_traceback(job, T.user_frames(job, "data") + [
            (job.site + "/torch/utils/data/dataloader.py", 630, "__next__", "data = self._next_data()"),
            (job.site + "/torch/utils/data/dataloader.py", 1329, "_next_data", "idx, data = self._get_data()"),
            (job.site + "/torch/utils/data/dataloader.py", 1285, "_get_data", "success, data = self._try_get_data(self._timeout)"),
            (job.site + "/torch/utils/data/dataloader.py", 1146, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")],
            "RuntimeError: DataLoader timed out after %d seconds" % dl_to,
            chained=T.py_traceback(job, [(job.site + "/torch/utils/data/dataloader.py", 1133, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                                         ("/usr/lib/python3.10/multiprocessing/queues.py", 114, "get", "raise Empty")], "_queue.Empty"))
        job.pytrace(r, t, tb)
        job.errtext[r] = "RuntimeError: DataLoader timed out after %d seconds" % dl_to
        job.end[r] = (t + rng.uniform(0.5, 3), 1)
        notes = "rank %d's DataLoader produced nothing for %ds (timeout=%d) while peers waited in %s" % (r, dl_to, dl_to, work["op"])
    else:
        # faulthandler.dump_traceback_later armed by the training script on every rank
        fh = rng.choice([300, 600])
        if fh * 1000 >= job.timeout_ms:
            fh = int(job.timeout_ms / 1000 / 2)
        for rk2 in job.ranks:
            if job.world > 32 and rk2.r != r and rk2.r % 8:
                continue
            tt = t_stop + fh + rng.uniform(0, 1.5)
            if rk2.r == r:
                body = ("  File \"/usr/lib/python3.10/threading.py\", line 324 in wait\n  File \"/usr/lib/python3.10/multiprocessing/queues.py\", line 113 in get\n"
                        "  File \"%s/torch/utils/data/dataloader.py\", line 1133 in _try_get_data\n  File \"%s/torch/utils/data/dataloader.py\", line 1294 in _get_data\n"
                        "  File \"%s/torch/utils/data/dataloader.py\", line 1332 in _next_data\n  File \"%s/torch/utils/data/dataloader.py\", line 630 in __next__\n"
                        "  File \"/workspace/%s\", line 388 in train\n  File \"/workspace/%s\", line 571 in main\n  File \"/workspace/%s\", line 618 in <module>"
                        % (job.site, job.site, job.site, job.site, job.script, job.script, job.script))
            else:
                body = ("  File \"%s/torch/cuda/__init__.py\", line 892 in synchronize\n  File \"/workspace/%s\", line 333 in train_step\n"
                        "  File \"/workspace/%s\", line 402 in train\n  File \"/workspace/%s\", line 571 in main\n  File \"/workspace/%s\", line 618 in <module>"
                        % (job.site, job.script, job.script, job.script, job.script))
            job.out(rk2.r, tt, "Timeout (0:%02d:00)!\nThread 0x%016x (most recent call first):\n%s" % (fh // 60, 0x7f0000000000 + rng.randint(0, 0xffffffff) * 0x1000 + 0x740, body))
        notes = "faulthandler dumps after %ds: rank %d sits in DataLoader _try_get_data, all others in cuda synchronize" % (fh, r)
    t_coll = t_stop + rng.uniform(0.05, 0.3)
    peers_timeout(job, [r], t_coll, work)
    if v != "timeout" and job.tv() >= 204:
        t_first = t_coll + job.timeout_ms / 1000.0 + 0.05

        def cb(job_, rr, t):
            td = T.dump_signal_from_peer(job_, rr, t, 0 if r != 0 else 1, work["seq"] - 1, work["seq"] - 1)
            return (td, -6)
        schedule(job, r, t_first + rng.uniform(0.5, 3.0), cb)
    job.flags["hung_rank"] = r
    return _truth("data_loader_stall", r, rk.node, True, notes)


def inj_collective_mismatch(job, ctx):
    rng = job.rng
    tf = _run_steps(job, ctx)
    r = pick_culprit(job)
    work = make_work(job, ctx.step)
    v = "detail" if rng.random() < 0.5 else "timeout"
    if v == "detail":
        job.flags["tdd"] = "DETAIL"
        seqn = rng.randint(1000, 90000)
        shape_mode = rng.random() < 0.5
        dt = rng.choice(["Float", "BFloat16"])
        opts = "TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))"

        def fp(op, shape):
            return "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%s], TensorDtypes=%s, TensorDeviceTypes=%s)" % (seqn, op, shape, dt, opts)
        good = fp("ALLREDUCE", "%d" % work["nin"])
        bad = fp("ALLREDUCE", "%d" % (work["nin"] - rng.choice([4096, 131072, 1]))) if shape_mode else fp("BROADCAST", "1")
        diff = ("Tensor Tensor shapes: %svs %s" % (bad.split("TensorShape=[")[1].split("]")[0], work["nin"])) if shape_mode else "Op type: BROADCASTvs ALLREDUCE"
        t = tf + rng.uniform(0.1, 1.0)
        for rk in job.ranks:
            if rk.r == r:
                other = 0 if r != 0 else 1
                msg = ("RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s."
                       "Collectives differ in the following aspects: \t %s" % (r, bad, other, good, diff))
            else:
                diff2 = ("Tensor Tensor shapes: %dvs %s" % (work["nin"], bad.split("TensorShape=[")[1].split("]")[0])) if shape_mode else "Op type: ALLREDUCEvs BROADCAST"
                msg = ("RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s."
                       "Collectives differ in the following aspects: \t %s" % (rk.r, good, r, bad, diff2))
            if job.world > 32 and rk.r != r and rk.r % 4:
                continue
            fr = T.user_frames(job) + [("/workspace/" + job.script, 352, "train_step", "dist.broadcast(flag, src=0)" if rk.r == r and not shape_mode else "dist.all_reduce(buf)"),
                                       (job.site + "/torch/distributed/c10d_logger.py", 83, "wrapper", "return func(*args, **kwargs)"),
                                       (job.site + "/torch/distributed/distributed_c10d.py", 2288 if job.tv() >= 204 else 2050,
                                        "all_reduce" if not (rk.r == r and not shape_mode) else "broadcast", "work = group.allreduce([tensor], opts)" if not (rk.r == r and not shape_mode) else "work = group.broadcast([tensor], opts)")]
            tt = t + rng.uniform(0, 0.8)
            job.pytrace(rk.r, tt, T.py_traceback(job, fr, msg))
            job.errtext[rk.r] = msg.split(".")[0]
            job.end[rk.r] = (tt + rng.uniform(0.3, 2.0), 1)
        notes = "TORCH_DISTRIBUTED_DEBUG=DETAIL: rank %d issued %s while all others issued ALLREDUCE %s" % (
            r, "a different tensor size" if shape_mode else "BROADCAST", work["nin"])
    else:
        t_coll = tf + rng.uniform(0.05, 0.5)
        bad = dict(work)
        if rng.random() < 0.5:
            bad["op"] = "BROADCAST" if work["op"] != "BROADCAST" else "ALLREDUCE"
            bad["nin"] = bad["nout"] = rng.choice([1, 2, 8])
            what = "OpType=%s NumelIn=%d" % (bad["op"], bad["nin"])
        else:
            bad["nin"] = bad["nout"] = (work["nin"] - rng.choice([4096, 262144, 512])) if work["nin"] > 300000 else work["nin"] * rng.choice([2, 4]) + rng.choice([0, 1])
            what = "NumelIn=%d instead of %d" % (bad["nin"], work["nin"])
        peers_timeout(job, [r], t_coll, work)
        t_to = t_coll + job.timeout_ms / 1000.0 + rng.uniform(0.005, 1.2)
        schedule(job, r, t_to, _wd_cb(bad, int((t_to - t_coll) * 1000), bad["seq"] + rng.randint(0, 2), bad["seq"] - 1))
        notes = "rank %d entered collective seq %d with %s while the others ran %s NumelIn=%d; all time out" % (r, work["seq"], what, work["op"], work["nin"])
    return _truth("collective_mismatch", r, job.ranks[r].node, True, notes)


def inj_host_oom_kill(job, ctx):
    rng = job.rng
    tf = _run_steps(job, ctx)
    v = job.flags.get("oom_variant") or rng.choice(["global", "global", "worker", "cgroup"])
    if v == "cgroup" and job.launcher != "srun":
        v = "global"
    r = pick_culprit(job)
    rk = job.ranks[r]
    t = tf + rng.uniform(0.1, 2.0)
    nd = job.nodes[rk.node]
    work = make_work(job, ctx.step)
    if v == "pod":
        # whole container OOMKilled (k8s): every process in the pod gets SIGKILL
        for x in job.ranks_on(rk.node):
            job.end[x.r] = (t + rng.uniform(0, 0.05), -9)
            job.errtext[x.r] = "Signal 9 (SIGKILL)"
        job.node_end[rk.node] = (t, "OOMKilled")
        peers_react_to_death(job, [x.r for x in job.ranks_on(rk.node)], t, work)
        lo = job.lowest_rank(rk.node)
        return _truth("host_oom_kill", lo, rk.node, job.flags.get("pod_rank_map", True),
                      "container of %s exceeded its memory limit and was OOMKilled (exit 137); all its ranks died" % nd.host)
    if v == "ray":
        job.end[r] = (t + 0.01, -9)
        job.errtext[r] = "Signal 9 (SIGKILL)"
        job.flags["ray_oom"] = True
        peers_react_to_death(job, [r], t, work)
        return _truth("host_oom_kill", r, rk.node, True, "Ray memory monitor killed the RayTrainWorker of rank %d on %s (node memory above 0.95)" % (r, nd.ip))
    memcg = "/"
    if job.launcher == "srun":
        memcg = "/system.slice/slurmstepd.scope/job_%d/step_0/user/task_%d" % (job.jobid, r)
    elif job.flags.get("k8s"):
        memcg = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice/cri-containerd-%s.scope" % (hexid(rng, 8), hexid(rng, 16))
    if v == "worker":
        wpid = rk.pid + rng.randint(200, 900)
        if job.flags.get("has_kernel"):
            oom_kill_report(job, rk.node, t, wpid, comm="pt_data_worker", task_memcg=memcg)
        te = t + rng.uniform(0.5, 5)
        tb = T.py_traceback(job, T.user_frames(job, "data") + [
            (job.site + "/torch/utils/data/dataloader.py", 630, "__next__", "data = self._next_data()"),
            (job.site + "/torch/utils/data/dataloader.py", 1329, "_next_data", "idx, data = self._get_data()"),
            (job.site + "/torch/utils/data/dataloader.py", 1295, "_get_data", "success, data = self._try_get_data()"),
            (job.site + "/torch/utils/data/dataloader.py", 1146, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")],
            "RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % wpid,
            chained=T.py_traceback(job, [(job.site + "/torch/utils/data/dataloader.py", 1133, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                                         ("/usr/lib/python3.10/multiprocessing/queues.py", 113, "get", "if not self._poll(timeout):"),
                                         (job.site + "/torch/utils/data/_utils/signal_handling.py", 67, "handler", "_error_if_any_worker_fails()")],
                                   "RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % wpid))
        job.pytrace(r, te, tb)
        job.errtext[r] = "RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % wpid
        job.end[r] = (te + rng.uniform(0.3, 2), 1)
        job.flags["host_oom_seen"] = True
        notes = "kernel OOM killer killed DataLoader worker %d of rank %d on %s" % (wpid, r, nd.host)
        if not job.flags.get("has_kernel"):
            notes += " (only the 'killed by signal: Killed' message shows it)"
    else:
        if job.flags.get("has_kernel"):
            oom_kill_report(job, rk.node, t, rk.pid, comm="python", cgroup=("/system.slice/slurmstepd.scope/job_%d" % job.jobid) if v == "cgroup" else None, task_memcg=memcg)
        job.end[r] = (t + 0.002, -9)
        job.errtext[r] = "Signal 9 (SIGKILL)"
        job.flags["slurm_oom"] = True
        job.flags["host_oom_seen"] = True
        notes = "%s OOM killer killed rank %d (pid %d) on %s" % ("cgroup" if v == "cgroup" else "global", r, rk.pid, nd.host)
    peers_react_to_death(job, [r], t, work)
    return _truth("host_oom_kill", r, rk.node, True, notes)


def _hw_culprit_dies(job, r, t, msg_kind, ctx, code=1, silent=False):
    rng = job.rng
    rk = job.ranks[r]
    work = make_work(job, ctx.step)
    if silent:
        # process wedged inside the driver, never returns
        peers_timeout(job, [r], t + rng.uniform(0.05, 0.3), work)
        job.flags["hung_rank"] = r
        return
    msgs = {"ecc": "uncorrectable ECC error encountered", "nvlink": "uncorrectable NVLink error detected during the execution",
            "launch": "unspecified launch failure", "unknown": "unknown error"}
    m = msgs[msg_kind]
    if rng.random() < 0.5 or job.tv() < 202:
        fr = T.user_frames(job) + [("/workspace/" + job.script, 322, "train_step", "loss_val = loss.item()")]
        job.pytrace(r, t, T.py_traceback(job, fr, T.cuda_err_text(job, m).rstrip("\n")))
        job.errtext[r] = "RuntimeError: CUDA error: " + m
        job.end[r] = (t + rng.uniform(0.5, 3), 1)
    else:
        s = T.src(job)
        body = T.cuda_err_text(job, m)
        mm = "%s Process group watchdog thread terminated with exception: CUDA error: %s\n%s" % (job.pg(r), m, body.split("\n", 1)[1].rstrip("\n"))
        job.c10d(r, t, "E", "ProcessGroupNCCL.cpp:%d" % s["term"], mm)
        fr = T.frames_watchdog(job, "c10_cuda_check_implementation").replace("ProcessGroupNCCL.cpp", "CUDAException.cpp")
        job.out(r, t + 0.002, "terminate called after throwing an instance of 'c10::DistBackendError'\n  what():  %s\n%s" % (mm, fr))
        job.errtext[r] = "Signal 6 (SIGABRT)"
        job.end[r] = (t + rng.uniform(0.2, 2), -6)
    peers_react_to_death(job, [r], t, work)


def inj_gpu_hardware(job, ctx):
    rng = job.rng
    tf = _run_steps(job, ctx)
    r = pick_culprit(job)
    rk = job.ranks[r]
    nd = rk.node
    pci = xid_pci(rk.pci)
    t = tf + rng.uniform(0.05, 0.8)
    v = rng.choice(["xid79", "xid79", "xid119", "xid154"])
    has_k = job.flags.get("has_kernel")
    silent = rng.random() < 0.4 and has_k
    uuid = gpu_uuid(job)
    if v == "xid79":
        if has_k:
            if rng.random() < 0.5:
                root = "0000:%02x:01.0" % (int(rk.pci[5:7], 16) - rng.randint(1, 3))
                job.kmsg(nd, t - 0.02, "pcieport %s: AER: Uncorrected (Fatal) error received: %s" % (root, rk.pci), 3)
                job.kmsg(nd, t - 0.019, "nvidia %s: AER: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Receiver ID)" % rk.pci, 3)
            k_gpu_banner(job, nd, t, rk.pci, uuid)
            job.kmsg(nd, t + 0.001, "NVRM: Xid (PCI:%s): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." % pci, 4)
            job.kmsg(nd, t + 0.002, "NVRM: GPU %s: GPU has fallen off the bus." % rk.pci, 3)
            job.kmsg(nd, t + 0.003, "NVRM: A GPU crash dump has been created. If possible, please run\nNVRM: nvidia-bug-report.sh as root to collect this data before\nNVRM: the NVIDIA kernel module is unloaded.", 3)
        mk = rng.choice(["launch", "unknown"])
        note = "GPU %s (rank %d) fell off the bus (Xid 79)" % (rk.pci, r)
    elif v == "xid119":
        if has_k:
            k_gpu_banner(job, nd, t - 6.0, rk.pci, uuid)
            job.kmsg(nd, t, "NVRM: Xid (PCI:%s): 119, pid=%d, name=python, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4)."
                     % (pci, rk.pid, rk.local), 4)
            job.kmsg(nd, t + 0.001, "NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020800a4c 0x0000000000000004." % rk.local, 4)
            job.kmsg(nd, t + 0.002, "NVRM: GPU%d RPC history (CPU -> GSP):\nNVRM:     entry function                   data0              data1              ts_start           ts_end             duration actively_polling\n"
                     "NVRM:      0    76   GSP_RM_CONTROL             0x0000000020800a4c 0x0000000000000004 0x00061c3a5e1f2b1a 0x0000000000000000          y" % rk.local, 4)
            for k in range(rng.randint(2, 5)):
                job.kmsg(nd, t + 6 * (k + 1), "NVRM: Xid (PCI:%s): 119, pid=%d, name=python, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 10 (FREE) (0xa55a0040 0x0)."
                         % (pci, rk.pid, rk.local), 4)
            job.kmsg(nd, t + 6 * 6, "NVRM: Rate limiting GSP RPC error prints for GPU at PCI:%s (printing 1 of every 30).  The GPU likely needs to be reset." % pci, 4)
        mk = "unknown"
        silent = silent or rng.random() < 0.3
        note = "GSP firmware of GPU %s (rank %d) stopped answering RPCs (Xid 119)" % (rk.pci, r)
    else:
        if has_k:
            k_gpu_banner(job, nd, t - 0.5, rk.pci, uuid)
            job.kmsg(nd, t - 0.01, "NVRM: Xid (PCI:%s): 62, pid=%d, name=python, %s" % (pci, rk.pid, " ".join(hexid(rng, 8) for _ in range(8))), 4)
            job.kmsg(nd, t, "NVRM: GPU%d _kgspRpcGspEventPmuHalted: Received signal from GSP that PMU has halted." % rk.local, 4)
            job.kmsg(nd, t + 0.001, "NVRM: Xid (PCI:%s): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)" % pci, 4)
        mk = "launch"
        note = "GPU %s (rank %d) halted (Xid 62 -> Xid 154 reset required)" % (rk.pci, r)
    if not has_k:
        silent = False
    _hw_culprit_dies(job, r, t + rng.uniform(0.01, 2.0), mk, ctx, silent=silent)
    inferable = True
    if silent and not (job.nccl_debug or job.flags.get("busmap")):
        inferable = False
    if silent:
        note += "; the process hung silently, only the kernel log shows it"
    return _truth("gpu_hardware", r, nd, inferable, note, drain=True)


def inj_ecc_memory(job, ctx):
    rng = job.rng
    tf = _run_steps(job, ctx)
    r = pick_culprit(job)
    rk = job.ranks[r]
    nd = rk.node
    pci = xid_pci(rk.pci)
    t = tf + rng.uniform(0.05, 0.8)
    v = rng.choice(["48", "94", "95", "64"])
    has_k = job.flags.get("has_kernel")
    if has_k:
        k_gpu_banner(job, nd, t - 0.001, rk.pci, gpu_uuid(job))
        if v == "48":
            job.kmsg(nd, t, "NVRM: Xid (PCI:%s): 48, pid=%d, name=python, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d."
                     % (pci, rk.pid, rng.randint(0, 11), rng.randint(0, 1)), 4)
            job.kmsg(nd, t + 0.002, "NVRM: Xid (PCI:%s): 63, pid=%d, name=python, Row Remapper: New row (0x00000000%s) marked for remapping, reset gpu to activate."
                     % (pci, rk.pid, hexid(rng, 8)), 4)
            job.kmsg(nd, t + 0.3, "NVRM: Xid (PCI:%s): 45, pid=%d, name=python, Ch 00000008" % (pci, rk.pid), 4)
        elif v == "94":
            job.kmsg(nd, t, "NVRM: Xid (PCI:%s): 94, pid=%d, name=python, Contained: SM (0x1). RST: No, D-RST: No" % (pci, rk.pid), 4)
            job.kmsg(nd, t + 0.002, "NVRM: Xid (PCI:%s): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row (0x00000000%s) marked for remapping, reset gpu to activate."
                     % (pci, hexid(rng, 8)), 4)
        elif v == "95":
            job.kmsg(nd, t, "NVRM: Xid (PCI:%s): 95, pid=%d, name=python, Uncontained: LTC TAG (0x2,0x0). RST: Yes, D-RST: No" % (pci, rk.pid), 4)
        else:
            job.kmsg(nd, t - rng.uniform(30, 300), "NVRM: Xid (PCI:%s): 63, pid=%d, name=python, Row Remapper: New row (0x00000000%s) marked for remapping, reset gpu to activate."
                     % (pci, rk.pid, hexid(rng, 8)), 4)
            job.kmsg(nd, t, "NVRM: Xid (PCI:%s): 64, pid=%d, name=python, Row Remapper Error: (0x00000000%s) - All reserved rows for bank are remapped" % (pci, rk.pid, hexid(rng, 8)), 4)
            job.kmsg(nd, t + 0.001, "NVRM: Xid (PCI:%s): 48, pid=%d, name=python, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d."
                     % (pci, rk.pid, rng.randint(0, 11), rng.randint(0, 1)), 4)
    _hw_culprit_dies(job, r, t + rng.uniform(0.01, 1.0), "ecc", ctx)
    return _truth("ecc_memory", r, nd, True, "uncorrectable ECC on GPU %s of rank %d (Xid %s)%s" % (rk.pci, r, v, "" if has_k else ", seen only as the CUDA error"), drain=True)


def inj_nvlink(job, ctx):
    rng = job.rng
    tf = _run_steps(job, ctx)
    has_k = job.flags.get("has_kernel")
    v = rng.choice(["xid74", "xid74", "sxid"]) if has_k and job.gpn >= 4 else "xid74"
    t = tf + rng.uniform(0.05, 0.8)
    if v == "xid74":
        r = pick_culprit(job)
        rk = job.ranks[r]
        nd = rk.node
        if has_k:
            link = rng.randint(0, 17)
            job.kmsg(nd, t, "NVRM: Xid (PCI:%s): 74, pid=%d, name=python, NVLink: fatal error detected on link %d(0x0, 0x0, 0x%x, 0x0, 0x0, 0x0, 0x0)"
                     % (xid_pci(rk.pci), rk.pid, link, rng.choice([0x10000, 0x100000, 0x20000])), 4)
            job.kmsg(nd, t + 0.001, "NVRM: Xid (PCI:%s): 45, pid=%d, name=python, Ch 0000000c" % (xid_pci(rk.pci), rk.pid), 4)
        _hw_culprit_dies(job, r, t + rng.uniform(0.01, 1.0), "nvlink", ctx)
        return _truth("nvlink", r, nd, True, "fatal NVLink error on link of GPU %s (rank %d), Xid 74" % (rk.pci, r), drain=True)
    nd = job.rng.randrange(len(job.nodes))
    sw = rng.randint(0, 3)
    swpci = "0000:%02x:00.0" % rng.choice([0x05, 0x06, 0x07, 0x08, 0x86, 0x87])
    port = rng.randint(0, 63)
    job.kmsg(nd, t, "nvidia-nvswitch%d: SXid (PCI:%s): 20034, Fatal, Link %d LTSSM Fault Up" % (sw, swpci, port), 3)
    job.kmsg(nd, t + 0.0001, "nvidia-nvswitch%d: SXid (PCI:%s): 20034, Severity 1 Engine instance %d Sub-engine instance 00" % (sw, swpci, port), 3)
    job.kmsg(nd, t + 0.0002, "nvidia-nvswitch%d: SXid (PCI:%s): 20034, Data {0x50610002, 0x10100030, 0x00000000, 0x10100030, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000}" % (sw, swpci), 3)
    job.extra_files.setdefault("nodes/%s/fabricmanager.log" % job.nodes[nd].host, "")
    job.extra_files["nodes/%s/fabricmanager.log" % job.nodes[nd].host] += (
        "[%s] [ERROR] [tid %d] detected NVSwitch fatal error 20034 on fid 0 on NVSwitch pci bus id %s physical id %d port %d\n"
        % (fmt(job.tnode(nd, t + 0.01), "ctime", job.tz), rng.randint(2000, 9000), swpci.replace("0000:", "00000000:"), sw, port))
    ranks = job.ranks_on(nd)
    victims = ranks[:]
    for rk in victims:
        job.kmsg(nd, t + rng.uniform(0.01, 0.1), "NVRM: Xid (PCI:%s): 45, pid=%d, name=python, Ch 0000000%x" % (xid_pci(rk.pci), rk.pid, rng.randint(1, 9)), 4)
    work = make_work(job, ctx.step)
    first = min(x.r for x in victims)
    dead = []
    for rk in victims:
        tt = t + rng.uniform(0.2, 3.0)
        if job.nccl_debug:
            job.nccl_line(rk.r, tt - 0.001, "Cuda failure 'uncorrectable NVLink error detected during the execution'", "WARN", "enqueue.cc:1556")
        if rk.r == first or rng.random() < 0.5:
            job.pytrace(rk.r, tt, T.py_traceback(job, T.user_frames(job) + [("/workspace/" + job.script, 318, "train_step", "scaler.scale(loss).backward()")],
                                                 T.cuda_err_text(job, "uncorrectable NVLink error detected during the execution").rstrip("\n")))
            job.errtext[rk.r] = "RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution"
            job.end[rk.r] = (tt + rng.uniform(0.3, 2), 1)
            dead.append(rk.r)
    peers_react_to_death(job, dead, t, work)
    lo = job.lowest_rank(nd)
    return _truth("nvlink", lo, nd, True, "NVSwitch %d fatal SXid 20034 on %s took down all GPUs of the node" % (sw, job.nodes[nd].host), drain=True)


def inj_network(job, ctx):
    rng = job.rng
    tf = _run_steps(job, ctx)
    multi = len(job.nodes) >= 2
    v = rng.choice(["nic", "nic", "nic", "fabric"]) if multi else "nic"
    has_k = job.flags.get("has_kernel")
    t = tf + rng.uniform(0.05, 1.0)
    work = make_work(job, ctx.step)
    if v == "nic":
        nd = rng.randrange(len(job.nodes)) if not job.flags.get("avoid_node0") else rng.randrange(1, len(job.nodes))
        node = job.nodes[nd]
        hi = rng.randrange(min(job.gpn, 8))
        if has_k:
            if job.fabric == "ib":
                bus = "0000:%02x:00.0" % rng.choice([0x1a, 0x3c, 0x4d, 0x5e, 0x9c, 0xbc, 0xcc, 0xdc])
                if rng.random() < 0.5:
                    job.kmsg(nd, t - 0.5, "mlx5_core %s: Port module event[error]: module %d, Cable error, Bus stuck (I2C or data shorted)" % (bus, hi), 3)
                else:
                    job.kmsg(nd, t - 0.5, "mlx5_core %s: Port module event: module %d, Cable unplugged" % (bus, hi), 6)
                if rng.random() < 0.5:
                    job.kmsg(nd, t + rng.uniform(60, 400), "mlx5_core %s: Port module event: module %d, Cable plugged" % (bus, hi), 6)
                what = "InfiniBand HCA mlx5_%d module error" % hi
            elif job.fabric == "roce":
                bus = "0000:%02x:00.%d" % (rng.choice([0x1a, 0x3c, 0x4d]), rng.randint(0, 1))
                dev = "ens%df%dnp%d" % (rng.randint(1, 8), hi % 2, hi % 2)
                job.kmsg(nd, t - 0.3, "mlx5_core %s %s: Link down" % (bus, dev), 6)
                job.kmsg(nd, t + rng.uniform(40, 200), "mlx5_core %s %s: Link up" % (bus, dev), 6)
                what = "RoCE port %s link down" % dev
            else:
                dev = rng.choice(["ens1f0", "enp65s0f0", "eno1"])
                job.kmsg(nd, t - 0.3, "ice 0000:%02x:00.0 %s: NIC Link is Down" % (rng.choice([0x41, 0x4b, 0x98]), dev), 6)
                what = "Ethernet NIC %s link down" % dev
        else:
            what = "NIC failure (no kernel log available)"
        for rk in job.ranks:
            if rk.node == nd:
                other = (nd + 1) % len(job.nodes)
                schedule(job, rk.r, t + rng.uniform(6, 20), _nccl_err_cb(other))
            else:
                dist = min(abs(rk.node - nd), len(job.nodes) - abs(rk.node - nd))
                if dist <= 1 or rng.random() < 0.3:
                    schedule(job, rk.r, t + rng.uniform(8, 30), _nccl_err_cb(nd))
                else:
                    schedule(job, rk.r, t + job.timeout_ms / 1000.0 + rng.uniform(0.1, 1.5),
                             _wd_cb(work, job.timeout_ms + rng.randint(10, 1500), work["seq"] + rng.randint(1, 3), work["seq"] - 1))
        lo = job.lowest_rank(nd)
        inferable = True
        return _truth("network", lo, nd, inferable, "%s on %s; peers report NCCL errors naming its address %s" % (what, node.host, node.ib_ip or node.ip), drain=True)
    # fabric-wide: a leaf switch rebooted -> several nodes lose links at once
    if has_k and job.fabric in ("roce", "socket"):
        for nd in range(len(job.nodes)):
            if rng.random() < 0.7:
                if job.fabric == "roce":
                    bus = "0000:%02x:00.0" % rng.choice([0x1a, 0x3c, 0x4d, 0x5e])
                    job.kmsg(nd, t + rng.uniform(-0.5, 0.5), "mlx5_core %s ens1f0np0: Link down" % bus, 6)
                    job.kmsg(nd, t + rng.uniform(90, 300), "mlx5_core %s ens1f0np0: Link up" % bus, 6)
                else:
                    job.kmsg(nd, t + rng.uniform(-0.5, 0.5), "ice 0000:41:00.0 ens1f0: NIC Link is Down", 6)
                    job.kmsg(nd, t + rng.uniform(90, 300), "ice 0000:41:00.0 ens1f0: NIC Link is up 100 Gbps Full Duplex, Requested FEC: RS-FEC, Negotiated FEC: RS-FEC, Autoneg Advertised: On, Autoneg Negotiated: False, Flow Control: None", 6)
    for rk in job.ranks:
        other = (rk.node + 1) % len(job.nodes)
        schedule(job, rk.r, t + rng.uniform(5, 40), _nccl_err_cb(other))
    return _truth("network", None, None, False, "fabric-wide outage: links of many nodes dropped at once, every rank got NCCL network errors", drain=False)


def inj_preemption(job, ctx):
    rng = job.rng
    tf = _run_steps(job, ctx)
    kinds = job.flags.get("preempt_kinds", ["preempt", "timelimit"])
    kind = rng.choice(kinds)
    t = tf + rng.uniform(0.1, 5)
    job.term = dict(t=t, kind=kind)
    if kind == "spot":
        nd = rng.randrange(len(job.nodes))
        job.term["node"] = nd
        for rk in job.ranks_on(nd):
            job.end[rk.r] = (t + rng.uniform(0.5, 3), -15)
            job.errtext[rk.r] = "Signal 15 (SIGTERM)"
        job.node_end[nd] = (t, "spot")
        work = make_work(job, ctx.step)
        peers_react_to_death(job, [rk.r for rk in job.ranks_on(nd)], t, work)
        return _truth("preemption", job.lowest_rank(nd), nd, True, "spot/preemptible node %s reclaimed; its pods got SIGTERM" % job.nodes[nd].host)
    if kind == "evict":
        job.flags["sigterm_handler"] = True
        if job.flags.get("has_kernel"):
            for nd in job.nodes:
                job.kmsg(nd.idx, t - rng.uniform(0.5, 2), "systemd-logind[%d]: System is rebooting (Scheduled maintenance drain by %s)." % (rng.randint(900, 3000), rng.choice(["ops-bot", "root"])), 5, "systemd-logind")
    for rk in job.ranks:
        job.end[rk.r] = (t + rng.uniform(0.3, 4), -15)
        job.errtext[rk.r] = "Signal 15 (SIGTERM)"
        if job.flags.get("sigterm_handler") and (rng.random() < 0.6 or kind == "evict"):
            job.ulog(rk.r, t + 0.05, "W", "received SIGTERM (15), attempting emergency checkpoint" if rk.r == 0 else "received SIGTERM (15), exiting")
    # a couple of ranks that exit first make others see NCCL errors before their own SIGTERM
    if len(job.nodes) > 1 and rng.random() < 0.5:
        first = job.ranks_on(0)[0].r
        job.end[first] = (t + 0.2, -15)
        for rk in job.ranks:
            if rk.node == 1 and rng.random() < 0.5:
                le = ib_last_error(job, 0, 1)
                T.nccl_remote_error(job, rk.r, t + 0.25 + rng.uniform(0, 0.05), le, via="watchdog")
                job.end[rk.r] = (t + 0.4, -6)
    return _truth("preemption", None, None, False, {"preempt": "scheduler preempted the job", "kueue": "Kueue preempted the whole workload for a higher-priority one", "timelimit": "job hit its wall-time limit",
                                                    "walltime": "PBS walltime exceeded", "runlimit": "LSF run limit reached",
                                                    "maxruntime": "SageMaker MaxRuntimeInSeconds reached", "evict": "job evicted by the cluster"}.get(kind, kind))


def inj_straggler(job, ctx):
    rng = job.rng
    node_level = rng.random() < 0.35
    if node_level:
        nd = rng.randrange(len(job.nodes))
        slow = {rk.r: rng.uniform(1.45, 1.9) for rk in job.ranks_on(nd)}
        r = job.lowest_rank(nd)
    else:
        r = pick_culprit(job)
        nd = job.ranks[r].node
        slow = {r: rng.uniform(1.35, 2.2)}
    v = rng.choice(["thermal", "pcie", "thermal", "clock"]) if not node_level else rng.choice(["cpu", "pcie_nic", "thermal_node"])
    if v.startswith("pcie") and not job.flags.get("has_kernel"):
        v = "thermal" if not node_level else "cpu"
    if job.framework in ("ddp", "fsdp") and job.world <= 64:
        job.flags["per_rank_log"] = True
    job.flags["slow_from_step"] = ctx.step + rng.randint(20, 80)
    if v == "thermal":
        job.flags["thermal"] = True
    n = max(60, int(rng.randint(120, 500) * job.verbosity))
    t_slow = None
    t0 = ctx.t
    ctx.train(n, slow=slow, ckpt_every=job.flags.get("ckpt_every", 0))
    t_slow = t0 + (job.flags["slow_from_step"] - (ctx.step - n)) * ctx.step_time
    has_k = job.flags.get("has_kernel")
    rk = job.ranks[r]
    if v in ("thermal", "clock", "thermal_node"):
        # nvidia-smi snapshot captured by a cron/healthcheck on that node
        lines = ["# nvidia-smi --query-gpu=index,pci.bus_id,temperature.gpu,clocks.sm,clocks_event_reasons.active,clocks_event_reasons.hw_thermal_slowdown,power.draw --format=csv",
                 "index, pci.bus_id, temperature.gpu, clocks.current.sm [MHz], clocks_event_reasons.active, clocks_event_reasons.hw_thermal_slowdown, power.draw [W]"]
        for x in job.ranks_on(nd):
            hot = x.r in slow
            lines.append("%d, %s, %d, %d, %s, %s, %.2f W" % (x.local, x.pci.upper().replace("0000:", "00000000:"), rng.randint(87, 93) if (hot and v != "clock") else rng.randint(52, 66),
                                                             rng.randint(1095, 1410) if hot else 1980, "0x0000000000000060" if hot and v != "clock" else ("0x0000000000000008" if hot else "0x0000000000000000"),
                                                             "Active" if hot and v != "clock" else "Not Active", rng.uniform(380, 480) if hot else rng.uniform(640, 700)))
        job.extra_files["nodes/%s/nvidia-smi-%s.csv" % (job.nodes[nd].host, fmt(job.tnode(nd, ctx.t - 60), "slurm", job.tz).replace(":", ""))] = "\n".join(lines) + "\n"
        what = "GPU thermal slowdown" if v != "clock" else "GPU stuck at low SM clock (HW slowdown)"
    elif v in ("pcie", "pcie_nic"):
        if has_k:
            target = rk.pci if v == "pcie" else "0000:%02x:00.0" % rng.choice([0x1a, 0x3c])
            drv = "nvidia" if v == "pcie" else "mlx5_core"
            job.kmsg(nd, job.nodes[nd].boot + rng.uniform(20, 60), "%s %s: 8.000 Gb/s available PCIe bandwidth, limited by 2.5 GT/s PCIe x4 link at 0000:%02x:01.0 (capable of 504.112 Gb/s with 32.0 GT/s PCIe x16 link)"
                     % (drv, target, int(target[5:7], 16) - 2), 6)
        what = "PCIe link of %s trained at 2.5 GT/s x4" % ("GPU of rank %d" % r if v == "pcie" else "the node's NIC")
    else:
        job.extra_files["nodes/%s/top-%s.txt" % (job.nodes[nd].host, fmt(job.tnode(nd, ctx.t - 30), "slurm", job.tz).replace(":", ""))] = (
            "top - %s up 41 days,  3:12,  0 users,  load average: 231.41, 228.93, 190.12\nTasks: 1412 total,  57 running, 1355 sleeping,   0 stopped,   0 zombie\n"
            "%%Cpu(s): 97.8 us,  1.9 sy,  0.0 ni,  0.1 id,  0.0 wa,  0.0 hi,  0.2 si,  0.0 st\n\n    PID USER      PR  NI    VIRT    RES    SHR S  %%CPU  %%MEM     TIME+ COMMAND\n"
            "%7d root      20   0   18.2g   2.1g  12312 R  6120.  0.8 912:12.33 dcgmproftester12\n%s"
            % (fmt(job.tnode(nd, ctx.t - 30), "hms", job.tz), rng.randint(2000, 9000),
               "".join("%7d %-9s 20   0  188.3g  31.2g   1.1g %s  %4.1f  12.4 %d:%02d.%02d python\n" % (x.pid, rng.choice(["svc-ml", "jdoe"])[:8], rng.choice("RRS"), rng.uniform(28, 61), rng.randint(150, 400), rng.randint(0, 59), rng.randint(0, 99)) for x in job.ranks_on(nd))))
        what = "CPU starvation by a stray dcgmproftester process"
    if rng.random() < 0.5:
        # job completes despite it
        job.flags["straggler_completes"] = True
        te = ctx.t + rng.uniform(5, 40)
        for x in job.ranks:
            job.end[x.r] = (te + rng.uniform(0, 4), 0)
    else:
        job.flags["open_end"] = "running"
    return _truth("straggler", r, nd, True, "%s %s slower (x%.2f) from step %d on: %s" % (
        "node %s" % job.nodes[nd].host if node_level else "rank %d" % r, "runs", max(slow.values()), job.flags["slow_from_step"], what))


def inj_healthy(job, ctx):
    rng = job.rng
    v = job.flags.get("healthy_variant") or rng.choice(["clean", "nan", "ckpt", "oldxid", "scary"])
    if v == "oldxid" and not job.flags.get("has_kernel"):
        v = "scary"
    if v == "nan":
        job.flags["nan_steps"] = sorted(rng.sample(range(ctx.step + 20, ctx.step + 300), 3))
    if v == "ckpt":
        job.flags["ckpt_every"] = rng.choice([50, 100, 200])
    n = max(80, int(rng.randint(150, 700) * job.verbosity))
    ctx.train(n, ckpt_every=job.flags.get("ckpt_every", 0), skip_nan=job.flags.get("nan_steps"))
    notes = {"clean": "healthy run, finished normally", "nan": "healthy: a few non-finite losses were skipped",
             "ckpt": "healthy: step-time spikes are checkpoint saves", "oldxid": "healthy: kernel log holds an Xid from an earlier job",
             "scary": "healthy: harmless warnings (socket retries, NCCL fallbacks, shutdown noise)",
             "restart": "healthy: a transient start-up failure was retried and the run then finished"}[v]
    if v == "oldxid" and job.flags.get("has_kernel"):
        d = decoy_old_xid(job, rng.randrange(len(job.nodes)))
        if d:
            notes += " (Xid %s, %.1f days earlier)" % (d[2], (job.t0 - d[0]) / 86400.0)
    t_end = ctx.t + rng.uniform(5, 60)
    for rk in job.ranks:
        job.end[rk.r] = (t_end + rng.uniform(0, 8), 0)
    if v == "scary" or rng.random() < 0.4:
        for rk in job.ranks[:min(4, job.world)]:
            job.out(rk.r, t_end + rng.uniform(0, 1), "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f%s>\nTraceback (most recent call last):\n"
                    "  File \"%s/torch/utils/data/dataloader.py\", line 1477, in __del__\n    self._shutdown_workers()\n"
                    "  File \"%s/torch/utils/data/dataloader.py\", line 1441, in _shutdown_workers\n    if self._persistent_workers or self._workers_status[worker_id]:\n"
                    "AttributeError: '_MultiProcessingDataLoaderIter' object has no attribute '_workers_status'" % (hexid(rng, 10), job.site, job.site))
        if job.tv() >= 204:
            for rk in job.ranks[:min(8, job.world)]:
                job.c10d(rk.r, t_end + rng.uniform(1, 2), "W", "ProcessGroupNCCL.cpp:1250" if job.tv() < 205 else "ProcessGroupNCCL.cpp:1496",
                         "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application "
                         "should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process "
                         "can exit before this point and block the progress of another member of the process group. This constraint has always been present,  "
                         "but this warning has only been added since PyTorch 2.4 (function operator())")
    job.flags["healthy_variant"] = v
    return _truth(None, None, None, True, notes)


INJECTORS = {
    "gpu_hardware": inj_gpu_hardware, "ecc_memory": inj_ecc_memory, "nvlink": inj_nvlink, "network": inj_network,
    "host_oom_kill": inj_host_oom_kill, "cuda_oom": inj_cuda_oom, "illegal_memory_access": inj_illegal_memory_access,
    "python_exception": inj_python_exception, "crash_signal": inj_crash_signal, "hang": inj_hang,
    "collective_mismatch": inj_collective_mismatch, "data_loader_stall": inj_data_loader_stall,
    "preemption": inj_preemption, "straggler": inj_straggler, None: inj_healthy,
}
