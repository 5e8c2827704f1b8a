"""Scenarios: one per root cause (plus healthy).  Each has a pre() hook that shapes the
training timeline (stragglers, stalls) and a post() hook that injects the failure at step F."""
import math

from b7_core import ts_py, ts_plain, ts_slurm, ts_iso, ts_ctime, hms_dur
from b7_text import (watchdog_timeout_block, dump_signal_from_other, heartbeat_kill, cuda_error_watchdog_block, py_tb,
                     frames_train_entry, frames_allreduce, frames_dataloader, lib, xid, oom_killer_lines, hexaddr)
from b7_sim import fail
from b7_faults import (coll_info, cascade, remote_failure, timeout_failure, transport_error, xid45_collateral,
                       culprit_python_exit, cuda_err_lines, sync_frames)

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "host_oom_kill", "cuda_oom", "illegal_memory_access",
          "python_exception", "crash_signal", "hang", "collective_mismatch", "data_loader_stall", "preemption", "straggler"]


class Scenario:
    def __init__(self, j, rng, cause):
        self.j = j
        self.rng = rng
        self.cause = cause
        self.healthy_finish = False
        self.slow = None
        self.strag = None
        self.per_rank_every = None
        self.rank = None
        self.node = None
        self.rank_inferable = True
        self.drain = False
        self.notes = []
        self.fin = dict()
        self.variant = None
        self.extra_files = {}
        self.pyspy = {}
        self.gpu_csv = None
        self.ends_running = False
        j.fp16_overflow_at = None
        j.nan_at = None
        j.colls_per_step = rng.choice([3, 6, 12, 24, 48, 96])
        j.seq0 = rng.randint(8, 60)
        j.kill_on_bad_exit = rng.random() < 0.5
        j.oom_ranks = set()

    # ------------------------------------------------------------------------------------
    def pick_culprit(self, avoid_first=False):
        j, rng = self.j, self.rng
        choices = list(range(j.world))
        if rng.random() < 0.15 and not avoid_first:
            return rng.choice([0, j.world - 1])
        return rng.choice(choices[1:] if avoid_first else choices)

    def tF_fault(self, tF):
        return tF + self.j.model["step_s"] * self.rng.uniform(0.1, 0.9)

    def node_truth(self, r, lowest=False):
        j = self.j
        n = j.node(r)
        self.node = n.name
        self.rank = n.first_rank if lowest else r

    def truth(self):
        j = self.j
        healthy = self.cause is None
        node_obj = None
        for n in j.nodes:
            if n.name == self.node:
                node_obj = n
        aliases = []
        if node_obj is not None:
            aliases = [a for a in node_obj.aliases if a != node_obj.name]
            if node_obj.k8s_node and node_obj.k8s_node not in aliases:
                aliases.insert(0, node_obj.k8s_node)
        return {
            "cause": self.cause,
            "healthy": healthy,
            "rank": None if healthy else self.rank,
            "node": None if healthy else self.node,
            "drain": bool(self.drain) and not healthy,
            "rank_inferable": bool(self.rank_inferable) and not healthy and self.rank is not None,
            "node_aliases": aliases,
            "layout": j.layout,
            "notes": (" ".join(self.notes + ["Clock skew: " + "; ".join(j.notes) + "."] if j.notes else self.notes))[:700] or ("healthy run" if healthy else self.cause),
        }

    # ------------------------------------------------------------------------------------
    def pre(self):
        fn = getattr(self, "pre_" + (self.cause or "healthy"), None)
        if fn:
            fn()

    def post(self, tF):
        fn = getattr(self, "post_" + (self.cause or "healthy"))
        fn(tF)

    # ======================================================================================
    # healthy
    # ======================================================================================
    def pre_healthy(self):
        self.healthy_finish = True
        j, rng = self.j, self.rng
        if j.trainer in ("deepspeed", "fairseq") and rng.random() < 0.6:
            j.fp16_overflow_at = set(rng.sample(range(j.resume_step + 50, j.resume_step + 5000), 6))
        if j.trainer == "megatron" and rng.random() < 0.6:
            j.nan_at = set(rng.sample(range(j.resume_step + 50, j.resume_step + 5000), rng.randint(1, 3)))
            self.notes.append("NaN iterations skipped by Megatron (harmless).")

    def post_healthy(self, tF):
        j, rng = self.j, self.rng
        t = tF + rng.uniform(1, 5)
        j.tr.finish(t)
        t_end = t + rng.uniform(60, 140)
        teardown_noise(self, t_end)
        self.fin = dict(t_end_ok=t_end)
        self.notes.insert(0, "Healthy long run that finished all %d steps." % j.model["total"])

    # ======================================================================================
    # preemption
    # ======================================================================================
    def post_preemption(self, tF):
        j, rng = self.j, self.rng
        t = self.tF_fault(tF)
        self.rank = None
        self.node = None
        self.rank_inferable = False
        L = j.launcher
        if L == "k8s" and rng.random() < 0.7:
            # spot node reclaimed: graceful node shutdown kills the pods on that node
            n = j.nodes[rng.randrange(len(j.nodes))]
            self.node_truth(n.first_rank, lowest=True)
            self.rank_inferable = True
            self.variant = "spot_node"
            j.preempted_pod = n.idx
            j.preempt_t = t
            for r in n.ranks:
                fail(j, r, t + rng.uniform(0.5, 3), -15, "external")
            j.kern(n.idx, t - 20, "systemd-logind[%d]: System is powering down." % rng.randint(800, 2000))
            seq, op, numel = coll_info(j, rng, j.F)
            cascade(j, rng, t + 2, {n.idx}, set(n.ranks), rng.choice(["fast", "mixed", "timeout"]), seq, op, numel)
            self.notes.append("Spot/preemptible node %s (k8s node %s) was reclaimed; kubelet terminated its pod in response to the imminent node shutdown; other workers then lost their peer." % (n.name, n.k8s_node))
            self.fin = dict()
            return
        if L in ("srun", "torchrun", "mpirun") and j.sched_kind == "slurm":
            self.variant = rng.choice(["preempt", "timelimit", "preempt"])
        elif j.sched_kind == "pbs":
            self.variant = "timelimit"
        elif L == "azureml":
            self.variant = "lowpri"
        else:
            self.variant = "sigterm"
        j.preempt_variant = self.variant
        if self.variant == "timelimit" and j.sched_kind == "slurm":
            lim = int((t - j.t0) // 60) * 60
            j.timelimit = lim
            t = j.t0 + lim + rng.uniform(0.5, 25)
        j.preempt_t = t
        if self.variant == "timelimit":
            self.notes.append("Slurm job hit its time limit and was cancelled (DUE TO TIME LIMIT) while training normally.")
        elif self.variant == "preempt":
            self.notes.append("Slurm preempted the job for a higher-priority job (CANCELLED ... DUE TO PREEMPTION) while training normally.")
        elif self.variant == "lowpri":
            self.notes.append("Low-priority compute was preempted; every process received SIGTERM.")
        else:
            self.notes.append("All ranks received SIGTERM from outside (maintenance drain) while training normally.")
        if j.trainer == "nemo" and self.variant in ("preempt", "timelimit") and rng.random() < 0.6:
            j.emit(0, t - 0.5, "Handling auto-requeue signal: 10", "e")
            j.emit(0, t - 0.4, "Requeued SLURM job: %d" % j.jobid, "e")
        if j.trainer == "megatron" and rng.random() < 0.4:
            j.emit(0, t + 0.2, "exiting program after receiving SIGTERM.", "o")
        self.fin = dict(kill_all_at=t, kill_reason=self.variant)

    # ======================================================================================
    # straggler
    # ======================================================================================
    def pre_straggler(self):
        j, rng = self.j, self.rng
        v = rng.choice(["rank_thermal", "rank_thermal", "rank_pcie", "node_noisy", "node_pcie_nic"] if j.has_kernel else ["rank_thermal", "node_noisy"])
        self.variant = v
        r = self.pick_culprit()
        n = j.node(r)
        amount = rng.uniform(0.10, 0.40)
        s0 = j.resume_step + rng.randint(50, 400) * j.log_interval // 3 + 20
        if v in ("rank_pcie", "node_pcie_nic"):
            s0 = j.resume_step
            # the evidence is printed at boot: keep kernel logs that reach back to boot
            fmt = rng.choice(["dmesg", "dmesg_T", "iso"])
            j.kern_fmt = fmt
            for nd in j.nodes:
                nd.kern_fmt = fmt
        self.s0 = s0
        self.amount = amount
        self.slow = lambda s, s0=s0, a=amount: (1 + a) if s >= s0 else 1.0
        rank_level = v in ("rank_thermal", "rank_pcie")
        self.strag = dict(rank=r if rank_level else n.first_rank, node=n.idx, slow=self.slow, rank_level=rank_level, thermal=(v == "rank_thermal"))
        if rank_level:
            self.node_truth(r)
        else:
            self.node_truth(r, lowest=True)
        self.drain = False
        # evidence
        ev = []
        if j.trainer == "megatron" and rank_level:
            j.megatron_straggler = True
            ev.append("megatron_straggler")
        if j.trainer == "plain" or (not ev and rng.random() < 0.5 and j.world <= 128):
            self.per_rank_every = max(j.log_interval * 10, 100)
            ev.append("per_rank_timing")
        self.ev = ev
        if rank_level and not ev:
            self.rank_inferable = False
        if v == "node_noisy" and not ev:
            self.per_rank_every = max(j.log_interval * 10, 200)
            ev.append("per_rank_timing")
        if v == "node_pcie_nic" and not ev:
            self.rank_inferable = True
        self.healthy_finish = rng.random() < 0.35

    def post_straggler(self, tF):
        j, rng = self.j, self.rng
        v = self.variant
        n = j.nodes[self.strag["node"]]
        l = j.local[self.strag["rank"]]
        # physical evidence
        if v in ("rank_thermal",) or (v == "rank_pcie" and rng.random() < 0.5):
            self.gpu_csv = dict(node=n.idx, local=l, s0_t=j.step_end.get(self.s0, j.train_t0), thermal=(v == "rank_thermal"))
        if v == "rank_thermal":
            t_s0 = j.step_end.get(self.s0, j.train_t0)
            if rng.random() < 0.5:
                j.kern(n.idx, t_s0 - rng.uniform(10, 200), "mce: CPU%d: Package temperature above threshold, cpu clock throttled (total events = %d)" % (rng.randint(0, 111), rng.randint(1, 90)))
                j.kern(n.idx, t_s0 + rng.uniform(5, 200), "mce: CPU%d: Package temperature/speed normal" % rng.randint(0, 111))
            self.notes.append("GPU %d on %s (rank %d) thermally throttled from step ~%d; job step time rose ~%d%% for hundreds of steps; nothing crashed." % (l, n.name, self.rank, self.s0, self.amount * 100))
        elif v == "rank_pcie":
            bus = j.gpu["bus"][l]
            up = "%x" % (int(bus, 16) - 1)
            j.kern(n.idx, n.boot + rng.uniform(8, 14), "pci 0000:%s:00.0: 126.024 Gb/s available PCIe bandwidth, limited by 16.0 GT/s PCIe x8 link at 0000:%s:01.0 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)" % (bus, up))
            self.notes.append("GPU %d on %s (rank %d) trained at PCIe x8 (link downtrained at boot); it is persistently ~%d%% slower and the whole job waits for it." % (l, n.name, self.rank, self.amount * 100))
        elif v == "node_noisy":
            self.notes.append("Node %s shared with a CPU-heavy job (noisy neighbour); its ranks spend longer per step from step ~%d, slowing the whole job ~%d%%." % (n.name, self.s0, self.amount * 100))
        else:
            dev = rng.choice([0x0c, 0x4b, 0x8d, 0xca])
            for nd in j.nodes:
                if nd.idx == n.idx:
                    j.kern(nd.idx, nd.boot + rng.uniform(24, 26), "mlx5_core 0000:%02x:00.0: 126.024 Gb/s available PCIe bandwidth, limited by 16.0 GT/s PCIe x8 link at 0000:%02x:01.0 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)" % (dev, dev - 1))
                else:
                    j.kern(nd.idx, nd.boot + rng.uniform(24, 26), "mlx5_core 0000:%02x:00.0: 252.048 Gb/s available PCIe bandwidth (16.0 GT/s PCIe x16 link)" % dev)
            self.notes.append("The NIC of %s trained at PCIe x8 at boot (half bandwidth); the whole job has run ~%d%% slower than its peers' throughput from the start because synchronous training waits on that node." % (n.name, self.amount * 100))
        if "megatron_straggler" in self.ev:
            self.notes.append("Megatron straggler detector lines name the slow rank.")
        if "per_rank_timing" in self.ev:
            self.notes.append("Per-rank timing lines show the slow rank(s) with long fwd_bwd and everyone else waiting in comm.")
        if not self.ev and self.strag["rank_level"]:
            self.notes.append("Only node-level evidence names the slow GPU; the rank cannot be named from the logs.")
        if self.healthy_finish:
            t = tF + rng.uniform(1, 5)
            j.tr.finish(t)
            self.fin = dict(t_end_ok=t + rng.uniform(60, 140))
            self.notes.append("The run still completed, only slower.")
        else:
            # user cancels after noticing, or the log is collected while still running
            if j.sched_kind == "slurm" and rng.random() < 0.6:
                t = self.tF_fault(tF)
                j.user_scancel_t = t
                self.fin = dict(kill_all_at=t, kill_reason="scancel")
                self.notes.append("The user cancelled the job (scancel) after noticing the slowdown.")
            else:
                self.ends_running = True
                self.fin = dict(still_running=tF)
                self.notes.append("Logs were collected while the job was still running slowly.")

    # ======================================================================================
    # gpu hardware
    # ======================================================================================
    def post_gpu_hardware(self, tF):
        j, rng = self.j, self.rng
        r = self.pick_culprit()
        n = j.node(r)
        l = j.local[r]
        t = self.tF_fault(tF)
        self.node_truth(r)
        self.drain = True
        v = rng.choice(["xid79", "xid79", "xid119", "xid79_silent"])
        self.variant = v
        seq, op, numel = coll_info(j, rng, j.F)
        bus = j.gpu["bus"][l]
        pname = rng.choice(["python", "python3", "pt_main_thread"])
        if v.startswith("xid79"):
            if rng.random() < 0.5:
                j.kern(n.idx, t - 0.02, "pcieport 0000:%x:01.0: pciehp: Slot(%d): Link Down" % (int(bus, 16) - 1, rng.randint(1, 8)))
            j.kern(n.idx, t, xid(j, n, l, 79, j.pid[r] if rng.random() < 0.6 else None, pname, "GPU has fallen off the bus."))
            j.kern(n.idx, t, "NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % bus)
            j.kern(n.idx, t, "NVRM: GPU 0000:%s:00.0: GPU serial number is %d." % (bus, rng.randint(1320000000000, 1660000000000)))
            j.kern(n.idx, t + 0.01, "NVRM: A GPU crash dump has been created. If possible, please run\nNVRM: nvidia-bug-report.sh as root to collect this data before\nNVRM: the NVIDIA kernel module is unloaded.")
            if rng.random() < 0.5 and int(j.gpu["driver"].split(".")[0]) >= 550:
                j.kern(n.idx, t + 2, xid(j, n, l, 154, None, pname, "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)"))
            self.notes.append("GPU %d (PCI %s:00) on %s fell off the bus (Xid 79) under rank %d." % (l, bus, n.name, r))
        else:
            for k in range(rng.randint(2, 5)):
                j.kern(n.idx, t + k * 6.1, xid(j, n, l, 119, j.pid[r], pname, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function %d (%s) (0x%x 0x%x)." % (l, 76, "GSP_RM_CONTROL", rng.choice([0x20800a4c, 0x2080014b, 0x20801348]), rng.choice([4, 0x38, 0x2c]))))
                if k == 0:
                    j.kern(n.idx, t + 0.01, "NVRM: GPU%d GSP RPC buffer contains function %d (%s) and data 0x%016x 0x%016x." % (l, 76, "GSP_RM_CONTROL", rng.randrange(1 << 40), 0))
                    j.kern(n.idx, t + 0.01, "NVRM: GPU%d RPC history (CPU -> GSP):" % l)
                    j.kern(n.idx, t + 0.01, "NVRM:     entry function                   data0              data1              ts_start           ts_end             duration actively_polling")
                    for e in range(4):
                        j.kern(n.idx, t + 0.01, "NVRM:      %2d     %-3d %-26s 0x%016x 0x%016x 0x%014x 0x%014x %8s" % (-e, 76, "GSP_RM_CONTROL", rng.randrange(1 << 32), 0, rng.randrange(1 << 52), rng.randrange(1 << 52), "%dus" % rng.randint(5, 900)))
            j.kern(n.idx, t + 30, "NVRM: Rate limiting GSP RPC error prints for GPU at PCI:0000:%s:00 (printing 1 of every 30).  The GPU likely needs to be reset." % bus)
            if int(j.gpu["driver"].split(".")[0]) >= 550:
                j.kern(n.idx, t + 31, xid(j, n, l, 154, None, pname, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)"))
            self.notes.append("GSP firmware on GPU %d of %s stopped responding (Xid 119, then 154 reset required) under rank %d." % (l, n.name, r))
        ev = []
        if v == "xid79_silent" or (v == "xid119" and rng.random() < 0.6):
            # culprit hangs in a dead kernel; its own watchdog times out like everybody else
            t_to = timeout_failure(j, rng, r, t, seq, op, numel, last_enq=seq, last_done=seq - 1)
            cascade(j, rng, t, set(), {r}, "timeout", seq, op, numel, t_coll=t)
            self.notes.append("Rank %d printed nothing of its own: every rank, it included, only shows a watchdog timeout %d s later." % (r, j.pg_timeout))
        else:
            err = rng.choice(["unspecified launch failure", "unknown error"]) if v.startswith("xid79") else "unspecified launch failure"
            blk = cuda_error_watchdog_block(j, r, t + rng.uniform(0.05, 2), err)
            j.emit(r, t + 1, "\n".join(blk), "e")
            fail(j, r, t + 2.5, -6, "abort")
            ev.append("own")
            cascade(j, rng, t + 2.5, {n.idx}, {r}, rng.choice(["fast", "mixed", "timeout"]), seq, op, numel)
        # rank inferable? own CUDA error, or NCCL busId mapping, or pid in Xid line + launcher pid print
        if "own" in ev or j.nccl_detail >= 1:
            self.rank_inferable = True
        else:
            # the Xid line's pid= can be matched with DeepSpeed's "process <pid> spawned ... --local_rank=N"
            self.rank_inferable = j.launcher == "deepspeed" and "pid=%d," % j.pid[r] in "".join(x[2] for x in j.K[n.idx])
        if not self.rank_inferable:
            self.notes.append("The logs cannot tie the failed GPU to a rank; the node is what counts.")
        self.fin = dict()
        xid45_collateral(j, rng, [n.idx], pname)

    # ======================================================================================
    # ECC
    # ======================================================================================
    def post_ecc_memory(self, tF):
        j, rng = self.j, self.rng
        r = self.pick_culprit()
        n = j.node(r)
        l = j.local[r]
        t = self.tF_fault(tF)
        self.node_truth(r)
        self.drain = True
        pname = rng.choice(["python", "python3", "pt_main_thread"])
        v = rng.choice(["xid48", "xid94", "xid95", "xid64"] if j.gpu_key in ("H100", "H200", "A100") else ["xid48", "xid48"])
        self.variant = v
        if v == "xid48":
            j.kern(n.idx, t, xid(j, n, l, 48, j.pid[r], pname, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (rng.randint(0, 11), rng.randint(0, 1))))
            j.kern(n.idx, t + 0.1, xid(j, n, l, 63, j.pid[r], pname, "Dynamic Page Retirement: New page retired, reboot to activate (0x%08x)." % rng.randrange(1 << 28)))
        elif v == "xid94":
            j.kern(n.idx, t, xid(j, n, l, 94, j.pid[r], pname, "Contained: SM (0x1). RST: No, D-RST: No"))
            j.kern(n.idx, t + 0.2, xid(j, n, l, 63, j.pid[r], pname, "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % rng.randrange(1 << 36)))
        elif v == "xid95":
            j.kern(n.idx, t, xid(j, n, l, 95, j.pid[r], pname, "Uncontained: FBHUB. RST: Yes, D-RST: No"))
            for l2 in range(j.gpn):
                if l2 != l and rng.random() < 0.3:
                    j.kern(n.idx, t + 0.3, xid(j, n, l2, 45, j.pid[n.first_rank + l2], pname, "Ch %08x" % rng.randint(8, 30)))
        else:
            j.kern(n.idx, t, xid(j, n, l, 48, j.pid[r], pname, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (rng.randint(0, 11), rng.randint(0, 1))))
            j.kern(n.idx, t + 0.2, xid(j, n, l, 64, j.pid[r], pname, "Row Remapper Error: Failed to remap row (0x%016x)." % rng.randrange(1 << 36)))
        self.notes.append("Uncorrectable ECC error on GPU %d of %s (%s) under rank %d." % (l, n.name, v.replace("xid", "Xid "), r))
        seq, op, numel = coll_info(j, rng, j.F)
        how = rng.choice(["py", "watchdog"])
        if how == "py":
            culprit_python_exit(j, rng, r, t + rng.uniform(0.05, 1), cuda_err_lines("uncorrectable ECC error encountered"), sync_frames(j, rng))
        else:
            j.emit(r, t + 0.5, "\n".join(cuda_error_watchdog_block(j, r, t + 0.5, "uncorrectable ECC error encountered")), "e")
            fail(j, r, t + 1.5, -6, "abort")
        cascade(j, rng, t + 2, {n.idx}, {r}, rng.choice(["fast", "mixed", "timeout"]), seq, op, numel)
        xid45_collateral(j, rng, [n.idx], pname)
        self.fin = dict()

    # ======================================================================================
    # NVLink
    # ======================================================================================
    def post_nvlink(self, tF):
        j, rng = self.j, self.rng
        if j.gpn < 4:
            return self.post_gpu_hardware(tF)
        r = self.pick_culprit()
        n = j.node(r)
        l = j.local[r]
        t = self.tF_fault(tF)
        self.drain = True
        pname = rng.choice(["python", "python3", "pt_main_thread"])
        v = rng.choice(["xid74", "xid74", "sxid"])
        self.variant = v
        seq, op, numel = coll_info(j, rng, j.F)
        if v == "xid74":
            self.node_truth(r)
            link = rng.randint(0, 17)
            j.kern(n.idx, t, xid(j, n, l, 74, j.pid[r], pname, "NVLink: fatal error detected on link %d(0x0, 0x0, 0x0, 0x0, 0x%x, 0x0, 0x0)" % (link, rng.choice([0x10000, 0x20000, 0x100]))))
            if rng.random() < 0.5:
                j.kern(n.idx, t + 0.001, xid(j, n, l, 74, j.pid[r], pname, "NVLink: fatal error detected on link %d(0x0, 0x0, 0x0, 0x0, 0x%x, 0x0, 0x0)" % ((link + 1) % 18, 0x10000)))
            culprits = [r]
            self.notes.append("Fatal NVLink error (Xid 74) on GPU %d of %s under rank %d." % (l, n.name, r))
        else:
            self.node_truth(r, lowest=True)
            sw = rng.randint(0, 3)
            swbus = rng.choice(["05", "06", "07", "08", "c5", "c6"])
            j.kern(n.idx, t - 0.01, "nvidia-nvswitch%d: SXid (PCI:0000:%s:00.0): 20034, Fatal, Link %d LTSSM Fault Up" % (sw, swbus, rng.randint(0, 63)))
            j.kern(n.idx, t - 0.01, "nvidia-nvswitch%d: SXid (PCI:0000:%s:00.0): 20034, Severity 1 Engine instance %d Sub-engine instance 00" % (sw, swbus, rng.randint(0, 63)))
            j.kern(n.idx, t - 0.01, "nvidia-nvswitch%d: SXid (PCI:0000:%s:00.0): 20034, Data {0x%08x, 0x%08x, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000}" % (sw, swbus, rng.randrange(1 << 32), rng.randrange(1 << 32)))
            culprits = []
            for k in rng.sample(range(j.gpn), rng.randint(1, 3)):
                j.kern(n.idx, t + 0.01, xid(j, n, k, 74, j.pid[n.first_rank + k], pname, "NVLink: fatal error detected on link %d(0x0, 0x0, 0x0, 0x0, 0x10000, 0x0, 0x0)" % rng.randint(0, 17)))
                culprits.append(n.first_rank + k)
            culprits.sort()
            self.notes.append("NVSwitch fatal SXid 20034 on %s took down NVLink for GPUs %s." % (n.name, ",".join(str(j.local[c]) for c in culprits)))
        for c in culprits:
            tt = t + rng.uniform(0.01, 1.0)
            if rng.random() < 0.5:
                blk = cuda_error_watchdog_block(j, c, tt, "uncorrectable NVLink error detected during the execution")
                j.emit(c, tt, "\n".join(blk), "e")
                fail(j, c, tt + 1, -6, "abort")
            else:
                pi = j.nccl_prefix(c, "proxy")
                j.emit(c, tt, "%s enqueue.cc:1384 NCCL WARN Cuda failure 'uncorrectable NVLink error detected during the execution'\n%s NCCL INFO group.cc:%d -> 1" % (pi, pi, rng.choice([248, 264])), "o")
                blk = cuda_error_watchdog_block(j, c, tt + 0.2, "uncorrectable NVLink error detected during the execution")
                j.emit(c, tt + 0.2, "\n".join(blk), "e")
                fail(j, c, tt + 1.2, -6, "abort")
        cascade(j, rng, t + 2, {n.idx}, set(culprits), rng.choice(["fast", "mixed", "timeout"]), seq, op, numel)
        xid45_collateral(j, rng, [n.idx], pname)
        self.fin = dict()

    # ======================================================================================
    # network
    # ======================================================================================
    def post_network(self, tF):
        j, rng = self.j, self.rng
        t = self.tF_fault(tF)
        seq, op, numel = coll_info(j, rng, j.F)
        v = rng.choice(["nic_down", "nic_down", "nic_fatal", "fabric"] if len(j.nodes) >= 4 else ["nic_down", "nic_fatal"])
        if j.net == "socket":
            v = rng.choice(["eth_down", "eth_down", "fabric"]) if len(j.nodes) >= 4 else "eth_down"
        if j.net == "ofi":
            v = rng.choice(["efa_down", "efa_down"])
        self.variant = v
        if v == "fabric":
            self.rank = None
            self.node = None
            self.rank_inferable = False
            self.drain = False
            hit = sorted(rng.sample(range(len(j.nodes)), max(2, len(j.nodes) // 3)))
            for ni in hit:
                nd = j.nodes[ni]
                dev = "0000:%02x:00.0" % rng.choice([0x0c, 0x4b, 0x8d, 0xca])
                ifn = rng.choice(["ibp12s0", "ibp75s0", "ens1np0"]) if j.net != "socket" else nd.iface
                j.kern(ni, t + rng.uniform(-0.2, 0.2), "mlx5_core %s %s: Link down" % (dev, ifn))
                j.kern(ni, t + rng.uniform(60, 240), "mlx5_core %s %s: Link up" % (dev, ifn))
            for r in range(j.world):
                if rng.random() < 0.8:
                    peer = j.nodes[rng.choice([h for h in hit if h != j.node_of[r]] or [(j.node_of[r] + 1) % len(j.nodes)])]
                    remote_failure(j, rng, r, t + rng.uniform(7, 25), peer)
                else:
                    timeout_failure(j, rng, r, t, seq, op, numel)
            self.notes.append("Leaf switch outage: links on %d nodes (%s) went down at the same moment; transport errors everywhere; no single node at fault." % (len(hit), ", ".join(j.nodes[h].name for h in hit[:4])))
            self.fin = dict()
            return
        r0 = self.pick_culprit()
        n = j.node(r0)
        self.node_truth(r0, lowest=True)
        self.drain = True
        dev = "0000:%02x:00.0" % rng.choice([0x0c, 0x1a, 0x4b, 0x5e, 0x8d, 0xca])
        if v == "nic_down":
            ifn = rng.choice(["ibp12s0", "ibp26s0", "ens3np0"])
            if rng.random() < 0.5:
                j.kern(n.idx, t - 0.3, "mlx5_core %s: mlx5_port_module_event:%d:(pid 0): Port module event[error]: module %d, Cable error, %s" % (dev, rng.choice([1161, 1174]), rng.randint(0, 3), rng.choice(["High Temperature", "Bus stuck (I2C or data shorted)", "Power budget exceeded"])))
            j.kern(n.idx, t, "mlx5_core %s %s: Link down" % (dev, ifn))
            if rng.random() < 0.4:
                j.kern(n.idx, t + rng.uniform(20, 90), "mlx5_core %s %s: Link up" % (dev, ifn))
            self.notes.append("InfiniBand/RoCE port %s on %s went down mid-step (link down in kernel log); NCCL retries exhausted (status=12) on every peer." % (dev, n.name))
        elif v == "nic_fatal":
            j.kern(n.idx, t - 1, "mlx5_core %s: poll_health:%d:(pid 0): device's health compromised - reached miss count" % (dev, rng.choice([800, 822, 949])))
            for k in range(3):
                j.kern(n.idx, t - 1, "mlx5_core %s: print_health_info:%d:(pid 0): assert_var[%d] 0x%08x" % (dev, rng.choice([424, 431]), k, rng.randrange(1 << 32)))
            j.kern(n.idx, t - 1, "mlx5_core %s: print_health_info:%d:(pid 0): assert_exit_ptr 0x%08x" % (dev, 436, rng.randrange(1 << 32)))
            j.kern(n.idx, t - 0.9, "mlx5_core %s: mlx5_health_try_recover:%d:(pid %d): handling bad device here" % (dev, rng.choice([327, 343]), rng.randint(100, 900)))
            j.kern(n.idx, t - 0.8, "mlx5_core %s: mlx5_handle_bad_state:%d:(pid %d): Expected to see disabled NIC but it is full driver" % (dev, rng.choice([269, 282]), rng.randint(100, 900)))
            self.notes.append("The mlx5 NIC %s on %s hit a firmware fatal (health compromised); its NCCL connections died." % (dev, n.name))
        elif v == "efa_down":
            j.kern(n.idx, t, "efa 0000:%02x:00.0: Keep alive watchdog timeout." % rng.choice([0x31, 0x53, 0x75, 0x97]))
            j.kern(n.idx, t + 0.1, "efa 0000:%02x:00.0: Device reset scheduled" % rng.choice([0x31, 0x53]))
            self.notes.append("An EFA device on %s stopped responding (keep-alive watchdog timeout); NCCL/OFI requests to it failed." % n.name)
        else:
            j.kern(n.idx, t, "%s: Link is Down" % n.iface if n.iface not in ("bond0",) else "bond0: (slave enp1s0f0): link status definitely down, disabling slave")
            if n.iface == "bond0":
                j.kern(n.idx, t + 0.01, "bond0: now running without any active interface!")
            self.notes.append("The data-network interface of %s went down; socket transport to it broke." % n.name)
        if v == "eth_down":
            # TCP just stalls: nobody gets a transport error, the watchdog fires everywhere
            for q in range(j.world):
                timeout_failure(j, rng, q, t, seq, op, numel, last_enq=seq, last_done=seq - 1)
            self.notes.append("No process reported a transport error; every rank, including those on %s, only timed out - the link-down line in that node's kernel log is the evidence." % n.name)
            self.fin = dict()
            return
        # ranks on the bad node and their peers both see transport errors
        for r in n.ranks:
            peer = j.nodes[(n.idx + rng.choice([-1, 1])) % len(j.nodes)]
            remote_failure(j, rng, r, t + rng.uniform(7, 20), peer)
        cascade(j, rng, t + rng.uniform(6, 9), {n.idx}, set(n.ranks), "fast" if rng.random() < 0.7 else "mixed", seq, op, numel)
        self.fin = dict()

    # ======================================================================================
    # host OOM kill
    # ======================================================================================
    def post_host_oom_kill(self, tF):
        j, rng = self.j, self.rng
        r = self.pick_culprit()
        n = j.node(r)
        t = self.tF_fault(tF)
        self.node_truth(r)
        seq, op, numel = coll_info(j, rng, j.F)
        cg = None
        v = rng.choice(["main", "main", "worker"])
        if j.sched_kind == "slurm" and rng.random() < 0.6:
            cg = "/slurm/uid_%d/job_%d/step_0/task_%d" % (j.uid, j.jobid, r if j.launcher == "srun" else n.idx)
        elif j.launcher == "k8s":
            cg = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice/cri-containerd-%s.scope" % ("%08x_%04x" % (rng.randrange(1 << 32), rng.randrange(1 << 16)), "%064x" % rng.randrange(1 << 256))
        anon = int(rng.uniform(0.7, 0.95) * 2048 * 1024 * 1024 / j.gpn) if cg else int(rng.uniform(0.25, 0.45) * 2048 * 1024 * 1024)
        self.variant = v + ("_cgroup" if cg else "_global")
        if v == "main":
            victim = j.pid[r]
            comm = rng.choice(["python", "python3", "pt_main_thread"])
            trig = rng.choice(["pt_data_worker", comm, "python3"])
            j.kern(n.idx, t, "\n".join(oom_killer_lines(j, n, victim, comm, anon, cg, trig)))
            fail(j, r, t + 0.05, -9, "oom")
            j.oom_ranks.add(r)
            self.notes.append("The Linux OOM killer (%s) killed rank %d (pid %d) on %s; host RAM, not GPU memory, ran out." % ("cgroup limit" if cg else "global", r, victim, n.name))
            if j.launcher == "srun" and cg:
                j.sched(t + 1, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % j.jobid)
        else:
            victim = j.pid[r] + rng.randint(200, 900)
            j.kern(n.idx, t, "\n".join(oom_killer_lines(j, n, victim, "pt_data_worker", anon // 3, cg, "pt_data_worker")))
            tt = t + rng.uniform(0.5, 5)
            fr = [(lib(j, "torch/utils/data/dataloader.py"), 1243, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                  (lib(j, "torch/utils/data/_utils/signal_handling.py"), 73, "handler", "_error_if_any_worker_fails()")]
            chained = py_tb(j, r, [(lib(j, "torch/utils/data/dataloader.py"), 1243, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                                   (j.stdlib + "/queue.py", 180, "get", "self.not_empty.wait(remaining)"),
                                   (j.stdlib + "/threading.py", 324, "wait", "gotit = waiter.acquire(True, timeout)"),
                                   (lib(j, "torch/utils/data/_utils/signal_handling.py"), 73, "handler", "_error_if_any_worker_fails()")],
                            ["RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % victim])
            frames = [(lib(j, "torch/utils/data/dataloader.py"), 701, "__next__", "data = self._next_data()"),
                      (lib(j, "torch/utils/data/dataloader.py"), 1448, "_next_data", "idx, data = self._get_data()"),
                      (lib(j, "torch/utils/data/dataloader.py"), 1402, "_get_data", "success, data = self._try_get_data()"),
                      (lib(j, "torch/utils/data/dataloader.py"), 1256, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")]
            culprit_python_exit(j, rng, r, tt, ["RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % victim], frames, chained=chained)
            self.notes.append("The OOM killer killed a DataLoader worker (pid %d) of rank %d on %s; the rank then raised 'DataLoader worker exited unexpectedly'." % (victim, r, n.name))
            t = tt
        cascade(j, rng, t + 1, {n.idx}, {r}, rng.choice(["fast", "mixed", "timeout"]), seq, op, numel)
        self.fin = dict()

    # ======================================================================================
    # CUDA OOM
    # ======================================================================================
    def post_cuda_oom(self, tF):
        j, rng = self.j, self.rng
        r = self.pick_culprit()
        n = j.node(r)
        t = self.tF_fault(tF)
        self.node_truth(r)
        seq, op, numel = coll_info(j, rng, j.F)
        cap = j.gpu["cap_gib"]
        ask = rng.choice([0.5, 1.0, 1.95, 2.0, 3.5, 4.0, 7.83, 12.0])
        free = rng.uniform(0.1, ask * 0.8)
        used = cap - free - 0.5
        alloc = used * rng.uniform(0.86, 0.95)
        resv = used - alloc - 0.6
        l = j.local[r]
        if j.torch_minor <= 1:
            msg = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacty of %.2f GiB of which %.2f GiB is free. Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF"
                   % (ask, l, cap, free, used, alloc, resv))
        else:
            msg = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
                   % (ask, l, cap, free, used, alloc, resv))
        where = rng.choice(["fwd", "bwd", "eval", "ckpt"] if j.trainer in ("hf", "titan", "plain", "composer") else ["fwd", "bwd", "eval"])
        w = j.workdir
        if where == "fwd":
            fr = [(lib(j, "torch/nn/modules/module.py"), 1736, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
                  (lib(j, "torch/nn/modules/module.py"), 1747, "_call_impl", "return forward_call(*args, **kwargs)"),
                  (lib(j, "torch/nn/functional.py"), 3104, "cross_entropy", "return torch._C._nn.cross_entropy_loss(")]
            self.notes.append("Rank %d ran out of GPU memory in the loss of an unusually long-sequence batch at step %d." % (r, j.F))
        elif where == "bwd":
            fr = sync_frames(j, rng)[:1] + [(lib(j, "torch/autograd/graph.py"), 825, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]
            self.notes.append("Rank %d ran out of GPU memory in backward at step %d (memory fragmentation grew over the run)." % (r, j.F))
        elif where == "eval":
            fr = [(w + "/train.py", 455, "evaluate", "logits = model(batch['input_ids']).logits.float()")]
            self.notes.append("Rank %d ran out of GPU memory during periodic evaluation (fp32 logits) at step %d." % (r, j.F))
        else:
            fr = [(lib(j, "torch/distributed/fsdp/_state_dict_utils.py"), 318, "_full_post_state_dict_hook", "return _common_unshard_post_state_dict_hook("),
                  (lib(j, "torch/distributed/fsdp/_state_dict_utils.py"), 238, "_common_unshard_post_state_dict_hook", "param_hook(state_dict, prefix, fqn)"),
                  (lib(j, "torch/distributed/fsdp/_state_dict_utils.py"), 310, "param_hook", "state_dict[fqn] = state_dict[fqn].clone().detach()")]
            self.notes.append("Rank %d ran out of GPU memory while gathering a full state dict for a checkpoint at step %d." % (r, j.F))
        culprit_python_exit(j, rng, r, t, [msg], fr)
        cascade(j, rng, t + 2, {n.idx}, {r}, rng.choice(["fast", "mixed", "timeout", "timeout"]), seq, op, numel)
        self.fin = dict()

    # ======================================================================================
    # illegal memory access
    # ======================================================================================
    def post_illegal_memory_access(self, tF):
        j, rng = self.j, self.rng
        r = self.pick_culprit()
        n = j.node(r)
        t = self.tF_fault(tF)
        self.node_truth(r)
        seq, op, numel = coll_info(j, rng, j.F)
        pname = rng.choice(["python", "python3", "pt_main_thread"])
        if rng.random() < 0.6:
            if rng.random() < 0.5:
                j.kern(n.idx, t - 0.05, xid(j, n, j.local[r], 31, j.pid[r], pname, "Ch %08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x%x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (rng.randint(8, 40), rng.randint(0, 7), rng.randint(0, 15), rng.randint(0x7f00, 0x7fff), rng.randrange(1 << 32))))
            else:
                j.kern(n.idx, t - 0.05, xid(j, n, j.local[r], 13, j.pid[r], pname, "Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (rng.randint(0, 7), rng.randint(0, 8), rng.randint(0, 1))))
                j.kern(n.idx, t - 0.05, xid(j, n, j.local[r], 13, j.pid[r], pname, "Graphics Exception: ESR 0x%x=0x%x 0x%x=0x%x 0x%x=0x%x 0x%x=0x%x" % tuple(rng.randrange(1 << 24) for _ in range(8))))
        if rng.random() < 0.5:
            culprit_python_exit(j, rng, r, t, cuda_err_lines("an illegal memory access was encountered"), sync_frames(j, rng))
        else:
            j.emit(r, t, "\n".join(cuda_error_watchdog_block(j, r, t, "an illegal memory access was encountered")), "e")
            fail(j, r, t + 1, -6, "abort")
        self.notes.append("A custom fused kernel on rank %d read out of bounds (illegal memory access) at step %d; the Xid 13/31 lines it may leave are software faults, not hardware." % (r, j.F))
        cascade(j, rng, t + 2, {n.idx}, {r}, rng.choice(["fast", "mixed", "timeout"]), seq, op, numel)
        self.fin = dict()

    # ======================================================================================
    # python exception
    # ======================================================================================
    def post_python_exception(self, tF):
        j, rng = self.j, self.rng
        r = self.pick_culprit()
        n = j.node(r)
        t = self.tF_fault(tF)
        seq, op, numel = coll_info(j, rng, j.F)
        m = j.model
        v = rng.choice(["shard_missing", "keyerror", "nan_check", "quota", "badzip", "unicode", "assert"])
        self.variant = v
        if v == "quota":
            r = 0
        self.node_truth(r)
        w = j.workdir
        if v == "shard_missing":
            sh = "%s/shard-%05d.parquet" % (m["data_path"], rng.randint(0, m["shards"]))
            fr = frames_dataloader(j)[:3] + [(lib(j, "torch/utils/data/dataloader.py"), 1474, "_process_data", "data.reraise()"),
                                              (lib(j, "torch/_utils.py"), 733, "reraise", "raise exception")]
            exc = ["FileNotFoundError: Caught FileNotFoundError in DataLoader worker process %d." % rng.randint(0, 7),
                   "Original Traceback (most recent call last):",
                   '  File "%s/torch/utils/data/_utils/worker.py", line 351, in _worker_loop' % j.pylib,
                   "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]",
                   '  File "%s/data/streaming.py", line 212, in __iter__' % w,
                   "    table = pq.read_table(path, columns=self.columns)",
                   '  File "%s/pyarrow/parquet/core.py", line 1793, in read_table' % j.pylib,
                   "    dataset = ParquetDataset(",
                   "FileNotFoundError: %s" % sh, ""]
            self.notes.append("Rank %d's DataLoader hit a missing data shard (%s) and raised FileNotFoundError." % (r, sh))
        elif v == "keyerror":
            fr = frames_dataloader(j)[:3] + [(lib(j, "torch/utils/data/dataloader.py"), 1474, "_process_data", "data.reraise()"), (lib(j, "torch/_utils.py"), 733, "reraise", "raise exception")]
            exc = ["KeyError: Caught KeyError in DataLoader worker process %d." % rng.randint(0, 7), "Original Traceback (most recent call last):",
                   '  File "%s/torch/utils/data/_utils/worker.py", line 351, in _worker_loop' % j.pylib, "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]",
                   '  File "%s/torch/utils/data/_utils/fetch.py", line 55, in fetch' % j.pylib, "    return self.collate_fn(data)",
                   '  File "%s/data/collate.py", line 48, in __call__' % w, "    attn = [ex['attention_mask'] for ex in batch]",
                   "KeyError: 'attention_mask'", ""]
            self.notes.append("A malformed sample without 'attention_mask' made rank %d's collate function raise KeyError." % r)
        elif v == "nan_check":
            fr = [(w + "/train.py" if j.trainer != "megatron" else w + "/megatron/training/training.py", 402, "train_step" if j.trainer != "megatron" else "train_step", "raise FloatingPointError(f'Loss is {loss.item()} at step {step}, stopping')" if j.trainer != "megatron" else "rerun_state_machine.validate_result(")]
            exc = ["FloatingPointError: Loss is nan at step %d, stopping" % j.F] if j.trainer != "megatron" else ["RuntimeError: Rank %d, node %s, device %d, iteration %d: Unexpected result nan (message='found NaN in local forward loss calculation')" % (r, n.name, j.local[r], j.F)]
            self.notes.append("Rank %d's loss became NaN and its own check raised at step %d (other ranks did not check)." % (r, j.F))
        elif v == "quota":
            fr = [(lib(j, "torch/serialization.py"), 850, "save", "_save("), (lib(j, "torch/serialization.py"), 1114, "_save", "zip_file.write_record(name, storage, num_bytes)")]
            exc = ["RuntimeError: [enforce fail at inline_container.cc:778] . PytorchStreamWriter failed writing file data/%d: file write failed" % rng.randint(10, 900)]
            chained = None
            self.notes.append("Checkpoint save on rank 0 failed (filesystem quota exhausted: 'PytorchStreamWriter failed writing file').")
            j.emit(r, t - 0.3, "%s/torch/serialization.py:%d: UserWarning: could not write %s/step_%07d/model.pt: [Errno 122] Disk quota exceeded" % (j.pylib, 872, m["ckpt_dir"], j.F), "e")
        elif v == "badzip":
            fr = [(w + "/train.py", 190, "load_extra_state", "state = torch.load(path, map_location='cpu', weights_only=False)"), (lib(j, "torch/serialization.py"), 1319, "load", "with _open_zipfile_reader(opened_file) as opened_zipfile:"),
                  (lib(j, "torch/serialization.py"), 659, "__init__", "super().__init__(torch._C.PyTorchFileReader(name_or_buffer))")]
            exc = ["RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory"]
            self.notes.append("Rank %d failed to read a truncated auxiliary state file (PytorchStreamReader failed reading zip archive)." % r)
        elif v == "unicode":
            fr = frames_dataloader(j)[:3] + [(lib(j, "torch/utils/data/dataloader.py"), 1474, "_process_data", "data.reraise()"), (lib(j, "torch/_utils.py"), 733, "reraise", "raise exception")]
            exc = ["UnicodeDecodeError: Caught UnicodeDecodeError in DataLoader worker process 3.", "Original Traceback (most recent call last):",
                   '  File "%s/data/jsonl_dataset.py", line 77, in __getitem__' % w, "    line = self.fh.readline().decode('utf-8')",
                   "UnicodeDecodeError: 'utf-8' codec can't decode byte 0x%02x in position %d: invalid start byte" % (rng.choice([0x80, 0x8b, 0xff, 0xe9]), rng.randint(0, 4000)), ""]
            self.notes.append("Corrupt bytes in a data file made rank %d's worker raise UnicodeDecodeError." % r)
        else:
            fr = [(w + "/model/moe.py", 233, "forward", "assert (tokens_per_expert >= 0).all() and tokens_per_expert.sum() == x.shape[0], f'routing mismatch {tokens_per_expert.sum()} != {x.shape[0]}'")]
            exc = ["AssertionError: routing mismatch %d != %d" % (rng.randint(4000, 8000), 8192)]
            self.notes.append("An assertion in the model code failed on rank %d at step %d." % (r, j.F))
        culprit_python_exit(j, rng, r, t, exc, fr)
        cascade(j, rng, t + 2, {n.idx}, {r}, rng.choice(["fast", "mixed", "timeout", "timeout"]), seq, op, numel)
        self.fin = dict()

    # ======================================================================================
    # crash signal
    # ======================================================================================
    def post_crash_signal(self, tF):
        j, rng = self.j, self.rng
        r = self.pick_culprit()
        n = j.node(r)
        t = self.tF_fault(tF)
        self.node_truth(r)
        seq, op, numel = coll_info(j, rng, j.F)
        v = rng.choice(["segv", "segv", "abort", "bus"])
        self.variant = v
        w = j.workdir
        tid = 0x7f0000000000 + rng.randrange(1 << 36)
        if v == "segv":
            lines = ["Fatal Python error: Segmentation fault", "",
                     "Thread 0x%016x (most recent call first):" % (tid + 0x1000),
                     '  File "%s/threading.py", line 324 in wait' % j.stdlib,
                     '  File "%s/threading.py", line 607 in wait' % j.stdlib,
                     '  File "%s/tqdm/_monitor.py", line 60 in run' % j.pylib,
                     '  File "%s/threading.py", line 1016 in _bootstrap_inner' % j.stdlib,
                     '  File "%s/threading.py", line 973 in _bootstrap' % j.stdlib, "",
                     "Current thread 0x%016x (most recent call first):" % tid,
                     '  File "%s/data/tokenizer_ext.py", line 88 in encode_batch' % w,
                     '  File "%s/data/packing.py", line 141 in pack' % w,
                     '  File "%s/data/packing.py", line 203 in __iter__' % w,
                     '  File "%s/torch/utils/data/dataloader.py", line 701 in __next__' % j.pylib,
                     '  File "%s/%s", line %d in %s' % (w, j.script_name, rng.randint(200, 900), rng.choice(["train_step", "forward_step", "get_batch"])),
                     '  File "%s/%s", line %d in <module>' % (w, j.script_name, rng.randint(300, 1200)), "",
                     "Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, numpy.linalg._umath_linalg, torch._C, torch._C._fft, torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special, yaml._yaml, sentencepiece._sentencepiece, pyarrow.lib, _tokenizers_ext (total: %d)" % rng.randint(60, 140)]
            j.emit(r, t, "\n".join(lines), "e")
            base = 0x7f0000000000 + (rng.randrange(1 << 28) << 12)
            size = rng.randint(0x10000, 0x99000)
            j.kern(n.idx, t + 0.01, "%s[%d]: segfault at %x ip %016x sp %016x error 4 in _tokenizers_ext.cpython-310-x86_64-linux-gnu.so[%x+%x] likely on CPU %d (core %d, socket %d)"
                   % (rng.choice(["python", "pt_main_thread"]), j.pid[r], rng.choice([0, 8, 0x18, 0x10]), base + rng.randrange(size), 0x7ffc00000000 + rng.randrange(1 << 32), base, size, rng.randint(0, 111), rng.randint(0, 55), rng.randint(0, 1)))
            j.kern(n.idx, t + 0.01, "Code: %s" % " ".join("%02x" % rng.randrange(256) for _ in range(40)))
            fail(j, r, t + 0.1, -11, "sig")
            self.notes.append("Rank %d segfaulted in a native tokenizer extension (SIGSEGV, faulthandler dump + kernel segfault line); no hardware fault." % r)
        elif v == "abort":
            what = rng.choice(["free(): invalid pointer", "double free or corruption (!prev)", "corrupted size vs. prev_size"])
            lines = [what, "Fatal Python error: Aborted", "", "Current thread 0x%016x (most recent call first):" % tid,
                     '  File "%s/data/packing.py", line 141 in pack' % w, '  File "%s/train.py", line 298 in train_step' % w, '  File "%s/train.py", line 540 in main' % w]
            j.emit(r, t, "\n".join(lines), "e")
            fail(j, r, t + 0.2, -6, "sig")
            self.notes.append("Rank %d aborted with glibc heap corruption ('%s', SIGABRT) in user data code, before any other rank reported anything." % (r, what))
        else:
            wpid = j.pid[r] + rng.randint(100, 900)
            j.emit(r, t, "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).", "e")
            chained = py_tb(j, r, [(lib(j, "torch/utils/data/dataloader.py"), 1243, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                                   (lib(j, "torch/utils/data/_utils/signal_handling.py"), 73, "handler", "_error_if_any_worker_fails()")],
                            ["RuntimeError: DataLoader worker (pid %d) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit." % wpid])
            frames = frames_dataloader(j)[:3] + [(lib(j, "torch/utils/data/dataloader.py"), 1256, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")]
            culprit_python_exit(j, rng, r, t + 0.3, ["RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % wpid], frames, chained=chained)
            self.notes.append("A DataLoader worker of rank %d died of SIGBUS (shared memory /dev/shm exhausted)." % r)
        cascade(j, rng, t + 2, {n.idx}, {r}, rng.choice(["fast", "mixed", "timeout"]), seq, op, numel)
        self.fin = dict()

    # ======================================================================================
    # hang
    # ======================================================================================
    def post_hang(self, tF):
        j, rng = self.j, self.rng
        r = self.pick_culprit()
        n = j.node(r)
        t = self.tF_fault(tF)
        seq, op, numel = coll_info(j, rng, j.F)
        v = rng.choice(["silent_dump", "pyspy", "jobwide", "pyspy_no_watchdog"])
        if j.torch_minor < 4 and v == "silent_dump":
            v = "pyspy"
        self.variant = v
        if v == "jobwide":
            self.rank = None
            self.node = None
            self.rank_inferable = False
            for q in range(j.world):
                timeout_failure(j, rng, q, t, seq, op, numel, last_enq=seq, last_done=seq - 1)
            self.notes.append("Every rank stopped at step %d inside the same collective (SeqNum=%d) and only the watchdog spoke %d s later; no rank stands out." % (j.F, seq, j.pg_timeout))
            self.fin = dict()
            return
        self.node_truth(r)
        others = [q for q in range(j.world) if q != r]
        if v == "pyspy_no_watchdog":
            # huge timeout: nothing fires, the user takes py-spy dumps and cancels
            j.pg_timeout = max(j.pg_timeout, 7200)
            self.pyspy_dump(r, t + rng.uniform(1800, 5000), seq, op)
            tk = t + rng.uniform(5400, 7000)
            if j.sched_kind == "slurm":
                j.user_scancel_t = tk
            self.fin = dict(kill_all_at=tk, kill_reason="scancel")
            self.notes.append("Rank %d blocked forever (GIL deadlock in a logging handler thread) at step %d; the 2 h NCCL timeout never fired; py-spy dumps show it outside the collective while all others wait in %s; the user then cancelled." % (r, j.F, op))
            return
        for q in others:
            timeout_failure(j, rng, q, t, seq, op, numel, last_enq=seq, last_done=seq - 1)
        t_w = t + j.pg_timeout
        if v == "silent_dump":
            tds = t_w + rng.uniform(0.1, 0.5)
            blk = dump_signal_from_other(j, r, tds, rng.choice(others), seq - 1, seq - 1)
            j.emit(r, tds, "\n".join(blk), "e")
            tk = t_w + rng.uniform(60, 480)
            j.emit(r, tk, "\n".join(heartbeat_kill(j, r, tk)), "e")
            fail(j, r, tk + 0.2, -6, "abort")
            self.notes.append("Rank %d never enqueued collective %d (last enqueued %d) - it was stuck in Python - while every other rank timed out waiting in it." % (r, seq, seq - 1))
        else:
            self.pyspy_dump(r, t_w - rng.uniform(60, 400), seq, op)
            self.notes.append("Rank %d stopped progressing at step %d (stuck outside the collective, see the py-spy dumps); the others timed out in %s after %d s." % (r, j.F, op, j.pg_timeout))
        self.fin = dict()

    def pyspy_dump(self, culprit, t, seq, op):
        """py-spy dump --pid for the ranks of the culprit's node and of one other node."""
        j, rng = self.j, self.rng
        n = j.node(culprit)
        qs = list(n.ranks)
        if len(j.nodes) > 1:
            other = j.nodes[rng.choice([x for x in range(len(j.nodes)) if x != n.idx])]
            qs = sorted(qs + list(other.ranks)[: rng.randint(1, j.gpn)])
        for q in qs:
            lines = ["Process %d: %s -u %s %s" % (j.pid[q], j.python_bin, j.script_name, j.script_args), "Python v3.10.12 (%s)" % j.python_bin, ""]
            if q == culprit:
                if self.cause == "data_loader_stall":
                    lines += ['Thread %d (idle): "MainThread"' % j.pid[q],
                              "    wait (threading.py:324)", "    get (queue.py:180)",
                              "    _try_get_data (torch/utils/data/dataloader.py:1133)", "    _get_data (torch/utils/data/dataloader.py:1294)",
                              "    _next_data (torch/utils/data/dataloader.py:1332)", "    __next__ (torch/utils/data/dataloader.py:631)",
                              "    train_step (train.py:284)", "    main (train.py:540)", "    <module> (train.py:611)"]
                else:
                    lines += ['Thread %d (idle): "MainThread"' % j.pid[q],
                              "    acquire (logging/__init__.py:917)", "    handle (logging/__init__.py:1630)", "    callHandlers (logging/__init__.py:1696)",
                              "    _log (logging/__init__.py:1624)", "    info (logging/__init__.py:1477)", "    log_metrics (utils/metrics.py:61)",
                              "    train_step (train.py:331)", "    main (train.py:540)", "    <module> (train.py:611)",
                              'Thread %d (idle): "metrics-uploader"' % (j.pid[q] + 41), "    _send (http/client.py:1001)", "    flush (utils/metrics.py:112)",
                              "    emit (utils/metrics.py:88)", "    handle (logging/__init__.py:1634)"]
            else:
                fn = {"ALLREDUCE": "all_reduce", "_REDUCE_SCATTER_BASE": "reduce_scatter_tensor", "_ALLGATHER_BASE": "all_gather_into_tensor"}.get(op, "all_reduce")
                lines += ['Thread %d (active): "MainThread"' % j.pid[q],
                          "    synchronize (torch/cuda/__init__.py:954)", "    %s (torch/distributed/distributed_c10d.py:%d)" % (fn, {"all_reduce": 2501, "reduce_scatter_tensor": 4177, "all_gather_into_tensor": 3462}[fn]),
                          "    wrapper (torch/distributed/c10d_logger.py:83)", "    reduce_gradients (train.py:251)", "    train_step (train.py:309)",
                          "    main (train.py:540)", "    <module> (train.py:611)"]
            lines += ['Thread %d (idle): "pt_autograd_0"' % (j.pid[q] + 17)]
            self.pyspy[(j.node(q).name, j.pid[q])] = (t + (q - n.first_rank) * 2.1, "\n".join(lines) + "\n")

    # ======================================================================================
    # collective mismatch
    # ======================================================================================
    def post_collective_mismatch(self, tF):
        j, rng = self.j, self.rng
        r = self.pick_culprit()
        n = j.node(r)
        t = self.tF_fault(tF)
        self.node_truth(r)
        seq, op, numel = coll_info(j, rng, j.F)
        v = rng.choice(["detail", "watchdog_diff", "watchdog_diff"])
        self.variant = v
        if v == "detail":
            fp = lambda o, shape, dt: "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%s], TensorDtypes=%s, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (seq, o, shape, dt)
            bop = rng.choice(["BROADCAST", "ALLREDUCE"])
            bshape = str(rng.choice([1, 2, max(3, numel // 2)]))
            bdt = rng.choice(["Long", "Float", "BFloat16"])
            if bop == "ALLREDUCE" and bshape == str(numel) and bdt == "BFloat16":
                bdt = "Long"
            good = fp("ALLREDUCE", str(numel), "BFloat16")
            bad = fp(bop, bshape, bdt)

            def diff(a_op, a_sh, a_dt, b_op, b_sh, b_dt):
                if j.torch_minor < 3:
                    return ""
                d = ".Collectives differ in the following aspects: "
                if a_op != b_op:
                    d += "\t Op type: %svs %s" % (a_op, b_op)
                if a_sh != b_sh:
                    d += "  Tensor Tensor shapes: %svs %s" % (a_sh, b_sh)
                if a_dt != b_dt:
                    d += "  Tensor Tensor dtypes: %svs %s" % (a_dt, b_dt)
                return d
            for q in range(j.world):
                if q == r:
                    msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s%s" % (r, bad, 0 if r else 1, good, diff(bop, bshape, bdt, "ALLREDUCE", str(numel), "BFloat16") or ".")
                else:
                    msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s%s" % (q, good, r, bad, diff("ALLREDUCE", str(numel), "BFloat16", bop, bshape, bdt) or ".")
                tq = t + rng.uniform(0.01, 1.5)
                frames = [(j.workdir + "/train.py", 251, "reduce_gradients", "dist.all_reduce(flat_grads, group=dp_group)")] + frames_allreduce(j)
                if q == r:
                    if bop == "BROADCAST":
                        frames = [(j.workdir + "/train.py", 377, "maybe_skip_step", "dist.broadcast(skip_flag, src=0)"), (lib(j, "torch/distributed/c10d_logger.py"), 83, "wrapper", "return func(*args, **kwargs)"),
                                  (lib(j, "torch/distributed/distributed_c10d.py"), 2205, "broadcast", "work = group.broadcast([tensor], opts)")]
                    else:
                        frames = [(j.workdir + "/train.py", 377, "maybe_skip_step", "dist.all_reduce(skip_flag, op=dist.ReduceOp.MAX)")] + frames_allreduce(j)
                j.emit(q, tq, "\n".join(py_tb(j, q, frames_train_entry(j) + frames, [msg])), "e")
                fail(j, q, tq + rng.uniform(0.5, 2), 1, "exc")
            self.notes.append("With TORCH_DISTRIBUTED_DEBUG=DETAIL every rank reports a collective mismatch at SequenceNumber %d: all agree except rank %d, which issued a different collective (skip-step branch taken only on that rank)." % (seq, r))
        else:
            op2 = rng.choice([o for o in ["BROADCAST", "ALLGATHER", "_ALLGATHER_BASE", "ALLREDUCE"] if o != op])
            numel2 = numel if op2 != "ALLREDUCE" else max(1, numel // rng.choice([2, 3, 4]))
            for q in range(j.world):
                if q == r:
                    timeout_failure(j, rng, q, t, seq, op2, numel2, last_enq=seq, last_done=seq - 1)
                else:
                    timeout_failure(j, rng, q, t, seq, op, numel, last_enq=seq, last_done=seq - 1)
            self.notes.append("Rank %d issued %s(NumelIn=%d) as collective %d while all other ranks issued %s(NumelIn=%d); everyone hung until the watchdog fired - only the WorkNCCL descriptions differ." % (r, op2, numel2, seq, op, numel))
        self.fin = dict()

    # ======================================================================================
    # data loader stall
    # ======================================================================================
    def pre_data_loader_stall(self):
        j, rng = self.j, self.rng
        self.variant = rng.choice(["dl_timeout", "faulthandler", "pyspy", "nfs_node"] if j.has_kernel else ["dl_timeout", "faulthandler", "pyspy"])
        if self.variant == "dl_timeout":
            j.dl_timeout = rng.choice([120, 300, 300, 600])
            j.pg_timeout = max(j.pg_timeout, j.dl_timeout * 2)
        if self.variant == "faulthandler":
            j.fh_timeout = rng.choice([180, 300, 480])
            j.pg_timeout = max(j.pg_timeout, j.fh_timeout * 2)

    def post_data_loader_stall(self, tF):
        j, rng = self.j, self.rng
        r = self.pick_culprit()
        n = j.node(r)
        t = self.tF_fault(tF)
        seq, op, numel = coll_info(j, rng, j.F)
        v = self.variant
        m = j.model
        if v == "nfs_node":
            self.node_truth(r, lowest=True)
            srv = rng.choice(["nfs-data01", "fs-0a1b2c3d.efs.us-east-1.amazonaws.com", "filer2.cluster.example.org", "10.0.9.21"])
            j.kern(n.idx, t + rng.uniform(5, 40), "nfs: server %s not responding, still trying" % srv)
            for k in range(rng.randint(1, 3)):
                tb = t + 123 + k * 121
                q = n.ranks[k % len(n.ranks)]
                j.kern(n.idx, tb, "INFO: task pt_data_worker:%d blocked for more than %d seconds.\n      Tainted: P           OE      %s #%d-Ubuntu\n\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.\ntask:pt_data_worker  state:D stack:0     pid:%d  ppid:%d  flags:0x00000002\nCall Trace:\n <TASK>\n __schedule+0x27c/0x6b0\n schedule+0x33/0x110\n rpc_wait_bit_killable+0x11/0x70 [sunrpc]\n __wait_on_bit+0x42/0x110\n out_of_line_wait_on_bit+0x8c/0xb0\n __rpc_execute+0x112/0x460 [sunrpc]\n rpc_execute+0x8b/0xb0 [sunrpc]\n nfs4_do_call_sync+0x6f/0xb0 [nfsv4]\n nfs4_proc_getattr+0x88/0x110 [nfsv4]\n __nfs_revalidate_inode+0xe5/0x310 [nfs]\n nfs_file_read+0x33/0xa0 [nfs]\n vfs_read+0x1fb/0x350\n ksys_read+0x6f/0xf0\n do_syscall_64+0x59/0x90\n entry_SYSCALL_64_after_hwframe+0x6e/0xd8\n </TASK>"
                       % (j.pid[q] + 300 + k, 122, j.kernel_ver, 101, j.pid[q] + 300 + k, j.pid[q]))
            j.kern(n.idx, t + j.pg_timeout + rng.uniform(100, 900), "nfs: server %s OK" % srv)
            for q in n.ranks:
                pass
            for q in range(j.world):
                if j.node_of[q] == n.idx:
                    continue
                timeout_failure(j, rng, q, t, seq, op, numel, last_enq=seq, last_done=seq - 1)
            if j.torch_minor >= 4:
                for q in n.ranks:
                    blk = dump_signal_from_other(j, q, t + j.pg_timeout + rng.uniform(0.5, 3), rng.choice([x for x in range(j.world) if j.node_of[x] != n.idx]), seq - 1, seq - 1)
                    j.emit(q, t + j.pg_timeout + 1, "\n".join(blk), "e")
            self.notes.append("The NFS data mount on %s (server %s) stopped responding; all DataLoader workers of that node blocked in D state, so its ranks never reached collective %d and the other nodes timed out." % (n.name, srv, seq))
            self.fin = dict()
            return
        self.node_truth(r)
        if v == "dl_timeout":
            tt = t + j.dl_timeout
            culprit_python_exit(j, rng, r, tt, ["RuntimeError: DataLoader timed out after %d seconds" % j.dl_timeout], frames_dataloader(j)[:3] + [frames_dataloader(j)[3]],
                                chained=py_tb(j, r, [(lib(j, "torch/utils/data/dataloader.py"), 1243, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                                                     (j.stdlib + "/multiprocessing/queues.py", 114, "get", "raise Empty")], ["_queue.Empty"]))
            cascade(j, rng, tt + 1, {n.idx}, {r}, rng.choice(["fast", "mixed"]), seq, op, numel, t_coll=t)
            self.notes.append("Rank %d's DataLoader produced no batch for %d s (its worker hung reading object storage) and raised 'DataLoader timed out'; the others then lost their peer." % (r, j.dl_timeout))
        elif v == "faulthandler":
            tt = t + j.fh_timeout
            lines = ["Timeout (%s)!" % ("0:%02d:%02d" % (j.fh_timeout // 60, j.fh_timeout % 60)),
                     "Thread 0x%016x (most recent call first):" % (0x7f0000000000 + rng.randrange(1 << 36)),
                     '  File "%s/threading.py", line 324 in wait' % j.stdlib,
                     '  File "%s/multiprocessing/queues.py", line 113 in get' % j.stdlib,
                     '  File "%s/torch/utils/data/dataloader.py", line 1133 in _try_get_data' % j.pylib,
                     '  File "%s/torch/utils/data/dataloader.py", line 1294 in _get_data' % j.pylib,
                     '  File "%s/torch/utils/data/dataloader.py", line 1332 in _next_data' % j.pylib,
                     '  File "%s/torch/utils/data/dataloader.py", line 631 in __next__' % j.pylib,
                     '  File "%s/train.py", line 284 in train_step' % j.workdir,
                     '  File "%s/train.py", line 540 in main' % j.workdir,
                     '  File "%s/train.py", line 611 in <module>' % j.workdir]
            j.emit(r, tt, "\n".join(lines), "e")
            for q in range(j.world):
                if q != r:
                    timeout_failure(j, rng, q, t, seq, op, numel, last_enq=seq, last_done=seq - 1)
            self.notes.append("Rank %d waited on its DataLoader from step %d; the faulthandler watchdog dumped its stack in dataloader._try_get_data after %d s, and the NCCL watchdog on every other rank fired later." % (r, j.F, j.fh_timeout))
        else:
            self.pyspy_dump(r, t + j.pg_timeout - rng.uniform(60, 300), seq, op)
            for q in range(j.world):
                if q != r:
                    timeout_failure(j, rng, q, t, seq, op, numel, last_enq=seq, last_done=seq - 1)
            self.notes.append("Rank %d blocked in DataLoader queue.get at step %d (py-spy shows it); everyone else timed out in %s." % (r, j.F, op))
        self.fin = dict()


# ======================================================================================
# decoys & teardown noise
# ======================================================================================
def teardown_noise(S, t_end):
    j, rng = S.j, S.rng
    if j.torch_minor >= 4 and rng.random() < 0.6:
        for r in rng.sample(range(j.world), min(j.world, rng.randint(1, 6))):
            j.emit(r, t_end - rng.uniform(0.5, 3), j.c10(r, t_end - 1, "W", "ProcessGroupNCCL.cpp:1250", "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())"), "e")
    if rng.random() < 0.3:
        r = rng.randrange(j.world)
        j.emit(r, t_end - 0.5, "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f%010x>\nTraceback (most recent call last):\n  File \"%s/torch/utils/data/dataloader.py\", line 1604, in __del__\n    self._shutdown_workers()\n  File \"%s/torch/utils/data/dataloader.py\", line 1568, in _shutdown_workers\n    w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)\n  File \"%s/multiprocessing/process.py\", line 149, in join\n    res = self._popen.wait(timeout)\nKeyboardInterrupt: " % (rng.randrange(1 << 36), j.pylib, j.pylib, j.stdlib), "e")
        S.notes.append("Teardown printed a DataLoader __del__ traceback (harmless).")
    if rng.random() < 0.35:
        j.emit(0, t_end - 2, "wandb: ERROR Error while calling W&B API: context deadline exceeded (<Response [500]>)\nwandb: Network error (ReadTimeout), entering retry loop.\nwandb: 🚀 View run %s at: https://wandb.ai/team/llm/runs/%s\nwandb: Find logs at: ./wandb/run-%s/logs" % (j.run_name, "%08x" % rng.randrange(1 << 32), "%08x" % rng.randrange(1 << 32)), "e")
    if j.nccl_detail >= 1:
        for r in range(0, j.world, max(1, j.world // 8)):
            j.emit(r, t_end - 0.2, "%s NCCL INFO comm %s rank %d nranks %d cudaDev %d busId %s000 - Destroy COMPLETE" % (j.nccl_prefix(r), j.comm_addr[r], r, j.world, j.local[r], j.gpu["bus"][j.local[r]]), "o")


def add_decoys(S, t_start, t_stop):
    """harmless-but-scary lines before/while training"""
    j, rng = S.j, S.rng
    span = max(t_stop - t_start, 60)
    k = rng.random()
    # old Xid from a previous job on some node, hours before this job
    if rng.random() < 0.4:
        n = j.nodes[rng.randrange(len(j.nodes))]
        told = j.t0 - rng.uniform(2, 30) * 3600
        code, txt = rng.choice([(79, "GPU has fallen off the bus."), (31, "Ch 00000010, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_3 faulted @ 0x7f12_34560000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ"),
                                (48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 3, subpartition 0."),
                                (13, "Graphics SM Warp Exception on (GPC 2, TPC 1, SM 0): Illegal Instruction Parameter"), (43, "Ch 00000008"), (74, "NVLink: fatal error detected on link 7(0x0, 0x0, 0x0, 0x0, 0x10000, 0x0, 0x0)")])
        j.kern(n.idx, told, xid(j, n, rng.randrange(j.gpn), code, rng.randint(3000, 90000), rng.choice(["python", "jupyter-lab", "pt_main_thread"]), txt))
        if code == 79:
            j.kern(n.idx, told + 600, "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s  Tue Jul  2 18:47:08 UTC 2024" % j.gpu["driver"])
        S.notes.append("Decoy: Xid %d on %s from a previous job %.0f h before this job started." % (code, n.name, (j.t0 - told) / 3600))
    # NIC link flap that recovered (IB retries absorbed it)
    if rng.random() < 0.3:
        n = j.nodes[rng.randrange(len(j.nodes))]
        tf = t_start + rng.uniform(0.1, 0.8) * span
        dev = "0000:%02x:00.0" % rng.choice([0x0c, 0x4b, 0x8d, 0xca])
        ifn = rng.choice(["ibp12s0", "ens3np0", "ibp75s0"])
        j.kern(n.idx, tf, "mlx5_core %s %s: Link down" % (dev, ifn))
        j.kern(n.idx, tf + rng.uniform(0.4, 1.8), "mlx5_core %s %s: Link up" % (dev, ifn))
        S.notes.append("Decoy: a short link flap on %s recovered without effect." % n.name)
    # a cloud rebalance / preemption notice that never turned into an interruption
    if j.naming in ("aws", "pcluster", "k8s") and rng.random() < 0.4:
        tn = t_start + rng.uniform(0.2, 0.7) * span
        j.emit(0, tn, "%s WARNING [spot-watcher] EC2 instance rebalance recommendation received (noticeTime=%s); requesting an early checkpoint" % (ts_py(j.clk(0, tn)), ts_iso(j.clk(0, tn), 0)), "e")
        j.emit(0, tn + rng.uniform(300, 900), "%s INFO [spot-watcher] no interruption notice followed within 15 min; continuing" % ts_py(j.clk(0, tn + 600)), "e")
        S.notes.append("Decoy: a cloud rebalance recommendation that never became a preemption.")
    # eval upload to the experiment tracker failed for a while (harmless)
    if rng.random() < 0.25:
        tw = t_start + rng.uniform(0.1, 0.9) * span
        j.emit(0, tw, "wandb: Network error (ConnectionError), entering retry loop.", "e")
        j.emit(0, tw + rng.uniform(60, 900), "wandb: ERROR Error uploading \"media/table/eval_samples_%d_%s.table.json\": CommError, HTTPSConnectionPool(host='storage.googleapis.com', port=443): Read timed out. (read timeout=60)" % (rng.randint(1000, 90000), "%020x" % rng.randrange(1 << 80)), "e")
        S.notes.append("Decoy: a failed W&B upload mid-run.")
    # TCP SYN flood warning on the store master at start-up
    if rng.random() < 0.35 and j.world >= 64:
        j.kern(0, j.t0 + rng.uniform(10, 60), "TCP: request_sock_TCP: Possible SYN flooding on port %d. Sending cookies.  Check SNMP counters." % j.master_port)
    # kernel noise
    for n in j.nodes:
        for _ in range(rng.randint(0, 3)):
            j.kern(n.idx, t_start + rng.random() * span, kernel_noise_line(rng, j, n))
    # NaN / overflow skips
    if j.trainer == "megatron" and rng.random() < 0.3 and not j.nan_at:
        j.nan_at = set(rng.sample(range(j.resume_step + 20, j.resume_step + 3000), 1))
    if j.trainer in ("deepspeed", "fairseq") and rng.random() < 0.4 and not j.fp16_overflow_at:
        j.fp16_overflow_at = set(rng.sample(range(j.resume_step + 20, j.resume_step + 3000), 3))


def kernel_noise_line(rng, j, n):
    from b7_text import kernel_noise
    return kernel_noise(rng, j, n)
