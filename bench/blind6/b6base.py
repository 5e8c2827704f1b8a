"""Scenario base: per-rank output, launcher output, kernel logs, pieces.

A scenario simulates one job (World) with one injected fault.  Subclasses (b6causes)
decide the culprit and what it prints; this base supplies the generic behaviour of the
other ranks, of the launchers, and turns everything into Pieces a user could paste.
"""
import math
import re

import b6lines as L
from b6lines import Out
from b6world import f_comma, f_glog

OPS_DDP = ["ALLREDUCE"]
OPS_FSDP = ["_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "ALLGATHER", "REDUCE_SCATTER"]


class Piece:
    """A block of text a user could paste or attach."""

    def __init__(self, name, kind, lines, node=None, rank=None, title=None, lang="text", fname=None):
        self.name = name
        self.kind = kind      # console | rankfile | kernel | smi | summary | k8s | analysis | misc | scheduler
        self.lines = lines    # list of (text, key)
        self.node = node
        self.rank = rank
        self.title = title
        self.lang = lang
        self.fname = fname

    def text(self):
        return "\n".join(t for t, _ in self.lines)

    def has_key(self):
        # key=True marks cause evidence; key="map" only ties a rank to a pid/host (kept, not evidence)
        return any(k is True for _, k in self.lines)


class Scenario:
    cause = None
    drain = False
    node_level = False

    def __init__(self, rng, w, stack, style):
        self.rng = rng
        self.w = w
        self.stack = stack
        self.style = style
        self.notes = ""
        self.culprit = None        # rank
        self.cnode = None          # node index
        self.rank_inferable = True
        self.truth_rank = None
        self.truth_node = None
        self.fates = {}
        self._rank_cache = {}
        self._kern_cache = {}
        self.kernel_events = {}    # node -> list of (t, text, key)
        self.extra = {}            # name -> Piece
        self.required = []         # list of groups (lists of piece names)
        self.rank_groups = []      # piece names that establish the rank
        self.hints = []            # user sentences that carry information
        self.decoy_hints = []
        self.nccl_debug = rng.random() < 0.55
        self.desync_debug = False
        self.fsdp = rng.random() < 0.45
        self.op = rng.choice(OPS_FSDP) if self.fsdp else "ALLREDUCE"
        self.numel = rng.choice([1, 2, 8, 1024, 4194304, 16777216, 26214400, 131072000, 58720256])
        if w.tv >= (2, 2):
            self.timeout_ms = 600000
        else:
            self.timeout_ms = 1800000
        if rng.random() < 0.35:
            self.timeout_ms = rng.choice([1800000, 3600000, 5400000, 7200000, 300000, 900000, 10800000])
        self.step_time = rng.choice([rng.uniform(0.25, 1.5), rng.uniform(1.5, 6.0), rng.uniform(6, 14)])
        self.t_train = w.t0 + rng.uniform(40, 420)
        self.fault_step = rng.choice([rng.randint(3, 60), rng.randint(100, 3000), rng.randint(3000, 90000)])
        self.t_fault = self.t_train + self.fault_step * self.step_time + rng.uniform(0, self.step_time)
        self.coll_per_step = rng.choice([1, 2, 3, 12, 25, 48, 97, 161])
        self.seq = self.fault_step * self.coll_per_step + rng.randint(1, 5)
        self.log_every = rng.choice([1, 5, 10, 10, 20, 50, 100])
        self.kill_scope = {"torchrun": "node", "slurm_torchrun": "node", "deepspeed": "node", "k8s": "node",
                           "accelerate": "node", "mpirun": "job", "sagemaker": "job", "ray": "job",
                           "slurm_srun": rng.choice(["none", "job"]), "jax": "none",
                           "azureml": "node"}.get(stack, "node")
        self.peer_mode = rng.choice(["timeout", "timeout", "remote"])
        self.tee = stack in ("torchrun", "slurm_torchrun", "k8s") and rng.random() < 0.35
        self.srun_label = stack in ("slurm_srun", "slurm_torchrun") and rng.random() < 0.7
        self.rank_tb_prefix = w.tv >= (2, 3) and rng.random() < 0.85
        self.healthy = False
        self.t_end_job = None
        self.second_fault = None

    # ------------------------------------------------------------------ helpers
    def T(self):
        return self.timeout_ms / 1000.0

    def lh(self, r):
        return self.w.host_of(r).name

    def set_culprit(self, r):
        self.culprit = r
        self.cnode = self.w.node_of(r)
        self.truth_rank = r
        self.truth_node = self.cnode

    def set_node_culprit(self, n):
        self.cnode = n
        self.culprit = self.w.ranks_on(n)[0]
        self.truth_rank = self.culprit
        self.truth_node = n

    def kev(self, n, t, text, key=False):
        self.kernel_events.setdefault(n, []).append((t, text, key))

    # ------------------------------------------------------------------ fates
    def culprit_fate(self):
        """Subclass: dict(kind=..., t=..., exit=...) for the culprit rank(s)."""
        raise NotImplementedError

    def compute_fates(self):
        w = self.w
        rng = self.rng
        cf = self.culprit_fate()
        if "kind" in cf:
            cf = {self.culprit: cf}
        self.fates.update(cf)
        for f in cf.values():
            f.setdefault("culprit", True)
        dead = [(f["t"], r) for r, f in cf.items() if f.get("exit") is not None and f["kind"] not in ("hung", "ok")]
        t_dead = min(dead)[0] if dead else None
        dead_nodes = {w.node_of(r) for _, r in dead}
        hang_start = min(f.get("t_stop", f["t"]) for f in cf.values())
        for r in range(w.world):
            if r in self.fates:
                continue
            n = w.node_of(r)
            jit = rng.uniform(0.0, 2.5) + (n % 7) * 0.05
            t_to = hang_start + self.T() + jit          # when its own watchdog would fire
            if t_dead is not None and self.kill_scope == "job" and t_dead + 0.5 < t_to:
                self.fates[r] = dict(kind="killed", t=t_dead + 0.4 + jit * 0.1, exit=-15)
            elif t_dead is not None and self.kill_scope == "node" and n in dead_nodes and t_dead + 0.3 < t_to:
                self.fates[r] = dict(kind="killed", t=t_dead + 0.2 + jit * 0.05, exit=-15)
            elif t_dead is not None and self.peer_mode == "remote" and t_dead + 45 < t_to:
                self.fates[r] = dict(kind="remote", t=t_dead + rng.uniform(0.5, 40), exit=-6)
            else:
                self.fates[r] = dict(kind="timeout", t=t_to, exit=-6)
        # hung culprits get killed when their node's launcher tears down
        for r, f in cf.items():
            if f["kind"] in ("hung",):
                n = w.node_of(r)
                others = [self.fates[x]["t"] for x in w.ranks_on(n) if x != r and self.fates[x]["kind"] != "hung"]
                if self.kill_scope in ("node", "job") and others:
                    f["t_kill"] = min(others) + 0.3
                else:
                    allt = [x["t"] for x in self.fates.values() if x["kind"] != "hung"]
                    f["t_kill"] = (min(allt) if allt else f["t"]) + rng.uniform(5, 60)
                f["exit"] = -15
        ends = [f.get("t_kill", f["t"]) for f in self.fates.values()]
        self.t_end_job = max(ends) + rng.uniform(1, 8)

    def end_t(self, r):
        f = self.fates[r]
        return f.get("t_kill", f["t"])

    # ------------------------------------------------------------------ per-rank output
    def rank_out(self, r):
        if r in self._rank_cache:
            return self._rank_cache[r]
        o = Out()
        self.startup(o, r)
        f = self.fates.get(r)
        stop = f.get("t_stop", f["t"]) if f else self.t_end_job
        if self.prints_progress(r):
            self.progress(o, r, self.t_train, min(stop, self.t_fault) if f and f["kind"] != "ok" else stop)
        self.rank_extra(o, r)
        if r in (self.culprits() if hasattr(self, "culprits") else [self.culprit]):
            self.culprit_lines(o, r)
        else:
            self.peer_lines(o, r)
        self._rank_cache[r] = o
        return o

    def culprits(self):
        return [r for r, f in self.fates.items() if f.get("culprit")] or [self.culprit]

    def rank_extra(self, o, r):
        pass

    def prints_progress(self, r):
        if self.style == "megatron":
            return r == self.w.world - 1
        if self.style == "perrank":
            return True
        return r == 0

    def startup(self, o, r):
        w, rng = self.w, self.rng
        t = w.t0 + 5 + (r % 17) * 0.03
        if self.nccl_debug and self.stack != "jax":
            L.nccl_init_lines(w, rng, o, r, self.t_train - 20 + r * 0.001,
                              net="IB" if self.net() == "IB" else "Socket",
                              verbose=(r < 2 or rng.random() < 0.2), key_map="map")
        if self.stack == "jax":
            return
        pool = self.noise_warnings(r)
        k = rng.randint(0, 2) if r else rng.randint(1, 3)
        for line in rng.sample(pool, min(k, len(pool))):
            o.add(t + rng.uniform(0, 30), line)

    def net(self):
        if not hasattr(self, "_net"):
            self._net = "IB" if self.rng.random() < 0.7 else "Socket"
        return self._net

    def noise_warnings(self, r):
        w = self.w
        s = w.site
        pool = [
            f"{s}/torch/utils/data/dataloader.py:558: UserWarning: This DataLoader will create 16 worker processes in total. "
            "Our suggested max number of worker in current system is 12, which is smaller than what this DataLoader is going "
            "to create. Please be aware that excessive worker creation might get DataLoader running slow or even freeze, "
            "lower the worker number to avoid potential slowness/freeze if necessary.\n  warnings.warn(_create_warning_msg(",
            f"{s}/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and "
            "UntypedStorage will be the only storage class. This should only matter to you if you are using storages "
            "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()\n"
            "  return self.fget.__get__(instance, owner)()",
            "Detected kernel version 4.18.0, which is below the recommended minimum of 5.5.0; this can cause the process "
            "to hang. It is recommended to upgrade the kernel to the minimum version or higher.",
        ]
        if w.tv >= (2, 2):
            pool.append(L.c10p(w, r, "W", w.t0 + 3, "Utils.hpp", 164) +
                        "Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use "
                        "TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function operator())")
        if w.tv >= (2, 4):
            pool.append(L.c10p(w, r, "W", w.t0 + 9, "ProcessGroupNCCL.cpp", 4115) +
                        f"{L.pgtag(w, r)}  using GPU {w.local(r)} to perform barrier as devices used by this process are "
                        "currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect."
                        "Specify device_ids in barrier() to force use of a particular device,or call init_process_group() "
                        "with a device_id.")
        if r != 0:
            pool.append(("[W socket.cpp:464] " if w.tv < (2, 4) else L.c10p(w, r, "W", w.t0 + 2, "socket.cpp", 697).split(":", 1)[-1])
                        + f"[c10d] The client socket has failed to connect to [{w.master.name}]:{w.port} "
                          "(errno: 111 - Connection refused).")
        return pool

    # ------------------------------------------------------------------ progress
    def step_times(self, r, step):
        return self.step_time

    def progress(self, o, r, t_a, t_b):
        w, rng = self.w, self.rng
        st = self.step_time
        if t_b <= t_a:
            return
        n_steps = int((t_b - t_a) / st)
        if n_steps <= 0:
            return
        every = self.log_every
        lines_budget = rng.randint(8, 40)
        if n_steps / every > lines_budget:
            start_step = max(0, n_steps - lines_budget * every)
        else:
            start_step = 0
        total = max(n_steps * 4, 1000)
        total = int(math.ceil(total / 1000.0) * 1000)
        n = w.node_of(r)
        loss = rng.uniform(1.8, 3.2)
        for s in range(start_step + every, n_steps + 1, every):
            t = t_a + s * st
            loss = max(0.8, loss + rng.uniform(-0.03, 0.02))
            sti = self.step_times(r, s)
            o.add(t, self.progress_line(r, n, t, s, total, loss, sti), stream="out")
            if self.style == "perrank" and rng.random() < 0.02:
                pass

    def progress_line(self, r, n, t, s, total, loss, st):
        w, rng = self.w, self.rng
        d = w.local_dt(t, n)
        sty = self.style
        if sty == "hf":
            if rng.random() < 0.7:
                pct = int(100 * s / total)
                el = int(s * st)
                rem = int((total - s) * st)
                bar = "█" * (pct // 10) + ("▏" if pct % 10 else "") 
                return (f"\r {pct:>3}%|{bar:<10}| {s}/{total} [{el // 3600}:{el % 3600 // 60:02d}:{el % 60:02d}<"
                        f"{rem // 3600}:{rem % 3600 // 60:02d}:{rem % 60:02d}, {st:5.2f}s/it]")
            return (f"{{'loss': {loss:.4f}, 'grad_norm': {rng.uniform(0.2, 1.4):.6f}, 'learning_rate': "
                    f"{rng.uniform(1e-5, 3e-4):.4e}, 'epoch': {s / total * 3:.2f}}}")
        if sty == "megatron":
            return (f" [{d.strftime('%Y-%m-%d %H:%M:%S')}] iteration {s:>8}/{total:>8} | consumed samples: "
                    f"{s * 1024:>12} | elapsed time per iteration (ms): {st * 1000:.1f} | learning rate: "
                    f"{rng.uniform(1e-5, 3e-4):.6E} | global batch size: {1024:>5} | lm loss: {loss:.6E} | "
                    f"loss scale: 1.0 | grad norm: {rng.uniform(0.1, 1.5):.3f} | number of skipped iterations:   0 | "
                    f"number of nan iterations:   0 |")
        if sty == "deepspeed":
            return (f"[{f_comma(d)}] [INFO] [logging.py:96:log_dist] [Rank 0] step={s}, skipped={s // 900}, "
                    f"lr=[{rng.uniform(1e-5, 3e-4):.8f}], mom=[(0.9, 0.95)]\n"
                    f"steps: {s} loss: {loss:.4f} iter time (s): {st:.3f} samples/sec: {256 / st:.3f}")
        if sty in ("lightning", "nemo"):
            pct = int(100 * s / total)
            el = int(s * st)
            bar = "█" * (pct // 10)
            if sty == "nemo":
                return (f"\rEpoch 0: :  {pct:>2}%|{bar:<10}| {s}/{total} [{el // 3600}:{el % 3600 // 60:02d}:{el % 60:02d}, "
                        f"reduced_train_loss={loss:.3f}, global_step={s - 1:.1f}, consumed_samples={s * 512:.3g}, "
                        f"train_step_timing in s={st:.3g}]")
            return (f"\rEpoch 0:  {pct:>2}%|{bar:<10}| {s}/{total} [{el // 3600}:{el % 3600 // 60:02d}:{el % 60:02d}, "
                    f"{1 / st:.2f}it/s, v_num={rng.randint(0, 9)}, train_loss={loss:.3f}]")
        if sty == "composer":
            return (f"[batch={s}/{total}]:\n\t Train time/batch: {s - 1}\n\t Train time/sample: {(s - 1) * 512}\n"
                    f"\t Train loss/train/total: {loss:.4f}\n\t Train throughput/batches_per_sec: {1 / st:.4f}")
        if sty == "jax":
            return f"{f_glog(d)} {w.agent_pid(n)} train.py:{rng.choice([212, 388, 401])}] step: {s}, loss: {loss:.4f}, steps/s: {1 / st:.3f}"
        if sty == "perrank":
            return (f"{f_comma(d)} [rank {r}] step {s} | loss {loss:.4f} | step_time {st:.3f}s | "
                    f"tok/s {int(4096 * 8 / st)}")
        # plain
        base_mfu = getattr(self, "_mfu", None)
        if base_mfu is None:
            base_mfu = self._mfu = rng.uniform(32, 52)
        return (f"{f_comma(d)} INFO step={s} loss={loss:.4f} lr={3e-4 * min(1.0, s / 2000.0) + 1e-6:.2e} "
                f"tok/s={int(4096 * 8 * self.w.world / st * rng.uniform(0.985, 1.015))} "
                f"mfu={base_mfu * self.step_time / st * rng.uniform(0.985, 1.015):.1f}%")

    # ------------------------------------------------------------------ peers
    def peer_lines(self, o, r):
        f = self.fates[r]
        w, rng = self.w, self.rng
        k = f["kind"]
        if k == "timeout":
            L.watchdog_timeout(w, rng, o, r, f["t"], self.seq_for(r), self.op_for(r), self.numel_for(r),
                               self.timeout_ms, last_done=self.last_done_for(r), key=self.peer_key(r),
                               frames=rng.random() < 0.8)
            if self.desync_debug and (r == 0 or rng.random() < 0.2):
                for ln in L.desync_report(w, r, f["t"] + 0.01, self.seq, self.op, self.stuck_ranks(), w.world):
                    o.add(f["t"] + 0.01, ln, key=True)
        elif k == "remote":
            self.remote_error_lines(o, r, f["t"])
        elif k in ("killed", "ok"):
            pass

    def peer_key(self, r):
        return False

    def seq_for(self, r):
        return self.seq

    def op_for(self, r):
        return self.op

    def numel_for(self, r):
        return self.numel

    def last_done_for(self, r):
        return self.seq - 1

    def stuck_ranks(self):
        return [self.culprit]

    def remote_error_lines(self, o, r, t, key=False):
        """Peer notices that the culprit's process is gone / unreachable."""
        w, rng = self.w, self.rng
        cip = w.hosts[self.cnode].ip
        chost = w.hosts[self.cnode]
        if self.nccl_debug:
            if self.net() == "IB":
                src, msg = L.nccl_ib_completion_error(w, rng, r, cip, status=rng.choice([12, 12, 5]), vendor=rng.choice([129, 244, 249]))
                o.add(t - 0.2, L.nccl_warn(w, r, src, msg), key)
                for x in L.nccl_error_chain(w, rng, r):
                    o.add(t - 0.2, x)
                last = msg
            else:
                peer = f"{chost.fqdn or chost.name}<{rng.randint(32768, 60999)}>" if w.nccl >= "2.19" else f"{cip}<{rng.randint(32768, 60999)}>"
                msg = f"socketProgress: Connection closed by remote peer {peer}"
                o.add(t - 0.2, L.nccl_warn(w, r, f"misc/socket.cc:{rng.choice([538, 621, 752])}", msg, proxy=False), key)
                o.add(t - 0.2, L.nccl_info(w, r, f"misc/socket.cc:{rng.choice([546, 629, 760])} -> 6", proxy=False))
                last = msg
        else:
            last = None
        lines = L.nccl_dist_error(w, "remote" if w.nccl >= "2.14" else "system", last=last)
        if rng.random() < 0.5 and w.tv >= (2, 2):
            msg = [f"NCCL error: remote process exited or there was a network error, NCCL version {w.nccl}",
                   "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."]
            if last:
                msg += ["Last error:", last]
            L.watchdog_error(w, rng, o, r, t, msg, kind="nccl")
        else:
            tb = L.traceback(L.tb_frames(w, rng, rng.choice(["backward", "allreduce", "forward"])), lines,
                             rank_prefix=f"[rank{r}]: " if self.rank_tb_prefix else None)
            for x in tb:
                o.add(t, x)

    # ------------------------------------------------------------------ culprit default
    def culprit_lines(self, o, r):
        pass

    # ------------------------------------------------------------------ launcher / agent
    def failures_on_node(self, n):
        """List of failure dicts for torchrun's table, ordered by time."""
        w = self.w
        out = []
        for r in w.ranks_on(n):
            f = self.fates[r]
            if f["kind"] == "ok":
                continue
            t = f.get("t_kill", f["t"])
            ec = f.get("exit", 1)
            d = dict(rank=r, local=w.local(r), exitcode=ec, pid=w.pid(r), t=t)
            if f.get("tb_summary"):
                d["tb"] = f["tb_summary"]
                d["error_file"] = f.get("error_file")
            out.append(d)
        out.sort(key=lambda x: x["t"])
        return out

    def agent_out(self, n):
        """torchrun elastic agent output on node n (stderr)."""
        w, rng = self.w, self.rng
        o = Out()
        for ln in L.torchrun_omp_banner(w, n, w.t0 + 1):
            o.add(w.t0 + 1, ln)
        fails = self.failures_on_node(n)
        if not fails or n in getattr(self, "agent_dead", ()):
            return o
        first = fails[0]
        if getattr(self, "agent_signal", None) and n in self.agent_signal:
            ts = self.agent_signal[n]
            mod = "torch.distributed.elastic.agent.server.api"
            o.add(ts, L.agent_line(w, n, ts, "W", mod, "Received Signals.SIGTERM death signal, shutting down workers", 741))
            for r in w.ranks_on(n):
                o.add(ts + 0.01, L.agent_line(w, n, ts, "W", "torch.distributed.elastic.multiprocessing.api",
                                               f"Sending process {w.pid(r)} closing signal SIGTERM", 897))
            s = w.site
            for ln in ["Traceback (most recent call last):",
                       f'  File "{w.python.rsplit("/", 1)[0]}/torchrun", line 8, in <module>',
                       "    sys.exit(main())",
                       "  ...",
                       f'  File "{s}/torch/distributed/elastic/multiprocessing/api.py", line {rng.choice([62, 79, 84])}, in _terminate_process_handler',
                       "    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)",
                       f"torch.distributed.elastic.multiprocessing.api.SignalException: Process {w.agent_pid(n)} got signal: 15"]:
                o.add(ts + 1.5, ln, key=True)
            return o
        t = first["t"] + rng.uniform(0.3, 2.0)
        others = [(w.local(r), w.pid(r)) for r in w.ranks_on(n) if r != first["rank"]]
        for tt, ln in L.agent_teardown(w, rng, n, t, first["local"], first["pid"], first["exitcode"], others):
            o.add(tt, ln)
        tab_t = t + rng.uniform(2, 31)
        # the table lists each failed local rank; the killed ones show -15
        rows = [first] + [dict(rank=r, local=w.local(r), exitcode=self.fates[r].get("exit", -15)
                               if self.fates[r]["t"] <= t + 0.01 else -15, pid=w.pid(r), t=t + 0.5)
                          for r in w.ranks_on(n) if r != first["rank"]]
        show_others = rng.random() < 0.6
        tab = L.child_failed_table(w, rng, n, tab_t, rows if show_others else [first], others_none=not show_others)
        key = self.table_is_key(n)
        culs = set(self.culprits()) if self.culprit is not None else set()
        cur = None
        block = []
        for ln in tab:
            m = re.match(r"\s+rank\s+: (\d+) ", ln)
            if re.match(r"\[\d+\]:$", ln) or ln.startswith("====") or ln.startswith("----"):
                cur = None
            if m:
                cur = int(m.group(1))
            block.append((ln, cur))
        # a row's "time"/"host" lines come before its rank line: attribute them to the next rank
        fixed = []
        for i, (ln, cur) in enumerate(block):
            if cur is None and (ln.startswith("  time") or ln.startswith("  host")):
                for j in range(i + 1, min(i + 3, len(block))):
                    if block[j][1] is not None:
                        cur = block[j][1]
                        break
            fixed.append((ln, cur))
        for ln, cur in fixed:
            o.add(tab_t, ln, key=key and cur in culs and ln.startswith("  ") and ln.strip() != "")
        return o

    def table_is_key(self, n):
        return False

    def launcher_out(self):
        """Global launcher / scheduler lines (srun, mpirun, deepspeed, ...)."""
        w, rng = self.w, self.rng
        o = Out()
        st = self.stack
        ends = sorted((self.end_t(r), r) for r in range(w.world) if self.fates[r]["kind"] != "ok")
        if not ends:
            return o
        t_first, r_first = ends[0]
        if st == "slurm_srun":
            groups = {}
            for r in range(w.world):
                f = self.fates[r]
                ec = f.get("exit")
                how = self.srun_how(r, ec)
                groups.setdefault((w.node_of(r), how), []).append(r)
            first_key = (w.node_of(r_first), self.srun_how(r_first, self.fates[r_first].get("exit")))
            o.add(t_first + 0.5, L.srun_exit(w.hosts[first_key[0]].name, groups[first_key], first_key[1]),
                  key=self.srun_key())
            if self.kill_scope == "job":
                o.add(t_first + 0.6, f"srun: launch/slurm: _step_signal: Terminating StepId={w.job_id}.0")
            o.add(t_first + 0.7, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
            for n in range(w.nnodes):
                o.add(t_first + 1 + n * 0.01, L.slurm_cancel(w, n, t_first + 1))
            for (n, how), rs in sorted(groups.items()):
                if (n, how) == first_key or how is None:
                    continue
                o.add(self.t_end_job, L.srun_exit(w.hosts[n].name, rs, how))
        elif st == "slurm_torchrun":
            for n in range(w.nnodes):
                tn = max(self.end_t(r) for r in w.ranks_on(n)) + rng.uniform(3, 30)
                o.add(tn, L.srun_exit(w.hosts[n].name, [n], "Exited with exit code 1"))
        elif st in ("mpirun", "sagemaker"):
            f = self.fates[r_first]
            ec = f.get("exit", 1)
            hn = w.host_of(r_first).name
            dash = "-" * 74
            if ec is not None and ec < 0:
                sig = -ec
                nm = {6: "Aborted", 9: "Killed", 11: "Segmentation fault", 7: "Bus error", 15: "Terminated"}.get(sig, "Signal")
                lines = [dash, "Primary job  terminated normally, but 1 process returned",
                         "a non-zero exit code. Per user-direction, the job has been aborted.", dash, dash,
                         f"mpirun noticed that process rank {r_first} with PID {w.pid(r_first)} on node {hn} exited on signal {sig} ({nm}).",
                         dash]
            else:
                lines = [dash, "Primary job  terminated normally, but 1 process returned",
                         "a non-zero exit code. Per user-direction, the job has been aborted.", dash, dash,
                         "mpirun detected that one or more processes exited with non-zero status, thus causing",
                         "the job to be terminated. The first process to do so was:", "",
                         f"  Process name: [[{rng.randint(10000, 65000)},1],{r_first}]",
                         f"  Exit code:    {ec if ec is not None else 1}", dash]
            for ln in lines:
                o.add(t_first + 1.5, ln, key=self.mpirun_key())
        elif st == "ray":
            f = self.fates[r_first]
            h = w.host_of(r_first)
            d = w.local_dt(t_first + 2, 0)
            aid = "%032x" % rng.getrandbits(128)
            trial = "TorchTrainer_%05x_00000" % rng.getrandbits(20)
            lines = [f"{d.strftime('%Y-%m-%d %H:%M:%S')},{rng.randint(0, 999):03d}\tERROR tune_controller.py:1331 -- Trial task failed for trial {trial}",
                     "Traceback (most recent call last):",
                     f'  File "{w.site}/ray/air/execution/_internal/event_manager.py", line 110, in resolve_future',
                     "    result = ray.get(future)",
                     f'  File "{w.site}/ray/_private/worker.py", line 2661, in get',
                     "    values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)"]
            if f["kind"] in ("sigterm",) or f.get("exit") == -9 and getattr(self, "agent_dead", None):
                lines += ["ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
                          "\tclass_name: RayTrainWorker", f"\tactor_id: {aid[:24]}", f"\tpid: {w.pid(r_first)}",
                          f"\tnamespace: {'%08x-%04x' % (rng.getrandbits(32), rng.getrandbits(16))}", f"\tip: {h.ip}",
                          "The actor is dead because its node has died. Node Id: " + "%056x" % rng.getrandbits(224)]
                key = True
            else:
                lines += [f"ray.exceptions.RayTaskError(DistBackendError): ray::_RayTrainWorker__execute.get_next() "
                          f"(pid={w.pid(r_first)}, ip={h.ip}, actor_id={aid[:24]}, repr=<ray.train._internal.worker_group.RayTrainWorker object at 0x7f{rng.getrandbits(40):010x}>)"]
                key = False
            lines += ["", "Training errored after 0 iterations at " + d.strftime("%Y-%m-%d %H:%M:%S") + ". Total running time: "
                      + f"{int((t_first - w.t0) // 3600)}hr {int((t_first - w.t0) % 3600 // 60)}min {int((t_first - w.t0) % 60)}s"]
            for ln in lines:
                o.add(t_first + 2, ln, key=key and ("ActorDiedError" in ln or "node has died" in ln or "ip:" in ln))
        elif st == "deepspeed":
            pass  # handled per node in console
        return o

    def srun_how(self, r, ec):
        f = self.fates[r]
        if f.get("srun_how"):
            return f["srun_how"]
        if ec is None:
            return None
        if ec == 1:
            return "Exited with exit code 1"
        if ec == -6:
            return "Aborted (core dumped)"
        if ec == -9:
            return "Killed"
        if ec == -11:
            return "Segmentation fault (core dumped)"
        if ec == -7:
            return "Bus error (core dumped)"
        if ec == -15:
            return "Terminated"
        return f"Exited with exit code {ec & 0xff}"

    def srun_key(self):
        return False

    def mpirun_key(self):
        return False

    def deepspeed_node_lines(self, n):
        w, rng = self.w, self.rng
        fails = self.failures_on_node(n)
        o = Out()
        if not fails:
            return o
        f = fails[0]
        t = f["t"] + rng.uniform(0.5, 3)
        d = w.local_dt(t, n)
        for r in w.ranks_on(n):
            o.add(t, f"[{f_comma(d)}] [INFO] [launch.py:{L.vline(w, 'ds1', [315, 319])}:sigkill_handler] Killing subprocess {w.pid(r)}")
        cmd = [w.python, "-u", w.script, f"--local_rank={f['local']}", "--deepspeed", "--deepspeed_config", "ds_config.json"]
        o.add(t + 0.2, f"[{f_comma(d)}] [ERROR] [launch.py:{L.vline(w, 'ds2', [321, 325])}:sigkill_handler] {cmd!r} exits with return code = {f['exitcode']}",
              key=self.table_is_key(n))
        o.add(t + 1, f"pdsh@{w.hosts[0].short}: {w.hosts[n].short}: ssh exited with exit code {f['exitcode'] & 0xff}")
        return o

    # ------------------------------------------------------------------ kernel
    def kernel_out(self, n, style, noise=True, window=None):
        w, rng = self.w, self.rng
        o = Out()
        evs = list(self.kernel_events.get(n, []))
        if noise:
            pool = L.kernel_noise(w, rng, n)
            for _ in range(rng.randint(1, 6)):
                t = w.t0 + rng.uniform(-3600 * 20, (self.t_end_job or w.t0 + 3600) - w.t0)
                evs.append((t, rng.choice(pool), False))
        if window:
            evs = [e for e in evs if window[0] <= e[0] <= window[1] or e[2]]
        for t, text, key in sorted(evs, key=lambda e: e[0]):
            o.add(t, L.kline(w, n, t, text, style), key)
        return o

    # ------------------------------------------------------------------ prefixes for consoles
    def prefix(self, r, stream="err", node_console=False):
        w = self.w
        st = self.stack
        pfx = ""
        if st == "slurm_srun" and self.srun_label:
            width = len(str(w.world - 1))
            pfx = f"{r:>{width}}: "
        elif st == "slurm_torchrun":
            if self.srun_label:
                width = len(str(w.nnodes - 1))
                pfx = f"{w.node_of(r):>{width}}: "
            if self.tee:
                pfx += f"[default{w.local(r)}]:"
        elif st in ("torchrun", "k8s", "azureml") and self.tee:
            pfx = f"[default{w.local(r)}]:"
        elif st == "deepspeed" and w.nnodes > 1:
            pfx = f"{w.host_of(r).short}: "
        elif st == "mpirun":
            pfx = f"[1,{r}]<std{stream}>:"
        elif st == "sagemaker":
            pfx = f"[1,mpirank:{r},{w.host_of(r).name}]<std{stream}>:"
        elif st == "ray":
            pfx = f"(RayTrainWorker pid={w.pid(r)}, ip={w.host_of(r).ip}) "
        return pfx

    def agent_prefix(self, n):
        w = self.w
        if self.stack == "slurm_torchrun" and self.srun_label:
            width = len(str(w.nnodes - 1))
            return f"{n:>{width}}: "
        if self.stack == "deepspeed" and w.nnodes > 1:
            return f"{w.hosts[n].short}: "
        return ""

    # ------------------------------------------------------------------ pieces
    def pick_ranks(self, pool, k):
        pool = list(pool)
        if len(pool) <= k:
            return pool
        return sorted(self.rng.sample(pool, k))

    def console(self, nodes=None, max_ranks=14, must=(), with_launcher=True, name=None):
        """Combined console output: ranks of `nodes` (None = whole job)."""
        w, rng = self.w, self.rng
        nodes = list(range(w.nnodes)) if nodes is None else list(nodes)
        ranks = [r for n in nodes for r in w.ranks_on(n)]
        keep = set(x for x in must if x in ranks)
        keep.add(ranks[0])
        if self.prints_progress(w.world - 1) and (w.world - 1) in ranks:
            keep.add(w.world - 1)
        rest = [r for r in ranks if r not in keep]
        chosen = sorted(keep | set(self.pick_ranks(rest, max(0, max_ranks - len(keep)))))
        omitted = len(ranks) - len(chosen)
        o = Out()
        node_console = len(nodes) == 1
        for r in chosen:
            ro = self.rank_out(r)
            for t, _s, text, key, stream in ro.items:
                pf = self.prefix(r, stream, node_console)
                if pf and text.startswith("\r"):
                    text = "\r" + pf + text[1:]
                elif pf:
                    text = pf + text
                o.items.append((t, len(o.items), text, key, stream))
        if with_launcher:
            uses_agent = self.stack in ("torchrun", "slurm_torchrun", "k8s", "accelerate", "azureml") or \
                (self.stack == "ray" and False)
            for n in nodes:
                if uses_agent:
                    ao = self.agent_out(n)
                    ap = self.agent_prefix(n)
                    for t, _s, text, key, stream in ao.items:
                        o.items.append((t, len(o.items), ap + text, key, stream))
                if self.stack == "deepspeed":
                    do = self.deepspeed_node_lines(n)
                    ap = self.agent_prefix(n)
                    for t, _s, text, key, stream in do.items:
                        o.items.append((t, len(o.items), (ap + text) if not text.startswith("pdsh@") else text, key, stream))
            if len(nodes) == w.nnodes or self.stack in ("slurm_srun", "mpirun", "sagemaker"):
                o.extend(self.launcher_out())
        lines = [(x[2], x[3]) for x in o.sorted()]
        return lines, omitted

    def rank_file(self, r, tail=None):
        o = self.rank_out(r)
        lines = o.texts()
        if tail and len(lines) > tail:
            first_key = min([i for i, (_, k) in enumerate(lines) if k], default=len(lines))
            start = min(len(lines) - tail, first_key)
            lines = lines[start:]
        return lines

    def build_pieces(self):
        """Standard pieces; subclasses add more to self.extra."""
        w, rng = self.w, self.rng
        P = {}
        # console of node 0 / whole job
        if self.stack in ("slurm_srun", "mpirun", "sagemaker", "ray") or w.nnodes == 1:
            lines, om = self.console(None, must=self.must_ranks())
            P["console"] = Piece("console", "console", lines, title="job output")
            P["console"].omitted = om
        else:
            for n in sorted({0, self.cnode if self.cnode is not None else 0, rng.randrange(w.nnodes)}):
                lines, om = self.console([n], must=self.must_ranks())
                p = Piece(f"console_n{n}", "console", lines, node=n, title=f"node {n}")
                p.omitted = om
                P[p.name] = p
            if self.stack == "slurm_torchrun" or self.stack == "deepspeed":
                lines, om = self.console(None, max_ranks=16, must=self.must_ranks())
                P["console"] = Piece("console", "console", lines, title="job output")
                P["console"].omitted = om
        # culprit's own rank file and rank 0's
        for r in sorted({0, self.culprit if self.culprit is not None else 0}):
            P[f"rank{r}"] = Piece(f"rank{r}", "rankfile", self.rank_file(r), node=w.node_of(r), rank=r,
                                  title=f"rank {r}")
        # launcher summary alone (what people paste when they paste only the end)
        summ = self.summary_lines()
        if summ:
            P["summary"] = Piece("summary", "summary", summ, node=self.cnode, title="summary")
        for n in sorted(self.kernel_events):
            if f"dmesg_n{n}" not in self.extra:
                self.extra[f"dmesg_n{n}"] = self.kernel_piece(n)
        P.update(self.extra)
        return P

    def summary_lines(self):
        w = self.w
        if self.stack in ("torchrun", "slurm_torchrun", "k8s", "accelerate", "azureml"):
            n = self.cnode if self.cnode is not None else 0
            ao = self.agent_out(n).texts()
            idx = [i for i, (t, k) in enumerate(ao) if t.startswith("Traceback") or "SignalException" in t]
            out = ao[idx[0]:] if idx else ao[-6:]
            if self.stack == "slurm_torchrun":
                out = out + self.launcher_out().texts()
            return out
        if self.stack in ("slurm_srun", "mpirun", "sagemaker", "ray"):
            return self.launcher_out().texts()
        if self.stack == "deepspeed":
            n = self.cnode if self.cnode is not None else 0
            return self.deepspeed_node_lines(n).texts()
        return []

    def must_ranks(self):
        m = [r for r in self.culprits() if r is not None]
        return m

    def kernel_piece(self, n, style=None, title=None, window_hours=None, noise=True):
        rng = self.rng
        style = style or rng.choice(["dmesg", "dmesgT", "dmesgT", "syslog", "journal", "iso"])
        lines = self.kernel_out(n, style, noise=noise).texts()
        return Piece(f"dmesg_n{n}", "kernel", lines, node=n, title=title or f"dmesg on {self.w.hosts[n].name}",
                     fname="dmesg.txt" if style.startswith("dmesg") else "syslog.txt")
