"""Job construction, training timeline simulation and launcher exit reporting."""
import math

from b7_core import Job, Node, GPU_TYPES, ts_py, ts_slurm, ts_plain, ts_glog, ranges
from b7_text import (nccl_init_lines, nccl_subcomm_lines, PYLIB, agent_line, torchrun_failure, kernel_noise, xid)
from b7_train import TRAINERS

SIGNAME = {6: "SIGABRT", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM", 7: "SIGBUS"}


# =======================================================================================
# naming
# =======================================================================================
def make_names(rng, style, n, gpu_key="H100"):
    """returns list of dicts(name, short, ip, aliases, k8s)"""
    out = []
    gk = gpu_key.split("_")[0].lower()
    sub = rng.randint(0, 200)
    if style == "nid":
        base = rng.randint(1000, 7000)
        picks = sorted(rng.sample(range(base, base + n * 3 + 10), n))
        for p in picks:
            nm = "nid%06d" % p
            ip = "10.%d.%d.%d" % (100 + sub % 50, (p // 250) % 250, p % 250 + 1)
            out.append(dict(name=nm, short=nm, ip=ip, aliases=[ip]))
    elif style == "gpu-dash":
        pre = rng.choice(["gpu-{g}-", "gpu-{g}-", "dgx-{g}-", "hgx-", "gpu", "node-g", "cn-g"]).replace("{g}", gk)
        width = rng.choice([3, 3, 4])
        start = rng.randint(1, 300)
        picks = sorted(rng.sample(range(start, start + n * 2 + 5), n))
        for p in picks:
            nm = "%s%0*d" % (pre, width, p)
            ip = "10.%d.%d.%d" % (sub % 250, p // 250, p % 250 + 1)
            out.append(dict(name=nm, short=nm, ip=ip, aliases=[ip]))
    elif style == "fqdn":
        dom = rng.choice(["cluster.example.org", "hpc.univ-example.edu", "ml.corp.example.com", "sc.internal"])
        pre = rng.choice(["gpu", "dgx", "hgx", "node"])
        start = rng.randint(1, 400)
        picks = sorted(rng.sample(range(start, start + n * 2 + 5), n))
        for p in picks:
            short = "%s%03d" % (pre, p)
            ip = "172.%d.%d.%d" % (16 + sub % 15, p // 250, p % 250 + 1)
            out.append(dict(name=short + "." + dom, short=short, ip=ip, aliases=[short, ip]))
    elif style == "aws":
        a, b = rng.randint(0, 255), rng.randint(0, 200)
        used = set()
        for i in range(n):
            while True:
                c, d = rng.randint(b, b + 40) % 256, rng.randint(2, 250)
                if (c, d) not in used:
                    used.add((c, d))
                    break
            ip = "10.%d.%d.%d" % (a, c, d)
            nm = "ip-" + ip.replace(".", "-")
            out.append(dict(name=nm, short=nm, ip=ip, aliases=[nm + ".ec2.internal", ip]))
    elif style == "pcluster":
        q = rng.choice(["compute-gpu", "p5-queue", "train", "gpu-od"])
        it = rng.choice(["p5-48xlarge", "p4d-24xlarge", "p5e-48xlarge"])
        kind = rng.choice(["st", "dy"])
        picks = sorted(rng.sample(range(1, n * 2 + 10), n))
        for p in picks:
            nm = "%s-%s-%s-%d" % (q, kind, it, p)
            ip = "10.1.%d.%d" % (rng.randint(0, 250), rng.randint(2, 250))
            out.append(dict(name=nm, short=nm, ip=ip, aliases=[ip, "ip-" + ip.replace(".", "-")]))
    elif style == "azure":
        base = "%032x" % rng.randrange(1 << 128)
        for i in range(n):
            nm = base + "%06d" % i
            ip = "10.0.0.%d" % (4 + i)
            out.append(dict(name=nm, short=nm, ip=ip, aliases=[ip]))
    elif style == "k8s":
        prov = rng.choice(["gke", "eks", "aks", "onprem"])
        jobn = rng.choice(["llm-pretrain", "llama-sft", "gpt-ft", "pt-train", "moe-pretrain"]) + "-" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(5))
        pool = "%08x" % rng.randrange(1 << 32)
        onprem = rng.sample(range(1, 80), n) if n < 79 else list(range(1, n + 1))
        aks_pool = rng.randint(10000000, 99999999)
        aks_off = rng.randint(0, 60)
        for i in range(n):
            pod = "%s-master-0" % jobn if i == 0 else "%s-worker-%d" % (jobn, i - 1)
            ip = "10.%d.%d.%d" % (rng.randint(4, 120), rng.randint(0, 255), rng.randint(2, 250))
            if prov == "gke":
                kn = "gke-train-a3-highgpu-8g-%s-%s" % (pool, "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(4)))
            elif prov == "eks":
                kn = "ip-10-%d-%d-%d.ec2.internal" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(2, 250))
            elif prov == "aks":
                kn = "aks-gpupool-%d-vmss%06x" % (aks_pool, i + aks_off)
            else:
                kn = "gpu-node-%02d" % onprem[i]
            out.append(dict(name=pod, short=pod, ip=ip, aliases=[ip], k8s=kn, k8s_job=jobn))
    else:  # k8s pods
        out = []
    return out


# =======================================================================================
# job construction
# =======================================================================================
def build_job(rng, layout, cfg, t0=None, carry=None):
    """cfg: dict(launcher, trainers, naming, nodes(range), gpn choices, kernel...)"""
    j = Job(rng)
    j.layout = layout
    j.launcher = cfg["launcher"]
    if carry:  # attempts of the same training run share most of the setup
        for k in ["gpu_key", "gpu", "gpn", "torch_ver", "torch_minor", "nccl_ver", "pylib", "workdir", "trainer", "model", "run_name",
                  "pg_timeout", "net", "ib_link", "hca_ids", "user", "uid", "kernel_ver", "hw_name", "ds_ver", "zero_stage",
                  "megatron_straggler", "megatron_timing", "log_interval", "cuda_driver_ver", "torchrun_bin", "agent_src_prefix", "stdlib", "torch_cuda",
                  "nccl_detail", "jobname", "naming"]:
            setattr(j, k, getattr(carry, k))
    else:
        j.gpu_key = rng.choice(cfg.get("gpus", ["H100", "H100", "A100", "H200", "A100_40"]))
        j.gpu = GPU_TYPES[j.gpu_key]
        j.gpn = rng.choice(cfg.get("gpn", [8, 8, 8, 4]))
        tv = rng.choice(cfg.get("torch", ["2.1.2", "2.3.1", "2.4.1", "2.5.1", "2.5.1", "2.6.0", "2.4.0"]))
        j.torch_ver = tv
        j.torch_minor = int(tv.split(".")[1])
        j.nccl_ver = {1: "2.18.1", 3: "2.20.5", 4: "2.20.5", 5: "2.21.5", 6: "2.21.5"}[j.torch_minor]
        j.cuda_driver_ver = {"12.0": "12000", "12.2": "12020", "12.4": "12040", "12.6": "12060"}[j.gpu["cuda"]]
        j.torch_cuda = {1: "12.1", 3: "12.1", 4: "12.4", 5: "12.4", 6: "12.6"}[j.torch_minor]
        j.user = rng.choice(["jdoe", "mlin", "akumar", "svc-train", "ptrain", "hwang", "rbianchi", "ekowalski"])
        j.uid = rng.randint(1000, 60000)
        pyl = rng.choice(cfg.get("pylib", ["conda", "ngc", "venv", "uv"]))
        j.pylib = PYLIB[pyl].replace("{user}", j.user)
        j.stdlib = {"conda": "/opt/conda/lib/python3.10", "ngc": "/usr/lib/python3.10", "venv": "/usr/lib/python3.11",
                    "uv": "/fsx/%s/.local/share/uv/python/cpython-3.12.7-linux-x86_64-gnu/lib/python3.12" % j.user}[pyl]
        j.torchrun_bin = {"conda": "/opt/conda/bin/torchrun", "ngc": "/usr/local/bin/torchrun"}.get(pyl, j.pylib.split("/lib/")[0] + "/bin/torchrun")
        j.agent_src_prefix = rng.choice(["", "", "site-packages/" if pyl in ("conda", "venv", "uv") else "dist-packages/"])
        j.trainer = rng.choice(cfg["trainers"])
        j.workdir = {"megatron": "/workspace/Megatron-LM", "nemo": "/opt/NeMo", "titan": "/workspace/torchtitan",
                     "mmengine": "/work/%s/mmsegmentation" % j.user, "timm": "/work/%s/pytorch-image-models" % j.user}.get(j.trainer, "/work/%s/llm-train" % j.user)
        j.pg_timeout = rng.choice(cfg.get("timeouts", [600, 600, 1800, 1800, 900, 3600]))
        j.net = cfg.get("net") or rng.choice(["ib", "ib", "ib", "socket"])
        j.ib_link = rng.choice(["IB", "IB", "RoCE"])
        nh = rng.choice([1, 2, 4, 8])
        j.hca_ids = sorted(rng.sample([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], nh))
        j.kernel_ver = rng.choice(["5.15.0-119-generic", "5.15.0-91-generic", "6.8.0-45-generic", "5.4.0-187-generic", "5.14.0-427.13.1.el9_4.x86_64"])
        j.hw_name = rng.choice(["NVIDIA DGXH100/DGXH100, BIOS 1.4.0 12/14/2023", "Supermicro SYS-821GE-TNHR/X13DEG-OAD, BIOS 2.1 03/01/2024",
                                "Dell Inc. PowerEdge XE9680/0HM2T3, BIOS 2.2.8 06/12/2024", "Amazon EC2 p5.48xlarge/, BIOS 1.0 10/16/2017",
                                "GIGABYTE G593-SD0-AAX1/MSG3-EP0-00, BIOS R11 01/31/2024"])
        j.ds_ver = rng.choice(["0.14.4", "0.15.1", "0.16.2", "0.13.1"])
        j.zero_stage = rng.choice([1, 2, 3])
        j.megatron_straggler = False
        j.megatron_timing = rng.choice([0, 0, 1])
        j.nccl_detail = None
        j.jobname = None
        j.naming = None
    # nodes
    nmin, nmax = cfg.get("nodes", (2, 32))
    nn = cfg.get("force_nodes") or pick_nodes(rng, nmin, nmax)
    while j.gpn * nn < 16:
        nn *= 2
    if j.gpn * nn > 512:
        nn = max(2, 512 // j.gpn)
    j.naming = j.naming or rng.choice(cfg.get("naming", ["gpu-dash", "nid", "fqdn", "aws", "pcluster"]))
    if j.naming == "aws" or j.naming == "pcluster":
        j.net = "ofi" if rng.random() < 0.7 and not carry else j.net
    names = make_names(rng, j.naming, nn, j.gpu_key)
    j.t0 = t0 if t0 is not None else 1700000000 + rng.randint(0, 60000000)
    for i, nd in enumerate(names):
        skew = rng.gauss(0, 0.15)
        node = Node(i, nd["name"], nd["short"], nd["ip"], nd["aliases"], skew, j.t0 - rng.randint(3 * 86400, 90 * 86400) - rng.random(), i * j.gpn, j.gpn)
        node.k8s_node = nd.get("k8s")
        if nd.get("k8s_job"):
            j.k8s_job = nd["k8s_job"]
        node.iface = rng.choice(["eth0", "ens5", "enp1s0f0", "bond0", "ib0", "eno1"]) if i == 0 else None
        j.nodes.append(node)
    for n in j.nodes[1:]:
        n.iface = j.nodes[0].iface
    # clock skew: sometimes one or several nodes are badly off
    if rng.random() < 0.35 and nn > 1:
        for k in rng.sample(range(nn), rng.randint(1, max(1, nn // 4))):
            j.nodes[k].skew += rng.choice([-1, 1]) * rng.choice([2.5, 7, 19, 45, 96, 180, 333])
            j.notes.append("clock skew on %s: %+.0fs" % (j.nodes[k].name, j.nodes[k].skew))
    j.setup_ranks()
    j.comm_addr = ["0x%x" % (0x55d000000000 + rng.randrange(1 << 36)) for _ in range(j.world)]
    j.comm_id = "0x%016x" % rng.randrange(1 << 64)
    j.affinity = ["ffffffff,00000000,ffffffff,00000000", "00000000,ffffffff,00000000,ffffffff"] if j.gpn > 4 else ["ff,ffffffff"]
    j.nch = rng.choice([4, 8, 16, 16, 24, 32]) if j.world <= 128 else rng.choice([4, 8])
    j.p2p_cumem = j.torch_minor >= 4
    j.p2p_disabled = rng.random() < 0.06
    j.nccl_warn_realpath = rng.random() < 0.15
    j.realpath_bus = rng.choice(["8a", "c1", "3f", "17"])
    if j.nccl_detail is None:
        lvl = rng.random()
        if j.world <= 64:
            j.nccl_detail = 2 if lvl < 0.55 else (1 if lvl < 0.8 else 0)
        elif j.world <= 192:
            j.nccl_detail = 2 if lvl < 0.25 else (1 if lvl < 0.65 else 0)
        else:
            j.nccl_detail = 1 if lvl < 0.45 else 0
    j.master_port = rng.choice([29500, 29500, 6000, 12355, 29400, 23456])
    j.jobid = rng.randint(100000, 9999999)
    j.rdzv_id = rng.choice([str(j.jobid), "%s-%d" % ("job", j.jobid), "%08x" % rng.randrange(1 << 32)])
    j.k8s_ns = rng.choice(["default", "ml-training", "research", "team-llm"])
    j.k8s_image = rng.choice(["nvcr.io/nvidia/pytorch:24.07-py3", "us-docker.pkg.dev/acme-ml/train/llm:%s" % ("%07x" % rng.randrange(1 << 28)), "ghcr.io/acme/trainer:v3.2.1"])
    names_by = {"mmengine": ["seg-swin", "upernet-cs", "mmseg-train"], "timm": ["vit-l", "clip-vitl14", "timm-train"], "fairseq": ["roberta-large", "bert-mlm", "fs-mlm"]}
    j.jobname = j.jobname or rng.choice(names_by.get(j.trainer, ["llm-pretrain", "gpt-dense", "train", "pt-run", "mixtral-sft", "llama3-70b", "moe-8x7b", "dense-13b"]))
    j.run_name = getattr(carry, "run_name", None) if carry else "%s-%s" % (j.jobname, rng.choice(["v3", "exp42", "ablation-b", "lr3e-4", "run7", "bs2k"]))
    j.final_vloss = 1.9 + rng.random() * 0.4
    j.tr = TRAINERS[j.trainer](j)
    if not carry:
        j.model = make_model(rng, j)
        j.log_interval = None
    else:
        j.model = dict(carry.model)
        j.model["dp"] = max(1, j.world // (j.model["tp"] * j.model["pp"]))
    return j


def pick_nodes(rng, lo, hi):
    choices = [n for n in [2, 2, 3, 4, 4, 4, 6, 8, 8, 8, 12, 16, 16, 24, 32, 32, 48, 64] if lo <= n <= hi]
    return rng.choice(choices or [lo])


def make_model(rng, j):
    tr = j.trainer
    if tr in ("mmengine", "timm"):
        params = rng.choice([0.3e9, 0.6e9, 1.0e9])
        layers, hidden, heads, seq = 24, 1024, 16, 1024
    elif tr == "fairseq":
        params = rng.choice([0.35e9, 1.5e9])
        layers, hidden, heads, seq = 24, 1024, 16, 512
    else:
        pick = rng.choice([(1.3e9, 24, 2048, 16), (7.0e9, 32, 4096, 32), (8.03e9, 32, 4096, 32), (13e9, 40, 5120, 40),
                           (22e9, 48, 6144, 48), (34e9, 48, 8192, 64), (70.6e9, 80, 8192, 64)])
        params, layers, hidden, heads = pick
        seq = rng.choice([2048, 4096, 4096, 8192])
    W = j.world
    tp = 1
    pp = 1
    if tr in ("megatron", "nemo", "titan") and params > 5e9:
        tp = min(j.gpn, rng.choice([2, 4, 8]))
        if params > 30e9 and W >= 64:
            pp = rng.choice([2, 4])
    while tp * pp > W:
        pp = max(1, pp // 2)
        tp = max(1, tp // 2)
    dp = max(1, W // (tp * pp))
    mbs = rng.choice([1, 1, 2, 4])
    ga = rng.choice([1, 2, 4, 8])
    gbs = dp * mbs * ga
    if tr in ("mmengine", "timm"):
        gbs = dp * mbs * 8
    # step time from flops
    flops = 6 * params * gbs * seq
    peak = j.gpu["peak"] * 1e12
    mfu = rng.uniform(0.28, 0.52)
    step_s = flops / (W * peak * mfu)
    step_s = min(max(step_s, 0.25), 30.0)
    nominal = params
    params = int(params * rng.uniform(0.985, 1.015)) + rng.randint(0, 9999)
    nm = {1.3e9: "1.3B", 7.0e9: "7B", 8.03e9: "8B", 13e9: "13B", 22e9: "22B", 34e9: "34B", 70.6e9: "70B"}.get(nominal)
    m = dict(name=nm or (("%dB" % round(nominal / 1e9)) if nominal >= 1e9 else "%dM" % (nominal / 1e6)), params=params, layers=layers, hidden=hidden,
             heads=heads, ffn=int(hidden * 3.5), seq=seq, gbs=gbs, mbs=mbs, ga=ga, tp=tp, pp=pp, dp=dp, step_s=step_s, mfu=mfu,
             lr=rng.choice([3e-4, 1.5e-4, 2e-4, 1e-4, 6e-4, 3e-5]), warmup=rng.choice([500, 1000, 2000, 2500]),
             mem=min(j.gpu["cap_gib"] * rng.uniform(0.55, 0.93), j.gpu["cap_gib"] - 1.5),
             shards=rng.choice([1024, 4096, 30000, 512]))
    root = rng.choice(["/lustre/fs1/%s" % j.user, "/fsx/%s" % j.user, "/mnt/weka/%s" % j.user, "/gpfs/projects/llm", "/checkpoint/%s" % j.user, "/nfs/shared/%s" % j.user])
    m["ckpt_dir"] = "%s/ckpt/%s" % (root, j.run_name)
    m["out_dir"] = "%s/runs/%s" % (root, j.run_name)
    m["data_dir"] = "%s/data" % root
    m["data_path"] = rng.choice(["%s/data/dclm_text_document" % root, "%s/data/pile/pile_text_document" % root, "%s/data/fineweb-edu" % root,
                                 "%s/data/cityscapes" % root if tr == "mmengine" else "%s/data/redpajama_v2_tokens" % root])
    return m


# =======================================================================================
# training timeline
# =======================================================================================
class Plan:
    pass


def plan_training(j, rng, healthy_finish, lines_target=None, max_steps=None):
    """Decide log interval, resume step, fail step F (the step during which the failure hits)."""
    tr = j.tr
    m = j.model
    if j.log_interval is None:
        j.log_interval = rng.choice(tr.intervals)
        if tr.name == "hf":
            j.log_interval = rng.choice([5, 10, 10, 25])
    L = j.log_interval
    n_lines = lines_target or rng.randint(300, 2200)
    # wall time cap (hours of training shown in this log)
    max_wall = rng.uniform(3, 60) * 3600
    steps_shown = n_lines * L
    if steps_shown * m["step_s"] > max_wall:
        steps_shown = max(int(max_wall / m["step_s"]), 150 * L)
    if tr.tqdm and tr.name == "hf":
        steps_shown = min(steps_shown, 6000)
    if max_steps:
        steps_shown = min(steps_shown, max_steps)
    steps_shown = max(steps_shown, 20 * L)
    p = Plan()
    p.resume = j.resume_step if getattr(j, "resume_step", None) is not None else (0 if rng.random() < 0.55 else rng.randint(5, 400) * 100)
    j.resume_step = p.resume
    if healthy_finish:
        p.F = p.resume + steps_shown
        m["total"] = p.F
    else:
        p.F = p.resume + steps_shown + rng.randint(1, L)
        m["total"] = max(m.get("total", 0), int(round(p.F * rng.uniform(1.3, 4.0), -3)))
    m["eval_every"] = rng.choice([500, 1000, 2000, 250]) if m["total"] > 4000 else 200
    m["ckpt_every"] = rng.choice([500, 1000, 2000, 250]) if m["total"] > 4000 else 250
    if m["ckpt_every"] < L:
        m["ckpt_every"] = L * 10
    return p


def metrics(j, s, step_s, rng, extra=None):
    m = j.model
    W = j.world
    base = 1.75 if m["params"] > 5e9 else 2.2
    loss = base + 6.5 * (s + 60) ** -0.33 + rng.gauss(0, 0.025)
    if s < m["warmup"]:
        lr = m["lr"] * s / m["warmup"]
    else:
        frac = (s - m["warmup"]) / max(1, m["total"] - m["warmup"])
        lr = m["lr"] / 10 + 0.5 * (m["lr"] - m["lr"] / 10) * (1 + math.cos(math.pi * min(frac, 1.0)))
    gn = abs(rng.gauss(0.35 if s > 2000 else 1.2, 0.08)) + (rng.random() * 3 if rng.random() < 0.01 else 0)
    tokens = m["gbs"] * m["seq"]
    tps = tokens / step_s
    tfl = 6 * m["params"] * tps / W / 1e12
    d = dict(loss=loss, lr=lr, gnorm=gn, step_s=step_s, iter_ms=step_s * 1000, tps=tps, tps_gpu=tps / W, tflops=tfl,
             mfu=100 * tfl / j.gpu["peak"], mem=m["mem"] + rng.gauss(0, 0.05), skipped=j.skipped, nan=j.nan_iters,
             data_ms=abs(rng.gauss(3, 1.5)), vloss=loss - 0.03 + rng.gauss(0, 0.01))
    if extra:
        d.update(extra)
    return d


def simulate_training(j, rng, p, t_start, slow=None, per_rank_every=None, strag=None, on_step=None):
    """Emit the trainer output for steps resume+1 .. F-1.  Returns (t at start of step F, step_end dict)."""
    tr = j.tr
    m = j.model
    L = j.log_interval
    t = t_start
    j.train_t0 = t_start
    j.final_vloss = 1.9 + rng.random() * 0.4
    j.skipped = 0
    j.nan_iters = 0
    j.first_logged_step = ((p.resume // L) + 1) * L
    step_end = {}
    base = m["step_s"]
    spikes = set()
    pr_every = per_rank_every
    fast_rank = rng.randrange(j.world)
    last_step_t = t
    for s in range(p.resume + 1, p.F):
        f = 1.0
        if slow:
            f = slow(s)
        dt = base * f * (1 + rng.gauss(0, 0.012))
        if s == p.resume + 1:
            dt = base * rng.uniform(3, 12)  # first step: compile/warm-up
        if rng.random() < 0.002:
            dt *= rng.uniform(1.5, 4)  # GC / filesystem hiccup
        t += dt
        step_end[s] = t
        extra = None
        if strag:
            extra = dict(strag=(strag["rank"], strag["slow"](s) - 1 if strag["slow"](s) > 1 else 0.0), fast_rank=fast_rank, thermal=strag.get("thermal"))
        if tr.tqdm:
            mm = metrics(j, s, dt, rng, extra)
            tr.progress(s, t, mm)
        if j.fp16_overflow_at and s in j.fp16_overflow_at:
            j.skipped += 1
        if s % L == 0:
            mm = metrics(j, s, (t - last_step_t) / L if s - L >= p.resume else dt, rng, extra)
            if j.fp16_overflow_at and any(x in j.fp16_overflow_at for x in range(s - L + 1, s + 1)):
                mm["overflow"] = 65536
            if j.nan_at and any(x in j.nan_at for x in range(s - L + 1, s + 1)):
                j.nan_iters += 1
                mm["nan"] = j.nan_iters
            tr.step(s, t, mm)
            last_step_t = t
        if pr_every and s % pr_every == 0:
            per_rank_timing(j, rng, s, t, dt, strag)
        if j.chatter and (s % j.chatter_every == 0 or s == p.resume + 1):
            rank_chatter(j, rng, s, t, s == p.resume + 1)
        if on_step:
            on_step(s, t)
        if s % m["eval_every"] == 0:
            t0 = t
            t += rng.uniform(20, 120)
            tr.evaluate(s, t0, t, metrics(j, s, dt, rng))
        if s % m["ckpt_every"] == 0:
            t0 = t
            t += rng.uniform(15, 240) * (1 + m["params"] / 70e9)
            tr.ckpt(s, t0, t)
            if tr.name == "plain":
                for r in range(j.world):
                    if j.world > 128 and r % j.gpn:
                        continue
                    j.emit(r, t0 + (t - t0) * rng.uniform(0.5, 0.98), "%s INFO [rank %d] wrote shard %s/step_%07d/__%d_0.distcp (%.2f GB)" % (
                        ts_py(j.clk(r, t0 + (t - t0) * 0.9)), r, m["ckpt_dir"], s, r, m["params"] * 12 / j.world / 1e9))
            j.last_ckpt = s
            j.last_ckpt_t = t
    j.step_end = step_end
    j.final_vloss = metrics(j, p.F, base, rng)["vloss"]
    return t


def setup_chatter(j, rng, steps_shown):
    """periodic per-rank output so that every rank's log is long, not just rank 0's"""
    opts = ["shard", "memstats", None]
    if j.torch_minor >= 3:
        opts.append("dynamo")
    if j.trainer in ("megatron", "nemo") and j.model["pp"] > 1 and j.nccl_detail >= 1:
        opts.append("p2p")
    if j.trainer in ("mmengine", "timm", "fairseq"):
        opts = ["memstats", None, "shard"]
    j.chatter = rng.choice(opts)
    per_rank = max(20, min(400, int(1.4e6 / (j.world * 115))))
    k = max(j.log_interval, steps_shown // per_rank)
    k = (k // j.log_interval) * j.log_interval or j.log_interval
    if j.chatter == "dynamo":
        k = max(k, steps_shown // 6)
    j.chatter_every = max(1, k)
    j.shard_of = {r: rng.randrange(j.model["shards"]) for r in range(j.world)}


def rank_chatter(j, rng, s, t, first):
    c = j.chatter
    if c == "p2p":
        if not first:
            return
        pp = j.model["pp"]
        stride = j.world // pp
        for r in range(j.world):
            pi = j.nccl_prefix(r, "init")
            for peer, d in ((r + stride, "send"), (r - stride, "receive")):
                if 0 <= peer < j.world:
                    for ch in range(2):
                        j.emit(r, t + rng.random(), "%s NCCL INFO Channel %02d/1 : %d[%d] -> %d[%d] [%s] via NET/IB/%d/GDRDMA/Shared" % (pi, ch, r if d == "send" else peer, j.local[r] if d == "send" else j.local[peer], peer if d == "send" else r, j.local[peer] if d == "send" else j.local[r], d, ch % max(1, len(j.hca_ids))), "o")
            j.emit(r, t + 1, "%s NCCL INFO P2P Chunksize set to 131072" % pi, "o")
        return
    if first:
        return
    for r in range(j.world):
        tr = t + rng.random() * 0.8
        if c == "shard":
            if rng.random() < 0.6:
                continue
            j.shard_of[r] = (j.shard_of[r] + j.world) % j.model["shards"]
            j.emit(r, tr, "%s INFO [rank %d] data: opened shard %05d-of-%05d (%d sequences, %.1f MiB) from %s" % (
                ts_py(j.clk(r, tr)), r, j.shard_of[r], j.model["shards"], rng.randint(20000, 90000), rng.uniform(200, 900), j.model["data_path"]), "e")
        elif c == "memstats":
            a = j.model["mem"] * rng.uniform(0.5, 0.6)
            j.emit(r, tr, "[rank %d] step %d: cuda max_allocated=%.2fGiB reserved=%.2fGiB host_rss=%.1fGiB" % (r, s, a * 1.6, j.model["mem"] + rng.gauss(0, 0.02), rng.uniform(20, 60)), "o")
        elif c == "dynamo":
            ln = rng.randint(100, 400)
            pre = "[rank%d]:W%s %d torch/_dynamo/convert_frame.py:844] [%d/8] " % (r, ts_glog(j.clk(r, tr), "W", 6)[1:-3] + "000", j.pid[r], rng.choice([0, 1, 4]))
            j.emit(r, tr, "\n".join([pre + "torch._dynamo hit config.cache_size_limit (8)",
                                      pre + "   function: 'forward' (%s/model/transformer.py:%d)" % (j.workdir, ln),
                                      pre + "   last reason: 0/0: tensor 'L['x']' size mismatch at index 1. expected %d, actual %d" % (j.model["seq"], rng.randint(100, j.model["seq"] - 1)),
                                      pre + 'To log all recompilation reasons, use TORCH_LOGS="recompiles".',
                                      pre + "To diagnose recompilation issues, see https://pytorch.org/docs/main/torch.compiler_troubleshooting.html."]), "e")


def per_rank_timing(j, rng, s, t, dt, strag):
    for r in range(j.world):
        comp = dt * 0.82 * (1 + rng.gauss(0, 0.01))
        wait = dt - comp
        if strag and strag.get("rank_level"):
            if r == strag["rank"]:
                wait = max(0.004, abs(rng.gauss(0.006, 0.002)))
                comp = dt - wait
        elif strag and j.node_of[r] == strag.get("node"):
            wait = max(0.004, abs(rng.gauss(0.01, 0.004)))
            comp = dt - wait
        j.emit(r, t + rng.random() * 0.05, "%s INFO [rank %d] step %d timing: fwd_bwd=%.3fs optim=%.3fs comm_wait=%.3fs data=%.3fs" % (
            ts_py(j.clk(r, t)), r, s, comp * 0.93, comp * 0.07, wait, abs(rng.gauss(0.003, 0.001))))


# =======================================================================================
# start-up output on every rank
# =======================================================================================
def startup_all(j, rng, t_launch):
    """worker start-up: warnings, rendezvous noise, NCCL init. returns t when all ranks are initialised"""
    t = t_launch + rng.uniform(5, 40)
    det = j.nccl_detail
    for r in range(j.world):
        tr_ = t + rng.random() * 3
        if j.torch_minor >= 4 and j.launcher not in ("srun", "mpirun") and rng.random() < 0.3 and r % j.gpn == 0 and j.node_of[r] != 0:
            # c10d client socket retries while the store comes up (harmless)
            for k in range(rng.randint(1, 3)):
                j.emit(r, tr_ - 20 + k * 10, j.c10(r, tr_ - 20 + k * 10, "W", "socket.cpp:752", "[c10d] The client socket has failed to connect to [%s]:%d (errno: 111 - Connection refused)." % (j.nodes[0].name, j.master_port)), "e")
        j.tr.all_ranks_startup(r, tr_)
        tn = tr_ + 5 + rng.random() * 4
        for line in nccl_init_lines(j, r, det):
            j.emit(r, tn, line, "o")
        if j.torch_minor >= 4 and rng.random() < 0.6:
            j.emit(r, tn + 0.1, j.c10(r, tn + 0.1, "W", "ProcessGroupNCCL.cpp:4115", "%s using GPU %d to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device,or call init_process_group() with a device_id." % (j.pg(r).replace("PG ID 0 PG GUID 0(default_pg)", "PG ID 0 PG GUID 0"), j.local[r])), "e")
        if det >= 1 and j.trainer in ("megatron", "nemo") and j.model["tp"] > 1:
            tp = j.model["tp"]
            for line in nccl_subcomm_lines(j, r, 1, tp, r % tp):
                j.emit(r, tn + 2, line, "o")
    return t + 15


# =======================================================================================
# finishing: launcher reporting
# =======================================================================================
def status_text(code, oom=False):
    if oom:
        return "Out Of Memory"
    if code > 0:
        return "Exited with exit code %d" % code
    s = -code
    return {6: "Aborted (core dumped)", 9: "Killed", 11: "Segmentation fault (core dumped)", 7: "Bus error (core dumped)", 15: "Terminated"}.get(s, "Killed")


def fail(j, r, t, code, how="exc"):
    if r in j.fates and j.fates[r]["t"] <= t:
        return
    j.fates[r] = dict(t=t, code=code, how=how)


def finalize(j, rng, t_end_ok=None, kill_all_at=None, kill_reason=None):
    """Fill in fates of all ranks and write launcher output.
    t_end_ok: if set, ranks without fate finish normally at that time.
    kill_all_at: external kill (scancel/time limit/preemption) time."""
    L = j.launcher
    # --- local propagation through per-node agents
    if L in ("torchrun", "deepspeed", "k8s", "azureml"):
        for n in j.nodes:
            fs = [(j.fates[r]["t"], r) for r in n.ranks if r in j.fates and j.fates[r]["how"] != "ok"]
            if not fs:
                continue
            t1, r1 = min(fs)
            tk = t1 + rng.uniform(0.2, 4.5)
            for r in n.ranks:
                if r not in j.fates or j.fates[r]["t"] > tk:
                    j.fates[r] = dict(t=tk + rng.uniform(0.05, 1.5), code=-15 if L != "deepspeed" else -9, how="killed_by_agent")
    if L in ("srun",) and j.kill_on_bad_exit:
        fs = [(f["t"], r) for r, f in j.fates.items() if f["how"] not in ("ok",) and f["code"] != 0]
        if fs:
            t1, r1 = min(fs)
            tk = t1 + rng.uniform(0.5, 2.5)
            j.srun_abort_t = tk
            for r in range(j.world):
                if r not in j.fates or j.fates[r]["t"] > tk + 1:
                    j.fates[r] = dict(t=tk + rng.uniform(0.2, 3), code=-9, how="killed_by_srun")
    if L == "mpirun":
        fs = [(f["t"], r) for r, f in j.fates.items() if f["code"] != 0]
        if fs:
            t1, r1 = min(fs)
            tk = t1 + rng.uniform(0.3, 2)
            j.mpirun_abort = (t1, r1)
            for r in range(j.world):
                if r not in j.fates or j.fates[r]["t"] > tk + 1:
                    j.fates[r] = dict(t=tk + rng.uniform(0.1, 2), code=-9, how="killed_by_mpirun")
    if kill_all_at is None and t_end_ok is None and any(r not in j.fates for r in range(j.world)):
        tmax = max([f["t"] for f in j.fates.values()] or [j.t_last])
        if j.sched_kind == "slurm":
            kill_all_at = tmax + rng.uniform(600, 3 * 3600)
            j.kill_reason = "scancel"
            j.kill_t = kill_all_at
            kill_reason = "scancel"
        elif j.sched_kind == "pbs":
            kill_all_at = tmax + rng.uniform(600, 3 * 3600)
            j.kill_reason = "timelimit"
            j.kill_t = kill_all_at
            kill_reason = "timelimit"
        elif j.sched_kind in ("k8s", "azureml"):
            kill_all_at = tmax + rng.uniform(5, 40)
            j.kill_reason = "cleanup"
            j.kill_t = kill_all_at
            kill_reason = "cleanup"
        else:
            kill_all_at = tmax + rng.uniform(300, 2 * 3600)
            j.kill_reason = "ctrl_c"
            j.kill_t = kill_all_at
            kill_reason = "ctrl_c"
    if kill_all_at is not None:
        for r in range(j.world):
            if r not in j.fates or j.fates[r]["t"] > kill_all_at:
                j.fates[r] = dict(t=kill_all_at + rng.uniform(0.05, 2), code=-15, how="external")
    if t_end_ok is not None:
        for r in range(j.world):
            if r not in j.fates:
                j.fates[r] = dict(t=t_end_ok + rng.uniform(0, 5), code=0, how="ok")
    # anything still without fate hangs forever (job killed later by scheduler) - treat as external kill
    for r in range(j.world):
        if r not in j.fates:
            j.fates[r] = dict(t=(kill_all_at or j.t_last) + rng.uniform(0, 3), code=-9, how="external")
    j.t_last = max(f["t"] for f in j.fates.values())
    # --- launcher reporting
    if L in ("torchrun", "k8s"):
        agent_reports(j, rng, kill_reason)
    elif L == "deepspeed":
        deepspeed_reports(j, rng)
    elif L == "srun":
        srun_reports(j, rng)
    elif L == "mpirun":
        mpirun_reports(j, rng)


def agent_reports(j, rng, kill_reason):
    binary = j.pylib.split("/lib/")[0] + "/bin/python" if "/lib/" in j.pylib else "/usr/bin/python3"
    if "dist-packages" in j.pylib:
        binary = "/usr/bin/python3"
    for n in j.nodes:
        fs = sorted([(j.fates[r]["t"], r) for r in n.ranks])
        ok = all(j.fates[r]["code"] == 0 for r in n.ranks)
        if ok:
            tt = fs[-1][0] + rng.uniform(1, 10)
            j.agent(n.idx, tt, agent_line(j, n, tt, "I", "torch/distributed/elastic/agent/server/api.py:879", "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish."))
            j.agent(n.idx, tt + 0.01, agent_line(j, n, tt + 0.01, "I", "torch/distributed/elastic/agent/server/api.py:932", "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish"))
            j.agent(n.idx, tt + rng.uniform(0.5, 60), agent_line(j, n, tt, "I", "torch/distributed/elastic/agent/server/api.py:946", "Done waiting for other agents. Elapsed: %.4f seconds" % rng.uniform(0.1, 50)))
            continue
        ext = [r for r in n.ranks if j.fates[r]["how"] == "external"]
        if ext and len(ext) == len(n.ranks) and (kill_reason or getattr(j, "preempted_pod", None) == n.idx):
            tt = min(j.fates[r]["t"] for r in ext) - 0.5
            j.agent(n.idx, tt, agent_line(j, n, tt, "W", "torch/distributed/elastic/agent/server/api.py:704", "Received Signals.SIGTERM death signal, shutting down workers"))
            for r in n.ranks:
                j.agent(n.idx, tt + 0.01, agent_line(j, n, tt + 0.01, "W", "torch/distributed/elastic/multiprocessing/api.py:897", "Sending process %d closing signal SIGTERM" % j.pid[r]))
            te = tt + rng.uniform(1, 8)
            j.agent(n.idx, te, "Traceback (most recent call last):\n  File \"%s\", line 8, in <module>\n    sys.exit(main())\n  File \"%s/torch/distributed/elastic/multiprocessing/errors/__init__.py\", line 355, in wrapper\n    return f(*args, **kwargs)\n  File \"%s/torch/distributed/run.py\", line 919, in main\n    run(args)\n  File \"%s/torch/distributed/run.py\", line 910, in run\n    elastic_launch(\n  File \"%s/torch/distributed/launcher/api.py\", line 138, in __call__\n    return launch_agent(self._config, self._entrypoint, list(args))\n  File \"%s/torch/distributed/launcher/api.py\", line 260, in launch_agent\n    result = agent.run()\n  File \"%s/torch/distributed/elastic/metrics/api.py\", line 137, in wrapper\n    result = f(*args, **kwargs)\n  File \"%s/torch/distributed/elastic/agent/server/api.py\", line 696, in run\n    result = self._invoke_run(role)\n  File \"%s/torch/distributed/elastic/agent/server/api.py\", line 855, in _invoke_run\n    time.sleep(monitor_interval)\n  File \"%s/torch/distributed/elastic/multiprocessing/api.py\", line 84, in _terminate_process_handler\n    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)\ntorch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15"
                    % ((j.torchrun_bin,) + (j.pylib,) * 9 + (n.agent_pid,)))
            continue
        bad = [(j.fates[r]["t"], r) for r in n.ranks if j.fates[r]["how"] not in ("killed_by_agent",) and j.fates[r]["code"] != 0]
        if not bad:
            bad = [(j.fates[r]["t"], r) for r in n.ranks if j.fates[r]["code"] != 0]
        bad.sort()
        t1, r1 = bad[0]
        tt = t1 + rng.uniform(0.1, 2.0)
        killed = [r for r in n.ranks if j.fates[r]["how"] == "killed_by_agent"]
        for r in killed:
            j.agent(n.idx, tt, agent_line(j, n, tt, "W", "torch/distributed/elastic/multiprocessing/api.py:897", "Sending process %d closing signal SIGTERM" % j.pid[r]))
        tlast = tt
        if killed and rng.random() < 0.3 and j.torch_minor >= 2:
            rk = rng.choice(killed)
            tlast = tt + 30
            j.agent(n.idx, tlast, agent_line(j, n, tlast, "W", "torch/distributed/elastic/multiprocessing/api.py:916", "Unable to shutdown process %d via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL" % j.pid[rk]))
        near = [(t, r) for t, r in bad if t - t1 < 3.0]
        failures = [dict(rank=r, local=j.local[r], pid=j.pid[r], code=j.fates[r]["code"], t=t) for t, r in near]
        te = max(tlast, t1) + rng.uniform(0.5, 4)
        script = j.script_name
        for line in torchrun_failure(j, n, te, failures, binary, script):
            j.agent(n.idx, te, line)


def deepspeed_reports(j, rng):
    for n in j.nodes:
        ext = [r for r in n.ranks if j.fates[r]["how"] == "external"]
        if ext and len(ext) == len(n.ranks):
            tt = min(j.fates[r]["t"] for r in ext) - 0.3
            for r in n.ranks:
                j.agent(n.idx, tt, "[%s] [INFO] [launch.py:319:sigkill_handler] Killing subprocess %d" % (ts_py(j.clk(n, tt)), j.pid[r]), "o")
            j.agent(n.idx, tt + 0.4, "[%s] [INFO] [launch.py:330:sigkill_handler] Main process received %s, exiting" % (ts_py(j.clk(n, tt + 0.4)), "SIGINT" if j.kill_reason == "ctrl_c" else "SIGTERM"), "o")
            j.ds_node_exit[n.idx] = (tt + 0.6, 1)
            continue
        bad = sorted([(j.fates[r]["t"], r) for r in n.ranks if j.fates[r]["code"] != 0 and j.fates[r]["how"] != "killed_by_agent"])
        if not bad:
            if all(j.fates[r]["code"] == 0 for r in n.ranks):
                continue
            bad = sorted([(j.fates[r]["t"], r) for r in n.ranks])
        t1, r1 = bad[0]
        tt = t1 + rng.uniform(0.2, 2)
        for r in n.ranks:
            j.agent(n.idx, tt, "[%s] [INFO] [launch.py:319:sigkill_handler] Killing subprocess %d" % (ts_py(j.clk(n, tt)), j.pid[r]), "o")
        cmd = "['%s', '-u', '%s', '--local_rank=%d', '--deepspeed', '--deepspeed_config', 'ds_config.json']" % (j.python_bin, j.script_name, j.local[r1])
        j.agent(n.idx, tt + 0.5, "[%s] [ERROR] [launch.py:325:sigkill_handler] %s exits with return code = %d" % (ts_py(j.clk(n, tt + 0.5)), cmd, j.fates[r1]["code"]), "o")
        j.ds_node_exit[n.idx] = (tt + 0.6, j.fates[r1]["code"] % 256)


def srun_reports(j, rng):
    bynode = {}
    events = []
    oom_ranks = getattr(j, "oom_ranks", set())
    first = min(((f["t"], r) for r, f in j.fates.items() if f["code"] != 0 and f["how"] != "external"), default=None)
    for r, f in j.fates.items():
        if f["code"] == 0 or f["how"] == "external":
            continue
        events.append((f["t"], r))
    events.sort()
    # srun aggregates tasks of one node that end with the same status at about the same time
    groups = []
    open_g = {}
    for t, r in events:
        st = status_text(j.fates[r]["code"], r in oom_ranks)
        key = (j.node_of[r], st)
        g = open_g.get(key)
        if g is not None and t - g[1] < 2.5 and not (first and r == first[1]):
            g[2].append(r)
        else:
            g = [key, t, [r]]
            groups.append(g)
            open_g[key] = g
            if first and r == first[1]:
                open_g.pop(key)
    abort_done = False
    for (ni, st), t, rs in groups:
        n = j.nodes[ni]
        tt = t + rng.uniform(0.05, 0.8)
        if first and j.kill_on_bad_exit and not abort_done and tt >= first[0]:
            pass
        if len(rs) == 1:
            j.sched(tt, "srun: error: %s: task %d: %s" % (n.short, rs[0], st))
        else:
            j.sched(tt, "srun: error: %s: tasks %s: %s" % (n.short, ranges(rs), st))
        if first and j.kill_on_bad_exit and not abort_done and rs[0] == first[1]:
            abort_done = True
            ta = getattr(j, "srun_abort_t", tt + 0.3)
            j.sched(ta, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
            j.sched(ta + 0.1, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (j.jobid, j.nodes[0].short, ts_slurm(j.clk(j.nodes[0], ta))))


def mpirun_reports(j, rng):
    ab = getattr(j, "mpirun_abort", None)
    if not ab:
        return
    t1, r1 = ab
    f = j.fates[r1]
    n = j.node(r1)
    tt = t1 + rng.uniform(0.5, 3)
    bar = "-" * 74
    if f["code"] > 0:
        j.sched(tt, "%s\nPrimary job  terminated normally, but 1 process returned\na non-zero exit code. Per user-direction, the job has been aborted.\n%s" % (bar, bar))
        j.sched(tt + 2, "%s\nmpirun detected that one or more processes exited with non-zero status, thus causing\nthe job to be terminated. The first process to do so was:\n\n  Process name: [[%d,1],%d]\n  Exit code:    %d\n%s" % (bar, j.mpi_jobfam, r1, f["code"], bar))
    else:
        s = -f["code"]
        nm = {6: "Aborted", 9: "Killed", 11: "Segmentation fault", 7: "Bus error", 15: "Terminated"}.get(s, "Killed")
        j.sched(tt, "%s\nmpirun noticed that process rank %d with PID %d on node %s exited on signal %d (%s).\n%s" % (bar, r1, j.pid[r1], n.short, s, nm, bar))
