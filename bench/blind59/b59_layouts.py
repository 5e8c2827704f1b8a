"""blind59 layouts: render a scenario's records and artifacts into the files a user or an
operator would attach, trimming with visible markers and recording which evidence
records made it into the written files."""
import os
import re
from b59_core import dmesg_T, journal, iso_ns, slurm_ts, sec

MARKERS = ["[... %d lines trimmed ...]", "<snip: %d lines>", "...", "[ %d more lines ]",
           "--- 8< --- %d lines cut --- 8< ---", "(... output truncated, %d lines ...)"]


class Ev:
    def __init__(self, eid, protect=True):
        self.eid, self.protect = eid, protect


class Writer:
    def __init__(self, ctx, out):
        self.ctx, self.out = ctx, out
        self.survived = set()
        self.files = []

    def write(self, rel, items, hostv=False, rankv=False):
        """items: list of (text, evidence-object-or-None).  hostv / rankv: the file's path or
        section headers tell the reader which host / which global rank its rank lines are from."""
        path = os.path.join(self.out, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        job = self.ctx.job
        lines = []
        for text, ev in items:
            lines.append(text)
            if ev is None:
                continue
            if getattr(ev, "eid", None):
                self.survived.add(ev.eid)
            maps = getattr(ev, "maps", None)
            if maps:
                self.survived.update(maps)
            if getattr(ev, "src", None) == "rank":
                r = ev.rank
                if ev.eid == "map:%d" % r and "busId" in text:
                    self.survived.update(["bus:%d" % r, "pid:%d" % r])
                h_ok = hostv or (job.hostname(job.node(r)).split(".")[0] + ":" in text)
                r_ok = rankv or ("[rank%d]" % r in text) or ("rank %d nranks" % r in text) or ("Rank %d]" % r in text)
                if h_ok and r_ok:
                    self.survived.add("map:%d" % r)
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(lines) + "\n")
        self.files.append(rel)

    def art(self, rel, a, header=None):
        items = ([(header, None)] if header else []) + [(ln, a) for ln in a.lines]
        if not a.lines:
            items.append(("", a))
        self.write(rel, items)


def trim(items, cap, R, style=None):
    """keep head, tail and protected lines (with a little context); mark the gaps."""
    if len(items) <= cap:
        return items
    mk = style or R.pick(MARKERS)
    head = cap // 4
    tail = cap // 3
    keep = set(range(head)) | set(range(len(items) - tail, len(items)))
    for i, (_, ev) in enumerate(items):
        if ev is not None and getattr(ev, "protect", False):
            for j in range(max(0, i - 2), min(len(items), i + 3)):
                keep.add(j)
    out = []
    gap = 0
    for i, it in enumerate(items):
        if i in keep:
            if gap:
                out.append((mk % gap if "%d" in mk else mk, None))
                gap = 0
            out.append(it)
        else:
            gap += 1
    if gap:
        out.append((mk % gap if "%d" in mk else mk, None))
    return out


def short(h):
    return h.split(".")[0]


# ---------------------------------------------------------------- line formats
def kern_line(ctx, rec, style):
    job = ctx.job
    h = rec.host
    d = job.lt(rec.t, h)
    if rec.src == "sys":
        if style in ("dmesg", "dmesgT"):
            return None
        if style == "journal":
            return "%s %s %s" % (journal(d), short(h), rec.text)
        return "%s %s %s" % (d.strftime("%Y-%m-%dT%H:%M:%S.%f") + "+00:00", short(h), rec.text)
    if style == "dmesg":
        return "[%12.6f] %s" % (job.uptime(rec.t, h), rec.text)
    if style == "dmesgT":
        return "%s %s" % (dmesg_T(d), rec.text)
    if style == "journal":
        return "%s %s kernel: %s" % (journal(d), short(h), rec.text)
    return "%s %s kernel: %s" % (d.strftime("%Y-%m-%dT%H:%M:%S.%f") + "+00:00", short(h), rec.text)


def host_kernel_items(ctx, h, style):
    recs = sorted((r for r in ctx.B.recs if r.host == h and r.src in ("kern", "sys")), key=lambda r: (r.t, r.seq))
    out = []
    for r in recs:
        ln = kern_line(ctx, r, style)
        if ln is not None:
            out.append((ln, r))
    return out


def host_sys_items(ctx, h):
    recs = sorted((r for r in ctx.B.recs if r.host == h and r.src == "sys"), key=lambda r: (r.t, r.seq))
    return [(kern_line(ctx, r, "journal"), r) for r in recs]


def rank_recs(ctx, r, kinds=None, t_lo=None, t_hi=None):
    recs = [x for x in ctx.B.recs if x.src == "rank" and x.rank == r and (kinds is None or x.kind in kinds)]
    if t_lo is not None:
        recs = [x for x in recs if x.t >= t_lo]
    if t_hi is not None:
        recs = [x for x in recs if x.t < t_hi]
    return sorted(recs, key=lambda x: (x.t, x.seq))


def art_name(a):
    n, _, key = a.name.partition(":")
    k = short(key) if key and not key.isdigit() else key
    table = {"ibstat": "ibstat-%s.txt", "perfquery": "perfquery-%s.txt", "show_gids": "show_gids-%s.txt",
             "hw_counters": "hw_counters-%s.txt", "ethtool": "ethtool-S-%s.txt", "ethtool_link": "ethtool-%s.txt",
             "iplink": "ip-link-%s.txt", "rdma_link": "rdma-link-%s.txt", "pfcwd": "%s-pfcwd.txt",
             "pyspy": "py-spy-rank%s.txt", "nvsmi_q": "nvidia-smi-q-%s.txt", "nvsmi_q_ok": "nvidia-smi-q-%s-other-gpu.txt",
             "nvsmi_err": "nvidia-smi-%s.txt", "nvsmi_ecc": "nvidia-smi-ecc-%s.txt", "nvlink_status": "nvlink-status-%s.txt"}
    fixed = {"ibdiagnet": "ibdiagnet2.log", "opensm": "opensm.log", "iblinkinfo": "iblinkinfo.txt", "ras": "ncclras-status.txt",
             "frtrace": "fr_trace_analysis.txt", "instances": "ec2-instances.txt"}
    if n in fixed:
        return fixed[n]
    return table.get(n, n + "-%s.txt") % k


def write_arts(W, sub, skip=()):
    seen = set()
    for a in W.ctx.B.arts:
        if a.name in skip:
            continue
        name = art_name(a)
        while name in seen:
            name = name.replace(".txt", "-2.txt").replace(".log", "-2.log")
        seen.add(name)
        W.art(os.path.join(sub, name) if sub else name, a)


def kstyle(ctx):
    return ctx.R.pick(["dmesg", "dmesgT", "journal", "iso"])


def slurm_nodelist(job):
    hs = [short(h) for h in job.nodes]
    if len(hs) <= 6:
        return ",".join(hs)
    return "%s,...,%s" % (",".join(hs[:3]), hs[-1])


# ================================================================ slurm
def layout_slurm(ctx, out):
    job, R, B = ctx.job, ctx.R, ctx.B
    W = Writer(ctx, out)
    width = len(str(job.world - 1 if ctx.launcher == "srun" else len(job.nodes) - 1))
    items = [("Job %d started on %s at %s" % (job.jobid, slurm_nodelist(job), job.lt(-30, job.nodes[0]).strftime("%a %b %d %H:%M:%S UTC %Y")), None),
             ("SLURM_NNODES=%d SLURM_NTASKS=%d MASTER_ADDR=%s MASTER_PORT=%d" % (len(job.nodes), job.world if ctx.launcher == "srun" else len(job.nodes), short(job.master), job.port), None),
             ("NCCL_DEBUG=%s NCCL_IB_TIMEOUT=%d TORCH_NCCL_ASYNC_ERROR_HANDLING=1" % (ctx.debug or "", ctx.ib_timeout), None)]
    evs = []
    for r in B.recs:
        if r.src == "rank" and r.rank in ctx.visible:
            if ctx.launcher == "srun":
                lab = str(r.rank).rjust(width)
                evs.append((r.t, r.seq, "%s: %s" % (lab, r.text), r))
            else:
                lab = str(job.nidx(r.host)).rjust(width)
                evs.append((r.t, r.seq, "%s: [default%d]:%s" % (lab, job.lrank(r.rank), r.text), r))
        elif r.src == "agent" and ctx.launcher != "srun":
            lab = str(job.nidx(r.host)).rjust(width)
            evs.append((r.t, r.seq, "%s: %s" % (lab, r.text), r))
        elif r.src == "sched":
            evs.append((r.t, r.seq, r.text, r))
    evs.sort(key=lambda e: (e[0], e[1]))
    items += [(e[2], e[3]) for e in evs]
    W.write("slurm-%d.out" % job.jobid, trim(items, R.randint(900, 2600), R), rankv=ctx.launcher == "srun")
    st = kstyle(ctx)
    hosts = list(ctx.attach_dmesg)
    for h in hosts:
        its = host_kernel_items(ctx, h, st)
        if its:
            W.write("nodes/%s.%s" % (short(h), "dmesg.txt" if st.startswith("dmesg") else "journal.txt"), trim(its, 1500, R))
        if st.startswith("dmesg"):
            si = host_sys_items(ctx, h)
            if si:
                W.write("nodes/%s.syslog.txt" % short(h), si)
    if R.chance(0.6) or ctx.outcome in ("preempted", "timelimit"):
        W.write("sacct.txt", [(x, None) for x in sacct(ctx)])
    write_arts(W, "fabric")
    return W


def sacct(ctx):
    job = ctx.job
    st = {"failed": "FAILED", "completed": "COMPLETED", "running": "RUNNING", "timelimit": "TIMEOUT", "preempted": "PREEMPTED"}[ctx.outcome]
    code = {"FAILED": "1:0", "COMPLETED": "0:0", "RUNNING": "0:0", "TIMEOUT": "0:15", "PREEMPTED": "0:15"}[st]
    part = ctx.R.pick(["gpu", "h100", "batch", "a3mega", "long"])
    out = ["JobID           JobName  Partition      State ExitCode        NodeList ",
           "------------ ---------- ---------- ---------- -------- --------------- "]
    nl = slurm_nodelist(job)[:15]
    out.append("%-12s %10s %10s %10s %8s %15s " % (job.jobid, job.model[:10], part, st, code, nl))
    out.append("%-12s %10s %10s %10s %8s %15s " % ("%d.batch" % job.jobid, "batch", "", st if st != "FAILED" else "FAILED", code, short(job.nodes[0])[:15]))
    out.append("%-12s %10s %10s %10s %8s %15s " % ("%d.0" % job.jobid, "python3" if ctx.launcher == "srun" else "torchrun", "",
                                                 "CANCELLED" if st in ("PREEMPTED", "TIMEOUT") else st, code, nl))
    return out


# ================================================================ torchrun log dirs
def layout_torchrun(ctx, out):
    job, R, B = ctx.job, ctx.R, ctx.B
    W = Writer(ctx, out)
    console = R.chance(0.4)
    must_hosts = set(job.node(x.rank) for x in B.recs if x.src == "rank" and x.protect) | set(x.host for x in B.recs if x.protect and x.host)
    hosts = [h for h in job.nodes if h in must_hosts or len(job.nodes) <= 8 or R.chance(0.35) or h == job.nodes[0]]
    attempts = [(0, None, ctx.restart)] if ctx.restart is None else [(0, None, ctx.restart), (1, ctx.restart, None)]
    for h in hosts:
        if console:
            evs = []
            for x in B.recs:
                if x.host != h:
                    continue
                if x.src == "rank" and x.rank in ctx.visible:
                    evs.append((x.t, x.seq, "[default%d]:%s" % (job.lrank(x.rank), x.text), x))
                elif x.src == "agent":
                    evs.append((x.t, x.seq, x.text, x))
            evs.sort(key=lambda e: (e[0], e[1]))
            W.write("logs/%s/torchrun.log" % short(h), trim([(e[2], e[3]) for e in evs], R.randint(800, 2000), R), hostv=True)
        else:
            for a, lo, hi in attempts:
                for r in job.ranks_on(h):
                    if r not in ctx.visible:
                        continue
                    base = "logs/%s/%s/attempt_%d/%d/" % (short(h), job.run_id, a, job.lrank(r))
                    so = [(x.text, x) for x in rank_recs(ctx, r, ("nccl", "app"), lo, hi)]
                    se = [(x.text, x) for x in rank_recs(ctx, r, ("torch", "py"), lo, hi)]
                    W.write(base + "stdout.log", trim(so, 900, R), hostv=True)
                    W.write(base + "stderr.log", trim(se, 900, R), hostv=True)
            ag = sorted((x for x in B.recs if x.src == "agent" and x.host == h), key=lambda x: (x.t, x.seq))
            if ag:
                W.write("logs/%s/agent.log" % short(h), [(x.text, x) for x in ag])
        st = kstyle(ctx)
        if h in ctx.attach_dmesg:
            its = host_kernel_items(ctx, h, st)
            if its:
                W.write("logs/%s/%s" % (short(h), "dmesg.txt" if st.startswith("dmesg") else "kern.log"), trim(its, 1200, R))
            if st.startswith("dmesg"):
                si = host_sys_items(ctx, h)
                if si:
                    W.write("logs/%s/syslog.txt" % short(h), si)
    for h in ctx.attach_dmesg:
        if h not in hosts:
            its = host_kernel_items(ctx, h, "journal")
            if its:
                W.write("logs/%s/kern.log" % short(h), trim(its, 1200, R))
    write_arts(W, "diag")
    return W


# ================================================================ kubernetes
def layout_k8s(ctx, out):
    job, R, B = ctx.job, ctx.R, ctx.B
    W = Writer(ctx, out)
    ctx.k8s_ns = R.pick(["ml", "training", "default", "llm-team"])
    ctx.k8s_image = R.pick(["nvcr.io/nvidia/pytorch:24.07-py3", "nvcr.io/nvidia/pytorch:25.03-py3", "ghcr.io/acme/trainer:v2.14.1",
                            "public.ecr.aws/hpc-cloud/pytorch-training:2.5.1-efa"])
    stamps = R.chance(0.4)
    tee = R.chance(0.6)
    prot_hosts = set(x.host for x in B.recs if x.protect and x.host)
    vis_hosts = set(job.node(v) for v in ctx.visible)
    for h in job.nodes:
        pod = job.pod[h]
        if len(job.nodes) > 24 and h not in prot_hosts and h not in vis_hosts and not R.chance(0.15):
            continue
        evs = []
        for x in B.recs:
            if x.host != h:
                continue
            if x.src == "rank" and x.rank in ctx.visible:
                evs.append((x.t, x.seq, ("[default%d]:" % job.lrank(x.rank) if tee else "") + x.text, x))
            elif x.src == "agent":
                evs.append((x.t, x.seq, x.text, x))
        if not evs:
            continue
        evs.sort(key=lambda e: (e[0], e[1]))
        if stamps:
            items = [("%s %s" % (iso_ns(job.lt(e[0], h)), e[2]), e[3]) for e in evs]
        else:
            items = [(e[2], e[3]) for e in evs]
        W.write("pods/%s.log" % pod, trim(items, R.randint(700, 1800), R), hostv=True)
    W.write("kubectl-get-pods-wide.txt", [(x, None) for x in pods_table(ctx)])
    W.write("events.txt", k8s_events(ctx))
    failed = sorted(((min(t for r, (t, c) in ctx.deaths.items() if job.node(r) == h), h) for h in job.nodes
                     if any(c != 0 for r, (t, c) in ctx.deaths.items() if job.node(r) == h)))
    for _, h in failed[:R.randint(1, 3)]:
        ev = None
        lines = describe_pod(ctx, h)
        if getattr(ctx, "pod_reason", {}).get(h, ("",))[0] == "OOMKilled":
            ev = Ev("podoom")
        W.write("describe/%s.txt" % job.pod[h], [(x, ev if "OOMKilled" in x else None) for x in lines])
    st = R.pick(["journal", "iso"])
    for h in ctx.attach_dmesg:
        its = host_kernel_items(ctx, h, st)
        if its:
            W.write("nodes/%s-journal.txt" % short(h), trim(its, 1200, R))
    write_arts(W, "diag")
    return W


def pods_table(ctx):
    job, R = ctx.job, ctx.R
    w = max(len(p) for p in job.pod.values()) + 3
    nw = max(len(h) for h in job.nodes) + 3
    out = ["NAME".ljust(w) + "READY   STATUS      RESTARTS   AGE   IP".ljust(52) + "NODE".ljust(nw) + "NOMINATED NODE   READINESS GATES"]
    for h in job.nodes:
        codes = [c for r, (t, c) in ctx.deaths.items() if job.node(r) == h]
        if ctx.outcome == "running" or not codes:
            status, ready = "Running", "1/1"
        elif ctx.outcome == "completed":
            status, ready = "Completed", "0/1"
        else:
            reason = getattr(ctx, "pod_reason", {}).get(h, (None,))[0]
            status, ready = (reason or "Error"), "0/1"
        age = "%dh" % max(1, int(((ctx.t_fail or 0) - ctx.t_init) / 3600) + 1)
        ip = job.ip[h] if not job.k8s_pods else "10.%d.%d.%d" % (R.randint(64, 127), R.randint(0, 255), R.randint(2, 250))
        out.append(job.pod[h].ljust(w) + ("%-7s %-11s %-10s %-5s %s" % (ready, status, "0", age, ip)).ljust(52) + h.ljust(nw) + "<none>           <none>")
    return out


def k8s_events(ctx):
    job, R = ctx.job, ctx.R
    out = [("LAST SEEN   TYPE      REASON              OBJECT                                   MESSAGE", None)]
    evs = [e if len(e) == 6 else tuple(e) + (None,) for e in getattr(ctx, "k8s_events", [])]
    ns, image = ctx.k8s_ns, ctx.k8s_image
    for h in job.nodes[:R.randint(1, 4)]:
        evs.append((ctx.t_init - 120, "Normal", "Scheduled", "pod/%s" % job.pod[h], "Successfully assigned %s/%s to %s" % (ns, job.pod[h], h), None))
        evs.append((ctx.t_init - 100, "Normal", "Pulled", "pod/%s" % job.pod[h], 'Container image "%s" already present on machine' % image, None))
    jobname = job.pod[job.nodes[0]].rsplit("-", 2)[0]
    if ctx.outcome == "failed":
        for r, (t, c) in sorted(ctx.deaths.items(), key=lambda kv: kv[1][0])[:1]:
            evs.append((t + 40, "Warning", "PyTorchJobFailed", "pytorchjob/%s" % jobname,
                        "PyTorchJob %s is failed because 1 %s replica(s) failed." % (jobname, "Master" if job.node(r) == job.nodes[0] else "Worker"), None))
    elif ctx.outcome == "completed":
        evs.append((ctx.t_fail + 60, "Normal", "PyTorchJobSucceeded", "pytorchjob/%s" % jobname, "PyTorchJob %s successfully completed." % jobname, None))
    if R.chance(0.5):
        evs.append((ctx.t_init + R.uniform(100, 5000), "Warning", "FailedGetResourceMetric", "horizontalpodautoscaler/metrics-proxy", "failed to get cpu utilization: unable to get metrics for resource cpu", None))
    now = max(e[0] for e in evs) + R.uniform(60, 900)
    for t, ty, reason, obj, msg, eid in sorted(evs, key=lambda e: e[0]):
        ago = now - t
        age = "%dm" % (ago // 60) if ago < 3600 * 3 else "%dh" % (ago // 3600)
        out.append(("%-11s %-9s %-19s %-40s %s" % (age, ty, reason, obj, msg), Ev(eid) if eid else None))
    return out


def describe_pod(ctx, h):
    job = ctx.job
    codes = sorted((t, c) for r, (t, c) in ctx.deaths.items() if job.node(r) == h)
    reason, code = getattr(ctx, "pod_reason", {}).get(h, ("Error", 1))
    fin = job.lt(codes[-1][0] + 2, h) if codes else job.lt(ctx.t_fail or 0, h)
    start = job.lt(ctx.t_init - 90, h)
    fmt = "%a, %d %b %Y %H:%M:%S +0000"
    return ["Name:             %s" % job.pod[h], "Namespace:        %s" % ctx.k8s_ns, "Node:             %s/%s" % (h, job.ip[h]),
            "Containers:", "  pytorch:", "    State:          Terminated", "      Reason:       %s" % reason,
            "      Exit Code:    %d" % code, "      Started:      %s" % start.strftime(fmt), "      Finished:     %s" % fin.strftime(fmt),
            "    Ready:          False", "    Restart Count:  0", "    Limits:", "      nvidia.com/gpu:          %d" % job.gpn,
            "      vpc.amazonaws.com/efa:   %d" % len(job.hcas) if job.transport == "efa" else "      rdma/ib:                 %d" % max(1, len(job.hcas)),
            "      memory:                  %dGi" % ctx.R.pick([960, 1600, 1800])]


# ================================================================ paste
def layout_paste(ctx, out):
    job, R, B = ctx.job, ctx.R, ctx.B
    W = Writer(ctx, out)
    md = R.chance(0.5)
    fence = ["```"] if md else []
    hours = max(1, int(((ctx.t_fail or 0) - ctx.t_init) / 3600))
    if ctx.outcome == "completed":
        intro = R.pick(["Our %d-GPU run finished fine but the logs are full of fabric warnings. Should we drain anything? Pasting the scary bits:" % job.world,
                        "Job %d completed after ~%dh, but I saw NCCL/IB warnings on the way. Relevant bits:" % (job.jobid, hours)])
    elif ctx.outcome in ("running", "timelimit"):
        intro = R.pick(["Our %d-node run got a lot slower a few hours in (same config as last week). Is it the IB fabric? What I have:" % len(job.nodes),
                        "Job %d: throughput dropped mid-run; no errors that I can see. Logs below (trimmed):" % job.jobid])
    else:
        intro = R.pick(["Hi all, our %d-node job died again overnight. NCCL says network error but the fabric team says IB is fine. Pasting what I have:" % len(job.nodes),
                        "Job %d failed after ~%dh. Logs below (trimmed, the full thing is huge)." % (job.jobid, hours),
                        "seeing NCCL errors on a %d-GPU run, is this the %s network? relevant bits:" % (job.world, {"ib": "IB", "roce": "RoCE", "efa": "EFA", "socket": "TCP"}[job.transport]),
                        "Incident notes for run %s (%d ranks, %s). Collected by hand:" % (job.run_id, job.world, job.transport.upper())])
    items = [(intro, None), ("", None)]
    # rank 0 tail
    r0recs = rank_recs(ctx, 0)
    if r0recs:
        items.append(("rank 0 (%s), last lines:" % job.hostname(job.nodes[0]), None))
        tail = {x.seq: x for x in r0recs[-R.randint(15, 60):]}
        for x in r0recs:
            if x.protect:
                tail[x.seq] = x
        tail = sorted(tail.values(), key=lambda x: (x.t, x.seq))
        items += [(x, None) for x in fence] + [(x.text, x) for x in tail] + [(x, None) for x in fence] + [("", None)]
    # protected rank records of other ranks, grouped per rank
    prot_ranks = sorted(set(x.rank for x in B.recs if x.src == "rank" and x.protect and x.rank != 0))
    others = [v for v in ctx.visible if v != 0 and v not in prot_ranks]
    R.shuffle(others)
    for r in prot_ranks + others[:R.randint(1, 3)]:
        recs = rank_recs(ctx, r)
        if not recs:
            continue
        tail = recs[-R.randint(6, 30):]
        keep = {x.seq: x for x in tail}
        for x in recs:
            if x.protect:
                keep[x.seq] = x
        if R.chance(0.4):
            for x in [x for x in recs if x.eid and x.eid.startswith("map:")][:2]:
                keep[x.seq] = x
        keep = sorted(keep.values(), key=lambda x: (x.t, x.seq))
        items.append(("from rank %d (%s):" % (r, job.hostname(job.node(r))), None))
        items += [(x, None) for x in fence] + [(x.text, x) for x in keep] + [(x, None) for x in fence] + [("", None)]
    # kernel lines via pdsh / clush
    kh = [h for h in ctx.attach_dmesg]
    if kh:
        pat = "nvrm|xid|mlx5|oom|killed process|segfault|bond|nfs|link|logind|termination|preempt|guest_agent|walinuxagent|networkd|networkmanager|firewalld|resolved|efa"
        if R.chance(0.5):
            items.append(("$ pdsh -w %s 'dmesg -T | grep -iE \"%s\"' | dshbak -c" % (",".join(short(h) for h in kh[:4]), pat), None))
            st = "dmesgT"
        else:
            items.append(("$ clush -w %s 'journalctl --since -1d | grep -iE \"%s\"'" % (",".join(short(h) for h in kh[:4]), pat), None))
            st = "journal"
        rx = re.compile(pat, re.I)
        items += [(x, None) for x in fence]
        for h in kh[:4]:
            rows = host_kernel_items(ctx, h, st)
            if st == "dmesgT":
                rows += host_sys_items(ctx, h)
            for ln, rec in rows:
                if rec.protect or rec.eid or rx.search(rec.text):
                    items.append(("%s: %s" % (short(h), ln), rec))
        items += [(x, None) for x in fence] + [("", None)]
    # launcher
    sch = sorted((x for x in B.recs if x.src in ("sched", "agent")), key=lambda x: (x.t, x.seq))
    if sch:
        sel = [x for x in sch if x.protect] + sch[-R.randint(8, 40):]
        seen = set()
        sel2 = []
        for x in sorted(sel, key=lambda x: (x.t, x.seq)):
            if x.seq not in seen:
                seen.add(x.seq)
                sel2.append(x)
        items.append(("launcher output:", None))
        items += [(x, None) for x in fence] + [((("%s: " % short(x.host)) if x.src == "agent" and x.host else "") + x.text, x) for x in sel2] + [(x, None) for x in fence] + [("", None)]
    # artifacts
    for a in B.arts:
        if not (a.protect or a.eid or R.chance(0.5)):
            continue
        hdr = "$ %s%s" % ({"ibstat": "ibstat", "perfquery": "perfquery -x", "ibdiagnet": "cat /var/tmp/ibdiagnet2/ibdiagnet2.log",
                           "opensm": "grep -E 'Notice|SUBNET' /var/log/opensm.log", "iblinkinfo": "iblinkinfo --switches-only"}.get(a.name.split(":")[0], "# " + art_name(a)),
                          " # on %s" % short(a.host) if a.host else "")
        lines = a.lines
        if len(lines) > 120:
            lines = lines[:40] + ["[...]"] + lines[-60:]
        items.append((hdr, None))
        items += [(x, None) for x in fence] + [(ln, a) for ln in lines] + [(x, None) for x in fence] + [("", None)]
    W.write("paste.md" if md else "paste.txt", items, hostv=True, rankv=True)
    return W


# ================================================================ fabric-ops bundle
def layout_fabric(ctx, out):
    job, R, B = ctx.job, ctx.R, ctx.B
    W = Writer(ctx, out)
    t = (ctx.t_fail or ctx.t_init)
    if ctx.deaths and ctx.outcome != "completed":
        t = min(v[0] for v in ctx.deaths.values())
    parts = ["job/ (rank logs)"] + (["nccl/ (NCCL_DEBUG_FILE per process)"] if ctx.debug is not None else []) + \
        ["fabric/ (fabric and node tool output)"] + (["hosts/ (kernel logs)"] if ctx.attach_dmesg else [])
    W.write("ticket.txt", [(x, None) for x in [
        "Ticket: job %d (%s, %d nodes x %d GPUs, %s)" % (job.jobid, job.model, len(job.nodes), job.gpn, {"ib": "InfiniBand NDR", "roce": "RoCEv2", "efa": "EFA", "socket": "TCP"}[job.transport]),
        ("Reported: job stopped around %s UTC; user suspects the fabric." % sec(job.lt(t, job.nodes[0]))) if ctx.outcome != "completed" else
        "Reported: user saw NCCL / fabric warnings in a job that finished around %s UTC; asks whether the nodes are fine." % sec(job.lt(t, job.nodes[0])),
        "Nodes: %s" % " ".join(short(h) for h in job.nodes[:64]) + (" ..." if len(job.nodes) > 64 else ""),
        "Fabric state below was collected %d minutes after the failure." % R.randint(15, 240),
        "Contents: " + ", ".join(parts)]])
    ranks = sorted(set([0] + [x.rank for x in B.recs if x.src == "rank" and x.protect]) | set(R.sample(ctx.visible, min(len(ctx.visible), R.randint(1, 4)))))
    for r in ranks:
        recs = rank_recs(ctx, r)
        if recs:
            W.write("job/rank%d.log" % r, trim([(x.text, x) for x in recs], 1500, R), rankv=True)
    if ctx.debug is not None:
        for r in ctx.visible:
            recs = rank_recs(ctx, r, ("nccl",))
            if recs:
                W.write("nccl/%s.%d.log" % (job.hostname(job.node(r)).split(".")[0], job.pids[r]), trim([(x.text, x) for x in recs], 600, R), hostv=True)
    sch = sorted((x for x in B.recs if x.src in ("sched", "agent")), key=lambda x: (x.t, x.seq))
    if sch:
        W.write("job/launcher.log", [((("[%s] " % short(x.host)) if x.host and x.src == "agent" else "") + x.text, x) for x in sch])
    st = kstyle(ctx)
    for h in ctx.attach_dmesg:
        its = host_kernel_items(ctx, h, st if st != "dmesg" or True else st)
        if its:
            W.write("hosts/%s/%s" % (short(h), "dmesg.txt" if st.startswith("dmesg") else "journal.txt"), trim(its, 1500, R))
        if st.startswith("dmesg"):
            si = host_sys_items(ctx, h)
            if si:
                W.write("hosts/%s/syslog.txt" % short(h), si)
    write_arts(W, "fabric")
    return W


LAYOUTS = {"slurm": layout_slurm, "torchrun": layout_torchrun, "k8s": layout_k8s, "paste": layout_paste, "fabric": layout_fabric}
