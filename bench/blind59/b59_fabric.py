"""blind59 fabric tool outputs: ibstat, ibv_devinfo, perfquery, iblinkinfo, ibdiagnet2,
opensm, show_gids, ethtool / hw_counters, ip link, rdma link, SONiC pfcwd, ncclras,
torchfrtrace and py-spy dumps.  Every function returns a list of lines."""
from b59_core import mk_rng, journal, sec


def lid_of(job, h, k):
    return 11 + job.nidx(h) * len(job.hcas or [0]) + k + mk_rng("lidbase", job.nodes[0]).randint(0, 300)


def guid(h, k):
    R = mk_rng("guid", h, k)
    return "0x%s%s" % (R.pick(["b83fd203", "946dae03", "a088c203", "1070fd03"]), R.hexs(8))


def switch_of(job, h, k):
    leaf = 1 + (job.nidx(h) * 8 + k) // 32
    R = mk_rng("sw", job.nodes[0])
    pre = R.pick(["sw-ib-l1-", "leaf", "ibsw-r%02d-" % R.randint(1, 30), "qm97-l"])
    return "%s%02d" % (pre, leaf + R.randint(0, 12)), 1 + (job.nidx(h) * 8 + k) % 32


def ibstat(job, h, over=None):
    """over: {hca: (state, phys, rate)}"""
    over = over or {}
    out = []
    ib = job.transport == "ib"
    ca = "MT4129" if job.gpu in ("H100", "H200") else "MT4123"
    fw = "28.39.1002" if ca == "MT4129" else "20.38.1002"
    rate0 = 400 if ca == "MT4129" else 200
    for k, d in enumerate(job.hcas):
        st, ph, rate = over.get(d, ("Active", "LinkUp", rate0))
        g = guid(h, k)
        out += ["CA '%s'" % d,
                "\tCA type: %s" % ca,
                "\tNumber of ports: 1",
                "\tFirmware version: %s" % fw,
                "\tHardware version: 0",
                "\tNode GUID: %s" % g,
                "\tSystem image GUID: %s" % g,
                "\tPort 1:",
                "\t\tState: %s" % st,
                "\t\tPhysical state: %s" % ph,
                "\t\tRate: %s" % rate,
                "\t\tBase lid: %d" % (lid_of(job, h, k) if ib and st != "Down" else 0),
                "\t\tLMC: 0",
                "\t\tSM lid: %d" % (1 if ib else 0),
                "\t\tCapability mask: %s" % ("0xa751e848" if ib else "0x00010000"),
                "\t\tPort GUID: %s" % g,
                "\t\tLink layer: %s" % ("InfiniBand" if ib else "Ethernet")]
    return out


def ibv_devinfo(job, h, k, state="PORT_ACTIVE (4)"):
    d = job.hcas[k]
    g = guid(h, k)[2:]
    g = ":".join(g[i:i + 4] for i in range(0, 16, 4))
    ib = job.transport == "ib"
    return ["hca_id:\t%s" % d,
            "\ttransport:\t\t\tInfiniBand (0)",
            "\tfw_ver:\t\t\t\t28.39.1002",
            "\tnode_guid:\t\t\t%s" % g,
            "\tsys_image_guid:\t\t\t%s" % g,
            "\tvendor_id:\t\t\t0x02c9",
            "\tvendor_part_id:\t\t\t4129",
            "\thw_ver:\t\t\t\t0x0",
            "\tboard_id:\t\t\tMT_0000000838",
            "\tphys_port_cnt:\t\t\t1",
            "\t\tport:\t1",
            "\t\t\tstate:\t\t\t%s" % state,
            "\t\t\tmax_mtu:\t\t4096 (5)",
            "\t\t\tactive_mtu:\t\t%s" % ("4096 (5)" if ib else "1024 (3)"),
            "\t\t\tsm_lid:\t\t\t%d" % (1 if ib else 0),
            "\t\t\tport_lid:\t\t%d" % (lid_of(job, h, k) if ib else 0),
            "\t\t\tport_lmc:\t\t0x00",
            "\t\t\tlink_layer:\t\t%s" % ("InfiniBand" if ib else "Ethernet"), ""]


PQ_KEYS = ["PortSelect", "CounterSelect", "SymbolErrorCounter", "LinkErrorRecoveryCounter", "LinkDownedCounter",
           "PortRcvErrors", "PortRcvRemotePhysicalErrors", "PortRcvSwitchRelayErrors", "PortXmitDiscards",
           "PortXmitConstraintErrors", "PortRcvConstraintErrors", "CounterSelect2", "LocalLinkIntegrityErrors",
           "ExcessiveBufferOverrunErrors", "QP1Dropped", "VL15Dropped", "PortXmitData", "PortRcvData",
           "PortXmitPkts", "PortRcvPkts", "PortXmitWait"]


def perfquery(job, h, k, R, bad=None):
    bad = bad or {}
    vals = {"PortSelect": "1", "CounterSelect": "0x0000", "CounterSelect2": "0x00"}
    out = ["# Port counters: Lid %d port 1 (CapMask: 0x5A00)" % lid_of(job, h, k)]
    for key in PQ_KEYS:
        if key in vals:
            v = vals[key]
        elif key in bad:
            v = str(bad[key])
        elif key in ("PortXmitData", "PortRcvData"):
            v = str(R.randint(10**11, 4 * 10**12))
        elif key in ("PortXmitPkts", "PortRcvPkts"):
            v = str(R.randint(10**9, 9 * 10**10))
        elif key == "PortXmitWait":
            v = str(R.randint(0, 90000000))
        else:
            v = "0"
        out.append((key + ":").ljust(33, ".") + v)
    return out


def iblinkinfo_line(job, h, k, state="Active/  LinkUp", width="4X", speed="106.25 Gbps"):
    sw, p = switch_of(job, h, k)
    if state.startswith("Down"):
        return '          %3d %4d[  ] ==(                Down/ Polling)==>             [  ] "" ( )' % (3 + p % 7, p)
    return '          %3d %4d[  ] ==( %s %13s %s)==>  %6d    1[  ] "%s %s" ( )' % (
        3 + p % 7, p, width.ljust(3), speed, state, lid_of(job, h, k), h.split(".")[0], job.hcas[k])


def iblinkinfo(job, hosts, R, special=None):
    """special: {(h,k): (state, width, speed)}"""
    special = special or {}
    bysw = {}
    for h in hosts:
        for k in range(len(job.hcas)):
            sw, p = switch_of(job, h, k)
            bysw.setdefault(sw, []).append((p, h, k))
    out = []
    for sw in sorted(bysw):
        out.append("Switch: %s %s:MQM9700/U1:" % (guid(sw, 0), sw))
        for p, h, k in sorted(bysw[sw]):
            st, w, sp = special.get((h, k), ("Active/  LinkUp", "4X", "106.25 Gbps" if job.gpu != "A100" else "53.125 Gbps"))
            out.append(iblinkinfo_line(job, h, k, st, w, sp))
    return out


def ibdiagnet(job, R, d, warns, errs, nnodes_fabric=None, cable=None):
    """warns/errs: list of (stage, text)."""
    n_ca = nnodes_fabric or max(len(job.nodes) * len(job.hcas) + R.randint(8, 400), 40)
    n_sw = max(4, n_ca // 28)
    stages = ["Discovery", "Lids Check", "Links Check", "Subnet Manager", "Port Counters", "Nodes Information",
              "Speed / Width checks", "Virtualization", "Partition Keys", "Alias GUIDs", "Temperature Sensing",
              "Routers", "Cable Report"]
    out = ["ibdiagnet v%s, %s" % (R.pick(["2.11.0.MLNX20221226.5b3ddce", "2.12.0.MLNX20230625.1209e2c0", "2.13.0.MLNX20240512.e8b0dc1"]),
                                  d.strftime("%a %b %d %H:%M:%S %Y")),
           "Command: ibdiagnet -pc -P all=1 --get_cable_info %s" % R.pick(["", "--skip fw", "-r"]), ""]
    for st in stages:
        sw = [t for s, t in warns if s == st]
        se = [t for s, t in errs if s == st]
        out += ["---------------------------------------------", st]
        if st == "Discovery":
            out.append("-I- Discovering ... %d nodes (%d Switches & %d CA-s) discovered." % (n_sw + n_ca, n_sw, n_ca))
            out.append("-I- Fabric Discover finished successfully")
            out.append("")
            continue
        if st == "Subnet Manager":
            out.append("-I- SM Info retrieving finished successfully")
            out.append("-I- Subnet Manager Check finished successfully")
            out.append("")
            continue
        for t in se:
            out.append("-E- " + t)
        for t in sw:
            out.append("-W- " + t)
        if se:
            out.append("-I- %s finished with errors" % st)
        elif sw:
            out.append("-I- %s finished with warnings" % st)
        else:
            out.append("-I- %s finished successfully" % st)
        out.append("")
    out += ["---------------------------------------------", "Summary",
            "-I- Stage                     Warnings   Errors     Comment"]
    for st in stages:
        out.append("-I- %-25s %-10d %-10d" % (st, len([1 for s, _ in warns if s == st]), len([1 for s, _ in errs if s == st])))
    out += ["", "-I- You can find detailed errors/warnings in: /var/tmp/ibdiagnet2/ibdiagnet2.log", ""]
    return out


def port_desc(job, h, k):
    return '"%s %s"/P1' % (h.split(".")[0], job.hcas[k])


def opensm(job, events, R):
    """events: list of (datetime, level, text)."""
    thr = "7F%s" % R.hexs(10).upper()
    out = []
    for d, lvl, text in sorted(events, key=lambda e: e[0]):
        out.append("%s %06d [%s] 0x%02x -> %s" % (journal(d), d.microsecond, thr, lvl, text))
    return out


def sm_linkchange(job, sw_lid):
    return "log_trap_info: Received Generic Notice type:1 num:128 (Link state change) Producer:2 (Switch) from LID:%d TID:0x%016x" % (
        sw_lid, 0x100000000 + sw_lid * 16)


def sm_gid_out(gid):
    return "log_notice: Reporting Generic Notice type:3 num:65 (GID out of service) from LID:1 GID:%s" % gid


def sm_gid_in(gid):
    return "log_notice: Reporting Generic Notice type:3 num:64 (GID in service) from LID:1 GID:%s" % gid


def show_gids(job, h, k, R, bad_index3=False):
    d = job.hcas[k]
    dev = job.roce_if[k] if hasattr(job, "roce_if") else "ens%df0np0" % (k + 1)
    ip = job.railnet[h][k]
    a, b, c, e = (int(x) for x in ip.split("."))
    v4 = "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x" % (a, b, c, e)
    ll = "fe80:0000:0000:0000:%s:%sff:fe%s:%s" % (R.hexs(4), R.hexs(2), R.hexs(2), R.hexs(4))
    rows = [(0, ll, "", "v1"), (1, ll, "", "v2")]
    if bad_index3:
        g6 = "fd00:0000:0a%02x:0000:%s:%s:%s:%s" % (k, R.hexs(4), R.hexs(4), R.hexs(4), R.hexs(4))
        rows += [(2, g6, "", "v1"), (3, g6, "", "v2"), (4, v4, ip, "v1"), (5, v4, ip, "v2")]
    else:
        rows += [(2, v4, ip, "v1"), (3, v4, ip, "v2")]
    out = ["DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV", "---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---"]
    for i, g, v, ver in rows:
        out.append("%s\t1\t%d\t%s\t%-14s\t%s\t%s" % (d, i, g, v, ver, dev))
    out.append("n_gids_found=%d" % len(rows))
    return out


def hw_counters(job, h, k, R, storm=False, congested=False, retrans=False):
    d = job.hcas[k]
    vals = {"duplicate_request": R.randint(0, 40), "implied_nak_seq_err": R.randint(0, 9),
            "local_ack_timeout_err": R.randint(0, 3), "np_cnp_sent": R.randint(0, 5000),
            "np_ecn_marked_roce_packets": R.randint(0, 9000), "out_of_buffer": 0,
            "out_of_sequence": R.randint(0, 200), "packet_seq_err": R.randint(0, 20),
            "rnr_nak_retry_err": 0, "roce_adp_retrans": R.randint(0, 100), "rp_cnp_handled": R.randint(0, 5000),
            "rx_icrc_encapsulated": 0, "rx_read_requests": R.randint(10**6, 10**8), "rx_write_requests": R.randint(10**7, 10**9)}
    if congested:
        vals["np_cnp_sent"] = R.randint(10**6, 9 * 10**7)
        vals["np_ecn_marked_roce_packets"] = R.randint(10**6, 9 * 10**7)
        vals["rp_cnp_handled"] = R.randint(10**6, 9 * 10**7)
    if retrans:
        vals["local_ack_timeout_err"] = R.randint(3000, 90000)
        vals["packet_seq_err"] = R.randint(1000, 50000)
    return ["/sys/class/infiniband/%s/ports/1/hw_counters/%s:%d" % (d, kk, vals[kk]) for kk in sorted(vals)]


def ethtool_S(iface, R, storm=False, pause=False, grep=None):
    rows = [("rx_packets", R.randint(10**9, 10**11)), ("tx_packets", R.randint(10**9, 10**11)),
            ("rx_bytes", R.randint(10**12, 10**14)), ("tx_bytes", R.randint(10**12, 10**14)),
            ("rx_discards_phy", R.randint(0, 20)), ("rx_out_of_buffer", 0),
            ("rx_prio3_pause", R.randint(10**7, 10**8) if storm else R.randint(0, 3000) if not pause else R.randint(10**5, 10**6)),
            ("rx_prio3_pause_duration", R.randint(10**8, 10**9) if storm else R.randint(0, 50000)),
            ("tx_prio3_pause", R.randint(10**7, 9 * 10**7) if storm else R.randint(0, 4000) if not pause else R.randint(10**5, 10**6)),
            ("tx_prio3_pause_duration", R.randint(10**8, 10**9) if storm else R.randint(0, 60000)),
            ("tx_pause_storm_warning_events", R.randint(5, 40) if storm else 0),
            ("tx_pause_storm_error_events", R.randint(1, 3) if storm else 0),
            ("link_down_events_phy", R.randint(0, 2)), ("rx_crc_errors_phy", R.randint(0, 4)),
            ("rx_symbol_err_phy", 0)]
    return ([] if grep else ["NIC statistics:"]) + ["     %s: %d" % (k, v) for k, v in rows if grep is None or any(g in k for g in grep.split("|"))]


def ip_link(job, h, R, mtu=9000, down=None, bond_slaves=None):
    down = down or []
    out = ["1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000",
           "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00"]
    i = 2
    ifs = []
    if bond_slaves:
        ifs += [(s, "slave") for s in bond_slaves]
    ifs.append((job.oob, "main"))
    if job.transport == "roce":
        ifs += [(x, "rdma") for x in job.roce_if]
    for name, role in ifs:
        mac = ":".join(R.hexs(2) for _ in range(6))
        m = mtu if role in ("main", "slave") else 9000 if job.transport == "roce" else mtu
        if name in down:
            flags = "<NO-CARRIER,BROADCAST,MULTICAST,%sUP>" % ("SLAVE," if role == "slave" else "MASTER," if name.startswith("bond") else "")
            st = "DOWN"
        else:
            flags = "<BROADCAST,MULTICAST,%sUP,LOWER_UP>" % ("SLAVE," if role == "slave" else "MASTER," if name.startswith("bond") else "")
            st = "UP"
        extra = " master %s" % job.oob if role == "slave" else ""
        out.append("%d: %s: %s mtu %d qdisc %s%s state %s mode DEFAULT group default qlen 1000" % (
            i, name, flags, m, "noqueue" if name.startswith("bond") else "mq", extra, st))
        out.append("    link/%s %s brd ff:ff:ff:ff:ff:ff" % ("infiniband" if name.startswith("ib") else "ether", mac))
        i += 1
    return out


def rdma_link(job, h, down=None):
    down = down or []
    out = []
    for k, d in enumerate(job.hcas):
        if d in down:
            out.append("link %s/1 state DOWN physical_state POLLING" % d)
        else:
            nd = job.roce_if[k] if job.transport == "roce" else ("ib%d" % k if job.transport == "ib" else "")
            out.append("link %s/1 state ACTIVE physical_state LINK_UP%s" % (d, " netdev %s" % nd if nd else ""))
    return out


def pfcwd(sw, rows):
    """rows: (port, status, detected, restored, txdrop)"""
    out = ["      QUEUE       STATUS    STORM DETECTED/RESTORED    TX OK/DROP    RX OK/DROP    TX LAST OK/DROP    RX LAST OK/DROP",
           "-------------  -----------  -------------------------  ------------  ------------  -----------------  -----------------"]
    for port, st, de, re_, drop in rows:
        out.append("%13s  %11s  %25s  %12s  %12s  %17s  %17s" % (port + ":3", st, "%d/%d" % (de, re_), "0/%d" % drop, "0/0",
                                                               "0/%d" % (drop // 3), "0/0"))
    return out


def ras_status(job, R, dead=None, missing=None, status="RUNNING"):
    """dead/missing: list of (pid, host, gpu)."""
    dead = dead or []
    missing = missing or []
    n = len(job.nodes)
    ver = job.nccl_ver()
    out = ["NCCL version %s compiled with CUDA %s" % (ver, job.cuda),
           "CUDA runtime version %s, driver version %s" % (job.cuda.replace(".", "0") + "0", job.cuda.replace(".", "0") + "0"), "",
           "Job summary", "===========", "",
           "  Nodes  Processes         GPUs  Processes     GPUs",
           "(total)   per node  per process    (total)  (total)",
           "%7d  %9d  %11d  %9d  %7d" % (n, job.gpn, 1, job.world, job.world), "",
           "Communicators... (%.2fs)" % R.uniform(0.01, 4.0), "=============", "",
           "Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors",
           "    #  in group  per comm  per node  per comm  in group"]
    err = "INCOMPLETE" if (dead or missing) else "OK"
    out.append("%5d  %8d  %8d  %8s  %8d  %8d  %8s  %6s" % (0, 1, n, str(job.gpn), job.world, job.world - len(dead) - len(missing), status, err))
    out += ["", "Errors", "======", ""]
    if missing:
        out += ["INCOMPLETE", "  Missing communicator data from %d job process%s" % (len(missing), "es" if len(missing) > 1 else "")]
        for pid, h, g in missing:
            out.append("  Process %d on node %s managing GPU %d" % (pid, job.ip[h], g))
        out.append("")
    if dead:
        out += ["DEAD", "  %d job process%s considered dead (unreachable via the RAS network)" % (len(dead), "es are" if len(dead) > 1 else " is")]
        for pid, h, g in dead:
            out.append("  Process %d on node %s managing GPU %d" % (pid, job.ip[h], g))
        out.append("")
    out += ["Warnings", "========", ""]
    return out


def frtrace_missing(job, seq, missing, op="nccl:all_reduce", entry=None):
    ws = job.world
    exp = "{" + ", ".join(str(i) for i in range(min(ws, 12))) + (", ..., %d}" % (ws - 1) if ws > 12 else "}")
    return ["Not all ranks joining collective %d at entry %d" % (seq, entry or seq % 2000),
            "internal record id: %d" % (entry or seq % 2000),
            "group info: 0:default_pg",
            "collective: %s" % op,
            "missing ranks: {%s}" % ", ".join(str(m) for m in missing),
            "input sizes: [[%d]]" % (seq % 7 + 1),
            "output sizes: [[%d]]" % (seq % 7 + 1),
            "world size: %d" % ws,
            "expected ranks: %s" % exp,
            "collective state: scheduled",
            "collective stack trace:",
            "  all_reduce at /usr/local/lib/python3.11/dist-packages/torch/distributed/distributed_c10d.py:2806",
            "  wrapper at /usr/local/lib/python3.11/dist-packages/torch/distributed/c10d_logger.py:83",
            "  reduce_loss at /workspace/trainer/loop.py:233"]


def frtrace_mismatch(job, seq, culprit, kind, exp, found):
    return ["Collective %d at entry %d error" % (seq, seq % 2000),
            "internal record id: %d" % (seq % 2000),
            "group info: 0:default_pg",
            "collective: nccl:all_reduce",
            "error msg: Culprit rank %d; Error type: %s, Expected %s does not match found %s" % (culprit, kind, exp, found),
            "world size: %d" % job.world,
            "collective state: scheduled"]


def pyspy(job, r, frames, R, idle_threads=True):
    h = job.node(r)
    pyv = {"2.1": "3.10.12", "2.2": "3.10.12", "2.3": "3.10.14", "2.4": "3.11.9"}.get(job.tv[:3], "3.12.3")
    out = ["Process %d: /usr/bin/python3 -u /workspace/%s --config configs/%s.yaml" % (job.pids[r], job.script, job.model),
           "Python v%s (/usr/bin/python%s)" % (pyv, pyv[:4].rstrip(".")), "",
           'Thread %d (active): "MainThread"' % job.pids[r]]
    out += ["    %s" % f for f in frames]
    if idle_threads:
        out += ['Thread %d (idle): "Thread-2 (_pin_memory_loop)"' % (job.pids[r] + 57),
                "    wait (threading.py:331)", "    get (queue.py:180)",
                "    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:54)",
                "    run (threading.py:982)", "    _bootstrap_inner (threading.py:1045)", "    _bootstrap (threading.py:1002)"]
    return out


def nvsmi_q(job, h, lr, R, thermal=False):
    pci = job.busids[lr]
    x = int(pci, 16)
    bus = "00000000:%02X:%02X.0" % ((x >> 12) & 0xFF, (x >> 4) & 0xFF)
    act = "Active" if thermal else "Not Active"
    return ["GPU %s" % bus,
            "    Product Name                          : %s" % job.gpu_name,
            "    Clocks Event Reasons",
            "        Idle                              : Not Active",
            "        Applications Clocks Setting       : Not Active",
            "        SW Power Cap                      : %s" % ("Active" if thermal else "Not Active"),
            "        HW Slowdown                       : %s" % act,
            "            HW Thermal Slowdown           : %s" % act,
            "            HW Power Brake Slowdown       : Not Active",
            "        Sync Boost                        : Not Active",
            "        SW Thermal Slowdown               : %s" % act,
            "    Temperature",
            "        GPU Current Temp                  : %d C" % (R.randint(86, 92) if thermal else R.randint(38, 62)),
            "        GPU T.Limit Temp                  : %s" % ("-2 C" if thermal else "%d C" % R.randint(20, 40)),
            "        Memory Current Temp               : %d C" % (R.randint(84, 95) if thermal else R.randint(40, 66)),
            "    Clocks",
            "        Graphics                          : %d MHz" % (R.randint(800, 1100) if thermal else R.randint(1755, 1980)),
            "        SM                                : %d MHz" % (R.randint(800, 1100) if thermal else R.randint(1755, 1980)),
            ""]
