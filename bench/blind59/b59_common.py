"""blind59 shared run flow: the scenario context, baseline noise (NCCL init, training
progress, kernel noise), the collateral cascade on the other ranks and the launcher's
view of the exits (torchrun agents, srun / slurmstepd)."""
import datetime as dt
from b59_core import Bundle, pylog, sec, slurm_ts, elastic_ts, busid_to_pci, nic_pci
import b59_text as T

DEFAULT_IBTO = {14: 0.5, 18: 7.5, 20: 30.0, 22: 120.0}
SRUN_HOW = {-9: "Killed", -6: "Aborted (core dumped)", -11: "Segmentation fault (core dumped)", -7: "Bus error (core dumped)",
            -15: "Terminated"}


class Ctx:
    def __init__(self, job, R, cause):
        self.job, self.R, self.cause = job, R, cause
        self.B = Bundle(job)
        self.t_init = R.uniform(25, 240)
        self.t_fail = None
        self.seq = R.randint(3000, 300000)
        self.debug = R.wpick([("INFO", 0.55), ("WARN", 0.25), (None, 0.2)])
        lay = job.layout
        if lay == "slurm":
            self.launcher = R.pick(["srun", "srun", "srun+torchrun"])
        elif lay in ("torchrun", "k8s"):
            self.launcher = "torchrun"
        else:
            self.launcher = R.pick(["torchrun", "srun", "srun+torchrun"])
        self.deaths = {}
        self.outcome = "failed"
        self.rank_groups, self.node_groups = [], []
        self.truth_rank = None
        self.truth_node = None
        self.notes = ""
        self.visible = []
        self.op = R.pick(["ALLREDUCE", "ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "ALLGATHER", "BROADCAST"])
        self.numel = R.pick([1, 1, 8, 2 ** R.randint(10, 27)])
        ibt = 20 if job.nv >= (2, 23, 0) else 18 if job.nv >= (2, 14, 0) else 14
        if R.chance(0.2):
            ibt = R.pick([14, 22])
        self.ib_timeout = ibt
        self.ibto = DEFAULT_IBTO[ibt]
        self.step_time = R.uniform(0.25, 4.0)
        self.step0 = R.pick([0, 0, R.randint(1, 60) * 500])
        self.total_steps = R.pick([50000, 100000, 250000, 12000, 30000])
        self.prog = R.pick(["pylog", "megatron", "tqdm", "hf", "plain"])
        self.attach_dmesg = []      # hosts whose kernel log a layout should attach
        self.want = set()           # hints for layouts: 'ibstat', 'ibdiag', 'opensm', ...
        self.restart = None         # healthy restart variant: (t_restart)
        self.nodefail_hosts = set()

    # ------------------------------------------------------------ helpers
    def T(self):
        return self.job.timeout_ms / 1000.0

    def d(self, t, h):
        return self.job.lt(t, h)

    def dr(self, t, r):
        return self.job.lt(t, self.job.node(r))

    def step_at(self, t):
        return self.step0 + max(0, int((t - self.t_init - 60) / self.step_time))


def pick_visible(ctx, must, target=None):
    job, R = ctx.job, ctx.R
    if job.world <= 16:
        ctx.visible = list(range(job.world))
        return ctx.visible
    v = set(must) | {0}
    for m in list(must):
        v.add((m + job.gpn) % job.world)
        v.add((m - job.gpn) % job.world)
        for x in job.ranks_on(job.node(m))[:R.randint(1, job.gpn)]:
            v.add(x)
    k = target or min(job.world, R.randint(8, 36))
    while len(v) < k:
        v.add(R.randrange(job.world))
    ctx.visible = sorted(v)
    return ctx.visible


# ================================================================ baseline
def progress_line(ctx, t, step, loss, tps, st):
    h = ctx.job.nodes[0]
    d = ctx.d(t, h)
    p = ctx.prog
    if p == "pylog":
        return "%s INFO [trainer] step=%d loss=%.4f lr=%.2e grad_norm=%.3f tokens/s=%.2fM step_time=%.3fs" % (
            pylog(d), step, loss, 3e-4, 0.4 + (step % 17) / 40.0, tps, st)
    if p == "megatron":
        return " [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: 3.000000E-04 | global batch size: %5d | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |" % (
            sec(d), step, ctx.total_steps, step * 1024, st * 1000, 1024, loss, 0.4 + (step % 13) / 30.0)
    if p == "tqdm":
        pct = int(100 * step / ctx.total_steps)
        return "Training: %3d%%|%s| %d/%d [%s<?, %.2fit/s, loss=%.3f]" % (
            pct, ("#" * (pct // 10)).ljust(10), step, ctx.total_steps, str(dt.timedelta(seconds=int(t))), 1.0 / st, loss)
    if p == "hf":
        return "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': 2.9e-05, 'epoch': %.2f}" % (
            loss, 0.3 + (step % 11) / 25.0, step / 3000.0)
    return "[%s] step %d | loss %.3f | %.0f ms/step | %.2fM tok/s" % (sec(d), step, loss, st * 1000, tps)


def baseline(ctx, t_end, every=None, slow_from=None, slow_factor=1.0):
    """init lines of visible ranks, startup noise, rank-0 progress until t_end."""
    job, R, B = ctx.job, ctx.R, ctx.B
    ti = ctx.t_init
    B.rank(ti - 8, 0, "py", "%s INFO [setup] world_size=%d nodes=%d model=%s torch=%s cuda=%s" % (
        pylog(ctx.d(ti - 8, job.nodes[0])), job.world, len(job.nodes), job.model, job.tv, job.cuda))
    for r in ctx.visible:
        h = job.node(r)
        if ctx.debug == "INFO":
            lines, bidx = T.init_lines(job, r, R, chan_lines=R.randint(2, 6))
            for i, ln in enumerate(lines):
                eid = "map:%d" % r if ("Init START" in ln or "Init COMPLETE" in ln) else None
                B.rank(ti + r * 0.0007 + i * 0.003, r, "nccl", ln, eid=eid)
        if R.chance(0.25):
            B.rank(ti - 5, r, "torch", "%s/utils/data/dataloader.py:617: UserWarning: This DataLoader will create 16 worker processes in total. Our suggested max number of worker in current system is 12, which is smaller than what this DataLoader is going to create." % T.torch_dir(job))
    if ctx.debug == "INFO" and job.transport in ("ib", "roce"):
        B.rank(ti + 0.5, 0, "nccl", T.ninfo(job, 0, "NCCL_IB_TIMEOUT set by environment to %d." % ctx.ib_timeout) if R.chance(0.3)
               else T.ninfo(job, 0, "NCCL_IB_GID_INDEX set by environment to 3.") if job.transport == "roce"
               else T.ninfo(job, 0, "NCCL_SOCKET_IFNAME set by environment to %s" % job.oob))
    # progress
    t = ti + 60
    n_lines = R.randint(60, 400)
    dur = max(1.0, t_end - t)
    every = every or max(1, int(dur / ctx.step_time / n_lines))
    step = ctx.step0
    loss = R.uniform(2.0, 3.4)
    base_tps = R.uniform(0.3, 4.5)
    while t < t_end:
        st = ctx.step_time * (slow_factor if slow_from is not None and t >= slow_from else 1.0) * R.uniform(0.97, 1.04)
        t += st * every
        step += every
        if t >= t_end:
            break
        loss = max(0.8, loss - R.uniform(-0.01, 0.012))
        tps = base_tps / (st / ctx.step_time)
        B.rank(t, 0, "app", progress_line(ctx, t, step, loss, tps, st))
    ctx.last_step = step
    return step


def success_end(ctx, t_end):
    job, R, B = ctx.job, ctx.R, ctx.B
    h0 = job.nodes[0]
    B.rank(t_end, 0, "app", "%s INFO [trainer] training finished: %d steps, saving final checkpoint to /checkpoints/%s/step_%d" % (
        pylog(ctx.d(t_end, h0)), ctx.last_step, job.model, ctx.last_step))
    for r in ctx.visible:
        ctx.deaths[r] = (t_end + R.uniform(5, 30), 0)
    ctx.outcome = "completed"


# ================================================================ kernel noise
def kernel_noise(ctx, h, t0, t1, n=None):
    job, R, B = ctx.job, ctx.R, ctx.B
    pool = [
        lambda: "perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d" % (
            R.randint(2501, 4000), 2500, R.pick([79750, 63750, 50000])),
        lambda: "systemd-journald[%d]: Data hash table of /var/log/journal/%s/system.journal has a fill level at 75.0 (8535 of 11377 items, 6553600 file size, 767 bytes per hash table item), suggesting rotation." % (
            R.randint(400, 2000), R.hexs(32)),
        lambda: "audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" profile=\"snap.lxd.activate\" name=\"/proc/%d/mountinfo\" pid=%d comm=\"snap-exec\" requested_mask=\"r\" denied_mask=\"r\" fsuid=0 ouid=0" % (
            R.randint(1600000000, 1800000000), R.randint(0, 999), R.randint(100, 999), R.randint(1000, 9000), R.randint(1000, 9000)),
        lambda: "TCP: request_sock_TCP: Possible SYN flooding on port %d. Sending cookies.  Check SNMP counters." % job.port,
        lambda: "nvidia-nvswitch%d: open (major=%d)" % (R.randint(0, 3), R.pick([508, 509, 510])),
        lambda: "Memory failure: 0x%x: recovery action for clean LRU page: Recovered" % R.randint(10**6, 10**8),
        lambda: "EDAC MC%d: 1 CE memory read error on CPU_SrcID#%d_MC#%d_Chan#%d_DIMM#0 (channel:%d slot:0 page:0x%x offset:0x0 grain:32 syndrome:0x0 - err_code:0x0000:0x009f  SystemAddress:0x%x)" % (
            R.randint(0, 3), R.randint(0, 1), R.randint(0, 1), R.randint(0, 3), R.randint(0, 3), R.randint(10**5, 10**7), R.randint(10**9, 10**11)),
        lambda: "hrtimer: interrupt took %d ns" % R.randint(100000, 900000),
    ]
    if job.transport == "ib":
        pool.append(lambda: "%s: multicast join failed for ff12:401b:ffff:0000:0000:0000:ffff:ffff, status -22" % (job.oob if job.oob.startswith("ib") else "ib0"))
    if job.transport in ("ib", "roce"):
        pool.append(lambda: "mlx5_core %s: mlx5_fw_tracer_handle_traces:%d:(pid %d): FWTracer: Events were lost" % (
            nic_pci(job.busids[R.randrange(job.gpn)], 0), R.pick([735, 749]), R.randint(100, 9000)))
    n = n if n is not None else R.randint(2, 9)
    for _ in range(n):
        B.kern(R.uniform(t0, t1), h, R.pick(pool)())


def boot_kernel_lines(ctx, h):
    """a few driver-load lines near the start of the kept kernel log."""
    job, R, B = ctx.job, ctx.R, ctx.B
    t = -R.uniform(600, 3000)
    built = job.t0 - dt.timedelta(days=R.randint(40, 300), seconds=R.randint(0, 86400))
    out = ["NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s  %s" % (job.driver, built.strftime("%a %b ") + "%2d" % built.day + built.strftime(" %H:%M:%S UTC %Y")),
           "nvidia_peermem: loading out-of-tree module taints kernel." if R.chance(0.5) else "nvidia-fs: Initializing nvfs driver module"]
    if job.transport in ("ib", "roce"):
        for k in range(min(job.gpn, len(job.hcas))):
            pci = nic_pci(job.busids[k], k)
            out.append("mlx5_core %s: firmware version: %s" % (pci, "28.39.1002" if job.gpu != "A100" else "20.38.1002"))
            out.append("mlx5_core %s: Port module event: module %d, Cable plugged" % (pci, k))
    B.kern(t, h, out, dt_step=0.4)


# ================================================================ collateral
def _peer_error(ctx, r, t, peer_h, mode, remote_lr=None):
    """transport error lines on rank r naming peer_h; returns the 'Last error' text."""
    job, R, B = ctx.job, ctx.R, ctx.B
    d = ctx.dr(t, r)
    remote_lr = job.lrank(r) if remote_lr is None else remote_lr
    tr = job.transport
    if tr in ("ib", "roce"):
        st = 12 if R.chance(0.75) else 5
        line = T.ib_completion(job, r, d, peer_h, st, R.pick([0, 0, 1, 129]), 129 if st == 12 else 249, remote_lr,
                               kind=R.pick(["Send", "Recv"]))
        lines = [line] + (T.net_followups(job, r) if ctx.debug == "INFO" else [])
    elif tr == "efa":
        lines = T.ofi_error(job, r, d, R, peer_h, unresp=R.chance(0.7))
        line = lines[-1]
    else:
        if mode in ("exit", "node"):
            line = T.socket_closed(job, r, d, peer_h)
        else:
            line = T.socket_recv_fail(job, r, d, peer_h, R.pick(["Connection timed out", "Connection reset by peer"]))
        lines = [line] + (T.net_followups(job, r)[1:] if ctx.debug == "INFO" else [])
    if ctx.debug is not None or tr == "efa":
        if ctx.debug is None and tr == "efa":
            lines = lines[:1]
        B.rank(t, r, "nccl", [""] + lines, eid="peer_err:%s>%s" % (job.node(r), peer_h), dt_step=0.0004)
    le = line.split(" NCCL WARN ", 1)[-1] if " NCCL WARN " in line else line
    return le


def abort_on_error(ctx, r, t, last_error, kind="remote", code=-6, eid=None):
    job, R, B = ctx.job, ctx.R, ctx.B
    if R.chance(0.35):
        lines = T.dist_backend_tb(job, r, R, kind, last_error)
        B.rank(t, r, "py", lines, eid=eid, dt_step=0.0002)
        code = 1
    else:
        lines = T.watchdog_async(job, r, ctx.dr(t, r), R, ctx.seq, ctx.seq - 1, kind, last_error)
        B.rank(t, r, "torch", lines, eid=eid, dt_step=0.0002)
    ctx.deaths[r] = (t + R.uniform(0.3, 2.5), code)
    ctx.fatal_print = getattr(ctx, "fatal_print", {})
    ctx.fatal_print[r] = t


def timeout_abort(ctx, r, t, seq=None, last_done=None, eid=None, protect=False):
    job, R = ctx.job, ctx.R
    seq = seq or ctx.seq
    last_done = seq - 1 if last_done is None else last_done
    lines = T.watchdog_timeout(job, r, ctx.dr(t, r), R, seq, ctx.op, ctx.numel, last_done)
    ctx.B.rank(t, r, "torch", lines, eid=eid, protect=protect, dt_step=0.0002)
    ctx.deaths[r] = (t + R.uniform(0.5, 4.0), -6)
    ctx.fatal_print = getattr(ctx, "fatal_print", {})
    ctx.fatal_print[r] = t


def collateral(ctx, mode, dead, t, X, lr_bad=None, hung=None):
    """mode: exit (initiator processes exited at t), node (all of X's ranks gone at t),
    hang (initiator stuck; everybody else times out), net (X's NIC rail lr_bad failed at t).
    Writes the other ranks' lines and fills ctx.deaths for every rank."""
    job, R, B = ctx.job, ctx.R, ctx.B
    T_ = ctx.T()
    others = [h for h in job.nodes if h != X]
    R.shuffle(others)
    first = {}
    agent = ctx.launcher != "srun"
    # ---- node X
    if mode == "hang":
        first[X] = t + T_ + R.uniform(0.2, 3.0)
    elif mode == "net":
        first[X] = t + ctx.ibto + R.uniform(0.1, 2.0)
    else:
        first[X] = t + R.uniform(0.05, 0.5)
    # ---- other nodes
    nwave = max(1, min(len(others), R.randint(1, 3)))
    wave_delay = ctx.ibto if job.transport in ("ib", "roce") else (R.uniform(0.05, 1.0) if mode in ("exit", "node") else R.uniform(15, 120))
    if job.transport == "efa":
        wave_delay = R.uniform(3, 40)
    for i, h in enumerate(others):
        if mode == "hang":
            first[h] = t + T_ + R.uniform(0.0, 3.0)
        elif i < nwave:
            first[h] = t + wave_delay + R.uniform(0.1, 3.0)
        else:
            first[h] = t + wave_delay + R.uniform(3.0, 45.0)
    died_before = [X]
    order = sorted(others, key=lambda h: first[h])
    vis = set(ctx.visible)
    for h in [X] + order:
        ranks = job.ranks_on(h)
        vr = [r for r in ranks if r in vis and r not in dead]
        if mode == "hang":
            for r in vr:
                tt = first[h] + R.uniform(0, 1.2)
                timeout_abort(ctx, r, tt)
            continue
        if h == X:
            if mode == "net":
                # the rank on the failed rail reports first, naming a peer on another node
                rb = ranks[lr_bad] if lr_bad is not None else ranks[0]
                if rb in vis and others:
                    le = _peer_error(ctx, rb, first[h], order[0], mode, remote_lr=lr_bad)
                    abort_on_error(ctx, rb, first[h] + R.uniform(0.2, 2.0), le, eid="localnic")
                elif rb not in ctx.deaths:
                    ctx.deaths[rb] = (first[h] + 1.0, -6)
            for r in vr:
                if r in ctx.deaths:
                    continue
                if ctx.debug == "INFO" and mode == "exit" and dead and R.chance(0.6):
                    B.rank(first[h] + R.uniform(0.01, 0.3), r, "nccl", T.service_closed(job, r, job.lrank(dead[0])))
                if agent:
                    ctx.deaths[r] = (first[h] + R.uniform(0.5, 3.0), -15)
                else:
                    tt = t + T_ + R.uniform(0, 2)
                    timeout_abort(ctx, r, tt)
            continue
        # other node: one reporter, the rest torn down
        peer = X if (h in order[:nwave] or R.chance(0.5)) else R.pick(died_before)
        rep = [r for r in vr if job.lrank(r) == (lr_bad if lr_bad is not None else job.lrank(dead[0]) if dead else 0)]
        rep = rep[0] if rep else (vr[0] if vr else None)
        if rep is not None:
            le = _peer_error(ctx, rep, first[h], peer, mode,
                             remote_lr=lr_bad if lr_bad is not None else (job.lrank(dead[0]) if dead else None))
            abort_on_error(ctx, rep, first[h] + R.uniform(0.3, 2.5), le)
        for r in vr:
            if r == rep or r in ctx.deaths:
                continue
            if R.chance(0.2) and rep is not None:
                le = _peer_error(ctx, r, first[h] + R.uniform(0.0, 1.5), peer, mode)
                abort_on_error(ctx, r, first[h] + R.uniform(1.0, 3.0), le)
            elif agent:
                ctx.deaths[r] = (first[h] + R.uniform(1.0, 4.0), -15)
            else:
                timeout_abort(ctx, r, t + T_ + R.uniform(0, 2))
        died_before.append(h)
    # invisible ranks and the per-node teardown
    agent = ctx.launcher != "srun"
    hung = set(hung or [])
    for h in job.nodes:
        ranks = job.ranks_on(h)
        if mode == "hang":
            for r in ranks:
                if r not in ctx.deaths and r not in hung:
                    ctx.deaths[r] = (first[h] + R.uniform(0, 1.2) + R.uniform(0.5, 4.0), -6)
        real = [ctx.deaths[r][0] for r in ranks if r in ctx.deaths and ctx.deaths[r][1] not in (-15, 0)]
        if not real and mode != "node":
            cand = [r for r in ranks if r not in ctx.deaths and r not in hung]
            if cand:
                r = R.pick(cand)
                ctx.deaths[r] = (first[h] + R.uniform(0.3, 2.5), -6)
                real = [ctx.deaths[r][0]]
        if not real:
            for r in ranks:
                if r not in ctx.deaths:
                    ctx.deaths[r] = (first[h] + R.uniform(0.2, 2.0), -15)
            continue
        tr = min(real)
        for r in ranks:
            if r not in ctx.deaths:
                ctx.deaths[r] = (tr + R.uniform(0.3, 3.0), -15) if agent else (first[h] + ctx.T() + R.uniform(0, 3), -6)
            elif ctx.deaths[r][1] == -15 and ctx.deaths[r][0] < tr:
                ctx.deaths[r] = (tr + R.uniform(0.3, 3.0), -15)
    return first


# ================================================================ launchers
def launcher_records(ctx):
    job, R, B = ctx.job, ctx.R, ctx.B
    if ctx.outcome in ("running",):
        return
    if ctx.launcher == "srun" and ctx.outcome == "failed":
        # srun (KillOnBadExit) tears the whole step down right after the first task that really failed
        real = [t for (t, c) in ctx.deaths.values() if c not in (0, -15)]
        if real:
            tk = min(real) + R.uniform(0.5, 1.5)
            ctx.srun_kill_t = tk
            lastprot = {}
            for x in B.recs:
                if x.src == "rank" and x.protect:
                    lastprot[x.rank] = max(lastprot.get(x.rank, -1e18), x.t)
            fatal = getattr(ctx, "fatal_print", {})
            for r, (t, c) in list(ctx.deaths.items()):
                if t > tk + 0.5:
                    if r in fatal and fatal[r] <= tk:
                        ctx.deaths[r] = (min(t, tk + R.uniform(0.2, 0.8)), c)
                    else:
                        ctx.deaths[r] = (max(tk + R.uniform(0, 0.8), lastprot.get(r, -1e18) + 0.3), -15)
    byh = {}
    for r, (t, code) in ctx.deaths.items():
        byh.setdefault(job.node(r), []).append((t, r, code))
    if ctx.launcher in ("torchrun", "srun+torchrun"):
        for h in job.nodes:
            ev = sorted(byh.get(h, []))
            if not ev:
                continue
            if ctx.outcome == "completed" or all(c == 0 for _, _, c in ev):
                tt = max(t for t, _, _ in ev) + 1
                B.agent(tt, h, T.agent_line(job, h, ctx.d(tt, h), "I", "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish", mod="torch/distributed/elastic/agent/server/api.py", line=879))
                continue
            t1, r1, c1 = ev[0]
            d1 = ctx.d(t1, h)
            k = 0
            for t2, r2, c2 in ev[1:]:
                if c2 == -15:
                    k += 1
                    B.agent(t1 + 0.01 + k * 0.0003, h, T.agent_line(job, h, ctx.d(t1 + 0.01 + k * 0.0003, h), "W", "Sending process %d closing signal SIGTERM" % job.pids[r2], line=897))
            tf = t1 + 0.05 + k * 0.0003 + R.uniform(0.1, 4.0)
            B.agent(tf, h, T.agent_line(job, h, ctx.d(tf, h), "E", "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python3" % (c1, job.lrank(r1), job.pids[r1])), eid="agentfail:%d" % r1)
            fails = [(ctx.d(t, h), r, c, job.pids[r]) for t, r, c in ev if c != 0]
            B.agent(max(t for t, _, _ in ev) + R.uniform(0.5, 3), h, T.child_failed(job, h, fails), eid="childfailed:%d" % r1,
                    maps=frozenset(["map:%d" % r for _, r, _, _ in fails] + ["pid:%d" % r for _, r, _, _ in fails]))
    if ctx.launcher in ("srun", "srun+torchrun"):
        jid = job.jobid
        allev = sorted((t, r, c) for r, (t, c) in ctx.deaths.items())
        if ctx.outcome == "completed":
            return
        if ctx.launcher == "srun":
            t1, r1, c1 = next(((t, r, c) for t, r, c in allev if c not in (0, -15)), next(((t, r, c) for t, r, c in allev if c != 0), allev[0]))
            h1 = job.node(r1)
            how = getattr(ctx, "srun_how", {}).get(r1) or SRUN_HOW.get(c1)
            B.sched(t1 + 0.3, h1, T.srun_exit(h1, [r1], code=c1 if c1 > 0 else None, how=how), eid="srunfail:%d" % r1, maps=frozenset(["map:%d" % r1]))
            if True:
                tk = getattr(ctx, "srun_kill_t", t1 + R.uniform(0.5, 2))
                B.sched(tk, None, "srun: Job step aborted: Waiting up to %d seconds for job step to finish." % R.pick([32, 62, 122]))
                for h in job.nodes:
                    B.sched(tk + R.uniform(0.01, 0.3), h, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (jid, h, slurm_ts(ctx.d(tk, h))))
            rest = {}
            for t, r, c in allev:
                if r == r1:
                    continue
                rest.setdefault((job.node(r), c), []).append((t, r))
            for (h, c), lst in sorted(rest.items(), key=lambda kv: min(x[0] for x in kv[1])):
                tasks = sorted(r for _, r in lst)
                how = SRUN_HOW.get(c)
                tt = max(x[0] for x in lst) + R.uniform(0.2, 2)
                if len(tasks) > 1 and tasks[-1] - tasks[0] + 1 == len(tasks):
                    B.sched(tt, h, T.srun_exit(h, tasks, code=c if c > 0 else None, how=how), maps=frozenset("map:%d" % x for x in tasks))
                else:
                    for tk_ in tasks[:4]:
                        B.sched(tt, h, T.srun_exit(h, [tk_], code=c if c > 0 else None, how=how), maps=frozenset(["map:%d" % tk_]))
        else:
            # one srun task per node running torchrun: node-level exits
            for i, h in enumerate(job.nodes):
                ev = sorted(x for x in allev if job.node(x[1]) == h)
                if not ev:
                    continue
                tt = ev[-1][0] + R.uniform(1, 4)
                B.sched(tt, h, T.srun_exit(h, [i], code=1))


def prune_after_death(ctx):
    """a process prints nothing after it died (protected evidence is placed before death)."""
    if ctx.outcome == "completed":
        return
    keep = []
    for x in ctx.B.recs:
        if x.src == "rank" and not x.protect and x.rank in ctx.deaths and x.t > ctx.deaths[x.rank][0] + 0.05:
            continue
        keep.append(x)
    ctx.B.recs = keep
