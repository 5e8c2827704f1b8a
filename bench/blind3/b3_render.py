"""Shared rendering: cluster set-up, kernel logs, per-rank text, torchrun
agent output, Slurm step messages and job finalisation."""
from b3_core import Node, Rank, BUS, fmt, nccl_busid, hexid, dur_hms
import b3_train as T

SIGNAME = {-9: "SIGKILL", -15: "SIGTERM", -6: "SIGABRT", -11: "SIGSEGV", -7: "SIGBUS", -2: "SIGINT"}
SRUN_SIG = {-9: "Killed", -15: "Terminated", -6: "Aborted (core dumped)", -11: "Segmentation fault (core dumped)",
            -7: "Bus error (core dumped)", -2: "Interrupt"}


# --------------------------------------------------------------------------
# cluster set-up
# --------------------------------------------------------------------------

def setup_cluster(job, hosts, gpn, board, ips=None, ib_ips=None):
    rng = job.rng
    job.gpn = gpn
    job.board = board
    buses = BUS[board]
    for i, h in enumerate(hosts):
        nd = Node(i, h)
        nd.ip = ips[i] if ips else "10.%d.%d.%d" % (rng.randint(0, 9), rng.randint(0, 250), rng.randint(2, 250))
        nd.ib_ip = ib_ips[i] if ib_ips else None
        nd.agent_pid = rng.randint(1200, 3999000)
        nd.boot = job.t0 - rng.uniform(2, 60) * 86400
        job.nodes.append(nd)
    r = 0
    for nd in job.nodes:
        base = rng.randint(1000, 3900000)
        for l in range(gpn):
            rk = Rank(r, nd.idx, l)
            rk.pid = base
            base += rng.randint(1, 4) + (l == 0) * 6
            rk.tid = rk.pid + rng.randint(180, 2400)
            rk.pci = buses[l % len(buses)]
            rk.busid = nccl_busid(rk.pci)
            job.ranks.append(rk)
            r += 1


def set_skews(job, big_one=False):
    rng = job.rng
    for nd in job.nodes:
        nd.skew = rng.uniform(-1.5, 1.5) if rng.random() < 0.7 else rng.uniform(-0.05, 0.05)
    if big_one and len(job.nodes) > 1:
        nd = job.nodes[rng.randrange(1, len(job.nodes))]
        nd.skew = rng.choice([-1, 1]) * rng.uniform(25, 140)


def pick_versions(job, lo=200, hi=206):
    rng = job.rng
    cands = [v for v in (200, 201, 202, 203, 204, 205, 206) if lo <= v <= hi]
    v = rng.choice(cands)
    job.torch = "%d.%d" % (v // 100, v % 100)
    job.nccl = {200: "2.14.3", 201: "2.18.1", 202: "2.19.3", 203: "2.20.5", 204: "2.20.5", 205: "2.21.5", 206: "2.21.5"}[v]
    job.cuda = {200: "11.7", 201: "12.1", 202: "12.1", 203: "12.1", 204: "12.4", 205: "12.4", 206: "12.6"}[v]
    if v <= 201:
        job.timeout_ms = 1800000
    else:
        job.timeout_ms = rng.choice([600000, 600000, 1800000, 300000])


# --------------------------------------------------------------------------
# text assembly
# --------------------------------------------------------------------------

def sorted_items(lst):
    return sorted(lst, key=lambda x: (x[0], x[1]))


def stream_text(items, prefix=""):
    """items: rank/agent tuples. Raw (tqdm) chunks are glued without newlines."""
    out = []
    at_bol = True
    for it in items:
        text = it[3]
        if len(it) > 4:       # raw
            if at_bol:
                out.append(prefix)
            out.append(text)
            at_bol = text.endswith("\n")
            continue
        if not at_bol:
            out.append("\n")
        out.append(prefix + text + "\n")
        at_bol = True
    return "".join(out)


def rank_items(job, r, streams=("out", "err"), until=None):
    items = [x for x in job.rank_lines.get(r, []) if x[2] in streams]
    if until is not None:
        items = [x for x in items if x[0] <= until]
    return sorted_items(items)


def alive_until(job, r):
    e = job.end.get(r)
    return e[0] if e else None


def truncate_tail(job, text):
    """A process killed hard may leave a half-written last line."""
    rng = job.rng
    body = text.rstrip("\n")
    if "\n" not in body or len(body) < 200:
        return text
    head, last = body.rsplit("\n", 1)
    if len(last) < 30:
        return text
    cut = rng.randint(10, len(last) - 5)
    return head + "\n" + last[:cut]


# --------------------------------------------------------------------------
# kernel logs
# --------------------------------------------------------------------------
BOOT_NOISE = [
    "Linux version 5.15.0-{k}-generic (buildd@lcy02-amd64-051) (gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0, GNU ld (GNU Binutils for Ubuntu) 2.38) #{b}-Ubuntu SMP Fri Mar 22 12:11:36 UTC 2024 (Ubuntu 5.15.0-{k}.{b}-generic 5.15.148)",
    "nvidia: loading out-of-tree module taints kernel.",
    "nvidia-nvlink: Nvlink Core is being initialized, major device number 234",
    "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  {drv}  {date}",
    "nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  {drv}  {date}",
    "nvidia_uvm: module uses symbols nvUvmInterfaceDisableAccessCntr from proprietary module nvidia, inheriting taint.",
    "mlx5_core 0000:1a:00.0: firmware version: 28.39.1002",
    "mlx5_core 0000:1a:00.0: 252.048 Gb/s available PCIe bandwidth (16.0 GT/s PCIe x16 link)",
    "nvidia-peermem: loading out-of-tree module taints kernel.",
]


def kernel_log(job, nidx, style, t_from=None, t_to=None, boot_noise=True):
    rng = job.rng
    nd = job.nodes[nidx]
    items = sorted_items(job.kern.get(nidx, []))
    pre = []
    if boot_noise:
        drv = job.flags.get("driver", "535.183.01")
        date = job.flags.get("driver_date", "Sun Jun 16 19:53:43 UTC 2024")
        k, b = job.flags.get("kver", (113, 123))
        for i, ln in enumerate(BOOT_NOISE):
            pre.append((nd.boot + 0.5 + i * rng.uniform(0.5, 9.0), 0, 6, ln.format(k=k, b=b, drv=drv, date=date), "kernel"))
    # a few periodic lines during the job so the log does not look empty
    extra = []
    if t_from is not None:
        for i in range(rng.randint(1, 4)):
            tt = rng.uniform(t_from, t_to or t_from + 3600)
            extra.append((tt, 0, 6, rng.choice([
                "IPv6: ADDRCONF(NETDEV_CHANGE): veth%s: link becomes ready" % hexid(rng, 7),
                "docker0: port 1(veth%s) entered forwarding state" % hexid(rng, 7),
                "audit: type=1400 audit(%.3f:%d): apparmor=\"STATUS\" operation=\"profile_replace\" info=\"same as current profile, skipping\" profile=\"unconfined\" name=\"nvidia_modprobe\" pid=%d comm=\"apparmor_parser\"" % (tt, rng.randint(100, 999), rng.randint(1000, 99999)),
                "IPv6: ADDRCONF(NETDEV_CHANGE): cali%s: link becomes ready" % hexid(rng, 11),
            ]), "kernel"))
    allit = sorted(pre + extra + list(items), key=lambda x: (x[0], x[1]))
    host = nd.host if "." not in nd.host else nd.host.split(".")[0]
    out = []
    for it in allit:
        t, _, prio, msg = it[0], it[1], it[2], it[3]
        fac = it[4] if len(it) > 4 else "kernel"
        tn = t + nd.skew
        if fac != "kernel":
            if style in ("syslog", "journal_short"):
                g = fmt(tn, "syslog", job.tz)
                if style == "journal_short":
                    g = g[:4] + g[4:6].replace(" ", "0") + g[6:]
                out.append("%s %s %s" % (g, host, msg.split(": ", 1)[0] + ": " + msg.split(": ", 1)[1] if ": " in msg else msg))
            elif style == "journal":
                out.append("%s %s %s" % (fmt(tn, "journal_iso", job.tz), host, msg))
            continue
        up = t - nd.boot
        if style == "syslog":
            out.append("%s %s kernel: [%12.6f] %s" % (fmt(tn, "syslog", job.tz), host, up, msg))
        elif style == "dmesgT":
            out.append("[%s] %s" % (fmt(tn, "ctime", job.tz), msg))
        elif style == "dmesg":
            out.append("[%12.6f] %s" % (up, msg))
        elif style == "journal":
            out.append("%s %s kernel: %s" % (fmt(tn, "journal_iso", job.tz), host, msg))
        elif style == "journal_short":
            g = fmt(tn, "syslog", job.tz)
            g = g[:4] + g[4:6].replace(" ", "0") + g[6:]
            out.append("%s %s kernel: %s" % (g, host, msg))
        elif style == "dmesg_level":
            lv = {3: "err  ", 4: "warn ", 5: "notice", 6: "info ", 0: "info "}.get(prio, "info ")
            out.append("kern  :%s: [%s] %s" % (lv.ljust(6), fmt(tn, "ctime", job.tz), msg))
        else:
            raise ValueError(style)
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------
# torchrun agent
# --------------------------------------------------------------------------

def agent_start(job, nidx, t, loglevel_info=False, nproc=None, rdzv="c10d", omp=True):
    L = T.elines(job)
    nproc = nproc or job.gpn
    if nproc > 1 and omp:
        for ln in ["", "*****************************************",
                   "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
                   "*****************************************"]:
            job.agent_log(nidx, t, "W", "distributed.run", L["omp"], ln)
    if loglevel_info:
        ranks = [rk.r for rk in job.ranks_on(nidx)]
        job.agent_log(nidx, t + 2.0, "I", "distributed.elastic.agent.server.api", 525 if job.tv() >= 204 else 510,
                      "[default] Rendezvous complete for workers. Result:\n  restart_count=%d\n  master_addr=%s\n  master_port=29500\n  group_rank=%d\n"
                      "  group_world_size=%d\n  local_ranks=%s\n  role_ranks=%s\n  global_ranks=%s\n  role_world_sizes=%s\n  global_world_sizes=%s\n"
                      % (job.agent_restart, job.nodes[0].fqdn, nidx, len(job.nodes), list(range(len(ranks))), ranks, ranks,
                         [job.world] * len(ranks), [job.world] * len(ranks)))
        job.agent_log(nidx, t + 2.1, "I", "distributed.elastic.agent.server.api", 680 if job.tv() >= 204 else 669, "[default] Starting worker group")
        job.agent_log(nidx, t + 2.2, "I", "distributed.elastic.agent.server.local_elastic_agent", 298, "use_agent_store: True")
        job.agent_log(nidx, t + 2.3, "I", "distributed.elastic.agent.server.local_elastic_agent", 192, "Environment variable 'TORCHELASTIC_ENABLE_FILE_TIMER' not found. Do not start FileTimerServer.")


def childfailed_block(job, nidx, first, others, script=None):
    """first/others: (t, r, code). Returns text of the ChildFailedError traceback."""
    L = T.elines(job)
    site = job.site
    script = script or job.script
    binpath = job.flags.get("torchrun_bin", "/usr/local/bin/torchrun")
    tb = ["Traceback (most recent call last):",
          '  File "%s", line 8, in <module>' % binpath, "    sys.exit(main())"]
    if job.tv() >= 203:
        tb[-1] = "    sys.exit(main())" if job.py < "3.11" else "    sys.exit(main())\n             ^^^^^^"
    tb += ['  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line %d, in wrapper' % (site, 355 if job.tv() >= 203 else 346),
           "    return f(*args, **kwargs)",
           '  File "%s/torch/distributed/run.py", line %d, in main' % (site, L["main"]), "    run(args)",
           '  File "%s/torch/distributed/run.py", line %d, in run' % (site, L["run"]), "    elastic_launch(",
           '  File "%s/torch/distributed/launcher/api.py", line %d, in __call__' % (site, L["call"]),
           "    return launch_agent(self._config, self._entrypoint, list(args))",
           '  File "%s/torch/distributed/launcher/api.py", line %d, in launch_agent' % (site, L["launch"]), "    raise ChildFailedError(",
           "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
           "=" * 60, "%s FAILED" % script, "-" * 60, "Failures:"]

    def entry(i, f):
        t, r, code = f
        rk = job.ranks[r]
        host = job.nodes[nidx].fqdn
        s = ["[%d]:" % i, "  time      : %s" % fmt(job.tnode(nidx, t), "elastic", job.tz), "  host      : %s" % host,
             "  rank      : %d (local_rank: %d)" % (r, rk.local), "  exitcode  : %d (pid: %d)" % (code, rk.pid)]
        if code < 0:
            s += ["  error_file: <N/A>", "  traceback : Signal %d (%s) received by PID %d" % (-code, SIGNAME.get(code, "SIG?"), rk.pid)]
        elif job.flags.get("record") and r in job.errtb:
            s += ["  error_file: /tmp/torchelastic_%s/%s_%s/attempt_%d/%d/error.json" % (hexid(job.rng, 8), job.flags.get("rdzv_id", "none"), hexid(job.rng, 8), job.agent_restart, rk.local),
                  "  traceback : " + job.errtb[r].replace("\n", "\n  ")]
        else:
            s += ["  error_file: <N/A>", "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"]
        return s
    if others:
        for i, f in enumerate(others):
            tb += entry(i + 1, f)
    else:
        tb.append("  <NO_OTHER_FAILURES>")
    tb += ["-" * 60, "Root Cause (first observed failure):"] + entry(0, first) + ["=" * 60]
    return "\n".join(tb)


def agent_teardown(job, nidx, killed_by_signal=None):
    """Agent output after the worker group on node nidx ended.
    Returns (t_exit, exit_code) of the agent (torchrun)."""
    rng = job.rng
    L = T.elines(job)
    ne = job.nodeev.get(nidx, {})
    local = job.ranks_on(nidx)
    fails = sorted([f for f in ne.get("failures", []) if f[2] != 0], key=lambda x: x[0])
    sig = ne.get("sigterm")
    if sig is not None and (not fails or sig < fails[0][0]):
        # the agent itself got SIGTERM (k8s pod deletion / preemption / scancel)
        job.agent_log(nidx, sig, "W", "distributed.elastic.agent.server.api", L["deathsig"], "Received Signals.SIGTERM death signal, shutting down workers")
        for rk in local:
            job.agent_log(nidx, sig + 0.001, "W", "distributed.elastic.multiprocessing.api", L["sigterm"], "Sending process %d closing signal SIGTERM" % rk.pid)
        site = job.site
        tb = ("Traceback (most recent call last):\n  File \"%s\", line 8, in <module>\n    sys.exit(main())\n"
              "  File \"%s/torch/distributed/elastic/multiprocessing/errors/__init__.py\", line %d, in wrapper\n    return f(*args, **kwargs)\n"
              "  File \"%s/torch/distributed/run.py\", line %d, in main\n    run(args)\n  File \"%s/torch/distributed/run.py\", line %d, in run\n    elastic_launch(\n"
              "  File \"%s/torch/distributed/launcher/api.py\", line %d, in __call__\n    return launch_agent(self._config, self._entrypoint, list(args))\n"
              "  File \"%s/torch/distributed/launcher/api.py\", line %d, in launch_agent\n    result = agent.run()\n"
              "  File \"%s/torch/distributed/elastic/metrics/api.py\", line 124, in wrapper\n    result = f(*args, **kwargs)\n"
              "  File \"%s/torch/distributed/elastic/agent/server/api.py\", line %d, in run\n    result = self._invoke_run(role)\n"
              "  File \"%s/torch/distributed/elastic/agent/server/api.py\", line %d, in _invoke_run\n    time.sleep(monitor_interval)\n"
              "  File \"%s/torch/distributed/elastic/multiprocessing/api.py\", line 84, in _terminate_process_handler\n    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)\n"
              "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15"
              % (job.flags.get("torchrun_bin", "/usr/local/bin/torchrun"), site, 355 if job.tv() >= 203 else 346, site, L["main"], site, L["run"], site, L["call"],
                 site, L["launch"] - 9, site, site, 696 if job.tv() >= 204 else 680, site, 855 if job.tv() >= 204 else 835, site, job.nodes[nidx].agent_pid))
        tx = sig + rng.uniform(0.5, 3)
        job.agent(nidx, tx, tb)
        return tx, 1
    if not fails:
        return None, 0
    first = fails[0]
    td = ne.get("t_detect") or first[0] + 0.5
    killed = [k for k in ne.get("killed", [])]
    for (t, r, code) in sorted(killed, key=lambda x: x[1]):
        job.agent_log(nidx, td + 0.001 * (r % 97), "W", "distributed.elastic.multiprocessing.api", L["sigterm"], "Sending process %d closing signal SIGTERM" % job.ranks[r].pid)
    job.agent_log(nidx, td + 0.2, "E", "distributed.elastic.multiprocessing.api", L["failed"],
                  "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (first[2], job.ranks[first[1]].local, job.ranks[first[1]].pid,
                                                                                  job.flags.get("pybin", "/usr/bin/python3")))
    others = [f for f in fails[1:] if f[1] not in [k[1] for k in killed]]
    job.agent(nidx, td + 0.3, childfailed_block(job, nidx, first, others))
    return td + 0.35, 1


# --------------------------------------------------------------------------
# Slurm
# --------------------------------------------------------------------------

def compress_ranges(nums):
    nums = sorted(nums)
    out = []
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else "%d-%d" % (nums[i], nums[j]))
        i = j + 1
    return ",".join(out)


def hostlist(hosts):
    """Slurm-style compressed hostlist for names ending in digits."""
    import re
    groups = {}
    order = []
    lens = {}
    for h in hosts:
        m = re.match(r"^(.*?)(\d+)$", h)
        if m:
            lens.setdefault(m.group(1), set()).add((len(m.group(2)), m.group(2).startswith("0")))
    for h in hosts:
        m = re.match(r"^(.*?)(\d+)$", h)
        if not m:
            groups.setdefault((h, 0), [])
            order.append((h, 0))
            continue
        ls = lens[m.group(1)]
        fixed = len(set(x[0] for x in ls)) == 1 or any(x[1] for x in ls)
        key = (m.group(1), len(m.group(2)) if fixed else 0)
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(int(m.group(2)))
    parts = []
    seen = set()
    for key in order:
        if key in seen:
            continue
        seen.add(key)
        pre, w = key
        nums = groups[key]
        if not nums:
            parts.append(pre)
            continue
        if len(nums) == 1:
            parts.append("%s%0*d" % (pre, w, nums[0]) if w else "%s%d" % (pre, nums[0]))
            continue
        rs = []
        ns = sorted(nums)
        i = 0
        while i < len(ns):
            j = i
            while j + 1 < len(ns) and ns[j + 1] == ns[j] + 1:
                j += 1
            a_, b_ = ("%0*d" % (w, ns[i]) if w else str(ns[i])), ("%0*d" % (w, ns[j]) if w else str(ns[j]))
            rs.append(a_ if i == j else "%s-%s" % (a_, b_))
            i = j + 1
        parts.append("%s[%s]" % (pre, ",".join(rs)))
    return ",".join(parts)


def srun_task_errors(job, tasks_by_node, t_base):
    """tasks_by_node: {nidx: [(task, code)]} -> lines 'srun: error: host: tasks 4-7: Killed'."""
    lines = []
    for nidx in sorted(tasks_by_node):
        by_code = {}
        for task, code in tasks_by_node[nidx]:
            by_code.setdefault(code, []).append(task)
        for code in sorted(by_code, key=lambda c: (c >= 0, c)):
            ts = by_code[code]
            what = ("Exited with exit code %d" % code) if code > 0 else SRUN_SIG.get(code, "Killed")
            if code == -9 and job.flags.get("slurm_oom") and any(job.killed_by.get(x) is None for x in ts):
                what = "Out Of Memory"
            lines.append("srun: error: %s: task%s %s: %s" % (job.nodes[nidx].host, "s" if len(ts) > 1 else "", compress_ranges(ts), what))
    return lines


def finalize_open_ranks(job, default="scancel"):
    """Ranks that never ended (hung culprit, straggler runs) end here."""
    rng = job.rng
    open_r = [rk.r for rk in job.ranks if rk.r not in job.end]
    if not open_r:
        return None
    if job.term is None:
        last = max([e[0] for e in job.end.values()] or [job.t0])
        kind = job.flags.get("open_end") or default
        if kind == "running":
            job.flags["still_running"] = True
            return None
        if kind == "complete":
            t = last + rng.uniform(5, 60)
            for r in open_r:
                job.end[r] = (t + rng.uniform(0, 5), 0)
            return None
        t = last + rng.uniform(600, 5400) if kind == "scancel" else max(last + 60, job.t0 + job.flags.get("time_limit", 86400))
        job.term = dict(t=t, kind=kind)
    t = job.term["t"]
    for r in open_r:
        job.end[r] = (t + rng.uniform(0.2, 3), -15)
        job.killed_by[r] = "scheduler"
    return job.term
