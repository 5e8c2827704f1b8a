"""Rendering helpers shared by the layouts: joining streams, kernel logs in
several styles, launcher/scheduler messages, collection bookkeeping."""
from __future__ import annotations

import gzip
import io

from b4_common import (pickn, Run, ts_ctime, ts_ctime_de, ts_ctime_fr, ts_syslog, ts_journal, ts_iso, ts_slurm, ts_sec, ts_py,
                       ts_elastic, short, hexid)
from b4_text import elastic_lines, elastic_failure_block, SIGNAMES, site


# ------------------------------------------------------------------ bookkeeping
def coll(run: Run) -> dict:
    return run.meta.setdefault("collected", {"ranks": set(), "kernel": set(), "launcher_ranks": set(), "pid_ranks": set(),
                                             "extras": set(), "launcher": False})


def got_rank(run: Run, *rs):
    coll(run)["ranks"].update(rs)


def attributable(run: Run, r: int) -> bool:
    """Can the culprit's own evidence lines be tied to its rank when ranks of a
    node are merged without per-rank labels?"""
    if r != run.truth.get("rank"):
        return True
    for (_, _, x) in run.rank_lines(r):
        if ("[rank%d]" % r) in x or ("rank=%d " % r) in x or ("rank %d/" % r) in x or ("global rank %d " % r) in x:
            return True
    att = run.meta.get("culprit_attrib", "c10")
    if run.truth.get("cause") in ("hang", "data_loader_stall") and run.meta.get("wd_style") == "dump":
        att = "c10"
    return att == "c10" or (att == "tb" and bool(run.meta.get("rank_prefix_tb")))


def got_merged(run: Run, ranks):
    got_rank(run, *[r for r in ranks if attributable(run, r)])


def got_kernel(run: Run, idx: int):
    coll(run)["kernel"].add(idx)


def got_extra(run: Run, name: str):
    coll(run)["extras"].add(name)


# ------------------------------------------------------------------ text assembly
def join(lines: list) -> str:
    """Join lines. tqdm-style updates ('\\r...') carry no newline, so consecutive
    updates (same label prefix, or no prefix) continue one physical line."""
    out = []
    for ln in lines:
        if "\r" in ln and out and "\r" in out[-1]:
            lab, rest = ln.split("\r", 1)
            plab = out[-1].split("\r", 1)[0]
            if lab == "" or lab == plab:
                out[-1] += "\r" + rest
                continue
        out.append(ln)
    return "\n".join(out) + ("\n" if out else "")


def truncate_tail(run: Run, text: str, p: float = 0.25) -> str:
    """A killed process often leaves a half-written last line."""
    if run.rng.random() >= p or len(text) < 200:
        return text
    body = text.rstrip("\n")
    last_nl = body.rfind("\n")
    last = body[last_nl + 1:]
    if len(last) < 30:
        return text
    cut = run.rng.randint(10, len(last) - 5)
    return body[:last_nl + 1] + last[:cut]


def rank_texts(run: Run, r: int, streams=("out", "err"), prefix: str = "") -> list:
    return [(t, prefix + x) for (t, s, x) in run.rank_lines(r) if s in streams]


def merged(run: Run, ranks, prefix_fn=None, streams=("out", "err"), extra=None) -> list:
    """Interleave the lines of several ranks (plus extra (t, text)) by time."""
    items = []
    for r in ranks:
        p = prefix_fn(r) if prefix_fn else ""
        for (t, x) in rank_texts(run, r, streams):
            items.append((t, r, p + x))
    for (t, x) in (extra or []):
        items.append((t, -1, x))
    items.sort(key=lambda z: (round(z[0], 3), z[1]))
    return [x for (_, _, x) in items]


def gz(text: str) -> bytes:
    bio = io.BytesIO()
    with gzip.GzipFile(fileobj=bio, mode="wb", mtime=0, filename="") as f:
        f.write(text.encode("utf-8"))
    return bio.getvalue()


# ------------------------------------------------------------------ kernel logs
KNOISE = [
    "audit: type=1400 audit({e:.3f}:{n}): apparmor=\"DENIED\" operation=\"open\" class=\"file\" profile=\"snap.lxd.daemon\" name=\"/proc/{p}/mounts\" pid={p} comm=\"lxd\" requested_mask=\"r\" denied_mask=\"r\" fsuid=0 ouid=0",
    "IPv6: ADDRCONF(NETDEV_CHANGE): veth{h}: link becomes ready",
    "docker0: port 1(veth{h}) entered forwarding state",
    "docker0: port 1(veth{h}) entered disabled state",
    "EXT4-fs (nvme0n1p2): re-mounted {u}. Quota mode: none.",
    "nvme nvme1: Shutdown timeout set to 10 seconds",
    "Lustre: {fs}-MDT0000-mdc-ffff9a{h8}: Connection restored to {ip}@o2ib (at {ip}@o2ib)",
    "perf: interrupt took too long (3146 > 3141), lowering kernel.perf_event_max_sample_rate to 63500",
    "mce: [Hardware Error]: Machine check events logged",
    "EDAC MC0: 1 CE memory read error on CPU_SrcID#0_MC#1_Chan#0_DIMM#0 (channel:0 slot:0 page:0x{h6} offset:0x0 grain:32 syndrome:0x0 - err_code:0x0000:0x009f socket:0 imc:1 rank:0 bg:1 ba:2 row:0x{h4} col:0x{h3})",
    "systemd-journald[{p}]: Data hash table of /var/log/journal/{u}/system.journal has a fill level at 75.1 (8540 of 11377 items, 6553600 file size, 767 bytes per hash table item), suggesting rotation.",
    "nfs: server {fs} OK",
    "TCP: request_sock_TCP: Possible SYN flooding on port 29500. Sending cookies.  Check SNMP counters.",
    "nvidia-modeset: WARNING: GPU:{g}: Unable to read EDID for display device DP-0",
    "[UFW BLOCK] IN={eth} OUT= MAC=00:00:00:00:00:00 SRC={ip} DST=224.0.0.251 LEN=73 TOS=0x00 PREC=0x00 TTL=255 ID=0 DF PROTO=UDP SPT=5353 DPT=5353 LEN=53",
]


def kernel_noise(run: Run, nd, t_lo: float, t_hi: float, n: int) -> list:
    rng = run.rng
    out = []
    for _ in range(n):
        tpl = rng.choice(KNOISE)
        t = rng.uniform(t_lo, t_hi)
        out.append((t, tpl.format(e=run.e(t, nd), n=rng.randint(1000, 99999), p=rng.randint(1000, 400000), h=hexid(rng, 7),
                                  h8=hexid(rng, 8), h6=hexid(rng, 6), h4=hexid(rng, 4), h3=hexid(rng, 3), u=hexid(rng, 32)[:32],
                                  fs=rng.choice(["lustre01", "scratch", "fsx"]), ip=nd.ip, g=rng.randrange(nd.gpus), eth=nd.eth)))
    return out


def kernel_text(run: Run, nd, style: str, t_lo: float | None = None, t_hi: float | None = None, noise: int = 0) -> str:
    rng = run.rng
    ents = [(t, m, "kernel") for (t, m) in nd.kernel]
    if style in ("journal", "syslog", "iso"):
        ents += [(t, m, ident) for (t, ident, m) in nd.sys]
    if noise:
        lo = t_lo if t_lo is not None else min([t for t, _ in ents] + [-3600])
        hi = t_hi if t_hi is not None else max([t for t, _ in ents] + [3600])
        ents += [(t, m, "kernel") for (t, m) in kernel_noise(run, nd, lo, hi, noise)]
    ents.sort(key=lambda z: z[0])
    host = short(nd.host)
    out = []
    for (t, m, ident) in ents:
        if t_lo is not None and t < t_lo:
            continue
        if t_hi is not None and t > t_hi:
            continue
        up = t - nd.boot
        e = run.e(t, nd)
        if style == "dmesg":
            out.append("[%12.6f] %s" % (up, m))
        elif style == "dmesg_T":
            out.append("[%s] %s" % (ts_ctime(e), m))
        elif style == "dmesg_T_de":
            out.append("[%s] %s" % (ts_ctime_de(e), m))
        elif style == "dmesg_T_fr":
            out.append("[%s] %s" % (ts_ctime_fr(e), m))
        elif style == "journal":
            out.append("%s %s %s: %s" % (ts_journal(e), host, ident, m))
        elif style == "syslog":
            out.append(("%s %s kernel: [%12.6f] %s" % (ts_syslog(e), host, up, m)) if ident == "kernel" else "%s %s %s: %s" % (ts_syslog(e), host, ident, m))
        elif style == "iso":
            out.append("%s %s %s: %s" % (ts_iso(e, 6, z=False), host, ident, m))
        else:
            out.append(m)
    return "\n".join(out) + "\n"


def kernel_style(run: Run) -> str:
    return run.rng.choice(["dmesg", "dmesg", "dmesg_T", "journal", "syslog", "iso", "dmesg_T_de" if run.rng.random() < 0.3 else "dmesg_T_fr"])


def kernel_file(run: Run, nd, path: str, style: str | None = None, window: tuple | None = None, noise: int | None = None):
    style = style or kernel_style(run)
    n = noise if noise is not None else run.rng.randint(5, 60)
    lo, hi = window if window else (None, None)
    txt = kernel_text(run, nd, style, lo, hi, n)
    if style.startswith("dmesg_T_") and run.rng.random() < 0.5:
        pass
    run.add_file(path, txt)
    got_kernel(run, nd.idx)


# ------------------------------------------------------------------ exits
def exit_code(rk) -> int:
    t, kind, v = rk.exit
    return -v if kind == "signal" else v


def natural_failures(run: Run, nd) -> list:
    rks = [rk for rk in run.ranks if rk.node is nd and rk.exit and not getattr(rk, "meta_killed", False)
           and not (rk.exit[1] == "code" and rk.exit[2] == 0)]
    return sorted(rks, key=lambda x: x.exit[0])


def first_fail_time(run: Run) -> float | None:
    bad = [rk.exit[0] for rk in run.ranks if rk.exit and not (rk.exit[1] == "code" and rk.exit[2] == 0)]
    return min(bad) if bad else None


def job_end(run: Run) -> float:
    return max(rk.exit[0] for rk in run.ranks)


# ------------------------------------------------------------------ torch elastic agent output (per node)
def agent_lines(run: Run, nd, script: str, agent_pid: int, start_t: float, attempt_info: bool = False) -> list:
    """Return [(t, text)] the torchrun agent on node nd prints to its stderr (cached per node)."""
    cache = run.meta.setdefault("agent_cache", {})
    if nd.idx not in cache:
        cache[nd.idx] = _agent_lines(run, nd, script, agent_pid, start_t)
    return list(cache[nd.idx])


def _agent_lines(run: Run, nd, script: str, agent_pid: int, start_t: float) -> list:
    rng = run.rng
    out = []
    src_run = "torch/distributed/run.py:%d" % {(2, 5): 793, (2, 6): 792, (2, 7): 766, (2, 8): 775, (2, 9): 810}.get(run.tv(), 793)
    for m in ["", "*****************************************",
              "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
              "*****************************************"]:
        out.append((start_t, elastic_lines(run, nd, start_t, "W", src_run, m, agent_pid)))
    rks = [rk for rk in run.ranks if rk.node is nd]
    api = "torch/distributed/elastic/multiprocessing/api.py"
    L = {(2, 5): (897, 869), (2, 6): (897, 869), (2, 7): (900, 874), (2, 8): (908, 882), (2, 9): (915, 889)}.get(run.tv(), (897, 869))
    fails0 = natural_failures(run, nd)
    sigterm = run.meta.get("preempt_job") or (run.meta.get("preempt_node") is nd) or run.meta.get("user_cancel") or \
        (not fails0 and all(getattr(rk, "meta_killed", False) for rk in rks) and "job_kill" in run.meta.get("policy", ()) and not run.meta.get("srun_per_gpu"))
    if sigterm and not all(rk.exit[1] == "code" and rk.exit[2] == 0 for rk in rks):
        tp = min(rk.exit[0] for rk in rks) - 0.1
        run.meta.setdefault("agent_exit", {})[nd.idx] = (tp + 2.5, "code", 1)
        out.append((tp, elastic_lines(run, nd, tp, "W", "torch/distributed/elastic/agent/server/api.py:%d" % pickn(run, [704, 719]), "Received Signals.SIGTERM death signal, shutting down workers", agent_pid)))
        for rk in rks:
            out.append((tp + 0.01, elastic_lines(run, nd, tp + 0.01, "W", "%s:%d" % (api, L[0]), "Sending process %d closing signal SIGTERM" % rk.pid, agent_pid)))
        s = site(run)
        tb = ["Traceback (most recent call last):", '  File "/usr/local/bin/torchrun", line 8, in <module>', "    sys.exit(main())",
              '  File "%s/torch/distributed/launcher/api.py", line 260, in launch_agent' % s, "    result = agent.run()",
              '  File "%s/torch/distributed/elastic/agent/server/api.py", line 696, in run' % s, "    result = self._invoke_run(role)",
              '  File "%s/torch/distributed/elastic/agent/server/api.py", line 855, in _invoke_run' % s, "    time.sleep(monitor_interval)",
              '  File "%s/torch/distributed/elastic/multiprocessing/api.py", line 84, in _terminate_process_handler' % s,
              "    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)",
              "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % agent_pid]
        for i, x in enumerate(tb):
            out.append((tp + 2 + i * 1e-4, x))
        return out
    fails = natural_failures(run, nd)
    if not fails:
        return out
    tf = fails[0].exit[0]
    window = [rk for rk in fails if rk.exit[0] <= tf + 0.8]
    for rk in rks:
        if rk not in window:
            out.append((tf + 0.2, elastic_lines(run, nd, tf + 0.2, "W", "%s:%d" % (api, L[0]), "Sending process %d closing signal SIGTERM" % rk.pid, agent_pid)))
    te = max(tf + rng.uniform(1, 6), max(rk.exit[0] for rk in rks) + rng.uniform(0.6, 1.2))
    run.meta.setdefault("agent_exit", {})[nd.idx] = (te + 0.3, "code", 1)
    root = window[0]
    out.append((te, elastic_lines(run, nd, te, "E", "%s:%d" % (api, L[1]), "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (exit_code(root), root.local, root.pid, run.meta.get("pybin", "/usr/bin/python3")), agent_pid)))

    def d(rk):
        ec = exit_code(rk)
        dd = dict(time=rk.exit[0], host=short(nd.host) if run.meta.get("short_in_elastic", True) else nd.host, rank=rk.r, local=rk.local, exitcode=ec, pid=rk.pid)
        if ec < 0:
            dd["tb"] = "Signal %d (%s) received by PID %d" % (-ec, SIGNAMES.get(-ec, "SIG%d" % -ec), rk.pid)
        return dd
    blk = elastic_failure_block(run, nd, te, script, d(root), [d(x) for x in window[1:]])
    for i, x in enumerate(blk):
        out.append((te + 0.01 + i * 1e-5, x))
    coll_pid = run.meta.setdefault("agent_pid_nodes", set())
    coll_pid.add(nd.idx)
    return out


def agent_reports_rank(run: Run, nd) -> set:
    fails = natural_failures(run, nd)
    if not fails:
        return set()
    tf = fails[0].exit[0]
    return {rk.r for rk in fails if rk.exit[0] <= tf + 0.8}


# ------------------------------------------------------------------ slurm
def srun_errors(run: Run, tasks: list, label_of, host_of, exit_of) -> list:
    """tasks: ids; exit_of(task) -> (t, kind, val, killed). Return [(t, text)] srun lines."""
    rng = run.rng
    out = []
    jk = run.meta.get("job_kill_t")
    groups = {}
    for tk in tasks:
        t, kind, v, killed = exit_of(tk)
        if kind == "code" and v == 0:
            continue
        if killed and jk is not None and t > jk:
            continue
        if kind == "signal":
            reason = {9: "Killed", 11: "Segmentation fault (core dumped)", 6: "Aborted (core dumped)", 15: "Terminated", 7: "Bus error (core dumped)"}.get(v, "Signal %d" % v)
            if v == 9 and run.meta.get("oom_slurm") and tk in run.meta.get("oom_tasks", ()):
                reason = "Out Of Memory"
        else:
            reason = "Exited with exit code %d" % v
        key = (host_of(tk), reason)
        groups.setdefault(key, []).append((t, tk))
    # srun batches exit notifications: tasks that ended within ~1 s are reported on one line
    regroup = {}
    for (host, reason), lst in groups.items():
        lst.sort()
        bucket = None
        for (t, tk) in lst:
            if bucket is None or t - bucket > 1.0:
                bucket = t
            regroup.setdefault((host, reason, round(bucket, 3)), []).append((t, tk))
    groups = regroup
    for key3, lst in groups.items():
        host, reason = key3[0], key3[1]
        lst.sort()
        ids = sorted(label_of(tk) for _, tk in lst)
        if len(ids) == 1:
            txt = "srun: error: %s: task %d: %s" % (host, ids[0], reason)
        else:
            txt = "srun: error: %s: tasks %s: %s" % (host, rangestr(ids), reason)
        out.append((lst[-1][0] + rng.uniform(0.01, 0.5), txt))
    run.meta.setdefault("srun_lines", []).extend(x for (_, x) in out)
    return out


def rangestr(ids: list) -> str:
    parts = []
    i = 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        parts.append(str(ids[i]) if i == j else "%d-%d" % (ids[i], ids[j]))
        i = j + 1
    return ",".join(parts)


def nodelist(hosts: list) -> str:
    """Compress host list Slurm-style where names end in digits."""
    import re
    pre = {}
    for h in hosts:
        h = short(h)
        m = re.match(r"^(.*?)(\d+)$", h)
        if not m:
            return ",".join(short(x) for x in hosts)
        pre.setdefault((m.group(1), len(m.group(2))), []).append(int(m.group(2)))
    out = []
    for (p, w), nums in pre.items():
        nums.sort()
        rs = []
        i = 0
        while i < len(nums):
            j = i
            while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
                j += 1
            rs.append(("%0*d" % (w, nums[i])) if i == j else "%0*d-%0*d" % (w, nums[i], w, nums[j]))
            i = j + 1
        out.append("%s[%s]" % (p, ",".join(rs)) if len(nums) > 1 else p + rs[0])
    return ",".join(out)


def slurm_tail(run: Run, jobid: int, step: int, head_host: str) -> list:
    """Job/step end messages for the scheduler output file. Return [(t, text)]."""
    rng = run.rng
    out = []
    jk = run.meta.get("job_kill_t")
    if run.meta.get("preempt_job"):
        tp = min(rk.exit[0] for rk in run.ranks) - 0.3
        why = run.meta["preempt_job"]
        out.append((tp, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (jobid, short(head_host), ts_slurm(run.e(tp)), why)))
        out.append((tp + 0.1, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
        out.append((tp + 0.2, "slurmstepd: error: *** STEP %d.%d ON %s CANCELLED AT %s DUE TO %s ***" % (jobid, step, short(head_host), ts_slurm(run.e(tp)), why)))
        if rng.random() < 0.5:
            out.append((tp + 0.3, "srun: forcing job termination"))
        return out
    if run.meta.get("hit_limit"):
        tl = job_end(run) - 0.5
        if run.meta.get("user_cancel"):
            out.append((tl, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s ***" % (jobid, short(head_host), ts_slurm(run.e(tl)))))
        else:
            out.append((tl, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (jobid, short(head_host), ts_slurm(run.e(tl)))))
        out.append((tl + 0.2, "slurmstepd: error: *** STEP %d.%d ON %s CANCELLED AT %s ***" % (jobid, step, short(head_host), ts_slurm(run.e(tl)))))
    if jk is not None:
        out.append((jk + rng.uniform(0.2, 0.4), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
        out.append((jk + rng.uniform(0.5, 0.9), "slurmstepd: error: *** STEP %d.%d ON %s CANCELLED AT %s ***" % (jobid, step, short(head_host), ts_slurm(run.e(jk + 0.5)))))
    if run.meta.get("oom_slurm") and run.meta.get("oom_t") is not None:
        ot = run.meta["oom_t"]
        out.append((ot + rng.uniform(1, 30), "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.%d. Some of the step tasks have been OOM Killed." % (jobid, step)))
    return out


def sacct_text(run: Run, jobid: int, name: str, state: str, exitc: str, step_state: str, step_exit: str, ncpu: int, start: float, end: float) -> str:
    hdr = "JobID           JobName  Partition    Account  AllocCPUS      State ExitCode               Start                 End    Elapsed \n" \
          "------------ ---------- ---------- ---------- ---------- ---------- -------- ------------------- ------------------- ---------- "
    el = int(end - start)
    els = "%02d:%02d:%02d" % (el // 3600, (el // 60) % 60, el % 60) if el < 86400 else "%d-%02d:%02d:%02d" % (el // 86400, (el // 3600) % 24, (el // 60) % 60, el % 60)
    acct = run.meta.get("account", "llm-pt")
    rows = [(str(jobid), name[:10], run.meta.get("partition", "gpu"), acct, ncpu, state, exitc),
            ("%d.batch" % jobid, "batch", "", acct, 64, state if state != "TIMEOUT" else "CANCELLED", exitc if state != "TIMEOUT" else "0:15"),
            ("%d.extern" % jobid, "extern", "", acct, ncpu, "COMPLETED", "0:0"),
            ("%d.0" % jobid, run.meta.get("stepname", "python")[:10], "", acct, ncpu, step_state, step_exit)]
    out = [hdr]
    for (a, b, c, d, e, f, g) in rows:
        st = f if len(f) <= 10 else f[:9] + "+"
        out.append("%-12s %10s %10s %10s %10d %10s %8s %19s %19s %10s " % (a, b, c, d, e, st, g, ts_slurm(run.e(start)), ts_slurm(run.e(end)), els))
    return "\n".join(out) + "\n"
