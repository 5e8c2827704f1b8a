"""blind59 scenarios, part B: application / host / scheduler causes that surface as network
errors on the peers, the unknown case, healthy runs and scary-but-harmless fabric noise."""
from b59_core import busid_to_pci, nic_pci, pylog, sec, glog, slurm_ts
import b59_text as T
import b59_fabric as F
from b59_common import pick_visible, baseline, collateral, launcher_records, success_end, timeout_abort, _peer_error, abort_on_error
from b59_causes_a import setup, cuda_exc, cuda_error_tb, kern_prefix_hint, ibdiag_unrelated, sm_noise
from b59_noise import noise_link_retrain, add_noise


def any_rank(ctx, not0=False):
    R, job = ctx.R, ctx.job
    if not0 and job.world > 1:
        return R.randrange(1, job.world)
    return R.randrange(job.world)


# ================================================================ cuda_oom
def run_cuda_oom(ctx):
    job, R, B = ctx.job, ctx.R, ctx.B
    r0 = any_rank(ctx)
    X, lr = job.node(r0), job.lrank(r0)
    t = setup(ctx, [r0])
    tot = {"H100": 79.11, "A100": 79.15, "H200": 139.72, "L40S": 44.39}[job.gpu]
    free = R.uniform(0.05, 2.0)
    req = R.pick([1.0, 2.0, 3.5, 4.0, 8.0, 12.5])
    alloc = tot - free - R.uniform(0.5, 3.0)
    if job.tv[:3] == "2.1":
        cls = "torch.cuda.OutOfMemoryError"
        msg = "CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacty of %.2f GiB of which %.2f GiB is free. Process %d has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF" % (
            req, lr, tot, free, job.pids[r0], tot - free, alloc, R.uniform(0.1, 2.0))
    else:
        cls = "torch.cuda.OutOfMemoryError" if job.tv[:3] in ("2.2", "2.3", "2.4") else "torch.OutOfMemoryError"
        msg = "CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (
            req, lr, tot, free, tot - free, alloc, R.uniform(0.1, 2.0))
    leaf = [("/workspace/model/attention.py", R.randint(100, 300), "forward", "scores = torch.matmul(q, k.transpose(-2, -1)) / self.scale")]
    B.rank(t, r0, "py", T.py_tb(job, r0, T.app_frames(job, R, leaf), ["%s: %s" % (cls, msg)]), eid="own", protect=True, dt_step=0.0001)
    ctx.deaths[r0] = (t + 0.8, 1)
    collateral(ctx, "exit", [r0], t + 0.8, X)
    ctx.rank_groups = [["own"]]
    ctx.node_groups = [["own"]]
    ctx.truth_rank, ctx.truth_node = r0, X
    ctx.notes = "Rank %d on %s ran out of GPU memory (tried to allocate %.2f GiB) and exited; the NCCL network errors on its peers followed." % (r0, X, req)
    launcher_records(ctx)


# ================================================================ illegal_memory_access
def run_illegal_memory_access(ctx):
    job, R, B = ctx.job, ctx.R, ctx.B
    r0 = any_rank(ctx)
    X, lr = job.node(r0), job.lrank(r0)
    t = setup(ctx, [r0])
    pci = busid_to_pci(job.busids[lr])
    var = R.pick(["ima", "ima", "assert"])
    if var == "ima":
        gpc = R.randint(0, 7)
        x = T.xid(pci, 31, "channel 0x%08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x%x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_%s" % (
            R.randint(8, 40), gpc, R.randint(0, 15), R.randint(0x7f00, 0x7fff), R.randint(0, 0xffffffff), R.pick(["READ", "WRITE"])),
            pid=job.pids[r0], name=R.pick(["python3", "pt_main_thread"]))
        msg = "an illegal memory access was encountered"
        kl = T.gpu_id_lines(job, X, lr, R) + [x]
    else:
        kl = [T.xid(pci, 43, "Ch 000000%02x, engmask 00000101" % R.randint(8, 60), pid=job.pids[r0], name="python3")]
        msg = "device-side assert triggered"
        B.rank(t - 0.01, r0, "torch", ["/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:%d: operator(): block: [%d,0,0], thread: [%d,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed." % (
            R.pick([92, 93]), R.randint(0, 9000), 32 * R.randint(0, 3) + i) for i in range(R.randint(2, 5))], eid="own", protect=True)
    B.kern(t + R.uniform(-0.002, 0.01), X, kl, eid="xidpid", protect=True, dt_step=0.001)
    kern_prefix_hint(ctx, X)
    cuda_error_tb(ctx, r0, t + 0.001, msg)
    if R.chance(0.5):
        P = T.pg(job, r0)
        B.rank(t + 0.4, r0, "torch", [T.tpre(job, r0, ctx.dr(t + 0.4, r0), 1595) + "%s Process group watchdog thread terminated with exception: CUDA error: %s" % (P, msg),
                                      "terminate called after throwing an instance of 'c10::DistBackendError'" if job.era() >= 4 else "terminate called after throwing an instance of 'c10::Error'",
                                      "  what():  %s Process group watchdog thread terminated with exception: CUDA error: %s" % (P, msg)], eid="own")
        ctx.deaths[r0] = (t + 0.6, -6)
    else:
        ctx.deaths[r0] = (t + 0.6, 1)
    collateral(ctx, "exit", [r0], t + 0.6, X)
    ctx.rank_groups = [["own"], ["xidpid", "pid:%d" % r0]]
    ctx.node_groups = [["own"], ["xidpid"]]
    ctx.truth_rank, ctx.truth_node = r0, X
    ctx.notes = "Rank %d on %s hit '%s' (application fault, Xid %s); the other nodes only saw the NCCL connection to it break." % (
        r0, X, msg, "31" if var == "ima" else "43")
    launcher_records(ctx)


# ================================================================ python_exception
PY_EXC = [
    ("FileNotFoundError: [Errno 2] No such file or directory: '/lustre/datasets/%s/shard-%05d.bin'", "data"),
    ("KeyError: 'attention_mask'", "data"),
    ("ValueError: Expected input batch_size (%d) to match target batch_size (%d).", "model"),
    ("AssertionError: loss is nan at step %d", "loop"),
    ("requests.exceptions.ConnectionError: HTTPSConnectionPool(host='s3.%s.amazonaws.com', port=443): Max retries exceeded with url: /ckpt-%s/%s/step_%d/model_%05d.pt (Caused by NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f%s>: Failed to establish a new connection: [Errno 101] Network is unreachable'))", "ckpt"),
    ("OSError: [Errno 28] No space left on device: '/checkpoints/%s/step_%d/optim_rank%05d.pt'", "ckpt"),
    ("ConnectionResetError: [Errno 104] Connection reset by peer", "ckpt"),
]


def run_python_exception(ctx):
    job, R, B = ctx.job, ctx.R, ctx.B
    tmpl, kind = R.pick(PY_EXC)
    r0 = 0 if kind == "ckpt" and R.chance(0.6) else any_rank(ctx)
    X = job.node(r0)
    t = setup(ctx, [r0])
    step = ctx.step_at(t)
    if "shard" in tmpl:
        msg = tmpl % (job.model, R.randint(0, 40000))
        leaf = [("/workspace/data/dataset.py", R.randint(50, 200), "__getitem__", "with open(path, 'rb') as f:")]
    elif "batch_size" in tmpl:
        b = R.pick([1024, 2048, 4096])
        msg = tmpl % (b, b - 1)
        leaf = [("/usr/local/lib/python3.11/dist-packages/torch/nn/functional.py", 3104, "cross_entropy", "return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)")]
    elif "nan" in tmpl:
        msg = tmpl % step
        leaf = []
    elif "s3." in tmpl:
        msg = tmpl % (R.pick(["us-west-2", "us-east-1"]), R.hexs(6), job.model, step, r0, R.hexs(9))
        leaf = [("/workspace/utils/ckpt.py", R.randint(40, 120), "upload_shard", "resp = session.put(url, data=f, timeout=60)"),
                ("/usr/local/lib/python3.11/dist-packages/requests/adapters.py", 519, "send", "raise ConnectionError(e, request=request)")]
    elif "No space" in tmpl:
        msg = tmpl % (job.model, step, r0)
        leaf = [("/workspace/utils/ckpt.py", R.randint(40, 120), "save_shard", "torch.save(state, path)")]
    elif "reset" in tmpl:
        msg = tmpl
        leaf = [("/workspace/utils/metrics.py", R.randint(30, 90), "push", "self.sock.sendall(payload)")]
    else:
        msg = tmpl
        leaf = [("/workspace/data/collate.py", R.randint(20, 80), "__call__", "mask = batch['attention_mask']")]
    B.rank(t, r0, "py", T.py_tb(job, r0, T.app_frames(job, R, leaf), [msg]), eid="own", protect=True, dt_step=0.0001)
    ctx.deaths[r0] = (t + 0.5, 1)
    collateral(ctx, "exit", [r0], t + 0.5, X)
    ctx.rank_groups = [["own"]]
    ctx.node_groups = [["own"]]
    ctx.truth_rank, ctx.truth_node = r0, X
    ctx.notes = "Rank %d on %s raised an uncaught %s; when it exited its peers reported NCCL network errors." % (r0, X, msg.split(":")[0])
    launcher_records(ctx)


# ================================================================ host_oom_kill
def run_host_oom_kill(ctx):
    job, R, B = ctx.job, ctx.R, ctx.B
    r0 = any_rank(ctx)
    X = job.node(r0)
    t = setup(ctx, [r0])
    cg = job.layout in ("k8s", "slurm") and R.chance(0.7)
    comm = R.pick(["python3", "pt_main_thread", "python"])
    B.kern(t - 0.05, X, T.oom_kill(job.pids[r0], comm, R, cgroup=cg), eid="oom", protect=True, dt_step=0.01)
    kern_prefix_hint(ctx, X)
    ctx.deaths[r0] = (t, -9)
    ctx.srun_how = {r0: "Out Of Memory"}
    if job.layout == "slurm" and R.chance(0.7):
        B.sched(t + R.uniform(1, 20), X, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % job.jobid, eid="oomstep", protect=True)
    ctx.pod_reason = {X: ("OOMKilled", 137)}
    collateral(ctx, "exit", [r0], t, X)
    ctx.rank_groups = [["oom", "pid:%d" % r0], ["srunfail:%d" % r0]]
    ctx.node_groups = [["oom"], ["oomstep"], ["srunfail:%d" % r0], ["podoom"]]
    ctx.truth_rank, ctx.truth_node = r0, X
    ctx.notes = "The %s OOM killer on %s killed rank %d (pid %d, host memory); the other ranks' NCCL errors and timeouts are collateral." % (
        "cgroup" if cg else "kernel", X, r0, job.pids[r0])
    launcher_records(ctx)


# ================================================================ crash_signal
def run_crash_signal(ctx):
    job, R, B = ctx.job, ctx.R, ctx.B
    r0 = any_rank(ctx)
    X = job.node(r0)
    t = setup(ctx, [r0])
    bus = R.chance(0.25)
    name = "Bus error" if bus else "Segmentation fault"
    p = T.tb_prefix(job, r0)
    lines = ["Fatal Python error: %s" % name, "",
             "Thread 0x00007f%s (most recent call first):" % R.hexs(8),
             '  File "/usr/lib/python3.10/threading.py", line 324 in wait',
             '  File "/usr/lib/python3.10/threading.py", line 607 in wait', "",
             "Current thread 0x00007f%s (most recent call first):" % R.hexs(8)]
    if bus:
        lines += ['  File "/usr/local/lib/python3.11/dist-packages/torch/serialization.py", line 1449 in load',
                  '  File "/workspace/utils/ckpt.py", line %d in load_shard' % R.randint(40, 120)]
    else:
        lines += ['  File "/workspace/model/kernels/%s.py", line %d in forward' % (R.pick(["fused_rope", "flash_wrapper", "moe_dispatch"]), R.randint(40, 200)),
                  '  File "/usr/local/lib/python3.11/dist-packages/torch/nn/modules/module.py", line 1747 in _call_impl']
    lines += ['  File "/workspace/%s", line %d in main' % (job.script, R.randint(300, 500)), "",
              "Extension modules: numpy.core._multiarray_umath, torch._C, torch._C._fft, torch._C._nn, yaml._yaml (total: %d)" % R.randint(30, 90)]
    B.rank(t, r0, "py", lines, eid="own", protect=True, dt_step=0.0001)
    if not bus:
        so = R.pick(["libfused_ops.so", "libc.so.6", "libtorch_cpu.so", "moe_cuda.cpython-311-x86_64-linux-gnu.so"])
        B.kern(t + 0.01, X, "%s[%d]: segfault at %x ip 00007f%s sp 00007ff%s error %d in %s[7f%s+%x] likely on CPU %d (core %d, socket %d)" % (
            R.pick(["python3", "pt_main_thread"]), job.pids[r0], R.pick([0, 8, 0x18, 0x7f00]), R.hexs(9), R.hexs(9), R.pick([4, 6]), so, R.hexs(9),
            R.randint(0x1000, 0x900000), R.randint(0, 95), R.randint(0, 47), R.randint(0, 1)), eid="segv", protect=True)
        kern_prefix_hint(ctx, X)
    code = -7 if bus else -11
    ctx.deaths[r0] = (t + 0.02, code)
    collateral(ctx, "exit", [r0], t + 0.02, X)
    ctx.rank_groups = [["own"], ["segv", "pid:%d" % r0], ["childfailed:%d" % r0], ["srunfail:%d" % r0]]
    ctx.node_groups = [["own"], ["segv"], ["agentfail:%d" % r0], ["childfailed:%d" % r0], ["srunfail:%d" % r0]]
    ctx.truth_rank, ctx.truth_node = r0, X
    ctx.notes = "Rank %d on %s died of %s (no hardware evidence); the peers' NCCL errors name it as the remote that disappeared." % (r0, X, "SIGBUS" if bus else "SIGSEGV")
    launcher_records(ctx)


# ================================================================ preemption
def run_preemption(ctx):
    job, R, B = ctx.job, ctx.R, ctx.B
    whole = job.layout == "slurm" and R.chance(0.6)
    X = R.pick(job.nodes)
    t = setup(ctx, [job.ranks_on(X)[0]])
    if whole:
        for h in job.nodes:
            B.sched(t + R.uniform(0, 0.4), h, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (job.jobid, h, slurm_ts(job.lt(t, h))), eid="preempt", protect=True)
        B.sched(t + 0.3, job.nodes[0], "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (job.jobid, job.nodes[0], slurm_ts(job.lt(t, job.nodes[0]))), eid="preempt", protect=True)
        # ranks go down in a ragged order; the late ones log network errors about the early ones
        order = list(job.nodes)
        R.shuffle(order)
        for i, h in enumerate(order):
            for r in job.ranks_on(h):
                ctx.deaths[r] = (t + i * R.uniform(0.2, 2.0) + R.uniform(0, 0.5), -15)
        for r in ctx.visible:
            h = job.node(r)
            if order.index(h) > 0 and R.chance(0.5):
                peer = order[0]
                tt = ctx.deaths[r][0] - 0.1
                _peer_error(ctx, r, tt, peer, "node")
        ctx.truth_node = None
        ctx.node_groups = []
        ctx.notes = "Slurm preempted the whole job (all steps cancelled DUE TO PREEMPTION); the NCCL connection errors on the ranks that died last are collateral."
        ctx.outcome = "preempted"
    else:
        tw = t - R.uniform(30, 110)
        kern_prefix_hint(ctx, X)
        if job.layout == "k8s":
            ctx.k8s_events = [(tw, "Warning", "SpotInterruption", "node/%s" % X, "Received a Spot interruption notice; the node will be terminated in 2 minutes", "preempt"),
                              (t + 5, "Normal", "NodeNotReady", "node/%s" % X, "Node %s status is now: NodeNotReady" % X)]
            B.sys(tw, X, "aws-node-termination-handler[%d]: Got interruption event: Spot ITN received. Instance will be interrupted at %s" % (R.randint(100, 9000), job.lt(t + 5, X).strftime("%Y-%m-%dT%H:%M:%SZ")), eid="preempt", protect=True)
        else:
            st = job.host_style
            if st in ("ec2", "eks"):
                msg = "aws-node-termination-handler[%d]: Got interruption event: Spot ITN received. Instance will be interrupted at %s" % (R.randint(100, 9000), job.lt(t + 5, X).strftime("%Y-%m-%dT%H:%M:%SZ"))
            elif st == "gke":
                msg = "google_guest_agent[%d]: Instance preempted; shutting down." % R.randint(500, 3000)
            elif st == "aks":
                msg = "WALinuxAgent[%d]: Scheduled event Preempt received for this VM (NotBefore: %s)" % (R.randint(500, 3000), job.lt(t, X).strftime("%a, %d %b %Y %H:%M:%S GMT"))
            else:
                msg = "systemd-logind[%d]: The system will reboot at %s (node reclaimed by the scheduler for a higher-priority reservation)!" % (
                    R.randint(700, 1500), job.lt(t + 60, X).strftime("%a %Y-%m-%d %H:%M:%S UTC"))
            B.sys(tw, X, msg, eid="preempt", protect=True)
        B.sys(t - 0.5, X, "systemd-logind[%d]: System is %s." % (R.randint(700, 1500), "powering down" if job.host_style in ("ec2", "eks", "gke", "aks") else "rebooting"), eid="preempt2")
        B.agent(t, X, T.agent_line(job, X, job.lt(t, X), "W", "Received Signals.SIGTERM death signal, shutting down workers", mod="torch/distributed/elastic/agent/server/api.py", line=722), eid="preempt2")
        for r in job.ranks_on(X):
            ctx.deaths[r] = (t + R.uniform(0.2, 1.5), -15)
        ctx.pod_reason = {X: ("Error", 143)}
        collateral(ctx, "node", job.ranks_on(X), t, X)
        ctx.truth_node = X
        ctx.node_groups = [["preempt"], ["preempt2"]]
        ctx.notes = "%s was reclaimed (%s) and its ranks got SIGTERM; the other nodes saw NCCL errors naming it." % (
            X, "spot/preemptible instance" if job.host_style in ("ec2", "eks", "gke", "aks") else "by the scheduler for a reservation")
    ctx.truth_rank = None
    ctx.rank_groups = []
    launcher_records(ctx)


# ================================================================ hang and data_loader_stall
HANG_FRAMES = [
    ["synchronize (torch/cuda/__init__.py:954)", "log_memory (utils/profiling.py:41)", "train_step (trainer/loop.py:%d)"],
    ["acquire (threading.py:%d)", "emit (logging/__init__.py:1100)", "handle (logging/__init__.py:1028)", "info (logging/__init__.py:1489)", "train_step (trainer/loop.py:%d)"],
    ["wait (threading.py:320)", "result (concurrent/futures/_base.py:451)", "wait_async_save (utils/ckpt.py:%d)", "train_step (trainer/loop.py:%d)"],
]
DATA_FRAMES = [
    ["read (lustre_reader.py:%d)", "__getitem__ (data/dataset.py:%d)", "fetch (torch/utils/data/_utils/fetch.py:52)",
     "_next_data (torch/utils/data/dataloader.py:%d)", "__next__ (torch/utils/data/dataloader.py:%d)", "train_step (trainer/loop.py:%d)"],
    ["_poll (multiprocessing/connection.py:440)", "poll (multiprocessing/connection.py:257)", "get (multiprocessing/queues.py:113)",
     "_try_get_data (torch/utils/data/dataloader.py:%d)", "_get_data (torch/utils/data/dataloader.py:%d)",
     "_next_data (torch/utils/data/dataloader.py:%d)", "__next__ (torch/utils/data/dataloader.py:%d)", "train_step (trainer/loop.py:%d)"],
]


def fill(frames, R):
    return [f % tuple(R.randint(100, 1400) for _ in range(f.count("%d"))) if "%d" in f else f for f in frames]


def _stuck_rank(ctx, data):
    job, R, B = ctx.job, ctx.R, ctx.B
    r0 = any_rank(ctx)
    X = job.node(r0)
    t = setup(ctx, [r0])
    evs = R.sample(["seqlow", "fr", "pyspy"] if job.era() >= 5 else ["fr", "pyspy"], R.randint(1, 2))
    if data:
        evs = R.sample(["pyspy", "dlwait", "fs_kern"], R.randint(1, 2))
        if "fs_kern" in evs and len(evs) == 1:
            evs.append(R.pick(["pyspy", "dlwait"]))
    T_ = ctx.T()
    tt = t + T_ + R.uniform(0.5, 3)
    if "seqlow" in evs:
        victim = R.pick([v for v in ctx.visible if v != r0] or [0])
        P = T.pg(job, r0)
        B.rank(tt + R.uniform(1, 5), r0, "torch", T.tpre(job, r0, ctx.dr(tt + 2, r0), 1426, f="ProcessGroupNCCL.cpp") +
               "%s Received a dump signal due to a collective timeout from rank %d and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. " % (
                   P, victim, ctx.seq - 1, ctx.seq - 1), eid="seqlow", protect=True)
    if "fr" in evs:
        B.art("frtrace", None, ["$ torchfrtrace /tmp/fr_dumps -j"] + F.frtrace_missing(job, ctx.seq, [r0]), eid="fr", protect=True)
    if "pyspy" in evs:
        fr = fill(R.pick(DATA_FRAMES if data else HANG_FRAMES), R)
        B.art("pyspy:%d" % r0, job.node(r0), ["$ py-spy dump --pid %d   # on %s, rank %d" % (job.pids[r0], job.hostname(X), r0)] + F.pyspy(job, r0, fr, R), eid="pyspy", protect=True)
    if "dlwait" in evs:
        for i in range(R.randint(1, 3)):
            tw = t + 60 * (i + 1) * R.uniform(1, 2.5)
            if tw < tt:
                B.rank(tw, r0, "py", "%s WARNING [data] rank %d waiting %.1fs for next batch (prefetch queue empty, %d/%d workers alive)" % (
                    pylog(ctx.dr(tw, r0)), r0, tw - t, R.randint(7, 8), 8), eid="dlwait", protect=True)
    if "fs_kern" in evs:
        srv = R.pick(["fs01", "nfs-home", "10.%d.0.20" % R.randint(0, 250), "vast-vip3"])
        B.kern(t - R.uniform(1, 30), X, "nfs: server %s not responding, still trying" % srv, eid="fs_kern", protect=True)
        B.kern(tt + R.uniform(60, 900), X, "nfs: server %s OK" % srv)
        kern_prefix_hint(ctx, X)
    collateral(ctx, "hang", [r0], t, X, hung=[r0])
    if r0 in ctx.visible and job.transport in ("ib", "roce", "socket") and R.chance(0.5):
        # the stuck rank outlives the others for a moment and reports their disappearance
        others = [h for h in job.nodes if h != X]
        if others:
            te = tt + R.uniform(0.5, 5)
            le = _peer_error(ctx, r0, te, R.pick(others), "exit")
            ctx.deaths[r0] = (te + 1.0, -15)
    return r0, X, evs


def run_hang(ctx):
    r0, X, evs = _stuck_rank(ctx, data=False)
    ctx.rank_groups = [["seqlow"], ["fr"], ["pyspy"]]
    ctx.node_groups = [["seqlow"], ["pyspy"], ["fr", "map:%d" % r0]]
    ctx.truth_rank, ctx.truth_node = r0, X
    ctx.notes = "Rank %d on %s stopped issuing collectives (stuck on the host side) while every other rank waited in SeqNum %d until the watchdog fired; the later network errors are teardown." % (r0, X, ctx.seq)
    launcher_records(ctx)


def run_data_loader_stall(ctx):
    r0, X, evs = _stuck_rank(ctx, data=True)
    ctx.rank_groups = [["pyspy"], ["dlwait"]]
    ctx.node_groups = [["pyspy"], ["dlwait"], ["fs_kern"]]
    ctx.truth_rank, ctx.truth_node = r0, X
    if not ({"pyspy", "dlwait"} & set(evs)):
        ctx.truth_rank = None
    ctx.notes = "Rank %d on %s was blocked waiting for training data (storage stall) past the NCCL timeout; all other ranks timed out in the collective and tore down." % (r0, X)
    launcher_records(ctx)


# ================================================================ collective_mismatch
def run_collective_mismatch(ctx):
    job, R, B = ctx.job, ctx.R, ctx.B
    r0 = any_rank(ctx, not0=True)
    X = job.node(r0)
    t = setup(ctx, [r0])
    detail = R.chance(0.45)
    shape = R.pick([1024, 4096, 8192, 65536])
    if detail:
        fp = "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%d], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))"
        odd = R.pick(["BROADCAST", "BARRIER", "ALLGATHER"])
        rep = [0] + [v for v in ctx.visible if v not in (0, r0)][:R.randint(0, 3)]
        for v in rep:
            msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s." % (
                v, fp % (ctx.seq, ctx.op if ctx.op != "_ALLGATHER_BASE" else "ALLREDUCE", shape), r0, fp % (ctx.seq, odd, shape))
            leaf = [(T.torch_dir(job) + "/distributed/distributed_c10d.py", 2501, "all_reduce", "work = group.allreduce([tensor], opts)")]
            B.rank(t + R.uniform(0, 2), v, "py", T.py_tb(job, v, T.app_frames(job, R, leaf), [msg]), eid="mismatch", protect=True)
            ctx.deaths[v] = (t + 2.5, 1)
        collateral(ctx, "exit", rep, t + 3, job.node(0))
        kind = "COLLECTIVE_TYPE_MISMATCH"
    else:
        numel_odd = shape // R.pick([2, 4])
        # everybody times out; the culprit's pending collective differs
        collateral(ctx, "hang", [r0], t, X, hung=[r0])
        if r0 in ctx.visible or True:
            if r0 not in ctx.visible:
                ctx.visible.append(r0)
            P = T.pg(job, r0)
            tt = t + ctx.T() + R.uniform(-1.0, 1.0)
            w = T.work(ctx.seq, ctx.op, numel_odd, job.timeout_ms, job.timeout_ms + R.randint(5, 300))
            B.rank(tt, r0, "torch", [T.tpre(job, r0, ctx.dr(tt, r0), 632 if job.era() >= 5 else 563) + "%s Watchdog caught collective operation timeout: %s" % (P, w)] +
                   T.watchdog_timeout(job, r0, ctx.dr(tt, r0), R, ctx.seq, ctx.op, numel_odd, ctx.seq - 1)[1:], eid="oddop", protect=True)
            ctx.deaths[r0] = (tt + 3, -6)
        if R.chance(0.6):
            B.art("frtrace", None, ["$ torchfrtrace /tmp/fr_dumps -j"] + F.frtrace_mismatch(job, ctx.seq, r0, "SIZE_OR_SYNTAX_MISMATCH",
                                                                                              "input sizes: '[[%d]]'" % shape, "input sizes: '[[%d]]'" % numel_odd), eid="fr", protect=True)
        kind = "SIZE_OR_SYNTAX_MISMATCH"
    ctx.rank_groups = [["mismatch"], ["oddop"], ["fr"]]
    ctx.node_groups = [["mismatch", "map:%d" % r0], ["oddop"], ["fr", "map:%d" % r0]]
    ctx.truth_rank, ctx.truth_node = r0, X
    ctx.notes = "Rank %d issued a different collective than the others at SeqNum %d (%s); the job deadlocked or aborted and the network errors are teardown." % (r0, ctx.seq, kind)
    launcher_records(ctx)


# ================================================================ unknown
def run_unknown(ctx):
    job, R, B = ctx.job, ctx.R, ctx.B
    var = R.pick(["symmetric", "sparse", "both_sides"])
    ctx.variant = var
    if var == "sparse":
        r0 = R.randrange(job.world)
        ctx.t_fail = ctx.t_init + R.uniform(900, 20 * 3600)
        ctx.visible = sorted(set([0] + job.ranks_on(job.nodes[0])[:R.randint(1, job.gpn)]) - ({r0} if job.node(r0) != job.nodes[0] else set()))
        if r0 in ctx.visible:
            ctx.visible.remove(r0)
        ctx.debug = None
        baseline(ctx, ctx.t_fail)
        t = ctx.t_fail
        for v in ctx.visible[:2]:
            tt = t + R.uniform(5, 40)
            if R.chance(0.5):
                B.rank(tt, v, "torch", T.watchdog_async(job, v, ctx.dr(tt, v), R, ctx.seq, ctx.seq - 1, "remote", None), dt_step=0.0002)
            else:
                B.rank(tt, v, "py", T.dist_backend_tb(job, v, R, "remote", None))
            ctx.deaths[v] = (tt + 1, -6)
        for r in range(job.world):
            if r not in ctx.deaths:
                ctx.deaths[r] = (t + R.uniform(10, 60), -15 if R.chance(0.7) else -6)
        ctx.notes = "Only rank 0's node logs were provided: a 'remote process exited or there was a network error' with no Last error, no kernel or fabric data; the initiator cannot be determined."
    elif var == "symmetric":
        t = setup(ctx, [])
        X = R.pick(job.nodes)
        collateral(ctx, "hang", [], t, X)
        if R.chance(0.5) and job.nv >= (2, 24, 0):
            B.art("ras", None, ["$ ncclras"] + F.ras_status(job, R))
        ctx.notes = "Every rank timed out in the same collective (SeqNum %d) with the same last completed work; no rank, kernel or fabric evidence singles out an initiator." % ctx.seq
    else:
        t = setup(ctx, [])
        X = R.pick(job.nodes)
        k = R.randrange(job.gpn)
        collateral(ctx, "net", [], t, X, lr_bad=k)
        if job.transport == "ib" and R.chance(0.6):
            B.art("ibdiagnet", None, F.ibdiagnet(job, R, job.lt(t + R.uniform(900, 9000), job.nodes[0]), [], []))
        ctx.notes = "NCCL reported transport errors on both sides of the failing connections and the fabric check afterwards was clean; nothing identifies which node or rank started it."
    ctx.truth_rank = ctx.truth_node = None
    ctx.rank_groups, ctx.node_groups = [], []
    launcher_records(ctx)


# ================================================================ healthy
def run_healthy(ctx):
    job, R, B = ctx.job, ctx.R, ctx.B
    var = R.pick(["plain", "fallback", "restart", "retrain", "retrain"])
    ctx.variant = var
    ctx.t_fail = ctx.t_init + R.uniform(1800, 20 * 3600)
    pick_visible(ctx, [])
    if var == "fallback":
        if job.transport in ("ib", "roce"):
            job.transport = "socket"      # IB hardware present, but NCCL found no usable IB device
            ctx.debug = "INFO"
        else:
            var = ctx.variant = "plain"
    notes = []
    if var == "restart" and job.layout in ("torchrun", "k8s") or (var == "restart" and ctx.launcher != "srun"):
        t1 = ctx.t_init + R.uniform(600, (ctx.t_fail - ctx.t_init) * 0.4)
        baseline(ctx, t1)
        X = R.pick(job.nodes)
        k = R.randrange(job.gpn)
        flap = noise_link_retrain(ctx, X, t1 - 2)
        collateral(ctx, "net", [], t1, X, lr_bad=k)
        tmax = max(v[0] for v in ctx.deaths.values())
        ctx.restart = tmax + 30
        for h in job.nodes:
            tf = max(v[0] for r, v in ctx.deaths.items() if job.node(r) == h) + R.uniform(1, 5)
            B.agent(tf, h, T.agent_line(job, h, job.lt(tf, h), "W", "[default] Worker group FAILED. %d/%d attempts left; will restart worker group" % (2, 3),
                                        mod="torch/distributed/elastic/agent/server/api.py", line=838))
        ctx.deaths_attempt0 = dict(ctx.deaths)
        ctx.deaths = {}
        for r in range(job.world):
            job.pids[r] += 97 + job.lrank(r)
        t0b = ctx.t_init
        ctx.t_init = ctx.restart + 30
        ctx.step0 = ctx.last_step - R.randint(1, 900)
        baseline(ctx, ctx.t_fail)
        ctx.t_init = t0b
        notes.append(("attempt 0 died on a transient link flap on %s" % X if flap else "attempt 0 died on transient fabric errors") +
                     "; torchrun restarted the workers and the job finished")
    else:
        baseline(ctx, ctx.t_fail)
        if var == "fallback":
            for r in ctx.visible:
                B.rank(ctx.t_init + 0.001, r, "nccl", T.ninfo(job, r, "NET/IB : No device found."))
                if R.chance(0.3):
                    B.rank(ctx.t_init + 0.0005, r, "nccl", T.ninfo(job, r, "Failed to open libibverbs.so[.1]"))
            notes.append("NCCL found no usable IB device (no libibverbs in the container) and ran over NET/Socket")
        elif var == "retrain":
            notes.append(noise_link_retrain(ctx))
    success_end(ctx, ctx.t_fail)
    for x in add_noise(ctx, R.randint(1, 3)):
        if x and x not in notes:
            notes.append(x)
    ctx.truth_rank = ctx.truth_node = None
    ctx.rank_groups, ctx.node_groups = [], []
    ctx.notes = "Healthy run: " + "; ".join(n for n in notes if n) + "." if notes else "Healthy run with routine fabric noise."
    launcher_records(ctx)
