"""blind59 scary-but-harmless fabric noise: recovered link retrains, ibdiagnet warnings on
ports outside the job, GID-table growth, TCPStore start-up retries, ECN counters, an old
Xid from a previous job, NFS blips and libfabric start-up warnings."""
from b59_core import busid_to_pci, nic_pci, glog
import b59_text as T
import b59_fabric as F
from b59_causes_a import ibdiag_unrelated


def noise_link_retrain(ctx, h=None, t=None):
    job, R, B = ctx.job, ctx.R, ctx.B
    if job.transport not in ("ib", "roce"):
        return None
    h = h or R.pick(job.nodes)
    k = R.randrange(job.gpn)
    t = t if t is not None else ctx.t_init + R.uniform(600, max(700, (ctx.t_fail or ctx.t_init + 7200) - ctx.t_init - 600))
    npci = nic_pci(job.busids[k], k)
    if job.transport == "roce":
        B.kern(t, h, ["mlx5_core %s %s: Link down" % (npci, job.roce_if[k]), "mlx5_core %s %s: Link up" % (npci, job.roce_if[k])], dt_step=R.uniform(0.8, 6))
    else:
        B.kern(t, h, ["mlx5_core %s: Port module event: module %d, Cable unplugged" % (npci, k),
                      "mlx5_core %s: Port module event: module %d, Cable plugged" % (npci, k)], dt_step=R.uniform(0.8, 6))
    r = job.ranks_on(h)[k]
    if ctx.debug is not None and r in ctx.visible:
        B.rank(t + 0.2, r, "nccl", ["", T.nwarn(job, r, ctx.dr(t + 0.2, r), "transport/net_ib.cc:%d" % R.pick([85, 97, 131]), "NET/IB : %s:1 Got async event : port error" % job.hcas[k], func="ncclIbAsyncThreadMain")])
        B.rank(t + 5, r, "nccl", ["", T.nwarn(job, r, ctx.dr(t + 5, r), "transport/net_ib.cc:%d" % R.pick([85, 97, 131]), "NET/IB : %s:1 Got async event : port active" % job.hcas[k], func="ncclIbAsyncThreadMain")])
    if h not in ctx.attach_dmesg:
        ctx.attach_dmesg.append(h)
    if job.transport == "ib" and R.chance(0.5):
        ev = [(job.lt(t, job.nodes[0]), 1, F.sm_linkchange(job, R.randint(2, 60))),
              (job.lt(t + 0.1, job.nodes[0]), 2, F.sm_gid_out(job.gid(h, k))),
              (job.lt(t + 6, job.nodes[0]), 2, F.sm_gid_in(job.gid(h, k)))]
        if not B.arts_named("opensm"):
            B.art("opensm", None, F.opensm(job, ev, R))
    return "link retrain on %s (%s) recovered" % (h, job.hcas[k])


def noise_ibdiag(ctx):
    job, R, B = ctx.job, ctx.R, ctx.B
    if job.transport != "ib" or B.arts_named("ibdiagnet"):
        return None
    B.art("ibdiagnet", None, F.ibdiagnet(job, R, job.lt((ctx.t_fail or ctx.t_init) + R.uniform(600, 9000), job.nodes[0]), ibdiag_unrelated(ctx, R.randint(1, 3)),
                                         [("Links Check", 'Link %s/P%d <--> "%s"/P1 - physical state is Polling, logical state is Down' % (
                                             R.pick(["sw-ib-l1-31", "leaf40", "qm97-l33"]), R.randint(1, 64), "cpu-%03d mlx5_0" % R.randint(1, 300)))] if R.chance(0.5) else []))
    return "ibdiagnet warnings on ports outside the job"


def noise_gid(ctx):
    job, R, B = ctx.job, ctx.R, ctx.B
    if job.transport != "roce":
        return None
    h = R.pick(job.nodes)
    k = R.randrange(job.gpn)
    t = ctx.t_init + R.uniform(60, 3600)
    B.sys(t, h, "NetworkManager[%d]: <info>  [%d.%04d] device (%s): ipv6 address fd00:%x::%x added" % (
        R.randint(900, 3000), R.randint(1.7e9, 1.8e9), R.randint(0, 9999), job.roce_if[k], R.randint(1, 0xffff), R.randint(1, 0xfff)))
    rows = F.show_gids(job, h, k, R)
    g6 = "fd00:0000:0a%02x:0000:%s:%s:%s:%s" % (k, R.hexs(4), R.hexs(4), R.hexs(4), R.hexs(4))
    rows = rows[:-1] + ["%s\t1\t4\t%s\t%-14s\tv1\t%s" % (job.hcas[k], g6, "", job.roce_if[k]),
                        "%s\t1\t5\t%s\t%-14s\tv2\t%s" % (job.hcas[k], g6, "", job.roce_if[k]), "n_gids_found=6"]
    B.art("show_gids:%s" % h, h, rows)
    return "GID table grew on %s (index 3 unchanged)" % h


def noise_tcpstore(ctx):
    job, R, B = ctx.job, ctx.R, ctx.B
    for h in R.sample(job.nodes, min(len(job.nodes), R.randint(1, 3))):
        d = job.lt(ctx.t_init - 20, h)
        pre = "[%s socket.cpp:%d]" % (glog("W", d), 697) if job.era() >= 4 else "[W socket.cpp:601]"
        B.agent(ctx.t_init - 20, h, "%s [c10d] The client socket has failed to connect to [%s]:%d (errno: 111 - Connection refused)." % (pre, job.master, job.port))
    return "TCPStore connect retries at start-up"


def noise_ecn(ctx):
    job, R, B = ctx.job, ctx.R, ctx.B
    if job.transport != "roce":
        return None
    for h in R.sample(job.nodes, min(len(job.nodes), R.randint(1, 3))):
        B.art("hw_counters:%s" % h, h, F.hw_counters(job, h, R.randrange(job.gpn), R, congested=True))
    return "high ECN/CNP counters (congestion control working)"


def noise_old_xid(ctx):
    job, R, B = ctx.job, ctx.R, ctx.B
    h = R.pick(job.nodes)
    lr = R.randrange(job.gpn)
    pci = busid_to_pci(job.busids[lr])
    B.kern(-R.uniform(4000, 80000), h, T.xid(pci, 13, "Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (R.randint(0, 7), R.randint(0, 8), R.randint(0, 1)),
                                             pid=R.randint(1000, 90000), name="python"))
    if h not in ctx.attach_dmesg:
        ctx.attach_dmesg.append(h)
    return "an old Xid 13 from a previous job on %s" % h


def noise_nfs_blip(ctx):
    job, R, B = ctx.job, ctx.R, ctx.B
    h = R.pick(job.nodes)
    t = ctx.t_init + R.uniform(300, 7200)
    srv = R.pick(["fs01", "nfs-home", "vast-vip2"])
    B.kern(t, h, ["nfs: server %s not responding, still trying" % srv, "nfs: server %s OK" % srv], dt_step=R.uniform(5, 50))
    if h not in ctx.attach_dmesg:
        ctx.attach_dmesg.append(h)
    return "NFS blip on %s" % h


def noise_efa(ctx):
    job, R, B = ctx.job, ctx.R, ctx.B
    if job.transport != "efa" or ctx.debug is None:
        return None
    for r in ctx.visible[:R.randint(1, 4)]:
        d = ctx.dr(ctx.t_init + 0.01, r)
        B.rank(ctx.t_init + 0.01, r, "nccl", "libfabric:%d:%d:efa:core:efa_device_construct():%d<warn> Device %s does not support RDMA read, falling back to emulated read (FI_EFA_USE_DEVICE_RDMA=0)" % (
            job.pids[r], T.calendar.timegm(d.timetuple()), R.pick([214, 227]), job.hca_of(job.lrank(r))))
    return "libfabric warnings about emulated RDMA read at start-up"


NOISE = [noise_link_retrain, noise_ibdiag, noise_gid, noise_tcpstore, noise_ecn, noise_old_xid, noise_nfs_blip, noise_efa]


def add_noise(ctx, n):
    R = ctx.R
    done = []
    for f in R.sample(NOISE, len(NOISE)):
        if len(done) >= n:
            break
        r = f(ctx)
        if r:
            done.append(r)
    return done
