"""blind59 scenarios, part A: GPU hardware, ECC, NVLink, the network causes themselves and
the hardware straggler.  Each run_* fills ctx (records, artifacts, truth, evidence groups)."""
from b59_core import busid_to_pci, nic_pci, pylog, sec, journal, glog
import b59_text as T
import b59_fabric as F
from b59_common import pick_visible, baseline, collateral, launcher_records, kernel_noise, boot_kernel_lines


def setup(ctx, must, lo=900, hi=30 * 3600, t_fail=None):
    R = ctx.R
    ctx.t_fail = t_fail if t_fail is not None else ctx.t_init + R.uniform(lo, hi)
    pick_visible(ctx, must)
    baseline(ctx, ctx.t_fail)
    return ctx.t_fail


def cuda_exc(job):
    return "torch.AcceleratorError" if job.tv[:3] in ("2.8", "2.9") else "RuntimeError"


def cuda_error_tb(ctx, r, t, msg, eid="own", protect=True):
    job, R = ctx.job, ctx.R
    leaf = [("/workspace/model/layers.py", R.randint(80, 400), "forward", R.pick(["x = self.mlp(self.norm(x))", "attn = torch.softmax(scores, dim=-1)", "return F.linear(x, self.weight)"]))]
    exc = ["%s: CUDA error: %s" % (cuda_exc(job), msg),
           "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
           "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
           "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""]
    ctx.B.rank(t, r, "py", T.py_tb(job, r, T.app_frames(job, R, leaf), exc), eid=eid, protect=protect, dt_step=0.0001)


def nccl_cuda_failure(ctx, r, t, msg, eid="own", protect=False):
    job = ctx.job
    ln = T.nwarn(job, r, ctx.dr(t, r), "enqueue.cc:%d" % ctx.R.pick([1528, 1612]), "Cuda failure '%s'" % msg, func="ncclLaunchKernel")
    ctx.B.rank(t, r, "nccl", ["", ln], eid=eid, protect=protect)


def kern_prefix_hint(ctx, h):
    if h not in ctx.attach_dmesg:
        ctx.attach_dmesg.append(h)


# ================================================================ gpu_hardware
def run_gpu_hardware(ctx):
    job, R, B = ctx.job, ctx.R, ctx.B
    r0 = R.randrange(job.world)
    X, lr = job.node(r0), job.lrank(r0)
    t = setup(ctx, [r0])
    pci = busid_to_pci(job.busids[lr])
    var = R.pick(["79", "79", "119", "62"])
    kl = []
    if var == "79":
        if R.chance(0.5):
            kl.append("pcieport %s: AER: Uncorrected (Fatal) error received: %s.0" % ("0000:%02x:01.0" % (int(pci[5:7], 16) - 1), pci))
            kl.append("nvidia %s.0: AER: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Receiver ID)" % pci)
        kl += T.gpu_id_lines(job, X, lr, R)
        kl.append(T.xid(pci, 79, "GPU has fallen off the bus.", pid="unknown" if job.driver >= "550" else None))
        kl.append("NVRM: GPU %s.0: GPU has fallen off the bus." % pci)
        kl.append("NVRM: nvGpuOpsReportFatalError: uvm encountered global fatal error 0x60, requiring os reboot to recover.")
        msg = "unspecified launch failure"
        how = "Xid 79 (GPU fell off the bus)"
    elif var == "119":
        kl += T.gpu_id_lines(job, X, lr, R)
        for i in range(R.randint(1, 3)):
            kl.append(T.xid(pci, 119, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function %s." % (
                lr, R.pick(["76 (GSP_RM_CONTROL) (0x2080a068 0x4)", "103 (GSP_RM_ALLOC) (0x2081 0x4)", "10 (FREE) (0xa55a0040 0x0)"])),
                pid=job.pids[r0], name="pt_main_thread"))
        kl.append("NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x000000002080a068 0x0000000000000004." % lr)
        if job.driver >= "565":
            kl.append(T.xid(pci, 154, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)"))
        msg = "unspecified launch failure"
        how = "Xid 119 (GSP RPC timeout)"
    else:
        kl += T.gpu_id_lines(job, X, lr, R)
        kl.append(T.xid(pci, 62, "%04x(%04x) %08x %08x" % (R.randint(0, 0xffff), R.randint(0, 0xffff), R.randint(0, 2**32 - 1), R.randint(0, 2**32 - 1)), pid=job.pids[r0], name="python3"))
        kl.append(T.xid(pci, 45, "Ch 0000000%d" % R.randint(2, 9), pid=job.pids[r0], name="python3"))
        msg = "unspecified launch failure"
        how = "Xid 62 (PMU halt)"
    B.kern(t, X, kl, eid="xid", protect=True, dt_step=0.002)
    kern_prefix_hint(ctx, X)
    own = R.chance(0.55)
    if own:
        if R.chance(0.6):
            cuda_error_tb(ctx, r0, t + R.uniform(0.05, 2), msg, protect=False)
            ctx.deaths[r0] = (t + 2.5, 1)
        else:
            nccl_cuda_failure(ctx, r0, t + R.uniform(0.05, 2), msg)
            ctx.deaths[r0] = (t + 3.0, -6)
        collateral(ctx, "exit", [r0], t + 2, X)
    else:
        collateral(ctx, "hang", [r0], t, X, hung=[r0])
    if R.chance(0.4):
        B.art("nvsmi_err:%s" % X, X, ["Unable to determine the device handle for GPU%s.0: Unknown Error" % pci.upper().replace("0000:", "00000000:"),
                                      "No devices were found" if R.chance(0.3) else ""], eid="xid2")
    ctx.rank_groups = [["xid", "bus:%d" % r0], ["own"]] + ([["xid", "pid:%d" % r0]] if var in ("119", "62") else [])
    ctx.node_groups = [["xid"], ["own"], ["xid2"]]
    ctx.truth_rank, ctx.truth_node = r0, X
    ctx.notes = "GPU %s (rank %d) on %s hit %s; the peers' NET/%s errors and watchdog timeouts are collateral." % (
        pci, r0, X, how, T.net_name(job))
    launcher_records(ctx)


# ================================================================ ecc_memory
def run_ecc_memory(ctx):
    job, R, B = ctx.job, ctx.R, ctx.B
    r0 = R.randrange(job.world)
    X, lr = job.node(r0), job.lrank(r0)
    t = setup(ctx, [r0])
    pci = busid_to_pci(job.busids[lr])
    addr = R.randint(0x10000000, 0x3fffffff)
    kl = T.gpu_id_lines(job, X, lr, R)
    kl.append(T.xid(pci, 48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x%x partition %d, subpartition %d." % (
        addr, R.randint(0, 23), R.randint(0, 3)), pid="unknown"))
    kl.append(T.xid(pci, 63, "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % addr))
    B.kern(t, X, kl, eid="xid", protect=True, dt_step=0.001)
    B.kern(t + 0.01, X, T.xid(pci, R.pick([94, 94, 95]), R.pick(["Contained: SM (0x1). RST: No, D-RST: No", "Uncontained: LTC TAG (0x2, 0x1). RST: Yes, D-RST: No"]),
                               pid=job.pids[r0], name=R.pick(["python3", "pt_main_thread"])), eid="xidpid", protect=True)
    kern_prefix_hint(ctx, X)
    if R.chance(0.7):
        cuda_error_tb(ctx, r0, t + R.uniform(0.02, 1.0), "uncorrectable ECC error encountered", protect=False)
        ctx.deaths[r0] = (t + 1.5, 1)
    else:
        nccl_cuda_failure(ctx, r0, t + R.uniform(0.02, 1.0), "uncorrectable ECC error encountered")
        ctx.deaths[r0] = (t + 2.0, -6)
    collateral(ctx, "exit", [r0], t + 1.2, X)
    if R.chance(0.4):
        B.art("nvsmi_ecc:%s" % X, X, ["GPU %s" % pci.upper().replace("0000:", "00000000:") + ".0",
                                      "    Remapped Rows", "        Correctable Error                 : 0",
                                      "        Uncorrectable Error               : 1", "        Pending                           : Yes",
                                      "        Remapping Failure Occurred        : No"], eid="xid2")
    ctx.rank_groups = [["xid", "bus:%d" % r0], ["xidpid", "pid:%d" % r0], ["own"]]
    ctx.node_groups = [["xid"], ["xidpid"], ["own"]]
    ctx.truth_rank, ctx.truth_node = r0, X
    ctx.notes = "Uncorrectable ECC error (Xid 48/63/9x) on GPU %s of %s killed rank %d; the fabric errors on the other nodes are collateral." % (pci, X, r0)
    launcher_records(ctx)


# ================================================================ nvlink
def run_nvlink(ctx):
    job, R, B = ctx.job, ctx.R, ctx.B
    r0 = R.randrange(job.world)
    X, lr = job.node(r0), job.lrank(r0)
    t = setup(ctx, [r0])
    pci = busid_to_pci(job.busids[lr])
    link = R.randint(0, 17)
    kl = T.gpu_id_lines(job, X, lr, R)
    kl.append(T.xid(pci, 74, "NVLink: fatal error detected on link %d(0x%x, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)" % (link, R.pick([0x10000, 0x8000, 0x20000])),
                    pid=job.pids[r0] if job.driver >= "550" else None, name="python3"))
    B.kern(t, X, kl, eid="xid", protect=True, dt_step=0.001)
    lr2 = (lr + R.randint(1, job.gpn - 1)) % job.gpn if job.gpn > 1 else lr
    r2 = job.ranks_on(X)[lr2]
    if R.chance(0.6) and job.gpn > 1:
        B.kern(t + R.uniform(0.3, 2.5), X, T.xid(busid_to_pci(job.busids[lr2]), 74, "NVLink: fatal error detected on link %d(0x8000, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)" % R.randint(0, 17)))
    kern_prefix_hint(ctx, X)
    msg = "uncorrectable NVLink error detected during the execution"
    if R.chance(0.6):
        cuda_error_tb(ctx, r0, t + R.uniform(0.05, 0.8), msg, protect=False)
        ctx.deaths[r0] = (t + 1.0, 1)
    else:
        nccl_cuda_failure(ctx, r0, t + R.uniform(0.05, 0.8), msg)
        ctx.deaths[r0] = (t + 1.4, -6)
    if r2 in ctx.visible and r2 != r0 and R.chance(0.5):
        nccl_cuda_failure(ctx, r2, t + R.uniform(1.0, 3.0), msg, eid="own2")
        ctx.deaths[r2] = (t + 3.5, -6)
    collateral(ctx, "exit", [r0], t + 1.0, X)
    if R.chance(0.4):
        B.art("nvlink_status:%s" % X, X, ["GPU %d: %s (UUID: %s)" % (lr, job.gpu_name, job.uuid(X, lr))] +
              ["\t Link %d: %s" % (i, "<inactive>" if i == link else "26.562 GB/s") for i in range(18 if job.gpu != "A100" else 12)], eid="nvl")
    ctx.rank_groups = [["xid", "bus:%d" % r0], ["own"]] + ([["xid", "pid:%d" % r0]] if job.driver >= "550" else [])
    ctx.node_groups = [["xid"], ["own"], ["nvl"]]
    ctx.truth_rank, ctx.truth_node = r0, X
    ctx.notes = "NVLink fatal error (Xid 74) on GPU %s of %s (rank %d) broke the intra-node path; peers on other nodes only saw network-looking errors." % (pci, X, r0)
    launcher_records(ctx)


# ================================================================ network
def common_peer_pred(job, X, min_nodes=2):
    def pred(surv):
        srcs = set()
        for e in surv:
            if e.startswith("peer_err:") and e.endswith(">" + X):
                srcs.add(e.split(":", 1)[1].split(">")[0])
        return len(srcs) >= min_nodes and len(job.nodes) >= 4
    return pred


def run_network(ctx):
    job, R, B = ctx.job, ctx.R, ctx.B
    tr = job.transport
    opts = {"ib": [("ib_link", 3), ("ib_flap", 2), ("dns", 1), ("firewall", 1)],
            "roce": [("roce_link", 2), ("roce_pfc", 2), ("roce_gid", 1), ("mtu", 1), ("dns", 1)],  # mtu: the RoCE netdev
            "efa": [("efa_dev", 4), ("dns", 1), ("firewall", 1)],
            "socket": [("bond", 3), ("mtu", 2), ("firewall", 1), ("dns", 1)]}[tr]
    var = R.wpick(opts)
    ctx.variant = var
    if var in ("dns", "firewall", "roce_gid"):
        return _network_startup(ctx, var)
    k = R.randrange(job.gpn)
    X = R.pick(job.nodes[1:] if len(job.nodes) > 1 else job.nodes)
    rX = job.ranks_on(X)[k]
    t = setup(ctx, [rX])
    kern_prefix_hint(ctx, X)
    ngroups = [common_peer_pred(job, X)]
    rgroups = []
    if var in ("ib_link", "ib_flap", "roce_link"):
        hca = job.hcas[k]
        npci = nic_pci(job.busids[k], k)
        lines = []
        if var == "ib_flap":
            for j in range(R.randint(2, 5)):
                tt = t - R.uniform(60, 3000)
                B.kern(tt, X, ["mlx5_core %s: Port module event: module %d, Cable unplugged" % (npci, k)], eid="kern_nic")
                B.kern(tt + R.uniform(1, 9), X, ["mlx5_core %s: Port module event: module %d, Cable plugged" % (npci, k)], eid="kern_nic")
        if tr == "roce":
            nd = job.roce_if[k]
            lines.append("mlx5_core %s %s: Link down" % (npci, nd))
            if R.chance(0.4):
                lines.append("mlx5_core %s %s: Link up" % (npci, nd))
                lines.append("mlx5_core %s %s: Link down" % (npci, nd))
        else:
            lines.append(R.pick(["mlx5_core %s: Port module event[error]: module %d, Cable error, High Temperature",
                                 "mlx5_core %s: Port module event[error]: module %d, Cable error, Bad or shorted cable/module",
                                 "mlx5_core %s: Port module event: module %d, Cable unplugged"]) % (npci, k))
        B.kern(t - R.uniform(0.1, 1.5), X, lines, eid="kern_nic", protect=True, dt_step=0.8)
        collateral(ctx, "net", [], t, X, lr_bad=k)
        down = R.chance(0.6)
        if tr == "ib":
            over = {hca: ("Down", "Polling", 10)} if down else {hca: ("Active", "LinkUp", 400 if job.gpu != "A100" else 200)}
            B.art("ibstat:%s" % X, X, F.ibstat(job, X, over), eid="ibstat_bad" if down else None, t=t + R.uniform(600, 7200))
            sw, port = F.switch_of(job, X, k)
            swlid = R.randint(2, 60)
            ev = [(job.lt(t + 0.2, job.nodes[0]), 1, F.sm_linkchange(job, swlid)),
                  (job.lt(t + 0.3, job.nodes[0]), 2, F.sm_gid_out(job.gid(X, k))),
                  (job.lt(t + 1.4, job.nodes[0]), 2, "SUBNET UP")]
            if not down:
                ev += [(job.lt(t + R.uniform(20, 400), job.nodes[0]), 1, F.sm_linkchange(job, swlid)),
                       (job.lt(t + R.uniform(400, 500), job.nodes[0]), 2, F.sm_gid_in(job.gid(X, k)))]
            B.art("opensm", None, F.opensm(job, ev + sm_noise(ctx), R), eid="sm")
            n_ld = R.randint(2, 40)
            warns = [("Port Counters", '%s - "link_down_counter" increased during the run (difference value=%d,difference allowed threshold=0)' % (F.port_desc(job, X, k), n_ld)),
                     ("Port Counters", '%s - "symbol_error_counter" increased during the run (difference value=%d,difference allowed threshold=1)' % (F.port_desc(job, X, k), R.randint(200, 65535)))]
            errs = []
            if down:
                errs.append(("Links Check", 'Link %s/P%d <--> %s - physical state is Polling, logical state is Down' % (sw, port, F.port_desc(job, X, k))))
            else:
                warns.append(("Cable Report", '%s - High Temperature Warning (Temperature=%dC, Threshold=70C)' % (F.port_desc(job, X, k), R.randint(71, 84))))
            warns += ibdiag_unrelated(ctx)
            B.art("ibdiagnet", None, F.ibdiagnet(job, R, job.lt(t + R.uniform(900, 9000), job.nodes[0]), warns, errs), eid="ibdiag_bad")
            B.art("perfquery:%s" % X, X, F.perfquery(job, X, k, R, {"LinkDownedCounter": n_ld, "SymbolErrorCounter": R.randint(300, 65535),
                                                                    "LinkErrorRecoveryCounter": R.randint(1, 255), "PortRcvErrors": R.randint(10, 5000)}), eid="perfq_bad")
            ngroups += [["kern_nic"], ["ibstat_bad"], ["ibdiag_bad"], ["perfq_bad"], ["sm", "ibstat:%s" % X]]
            rgroups = [["localnic", "kern_nic"], ["localnic", "ibstat_bad"], ["localnic", "ibdiag_bad"], ["localnic", "perfq_bad"]]
        else:
            B.art("rdma_link:%s" % X, X, F.rdma_link(job, X, down=[hca] if down else []), eid="rdma_bad" if down else None)
            B.art("hw_counters:%s" % X, X, F.hw_counters(job, X, k, R, retrans=True), eid="hwc_bad")
            ngroups += [["kern_nic"], ["rdma_bad"]]
            rgroups = [["localnic", "kern_nic"], ["localnic", "rdma_bad"]]
        if job.nv < (2, 24, 0):
            rgroups = []
        ctx.notes = "The %s link of %s (%s, rail %d) went down at the failure; NCCL on every node reported NET/IB errors, the peers all naming %s." % (
            "InfiniBand" if tr == "ib" else "RoCE", X, hca, k, X)
        ctx.truth_rank = rX if rgroups else None
    elif var == "roce_pfc":
        hca = job.hcas[k]
        nd = job.roce_if[k]
        npci = nic_pci(job.busids[k], k)
        B.kern(t - R.uniform(5, 60), X, "mlx5_core %s %s: mlx5e_tx_timeout_work:%d:(pid %d): TX timeout on queue: %d, SQ: 0x%x, CQ: 0x%x, SQ Cons: 0x%x SQ Prod: 0x%x, usecs since last trans: %d" % (
            npci, nd, R.pick([105, 112]), R.randint(100, 9000), R.randint(0, 63), R.randint(0x100, 0xfff), R.randint(0x100, 0xfff),
            R.randint(0, 0xffff), R.randint(0, 0xffff), R.randint(10**7, 9 * 10**7)), eid="kern_nic", protect=True)
        collateral(ctx, "net", [], t, X, lr_bad=k)
        B.art("ethtool:%s" % X, X, ["# ethtool -S %s | grep -E 'pause|storm|discard|crc'" % nd] + F.ethtool_S(nd, R, storm=True, grep="pause|storm|discard|crc"), eid="eth_bad")
        for h in R.sample(job.nodes, min(2, len(job.nodes))):
            if h != X:
                B.art("ethtool:%s" % h, h, ["# ethtool -S %s | grep -E 'pause|storm|discard|crc'" % job.roce_if[k]] + F.ethtool_S(job.roce_if[k], R, pause=True, grep="pause|storm|discard|crc"))
        sw = "tor-%s" % R.pick(["r07", "a12", "b03", "r22"])
        swport = "Ethernet%d" % (8 * R.randint(1, 15))
        rows = [(swport, "stormed", R.randint(3, 30), R.randint(1, 20), R.randint(10**5, 10**8))]
        for _ in range(R.randint(0, 2)):
            rows.append(("Ethernet%d" % (8 * R.randint(16, 31)), "operational", 0, 0, 0))
        B.art("pfcwd:%s" % sw, None, ["%s# show pfcwd stats" % sw] + F.pfcwd(sw, rows) + ["", "%s# show lldp table | grep %s" % (sw, swport),
                                                                                               "%-12s %-24s %-16s %s" % (swport, X.split(".")[0], nd, "BR")], eid="pfcwd")
        ngroups += [["kern_nic"], ["eth_bad"], ["pfcwd"]]
        ctx.notes = "%s's NIC %s (%s) stalled and sent a PFC pause storm into the RoCE fabric; the ToR's PFC watchdog stormed the port to %s and every node's NCCL saw retry-exceeded errors." % (X, hca, nd, X)
    elif var == "mtu":
        ifn = job.roce_if[k] if tr == "roce" else job.oob
        tchg = t - R.uniform(30, 900)
        npid = R.randint(600, 2000)
        B.sys(tchg, X, "systemd-networkd[%d]: %s: Reconfiguring with /run/systemd/network/10-netplan-%s.network." % (npid, ifn, ifn), eid="nm")
        B.sys(tchg + 0.2, X, "systemd-networkd[%d]: %s: Link UP" % (npid, ifn))
        collateral(ctx, "hang", [], t, X)
        hs = [h for h in job.nodes[:min(len(job.nodes), R.randint(2, 5))] if h != X] + [X]
        for h in hs:
            lines = F.ip_link(job, h, R, mtu=9000)
            if h == X:
                lines = [ln.replace(" mtu 9000 ", " mtu 1500 ") if (": %s:" % ifn) in ln else ln for ln in lines]
            B.art("iplink:%s" % h, h, ["$ ip link show"] + lines, eid="mtu_bad" if h == X else "iplink_ok")
        ngroups += [["mtu_bad", "iplink_ok"]]
        ctx.notes = "A netplan change reset %s on %s to MTU 1500 while the rest of the job uses 9000; large messages to and from %s were dropped and every rank timed out in a collective." % (ifn, X, X)
    elif var == "efa_dev":
        dev = job.hca_of(k)
        collateral(ctx, "net", [], t, X, lr_bad=k)
        B.art("rdma_link:%s" % X, X, F.rdma_link(job, X, down=[dev]), eid="efa_bad")
        B.art("instances", None, ["$ aws ec2 describe-instances --query 'Reservations[].Instances[].[InstanceId,PrivateDnsName,State.Name]' --output text"] +
              ["%s\t%s\trunning" % (job.instance[h], h if "." in h else h + ".ec2.internal") for h in job.nodes], eid="instmap")
        ngroups += [["efa_bad"], [lambda s, X=X: any(e.startswith("peer_err:") and e.endswith(">" + X) for e in s) and "instmap" in s and common_peer_pred(job, X)(s)]]
        ctx.notes = "EFA device %s on %s (instance %s) stopped responding; libfabric on the peers reported unresponsive receivers naming that instance." % (dev, X, job.instance[X])
    else:  # bond
        s1, s2 = R.pick([("ens3f0", "ens3f1"), ("eno1", "eno2"), ("enp65s0f0", "enp65s0f1")])
        kl = ["%s: (slave %s): link status definitely down, disabling slave" % (job.oob, s1),
              "%s: (slave %s): link status definitely down, disabling slave" % (job.oob, s2),
              "%s: now running without any active interface!" % job.oob]
        B.kern(t - R.uniform(0.5, 3), X, kl, eid="kern_nic", protect=True, dt_step=R.uniform(0.01, 20))
        collateral(ctx, "net", [], t, X, lr_bad=k)
        B.art("iplink:%s" % X, X, ["$ ip link show"] + F.ip_link(job, X, R, down=[job.oob, s1, s2], bond_slaves=[s1, s2]), eid="bond_bad")
        ngroups += [["kern_nic"], ["bond_bad"]]
        ctx.notes = "Both slaves of %s on %s lost link (the switch-side LAG went down); the NCCL socket transport on every node failed, the peers naming %s." % (job.oob, X, X)
    ctx.truth_node = X
    ctx.node_groups = ngroups
    ctx.rank_groups = rgroups
    launcher_records(ctx)


def sm_noise(ctx):
    job, R = ctx.job, ctx.R
    out = []
    for _ in range(R.randint(2, 8)):
        tt = ctx.t_init + R.uniform(0, ctx.t_fail - ctx.t_init)
        out.append((job.lt(tt, job.nodes[0]), 2, R.pick(["osm_ucast_mgr_process: ucast routing engine 'updn' done", "SUBNET UP",
                                                          "log_notice: Reporting Generic Notice type:3 num:66 (New mcast group created) from LID:1 GID:ff12:601b:ffff::1:ff%s" % R.hexs(2)])))
    return out


def ibdiag_unrelated(ctx, n=None):
    R = ctx.R
    n = R.randint(0, 3) if n is None else n
    out = []
    for _ in range(n):
        other = "%s%03d mlx5_%d" % (R.pick(["cpu-", "login", "stor-io", "gpu-x"]), R.randint(1, 400), R.randint(0, 3))
        out.append(("Port Counters", '"%s"/P1 - "port_rcv_errors" increased during the run (difference value=%d,difference allowed threshold=0)' % (other, R.randint(1, 90))))
    if R.chance(0.4):
        out.append(("Speed / Width checks", '"%s"/P%d - Unexpected actual link width 2x (enable_width="1x or 2x or 4x" therefore final width should be 4x)' % (
            R.pick(["spine-03", "ibsw-core-2", "qm97-s04"]), R.randint(1, 64))))
    return out


def _network_startup(ctx, var):
    """failures at job start: DNS on one node, a firewall on one node, a wrong RoCE GID."""
    job, R, B = ctx.job, ctx.R, ctx.B
    X = R.pick(job.nodes[1:] if len(job.nodes) > 1 else job.nodes)
    pick_visible(ctx, job.ranks_on(X)[:2])
    ti = ctx.t_init
    ctx.t_fail = ti
    kern_prefix_hint(ctx, X)
    ngroups = []
    if var == "dns":
        master = job.master if job.layout != "k8s" else "%s-master-0" % job.model
        B.sys(ti - 40, X, "systemd-resolved[%d]: Using degraded feature set UDP instead of UDP+EDNS0 for DNS server %s." % (R.randint(500, 2000), "10.%d.0.2" % R.randint(0, 250)))
        for i in range(R.randint(3, 8)):
            d = job.lt(ti - 30 + i * 30, X)
            pre = "[%s socket.cpp:%d]" % (glog("W", d), 752) if job.era() >= 4 else "[W socket.cpp:663]"
            B.agent(ti - 30 + i * 30, X, "%s [c10d] The IPv4 network addresses of (%s, %d) cannot be retrieved (gai error: -3 - Temporary failure in name resolution)." % (
                pre, master, job.port), eid="dns", protect=True)
        tend = ti + R.pick([600, 900, 1800])
        B.agent(tend, X, "torch.distributed.DistNetworkError: The client socket has timed out after %ds while trying to connect to (%s, %d)." % (
            tend - ti + 30, master, job.port), eid="dns")
        for h in job.nodes:
            if h != X:
                B.agent(tend + R.uniform(0, 30), h, "torch.distributed.DistStoreError: Timed out after %d seconds waiting for clients. %d/%d clients joined." % (
                    tend - ti + 1, len(job.nodes) - 1, len(job.nodes)) if h == job.master else
                    "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError")
        ctx.launcher = "torchrun" if ctx.launcher == "srun" else ctx.launcher
        ngroups = [["dns"]]
        ctx.notes = "%s could not resolve the rendezvous host %s (temporary failure in name resolution), so the other agents waited until the store timed out." % (X, master)
        ctx.deaths.clear()
        ctx.outcome = "failed"
        for r in range(job.world):
            ctx.deaths[r] = (tend + R.uniform(0, 30), 1)
    elif var == "firewall":
        B.sys(ti - R.uniform(3600, 86400), X, "systemd[1]: Started firewalld.service - firewalld - dynamic firewall daemon.", eid="fw")
        baseline_init_only(ctx)
        for r in ctx.visible:
            h = job.node(r)
            if h == X:
                continue
            tt = ti + R.uniform(1, 20)
            if ctx.debug is not None:
                B.rank(tt, r, "nccl", ["", T.socket_connect_fail(job, r, ctx.dr(tt, r), X, R.pick(["No route to host", "Connection timed out"]))],
                       eid="peer_err:%s>%s" % (h, X))
            tb = T.dist_backend_tb(job, r, R, "system", "socketStartConnect: Connect to %s<%d> failed : No route to host" % (job.ip[X], R.randint(30000, 60000)) if R.chance(0.6) else None)
            B.rank(tt + R.uniform(30, 140), r, "py", tb)
            ctx.deaths[r] = (tt + 150, 1)
        for r in range(job.world):
            if r not in ctx.deaths:
                ctx.deaths[r] = (ti + R.uniform(150, 800), 1 if job.node(r) != X else -15)
        ngroups = [["fw"], common_peer_pred(job, X)]
        ctx.notes = "A reimaged %s came back with firewalld enabled; every other node's NCCL connections to it failed with 'No route to host' at communicator setup." % X
    else:  # roce_gid
        k = R.randrange(job.gpn)
        B.sys(ti - R.uniform(600, 40000), X, "NetworkManager[%d]: <info>  [%d.%04d] device (%s): ipv6 address fd00:%x::%x added" % (
            R.randint(900, 3000), R.randint(1.7e9, 1.8e9), R.randint(0, 9999), job.roce_if[k], R.randint(1, 0xffff), R.randint(1, 0xfff)), eid="nm")
        baseline_init_only(ctx)
        for r in job.ranks_on(X):
            if r not in ctx.visible:
                continue
            tt = ti + R.uniform(2, 15)
            msg = "Call to ibv_modify_qp failed with 110 Connection timed out, on dev %s:1, curr state INIT, next state RTR, local GID index 3, local GID fd00:%x::%x, remote GID ::ffff:%s" % (
                job.hcas[job.lrank(r)], R.randint(1, 0xffff), R.randint(1, 0xfff), job.railnet[job.nodes[0]][job.lrank(r)])
            if ctx.debug is not None:
                B.rank(tt, r, "nccl", ["", T.nwarn(job, r, ctx.dr(tt, r), "transport/net_ib.cc:%d" % R.pick([1067, 1149, 1230]), msg, func="ncclIbRtrQp")], eid="gid_err")
            B.rank(tt + 1, r, "py", T.dist_backend_tb(job, r, R, "system", msg), eid="gid_err")
            ctx.deaths[r] = (tt + 2, 1)
        for r in range(job.world):
            if r not in ctx.deaths:
                ctx.deaths[r] = (ti + R.uniform(20, 200), -15 if ctx.launcher != "srun" else 1)
        B.art("show_gids:%s" % X, X, F.show_gids(job, X, k, R, bad_index3=True), eid="gids_bad")
        other = R.pick([h for h in job.nodes if h != X] or [X])
        B.art("show_gids:%s" % other, other, F.show_gids(job, other, k, R))
        ngroups = [["gids_bad"], ["gid_err", "nm"]]
        ctx.notes = "On %s an IPv6 address added to %s shifted the RoCE GID table so NCCL_IB_GID_INDEX=3 no longer pointed at the RoCEv2 IPv4 GID; QP setup to every peer failed." % (X, job.roce_if[k])
    ctx.truth_node = X
    ctx.node_groups = ngroups
    ctx.rank_groups = []
    launcher_records(ctx)


def baseline_init_only(ctx):
    job, R, B = ctx.job, ctx.R, ctx.B
    ti = ctx.t_init
    if ctx.debug == "INFO":
        for r in ctx.visible:
            lines, _ = T.init_lines(job, r, R, chan_lines=0)
            lines = [ln for ln in lines if "Init COMPLETE" not in ln and "Connected all" not in ln and "Init timings" not in ln]
            for i, ln in enumerate(lines):
                B.rank(ti + i * 0.003, r, "nccl", ln, eid="map:%d" % r if "Init START" in ln else None)


# ================================================================ straggler
def run_straggler(ctx):
    job, R, B = ctx.job, ctx.R, ctx.B
    var = R.pick(["thermal", "nic"] if job.transport in ("ib", "roce") else ["thermal", "thermal"])
    ctx.variant = var
    r0 = R.randrange(job.world)
    X, lr = job.node(r0), job.lrank(r0)
    ctx.t_fail = ctx.t_init + R.uniform(4 * 3600, 30 * 3600)
    slow_from = ctx.t_init + R.uniform(600, (ctx.t_fail - ctx.t_init) * 0.5)
    pick_visible(ctx, [r0])
    factor = R.uniform(1.25, 1.9)
    baseline(ctx, ctx.t_fail, slow_from=slow_from, slow_factor=factor)
    kern_prefix_hint(ctx, X)
    if var == "thermal":
        t = slow_from + 300
        while t < ctx.t_fail:
            if R.chance(0.5):
                med = ctx.step_time * 1000 * R.uniform(0.55, 0.7)
                B.rank(t, 0, "app", "%s WARNING [straggler] step %d: slowest rank %d (%s) fwd+bwd %.0f ms vs median %.0f ms" % (
                    pylog(ctx.d(t, job.nodes[0])), ctx.step_at(t), r0, job.hostname(X), med * factor, med), eid="strag_rep", protect=True)
            t += R.uniform(1800, 7200)
        B.art("nvsmi_q:%s" % X, X, ["$ nvidia-smi -q -d PERFORMANCE,TEMPERATURE,CLOCK -i %d" % lr] + F.nvsmi_q(job, X, lr, R, thermal=True), eid="nvsmi_bad")
        other = (lr + 1) % job.gpn
        B.art("nvsmi_q_ok:%s" % X, X, ["$ nvidia-smi -q -d PERFORMANCE,TEMPERATURE,CLOCK -i %d" % other] + F.nvsmi_q(job, X, other, R))
        ctx.rank_groups = [["strag_rep"], ["nvsmi_bad", "bus:%d" % r0]]
        ctx.node_groups = [["strag_rep"], ["nvsmi_bad"]]
        ctx.truth_rank = r0
        ctx.notes = "GPU %d of %s (rank %d) is thermally throttled (HW Slowdown active); every step waits for it, throughput dropped by %d%%." % (
            lr, X, r0, int(100 * (1 - 1 / factor)))
    else:
        k = lr
        hca = job.hcas[k]
        npci = nic_pci(job.busids[k], k)
        B.kern(-R.uniform(100, 3000), X, "mlx5_core %s" % T.pcie_bw(npci, "63.012", "8.0 GT/s PCIe", 8, "504.112" if job.gpu != "A100" else "252.048"), eid="kern_pcie", protect=True)
        if job.transport == "ib":
            B.art("ibstat:%s" % X, X, F.ibstat(job, X, {hca: ("Active", "LinkUp", 100)}), eid="ibstat_bad")
            B.art("iblinkinfo", None, F.iblinkinfo(job, job.nodes[:min(len(job.nodes), 6)] + [X], R,
                                                   {(X, k): ("Active/  LinkUp", "1X", "106.25 Gbps")}), eid="iblink_bad")
        else:
            B.art("ethtool_link:%s" % X, X, ["$ ethtool %s | grep -E 'Speed|Duplex|Link'" % job.roce_if[k], "\tSpeed: 100000Mb/s", "\tDuplex: Full",
                                             "\tLink detected: yes"], eid="ibstat_bad")
            ok = R.pick([h for h in job.nodes if h != X] or [X])
            B.art("ethtool_link:%s" % ok, ok, ["$ ethtool %s | grep -E 'Speed|Duplex|Link'" % job.roce_if[k], "\tSpeed: 400000Mb/s", "\tDuplex: Full",
                                               "\tLink detected: yes"])
        ctx.rank_groups = []
        ctx.node_groups = [["kern_pcie"], ["ibstat_bad"], ["iblink_bad"]]
        ctx.truth_rank = None
        ctx.notes = "%s on %s trained down (PCIe x8 / reduced link rate), so every collective crossing that rail runs slow; no errors, just %d%% lower throughput from that point on." % (
            hca, X, int(100 * (1 - 1 / factor)))
    ctx.truth_node = X
    if job.layout == "slurm" and R.chance(0.5):
        ctx.outcome = "timelimit"
        tt = ctx.t_fail
        B.sched(tt, job.nodes[0], "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (job.jobid, job.nodes[0], job.lt(tt, job.nodes[0]).strftime("%Y-%m-%dT%H:%M:%S")))
        for r in range(job.world):
            ctx.deaths[r] = (tt + R.uniform(0.1, 3), -15)
        launcher_records(ctx)
    else:
        ctx.outcome = "running"
