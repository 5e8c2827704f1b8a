"""Platforms: how a scheduler/launcher captured the output of a run.

A platform names the nodes (pods, VMs, Slurm nodes), chooses how process output is
multiplexed (srun -l labels, mpirun --tag-output, Ray actor prefixes, one log per pod)
and renders the semantic cluster events of a Run in its own dialect.  The result is a
list of Stream objects that an exporter then writes to files.
"""
from __future__ import annotations

from b5_core import (Run, build_nodes, f_age, f_ctime, f_date_locale, f_iso, f_pylog,
                     f_ray, hexid, alnum, utc, MON)


class Stream:
    def __init__(self, sid, kind, node_idx=None, **meta):
        self.sid = sid
        self.kind = kind          # app | kernel | syslog | text
        self.node_idx = node_idx
        self.meta = meta
        self.lines = []           # (t_local, text, std)

    def add(self, t, text, std="stdout", tt=None):
        self.lines.append((t, text, std, tt))

    def sorted(self):
        return sorted(self.lines, key=lambda x: x[3] if x[3] is not None else x[0])


def hostlist(names):
    """Slurm-style compressed hostlist: gpu-a100-[017-020,023],nid[001234-001240]."""
    import re
    groups = {}
    order = []
    for h in names:
        m = re.match(r"^(.*?)(\d+)$", h.split(".")[0])
        if not m:
            groups.setdefault((h, None), [])
            order.append((h, None)) if (h, None) not in order else None
            continue
        key = (m.group(1), len(m.group(2)))
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(int(m.group(2)))
    out = []
    for key in order:
        pre, w = key
        if w is None:
            out.append(pre)
            continue
        nums = sorted(set(groups[key]))
        rngs = []
        a = b = nums[0]
        for x in nums[1:]:
            if x == b + 1:
                b = x
            else:
                rngs.append((a, b))
                a = b = x
        rngs.append((a, b))
        parts = [f"{a:0{w}d}" if a == b else f"{a:0{w}d}-{b:0{w}d}" for a, b in rngs]
        out.append(f"{pre}{parts[0]}" if len(parts) == 1 and "-" not in parts[0] else f"{pre}[{','.join(parts)}]")
    return ",".join(out)


def _sig_name(sig):
    return {9: "SIGKILL", 6: "SIGABRT", 11: "SIGSEGV", 7: "SIGBUS", 15: "SIGTERM", 2: "SIGINT"}.get(sig, f"SIG{sig}")


# ============================================================================ base
class Platform:
    name = "base"
    exporters = ("native",)

    def __init__(self, rng):
        self.rng = rng

    def kernel_streams(self, R: Run, nodes=None, host_of=None):
        """Kernel + syslog streams per node (only the nodes someone collected)."""
        out = []
        if nodes is None:
            nodes = self.kernel_nodes(R)
        for ni in nodes:
            n = R.nodes[ni]
            st = Stream(f"kernel:{ni}", "kernel", ni, host=(host_of(n) if host_of else n.host), boot=n.boot)
            for (t, idx, text, prio) in R.kern:
                if idx == ni:
                    st.add(R.lt(ni, t), text, prio)
            sy = [(R.lt(ni, t), ident, text) for (t, idx, ident, text) in R.sys if idx == ni]
            st.meta["syslog"] = sy
            if st.lines or sy:
                out.append(st)
        return out

    def kernel_nodes(self, R: Run):
        """Which nodes' kernel logs were collected: all for small jobs, else a subset that
        always contains every node with kernel activity during the job plus a few clean ones."""
        rng = self.rng
        active = sorted({idx for (_, idx, _, _) in R.kern} | {idx for (_, idx, _, _) in R.sys})
        n = len(R.nodes)
        if n <= 6 and rng.random() < 0.7:
            return list(range(n))
        pool = [i for i in range(n) if i not in active]
        rng.shuffle(pool)
        extra = pool[: rng.randint(1, 4)]
        return sorted(set(active) | set(extra))


# ============================================================================ Slurm
class Slurm(Platform):
    name = "slurm"
    exporters = ("native", "native", "syslog", "journald", "elastic", "datadog", "ci")

    def setup(self, R: Run, nnodes, gpn, style, kind=None, launcher=None):
        rng = self.rng
        build_nodes(R, nnodes, gpn, style, kind)
        R.meta["jobid"] = rng.randint(100000, 9999999)
        R.meta["jobname"] = rng.choice(["pretrain", "llm-sft", "moe-8x7b", "gpt3-175b", "vit-g", "dpo-run",
                                        "mixtral", "bert-mlm", "llama3-ft", "diffusion-xl"])
        R.meta["partition"] = rng.choice(["gpu", "batch", "h100", "a100-80g", "mi300", "standard-g", "dgx"])
        R.meta["mode"] = rng.choice(["srun-l", "srun-l", "per-task", "per-task", "plain"])
        R.meta["launcher"] = launcher or rng.choice(["torchrun", "srun"])
        R.meta["date_locale"] = rng.choice(["en", "en", "en", "de", "fr", "ja"])
        R.meta["step"] = 0

    def _label(self, R, rank=None, node=None):
        if R.meta["launcher"] == "srun":
            tid = rank if rank is not None else node * R.gpn
            width = len(str(R.world - 1))
        else:
            tid = node if node is not None else R.node_of(rank).idx
            width = len(str(len(R.nodes) - 1))
        return tid, f"{tid:>{width}}"

    def event_lines(self, R: Run):
        """Lines that srun/slurmstepd write into the batch output (time, text)."""
        jid = R.meta["jobid"]
        stp = f"{jid}.{R.meta['step']}"
        out = []
        for (t, kind, ni, info) in sorted(R.events, key=lambda e: e[0]):
            ts = utc(t).strftime("%Y-%m-%dT%H:%M:%S")
            if kind == "task_exit":
                host = R.nodes[ni].host
                tid = info.get("task")
                if tid is None:
                    tid = (info["rank"] if R.meta["launcher"] == "srun" and info.get("rank") is not None
                           else ni)
                if info.get("signal"):
                    sig = info["signal"]
                    word = {9: "Killed", 6: "Aborted (core dumped)", 11: "Segmentation fault (core dumped)",
                            7: "Bus error (core dumped)", 15: "Terminated"}.get(sig, f"signal {sig}")
                    out.append((t, f"srun: error: {host}: task {tid}: {word}"))
                else:
                    out.append((t, f"srun: error: {host}: task {tid}: Exited with exit code {info.get('code', 1)}"))
            elif kind == "step_abort":
                out.append((t, f"srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
                for n in R.nodes[: min(len(R.nodes), 6)]:
                    out.append((t + 0.01, f"slurmstepd: error: *** STEP {stp} ON {n.host} CANCELLED AT {ts} ***"))
            elif kind == "preempt_job":
                why = info.get("why", "PREEMPTION")
                out.append((t, f"slurmstepd: error: *** JOB {jid} ON {R.nodes[0].host} CANCELLED AT {ts} DUE TO {why} ***"))
                out.append((t + 0.2, f"slurmstepd: error: *** STEP {stp} ON {R.nodes[0].host} CANCELLED AT {ts} DUE TO {why} ***"))
                out.append((t + 0.3, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
                out.append((t + 0.4, f"srun: got SIGCONT"))
                out.append((t + 0.5, f"srun: forcing job termination"))
            elif kind == "user_cancel":
                out.append((t, f"slurmstepd: error: *** JOB {jid} ON {R.nodes[0].host} CANCELLED AT {ts} ***"))
                out.append((t + 0.1, f"slurmstepd: error: *** STEP {stp} ON {R.nodes[0].host} CANCELLED AT {ts} ***"))
                out.append((t + 0.2, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            elif kind == "oom_kill":
                n = R.nodes[ni]
                out.append((t, f"slurmstepd: error: Detected {info.get('count', 1)} oom_kill event in StepId={stp}. "
                               f"Some of the step tasks have been OOM Killed."))
            elif kind == "node_fail":
                out.append((t, f"srun: error: Node failure on {R.nodes[ni].host}"))
                out.append((t + 0.1, f"slurmstepd: error: *** JOB {jid} ON {R.nodes[0].host} CANCELLED AT {ts} DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***"))
            elif kind == "raw":
                out.append((t, info["text"]))
        return out

    def preamble(self, R: Run):
        rng = self.rng
        t = R.t0 - rng.uniform(3, 25)
        loc = R.meta["date_locale"]
        nl = ",".join(n.host for n in R.nodes[:3]) + ("..." if len(R.nodes) > 3 else "")
        lines = [(t, f_date_locale(R.lt(0, t), loc)),
                 (t + 0.01, f"Job {R.meta['jobid']} ({R.meta['jobname']}) on {len(R.nodes)} node(s): {nl}"),
                 (t + 0.02, f"SLURM_JOB_NODELIST={hostlist([n.host for n in R.nodes])}"),
                 (t + 0.03, f"MASTER_ADDR={R.nodes[0].host} MASTER_PORT={R.meta.get('port', 29500)} WORLD_SIZE={R.world}")]
        if rng.random() < 0.5:
            if R.meta["launcher"] == "torchrun":
                lines.append((t + 0.03, f"+ srun --kill-on-bad-exit=1 --ntasks-per-node=1 torchrun --nnodes={len(R.nodes)} "
                                        f"--nproc-per-node={R.gpn} --rdzv-backend=c10d --rdzv-endpoint={R.nodes[0].host}:29500 train.py"))
            else:
                lines.append((t + 0.03, f"+ srun --ntasks-per-node={R.gpn} --gpus-per-task=1 --cpu-bind=closest python -u train.py"))
        return lines

    def finish(self, R: Run):
        rng = self.rng
        streams = []
        jid, jn = R.meta["jobid"], R.meta["jobname"]
        mode = R.meta["mode"]
        ev = self.event_lines(R)
        pre = self.preamble(R)
        post = []
        if R.t_end:
            post.append((R.t_end + rng.uniform(1, 4), f_date_locale(R.lt(0, R.t_end + 4), R.meta["date_locale"])))
        batch = Stream("batch", "app", 0, path=f"slurm-{jid}.out" if rng.random() < 0.5 else f"{jn}-{jid}.out")
        for t, s in pre + post + ev:
            batch.add(R.lt(0, t), s, "stderr" if s.startswith(("srun", "slurmstepd")) else "stdout", t)
        if mode in ("srun-l", "plain"):
            for (t, rank, std, text) in R.app:
                ni = R.node_of(rank).idx
                _, lab = self._label(R, rank=rank)
                batch.add(R.lt(ni, t), (f"{lab}: " if mode == "srun-l" else "") + text, std, t)
            for (t, ni, std, text) in R.agent_out:
                _, lab = self._label(R, node=ni)
                batch.add(R.lt(ni, t), (f"{lab}: " if mode == "srun-l" else "") + text, std, t)
            streams.append(batch)
        else:
            streams.append(batch)
            per = {}
            for (t, rank, std, text) in R.app:
                ni = R.node_of(rank).idx
                tid, _ = self._label(R, rank=rank)
                per.setdefault(tid, (ni, []))[1].append((R.lt(ni, t), text, std, t))
            for (t, ni, std, text) in R.agent_out:
                tid, _ = self._label(R, node=ni)
                per.setdefault(tid, (ni, []))[1].append((R.lt(ni, t), text, std, t))
            for tid in sorted(per):
                ni, lines = per[tid]
                st = Stream(f"task{tid}", "app", ni, path=f"logs/{jn}-{jid}-{tid}.out", host=R.nodes[ni].host)
                st.lines = lines
                streams.append(st)
        for (t, std, text) in R.driver_out:
            batch.add(t, text, std)
        streams += self.kernel_streams(R)
        if rng.random() < 0.5 and R.cause is not None or rng.random() < 0.2:
            streams.append(self.sacct(R))
        return streams

    def sacct(self, R: Run):
        jid = R.meta["jobid"]
        el = f"{int((R.t_end - R.t0) // 3600):02d}:{int((R.t_end - R.t0) % 3600 // 60):02d}:{int((R.t_end - R.t0) % 60):02d}"
        state = R.meta.get("slurm_state") or ("COMPLETED" if R.exit_code == 0 else "FAILED")
        code = "0:0" if R.exit_code == 0 else R.meta.get("slurm_exit", "1:0")
        nl = R.nodes[0].host if len(R.nodes) == 1 else f"{R.nodes[0].host},..."
        rows = ["JobID           JobName  Partition    Account  AllocCPUS      State ExitCode    Elapsed        NodeList ",
                "------------ ---------- ---------- ---------- ---------- ---------- -------- ---------- --------------- "]
        rows.append(f"{jid:<12} {R.meta['jobname'][:10]:>10} {R.meta['partition'][:10]:>10} {'ml-res':>10} {len(R.nodes) * 64:>10} {state[:10]:>10} {code:>8} {el:>10} {nl[:15]:>15} ")
        rows.append(f"{str(jid) + '.batch':<12} {'batch':>10} {'':>10} {'ml-res':>10} {64:>10} {state[:10]:>10} {code:>8} {el:>10} {R.nodes[0].host[:15]:>15} ")
        rows.append(f"{str(jid) + '.0':<12} {'torchrun' if R.meta['launcher'] == 'torchrun' else 'python':>10} {'':>10} {'ml-res':>10} {len(R.nodes) * 64:>10} {state[:10]:>10} {code:>8} {el:>10} {nl[:15]:>15} ")
        st = Stream("sacct", "text", None, path="sacct.txt")
        for i, r in enumerate(rows):
            st.add(R.t_end + 60 + i * 1e-3, r)
        return st


# ============================================================================ Kubernetes
class K8s(Platform):
    name = "k8s"
    exporters = ("kubectl", "kubectl", "stern", "loki", "loki", "elastic", "datadog", "gcp", "cloudwatch", "ci")

    def setup(self, R: Run, nnodes, gpn, style=None, kind=None, operator="pytorchjob", container=None):
        rng = self.rng
        build_nodes(R, nnodes, gpn, "plain")
        R.meta["operator"] = operator
        R.meta["ns"] = rng.choice(["ml-training", "research", "team-llm", "default", "kubeflow-user", "rl-infra", "inference"])
        jname = rng.choice(["llama-70b-sft", "gpt-neox-20b", "mixtral-pt", "qwen2-ft", "t5-xxl", "resnet-mw",
                            "dpo-7b", "grpo-math", "vit-huge", "mamba-2p8b", "deepseek-moe"]) + f"-{alnum(rng, 4)}"
        R.meta["job"] = jname
        cloud = rng.choice(["gke", "eks", "aks", "onprem"])
        R.meta["cloud"] = cloud
        R.meta["container"] = container or {"pytorchjob": "pytorch", "jobset": "trainer", "volcano": "worker",
                                            "mpijob": "worker", "tfjob": "tensorflow", "paddlejob": "paddle",
                                            "lws": "main", "kuberay": "ray-worker", "plain": "train"}.get(operator, "main")
        pool = alnum(rng, 8, "0123456789abcdef")
        gke_pref = f"gke-{rng.choice(['ml', 'train', 'prod', 'research'])}-{rng.choice(['a3', 'a3mega', 'a2ultra', 'h100'])}-pool"
        aks_pool = rng.randint(10000000, 99999999)
        subnet = rng.choice(["10.8", "10.52", "192.168", "172.20"])
        for i, n in enumerate(R.nodes):
            if operator == "pytorchjob":
                pod = f"{jname}-master-0" if i == 0 else f"{jname}-worker-{i - 1}"
            elif operator == "jobset":
                pod = f"{jname}-workers-0-{i}-{alnum(rng, 5)}"
            elif operator == "volcano":
                pod = f"{jname}-worker-{i}"
            elif operator in ("mpijob", "tfjob", "paddlejob"):
                pod = f"{jname}-worker-{i}"
            elif operator == "lws":
                pod = f"{jname}-0" if i == 0 else f"{jname}-0-{i}"
            elif operator == "kuberay":
                pod = (f"{jname}-head-{alnum(rng, 5)}" if i == 0 and R.meta.get("head_has_gpu")
                       else f"{jname}-gpu-group-worker-{alnum(rng, 5)}")
            else:
                pod = f"{jname}-{i}-{alnum(rng, 5)}"
            if cloud == "gke":
                kn = f"{gke_pref}-{pool}-{alnum(rng, 4)}"
            elif cloud == "eks":
                ip = f"10.{rng.randint(0, 200)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}"
                kn = "ip-" + ip.replace(".", "-") + ".ec2.internal"
            elif cloud == "aks":
                kn = f"aks-gpupool-{aks_pool}-vmss{i + rng.randint(0, 3) * 0:06d}"
            else:
                kn = f"gpu-node-{rng.randint(1, 400):03d}"
            n.host = pod
            n.k8s_node = kn
            n.ip = f"{subnet}.{rng.randint(0, 250)}.{rng.randint(2, 250)}"
            n.aliases = [kn, n.ip]
            if cloud == "eks":
                n.aliases.append(kn.split(".")[0])
        R.meta["launcher"] = {"pytorchjob": "torchrun", "jobset": "torchrun", "volcano": "torchrun",
                              "mpijob": "mpirun", "lws": "torchrun"}.get(operator, operator)

    def pod_streams(self, R: Run):
        """One stream per pod/container.  MPIJob: everything in the launcher pod."""
        streams = []
        op = R.meta["operator"]
        c = R.meta["container"]
        if op == "mpijob":
            lname = f"{R.meta['job']}-launcher-{alnum(self.rng, 5)}"
            R.meta["launcher_pod"] = lname
            st = Stream(f"pod:{lname}", "app", None, pod=lname, container="mpi-launcher",
                        k8s_node=R.nodes[0].k8s_node)
            for (t, rank, std, text) in R.app:
                ni = R.node_of(rank).idx
                st.add(R.lt(ni, t), f"[1,{rank}]<{std}>:{text}", std, t)
            for (t, std, text) in R.driver_out:
                st.add(t, text, std)
            for (t, ni, std, text) in R.agent_out:
                st.add(R.lt(ni, t), text, std, t)
            streams.append(st)
            for n in R.nodes:
                w = Stream(f"pod:{n.host}", "app", n.idx, pod=n.host, container=c, k8s_node=n.k8s_node)
                w.add(R.lt(n.idx, R.t0 - 40), "Server listening on 0.0.0.0 port 22.")
                w.add(R.lt(n.idx, R.t0 - 40), "Server listening on :: port 22.")
                w.add(R.lt(n.idx, R.t0 - 20), f"Accepted publickey for root from {R.nodes[0].ip} port {self.rng.randint(30000, 60000)} ssh2: RSA SHA256:{alnum(self.rng, 43, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/')}")
                streams.append(w)
            return streams
        for n in R.nodes:
            st = Stream(f"pod:{n.host}", "app", n.idx, pod=n.host, container=c, k8s_node=n.k8s_node)
            streams.append(st)
        for (t, rank, std, text) in R.app:
            ni = R.node_of(rank).idx
            if R.meta.get("per_node_logs") and rank != R.nodes[ni].first_rank:
                continue     # paddle launch: only local rank 0 goes to the console, the rest to log/workerlog.N
            streams[ni].add(R.lt(ni, t), text, std, t)
        for (t, ni, std, text) in R.agent_out:
            streams[ni].add(R.lt(ni, t), text, std, t)
        for (t, std, text) in R.driver_out:
            streams[0].add(t, text, std)
        return streams

    def k8s_events(self, R: Run):
        """Rows (t, type, reason, object, message) as the API server recorded them."""
        rng = self.rng
        rows = []
        op = R.meta["operator"]
        kindobj = {"pytorchjob": "pytorchjob", "jobset": "jobset", "volcano": "job", "mpijob": "mpijob",
                   "tfjob": "tfjob", "paddlejob": "paddlejob", "lws": "leaderworkerset", "kuberay": "rayjob"}.get(op, "job")
        job = R.meta["job"]
        t = R.t0 - rng.uniform(60, 200)
        for n in R.nodes[: min(4, len(R.nodes))]:
            rows.append((t, "Normal", "Scheduled", f"pod/{n.host}",
                         f"Successfully assigned {R.meta['ns']}/{n.host} to {n.k8s_node}"))
            rows.append((t + 4, "Normal", "Pulled", f"pod/{n.host}",
                         f"Container image \"{R.meta.get('image', 'nvcr.io/nvidia/pytorch:24.05-py3')}\" already present on machine"))
            rows.append((t + 5, "Normal", "Created", f"pod/{n.host}", f"Created container {R.meta['container']}"))
            rows.append((t + 6, "Normal", "Started", f"pod/{n.host}", f"Started container {R.meta['container']}"))
        for (te, kind, ni, info) in sorted(R.events, key=lambda e: e[0]):
            n = R.nodes[ni] if ni is not None else None
            if kind == "oom_kill" and n is not None:
                rows.append((te, "Warning", "OOMKilling", f"node/{n.k8s_node}",
                             f"Memory cgroup out of memory: Killed process {info.get('pid')} ({info.get('comm', 'python')}) "
                             f"total-vm:{info.get('vm', 0)}kB, anon-rss:{info.get('rss', 0)}kB, file-rss:{rng.randint(40000, 900000)}kB, "
                             f"shmem-rss:{rng.randint(0, 99999)}kB, UID:0 pgtables:{rng.randint(20000, 200000)}kB oom_score_adj:{info.get('adj', 904)}"))
            elif kind == "node_preempt" and n is not None:
                if R.meta["cloud"] == "gke":
                    rows.append((te, "Warning", "NodeShutdown", f"node/{n.k8s_node}",
                                 "Node is shutting down: GracefulNodeShutdown (preempted spot VM)"))
                    rows.append((te + 1, "Normal", "Killing", f"pod/{n.host}", f"Stopping container {R.meta['container']}"))
                elif R.meta["cloud"] == "eks":
                    rows.append((te - 118, "Warning", "SpotInterruption", f"node/{n.k8s_node}",
                                 "Received a Spot interruption warning; node is going to be terminated in 2 minutes"))
                    rows.append((te - 117, "Normal", "CordonAndDrain", f"node/{n.k8s_node}",
                                 "Node successfully cordoned and drained (aws-node-termination-handler)"))
                    rows.append((te - 110, "Normal", "Killing", f"pod/{n.host}", f"Stopping container {R.meta['container']}"))
                else:
                    rows.append((te, "Warning", "Evicted", f"pod/{n.host}",
                                 "The node was low on resource: preempted by higher priority workload"))
                    rows.append((te + 1, "Normal", "Killing", f"pod/{n.host}", f"Stopping container {R.meta['container']}"))
            elif kind == "preempt_job":
                rows.append((te, "Normal", "Preempted", f"workload/{kindobj}-{job}-{hexid(rng, 5)}",
                             f"Preempted to accommodate a workload (UID: {hexid(rng, 8)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 12)}) "
                             f"due to prioritization in the ClusterQueue"))
                for m in R.nodes[: min(3, len(R.nodes))]:
                    rows.append((te + 0.5, "Normal", "Killing", f"pod/{m.host}", f"Stopping container {R.meta['container']}"))
            elif kind == "user_cancel":
                for m in R.nodes[: min(3, len(R.nodes))]:
                    rows.append((te, "Normal", "Killing", f"pod/{m.host}", f"Stopping container {R.meta['container']}"))
            elif kind == "node_notready" and n is not None:
                rows.append((te, "Normal", "NodeNotReady", f"node/{n.k8s_node}", f"Node {n.k8s_node} status is now: NodeNotReady"))
                rows.append((te + 40, "Warning", "NodeNotReady", f"pod/{n.host}", "Node is not ready"))
            elif kind == "task_exit" and n is not None and info.get("pod_fail"):
                pass
            elif kind == "backoff" and n is not None:
                rows.append((te, "Warning", "BackOff", f"pod/{n.host}", f"Back-off restarting failed container {R.meta['container']} in pod {n.host}"))
            elif kind == "k8s_raw":
                rows.append((te, info.get("type", "Warning"), info["reason"], info["obj"], info["msg"]))
        if R.t_end:
            if R.exit_code == 0:
                rows.append((R.t_end + 3, "Normal", "JobSucceeded" if op != "jobset" else "AllJobsCompleted",
                             f"{kindobj}/{job}", f"{kindobj.capitalize() if op != 'pytorchjob' else 'PyTorchJob'} {job} is successfully completed."))
            elif R.meta.get("k8s_fail_reason") != "none":
                rows.append((R.t_end + 3, "Warning", "JobFailed" if op != "jobset" else "FailedJobs",
                             f"{kindobj}/{job}", R.meta.get("k8s_fail_msg", f"{job} failed: pod {R.meta.get('first_failed_pod', R.nodes[0].host)} exited with code {R.exit_code}")))
        rows.sort(key=lambda r: r[0])
        return rows

    def events_text(self, R: Run, rows):
        now = (R.t_end or R.t0) + self.rng.uniform(120, 2400)
        hdr = f"{'LAST SEEN':<10} {'TYPE':<8} {'REASON':<20} {'OBJECT':<55} MESSAGE"
        st = Stream("events", "text", None, path="kubectl-get-events.txt")
        st.add(now - 1e6, hdr)
        for (t, ty, rs, obj, msg) in rows:
            st.add(t, f"{f_age(now - t):<10} {ty:<8} {rs:<20} {obj:<55} {msg}")
        return st

    def pod_status(self, R: Run):
        """`kubectl get pods -o wide` and a `describe pod` of the first failed pod."""
        rng = self.rng
        now = (R.t_end or R.t0) + rng.uniform(120, 2400)
        st = Stream("pods", "text", None, path="kubectl-get-pods.txt")
        st.add(0, f"{'NAME':<48} {'READY':<6} {'STATUS':<18} {'RESTARTS':<9} {'AGE':<6} {'IP':<16} NODE")
        statuses = R.meta.get("pod_status", {})
        restarts = R.meta.get("pod_restarts", {})
        rows = []
        if R.meta.get("launcher_pod"):
            rows.append((R.meta["launcher_pod"], statuses.get("launcher", "Error" if R.exit_code else "Completed"), 0, "10.8.0.3", R.nodes[0].k8s_node))
        for n in R.nodes:
            default = "Completed" if R.exit_code == 0 else "Error"
            rows.append((n.host, statuses.get(n.idx, default), restarts.get(n.idx, 0), n.ip, n.k8s_node))
        for i, (pod, s, rs, ip, kn) in enumerate(rows):
            st.add(i + 1, f"{pod:<48} {'0/1':<6} {s:<18} {rs:<9} {f_age(now - R.t0 + 200):<6} {ip:<16} {kn}")
        out = [st]
        fp = R.meta.get("describe")
        if fp is not None:
            n = R.nodes[fp["node"]]
            d = Stream("describe", "text", None, path=f"describe-pod-{n.host}.txt")
            lines = [f"Name:             {n.host}", f"Namespace:        {R.meta['ns']}",
                     f"Priority:         {rng.choice([0, 1000, 100000])}", f"Node:             {n.k8s_node}/{n.aliases[1] if len(n.aliases) > 1 else n.ip}",
                     f"Start Time:       {utc(R.t0 - 180).strftime('%a, %d %b %Y %H:%M:%S +0000')}",
                     f"Labels:           training.kubeflow.org/job-name={R.meta['job']}",
                     f"                  training.kubeflow.org/replica-index={n.idx}",
                     f"Status:           {fp.get('phase', 'Failed')}", f"IP:               {n.ip}",
                     "Containers:", f"  {R.meta['container']}:",
                     f"    Image:         {R.meta.get('image', 'nvcr.io/nvidia/pytorch:24.05-py3')}",
                     f"    State:          {fp.get('state', 'Terminated')}",
                     f"      Reason:       {fp.get('reason', 'Error')}",
                     f"      Exit Code:    {fp.get('code', 1)}",
                     f"      Started:      {utc(R.t0 - 60).strftime('%a, %d %b %Y %H:%M:%S +0000')}",
                     f"      Finished:     {utc(fp.get('t', R.t_end)).strftime('%a, %d %b %Y %H:%M:%S +0000')}",
                     f"    Ready:          False", f"    Restart Count:  {fp.get('restarts', 0)}",
                     "    Limits:", f"      cpu:             {rng.choice([96, 128, 180])}",
                     f"      memory:          {fp.get('memlimit', rng.choice(['1600Gi', '1000Gi', '800Gi', '480Gi']))}",
                     f"      nvidia.com/gpu:  {R.gpn}" if R.meta.get("vendor", "nvidia") == "nvidia" else f"      {R.meta.get('gpu_res', 'amd.com/gpu')}:  {R.gpn}",
                     "Conditions:", "  Type              Status", "  Initialized       True", "  Ready             False",
                     "  ContainersReady   False", "  PodScheduled      True"]
            if fp.get("message"):
                lines.insert(8, f"Message:          {fp['message']}")
                lines.insert(8, f"Reason:           {fp.get('pod_reason', 'Terminated')}")
            for i, l in enumerate(lines):
                d.add(i, l)
            out.append(d)
        return out

    def finish(self, R: Run):
        streams = self.pod_streams(R)
        streams += self.kernel_streams(R, host_of=lambda n: n.k8s_node)
        rows = self.k8s_events(R)
        R.meta["k8s_event_rows"] = rows
        streams.append(self.events_text(R, rows))
        if self.rng.random() < 0.8:
            streams += self.pod_status(R)
        return streams


# ============================================================================ Ray cluster
class RayCluster(Platform):
    name = "ray"
    exporters = ("native", "native", "native", "loki", "gcp", "elastic")

    def setup(self, R: Run, nnodes, gpn, style="aws", kind=None, actor="RayTrainWorker"):
        rng = self.rng
        build_nodes(R, nnodes, gpn, style, kind)
        R.meta["actor"] = actor
        R.meta["launcher"] = "ray"
        R.meta["session"] = f"session_{utc(R.t0 - 900).strftime('%Y-%m-%d_%H-%M-%S')}_{rng.randint(100000, 999999)}_{rng.randint(1, 99)}"
        R.meta["jobid"] = f"raysubmit_{alnum(rng, 16, 'ABCDEFGHIJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz123456789')}"
        R.meta["head_ip"] = f"10.{rng.randint(0, 200)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}"
        R.meta["head_host"] = "ray-head" if style != "aws" else "ip-" + R.meta["head_ip"].replace(".", "-")
        R.meta["node_ids"] = [hexid(rng, 56) for _ in R.nodes]
        R.meta["actor_ids"] = {r: hexid(rng, 24) + f"{rng.randint(1, 9):02d}000000" for r in range(R.world)}
        R.meta["worker_ids"] = {r: hexid(rng, 56) for r in range(R.world)}

    def prefix(self, R, rank):
        n = R.node_of(rank)
        return f"({R.meta['actor']} pid={R.pid(rank)}, ip={n.ip})"

    def finish(self, R: Run):
        rng = self.rng
        streams = []
        drv = Stream("driver", "app", None, path=f"job-driver-{R.meta['jobid']}.log")
        for (t, std, text) in R.driver_out:
            drv.add(t, text, std)
        # Ray forwards worker stdout/stderr to the driver with actor prefixes; it dedups repeats.
        seen = {}
        for (t, rank, std, text) in R.app:
            ni = R.node_of(rank).idx
            key = text.strip()
            if R.meta.get("dedup", True) and key and not key[0].isdigit() and len(key) < 200:
                cnt = seen.get(key, 0)
                seen[key] = cnt + 1
                if cnt >= 1 and cnt < 50:
                    continue
            drv.add(R.lt(0, t + 0.05), f"{self.prefix(R, rank)} {text}", std, t + 0.05)   # stamped by the head node
        streams.append(drv)
        sess = R.meta["session"]
        for n in R.nodes:
            base = f"ray-logs/{n.host}/{sess}/logs"
            for r in n.ranks:
                wid = R.meta["worker_ids"][r]
                st = Stream(f"worker{r}", "app", n.idx, path=f"{base}/worker-{wid}-01000000-{R.pid(r)}.err",
                            host=n.host)
                so = Stream(f"workerout{r}", "app", n.idx, path=f"{base}/worker-{wid}-01000000-{R.pid(r)}.out",
                            host=n.host)
                so.add(R.lt(n.idx, R.t0 - 5), f":actor_name:{R.meta['actor']}")
                for (t, rank, std, text) in R.app:
                    if rank == r:
                        (st if std == "stderr" else so).add(R.lt(n.idx, t), text, std, t)
                streams += [st, so]
            rl = Stream(f"raylet{n.idx}", "app", n.idx, path=f"{base}/raylet.out", host=n.host)
            for (t, ni, std, text) in R.agent_out:
                if ni == n.idx:
                    rl.add(R.lt(n.idx, t), text, std, t)
            streams.append(rl)
        streams += self.kernel_streams(R)
        return streams


# ============================================================================ SageMaker
class SageMaker(Platform):
    name = "sagemaker"
    exporters = ("cloudwatch",)

    def setup(self, R: Run, nnodes, gpn, style=None, kind=None, launcher="mpi"):
        rng = self.rng
        build_nodes(R, nnodes, gpn, "plain")
        for i, n in enumerate(R.nodes):
            ip = f"10.{rng.randint(0, 3)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}"
            n.host = f"algo-{i + 1}"
            n.ip = ip
            n.aliases = ["ip-" + ip.replace(".", "-"), ip]
        R.meta["launcher"] = launcher
        R.meta["job"] = rng.choice(["hf-llama-ft", "pt-gpt-pretrain", "smp-neox", "bloom-ft", "falcon-sft"]) + "-" + utc(R.t0).strftime("%Y-%m-%d-%H-%M-%S-") + f"{rng.randint(0, 999):03d}"

    def finish(self, R: Run):
        streams = []
        for n in R.nodes:
            st = Stream(f"algo{n.idx}", "app", n.idx, path=None, log_stream=f"{R.meta['job']}/{n.host}-{int(R.t0 - 300)}",
                        host=n.host)
            streams.append(st)
        for (t, rank, std, text) in R.app:
            ni = R.node_of(rank).idx
            if R.meta["launcher"] == "mpi":
                # mpirun --tag-output as configured by the SageMaker MPI launcher: all on the leader
                streams[0].add(R.lt(ni, t), f"[1,mpirank:{rank},algo-{ni + 1}]<{std}>:{text}", std, t)
            else:
                streams[ni].add(R.lt(ni, t), text, std, t)
        for (t, ni, std, text) in R.agent_out:
            streams[ni].add(R.lt(ni, t), text, std, t)
        for (t, std, text) in R.driver_out:
            streams[0].add(t, text, std)
        return streams


# ============================================================================ Vertex AI custom job
class Vertex(Platform):
    name = "vertex"
    exporters = ("gcp",)

    def setup(self, R: Run, nnodes, gpn, style=None, kind=None, launcher="torchrun"):
        rng = self.rng
        build_nodes(R, nnodes, gpn, "plain")
        R.meta["project"] = rng.choice(["ml-prod-4471", "research-llm", "acme-vertex"])
        R.meta["job_id"] = str(rng.randint(10 ** 18, 10 ** 19 - 1))
        for i, n in enumerate(R.nodes):
            n.host = "workerpool0-0" if i == 0 else f"workerpool1-{i - 1}"
            hn = f"cmle-training-{rng.randint(10 ** 9, 10 ** 10 - 1)}-{i}"
            n.aliases = [hn, n.ip]
        R.meta["launcher"] = launcher

    def finish(self, R: Run):
        streams = []
        for n in R.nodes:
            streams.append(Stream(f"task{n.idx}", "app", n.idx, task=n.host))
        for (t, rank, std, text) in R.app:
            ni = R.node_of(rank).idx
            streams[ni].add(R.lt(ni, t), text, std, t)
        for (t, ni, std, text) in R.agent_out:
            streams[ni].add(R.lt(ni, t), text, std, t)
        for (t, std, text) in R.driver_out:
            streams[0].add(t, text, std)
        return streams


# ============================================================================ TPU VM slice
class TpuVm(Platform):
    name = "tpuvm"
    exporters = ("gcp", "native")

    def setup(self, R: Run, nnodes, gpn, style=None, kind=None, launcher="jax"):
        rng = self.rng
        build_nodes(R, nnodes, gpn, "plain")
        h = hexid(rng, 8)
        R.meta["tpu_name"] = rng.choice(["v5p-256-train", "v4-128-pt", "v5e-256-sft", "v6e-64-exp"])
        R.meta["zone"] = rng.choice(["us-central2-b", "us-east5-a", "europe-west4-b", "us-east1-d"])
        R.meta["project"] = rng.choice(["tpu-research-12", "llm-pretrain-prod"])
        for i, n in enumerate(R.nodes):
            n.host = f"t1v-n-{h}-w-{i}"
            n.aliases = [f"{R.meta['tpu_name']}-w-{i}", n.ip]
        R.meta["launcher"] = launcher

    def finish(self, R: Run):
        streams = []
        for n in R.nodes:
            streams.append(Stream(f"w{n.idx}", "app", n.idx, path=f"{n.host}/train.log" if self.rng.random() < 0.7 else f"logs/worker-{n.idx}-{n.host}.log", host=n.host))
        for (t, rank, std, text) in R.app:
            ni = R.node_of(rank).idx
            streams[ni].add(R.lt(ni, t), text, std, t)
        for (t, ni, std, text) in R.agent_out:
            streams[ni].add(R.lt(ni, t), text, std, t)
        for (t, std, text) in R.driver_out:
            streams[0].add(t, text, std)
        streams += self.kernel_streams(R)
        return streams


# ============================================================================ bare metal: ssh / mpirun / pdsh
class Ssh(Platform):
    name = "ssh"
    exporters = ("native", "native", "syslog", "journald", "elastic", "ci")

    def setup(self, R: Run, nnodes, gpn, style="gpu-dash", kind=None, launcher="mpirun"):
        build_nodes(R, nnodes, gpn, style, kind)
        R.meta["launcher"] = launcher
        R.meta["tag_style"] = self.rng.choice(["tag", "tag", "timestamp", "label"])

    def finish(self, R: Run):
        rng = self.rng
        L = R.meta["launcher"]
        streams = []
        con = Stream("console", "app", 0, path=R.meta.get("console_path", "launcher.log"))
        if L == "mpirun" and not R.driver_out:
            if len(R.nodes) <= 6:
                hs = ",".join(f"{n.host}:{R.gpn}" for n in R.nodes)
                con.add(R.t0 - 3, f"$ mpirun -np {R.world} -H {hs} --map-by slot --bind-to none -x NCCL_DEBUG -x MASTER_ADDR={R.nodes[0].host} python -u train.py", "stdout", R.t0 - 3)
            else:
                con.add(R.t0 - 3, f"$ mpirun -np {R.world} --hostfile hostfile --map-by ppr:{R.gpn}:node --bind-to none python -u train.py", "stdout", R.t0 - 3)
                R.files["hostfile"] = "".join(f"{n.host} slots={R.gpn}\n" for n in R.nodes)
        if L == "pdsh":
            con.add(R.t0 - 3, f"[{f_pylog(R.t0 - 3)}] [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w {','.join(n.host for n in R.nodes)} export PYTHONPATH=/workspace; cd /workspace; /usr/bin/python -u -m deepspeed.launcher.launch --world_info=eyJ... --node_rank=%n --master_addr={R.nodes[0].host} --master_port=29500 train.py --deepspeed ds_config.json", "stdout", R.t0 - 3)
        for (t, std, text) in R.driver_out:
            con.add(t, text, std)
        per_node = R.meta.get("per_node_logs")   # paddle: log/workerlog.N on each node
        for (t, rank, std, text) in R.app:
            ni = R.node_of(rank).idx
            tl = R.lt(ni, t)
            if per_node:
                continue
            if L in ("mpirun", "horovodrun"):
                ts = R.meta["tag_style"]
                if ts == "timestamp":
                    con.add(tl, f"{utc(tl).strftime('%a %b %d %H:%M:%S %Y')}[1,{rank}]<{std}>:{text}", std, t)
                elif ts == "label" and L == "mpirun":
                    con.add(tl, f"{rank}: {text}", std, t)   # PALS mpiexec -l style
                elif L == "horovodrun" and R.meta.get("gloo"):
                    con.add(tl, f"[{rank}]<{std}>:{text}", std, t)
                else:
                    con.add(tl, f"[1,{rank}]<{std}>:{text}", std, t)
            elif L == "pdsh":
                con.add(tl, f"{R.nodes[ni].host}: {text}", std, t)
            else:
                con.add(tl, text, std, t)
        for (t, ni, std, text) in R.agent_out:
            tl = R.lt(ni, t)
            if L == "pdsh":
                con.add(tl, f"{R.nodes[ni].host}: {text}", std, t)
            elif not per_node:
                con.add(tl, text, std, t)
        streams.append(con)
        if per_node:
            for n in R.nodes:
                for r in n.ranks:
                    st = Stream(f"wl{r}", "app", n.idx, path=f"log/{n.host}/workerlog.{r - n.first_rank if per_node == 'local' else r}",
                                host=n.host)
                    for (t, rank, std, text) in R.app:
                        if rank == r:
                            st.add(R.lt(n.idx, t), text, std, t)
                    streams.append(st)
            for (t, ni, std, text) in R.agent_out:
                pass
            # launcher output per node
            for n in R.nodes:
                st = Stream(f"launch{n.idx}", "app", n.idx, path=f"log/{n.host}/launch.log", host=n.host)
                for (t, ni, std, text) in R.agent_out:
                    if ni == n.idx:
                        st.add(R.lt(ni, t), text, std, t)
                if st.lines:
                    streams.append(st)
        streams += self.kernel_streams(R)
        return streams


PLATFORMS = {"slurm": Slurm, "k8s": K8s, "ray": RayCluster, "sagemaker": SageMaker,
             "vertex": Vertex, "tpuvm": TpuVm, "ssh": Ssh}
