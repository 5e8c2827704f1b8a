"""JAX multi-host (one process per node, 8 GPUs each) under Slurm.
Separate scenario code because JAX/XLA speak a different dialect than torch."""
from b3_core import fmt, BUS, xid_pci, hexid
from b3_sim import Policy, resolve, schedule
import b3_render as R
import b3_faults as F
import b3_layouts as L


class JaxSlurm(L.Layout):
    name = "jax-slurm"
    causes = ["python_exception", "host_oom_kill", "crash_signal", "gpu_hardware", "ecc_memory", "preemption", None]

    def node_truth(self, job, nidx):
        nd = job.nodes[nidx]
        return nd.host, [a for a in nd.aliases if a != nd.host]


def _tsl(job, nidx, t, lvl, src, msg):
    """tsl/absl C++ default format: 2024-12-01 12:00:00.123456: E external/xla/...] msg"""
    return "%s: %s %s] %s" % (fmt(job.tnode(nidx, t), "pylog_us", job.tz), lvl, src, msg)


def _glog(job, nidx, t, lvl, src, msg, tid):
    return "%s%s %d %s] %s" % (lvl, fmt(job.tnode(nidx, t), "glog_us", job.tz), tid, src, msg)


def run(job, layout, cause, attempt):
    rng = job.rng
    n = rng.choice([2, 4, 4, 8, 16])
    hosts, aliases, ips = L._host_scheme(rng, n, rng.choice(["gpu", "nid", "fqdn", "dgx"]))
    R.setup_cluster(job, hosts, 1, "h100x8", ips)
    for nd, al in zip(job.nodes, aliases):
        nd.aliases = al
    R.set_skews(job)
    job.launcher = "srun"
    job.framework = "jax"
    job.script = rng.choice(["train.py", "maxtext/train.py", "t5x/train.py", "main.py"])
    job.jobname = rng.choice(["maxtext-7b", "t5x-xl", "palm-1b", "vit-jax"])
    job.userfmt = "absl"
    job.flags["log_every"] = rng.choice([10, 20, 50])
    job.flags["has_kernel"] = rng.random() < 0.8 or cause == "gpu_hardware"
    job.jobid = rng.randint(1000000, 48000000)
    job.site = "/usr/local/lib/python3.10/dist-packages"
    gpus = BUS["h100x8"]
    jaxv = rng.choice(["0.4.26", "0.4.30", "0.4.31", "0.4.35"])
    tids = [rng.randint(139600000000000, 140700000000000) for _ in job.nodes]
    coord = job.nodes[0].ip
    t = job.t0 + rng.uniform(5, 30)
    for rk in job.ranks:
        nid = rk.node
        tt = t + rng.uniform(0, 3)
        if rk.r == 0:
            job.out(0, tt, _glog(job, 0, tt, "I", "distributed.py:89", "Starting JAX distributed service on [::]:8476", tids[0]))
        job.out(rk.r, tt + 0.1, _glog(job, nid, tt + 0.1, "I", "distributed.py:101", "Connecting to JAX distributed service on %s:8476" % coord, tids[nid]))
        job.out(rk.r, tt + 2.0, _tsl(job, nid, tt + 2.0, "I", "external/xla/xla/service/service.cc:168",
                                     "XLA service 0x5%s initialized for platform CUDA (this does not guarantee that XLA will be used). Devices:" % hexid(rng, 12)))
        for d in range(8):
            job.out(rk.r, tt + 2.0 + d * 1e-4, _tsl(job, nid, tt + 2.0, "I", "external/xla/xla/service/service.cc:176",
                                                   "  StreamExecutor device (%d): NVIDIA H100 80GB HBM3, Compute Capability 9.0" % d))
        job.out(rk.r, tt + 2.5, _glog(job, nid, tt + 2.5, "I", "train.py:96", "jax %s process_index=%d process_count=%d local_device_count=8 device_count=%d"
                                      % (jaxv, rk.r, job.world, 8 * job.world), tids[nid]))
    job.flags["step_time"] = rng.uniform(0.4, 3.0)
    ctx = F.Ctx(job, t + rng.uniform(90, 400), job.flags["step_time"])
    nsteps = max(60, int(rng.randint(100, 800) * (0.5 ** attempt)))
    ctx.train(nsteps)
    tf = ctx.t + rng.uniform(0.1, 1.0)
    truth = None
    culprit = None
    code = None
    loc = rng.choice(["C", "de", "fr"])
    job.flags["bash_locale"] = loc
    if cause is None:
        more = max(60, int(rng.randint(100, 500) * (0.5 ** attempt)))
        ctx.train(more)
        te = ctx.t + rng.uniform(5, 30)
        for rk in job.ranks:
            job.end[rk.r] = (te + rng.uniform(0, 3), 0)
        if rng.random() < 0.5 and job.flags["has_kernel"]:
            F.decoy_old_xid(job, rng.randrange(len(job.nodes))) if job.gpn else None
        truth = F._truth(None, notes="healthy JAX run, all processes exited 0")
    elif cause == "preemption":
        kind = rng.choice(["preempt", "timelimit"])
        job.term = dict(t=tf, kind=kind)
        for rk in job.ranks:
            job.end[rk.r] = (tf + rng.uniform(0.2, 3), -15)
        truth = F._truth("preemption", notes="Slurm %s; every JAX process got SIGTERM" % ("preempted the job" if kind == "preempt" else "time limit"))
    else:
        culprit = rng.randrange(job.world)
        rk = job.ranks[culprit]
        dev = rng.randrange(8)
        pci = gpus[dev]
        if cause == "python_exception":
            shard = "gs://%s-data/c4/en/3.0.1/c4-train.tfrecord-%05d-of-01024" % (job.jobname, rng.randint(0, 1023))
            tb = ("Traceback (most recent call last):\n  File \"/workspace/%s\", line 412, in <module>\n    app.run(main)\n"
                  "  File \"/usr/local/lib/python3.10/dist-packages/absl/app.py\", line 308, in run\n    _run_main(main, args)\n"
                  "  File \"/usr/local/lib/python3.10/dist-packages/absl/app.py\", line 254, in _run_main\n    sys.exit(main(argv))\n"
                  "  File \"/workspace/%s\", line 377, in main\n    batch = next(train_iter)\n"
                  "  File \"/workspace/input_pipeline.py\", line 141, in __next__\n    return self._convert(next(self._it))\n"
                  "  File \"/usr/local/lib/python3.10/dist-packages/tensorflow/python/data/ops/iterator_ops.py\", line 826, in __next__\n    return self._next_internal()\n"
                  "tensorflow.python.framework.errors_impl.NotFoundError: {{function_node __wrapped__IteratorGetNext_output_types_2_device_/job:localhost/replica:0/task:0/device:CPU:0}} "
                  "Error executing an HTTP request: HTTP response code 404 with body '{\"error\":{\"code\":404,\"message\":\"No such object: %s\"}}'\n\t when reading metadata of %s [Op:IteratorGetNext] name: "
                  % (job.script, job.script, shard[5:], shard))
            job.out(culprit, tf, tb)
            job.end[culprit] = (tf + rng.uniform(1, 4), 1)
            code = 1
            truth = F._truth("python_exception", culprit, rk.node, True, "input pipeline of process %d raised NotFoundError for a missing shard" % culprit)
        elif cause == "host_oom_kill":
            F.oom_kill_report(job, rk.node, tf, rk.pid, comm="python3")
            job.end[culprit] = (tf + 0.01, -9)
            job.flags["slurm_oom"] = True
            code = -9
            truth = F._truth("host_oom_kill", culprit, rk.node, True, "kernel OOM killer killed JAX process %d (host RAM exhausted by the input pipeline)" % culprit)
        elif cause == "crash_signal":
            job.out(culprit, tf, "Fatal Python error: Segmentation fault\n\nCurrent thread 0x%016x (most recent call first):\n  File \"/usr/local/lib/python3.10/dist-packages/jax/_src/interpreters/pxla.py\", line 1247 in __call__\n"
                    "  File \"/usr/local/lib/python3.10/dist-packages/jax/_src/profiler.py\", line 335 in wrapper\n  File \"/workspace/%s\", line 380 in main\n\nExtension modules: jaxlib.cpu_feature_guard, numpy.core._multiarray_umath (total: 41)"
                    % (0x7f0000000000 + rng.randint(0, 0xffffffff) * 0x1000, job.script))
            if job.flags["has_kernel"]:
                job.kmsg(rk.node, tf + 0.001, "python3[%d]: segfault at 0 ip %016x sp %016x error 4 in xla_extension.so[%x+%x] likely on CPU %d (core %d, socket 0)"
                         % (rk.pid, 0x7f3a00000000 + rng.randint(0, 0xffffffff), 0x7ffd00000000 + rng.randint(0, 0xffffffff), 0x7f3a00000000, rng.randint(0x1000000, 0x9000000), rng.randint(0, 95), rng.randint(0, 47)), 6)
            job.end[culprit] = (tf + 0.01, -11)
            code = -11
            truth = F._truth("crash_signal", culprit, rk.node, True, "JAX process %d segfaulted inside xla_extension.so" % culprit)
        elif cause in ("gpu_hardware", "ecc_memory"):
            if cause == "gpu_hardware":
                if job.flags["has_kernel"]:
                    F.k_gpu_banner(job, rk.node, tf, pci, F.gpu_uuid(job))
                    job.kmsg(rk.node, tf + 0.001, "NVRM: Xid (PCI:%s): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." % xid_pci(pci), 4)
                    job.kmsg(rk.node, tf + 0.002, "NVRM: GPU %s: GPU has fallen off the bus." % pci, 3)
                err = "CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure"
            else:
                if job.flags["has_kernel"]:
                    job.kmsg(rk.node, tf, "NVRM: Xid (PCI:%s): 48, pid=%d, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition 0."
                             % (xid_pci(pci), rk.pid, rng.randint(0, 11)), 4)
                err = "CUDA_ERROR_ECC_UNCORRECTABLE: uncorrectable ECC error encountered"
            te = tf + rng.uniform(0.1, 2)
            job.out(culprit, te, _tsl(job, rk.node, te, "E", "external/xla/xla/pjrt/pjrt_stream_executor_client.cc:2826",
                                      "Execution of replica %d failed: INTERNAL: Failed to complete all kernels launched on stream 0x%s: CUDA error: Could not synchronize CUDA stream: %s"
                                      % (dev, hexid(rng, 12), err)))
            job.out(culprit, te + 0.5, "Traceback (most recent call last):\n  File \"/workspace/%s\", line 412, in <module>\n    app.run(main)\n  File \"/workspace/%s\", line 380, in main\n"
                    "    state, metrics = p_train_step(state, batch)\njaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to complete all kernels launched on stream 0x%s: CUDA error: Could not synchronize CUDA stream: %s\n"
                    "--------------------\nFor simplicity, JAX has removed its internal frames from the traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off to include these."
                    % (job.script, job.script, hexid(rng, 12), err))
            job.end[culprit] = (te + rng.uniform(1, 3), 1)
            code = 1
            truth = F._truth(cause, culprit, rk.node, True, "%s on GPU %s of process %d (%s)" % ("Xid 79" if cause == "gpu_hardware" else "Xid 48 DBE", pci, culprit, err.split(":")[0]), drain=True)
        # the coordination service notices the dead task after the heartbeat timeout
        tdead = job.end[culprit][0]
        thb = tdead + rng.uniform(95, 105)
        if culprit != 0:
            job.out(0, thb, _tsl(job, 0, thb, "E", "external/xla/xla/tsl/distributed_runtime/coordination/coordination_service.cc:1170",
                                 "/job:jax_worker/replica:0/task:%d has been set to ERROR in coordination service: UNAVAILABLE: Task /job:jax_worker/replica:0/task:%d heartbeat timeout. "
                                 "This indicates that the remote task has failed, got preempted, or crashed unexpectedly. Check the task logs for an earlier error to debug further. "
                                 "[type.googleapis.com/tensorflow.CoordinationServiceError='']" % (culprit, culprit)))
        for x in job.ranks:
            if x.r == culprit:
                continue
            tt = thb + rng.uniform(0.5, 10)

            def cb(job_, r, t):
                job_.out(r, t, _tsl(job_, job_.ranks[r].node, t, "E", "external/xla/xla/tsl/distributed_runtime/coordination/coordination_service_agent.cc:%d" % rng.choice([500, 708]),
                                    "Polled an error from coordination service (this can be an error from this or another task)."))
                job_.out(r, t + 0.01, _glog(job_, job_.ranks[r].node, t + 0.01, "F", "external/xla/xla/pjrt/distributed/client.h:77",
                                            "Terminating process because the JAX distributed service detected fatal errors. This most likely indicates that another task died; see the other task logs for more details. "
                                            "Disable Python buffering, i.e. `python -u`, to be sure to see all the output. ABORTED: Terminating process because the JAX distributed service detected fatal errors. "
                                            "This most likely indicates that another task died; see the other task logs for more details. Disable Python buffering, i.e. `python -u`, to be sure to see all the output.",
                                            rng.randint(139600000000000, 140700000000000)))
                job_.out(r, t + 0.02, "*** Check failure stack trace: ***\n    @     0x7f%s  absl::lts_20230802::log_internal::LogMessage::SendToLog()\n    @     0x7f%s  absl::lts_20230802::log_internal::LogMessageFatal::~LogMessageFatal()\n"
                         "    @     0x7f%s  xla::(anonymous namespace)::DistributedRuntimeClientImpl::Connect()::{lambda()#1}::operator()()\n    @     0x7f%s  start_thread"
                         % (hexid(rng, 10), hexid(rng, 10), hexid(rng, 10), hexid(rng, 10)))
                return (t + 0.05, -6)
            schedule(job, x.r, tt, cb)
    resolve(job, Policy(agent_per_node=False, kill_all=False))
    files = render(job, layout)
    for k, v in job.extra_files.items():
        files.setdefault(k, v)
    return job, truth, files


def render(job, layout):
    rng = job.rng
    files = {}
    loc = job.flags.get("bash_locale", "C")
    SIG = {"C": {-9: "Killed", -11: "Segmentation fault      (core dumped)", -6: "Aborted                 (core dumped)", -15: "Terminated"},
           "de": {-9: "Getötet", -11: "Speicherzugriffsfehler  (Speicherabzug geschrieben)", -6: "Abgebrochen             (Speicherabzug geschrieben)", -15: "Beendet"},
           "fr": {-9: "Processus arrêté", -11: "Erreur de segmentation  (core dumped)", -6: "Abandon                 (core dumped)", -15: "Complété"}}[loc]
    for rk in job.ranks:
        txt = R.stream_text(R.rank_items(job, rk.r, until=R.alive_until(job, rk.r)))
        e = job.end.get(rk.r)
        if e and e[1] < 0:
            txt += "bash: line 1: %d %s python3 -u /workspace/%s --config=configs/%s.yml\n" % (rk.pid, SIG.get(e[1], "Killed"), job.script, job.jobname)
        files["logs/%s-%d-%d.out" % (job.jobname, job.jobid, rk.r)] = txt
    # batch-level file
    lines = []
    term = job.term
    if job.flags.get("slurm_oom"):
        for r, (t, c) in job.end.items():
            if c == -9:
                lines.append((t + 1, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % job.jobid))
    if term:
        what = " DUE TO PREEMPTION" if term["kind"] == "preempt" else " DUE TO TIME LIMIT"
        lines.append((term["t"], "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s%s ***" % (job.jobid, job.nodes[0].host, fmt(term["t"], "slurm", job.tz), what)))
        lines.append((term["t"] + 0.01, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
    for r, (t, c) in sorted(job.end.items()):
        if c == 0:
            continue
        h = job.nodes[job.ranks[r].node].host
        what = ("Exited with exit code %d" % c) if c > 0 else R.SRUN_SIG.get(c, "Killed")
        if c < 0:
            what = "Exited with exit code %d" % (128 - c)   # bash reports the signal as exit status
        lines.append((t + 0.5, "srun: error: %s: task %d: %s" % (h, r, what)))
    lines.sort()
    hdr = ("+ srun --ntasks-per-node=1 --gpus-per-node=8 --output=logs/%%x-%%j-%%t.out bash -c 'python3 -u /workspace/%s --config=configs/%s.yml'\n"
           % (job.script, job.jobname))
    files["slurm-%d.out" % job.jobid] = hdr + "\n".join(x[1] for x in lines) + ("\n" if lines else "")
    if job.flags.get("has_kernel"):
        style = rng.choice(["syslog", "dmesgT", "journal"])
        for nd in job.nodes:
            files["kernel/%s.log" % nd.host] = R.kernel_log(job, nd.idx, style, job.t0, job.t0 + 3600)
    files["sacct.txt"] = L.sacct(job)
    return files
