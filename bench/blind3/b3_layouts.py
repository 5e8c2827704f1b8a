"""Layouts: how a particular scheduler / launcher / platform lays out the logs
of a job.  Each layout builds the cluster (host names, GPUs per node, torch
version, launcher policy) and renders the job's line streams into files."""
import json
from b3_core import fmt, hexid, rname, k8s_age, dur_hms
from b3_sim import Policy
import b3_render as R
import b3_train as T

ALL_CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "host_oom_kill", "cuda_oom", "illegal_memory_access",
              "python_exception", "crash_signal", "hang", "collective_mismatch", "data_loader_stall", "preemption", "straggler", None]
NEEDS_KERNEL = ("gpu_hardware", "network")
FORCE_KERNEL = ("gpu_hardware", "network", "host_oom_kill")


def _script_name(rng):
    return rng.choice(["train.py", "pretrain_gpt.py", "finetune.py", "main.py", "run_clm.py", "train_llm.py"])


def _common_flags(job, fw_choices):
    rng = job.rng
    job.framework = rng.choice(fw_choices)
    if job.framework == "megatron":
        job.script = "pretrain_gpt.py"
        job.flags["tp"] = rng.choice([1, 2, 4, 8]) if job.gpn >= 4 else 1
        job.flags["pp"] = rng.choice([1, 2]) if len(job.nodes) > 1 else 1
        job.flags["megatron_straggler"] = rng.random() < 0.6
    elif job.framework == "hf":
        job.script = "run_clm.py"
    else:
        job.script = _script_name(rng)
    job.jobname = rng.choice(["llama3-8b-sft", "gpt-1p3b", "vit-h14", "mixtral-ft", "pretrain-7b", "bert-large-mlm", "t5-xl", "diffusion-unet"])
    job.nccl_debug = rng.random() < 0.45
    job.userfmt = rng.choice(["std", "bracket", "loguru", "json", "absl", "epoch", "std"])
    job.flags["banner"] = rng.choice(["fairseq", "host", "ulog0", "none"])
    job.flags["per_rank_log"] = job.framework in ("ddp", "fsdp") and rng.random() < 0.6
    job.flags["log_every"] = rng.choice([1, 5, 10, 10, 20, 50])
    job.flags["warn_idx"] = rng.randrange(5)
    job.flags["socket_warn"] = rng.random() < 0.25
    job.flags["barrier_warn"] = rng.random() < 0.5
    job.flags["ngc"] = rng.random() < 0.4
    job.flags["record"] = rng.random() < 0.4
    job.flags["nfs_server"] = rng.choice(["nfs01", "fs-home.hpc.local", "10.1.0.21", "vast-data01"])
    job.flags["driver"] = rng.choice(["535.183.01", "550.90.07", "535.161.08", "560.35.03", "570.124.06"])
    job.flags["kver"] = rng.choice([(113, 123), (105, 115), (119, 129), (125, 135)])
    job.flags["ckpt_every"] = rng.choice([0, 0, 200, 500])
    job.flags["step_time"] = rng.uniform(0.25, 4.0) if job.framework != "megatron" else rng.uniform(0.8, 9.0)
    job.py = rng.choice(["3.10", "3.10", "3.11"])
    if job.flags["ngc"]:
        job.site = "/usr/local/lib/python3.10/dist-packages"
        job.flags["pybin"] = "/usr/bin/python"
        job.flags["torchrun_bin"] = "/usr/local/bin/torchrun"
    else:
        env = rng.choice(["/opt/conda", "/home/%s/miniconda3/envs/train" % rng.choice(["jdoe", "mli", "svc-ml", "akumar"]), "/fsx/envs/torch"])
        job.site = "%s/lib/python%s/site-packages" % (env, job.py)
        job.flags["pybin"] = "%s/bin/python" % env
        job.flags["torchrun_bin"] = "%s/bin/torchrun" % env
    # verbosity budget to keep each run folder well under 1 MB
    job.verbosity = max(0.15, min(1.0, 48.0 / max(job.world, 1)))
    if job.world > 64:
        job.flags["per_rank_log"] = False
        job.nccl_debug = job.nccl_debug and rng.random() < 0.5


def _host_scheme(rng, n, scheme):
    hosts, aliases, ips = [], [], []
    if scheme == "gpu":
        kind = rng.choice(["a100", "h100", "h200"])
        start = rng.randint(1, 180)
        for i in range(n):
            h = "gpu-%s-%03d" % (kind, start + i)
            ip = "10.%d.%d.%d" % (rng.randint(1, 30), rng.randint(0, 3), 10 + start + i)
            hosts.append(h)
            ips.append(ip)
            aliases.append([ip])
    elif scheme == "nid":
        start = rng.randint(1000, 9000)
        step = rng.choice([1, 1, 4])
        for i in range(n):
            h = "nid%06d" % (start + i * step)
            ip = "10.100.%d.%d" % (rng.randint(0, 63), rng.randint(2, 250))
            hosts.append(h)
            ips.append(ip)
            aliases.append([ip, h + "-hsn0"])
    elif scheme == "fqdn":
        dom = rng.choice(["hpc.example.edu", "cluster.corp.internal", "ml.lab.local"])
        pre = rng.choice(["node", "dgx", "hgx", "cn"])
        start = rng.randint(1, 300)
        for i in range(n):
            s = "%s%03d" % (pre, start + i)
            ip = "172.%d.%d.%d" % (rng.randint(16, 31), rng.randint(0, 20), rng.randint(2, 250))
            hosts.append(s)
            ips.append(ip)
            aliases.append(["%s.%s" % (s, dom), ip])
    elif scheme == "aws":
        sub = rng.randint(0, 15)
        for i in range(n):
            ip = "10.0.%d.%d" % (sub, rng.randint(2, 250))
            h = "ip-" + ip.replace(".", "-")
            hosts.append(h)
            ips.append(ip)
            aliases.append(["%s.ec2.internal" % h if rng.random() < 0.5 else "%s.us-west-2.compute.internal" % h, ip])
    elif scheme == "dgx":
        pod = rng.choice(["a", "b", "c"])
        start = rng.randint(1, 60)
        for i in range(n):
            h = "dgx-h100-%s%02d" % (pod, start + i)
            ip = "192.168.%d.%d" % (rng.randint(10, 40), start + i + 10)
            hosts.append(h)
            ips.append(ip)
            aliases.append([ip])
    import re as _re

    def nk(h):
        return [int(x) if x.isdigit() else x for x in _re.split(r"(\d+)", h)]
    order = sorted(range(len(hosts)), key=lambda i: nk(hosts[i]))
    return [hosts[i] for i in order], [aliases[i] for i in order], [ips[i] for i in order]


def _uniq(seq):
    out = []
    for x in seq:
        if x not in out:
            out.append(x)
    return out


class Layout(object):
    name = "base"
    causes = ALL_CAUSES
    has_kernel_default = True

    def supports(self, cause):
        return cause in self.causes

    def policy(self, job):
        return Policy()

    def node_truth(self, job, nidx):
        nd = job.nodes[nidx]
        return nd.host, _uniq([a for a in nd.aliases if a != nd.host])

    def kernel_style(self, job):
        return job.rng.choice(["syslog", "dmesgT", "dmesg", "journal", "journal_short"])


# ==========================================================================
# Slurm: srun -l, all tasks in one file
# ==========================================================================
class SlurmSrunLabel(Layout):
    name = "slurm-srun-label"

    def build(self, job, cause):
        rng = job.rng
        n = rng.choice([1, 2, 2, 4, 4, 8, 16])
        if cause in ("network",) and n == 1:
            n = 2
        scheme = rng.choice(["gpu", "nid", "fqdn"])
        gpn = 4 if scheme == "nid" else rng.choice([4, 8, 8])
        board = "a100x4" if gpn == 4 else rng.choice(["h100x8", "a100x8"])
        hosts, aliases, ips = _host_scheme(rng, n, scheme)
        R.setup_cluster(job, hosts, gpn, board, ips)
        for nd, al in zip(job.nodes, aliases):
            nd.aliases = al
            nd.fqdn = al[0] if scheme == "fqdn" else nd.host
        R.set_skews(job, big_one=rng.random() < 0.2)
        R.pick_versions(job)
        job.launcher = "srun"
        _common_flags(job, ["ddp", "fsdp", "megatron", "lightning", "nemo", "ddp"])
        job.flags["has_kernel"] = rng.random() < 0.75 or cause in FORCE_KERNEL
        job.flags["kill_on_bad_exit"] = rng.random() < 0.5
        job.flags["time_limit"] = rng.choice([4, 8, 12, 24, 48]) * 3600
        job.flags["open_end"] = rng.choice(["scancel", "scancel", "timelimit"])
        job.flags["preempt_kinds"] = ["preempt", "timelimit"]
        job.flags["fabric"] = job.fabric = rng.choice(["ib", "ib", "roce", "socket"]) if scheme != "nid" else "socket"
        if scheme == "nid":
            job.flags["oob_if"] = "hsn0"
        job.jobid = rng.randint(1000000, 48000000)

    def policy(self, job):
        return Policy(agent_per_node=False, kill_all=job.flags["kill_on_bad_exit"], kill_delay=(0.2, 2.0), kill_code=-15)

    def slurm_tail(self, job, label_w=None):
        """srun / slurmstepd lines appended to the batch output."""
        rng = job.rng
        lines = []   # (t, text)
        jk = job.jobkill
        by_node_time = {}
        term = job.term
        for r, (t, code) in sorted(job.end.items()):
            if code == 0:
                continue
            nidx = job.ranks[r].node
            by_node_time.setdefault(nidx, []).append((t, r, code))
        first_bad = min([e for e in job.end.items() if e[1][1] != 0], key=lambda x: x[1][0], default=None)
        if job.flags.get("slurm_oom"):
            victims = [r for r, (t, c) in job.end.items() if c == -9 and job.killed_by.get(r) is None]
            for r in victims:
                nd = job.nodes[job.ranks[r].node]
                lines.append((job.end[r][0] + 1.0, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % job.jobid))
        if term:
            what = {"preempt": " DUE TO PREEMPTION", "timelimit": " DUE TO TIME LIMIT", "scancel": ""}.get(term["kind"], "")
            tt = term["t"]
            lines.append((tt, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s%s ***" % (job.jobid, job.nodes[0].host, fmt(tt + job.nodes[0].skew, "slurm", job.tz), what)))
            for nd in job.nodes[: min(len(job.nodes), 4)]:
                lines.append((tt + 0.01, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s%s ***" % (job.jobid, nd.host, fmt(tt + nd.skew, "slurm", job.tz), what)))
            lines.append((tt + 0.02, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            if rng.random() < 0.5:
                lines.append((tt + 0.03, "srun: got SIGCONT"))
                lines.append((tt + 0.04, "srun: forcing job termination"))
        elif jk is not None and first_bad is not None:
            t, code = first_bad[1]
            lines.append((jk[0] - 0.01, "srun: %sTerminating StepId=%d.0" % ("launch/slurm: _step_signal: " if rng.random() < 0.6 else "", job.jobid)))
            for nd in job.nodes[: min(len(job.nodes), 4)]:
                lines.append((jk[0] + 0.02, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (job.jobid, nd.host, fmt(jk[0] + nd.skew, "slurm", job.tz))))
        # task exit lines grouped by node / code and coarse time buckets
        groups = {}
        for nidx, lst in by_node_time.items():
            for (t, r, code) in lst:
                key = (nidx, code, int(t // 5))
                groups.setdefault(key, []).append((t, r))
        for (nidx, code, _), members in groups.items():
            t = max(m[0] for m in members)
            tasks = [m[1] for m in members]
            for ln in R.srun_task_errors(job, {nidx: [(x, code) for x in tasks]}, t):
                lines.append((t + 0.05, ln))
        return sorted(lines)

    def render(self, job, truth):
        rng = job.rng
        R.finalize_open_ranks(job, job.flags.get("open_end", "scancel"))
        files = {}
        w = len(str(job.world - 1))
        items = []
        for rk in job.ranks:
            until = R.alive_until(job, rk.r)
            for it in R.rank_items(job, rk.r, until=until):
                items.append((it, rk.r))
        items.sort(key=lambda x: (x[0][0], x[0][1]))
        head = self.batch_header(job)
        body = []
        cur = {}
        for it, r in items:
            pfx = "%*d: " % (w, r)
            if len(it) > 4:
                body.append((it[0], pfx + it[3].replace("\n", "\n" + pfx).rstrip(" ").rstrip(pfx.strip()) if it[3].endswith("\n") else pfx + it[3]))
            else:
                body.append((it[0], pfx + it[3]))
        tail = self.slurm_tail(job)
        allx = sorted(body + tail, key=lambda x: x[0])
        out = head + "\n".join(x[1] for x in allx) + "\n"
        if job.flags.get("still_running"):
            out = out.rstrip("\n")
        files["slurm-%d.out" % job.jobid] = out
        if job.flags.get("has_kernel"):
            style = self.kernel_style(job)
            for nd in job.nodes:
                files["kernel/%s.log" % nd.host] = R.kernel_log(job, nd.idx, style, job.t0, job.t0 + 3600)
        files["sacct.txt"] = sacct(job)
        return files

    def batch_header(self, job):
        rng = job.rng
        nl = R.hostlist([nd.host for nd in job.nodes])
        loc = rng.choice(["C", "de", "C", "fr", "C"])
        t = job.t0 + 1
        if loc == "de":
            d = fmt(t, "ctime", job.tz)
            day = {"Mon": "Mo", "Tue": "Di", "Wed": "Mi", "Thu": "Do", "Fri": "Fr", "Sat": "Sa", "Sun": "So"}[d[:3]]
            mon = {"Jan": "Jan", "Feb": "Feb", "Mar": "Mär", "Apr": "Apr", "May": "Mai", "Jun": "Jun", "Jul": "Jul", "Aug": "Aug", "Sep": "Sep", "Oct": "Okt", "Nov": "Nov", "Dec": "Dez"}[d[4:7]]
            date = "%s %d. %s %s CET %s" % (day, int(d[8:10]), mon, d[11:19], d[20:])
        elif loc == "fr":
            d = fmt(t, "ctime", job.tz)
            day = {"Mon": "lun.", "Tue": "mar.", "Wed": "mer.", "Thu": "jeu.", "Fri": "ven.", "Sat": "sam.", "Sun": "dim."}[d[:3]]
            mon = {"Jan": "janv.", "Feb": "févr.", "Mar": "mars", "Apr": "avril", "May": "mai", "Jun": "juin", "Jul": "juil.", "Aug": "août", "Sep": "sept.", "Oct": "oct.", "Nov": "nov.", "Dec": "déc."}[d[4:7]]
            date = "%s %d %s %s %s CET" % (day, int(d[8:10]), mon, d[20:], d[11:19])
        else:
            date = fmt(t, "ctime", job.tz)[:20] + "UTC " + fmt(t, "ctime", job.tz)[20:]
        env = ["+ date", date, "SLURM_JOB_ID=%d" % job.jobid, "SLURM_JOB_NODELIST=%s" % nl, "SLURM_NNODES=%d" % len(job.nodes),
               "SLURM_NTASKS=%d" % job.world, "MASTER_ADDR=%s MASTER_PORT=29500" % job.nodes[0].host]
        if job.nccl_debug:
            env.append("NCCL_DEBUG=INFO")
        if job.flags.get("tdd"):
            env.append("TORCH_DISTRIBUTED_DEBUG=%s" % job.flags["tdd"])
        env.append("+ srun -l %s--ntasks-per-node=%d --gpus-per-node=%d --cpu-bind=none python -u %s --config configs/%s.yaml"
                   % ("--kill-on-bad-exit=1 " if job.flags.get("kill_on_bad_exit") else "", job.gpn, job.gpn, job.script, job.jobname))
        return "\n".join(env) + "\n"


def sacct(job):
    rng = job.rng
    codes = [c for (t, c) in job.end.values()]
    term = job.term
    t_end = max([t for (t, c) in job.end.values()] or [job.t0 + 60])
    el = dur_hms(t_end - job.t0)
    if job.flags.get("still_running"):
        st, ec, el = "RUNNING", "0:0", dur_hms(t_end - job.t0)
    elif term and term["kind"] == "timelimit":
        st, ec = "TIMEOUT", "0:0"
    elif term and term["kind"] == "preempt":
        st, ec = "PREEMPTED", "0:15"
    elif term and term["kind"] == "scancel":
        st, ec = "CANCELLED by %d" % rng.choice([1000, 51234, 20417]), "0:15"
    elif job.flags.get("slurm_oom"):
        st, ec = "OUT_OF_MEMORY", "0:125"
    elif all(c == 0 for c in codes):
        st, ec = "COMPLETED", "0:0"
    else:
        st, ec = "FAILED", "1:0"
    nl = R.hostlist([nd.host for nd in job.nodes])

    def tr(x, w):
        x = str(x)
        return x if len(x) <= w else x[:w - 1] + "+"
    hdr = "       JobID    JobName  Partition      State ExitCode    Elapsed        NodeList \n------------ ---------- ---------- ---------- -------- ---------- --------------- \n"
    step_state = "OUT_OF_MEMORY" if job.flags.get("slurm_oom") else ("CANCELLED" if term else ("COMPLETED" if st == "COMPLETED" else ("RUNNING" if st == "RUNNING" else "FAILED")))
    rows = []
    for jid, name, part, state, nodes in [(job.jobid, job.jobname, "gpu", st, nl), ("%d.batch" % job.jobid, "batch", "", "CANCELLED" if term else ("COMPLETED" if st == "COMPLETED" else st if st == "RUNNING" else "FAILED"), job.nodes[0].host),
                                          ("%d.0" % job.jobid, "python" if job.launcher == "srun" else "torchrun", "", step_state, nl)]:
        rows.append("%12s %10s %10s %10s %8s %10s %15s " % (tr(jid, 12), tr(name, 10), tr(part, 10), tr(state, 10), ec, el, tr(nodes, 15)))
    return hdr + "\n".join(rows) + "\n"


# ==========================================================================
# Slurm: --output=%x-%j-%t.out, one file per task
# ==========================================================================
class SlurmPerTask(SlurmSrunLabel):
    name = "slurm-pertask"

    def build(self, job, cause):
        SlurmSrunLabel.build(self, job, cause)
        rng = job.rng
        if len(job.nodes) < 4 and rng.random() < 0.5:
            pass
        job.flags["gz_old"] = rng.random() < 0.3

    def render(self, job, truth):
        rng = job.rng
        R.finalize_open_ranks(job, job.flags.get("open_end", "scancel"))
        files = {}
        pad = rng.choice([0, 3])
        for rk in job.ranks:
            until = R.alive_until(job, rk.r)
            txt = R.stream_text(R.rank_items(job, rk.r, until=until))
            e = job.end.get(rk.r)
            if e and e[1] in (-9,) and rng.random() < 0.6:
                txt = R.truncate_tail(job, txt)
            name = "logs/%s-%d-%s.out" % (job.jobname, job.jobid, ("%0*d" % (pad, rk.r)) if pad else str(rk.r))
            files[name] = txt
        tail = self.slurm_tail(job)
        files["slurm-%d.out" % job.jobid] = self.batch_header(job).replace("srun -l ", "srun --output=logs/%%x-%%j-%%%st.out " % (pad or "")) + "\n".join(x[1] for x in tail) + "\n"
        if job.flags.get("has_kernel"):
            style = rng.choice(["dmesgT", "dmesg_level", "syslog"])
            for nd in job.nodes:
                files["dmesg/%s.txt" % nd.host] = R.kernel_log(job, nd.idx, style, job.t0, job.t0 + 3600)
        if job.flags.get("gz_old"):
            for k in list(files):
                if k.startswith("logs/"):
                    files[k + ".gz"] = ("GZ", files.pop(k))
        files["sacct.txt"] = sacct(job)
        return files


# ==========================================================================
# Slurm + torchrun per node, merged output, optional sbatch array
# ==========================================================================
class SlurmTorchrun(SlurmSrunLabel):
    name = "slurm-torchrun"

    def build(self, job, cause):
        rng = job.rng
        n = rng.choice([2, 2, 4, 4, 8, 16, 32, 64]) if cause not in ("straggler",) else rng.choice([2, 4, 8, 16])
        scheme = rng.choice(["gpu", "nid", "fqdn", "dgx", "aws"])
        gpn = 4 if scheme == "nid" else 8
        board = "a100x4" if gpn == 4 else rng.choice(["h100x8", "a100x8"])
        hosts, aliases, ips = _host_scheme(rng, n, scheme)
        R.setup_cluster(job, hosts, gpn, board, ips)
        for nd, al in zip(job.nodes, aliases):
            nd.aliases = al
            nd.fqdn = al[0] if (scheme in ("fqdn", "aws") and rng.random() < 0.6) else nd.host
        R.set_skews(job, big_one=rng.random() < 0.25)
        R.pick_versions(job, lo=201)
        job.launcher = "torchrun"
        _common_flags(job, ["ddp", "fsdp", "megatron", "hf", "ddp", "nemo"])
        job.flags["has_kernel"] = rng.random() < 0.7 or cause in FORCE_KERNEL
        job.flags["label"] = rng.random() < 0.5
        job.flags["array"] = rng.random() < 0.35
        job.flags["kill_on_bad_exit"] = rng.random() < 0.4
        job.flags["loglevel_info"] = rng.random() < 0.4
        job.flags["time_limit"] = rng.choice([6, 12, 24, 48]) * 3600
        job.flags["open_end"] = rng.choice(["scancel", "timelimit"])
        job.fabric = "socket" if scheme == "nid" else ("efa" if scheme == "aws" else rng.choice(["ib", "roce"]))
        if job.fabric == "efa" and cause == "network":
            job.fabric = "ib"
        if scheme == "nid":
            job.flags["oob_if"] = "hsn0"
        for nd in job.nodes:
            if job.fabric in ("ib", "roce") and rng.random() < 0.5:
                nd.ib_ip = "192.168.%d.%d" % (rng.randint(100, 130), rng.randint(2, 250))
                nd.aliases = nd.aliases + [nd.ib_ip]
        job.jobid = rng.randint(1000000, 48000000)
        job.flags["array_idx"] = rng.randint(0, 31)

    def policy(self, job):
        return Policy(agent_per_node=True, kill_all=False)

    def render(self, job, truth):
        rng = job.rng
        R.finalize_open_ranks(job, job.flags.get("open_end", "scancel"))
        files = {}
        lines = []
        for nd in job.nodes:
            R.agent_start(job, nd.idx, job.t0 + rng.uniform(1, 5), loglevel_info=job.flags.get("loglevel_info"))
        agent_exit = {}
        for nd in job.nodes:
            if job.term and job.term["kind"] in ("preempt", "timelimit", "scancel"):
                job.nodeev[nd.idx]["sigterm"] = job.term["t"]
            te = R.agent_teardown(job, nd.idx)
            agent_exit[nd.idx] = te
        for rk in job.ranks:
            until = R.alive_until(job, rk.r)
            for it in R.rank_items(job, rk.r, until=until):
                pfx = ("%d: " % rk.node) if job.flags.get("label") else ""
                if len(it) > 4:
                    lines.append((it[0], it[1], pfx + it[3].replace("\r", "\r")))
                else:
                    lines.append((it[0], it[1], pfx + it[3]))
        for nidx, lst in job.agent_lines.items():
            for it in lst:
                pfx = ("%d: " % nidx) if job.flags.get("label") else ""
                lines.append((it[0], it[1], pfx + it[3]))
        tail = self.srun_tail(job, agent_exit)
        for t, txt in tail:
            lines.append((t, 10 ** 9, txt))
        lines.sort(key=lambda x: (x[0], x[1]))
        hdr = self.header(job)
        name = ("%s_%d_%d.out" % (job.jobname, job.jobid, job.flags["array_idx"])) if job.flags.get("array") else ("%s-%d.out" % (job.jobname, job.jobid))
        files["logs/" + name] = hdr + "\n".join(x[2] for x in lines) + "\n"
        if job.flags.get("has_kernel"):
            style = rng.choice(["journal", "journal_short", "syslog"])
            for nd in job.nodes:
                files["syslog/%s.log" % nd.host] = R.kernel_log(job, nd.idx, style, job.t0, job.t0 + 3600, boot_noise=len(job.nodes) <= 16)
        files["sacct.txt"] = sacct(job)
        return files

    def srun_tail(self, job, agent_exit):
        rng = job.rng
        out = []
        term = job.term
        if term:
            what = {"preempt": " DUE TO PREEMPTION", "timelimit": " DUE TO TIME LIMIT", "scancel": ""}.get(term["kind"], "")
            tt = term["t"]
            out.append((tt - 0.01, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s%s ***" % (job.jobid, job.nodes[0].host, fmt(tt + job.nodes[0].skew, "slurm", job.tz), what)))
            out.append((tt, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            for nd in job.nodes[:3]:
                out.append((tt + 0.001, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s%s ***" % (job.jobid, nd.host, fmt(tt + nd.skew, "slurm", job.tz), what)))
        first = None
        for nidx in sorted(agent_exit, key=lambda k: (agent_exit[k][0] or 1e18)):
            te, code = agent_exit[nidx]
            if te is None or code == 0:
                continue
            out.append((te + 0.5, "srun: error: %s: task %d: Exited with exit code %d" % (job.nodes[nidx].host, nidx, code)))
            if first is None:
                first = te
        if first is not None and job.flags.get("kill_on_bad_exit") and not term:
            out.append((first + 0.6, "srun: Terminating StepId=%d.0" % job.jobid))
        return out

    def header(self, job):
        nl = R.hostlist([nd.host for nd in job.nodes])
        h = ["Job %d%s started on %s" % (job.jobid, (" array task %d" % job.flags["array_idx"]) if job.flags.get("array") else "", fmt(job.t0, "ctime", job.tz)),
             "Nodes: %s" % nl, "head node: %s" % job.nodes[0].host]
        if job.nccl_debug:
            h.append("NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET")
        h.append("srun %s--ntasks-per-node=1 torchrun --nnodes=%d --nproc-per-node=%d --rdzv-id=%d --rdzv-backend=c10d --rdzv-endpoint=%s:29500 %s --config %s.yaml"
                 % ("-l " if job.flags.get("label") else "", len(job.nodes), job.gpn, job.jobid, job.nodes[0].host, job.script, job.jobname))
        return "\n".join(h) + "\n"


# ==========================================================================
# torchrun --tee 3 --log-dir: per-node folders with attempt_N/<local_rank>/
# ==========================================================================
class TorchrunTeeDir(Layout):
    name = "torchrun-teedir"

    def build(self, job, cause):
        rng = job.rng
        n = rng.choice([1, 1, 2, 2, 4])
        if cause == "network" and n == 1:
            n = 2
        scheme = rng.choice(["fqdn", "dgx", "gpu"])
        gpn = rng.choice([2, 4, 8, 8])
        board = {2: "l40sx2", 4: "h100x4", 8: "h100x8"}[gpn] if rng.random() < 0.6 else {2: "l40sx2", 4: "a100x4", 8: "a100x8"}[gpn]
        hosts, aliases, ips = _host_scheme(rng, n, scheme)
        R.setup_cluster(job, hosts, gpn, board, ips)
        for nd, al in zip(job.nodes, aliases):
            nd.aliases = al
            nd.fqdn = al[0] if scheme == "fqdn" else nd.host
        R.set_skews(job)
        R.pick_versions(job, lo=202)
        job.launcher = "torchrun"
        _common_flags(job, ["ddp", "fsdp", "hf", "lightning", "ddp"])
        job.flags["has_kernel"] = rng.random() < 0.7 or cause in FORCE_KERNEL
        job.flags["rdzv_id"] = rng.choice(["none", "exp%d" % rng.randint(10, 999), "job-%s" % hexid(rng, 6)])
        job.flags["open_end"] = rng.choice(["running", "scancel"])
        job.flags["preempt_kinds"] = ["preempt"]
        job.flags["record"] = rng.random() < 0.6
        job.fabric = rng.choice(["ib", "roce", "socket"])
        if cause is None and n == 1 and rng.random() < 0.6:
            job.flags["healthy_variant"] = "restart"

    def policy(self, job):
        return Policy(agent_per_node=True)

    def _restart_attempt(self, job, files, rid):
        """Healthy run whose attempt_0 died in NCCL init (transient), torchrun
        restarted the worker group and attempt_1 ran to completion."""
        rng = job.rng
        nd = job.nodes[0]
        t_fail = job.flags.get("t_nccl_init", job.t0 + 60) + rng.uniform(1, 5)
        delta = t_fail + rng.uniform(8, 20) - job.t0
        c = rng.randrange(job.gpn)
        L = T.elines(job)
        console = []
        for rk in job.ranks:
            items = R.rank_items(job, rk.r)
            a0 = [x for x in items if x[0] < t_fail]
            a1 = [(x[0] + delta,) + tuple(x[1:]) for x in items]
            if rk.local == c:
                sc = "/workspace/" + job.script
                tb = T.py_traceback(job, [(sc, 618, "<module>", "main(cfg)"), (sc, 540, "main", "local_rank = setup_distributed(cfg)"),
                                          (sc, 96, "setup_distributed", "dist.barrier(device_ids=[local_rank])"),
                                                                   (job.site + "/torch/distributed/c10d_logger.py", 83, "wrapper", "return func(*args, **kwargs)"),
                                                                   (job.site + "/torch/distributed/distributed_c10d.py", 4159, "barrier", "work = group.barrier(opts=opts)")],
                                    "torch.distributed.DistBackendError: NCCL error in: %s/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s\n"
                                    "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \nLast error:\n"
                                    "socketStartConnect: Connect to 127.0.0.1<%d> failed : Software caused connection abort" % (T.torch_src_prefix(job), 1970 if job.tv() >= 204 else 1691, job.nccl, rng.randint(33000, 60000)))
                tbl = [(t_fail, 0, "err", (job.pyline_prefix(rk.r) + ln)) for ln in tb.split("\n")]
                a0 = a0 + tbl
            for st in ("stdout", "stderr"):
                files["%s/logs/%s/attempt_0/%d/%s.log" % (nd.host, rid, rk.local, st)] = R.stream_text([x for x in a0 if x[2] == st[3:]])
                files["%s/logs/%s/attempt_1/%d/%s.log" % (nd.host, rid, rk.local, st)] = R.stream_text([x for x in a1 if x[2] == st[3:]])
            for x in a0 + a1:
                console.append((x[0], x[1], "[default%d]:%s" % (rk.local, x[3])))
        ag = []
        ta = t_fail + rng.uniform(0.1, 2)
        for rk in job.ranks:
            if rk.local != c:
                ag.append((ta, "W", "distributed.elastic.multiprocessing.api", L["sigterm"], "Sending process %d closing signal SIGTERM" % rk.pid))
        ag.append((ta + 0.3, "E", "distributed.elastic.multiprocessing.api", L["failed"], "failed (exitcode: 1) local_rank: %d (pid: %d) of binary: %s"
                   % (c, job.ranks[c].pid, job.flags.get("pybin", "/usr/bin/python3"))))
        if job.flags.get("ti_info"):
            ag.append((ta + 0.4, "I", "distributed.elastic.agent.server.api", 869 if job.tv() >= 204 else 851, "[default] Worker group FAILED. 3/3 attempts left; will restart worker group"))
        for (t, lv, mod, ln, msg) in ag:
            job.agent_log(0, t, lv, mod, ln, msg)
        if job.flags.get("ti_info"):
            job.agent_restart = 1
            R.agent_start(job, 0, ta + 1.0, loglevel_info=True, omp=False)
        for it in job.agent_lines.get(0, []):
            console.append((it[0], it[1], it[3]))
        console.sort(key=lambda x: (x[0], x[1]))
        files["%s/torchrun.out" % nd.host] = ("$ torchrun --standalone --nproc-per-node=%d --max-restarts=3 --tee 3 --log-dir logs %s\n" % (job.gpn, job.script)
                                             + "\n".join(x[2] for x in console) + "\n")
        if job.flags.get("has_kernel"):
            files["%s/dmesg.txt" % nd.host] = R.kernel_log(job, 0, rng.choice(["dmesgT", "dmesg"]), job.t0, job.t0 + 3600)
        return files

    def render(self, job, truth):
        rng = job.rng
        R.finalize_open_ranks(job, job.flags.get("open_end", "running"))
        files = {}
        rid = "%s_%s" % (job.flags["rdzv_id"], rname(rng, 8, "abcdefghijklmnopqrstuvwxyz0123456789_"))
        if job.flags.get("healthy_variant") == "restart" and truth["cause"] is None and len(job.nodes) == 1:
            job.flags["ti_info"] = rng.random() < 0.5
            R.agent_start(job, 0, job.t0 + rng.uniform(1, 4), loglevel_info=job.flags["ti_info"])
            return self._restart_attempt(job, files, rid)
        for nd in job.nodes:
            R.agent_start(job, nd.idx, job.t0 + rng.uniform(1, 4), loglevel_info=rng.random() < 0.5)
            if job.term:
                job.nodeev[nd.idx]["sigterm"] = job.term["t"]
            R.agent_teardown(job, nd.idx)
            base = "%s/" % nd.host
            console = []
            for rk in job.ranks_on(nd.idx):
                until = R.alive_until(job, rk.r)
                items = R.rank_items(job, rk.r, until=until)
                for st in ("stdout", "stderr"):
                    sel = [x for x in items if x[2] == st[3:]]
                    files["%slogs/%s/attempt_0/%d/%s.log" % (base, rid, rk.local, st)] = R.stream_text(sel)
                if rk.r in job.errtb and job.flags.get("record"):
                    e = job.end.get(rk.r, (job.t0, 1))
                    files["%slogs/%s/attempt_0/%d/error.json" % (base, rid, rk.local)] = json.dumps({"message": {"message": job.errtext.get(rk.r, ""), "extraInfo": {
                        "py_callstack": job.errtb[rk.r], "timestamp": str(int(e[0]))}}}, indent=None)
                for it in items:
                    console.append((it[0], it[1], "[default%d]:%s" % (rk.local, it[3]) if len(it) <= 4 else "[default%d]:%s" % (rk.local, it[3].replace("\r", "\r"))))
            for it in job.agent_lines.get(nd.idx, []):
                console.append((it[0], it[1], it[3]))
            console.sort(key=lambda x: (x[0], x[1]))
            cmd = ("$ torchrun --nnodes=%d --node-rank=%d --nproc-per-node=%d --rdzv-id=%s --rdzv-backend=c10d --rdzv-endpoint=%s:29400 --tee 3 --log-dir logs %s"
                   % (len(job.nodes), nd.idx, job.gpn, job.flags["rdzv_id"], job.nodes[0].host, job.script)) if len(job.nodes) > 1 else \
                  "$ torchrun --standalone --nproc-per-node=%d --tee 3 --log-dir logs %s" % (job.gpn, job.script)
            files["%storchrun.out" % base] = cmd + "\n" + "\n".join(x[2] for x in console) + "\n"
            if job.flags.get("has_kernel"):
                files["%sdmesg.txt" % base] = R.kernel_log(job, nd.idx, rng.choice(["dmesgT", "dmesg"]), job.t0, job.t0 + 3600)
        return files


# ==========================================================================
# single node accelerate / torchrun with rotated + gz logs
# ==========================================================================
class AccelerateLocal(Layout):
    name = "accelerate-local"
    causes = [c for c in ALL_CAUSES if c != "network"]

    def build(self, job, cause):
        rng = job.rng
        scheme = rng.choice(["fqdn", "dgx", "gpu"])
        gpn = rng.choice([2, 4, 8, 8])
        board = {2: "l40sx2", 4: "a10gx4", 8: "h100x8"}[gpn]
        if cause == "nvlink" and board in ("l40sx2", "a10gx4"):
            board, gpn = "h100x8", 8
        hosts, aliases, ips = _host_scheme(rng, 1, scheme)
        R.setup_cluster(job, hosts, gpn, board, ips)
        job.nodes[0].aliases = aliases[0]
        job.nodes[0].fqdn = aliases[0][0] if scheme == "fqdn" else hosts[0]
        R.pick_versions(job, lo=202)
        job.launcher = "torchrun"
        _common_flags(job, ["hf", "hf", "ddp", "fsdp"])
        job.flags["has_kernel"] = rng.random() < 0.75 or cause in FORCE_KERNEL
        job.flags["open_end"] = "running"
        job.flags["preempt_kinds"] = ["evict"]
        job.fabric = "socket"
        job.userfmt = rng.choice(["loguru", "std", "bracket"])
        job.verbosity = 1.0

    def policy(self, job):
        return Policy(agent_per_node=True)

    def render(self, job, truth):
        rng = job.rng
        R.finalize_open_ranks(job, "running")
        files = {}
        R.agent_start(job, 0, job.t0 + 2)
        if job.term:
            job.nodeev[0]["sigterm"] = job.term["t"]
        R.agent_teardown(job, 0)
        lines = []
        for rk in job.ranks:
            until = R.alive_until(job, rk.r)
            for it in R.rank_items(job, rk.r, until=until):
                lines.append(it)
        for it in job.agent_lines.get(0, []):
            lines.append(it)
        lines = R.sorted_items(lines)
        hdr = ("The following values were not passed to `accelerate launch` and had defaults used instead:\n\t`--num_machines` was set to a value of `1`\n"
               "\t`--mixed_precision` was set to a value of `'no'`\n\t`--dynamo_backend` was set to a value of `'no'`\n"
               "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`.\n")
        loc = rng.choice(["de", "C", "C"])
        if loc == "de":
            pre = ("+ free -h\n               gesamt       benutzt     frei      gemns.  Puffer/Cache verfügbar\nSpeicher:      2,0Ti        41Gi       1,8Ti       1,2Gi       142Gi       1,9Ti\n"
                   "Auslagerung:       0B          0B          0B\n+ df -h /scratch\nDateisystem     Größe Benutzt Verf. Verw% Eingehängt auf\n/dev/md0          28T     19T  8,9T   68% /scratch\n")
        else:
            pre = ("+ free -h\n               total        used        free      shared  buff/cache   available\nMem:           2.0Ti        41Gi       1.8Ti       1.2Gi       142Gi       1.9Ti\n"
                   "Swap:             0B          0B          0B\n")
        full = pre + "+ accelerate launch --multi_gpu --num_processes %d %s\n" % (job.gpn, job.script) + hdr + R.stream_text(lines)
        # rotate: the wrapper rotates nohup output at ~64 KiB
        chunks = []
        lim = rng.choice([6000, 12000, 24000])
        txt = full
        while len(txt) > lim and len(chunks) < 3:
            cut = txt.rfind("\n", 0, len(txt) - lim)
            if cut <= 0:
                break
            chunks.insert(0, txt[:cut + 1])
            txt = txt[cut + 1:]
        files["train.log"] = txt
        if chunks:
            # chunks[-1] is the most recent rotated piece
            for i, c in enumerate(reversed(chunks)):
                if i == 0:
                    files["train.log.1"] = c
                else:
                    files["train.log.%d.gz" % (i + 1)] = ("GZ", c)
        if job.flags.get("has_kernel"):
            k = R.kernel_log(job, 0, "syslog", job.t0, job.t0 + 3600)
            files["var-log/kern.log"] = k
        return files


# ==========================================================================
# PBS Pro + Cray PALS mpiexec (Polaris-like)
# ==========================================================================
class PbsPals(Layout):
    name = "pbs-pals"

    def build(self, job, cause):
        rng = job.rng
        n = rng.choice([2, 4, 4, 8, 16, 32])
        hosts = []
        rack = rng.randint(3001, 3210)
        for i in range(n):
            hosts.append("x%dc0s%db%dn0" % (rack + i // 32, (i // 2) % 16 + rng.choice([0, 1]) * 0, i % 2))
        hosts = _uniq(hosts)
        while len(hosts) < n:
            hosts.append("x%dc0s%db0n0" % (rack + 7, len(hosts)))
        R.setup_cluster(job, hosts, 4, "a100x4")
        for nd in job.nodes:
            nd.fqdn = nd.host + ".hsn.cm.polaris.alcf.anl.gov"
            nd.aliases = [nd.fqdn, nd.ip]
        R.set_skews(job)
        R.pick_versions(job, lo=201, hi=205)
        job.launcher = "mpi"
        _common_flags(job, ["ddp", "fsdp", "megatron", "deepspeed"])
        job.flags["has_kernel"] = rng.random() < 0.6 or cause in FORCE_KERNEL
        job.flags["preempt_kinds"] = ["walltime"]
        job.flags["open_end"] = "walltime"
        job.flags["walltime"] = rng.choice([1, 3, 6]) * 3600
        job.fabric = "socket"
        job.flags["oob_if"] = "hsn0"
        job.userfmt = rng.choice(["bracket", "json", "epoch"])
        job.flags["banner"] = "host"
        job.jobid = rng.randint(1000000, 3999999)

    def policy(self, job):
        return Policy(agent_per_node=False, kill_all=True, kill_delay=(0.5, 4.0), kill_code=-15)

    def render(self, job, truth):
        rng = job.rng
        if job.term and job.term["kind"] == "walltime":
            pass
        R.finalize_open_ranks(job, "walltime")
        files = {}
        lines = []
        for rk in job.ranks:
            for it in R.rank_items(job, rk.r, until=R.alive_until(job, rk.r)):
                lines.append(it)
        lines = R.sorted_items(lines)
        body = [(x[0], x[1], x[3]) for x in lines]
        # PALS exit reports
        for r, (t, code) in sorted(job.end.items()):
            if code == 0:
                continue
            h = job.nodes[job.ranks[r].node].fqdn
            if code > 0:
                body.append((t + 0.2, 10 ** 9, "%s: rank %d exited with code %d" % (h, r, code)))
            else:
                body.append((t + 0.2, 10 ** 9, "%s: rank %d died from signal %d%s" % (h, r, -code, " and dumped core" if code in (-6, -11, -7) else "")))
        body.sort(key=lambda x: (x[0], x[1]))
        hdr = ("Job ID: %d.polaris-pbs-01.hsn.cm.polaris.alcf.anl.gov\nNUM_OF_NODES= %d TOTAL_NUM_RANKS= %d RANKS_PER_NODE= 4 THREADS_PER_RANK= 16\n"
               "+ mpiexec -n %d --ppn 4 --depth=16 --cpu-bind depth --env OMP_NUM_THREADS=16 ./set_affinity_gpu_polaris.sh python %s\n"
               % (job.jobid, len(job.nodes), job.world, job.world, job.script))
        txt = hdr + "\n".join(x[2] for x in body) + "\n"
        if job.term and job.term["kind"] == "walltime":
            lim = job.flags["walltime"]
            txt += "=>> PBS: job killed: walltime %d exceeded limit %d\n" % (lim + rng.randint(5, 40), lim)
        files["%s.o%d" % (job.jobname, job.jobid)] = txt
        if job.flags.get("has_kernel"):
            for nd in job.nodes:
                files["console/%s.log" % nd.host] = R.kernel_log(job, nd.idx, "dmesg", job.t0, job.t0 + 3600)
        files["qstat-xf.txt"] = ("Job Id: %d.polaris-pbs-01.hsn.cm.polaris.alcf.anl.gov\n    Job_Name = %s\n    job_state = F\n    queue = prod\n"
                                 "    exec_host = %s\n    Exit_status = %d\n    resources_used.walltime = %s\n"
                                 % (job.jobid, job.jobname, "+".join("%s/0*64" % nd.host for nd in job.nodes[:8]) + ("+..." if len(job.nodes) > 8 else ""),
                                    271 if (job.term and job.term["kind"] == "walltime") else (0 if all(c == 0 for (t, c) in job.end.values()) else 1),
                                    dur_hms(max(t for (t, c) in job.end.values()) - job.t0)))
        return files

    def node_truth(self, job, nidx):
        nd = job.nodes[nidx]
        return nd.host, _uniq([nd.fqdn, nd.ip])


def _apply_preempt_term(job):
    pass


# ==========================================================================
# LSF (Summit-like, jsrun, V100 x6)
# ==========================================================================
class LsfJsrun(Layout):
    name = "lsf-jsrun"

    def build(self, job, cause):
        rng = job.rng
        n = rng.choice([2, 4, 8, 16])
        hosts = []
        for i in range(n):
            hosts.append("%s%dn%02d" % (rng.choice(["a", "b", "c", "d", "e", "f", "g", "h"]), rng.randint(10, 50), rng.randint(1, 18)))
        hosts = _uniq(hosts)
        while len(hosts) < n:
            hosts.append("h%dn%02d" % (rng.randint(10, 50), rng.randint(1, 18)))
            hosts = _uniq(hosts)
        R.setup_cluster(job, hosts, 6, "v100x6")
        for nd in job.nodes:
            nd.aliases = [nd.ip]
        R.set_skews(job)
        R.pick_versions(job, lo=200, hi=202)
        job.launcher = "mpi"
        _common_flags(job, ["ddp", "deepspeed", "megatron"])
        job.flags["has_kernel"] = rng.random() < 0.5 or cause in FORCE_KERNEL
        job.flags["preempt_kinds"] = ["runlimit"]
        job.fabric = "ib"
        job.flags["oob_if"] = "ib0"
        job.site = "/gpfs/alpine/proj-shared/%s/envs/torch/lib/python3.9/site-packages" % rng.choice(["csc499", "gen150", "stf218"])
        job.userfmt = rng.choice(["std", "bracket", "epoch"])
        job.flags["banner"] = "host"
        job.jobid = rng.randint(2000000, 3999999)
        job.flags["open_end"] = "runlimit"
        job.flags["wall"] = rng.choice([2, 6, 12]) * 3600

    def policy(self, job):
        return Policy(agent_per_node=False, kill_all=True, kill_delay=(1.0, 6.0), kill_code=-9)

    def render(self, job, truth):
        rng = job.rng
        if job.term is None and any(rk.r not in job.end for rk in job.ranks) and job.flags.get("open_end") != "running":
            job.term = dict(t=max([job.t0 + job.flags["wall"]] + [e[0] + 60 for e in job.end.values()]), kind="runlimit")
        R.finalize_open_ranks(job, "runlimit")
        files = {}
        lines = []
        for rk in job.ranks:
            for it in R.rank_items(job, rk.r, until=R.alive_until(job, rk.r)):
                lines.append(it)
        out = R.stream_text(R.sorted_items(lines))
        # (a run whose ranks were all still running when the logs end, a straggler: the last line's time)
        t_end = max((t for (t, c) in job.end.values()), default=max((it[0] for it in lines), default=job.t0))
        status = "Done" if all(c == 0 for (t, c) in job.end.values()) else "Exited"
        hdr = ["Sender: LSF System <lsfadmin@batch%d>" % rng.randint(1, 5),
               "Subject: Job %d: <%s> in cluster <summit> %s" % (job.jobid, job.jobname, status), "",
               "Job <%s> was submitted from host <login%d> by user <%s> in cluster <summit> at %s" % (job.jobname, rng.randint(1, 5), rng.choice(["jdoe", "mli", "xwang"]), fmt(job.t0 - 3600, "ctime", job.tz)),
               "Job was executed on host(s) <1*batch%d>, in queue <batch>, as user <jdoe> in cluster <summit> at %s" % (rng.randint(1, 5), fmt(job.t0, "ctime", job.tz))]
        for nd in job.nodes:
            hdr.append("                            <42*%s>" % nd.host)
        hdr += ["</ccs/home/jdoe> was used as the home directory.", "</gpfs/alpine/scratch/jdoe/%s> was used as the working directory." % job.jobname,
                "Started at %s" % fmt(job.t0, "ctime", job.tz), "Terminated at %s" % fmt(t_end, "ctime", job.tz), "Results reported at %s" % fmt(t_end + 2, "ctime", job.tz), "",
                "Your job looked like:", "", "-" * 60, "# LSBATCH: User input", "#!/bin/bash", "#BSUB -P %s" % job.site.split("/")[4].upper(), "#BSUB -W %d:00" % (job.flags["wall"] // 3600),
                "#BSUB -nnodes %d" % len(job.nodes), "#BSUB -J %s" % job.jobname, "jsrun -n%d -a6 -c42 -g6 -r1 --bind=proportional-packed:7 --launch_distribution=packed python -u %s" % (len(job.nodes), job.script),
                "", "-" * 60, ""]
        if job.term and job.term["kind"] == "runlimit":
            hdr += ["TERM_RUNLIMIT: job killed after reaching LSF run time limit.", "Exited with exit code 140.", ""]
        elif status == "Exited":
            hdr += ["Exited with exit code 1.", ""]
        else:
            hdr += ["Successfully completed.", ""]
        hdr += ["Resource usage summary:", "", "    CPU time :                                   %.2f sec." % rng.uniform(10, 900),
                "    Max Memory :                                 %d MB" % rng.randint(80, 400), "    Average Memory :                             %.2f MB" % rng.uniform(60, 300),
                "    Total Requested Memory :                     -", "    Delta Memory :                               -", "    Max Swap :                                   -",
                "    Max Processes :                              4", "    Max Threads :                                27", "    Run time :                                   %d sec." % int(t_end - job.t0),
                "    Turnaround time :                            %d sec." % int(t_end - job.t0 + 3600), "", "The output (if any) follows:", ""]
        files["%s.%d" % (job.jobname, job.jobid)] = "\n".join(hdr) + "\n" + out
        if job.flags.get("has_kernel"):
            for nd in job.nodes:
                files["nodes/%s/messages" % nd.host] = R.kernel_log(job, nd.idx, "journal_short", job.t0, job.t0 + 3600)
        return files


# ==========================================================================
# Open MPI mpirun --tag-output [--timestamp-output]
# ==========================================================================
class OpenMpiTagged(Layout):
    name = "openmpi-tagged"

    def build(self, job, cause):
        rng = job.rng
        n = rng.choice([2, 2, 4, 8])
        scheme = rng.choice(["gpu", "fqdn", "dgx"])
        hosts, aliases, ips = _host_scheme(rng, n, scheme)
        R.setup_cluster(job, hosts, 8, rng.choice(["a100x8", "h100x8"]), ips)
        for nd, al in zip(job.nodes, aliases):
            nd.aliases = al
        R.set_skews(job)
        R.pick_versions(job, lo=201)
        job.launcher = "mpi"
        _common_flags(job, ["ddp", "fsdp", "deepspeed", "megatron"])
        job.flags["has_kernel"] = rng.random() < 0.7 or cause in FORCE_KERNEL
        job.flags["timestamp"] = rng.random() < 0.5
        job.flags["open_end"] = "scancel"
        job.flags["preempt_kinds"] = ["evict"]
        job.fabric = rng.choice(["ib", "roce"])

    def policy(self, job):
        return Policy(agent_per_node=False, kill_all=True, kill_delay=(0.3, 3.0), kill_code=-15)

    def render(self, job, truth):
        rng = job.rng
        R.finalize_open_ranks(job, "scancel")
        files = {}
        out = []
        for rk in job.ranks:
            for it in R.rank_items(job, rk.r, until=R.alive_until(job, rk.r)):
                tag = "[1,%d]<%s>:" % (rk.r, "stdout" if it[2] == "out" else "stderr")
                if job.flags.get("timestamp"):
                    tag = fmt(job.tnode(rk.node, it[0]), "ctime", job.tz) + tag
                text = it[3]
                if len(it) > 4:
                    text = text.replace("\n", "")
                out.append((it[0], it[1], tag + text))
        fails = sorted([(t, r, c) for r, (t, c) in job.end.items() if c != 0 and job.killed_by.get(r) is None])
        if fails:
            t, r, c = fails[0]
            nd = job.nodes[job.ranks[r].node]
            if c > 0:
                msg = ("-" * 74 + "\nPrimary job  terminated normally, but 1 process returned\na non-zero exit code. Per user-direction, the job has been aborted.\n" + "-" * 74 + "\n" +
                       "-" * 74 + "\nmpirun detected that one or more processes exited with non-zero status, thus causing\nthe job to be terminated. The first process to do so was:\n\n"
                       "  Process name: [[%d,1],%d]\n  Exit code:    %d\n" % (rng.randint(10000, 60000), r, c) + "-" * 74)
            else:
                msg = ("-" * 74 + "\nmpirun noticed that process rank %d with PID %d on node %s exited on signal %d (%s).\n" % (
                    r, job.ranks[r].pid, nd.host, -c, {9: "Killed", 11: "Segmentation fault", 6: "Aborted", 7: "Bus error", 15: "Terminated"}.get(-c, "?")) + "-" * 74)
            out.append((t + 1.5, 10 ** 9, msg))
        elif job.term:
            out.append((job.term["t"] + 0.1, 10 ** 9, "mpirun: Forwarding signal 18 to job\nmpirun: abort is already in progress...hit ctrl-c again to forcibly terminate"))
        out.sort(key=lambda x: (x[0], x[1]))
        cmd = ("$ mpirun -np %d --hostfile hostfile.txt --map-by ppr:8:node --bind-to none --tag-output %s-x NCCL_DEBUG%s -x MASTER_ADDR=%s -x MASTER_PORT=29500 python -u %s\n"
               % (job.world, "--timestamp-output " if job.flags.get("timestamp") else "", "=INFO" if job.nccl_debug else "=WARN", job.nodes[0].host, job.script))
        files["mpirun.log"] = cmd + "\n".join(x[2] for x in out) + "\n"
        files["hostfile.txt"] = "".join("%s slots=8\n" % nd.host for nd in job.nodes)
        if job.flags.get("has_kernel"):
            for nd in job.nodes:
                files["dmesg/%s.log" % nd.host] = R.kernel_log(job, nd.idx, "dmesg_level", job.t0, job.t0 + 3600)
        return files


# ==========================================================================
# SageMaker: CloudWatch streams per host, mpirun rank tags
# ==========================================================================
class SageMaker(Layout):
    name = "sagemaker"
    causes = [c for c in ALL_CAUSES if c not in NEEDS_KERNEL]

    def build(self, job, cause):
        rng = job.rng
        n = rng.choice([2, 2, 4, 8])
        hosts = ["algo-%d" % (i + 1) for i in range(n)]
        R.setup_cluster(job, hosts, 8, rng.choice(["a100x8", "h100x8"]))
        for nd in job.nodes:
            nd.ip = "10.%d.%d.%d" % (rng.randint(0, 3), rng.randint(0, 255), rng.randint(2, 250))
            nd.nccl_host = "ip-" + nd.ip.replace(".", "-")
            nd.aliases = [nd.nccl_host, nd.ip]
        R.set_skews(job)
        R.pick_versions(job, lo=201)
        job.launcher = "mpi"
        _common_flags(job, ["ddp", "fsdp", "hf", "deepspeed"])
        job.flags["has_kernel"] = False
        job.flags["preempt_kinds"] = ["maxruntime"]
        job.flags["open_end"] = "maxruntime"
        job.fabric = "efa"
        job.jobname = "%s-%s" % (job.jobname, fmt(job.t0, "plain").replace(" ", "-").replace(":", "-")[:19] + "-%03d" % rng.randint(0, 999))

    def policy(self, job):
        return Policy(agent_per_node=False, kill_all=True, kill_delay=(0.5, 3.0), kill_code=-15)

    def render(self, job, truth):
        rng = job.rng
        R.finalize_open_ranks(job, "maxruntime")
        files = {}
        tk = lambda t: fmt(t, "pylog", 0)
        a1 = []
        hosts = ",".join("%s:8" % nd.host for nd in job.nodes)
        pre = ["%s sagemaker-training-toolkit INFO     Imported framework sagemaker_pytorch_container.training" % tk(job.t0),
               "%s sagemaker-training-toolkit INFO     No Neurons detected (normal if no neurons installed)" % tk(job.t0 + 0.1),
               "%s sagemaker_pytorch_container.training INFO     Block until all host DNS lookups succeed." % tk(job.t0 + 0.2),
               "%s sagemaker_pytorch_container.training INFO     Invoking user training script." % tk(job.t0 + 2),
               "%s sagemaker-training-toolkit INFO     Starting MPI run as worker node." % tk(job.t0 + 3),
               "%s sagemaker-training-toolkit INFO     Waiting for MPI workers to establish their SSH connections" % tk(job.t0 + 3.1)]
        tc = job.t0 + 3.2
        for nd in job.nodes[1:]:
            pre.append("%s sagemaker-training-toolkit INFO     Cannot connect to host %s at port 22. Retrying..." % (tk(tc), nd.host))
            pre.append("%s sagemaker-training-toolkit INFO     Connection closed" % tk(tc + 0.01))
            tc += rng.uniform(1.0, 3.0)
            pre.append("%s sagemaker-training-toolkit INFO     Can connect to host %s at port 22" % (tk(tc), nd.host))
            pre.append("%s sagemaker-training-toolkit INFO     Connection closed" % tk(tc + 0.01))
            pre.append("%s sagemaker-training-toolkit INFO     Worker %s available for communication" % (tk(tc + 0.02), nd.host))
            tc += 0.05
        pre.append("%s sagemaker-training-toolkit INFO     Network interface name: eth0" % tk(tc + 0.1))
        pre.append("%s sagemaker-training-toolkit INFO     Host: [%s]" % (tk(tc + 0.2), ", ".join("'%s'" % nd.host for nd in job.nodes)))
        pre.append("%s sagemaker-training-toolkit INFO     instance type: %s" % (tk(tc + 0.3), "ml.p4d.24xlarge" if job.board == "a100x8" else "ml.p5.48xlarge"))
        cmd = ("mpirun --host %s -np %d --allow-run-as-root --display-map --tag-output -mca btl_tcp_if_include eth0 -mca oob_tcp_if_include eth0 -mca plm_rsh_no_tree_spawn 1 "
               "-bind-to none -map-by slot -mca pml ob1 -mca btl ^openib -mca orte_abort_on_non_zero_status 1 -mca btl_vader_single_copy_mechanism none "
               "-x NCCL_MIN_NRINGS=4 -x NCCL_SOCKET_IFNAME=eth0 -x NCCL_DEBUG=%s -x LD_LIBRARY_PATH -x PATH -x LD_PRELOAD=/opt/conda/lib/python3.10/site-packages/gethostname.cpython-310-x86_64-linux-gnu.so "
               "-x FI_PROVIDER=efa -x RDMAV_FORK_SAFE=1 -x FI_EFA_USE_DEVICE_RDMA=1 smddprun /opt/conda/bin/python3.10 -m mpi4py %s" % (hosts, job.world, "INFO" if job.nccl_debug else "WARN", job.script))
        pre.append("%s sagemaker-training-toolkit INFO     Invoking user script" % tk(tc + 1))
        pre.append("Training Env:\n%s" % json.dumps({"current_host": "algo-1", "hosts": [nd.host for nd in job.nodes], "job_name": job.jobname,
                                                    "num_gpus": 8, "user_entry_point": job.script}, indent=4))
        pre.append("Invoking script with the following command:\n%s\n" % cmd)
        body = []
        for rk in job.ranks:
            h = job.nodes[rk.node].host
            for it in R.rank_items(job, rk.r, until=R.alive_until(job, rk.r)):
                text = it[3].replace("\n", "") if len(it) > 4 else it[3]
                body.append((it[0], it[1], "[1,mpirank:%d,%s]<%s>:%s" % (rk.r, h, "stdout" if it[2] == "out" else "stderr", text)))
        fails = sorted([(t, r, c) for r, (t, c) in job.end.items() if c != 0 and job.killed_by.get(r) is None])
        status = "Completed"
        reason = None
        # (a run whose ranks were all still running when the logs end, a straggler: the last line's time)
        t_end = max((t for (t, c) in job.end.values()), default=max((b[0] for b in body), default=job.t0))
        if job.term and job.term["kind"] == "maxruntime":
            status = "Stopped"
            body.append((job.term["t"], 10 ** 9, "%s sagemaker-training-toolkit INFO     Received SIGTERM, forwarding to MPI processes" % tk(job.term["t"])))
        elif fails:
            t, r, c = fails[0]
            status = "Failed"
            err = job.errtext.get(r, "")
            if not err or err.startswith("Signal"):
                err = ("mpirun.real noticed that process rank %d with PID %d on node %s exited on signal %d (%s)." % (
                    r, job.ranks[r].pid, job.nodes[job.ranks[r].node].host, -c, {9: "Killed", 11: "Segmentation fault", 6: "Aborted", 7: "Bus error", 15: "Terminated"}.get(-c, "?"))) if c < 0 else err
            body.append((t + 1, 10 ** 9, "-" * 74 + "\nPrimary job  terminated normally, but 1 process returned\na non-zero exit code. Per user-direction, the job has been aborted.\n" + "-" * 74 if c > 0 else
                         "-" * 74 + "\nmpirun.real noticed that process rank %d with PID %d on node %s exited on signal %d (%s).\n" % (r, job.ranks[r].pid, job.nodes[job.ranks[r].node].host, -c,
                                                                                                                                  {9: "Killed", 11: "Segmentation fault", 6: "Aborted", 7: "Bus error", 15: "Terminated"}.get(-c, "?")) + "-" * 74))
            reason = "AlgorithmError: ExecuteUserScriptError:\nExitCode %d\nErrorMessage \"%s\"\nCommand \"%s\", exit code: %d" % (
                c if c > 0 else 128 - c, err.replace('"', "'")[:400], cmd[:200], c if c > 0 else 128 - c)
            body.append((t + 2, 10 ** 9, "%s sagemaker-training-toolkit ERROR    Reporting training FAILURE" % tk(t + 2)))
            body.append((t + 2.1, 10 ** 9, "%s sagemaker-training-toolkit ERROR    ExecuteUserScriptError:\nExitCode %d\nErrorMessage \"%s\"" % (tk(t + 2.1), c if c > 0 else 128 - c, err.replace('"', "'")[:400])))
        else:
            body.append((t_end + 1, 10 ** 9, "%s sagemaker-training-toolkit INFO     Reporting training SUCCESS" % tk(t_end + 1)))
        body.sort(key=lambda x: (x[0], x[1]))
        files["cloudwatch/%s/algo-1-%d.log" % (job.jobname, int(job.t0))] = "\n".join(pre) + "\n" + "\n".join(x[2] for x in body) + "\n"
        for nd in job.nodes[1:]:
            txt = ("%s sagemaker-training-toolkit INFO     Imported framework sagemaker_pytorch_container.training\n"
                   "%s sagemaker-training-toolkit INFO     Starting MPI run as worker node.\n%s sagemaker-training-toolkit INFO     Waiting for MPI Master to create SSH daemon.\n"
                   "%s sagemaker-training-toolkit INFO     Cannot connect to host algo-1 at port 22. Retrying...\n%s sagemaker-training-toolkit INFO     Connection closed\n"
                   "%s sagemaker-training-toolkit INFO     MPI Master online, creating SSH daemon.\n%s sagemaker-training-toolkit INFO     Writing environment variables to /etc/environment for the MPI process.\n"
                   "%s sagemaker-training-toolkit INFO     Waiting for MPI process to finish.\n%s sagemaker-training-toolkit INFO     Process[es]: [psutil.Process(pid=%d, name='orted', status='sleeping', started='%s')]\n"
                   "%s sagemaker-training-toolkit INFO     Orted process found [psutil.Process(pid=%d, name='orted', status='sleeping', started='%s')]\n"
                   "%s sagemaker-training-toolkit INFO     Waiting for orted process [psutil.Process(pid=%d, name='orted', status='sleeping', started='%s')]\n"
                   % tuple([tk(job.t0 + i) for i in range(9)] + [rng.randint(100, 900), fmt(job.t0 + 8, "hms", 0), tk(job.t0 + 9), rng.randint(100, 900), fmt(job.t0 + 8, "hms", 0),
                                                                  tk(job.t0 + 10), rng.randint(100, 900), fmt(job.t0 + 8, "hms", 0)]))
            txt += "%s sagemaker-training-toolkit INFO     Orted process exited\n" % tk(t_end + rng.uniform(1, 5))
            files["cloudwatch/%s/%s-%d.log" % (job.jobname, nd.host, int(job.t0))] = txt
        desc = {"TrainingJobName": job.jobname, "TrainingJobArn": "arn:aws:sagemaker:us-west-2:%d:training-job/%s" % (rng.randint(10 ** 11, 10 ** 12 - 1), job.jobname),
                "TrainingJobStatus": status, "SecondaryStatus": {"Completed": "Completed", "Failed": "Failed", "Stopped": "MaxRuntimeExceeded"}[status],
                "ResourceConfig": {"InstanceType": "ml.p4d.24xlarge" if job.board == "a100x8" else "ml.p5.48xlarge", "InstanceCount": len(job.nodes), "VolumeSizeInGB": 500},
                "StoppingCondition": {"MaxRuntimeInSeconds": int((job.term or {}).get("t", t_end) - job.t0) if status == "Stopped" else 432000},
                "TrainingStartTime": fmt(job.t0, "iso", 0), "TrainingEndTime": fmt(t_end + 30, "iso", 0)}
        if reason:
            desc["FailureReason"] = reason
            if job.flags.get("host_oom_seen"):
                desc["FailureReason"] = "ClientError: Please use an instance type with more memory, or reduce the size of job data processed on an instance."
        files["describe-training-job.json"] = json.dumps(desc, indent=2)
        return files


# ==========================================================================
# Kubeflow PyTorchJob (training-operator)
# ==========================================================================
class K8sPyTorchJob(Layout):
    name = "k8s-pytorchjob"

    def build(self, job, cause):
        rng = job.rng
        n = rng.choice([2, 2, 3, 4, 8])
        jn = rng.choice(["llama-ft", "pt-dist", "bert-pretrain", "mixtral-sft", "resnet-ddp"]) + "-" + rname(rng, 4)
        job.flags["k8s"] = True
        style = rng.choice(["master", "worker"])
        pods = (["%s-master-0" % jn] + ["%s-worker-%d" % (jn, i) for i in range(n - 1)]) if style == "master" else ["%s-worker-%d" % (jn, i) for i in range(n)]
        gpn = rng.choice([4, 8, 8])
        board = {4: rng.choice(["a10gx4", "h100x4"]), 8: rng.choice(["h100x8", "a100x8"])}[gpn]
        R.setup_cluster(job, pods, gpn, board)
        cloud = rng.choice(["eks", "gke", "onprem"])
        pool = "gke-ml-%s-pool-%s" % (rng.choice(["a3", "a2"]), hexid(rng, 8))
        for nd in job.nodes:
            nd.pod = nd.host
            nd.pod_ip = "10.%d.%d.%d" % (rng.randint(100, 120), rng.randint(0, 255), rng.randint(2, 250))
            if cloud == "eks":
                nip = "10.0.%d.%d" % (rng.randint(0, 63), rng.randint(2, 250))
                nd.k8s_node = "ip-%s.ec2.internal" % nip.replace(".", "-")
                nd.ip = nip
            elif cloud == "gke":
                nd.k8s_node = "%s-%s" % (pool, rname(rng, 4))
                nd.ip = "10.128.%d.%d" % (rng.randint(0, 15), rng.randint(2, 250))
            else:
                nd.k8s_node = "gpu-worker-%02d" % rng.randint(1, 40)
                nd.ip = "192.168.50.%d" % rng.randint(10, 250)
            nd.fqdn = nd.host if rng.random() < 0.5 else "%s.%s.default.svc.cluster.local" % (nd.host, jn)
            nd.aliases = _uniq([nd.k8s_node, nd.ip, nd.pod_ip, nd.fqdn])
        job.flags["jn"] = jn
        job.flags["cloud"] = cloud
        R.set_skews(job)
        R.pick_versions(job, lo=202)
        job.launcher = "torchrun"
        _common_flags(job, ["ddp", "fsdp", "hf", "composer", "ddp"])
        job.flags["has_kernel"] = rng.random() < 0.5 or cause in FORCE_KERNEL
        job.flags["preempt_kinds"] = ["spot", "kueue"]
        job.flags["oom_variant"] = rng.choice(["pod", "pod", "global"])
        job.flags["open_end"] = "running"
        job.fabric = rng.choice(["socket", "ib", "efa"]) if cloud == "eks" else rng.choice(["socket", "ib", "roce"])
        if cause == "network" and job.fabric == "efa":
            job.fabric = "socket"
        job.flags["oob_if"] = "eth0"
        job.flags["loglevel_info"] = True
        job.flags["healthy_variant"] = rng.choice([None, "restart"]) if cause is None else None

    def policy(self, job):
        return Policy(agent_per_node=True, kill_all_via_agent=True, kill_all_delay=(3.0, 25.0))

    def node_truth(self, job, nidx):
        nd = job.nodes[nidx]
        return nd.pod, _uniq([a for a in nd.aliases if a != nd.pod])

    def render(self, job, truth):
        rng = job.rng
        R.finalize_open_ranks(job, "running")
        files = {}
        jn = job.flags["jn"]
        pod_status = {}
        for nd in job.nodes:
            R.agent_start(job, nd.idx, job.t0 + rng.uniform(5, 30), loglevel_info=True)
            if job.term and job.term.get("kind") == "spot" and job.term.get("node") == nd.idx:
                job.nodeev[nd.idx]["sigterm"] = job.term["t"]
            if job.term and job.term.get("kind") == "kueue":
                job.nodeev[nd.idx]["sigterm"] = job.term["t"] + rng.uniform(0.5, 4)
            if job.node_end.get(nd.idx, (0, ""))[1] == "OOMKilled":
                te, code = job.node_end[nd.idx][0], 137
                pod_status[nd.idx] = ("Terminated", "OOMKilled", 137, te)
                continue
            te, code = R.agent_teardown(job, nd.idx)
            if te is None:
                if job.flags.get("still_running") or any(rk.r not in job.end for rk in job.ranks_on(nd.idx)):
                    pod_status[nd.idx] = ("Running", None, None, None)
                else:
                    t_ok = max(job.end[rk.r][0] for rk in job.ranks_on(nd.idx))
                    pod_status[nd.idx] = ("Terminated", "Completed", 0, t_ok + 1)
            else:
                reason = "Error"
                if job.term and job.term.get("kind") == "spot" and job.term.get("node") == nd.idx:
                    reason = "Terminated"
                pod_status[nd.idx] = ("Terminated", reason, code if job.nodeev[nd.idx].get("sigterm") is None else 143 if reason != "Terminated" else 143, te)
        for nd in job.nodes:
            lines = []
            for rk in job.ranks_on(nd.idx):
                for it in R.rank_items(job, rk.r, until=R.alive_until(job, rk.r)):
                    lines.append(it)
            for it in job.agent_lines.get(nd.idx, []):
                lines.append(it)
            txt = R.stream_text(R.sorted_items(lines))
            if pod_status[nd.idx][1] == "OOMKilled":
                txt = R.truncate_tail(job, txt)
            files["pods/%s.log" % nd.pod] = txt
            if job.flags.get("healthy_variant") == "restart" and nd.idx > 0:
                prev = ("%s\n" % "\n".join([
                    "W%s %d torch/distributed/elastic/rendezvous/dynamic_rendezvous.py:%d] The node '%s_%d_0' has failed to connect to the rendezvous backend." % (
                        fmt(job.t0 - 60, "glog_ms0", job.tz), nd.agent_pid - 5, 1138, nd.pod, nd.agent_pid - 5),
                    "Traceback (most recent call last):",
                    "  File \"%s/torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py\", line 159, in _create_tcp_store" % job.site,
                    "    store = TCPStore(",
                    "torch.distributed.DistNetworkError: Failed to recv, got 0 bytes. Connection was likely closed. Did the remote server shutdown or crash?",
                    "", "The above exception was the direct cause of the following exception:", "",
                    "Traceback (most recent call last):",
                    "  File \"%s\", line 8, in <module>" % job.flags.get("torchrun_bin"), "    sys.exit(main())",
                    "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details."]))
                files["pods/%s.previous.log" % nd.pod] = prev
        # describe + events
        ev = []
        for nd in job.nodes:
            st = pod_status[nd.idx]
            restarts = 1 if job.flags.get("healthy_variant") == "restart" and nd.idx > 0 else 0
            d = ["Name:             %s" % nd.pod, "Namespace:        %s" % rng.choice(["default", "ml-team", "training"]), "Priority:         0",
                 "Service Account:  default", "Node:             %s/%s" % (nd.k8s_node, nd.ip), "Start Time:       %s" % fmt(job.t0, "ctime", 0),
                 "Labels:           training.kubeflow.org/job-name=%s" % jn, "                  training.kubeflow.org/replica-index=%d" % (nd.idx if "worker" in nd.pod and nd.pod.endswith(str(nd.idx)) else int(nd.pod.rsplit("-", 1)[1])),
                 "                  training.kubeflow.org/replica-type=%s" % ("master" if "master" in nd.pod else "worker"),
                 "Status:           %s" % ({"Running": "Running", "Completed": "Succeeded"}.get(st[0] if st[0] == "Running" else st[1], "Failed")),
                 "IP:               %s" % nd.pod_ip, "Containers:", "  pytorch:", "    Image:          %s" % rng.choice(["nvcr.io/nvidia/pytorch:24.05-py3", "ghcr.io/acme/trainer:v0.9.3", "pytorch/pytorch:2.4.0-cuda12.4-cudnn9-devel"])]
            if st[0] == "Running":
                d += ["    State:          Running", "      Started:      %s" % fmt(job.t0 + 5, "ctime", 0)]
            else:
                d += ["    State:          Terminated", "      Reason:       %s" % st[1], "      Exit Code:    %d" % st[2],
                      "      Started:      %s" % fmt(job.t0 + 5, "ctime", 0), "      Finished:     %s" % fmt(st[3], "ctime", 0)]
                if st[1] == "Terminated":
                    d.append("      Message:      Pod was terminated in response to imminent node shutdown.")
            d += ["    Ready:          %s" % ("True" if st[0] == "Running" else "False"), "    Restart Count:  %d" % restarts,
                  "    Limits:", "      memory:          %s" % rng.choice(["800Gi", "1000Gi", "512Gi"]), "      nvidia.com/gpu:  %d" % job.gpn, "Events:"]
            if st[1] == "OOMKilled":
                d.append("  Warning  OOMKilling  %s  kernel-monitor, %s  Memory cgroup out of memory: Killed process %d (python) total-vm:201234112kB, anon-rss:812345672kB" % (
                    k8s_age(300), nd.k8s_node, job.ranks_on(nd.idx)[-1].pid))
            files["describe/%s.txt" % nd.pod] = "\n".join(d) + "\n"
            if st[0] == "Terminated" and st[2] != 0:
                ev.append((st[3] + 1, "Normal", "ExitedWithCode", "pytorchjob/%s" % jn, "Pod: default.%s exited with code %d" % (nd.pod, st[2])))
        if job.jobkill:
            tk, src = job.jobkill
            for nd in job.nodes:
                if nd.idx != src:
                    ev.append((tk, "Normal", "Killing", "pod/%s" % nd.pod, "Stopping container pytorch"))
            first_fail = job.nodes[src].pod
            ev.append((tk - 1, "Normal", "PyTorchJobFailed", "pytorchjob/%s" % jn, "PyTorchJob %s/%s is failed because 1 %s replica(s) failed." % ("default", jn, "Master" if "master" in first_fail else "Worker")))
        if job.term and job.term.get("kind") == "spot":
            nd = job.nodes[job.term["node"]]
            ev.append((job.term["t"] - 25, "Warning", "NodeShutdown", "node/%s" % nd.k8s_node, "Shutdown manager detected shutdown event"))
            ev.append((job.term["t"], "Normal", "Killing", "pod/%s" % nd.pod, "Stopping container pytorch"))
        if job.term and job.term.get("kind") == "kueue":
            ev.append((job.term["t"] - 0.5, "Normal", "Preempted", "workload/pytorchjob-%s-%s" % (jn, hexid(rng, 5)),
                       "Preempted to accommodate a workload (UID: %s-%s-%s-%s-%s) due to prioritization in the ClusterQueue" % (hexid(rng, 8), hexid(rng, 4), hexid(rng, 4), hexid(rng, 4), hexid(rng, 12))))
            ev.append((job.term["t"] - 0.4, "Normal", "Stopped", "pytorchjob/%s" % jn, "PyTorchJob %s is suspended." % jn))
            for nd in job.nodes:
                ev.append((job.term["t"], "Normal", "Killing", "pod/%s" % nd.pod, "Stopping container pytorch"))
        if job.flags.get("healthy_variant") == "restart":
            for nd in job.nodes[1:]:
                ev.append((job.t0 - 50, "Warning", "BackOff", "pod/%s" % nd.pod, "Back-off restarting failed container pytorch in pod %s_default(%s-%s-%s-%s-%s)" % (nd.pod, hexid(rng, 8), hexid(rng, 4), hexid(rng, 4), hexid(rng, 4), hexid(rng, 12))))
        t_now = max([e[0] for e in ev] + [max(t for (t, c) in job.end.values()) if job.end else job.t0]) + rng.uniform(60, 900)
        ev.sort(key=lambda x: x[0])
        files["events.txt"] = "LAST SEEN   TYPE      REASON             OBJECT                                MESSAGE\n" + "".join(
            "%-11s %-9s %-18s %-37s %s\n" % (k8s_age(t_now - t), ty, rs, ob, msg) for (t, ty, rs, ob, msg) in ev)
        failed = any(st[1] not in (None, "Completed") and st[0] == "Terminated" for st in pod_status.values())
        done_ok = all(st[1] == "Completed" for st in pod_status.values())
        conds = [("Created", "True", "PyTorchJobCreated", "PyTorchJob %s is created." % jn, job.t0 - 30),
                 ("Running", "False" if (failed or done_ok) else "True", "PyTorchJobRunning", "PyTorchJob %s is running." % jn, job.t0 + 20)]
        if failed:
            conds.append(("Failed", "True", "PyTorchJobFailed", "PyTorchJob %s is failed because 1 Worker replica(s) failed." % jn, (job.jobkill or (t_now - 60,))[0]))
        elif all(st[1] == "Completed" for st in pod_status.values()):
            conds.append(("Succeeded", "True", "PyTorchJobSucceeded", "PyTorchJob %s is successfully completed." % jn, t_now - 30))
        y = ["apiVersion: kubeflow.org/v1", "kind: PyTorchJob", "metadata:", "  name: %s" % jn, "spec:", "  elasticPolicy:", "    rdzvBackend: c10d", "    minReplicas: %d" % len(job.nodes),
             "    maxReplicas: %d" % len(job.nodes), "  nprocPerNode: \"%d\"" % job.gpn, "  runPolicy:", "    cleanPodPolicy: Running", "status:", "  conditions:"]
        for (ty, s, rs, msg, t) in conds:
            y += ["  - lastTransitionTime: \"%s\"" % fmt(t, "isoz_s"), "    message: %s" % msg, "    reason: %s" % rs, "    status: \"%s\"" % s, "    type: %s" % ty]
        files["pytorchjob.yaml"] = "\n".join(y) + "\n"
        if job.flags.get("has_kernel"):
            for nd in job.nodes:
                files["node-journal/%s.log" % nd.k8s_node] = R.kernel_log(job, nd.idx, "journal_short", job.t0, job.t0 + 3600)
        return files


# ==========================================================================
# GKE JobSet with Cloud Logging JSON export
# ==========================================================================
class GkeJobSetJson(Layout):
    name = "gke-jobset-json"

    def build(self, job, cause):
        rng = job.rng
        n = rng.choice([2, 4, 4, 8, 16])
        js = rng.choice(["llm-pretrain", "maxtext-run", "fsdp-bench", "sd-finetune"]) + "-" + rname(rng, 3)
        pods = ["%s-workers-0-%d-%s" % (js, i, rname(rng, 5)) for i in range(n)]
        R.setup_cluster(job, pods, 8, "h100x8")
        for nd in job.nodes:
            nd.pod = nd.host
            nd.k8s_node = "gke-%s-a3-pool-%s-%s" % (rng.choice(["ml-prod", "research", "train"]), hexid(rng, 8), rname(rng, 4))
            nd.ip = "10.%d.%d.%d" % (rng.randint(128, 140), rng.randint(0, 15), rng.randint(2, 250))
            nd.pod_ip = "10.%d.%d.%d" % (rng.randint(40, 60), rng.randint(0, 255), rng.randint(2, 250))
            nd.fqdn = "%s-workers-0-%d.%s" % (js, nd.idx, js)
            nd.nccl_host = nd.pod
            nd.aliases = _uniq([nd.k8s_node, nd.fqdn, nd.ip, nd.pod_ip])
        job.flags["js"] = js
        job.flags["project"] = rng.choice(["acme-ml-prod", "research-gpu-1234", "llm-train-sbx"])
        R.set_skews(job)
        R.pick_versions(job, lo=203)
        job.launcher = "torchrun"
        _common_flags(job, ["fsdp", "ddp", "megatron", "nemo"])
        job.flags["k8s"] = True
        job.flags["has_kernel"] = rng.random() < 0.5 or cause in FORCE_KERNEL
        job.flags["preempt_kinds"] = ["spot", "kueue"]
        job.flags["oom_variant"] = rng.choice(["pod", "global"])
        job.flags["open_end"] = "running"
        job.fabric = rng.choice(["socket", "roce"])
        job.flags["oob_if"] = "eth0"
        job.userfmt = rng.choice(["json", "std", "absl"])

    def policy(self, job):
        return Policy(agent_per_node=True, kill_all_via_agent=True, kill_all_delay=(2.0, 20.0))

    def node_truth(self, job, nidx):
        nd = job.nodes[nidx]
        return nd.pod, _uniq([a for a in nd.aliases if a != nd.pod])

    def render(self, job, truth):
        rng = job.rng
        R.finalize_open_ranks(job, "running")
        files = {}
        proj = job.flags["project"]
        entries = []
        for nd in job.nodes:
            R.agent_start(job, nd.idx, job.t0 + rng.uniform(5, 30), loglevel_info=rng.random() < 0.5)
            if job.term and job.term.get("kind") == "spot" and job.term.get("node") == nd.idx:
                job.nodeev[nd.idx]["sigterm"] = job.term["t"]
            if job.term and job.term.get("kind") == "kueue":
                job.nodeev[nd.idx]["sigterm"] = job.term["t"] + rng.uniform(0.5, 4)
            if job.node_end.get(nd.idx, (0, ""))[1] != "OOMKilled":
                R.agent_teardown(job, nd.idx)

        def ent(t, nd, text, stream, sev=None):
            payload = None
            try:
                if text.startswith("{") and text.endswith("}"):
                    payload = json.loads(text)
            except ValueError:
                payload = None
            e = {"insertId": hexid(rng, 16), "labels": {"compute.googleapis.com/resource_name": nd.k8s_node, "k8s-pod/jobset_sigs_k8s_io/jobset-name": job.flags["js"],
                                                       "k8s-pod/batch_kubernetes_io/job-completion-index": str(nd.idx)},
                 "logName": "projects/%s/logs/%s" % (proj, stream), "receiveTimestamp": fmt(t + rng.uniform(0.5, 4), "isoz"),
                 "resource": {"labels": {"cluster_name": "gpu-cluster-1", "container_name": "trainer", "location": "us-central1", "namespace_name": "default",
                                         "pod_name": nd.pod, "project_id": proj}, "type": "k8s_container"},
                 "severity": sev or ("ERROR" if stream == "stderr" else "INFO"), "timestamp": fmt(t + nd.skew, "isoz")}
            if payload is not None:
                e["jsonPayload"] = payload
            else:
                e["textPayload"] = text
            return e
        for rk in job.ranks:
            nd = job.nodes[rk.node]
            for it in R.rank_items(job, rk.r, until=R.alive_until(job, rk.r)):
                text = it[3].replace("\r", "").replace("\n", "") if len(it) > 4 else it[3]
                if not text:
                    continue
                entries.append((it[0], it[1], ent(it[0], nd, text, "stdout" if it[2] == "out" else "stderr")))
        for nidx, lst in job.agent_lines.items():
            nd = job.nodes[nidx]
            for it in lst:
                entries.append((it[0], it[1], ent(it[0], nd, it[3], "stderr")))
        # k8s events in the same export
        if job.term and job.term.get("kind") == "spot":
            nd = job.nodes[job.term["node"]]
            e = {"insertId": hexid(rng, 16), "jsonPayload": {"apiVersion": "v1", "involvedObject": {"kind": "Pod", "name": nd.pod, "namespace": "default"},
                                                          "kind": "Event", "message": "Pod was terminated in response to imminent node shutdown.", "reason": "Terminated",
                                                          "source": {"component": "kubelet", "host": nd.k8s_node}, "type": "Warning"},
                 "logName": "projects/%s/logs/events" % proj, "resource": {"labels": {"cluster_name": "gpu-cluster-1", "location": "us-central1", "pod_name": nd.pod}, "type": "k8s_pod"},
                 "severity": "WARNING", "timestamp": fmt(job.term["t"], "isoz")}
            entries.append((job.term["t"], 0, e))
        if job.term and job.term.get("kind") == "kueue":
            e = {"insertId": hexid(rng, 16), "jsonPayload": {"apiVersion": "v1", "involvedObject": {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
                                                                                                 "name": "jobset-%s-%s" % (job.flags["js"], hexid(rng, 5)), "namespace": "default"},
                                                          "kind": "Event", "message": "Preempted to accommodate a workload (UID: %s-%s-%s-%s-%s) due to prioritization in the ClusterQueue"
                                                          % (hexid(rng, 8), hexid(rng, 4), hexid(rng, 4), hexid(rng, 4), hexid(rng, 12)),
                                                          "reason": "Preempted", "source": {"component": "kueue-admission"}, "type": "Normal"},
                 "logName": "projects/%s/logs/events" % proj, "resource": {"labels": {"cluster_name": "gpu-cluster-1", "location": "us-central1"}, "type": "k8s_cluster"},
                 "severity": "INFO", "timestamp": fmt(job.term["t"] - 0.5, "isoz")}
            entries.append((job.term["t"] - 0.5, 0, e))
        for nidx, (t, how) in job.node_end.items():
            if how == "OOMKilled":
                nd = job.nodes[nidx]
                e = {"insertId": hexid(rng, 16), "jsonPayload": {"involvedObject": {"kind": "Pod", "name": nd.pod, "namespace": "default"}, "kind": "Event",
                                                              "message": "Memory cgroup out of memory: Killed process %d (python)" % job.ranks_on(nidx)[0].pid, "reason": "OOMKilling",
                                                              "source": {"component": "kernel-monitor", "host": nd.k8s_node}, "type": "Warning"},
                     "logName": "projects/%s/logs/events" % proj, "resource": {"labels": {"node_name": nd.k8s_node}, "type": "k8s_node"}, "severity": "WARNING", "timestamp": fmt(t + 0.5, "isoz")}
                entries.append((t + 0.5, 0, e))
        if job.flags.get("has_kernel"):
            for nd in job.nodes:
                for it in job.kern.get(nd.idx, []):
                    e = {"insertId": hexid(rng, 16), "jsonPayload": {"MESSAGE": it[3], "PRIORITY": str(it[2]), "SYSLOG_IDENTIFIER": "kernel", "_HOSTNAME": nd.k8s_node},
                         "logName": "projects/%s/logs/kernel" % proj, "resource": {"labels": {"node_name": nd.k8s_node, "location": "us-central1-c"}, "type": "k8s_node"},
                         "severity": {3: "ERROR", 4: "WARNING"}.get(it[2], "INFO"), "timestamp": fmt(it[0] + nd.skew, "isoz")}
                    entries.append((it[0], it[1], e))
        entries.sort(key=lambda x: (x[0], x[1]))
        files["export/logs-%s.jsonl" % fmt(job.t0, "slurm").replace(":", "")] = "".join(json.dumps(e, separators=(",", ":")) + "\n" for (_, _, e) in entries)
        ok = bool(job.end) and len(job.end) == job.world and all(c == 0 for (t, c) in job.end.values())
        st = {"conditions": [], "replicatedJobsStatus": [{"name": "workers", "ready": 0, "succeeded": 1 if ok else 0, "failed": 1 if job.jobkill else 0,
                                                          "active": 0 if (job.jobkill or ok) else 1}]}
        if ok:
            st["conditions"].append({"type": "Completed", "status": "True", "reason": "AllJobsCompleted", "message": "jobset completed successfully",
                                     "lastTransitionTime": fmt(max(t for (t, c) in job.end.values()) + 5, "isoz_s")})
        if job.jobkill:
            st["conditions"].append({"type": "Failed", "status": "True", "reason": "FailedJobs", "message": "jobset failed due to one or more job failures",
                                     "lastTransitionTime": fmt(job.jobkill[0], "isoz_s")})
        files["kubectl/jobset-%s.json" % job.flags["js"]] = json.dumps({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": job.flags["js"]},
                                                                        "spec": {"failurePolicy": {"maxRestarts": 0}}, "status": st}, indent=2)
        return files


# ==========================================================================
# Azure ML command job (std_log_process_N.txt)
# ==========================================================================
class AzureMl(Layout):
    name = "azureml"
    causes = [c for c in ALL_CAUSES if c not in NEEDS_KERNEL and c != "host_oom_kill"]

    def build(self, job, cause):
        rng = job.rng
        n = rng.choice([1, 2, 2, 4, 8])
        hosts = ["%s%06d" % (hexid(rng, 32), i) for i in range(n)]
        R.setup_cluster(job, hosts, 8, "a100x8")
        for nd in job.nodes:
            nd.ip = "10.0.0.%d" % rng.randint(4, 250)
            nd.aliases = [nd.ip, "tvmps_%s_d" % hexid(rng, 64)]
        R.set_skews(job)
        R.pick_versions(job, lo=201)
        job.launcher = "aml"
        _common_flags(job, ["ddp", "hf", "deepspeed", "lightning"])
        job.flags["has_kernel"] = False
        job.flags["preempt_kinds"] = ["preempt"]
        job.flags["open_end"] = "running"
        job.fabric = "ib"
        job.flags["oob_if"] = "eth0"

    def policy(self, job):
        return Policy(agent_per_node=False, kill_all=True, kill_delay=(5.0, 40.0), kill_code=-15)

    def render(self, job, truth):
        rng = job.rng
        R.finalize_open_ranks(job, "running")
        files = {}
        for rk in job.ranks:
            txt = R.stream_text(R.rank_items(job, rk.r, until=R.alive_until(job, rk.r)))
            files["user_logs/std_log_process_%d.txt" % rk.r] = txt
        lc = []
        for nd in job.nodes:
            lc.append((job.t0 + 1, "%s INFO lifecycler.py:312 - [node %s] Starting %d processes (process_count_per_instance=%d)" % (fmt(job.t0 + 1, "isoz_ms"), nd.host, job.gpn, job.gpn)))
        for r, (t, c) in sorted(job.end.items()):
            if c != 0:
                lc.append((t + 0.5, "%s %s lifecycler.py:401 - [node %s] Process %d (pid %d) exited with %s" % (
                    fmt(t + 0.5, "isoz_ms"), "ERROR" if job.killed_by.get(r) is None else "INFO", job.nodes[job.ranks[r].node].host, r, job.ranks[r].pid,
                    ("code %d" % c) if c > 0 else ("signal %d" % -c))))
        if job.term and job.term["kind"] == "preempt":
            lc.append((job.term["t"] - 1, "%s WARNING lifecycler.py:233 - Received preemption notice for low-priority node, sending SIGTERM to all processes" % fmt(job.term["t"] - 1, "isoz_ms")))
        lc.sort()
        files["system_logs/lifecycler/lifecycler.log"] = "\n".join(x[1] for x in lc) + "\n"
        return files


# ==========================================================================
# DeepSpeed launcher over pdsh
# ==========================================================================
class DeepSpeedPdsh(Layout):
    name = "deepspeed-pdsh"

    def build(self, job, cause):
        rng = job.rng
        n = rng.choice([2, 2, 4, 8])
        pre = rng.choice(["worker-", "node", "gpu"])
        hosts = ["%s%d" % (pre, i) for i in range(n)]
        R.setup_cluster(job, hosts, 8, rng.choice(["a100x8", "h100x8"]))
        for nd in job.nodes:
            nd.aliases = [nd.ip]
        R.set_skews(job)
        R.pick_versions(job, lo=201)
        job.launcher = "deepspeed"
        _common_flags(job, ["deepspeed"])
        job.flags["has_kernel"] = rng.random() < 0.6 or cause in FORCE_KERNEL
        job.flags["preempt_kinds"] = ["evict"]
        job.flags["open_end"] = "running"
        job.fabric = rng.choice(["ib", "roce"])

    def policy(self, job):
        return Policy(agent_per_node=True, agent_delay=(0.5, 3.0))

    def render(self, job, truth):
        rng = job.rng
        R.finalize_open_ranks(job, "running")
        files = {}
        tk = lambda nidx, t: fmt(job.tnode(nidx, t), "pylog", job.tz)
        lines = []
        t0 = job.t0
        gm = {}
        for nd in job.nodes:
            gm[nd.host] = [rk.r for rk in job.ranks_on(nd.idx)]
        lines.append((t0, 0, "[%s] [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=/workspace; export NCCL_IB_HCA=mlx5; cd /workspace; /usr/bin/python3 -u -m deepspeed.launcher.launch "
                      "--world_info=%s --node_rank=%%n --master_addr=%s --master_port=29500 %s --deepspeed --deepspeed_config ds_config.json"
                      % (tk(0, t0), ",".join(nd.host for nd in job.nodes), hexid(rng, 60), job.nodes[0].ip, job.script)))
        for nd in job.nodes:
            p = "%s: " % nd.host
            ta = t0 + rng.uniform(1, 4)
            world_info = "{%s}" % ", ".join("'%s': [%s]" % (h, ", ".join(str(i) for i in range(job.gpn))) for h in gm)
            ds = ["[INFO] [launch.py:146:main] WORLD INFO DICT: %s" % world_info,
                  "[INFO] [launch.py:152:main] nnodes=%d, num_local_procs=%d, node_rank=%d" % (len(job.nodes), job.gpn, nd.idx),
                  "[INFO] [launch.py:163:main] global_rank_mapping=defaultdict(<class 'list'>, {%s})" % ", ".join("'%s': %s" % (h, gm[h]) for h in gm),
                  "[INFO] [launch.py:164:main] dist_world_size=%d" % job.world,
                  "[INFO] [launch.py:168:main] Setting CUDA_VISIBLE_DEVICES=%s" % ",".join(str(i) for i in range(job.gpn))]
            for rk in job.ranks_on(nd.idx):
                ds.append("[INFO] [launch.py:256:main] process %d spawned with command: ['/usr/bin/python3', '-u', '%s', '--local_rank=%d', '--deepspeed', '--deepspeed_config', 'ds_config.json']"
                          % (rk.pid, job.script, rk.local))
            for i, s in enumerate(ds):
                lines.append((ta + i * 0.01, 0, p + "[%s] %s" % (tk(nd.idx, ta), s)))
            ne = job.nodeev.get(nd.idx, {})
            fails = sorted([f for f in ne.get("failures", []) if f[2] != 0])
            if fails:
                td = ne.get("t_detect") or fails[0][0] + 1
                for rk in job.ranks_on(nd.idx):
                    lines.append((td, 1, p + "[%s] [INFO] [launch.py:319:sigkill_handler] Killing subprocess %d" % (tk(nd.idx, td), rk.pid)))
                f = fails[0]
                rk = job.ranks[f[1]]
                lines.append((td + 0.1, 2, p + "[%s] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python3', '-u', '%s', '--local_rank=%d', '--deepspeed', '--deepspeed_config', 'ds_config.json'] exits with return code = %d"
                              % (tk(nd.idx, td + 0.1), job.script, rk.local, f[2])))
                lines.append((td + 0.3, 3, "pdsh@%s: %s: ssh exited with exit code %d" % (job.nodes[0].host, nd.host, f[2] if f[2] > 0 else 256 + f[2])))
            elif all(job.end.get(rk.r, (0, 1))[1] == 0 for rk in job.ranks_on(nd.idx)):
                te = max(job.end[rk.r][0] for rk in job.ranks_on(nd.idx))
                for rk in job.ranks_on(nd.idx):
                    lines.append((te + 0.2, 1, p + "[%s] [INFO] [launch.py:351:main] Process %d exits successfully." % (tk(nd.idx, te + 0.2), rk.pid)))
        for rk in job.ranks:
            p = "%s: " % job.nodes[rk.node].host
            for it in R.rank_items(job, rk.r, until=R.alive_until(job, rk.r)):
                text = it[3].replace("\r", "").replace("\n", "") if len(it) > 4 else it[3]
                if text:
                    lines.append((it[0], it[1], p + text))
        lines.sort(key=lambda x: (x[0], x[1]))
        files["ds_launch.log"] = "\n".join(x[2] for x in lines) + "\n"
        files["hostfile"] = "".join("%s slots=%d\n" % (nd.host, job.gpn) for nd in job.nodes)
        if job.flags.get("has_kernel"):
            for nd in job.nodes:
                files["dmesg/%s.txt" % nd.host] = R.kernel_log(job, nd.idx, rng.choice(["dmesgT", "dmesg"]), job.t0, job.t0 + 3600)
        return files


# ==========================================================================
# Ray Train (TorchTrainer)
# ==========================================================================
class RayTrain(Layout):
    name = "ray-train"

    def build(self, job, cause):
        rng = job.rng
        n = rng.choice([2, 2, 4, 8])
        gpn = rng.choice([4, 8])
        ips = ["10.0.%d.%d" % (rng.randint(0, 15), rng.randint(2, 250)) for _ in range(n)]
        kube = rng.random() < 0.5
        hosts = list(ips)
        R.setup_cluster(job, hosts, gpn, "a10gx4" if gpn == 4 else "a100x8", ips)
        for nd in job.nodes:
            nd.nccl_host = ("raycluster-%s-worker-gpu-%s" % (rname(rng, 5), rname(rng, 5))) if kube else "ip-" + nd.ip.replace(".", "-")
            if nd.idx == 0 and kube:
                nd.nccl_host = "raycluster-head-%s" % rname(rng, 5)
            nd.aliases = [nd.nccl_host]
        R.set_skews(job)
        R.pick_versions(job, lo=202)
        job.launcher = "ray"
        _common_flags(job, ["ddp", "fsdp", "hf", "lightning"])
        job.flags["has_kernel"] = rng.random() < 0.4 or cause in FORCE_KERNEL
        job.flags["preempt_kinds"] = ["spot"]
        job.flags["open_end"] = "running"
        job.fabric = rng.choice(["socket", "efa", "ib"])
        if cause == "network" and job.fabric == "efa":
            job.fabric = "socket"
        job.flags["oob_if"] = "eth0"
        job.flags["oom_variant"] = "ray"

    def policy(self, job):
        return Policy(agent_per_node=False, kill_all=True, kill_delay=(1.0, 6.0), kill_code=-9)

    def render(self, job, truth):
        rng = job.rng
        R.finalize_open_ranks(job, "running")
        files = {}
        lines = []
        tk = lambda t: fmt(t, "plain", job.tz)
        for rk in job.ranks:
            nd = job.nodes[rk.node]
            p = "(RayTrainWorker pid=%d, ip=%s) " % (rk.pid, nd.ip)
            lines.append((job.t0 + 20 + rk.r * 0.01, 0, p + "Setting up process group for: env:// [rank=%d, world_size=%d]" % (rk.r, job.world)))
            for it in R.rank_items(job, rk.r, until=R.alive_until(job, rk.r)):
                text = it[3].replace("\r", "").replace("\n", "") if len(it) > 4 else it[3]
                if text:
                    lines.append((it[0], it[1], p + text))
        tpid = rng.randint(1000, 9999)
        nids = [hexid(rng, 56) for _ in job.nodes]
        lines.append((job.t0 + 19, 0, "(TorchTrainer pid=%d) Started distributed worker processes: " % tpid + "\n" + "\n".join(
            "(TorchTrainer pid=%d) - (node_id=%s, ip=%s, pid=%d) world_rank=%d, local_rank=%d, node_rank=%d" % (
                tpid, nids[rk.node], job.nodes[rk.node].ip, rk.pid, rk.r, rk.local, rk.node) for rk in job.ranks)))
        fails = sorted([(t, r, c) for r, (t, c) in job.end.items() if c != 0 and job.killed_by.get(r) is None])
        if fails:
            t, r, c = fails[0]
            rk = job.ranks[r]
            nd = job.nodes[rk.node]
            if c > 0:
                body = ("ray.exceptions.RayTaskError(%s): \x1b[36mray::_RayTrainWorker__execute.get_next()\x1b[39m (pid=%d, ip=%s, actor_id=%s, repr=<ray.train._internal.worker_group.RayTrainWorker object at 0x7f%s>)\n"
                        "%s" % ((job.errtext.get(r, "RuntimeError").split(":")[0].split(".")[-1]), rk.pid, nd.ip, hexid(rng, 32), hexid(rng, 10),
                                job.errtb.get(r, job.errtext.get(r, ""))))
            elif job.term and job.term.get("kind") == "spot" and job.term.get("node") == rk.node:
                body = ("ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n\tclass_name: RayTrainWorker\n\tactor_id: %s\n\tpid: %d\n\tnamespace: %s\n\tip: %s\n"
                        "The actor died because its node has died. Node Id: %s\n\tthe actor's node was terminated expectedly: received SIGTERM"
                        % (hexid(rng, 32), rk.pid, hexid(rng, 8), nd.ip, hexid(rng, 56)))
            else:
                if job.flags.get("ray_oom"):
                    detail = ("Worker exit type: USER_ERROR Worker exit detail: Task was killed due to the node running low on memory.\nMemory on the node (IP: %s, ID: %s) where the task "
                              "(actor ID: %s, name=RayTrainWorker.__init__, pid=%d, memory used=%.2fGB) was running was %.2fGB / %.2fGB (%.6f), which exceeds the memory usage threshold of 0.95. "
                              "Ray killed this worker (ID: %s) because it was the most recently scheduled task; to see more information about memory usage on this node, use `ray logs raylet.out -ip %s`."
                              % (nd.ip, hexid(rng, 56), hexid(rng, 32), rk.pid, rng.uniform(60, 140), 1080.4, 1121.3, 0.9635, hexid(rng, 56), nd.ip))
                else:
                    detail = ("Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. "
                              "(1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.")
                body = ("ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n\tclass_name: RayTrainWorker\n\tactor_id: %s\n\tpid: %d\n\tnamespace: %s\n\tip: %s\n"
                        "The actor is dead because its worker process has died. %s" % (hexid(rng, 32), rk.pid, "%s-%s-%s-%s-%s" % (hexid(rng, 8), hexid(rng, 4), hexid(rng, 4), hexid(rng, 4), hexid(rng, 12)), nd.ip, detail))
            lines.append((t + 3, 10 ** 9, "%s\n\nThe above exception was the direct cause of the following exception:\n\nTraceback (most recent call last):\n  File \"/workspace/launch_ray.py\", line 88, in <module>\n"
                          "    result = trainer.fit()\n  File \"%s/ray/train/base_trainer.py\", line 638, in fit\n    raise TrainingFailedError(\n"
                          "ray.train.base_trainer.TrainingFailedError: The Ray Train run failed. Please inspect the previous error messages for a cause. After fixing the issue "
                          "(assuming that the error is not caused by your own application logic, but rather an error such as OOM), you can restart the run from scratch or continue this run.\n"
                          "To continue this run, you can use: `trainer = TorchTrainer.restore(\"/mnt/cluster_storage/%s\")`." % (body, job.site, job.jobname)))
        lines.sort(key=lambda x: (x[0], x[1]))
        files["job-driver-raysubmit_%s.log" % rname(rng, 16, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")] = "\n".join(x[2] for x in lines) + "\n"
        for nd in job.nodes:
            rl = ["[%s,%03d I %d %d] (raylet) main.cc:180: Setting cluster ID to: %s" % (tk(job.t0 - 300), 0, 77, 77, hexid(rng, 56)),
                  "[%s,%03d I %d %d] (raylet) node_manager.cc:%d: Ray resources: {CPU: %d, GPU: %d, memory: %d, node:%s: 1}" % (tk(job.t0 - 299), 17, 77, 77, 218, 96, job.gpn, 1121 * 1024 ** 3, nd.ip)]
            if job.flags.get("ray_oom") and fails and job.ranks[fails[0][1]].node == nd.idx:
                t = fails[0][0]
                rl.append("[%s,%03d W %d %d] (raylet) node_manager.cc:3086: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node "
                          "(ID: %s, IP: %s) over the last time period. To see more information about the Workers killed on this node, use `ray logs raylet.out -ip %s`"
                          % (tk(t - 0.5), 512, 77, 77, hexid(rng, 56), nd.ip, nd.ip))
            files["ray-logs/%s/raylet.out" % nd.ip] = "\n".join(rl) + "\n"
            if job.flags.get("has_kernel"):
                files["ray-logs/%s/dmesg.txt" % nd.ip] = R.kernel_log(job, nd.idx, "dmesgT", job.t0, job.t0 + 3600)
        return files


LAYOUTS = [SlurmSrunLabel(), SlurmPerTask(), SlurmTorchrun(), TorchrunTeeDir(), AccelerateLocal(), PbsPals(), LsfJsrun(),
           OpenMpiTagged(), SageMaker(), K8sPyTorchJob(), GkeJobSetJson(), AzureMl(), DeepSpeedPdsh(), RayTrain()]
