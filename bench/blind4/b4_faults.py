"""Fault injection: writes the culprit's own output, kernel evidence, and the
consequences on the other ranks, then settles process exits per launcher policy.

Every injector fills run.truth (cause/rank/node/drain/notes) and
run.meta['evidence']: list of (kind, key) that name the culprit rank, where
kind is one of 'rank' (that rank's own output), 'launcher' (launcher/scheduler
lines), 'kernel' (kernel log of node idx, needs 'map' too), 'map' (PCI->rank
mapping available via NCCL INFO busId), 'peers' (other ranks' output names it),
'extra' (an extra file, name given). The layout decides what is collected; the
truth's rank_inferable is derived from what actually got collected.
"""
from __future__ import annotations

from b4_common import pickn, Run, ts_ctime, ts_sec, ts_py, hexid, short
from b4_frameworks import (Plan, train_frames, module_frames, data_frames, run_normal, megatron_straggler_report, lr_at)
from b4_text import (c10, pgtag, watchdog_timeout, nccl_async_error, watchdog_cuda_error, heartbeat_stuck,
                     dump_signal_from_other, tcpstore_noise, destroy_warning, npfx, nccl_tid, ib_completion_error, socket_closed,
                     ofi_error, traceback, sp, xid, gpu_uuid, oom_kill_block, segfault_line, mlx_pci, nvsmi_table, pgl)

OPS = [("ALLREDUCE", 1.0), ("_ALLGATHER_BASE", 8.0), ("_REDUCE_SCATTER_BASE", 0.125), ("ALLREDUCE", 1.0), ("BROADCAST", 1.0)]


def pick_coll(run: Run, plan: Plan, step: int):
    rng = run.rng
    seq = plan.seq_at(step) + rng.randint(1, plan.cps)
    op, ratio = rng.choice(OPS)
    nin = rng.choice([1, 2, 16, 4096, 262144, 1048576, 9801523, 33554432, 67108864, 134217728])
    nout = int(nin * ratio) if ratio != 0.125 else max(1, nin // 8)
    if op == "_REDUCE_SCATTER_BASE":
        nin, nout = nin * 8, nin
    return seq, op, nin, nout


def neighbors(run: Run, culprits: list) -> set:
    W = run.world
    out = set()
    cn = {run.ranks[c].node.idx for c in culprits}
    for c in culprits:
        for d in (-1, 1, run.gpn, -run.gpn):
            r = (c + d) % W
            if r not in culprits and run.ranks[r].node.idx not in cn:
                out.add(r)
    return out


def propagate(run: Run, plan: Plan, culprits: list, t_f: float, mode: str, coll: tuple, quick_p: float = 0.5,
              last_error: str | None = None, culprit_style: str = "none", exclude: set | None = None, t_dead: float | None = None):
    """Consequences on non-culprit ranks.
    mode: 'dead' culprit process gone; 'stuck' culprit alive and not entering collective;
          'neterr' network failure near culprits (errors on culprits' node and peers)."""
    rng = run.rng
    seq, op, nin, nout = coll
    style = run.meta.setdefault("wd_style", rng.choice(["dump", "dump", "throw"]))
    exclude = exclude or set()
    nb = neighbors(run, culprits) if mode in ("dead", "neterr") else set()
    cnode = run.ranks[culprits[0]].node
    first_to = None
    for rk in run.ranks:
        r = rk.r
        if r in culprits or r in exclude:
            continue
        if mode == "dead" and r in nb and rng.random() < quick_p and (t_dead or t_f) + 45 < t_f + run.pg_timeout:
            tq = (t_dead if t_dead is not None else t_f) + rng.uniform(1.0, 45.0)
            if run.meta.get("net_plugin") == "ofi":
                msg = ofi_error(run, r, tq)
            elif run.meta.get("transport") == "socket":
                msg = socket_closed(run, r, tq, cnode.ip)
            else:
                msg = ib_completion_error(run, r, tq, cnode.ip, rk.node.ip, rng.choice(rk.node.ib_ifs))
            te = nccl_async_error(run, r, tq + 0.01, seq, seq + rng.randint(0, 2), seq - 1, "remote", msg)
            run.set_exit(r, te, "signal", 6)
            continue
        tt = t_f + run.pg_timeout + rng.uniform(0.01, 0.6)
        if first_to is None or tt < first_to[0]:
            first_to = (tt, r)
        te = watchdog_timeout(run, r, tt, seq, op, nin, nout, seq + rng.randint(0, 2), seq - 1, style=style)
        run.set_exit(r, te, "signal", 6)
    # the stuck culprit in dump style gets a dump signal from the first rank that timed out
    if mode == "stuck" and first_to and style == "dump" and culprit_style != "silent":
        for c in culprits:
            te = dump_signal_from_other(run, c, first_to[0] + rng.uniform(0.5, 3), first_to[1], seq - 1, seq - 1)
            if te:
                run.set_exit(c, te, "signal", 6)
    # TCPStore noise if the store host died
    if mode == "dead" and run.ranks[culprits[0]].node.idx == 0 and run.meta.get("store_on_node0", True):
        for rk in run.ranks:
            if rk.node.idx != 0 and rng.random() < 0.3:
                tcpstore_noise(run, rk.r, t_f + rng.uniform(5, 200), run.nodes[0].host.split(".")[0])
    return first_to


def settle(run: Run, policy: set, t_limit: float, d_node=(0.6, 4.0), d_job=(1.0, 35.0)):
    rng = run.rng
    if "node_group" in policy:
        for nd in run.nodes:
            rks = [rk for rk in run.ranks if rk.node is nd and rk.exit]
            bad = [rk for rk in rks if not (rk.exit[1] == "code" and rk.exit[2] == 0)]
            if not bad:
                continue
            tf = min(rk.exit[0] for rk in bad)
            for rk in run.ranks:
                if rk.node is nd:
                    tk = tf + rng.uniform(*d_node)
                    if rk.exit is None or rk.exit[0] > tk:
                        rk.exit = (tk, "signal", 15)
                        rk.meta_killed = True
    if "job_kill" in policy:
        bad = [rk for rk in run.ranks if rk.exit and not (rk.exit[1] == "code" and rk.exit[2] == 0) and not getattr(rk, "meta_killed", False)]
        if bad:
            tf = min(rk.exit[0] for rk in bad)
            if "node_group" in policy:          # the launcher reacts to the node agent's exit, a few seconds later
                tf += rng.uniform(6.5, 9.0)
            run.meta["job_kill_t"] = tf
            for rk in run.ranks:
                tk = tf + rng.uniform(*d_job)
                if rk.exit is None or rk.exit[0] > tk:
                    rk.exit = (tk, "signal", 9 if "sigkill" in policy else 15)
                    rk.meta_killed = True
    for rk in run.ranks:
        if rk.exit is None:
            rk.exit = (t_limit, "signal", 15)
            rk.meta_killed = True
            run.meta["hit_limit"] = True


def ev(run: Run, kind: str, key=None):
    run.meta.setdefault("evidence", []).append((kind, key))


def must(run: Run, kind: str, key=None):
    run.meta.setdefault("must", []).append((kind, key))


def set_truth(run: Run, cause, rank, node, drain: bool, notes: str, rank_known: bool = True):
    run.truth = {"cause": cause, "healthy": cause is None, "rank": rank, "node": node.host if node is not None else None,
                 "drain": drain, "rank_known": rank_known, "node_obj": node, "notes": notes}


def py_prefix(run: Run, r: int) -> str:
    return "[rank%d]: " % r if run.meta.get("rank_prefix_tb") else ""


def app_fail_exit(run: Run, r: int, t: float, code: int = 1):
    run.set_exit(r, t, "code", code)


def kill_site_frames(run: Run, fw: str) -> list:
    return train_frames(run, fw) + module_frames(run)


# =============================================================== causes
def f_gpu_hardware(run: Run, fw: str, plan: Plan, t_f: float, ctx: dict):
    rng = run.rng
    r = ctx["culprit"]
    rk = run.ranks[r]
    nd = rk.node
    pci = nd.pci[rk.local]
    coll = pick_coll(run, plan, plan.step_at(t_f))
    variant = ctx.get("variant") or rng.choice(["xid79", "xid79_silent", "gsp", "xid_other", "dcgm_only"])
    run.meta["gpu_variant"] = variant
    uuid = gpu_uuid(rng)
    if variant in ("xid79", "xid79_silent"):
        run.kern(nd, t_f, xid(pci, 79, rk.pid, "pt_main_thread" if rng.random() < 0.5 else "python", "GPU has fallen off the bus."))
        run.kern(nd, t_f + 0.00001, "NVRM: GPU %s.0: GPU has fallen off the bus." % pci)
        run.kern(nd, t_f + 0.00002, "NVRM: GPU at PCI:%s: %s" % (pci, uuid))
        run.kern(nd, t_f + 0.00003, "NVRM: GPU Board Serial Number: 16523%08d" % rng.randint(0, 99999999))
        run.kern(nd, t_f + 0.00004, "NVRM: A GPU crash dump has been created. If possible, please run\nNVRM: nvidia-bug-report.sh as root to collect this data before\nNVRM: the NVIDIA kernel module is unloaded.")
        if rng.random() < 0.5:
            run.kern(nd, t_f + 2.1, "pcieport 0000:%02x:01.0: pciehp: Slot(%d): Link Down" % (int(pci.split(":")[1], 16) - 1, rk.local + 1))
        note = "Xid 79 (GPU fell off the bus) on %s GPU %s" % (nd.host, pci)
        if variant == "xid79":
            msg = "unspecified launch failure" if rng.random() < 0.5 else "unknown error"
            te = watchdog_cuda_error(run, r, t_f + rng.uniform(0.5, 6), msg)
            run.set_exit(r, te, "signal", 6)
            ev(run, "rank", r)
            propagate(run, plan, [r], t_f, "dead", coll, quick_p=0.4)
            note += "; the rank's watchdog reported CUDA error '%s'" % msg
        else:
            propagate(run, plan, [r], t_f, "stuck", coll, culprit_style="silent")
            note += "; the rank hung silently, only the kernel log shows it"
        must(run, "kernel", nd.idx)
    elif variant == "gsp":
        gi = rk.local
        run.kern(nd, t_f, "NVRM: GPU%d _kgspLogRpcTimeout: ********************************* GSP Timeout **********************************" % gi)
        run.kern(nd, t_f + 0.00001, "NVRM: GPU%d _kgspLogRpcTimeout: Note: Please also check logs above." % gi)
        run.kern(nd, t_f + 0.00002, "NVRM: GPU at PCI:%s: %s" % (pci, uuid))
        run.kern(nd, t_f + 0.00003, xid(pci, 119, rk.pid, "python", "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x%08x 0x%x)." % (gi, rng.choice([0x20800a6a, 0x2080014b, 0x20801322]), rng.choice([4, 0x10, 0x3c]))))
        run.kern(nd, t_f + 0.00004, "NVRM: GPU%d _kgspLogRpcTimeout: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x%08x 0x%08x." % (gi, gi, rng.randint(0, 2 ** 31), rng.randint(0, 2 ** 31)))
        run.kern(nd, t_f + 0.00005, "NVRM: GPU%d _kgspLogRpcTimeout: GPU%d RPC history (CPU -> GSP):" % (gi, gi))
        run.kern(nd, t_f + 0.00006, "NVRM: GPU%d _kgspLogRpcTimeout:     entry function                   data0              data1              ts_start           ts_end             duration actively_polling" % gi)
        for k in range(4):
            run.kern(nd, t_f + 0.00007 + k * 1e-6, "NVRM: GPU%d _kgspLogRpcTimeout:      %d    %-3d %-28s 0x%016x 0x%016x 0x%013x 0x%013x %10dus  %s" % (
                gi, k, 76 if k == 0 else rng.choice([10, 76, 103]), "GSP_RM_CONTROL" if k == 0 else rng.choice(["GSP_RM_CONTROL", "GET_GSP_STATIC_INFO", "FREE"]),
                rng.randint(0, 2 ** 32), rng.randint(0, 16), rng.randint(2 ** 48, 2 ** 50), 0 if k == 0 else rng.randint(2 ** 48, 2 ** 50), rng.randint(10, 900), "y" if k == 0 else ""))
        for k in range(rng.randint(2, 5)):
            tt = t_f + 6 * (k + 1)
            run.kern(nd, tt, xid(pci, 119, rk.pid, "python", "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a6a 0x4)." % gi))
        run.kern(nd, t_f + 40, xid(pci, 154, None, None, "GPU recovery action changed from 0x0 (None) to 0x%s" % rng.choice(["1 (GPU Reset Required)", "2 (Node Reboot Required)"])))
        te = heartbeat_stuck(run, r, t_f + rng.uniform(480, 500))
        run.set_exit(r, te, "signal", 6)
        ev(run, "rank", r)
        propagate(run, plan, [r], t_f, "stuck", coll, culprit_style="silent")
        must(run, "kernel", nd.idx)
        note = "GSP RPC timeouts (Xid 119) then Xid 154 on %s GPU %s; that rank's ProcessGroupNCCL watchdog got stuck" % (nd.host, pci)
    elif variant == "xid_other":
        code = rng.choice([62, 62, 122])
        txt = {62: "%08x %08x %08x %08x %08x %08x %08x %08x" % tuple(rng.randint(0, 2 ** 32 - 1) for _ in range(8)),
               109: "pid=%d, name=python, Ch %08x, errorString CTX SWITCH TIMEOUT, Info 0x%x" % (rk.pid, rng.randint(8, 64), rng.randint(0x1000, 0xfffff)),
               122: "SPI PMU RPC read fail"}[code]
        run.kern(nd, t_f, ("NVRM: Xid (PCI:%s): %d, " % (pci, code)) + txt)
        if code == 62:
            run.kern(nd, t_f + 0.0001, "NVRM: GPU%d _kgspRpcGspEventPmuHalted: Received signal from GSP that PMU has halted." % rk.local)
        run.kern(nd, t_f + 0.2, xid(pci, 154, None, None, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)"))
        msg = rng.choice(["unspecified launch failure", "unknown error"])
        te = watchdog_cuda_error(run, r, t_f + rng.uniform(0.3, 5), msg)
        run.set_exit(r, te, "signal", 6)
        ev(run, "rank", r)
        propagate(run, plan, [r], t_f, "dead", coll, quick_p=0.5)
        must(run, "kernel", nd.idx)
        note = "fatal Xid %d followed by Xid 154 (GPU Reset Required) on %s GPU %s" % (code, nd.host, pci)
    else:  # dcgm_only: the job hangs; admin's DCGM health check is the evidence
        propagate(run, plan, [r], t_f, "stuck", coll, culprit_style="silent")
        run.meta["dcgm_file"] = dcgm_health(run, nd, t_f + run.pg_timeout + 300, rk.local, "pcie")
        must(run, "extra", "dcgm")
        ev(run, "extra_map", "dcgm")
        note = "GPU %d on %s fell off the bus; only the DCGM health check shows it, the rank just stopped" % (rk.local, nd.host)
    ev(run, "kernel", nd.idx)
    set_truth(run, "gpu_hardware", r, nd, True, note)


def dcgm_health(run: Run, nd, t: float, gi: int, kind: str) -> str:
    rng = run.rng
    if kind == "pcie":
        msg = ["GPU %d is lost (GPU has fallen off the bus). A reset or reboot is required." % gi]
        sysn = "PCIe"
    elif kind == "ecc":
        msg = ["A volatile double-bit ECC error occurred on GPU %d." % gi, "GPU %d has pending row remapping; reset the GPU to activate." % gi]
        sysn = "Memory"
    elif kind == "nvlink":
        msg = ["Detected more than 0 NVLink CRC errors on GPU %d's link %d (%d)." % (gi, rng.randint(0, 17), rng.randint(4, 900)), "GPU %d's NvLink link %d is currently down" % (gi, rng.randint(0, 17))]
        sysn = "NVLink"
    else:
        msg = ["GPU %d is running at reduced clocks: HW slowdown is active (thermal)." % gi]
        sysn = "Thermal"
    out = ["%s  (%s)" % (ts_ctime(run.e(t, nd)), nd.host.split(".")[0]), "$ dcgmi health -g 1 -c", "",
           "+---------------------------+----------------------------------------------------------+",
           "| Health Monitor Report                                                                |",
           "+===========================+==========================================================+",
           "| Group 1                   | Overall Health: Failure                                  |",
           "+---------------------------+----------------------------------------------------------+"]
    for g in range(nd.gpus):
        if g == gi:
            out.append("| GPU ID: %-17d | Failure                                                  |" % g)
            out.append("|                           | %-10s system: Failure                             |" % sysn)
            for m in msg:
                while m:
                    out.append("|                           | %-56s |" % m[:56])
                    m = m[56:]
        else:
            out.append("| GPU ID: %-17d | Healthy                                                  |" % g)
    out.append("+---------------------------+----------------------------------------------------------+")
    return "\n".join(out) + "\n"


def f_ecc_memory(run: Run, fw: str, plan: Plan, t_f: float, ctx: dict):
    rng = run.rng
    r = ctx["culprit"]
    rk = run.ranks[r]
    nd = rk.node
    pci = nd.pci[rk.local]
    coll = pick_coll(run, plan, plan.step_at(t_f))
    variant = rng.choice(["dbe", "contained", "uncontained", "remap_fail", "smi_only"])
    run.meta["ecc_variant"] = variant
    if variant == "dbe":
        run.kern(nd, t_f, xid(pci, 48, "'<unknown>'", "<unknown>", "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (rng.randint(0, 11), rng.randint(0, 1))))
        run.kern(nd, t_f + 0.01, xid(pci, 63, "'<unknown>'", "<unknown>", "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % rng.randint(0x10000, 0xfffffff)))
        note = "Xid 48 double-bit ECC + Xid 63 row remap pending on %s GPU %s" % (nd.host, pci)
    elif variant == "contained":
        run.kern(nd, t_f, xid(pci, 94, rk.pid, "python", "Contained: %s. RST: No, D-RST: No" % rng.choice(["SM (0x1)", "SM (0x2)"])))
        run.kern(nd, t_f + 0.01, xid(pci, 63, "'<unknown>'", "<unknown>", "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % rng.randint(0x10000, 0xfffffff)))
        note = "Xid 94 contained ECC error + Xid 63 on %s GPU %s" % (nd.host, pci)
    elif variant == "uncontained":
        run.kern(nd, t_f, xid(pci, 95, rk.pid, "python", "Uncontained: %s. RST: Yes, D-RST: No" % rng.choice(["LTC TAG (0x2,0x0)", "FBHUB (0x1,0x0)", "LTC (0x4,0x0)"])))
        run.kern(nd, t_f + 0.3, xid(pci, 154, None, None, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)"))
        note = "Xid 95 uncontained ECC error on %s GPU %s" % (nd.host, pci)
    elif variant == "remap_fail":
        run.kern(nd, t_f, xid(pci, 48, "'<unknown>'", "<unknown>", "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (rng.randint(0, 11), rng.randint(0, 1))))
        run.kern(nd, t_f + 0.02, xid(pci, 64, "'<unknown>'", "<unknown>", "Row Remapper: Failed to remap row (0x%016x) - no spare rows available in bank %d, reset gpu to activate." % (rng.randint(0x10000, 0xfffffff), rng.randint(0, 31))))
        note = "Xid 48 + Xid 64 (row remapping failure) on %s GPU %s" % (nd.host, pci)
    else:
        note = "uncorrectable ECC on %s GPU %d; no kernel log collected, nvidia-smi -q shows DRAM uncorrectable + pending remap" % (nd.host, rk.local)
    # the rank's own error
    how = rng.choice(["watchdog", "python"])
    run.meta["culprit_attrib"] = "c10" if how == "watchdog" else "tb"
    tt = t_f + rng.uniform(0.05, 3)
    if how == "watchdog":
        te = watchdog_cuda_error(run, r, tt, "uncorrectable ECC error encountered")
        run.set_exit(r, te, "signal", 6)
    else:
        fr = kill_site_frames(run, fw) + [(sp(run, "torch/nn/modules/linear.py"), 125, "forward", "return F.linear(input, self.weight, self.bias)")]
        traceback(run, r, tt, fr, "RuntimeError: CUDA error: uncorrectable ECC error encountered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")
        app_fail_exit(run, r, tt + 0.8)
    ev(run, "rank", r)
    propagate(run, plan, [r], t_f, "dead", coll, quick_p=0.4)
    if variant == "smi_only":
        run.meta["smi_q_file"] = nvsmi_q_ecc(run, nd, t_f + run.pg_timeout + rng.uniform(300, 3000), rk.local)
        must(run, "extra", "smi_q")
        ev(run, "extra_map", "smi_q")
    else:
        must(run, "kernel", nd.idx)
        ev(run, "kernel", nd.idx)
    set_truth(run, "ecc_memory", r, nd, True, note)


def nvsmi_q_ecc(run: Run, nd, t: float, gi: int) -> str:
    rng = run.rng
    out = ["%s@%s:~$ nvidia-smi -q -d ECC,ROW_REMAPPER" % (run.meta.get("user", "root"), short(nd.host)), "", "==============NVSMI LOG==============", "", "Timestamp                                 : %s" % ts_ctime(run.e(t, nd)),
           "Driver Version                            : %s" % run.driver, "CUDA Version                              : %s" % run.cuda, "",
           "Attached GPUs                             : %d" % nd.gpus]
    for g in range(nd.gpus):
        bad = g == gi
        out += ["GPU %s.0" % nd.pci[g].upper().replace("0000:", "00000000:"),
                "    ECC Mode", "        Current                           : Enabled", "        Pending                           : Enabled",
                "    ECC Errors", "        Volatile", "            SRAM Correctable              : 0", "            SRAM Uncorrectable Parity     : 0",
                "            SRAM Uncorrectable SEC-DED    : 0", "            DRAM Correctable              : %d" % (rng.randint(0, 3) if not bad else rng.randint(10, 400)),
                "            DRAM Uncorrectable            : %d" % (2 if bad else 0), "        Aggregate", "            SRAM Correctable              : 0",
                "            SRAM Uncorrectable Parity     : 0", "            SRAM Uncorrectable SEC-DED    : 0", "            DRAM Correctable              : %d" % rng.randint(0, 40),
                "            DRAM Uncorrectable            : %d" % (2 if bad else 0), "            SRAM Threshold Exceeded       : No",
                "    Remapped Rows", "        Correctable Error                 : 0", "        Uncorrectable Error               : %d" % (2 if bad else 0),
                "        Pending                           : %s" % ("Yes" if bad else "No"), "        Remapping Failure Occurred        : No",
                "        Bank Remap Availability Histogram", "            Max                           : %d bank(s)" % (639 if bad else 640),
                "            High                          : %d bank(s)" % (1 if bad else 0), "            Partial                       : 0 bank(s)",
                "            Low                           : 0 bank(s)", "            None                          : 0 bank(s)", ""]
    return "\n".join(out)


def f_nvlink(run: Run, fw: str, plan: Plan, t_f: float, ctx: dict):
    rng = run.rng
    r = ctx["culprit"]
    rk = run.ranks[r]
    nd = rk.node
    pci = nd.pci[rk.local]
    coll = pick_coll(run, plan, plan.step_at(t_f))
    variant = rng.choice(["xid74", "xid74", "sxid_only"]) if nd.gpus == 8 else "xid74"
    sw = rng.randint(0, 3)
    swpci = ["0000:05:00.0", "0000:06:00.0", "0000:07:00.0", "0000:08:00.0"][sw]
    if variant == "xid74":
        link = rng.randint(0, 17)
        run.kern(nd, t_f, xid(pci, 74, rk.pid, "python", "NVLink: fatal error detected on link %d(0x0, 0x0, 0x%x, 0x0, 0x0, 0x0, 0x0)" % (link, rng.choice([0x10000, 0x20000, 0x400000]))))
        if rng.random() < 0.6:
            run.kern(nd, t_f + 0.002, "nvidia-nvswitch%d: SXid (PCI:%s): 20034, Fatal, Link %d LTSSM Fault Up" % (sw, swpci, rng.randint(0, 63)))
            run.kern(nd, t_f + 0.003, "nvidia-nvswitch%d: SXid (PCI:%s): 20034, Severity 1 Engine instance %d Sub-engine instance 00" % (sw, swpci, rng.randint(0, 63)))
            run.kern(nd, t_f + 0.004, "nvidia-nvswitch%d: SXid (PCI:%s): 20034, Data {0x%08x, 0x%08x, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000}" % (sw, swpci, rng.randint(0, 2 ** 31), rng.randint(0, 2 ** 31)))
        how = rng.choice(["watchdog", "nccl"])
        tt = t_f + rng.uniform(0.1, 4)
        if how == "watchdog":
            te = watchdog_cuda_error(run, r, tt, "uncorrectable NVLink error detected during the execution")
        else:
            p = npfx(run, r, nccl_tid(run, r, 3))
            run.emit(r, tt - 0.01, "%s enqueue.cc:%d NCCL WARN Cuda failure 'uncorrectable NVLink error detected during the execution'" % (p, pickn(run, [1556, 1610, 1735])), "out")
            te = nccl_async_error(run, r, tt, coll[0], coll[0] + 1, coll[0] - 1, "cuda", "Cuda failure 'uncorrectable NVLink error detected during the execution'")
        run.set_exit(r, te, "signal", 6)
        ev(run, "rank", r)
        ev(run, "kernel", nd.idx)
        propagate(run, plan, [r], t_f, "dead", coll, quick_p=0.3)
        note = "Xid 74 NVLink fatal error on %s GPU %s" % (nd.host, pci)
        rank_known = True
        truth_r = r
    else:
        # NVSwitch fatal: every rank on the node stalls in intra-node P2P; no single rank
        for k in range(rng.randint(2, 4)):
            run.kern(nd, t_f + k * 0.001, "nvidia-nvswitch%d: SXid (PCI:%s): %d, Fatal, Link %d %s" % (
                sw, swpci, pickn(run, [20034, 22013, 24007]), rng.randint(0, 63), rng.choice(["LTSSM Fault Up", "NVLDL RX Short Error Rate", "MINION Link DLREQ interrupt"])))
        run.kern(nd, t_f + 0.01, "nvidia-nvswitch%d: SXid (PCI:%s): 12028, Non-fatal, Link %d egress non-posted PRIV error (First)" % (sw, swpci, rng.randint(0, 63)))
        local = [x.r for x in run.ranks_on(nd)]
        propagate(run, plan, local, t_f, "stuck", coll, culprit_style="silent")
        for c in local:
            tt = t_f + run.pg_timeout + rng.uniform(0.05, 3)
            te = watchdog_timeout(run, c, tt, coll[0], coll[1], coll[2], coll[3], coll[0], coll[0] - 1, style=run.meta.get("wd_style", "dump"))
            run.set_exit(c, te, "signal", 6)
        ev(run, "kernel_node", nd.idx)
        note = "NVSwitch fatal SXid on %s stalled all of its GPUs' NVLink traffic" % nd.host
        rank_known = False
        truth_r = nd.first_rank
    must(run, "kernel", nd.idx)
    set_truth(run, "nvlink", truth_r, nd, True, note, rank_known)


def f_network(run: Run, fw: str, plan: Plan, t_f: float, ctx: dict):
    rng = run.rng
    r0 = ctx["culprit"]
    nd = run.ranks[r0].node
    coll = pick_coll(run, plan, plan.step_at(t_f))
    scope = ctx.get("scope") or rng.choice(["node", "node", "node", "fabric"])
    transport = run.meta.get("transport", "ib")
    if scope == "fabric" and len(run.nodes) >= 3 and transport == "ib" and run.meta.get("net_plugin") != "ofi":
        # job-wide: a leaf switch dies, many nodes lose links at once
        hit = rng.sample(run.nodes, max(3, len(run.nodes) // 2))
        for h in hit:
            for k, hca in enumerate(h.ib_ifs[:rng.randint(1, 3)]):
                run.kern(h, t_f + rng.uniform(0, 0.4), "mlx5_core %s %s: Link down" % (mlx_pci(h, k), "ibp%ds0" % (int(mlx_pci(h, k).split(":")[1], 16))))
        for rk in run.ranks:
            if rk.node in hit and rng.random() < 0.5:
                peer = rng.choice([n for n in run.nodes if n is not rk.node])
                tq = t_f + rng.uniform(5, 30)
                msg = ib_completion_error(run, rk.r, tq, peer.ip, rk.node.ip, rng.choice(rk.node.ib_ifs))
                te = nccl_async_error(run, rk.r, tq + 0.01, coll[0], coll[0] + 1, coll[0] - 1, "remote", msg)
                run.set_exit(rk.r, te, "signal", 6)
        for rk in run.ranks:
            if rk.exit is None:
                tt = t_f + run.pg_timeout + rng.uniform(0.1, 3)
                te = watchdog_timeout(run, rk.r, tt, coll[0], coll[1], coll[2], coll[3], coll[0] + 1, coll[0] - 1, style=run.meta.setdefault("wd_style", "dump"))
                run.set_exit(rk.r, te, "signal", 6)
        must(run, "kernel", hit[0].idx)
        must(run, "rank_any", None)
        set_truth(run, "network", None, None, False, "fabric-wide InfiniBand outage: links on %d nodes went down at the same moment" % len(hit))
        return
    local = [x.r for x in run.ranks_on(nd)]
    if transport == "socket" or run.meta.get("net_plugin") == "ofi":
        if run.meta.get("net_plugin") == "ofi":
            run.kern(nd, t_f - rng.uniform(1, 20), "efa 0000:%02x:00.0: Failed to process command %s (opcode %d) comp_status %d err %d" % (rng.choice([0x10, 0x20, 0x30, 0x40]), rng.choice(["MODIFY_QP", "CREATE_AH", "DESTROY_QP"]), rng.choice([3, 5, 12]), rng.choice([1, 4]), rng.choice([-5, -110])))
            run.kern(nd, t_f - 0.2, "efa 0000:%02x:00.0: Device reset requested (reason %d)" % (rng.choice([0x10, 0x20]), rng.randint(1, 6)))
        else:
            q = rng.randint(0, 15)
            run.kern(nd, t_f - 5, "ena 0000:00:%02x.0 %s: Found a Tx that wasn't completed on time, qid %d, index %d. %d usecs have passed since last napi execution. Napi scheduled: 1" % (rng.choice([5, 6]), nd.eth, q, rng.randint(0, 1023), rng.randint(1000000, 5000000)))
            run.kern(nd, t_f - 4.9, "ena 0000:00:%02x.0 %s: Trigger reset is on" % (rng.choice([5, 6]), nd.eth))
            run.kern(nd, t_f - 4.8, "ena 0000:00:%02x.0 %s: Device reset completed successfully, Driver info: Elastic Network Adapter (ENA) v2.13.0g" % (rng.choice([5, 6]), nd.eth) if rng.random() < 0.4 else
                     "ena 0000:00:%02x.0: Device reset failed" % rng.choice([5, 6]))
        for c in local:
            tq = t_f + rng.uniform(0.5, 20)
            if run.meta.get("net_plugin") == "ofi":
                msg = ofi_error(run, c, tq)
            else:
                peer = rng.choice([n for n in run.nodes if n is not nd] or [nd])
                msg = socket_closed(run, c, tq, peer.ip)
            te = nccl_async_error(run, c, tq + 0.01, coll[0], coll[0] + 1, coll[0] - 1, "remote" if rng.random() < 0.6 else "system", msg)
            run.set_exit(c, te, "signal", 6)
        note = "%s network failure on %s (%s)" % ("EFA" if run.meta.get("net_plugin") == "ofi" else "ENA/TCP", nd.host, "device reset")
    else:
        k = rng.randrange(len(nd.ib_ifs))
        hca = nd.ib_ifs[k]
        mp = mlx_pci(nd, k)
        ifn = "ibp%ds0" % int(mp.split(":")[1], 16) if run.meta.get("ibtype") != "RoCE" else "ens%df0np0" % (k + 1)
        kind = rng.choice(["cable", "linkdown", "health"])
        if kind == "cable":
            run.kern(nd, t_f - rng.uniform(0, 2), "mlx5_core %s: mlx5_port_module_event:%d:(pid 0): Port module event[error]: module %d, Cable error, %s" % (mp, pickn(run, [1151, 1177, 1185]), k, rng.choice(["Bad or shorted cable/module", "High Temperature", "One or more network ports have been powered down due to insufficient/unadvertised power on the PCIe slot"])))
            run.kern(nd, t_f, "mlx5_core %s %s: Link down" % (mp, ifn))
        elif kind == "linkdown":
            run.kern(nd, t_f, "mlx5_core %s %s: Link down" % (mp, ifn))
            if run.meta.get("ibtype") == "RoCE" and rng.random() < 0.5:
                run.kern(nd, t_f + 0.1, "bond0: (slave %s): link status definitely down, disabling slave" % ifn)
        else:
            run.kern(nd, t_f - 1, "mlx5_core %s: poll_health:%d:(pid 0): device's health compromised - reached miss count" % (mp, pickn(run, [800, 834, 955])))
            run.kern(nd, t_f - 0.9, "mlx5_core %s: print_health_info:%d:(pid 0): Health issue observed, firmware internal error, severity(3) ERROR:" % (mp, pickn(run, [431, 455])))
            run.kern(nd, t_f - 0.89, "mlx5_core %s: print_health_info:%d:(pid 0): assert_var[0] 0x%08x" % (mp, pickn(run, [436, 460]), rng.randint(0, 2 ** 31)))
            run.kern(nd, t_f - 0.88, "mlx5_core %s: mlx5_trigger_health_work:%d:(pid 0): new health works are not permitted at this stage" % (mp, pickn(run, [777, 801])))
            run.kern(nd, t_f, "mlx5_core %s %s: Link down" % (mp, ifn))
        # NCCL errors on local ranks using that HCA and on their peers
        for c in local:
            if rng.random() < 0.7:
                peer = rng.choice([n for n in run.nodes if n is not nd] or [nd])
                tq = t_f + rng.uniform(8, 40)
                msg = ib_completion_error(run, c, tq, peer.ip, nd.ip, hca, vendor=pickn(run, [129, 244]), dirn=rng.choice(["Send", "Recv"]))
                te = nccl_async_error(run, c, tq + 0.01, coll[0], coll[0] + 1, coll[0] - 1, "remote", msg)
                run.set_exit(c, te, "signal", 6)
        for p in neighbors(run, local):
            if rng.random() < 0.8:
                prk = run.ranks[p]
                tq = t_f + rng.uniform(8, 40)
                msg = ib_completion_error(run, p, tq, nd.ip, prk.node.ip, rng.choice(prk.node.ib_ifs), vendor=129)
                te = nccl_async_error(run, p, tq + 0.01, coll[0], coll[0] + 1, coll[0] - 1, "remote", msg)
                run.set_exit(p, te, "signal", 6)
        note = "%s %s on %s (%s)" % ("IB" if run.meta.get("ibtype") != "RoCE" else "RoCE", {"cable": "cable/module error then link down", "linkdown": "link down", "health": "HCA firmware health failure"}[kind], nd.host, hca)
    for rk in run.ranks:
        if rk.exit is None:
            tt = t_f + run.pg_timeout + rng.uniform(0.1, 3)
            te = watchdog_timeout(run, rk.r, tt, coll[0], coll[1], coll[2], coll[3], coll[0] + 1, coll[0] - 1, style=run.meta.setdefault("wd_style", "dump"))
            run.set_exit(rk.r, te, "signal", 6)
    must(run, "kernel_or_local", nd.idx)
    ev(run, "kernel_node", nd.idx)
    set_truth(run, "network", nd.first_rank, nd, True, note, rank_known=False)


def f_host_oom(run: Run, fw: str, plan: Plan, t_f: float, ctx: dict):
    rng = run.rng
    r = ctx["culprit"]
    rk = run.ranks[r]
    nd = rk.node
    coll = pick_coll(run, plan, plan.step_at(t_f))
    variant = ctx.get("variant") or rng.choice(["rank", "rank", "dataloader", "global"])
    cg, tcg = oom_cgroups(run, rk)
    pids = [(x.pid, "python", rng.randint(5 * 10 ** 6, 9 * 10 ** 6)) for x in run.ranks_on(nd)]
    if variant == "dataloader":
        wpid = rk.pid + rng.randint(200, 900)
        pids += [(wpid + i, "python", rng.randint(4 * 10 ** 6, 11 * 10 ** 6)) for i in range(4)]
        pids.sort()
        oom_kill_block(run, nd, t_f, wpid, "python", cg, tcg, pids)
        fr = data_frames(run, fw) + [(sp(run, "torch/utils/data/dataloader.py"), 1420, "_get_data", "success, data = self._try_get_data()"),
                                     (sp(run, "torch/utils/data/dataloader.py"), 1256, "_try_get_data", "raise RuntimeError(f\"DataLoader worker (pid(s) {pids_str}) exited unexpectedly\") from e")]
        chained = [([(sp(run, "torch/utils/data/dataloader.py"), 1243, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                     ("/usr/lib/python%s/multiprocessing/queues.py" % run.py, 113, "get", "if not self._poll(timeout):"),
                     ("/usr/lib/python%s/multiprocessing/connection.py" % run.py, 257, "poll", "return self._poll(timeout)"),
                     ("/usr/lib/python%s/multiprocessing/connection.py" % run.py, 440, "_poll", "r = wait([self], timeout)"),
                     ("/usr/lib/python%s/selectors.py" % run.py, 415, "select", "fd_event_list = self._selector.poll(timeout)"),
                     (sp(run, "torch/utils/data/_utils/signal_handling.py"), 73, "handler", "_error_if_any_worker_fails()")],
                    "RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % wpid,
                    "The above exception was the direct cause of the following exception:")]
        tt = t_f + rng.uniform(0.2, 2)
        traceback(run, r, tt, fr, "RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % wpid, chained=chained)
        app_fail_exit(run, r, tt + 1)
        ev(run, "rank", r)
        run.meta["culprit_attrib"] = "tb"
        note = "host OOM killer killed a DataLoader worker of rank %d on %s" % (r, nd.host)
    else:
        glob = variant == "global"
        oom_kill_block(run, nd, t_f, rk.pid, "python", cg if not glob else "/", tcg if not glob else "/user.slice", sorted(pids),
                       constraint="CONSTRAINT_MEMCG" if not glob else "CONSTRAINT_NONE")
        run.set_exit(r, t_f + 0.01, "signal", 9)
        ev(run, "launcher", r)
        ev(run, "kernel_pid", nd.idx)
        run.meta["culprit_attrib"] = "none"
        if run.meta.get("srun_per_gpu") and not glob and run.layout.startswith("slurm"):
            ev(run, "kernel_self", nd.idx)     # cgroup path .../task_<rank>
        note = "Linux OOM killer (%s) killed rank %d's process on %s" % ("cgroup limit" if not glob else "system-wide", r, nd.host)
        run.meta["oom_slurm"] = True
    propagate(run, plan, [r], t_f, "dead", coll, quick_p=0.5)
    if run.layout.startswith("slurm") and variant != "dataloader":
        must(run, "kernel_or_launcher", nd.idx)     # srun/slurmstepd say "Out Of Memory" / oom_kill event
    else:
        must(run, "kernel", nd.idx)
    ev(run, "kernel", nd.idx)
    set_truth(run, "host_oom_kill", r, nd, False, note)


def oom_cgroups(run: Run, rk):
    rng = run.rng
    lay = run.layout
    if lay.startswith("k8s") or lay.startswith("gke"):
        uid = run.meta.setdefault("poduid", "%s_%s_%s_%s_%s" % (hexid(rng, 8), hexid(rng, 4), hexid(rng, 4), hexid(rng, 4), hexid(rng, 12)))
        cg = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice" % uid
        return cg, cg + "/cri-containerd-%s.scope" % hexid(rng, 64)
    jid = run.meta.get("jobid", rng.randint(100000, 9999999))
    cg = "/slurm/uid_%d/job_%d" % (run.meta.get("uid", 41003), jid)
    return cg, cg + "/step_0/user/task_%d" % (rk.r if run.meta.get("srun_per_gpu") else rk.node.idx)


def f_cuda_oom(run: Run, fw: str, plan: Plan, t_f: float, ctx: dict):
    rng = run.rng
    r = ctx["culprit"]
    rk = run.ranks[r]
    nd = rk.node
    coll = pick_coll(run, plan, plan.step_at(t_f))
    variant = rng.choice(["fwd", "bwd", "nccl", "optim", "fwd"])
    cap = {"NVIDIA H100 80GB HBM3": 79.11, "NVIDIA A100-SXM4-80GB": 79.15, "NVIDIA H200": 139.8, "NVIDIA B200": 178.4,
           "Tesla V100-SXM2-16GB": 15.77, "Tesla V100-SXM2-32GB": 31.74}[run.meta.setdefault("gpuname", "NVIDIA H100 80GB HBM3")]
    tried = rng.choice(["1.96 GiB", "2.00 GiB", "768.00 MiB", "4.50 GiB", "11.72 GiB", "256.00 MiB"])
    free = rng.choice(["431.88 MiB", "1.02 GiB", "87.06 MiB", "1.71 GiB"])
    used = cap - rng.uniform(0.1, 1.5)
    alloc = used - rng.uniform(1, 6)
    msg = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %s. GPU %d has a total capacity of %.2f GiB of which %s is free. Including non-PyTorch memory, this process has %.2f GiB memory in use. "
           "Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
           % (tried, rk.local, cap, free, used, alloc, used - alloc - rng.uniform(0.1, 0.5)))
    tt = t_f
    if variant == "nccl":
        p = npfx(run, r, nccl_tid(run, r, 0))
        run.emit(r, tt - 0.002, "%s include/alloc.h:%d NCCL WARN Cuda failure 2 'out of memory'" % (p, pickn(run, [125, 193, 358])), "out")
        run.emit(r, tt - 0.001, "%s NCCL INFO include/alloc.h:%d -> 1" % (p, pickn(run, [199, 364])), "out")
        run.emit(r, tt - 0.0009, "%s NCCL INFO transport/p2p.cc:%d -> 1" % (p, pickn(run, [214, 236])), "out")
        fr = train_frames(run, fw) + [(sp(run, "torch/distributed/c10d_logger.py"), 81, "wrapper", "return func(*args, **kwargs)"),
                                      (sp(run, "torch/distributed/distributed_c10d.py"), pickn(run, [2806, 3347, 3426]), "all_gather_into_tensor", "work = group._allgather_base(output_tensor, input_tensor, opts)")]
        traceback(run, r, tt, fr, "torch.distributed.DistBackendError: NCCL error in: %s/ProcessGroupNCCL.cpp:%d, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s\nncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\nCuda failure 2 'out of memory'" % (
            run.meta.get("srctree", "/pytorch/torch/csrc/distributed/c10d"), pickn(run, [3356, 3579, 3885]), run.nccl))
        note = "NCCL buffer allocation failed with CUDA OOM on rank %d" % r
    else:
        if variant == "bwd":
            fr = train_frames(run, fw)[:-1] + [(sp(run, "torch/_tensor.py"), 626, "backward", "torch.autograd.backward("),
                                               (sp(run, "torch/autograd/__init__.py"), 347, "backward", "_engine_run_backward("),
                                               (sp(run, "torch/autograd/graph.py"), 823, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]
        elif variant == "optim":
            fr = train_frames(run, fw)[:-1] + [(sp(run, "torch/optim/optimizer.py"), 493, "wrapper", "out = func(*args, **kwargs)"),
                                               (sp(run, "torch/optim/adamw.py"), 232, "step", "has_complex = self._init_group("),
                                               (sp(run, "torch/optim/adamw.py"), 175, "_init_group", "state[\"exp_avg_sq\"] = torch.zeros_like(")]
        else:
            fr = kill_site_frames(run, fw) + [("/workspace/model/attention.py", 214, "forward", "attn = torch.softmax(scores.float(), dim=-1).to(v.dtype)")]
        traceback(run, r, tt, fr, msg)
        note = "CUDA OOM (%s) on rank %d" % (variant, r)
    app_fail_exit(run, r, tt + rng.uniform(0.5, 3))
    ev(run, "rank", r)
    run.meta["culprit_attrib"] = "tb"
    propagate(run, plan, [r], t_f, "dead", coll, quick_p=0.5)
    must(run, "rank", r)
    set_truth(run, "cuda_oom", r, nd, False, note)


def f_illegal_mem(run: Run, fw: str, plan: Plan, t_f: float, ctx: dict):
    rng = run.rng
    r = ctx["culprit"]
    rk = run.ranks[r]
    nd = rk.node
    pci = nd.pci[rk.local]
    coll = pick_coll(run, plan, plan.step_at(t_f))
    variant = rng.choice(["watchdog", "python", "nccl"])
    cm = "an illegal memory access was encountered"
    run.meta["culprit_attrib"] = "tb" if variant == "python" else "c10"
    if variant == "watchdog":
        te = watchdog_cuda_error(run, r, t_f + 0.2, cm)
        run.set_exit(r, te, "signal", 6)
    elif variant == "python":
        fr = kill_site_frames(run, fw) + [(sp(run, "flash_attn/flash_attn_interface.py"), 1163, "flash_attn_varlen_func", "return FlashAttnVarlenFunc.apply("),
                                          (sp(run, "flash_attn/flash_attn_interface.py"), 905, "forward", "out_padded, softmax_lse, S_dmask, rng_state = _wrapped_flash_attn_varlen_forward(")]
        traceback(run, r, t_f + 0.1, fr, "RuntimeError: CUDA error: %s\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n" % cm)
        app_fail_exit(run, r, t_f + 1.5)
    else:
        p = npfx(run, r, nccl_tid(run, r, 0))
        run.emit(r, t_f + 0.1, "%s enqueue.cc:%d NCCL WARN Cuda failure 700 '%s'" % (p, pickn(run, [1556, 1735, 2011]), cm), "out")
        te = nccl_async_error(run, r, t_f + 0.11, coll[0], coll[0] + 1, coll[0] - 1, "cuda", "Cuda failure 700 '%s'" % cm)
        run.set_exit(r, te, "signal", 6)
    # kernel shows an MMU fault / SM exception -- application-caused, not hardware
    if rng.random() < 0.75:
        if rng.random() < 0.6:
            run.kern(nd, t_f, "NVRM: Xid (PCI:%s): 31, pid=%d, name=python, Ch %08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (
                pci, rk.pid, rng.randint(8, 64), rng.randint(0, 7), rng.randint(0, 15), rng.randint(0, 255), rng.randint(0, 2 ** 32 - 1)))
        else:
            run.kern(nd, t_f, "NVRM: Xid (PCI:%s): 13, pid=%d, name=python, Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (pci, rk.pid, rng.randint(0, 7), rng.randint(0, 8), rng.randint(0, 1)))
            run.kern(nd, t_f + 0.00001, "NVRM: Xid (PCI:%s): 13, pid=%d, name=python, Graphics Exception: ESR 0x%06x=0x%x 0x%06x=0x24 0x%06x=0x%x 0x%06x=0x1174" % (
                pci, rk.pid, 0x514730, rng.randint(0x2000000, 0x2ffffff), 0x514734, 0x514728, rng.randint(0xc000000, 0xcffffff), 0x51472c))
        run.kern(nd, t_f + rng.uniform(1, 4), xid(pci, 43, rk.pid, "python", "Ch %08x" % rng.randint(8, 64)) if rng.random() < 0.5 else
                 "NVRM: Xid (PCI:%s): 45, pid=%d, name=python, Ch %08x" % (pci, rk.pid, rng.randint(8, 64)))
        ev(run, "kernel_pid", nd.idx)
    ev(run, "rank", r)
    propagate(run, plan, [r], t_f, "dead", coll, quick_p=0.4)
    must(run, "rank", r)
    set_truth(run, "illegal_memory_access", r, nd, False, "illegal memory access (%s) in rank %d%s" % (variant, r, "; kernel shows the app-caused MMU/SM Xid" if nd.kernel else ""))


PY_EXC = [
    ("data", "KeyError: 'input_ids'", [("/workspace/data/collate.py", 58, "__call__", "ids = [ex[\"input_ids\"] for ex in batch]")]),
    ("data", "ValueError: Sequence length 9217 exceeds max_seq_len 8192 (sample id 41788312 in shard train-00731-of-02048.parquet)", [("/workspace/data/packing.py", 131, "pack", "raise ValueError(")]),
    ("data", "UnicodeDecodeError: 'utf-8' codec can't decode byte 0x8b in position 1: invalid start byte", [("/workspace/data/jsonl.py", 44, "__iter__", "for line in f:"), ("<frozen codecs>", 322, "decode", "")]),
    ("model", "RuntimeError: The size of tensor a (4097) must match the size of tensor b (4096) at non-singleton dimension 1", [("/workspace/model/rope.py", 77, "apply_rotary_emb", "return (x * cos) + (rotate_half(x) * sin)")]),
    ("assert", "AssertionError: expected loss_mask to be non-empty on every microbatch", [("/workspace/train/loss.py", 29, "masked_mean", "assert mask.sum() > 0, \"expected loss_mask to be non-empty on every microbatch\"")]),
    ("io", "FileNotFoundError: [Errno 2] No such file or directory: '/lustre/datasets/fineweb-edu/tokenized/shard_01873.bin'", [("/workspace/data/indexed.py", 212, "_load", "self._bin = open(self.path, \"rb\")")]),
    ("json", "json.decoder.JSONDecodeError: Unterminated string starting at: line 1 column 28941 (char 28940)", [("/workspace/data/jsonl.py", 47, "__iter__", "yield json.loads(line)"), ("/usr/lib/python3.10/json/__init__.py", 346, "loads", "return _default_decoder.decode(s)")]),
]


def f_python_exc(run: Run, fw: str, plan: Plan, t_f: float, ctx: dict):
    rng = run.rng
    r = ctx["culprit"]
    rk = run.ranks[r]
    nd = rk.node
    coll = pick_coll(run, plan, plan.step_at(t_f))
    if ctx.get("jobwide"):
        # every rank fails identically at startup (bad config / import error)
        exc = rng.choice(["ModuleNotFoundError: No module named 'flash_attn_2_cuda'",
                          "ValueError: tensor_model_parallel_size (8) * pipeline_model_parallel_size (4) must divide world size",
                          "omegaconf.errors.ConfigKeyError: Key 'lr_warmup_iters' is not in struct\n    full_key: optimizer.lr_warmup_iters\n    object_type=dict"])
        for x in run.ranks:
            t = plan.t_init + rng.uniform(0, 4)
            traceback(run, x.r, t, train_frames(run, fw)[:1] + [("/workspace/config.py", 88, "build", "cfg = validate(cfg)")], exc)
            app_fail_exit(run, x.r, t + 0.5)
        must(run, "rank_any", None)
        set_truth(run, "python_exception", None, None, False, "every rank raised the same exception at startup (%s)" % exc.split(":")[0])
        run.meta["jobwide_start"] = True
        return
    kind, exc, extra = rng.choice(PY_EXC)
    if fw == "megatron" and rng.random() < 0.4:
        exc = "RuntimeError: Rank %d, node %s, device %d, iteration %d: Unexpected result nan (message='found NaN in local grad norm for bucket #0 in backward pass before data-parallel communication collective')" % (
            r, nd.host.split(".")[0], rk.local, plan.step_at(t_f))
        fr = train_frames(run, fw)[:4] + [("%s/megatron/core/distributed/param_and_grad_buffer.py" % "/workspace/Megatron-LM", 180, "check_grads", "rerun_state_machine.validate_result("),
                                          ("/workspace/Megatron-LM/megatron/core/rerun_state_machine.py", 514, "validate_result", "raise RuntimeError(full_message)")]
        kind = "nan"
    elif kind in ("data", "json", "io"):
        fr = data_frames(run, fw) + [(sp(run, "torch/utils/data/dataloader.py"), 1484, "_process_data", "data.reraise()"),
                                     (sp(run, "torch/_utils.py"), 733, "reraise", "raise exception")]
        wid = rng.randint(0, 7)
        exc_full = "%s: Caught %s in DataLoader worker process %d.\nOriginal Traceback (most recent call last):\n  File \"%s\", line 349, in _worker_loop\n    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]\n  File \"%s\", line %d, in %s\n    %s\n%s" % (
            exc.split(":")[0], exc.split(":")[0], wid, sp(run, "torch/utils/data/_utils/worker.py"), extra[0][0], extra[0][1], extra[0][2], extra[0][3], exc)
        exc = exc_full
    else:
        fr = kill_site_frames(run, fw) + [(f, l, fn, code) for (f, l, fn, code) in extra]
    tt = t_f
    traceback(run, r, tt, fr, exc)
    run.meta["culprit_attrib"] = "tb" if kind != "nan" else "c10"
    app_fail_exit(run, r, tt + rng.uniform(0.3, 4))
    ev(run, "rank", r)
    propagate(run, plan, [r], t_f, "dead", coll, quick_p=0.5)
    must(run, "rank", r)
    set_truth(run, "python_exception", r, nd, False, "%s raised on rank %d only" % (exc.split("\n")[0].split(":")[0], r))


def f_crash_signal(run: Run, fw: str, plan: Plan, t_f: float, ctx: dict):
    rng = run.rng
    r = ctx["culprit"]
    rk = run.ranks[r]
    nd = rk.node
    coll = pick_coll(run, plan, plan.step_at(t_f))
    variant = rng.choice(["segv", "segv", "abort", "bus"])
    run.meta["culprit_attrib"] = "tb" if variant == "bus" else "raw"
    if variant == "segv":
        lines = ["Fatal Python error: Segmentation fault", "", "Thread 0x%016x (most recent call first):" % (rng.randint(0x7f0000000, 0x7ffffffff) * 0x1000 + 0x640),
                 '  File "/usr/lib/python%s/threading.py", line 331 in wait' % run.py, '  File "/usr/lib/python%s/threading.py", line 629 in wait' % run.py,
                 '  File "%s", line 60 in run' % sp(run, "tqdm/_monitor.py"),
                 '  File "/usr/lib/python%s/threading.py", line 1045 in _bootstrap_inner' % run.py, '  File "/usr/lib/python%s/threading.py", line 1002 in _bootstrap' % run.py, "",
                 "Current thread 0x%016x (most recent call first):" % (rng.randint(0x7f0000000, 0x7ffffffff) * 0x1000 + 0x740)]
        for (f, l, fn, code) in reversed(kill_site_frames(run, fw) + [("/workspace/ext/fused_ops.py", 96, "forward", "")]):
            lines.append('  File "%s", line %d in %s' % (f, l, fn))
        lines += ["", "Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, numpy.linalg._umath_linalg, torch._C, torch._C._dynamo.autograd_compiler, torch._C._dynamo.eval_frame, torch._C._dynamo.guards, torch._C._dynamo.utils, torch._C._fft, torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special, yaml._yaml, sentencepiece._sentencepiece, regex._regex (total: 41)"]
        for i, ln in enumerate(lines):
            run.emit(r, t_f + i * 0.0001, ln)
        run.kern(nd, t_f, segfault_line(run, "python" if rng.random() < 0.5 else "pt_autograd_0", rk.pid + rng.choice([0, 0, 57]), rng.choice(["fused_ops_cuda.cpython-310-x86_64-linux-gnu.so", "libtorch_cpu.so", "libc.so.6"]), rng.randint(0, 191)))
        run.kern(nd, t_f + 0.00001, "Code: %s" % " ".join(hexid(rng, 2) for _ in range(42)))
        run.set_exit(r, t_f + 0.05, "signal", 11)
        note = "SIGSEGV in a native extension on rank %d" % r
        run.meta["sig_shell"] = 11
    elif variant == "abort":
        msg = rng.choice(["free(): invalid pointer", "double free or corruption (!prev)", "corrupted size vs. prev_size"])
        lines = [msg, "Fatal Python error: Aborted", "", "Current thread 0x%016x (most recent call first):" % (rng.randint(0x7f0000000, 0x7ffffffff) * 0x1000 + 0x740)]
        for (f, l, fn, code) in reversed(train_frames(run, fw)):
            lines.append('  File "%s", line %d in %s' % (f, l, fn))
        for i, ln in enumerate(lines):
            run.emit(r, t_f + i * 0.0001, ln)
        run.set_exit(r, t_f + 0.05, "signal", 6)
        note = "glibc heap corruption abort (%s) on rank %d" % (msg, r)
        run.meta["sig_shell"] = 6
    else:
        wpid = rk.pid + rng.randint(100, 900)
        run.emit(r, t_f, "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).")
        fr = data_frames(run, fw) + [(sp(run, "torch/utils/data/dataloader.py"), 1420, "_get_data", "success, data = self._try_get_data()"),
                                     (sp(run, "torch/utils/data/dataloader.py"), 1256, "_try_get_data", "raise RuntimeError(f\"DataLoader worker (pid(s) {pids_str}) exited unexpectedly\") from e")]
        chained = [([(sp(run, "torch/utils/data/dataloader.py"), 1243, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                     (sp(run, "torch/utils/data/_utils/signal_handling.py"), 73, "handler", "_error_if_any_worker_fails()")],
                    "RuntimeError: DataLoader worker (pid %d) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit." % wpid,
                    "The above exception was the direct cause of the following exception:")]
        traceback(run, r, t_f + 0.3, fr, "RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % wpid, chained=chained)
        app_fail_exit(run, r, t_f + 1.2)
        note = "SIGBUS in a DataLoader worker of rank %d (/dev/shm too small)" % r
    ev(run, "rank", r)
    ev(run, "launcher", r)
    propagate(run, plan, [r], t_f, "dead", coll, quick_p=0.5)
    must(run, "rank_or_launcher", r)
    set_truth(run, "crash_signal", r, nd, False, note)


def f_hang(run: Run, fw: str, plan: Plan, t_f: float, ctx: dict):
    rng = run.rng
    r = ctx["culprit"]
    rk = run.ranks[r]
    nd = rk.node
    coll = pick_coll(run, plan, plan.step_at(t_f))
    run.meta["wd_style"] = "dump" if rng.random() < 0.75 else "throw"
    propagate(run, plan, [r], t_f, "stuck", coll)
    where = rng.choice(["ckpt", "gil", "barrier", "compile"])
    stacks = {
        "ckpt": [("/workspace/train/checkpoint.py", 143, "wait_for_async_save"), ("/usr/lib/python%s/concurrent/futures/_base.py" % run.py, 451, "result"),
                 ("/usr/lib/python%s/threading.py" % run.py, 320, "wait")],
        "gil": [("/workspace/train/metrics.py", 88, "flush"), (sp(run, "wandb/sdk/interface/interface_shared.py"), 512, "_publish"),
                ("/usr/lib/python%s/threading.py" % run.py, 320, "wait")],
        "barrier": [("/workspace/train/eval.py", 61, "maybe_eval"), (sp(run, "torch/distributed/c10d_logger.py"), 81, "wrapper"),
                    (sp(run, "torch/distributed/distributed_c10d.py"), 4635, "monitored_barrier")],
        "compile": [(sp(run, "torch/_dynamo/eval_frame.py"), 655, "_fn"), (sp(run, "torch/_inductor/codecache.py"), 3190, "result"),
                    ("/usr/lib/python%s/concurrent/futures/_base.py" % run.py, 451, "result"), ("/usr/lib/python%s/threading.py" % run.py, 320, "wait")],
    }[where]
    run.meta["pyspy"] = (r, stacks, t_f + run.pg_timeout * rng.uniform(0.3, 0.9))
    ev(run, "all", r)
    if run.meta["wd_style"] == "dump":
        ev(run, "rank", r)     # its own 'last enqueued' numbers lag the others
    ev(run, "extra", "pyspy")
    ev(run, "extra", "frtrace")
    run.meta["frtrace"] = (r, coll)
    must(run, "peers_or_extra", r)
    must(run, "rank", r)
    set_truth(run, "hang", r, nd, False, "rank %d stopped issuing collectives (%s); the others timed out in SeqNum=%d" % (r, {"ckpt": "blocked joining an async checkpoint thread", "gil": "stuck in a metrics flush", "barrier": "stuck in an extra barrier only it entered", "compile": "stuck in an inductor compile"}[where], coll[0]))


def f_mismatch(run: Run, fw: str, plan: Plan, t_f: float, ctx: dict):
    rng = run.rng
    r = ctx["culprit"]
    rk = run.ranks[r]
    nd = rk.node
    seq, op, nin, nout = pick_coll(run, plan, plan.step_at(t_f))
    variant = rng.choice(["detail", "timeout", "timeout"])
    run.meta["culprit_attrib"] = "c10"
    if variant == "detail":
        op2 = rng.choice([o for o in ["ALLGATHER", "BROADCAST", "REDUCE_SCATTER", "ALLREDUCE"] if o != op.strip("_").replace("_BASE", "")])
        op1 = op.strip("_").replace("_BASE", "") if op != "_REDUCE_SCATTER_BASE" else "REDUCE_SCATTER"
        shp = "[%d]" % nin
        shp2 = "[%d]" % (nin if rng.random() < 0.5 else nin // 2 or 1)

        def fp(o, s):
            return "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=%s, TensorDtypes=BFloat16, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (seq, o, s)
        diff = "\tOp type: %svs %s" % (op1, op2) if op1 != op2 else "\tTensor Tensor shapes: %svs %s" % (shp, shp2)
        for x in run.ranks:
            other = r if x.r != r else (0 if r != 0 else 1)
            mine = fp(op2, shp2) if x.r == r else fp(op1, shp)
            theirs = fp(op1, shp) if x.r == r else fp(op2, shp2)
            fr = train_frames(run, fw) + [(sp(run, "torch/distributed/c10d_logger.py"), 81, "wrapper", "return func(*args, **kwargs)"),
                                          (sp(run, "torch/distributed/distributed_c10d.py"), 2806, "all_reduce", "work = group.allreduce([tensor], opts)")]
            tt = t_f + rng.uniform(0.01, 0.5)
            traceback(run, x.r, tt, fr, "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: %s" % (x.r, mine, other, theirs, diff))
            app_fail_exit(run, x.r, tt + 0.5)
        ev(run, "peers", r)
        ev(run, "rank", r)
        note = "TORCH_DISTRIBUTED_DEBUG=DETAIL caught rank %d issuing %s while the others issued %s at SequenceNumber=%d" % (r, op2, op1, seq)
    else:
        # rank r issues a different collective with the same seq; everyone hangs then times out
        op2, n2 = rng.choice([("BROADCAST", 1), ("ALLREDUCE", max(1, nin // 2)), ("_ALLGATHER_BASE", nin), ("ALLREDUCE", nin + 1024)])
        if (op2, n2) == (op, nin):
            n2 = nin + 8
        style = run.meta.setdefault("wd_style", rng.choice(["dump", "throw"]))
        for x in run.ranks:
            tt = t_f + run.pg_timeout + rng.uniform(0.01, 0.6)
            if x.r == r:
                te = watchdog_timeout(run, x.r, tt, seq, op2, n2, n2 if not op2.startswith("_ALLG") else n2 * run.world, seq, seq - 1, style=style)
            else:
                te = watchdog_timeout(run, x.r, tt, seq, op, nin, nout, seq, seq - 1, style=style)
            run.set_exit(x.r, te, "signal", 6)
        ev(run, "rank", r)
        note = "rank %d entered %s(numel=%d) while all other ranks entered %s(numel=%d) at SeqNum=%d; all timed out" % (r, op2, n2, op, nin, seq)
    must(run, "rank", r)
    set_truth(run, "collective_mismatch", r, nd, False, note)


def f_dataloader(run: Run, fw: str, plan: Plan, t_f: float, ctx: dict):
    rng = run.rng
    r = ctx["culprit"]
    rk = run.ranks[r]
    nd = rk.node
    coll = pick_coll(run, plan, plan.step_at(t_f))
    variant = ctx.get("variant") or rng.choice(["faulthandler", "dl_timeout", "nfs_node", "retries"])
    s = lambda rel: sp(run, rel)
    if variant == "nfs_node":
        srv = rng.choice(["nfs-02", "fsx-0a1b2c3d4e5f6a7b8.fsx.us-east-1.amazonaws.com", "vast-vip-3", "10.40.0.12"])
        for k in range(rng.randint(3, 8)):
            run.kern(nd, t_f + 30 + k * rng.uniform(60, 200), "nfs: server %s not responding, still trying" % srv)
        run.kern(nd, t_f + rng.uniform(130, 400), "INFO: task pt_data_worker:%d blocked for more than 122 seconds.\n      Tainted: P           OE     %s\n\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message." % (rk.pid + 311, run.meta.get("kver", "5.15.0-119-generic #129-Ubuntu")))
        local = [x.r for x in run.ranks_on(nd)]
        propagate(run, plan, local, t_f, "stuck", coll)
        must(run, "kernel", nd.idx)
        ev(run, "kernel_node", nd.idx)
        set_truth(run, "data_loader_stall", nd.first_rank, nd, False, "NFS server %s stopped responding to %s; every rank on that node blocked in data loading" % (srv, nd.host), rank_known=False)
        return
    run.meta["culprit_attrib"] = {"faulthandler": "raw", "dl_timeout": "tb", "retries": "raw"}.get(variant, "raw")
    if variant == "faulthandler":
        tt = t_f + pickn(run, [300, 600, 900]) * (0.5 if run.pg_timeout <= 600 else 1)
        tt = min(tt, t_f + run.pg_timeout - 30)
        lines = ["Timeout (%s)!" % ("0:%02d:00" % ((tt - t_f) // 60) if (tt - t_f) < 3600 else "1:00:00"),
                 "Thread 0x%016x (most recent call first):" % (rng.randint(0x7f0000000, 0x7ffffffff) * 0x1000 + 0x640),
                 '  File "/usr/lib/python%s/selectors.py", line 415 in select' % run.py,
                 '  File "/usr/lib/python%s/multiprocessing/connection.py", line 948 in wait' % run.py,
                 '  File "/usr/lib/python%s/multiprocessing/connection.py", line 440 in _poll' % run.py,
                 '  File "/usr/lib/python%s/multiprocessing/connection.py", line 257 in poll' % run.py,
                 '  File "/usr/lib/python%s/multiprocessing/queues.py", line 113 in get' % run.py,
                 '  File "%s", line 1243 in _try_get_data' % s("torch/utils/data/dataloader.py"),
                 '  File "%s", line 1411 in _get_data' % s("torch/utils/data/dataloader.py"),
                 '  File "%s", line 1458 in _next_data' % s("torch/utils/data/dataloader.py"),
                 '  File "%s", line 708 in __next__' % s("torch/utils/data/dataloader.py")]
        for (f, l, fn, code) in reversed(train_frames(run, fw)[:2]):
            lines.append('  File "%s", line %d in %s' % (f, l, fn))
        for i, ln in enumerate(lines):
            run.emit(r, tt + i * 0.0001, ln)
        note = "rank %d blocked in DataLoader __next__ (faulthandler watchdog dump); the others timed out waiting" % r
        propagate(run, plan, [r], t_f, "stuck", coll)
    elif variant == "dl_timeout":
        run.pg_timeout = max(run.pg_timeout, 1800)
        dlt = pickn(run, [300, 600, 900])
        tt = t_f + dlt
        fr = data_frames(run, fw) + [(s("torch/utils/data/dataloader.py"), 1411, "_get_data", "success, data = self._try_get_data(self._timeout)"),
                                     (s("torch/utils/data/dataloader.py"), 1256, "_try_get_data", "raise RuntimeError(f\"DataLoader timed out after {timeout} seconds\") from e")]
        chained = [([(s("torch/utils/data/dataloader.py"), 1243, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                     ("/usr/lib/python%s/multiprocessing/queues.py" % run.py, 114, "get", "raise Empty")], "_queue.Empty", "The above exception was the direct cause of the following exception:")]
        traceback(run, r, tt, fr, "RuntimeError: DataLoader timed out after %d seconds" % dlt, chained=chained)
        app_fail_exit(run, r, tt + 1)
        propagate(run, plan, [r], t_f, "dead", coll, quick_p=0.3, t_dead=tt + 1)
        note = "rank %d's DataLoader produced nothing for %ds (timeout raised); others waited in the collective" % (r, dlt)
    else:
        host = rng.choice(["huggingface.co", "s3.us-east-2.amazonaws.com", "storage.googleapis.com"])
        for k in range(rng.randint(4, 12)):
            tt = t_f + k * rng.uniform(20, 70)
            if host == "huggingface.co":
                run.emit(r, tt, "%s:%d: UserWarning: Got disconnected from remote data host. Retrying in 5sec [%d/20]\n  warnings.warn(" % (s("datasets/utils/file_utils.py"), pickn(run, [1378, 1489]), k + 1))
            else:
                run.emit(r, tt, "%s - WARNING - %s - retrying read of shard %s (attempt %d/30): ReadTimeoutError('Read timeout on endpoint URL: \"https://%s/corpus-v3/shard-%05d.tar\"')" % (
                    ts_py(run.e(tt, nd)), "streaming", "shard-%05d.tar" % rng.randint(0, 40000), k + 1, host, rng.randint(0, 40000)))
        propagate(run, plan, [r], t_f, "stuck", coll)
        note = "rank %d's streaming data reads from %s kept timing out and retrying; the rank stalled and the others timed out" % (r, host)
    ev(run, "rank", r)
    must(run, "rank", r)
    set_truth(run, "data_loader_stall", r, nd, False, note)


def f_preemption(run: Run, fw: str, plan: Plan, t_f: float, ctx: dict):
    rng = run.rng
    kind = ctx.get("kind") or "jobwide"
    if kind == "node":
        nd = ctx["node"]
        for x in run.ranks_on(nd):
            run.set_exit(x.r, t_f + rng.uniform(0.5, 5), "signal", 15)
        run.meta["preempt_node"] = nd
        coll = pick_coll(run, plan, plan.step_at(t_f))
        propagate(run, plan, [x.r for x in run.ranks_on(nd)], t_f, "dead", coll, quick_p=0.6)
        must(run, "launcher", None)
        set_truth(run, "preemption", nd.first_rank, nd, False, "spot/preemptible node %s was reclaimed; its pod got SIGTERM" % nd.host, rank_known=False)
        return
    for x in run.ranks:
        run.set_exit(x.r, t_f + rng.uniform(0.2, 3), "signal", 15)
    run.meta["preempt_job"] = ctx.get("reason", "PREEMPTION")
    run.meta["preempt_t"] = t_f
    if run.layout == "single_node":
        nd = run.nodes[0]
        run.kern(nd, t_f - 0.8, "ACPI: button: power button pressed" if rng.random() < 0.3 else "input: Power Button as /devices/LNXSYSTM:00/LNXPWRBN:00/input/input0")
        run.sysl(nd, t_f - 0.7, "systemd-logind[%d]" % rng.randint(900, 2000), "Power key pressed short.")
        run.sysl(nd, t_f - 0.6, "systemd-logind[%d]" % rng.randint(900, 2000), "Powering off...")
        run.sysl(nd, t_f - 0.5, "google_guest_agent[%d]" % rng.randint(900, 2000) if rng.random() < 0.5 else "amazon-ssm-agent[%d]" % rng.randint(900, 2000),
                 "Instance is being preempted; shutdown scripts will run")
        must(run, "kernel", 0)
    must(run, "launcher", None)
    note = {"PREEMPTION": "the scheduler preempted the whole job", "TIME LIMIT": "the job hit its wall-clock limit",
            "SPOT": "the cloud reclaimed the spot capacity of the whole job"}.get(ctx.get("reason", "PREEMPTION"), "job preempted")
    if run.layout in ("torchrun_logdir", "user_bundle", "single_node", "deepspeed_pdsh"):
        note = "every launcher/worker got SIGTERM from outside at the same moment (allocation preempted)"
    set_truth(run, "preemption", None, None, False, note)


def f_straggler(run: Run, fw: str, plan: Plan, t_f: float, ctx: dict):
    """Straggler: injected into the plan before normal output; here only the evidence."""
    rng = run.rng
    r = ctx["culprit"]
    rk = run.ranks[r]
    nd = rk.node
    variant = ctx["variant"]
    factor = ctx["factor"]
    must(run, "rank", r)
    if variant == "megatron":
        megatron_straggler_report(run, plan, ctx["t_end"], r, factor, rng.randint(1100, 1400))
        ev(run, "rank", 0)
        must(run, "rank", 0)
        note = "rank %d (GPU %d on %s) ran %.0f%% slower from mid-run; Megatron straggler detector lines show it" % (r, rk.local, nd.host, (factor - 1) * 100)
    elif variant == "per_rank":
        li = max(plan.log_interval, 20)
        s0 = plan.step_at(plan.slow_from) - 3 * li
        s0 = max(plan.start_step + li, s0 - s0 % li)
        step = s0
        cnt = 0
        while plan.t_of(step) < ctx["t_end"] and cnt < 400:
            t = plan.t_of(step)
            slow = plan.slow_from is not None and t >= plan.slow_from
            for x in run.ranks:
                base = plan.dt * 0.78
                comp = base * (factor if (slow and x.r == r) else 1.0) * rng.uniform(0.98, 1.02)
                wait = (base * factor - comp if slow else 0.0) + rng.uniform(0.005, 0.03)
                run.emit(x.r, t + 0.01 * x.local, "%s rank=%d step=%d fwd_bwd=%.3fs optim=%.3fs data=%.3fs comm_wait=%.3fs" % (
                    ts_py(run.e(t, x.node)), x.r, step, comp, plan.dt * 0.05, rng.uniform(0.001, 0.01), wait), "out")
            step += li
            cnt += 1
        ev(run, "rank", r)
        must(run, "rank", r)
        note = "rank %d's compute time is %.1fx the others from mid-run; others show the same amount as comm wait" % (r, factor)
    else:  # nvsmi (node-level thermal) + throughput drop in rank-0 log
        run.meta["smi_perf"] = (nd, rk.local)
        ev(run, "extra_map", "smi_perf")
        must(run, "extra", "smi_perf")
        must(run, "rank", 0)
        note = "GPU %d on %s in HW thermal slowdown; throughput dropped by %.0f%%" % (rk.local, nd.host, (1 - 1 / factor) * 100)
    set_truth(run, "straggler", r, nd, False, note)


INJECT = {
    "gpu_hardware": f_gpu_hardware, "ecc_memory": f_ecc_memory, "nvlink": f_nvlink, "network": f_network,
    "host_oom_kill": f_host_oom, "cuda_oom": f_cuda_oom, "illegal_memory_access": f_illegal_mem,
    "python_exception": f_python_exc, "crash_signal": f_crash_signal, "hang": f_hang,
    "collective_mismatch": f_mismatch, "data_loader_stall": f_dataloader, "preemption": f_preemption,
    "straggler": f_straggler,
}


# =============================================================== decoys / noise
def _build_date(run: Run) -> str:
    from b4_common import dt as _dt, DAYS, MONTHS
    d = _dt(run.meta.get("driver_date", run.t0 - 90 * 86400) - 4 * 86400 + 3600 * 9 + 1234)
    return "%s %s %2d %s UTC %d" % (DAYS[d.weekday()], MONTHS[d.month - 1], d.day, d.strftime("%H:%M:%S"), d.year)


def decoys(run: Run, plan: Plan, t_end: float, healthy: bool):
    rng = run.rng
    culprit_node = run.truth.get("node_obj")
    for nd in run.nodes:
        # kernel background noise on every node
        if rng.random() < 0.5:
            run.kern(nd, -rng.uniform(3600, 86400), "nvidia-peermem: Loading nvidia-peermem module")
        if rng.random() < 0.3:
            run.kern(nd, nd.boot + rng.uniform(8, 30), "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s  %s" % (run.driver, _build_date(run)))
        if rng.random() < 0.25:
            run.kern(nd, rng.uniform(0, max(60, t_end * 0.8)), "perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d" % (rng.randint(2600, 9000), rng.randint(2500, 2600), pickn(run, [63000, 47000, 31000])))
        if rng.random() < 0.2:
            run.kern(nd, rng.uniform(0, max(60, t_end * 0.7)), "hrtimer: interrupt took %d ns" % rng.randint(100000, 900000))
    # an old Xid from a previous job on some node (often the culprit node -- a trap) or a recovered link flap
    if rng.random() < (0.45 if healthy else 0.35) and run.nodes:
        nd = culprit_node if (culprit_node is not None and rng.random() < 0.5) else rng.choice(run.nodes)
        g = rng.randrange(nd.gpus)
        t_old = -rng.uniform(2 * 3600, 4 * 86400)
        code = rng.choice([13, 31, 43, 79, 63, 92])
        txt = {13: "pid=%d, name=python3, Graphics SM Warp Exception on (GPC 2, TPC 4, SM 1): Out Of Range Address" % rng.randint(1000, 90000),
               31: "pid=%d, name=python3, Ch 00000018, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_5 faulted @ 0x7f3c_a2e00000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % rng.randint(1000, 90000),
               43: "pid=%d, name=python, Ch 00000010" % rng.randint(1000, 90000),
               79: "pid=%d, name=python, GPU has fallen off the bus." % rng.randint(1000, 90000),
               63: "pid='<unknown>', name=<unknown>, Row Remapper: New row (0x00000000000a83f2) marked for remapping, reset gpu to activate.",
               92: "pid=%d, name=python, High single-bit ECC error rate" % rng.randint(1000, 90000)}[code]
        run.kern(nd, t_old, "NVRM: Xid (PCI:%s): %d, %s" % (nd.pci[g], code, txt))
        run.meta["decoy_old_xid"] = (nd.host, code)
    if rng.random() < 0.3 and run.nodes:
        nd = rng.choice(run.nodes)
        k = rng.randrange(len(nd.ib_ifs))
        mp = mlx_pci(nd, k)
        tflap = rng.uniform(-7200, max(-60, plan.t_train0 * 0.5))
        ifn = "ibp%ds0" % int(mp.split(":")[1], 16)
        run.kern(nd, tflap, "mlx5_core %s %s: Link down" % (mp, ifn))
        run.kern(nd, tflap + rng.uniform(2, 9), "mlx5_core %s %s: Link up" % (mp, ifn))
    # harmless TCPStore/teardown noise on healthy completion
    if healthy and rng.random() < 0.5:
        for x in run.ranks:
            if rng.random() < 0.15:
                destroy_warning(run, x.r, t_end - 0.5)
