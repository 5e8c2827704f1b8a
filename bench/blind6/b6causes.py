"""Cause-specific scenarios."""
import b6lines as L
from b6base import Scenario, Piece
from b6lines import Out
from b6world import f_comma, f_glog, f_ctime

# ------------------------------------------------------------------------------- helpers


def gpu_uuid(rng):
    h = "%032x" % rng.getrandbits(128)
    return f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def py_exc_lines(sc, r, t, frames_kind, exc_lines, key=True, o=None):
    w, rng = sc.w, sc.rng
    tb = L.traceback(L.tb_frames(w, rng, frames_kind), exc_lines,
                     rank_prefix=f"[rank{r}]: " if sc.rank_tb_prefix else None)
    if o is not None:
        for i, x in enumerate(tb):
            o.add(t, x, key=key and (i == len(tb) - len(exc_lines) or x.strip() in [e.strip() for e in exc_lines[:1]]))
    return tb


def mark_last(o, n=1):
    """Mark the last n lines of an Out as key."""
    for i in range(len(o.items) - n, len(o.items)):
        t, s, text, k, st = o.items[i]
        o.items[i] = (t, s, text, True, st)


# ================================================================================= GPU hardware

class GpuHardware(Scenario):
    cause = "gpu_hardware"
    drain = True

    def setup(self):
        rng, w = self.rng, self.w
        self.variant = rng.choice(["xid79", "xid79", "xid79_silent", "gsp119", "xid79_aer"])
        c = rng.randrange(w.world)
        self.set_culprit(c)
        n = self.cnode
        pci = w.pci(c)
        t = self.t_fault
        pid = w.pid(c)
        pname = rng.choice(["python", "python3", "pt_main_thread", "python3.10"])
        self.pname = pname
        uuid = gpu_uuid(rng)
        if self.variant in ("xid79", "xid79_silent", "xid79_aer"):
            if self.variant == "xid79_aer":
                self.kev(n, t - 0.02, f"pcieport 0000:{pci[0]}0:01.0: AER: Uncorrected (Fatal) error received: 0000:{pci}:00.0")
                self.kev(n, t - 0.02, f"nvidia 0000:{pci}:00.0: AER: PCIe Bus Error: severity=Uncorrected (Fatal), type=Inaccessible, (Unregistered Agent ID)")
            self.kev(n, t, f"NVRM: GPU at PCI:0000:{pci}:00: {uuid}")
            self.kev(n, t, f"NVRM: GPU Board Serial Number: 16523{rng.randint(10000000, 99999999)}")
            if rng.random() < 0.6:
                self.kev(n, t, L.xid_text(pci, 79, None, None, "GPU has fallen off the bus."), key=True)
            else:
                self.kev(n, t, L.xid_text(pci, 79, pid, pname, "GPU has fallen off the bus."), key=True)
            self.kev(n, t, f"NVRM: GPU 0000:{pci}:00.0: GPU has fallen off the bus.", key=True)
            self.kev(n, t + 0.01, "NVRM: A GPU crash dump has been created. If possible, please run")
            self.kev(n, t + 0.01, "NVRM: nvidia-bug-report.sh as root to collect this data before")
            self.kev(n, t + 0.01, "NVRM: the NVIDIA kernel module is unloaded.")
            self.notes = f"GPU {w.local(c)} (PCI {pci}) of {w.hosts[n].name} fell off the bus (Xid 79)"
        else:
            for k in range(rng.randint(2, 5)):
                tt = t + k * rng.uniform(6, 45)
                fn = rng.choice([(76, "GSP_RM_CONTROL", "0x20800a4c 0x4"), (10, "FREE", "0x5c00014d 0x0"),
                                 (103, "GSP_RM_ALLOC", "0x90f1 0x0")])
                self.kev(n, tt, L.xid_text(pci, 119, pid, pname,
                                           f"Timeout after {rng.choice([6, 6, 45])}s of waiting for RPC response from GPU{w.local(c)} GSP! "
                                           f"Expected function {fn[0]} ({fn[1]}) ({fn[2]})."), key=(k == 0))
                self.kev(n, tt, f"NVRM: GPU{w.local(c)} GSP RPC buffer contains function {fn[0]} ({fn[1]}) and data "
                                f"0x0000000020800a4c 0x0000000000000004.")
                self.kev(n, tt, f"NVRM: GPU{w.local(c)} RPC history (CPU -> GSP):")
            if w.driver >= "550":
                self.kev(n, t + 200, L.xid_text(pci, 154, None, None,
                                                "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)"), key=True)
            self.notes = f"GSP firmware of GPU {w.local(c)} on {w.hosts[n].name} stopped responding (Xid 119)"
        self.required = [[f"dmesg_n{n}"]] if self.variant == "gsp119" else [[f"dmesg_n{n}", f"smi_n{n}"]]
        # previous harmless Xid on another node, weeks ago (decoy)
        if rng.random() < 0.3 and w.nnodes > 1:
            dn = (n + 1) % w.nnodes
            self.kev(dn, w.t0 - rng.uniform(3600, 3600 * 24 * 20),
                     L.xid_text(rng.choice(w.hosts[dn].pcis), 13, rng.randint(1000, 99999), "python",
                                "Graphics SM Warp Exception on (GPC 2, TPC 1, SM 0): Out Of Range Address"))
        self.hints = [f"nvidia-smi on {w.hosts[n].name} shows the GPU as ERR!" if rng.random() < 0.3 else
                      f"{w.hosts[n].name} got drained by the admins afterwards"]

    def culprit_fate(self):
        if self.variant in ("xid79_silent", "gsp119"):
            return dict(kind="hung", t=self.t_fault, t_stop=self.t_fault, culprit=True)
        return dict(kind="cudaerr", t=self.t_fault + self.rng.uniform(0.05, 3), exit=self.rng.choice([1, -6]), culprit=True)

    def culprit_lines(self, o, r):
        f = self.fates[r]
        w, rng = self.w, self.rng
        if f["kind"] == "hung":
            return
        msg = rng.choice(["unspecified launch failure", "unknown error", "an illegal memory access was encountered"
                          if rng.random() < 0.2 else "unspecified launch failure"])
        self.cuda_msg = msg
        if self.nccl_debug:
            o.add(f["t"] - 0.01, L.nccl_warn(w, r, f"enqueue.cc:{rng.choice([1047, 1128, 1534])}", f"Cuda failure '{msg}'", proxy=False), key=True)
        if f["exit"] == 1:
            py_exc_lines(self, r, f["t"], rng.choice(["backward", "forward", "step"]),
                         ["RuntimeError: " + L.cuda_error_lines(w, msg)[0]] + L.cuda_error_lines(w, msg)[1:], o=o)
        else:
            L.watchdog_error(w, rng, o, r, f["t"], L.cuda_error_lines(w, msg), kind="cuda", key=True)

    def build_pieces(self):
        w, rng = self.w, self.rng
        n = self.cnode
        c = self.culprit
        states = ["idle"] * w.gpn
        lost = w.local(c)
        if self.variant == "gsp119":
            states = ["idle"] * w.gpn
            states[lost] = "busy"
        else:
            states[lost] = rng.choice(["err", "missing"])
        lines = []
        if self.variant != "gsp119":
            lines.append(L.smi_unable(w, n, lost))
            if rng.random() < 0.4:
                lines = [f"$ nvidia-smi"] + lines
        else:
            lines.append("$ nvidia-smi")
            lines.append("(hangs for ~2 minutes, then:)")
        body = L.nvidia_smi(w, rng, n, states, t=self.t_end_job + 600)
        lines += body
        self.extra[f"smi_n{n}"] = Piece(f"smi_n{n}", "smi", [(x, ("Unable" in x or "ERR!" in x)) for x in lines],
                                         node=n, title=f"nvidia-smi on {w.hosts[n].name} after the crash", lang="console")
        self.extra[f"dmesg_n{n}"] = self.kernel_piece(n)
        return super().build_pieces()


# ================================================================================= ECC

class EccMemory(Scenario):
    cause = "ecc_memory"
    drain = True

    def setup(self):
        rng, w = self.rng, self.w
        c = rng.randrange(w.world)
        self.set_culprit(c)
        n = self.cnode
        pci = w.pci(c)
        t = self.t_fault
        pid = w.pid(c)
        pn = rng.choice(["python", "python3", "pt_main_thread"])
        self.variant = rng.choice(["xid48", "xid94", "xid95", "xid63_48"])
        if self.variant == "xid48":
            self.kev(n, t, L.xid_text(pci, 48, pid, pn, f"An uncorrectable double bit error (DBE) has been detected on GPU in the "
                                                         f"framebuffer at partition {rng.randint(0, 11)}, subpartition {rng.randint(0, 1)}."), key=True)
            self.kev(n, t + 0.001, L.xid_text(pci, 45, pid, pn, "Ch 00000008"))
        elif self.variant == "xid94":
            self.kev(n, t, L.xid_text(pci, 94, pid, pn, "Contained: SM (0x1). RST: No, D-RST: No"), key=True)
        elif self.variant == "xid95":
            self.kev(n, t, L.xid_text(pci, 95, pid, pn, "Uncontained: FBHUB. RST: Yes, D-RST: No"), key=True)
            self.kev(n, t + 0.5, L.xid_text(pci, 154, None, None, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)"))
        else:
            self.kev(n, t - rng.uniform(5, 400), L.xid_text(pci, 63, None, None,
                                                            f"Row Remapper: New row (0x{rng.getrandbits(32):016x}) marked for remapping, reset gpu to activate."), key=True)
            self.kev(n, t, L.xid_text(pci, 48, pid, pn, "An uncorrectable double bit error (DBE) has been detected on GPU in the "
                                                          f"framebuffer at partition {rng.randint(0, 11)}, subpartition 0."), key=True)
        self.notes = f"uncorrectable ECC error ({self.variant}) on GPU {w.local(c)} of {w.hosts[n].name}"
        self.required = [[f"dmesg_n{n}", f"smiq_n{n}"] + self.rank_piece_names()]

    def rank_piece_names(self):
        return [f"rank{self.culprit}", "console", f"console_n{self.cnode}"]

    def culprit_fate(self):
        return dict(kind="cudaerr", t=self.t_fault + self.rng.uniform(0.01, 2), exit=self.rng.choice([1, -6, -6]), culprit=True)

    def culprit_lines(self, o, r):
        f = self.fates[r]
        w, rng = self.w, self.rng
        msg = "uncorrectable ECC error encountered"
        if self.nccl_debug and rng.random() < 0.5:
            o.add(f["t"] - 0.01, L.nccl_warn(w, r, f"proxy.cc:{rng.choice([1511, 1562])}", f"Cuda failure '{msg}'", proxy=False), key=True)
        if f["exit"] == 1:
            py_exc_lines(self, r, f["t"], rng.choice(["backward", "forward", "step"]),
                         ["RuntimeError: " + L.cuda_error_lines(w, msg)[0]] + L.cuda_error_lines(w, msg)[1:], o=o)
        else:
            L.watchdog_error(w, rng, o, r, f["t"], L.cuda_error_lines(w, msg), kind="cuda", key=True)

    def build_pieces(self):
        w, rng = self.w, self.rng
        n = self.cnode
        g = w.local(self.culprit)
        pcs = w.hosts[n].pcis[g % len(w.hosts[n].pcis)].upper()
        q = [f"$ nvidia-smi -q -i {g} -d ECC,ROW_REMAPPER", "",
             "==============NVSMI LOG==============", "",
             f"Timestamp                                 : {f_ctime(w.local_dt(self.t_end_job + 900, n))}",
             f"Driver Version                            : {w.driver}", f"CUDA Version                              : 12.{rng.choice([2, 4, 6])}", "",
             "Attached GPUs                             : %d" % w.gpn,
             f"GPU 00000000:{pcs}:00.0",
             "    ECC Mode",
             "        Current                           : Enabled",
             "        Pending                           : Enabled",
             "    ECC Errors",
             "        Volatile",
             "            SRAM Correctable              : 0",
             "            SRAM Uncorrectable Parity     : 0",
             "            SRAM Uncorrectable SEC-DED    : 0",
             f"            DRAM Correctable              : {rng.randint(0, 40)}",
             f"            DRAM Uncorrectable            : {rng.randint(1, 4)}",
             "        Aggregate",
             "            SRAM Correctable              : 0",
             "            SRAM Uncorrectable Parity     : 0",
             "            SRAM Uncorrectable SEC-DED    : 0",
             f"            DRAM Correctable              : {rng.randint(40, 900)}",
             f"            DRAM Uncorrectable            : {rng.randint(1, 9)}",
             "    Remapped Rows",
             "        Correctable Error                 : 0",
             f"        Uncorrectable Error               : {rng.randint(1, 5)}",
             "        Pending                           : Yes",
             f"        Remapping Failure Occurred        : {rng.choice(['No', 'No', 'Yes'])}",
             "        Bank Remap Availability Histogram",
             "            Max                           : 639 bank(s)",
             "            High                          : 0 bank(s)",
             "            Partial                       : 0 bank(s)",
             "            Low                           : 0 bank(s)",
             "            None                          : 0 bank(s)"]
        keyset = ("DRAM Uncorrectable", "Pending                           : Yes", "Remapping Failure Occurred        : Yes")
        self.extra[f"smiq_n{n}"] = Piece(f"smiq_n{n}", "smi", [(x, any(k in x for k in keyset) and "Volatile" not in x) for x in q],
                                          node=n, title=f"nvidia-smi -q on {w.hosts[n].name}", lang="console")
        self.extra[f"dmesg_n{n}"] = self.kernel_piece(n)
        return super().build_pieces()


# ================================================================================= NVLink

class NvLink(Scenario):
    cause = "nvlink"
    drain = True

    def setup(self):
        rng, w = self.rng, self.w
        self.variant = rng.choice(["xid74", "xid74", "sxid"]) if w.gpn == 8 else "xid74"
        n = rng.randrange(w.nnodes)
        t = self.t_fault
        if self.variant == "xid74":
            c = rng.choice(w.ranks_on(n))
            self.set_culprit(c)
            pci = w.pci(c)
            link = rng.randint(0, 17)
            regs = ["0x0"] * 7
            regs[rng.randrange(7)] = rng.choice(["0x10000", "0x200000", "0x100", "0x80000"])
            self.kev(n, t, L.xid_text(pci, 74, w.pid(c), "python",
                                      f"NVLink: fatal error detected on link {link}({', '.join(regs)})"), key=True)
            if rng.random() < 0.5:
                self.kev(n, t + 0.01, L.xid_text(pci, 74, w.pid(c), "python",
                                                 f"NVLink: fatal error detected on link {(link + 1) % 18}({', '.join(regs)})"))
            self.notes = f"NVLink fatal error (Xid 74) on GPU {w.local(c)} of {w.hosts[n].name}"
            self.bad_ranks = [c] + ([x for x in w.ranks_on(n) if x != c][:1] if rng.random() < 0.5 else [])
        else:
            self.set_node_culprit(n)
            sw = rng.randint(0, 3)
            spci = rng.choice(["05", "06", "07", "08"])
            port = rng.randint(0, 63)
            code, desc = rng.choice([(24007, "sourcetrack timeout error"), (12028, "egress non-posted PRIV error"),
                                     (20034, "LTSSM Fault Up"), (22013, "Minion Link DLREQ interrupt")])
            self.kev(n, t, f"nvidia-nvswitch{sw}: SXid (PCI:0000:{spci}:00.0): {code}, Fatal, Link {port} {desc} (First)", key=True)
            self.kev(n, t, f"nvidia-nvswitch{sw}: SXid (PCI:0000:{spci}:00.0): {code}, Severity 1 Engine instance {port} Sub-engine instance 00")
            self.kev(n, t, f"nvidia-nvswitch{sw}: SXid (PCI:0000:{spci}:00.0): {code}, Data {{0x00000000, 0x00000000, 0x00000000, 0x00000000}}")
            for c in w.ranks_on(n)[:rng.randint(1, 3)]:
                self.kev(n, t + 0.02, L.xid_text(w.pci(c), 74, w.pid(c), "python",
                                                 f"NVLink: fatal error detected on link {rng.randint(0, 17)}(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)"))
            self.notes = f"fatal NVSwitch SXid {code} on {w.hosts[n].name}"
            self.bad_ranks = w.ranks_on(n)[:rng.randint(2, w.gpn)]
            self.fm = (sw, spci, port, code)
        self.required = [[f"dmesg_n{n}", "fmlog"]]

    def culprit_fate(self):
        rng = self.rng
        out = {}
        for i, r in enumerate(self.bad_ranks):
            out[r] = dict(kind="cudaerr", t=self.t_fault + 0.05 + i * rng.uniform(0.01, 0.3), exit=-6, culprit=True)
        return out

    def culprits(self):
        return self.bad_ranks

    def culprit_lines(self, o, r):
        f = self.fates[r]
        w, rng = self.w, self.rng
        msg = "uncorrectable NVLink error detected during the execution"
        if self.nccl_debug:
            o.add(f["t"] - 0.01, L.nccl_warn(w, r, f"proxy.cc:{rng.choice([1511, 1562])}", f"Cuda failure '{msg}'", proxy=False), key=True)
            o.add(f["t"] - 0.01, L.nccl_info(w, r, f"proxy.cc:{rng.choice([1523, 1574])} -> 1"))
        L.watchdog_error(w, rng, o, r, f["t"], L.cuda_error_lines(w, msg), kind="cuda", key=True)

    def build_pieces(self):
        w, rng = self.w, self.rng
        n = self.cnode
        self.extra[f"dmesg_n{n}"] = self.kernel_piece(n)
        if self.variant == "sxid":
            sw, spci, port, code = self.fm
            d = w.local_dt(self.t_fault, n)
            ts = f"[{d.strftime('%b %d %Y %H:%M:%S')}]"
            fm = [f"{ts} [INFO] [tid {rng.randint(1000, 9000)}] Fabric Manager version {w.driver} is running with the following configuration options",
                  f"{ts} [ERROR] [tid {rng.randint(1000, 9000)}] detected NVSwitch fatal error {code} on fid 0 on NVSwitch pci bus id 00000000:{spci}:00.0 physical id {sw} port {port}",
                  f"{ts} [ERROR] [tid {rng.randint(1000, 9000)}] Fatal error occurred on NVSwitch port(s) {port} on NVSwitch 0000:{spci}:00.0. Partition 0 state is set to Degraded"]
            self.extra["fmlog"] = Piece("fmlog", "misc", [(x, "fatal error" in x) for x in fm], node=n,
                                        title="/var/log/fabricmanager.log", fname="fabricmanager.log")
        else:
            ns = ["$ nvidia-smi nvlink --status -i %d" % w.local(self.culprit),
                  f"GPU {w.local(self.culprit)}: {w.gpu[0]} (UUID: {gpu_uuid(rng)})"]
            for k in range(18 if "H1" in w.gpu[0] else 12):
                ns.append(f"\t Link {k}: " + ("<inactive>" if rng.random() < 0.15 else "26.562 GB/s"))
            self.extra["nvlstatus"] = Piece("nvlstatus", "smi", [(x, False) for x in ns], node=n,
                                            title=f"nvlink status on {w.hosts[n].name}", lang="console")
        return super().build_pieces()


# ================================================================================= network

class Network(Scenario):
    cause = "network"

    def setup(self):
        rng, w = self.rng, self.w
        if w.nnodes < 2:
            self.variant = "nic"
        else:
            self.variant = rng.choice(["nic", "nic", "eth", "fabric"])
        self.peer_mode = "remote"
        t = self.t_fault
        if self.variant == "fabric":
            self.drain = False
            self.truth_rank = None
            self.truth_node = None
            self.cnode = rng.randrange(w.nnodes)
            self.culprit = None
            sw = rng.choice(["leaf-07", "ib-spine-03", "sw-ib-l1-12", "leaf12", "qm9700-r4-u38"])
            self.switch = sw
            for n in rng.sample(range(w.nnodes), min(w.nnodes, rng.randint(2, 4))):
                h = w.hosts[n]
                dev = rng.choice(h.ib_devs)
                bus = rng.choice(["0c", "1a", "3b", "5e", "86", "ad"])
                self.kev(n, t + rng.uniform(-0.5, 0.5), f"mlx5_core 0000:{bus}:00.0: Port module event: module {rng.randint(0, 7)}, Cable plugged")
                self.kev(n, t + rng.uniform(-0.5, 0.5), f"{dev}: Port: 1 Link DOWN", key=True)
                self.kev(n, t + rng.uniform(20, 90), f"{dev}: Port: 1 Link ACTIVE")
            self.notes = f"InfiniBand switch {sw} rebooted; links of several nodes went down at once"
            self.hints = [rng.choice([f"Our admins told us that switch {sw} crashed and rebooted at around that time.",
                                      f"the fabric team says {sw} went down for a few minutes (firmware bug?)",
                                      "we saw link flaps on several nodes at the same time, is this the IB fabric?"])]
            self.required = [["hint"], [f"dmesg_n{x}" for x in sorted(self.kernel_events)]]
            self.rank_inferable = False
        else:
            self.drain = True
            n = rng.randrange(w.nnodes)
            self.set_node_culprit(n)
            h = w.hosts[n]
            bus = rng.choice(["0c", "1a", "3b", "5e", "86", "ad", "c1"])
            self.bus = bus
            if self.variant == "nic":
                dev = rng.choice(h.ib_devs)
                self.ibdev = dev
                form = rng.choice(["health", "module", "link"])
                if form == "health":
                    self.kev(n, t, f"mlx5_core 0000:{bus}:00.0: poll_health:{rng.choice([800, 815, 835])}:(pid 0): Fatal error 1 detected", key=True)
                    self.kev(n, t, f"mlx5_core 0000:{bus}:00.0: print_health_info:{rng.choice([424, 431])}:(pid 0): assert_var[0] 0x00000000")
                    self.kev(n, t, f"mlx5_core 0000:{bus}:00.0: print_health_info:{rng.choice([427, 434])}:(pid 0): assert_exit_ptr 0x00abc123")
                    self.kev(n, t + 0.1, f"mlx5_core 0000:{bus}:00.0: mlx5_trigger_health_work:{rng.choice([736, 741])}:(pid 0): new health works are blocked")
                    self.kev(n, t + 1, f"{dev}: Port: 1 Link DOWN", key=True)
                elif form == "module":
                    self.kev(n, t, f"mlx5_core 0000:{bus}:00.0: Port module event[error]: module {rng.randint(0, 7)}, Cable error, "
                                   f"{rng.choice(['High Temperature', 'Bus stuck (I2C or data shorted)', 'Power budget exceeded'])}", key=True)
                    self.kev(n, t + 0.2, f"{dev}: Port: 1 Link DOWN", key=True)
                else:
                    self.kev(n, t, f"mlx5_core 0000:{bus}:00.0 {rng.choice(['ibp12s0', 'ib0', 'ens1f0np0', 'ibs3'])}: Link down", key=True)
                    for k in range(rng.randint(1, 4)):
                        self.kev(n, t + 20 * (k + 1), f"mlx5_core 0000:{bus}:00.0 {rng.choice(['ibp12s0', 'ib0'])}: Link up")
                        self.kev(n, t + 20 * (k + 1) + 3, f"mlx5_core 0000:{bus}:00.0 {rng.choice(['ibp12s0', 'ib0'])}: Link down")
                self.notes = f"InfiniBand HCA {dev} of {h.name} failed (link down)"
                self._net = "IB"
            else:
                if w.scheme == "aws" or h.name.startswith("ip-"):
                    self.kev(n, t, f"ena 0000:00:{rng.choice(['06', '07', '08'])}.0 eth0: Found a Tx that wasn't completed on time, qid {rng.randint(0, 31)}, index {rng.randint(0, 1023)}. {rng.randint(1, 9)} usecs have passed since last napi execution. Missing Tx timeout value 5000 msecs", key=True)
                    self.kev(n, t + 2, f"ena 0000:00:06.0: Keep alive watchdog timeout.", key=True)
                    self.kev(n, t + 2, "ena 0000:00:06.0: Trigger reset is on")
                    self.kev(n, t + 9, "ena 0000:00:06.0: Device reset completed successfully, Driver info: Elastic Network Adapter (ENA) v2.8.0g")
                else:
                    drv = rng.choice(["i40e", "ixgbe", "ice", "bnxt_en"])
                    self.kev(n, t, f"{drv} 0000:{bus}:00.0 {rng.choice(['eth0', 'eno1', 'ens3f0'])}: NIC Link is Down", key=True)
                    self.kev(n, t + rng.uniform(60, 400), f"{drv} 0000:{bus}:00.0 eth0: NIC Link is Up, 100 Gbps Full Duplex, Flow Control: None")
                self.notes = f"Ethernet NIC of {h.name} dropped (driver reset)"
                self._net = "Socket"
            self.required = [[f"dmesg_n{n}", "ibstat"]]
            self.hints = [rng.choice([f"{h.name} had a link down according to the admins",
                                      f"ibstat on {h.name} showed the port Down afterwards",
                                      f"errors on every node mention {h.ip}"])]

    def culprit_fate(self):
        rng, w = self.rng, self.w
        out = {}
        if self.variant == "fabric":
            # every rank fails around t_fault with NCCL IB errors
            for r in range(w.world):
                out[r] = dict(kind="neterr", t=self.t_fault + rng.uniform(0.1, 8), exit=-6, culprit=True)
            return out
        # culprit node's ranks fail first
        for r in w.ranks_on(self.cnode):
            out[r] = dict(kind="neterr", t=self.t_fault + rng.uniform(0.2, 6), exit=-6, culprit=True, own=True)
        # peers fail with remote errors pointing to the culprit
        for r in range(w.world):
            if r not in out:
                out[r] = dict(kind="neterr", t=self.t_fault + rng.uniform(0.5, 25), exit=-6, culprit=True, own=False)
        return out

    def culprits(self):
        return list(self.fates.keys()) if self.fates else [self.culprit]

    def must_ranks(self):
        w = self.w
        if self.variant == "fabric":
            return self.rng.sample(range(w.world), min(4, w.world))
        return [w.ranks_on(self.cnode)[0], w.ranks_on(self.cnode)[-1]]

    def culprit_lines(self, o, r):
        w, rng = self.w, self.rng
        f = self.fates[r]
        t = f["t"]
        if self.variant == "fabric":
            peer = w.hosts[rng.choice([n for n in range(w.nnodes) if n != w.node_of(r)] or [0])].ip
            if self.nccl_debug:
                src, msg = L.nccl_ib_completion_error(w, rng, r, peer, status=12, vendor=129)
                o.add(t - 0.1, L.nccl_warn(w, r, src, msg), key=True)
                for x in L.nccl_error_chain(w, rng, r):
                    o.add(t - 0.1, x)
            else:
                msg = None
            L.watchdog_error(w, rng, o, r, t, [f"NCCL error: remote process exited or there was a network error, NCCL version {w.nccl}",
                                               "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."]
                             + (["Last error:", msg] if msg else []), kind="nccl", key=not self.nccl_debug)
            return
        ch = w.hosts[self.cnode]
        if f["own"]:
            if self.net() == "IB":
                if self.nccl_debug:
                    if w.nccl >= "2.19":
                        o.add(t - 1, L.nccl_warn(w, r, f"transport/net_ib.cc:{rng.choice([112, 125])}", f"NET/IB : {self.ibdev}:1 Got async event : port error"), key=True)
                    else:
                        o.add(t - 1, L.nccl_warn(w, r, "transport/net_ib.cc:123", "NET/IB : Got async event : port error"), key=True)
                    peer = w.hosts[rng.choice([n for n in range(w.nnodes) if n != self.cnode])].ip
                    src, msg = L.nccl_ib_completion_error(w, rng, r, peer, status=rng.choice([12, 5]), vendor=rng.choice([129, 249]), direction="Send")
                    o.add(t - 0.5, L.nccl_warn(w, r, src, msg))
                    for x in L.nccl_error_chain(w, rng, r):
                        o.add(t - 0.5, x)
                    last = msg
                else:
                    last = None
            else:
                peer = w.hosts[rng.choice([n for n in range(w.nnodes) if n != self.cnode])]
                msg = f"socketProgressOpt: Call to recv from {peer.ip}<{rng.randint(32768, 60999)}> failed : Connection timed out"
                if self.nccl_debug:
                    o.add(t - 0.5, L.nccl_warn(w, r, f"misc/socket.cc:{rng.choice([49, 61])}", msg, proxy=False), key=True)
                last = msg if self.nccl_debug else None
            L.watchdog_error(w, rng, o, r, t, [f"NCCL error: remote process exited or there was a network error, NCCL version {w.nccl}",
                                               "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."]
                             + (["Last error:", last] if last else []), kind="nccl")
        else:
            self.remote_error_lines(o, r, t, key=True)

    def build_pieces(self):
        w, rng = self.w, self.rng
        if self.variant == "fabric":
            self.extra["hint"] = Piece("hint", "hint", [(self.hints[0], True)])
            for n in sorted(self.kernel_events):
                self.extra[f"dmesg_n{n}"] = self.kernel_piece(n)
        else:
            n = self.cnode
            self.extra[f"dmesg_n{n}"] = self.kernel_piece(n)
            if self.net() == "IB" and self.variant == "nic":
                st = [f"$ ibstat {self.ibdev}", f"CA '{self.ibdev}'", "\tCA type: MT4129", "\tNumber of ports: 1",
                      "\tFirmware version: 28.39.1002", "\tHardware version: 0", f"\tNode GUID: 0x{rng.getrandbits(64):016x}",
                      f"\tSystem image GUID: 0x{rng.getrandbits(64):016x}", "\tPort 1:", "\t\tState: Down",
                      "\t\tPhysical state: Polling", "\t\tRate: 10", "\t\tBase lid: 65535", "\t\tLMC: 0", "\t\tSM lid: 0",
                      "\t\tCapability mask: 0xa751e848", f"\t\tPort GUID: 0x{rng.getrandbits(64):016x}", "\t\tLink layer: InfiniBand"]
                self.extra["ibstat"] = Piece("ibstat", "misc", [(x, "State: Down" in x) for x in st], node=n,
                                             title=f"ibstat on {w.hosts[n].name}", lang="console")
            if self.rng.random() < 0.5:
                self.extra["hint"] = Piece("hint", "hint", [(self.hints[0], True)])
        return super().build_pieces()


# ================================================================================= host OOM kill

class HostOom(Scenario):
    cause = "host_oom_kill"

    def setup(self):
        rng, w = self.rng, self.w
        opts = ["kernel", "dlworker"]
        if self.stack in ("slurm_srun", "slurm_torchrun"):
            opts += ["slurm", "slurm"]
        if self.stack == "k8s":
            opts += ["k8s", "k8s", "k8s"]
        self.variant = rng.choice(opts)
        if self.variant == "k8s" and rng.random() < 0.5:
            # the whole container is OOM-killed (memory.oom.group): a pod-level fault
            self.rank_inferable = False
            self.set_node_culprit(rng.randrange(w.nnodes))
        else:
            self.set_culprit(rng.randrange(w.world))
        c = self.culprit
        n = self.cnode
        t = self.t_fault
        rss = rng.randint(60, 220) * 1024 * 1024 // rng.choice([1, 2])
        cg = None
        if self.variant == "slurm":
            cg = f"/slurm/uid_{rng.randint(1000, 60000)}/job_{w.job_id}"
        elif self.variant == "k8s":
            cg = f"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod{rng.getrandbits(32):08x}_{rng.getrandbits(16):04x}.slice"
        if self.variant == "dlworker":
            self.wpid = w.pid(c) + rng.randint(100, 900)
            pname = "pt_data_worker" if w.tv >= (2, 0) else "python"
            for x in L.oom_kill_block(w, rng, n, self.wpid, pname, rss // 8, cgroup=cg):
                self.kev(n, t, x, key=("Killed process" in x))
        else:
            pname = rng.choice(["python", "python3", "pt_main_thread"])
            for x in L.oom_kill_block(w, rng, n, w.pid(c), pname, rss, cgroup=cg):
                self.kev(n, t, x, key=("Killed process" in x))
        self.notes = f"rank {c} on {w.hosts[n].name} killed by the Linux OOM killer ({self.variant})"
        if self.variant == "k8s":
            self.notes = f"container of pod {w.hosts[n].name} OOMKilled by its memory limit" + \
                ("" if self.rank_inferable else " (whole container killed at once)")
        grp = [f"dmesg_n{n}"]
        if self.variant == "slurm":
            grp += ["console", "summary"]
        if self.variant == "k8s":
            grp += ["k8s_describe"]
        self.required = [grp]
        if self.variant == "dlworker":
            # "killed by signal: Killed" on the rank, the OOM killer's line in dmesg
            self.required = [[f"dmesg_n{n}"], [f"rank{c}", "console", f"console_n{n}"]]
        self.peer_mode = self.rng.choice(["timeout", "remote"])

    def culprit_fate(self):
        if self.variant == "dlworker":
            return dict(kind="exc", t=self.t_fault + self.rng.uniform(0.1, 5), exit=1, culprit=True)
        if self.variant == "k8s" and not self.rank_inferable:
            # memory.oom.group: every process of the container goes at once, the agent too
            self.agent_dead = {self.cnode}
            return {r: dict(kind="killed9", t=self.t_fault + 0.001 * i, exit=-9, culprit=True)
                    for i, r in enumerate(self.w.ranks_on(self.cnode))}
        return dict(kind="killed9", t=self.t_fault, exit=-9, culprit=True,
                    srun_how="Out Of Memory" if self.variant == "slurm" else None)

    def culprit_lines(self, o, r):
        f = self.fates[r]
        w, rng = self.w, self.rng
        if self.variant == "dlworker":
            py_exc_lines(self, r, f["t"], "data",
                         [f"RuntimeError: DataLoader worker (pid {self.wpid}) is killed by signal: Killed. "], o=o)

    def table_is_key(self, n):
        return n == self.cnode

    def srun_key(self):
        return True

    def launcher_out(self):
        o = super().launcher_out()
        w, rng = self.w, self.rng
        if self.variant == "slurm":
            t = self.t_fault + rng.uniform(1, 20)
            o.add(t, f"slurmstepd: error: Detected 1 oom_kill event in StepId={w.job_id}.0. Some of the step tasks have been OOM Killed.", key=True)
        return o

    def build_pieces(self):
        w, rng = self.w, self.rng
        n = self.cnode
        self.extra[f"dmesg_n{n}"] = self.kernel_piece(n)
        if self.variant == "k8s":
            h = w.hosts[n]
            d0 = w.local_dt(w.t0, n)
            d1 = w.local_dt(self.t_fault, n)
            fmt = lambda d: f"{['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'][d.weekday()]}, {d.day:02d} {d.strftime('%b %Y %H:%M:%S')} +0000"
            desc = [f"$ kubectl describe pod {h.name}", f"Name:             {h.name}",
                    f"Namespace:        {rng.choice(['ml-training', 'default', 'team-llm', 'kubeflow'])}",
                    "Priority:         0", f"Node:             {h.k8s_node}/{h.ip.rsplit('.', 1)[0]}.{rng.randint(2, 250)}",
                    f"Start Time:       {fmt(d0)}",
                    "Labels:           training.kubeflow.org/job-role=worker",
                    f"                  training.kubeflow.org/replica-index={n}",
                    "Status:           Failed", f"IP:               {h.ip}", "Containers:", "  pytorch:",
                    f"    Image:          nvcr.io/nvidia/pytorch:{rng.choice(['23.10', '24.03', '24.07'])}-py3",
                    "    State:          Terminated", "      Reason:       OOMKilled", "      Exit Code:    137",
                    f"      Started:      {fmt(d0)}", f"      Finished:     {fmt(d1)}", "    Ready:          False",
                    "    Restart Count:  0", "    Limits:", f"      memory:          {rng.choice([256, 480, 900, 1000])}Gi",
                    f"      nvidia.com/gpu:  {w.gpn}", "    Requests:", f"      memory:          {rng.choice([200, 400])}Gi",
                    f"      nvidia.com/gpu:  {w.gpn}", "Events:                      <none>"]
            self.extra["k8s_describe"] = Piece("k8s_describe", "k8s", [(x, "OOMKilled" in x or x.startswith("Name:")) for x in desc],
                                               node=n, title=f"kubectl describe pod {h.name}", lang="console")
        return super().build_pieces()


# ================================================================================= CUDA OOM

class CudaOom(Scenario):
    cause = "cuda_oom"

    def setup(self):
        rng, w = self.rng, self.w
        c = rng.randrange(w.world)
        self.set_culprit(c)
        self.variant = rng.choice(["new", "old", "nccl", "new"])
        self.notes = f"rank {c} ran out of GPU memory ({self.variant} message)"
        self.required = [[f"rank{c}", "console", f"console_n{self.cnode}", "summary"]]

    def culprit_fate(self):
        f = dict(kind="exc", t=self.t_fault, exit=1, culprit=True)
        return f

    def oom_msg(self, r):
        w, rng = self.w, self.rng
        name, mem, tag, cap = w.gpu
        capf = float(cap)
        req = rng.choice(["20.00 MiB", "2.00 GiB", "1.53 GiB", "768.00 MiB", "11.72 GiB", "128.00 MiB", "4.00 GiB"])
        free = rng.uniform(0.01, 1.5)
        if self.variant == "old" or w.tv < (2, 1):
            cls = "torch.cuda.OutOfMemoryError" if w.tv >= (1, 13) else "RuntimeError"
            return (f"{cls}: CUDA out of memory. Tried to allocate {req} (GPU {w.local(r)}; {capf:.2f} GiB total capacity; "
                    f"{capf - free - 1.1:.2f} GiB already allocated; {free * 1024:.2f} MiB free; {capf - free - 0.3:.2f} GiB reserved in total by PyTorch) "
                    "If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for "
                    "Memory Management and PYTORCH_CUDA_ALLOC_CONF")
        cls = "torch.OutOfMemoryError" if w.tv >= (2, 5) else "torch.cuda.OutOfMemoryError"
        return (f"{cls}: CUDA out of memory. Tried to allocate {req}. GPU {w.local(r)} has a total capacity of {capf:.2f} GiB of which "
                f"{free * 1024:.2f} MiB is free. Including non-PyTorch memory, this process has {capf - free:.2f} GiB memory in use. Of the "
                f"allocated memory {capf - free - 2.3:.2f} GiB is allocated by PyTorch, and {rng.uniform(0.2, 2):.2f} GiB is reserved by PyTorch "
                "but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to "
                "avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")

    def culprit_lines(self, o, r):
        f = self.fates[r]
        w, rng = self.w, self.rng
        if self.variant == "nccl":
            p = L.nccl_pfx(w, r)
            o.add(f["t"] - 0.01, f"{p} include/alloc.h:{rng.choice([48, 124, 185])} NCCL WARN Cuda failure 'out of memory'", key=True)
            o.add(f["t"] - 0.01, f"{p} NCCL INFO include/alloc.h:{rng.choice([49, 125])} -> 1")
            o.add(f["t"] - 0.01, f"{p} NCCL INFO channel.cc:{rng.choice([40, 41])} -> 1")
            lines = L.nccl_dist_error(w, "cuda", last="Cuda failure 'out of memory'",
                                      where=f"../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:{rng.choice([1691, 1970, 2006])}")
            py_exc_lines(self, r, f["t"], "allreduce", lines, o=o)
            mark_last(o, 2)
        else:
            py_exc_lines(self, r, f["t"], rng.choice(["forward", "backward", "backward", "step"]), [self.oom_msg(r)], o=o)
            f["tb_summary"] = None

    def table_is_key(self, n):
        return n == self.cnode and self.rng.random() < 0.0


# ================================================================================= illegal memory access

class IllegalMem(Scenario):
    cause = "illegal_memory_access"

    def setup(self):
        rng, w = self.rng, self.w
        c = rng.randrange(w.world)
        self.set_culprit(c)
        self.variant = rng.choice(["py", "watchdog", "watchdog", "misaligned"])
        n = self.cnode
        if rng.random() < 0.5:
            pci = w.pci(c)
            if rng.random() < 0.5:
                self.kev(n, self.t_fault - 0.001, L.xid_text(pci, 31, w.pid(c), "python",
                         f"Ch 0000{rng.randint(10, 99)}, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_{rng.randint(0, 7)} faulted @ "
                         f"0x7f{rng.getrandbits(8):02x}_{rng.getrandbits(32):08x}. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ"))
            else:
                self.kev(n, self.t_fault - 0.001, L.xid_text(pci, 13, w.pid(c), "python",
                         f"Graphics SM Warp Exception on (GPC {rng.randint(0, 7)}, TPC {rng.randint(0, 8)}, SM {rng.randint(0, 1)}): Out Of Range Address"))
                self.kev(n, self.t_fault - 0.001, L.xid_text(pci, 13, w.pid(c), "python",
                         f"Graphics Exception: ESR 0x5{rng.getrandbits(20):05x}=0x{rng.getrandbits(28):x} 0x5{rng.getrandbits(20):05x}=0x20 0x5{rng.getrandbits(20):05x}=0x0"))
            self.kev(n, self.t_fault + 2, L.xid_text(pci, 43, w.pid(c), "python", "Ch 00000010"))
        self.notes = f"rank {c} hit an illegal memory access in a CUDA kernel ({self.variant})"
        self.required = [[f"rank{c}", "console", f"console_n{n}"]]

    def culprit_fate(self):
        return dict(kind="cudaerr", t=self.t_fault, exit=1 if self.variant in ("py", "misaligned") else -6, culprit=True)

    def culprit_lines(self, o, r):
        f = self.fates[r]
        w, rng = self.w, self.rng
        msg = "misaligned address" if self.variant == "misaligned" else "an illegal memory access was encountered"
        if f["exit"] == 1:
            py_exc_lines(self, r, f["t"], rng.choice(["forward", "backward"]),
                         ["RuntimeError: " + L.cuda_error_lines(w, msg)[0]] + L.cuda_error_lines(w, msg)[1:], o=o)
        else:
            if self.nccl_debug and rng.random() < 0.5:
                o.add(f["t"] - 0.001, L.nccl_warn(w, r, f"proxy.cc:{rng.choice([1511, 1562])}", f"Cuda failure '{msg}'", proxy=False), key=True)
            L.watchdog_error(w, rng, o, r, f["t"], L.cuda_error_lines(w, msg), kind="cuda", key=True)

    def build_pieces(self):
        if self.cnode in self.kernel_events:
            self.extra[f"dmesg_n{self.cnode}"] = self.kernel_piece(self.cnode)
        return super().build_pieces()


# ================================================================================= python exception

class PyException(Scenario):
    cause = "python_exception"

    EXCS = [
        ("data", lambda sc: [f"FileNotFoundError: Caught FileNotFoundError in DataLoader worker process {sc.rng.randint(0, 7)}.",
                             "Original Traceback (most recent call last):",
                             f'  File "{sc.w.site}/torch/utils/data/_utils/worker.py", line 308, in _worker_loop',
                             "    data = fetcher.fetch(index)",
                             f'  File "{sc.w.workdir}/data/shards.py", line {sc.rng.randint(40, 200)}, in __getitem__',
                             "    with open(path, \"rb\") as f:",
                             f"FileNotFoundError: [Errno 2] No such file or directory: '/data/tokenized/train/shard_{sc.rng.randint(0, 4096):05d}.bin'"]),
        ("forward", lambda sc: [f"RuntimeError: The size of tensor a ({sc.rng.choice([4096, 2048, 8192])}) must match the size of tensor b "
                                f"({sc.rng.choice([4097, 2049, 8193])}) at non-singleton dimension 1"]),
        ("data", lambda sc: ["KeyError: Caught KeyError in DataLoader worker process 0.",
                             "Original Traceback (most recent call last):",
                             f'  File "{sc.w.site}/torch/utils/data/_utils/worker.py", line 308, in _worker_loop',
                             "    data = fetcher.fetch(index)",
                             f'  File "{sc.w.workdir}/dataset.py", line {sc.rng.randint(40, 200)}, in __getitem__',
                             "    text = sample[\"text\"]",
                             "KeyError: 'text'"]),
        ("forward", lambda sc: ["AssertionError: sequence length 8193 exceeds max_position_embeddings 8192"]),
        ("step", lambda sc: ["ValueError: Expected parameter loc (Tensor of shape (32, 1)) of distribution Normal(loc: torch.Size([32, 1]), "
                             "scale: torch.Size([32, 1])) to satisfy the constraint Real(), but found invalid values:"]),
        ("forward", lambda sc: ["TypeError: forward() got an unexpected keyword argument 'attention_mask'"]),
        ("data", lambda sc: ["UnicodeDecodeError: 'utf-8' codec can't decode byte 0x8b in position 1: invalid start byte"]),
        ("ckpt", lambda sc: [f"OSError: [Errno 28] No space left on device: '{sc.w.workdir}/checkpoints/step_{sc.fault_step}/optim_rank{sc.culprit}.pt'"]),
        ("forward", lambda sc: ["IndexError: index 32000 is out of bounds for dimension 0 with size 32000"]),
        ("data", lambda sc: ["json.decoder.JSONDecodeError: Unterminated string starting at: line 1 column 1048571 (char 1048570)"]),
    ]

    def setup(self):
        rng, w = self.rng, self.w
        c = rng.randrange(w.world)
        self.set_culprit(c)
        self.exc = rng.choice(self.EXCS)
        self.exc_lines = self.exc[1](self)
        self.record = rng.random() < 0.4
        self.notes = f"rank {c} raised {self.exc_lines[-1].split(':')[0]}"
        self.required = [[f"rank{c}", "console", f"console_n{self.cnode}", "summary"]]

    def culprit_fate(self):
        f = dict(kind="exc", t=self.t_fault, exit=1, culprit=True)
        return f

    def culprit_lines(self, o, r):
        f = self.fates[r]
        exc = self.exc_lines
        tb = py_exc_lines(self, r, f["t"], self.exc[0], exc, o=o)
        mark_last(o, 1)
        if self.record and self.stack in ("torchrun", "slurm_torchrun", "k8s", "accelerate"):
            f["tb_summary"] = "\n".join([x for x in tb][-12:])
            f["error_file"] = f"/tmp/torchelastic_{self.rng.getrandbits(32):08x}/none_{self.rng.getrandbits(24):06x}/attempt_0/{self.w.local(r)}/error.json"

    def table_is_key(self, n):
        return n == self.cnode and self.record


# ================================================================================= crash signal

class CrashSignal(Scenario):
    cause = "crash_signal"

    def setup(self):
        rng, w = self.rng, self.w
        c = rng.randrange(w.world)
        self.set_culprit(c)
        self.variant = rng.choice(["segv_fh", "segv_silent", "sigbus_shm", "abort_heap", "segv_fh"])
        n = self.cnode
        if self.variant in ("segv_fh", "segv_silent"):
            lib = rng.choice(["flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so", "libtorch_cpu.so", "libc.so.6",
                              "_C.cpython-311-x86_64-linux-gnu.so", "libgomp-a34b3233.so.1", "apex_C.cpython-310-x86_64-linux-gnu.so"])
            ip = L.hexaddr(rng)
            self.kev(n, self.t_fault, f"{rng.choice(['python', 'pt_main_thread', 'python3'])}[{w.pid(c)}]: segfault at {rng.choice(['0', '8', '18', '7f3a00000000', '10'])} "
                                      f"ip {ip[2:]} sp 00007ff{rng.getrandbits(36):09x} error {rng.choice([4, 6, 14])} in {lib}[{ip[2:11]}000+{rng.getrandbits(24):x}]", key=True)
            self.kev(n, self.t_fault, f"Code: {' '.join('%02x' % rng.getrandbits(8) for _ in range(20))} <48> 8b 07 {' '.join('%02x' % rng.getrandbits(8) for _ in range(8))}")
            self.sig = -11
        elif self.variant == "sigbus_shm":
            self.sig = 1
        else:
            self.sig = -6
        self.notes = f"rank {c} crashed with {self.variant}"
        self.required = [[f"rank{c}", "console", f"console_n{n}", "summary", f"dmesg_n{n}"]]

    def culprit_fate(self):
        return dict(kind="signal", t=self.t_fault, exit=self.sig, culprit=True)

    def culprit_lines(self, o, r):
        f = self.fates[r]
        w, rng = self.w, self.rng
        t = f["t"]
        if self.variant == "segv_fh":
            th = "0x%012x" % (0x7f0000000000 + rng.getrandbits(36))
            fr = [("forward", f"{w.site}/flash_attn/flash_attn_interface.py", rng.choice([96, 165, 488])),
                  ("forward", f"{w.workdir}/model/attention.py", rng.randint(80, 300)),
                  ("_call_impl", f"{w.site}/torch/nn/modules/module.py", 1541),
                  ("_wrapped_call_impl", f"{w.site}/torch/nn/modules/module.py", 1532),
                  ("train", f"{w.workdir}/{w.script}", rng.randint(150, 300)),
                  ("main", f"{w.workdir}/{w.script}", rng.randint(300, 400)),
                  ("<module>", f"{w.workdir}/{w.script}", rng.randint(400, 700))]
            o.add(t, "Fatal Python error: Segmentation fault", key=True)
            o.add(t, "")
            o.add(t, f"Thread {('0x%012x' % (0x7f0000000000 + rng.getrandbits(36)))} (most recent call first):")
            o.add(t, f'  File "/usr/lib/python{w.pyver}/threading.py", line 324 in wait')
            o.add(t, f'  File "/usr/lib/python{w.pyver}/threading.py", line 607 in wait')
            o.add(t, f'  File "{w.site}/tqdm/_monitor.py", line 60 in run')
            o.add(t, "")
            o.add(t, f"Current thread {th} (most recent call first):")
            for fn, p, ln in fr:
                o.add(t, f'  File "{p}", line {ln} in {fn}')
            o.add(t, "")
            o.add(t, "Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, torch._C, torch._C._fft, "
                     "torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special, yaml._yaml, "
                     "sentencepiece._sentencepiece (total: 31)")
        elif self.variant == "sigbus_shm":
            o.add(t - 0.5, "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).", key=True)
            py_exc_lines(self, r, t, "data", [
                f"RuntimeError: DataLoader worker (pid {w.pid(r) + rng.randint(50, 600)}) is killed by signal: Bus error. It is possible "
                "that dataloader's workers are out of shared memory. Please try to raise your shared memory limit."], o=o)
        elif self.variant == "abort_heap":
            o.add(t, rng.choice(["double free or corruption (!prev)", "free(): invalid pointer", "malloc(): unsorted double linked list corrupted",
                                 "corrupted size vs. prev_size"]), key=True)
        # segv_silent: nothing from the process itself

    def table_is_key(self, n):
        return n == self.cnode and self.variant.startswith("segv")

    def srun_key(self):
        return self.variant.startswith("segv")

    def mpirun_key(self):
        return self.variant.startswith("segv")


# ================================================================================= hang

class Hang(Scenario):
    cause = "hang"

    def setup(self):
        rng, w = self.rng, self.w
        c = rng.randrange(1, w.world) if w.world > 1 else 0
        self.set_culprit(c)
        opts = ["fr", "desync", "pyspy", "none"]
        if w.world <= 16:
            opts += ["tails", "tails"]
        if self.stack in ("slurm_srun", "slurm_torchrun"):
            opts.append("scancel")
        self.variant = rng.choice(opts)
        if self.variant == "desync":
            self.desync_debug = True
        if self.variant not in ("tails", "scancel"):
            # the user does not know which rank is stuck
            self.hidden_pieces = {f"rank{c}"}
        if self.variant == "scancel":
            self.timeout_ms = rng.choice([7200000, 10800000, 5400000])
        self.stuck_where = rng.choice(["sync", "ckpt_barrier", "gloo", "lock", "eval"])
        self.notes = f"rank {c} stopped making progress ({self.stuck_where}); others time out in {self.op}; evidence: {self.variant}"
        n = self.cnode
        if self.variant == "fr":
            self.required = [["fr"]]
        elif self.variant == "desync":
            self.required = [["console", "console_n0", "rank0"]]
        elif self.variant == "pyspy":
            self.required = [["pyspy"]]
            self.rank_inferable = rng.random() < 0.5
        elif self.variant == "tails":
            self.required = [["tails"]]
        elif self.variant == "scancel":
            self.required = [["pyspy"]]
        else:
            self.rank_inferable = False
            self.required = [["hint"]]
            self.hints = [rng.choice([f"It always hangs on {w.hosts[n].name}: when I ssh there one GPU sits at 100% util while all the others are at 0%.",
                                      f"py-spy shows every process waiting in all_reduce except one process on {w.hosts[n].name}, which is somewhere else.",
                                      f"If I exclude {w.hosts[n].name} from the allocation the job runs fine."])]

    def culprit_fate(self):
        return dict(kind="hung", t=self.t_fault, t_stop=self.t_fault, culprit=True)

    def compute_fates(self):
        super().compute_fates()
        if self.variant == "scancel":
            # the user cancels long before the NCCL timeout fires
            tc = self.t_fault + self.rng.uniform(1200, 3000)
            self.t_cancel = tc
            for r, f in self.fates.items():
                f["kind"] = "killed" if r != self.culprit else "hung"
                f["t"] = tc + 0.2
                f["t_kill"] = tc + 0.2
                f["exit"] = -15
            self.t_end_job = tc + 35

    def stuck_ranks(self):
        return [self.culprit]

    def launcher_out(self):
        if self.variant == "scancel":
            w = self.w
            o = Out()
            for n in range(w.nnodes):
                o.add(self.t_cancel, L.slurm_cancel(w, n, self.t_cancel, kind="job"))
            o.add(self.t_cancel + 0.5, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
            o.add(self.t_cancel + 0.5, f"srun: forcing job termination")
            return o
        return super().launcher_out()

    def pyspy_frames(self, culprit=True):
        w, rng = self.w, self.rng
        s = w.site
        main = f"{w.workdir}/{w.script}"
        if not culprit:
            return [("wait (torch/distributed/distributed_c10d.py:%d)" % rng.choice([2219, 2501]), f"{s}/torch/distributed/distributed_c10d.py", 0)]
        where = self.stuck_where
        if where == "sync":
            fr = [("synchronize", f"{s}/torch/cuda/__init__.py", rng.choice([783, 792, 801])),
                  ("log_metrics", f"{w.workdir}/utils/logging.py", rng.randint(20, 90))]
        elif where == "ckpt_barrier":
            fr = [("_wait_for_tstate_lock", f"/usr/lib/python{w.pyver}/threading.py", 1116),
                  ("join", f"/usr/lib/python{w.pyver}/threading.py", 1096),
                  ("save_checkpoint", f"{w.workdir}/utils/checkpoint.py", rng.randint(50, 200))]
        elif where == "gloo":
            fr = [("barrier", f"{s}/torch/distributed/distributed_c10d.py", rng.choice([3439, 3696, 4159])),
                  ("wrapper", f"{s}/torch/distributed/c10d_logger.py", 72),
                  ("gather_eval_stats", f"{w.workdir}/eval.py", rng.randint(30, 120))]
        elif where == "lock":
            fr = [("acquire (lock)", f"/usr/lib/python{w.pyver}/threading.py", 0),
                  ("emit", f"/usr/lib/python{w.pyver}/logging/__init__.py", 1100),
                  ("log_rank", f"{w.workdir}/utils/dist_utils.py", rng.randint(10, 80))]
        else:
            fr = [("evaluate", f"{w.workdir}/eval.py", rng.randint(50, 200))]
        fr += [("train", main, rng.randint(150, 300)), ("main", main, rng.randint(300, 400)), ("<module>", main, rng.randint(400, 700))]
        return [(a, b, c) for a, b, c in fr]

    def build_pieces(self):
        w, rng = self.w, self.rng
        c = self.culprit
        n = self.cnode
        if self.variant == "fr":
            seq = self.seq
            rep = [f"$ torchfrtrace --prefix \"nccl_trace_rank_\" /tmp/fr_dumps/ -j"] if rng.random() < 0.5 else \
                  [f"$ python -m torch.distributed.flight_recorder.fr_trace /shared/{w.user}/fr/ --prefix nccl_trace_rank_"]
            rep += L.fr_trace_report(w, rng, seq, seq - 1, self.op, [c], w.world)
            self.extra["fr"] = Piece("fr", "analysis", [(x, "missing ranks" in x) for x in rep], title="flight recorder analysis",
                                     lang="console")
        if self.variant in ("pyspy", "scancel"):
            lines = []
            if self.variant == "scancel" or rng.random() < 0.5:
                lines.append(f"# rank 0 ({w.hosts[0].name}, pid {w.pid(0)})")
                fr0 = [("all_reduce", f"{w.site}/torch/distributed/distributed_c10d.py", rng.choice([2219, 2501])),
                       ("wrapper", f"{w.site}/torch/distributed/c10d_logger.py", 72),
                       ("train", f"{w.workdir}/{w.script}", rng.randint(150, 300))]
                lines += L.pyspy_dump(w, rng, 0, fr0, idle_threads=False)
                lines.append("")
            label = f"# rank {c} ({w.hosts[n].name}, pid {w.pid(c)})" if self.rank_inferable or self.variant == "scancel" \
                else f"# the odd one out, on {w.hosts[n].name} (pid {w.pid(c)})"
            lines.append(label)
            lines += L.pyspy_dump(w, rng, c, self.pyspy_frames(True), idle_threads=rng.random() < 0.5)
            self.extra["pyspy"] = Piece("pyspy", "analysis", [(x, x.startswith("# rank " + str(c)) or x.startswith("# the odd")) for x in lines],
                                        node=n, title="py-spy dump", lang="text")
            if self.variant == "scancel":
                self.rank_inferable = True
        if self.variant == "tails":
            pass  # composed by the paste layer from rank files
        if self.variant == "none":
            self.extra["hint"] = Piece("hint", "hint", [(self.hints[0], True)])
        return super().build_pieces()


# ================================================================================= collective mismatch

class CollMismatch(Scenario):
    cause = "collective_mismatch"

    def setup(self):
        rng, w = self.rng, self.w
        c = rng.randrange(1, w.world) if w.world > 2 else 1
        self.set_culprit(c)
        opts = ["detail", "detail", "op"]
        if w.tv >= (2, 1):
            opts.append("numel")
        self.variant = rng.choice(opts)
        self.odd_op = rng.choice(["BROADCAST", "ALLGATHER", "BARRIER", "_ALLGATHER_BASE"]) if self.op == "ALLREDUCE" else "ALLREDUCE"
        self.odd_numel = self.numel + rng.choice([1, 256, -128, 4096]) if self.numel > 1024 else self.numel * 2
        self.notes = f"rank {c} issued a different collective ({self.variant}) than the other ranks"
        if self.variant == "detail":
            self.required = [["console", "console_n0", f"console_n{self.cnode}", "tails"]]
        else:
            # the odd rank's own timeout line, and a normal rank's for contrast
            self.required = [["console", f"console_n{self.cnode}", f"rank{c}", "tails"],
                             ["console", "console_n0", "rank0", "tails"] + [f"console_n{n}" for n in range(w.nnodes)]]
        if self.variant == "detail":
            self.peer_mode = "detail"

    def culprit_fate(self):
        if self.variant == "detail":
            return dict(kind="detail", t=self.t_fault, exit=1, culprit=True)
        return dict(kind="odd", t=self.t_fault + self.T() + self.rng.uniform(0, 2), t_stop=self.t_fault, exit=-6, culprit=True)

    def compute_fates(self):
        super().compute_fates()
        if self.variant == "detail":
            rng = self.rng
            for r in range(self.w.world):
                if r != self.culprit:
                    self.fates[r] = dict(kind="detail", t=self.t_fault + rng.uniform(0, 0.5), exit=1)
            ends = [f["t"] for f in self.fates.values()]
            self.t_end_job = max(ends) + 5

    def fp(self, op, shape):
        dt = self.rng.choice(["Float", "BFloat16"]) if not hasattr(self, "_dt") else self._dt
        self._dt = dt
        return (f"CollectiveFingerPrint(SequenceNumber={self.seq}, OpType={op}, TensorShape=[{shape}], TensorDtypes={dt}, "
                "TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false "
                "(default), pinned_memory=false (default), memory_format=(nullopt)))")

    def detail_msg(self, r):
        c = self.culprit
        odd = self.variant == "detail" and self.rng.random() < 0.0
        op_c, shape_c = self.odd_op, self.odd_numel
        if r == c:
            a, b = self.fp(op_c, shape_c), self.fp(self.op, self.numel)
            other = 0
            msg = (f"RuntimeError: Detected mismatch between collectives on ranks. Rank {c} is running collective: {a}, "
                   f"but Rank {other} is running collective: {b}.")
        else:
            a, b = self.fp(self.op, self.numel), self.fp(op_c, shape_c)
            msg = (f"RuntimeError: Detected mismatch between collectives on ranks. Rank {r} is running collective: {a}, "
                   f"but Rank {c} is running collective: {b}.")
        if self.w.tv >= (2, 1):
            msg += f"Collectives differ in the following aspects: \t Op type: {self.op if r != c else op_c}vs {op_c if r != c else self.op}"
        return msg

    def culprit_lines(self, o, r):
        self.peer_lines(o, r)

    def peer_lines(self, o, r):
        f = self.fates[r]
        w, rng = self.w, self.rng
        if f["kind"] == "detail":
            py_exc_lines(self, r, f["t"], rng.choice(["backward", "allreduce"]), [self.detail_msg(r)], o=o)
            mark_last(o, 1)
            return
        if f["kind"] == "odd" or (f["kind"] == "timeout"):
            L.watchdog_timeout(w, rng, o, r, f["t"], self.seq, self.op_for(r), self.numel_for(r), self.timeout_ms,
                               key=True, frames=rng.random() < 0.6)
            return
        super().peer_lines(o, r)

    def op_for(self, r):
        if r == self.culprit and self.variant == "op":
            return self.odd_op
        return self.op

    def numel_for(self, r):
        if r == self.culprit and self.variant == "numel":
            return self.odd_numel
        return self.numel


# ================================================================================= data loader stall

class DataStall(Scenario):
    cause = "data_loader_stall"

    def setup(self):
        rng, w = self.rng, self.w
        c = rng.randrange(w.world)
        self.set_culprit(c)
        self.variant = rng.choice(["faulthandler", "dl_timeout", "pyspy", "faulthandler", "dl_timeout"])
        self.fs = rng.choice(["lustre", "nfs", "s3", "gpfs"])
        n = self.cnode
        t = self.t_fault
        if self.fs == "lustre":
            ost = f"lustre-OST{rng.randint(0, 64):04x}"
            self.kev(n, t + 5, f"Lustre: {ost}-osc-ffff{rng.getrandbits(40):010x}: Connection to {ost} (at {rng.randint(10, 99)}.{rng.randint(0, 255)}.0.{rng.randint(2, 250)}@o2ib) "
                               "was lost; in progress operations using this service will wait for recovery to complete", key=True)
            self.kev(n, t + 130, f"LustreError: 167-0: {ost}-osc-ffff{rng.getrandbits(40):010x}: This client was evicted by {ost}; in progress "
                                 "operations using this service will fail.")
            self.path = f"/lustre/fs1/datasets/pile/train/{rng.randint(0, 29):02d}.jsonl.zst"
        elif self.fs == "nfs":
            srv = rng.choice(["nfs01", "fileserver2", "storage-a", "nas-3"])
            for k in range(rng.randint(2, 6)):
                self.kev(n, t + 30 + k * 181, f"nfs: server {srv} not responding, still trying", key=(k == 0))
            self.path = f"/mnt/{srv}/data/imagenet/train/n{rng.randint(1000000, 9999999):08d}/img_{rng.randint(1, 99999)}.JPEG"
        elif self.fs == "gpfs":
            self.path = f"/gpfs/scratch/datasets/c4/en/c4-train.{rng.randint(0, 1023):05d}-of-01024.json.gz"
        else:
            self.path = f"s3://ml-datasets-prod/tokenized/v3/shard-{rng.randint(0, 99999):06d}.tar"
        if self.fs in ("lustre", "nfs", "gpfs") and rng.random() < 0.6:
            wp = w.pid(c) + rng.randint(80, 500)
            self.kev(n, t + 245, f"INFO: task pt_data_worker:{wp} blocked for more than {rng.choice([120, 122, 241, 245])} seconds.", key=True)
            self.kev(n, t + 245, f"      Tainted: P           OE     {w.hosts[n].kernel} #1")
            self.kev(n, t + 245, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
            self.kev(n, t + 245, f"task:pt_data_worker state:D stack:0     pid:{wp}  ppid:{w.pid(c)} flags:0x00004002")
        self.dl_timeout = rng.choice([300, 600, 900, 1800])
        if self.variant == "dl_timeout" and self.dl_timeout * 1000 >= self.timeout_ms:
            self.timeout_ms = self.dl_timeout * 1000 * 2
        self.notes = f"rank {c} stuck reading {self.fs} data ({self.variant})"
        self.required = [[f"rank{c}", "console", f"console_n{n}", "pyspy"]]

    def culprit_fate(self):
        if self.variant == "dl_timeout":
            return dict(kind="exc", t=self.t_fault + self.dl_timeout, t_stop=self.t_fault, exit=1, culprit=True)
        return dict(kind="hung", t=self.t_fault, t_stop=self.t_fault, culprit=True)

    def dl_frames(self):
        w, rng = self.w, self.rng
        s = w.site
        main = f"{w.workdir}/{w.script}"
        io = {"lustre": [("read", f"{s}/zstandard/__init__.py", 0), ("_read_lines", f"{w.workdir}/data/jsonl_stream.py", rng.randint(30, 90))],
              "nfs": [("open", f"{s}/PIL/Image.py", rng.choice([3247, 3277])), ("pil_loader", f"{s}/torchvision/datasets/folder.py", 245)],
              "gpfs": [("read", f"/usr/lib/python{w.pyver}/gzip.py", 301), ("__iter__", f"{w.workdir}/data/c4.py", rng.randint(30, 90))],
              "s3": [("_read_ready", f"/usr/lib/python{w.pyver}/ssl.py", 1134), ("read", f"{s}/botocore/response.py", 99),
                     ("_fetch_shard", f"{w.workdir}/data/s3_stream.py", rng.randint(30, 90))]}[self.fs]
        return io

    def culprit_lines(self, o, r):
        f = self.fates[r]
        w, rng = self.w, self.rng
        if self.variant == "faulthandler":
            fr = [(fn, p, ln or rng.randint(50, 400)) for fn, p, ln in self.dl_frames()]
            fr += [("__getitem__", f"{w.workdir}/data/dataset.py", rng.randint(40, 160)),
                   ("fetch", f"{w.site}/torch/utils/data/_utils/fetch.py", 51),
                   ("_next_data", f"{w.site}/torch/utils/data/dataloader.py", 674),
                   ("__next__", f"{w.site}/torch/utils/data/dataloader.py", 630),
                   ("train", f"{w.workdir}/{w.script}", rng.randint(150, 300)),
                   ("main", f"{w.workdir}/{w.script}", rng.randint(300, 400)),
                   ("<module>", f"{w.workdir}/{w.script}", rng.randint(400, 700))]
            tmo = rng.choice(["0:05:00", "0:10:00", "0:15:00"])
            secs = int(tmo.split(":")[1]) * 60
            if secs * 1000 >= self.timeout_ms:
                tmo = "0:05:00"
                secs = 300
            for x in L.faulthandler_dump(w, rng, fr, timeout=tmo):
                o.add(self.t_fault + secs, x, key=x.startswith("Timeout") or "__getitem__" in x)
        elif self.variant == "dl_timeout":
            s = w.site
            main = f"{w.workdir}/{w.script}"
            inner = L.traceback([(f"{s}/torch/utils/data/dataloader.py", rng.choice([1133, 1243, 1251]), "_try_get_data",
                                  "data = self._data_queue.get(timeout=timeout)"),
                                 (f"/usr/lib/python{w.pyver}/multiprocessing/queues.py", 114, "get", "raise Empty")],
                                ["_queue.Empty"])
            frames = L.tb_frames(w, rng, "top") + [
                (main, rng.randint(150, 299), "train", "for step, batch in enumerate(train_loader):"),
                (f"{s}/torch/utils/data/dataloader.py", rng.choice([630, 631, 701]), "__next__", "data = self._next_data()"),
                (f"{s}/torch/utils/data/dataloader.py", rng.choice([1328, 1448, 1465]), "_next_data", "idx, data = self._get_data()"),
                (f"{s}/torch/utils/data/dataloader.py", rng.choice([1284, 1404, 1411]), "_get_data",
                 "success, data = self._try_get_data(self._timeout)"),
                (f"{s}/torch/utils/data/dataloader.py", rng.choice([1146, 1256, 1264]), "_try_get_data",
                 "raise RuntimeError(f'DataLoader timed out after {timeout} seconds') from e")]
            tb = L.traceback(frames, [f"RuntimeError: DataLoader timed out after {self.dl_timeout} seconds"],
                             rank_prefix=f"[rank{r}]: " if self.rank_tb_prefix else None, chained=inner)
            for i, x in enumerate(tb):
                o.add(f["t"], x, key=(i == len(tb) - 1))

    def build_pieces(self):
        w, rng = self.w, self.rng
        c, n = self.culprit, self.cnode
        if self.cnode in self.kernel_events:
            self.extra[f"dmesg_n{n}"] = self.kernel_piece(n)
        if self.variant == "pyspy":
            fr = [(fn, p, ln or rng.randint(50, 400)) for fn, p, ln in self.dl_frames()]
            fr = [("_try_get_data", f"{w.site}/torch/utils/data/dataloader.py", 1133) if rng.random() < 0.5 else
                  ("__getitem__", f"{w.workdir}/data/dataset.py", rng.randint(40, 160))] + fr[:0]
            main = [("get", f"/usr/lib/python{w.pyver}/multiprocessing/queues.py", 113)] if fr[0][0] == "_try_get_data" else []
            frames = main + fr + [("_next_data", f"{w.site}/torch/utils/data/dataloader.py", 1329),
                                  ("__next__", f"{w.site}/torch/utils/data/dataloader.py", 630),
                                  ("train", f"{w.workdir}/{w.script}", rng.randint(150, 300))]
            lines = [f"# rank {c} on {w.hosts[n].name}"]
            lines += L.pyspy_dump(w, rng, c, frames, idle_threads=False)
            wpid = w.pid(c) + rng.randint(100, 300)
            lines += ["", f"# its dataloader worker (pid {wpid})", f"Process {wpid}: {w.python} -u {w.workdir}/{w.script}",
                      f"Python v{w.pyver}.12 ({w.python})", "", f'Thread {wpid} (idle): "MainThread"']
            for fn, p, ln in self.dl_frames():
                lines.append(f"    {fn} ({p}:{ln or rng.randint(50, 400)})")
            lines += [f"    __getitem__ ({w.workdir}/data/dataset.py:{rng.randint(40, 160)})",
                      f"    fetch ({w.site}/torch/utils/data/_utils/fetch.py:51)",
                      f"    _worker_loop ({w.site}/torch/utils/data/_utils/worker.py:308)"]
            self.extra["pyspy"] = Piece("pyspy", "analysis", [(x, x.startswith("# rank") or "__getitem__" in x) for x in lines],
                                        node=n, title="py-spy dump of the stuck rank")
        return super().build_pieces()


# ================================================================================= preemption

class Preemption(Scenario):
    cause = "preemption"

    def setup(self):
        rng, w = self.rng, self.w
        opts = []
        if self.stack in ("slurm_srun", "slurm_torchrun"):
            opts += ["slurm_preempt", "time_limit", "slurm_preempt"]
        if self.stack == "k8s":
            opts += ["k8s_node", "k8s_node", "kueue"]
        if self.stack in ("torchrun", "deepspeed", "accelerate", "k8s", "ray") and w.nnodes > 1:
            opts += ["spot_node"]
        if not opts:
            opts = ["spot_node"] if w.nnodes > 1 else ["sigterm_job"]
        self.variant = rng.choice(opts)
        t = self.t_fault
        if self.variant in ("slurm_preempt", "time_limit", "kueue", "sigterm_job"):
            self.truth_rank = None
            self.truth_node = None
            self.cnode = 0
            self.culprit = None
            self.rank_inferable = False
            self.notes = {"slurm_preempt": "Slurm preempted the job", "time_limit": "job hit its Slurm time limit",
                          "kueue": "Kueue evicted the workload for a higher-priority one",
                          "sigterm_job": "the whole job was sent SIGTERM by the platform"}[self.variant]
        else:
            n = rng.randrange(w.nnodes)
            self.set_node_culprit(n)
            self.notes = f"node {w.hosts[n].name} was preempted / reclaimed (SIGTERM to its processes)"
        if self.variant in ("slurm_preempt", "time_limit"):
            self.required = [["console", "summary"]]
        elif self.variant == "k8s_node":
            self.required = [["k8s_describe", "k8s_events"]]
        elif self.variant == "kueue":
            self.required = [["k8s_events"]]
        elif self.variant == "spot_node":
            self.required = [["hint"], [f"console_n{self.cnode}", "console", "summary"]]
        else:
            self.required = [["console", "summary", f"console_n{self.cnode}"]]

    def culprit_fate(self):
        w, rng = self.w, self.rng
        out = {}
        t = self.t_fault
        if self.truth_node is None:
            for r in range(w.world):
                out[r] = dict(kind="sigterm", t=t + rng.uniform(0.01, 1.0) + w.node_of(r) * 0.01, exit=-15, culprit=True)
            self.agent_signal = {n: t + 0.005 for n in range(w.nnodes)}
        else:
            for r in w.ranks_on(self.cnode):
                out[r] = dict(kind="sigterm", t=t + rng.uniform(0.01, 1.0), exit=-15, culprit=True)
            self.agent_signal = {self.cnode: t}
        return out

    def culprits(self):
        if self.truth_node is None:
            return list(range(self.w.world))
        return self.w.ranks_on(self.cnode)

    def must_ranks(self):
        if self.truth_node is None:
            return [0]
        return [self.w.ranks_on(self.cnode)[0]]

    def culprit_lines(self, o, r):
        pass

    def launcher_out(self):
        w, rng = self.w, self.rng
        o = Out()
        t = self.t_fault
        if self.variant in ("slurm_preempt", "time_limit"):
            reason = "PREEMPTION" if self.variant == "slurm_preempt" else "TIME LIMIT"
            if self.stack == "slurm_srun":
                o.add(t, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
            for n in range(w.nnodes):
                o.add(t - 0.01, L.slurm_cancel(w, n, t, kind="job", reason=reason), key=True)
            o.add(t + 0.1, L.slurm_cancel(w, 0, t, kind="step", reason=reason))
            if self.variant == "slurm_preempt" and rng.random() < 0.5:
                o.add(t - 0.02, "slurmstepd: error: *** JOB %d STEPD TERMINATED ON %s AT %s DUE TO JOB NOT ENDING WITH SIGNALS ***" %
                      (w.job_id, w.hosts[0].name, w.local_dt(t + 120, 0).strftime("%Y-%m-%dT%H:%M:%S")) if False else
                      "srun: got SIGCONT")
            return o
        return super().launcher_out()

    def build_pieces(self):
        w, rng = self.w, self.rng
        n = self.cnode
        if self.variant in ("k8s_node", "kueue"):
            h = w.hosts[n]
            if self.variant == "k8s_node":
                ev = ["$ kubectl get events --sort-by=.lastTimestamp | tail",
                      "LAST SEEN   TYPE      REASON                 OBJECT                              MESSAGE",
                      f"14m         Normal    NodeShutdown           node/{h.k8s_node}   Node {h.k8s_node} status is now: NodeShutdown",
                      f"14m         Warning   NodeNotReady           pod/{h.name}   Node is not ready",
                      f"13m         Normal    Killing                pod/{h.name}   Stopping container pytorch",
                      f"12m         Warning   BackoffLimitExceeded   pytorchjob/{h.name.rsplit('-', 2)[0]}   Job has reached the specified backoff limit"]
                desc = [f"$ kubectl get pod {h.name} -o wide", "NAME   READY   STATUS       RESTARTS   AGE   IP   NODE",
                        f"{h.name}   0/1     Terminated   0          3h    {h.ip}   {h.k8s_node}", "",
                        f"$ kubectl describe pod {h.name} | grep -A3 Status",
                        "Status:           Failed", "Reason:           Terminated",
                        "Message:          Pod was terminated in response to imminent node shutdown."]
                self.extra["k8s_describe"] = Piece("k8s_describe", "k8s", [(x, "imminent node shutdown" in x) for x in desc], node=n,
                                                   title=f"kubectl on {h.name}", lang="console")
                self.extra["k8s_events"] = Piece("k8s_events", "k8s", [(x, "NodeShutdown" in x) for x in ev], node=n,
                                                 title="events", lang="console")
            else:
                ev = ["$ kubectl describe workload " + h.name.rsplit('-', 2)[0],
                      "Status:", "  Conditions:", "    Last Transition Time:  " + w.local_dt(self.t_fault, 0).strftime("%Y-%m-%dT%H:%M:%SZ"),
                      "    Message:               Preempted to accommodate a workload (UID: %s) due to prioritization in the ClusterQueue"
                      % ("%08x-%04x-%04x-%04x-%012x" % (rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(48))),
                      "    Reason:                Preempted", "    Status:                True", "    Type:                  Evicted"]
                self.extra["k8s_events"] = Piece("k8s_events", "k8s", [(x, "Preempted" in x) for x in ev], title="kueue workload",
                                                 lang="console")
        if self.variant == "spot_node":
            h = w.hosts[n]
            self.hints = [rng.choice([f"I think {h.name} was a spot instance that got reclaimed, it disappeared from the cluster right after.",
                                      f"The cloud console shows {h.name} as 'preempted' at that time.",
                                      f"Our autoscaler log says {h.name} received a termination notice."])]
            self.extra["hint"] = Piece("hint", "hint", [(self.hints[0], True)])
        return super().build_pieces()

    def table_is_key(self, n):
        return True

    def mpirun_key(self):
        return True

    def srun_key(self):
        return True


# ================================================================================= straggler

class Straggler(Scenario):
    cause = "straggler"

    def setup(self):
        rng, w = self.rng, self.w
        c = rng.randrange(w.world)
        self.set_culprit(c)
        self.variant = rng.choice(["breakdown", "thermal", "breakdown", "pcie"])
        self.slow = rng.uniform(1.4, 3.0)
        self.style = "perrank" if self.variant == "breakdown" else self.style
        self.notes = f"rank {c} on {w.hosts[self.cnode].name} is {self.slow:.1f}x slower ({self.variant}); job keeps running"
        if self.variant == "breakdown":
            self.required = [["console", f"console_n{self.cnode}", "tails"]]
        else:
            self.required = [["smiq_perf"]]
            self.rank_inferable = rng.random() < 0.4
        self.healthy = False

    def culprit_fate(self):
        return dict(kind="ok", t=self.t_fault, culprit=True)

    def compute_fates(self):
        w = self.w
        for r in range(w.world):
            self.fates[r] = dict(kind="ok", t=self.t_fault + 10 ** 6)
        self.fates[self.culprit]["culprit"] = True
        self.t_end_job = self.t_fault + self.rng.uniform(1800, 4 * 3600)

    def prints_progress(self, r):
        if self.style == "perrank":
            return True
        return super().prints_progress(r)

    def progress(self, o, r, t_a, t_b):
        # the job gets slower after t_fault
        w, rng = self.w, self.rng
        base = self.step_time
        slow_st = base * self.slow
        every = self.log_every
        n = w.node_of(r)
        t = max(t_a, self.t_fault - rng.randint(8, 20) * every * base)
        s = int((t - t_a) / base)
        loss = rng.uniform(1.8, 2.6)
        count = 0
        slow_idx = []
        while t < t_b and count < 70:
            st = base if t < self.t_fault else slow_st
            t += st * every
            s += every
            loss = max(0.8, loss + rng.uniform(-0.02, 0.015))
            d = w.local_dt(t, n)
            if self.style == "perrank":
                if r == self.culprit and t >= self.t_fault:
                    comp = base * self.slow * rng.uniform(0.93, 0.99)
                    wait = rng.uniform(0.001, 0.02)
                elif t >= self.t_fault:
                    comp = base * rng.uniform(0.90, 0.97)
                    wait = slow_st - comp
                else:
                    comp = base * rng.uniform(0.90, 0.97)
                    wait = base - comp
                line = (f"{f_comma(d)} [rank {r}] step {s} | loss {loss:.4f} | fwd_bwd {comp:.3f}s | "
                        f"allreduce_wait {wait:.3f}s | step {st:.3f}s")
                o.add(t, line, key=False)
                if r == self.culprit and t >= self.t_fault:
                    slow_idx.append(len(o.items) - 1)
            else:
                o.add(t, self.progress_line(r, n, t, s, 100000, loss, st), stream="out", key=False)
            count += 1
        for i in slow_idx[-4:]:
            tt, sq, text, _k, stv = o.items[i]
            o.items[i] = (tt, sq, text, True, stv)

    def peer_lines(self, o, r):
        pass

    def culprit_lines(self, o, r):
        pass

    def build_pieces(self):
        w, rng = self.w, self.rng
        n, c = self.cnode, self.culprit
        g = w.local(c)
        if self.variant in ("thermal", "pcie"):
            lines = [f"$ nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER -i {g}" if self.variant == "thermal" else f"$ nvidia-smi -q -i {g} | grep -A12 'GPU Link Info'",
                     "", "==============NVSMI LOG==============", "",
                     f"GPU 00000000:{w.hosts[n].pcis[g % len(w.hosts[n].pcis)].upper()}:00.0"]
            if self.variant == "thermal":
                lines += ["    Performance State                     : P0",
                          "    Clocks Event Reasons" if w.driver >= "535" else "    Clocks Throttle Reasons",
                          "        Idle                              : Not Active",
                          "        Applications Clocks Setting       : Not Active",
                          "        SW Power Cap                      : Not Active",
                          f"        HW Slowdown                       : {rng.choice(['Active', 'Active', 'Not Active'])}",
                          "            HW Thermal Slowdown           : Active",
                          "            HW Power Brake Slowdown       : Not Active",
                          "        Sync Boost                        : Not Active",
                          "        SW Thermal Slowdown               : Active",
                          "        Display Clock Setting             : Not Active",
                          "    Temperature",
                          f"        GPU Current Temp                  : {rng.randint(87, 95)} C",
                          "        GPU T.Limit Temp                  : N/A",
                          "        GPU Shutdown Temp                 : 92 C",
                          "        GPU Slowdown Temp                 : 87 C",
                          "        GPU Max Operating Temp            : 85 C",
                          f"        Memory Current Temp               : {rng.randint(80, 96)} C"]
                keyw = ("Thermal Slowdown           : Active", "SW Thermal Slowdown               : Active", "GPU Current Temp")
            else:
                lines += ["    GPU Link Info", "        PCIe Generation", "            Max                       : 5",
                          "            Current                   : 1", "            Device Current            : 1",
                          "            Device Max                : 5", "            Host Max                  : 5",
                          "        Link Width", "            Max                       : 16x",
                          f"            Current                   : {rng.choice(['2x', '4x', '8x'])}"]
                keyw = ("Current                   : 1", "Current                   : 2x", "Current                   : 4x", "Current                   : 8x")
            self.extra["smiq_perf"] = Piece("smiq_perf", "smi", [(x, any(k in x for k in keyw)) for x in lines], node=n,
                                            title=f"nvidia-smi -q on {w.hosts[n].name}, GPU {g}", lang="console")
            if self.rank_inferable:
                self.hints = [f"(GPU {g} on {w.hosts[n].name} is rank {c} in our launch order)"]
        return super().build_pieces()


# ================================================================================= healthy

class Healthy(Scenario):
    cause = None

    def setup(self):
        rng, w = self.rng, self.w
        self.variant = rng.choice(["noise", "restart", "nan_skip", "old_xid", "ckpt_pause", "noise", "cuda_oom_caught"])
        self.truth_rank = None
        self.truth_node = None
        self.cnode = 0
        self.culprit = None
        self.rank_inferable = False
        self.healthy = True
        self.t_fault = self.t_train + rng.uniform(3600, 20000)
        self.notes = {"noise": "healthy run that finished; only alarming-looking warnings",
                      "restart": "torchrun restarted the worker group once after a rendezvous hiccup and the run finished",
                      "nan_skip": "loss-scale overflow / NaN steps skipped, run finished",
                      "old_xid": "kernel log shows an Xid from an earlier job; this run finished fine",
                      "ckpt_pause": "long checkpoint pause, run continued and finished",
                      "cuda_oom_caught": "user code caught a CUDA OOM on one batch and skipped it; run finished"}[self.variant]
        if self.variant == "old_xid":
            n = rng.randrange(w.nnodes)
            self.oldn = n
            self.kev(n, w.t0 - rng.uniform(3600 * 6, 3600 * 24 * 9), L.xid_text(rng.choice(w.hosts[n].pcis), rng.choice([79, 48, 74, 119]),
                                                                                 rng.randint(1000, 99999), "python",
                                                                                 "GPU has fallen off the bus."))

    def culprit_fate(self):
        return {}

    def compute_fates(self):
        for r in range(self.w.world):
            self.fates[r] = dict(kind="ok", t=self.t_fault + 10 ** 6)
        self.t_end_job = self.t_fault + 30

    def progress(self, o, r, t_a, t_b):
        w, rng = self.w, self.rng
        super().progress(o, r, t_a, self.t_fault)
        n = w.node_of(r)
        t = self.t_fault
        d = w.local_dt(t, n)
        if self.variant == "nan_skip":
            for k in range(rng.randint(2, 6)):
                tt = t - rng.uniform(100, 3000)
                dd = w.local_dt(tt, n)
                o.add(tt, f"[{f_comma(dd)}] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. "
                          f"Attempted loss scale: {2 ** (16 - k)}, reducing to {2 ** (15 - k)}")
        if self.variant == "cuda_oom_caught":
            tt = t - rng.uniform(100, 3000)
            o.add(tt, f"WARNING: CUDA out of memory on batch {rng.randint(1000, 90000)} (seq_len={rng.choice([8192, 16384])}); skipping batch and emptying cache")
        if self.variant == "ckpt_pause":
            tt = t - rng.uniform(100, 3000)
            dd = w.local_dt(tt, n)
            o.add(tt, f"{f_comma(dd)} INFO Saving checkpoint to {w.workdir}/checkpoints/step_{rng.randint(1000, 50000)} ...")
            o.add(tt + 412, f"{f_comma(w.local_dt(tt + 412, n))} INFO Checkpoint saved in {rng.uniform(300, 560):.1f}s")
        o.add(t + 1, {"hf": "Training completed. Do not forget to share your model on huggingface.co/models =)",
                      "megatron": "[after training is done] datetime: " + d.strftime("%Y-%m-%d %H:%M:%S"),
                      "lightning": "`Trainer.fit` stopped: `max_steps=%d` reached." % rng.choice([10000, 50000, 100000]),
                      "nemo": "`Trainer.fit` stopped: `max_steps=%d` reached." % rng.choice([10000, 50000, 100000]),
                      "deepspeed": f"[{f_comma(d)}] [INFO] [launch.py:351:main] Process {w.pid(r)} exits successfully.",
                      "composer": "Run completed.", "jax": f"{f_glog(d)} {w.agent_pid(n)} train.py:480] Training finished.",
                      }.get(self.style, f"{f_comma(d)} INFO training finished, final loss {rng.uniform(1.2, 2.2):.4f}"), stream="out")

    def rank_extra(self, o, r):
        w, rng = self.w, self.rng
        if w.tv >= (2, 4) and rng.random() < 0.5:
            o.add(self.t_fault + 5, L.c10p(w, r, "W", self.t_fault + 5, "ProcessGroupNCCL.cpp", 1250) +
                  "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, "
                  "the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this "
                  "process. In rare cases this process can exit before this point and block the progress of another member of the process "
                  "group. This constraint has always been present,  but this warning has only recently been added since PyTorch 2.4 (function operator())")
        if self.nccl_debug and rng.random() < 0.4:
            harmless = [f"{L.nccl_pfx(w, r)} NCCL INFO Call to connect returned Connection refused, retrying",
                        f"{L.nccl_pfx(w, r)} NCCL INFO NCCL_IB_TIMEOUT set by environment to 22.",
                        f"{L.nccl_pfx(w, r)} NCCL INFO NET/IB : No device found.",
                        f"{L.nccl_pfx(w, r)} NCCL INFO Could not enable P2P between dev {w.local(r)}(=%s000) and dev 0(=%s000)" % (w.pci(r), w.pci(0)),
                        f"{L.nccl_pfx(w, r)} NCCL INFO NVLS multicast support is not available on dev {w.local(r)}",
                        f"{L.nccl_pfx(w, r)} NCCL INFO Failed to open libibverbs.so[.1]" if rng.random() < 0.3 else
                        f"{L.nccl_pfx(w, r)} NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin."]
            for x in rng.sample(harmless, 2):
                o.add(self.t_train - 15, x)
        if r == 0 and rng.random() < 0.4:
            o.add(self.t_fault + 6, "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f%010x>" % rng.getrandbits(40))
            o.add(self.t_fault + 6, "Traceback (most recent call last):")
            o.add(self.t_fault + 6, f'  File "{w.site}/torch/utils/data/dataloader.py", line 1477, in __del__')
            o.add(self.t_fault + 6, "    self._shutdown_workers()")
            o.add(self.t_fault + 6, f'  File "{w.site}/torch/utils/data/dataloader.py", line 1441, in _shutdown_workers')
            o.add(self.t_fault + 6, "    if self._persistent_workers or self._workers_status[worker_id]:")
            o.add(self.t_fault + 6, "AttributeError: '_MultiProcessingDataLoaderIter' object has no attribute '_workers_status'")

    def agent_out(self, n):
        w, rng = self.w, self.rng
        o = Out()
        for ln in L.torchrun_omp_banner(w, n, w.t0 + 1):
            o.add(w.t0 + 1, ln)
        if self.variant == "restart":
            t = w.t0 + rng.uniform(20, 200)
            mod = "torch.distributed.elastic.agent.server.api"
            o.add(t, L.agent_line(w, n, t, "W", "torch.distributed.elastic.multiprocessing.api",
                                  f"failed (exitcode: 1) local_rank: {rng.randrange(w.gpn)} (pid: {w.pid(0) - 40}) of binary: {w.python}", 869))
            o.add(t + 1, L.agent_line(w, n, t + 1, "I", mod, "[default] Worker group FAILED. 3/3 attempts left; will restart worker group", 738))
            o.add(t + 2, L.agent_line(w, n, t + 2, "I", mod, "[default] Stopping worker group", 567))
            o.add(t + 3, L.agent_line(w, n, t + 3, "I", mod, "[default] Rendezvous'ing worker group", 866))
            o.add(t + 9, L.agent_line(w, n, t + 9, "I", mod, "[default] Starting worker group", 734))
        t = self.t_end_job
        o.add(t, L.agent_line(w, n, t, "I", "torch.distributed.elastic.agent.server.api",
                              f"[default] worker group successfully finished. Waiting 300 seconds for other agents to finish.", 906))
        o.add(t + 1, L.agent_line(w, n, t + 1, "I", "torch.distributed.elastic.agent.server.api", "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish", 969))
        o.add(t + 2, L.agent_line(w, n, t + 2, "I", "torch.distributed.elastic.agent.server.api", f"Done waiting for other agents. Elapsed: {rng.uniform(0.001, 4):.4f} seconds", 983))
        return o

    def launcher_out(self):
        return Out()

    def summary_lines(self):
        return []

    def build_pieces(self):
        if self.variant == "old_xid":
            self.extra[f"dmesg_n{self.oldn}"] = self.kernel_piece(self.oldn, style="dmesgT")
        return super().build_pieces()


CAUSES = {
    "gpu_hardware": GpuHardware, "ecc_memory": EccMemory, "nvlink": NvLink, "network": Network,
    "host_oom_kill": HostOom, "cuda_oom": CudaOom, "illegal_memory_access": IllegalMem,
    "python_exception": PyException, "crash_signal": CrashSignal, "hang": Hang,
    "collective_mismatch": CollMismatch, "data_loader_stall": DataStall, "preemption": Preemption,
    "straggler": Straggler, None: Healthy,
}
