#!/usr/bin/env python3
"""blind45 -- synthetic bundles of distributed GPU training runs collected with
*every* debugging aid switched on (NCCL_DEBUG=INFO + SUBSYS=ALL, NCCL_DEBUG_FILE,
NCCL RAS, TORCH_DISTRIBUTED_DEBUG=DETAIL, TORCH_CPP_LOG_LEVEL=INFO,
TORCH_SHOW_CPP_STACKTRACES=1, CUDA_LAUNCH_BLOCKING=1, Flight Recorder dumps and
fr_trace analysis, py-spy / faulthandler / strace, compute-sanitizer).

Written blind (no access to the diagnosis tool). Standard library only.

    python3 gen_blind45.py --out DIR --n 60 --seed S
"""
import argparse
import datetime as dt
import json
import os
import pickle
import random
import shutil
import sys

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill",
          "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]

LAYOUTS = ["nccl_all_torchrun", "nccl_debug_file", "flight_recorder",
           "pyspy_strace", "slurm_sanitizer"]

MAX_RUN_BYTES = 960_000

SITE = "/usr/local/lib/python3.10/dist-packages"
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


def hx(rng, n=12):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def ptr(rng):
    return "0x7f" + hx(rng, 10)


# ----------------------------------------------------------------------------
# time formatting helpers (t is a datetime, already node-local)
# ----------------------------------------------------------------------------
def f_glog(t, lvl="I"):
    return "%s%02d%02d %02d:%02d:%02d.%06d" % (lvl, t.month, t.day, t.hour, t.minute, t.second, t.microsecond)


def f_py(t):
    return "%04d-%02d-%02d %02d:%02d:%02d,%03d" % (t.year, t.month, t.day, t.hour, t.minute, t.second, t.microsecond // 1000)


def f_iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S")


def f_dmesg(t):
    return "[%s %s %2d %02d:%02d:%02d %d]" % (DAYS[t.weekday()], MONTHS[t.month - 1], t.day, t.hour, t.minute, t.second, t.year)


def f_journal(t):
    return "%s %02d %02d:%02d:%02d" % (MONTHS[t.month - 1], t.day, t.hour, t.minute, t.second)


def f_strace(t):
    return "%02d:%02d:%02d.%06d" % (t.hour, t.minute, t.second, t.microsecond)


# ----------------------------------------------------------------------------
# World: cluster, job and failure scenario
# ----------------------------------------------------------------------------
class World:
    def __init__(self, rng, cause, layout, idx):
        self.rng = rng
        self.cause = cause
        self.healthy = cause is None
        self.layout = layout
        self.idx = idx
        r = rng
        shape = r.choice([(2, 8), (2, 8), (2, 4), (4, 4), (3, 4), (4, 2), (2, 8)])
        if layout in ("nccl_debug_file", "flight_recorder", "pyspy_strace") and shape[0] * shape[1] > 16:
            shape = (2, 8)
        self.nnodes, self.gpn = shape
        self.world = self.nnodes * self.gpn
        style = r.choice(["gpu", "ip", "dgx", "cn"])
        base = r.randint(3, 120)
        self.hosts = []
        self.ips = []
        sub = r.randint(0, 9)
        oct2 = r.randint(0, 3)
        for n in range(self.nnodes):
            k = base + n * r.choice([1, 1, 1, 2, 3])
            ip = "10.%d.%d.%d" % (oct2, sub, 10 + k)
            if style == "gpu":
                h = "gpu-h100-%03d" % k
            elif style == "ip":
                h = "ip-%s" % ip.replace(".", "-")
            elif style == "dgx":
                h = "dgx%02d" % k
            else:
                h = "cn%04d" % (k + 1000)
            self.hosts.append(h)
            self.ips.append(ip)
        self.ibdevs = ["mlx5_%d" % i for i in (0, 3, 4, 5, 6, 9, 10, 11)][: max(2, self.gpn)]
        self.busids = ["18000", "2a000", "3a000", "5d000", "9a000", "ab000", "ba000", "db000"][: self.gpn]
        if self.gpn == 4:
            self.busids = ["1b000", "43000", "52000", "c3000"]
        if self.gpn == 2:
            self.busids = ["3b000", "86000"]
        self.pids = {}
        self.tids = {}
        self.agent_pid = {}
        for n in range(self.nnodes):
            p0 = r.randint(20000, 3900000)
            self.agent_pid[n] = p0 - r.randint(5, 60)
            p = p0
            for lr in range(self.gpn):
                rk = n * self.gpn + lr
                p += r.choice([1, 1, 1, 2, 3, 9])
                self.pids[rk] = p
                self.tids[rk] = self.pids[rk] + r.randint(40, 900)
        # clock skew per node (seconds), one node sometimes badly off
        self.skew = [0.0] + [round(r.uniform(-2.5, 2.5), 3) for _ in range(self.nnodes - 1)]
        if r.random() < 0.3 and self.nnodes > 1:
            self.skew[r.randrange(1, self.nnodes)] += r.choice([-1, 1]) * r.uniform(20, 95)
        self.t0 = dt.datetime(2024, r.randint(1, 12), r.randint(1, 27), r.randint(0, 23), r.randint(0, 59), r.randint(0, 59), r.randint(0, 999999))
        if r.random() < 0.5:
            self.t0 = self.t0.replace(year=2025)
        self.torch_ver, self.nccl_ver, self.cuda = r.choice([
            ("2.4.1+cu124", "2.20.5", "12.4"), ("2.5.1+cu124", "2.21.5", "12.4"),
            ("2.6.0+cu126", "2.24.3", "12.6"), ("2.7.1+cu128", "2.26.2", "12.8"),
            ("2.5.1+cu121", "2.21.5", "12.1")])
        if layout == "nccl_debug_file":  # RAS needs NCCL >= 2.24
            self.torch_ver, self.nccl_ver, self.cuda = r.choice([("2.6.0+cu126", "2.24.3", "12.6"), ("2.7.1+cu128", "2.26.2", "12.8")])
        self.cuda_int = self.cuda.replace(".", "0") + "0" if len(self.cuda.split(".")[1]) == 1 else self.cuda.replace(".", "")
        self.cuda_int = "%d%03d" % (int(self.cuda.split(".")[0]), int(self.cuda.split(".")[1]) * 10)
        self.net = r.choice(["IB", "IB", "IB", "RoCE", "Socket"])
        self.nic = r.choice(["eth0", "ens5", "bond0", "enp86s0f0"])
        self.comm = "0x" + hx(r, 12)
        self.commid = "0x" + hx(r, 16)
        self.stream = "0x" + hx(r, 12)
        self.timeout_ms = r.choice([600000, 600000, 1800000, 300000])
        self.script = r.choice(["train.py", "pretrain_gpt.py", "main.py", "train_llm.py", "finetune.py"])
        self.model = r.choice(["llama-7b", "gpt-1.3b", "vit-h14", "t5-3b", "mixtral-tiny", "bert-large"])
        self.total_steps = r.choice([20000, 50000, 120000, 5000])
        self.step_time = round(r.uniform(0.35, 2.4), 3)
        self.start_step = r.choice([0, 0, 0, 1500, 12000])
        self.warm = r.uniform(90, 240)  # seconds from t0 until training loop starts
        self.buckets = [r.choice([26214400, 25165824, 6553600, 13107200]) for _ in range(r.randint(3, 6))]
        self.run_id = r.choice(["none", "job%d" % r.randint(1000, 99999), hx(r, 8)])
        self.jobid = r.randint(100000, 9999999)
        self.debug_file_pat = "/shared/debug/%s/nccl.%%h.%%p.log" % self.jobid
        self.fr_prefix = "/shared/debug/%s/fr/nccl_trace_rank_" % self.jobid
        self.blocking = layout == "slurm_sanitizer" or r.random() < 0.3
        self.build_scenario()

    # -- helpers --------------------------------------------------------
    def node_of(self, rk):
        return rk // self.gpn

    def lr_of(self, rk):
        return rk % self.gpn

    def host_of(self, rk):
        return self.hosts[self.node_of(rk)]

    def T(self, sec, node=0):
        """true seconds since t0 -> node-local datetime"""
        return self.t0 + dt.timedelta(seconds=sec + self.skew[node])

    def npfx(self, rk, thread=False):
        tid = self.tids[rk] if thread else self.pids[rk]
        return "%s:%d:%d [%d]" % (self.host_of(rk), self.pids[rk], tid, self.lr_of(rk))

    # -- scenario -----------------------------------------------------------
    def build_scenario(self):
        r = self.rng
        c = self.cause
        W = self.world
        self.fail_step = self.start_step + r.randint(40, 900 if c != "straggler" else 400)
        self.t_fail = self.warm + (self.fail_step - self.start_step) * self.step_time + r.uniform(0, self.step_time)
        nb = len(self.buckets)
        self.seq_fail = (self.fail_step - self.start_step) * nb + r.randint(1, nb) + 6
        self.init_rank = None
        self.init_node = None
        self.odd = None
        self.outcome = {}  # rank -> dict(kind, t, code)
        self.notes = ""
        self.sub = None
        to = self.timeout_ms / 1000.0
        if self.healthy:
            self.t_end = self.warm + (self.total_steps // 40) * self.step_time
            self.fail_step = self.start_step + self.total_steps // 40
            for rk in range(W):
                self.outcome[rk] = dict(kind="ok", t=self.t_end + r.uniform(1, 6), code=0)
            self.notes = "healthy short verification run with every debug knob on; ends normally"
            return
        ir = r.randrange(W)
        if c in ("gpu_hardware", "ecc_memory", "nvlink", "cuda_oom", "illegal_memory_access",
                 "python_exception", "host_oom_kill", "crash_signal", "unknown", "hang",
                 "data_loader_stall", "straggler"):
            self.init_rank = ir
            self.init_node = self.node_of(ir)
        if c == "network":
            self.init_node = r.randrange(self.nnodes)
        if c == "preemption":
            self.sub = "node" if (self.layout != "slurm_sanitizer" and self.nnodes > 1) else r.choice(["preempt", "timelimit"])
            if self.sub == "node":
                self.init_node = r.randrange(self.nnodes)
        if c == "collective_mismatch":
            self.odd = r.randrange(1, W)
            self.init_rank = self.odd
            self.init_node = self.node_of(self.odd)
        # subtype per cause
        subs = {
            "gpu_hardware": ["xid79", "xid79", "xid119", "xid62"],
            "ecc_memory": ["dbe48", "remap64", "dbe48"],
            "nvlink": ["xid74", "xid74_nvswitch"],
            "network": ["ib_retry", "ib_linkdown", "socket_reset"] if self.net != "Socket" else ["socket_reset"],
            "cuda_oom": ["oom_fwd", "oom_opt", "oom_nccl"],
            "illegal_memory_access": ["ima", "assert", "ima_xid31"],
            "python_exception": ["keyerror", "valueerror", "assert", "filenotfound", "typeerror"],
            "host_oom_kill": ["oom_main", "oom_cgroup", "oom_worker"],
            "crash_signal": ["segv", "bus", "abort"],
            "hang": ["deadlock", "branch", "gil"],
            "data_loader_stall": ["nfs", "lustre", "worker_stuck"],
            "collective_mismatch": ["optype", "shape"],
            "straggler": ["thermal", "pcie", "cpu"],
            "unknown": ["exit1", "exit1"],
        }
        if c in subs and self.sub is None:
            self.sub = r.choice(subs[c])
        if c == "host_oom_kill":
            self.oom_victim_pid = self.pids[ir] + (r.randint(100, 900) if self.sub == "oom_worker" else 0)
        if c == "network" and self.sub == "socket_reset":
            self.net = "Socket"
        crash = c in ("gpu_hardware", "ecc_memory", "nvlink", "cuda_oom", "illegal_memory_access",
                      "python_exception", "host_oom_kill", "crash_signal", "unknown")
        tf = self.t_fail
        if crash:
            code = {"gpu_hardware": -6, "ecc_memory": -6, "nvlink": -6, "cuda_oom": 1,
                    "illegal_memory_access": 1, "python_exception": 1, "host_oom_kill": -9,
                    "crash_signal": {"segv": -11, "bus": -7, "abort": -6}.get(self.sub, -11), "unknown": 1}[c]
            if c == "host_oom_kill" and self.sub == "oom_worker":
                code = 1
            if c == "illegal_memory_access" and self.layout != "slurm_sanitizer" and r.random() < 0.4:
                code = -6  # reported from watchdog thread -> abort
            self.outcome[ir] = dict(kind="origin", t=tf + r.uniform(0.05, 3), code=code)
            remote_mode = r.choice(["timeout", "remote", "remote"]) if c not in ("python_exception", "unknown", "cuda_oom") else r.choice(["timeout", "timeout", "remote"])
            for rk in range(W):
                if rk == ir:
                    continue
                if self.node_of(rk) == self.node_of(ir):
                    self.outcome[rk] = dict(kind="sigterm", t=self.outcome[ir]["t"] + r.uniform(0.2, 5), code=-15)
                else:
                    if remote_mode == "remote":
                        self.outcome[rk] = dict(kind="remote", t=tf + r.uniform(4, 45), code=-6)
                    else:
                        self.outcome[rk] = dict(kind="watchdog", t=tf + to + r.uniform(0.5, 9), code=-6)
            if self.layout == "flight_recorder" and remote_mode == "remote":
                remote_mode = "timeout"
                for rk in range(W):
                    if self.outcome[rk]["kind"] == "remote":
                        self.outcome[rk] = dict(kind="watchdog", t=tf + to + r.uniform(0.5, 9), code=-6)
            # the agent of every other node kills the rest of its workers after its first failure
            self._cascade_node_sigterms()
            self.notes = "rank %d on %s failed first (%s/%s); others: local SIGTERM + remote %s" % (
                ir, self.hosts[self.node_of(ir)], c, self.sub, remote_mode)
        elif c in ("hang", "data_loader_stall"):
            for rk in range(W):
                if rk == ir:
                    self.outcome[rk] = dict(kind="hung", t=tf + to + r.uniform(8, 40), code=-15)
                else:
                    self.outcome[rk] = dict(kind="watchdog", t=tf + to + r.uniform(0.2, 6), code=-6)
            self._cascade_node_sigterms(keep_hung=True)
            self.notes = "rank %d on %s stopped progressing at seq %d (%s/%s); every other rank timed out in the collective" % (
                ir, self.host_of(ir), self.seq_fail, c, self.sub)
        elif c == "network":
            bad = self.init_node
            for rk in range(W):
                if self.node_of(rk) == bad:
                    self.outcome[rk] = dict(kind="neterr", t=tf + r.uniform(0.5, 25), code=-6)
                else:
                    self.outcome[rk] = dict(kind="neterr_peer" if r.random() < 0.7 else "watchdog",
                                            t=tf + r.uniform(2, 30), code=-6)
                    if self.outcome[rk]["kind"] == "watchdog":
                        self.outcome[rk]["t"] = tf + to + r.uniform(0.3, 5)
            self._cascade_node_sigterms()
            self.notes = "%s failure on node %s (%s); NCCL errors on all ranks talking to it" % (self.net, self.hosts[bad], self.sub)
        elif c == "preemption":
            if self.sub == "node":
                bad = self.init_node
                for rk in range(W):
                    if self.node_of(rk) == bad:
                        self.outcome[rk] = dict(kind="sigterm_sched", t=tf + r.uniform(0.1, 1.5), code=-15)
                    else:
                        self.outcome[rk] = dict(kind="remote", t=tf + r.uniform(5, 40), code=-6)
                self._cascade_node_sigterms()
                self.notes = "node %s was reclaimed (spot/maintenance preemption), SIGTERM to its agent" % self.hosts[bad]
            else:
                for rk in range(W):
                    self.outcome[rk] = dict(kind="sigterm_sched", t=tf + r.uniform(0.05, 2), code=-15)
                self.notes = "scheduler cancelled the whole job (%s)" % self.sub
        elif c == "collective_mismatch":
            for rk in range(W):
                self.outcome[rk] = dict(kind="mismatch", t=tf + r.uniform(0.05, 2.5), code=1)
            self._cascade_node_sigterms()
            self.notes = "rank %d issued a different collective (%s) at seq %d; DETAIL wrapper raised on all ranks" % (self.odd, self.sub, self.seq_fail)
        elif c == "straggler":
            self.slow_factor = r.uniform(1.6, 3.2)
            for rk in range(W):
                self.outcome[rk] = dict(kind="sigterm_sched", t=tf + r.uniform(0.05, 2), code=-15)
            self.notes = "rank %d on %s persistently %.1fx slower (%s); operator cancelled the job" % (
                ir, self.host_of(ir), self.slow_factor, self.sub)
        # who each torchrun agent names as first failure: earliest non-zero exit on that node
        self.first_fail = {}
        for n in range(self.nnodes):
            ranks = [rk for rk in range(n * self.gpn, (n + 1) * self.gpn)]
            ranks.sort(key=lambda x: (self.outcome[x]["t"] if self.outcome[x]["kind"] not in ("sigterm",) else 1e12, x))
            self.first_fail[n] = ranks[0]
        self.t_end = max(o["t"] for o in self.outcome.values()) + r.uniform(1, 8)

    def _cascade_node_sigterms(self, keep_hung=False):
        """after the first failing worker on a node, its agent SIGTERMs the rest"""
        r = self.rng
        for n in range(self.nnodes):
            ranks = list(range(n * self.gpn, (n + 1) * self.gpn))
            fails = [(self.outcome[rk]["t"], rk) for rk in ranks
                     if self.outcome[rk]["kind"] not in ("sigterm", "hung", "ok")]
            if not fails:
                continue
            tfirst, rfirst = min(fails)
            for rk in ranks:
                if rk == rfirst:
                    continue
                o = self.outcome[rk]
                if o["kind"] in ("origin",):
                    continue
                grace = 25.0 if o["kind"] == "watchdog" else 0.5  # timed-out ranks detect + dump before the SIGTERM lands
                if o["t"] > tfirst + grace or o["kind"] == "hung":
                    self.outcome[rk] = dict(kind="sigterm" if o["kind"] != "hung" else "hung",
                                            t=tfirst + r.uniform(0.1, 2.0), code=-15)

    # ----------------------------------------------------------------------
    def truth(self):
        init = None
        if not self.healthy:
            init = {"rank": self.init_rank, "node": self.hosts[self.init_node] if self.init_node is not None else None}
        return {"healthy": self.healthy, "cause": self.cause, "initiator": init, "layout": self.layout,
                "notes": self.notes}


# ----------------------------------------------------------------------------
# NCCL INFO (SUBSYS=ALL) output
# ----------------------------------------------------------------------------
def nccl_init(w, rk):
    """NCCL INFO lines for communicator init on one rank (SUBSYS=ALL)."""
    r = random.Random("%s-init-%d" % (w.idx, rk))
    P = w.npfx(rk) + " NCCL INFO "
    PT = w.npfx(rk, True) + " NCCL INFO "
    lr, n = w.lr_of(rk), w.node_of(rk)
    L = []
    if rk == 0:
        L.append(P + "Bootstrap : Using %s:%s<0>" % (w.nic, w.ips[0]))
        L.append(P + "cudaDriverVersion %s" % w.cuda_int)
        L.append(P + "NCCL version %s+cuda%s" % (w.nccl_ver, w.cuda))
    else:
        L.append(P + "cudaDriverVersion %s" % w.cuda_int)
        L.append(P + "Bootstrap : Using %s:%s<0>" % (w.nic, w.ips[n]))
    if r.random() < 0.3:
        L.append(P + "Call to connect returned Connection refused, retrying")
    L.append(P + "NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.")
    if w.net == "Socket":
        L.append(P + "NET/IB : No device found.")
        L.append(P + "NET/Socket : Using [0]%s:%s<0>" % (w.nic, w.ips[n]))
        L.append(P + "Using network Socket")
    else:
        devs = " ".join("[%d]%s:1/%s" % (i, d, "RoCE" if w.net == "RoCE" else "IB") for i, d in enumerate(w.ibdevs))
        L.append(P + "NET/IB : Using %s [RO]; OOB %s:%s<0>" % (devs, w.nic, w.ips[n]))
        L.append(P + "Using non-device net plugin version 0")
        L.append(P + "Using network IB")
    L.append(P + "DMA-BUF is available on GPU device %d" % lr)
    L.append(P + "ncclCommInitRank comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init START" % (
        w.comm, rk, w.world, lr, lr, w.busids[lr], w.commid))
    L.append(P + "Setting affinity for GPU %d to %s" % (lr, "ffffffff,00000000,ffffffff" if lr < w.gpn // 2 else "ffffffff,00000000,ffffffff,00000000"))
    L.append(P + "NVLS multicast support is not available on dev %d" % lr)
    L.append(P + "comm %s rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0" % (w.comm, rk, w.world, w.nnodes, w.gpn, lr))
    # topology dump (GRAPH)
    L.append(P + "=== System : maxBw 24.0 totalBw 240.0 ===")
    L.append(P + "CPU/0-0 (1/2/-1)")
    for g in range(w.gpn):
        L.append(P + "+ PCI[24.0] - PCI/%s (1000c01010000000)" % ("%x" % (int(w.busids[g], 16) - 0x1000)).upper())
        L.append(P + "              + PCI[24.0] - GPU/0-%s (%d)" % (w.busids[g], g))
        L.append(P + "                            + NVL[240.0] - NVS/0")
        if w.net != "Socket" and g < len(w.ibdevs):
            L.append(P + "              + PCI[24.0] - NIC/0-%x" % (int(w.busids[g], 16) - 0x3000 if int(w.busids[g], 16) > 0x3000 else 0xc000))
            L.append(P + "                            + NET[25.0] - NET/%d (%s/1/25.000000)" % (g, hx(r, 12)))
    L.append(P + "==========================================")
    for g in range(min(w.gpn, 3)):
        L.append(P + "GPU/0-%s :GPU/0-%s (0/5000.0/LOC) %s CPU/0-0 (2/24.0/PHB) NET/%d (3/24.0/PXB)" % (
            w.busids[g], w.busids[g], " ".join("GPU/0-%s (2/240.0/NVL)" % b for b in w.busids if b != w.busids[g]), g))
    nch = r.choice([8, 16, 24, 32])
    L.append(P + "Pattern 4, crossNic 0, nChannels %d, bw 20.000000/20.000000, type NVL/PIX, sameChannels 1" % min(nch, 16))
    for ch in range(min(nch, 8)):
        L.append(P + " %2d : NET/%d GPU/%d %s NET/%d" % (ch, ch % max(1, len(w.ibdevs)), ch % w.gpn,
                 " ".join("GPU/%d" % ((ch + k) % w.gpn) for k in range(1, w.gpn)), ch % max(1, len(w.ibdevs))))
    L.append(P + "Pattern 1, crossNic 0, nChannels %d, bw 40.000000/20.000000, type NVL/PIX, sameChannels 1" % min(nch, 16))
    L.append(P + "Pattern 3, crossNic 0, nChannels 0, bw 0.000000/0.000000, type NVL/PIX, sameChannels 1")
    L.append(P + "comm %s rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0" % (w.comm, rk, w.world, w.nnodes, w.gpn, lr))
    ring = list(range(w.world))
    for ch in range(min(nch, 4)):
        L.append(P + "Channel %02d/%02d :    %s" % (ch, nch, " ".join("%d" % x for x in ring)))
    nxt = (rk + 1) % w.world
    prv = (rk - 1) % w.world
    L.append(P + "Ring 00 : %d -> %d -> %d" % (prv, rk, nxt))
    tr = " ".join("[%d] %d/-1/-1->%d->%d" % (ch, nxt, rk, prv) for ch in range(min(nch, 6)))
    L.append(P + "Trees " + tr)
    L.append(P + "P2P Chunksize set to 131072")
    L.append(P + "Check P2P Type intraNodeP2pSupport 1 directMode 0")
    for ch in range(min(nch, 12)):
        if w.node_of(nxt) == n:
            L.append(P + "Channel %02d/0 : %d[%d] -> %d[%d] via P2P/CUMEM/read" % (ch, rk, lr, nxt, w.lr_of(nxt)))
        else:
            tp = "NET/Socket/0" if w.net == "Socket" else "NET/IB/%d/GDRDMA" % (ch % len(w.ibdevs))
            L.append(P + "Channel %02d/0 : %d[%d] -> %d[%d] [send] via %s" % (ch, rk, lr, nxt, w.lr_of(nxt), tp))
        if w.node_of(prv) != n:
            tp = "NET/Socket/0" if w.net == "Socket" else "NET/IB/%d/GDRDMA" % (ch % len(w.ibdevs))
            L.append(P + "Channel %02d/0 : %d[%d] -> %d[%d] [receive] via %s" % (ch, prv, w.lr_of(prv), rk, lr, tp))
    for k in range(r.randint(4, 12)):
        L.append(PT + "New proxy %s connection %d from local rank %d, transport %d" % (r.choice(["send", "recv"]), k, lr, r.choice([0, 2])))
        L.append(PT + "proxyProgressAsync opId=0x%s op.type=1 op.reqBuff=0x%s op.respSize=16 done" % (hx(r, 12), hx(r, 12)))
    L.append(P + "Connected all rings, use ring PXN 0 GDR 1")
    L.append(P + "Connected all trees")
    L.append(P + "Allocated %d bytes of shareable memory" % r.choice([4195328, 5767524, 8390144]))
    L.append(P + "threadThresholds 8/8/64 | %d/8/64 | 512 | 512" % (w.world * 8))
    L.append(P + "%d coll channels, %d collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer" % (nch, nch))
    L.append(P + "CC Off, workFifoBytes 1048576")
    L.append(P + "TUNER/Plugin: Could not find: libnccl-tuner.so libnccl-net.so. Using internal tuner plugin.")
    L.append(P + "ncclCommInitRank comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init COMPLETE" % (
        w.comm, rk, w.world, lr, lr, w.busids[lr], w.commid))
    L.append(P + "Init timings - ncclCommInitRank: rank %d nranks %d total %.2f (kernels %.2f, alloc %.2f, bootstrap %.2f, allgathers %.2f, topo %.2f, graphs %.2f, connections %.2f, rest %.2f)" % (
        rk, w.world, r.uniform(0.8, 3.5), r.uniform(0.1, 0.3), r.uniform(0.0, 0.1), r.uniform(0.2, 2.0), r.uniform(0, 0.05), r.uniform(0.1, 0.3), r.uniform(0, 0.05), r.uniform(0.05, 0.4), r.uniform(0, 0.05)))
    if rk == 0 or r.random() < 0.15:
        L.append(P + "Algorithm   |             Tree             |             Ring             |")
        L.append(P + "Protocol    |   LL    |  LL128 |  Simple  |   LL    |  LL128 |  Simple  |")
        L.append(P + " Max NThreads |  512 |  640 |  512 |  512 |  640 |  512 |")
        for fn in ["Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce"]:
            L.append(P + "%13s |  %5.1f/ %5.1f | %5.1f/ %5.1f | %5.1f/ %5.1f |  %5.1f/ %5.1f | %5.1f/ %5.1f | %5.1f/ %5.1f |" % (
                fn, r.uniform(4, 40), r.uniform(0, 20), r.uniform(5, 40), r.uniform(0, 70), r.uniform(10, 60), r.uniform(0, 200),
                r.uniform(4, 20), r.uniform(5, 30), r.uniform(5, 30), r.uniform(20, 70), r.uniform(10, 60), r.uniform(40, 240)))
    return L


COLL_NAMES = {"all_reduce": "AllReduce", "broadcast": "Broadcast", "all_gather": "AllGather",
              "reduce_scatter": "ReduceScatter", "_allgather_base": "AllGather"}


def coll_op(w, seq):
    """deterministic description of collective #seq of the default PG"""
    if seq <= 6:
        return ("broadcast", [1] if seq > 2 else [w.buckets[0] // 4], "Float")
    k = (seq - 7) % len(w.buckets)
    return ("all_reduce", [w.buckets[k] // 4], "Float" if k % 3 else "BFloat16")


def nccl_coll_line(w, rk, seq):
    op, shape, dtyp = coll_op(w, seq)
    r = random.Random("%s-c-%d-%d" % (w.idx, rk, seq))
    return "%s NCCL INFO %s: opCount %x sendbuff 0x7f%s recvbuff 0x7f%s count %d datatype %d op 0 root 0 comm %s [nranks=%d] stream %s" % (
        w.npfx(rk), COLL_NAMES[op], seq - 1, hx(r, 10), hx(r, 10), shape[0], 7 if dtyp == "Float" else 9, w.comm, w.world, w.stream)


def seq_time(w, s):
    """true time at which collective #s was issued"""
    st_per = w.step_time / len(w.buckets)
    if w.healthy:
        return w.warm + max(0, s - 6) * st_per
    return max(w.warm - 1 + s * 0.01, w.t_fail - (w.seq_fail - s) * st_per - 0.02)


def last_seq(w, rk):
    """the last collective sequence number this rank enqueued"""
    if w.healthy:
        return (w.fail_step - w.start_step) * len(w.buckets) + 6
    if w.cause in ("hang", "data_loader_stall") and rk == w.init_rank:
        return w.seq_fail - 1
    if w.cause in ("cuda_oom", "python_exception", "host_oom_kill", "crash_signal", "unknown") and rk == w.init_rank:
        return w.seq_fail - 1
    return w.seq_fail


# ----------------------------------------------------------------------------
# C++ stack frames (TORCH_SHOW_CPP_STACKTRACES=1)
# ----------------------------------------------------------------------------
def cpp_frames(w, kind, r):
    lib = SITE + "/torch/lib/"
    def f(i, sym, off, so):
        return "frame #%d: %s + 0x%x (0x7f%s in %s)" % (i, sym, off, hx(r, 10), so)
    if kind == "watchdog":
        fr = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
              ("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >)", "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::watchdogHandler()", "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::ncclCommWatchdog()", "libtorch_cuda.so")]
    elif kind == "cudaerr":
        fr = [("c10::Error::Error(c10::SourceLocation, std::string)", "libc10.so"),
              ("c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&)", "libc10.so"),
              ("c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)", "libc10_cuda.so"),
              ("c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const", "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::WorkNCCL::isCompleted()", "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::watchdogHandler()", "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::ncclCommWatchdog()", "libtorch_cuda.so")]
    elif kind == "ncclerr":
        fr = [("c10::Error::Error(c10::SourceLocation, std::string)", "libc10.so"),
              ("c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException()", "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::watchdogHandler()", "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::ncclCommWatchdog()", "libtorch_cuda.so")]
    elif kind == "oom":
        fr = [("c10::Error::Error(c10::SourceLocation, std::string)", "libc10.so"),
              ("<unknown function>", "libc10_cuda.so"),
              ("c10::cuda::CUDACachingAllocator::Native::NativeCachingAllocator::malloc(void**, signed char, unsigned long, CUstream_st*)", "libc10_cuda.so"),
              ("<unknown function>", "libc10_cuda.so"),
              ("at::TensorBase at::detail::_empty_generic<long>(c10::ArrayRef<long>, c10::Allocator*, c10::DispatchKeySet, c10::ScalarType, std::optional<c10::MemoryFormat>)", "libtorch_cpu.so"),
              ("at::detail::empty_generic(c10::ArrayRef<long>, c10::Allocator*, c10::DispatchKeySet, c10::ScalarType, std::optional<c10::MemoryFormat>)", "libtorch_cpu.so"),
              ("at::detail::empty_cuda(c10::ArrayRef<long>, c10::ScalarType, std::optional<c10::Device>, std::optional<c10::MemoryFormat>)", "libtorch_cuda.so"),
              ("at::native::empty_cuda(c10::ArrayRef<long>, std::optional<c10::ScalarType>, std::optional<c10::Layout>, std::optional<c10::Device>, std::optional<bool>, std::optional<c10::MemoryFormat>)", "libtorch_cuda.so")]
    elif kind == "mismatch":
        fr = [("c10::Error::Error(c10::SourceLocation, std::string)", "libc10.so"),
              ("c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&)", "libc10.so"),
              ("c10d::ProcessGroupWrapper::runCollectiveChecks(c10d::OpType, std::vector<at::Tensor, std::allocator<at::Tensor> > const&)", "libtorch_cpu.so"),
              ("c10d::ProcessGroupWrapper::allreduce(std::vector<at::Tensor, std::allocator<at::Tensor> >&, c10d::AllreduceOptions const&)", "libtorch_cpu.so"),
              ("<unknown function>", "libtorch_cpu.so"),
              ("<unknown function>", "libtorch_python.so")]
    else:
        fr = [("c10::Error::Error(c10::SourceLocation, std::string)", "libc10.so"),
              ("c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)", "libc10_cuda.so"),
              ("<unknown function>", "libtorch_cuda.so"),
              ("at::native::index_select_out_cuda(at::Tensor const&, long, at::Tensor const&, at::Tensor&)", "libtorch_cuda.so"),
              ("<unknown function>", "libtorch_cuda.so")]
    out = []
    for i, (sym, so) in enumerate(fr):
        out.append(f(i, sym.replace(" + 0x96", ""), r.randint(0x40, 0x3ff), lib + so))
    i = len(fr)
    if kind in ("watchdog", "cudaerr", "ncclerr"):
        out.append(f(i, "<unknown function>", 0xdc253, "/lib/x86_64-linux-gnu/libstdc++.so.6"))
        out.append(f(i + 1, "<unknown function>", 0x94ac3, "/lib/x86_64-linux-gnu/libc.so.6"))
        out.append(f(i + 2, "<unknown function>", 0x126850, "/lib/x86_64-linux-gnu/libc.so.6"))
    else:
        out.append(f(i, "<unknown function>", r.randint(0x100000, 0x9fffff), lib + "libtorch_python.so"))
        out.append("frame #%d: /usr/bin/python() [0x%x]" % (i + 1, r.randint(0x500000, 0x5fffff)))
        out.append("frame #%d: _PyObject_MakeTpCall + 0x25b (0x%x in /usr/bin/python)" % (i + 2, r.randint(0x500000, 0x5fffff)))
        out.append("frame #%d: _PyEval_EvalFrameDefault + 0x6a6 (0x%x in /usr/bin/python)" % (i + 3, r.randint(0x500000, 0x5fffff)))
        out.append("frame #%d: <omitting python frames>" % (i + 4))
    return out


def renum(frames):
    out = []
    for i, f in enumerate(frames):
        out.append("frame #%d:%s" % (i, f.split(":", 1)[1]) if f.startswith("frame #") else f)
    return out


def pg_tag(w, rk):
    if w.torch_ver.startswith("2.4"):
        return "[PG 0 (default_pg) Rank %d]" % rk
    return "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % rk


def glog(w, rk, t_true, lvl, src, msg, pfx=True):
    t = w.T(t_true, w.node_of(rk))
    tid = w.tids[rk] if src.startswith("ProcessGroupNCCL") and lvl in ("E", "W") else w.pids[rk]
    head = "[rank%d]:" % rk if pfx else ""
    return "%s[%s %d %s] %s" % (head, f_glog(t, lvl), tid, "torch/csrc/distributed/c10d/" + src if not src.startswith(("torch", "c10")) else src, msg)


def py_tb(rk, frames, exc):
    out = ["[rank%d]: Traceback (most recent call last):" % rk]
    for fn, ln, func, code in frames:
        out.append('[rank%d]:   File "%s", line %d, in %s' % (rk, fn, ln, func))
        if code:
            out.append("[rank%d]:     %s" % (rk, code))
    for e in exc.split("\n"):
        out.append("[rank%d]: %s" % (rk, e))
    return out


def train_frames(w, r, call, tail):
    s = "/workspace/" + w.script
    fr = [(s, r.randint(560, 700), "<module>", "main()"),
          (s, r.randint(480, 550), "main", "trainer.fit()"),
          ("/workspace/trainer.py", r.randint(200, 320), "fit", "loss = self.train_step(batch)"),
          ("/workspace/trainer.py", r.randint(330, 420), "train_step", call)]
    return fr + tail


FWD = [("%s/torch/nn/modules/module.py" % SITE, 1736, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
       ("%s/torch/nn/modules/module.py" % SITE, 1747, "_call_impl", "return forward_call(*args, **kwargs)")]


# ----------------------------------------------------------------------------
# per-rank application / torch output (events: (t_true, stream, line))
# ----------------------------------------------------------------------------
CUDA_SUFFIX = ["CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
               "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"]


def cuda_msg(w, err):
    out = ["CUDA error: " + err]
    if not w.blocking:
        out += CUDA_SUFFIX
    out.append("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
    return out


def faulthandler_block(w, rk, r, sig, py_frames, main_current=None):
    name = {"abort": "Aborted", "segv": "Segmentation fault", "bus": "Bus error"}[sig]
    if main_current is None:
        main_current = sig != "abort"
    L = ["Fatal Python error: %s" % name, ""]
    L.append("%s 0x00007f%s (most recent call first):" % ("Thread" if main_current else "Current thread", hx(r, 10)))
    L.append("  <no Python frame>")
    L.append("")
    L.append("Thread 0x00007f%s (most recent call first):" % hx(r, 10))
    L.append('  File "/usr/lib/python3.10/threading.py", line 324 in wait')
    L.append('  File "/usr/lib/python3.10/threading.py", line 607 in wait')
    L.append('  File "%s/tqdm/_monitor.py", line 60 in run' % SITE)
    L.append('  File "/usr/lib/python3.10/threading.py", line 1016 in _bootstrap_inner')
    L.append('  File "/usr/lib/python3.10/threading.py", line 973 in _bootstrap')
    L.append("")
    L.append("%s 0x00007f%s (most recent call first):" % ("Current thread" if main_current else "Thread", hx(r, 10)))
    for fn, ln, func in py_frames:
        L.append('  File "%s", line %d in %s' % (fn, ln, func))
    L.append("")
    L.append("Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, numpy.linalg._umath_linalg, "
             "numpy.fft._pocketfft_internal, numpy.random._common, numpy.random.bit_generator, numpy.random._bounded_integers, "
             "numpy.random._mt19937, numpy.random.mtrand, torch._C, torch._C._dynamo.autograd_compiler, torch._C._dynamo.eval_frame, "
             "torch._C._dynamo.guards, torch._C._dynamo.utils, torch._C._fft, torch._C._linalg, torch._C._nested, torch._C._nn, "
             "torch._C._sparse, torch._C._special, yaml._yaml, PIL._imaging, sentencepiece._sentencepiece (total: %d)" % r.randint(40, 70))
    return L


def wait_pyframes(w):
    s = "/workspace/" + w.script
    return [("%s/torch/autograd/graph.py" % SITE, 825, "_engine_run_backward"),
            ("%s/torch/autograd/__init__.py" % SITE, 347, "backward"),
            ("%s/torch/_tensor.py" % SITE, 581, "backward"),
            ("/workspace/trainer.py", 371, "train_step"),
            ("/workspace/trainer.py", 262, "fit"),
            (s, 511, "main"),
            (s, 640, "<module>")]


def watchdog_timeout_lines(w, rk, t, r, seq):
    op, shape, _ = coll_op(w, seq)
    wk = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (
        seq, op.upper().replace("_", "") if op != "all_reduce" else "ALLREDUCE", shape[0], shape[0], w.timeout_ms)
    ran = w.timeout_ms + r.randint(5, 900)
    tag = pg_tag(w, rk)
    E = []
    tt = t
    t = t - r.uniform(1.0, 20.0)
    msg = "%s Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (tag, wk, ran)
    E.append((t, "e", glog(w, rk, t, "E", "ProcessGroupNCCL.cpp:632", msg)))
    E.append((t, "e", glog(w, rk, t + 0.001, "E", "ProcessGroupNCCL.cpp:2168", "%s failure detected by watchdog at work sequence id: %d PG status: last enqueued work: %d, last completed work: %d" % (tag, seq, seq, seq - 1))))
    E.append((t, "e", glog(w, rk, t + 0.001, "E", "ProcessGroupNCCL.cpp:670", "Stack trace of the failed collective: \n#0 all_reduce from %s/torch/distributed/distributed_c10d.py:2501\n#1 wrapper from %s/torch/distributed/c10d_logger.py:83\n#2 _allreduce_fut from %s/torch/distributed/algorithms/ddp_comm_hooks/default_hooks.py:28\n#3 backward from %s/torch/autograd/__init__.py:347" % (SITE, SITE, SITE, SITE))))
    E.append((t, "e", glog(w, rk, t + 0.002, "E", "ProcessGroupNCCL.cpp:684", "%s Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % tag)))
    E.append((t, "e", glog(w, rk, t + 0.002, "E", "ProcessGroupNCCL.cpp:698", "%s To avoid data inconsistency, we are taking the entire process down." % tag)))
    E += fr_dump_lines(w, rk, t + 0.003, r)
    block = ["%s Process group watchdog thread terminated with exception: %s" % (tag, msg),
             "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:634 (most recent call first):"]
    block += cpp_frames(w, "watchdog", r)
    E.append((tt, "e", glog(w, rk, tt, "E", "ProcessGroupNCCL.cpp:1594", block[0])))
    for b in block[1:]:
        E.append((tt, "e", b))
    E.append((tt, "e", ""))
    E.append((tt, "e", "terminate called after throwing an instance of 'c10::DistBackendError'"))
    E.append((tt, "e", "  what():  " + block[0]))
    for b in block[1:]:
        E.append((tt, "e", b))
    E.append((tt, "e", ""))
    E.append((tt, "e", "Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1610 (most recent call first):"))
    for b in renum(cpp_frames(w, "watchdog", r)[:1] + cpp_frames(w, "watchdog", r)[4:]):
        E.append((tt, "e", b))
    E.append((tt, "e", ""))
    for b in faulthandler_block(w, rk, r, "abort", wait_pyframes(w)):
        E.append((tt + 0.01, "e", b))
    return E


def w_dump_wait(r):
    return r.uniform(1.0, 60.0)


def fr_dump_lines(w, rk, t, r):
    tag = pg_tag(w, rk)
    return [(t, "e", glog(w, rk, t, "E", "ProcessGroupNCCL.cpp:1382", "%s ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1" % tag)),
            (t + 0.4, "e", glog(w, rk, t + 0.4, "I", "NCCLUtils.cpp:339", "Finished writing NCCLPG debug info to %s%d" % (w.fr_prefix, rk))),
            (t + 0.41, "e", glog(w, rk, t + 0.41, "E", "ProcessGroupNCCL.cpp:1401", "%s Finished flight recorder successfully. Output can be analyzed using the fr_trace script." % tag))]


def watchdog_exc_lines(w, rk, t, r, headline, detail, cppkind):
    """watchdog thread terminated with a (non-timeout) exception -> SIGABRT"""
    tag = pg_tag(w, rk)
    E = []
    first = "%s Process group watchdog thread terminated with exception: %s" % (tag, headline)
    src = "c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43" if cppkind == "cudaerr" else \
        "checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/NCCLUtils.cpp:396"
    body = detail + ["", "Exception raised from %s (most recent call first):" % src] + cpp_frames(w, cppkind, r)
    E.append((t, "e", glog(w, rk, t, "E", "ProcessGroupNCCL.cpp:1594", first)))
    for b in body:
        E.append((t, "e", b))
    E.append((t, "e", ""))
    E.append((t, "e", "terminate called after throwing an instance of 'c10::DistBackendError'"))
    E.append((t, "e", "  what():  " + first))
    for b in body:
        E.append((t, "e", b))
    E.append((t, "e", ""))
    E.append((t, "e", "Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1610 (most recent call first):"))
    fr = cpp_frames(w, "watchdog", r)
    for b in renum(fr[:1] + fr[4:]):
        E.append((t, "e", b))
    E.append((t, "e", ""))
    for b in faulthandler_block(w, rk, r, "abort", wait_pyframes(w)):
        E.append((t + 0.01, "e", b))
    return E


def remote_detail(w, rk, r, why):
    """ncclRemoteError / ncclSystemError detail text"""
    if why == "system":
        return ["NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % w.nccl_ver,
                "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
                "Last error:"]
    return ["NCCL error: remote process exited or there was a network error, NCCL version %s" % w.nccl_ver,
            "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
            "Last error:"]


def peer_of(w, rk, bad_node):
    """an ip<port> on bad_node that rank rk talks to"""
    r = random.Random("%s-peer-%d" % (w.idx, rk))
    return "%s<%d>" % (w.ips[bad_node], r.randint(32768, 60999))


def nccl_warn(w, rk, msg, src):
    return "%s NCCL WARN %s" % (w.npfx(rk, True), msg) if src is None else "%s %s NCCL WARN %s" % (w.npfx(rk, True), src, msg)


def nccl_info_ret(w, rk, src, code=6, thread=""):
    return "%s NCCL INFO %s -> %d%s" % (w.npfx(rk, True), src, code, thread)


def fp(op, shape, dtype, seq):
    opn = {"all_reduce": "ALLREDUCE", "broadcast": "BROADCAST", "all_gather": "ALLGATHER", "_allgather_base": "_ALLGATHER_BASE"}[op]
    return ("CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%s], TensorDtypes=%s, TensorDeviceTypes=TensorOptions("
            "dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt)))" % (seq, opn, ", ".join(str(x) for x in shape), dtype))


def origin_events(w, rk, t, r):
    """what the initiating rank itself prints (app/torch side)"""
    c, sub = w.cause, w.sub
    E = []
    if c in ("gpu_hardware", "ecc_memory", "nvlink"):
        err = {"xid79": r.choice(["unspecified launch failure", "unknown error"]), "xid119": "unknown error",
               "xid62": "unspecified launch failure", "xid120": "unspecified launch failure",
               "dbe48": "uncorrectable ECC error encountered", "remap64": "uncorrectable ECC error encountered",
               "xid74": "uncorrectable NVLink error detected during the execution",
               "xid74_nvswitch": "uncorrectable NVLink error detected during the execution"}[sub]
        if c == "ecc_memory" and w.blocking and r.random() < 0.6:
            tb = py_tb(rk, train_frames(w, r, "loss.backward()", [
                ("%s/torch/_tensor.py" % SITE, 581, "backward", "torch.autograd.backward("),
                ("%s/torch/autograd/__init__.py" % SITE, 347, "backward", "_engine_run_backward("),
                ("%s/torch/autograd/graph.py" % SITE, 825, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]),
                "RuntimeError: " + "\n".join(cuda_msg(w, err)) + "\n\nException raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):\n" + "\n".join(cpp_frames(w, "cuda", r)))
            return [(t, "e", x) for x in tb]
        return watchdog_exc_lines(w, rk, t, r, cuda_msg(w, err)[0], cuda_msg(w, err)[1:], "cudaerr")
    if c == "cuda_oom":
        if sub == "oom_nccl":
            body = ["torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % (r.choice([2027, 2100, 3167]), w.nccl_ver),
                    "ncclUnhandledCudaError: Call to CUDA function failed.",
                    "Last error:",
                    "Failed to CUDA calloc %d bytes" % r.choice([6291456, 4194304, 33554432]),
                    "Exception raised from getNCCLComm at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2100 (most recent call first):"] + cpp_frames(w, "ncclerr", r)
            tb = py_tb(rk, train_frames(w, r, "self.model.sync_params()", [
                ("/workspace/trainer.py", 188, "sync_params", "dist.all_gather_into_tensor(out, shard, group=self.tp_group)"),
                ("%s/torch/distributed/c10d_logger.py" % SITE, 83, "wrapper", "return func(*args, **kwargs)"),
                ("%s/torch/distributed/distributed_c10d.py" % SITE, 3340, "all_gather_into_tensor", "work = group._allgather_base(output_tensor, input_tensor, opts)")]),
                "\n".join(body))
            return [(t, "e", x) for x in tb]
        gpu = w.lr_of(rk)
        tot = r.choice([79.11, 79.15, 39.39])
        free = r.uniform(0.05, 1.5)
        req = r.choice(["1.53 GiB", "2.00 GiB", "768.00 MiB", "4.25 GiB", "320.00 MiB"])
        alloc = tot - free - r.uniform(0.5, 3)
        msg = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %s. GPU %d has a total capacity of %.2f GiB of which %.2f MiB is free. "
               "Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, "
               "and %.2f MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
               "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  "
               "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)") % (req, gpu, tot, free * 1024, tot - free, alloc, r.uniform(20, 900))
        body = msg + "\nException raised from malloc at ../c10/cuda/CUDACachingAllocator.cpp:1%03d (most recent call first):\n" % r.randint(0, 999) + "\n".join(cpp_frames(w, "oom", r))
        tail = FWD + [("/workspace/model.py", r.randint(100, 400), "forward", "attn = torch.softmax(scores.float(), dim=-1).to(q.dtype)")] if sub == "oom_fwd" else [
            ("%s/torch/optim/optimizer.py" % SITE, 487, "wrapper", "out = func(*args, **kwargs)"),
            ("%s/torch/optim/adamw.py" % SITE, 220, "step", "adamw("),
            ("%s/torch/optim/adamw.py" % SITE, 782, "adamw", "func("),
            ("%s/torch/optim/adamw.py" % SITE, 606, "_multi_tensor_adamw", "exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs)")]
        tb = py_tb(rk, train_frames(w, r, "out = self.model(**batch)" if sub == "oom_fwd" else "self.optimizer.step()", tail), body)
        return [(t, "e", x) for x in tb]
    if c == "illegal_memory_access":
        E = []
        if sub == "assert":
            for k in range(r.randint(3, 9)):
                E.append((t - 0.01, "e", "../aten/src/ATen/native/cuda/Indexing.cu:1290: indexSelectLargeIndex: block: [%d,0,0], thread: [%d,0,0] Assertion `srcIndex < srcSelectDimSize` failed." % (r.randint(0, 400), 32 * r.randint(0, 31) + r.randint(0, 31))))
            err = "device-side assert triggered"
        else:
            err = "an illegal memory access was encountered"
        if w.outcome[rk]["code"] == -6:
            return E + watchdog_exc_lines(w, rk, t, r, cuda_msg(w, err)[0], cuda_msg(w, err)[1:], "cudaerr")
        tail = FWD + [("/workspace/model.py", r.randint(100, 400), "forward", "h = self.embed(input_ids)" if sub == "assert" else "out = fused_rope_cuda.forward(q, k, cos, sin)")]
        if sub != "assert":
            tail = tail + [("%s/torch/_ops.py" % SITE, 1116, "__call__", "return self._op(*args, **(kwargs or {}))")]
        body = "RuntimeError: " + "\n".join(cuda_msg(w, err)) + "\n\nException raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):\n" + "\n".join(cpp_frames(w, "cuda", r))
        tb = py_tb(rk, train_frames(w, r, "out = self.model(**batch)", tail), body)
        return E + [(t, "e", x) for x in tb]
    if c == "python_exception":
        if sub == "keyerror":
            tail = [("/workspace/trainer.py", 144, "next_batch", "batch = next(self.train_iter)"),
                    ("%s/torch/utils/data/dataloader.py" % SITE, 701, "__next__", "data = self._next_data()"),
                    ("%s/torch/utils/data/dataloader.py" % SITE, 1465, "_next_data", "return self._process_data(data)"),
                    ("%s/torch/utils/data/dataloader.py" % SITE, 1491, "_process_data", "data.reraise()"),
                    ("%s/torch/_utils.py" % SITE, 715, "reraise", "raise exception")]
            exc = "KeyError: Caught KeyError in DataLoader worker process 3.\nOriginal Traceback (most recent call last):\n  File \"%s/torch/utils/data/_utils/worker.py\", line 351, in _worker_loop\n    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]\n  File \"/workspace/data/dataset.py\", line 88, in __getitem__\n    ids = sample['input_ids']\nKeyError: 'input_ids'" % SITE
            call = "batch = self.next_batch()"
        elif sub == "valueerror":
            tail = FWD + [("/workspace/model.py", 233, "forward", "x = x.view(b, s, self.n_heads, self.head_dim)")]
            exc = "RuntimeError: shape '[4, 2048, 32, 128]' is invalid for input of size 33030144"
            call = "out = self.model(**batch)"
        elif sub == "assert":
            tail = [("/workspace/trainer.py", 402, "check_loss", "assert torch.isfinite(loss).all(), f\"non-finite loss at step {self.step}: {loss.item()}\"")]
            exc = "AssertionError: non-finite loss at step %d: nan" % w.fail_step
            call = "self.check_loss(loss)"
        elif sub == "filenotfound":
            tail = [("/workspace/trainer.py", 455, "save_checkpoint", "torch.save(state, path)"),
                    ("%s/torch/serialization.py" % SITE, 849, "save", "with _open_zipfile_writer(f) as opened_zipfile:"),
                    ("%s/torch/serialization.py" % SITE, 716, "_open_zipfile_writer", "return container(name_or_buffer)"),
                    ("%s/torch/serialization.py" % SITE, 687, "__init__", "super().__init__(torch._C.PyTorchFileWriter(self.name))")]
            exc = "RuntimeError: Parent directory /checkpoints/%s/step_%d does not exist." % (w.model, w.fail_step)
            call = "self.save_checkpoint()"
        else:
            tail = [("/workspace/trainer.py", 290, "log_metrics", "self.tracker.log({k: v / self.world for k, v in metrics.items()})"),
                    ("/workspace/trainer.py", 290, "<dictcomp>", "self.tracker.log({k: v / self.world for k, v in metrics.items()})")]
            exc = "TypeError: unsupported operand type(s) for /: 'NoneType' and 'int'"
            call = "self.log_metrics(metrics)"
        tb = py_tb(rk, train_frames(w, r, call, tail), exc)
        return [(t, "e", x) for x in tb]
    if c == "host_oom_kill":
        if sub == "oom_worker":
            wp = w.oom_victim_pid
            tb = py_tb(rk, train_frames(w, r, "batch = self.next_batch()", [
                ("/workspace/trainer.py", 144, "next_batch", "batch = next(self.train_iter)"),
                ("%s/torch/utils/data/dataloader.py" % SITE, 701, "__next__", "data = self._next_data()"),
                ("%s/torch/utils/data/dataloader.py" % SITE, 1448, "_next_data", "idx, data = self._get_data()"),
                ("%s/torch/utils/data/dataloader.py" % SITE, 1412, "_get_data", "success, data = self._try_get_data()"),
                ("%s/torch/utils/data/dataloader.py" % SITE, 1256, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")]),
                "RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % wp)
            pre = py_tb(rk, [("%s/torch/utils/data/dataloader.py" % SITE, 1243, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                             ("/usr/lib/python3.10/multiprocessing/queues.py", 113, "get", "if not self._poll(timeout):"),
                             ("%s/torch/utils/data/_utils/signal_handling.py" % SITE, 73, "handler", "_error_if_any_worker_fails()")],
                        "RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. \n\nThe above exception was the direct cause of the following exception:\n" % wp)
            return [(t, "e", x) for x in pre + tb[1:]] if False else [(t, "e", x) for x in pre] + [(t, "e", x) for x in tb]
        return []  # SIGKILL: the process prints nothing
    if c == "crash_signal":
        if sub == "segv":
            fr = [("%s/torch/_ops.py" % SITE, 1116, "__call__"),
                  ("/workspace/kernels/fused_ln.py", 57, "forward"),
                  ("%s/torch/autograd/function.py" % SITE, 575, "apply"),
                  ("/workspace/model.py", 141, "forward"),
                  ("%s/torch/nn/modules/module.py" % SITE, 1747, "_call_impl"),
                  ("%s/torch/nn/modules/module.py" % SITE, 1736, "_wrapped_call_impl"),
                  ("/workspace/trainer.py", 352, "train_step"),
                  ("/workspace/trainer.py", 262, "fit"),
                  ("/workspace/" + w.script, 511, "main"),
                  ("/workspace/" + w.script, 640, "<module>")]
            return [(t, "e", x) for x in faulthandler_block(w, rk, r, "segv", fr)]
        if sub == "bus":
            fr = [("%s/numpy/core/memmap.py" % SITE, 268, "__getitem__"),
                  ("/workspace/data/indexed_dataset.py", 211, "__getitem__"),
                  ("/workspace/data/blend.py", 97, "__getitem__"),
                  ("%s/torch/utils/data/_utils/fetch.py" % SITE, 52, "<listcomp>"),
                  ("%s/torch/utils/data/_utils/fetch.py" % SITE, 52, "fetch"),
                  ("%s/torch/utils/data/dataloader.py" % SITE, 757, "_next_data"),
                  ("%s/torch/utils/data/dataloader.py" % SITE, 701, "__next__"),
                  ("/workspace/trainer.py", 144, "next_batch"),
                  ("/workspace/trainer.py", 262, "fit"),
                  ("/workspace/" + w.script, 511, "main")]
            return [(t, "e", x) for x in faulthandler_block(w, rk, r, "bus", fr)]
        E = [(t, "e", r.choice(["double free or corruption (!prev)", "free(): invalid pointer", "corrupted size vs. prev_size", "malloc(): unsorted double linked list corrupted"]))]
        fr = [("/workspace/data/tokenizer_ext.py", 44, "encode_batch"),
              ("/workspace/data/dataset.py", 120, "__getitem__"),
              ("/workspace/trainer.py", 144, "next_batch"),
              ("/workspace/trainer.py", 262, "fit"),
              ("/workspace/" + w.script, 511, "main")]
        return E + [(t, "e", x) for x in faulthandler_block(w, rk, r, "abort", fr, main_current=True)]
    if c == "unknown":
        return []
    return E


def hung_events(w, rk, t0, r):
    """hung rank: no work pending, so its watchdog never fires; heartbeat monitor gets the dump signal"""
    tag = pg_tag(w, rk)
    src = r.choice([x for x in range(w.world) if x != rk])
    ls = w.seq_fail - 1
    t = t0
    msg = ("%s Received a dump signal due to a collective timeout from  rank %d and we will try our best to dump the debug info. "
           "Last enqueued NCCL work: %d, last completed NCCL work: %d.This is most likely caused by incorrect usages of collectives, "
           "e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, "
           "for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors "
           "or bugs in the communications library (e.g. NCCL), etc. " % (tag, src, ls, ls))
    E = [(t, "e", glog(w, rk, t, "E", "ProcessGroupNCCL.cpp:1461", msg))]
    E += fr_dump_lines(w, rk, t + 0.01, r)
    return E


def mismatch_events(w, rk, t, r):
    seq = w.seq_fail
    op, shape, dt_ = coll_op(w, seq)
    if w.sub == "optype":
        oop, oshape, odt = "broadcast", [1], "Long"
    else:
        oop, oshape, odt = op, [shape[0] + r.choice([-1, 1]) * r.choice([1024, 4096, 512])], dt_
    if rk == w.odd:
        other = 0
        mine, theirs = fp(oop, oshape, odt, seq), fp(op, shape, dt_, seq)
        a = (oop, oshape, odt); b = (op, shape, dt_)
    else:
        other = w.odd
        mine, theirs = fp(op, shape, dt_, seq), fp(oop, oshape, odt, seq)
        a = (op, shape, dt_); b = (oop, oshape, odt)
    diff = []
    if a[0] != b[0]:
        diff.append("Op type: %svs %s" % (a[0].upper().replace("ALL_REDUCE", "ALLREDUCE"), b[0].upper().replace("ALL_REDUCE", "ALLREDUCE")))
    if a[1] != b[1]:
        diff.append("Tensor Tensor shapes: %svs %s" % (a[1][0], b[1][0]))
    if a[2] != b[2]:
        diff.append("Tensor Tensor dtypes: %svs %s" % (a[2], b[2]))
    msg = ("RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s."
           "Collectives differ in the following aspects: \t%s" % (rk, mine, other, theirs, "  ".join(diff)))
    body = msg + "\nException raised from runCollectiveChecks at ../torch/csrc/distributed/c10d/ProcessGroupWrapper.cpp:%d (most recent call first):\n" % r.choice([371, 392]) + "\n".join(cpp_frames(w, "mismatch", r))
    if rk == w.odd:
        tail = [("/workspace/trainer.py", 301, "maybe_sync_eval_flag", "dist.broadcast(flag, src=0)"),
                ("%s/torch/distributed/c10d_logger.py" % SITE, 83, "wrapper", "return func(*args, **kwargs)"),
                ("%s/torch/distributed/distributed_c10d.py" % SITE, 2423, "broadcast", "work = group.broadcast([tensor], opts)")] if w.sub == "optype" else [
                ("/workspace/trainer.py", 318, "reduce_metrics", "dist.all_reduce(buf)"),
                ("%s/torch/distributed/c10d_logger.py" % SITE, 83, "wrapper", "return func(*args, **kwargs)"),
                ("%s/torch/distributed/distributed_c10d.py" % SITE, 2501, "all_reduce", "work = group.allreduce([tensor], opts)")]
        call = "self.maybe_sync_eval_flag()" if w.sub == "optype" else "self.reduce_metrics(metrics)"
    else:
        tail = [("/workspace/trainer.py", 318, "reduce_metrics", "dist.all_reduce(buf)"),
                ("%s/torch/distributed/c10d_logger.py" % SITE, 83, "wrapper", "return func(*args, **kwargs)"),
                ("%s/torch/distributed/distributed_c10d.py" % SITE, 2501, "all_reduce", "work = group.allreduce([tensor], opts)")]
        call = "self.reduce_metrics(metrics)"
    tb = py_tb(rk, train_frames(w, r, call, tail), body)
    return [(t, "e", x) for x in tb]


def survivor_events(w, rk, r):
    """collateral output of a non-initiating rank (app/torch side)"""
    o = w.outcome[rk]
    k, t = o["kind"], o["t"]
    seq = last_seq(w, rk)
    if k == "watchdog":
        return watchdog_timeout_lines(w, rk, t, r, seq)
    if k in ("remote", "neterr", "neterr_peer"):
        why = "system" if (w.net == "Socket" and w.cause == "network") else "remote"
        det = remote_detail(w, rk, r, why) + [nccl_last_error(w, rk)]
        return watchdog_exc_lines(w, rk, t, r, det[0], det[1:], "ncclerr")
    if k == "hung":
        tw = min(o2["t"] for o2 in w.outcome.values() if o2["kind"] == "watchdog") if any(o2["kind"] == "watchdog" for o2 in w.outcome.values()) else t - 5
        return hung_events(w, rk, tw + r.uniform(0.5, 2), r)
    if k == "mismatch":
        return mismatch_events(w, rk, t, r)
    if k == "sigterm_sched" and w.cause == "preemption" and w.lr_of(rk) == 0 and r.random() < 0.7:
        return [(t + 0.01, "e", "[rank%d]: %s | WARNING | trainer | SIGTERM received (signal 15); requesting checkpoint at next step boundary" % (rk, f_py(w.T(t, w.node_of(rk)))))]
    return []


def nccl_last_error(w, rk):
    c = w.cause
    if c == "network":
        bad = w.init_node
        if w.net == "Socket":
            if w.node_of(rk) == bad:
                other = (bad + 1) % w.nnodes
                return "socketProgressOpt: Call to recv from %s failed : Connection reset by peer" % peer_of(w, rk, other)
            return "socketProgressOpt: Call to recv from %s failed : Connection reset by peer" % peer_of(w, rk, bad)
        if w.node_of(rk) == bad:
            other = (bad + 1) % w.nnodes
            return "NET/IB : Got completion from peer %s with status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:%s remoteGids::ffff:%s" % (
                peer_of(w, rk, other), w.ips[bad], w.ips[other])
        return "NET/IB : Got completion from peer %s with status=12 opcode=1 len=0 vendor err 129 (Recv) localGid ::ffff:%s remoteGids::ffff:%s" % (
            peer_of(w, rk, bad), w.ips[w.node_of(rk)], w.ips[bad])
    # remote process went away
    src = w.init_node if w.init_node is not None else (w.node_of(rk) + 1) % w.nnodes
    return "socketProgress: Connection closed by remote peer %s" % peer_of(w, rk, src).replace(w.ips[src], w.hosts[src])


def nccl_fail_events(w, rk, r):
    """NCCL WARN/INFO lines at failure time for this rank"""
    o = w.outcome[rk]
    k, t = o["kind"], o["t"]
    E = []
    if k in ("remote", "neterr", "neterr_peer"):
        le = nccl_last_error(w, rk)
        t1 = t - r.uniform(0.1, 2)
        if "NET/IB" in le:
            E.append((t1, nccl_warn(w, rk, le, "transport/net_ib.cc:%d" % r.choice([1696, 2332, 2391]))))
            E.append((t1, nccl_info_ret(w, rk, "transport/net_ib.cc:%d" % r.choice([1780, 2457]))))
            E.append((t1, nccl_info_ret(w, rk, "transport/net.cc:%d" % r.choice([1285, 1315]))))
            E.append((t1, nccl_info_ret(w, rk, "proxy.cc:%d" % r.choice([853, 868]), 6, " [Progress Thread]")))
        else:
            E.append((t1, nccl_warn(w, rk, le, "misc/socket.cc:%d" % r.choice([49, 65, 583]))))
            E.append((t1, nccl_info_ret(w, rk, "misc/socket.cc:%d" % r.choice([621, 811]))))
            E.append((t1, nccl_info_ret(w, rk, "transport/net_socket.cc:%d" % r.choice([551, 574]))))
            E.append((t1, nccl_info_ret(w, rk, "transport/net.cc:%d" % r.choice([1285, 1315]))))
            E.append((t1, nccl_info_ret(w, rk, "proxy.cc:%d" % r.choice([853, 868]), 6, " [Progress Thread]")))
        E.append((t, "%s NCCL INFO [Service thread] Connection closed by localRank %d" % (w.npfx(rk, True), (w.lr_of(rk) + 1) % w.gpn)))
        E.append((t + 0.5, "%s NCCL INFO comm %s rank %d nranks %d cudaDev %d busId %s - Abort COMPLETE" % (w.npfx(rk), w.comm, rk, w.world, w.lr_of(rk), w.busids[w.lr_of(rk)])))
    elif k == "origin" and w.cause in ("gpu_hardware", "ecc_memory", "nvlink"):
        err = {"gpu_hardware": "unspecified launch failure", "ecc_memory": "uncorrectable ECC error encountered",
               "nvlink": "uncorrectable NVLink error detected during the execution"}[w.cause]
        code = {"gpu_hardware": 719, "ecc_memory": 214, "nvlink": 220}[w.cause]
        E.append((t - 0.05, nccl_warn(w, rk, "Cuda failure %d '%s'" % (code, err), "enqueue.cc:%d" % r.choice([1540, 2106]))))
        E.append((t - 0.05, nccl_info_ret(w, rk, "group.cc:%d" % r.choice([423, 431]), 1)))
        E.append((t + 0.3, "%s NCCL INFO comm %s rank %d nranks %d cudaDev %d busId %s - Abort COMPLETE" % (w.npfx(rk), w.comm, rk, w.world, w.lr_of(rk), w.busids[w.lr_of(rk)])))
    elif k == "origin" and w.cause == "cuda_oom" and w.sub == "oom_nccl":
        E.append((t - 0.02, nccl_warn(w, rk, "Cuda failure 'out of memory'", "include/alloc.h:%d" % r.choice([124, 185]))))
        E.append((t - 0.02, nccl_warn(w, rk, "Failed to CUDA calloc 6291456 bytes", "include/alloc.h:%d" % r.choice([125, 186]))))
        E.append((t - 0.02, nccl_info_ret(w, rk, "transport/p2p.cc:%d" % r.choice([298, 312]), 1)))
    elif k == "watchdog":
        E.append((t + 0.2, "%s NCCL INFO comm %s rank %d nranks %d cudaDev %d busId %s - Abort START" % (w.npfx(rk), w.comm, rk, w.world, w.lr_of(rk), w.busids[w.lr_of(rk)])))
    return E


# ----------------------------------------------------------------------------
# startup + training output
# ----------------------------------------------------------------------------
def startup_events(w, rk, r):
    n = w.node_of(rk)
    t = w.warm - r.uniform(25, 60)
    tag = pg_tag(w, rk)
    E = []
    if rk == 0:
        E.append((t - 1, "e", glog(w, rk, t - 1, "I", "torch/csrc/distributed/c10d/socket.cpp:735", "[c10d - debug] The server socket has started to listen on [::]:29500.", False)))
    E.append((t, "e", glog(w, rk, t, "I", "torch/csrc/distributed/c10d/socket.cpp:946", "[c10d] The client socket has connected to [%s]:29500 on SocketImpl(fd=%d, addr=[%s]:%d, remote=[%s]:29500)." % (
        w.hosts[0], r.randint(3, 9), w.hosts[n], r.randint(33000, 60000), w.hosts[0]), False)))
    E.append((t + 0.1, "e", glog(w, rk, t + 0.1, "I", "ProcessGroupNCCL.cpp:911", "%s ProcessGroupNCCL initialization options: size: %d, global rank: %d, TIMEOUT(ms): %d, USE_HIGH_PRIORITY_STREAM: 0, SPLIT_FROM: 0, SPLIT_COLOR: 0, PG Name: 0" % (tag, w.world, rk, w.timeout_ms))))
    E.append((t + 0.1, "e", glog(w, rk, t + 0.1, "I", "ProcessGroupNCCL.cpp:920", "%s ProcessGroupNCCL environments: NCCL version: %s, TORCH_NCCL_ASYNC_ERROR_HANDLING: 3, TORCH_NCCL_DUMP_ON_TIMEOUT: 1, "
                                       "TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC: 60000, TORCH_NCCL_DESYNC_DEBUG: 0, TORCH_NCCL_ENABLE_TIMING: 0, TORCH_NCCL_BLOCKING_WAIT: 0, "
                                       "TORCH_DISTRIBUTED_DEBUG: DETAIL, TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK: 0, TORCH_NCCL_ENABLE_MONITORING: 1, "
                                       "TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC: 480, TORCH_NCCL_TRACE_BUFFER_SIZE: 64, TORCH_NCCL_COORD_CHECK_MILSEC: 1000, "
                                       "TORCH_NCCL_NAN_CHECK: 0, TORCH_NCCL_CUDA_EVENT_CACHE: 1, TORCH_NCCL_LOG_CPP_STACK_ON_UNCLEAN_SHUTDOWN: 1" % (tag, w.nccl_ver))))
    E.append((t + 0.2, "e", glog(w, rk, t + 0.2, "I", "ProcessGroupWrapper.cpp:561", "[Rank %d] Created ProcessGroupWrapper around ProcessGroupNCCL (helper: ProcessGroupGloo) because TORCH_DISTRIBUTED_DEBUG=DETAIL" % rk)))
    E.append((t + 0.3, "e", glog(w, rk, t + 0.3, "W", "ProcessGroupNCCL.cpp:4115", "%s using GPU %d to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect. Specify device_ids in barrier() to force use of a particular device, or call init_process_group() with a device_id." % (tag, w.lr_of(rk)))))
    if r.random() < 0.5:
        E.append((t + 2, "e", "%s/torch/cuda/amp/grad_scaler.py:30: FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead." % SITE))
        E.append((t + 2, "e", "  warnings.warn("))
    if r.random() < 0.4:
        E.append((t + 2.5, "e", "%s/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()" % SITE))
        E.append((t + 2.5, "e", "  return self.fget.__get__(instance, owner)()"))
    tddp = w.warm - r.uniform(1, 5)
    E.append((tddp, "e", glog(w, rk, tddp, "I", "torch/csrc/distributed/c10d/logger.cpp:197", "[Rank %d]: DDP Initialized with: \nbroadcast_buffers: 1\nbucket_cap_bytes: %d\nfind_unused_parameters: 0\ngradient_as_bucket_view: 0\nhas_sync_bn: 0\nis_multi_device_module: 0\niteration: 0\nnum_parameter_tensors: %d\noutput_device: %d\nrank: %d\ntotal_parameter_size_bytes: %d\nworld_size: %d\nbackend_name: nccl\nbucket_sizes: %s\ncuda_visible_devices: N/A\ndevice_ids: %d\ndtypes: float\nmaster_addr: %s\nmaster_port: 29500\nmodule_name: %s\nnccl_async_error_handling: 3\nnccl_blocking_wait: N/A\nnccl_debug: INFO\nnccl_ib_timeout: N/A\nnccl_nthreads: N/A\nnccl_socket_ifname: %s\ntorch_distributed_debug: DETAIL\n" % (
        rk, w.buckets[0], 291, w.lr_of(rk), rk, sum(w.buckets), w.world, ", ".join(str(b) for b in w.buckets), w.lr_of(rk), w.hosts[0], "GPT" if "gpt" in w.model or "llama" in w.model else "Model", w.nic), False)))
    if rk == 0:
        E.append((w.warm - 3, "o", "%s | INFO | trainer | model %s: %.2fB parameters, world size %d, global batch %d" % (f_py(w.T(w.warm - 3)), w.model, r.uniform(0.3, 7.5), w.world, w.world * r.choice([4, 8, 16]))))
        E.append((w.warm - 2, "o", "%s | INFO | trainer | resuming from step %d" % (f_py(w.T(w.warm - 2)), w.start_step) if w.start_step else "%s | INFO | trainer | starting from scratch" % f_py(w.T(w.warm - 2))))
    return E


def training_events(w, rk, r):
    n = w.node_of(rk)
    E = []
    log_every = r.choice([10, 20, 50]) if rk == 0 else 0
    timer_every = 100
    end_step = w.fail_step if not w.healthy else w.fail_step
    slow = w.cause == "straggler"
    t_slow_step = w.start_step + max(1, (w.fail_step - w.start_step) // r.choice([3, 4, 5])) if slow else None
    st = w.step_time
    for step in range(w.start_step + 1, end_step + 1):
        t = w.warm + (step - w.start_step) * st
        cur = st * (w.slow_factor if (slow and step >= t_slow_step) else 1.0)
        if rk == 0 and log_every and step % log_every == 0:
            loss = 2.0 + 8.0 / (1 + (step / 300.0)) + r.uniform(-0.05, 0.05)
            E.append((t, "o", "%s | INFO | trainer | step %d/%d | loss %.4f | lr %.3e | grad_norm %.3f | tok/s %d | step_time %.3fs" % (
                f_py(w.T(t, n)), step, w.total_steps, loss, 3e-4 * min(1, step / 2000), r.uniform(0.3, 1.5),
                int(4096 * w.world * 4 / cur), cur + r.uniform(-0.02, 0.02))))
            if r.random() < 0.25:
                pct = int(100 * step / w.total_steps)
                E.append((t, "e", "%3d%%|%s| %d/%d [%02d:%02d<%d:%02d:%02d, %.2fs/it, loss=%.3f]" % (
                    pct, ("#" * (pct // 10)).ljust(10), step, w.total_steps, (step // 60) % 60, step % 60, r.randint(1, 30), r.randint(0, 59), r.randint(0, 59), cur, loss)))
        if step % timer_every == 0:
            mine = slow and rk == w.init_rank and step >= t_slow_step
            base_fb = st * r.uniform(0.62, 0.7)
            if slow and step >= t_slow_step:
                fb = base_fb * w.slow_factor if mine else base_fb * r.uniform(0.97, 1.03)
                wait = 0.01 + r.uniform(0, 0.01) if mine else (w.slow_factor - 1) * base_fb + r.uniform(0, 0.03)
            else:
                fb = base_fb * r.uniform(0.97, 1.03)
                wait = st * r.uniform(0.04, 0.12)
            E.append((t + 0.001 * rk, "o", "[rank%d] step %d timers(ms): data %.1f | fwd %.1f | bwd %.1f | grad-sync-wait %.1f | optim %.1f" % (
                rk, step, r.uniform(0.8, 6), fb * 333, fb * 667, wait * 1000, st * r.uniform(30, 50))))
    if slow and rk == 0:
        for k in range(r.randint(2, 4)):
            step = t_slow_step + (k + 1) * max(10, (w.fail_step - t_slow_step) // 5)
            if step >= w.fail_step:
                break
            t = w.warm + (step - w.start_step) * st
            E.append((t, "o", "%s | WARNING | trainer | throughput dropped to %.0f%% of the 100-step baseline (step_time %.3fs vs %.3fs)" % (
                f_py(w.T(t, n)), 100 / w.slow_factor, st * w.slow_factor, st)))
    if w.healthy:
        t = w.t_end
        if rk == 0:
            E.append((t - 2, "o", "%s | INFO | trainer | reached max_steps for this verification run (%d); saving final checkpoint" % (f_py(w.T(t - 2, n)), w.fail_step)))
            E.append((t - 0.5, "o", "%s | INFO | trainer | training done in %.1f min" % (f_py(w.T(t - 0.5, n)), (t - w.warm) / 60)))
        E.append((t, "e", glog(w, rk, t, "W", "ProcessGroupNCCL.cpp:1250", "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())")))
    return E


def nccl_events(w, rk, r):
    """all NCCL debug output of one rank as (t, line)"""
    tinit = w.warm - r.uniform(3, 20)
    E = [(tinit + i * 0.0005, x) for i, x in enumerate(nccl_init(w, rk))]
    ls = last_seq(w, rk)
    win = getattr(w, "coll_window", 40)
    first = list(range(1, min(ls, 12) + 1))
    tail = list(range(max(13, ls - win + 1), ls + 1))
    def tseq(s):
        return seq_time(w, s)
    for s in first:
        E.append((tseq(s), nccl_coll_line(w, rk, s)))
    if tail and tail[0] > 13:
        E.append((tseq(13), "@@TRIM@@%d" % ((tail[0] - 13))))
    for s in tail:
        E.append((tseq(s), nccl_coll_line(w, rk, s)))
    if w.healthy:
        E.append((w.t_end + 0.5, "%s NCCL INFO comm %s rank %d nranks %d cudaDev %d busId %s - Destroy COMPLETE" % (w.npfx(rk), w.comm, rk, w.world, w.lr_of(rk), w.busids[w.lr_of(rk)])))
        if r.random() < 0.2:
            E.append((w.t_end - 100, nccl_warn(w, rk, "NET/IB : Got async event : GID table change", None)))
    else:
        E += nccl_fail_events(w, rk, r)
    return E


def rank_app_events(w, rk):
    r = random.Random("%s-app-%d" % (w.idx, rk))
    E = startup_events(w, rk, r) + training_events(w, rk, r)
    if not w.healthy:
        o = w.outcome[rk]
        if o["kind"] == "origin":
            E += origin_events(w, rk, o["t"], r)
        else:
            E += survivor_events(w, rk, r)
    E.sort(key=lambda e: e[0])
    return E


# ----------------------------------------------------------------------------
# kernel log
# ----------------------------------------------------------------------------
def pci(w, lr):
    return "0000:%s:00" % w.busids[lr][:2]


def kernel_events(w, n):
    """(t_true, message) kernel ring buffer lines of node n"""
    r = random.Random("%s-kern-%d" % (w.idx, n))
    E = []
    tb = -r.uniform(3000, 90000)
    E.append((tb, "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s  Wed Jun  5 19:52:55 UTC 2024" % r.choice(["550.90.07", "535.183.01", "560.35.03"])))
    E.append((tb + 1, "nvidia-peermem: loading out-of-tree module taints kernel."))
    for d in w.ibdevs[:3]:
        E.append((tb + 5, "mlx5_core 0000:%02x:00.0: mlx5_pcie_event:301:(pid %d): PCIe slot advertised sufficient power (75W)." % (r.randint(0x0c, 0xe1), r.randint(300, 900))))
    if r.random() < 0.5:
        E.append((tb + 600, "NVRM: Xid (PCI:%s): 43, pid=%d, name=python3, Ch 00000008" % (pci(w, r.randrange(w.gpn)), r.randint(1000, 99999))))
    if r.random() < 0.4:
        E.append((r.uniform(0, w.t_end), "EDAC MC1: 1 CE memory read error on CPU_SrcID#1_MC#0_Chan#1_DIMM#0 (channel:1 slot:0 page:0x%x offset:0x0 grain:32 syndrome:0x0 - err_code:0x0000:0x009f socket:1 imc:0 rank:0 bg:1 ba:2 row:0x%x col:0x2c8)" % (r.randint(0x100000, 0x3fffff), r.randint(0x1000, 0xffff))))
    if r.random() < 0.3:
        E.append((r.uniform(0, w.warm), "audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" class=\"file\" profile=\"snap.amazon-ssm-agent\" name=\"/proc/%d/environ\" pid=%d comm=\"ssm-agent-worke\" requested_mask=\"r\" denied_mask=\"r\" fsuid=0 ouid=1000" % (
            1700000000 + r.randint(0, 9999999), r.randint(0, 999), r.randint(100, 9999), r.randint(1000, 9999), r.randint(1000, 9999))))
    E.append((w.warm - 40, "process 'usr/bin/python3' launched '/bin/sh' with NULL argv: empty string added"))
    c, sub = w.cause, w.sub
    if w.healthy or c is None:
        return E
    ir = w.init_rank
    here = (w.init_node == n)
    tf = w.t_fail
    if c in ("gpu_hardware", "ecc_memory", "nvlink", "illegal_memory_access") and here:
        lr = w.lr_of(ir)
        p = pci(w, lr)
        pid = w.pids[ir]
        if c == "gpu_hardware":
            if sub == "xid79":
                E.append((tf, "NVRM: GPU at PCI:%s.0: GPU-%s-%s-%s-%s-%s" % (p, hx(r, 8), hx(r, 4), hx(r, 4), hx(r, 4), hx(r, 12))))
                E.append((tf, "NVRM: Xid (PCI:%s): 79, pid=%d, name=python3, GPU has fallen off the bus." % (p, pid)))
                E.append((tf, "NVRM: GPU %s.0: GPU has fallen off the bus." % p))
                E.append((tf, "NVRM: A GPU crash dump has been created. If possible, please run"))
                E.append((tf, "NVRM: nvidia-bug-report.sh as root to collect this data before"))
                E.append((tf, "NVRM: the NVIDIA kernel module is unloaded."))
            elif sub == "xid119":
                E.append((tf - 6, "NVRM: Xid (PCI:%s): 119, pid=%d, name=python3, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20801702 0x4)." % (p, pid, lr)))
                E.append((tf - 6, "NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020801702 0x0000000000000004." % lr))
                E.append((tf - 6, "NVRM: GPU%d RPC history (CPU -> GSP):" % lr))
                E.append((tf - 6, "NVRM:     entry function                   data0              data1              ts_start           ts_end             duration actively_polling"))
                for k in range(3):
                    E.append((tf - 6, "NVRM:      %d    %-3d %-24s 0x%016x 0x%016x 0x%016x 0x%016x %6dus  %s" % (k, 76, "GSP_RM_CONTROL", r.getrandbits(32), 4, r.getrandbits(48), r.getrandbits(48), r.randint(10, 900), "y" if k == 0 else "")))
                E.append((tf - 5, "NVRM: Xid (PCI:%s): 119, pid=%d, name=python3, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 10 (FREE) (0xa55a0050 0x0)." % (p, pid, lr)))
                E.append((tf + 2, "NVRM: Rate limiting GSP RPC error prints for GPU at PCI:%s (printing 1 of every 30).  The GPU likely needs to be reset." % p))
            else:
                E.append((tf, "NVRM: Xid (PCI:%s): 62, pid=%d, name=python3, 0000%s 0000%s 00000000 00000000 00000000 00000000 00000000 00000000" % (p, pid, hx(r, 4), hx(r, 4))))
                E.append((tf + 1, "NVRM: Xid (PCI:%s): 45, pid=%d, name=python3, Ch 00000010" % (p, pid)))
        elif c == "ecc_memory":
            if sub == "dbe48":
                E.append((tf, "NVRM: Xid (PCI:%s): 48, pid=%d, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (p, pid, r.randint(0, 11), r.randint(0, 1))))
                E.append((tf + 0.1, "NVRM: Xid (PCI:%s): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row (0x%08x) is marked for remapping, reset gpu to activate." % (p, r.getrandbits(28))))
            else:
                E.append((tf, "NVRM: Xid (PCI:%s): 94, pid=%d, name=python3, Contained: SM (0x1). RST: No, D-RST: No" % (p, pid)) if False else
                         (tf, "NVRM: Xid (PCI:%s): 48, pid=%d, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition 0." % (p, pid, r.randint(0, 11))))
                E.append((tf + 0.1, "NVRM: Xid (PCI:%s): 64, pid='<unknown>', name=<unknown>, Row Remapper Error: failed to remap row (0x%08x), no spare rows remaining in bank %d." % (p, r.getrandbits(28), r.randint(0, 15))))
        elif c == "nvlink":
            E.append((tf - 0.2, "NVRM: Xid (PCI:%s): 74, pid=%d, name=python3, NVLink: fatal error detected on link %d(0x0, 0x0, 0x%x, 0x0, 0x0, 0x0, 0x0)" % (p, pid, r.randint(0, 17), r.choice([0x10000, 0x20000, 0x400]))))
            if sub == "xid74_nvswitch":
                sw = r.randint(0, 3)
                E.append((tf - 0.3, "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 20034, Fatal, Link %d LTSSM Fault Up" % (sw, r.randint(0x80, 0x8f), r.randint(0, 63))))
                E.append((tf - 0.3, "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 20034, Severity 1 Engine instance %d Sub-engine instance 00" % (sw, r.randint(0x80, 0x8f), r.randint(0, 63))))
            E.append((tf + 0.5, "NVRM: Xid (PCI:%s): 45, pid=%d, name=python3, Ch 00000008" % (p, pid)))
        elif c == "illegal_memory_access":
            if sub == "ima_xid31":
                E.append((tf, "NVRM: Xid (PCI:%s): 31, pid=%d, name=python3, Ch 00000018, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x7f%s_%s000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (p, pid, r.randint(0, 7), r.randint(0, 15), hx(r, 2), hx(r, 5))))
            elif sub == "ima":
                E.append((tf, "NVRM: Xid (PCI:%s): 13, pid=%d, name=python3, Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (p, pid, r.randint(0, 7), r.randint(0, 8), r.randint(0, 1))))
                E.append((tf, "NVRM: Xid (PCI:%s): 13, pid=%d, name=python3, Graphics Exception: ESR 0x%x=0x%x 0x%x=0x24 0x%x=0x%x 0x%x=0x1174" % (p, pid, 0x514730, r.getrandbits(28), 0x514734, 0x514728, r.getrandbits(28), 0x51472c)))
            else:
                E.append((tf + 0.5, "NVRM: Xid (PCI:%s): 43, pid=%d, name=python3, Ch 00000010" % (p, pid)))
    elif c == "network" and here:
        d = r.choice(w.ibdevs)
        pciaddr = "0000:%02x:00.0" % r.randint(0x0c, 0xe1)
        if w.net == "Socket":
            E.append((tf - 1, "ena %s %s: Keep alive watchdog timeout." % (pciaddr, w.nic)))
            E.append((tf - 1, "ena %s %s: Trigger reset is on" % (pciaddr, w.nic)))
            E.append((tf + 2, "ena %s %s: Device reset completed successfully, Driver info: Elastic Network Adapter (ENA) v2.8.1g" % (pciaddr, w.nic)))
        else:
            ifn = "ibp%ds0" % r.randint(12, 220) if w.net == "IB" else "enp%ds0np0" % r.randint(12, 220)
            E.append((tf - 0.5, "mlx5_core %s %s: Link down" % (pciaddr, ifn)))
            if sub == "ib_retry":
                E.append((tf + r.uniform(20, 60), "mlx5_core %s %s: Link up" % (pciaddr, ifn)))
            else:
                E.append((tf + 1, "mlx5_core %s: Port module event[error]: module %d, Cable error, High power/Bad cable" % (pciaddr, r.randint(0, 7))))
            E.append((tf + 3, "infiniband %s: ib_query_port failed (-110)" % d) if sub != "ib_retry" else (tf, "IPv6: ADDRCONF(NETDEV_CHANGE): %s: link becomes ready" % ifn))
    elif c == "host_oom_kill" and here:
        vp = getattr(w, "oom_victim_pid", w.pids[ir])
        gib = r.randint(180, 900)
        E.append((tf - 0.2, "%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % r.choice(["python3", "pt_data_worker", "pt_autograd_0"])))
        E.append((tf - 0.2, "CPU: %d PID: %d Comm: python3 Tainted: P           OE     5.15.0-105-generic #115-Ubuntu" % (r.randint(0, 95), r.randint(1000, 99999))))
        E.append((tf - 0.2, "Mem-Info:"))
        E.append((tf - 0.2, "active_anon:%d inactive_anon:%d isolated_anon:0" % (r.getrandbits(27), r.getrandbits(24))))
        if sub == "oom_cgroup":
            E.append((tf - 0.1, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,oom_memcg=/slurm/uid_1000/job_%d,task_memcg=/slurm/uid_1000/job_%d/step_0/task_%d,task=python3,pid=%d,uid=1000" % (w.jobid, w.jobid, ir, vp)))
            E.append((tf, "Memory cgroup out of memory: Killed process %d (python3) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:1000 pgtables:%dkB oom_score_adj:0" % (vp, gib * 1048576 + r.randint(0, 999999), gib * 1000000, r.randint(100000, 900000), r.randint(0, 9000000), r.randint(100000, 900000))))
        else:
            E.append((tf - 0.1, "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-1000.slice/session-3.scope,task=%s,pid=%d,uid=1000" % ("pt_data_worker" if sub == "oom_worker" else "python3", vp)))
            E.append((tf, "Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:1000 pgtables:%dkB oom_score_adj:0" % (vp, "pt_data_worker" if sub == "oom_worker" else "python3", gib * 1048576, gib * 1000000, r.randint(100000, 900000), r.randint(0, 9000000), r.randint(100000, 900000))))
        E.append((tf + 0.3, "oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % (vp, "pt_data_worker" if sub == "oom_worker" else "python3")))
    elif c == "crash_signal" and here and sub == "segv":
        E.append((tf, "python3[%d]: segfault at %x ip 00007f%s sp 00007ff%s error 4 in fused_ln_cuda.cpython-310-x86_64-linux-gnu.so[7f%s+%x] likely on CPU %d (core %d, socket %d)" % (
            w.pids[ir], r.choice([0, 8, 0x10, 0x18]), hx(r, 10), hx(r, 9), hx(r, 7) + "000", r.randint(0x10000, 0x90000), r.randint(0, 95), r.randint(0, 47), r.randint(0, 1))))
        E.append((tf, "Code: 48 8b 47 08 48 85 c0 74 0c 48 8b 00 c3 0f 1f 80 00 00 00 00 <48> 8b 07 c3 66 2e 0f 1f 84 00 00 00 00 00 0f 1f 44 00 00 f3 0f 1e fa"))
    elif c == "data_loader_stall" and here:
        if sub == "nfs":
            srv = r.choice(["fs-datasets01", "10.20.0.4", "nas02.internal"])
            for k in range(r.randint(2, 6)):
                E.append((tf - 5 + k * r.uniform(60, 200), "nfs: server %s not responding, still trying" % srv))
        elif sub == "lustre":
            E.append((tf - 3, "Lustre: %d:0:(client.c:2311:ptlrpc_expire_one_request()) @@@ Request sent has timed out for slow reply: [sent %d/real %d]  req@ffff%s x%d/t0(0) o3->scratch-OST00%02x-osc-ffff%s@10.2.0.%d@o2ib:6/4 lens 488/440 e 0 to 1 dl %d ref 2 fl Rpc:XQr/0/ffffffff rc 0/-1 job:''" % (
                r.randint(1000, 9999), 1700000000 + r.randint(0, 9999999), 1700000000 + r.randint(0, 9999999), hx(r, 12), r.getrandbits(50), r.randint(0, 63), hx(r, 12), r.randint(2, 40), 1700000000 + r.randint(0, 9999999))))
            E.append((tf - 3, "Lustre: scratch-OST00%02x-osc-ffff%s: Connection to scratch-OST00%02x (at 10.2.0.%d@o2ib) was lost; in progress operations using this service will wait for recovery to complete" % (r.randint(0, 63), hx(r, 12), r.randint(0, 63), r.randint(2, 40))))
        E.append((tf + 121, "INFO: task pt_data_worker:%d blocked for more than 120 seconds." % (w.pids[ir] + r.randint(50, 900))))
        E.append((tf + 121, "      Tainted: P           OE     5.15.0-105-generic #115-Ubuntu"))
        E.append((tf + 121, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message."))
        E.append((tf + 121, "task:pt_data_worker state:D stack:    0 pid:%d ppid:%d flags:0x00000000" % (w.pids[ir] + r.randint(50, 900), w.pids[ir])))
        E.append((tf + 121, "Call Trace:"))
        for fnm in ["__schedule+0x2cd/0x890", "schedule+0x69/0x110", "io_schedule+0x46/0x80", "folio_wait_bit_common+0x13d/0x350",
                    ("nfs_read_folio+0x1a4/0x3b0 [nfs]" if sub == "nfs" else "ll_readpage+0x29b/0x720 [lustre]"), "filemap_read_folio+0x46/0xf0", "filemap_get_pages+0x2b9/0x640", "filemap_read+0xbe/0x3a0", "vfs_read+0x1a0/0x2d0", "ksys_read+0x67/0xf0"]:
            E.append((tf + 121, " " + fnm))
    elif c == "straggler" and here:
        if sub == "pcie":
            for k in range(r.randint(3, 8)):
                tt = w.warm + r.uniform(0, tf - w.warm)
                E.append((tt, "pcieport 0000:%s:01.0: AER: Corrected error received: %s.0" % (w.busids[w.lr_of(ir)][:2], pci(w, w.lr_of(ir)))))
                E.append((tt, "nvidia %s.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)" % pci(w, w.lr_of(ir))))
                E.append((tt, "nvidia %s.0:   device [10de:2330] error status/mask=00000001/0000e000" % pci(w, w.lr_of(ir))))
                E.append((tt, "nvidia %s.0:    [ 0] RxErr                  (First)" % pci(w, w.lr_of(ir))))
        elif sub == "cpu":
            for k in range(r.randint(2, 5)):
                tt = w.warm + r.uniform(0, tf - w.warm)
                E.append((tt, "mce: CPU%d: Core temperature above threshold, cpu clock throttled (total events = %d)" % (r.randint(0, 95), r.randint(1000, 90000))))
                E.append((tt, "mce: CPU%d: Package temperature above threshold, cpu clock throttled (total events = %d)" % (r.randint(0, 95), r.randint(1000, 90000))))
    elif c == "preemption" and here and w.sub == "node":
        pass  # node reclaim shows up in the journal, not dmesg
    E.sort(key=lambda e: e[0])
    return E


# ----------------------------------------------------------------------------
# torchrun agent
# ----------------------------------------------------------------------------
SIGNAME = {-6: "SIGABRT", -9: "SIGKILL", -11: "SIGSEGV", -7: "SIGBUS", -15: "SIGTERM"}


def agent_events(w, n):
    r = random.Random("%s-agent-%d" % (w.idx, n))
    ap = w.agent_pid[n]
    E = []
    def L(t, lvl, src, msg):
        return (t, "%s %d torch/distributed/%s] %s" % (f_glog(w.T(t, n), lvl).replace(f_glog(w.T(t, n), lvl)[-6:], f_glog(w.T(t, n), lvl)[-6:-3] + "000"), ap, src, msg))
    t = w.warm - 70
    E.append(L(t, "W", "run.py:793", ""))
    E.append((t, "*****************************************"))
    E.append((t, "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. "))
    E.append((t, "*****************************************"))
    E.append(L(t + 1, "I", "elastic/agent/server/api.py:862", "[default] starting workers for entrypoint: python3"))
    E.append(L(t + 1, "I", "elastic/agent/server/api.py:677", "[default] Rendezvous'ing worker group"))
    ranks = list(range(n * w.gpn, (n + 1) * w.gpn))
    E.append(L(t + 3, "I", "elastic/agent/server/api.py:525", "[default] Rendezvous complete for workers. Result:\n  restart_count=0\n  master_addr=%s\n  master_port=29500\n  group_rank=%d\n  group_world_size=%d\n  local_ranks=%s\n  role_ranks=%s\n  global_ranks=%s\n  role_world_sizes=%s\n  global_world_sizes=%s\n" % (
        w.hosts[0], n, w.nnodes, list(range(w.gpn)), ranks, ranks, [w.world] * w.gpn, [w.world] * w.gpn)))
    E.append(L(t + 3, "I", "elastic/agent/server/api.py:685", "[default] Starting worker group"))
    E.append(L(t + 3, "I", "elastic/agent/server/local_elastic_agent.py:298", "use_agent_store: True"))
    E.append(L(t + 3, "I", "elastic/agent/server/local_elastic_agent.py:192", "Environment variable 'TORCHELASTIC_ENABLE_FILE_TIMER' not found. Do not start FileTimerServer."))
    E.append(L(t + 3, "I", "elastic/agent/server/local_elastic_agent.py:236", "Environment variable 'TORCHELASTIC_HEALTH_CHECK_PORT' not found. Do not start health check."))
    if w.healthy:
        te = max(w.outcome[x]["t"] for x in ranks) + 0.5
        E.append(L(te, "I", "elastic/agent/server/api.py:879", "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish."))
        E.append(L(te, "I", "elastic/agent/server/api.py:932", "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish"))
        E.append(L(te + 1.2, "I", "elastic/agent/server/api.py:946", "Done waiting for other agents. Elapsed: %.4f seconds" % r.uniform(0.05, 3)))
        return E
    # scheduler SIGTERM to the agent itself
    sched = [x for x in ranks if w.outcome[x]["kind"] == "sigterm_sched"]
    if sched:
        ts = min(w.outcome[x]["t"] for x in sched) - 0.05
        E.append(L(ts, "W", "elastic/agent/server/api.py:704", "Received Signals.SIGTERM death signal, shutting down workers"))
        for x in ranks:
            E.append(L(ts + 0.001, "W", "elastic/multiprocessing/api.py:897", "Sending process %d closing signal SIGTERM" % w.pids[x]))
        E += [(ts + 1, l) for l in elastic_traceback(w, r, "SignalException", "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % ap)]
        return E
    ff = w.first_fail[n]
    o = w.outcome[ff]
    tf = o["t"] + r.uniform(0.05, 0.8)
    for x in ranks:
        if x != ff and w.outcome[x]["kind"] in ("sigterm", "hung"):
            E.append(L(tf, "W", "elastic/multiprocessing/api.py:897", "Sending process %d closing signal SIGTERM" % w.pids[x]))
    E.append(L(tf + 0.3, "E", "elastic/multiprocessing/api.py:869", "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python3" % (o["code"], w.lr_of(ff), w.pids[ff])))
    others = [x for x in ranks if x != ff and w.outcome[x]["kind"] not in ("sigterm", "hung") and w.outcome[x]["t"] <= tf]
    summ = child_failed_summary(w, n, ff, others, tf)
    E += [(tf + 0.4, l) for l in elastic_traceback(w, r, "ChildFailedError", summ)]
    return E


def elastic_traceback(w, r, kind, last):
    L = ["Traceback (most recent call last):",
         '  File "/usr/local/bin/torchrun", line 8, in <module>',
         "    sys.exit(main())",
         '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper' % SITE,
         "    return f(*args, **kwargs)",
         '  File "%s/torch/distributed/run.py", line 919, in main' % SITE,
         "    run(args)",
         '  File "%s/torch/distributed/run.py", line 910, in run' % SITE,
         "    elastic_launch(",
         '  File "%s/torch/distributed/launcher/api.py", line 138, in __call__' % SITE,
         "    return launch_agent(self._config, self._entrypoint, list(args))"]
    if kind == "SignalException":
        L += ['  File "%s/torch/distributed/launcher/api.py", line 260, in launch_agent' % SITE,
              "    result = agent.run()",
              '  File "%s/torch/distributed/elastic/metrics/api.py", line 137, in wrapper' % SITE,
              "    result = f(*args, **kwargs)",
              '  File "%s/torch/distributed/elastic/agent/server/api.py", line 696, in run' % SITE,
              "    result = self._invoke_run(role)",
              '  File "%s/torch/distributed/elastic/agent/server/api.py", line 855, in _invoke_run' % SITE,
              "    time.sleep(monitor_interval)",
              '  File "%s/torch/distributed/elastic/multiprocessing/api.py", line 84, in _terminate_process_handler' % SITE,
              "    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)"]
        return L + [last]
    L += ['  File "%s/torch/distributed/launcher/api.py", line 269, in launch_agent' % SITE,
          "    raise ChildFailedError("]
    return L + last


def child_failed_summary(w, n, ff, others, tf):
    def entry(i, rk):
        o = w.outcome[rk]
        t = w.T(o["t"], n)
        code = o["code"]
        lines = ["[%d]:" % i,
                 "  time      : %s" % t.strftime("%Y-%m-%d_%H:%M:%S"),
                 "  host      : %s" % w.hosts[n],
                 "  rank      : %d (local_rank: %d)" % (rk, w.lr_of(rk)),
                 "  exitcode  : %d (pid: %d)" % (code, w.pids[rk])]
        if code < 0:
            lines += ["  error_file: <N/A>", "  traceback : Signal %d (%s) received by PID %d" % (-code, SIGNAME.get(code, "SIG"), w.pids[rk])]
        else:
            lines += ["  error_file: <N/A>", "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"]
        return lines
    L = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
         "============================================================",
         "%s FAILED" % w.script,
         "------------------------------------------------------------",
         "Failures:"]
    if others:
        for i, x in enumerate(others[:6]):
            L += entry(i + 1, x)
    else:
        L.append("  <NO_OTHER_FAILURES>")
    L += ["------------------------------------------------------------", "Root Cause (first observed failure):"]
    L += entry(0, ff)
    L.append("============================================================")
    return L


# ----------------------------------------------------------------------------
# misc artifacts
# ----------------------------------------------------------------------------
def env_file(w, extra=()):
    L = ["# debug rerun -- every knob on (%s)" % w.t0.strftime("%Y-%m-%d"),
         "export NCCL_DEBUG=INFO",
         "export NCCL_DEBUG_SUBSYS=ALL",
         "export TORCH_DISTRIBUTED_DEBUG=DETAIL",
         "export TORCH_CPP_LOG_LEVEL=INFO",
         "export TORCH_SHOW_CPP_STACKTRACES=1",
         "export TORCH_NCCL_TRACE_BUFFER_SIZE=64",
         "export TORCH_NCCL_DUMP_ON_TIMEOUT=1",
         "export TORCH_NCCL_DEBUG_INFO_TEMP_FILE=%s" % w.fr_prefix,
         "export PYTHONFAULTHANDLER=1",
         "export LOGLEVEL=INFO"]
    if w.blocking:
        L.append("export CUDA_LAUNCH_BLOCKING=1")
    else:
        L.append("# export CUDA_LAUNCH_BLOCKING=1   # too slow with 16 ranks, disabled again")
    L += list(extra)
    return "\n".join(L) + "\n"


def fmt_dmesg(w, n, ev):
    return "\n".join("%s %s" % (f_dmesg(w.T(t, n)), m) for t, m in ev) + "\n"


def fmt_journal(w, n, ev):
    h = w.hosts[n]
    return "\n".join("%s %s kernel: %s" % (f_journal(w.T(t, n)), h, m) for t, m in ev) + "\n"


def trimmed(lines, keep_head, keep_tail, note):
    if len(lines) <= keep_head + keep_tail + 1:
        return lines
    return lines[:keep_head] + [note % (len(lines) - keep_head - keep_tail)] + lines[-keep_tail:]


def py_stack_for(w, rk, when):
    """py-spy style stack (innermost first) of rank rk at time `when`"""
    s = "/workspace/" + w.script
    base = [("fit", "trainer.py", 262), ("main", w.script, 511), ("<module>", w.script, 640)]
    o = w.outcome.get(rk, {})
    c = w.cause
    if c in ("hang",) and rk == w.init_rank:
        if w.sub == "deadlock":
            st = [("wait", "threading.py", 324), ("result", "concurrent/futures/_base.py", 453), ("wait_async_save", "checkpoint/async_writer.py", 77), ("maybe_checkpoint", "trainer.py", 433)]
        elif w.sub == "gil":
            st = [("_decode_batch", "data/tokenizer_ext.py", 61), ("log_samples", "trainer.py", 471)]
        else:
            st = [("evaluate", "trainer.py", 512), ("<listcomp>", "trainer.py", 518), ("_next_data", "torch/utils/data/dataloader.py", 757)]
        return st + base
    if c == "data_loader_stall" and rk == w.init_rank:
        st = [("poll", "multiprocessing/connection.py", 424), ("_poll", "multiprocessing/connection.py", 257), ("get", "multiprocessing/queues.py", 113),
              ("_try_get_data", "torch/utils/data/dataloader.py", 1243), ("_get_data", "torch/utils/data/dataloader.py", 1412),
              ("_next_data", "torch/utils/data/dataloader.py", 1448), ("__next__", "torch/utils/data/dataloader.py", 701), ("next_batch", "trainer.py", 144)]
        return st + base
    if c == "straggler" and rk == w.init_rank:
        return [("forward", "torch/nn/modules/linear.py", 125), ("_call_impl", "torch/nn/modules/module.py", 1747), ("forward", "model.py", 188),
                ("_call_impl", "torch/nn/modules/module.py", 1747), ("train_step", "trainer.py", 352)] + base
    if c == "straggler" or w.healthy:
        return [("synchronize", "torch/cuda/__init__.py", 954), ("train_step", "trainer.py", 388)] + base
    return [("_engine_run_backward", "torch/autograd/graph.py", 825), ("backward", "torch/autograd/__init__.py", 347),
            ("backward", "torch/_tensor.py", 581), ("train_step", "trainer.py", 371)] + base


def pyspy_dump(w, rk, when):
    r = random.Random("%s-pyspy-%d" % (w.idx, rk))
    L = ["Process %d: /usr/bin/python3 -u %s --config configs/%s.yaml" % (w.pids[rk], w.script, w.model),
         "Python v3.10.12 (/usr/bin/python3.10)", ""]
    st = py_stack_for(w, rk, when)
    idle = not (w.cause in ("straggler", "hang") and rk == w.init_rank and (w.cause == "straggler" or w.sub == "gil"))
    L.append('Thread %d (%s): "MainThread"' % (w.pids[rk], "idle" if idle else "active+gil"))
    if w.cause not in ("hang", "data_loader_stall") or rk != w.init_rank:
        if not (w.cause == "straggler" and rk == w.init_rank):
            L.append("    cudaStreamSynchronize (libcudart.so.12)" if r.random() < 0.5 else "    c10::cuda::CUDAStream::synchronize (libc10_cuda.so)")
    for fn, fl, ln in st:
        pfx = "" if fl.startswith(("trainer", "model", "data/", "checkpoint", w.script)) else ""
        path = ("%s/%s" % (SITE, fl)) if fl.startswith("torch/") else ("/usr/lib/python3.10/%s" % fl if fl.startswith(("threading", "multiprocessing", "concurrent")) else "/workspace/%s" % fl)
        L.append("    %s (%s:%d)" % (fn, path, ln))
    L.append('Thread %d (idle): "Thread-1 (_pin_memory_loop)"' % (w.pids[rk] + r.randint(50, 200)))
    L.append("    select (selectors.py:416)")
    L.append("    wait (multiprocessing/connection.py:931)")
    L.append("    _poll (multiprocessing/connection.py:424)")
    L.append("    get (multiprocessing/queues.py:113)")
    L.append("    do_one_step (%s/torch/utils/data/_utils/pin_memory.py:31)" % SITE)
    L.append("    _pin_memory_loop (%s/torch/utils/data/_utils/pin_memory.py:55)" % SITE)
    L.append("    run (threading.py:953)")
    L.append('Thread %d (idle): "Thread-2 (monitor)"' % (w.pids[rk] + r.randint(201, 400)))
    L.append("    wait (threading.py:324)")
    L.append("    run (%s/tqdm/_monitor.py:60)" % SITE)
    L.append("    _bootstrap (threading.py:973)")
    return "\n".join(L) + "\n"


def strace_tail(w, rk):
    r = random.Random("%s-strace-%d" % (w.idx, rk))
    n = w.node_of(rk)
    t = w.t_fail + (w.timeout_ms / 1000.0) * 0.4
    pid = w.pids[rk]
    L = ["strace: Process %d attached with %d threads" % (pid, r.randint(40, 130))]
    kind = "sync"
    if w.cause == "hang" and rk == w.init_rank:
        kind = "futex"
    if w.cause == "data_loader_stall" and rk == w.init_rank:
        kind = "poll"
    for k in range(r.randint(25, 60)):
        tt = w.T(t + k * 0.013, n)
        tid = pid + r.choice([0, 0, 3, 17, 41])
        if kind == "sync":
            L.append("[pid %d] %s ioctl(%d, _IOC(_IOC_READ|_IOC_WRITE, 0x46, 0x2a, 0x20), 0x7ffd%s) = 0" % (tid, f_strace(tt), r.choice([7, 9, 11]), hx(r, 8)) if r.random() < 0.6
                     else "[pid %d] %s sched_yield() = 0" % (tid, f_strace(tt)))
        elif kind == "futex":
            L.append("[pid %d] %s futex(0x%s, FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME, 0, NULL, FUTEX_BITSET_MATCH_ANY <unfinished ...>" % (tid, f_strace(tt), hx(r, 12)) if k % 5 == 0
                     else "[pid %d] %s clock_nanosleep(CLOCK_MONOTONIC, 0, {tv_sec=0, tv_nsec=%d}, NULL) = 0" % (pid + 41, f_strace(tt), r.choice([1000000, 100000000])))
        else:
            L.append("[pid %d] %s poll([{fd=%d, events=POLLIN}], 1, 5000) = 0 (Timeout)" % (pid, f_strace(tt), r.randint(40, 90)) if k % 3 == 0
                     else "[pid %d] %s clock_nanosleep(CLOCK_MONOTONIC, 0, {tv_sec=0, tv_nsec=100000000}, NULL) = 0" % (pid + 41, f_strace(tt)))
    if kind == "poll":
        wp = pid + r.randint(100, 900)
        L.append("# strace -p %d (DataLoader worker of rank %d)" % (wp, rk))
        L.append("%s read(%d, " % (f_strace(w.T(t + 2, n)), r.randint(20, 90)))
        L.append("# (no further output for 300 s)")
    o = w.outcome.get(rk, {})
    if o:
        te = w.T(o["t"], n)
        sig = {-6: "SIGABRT", -15: "SIGTERM", -9: "SIGKILL", -11: "SIGSEGV"}.get(o["code"])
        if sig == "SIGTERM":
            L.append("[pid %d] %s --- SIGTERM {si_signo=SIGTERM, si_code=SI_USER, si_pid=%d, si_uid=1000} ---" % (pid, f_strace(te), w.agent_pid[n]))
            L.append("%s +++ killed by SIGTERM +++" % f_strace(te))
        elif sig == "SIGABRT":
            L.append("[pid %d] %s tgkill(%d, %d, SIGABRT) = 0" % (w.tids[rk], f_strace(te), pid, w.tids[rk]))
            L.append("[pid %d] %s --- SIGABRT {si_signo=SIGABRT, si_code=SI_TKILL, si_pid=%d, si_uid=1000} ---" % (w.tids[rk], f_strace(te), pid))
            L.append("%s +++ killed by SIGABRT (core dumped) +++" % f_strace(te))
        elif sig == "SIGKILL":
            L.append("%s +++ killed by SIGKILL +++" % f_strace(te))
        elif sig == "SIGSEGV":
            L.append("[pid %d] %s --- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=0x8} ---" % (pid, f_strace(te)))
            L.append("%s +++ killed by SIGSEGV (core dumped) +++" % f_strace(te))
        elif o["code"] == 0:
            L.append("[pid %d] %s exit_group(0)               = ?" % (pid, f_strace(te)))
            L.append("%s +++ exited with 0 +++" % f_strace(te))
        else:
            L.append("[pid %d] %s exit_group(%d)               = ?" % (pid, f_strace(te), o["code"] & 255))
            L.append("%s +++ exited with %d +++" % (f_strace(te), o["code"] & 255))
    return "\n".join(L) + "\n"


# ----------------------------------------------------------------------------
# Flight Recorder dumps + fr_trace report
# ----------------------------------------------------------------------------
def fr_dumpers(w):
    if w.healthy or w.cause == "straggler":
        return list(range(w.world))  # on-demand dump through the debug pipe
    return [rk for rk in range(w.world) if w.outcome[rk]["kind"] in ("watchdog", "hung")]


def fr_dump(w, rk):
    r = random.Random("%s-fr-%d" % (w.idx, rk))
    ls = last_seq(w, rk)
    pending = (not w.healthy) and w.cause != "straggler" and w.outcome[rk]["kind"] == "watchdog"
    ns0 = int((w.t0 - dt.datetime(1970, 1, 1)).total_seconds() * 1e9)
    st_per = w.step_time / len(w.buckets)
    entries = []
    for s in range(max(1, ls - 63), ls + 1):
        op, shape, dtyp = coll_op(w, s)
        tc = seq_time(w, s) + w.skew[w.node_of(rk)]
        dur = st_per * r.uniform(0.2, 0.5)
        if w.cause == "straggler":
            dur = st_per * (0.02 if rk == w.init_rank else (w.slow_factor - 1) * 0.9) + r.uniform(0, 0.01)
        state = "completed"
        if pending and s == ls:
            state = "started" if r.random() < 0.8 else "scheduled"
        e = {"record_id": s - 1, "pg_id": 0, "process_group": ("0", "default_pg"), "collective_seq_id": s, "p2p_seq_id": 0,
             "op_id": s, "profiling_name": "nccl:" + op, "time_created_ns": ns0 + int(tc * 1e9),
             "duration_ms": (round(dur * 1000, 3) if state == "completed" else None),
             "input_sizes": [shape], "input_dtypes": [dtyp], "output_sizes": [shape], "output_dtypes": [dtyp],
             "state": state, "time_discovered_started_ns": ns0 + int((tc + 0.001) * 1e9) if state != "scheduled" else None,
             "time_discovered_completed_ns": ns0 + int((tc + dur) * 1e9) if state == "completed" else None,
             "retired": state == "completed", "timeout_ms": w.timeout_ms, "is_p2p": False,
             "frames": [{"name": "all_reduce" if op == "all_reduce" else "broadcast", "filename": SITE + "/torch/distributed/distributed_c10d.py", "line": 2501 if op == "all_reduce" else 2423},
                        {"name": "wrapper", "filename": SITE + "/torch/distributed/c10d_logger.py", "line": 83},
                        {"name": "_allreduce_fut", "filename": SITE + "/torch/distributed/algorithms/ddp_comm_hooks/default_hooks.py", "line": 28},
                        {"name": "train_step", "filename": "/workspace/trainer.py", "line": 371}]}
        entries.append(e)
    d = {"version": "2.4", "comm_lib_version": w.nccl_ver, "rank": rk,
         "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": str(list(range(w.world)))}},
         "pg_status": {"0": {"last_enqueued_collective": ls, "last_started_collective": ls if pending else ls, "last_completed_collective": ls - 1 if pending else ls}},
         "entries": entries,
         "nccl_comm_state": {"0": {"0": {"commAsyncError": 0 if w.cause != "network" else 6}}}}
    return pickle.dumps(d, protocol=4)


def fr_report(w):
    dumpers = fr_dumpers(w)
    r = random.Random("%s-frrep" % w.idx)
    L = ["$ python -m torch.distributed.flight_recorder.fr_trace %s -p nccl_trace_rank_ --allow-incomplete-ranks" % os.path.dirname(w.fr_prefix)]
    missing = [rk for rk in range(w.world) if rk not in dumpers]
    L.append("loaded %d files in %.2fs" % (len(dumpers), r.uniform(0.1, 1.2)))
    if missing:
        L.append("WARNING: no dump found for rank(s) %s, analysis may be incomplete" % missing)
    L.append("built groups, memberships")
    if w.healthy or w.cause == "straggler":
        L.append("no errors found in the collected collectives (64 entries x %d ranks)" % len(dumpers))
        return "\n".join(L) + "\n"
    if not dumpers:
        L.append("no entries to analyze")
        return "\n".join(L) + "\n"
    seqs = {rk: last_seq(w, rk) for rk in dumpers}
    top = max(seqs.values())
    absent = sorted(set(x for x in range(w.world) if x not in dumpers) | set(x for x in dumpers if seqs[x] < top))
    op, shape, _ = coll_op(w, top)
    if absent:
        L.append("Not all ranks joining collective: sequence number: %d" % top)
        L.append("internal record id: %d" % (top - 1))
        L.append("group info: 0:default_pg")
        L.append("collective: nccl:%s" % op)
        L.append("missing ranks: {%s}" % ", ".join(str(x) for x in absent))
        L.append("input sizes: [%s]" % shape)
        L.append("output sizes: [%s]" % shape)
        L.append("world size: %d" % w.world)
        L.append("expected ranks: {%s}" % ", ".join(str(x) for x in range(w.world)))
        L.append("collective state: started")
        L.append("collective stack trace:")
        L.append(" all_reduce at %s/torch/distributed/distributed_c10d.py:2501" % SITE)
        L.append("wrapper at %s/torch/distributed/c10d_logger.py:83" % SITE)
        L.append("_allreduce_fut at %s/torch/distributed/algorithms/ddp_comm_hooks/default_hooks.py:28" % SITE)
        L.append("train_step at /workspace/trainer.py:371")
    else:
        L.append("all ranks joined collective %d (nccl:%s) but it never completed on any rank; state: started" % (top, op))
    return "\n".join(L) + "\n"


# ----------------------------------------------------------------------------
# NCCL RAS client output
# ----------------------------------------------------------------------------
def ras_output(w):
    r = random.Random("%s-ras" % w.idx)
    alive = [rk for rk in range(w.world)]
    stalled = w.healthy or w.cause in ("hang", "data_loader_stall", "straggler") or any(o["kind"] == "watchdog" for o in w.outcome.values())
    if not stalled:
        return "$ ncclras\nFailed to connect to localhost:28028: Connection refused\n(job already gone when we got to the node)\n"
    cver = int(w.cuda_int)
    L = ["$ ncclras -v", "NCCL version %s compiled with CUDA %s" % (w.nccl_ver, w.cuda), "CUDA runtime version %d, driver version %d" % (cver, cver + 20), "",
         "Job summary", "===========", "",
         "  Nodes  Processes         GPUs  Processes     GPUs",
         "(total)   per node  per process    (total)  (total)",
         "%7d %10d %12d %10d %8d" % (w.nnodes, w.gpn, 1, w.world, w.world), ""]
    dead = []
    if not w.healthy and w.cause not in ("hang", "data_loader_stall", "straggler"):
        dead = [w.init_rank] if w.init_rank is not None else []
    if dead:
        L.append("Warning: the RAS network did not receive data from %d process%s (%s)" % (len(dead), "" if len(dead) == 1 else "es", "DEAD"))
        for d in dead:
            L.append("  Process %d on node %s managing GPU %d" % (w.pids[d], w.ips[w.node_of(d)], w.lr_of(d)))
        L.append("")
    L.append(" Collected data about %d unidirectional connections" % (w.world * 2))
    L.append(" Travel times (valid only if system clocks are synchronized between nodes):")
    L.append("  Minimum %.3fs, maximum %.3fs, average %.3fs" % (r.uniform(0, 0.001), abs(max(w.skew) - min(w.skew)) + 0.002, r.uniform(0.0005, 0.002)))
    if any(abs(x) > 0.5 for x in w.skew):
        L.append(" Warning: negative travel times were observed across %d connections," % r.randint(2, 8))
        L.append(" indicating that the system clocks are *not* synchronized.")
        L.append(" Ordering of events based on local timestamps should be considered unreliable")
    L.append("")
    L.append("Gathering data about the NCCL communicators (timeout 5s)... (%.3fs)" % r.uniform(0.001, 5))
    L.append("=============")
    L.append("")
    status = "RUNNING"
    err = "OK"
    behind = []
    if not w.healthy and w.cause in ("hang", "data_loader_stall"):
        err = "MISMATCH"
        behind = [w.init_rank]
    elif dead:
        err = "INCOMPLETE"
    elif not w.healthy and w.cause != "straggler":
        err = "OK"
    L.append("Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors")
    L.append("    #  in group  per comm  per node  per comm  in group")
    L.append("%5d %9d %9d %9d %9d %9d %9s  %s" % (0, 1, w.nnodes, w.gpn, w.world, w.world - len(dead), status, err))
    L.append("")
    L.append("Errors")
    L.append("======")
    L.append("")
    if err == "MISMATCH":
        L.append("#0-0 (%s) MISMATCH" % w.commid[2:])
        L.append("  Communicator ranks have different collective operation counts")
        L.append("  %d ranks have launched up to operation %d" % (w.world - 1, w.seq_fail))
        L.append("  1 rank has launched up to operation %d" % (w.seq_fail - 1))
        L.append("  Rank %d -- GPU %d managed by process %d on node %s" % (behind[0], w.lr_of(behind[0]), w.pids[behind[0]], w.ips[w.node_of(behind[0])]))
    elif err == "INCOMPLETE":
        L.append("#0-0 (%s) INCOMPLETE" % w.commid[2:])
        L.append("  Missing communicator data from %d rank%s" % (len(dead), "" if len(dead) == 1 else "s"))
        L.append("  The missing rank: %s" % ", ".join(str(d) for d in dead))
    L.append("")
    L.append("Warnings")
    L.append("========")
    L.append("")
    return "\n".join(L) + "\n"


# ----------------------------------------------------------------------------
# compute-sanitizer
# ----------------------------------------------------------------------------
def sanitizer_log(w, rk):
    r = random.Random("%s-san-%d" % (w.idx, rk))
    L = ["========= COMPUTE-SANITIZER"]
    nerr = 0
    def hostframes():
        out = ["=========     Saved host backtrace up to driver entry point at error"]
        for fn, so in [("", "libcuda.so.1"), ("cudaDeviceEnablePeerAccess", "libcudart.so.12"), ("ncclTransportP2pSetup", "libnccl.so.2"),
                       ("ncclCommInitRank", "libnccl.so.2"), ("c10d::ProcessGroupNCCL::getNCCLComm", "libtorch_cuda.so")][: r.randint(3, 5)]:
            out.append("=========         Host Frame: %s[0x%x] in %s" % (fn + " " if fn else "", r.randint(0x10000, 0x3ffffff), so))
        return out
    if r.random() < 0.8:
        L.append('========= Program hit cudaErrorPeerAccessAlreadyEnabled (error 704) due to "peer access is already enabled" on CUDA API call to cudaDeviceEnablePeerAccess.')
        L += hostframes()
        nerr += 1
    if r.random() < 0.5:
        L.append('========= Program hit CUDA_ERROR_NOT_FOUND (error 500) due to "named symbol not found" on CUDA API call to cuGetProcAddress.')
        L += hostframes()
        nerr += 1
    o = w.outcome.get(rk, {})
    if not w.healthy and o.get("kind") == "origin":
        c, sub = w.cause, w.sub
        if c == "illegal_memory_access" and sub != "assert":
            L.append("========= Invalid __global__ read of size 4 bytes")
            L.append("=========     at void fused_rope_fwd_kernel<c10::BFloat16, float>(const T1 *, const T2 *, const T2 *, T1 *, int, int, int)+0x%x in /workspace/csrc/fused_rope.cu:%d" % (r.randint(0x100, 0x9ff), r.randint(60, 140)))
            L.append("=========     by thread (%d,0,0) in block (%d,%d,0)" % (r.randint(0, 255), r.randint(0, 2047), r.randint(0, 31)))
            L.append("=========     Address 0x7f%s is out of bounds" % hx(r, 10))
            L.append("=========     and is %s bytes after the nearest allocation at 0x7f%s of size %s bytes" % ("{:,}".format(r.randint(4, 65536)), hx(r, 10), "{:,}".format(r.choice([8388608, 16777216, 4194304]))))
            L.append("=========     Saved host backtrace up to driver entry point at kernel launch time")
            for fn, so in [("", "libcuda.so.1"), ("", "libcudart.so.12"), ("fused_rope_forward(at::Tensor, at::Tensor, at::Tensor, at::Tensor)", "fused_rope_cuda.so")]:
                L.append("=========         Host Frame: %s[0x%x] in %s" % (fn + " " if fn else "", r.randint(0x10000, 0x3ffffff), so))
            nerr += 1
            L.append('========= Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure" on CUDA API call to cudaStreamSynchronize.')
            nerr += 1
        elif c == "illegal_memory_access":
            L.append("========= Device-side assertion `srcIndex < srcSelectDimSize` failed in ../aten/src/ATen/native/cuda/Indexing.cu:1290 (indexSelectLargeIndex)")
            L.append('========= Program hit cudaErrorAssert (error 710) due to "device-side assert triggered" on CUDA API call to cudaStreamSynchronize.')
            nerr += 2
        elif c == "cuda_oom":
            L.append('========= Program hit cudaErrorMemoryAllocation (error 2) due to "out of memory" on CUDA API call to cudaMalloc.')
            L += hostframes()
            nerr += 1
        elif c in ("gpu_hardware", "ecc_memory", "nvlink"):
            e = {"gpu_hardware": ("cudaErrorLaunchFailure", 719, "unspecified launch failure"),
                 "ecc_memory": ("cudaErrorECCUncorrectable", 214, "uncorrectable ECC error encountered"),
                 "nvlink": ("cudaErrorNvlinkUncorrectable", 220, "uncorrectable NVLink error detected during the execution")}[c]
            L.append('========= Program hit %s (error %d) due to "%s" on CUDA API call to cudaEventQuery.' % e)
            nerr += 1
        if o["code"] in (-9, -11, -7):
            return "\n".join(L) + "\n"  # killed: no summary
    if o.get("code") in (-15,) and r.random() < 0.5:
        return "\n".join(L) + "\n"
    if o.get("code", 0) != 0:
        L.append("========= Target application returned an error")
    L.append("========= ERROR SUMMARY: %d error%s" % (nerr, "" if nerr == 1 else "s"))
    return "\n".join(L) + "\n"


def nvsmi_q(w, n):
    r = random.Random("%s-smi-%d" % (w.idx, n))
    L = ["==============NVSMI LOG==============", "", "Timestamp                                 : %s" % w.T(w.t_end + 120, n).strftime("%a %b %d %H:%M:%S %Y"),
         "Driver Version                            : 550.90.07", "CUDA Version                              : %s" % w.cuda, "",
         "Attached GPUs                             : %d" % w.gpn]
    for lr in range(w.gpn):
        rk = n * w.gpn + lr
        bad = (not w.healthy and rk == w.init_rank)
        L.append("GPU 00000000:%s:00.0" % w.busids[lr][:2].upper())
        if bad and w.cause == "gpu_hardware" and w.sub == "xid79":
            L.append("    Unable to determine the device handle for GPU0000:%s:00.0: Unknown Error" % w.busids[lr][:2].upper())
            continue
        L.append("    ECC Mode")
        L.append("        Current                           : Enabled")
        L.append("        Pending                           : Enabled")
        L.append("    ECC Errors")
        L.append("        Volatile")
        L.append("            SRAM Correctable              : %d" % (r.choice([0, 0, 0, 1, 2])))
        L.append("            SRAM Uncorrectable Parity     : 0")
        L.append("            SRAM Uncorrectable SEC-DED    : 0")
        L.append("            DRAM Correctable              : %d" % (r.choice([0, 0, 3, 12])))
        L.append("            DRAM Uncorrectable            : %d" % (r.randint(1, 4) if bad and w.cause == "ecc_memory" else 0))
        L.append("    Remapped Rows")
        L.append("        Correctable Error                 : %d" % r.choice([0, 0, 1]))
        L.append("        Uncorrectable Error               : %d" % (r.randint(1, 3) if bad and w.cause == "ecc_memory" else 0))
        L.append("        Pending                           : %s" % ("Yes" if bad and w.cause == "ecc_memory" else "No"))
        L.append("        Remapping Failure Occurred        : %s" % ("Yes" if bad and w.cause == "ecc_memory" and w.sub == "remap64" else "No"))
        L.append("    Clocks Event Reasons")
        L.append("        Idle                              : Not Active")
        L.append("        SW Power Cap                      : %s" % r.choice(["Not Active", "Not Active", "Active"]))
        thermal = bad and w.cause == "straggler" and w.sub == "thermal"
        L.append("        HW Slowdown                       : %s" % ("Active" if thermal else "Not Active"))
        L.append("            HW Thermal Slowdown           : %s" % ("Active" if thermal else "Not Active"))
        L.append("        SW Thermal Slowdown               : %s" % ("Active" if thermal else "Not Active"))
        L.append("    Temperature")
        L.append("        GPU Current Temp                  : %d C" % (r.randint(88, 93) if thermal else r.randint(34, 62)))
        if bad and w.cause == "gpu_hardware" and w.sub != "xid79":
            L.append("    GPU Recovery Action                   : Reset")
    return "\n".join(L) + "\n"


# ----------------------------------------------------------------------------
# layouts
# ----------------------------------------------------------------------------
TRIM_NOTE = "[... %d lines of NCCL INFO coll traces (AllReduce: opCount ...) cut here by the operator to fit the attachment limit ...]"


def render(lines):
    """turn event lines into text; collapse COLL trim markers"""
    out = []
    trimmed_n = 0
    seen = False
    for l in lines:
        if "@@TRIM@@" in l:
            trimmed_n += int(l.split("@@TRIM@@")[1])
            if not seen:
                out.append("@@TRIMSLOT@@")
                seen = True
            continue
        out.append(l)
    return "\n".join(TRIM_NOTE % trimmed_n if x == "@@TRIMSLOT@@" else x for x in out) + "\n"


def split_multi(prefix, line):
    return [prefix + x for x in line.split("\n")]


def node_stream(w, n, app, ncl, tee=True, agent=True, label=None):
    ev = []
    seq = 0
    if agent:
        for t, l in agent_events(w, n):
            ev.append((t, seq, [l] if "\n" not in l else l.split("\n")))
            seq += 1
    for lr in range(w.gpn):
        rk = n * w.gpn + lr
        pfx = ("[default%d]:" % lr) if tee else ""
        if label is not None:
            pfx = "%d: " % rk
        for t, _s, l in app[rk]:
            ev.append((t, seq, split_multi(pfx, l)))
            seq += 1
        if ncl is not None:
            for t, l in ncl[rk]:
                ev.append((t, seq, [l if l.startswith("@@TRIM") else pfx + l]))
                seq += 1
    ev.sort(key=lambda e: (e[0], e[1]))
    lines = []
    for _t, _s, ls in ev:
        lines.extend(ls)
    return lines


def preempt_journal(w, n):
    r = random.Random("%s-pj" % w.idx)
    t = w.t_fail - r.uniform(0.5, 3)
    h = w.hosts[n]
    pid = r.randint(900, 2000)
    L = ["%s %s systemd-logind[%d]: Power key pressed short." % (f_journal(w.T(t, n)), h, pid),
         "%s %s systemd-logind[%d]: Powering off..." % (f_journal(w.T(t, n)), h, pid),
         "%s %s systemd-logind[%d]: System is powering down." % (f_journal(w.T(t + 0.2, n)), h, pid),
         "%s %s systemd[1]: Stopping Session %d of User ubuntu..." % (f_journal(w.T(t + 0.3, n)), h, r.randint(2, 40)),
         "%s %s systemd[1]: Stopped target Graphical Interface." % (f_journal(w.T(t + 0.3, n)), h),
         "%s %s systemd[1]: Stopping NVIDIA Persistence Daemon..." % (f_journal(w.T(t + 0.4, n)), h)]
    return "\n".join(L) + "\n"


def common(w):
    app = {rk: rank_app_events(w, rk) for rk in range(w.world)}
    ncl = {rk: nccl_events(w, rk, random.Random("%s-nccl-%d" % (w.idx, rk))) for rk in range(w.world)}
    kern = {n: kernel_events(w, n) for n in range(w.nnodes)}
    return app, ncl, kern


def layout_nccl_all_torchrun(w):
    app, ncl, kern = common(w)
    F = {"debug_env.sh": env_file(w)}
    for n in range(w.nnodes):
        F["logs/%s.log" % w.hosts[n]] = render(node_stream(w, n, app, ncl, tee=True))
        F["dmesg/%s.dmesg.txt" % w.hosts[n]] = fmt_dmesg(w, n, kern[n])
    if w.cause == "preemption" and w.init_node is not None:
        F["journalctl_%s.txt" % w.hosts[w.init_node]] = preempt_journal(w, w.init_node)
    return F


def layout_nccl_debug_file(w):
    app, ncl, kern = common(w)
    F = {"debug_env.sh": env_file(w, ["export NCCL_DEBUG_FILE=%s" % w.debug_file_pat, "export NCCL_RAS_ENABLE=1"])}
    for rk in range(w.world):
        ev = sorted(ncl[rk], key=lambda e: e[0])
        F["nccl/nccl.%s.%d.log" % (w.host_of(rk), w.pids[rk])] = render([l for _t, l in ev])
    for n in range(w.nnodes):
        F["torchrun/%s.out" % w.hosts[n]] = render(node_stream(w, n, app, None, tee=False))
        F["dmesg/%s.txt" % w.hosts[n]] = fmt_dmesg(w, n, kern[n])
        F["nvidia-smi-q/%s.txt" % w.hosts[n]] = nvsmi_q(w, n)
    F["ncclras_%s.txt" % w.hosts[0]] = ras_output(w)
    if w.cause == "preemption" and w.init_node is not None:
        F["journalctl_%s.txt" % w.hosts[w.init_node]] = preempt_journal(w, w.init_node)
    return F


def layout_flight_recorder(w):
    app, ncl, kern = common(w)
    F = {"debug_env.sh": env_file(w, ["export TORCH_NCCL_DEBUG_INFO_PIPE_FILE=/shared/debug/%s/fr/pipe_" % w.jobid])}
    for rk in fr_dumpers(w):
        F["fr/nccl_trace_rank_%d" % rk] = fr_dump(w, rk)
    F["fr_trace_output.txt"] = fr_report(w)
    for n in range(w.nnodes):
        F["logs/%s.log" % w.hosts[n]] = render(node_stream(w, n, app, ncl, tee=True))
        F["journalctl-k/%s.txt" % w.hosts[n]] = fmt_journal(w, n, kern[n])
    if w.cause == "preemption" and w.init_node is not None:
        F["journalctl-k/%s.txt" % w.hosts[w.init_node]] += preempt_journal(w, w.init_node)
    return F


def layout_pyspy_strace(w):
    app, ncl, kern = common(w)
    r = random.Random("%s-lay4" % w.idx)
    F = {"debug_env.sh": env_file(w, ["# py-spy/strace taken by hand on every node once the job stopped making progress"])}
    rid = "%s_%s" % (w.run_id, hx(r, 8))
    for n in range(w.nnodes):
        h = w.hosts[n]
        F["launcher/%s.log" % h] = render([l for _t, l in sorted(agent_events(w, n), key=lambda e: e[0])])
        for lr in range(w.gpn):
            rk = n * w.gpn + lr
            out = [l for t, s, l in app[rk] if s == "o"]
            ev = [(t, l) for t, s, l in app[rk] if s == "o"] + list(ncl[rk])
            ev.sort(key=lambda e: e[0])
            F["torchelastic/%s/%s/attempt_0/%d/stdout.log" % (h, rid, lr)] = render([x for _t, l in ev for x in l.split("\n")])
            F["torchelastic/%s/%s/attempt_0/%d/stderr.log" % (h, rid, lr)] = render([x for t, s, l in app[rk] if s == "e" for x in l.split("\n")])
        F["dmesg/%s.txt" % h] = fmt_dmesg(w, n, kern[n])
    t_cap = w.t_fail + (w.timeout_ms / 1000.0) * 0.4 if not w.healthy else w.t_end - 60
    for rk in range(w.world):
        name = "py-spy/%s_rank%d.txt" % (w.host_of(rk), rk)
        alive = w.outcome[rk]["t"] > t_cap
        if alive:
            F[name] = "$ py-spy dump --native --pid %d\n" % w.pids[rk] + pyspy_dump(w, rk, t_cap)
        else:
            F[name] = "$ py-spy dump --native --pid %d\nError: Failed to find process %d: No such process (os error 3)\n" % (w.pids[rk], w.pids[rk]) if r.random() < 0.5 else \
                "$ py-spy dump --native --pid %d\nError: No such process (os error 3)\n" % w.pids[rk]
    picks = [n * w.gpn for n in range(w.nnodes)]
    if w.init_rank is not None and w.outcome[w.init_rank]["t"] > t_cap:
        picks.append(w.init_rank)
    picks.append(r.randrange(w.world))
    for rk in sorted(set(picks)):
        F["strace/%s_%d.txt" % (w.host_of(rk), w.pids[rk])] = "$ strace -f -tt -p %d 2>&1 | tail -n 80\n" % w.pids[rk] + strace_tail(w, rk)
    if w.cause == "preemption" and w.init_node is not None:
        F["journalctl_%s.txt" % w.hosts[w.init_node]] = preempt_journal(w, w.init_node)
    return F


def rank_set(ranks):
    ranks = sorted(ranks)
    out = []
    i = 0
    while i < len(ranks):
        j = i
        while j + 1 < len(ranks) and ranks[j + 1] == ranks[j] + 1:
            j += 1
        out.append(str(ranks[i]) if i == j else "%d-%d" % (ranks[i], ranks[j]))
        i = j + 1
    return ",".join(out)


def layout_slurm_sanitizer(w):
    app, ncl, kern = common(w)
    r = random.Random("%s-lay5" % w.idx)
    F = {}
    F["job.sbatch"] = ("#!/bin/bash\n#SBATCH --job-name=%s-debug\n#SBATCH --nodes=%d\n#SBATCH --ntasks-per-node=%d\n#SBATCH --gpus-per-node=%d\n"
                       "#SBATCH --time=04:00:00\n#SBATCH --output=slurm-%%j.out\n\n" % (w.model, w.nnodes, w.gpn, w.gpn)) + env_file(w) + \
        ("export MASTER_ADDR=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n1)\nexport MASTER_PORT=29500\n\n"
         "srun -l --kill-on-bad-exit=1 bash -c 'RANK=$SLURM_PROCID LOCAL_RANK=$SLURM_LOCALID WORLD_SIZE=$SLURM_NTASKS \\\n"
         "  compute-sanitizer --tool memcheck --log-file sanitizer/sanitizer.%%q{SLURM_PROCID}.log \\\n  python3 -u %s --config configs/%s.yaml'\n" % (w.script, w.model))
    lines = []
    for n in range(w.nnodes):
        lines.append((w.warm - 80, None))
    ev = []
    seq = 0
    for rk in range(w.world):
        for t, _s, l in app[rk]:
            ev.append((t + w.skew[w.node_of(rk)] * 0, seq, ["%d: %s" % (rk, x) for x in l.split("\n")]))
            seq += 1
        for t, l in ncl[rk]:
            ev.append((t, seq, [l if l.startswith("@@TRIM") else "%d: %s" % (rk, l)]))
            seq += 1
    # slurm epilogue lines
    jid = w.jobid
    tail = []
    if not w.healthy:
        if w.cause in ("preemption", "straggler") and all(o["kind"] == "sigterm_sched" for o in w.outcome.values()):
            tc = min(o["t"] for o in w.outcome.values()) - 0.05
            why = {"preempt": " DUE TO PREEMPTION", "timelimit": " DUE TO TIME LIMIT"}.get(w.sub, "")
            tail.append((tc, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s%s ***" % (jid, w.hosts[0], f_iso(w.T(tc)), why)))
            tail.append((tc + 0.01, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s%s ***" % (jid, w.hosts[0], f_iso(w.T(tc)), why)))
            tail.append((tc + 0.5, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            for n in range(w.nnodes):
                tail.append((tc + 2, "srun: error: %s: tasks %s: Terminated" % (w.hosts[n], rank_set(range(n * w.gpn, (n + 1) * w.gpn)))))
        else:
            firsts = sorted((o["t"], rk) for rk, o in w.outcome.items() if o["kind"] not in ("sigterm", "hung", "sigterm_sched"))
            tf, rf = firsts[0]
            code = w.outcome[rf]["code"]
            if w.cause == "host_oom_kill" and w.sub != "oom_worker":
                tail.append((tf + 0.2, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % jid))
            desc = {-6: "Aborted (core dumped)", -9: "Killed", -11: "Segmentation fault (core dumped)", -7: "Bus error (core dumped)"}.get(code, "Exited with exit code %d" % code)
            tail.append((tf + 0.3, "srun: error: %s: task %d: %s" % (w.host_of(rf), rf, desc)))
            tail.append((tf + 0.31, "srun: launch/slurm: _step_signal: Terminating StepId=%d.0" % jid))
            tail.append((tf + 0.35, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (jid, w.hosts[0], f_iso(w.T(tf + 0.35)))))
            # everyone else killed by slurm at tf+0.35 (kill-on-bad-exit): drop their later output
            cut = tf + 0.4
            ev = [e for e in ev if e[0] <= cut + 1.0]
            for n in range(w.nnodes):
                rest = [rk for rk in range(n * w.gpn, (n + 1) * w.gpn) if rk != rf and w.outcome[rk]["t"] > cut]
                others = [rk for rk in range(n * w.gpn, (n + 1) * w.gpn) if rk != rf and w.outcome[rk]["t"] <= cut]
                for rk in others:
                    c2 = w.outcome[rk]["code"]
                    tail.append((cut + 0.5, "srun: error: %s: task %d: %s" % (w.host_of(rk), rk, {-6: "Aborted (core dumped)", -15: "Terminated"}.get(c2, "Exited with exit code %d" % (c2 & 255)))))
                if rest:
                    tail.append((cut + 2, "srun: error: %s: tasks %s: Terminated" % (w.hosts[n], rank_set(rest))))
            tail.append((cut + 2.5, "srun: Force Terminated StepId=%d.0" % jid))
            for rk in range(w.world):
                if rk != rf and w.outcome[rk]["t"] > cut:
                    w.outcome[rk] = dict(kind="sigterm", t=cut + 1, code=-15)
    for t, l in tail:
        ev.append((t, seq, [l]))
        seq += 1
    ev.sort(key=lambda e: (e[0], e[1]))
    F["slurm-%d.out" % jid] = render([x for _t, _s, ls in ev for x in ls])
    for rk in range(w.world):
        F["sanitizer/sanitizer.%d.log" % rk] = sanitizer_log(w, rk)
    st = "COMPLETED" if w.healthy else {"preemption": "PREEMPTED" if w.sub == "preempt" else "TIMEOUT", "straggler": "CANCELLED+", "host_oom_kill": "OUT_OF_ME+"}.get(w.cause, "FAILED")
    ec = "0:0" if w.healthy or st in ("PREEMPTED", "TIMEOUT") else ("0:125" if st == "OUT_OF_ME+" else "1:0")
    F["sacct.txt"] = ("       JobID    JobName  Partition    Account  AllocCPUS      State ExitCode \n------------ ---------- ---------- ---------- ---------- ---------- -------- \n"
                      "%-12d %10s %10s %10s %10d %10s %8s \n%-12s %10s %10s %10s %10d %10s %8s \n%-12s %10s %10s %10s %10d %10s %8s \n" % (
                          jid, (w.model + "-debug")[:10], "gpu", "mlres", w.world * 16, st, ec,
                          "%d.batch" % jid, "batch", "", "mlres", 64, st if st != "CANCELLED+" else "CANCELLED", ec,
                          "%d.0" % jid, "bash", "", "mlres", w.world * 16, "COMPLETED" if w.healthy else ("OUT_OF_ME+" if st == "OUT_OF_ME+" else "CANCELLED+"), "0:0" if w.healthy else "0:15"))
    for n in range(w.nnodes):
        F["dmesg/%s.txt" % w.hosts[n]] = fmt_dmesg(w, n, kern[n])
    return F


LAYOUT_FN = {"nccl_all_torchrun": layout_nccl_all_torchrun, "nccl_debug_file": layout_nccl_debug_file,
             "flight_recorder": layout_flight_recorder, "pyspy_strace": layout_pyspy_strace,
             "slurm_sanitizer": layout_slurm_sanitizer}


def shrink(F, limit):
    """keep a bundle under `limit` bytes by cutting the middle of the largest text files (as a user would)"""
    def size():
        return sum(len(v) if isinstance(v, bytes) else len(v.encode()) for v in F.values())
    guard = 0
    while size() > limit and guard < 200:
        guard += 1
        name = max((k for k, v in F.items() if isinstance(v, str)), key=lambda k: len(F[k]))
        lines = F[name].split("\n")
        if len(lines) < 60:
            break
        keep_head = int(len(lines) * 0.30)
        keep_tail = int(len(lines) * 0.45)
        F[name] = "\n".join(lines[:keep_head] + ["[... %d lines removed before uploading (file too large) ...]" % (len(lines) - keep_head - keep_tail)] + lines[-keep_tail:])
    return F


def make_run(outdir, i, cause, layout, seed):
    rng = random.Random("blind45:%s:%d" % (seed, i))
    w = World(rng, cause, layout, "%s-%d" % (seed, i))
    w.coll_window = max(8, 1500 // w.world)
    F = LAYOUT_FN[layout](w)
    F = shrink(F, MAX_RUN_BYTES - 4000)
    d = os.path.join(outdir, "run-%03d-%s" % (i, layout))
    if os.path.exists(d):
        shutil.rmtree(d)
    for name in sorted(F):
        p = os.path.join(d, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        v = F[name]
        with open(p, "wb") as fh:
            fh.write(v if isinstance(v, bytes) else v.encode())
    with open(os.path.join(d, "truth.json"), "w") as fh:
        json.dump(w.truth(), fh, indent=2)
        fh.write("\n")
    return w


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    order = list(CAUSES)
    random.Random("blind45-order:%s" % a.seed).shuffle(order)
    counts = {}
    k = 0
    for i in range(a.n):
        if i % 7 == 3:
            cause = None
            layout = LAYOUTS[(i // 7) % len(LAYOUTS)]
        else:
            cause = order[k % len(order)]
            layout = LAYOUTS[(k + k // len(order)) % len(LAYOUTS)]
            k += 1
        make_run(a.out, i, cause, layout, a.seed)
        key = cause or "healthy"
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps({c: counts[c] for c in ["healthy"] + CAUSES if c in counts}, indent=1))


if __name__ == "__main__":
    main()
