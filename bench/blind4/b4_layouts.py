"""Layouts: how a job was launched and what the user handed over.

Each layout has setup(run) -> None (topology, framework, launcher policy) and
render(run, plan) -> None (files + what got collected).
"""
from __future__ import annotations

import json

from b4_common import (pickn, Run, pick_dates, host_names, make_topology, short, hexid, pod_suffix, ts_py, ts_sec, ts_iso, ts_ctime, ts_slurm,
                       ts_glog, ts_elastic, ts_journal)
from b4_frameworks import SCRIPTS, step_line, loss_at
from b4_render import (coll, got_rank, got_merged, got_kernel, got_extra, join, truncate_tail, rank_texts, merged, gz, kernel_file,
                       kernel_text, kernel_style, exit_code, natural_failures, first_fail_time, job_end, agent_lines,
                       agent_reports_rank, srun_errors, slurm_tail, sacct_text, nodelist, rangestr)
from b4_text import nvsmi_table, site, SIGNAMES

ALL_CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "host_oom_kill", "cuda_oom", "illegal_memory_access",
              "python_exception", "crash_signal", "hang", "collective_mismatch", "data_loader_stall", "preemption", "straggler"]

USERS = ["jchen", "mkowalski", "apatel", "sgarcia", "lnguyen", "tmueller", "rsingh", "ykim", "ehansen", "dferreira"]
EXPS = ["llama3-8b-sft", "gpt-1p3b-pretrain", "mixtral-ft-v3", "moe-16x1b-ablation", "qwen2-7b-dpo", "ppo-rm-v2", "t5-xl-span",
        "llama-70b-cpt", "vit-g-pretrain", "codegen-3b"]
T_START = 1727740800   # 2024-10-01
T_SPAN = 395 * 86400


def base_setup(run: Run, nnodes: int, gpn: int, style: str, fw: str, policy: set, hosts=None):
    rng = run.rng
    pick_dates(run)
    hosts = hosts or host_names(rng, style, nnodes)
    make_topology(run, nnodes, gpn, hosts)
    h0 = run.nodes[0].host.lower()
    gn = None
    for key, name in (("gb200", "NVIDIA B200"), ("b200", "NVIDIA B200"), ("h200", "NVIDIA H200"), ("h100", "NVIDIA H100 80GB HBM3"), ("a100", "NVIDIA A100-SXM4-80GB")):
        if key in h0:
            gn = name
            break
    if gn is None:
        gn = rng.choice(["NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "NVIDIA H200"] + (["NVIDIA B200"] if run.t0 > 1743465600 else []))
    run.meta["gpuname"] = gn
    run.meta["fw"] = fw
    run.meta["policy"] = set(policy)
    run.meta["user"] = rng.choice(USERS)
    run.meta["expname"] = rng.choice(EXPS)
    run.meta["jobid"] = rng.randint(180000, 9800000)
    run.meta["uid"] = rng.randint(20000, 60000)
    run.pg_timeout = {"megatron": 600, "nemo2": 1800, "torchtitan": 100 if rng.random() < 0.4 else 300, "deepspeed": 1800, "hf_trainer": 1800,
                      "lightning": 1800, "composer": 300, "plain": 600, "verl": 600, "openrlhf": 1800}.get(fw, 600)
    if rng.random() < 0.2:
        run.pg_timeout = pickn(run, [900, 1200, 3600])
    W = nnodes * gpn
    run.meta["nccl_info"] = rng.random() < (0.55 if W <= 32 else 0.25)
    run.meta["rank_prefix_tb"] = rng.random() < 0.7
    run.meta["wandb"] = rng.random() < 0.4
    run.meta["ibtype"] = "RoCE" if rng.random() < 0.3 else "IB"
    run.meta["ansi"] = rng.random() < 0.35
    if W > 64:
        run.meta["wd_style"] = "dump"
    run.meta["host_lines"] = rng.random() < 0.5
    run.meta["pybin"] = rng.choice(["/usr/bin/python3", "/opt/conda/bin/python", "/usr/bin/python", "/home/%s/.venv/bin/python3" % run.meta["user"]])
    run.meta["site"] = rng.choice(["/usr/local/lib/python%s/dist-packages" % run.py, "/opt/conda/lib/python%s/site-packages" % run.py,
                                   "/home/%s/.venv/lib/python%s/site-packages" % (run.meta["user"], run.py)])


def sizes(rng, choices_nodes, choices_gpn):
    return rng.choice(choices_nodes), rng.choice(choices_gpn)


# ------------------------------------------------------------------ must / selection helpers
def apply_must(run: Run, sel_ranks: set, sel_kernel: set, sel_extras: set, launcher_present: bool, can_kernel: bool = True):
    """Grow a partial selection so the cause evidence is really there."""
    rng = run.rng
    for (kind, key) in run.meta.get("must", []):
        if kind == "rank":
            sel_ranks.add(key)
        elif kind == "kernel":
            sel_kernel.add(key)
        elif kind == "extra":
            sel_extras.add(key)
        elif kind == "rank_any":
            if not sel_ranks:
                sel_ranks.add(rng.randrange(run.world))
        elif kind == "kernel_or_local":
            nd = run.nodes[key]
            if key not in sel_kernel and not any(run.ranks[r].node is nd for r in sel_ranks):
                if can_kernel and rng.random() < 0.5:
                    sel_kernel.add(key)
                else:
                    sel_ranks.add(nd.first_rank + rng.randrange(nd.gpus))
        elif kind == "kernel_or_launcher":
            if key not in sel_kernel and not launcher_present:
                sel_kernel.add(key)
        elif kind == "rank_or_launcher":
            per_rank_launcher = run.meta.get("srun_per_gpu") or run.layout in ("openmpi_tagged", "pbs_pals", "lsf_jsrun")
            if key not in sel_ranks and not (launcher_present and per_rank_launcher):
                sel_ranks.add(key)
        elif kind == "peers_or_extra":
            if not (sel_extras & {"pyspy", "frtrace"}) and len(sel_ranks - {key}) < 2:
                sel_ranks.update(rng.sample([x for x in range(run.world) if x != key], min(3, run.world - 1)))
                if rng.random() < 0.6:
                    sel_extras.add(rng.choice(["pyspy", "frtrace"]))
        elif kind == "launcher":
            pass
    return sel_ranks, sel_kernel, sel_extras


def pyspy_text(run: Run) -> str:
    r, stacks, t = run.meta["pyspy"]
    rk = run.ranks[r]
    out = ["Process %d: %s -u %s" % (rk.pid, run.meta.get("pybin", "python3"), SCRIPTS.get(run.meta["fw"], "train.py")),
           "Python v%s.%d (%s)" % (run.py, run.rng.randint(4, 14), run.meta.get("pybin", "/usr/bin/python3")), "",
           "Thread %d (idle): \"MainThread\"" % rk.pid]
    for (f, l, fn) in reversed(stacks):
        out.append("    %s (%s:%d)" % (fn, f.replace(site(run) + "/", ""), l))
    out += ["    train_step (train.py:%d)" % run.rng.randint(150, 400), "    main (train.py:%d)" % run.rng.randint(400, 600), "    <module> (train.py:%d)" % run.rng.randint(600, 700),
            "Thread %d (idle): \"Thread-2 (_pin_memory_loop)\"" % (rk.pid + 61), "    select (selectors.py:415)", "    wait (multiprocessing/connection.py:948)",
            "    _poll (multiprocessing/connection.py:440)", "    poll (multiprocessing/connection.py:257)", "    get (multiprocessing/queues.py:113)",
            "    do_one_step (torch/utils/data/_utils/pin_memory.py:31)", "    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:58)",
            "    run (threading.py:953)", "    _bootstrap_inner (threading.py:1016)", "    _bootstrap (threading.py:973)"]
    hdr = "$ py-spy dump --pid %d   # on %s, %s" % (rk.pid, short(rk.node.host), ts_ctime(run.e(t, rk.node)))
    return hdr + "\n" + "\n".join(out) + "\n"


def frtrace_text(run: Run) -> str:
    r, (seq, op, nin, nout) = run.meta["frtrace"]
    cop = {"ALLREDUCE": "nccl:all_reduce", "_ALLGATHER_BASE": "nccl:_all_gather_base", "_REDUCE_SCATTER_BASE": "nccl:_reduce_scatter_base",
           "BROADCAST": "nccl:broadcast"}.get(op, "nccl:all_reduce")
    s = site(run)
    out = ["$ python -m torch.distributed.flight_recorder.fr_trace -j --prefix nccl_trace_rank_ ./fr_dumps/",
           "Not all ranks joining collective %d at entry %d" % (seq, seq - 1),
           "group info: 0:default_pg",
           "collective: %s" % cop,
           "missing ranks: {%d}" % r,
           "input sizes: [[%d]]" % nin,
           "output sizes: [[%d]]" % nout,
           "expected ranks: %d" % run.world,
           "collective state: scheduled",
           "collective stack trace:",
           " %s at %s/torch/distributed/distributed_c10d.py:2806" % (cop.split(":")[1], s),
           " wrapper at %s/torch/distributed/c10d_logger.py:81" % s,
           " reduce_gradients at /workspace/train/dist.py:112",
           " train_step at /workspace/train/loop.py:207"]
    return "\n".join(out) + "\n"


def smi_perf_text(run: Run, nd, gi: int, t: float) -> str:
    out = ["[%s]$ nvidia-smi -q -d PERFORMANCE,CLOCK,TEMPERATURE" % short(nd.host), "", "==============NVSMI LOG==============", "", "Timestamp                                 : %s" % ts_ctime(run.e(t, nd)),
           "Driver Version                            : %s" % run.driver, "CUDA Version                              : %s" % run.cuda, "",
           "Attached GPUs                             : %d" % nd.gpus]
    for g in range(nd.gpus):
        bad = g == gi
        out += ["GPU %s.0" % nd.pci[g].upper().replace("0000:", "00000000:"),
                "    Performance State                     : P0",
                "    Clocks Event Reasons",
                "        Idle                              : Not Active",
                "        Applications Clocks Setting       : Not Active",
                "        SW Power Cap                      : Not Active",
                "        HW Slowdown                       : %s" % ("Active" if bad else "Not Active"),
                "            HW Thermal Slowdown           : %s" % ("Active" if bad else "Not Active"),
                "            HW Power Brake Slowdown       : Not Active",
                "        Sync Boost                        : Not Active",
                "        SW Thermal Slowdown               : %s" % ("Active" if bad else "Not Active"),
                "        Display Clock Setting             : Not Active",
                "    Clocks",
                "        Graphics                          : %d MHz" % (run.rng.randint(690, 1100) if bad else pickn(run, [1980, 1965, 1950])),
                "        SM                                : %d MHz" % (run.rng.randint(690, 1100) if bad else pickn(run, [1980, 1965, 1950])),
                "    Temperature",
                "        GPU Current Temp                  : %d C" % (run.rng.randint(86, 93) if bad else run.rng.randint(48, 66)),
                "        GPU T.Limit Temp                  : %d C" % (run.rng.randint(-3, 1) if bad else run.rng.randint(20, 38)),
                ""]
    return "\n".join(out)


def write_extras(run: Run, extras: set, d: str = ""):
    rng = run.rng
    for name in sorted(extras):
        if name == "pyspy" and run.meta.get("pyspy"):
            r = run.meta["pyspy"][0]
            fn = rng.choice(["pyspy_rank%d.txt" % r, "py-spy-%s-%d.txt" % (short(run.ranks[r].node.host), run.ranks[r].pid), "stack_dump_r%d.txt" % r])
            run.add_file(d + fn, pyspy_text(run))
            got_extra(run, "pyspy")
        elif name == "frtrace" and run.meta.get("frtrace"):
            run.add_file(d + rng.choice(["fr_trace_analysis.txt", "flight_recorder_out.txt"]), frtrace_text(run))
            got_extra(run, "frtrace")
        elif name == "dcgm" and run.meta.get("dcgm_file"):
            nd = run.truth["node_obj"]
            run.add_file(d + "dcgmi_health_%s.txt" % short(nd.host), run.meta["dcgm_file"])
            got_extra(run, "dcgm")
        elif name == "smi_q" and run.meta.get("smi_q_file"):
            nd = run.truth["node_obj"]
            run.add_file(d + rng.choice(["nvidia-smi-q_%s.txt" % short(nd.host), "%s_nvsmi_ecc.txt" % short(nd.host)]), run.meta["smi_q_file"])
            got_extra(run, "smi_q")
        elif name == "smi_perf" and run.meta.get("smi_perf"):
            nd, gi = run.meta["smi_perf"]
            run.add_file(d + "nvidia-smi-q-d-PERFORMANCE_%s.txt" % short(nd.host), smi_perf_text(run, nd, gi, job_end(run) - rng.uniform(60, 900)))
            got_extra(run, "smi_perf")


def maybe_decoy_smi(run: Run, d: str = ""):
    """nvidia-smi of a node that looks fine (or of the bad node after reboot)."""
    rng = run.rng
    if rng.random() < 0.25:
        nd = rng.choice(run.nodes)
        bad = {}
        if run.truth.get("cause") == "gpu_hardware" and nd is run.truth.get("node_obj") and run.meta.get("gpu_variant", "").startswith("xid79"):
            bad = {run.ranks[run.truth["rank"]].local: "lost"}
        run.add_file(d + "nvidia-smi_%s.txt" % short(nd.host), nvsmi_table(run, nd, job_end(run) + rng.uniform(60, 3600), bad))
        if bad:
            got_extra(run, "nvsmi_bad")


def label_width(n: int) -> int:
    return len(str(max(0, n - 1)))


# ================================================================== Slurm: one output file, srun -l
def setup_slurm(run: Run):
    rng = run.rng
    style = rng.choice(["nid", "gpu", "cn", "dgx", "plain"])
    nn, gpn = sizes(rng, [1, 2, 2, 4, 4, 8, 16, 32], [8, 8, 4])
    per_gpu = rng.random() < 0.5
    fw = rng.choice(["megatron", "megatron", "nemo2", "torchtitan", "plain", "lightning", "deepspeed"] if per_gpu else
                    ["megatron", "torchtitan", "plain", "composer", "hf_trainer"])
    if nn * gpn > 128:
        nn = 128 // gpn
    pol = set()
    if per_gpu:
        if rng.random() < 0.6:
            pol.add("job_kill")
            pol.add("sigkill")
    else:
        pol.add("node_group")
        if rng.random() < 0.5:
            pol.add("job_kill")
    base_setup(run, nn, gpn, style, fw, pol)
    run.meta["srun_per_gpu"] = per_gpu
    run.meta["batch_present"] = rng.random() < 0.8
    if not run.meta["batch_present"]:
        run.meta["host_lines"] = True
    run.meta["partition"] = rng.choice(["gpu", "batch", "h100", "a100-80g", "llm"])
    run.meta["account"] = rng.choice(["llm-pt", "ml-research", "proj1234", "nlp"])
    run.meta["stepname"] = "python" if per_gpu else "torchrun"


def slurm_header(run: Run) -> list:
    rng = run.rng
    jid = run.meta["jobid"]
    hosts = [nd.host for nd in run.nodes]
    t = -rng.uniform(1, 8)
    h = []
    if rng.random() < 0.7:
        h += [(t, "SLURM_JOB_ID=%d" % jid), (t, "SLURM_JOB_NODELIST=%s" % nodelist(hosts)), (t, "SLURM_NNODES=%d" % len(hosts)),
              (t, "MASTER_ADDR=%s MASTER_PORT=%d" % (short(hosts[0]), pickn(run, [29500, 6000, 12345]))),
              (t, "Starting at %s" % ts_ctime(run.e(t)))]
    if rng.random() < 0.4:
        h += [(t + 0.1, "+ srun %s--kill-on-bad-exit=%d --cpu-bind=none %s" % ("-l " if run.meta.get("label") else "", 1 if "job_kill" in run.meta["policy"] else 0,
                                                                          "python -u %s" % SCRIPTS.get(run.meta["fw"], "train.py") if run.meta.get("srun_per_gpu") else
                                                                          "torchrun --nnodes=%d --nproc-per-node=%d --rdzv-backend=c10d --rdzv-endpoint=%s:29500 %s" % (len(hosts), run.gpn, short(hosts[0]), SCRIPTS.get(run.meta["fw"], "train.py"))))]
    return h


def slurm_task_exit(run: Run):
    """tasks, label_of, host_of, exit_of for the two srun modes."""
    if run.meta.get("srun_per_gpu"):
        tasks = list(range(run.world))
        return tasks, (lambda tk: tk), (lambda tk: short(run.ranks[tk].node.host)), \
            (lambda tk: (run.ranks[tk].exit[0], run.ranks[tk].exit[1], run.ranks[tk].exit[2], getattr(run.ranks[tk], "meta_killed", False)))

    def ex(tk):
        nd = run.nodes[tk]
        rks = [rk for rk in run.ranks if rk.node is nd]
        fails = natural_failures(run, nd)
        if run.meta.get("preempt_job"):
            return (min(rk.exit[0] for rk in rks) + 3, "signal", 15, True)
        ae = run.meta.get("agent_exit", {}).get(nd.idx)
        if fails:
            return (ae[0] if ae else fails[0].exit[0] + 4, "code", 1, False)
        t = max(rk.exit[0] for rk in rks)
        killed = all(getattr(rk, "meta_killed", False) for rk in rks)
        if all(rk.exit[1] == "code" and rk.exit[2] == 0 for rk in rks):
            return (t + 1, "code", 0, False)
        return (t + 0.5, "signal", 15, killed)
    return list(range(len(run.nodes))), (lambda tk: tk), (lambda tk: short(run.nodes[tk].host)), ex


def slurm_extras_launcher(run: Run):
    """Ranks whose exit srun reports on a line of their own (per-GPU mode)."""
    c = coll(run)
    if run.meta.get("srun_per_gpu"):
        for ln in run.meta.get("srun_lines", []):
            m = __import__("re").search(r": task (\d+): ", ln)
            if m:
                c["launcher_ranks"].add(int(m.group(1)))


def node_stream(run: Run, nd, with_agent: bool = True) -> list:
    """(t, text) of everything printed on one node in torchrun mode: agent + its workers."""
    items = []
    for rk in run.ranks:
        if rk.node is nd:
            for (t, x) in rank_texts(run, rk.r):
                items.append((t, x))
    if with_agent:
        items += agent_lines(run, nd, SCRIPTS.get(run.meta["fw"], "train.py"), run.ranks[nd.first_rank].pid - 5, 0.5)
    items.sort(key=lambda z: z[0])
    return items


def render_slurm_single(run: Run, plan):
    rng = run.rng
    jid = run.meta["jobid"]
    run.meta["label"] = True
    per_gpu = run.meta.get("srun_per_gpu")
    items = list(slurm_header(run))
    if per_gpu:
        w = label_width(run.world)
        for rk in run.ranks:
            p = "%*d: " % (w, rk.r)
            items += [(t, p + x) for (t, x) in rank_texts(run, rk.r)]
    else:
        w = label_width(len(run.nodes))
        for nd in run.nodes:
            p = "%*d: " % (w, nd.idx)
            items += [(t, p + x) for (t, x) in node_stream(run, nd)]
            got_merged(run, [x.r for x in run.ranks_on(nd)])
            coll(run)["launcher_ranks"].update(agent_reports_rank(run, nd))
            coll(run)["pid_ranks"].update(agent_reports_rank(run, nd))
    tasks, label_of, host_of, exit_of = slurm_task_exit(run)
    if run.meta.get("oom_slurm") and run.truth.get("cause") == "host_oom_kill":
        r = run.truth["rank"]
        run.meta["oom_t"] = run.ranks[r].exit[0]
        run.meta["oom_tasks"] = {r} if per_gpu else set()
    items += srun_errors(run, tasks, label_of, host_of, exit_of)
    items += slurm_tail(run, jid, 0, run.nodes[0].host)
    items.sort(key=lambda z: z[0])
    name = rng.choice(["slurm-%d.out" % jid, "%s-%d.out" % (run.meta["expname"], jid), "%s_%d.log" % (run.meta["expname"][:8], jid)])
    txt = join([x for (_, x) in items])
    run.add_file(name, txt)
    if per_gpu:
        got_rank(run, *range(run.world))
    coll(run)["launcher"] = True
    slurm_extras_launcher(run)
    # kernel logs the user (or admin) copied
    sel_r, sel_k, sel_x = apply_must(run, set(), set(), set(), True)
    bad = run.truth.get("node_obj")
    mode = rng.random()
    if mode < 0.35 and bad is not None:
        sel_k.add(bad.idx)
    elif mode < 0.55:
        goods = [nd.idx for nd in run.nodes if nd is not bad]
        if goods:
            sel_k.update(rng.sample(goods, min(2, len(goods))))
    for k in sorted(sel_k):
        nd = run.nodes[k]
        kernel_file(run, nd, rng.choice(["dmesg-%s.txt" % short(nd.host), "%s.kern.log" % short(nd.host), "journalctl-k_%s.txt" % short(nd.host)]),
                    window=(-rng.uniform(3600, 40000), job_end(run) + 600))
    write_extras(run, sel_x)
    maybe_decoy_smi(run)
    if rng.random() < 0.3:
        add_sacct(run)


def add_sacct(run: Run):
    jid = run.meta["jobid"]
    cause = run.truth.get("cause")
    end = job_end(run) + 2
    if cause is None:
        st, ex, sst, sex = "COMPLETED", "0:0", "COMPLETED", "0:0"
    elif run.meta.get("preempt_job") == "TIME LIMIT" or (run.meta.get("hit_limit") and not run.meta.get("user_cancel")):
        st, ex, sst, sex = "TIMEOUT", "0:0", "CANCELLED", "0:15"
    elif run.meta.get("preempt_job"):
        st, ex, sst, sex = "PREEMPTED", "0:0", "CANCELLED", "0:15"
    elif run.meta.get("user_cancel"):
        st, ex, sst, sex = "CANCELLED by %d" % run.meta["uid"], "0:0", "CANCELLED", "0:15"
    elif cause == "host_oom_kill" and run.meta.get("oom_slurm"):
        st, ex, sst, sex = "OUT_OF_MEMORY", "0:125", "OUT_OF_MEMORY", "0:125"
    else:
        st, ex, sst, sex = "FAILED", "1:0", "FAILED", "1:0" if not run.meta.get("job_kill_t") else "0:9"
    run.add_file("sacct.txt", "$ sacct -j %d --format=JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode,Start,End,Elapsed\n" % jid +
                 sacct_text(run, jid, run.meta["expname"], st, ex, sst, sex, len(run.nodes) * 96, -30, end))


# ================================================================== Slurm: per-task output files
def render_slurm_per_task(run: Run, plan):
    rng = run.rng
    jid = run.meta["jobid"]
    name = run.meta["expname"][:12]
    per_gpu = run.meta.get("srun_per_gpu")
    d = rng.choice(["logs/", "out/", ""])
    # which task files did the user copy?
    ntask = run.world if per_gpu else len(run.nodes)
    mode = rng.choice(["all", "some", "first_last", "all"]) if ntask > 4 else "all"
    if mode == "all":
        tsel = set(range(ntask))
    elif mode == "some":
        tsel = set(rng.sample(range(ntask), max(1, ntask // rng.choice([3, 4, 8]))))
    else:
        tsel = {0, ntask - 1}
    sel_r = set()
    for tk in tsel:
        if per_gpu:
            sel_r.add(tk)
        else:
            sel_r.update(x.r for x in run.ranks_on(run.nodes[tk]))
    batch_present = run.meta.get("batch_present", True) or any(k == "launcher" for (k, _) in run.meta.get("must", []))
    sel_r, sel_k, sel_x = apply_must(run, sel_r, set(), set(), batch_present)
    for r in sel_r:
        tsel.add(r if per_gpu else run.ranks[r].node.idx)
    for tk in sorted(tsel):
        if per_gpu:
            txt = join([x for (_, x) in rank_texts(run, tk)])
            got_rank(run, tk)
        else:
            nd = run.nodes[tk]
            txt = join([x for (_, x) in node_stream(run, nd)])
            got_merged(run, [x.r for x in run.ranks_on(nd)])
            coll(run)["launcher_ranks"].update(agent_reports_rank(run, nd))
            coll(run)["pid_ranks"].update(agent_reports_rank(run, nd))
        run.add_file("%s%s-%d-%d.out" % (d, name, jid, tk), truncate_tail(run, txt))
    if batch_present:
        items = slurm_header(run)
        tasks, label_of, host_of, exit_of = slurm_task_exit(run)
        if run.meta.get("oom_slurm") and run.truth.get("cause") == "host_oom_kill":
            r = run.truth["rank"]
            run.meta["oom_t"] = run.ranks[r].exit[0]
            run.meta["oom_tasks"] = {r} if per_gpu else set()
        items += srun_errors(run, tasks, label_of, host_of, exit_of)
        items += slurm_tail(run, jid, 0, run.nodes[0].host)
        items.sort(key=lambda z: z[0])
        run.add_file(rng.choice(["%s%s-%d.out" % (d, name, jid), "job.err", "%sslurm-%d.out" % (d, jid)]), join([x for (_, x) in items]))
        coll(run)["launcher"] = True
        slurm_extras_launcher(run)
    for k in sorted(sel_k):
        nd = run.nodes[k]
        kernel_file(run, nd, "%s_dmesg.log" % short(nd.host), window=(-rng.uniform(3600, 20000), job_end(run) + 300))
    write_extras(run, sel_x, d)
    if rng.random() < 0.4:
        add_sacct(run)


# ================================================================== Slurm: chain of attempts, only the last failed
def render_slurm_attempts(run: Run, plan):
    rng = run.rng
    n_prev = rng.randint(1, 3)
    fw = run.meta["fw"]
    jid0 = run.meta["jobid"]
    per_job = max(10, plan.start_step // (n_prev + rng.randint(0, 2)))
    for k in range(n_prev):
        jid = jid0 - (n_prev - k) * rng.randint(40, 900)
        t_a = -(n_prev - k) * rng.uniform(4, 14) * 3600
        dur = per_job * plan.dt
        lines = ["SLURM_JOB_ID=%d" % jid, "Starting at %s" % ts_ctime(run.e(t_a))]
        s0 = max(0, plan.start_step - (n_prev - k) * per_job)
        li = max(plan.log_interval, 10, per_job // 1200)
        s = s0 + li
        w = label_width(run.world if run.meta.get("srun_per_gpu") else len(run.nodes))
        lab = ("%*d: " % (w, run.world - 1 if fw == "megatron" else 0)) if run.meta.get("srun_per_gpu") else ("%*d: " % (w, len(run.nodes) - 1 if fw == "megatron" else 0))
        cnt = 0
        while s < s0 + int(dur / plan.dt) and cnt < 1500:
            t = t_a + 120 + (s - s0) * plan.dt
            r, st, txt = step_line(run, fw, plan, s, t, plan.dt * 1000 * rng.uniform(0.97, 1.04))
            lines.append(lab + txt.replace("\r", ""))
            s += li
            cnt += 1
        s = s0 + per_job
        tend = t_a + 120 + (s - s0) * plan.dt
        if fw == "megatron":
            lines.append(lab + "saving checkpoint at iteration %7d to /lustre/fsw/%s/checkpoints in torch_dist format" % (s, run.meta["user"]))
            lines.append(lab + "  successfully saved checkpoint from iteration %7d to /lustre/fsw/%s/checkpoints [ t 1/%d, p 1/%d ]" % (s, run.meta["user"], run.meta.get("tp", 1), run.meta.get("pp", 1)))
            lines.append(lab + "exiting program after %.3f minutes" % (dur / 60))
        else:
            lines.append(lab + "%s | INFO | train | reached --max-steps-per-job, saved checkpoint step_%d, exiting cleanly" % (ts_sec(run.e(tend)), s))
        lines.append("Finished at %s" % ts_ctime(run.e(tend + 30)))
        run.add_file("attempt-%d/slurm-%d.out" % (k + 1, jid), "\n".join(lines) + "\n")
    render_slurm_single(run, plan)
    # move the main files into the last attempt folder
    last = "attempt-%d/" % (n_prev + 1)
    for p in list(run.files):
        if not p.startswith("attempt-"):
            run.files[last + p] = run.files.pop(p)


# ================================================================== torchrun --tee 3 --log-dir on every node
def setup_torchrun(run: Run):
    rng = run.rng
    nn, gpn = sizes(rng, [1, 2, 2, 3, 4, 6, 8], [8, 8, 4, 2])
    fw = rng.choice(["torchtitan", "plain", "hf_trainer", "composer", "deepspeed", "megatron"])
    base_setup(run, nn, gpn, rng.choice(["gpu", "fqdn", "ec2", "dgx", "plain"]), fw, {"node_group"})
    if run.nodes[0].host.startswith("ip-"):
        run.meta["transport"] = rng.choice(["socket", "ofi"])
        if run.meta["transport"] == "ofi":
            run.meta["net_plugin"] = "ofi"


def render_torchrun_logdir(run: Run, plan):
    rng = run.rng
    rid = rng.choice(["none", hexid(rng, 8), run.meta["expname"]])
    sub = "%s_%s" % (rid, "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8)))
    restarts = run.meta.get("healthy_restart")
    nodes_sel = set(range(len(run.nodes)))
    if len(run.nodes) > 2 and rng.random() < 0.5:
        nodes_sel = set(rng.sample(range(len(run.nodes)), max(1, len(run.nodes) // 2)))
    sel_r = set()
    for k in nodes_sel:
        sel_r.update(x.r for x in run.ranks_on(run.nodes[k]))
    sel_r, sel_k, sel_x = apply_must(run, sel_r, set(), set(), False)
    for r in sel_r:
        nodes_sel.add(run.ranks[r].node.idx)
    bad = run.truth.get("node_obj")
    if bad is not None and bad.idx in nodes_sel and rng.random() < 0.4:
        sel_k.add(bad.idx)
    for k in sorted(nodes_sel):
        nd = run.nodes[k]
        hd = short(nd.host) + "/"
        att = "attempt_%d" % (1 if restarts else 0)
        for rk in run.ranks_on(nd):
            base = "%slogs/%s/%s/%d/" % (hd, sub, att, rk.local)
            run.add_file(base + "stdout.log", truncate_tail(run, join([x for (_, x) in rank_texts(run, rk.r, ("out",))]), 0.1))
            got_merged(run, [rk.r])
            run.add_file(base + "stderr.log", truncate_tail(run, join([x for (_, x) in rank_texts(run, rk.r, ("err",))]), 0.15))
            if rk.exit and rk.exit[1] == "code" and rk.exit[2] == 1 and not getattr(rk, "meta_killed", False):
                errs = [x for (_, x) in rank_texts(run, rk.r, ("err",))]
                tb = [x for x in errs if x.startswith("Traceback") or x.startswith("  ") or x.startswith("[rank")]
                last = [x for x in errs if x and not x.startswith(" ")]
                msg = last[-1] if last else "RuntimeError"
                run.add_file(base + "error.json", json.dumps({"message": {"message": msg.replace("[rank%d]: " % rk.r, ""), "extraInfo": {
                    "py_callstack": "\n".join(tb[-40:]), "timestamp": str(int(run.e(rk.exit[0], nd)))}}}, indent=None))
        if restarts:
            a0 = "%slogs/%s/attempt_0/" % (hd, sub)
            for rk in run.ranks_on(nd):
                txt = restarts.get(rk.r, "")
                run.add_file(a0 + "%d/stderr.log" % rk.local, txt)
                run.add_file(a0 + "%d/stdout.log" % rk.local, "")
        ag = agent_lines(run, nd, SCRIPTS.get(run.meta["fw"], "train.py"), run.ranks[nd.first_rank].pid - 5, 0.5)
        if restarts and nd.idx in run.meta.get("restart_nodes", ()):
            tr = run.meta["restart_t"]
            ag.append((tr, "%s %d torch/distributed/elastic/agent/server/api.py:%d] [default] Worker group FAILED. 2/3 attempts left; will restart worker group" % (
                ts_elastic(run.e(tr, nd), "W"), run.ranks[nd.first_rank].pid - 5, pickn(run, [725, 739]))))
            ag.sort(key=lambda z: z[0])
        # with --tee 3 the agent's stdout also carries the workers' lines prefixed by [rank]
        if rng.random() < 0.5:
            items = list(ag)
            for rk in run.ranks_on(nd):
                items += [(t, "[default%d]:%s" % (rk.local, x)) for (t, x) in rank_texts(run, rk.r)]
            items.sort(key=lambda z: z[0])
            run.add_file(hd + "torchrun.log", join([x for (_, x) in items]))
        else:
            run.add_file(hd + "torchrun.log", join([x for (_, x) in ag]))
        coll(run)["launcher_ranks"].update(agent_reports_rank(run, nd))
        coll(run)["pid_ranks"].update(agent_reports_rank(run, nd))
        coll(run)["launcher"] = True
    for k in sorted(sel_k):
        nd = run.nodes[k]
        kernel_file(run, nd, short(nd.host) + "/" + rng.choice(["dmesg.txt", "kern.log", "journal-k.txt"]), window=(-rng.uniform(3600, 30000), job_end(run) + 300))
    write_extras(run, sel_x)
    maybe_decoy_smi(run)


# ================================================================== user-named bundle
def setup_user_bundle(run: Run):
    rng = run.rng
    nn, gpn = sizes(rng, [2, 4, 4, 8, 8, 12], [8, 4])
    fw = rng.choice(["plain", "torchtitan", "megatron", "hf_trainer", "deepspeed"])
    base_setup(run, nn, gpn, rng.choice(["gpu", "cn", "plain", "fqdn", "dgx"]), fw, {"node_group"})


def render_user_bundle(run: Run, plan):
    rng = run.rng
    N = len(run.nodes)
    pick = set(rng.sample(range(N), max(1, min(N, rng.randint(1, 3)))))
    sel_r = set()
    for k in pick:
        sel_r.update(x.r for x in run.ranks_on(run.nodes[k]))
    sel_r, sel_k, sel_x = apply_must(run, sel_r, set(), set(), False)
    for r in sel_r:
        pick.add(run.ranks[r].node.idx)
    naming = rng.choice(["nodeN", "worker", "host"])
    for k in sorted(pick):
        nd = run.nodes[k]
        txt = join([x for (_, x) in node_stream(run, nd)])
        fn = {"nodeN": "node%d.txt" % k, "worker": "worker-%d-of-%d.log" % (k, N), "host": "%s.log" % short(nd.host)}[naming]
        run.add_file(fn, truncate_tail(run, txt))
        got_merged(run, [x.r for x in run.ranks_on(nd)])
        coll(run)["launcher_ranks"].update(agent_reports_rank(run, nd))
        coll(run)["pid_ranks"].update(agent_reports_rank(run, nd))
    bad = run.truth.get("node_obj")
    if bad is not None and rng.random() < 0.3:
        sel_k.add(bad.idx)
    for k in sorted(sel_k):
        nd = run.nodes[k]
        kname = ("dmesg_%s.txt" % short(nd.host)) if naming == "host" else rng.choice(["dmesg_%s.txt" % short(nd.host), "kern_node%d.log" % k, "dmesg_%d.txt" % k])
        kernel_file(run, nd, kname,
                    style=rng.choice(["dmesg", "dmesg_T", "dmesg_T_de", "dmesg_T_fr", "journal"]), window=(-rng.uniform(600, 20000), job_end(run) + 900))
    if rng.random() < 0.5 or naming != "host":
        lines = [rng.choice(["job died overnight, no idea why. these are the nodes I could still ssh into.",
                             "logs from the failed run. node numbering is the order in the hostfile.",
                             "restarted it twice already. attaching what I have.",
                             "hostfile:\n" + "\n".join("%s slots=%d" % (short(n.host), run.gpn) for n in run.nodes)])]
        if naming != "host" and not lines[0].startswith("hostfile"):
            lines.append("hosts: " + ", ".join("node%d=%s" % (i, short(n.host)) for i, n in enumerate(run.nodes)))
        run.add_file(rng.choice(["README.txt", "notes.txt", "what_happened.md"]), "\n".join(lines) + "\n")
    if rng.random() < 0.4:
        items = []
        for nd in run.nodes:
            for (t, x) in agent_lines(run, nd, SCRIPTS.get(run.meta["fw"], "train.py"), run.ranks[nd.first_rank].pid - 5, 0.5):
                if " E" in x[:2] or x.startswith("E") or "ChildFailedError" in x or "Root Cause" in x or x.startswith("  "):
                    items.append((t, x))
        run.add_file("job.err", join([x for (_, x) in sorted(items, key=lambda z: z[0])]))
        for nd in run.nodes:
            coll(run)["launcher_ranks"].update(agent_reports_rank(run, nd))
            coll(run)["pid_ranks"].update(agent_reports_rank(run, nd))
        coll(run)["launcher"] = True
    write_extras(run, sel_x)
    maybe_decoy_smi(run)


# ================================================================== DeepSpeed launcher over pdsh
def setup_deepspeed(run: Run):
    rng = run.rng
    nn, gpn = sizes(rng, [1, 2, 2, 4, 4, 8], [8, 8, 4])
    base_setup(run, nn, gpn, rng.choice(["gpu", "plain", "cn", "ec2"]), "deepspeed", {"node_group"})


def render_deepspeed(run: Run, plan):
    rng = run.rng
    head = run.nodes[0]
    hosts = [short(n.host) for n in run.nodes]
    items = []
    t = -rng.uniform(5, 15)
    tsr = lambda tt: ts_py(run.e(tt, head))
    items.append((t, "[%s] [INFO] [real_accelerator.py:219:get_accelerator] Setting ds_accelerator to cuda (auto detect)" % tsr(t)))
    items.append((t + 1, "[%s] [INFO] [runner.py:%d:main] cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=/home/%s/proj; export NCCL_IB_HCA=%s; cd /home/%s/proj; %s -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n --master_addr=%s --master_port=29500 train_sft.py --deepspeed ds_config_zero3.json"
                  % (tsr(t + 1), pickn(run, [585, 607]), ",".join(hosts), run.meta["user"], ",".join(head.ib_ifs[:4]), run.meta["user"], run.meta["pybin"], hexid(rng, 60), head.ip)))
    mapping = "{" + ", ".join("'%s': [%s]" % (short(n.host), ", ".join(str(x.r) for x in run.ranks_on(n))) for n in run.nodes) + "}"
    for nd in run.nodes:
        hp = short(nd.host) + ": "
        t1 = rng.uniform(1, 4)
        tsn = lambda tt: ts_py(run.e(tt, nd))
        for ln in ["[%s] [INFO] [launch.py:146:main] WORLD INFO DICT: {%s}" % (tsn(t1), ", ".join("'%s': [%s]" % (short(n.host), ", ".join(str(i) for i in range(run.gpn))) for n in run.nodes)),
                   "[%s] [INFO] [launch.py:152:main] nnodes=%d, num_local_procs=%d, node_rank=%d" % (tsn(t1), len(run.nodes), run.gpn, nd.idx),
                   "[%s] [INFO] [launch.py:163:main] global_rank_mapping=defaultdict(<class 'list'>, %s)" % (tsn(t1), mapping),
                   "[%s] [INFO] [launch.py:164:main] dist_world_size=%d" % (tsn(t1), run.world),
                   "[%s] [INFO] [launch.py:168:main] Setting CUDA_VISIBLE_DEVICES=%s" % (tsn(t1), ",".join(str(i) for i in range(run.gpn))),
                   "[%s] [INFO] [launch.py:256:main] process %d spawned with command: ['%s', '-u', 'train_sft.py', '--local_rank=0', '--deepspeed', 'ds_config_zero3.json']" % (tsn(t1), run.ranks[nd.first_rank].pid, run.meta["pybin"])]:
            items.append((t1, hp + ln))
        for rk in run.ranks_on(nd):
            items += [(tt, hp + x) for (tt, x) in rank_texts(run, rk.r)]
        fails = natural_failures(run, nd)
        if fails:
            tf = fails[0].exit[0]
            for rk in run.ranks_on(nd):
                items.append((tf + 0.3, hp + "[%s] [INFO] [launch.py:%d:sigkill_handler] Killing subprocess %d" % (tsn(tf + 0.3), pickn(run, [319, 335]), rk.pid)))
            f = fails[0]
            items.append((tf + 1.5, hp + "[%s] [ERROR] [launch.py:%d:sigkill_handler] ['%s', '-u', 'train_sft.py', '--local_rank=%d', '--deepspeed', 'ds_config_zero3.json'] exits with return code = %d" % (
                tsn(tf + 1.5), pickn(run, [325, 341]), run.meta["pybin"], f.local, exit_code(f))))
            items.append((tf + 2.0, "pdsh@%s: %s: ssh exited with exit code %d" % (short(head.host), short(nd.host), 1 if exit_code(f) > 0 else (256 + exit_code(f)) % 256)))
            coll(run)["launcher_ranks"].add(f.r)
        elif all(rk.exit[1] == "code" and rk.exit[2] == 0 for rk in run.ranks_on(nd)):
            te = max(rk.exit[0] for rk in run.ranks_on(nd))
            for rk in run.ranks_on(nd):
                items.append((te + 0.2, hp + "[%s] [INFO] [launch.py:%d:main] Process %d exits successfully." % (tsn(te + 0.2), pickn(run, [351, 367]), rk.pid)))
    items.sort(key=lambda z: z[0])
    run.add_file(rng.choice(["ds_train.log", "deepspeed_%s.log" % run.meta["expname"], "nohup.out"]), join([x for (_, x) in items]))
    run.add_file("hostfile", "".join("%s slots=%d\n" % (h, run.gpn) for h in hosts))
    got_merged(run, range(run.world))
    coll(run)["launcher"] = True
    sel_r, sel_k, sel_x = apply_must(run, set(), set(), set(), True)
    bad = run.truth.get("node_obj")
    if bad is not None and rng.random() < 0.4:
        sel_k.add(bad.idx)
    for k in sorted(sel_k):
        nd = run.nodes[k]
        kernel_file(run, nd, "dmesg_%s.txt" % short(nd.host), window=(-rng.uniform(3600, 20000), job_end(run) + 300))
    write_extras(run, sel_x)


# ================================================================== single node, accelerate/torchrun, tqdm
def setup_single(run: Run):
    rng = run.rng
    gpn = rng.choice([2, 4, 8, 8])
    fw = rng.choice(["hf_trainer", "hf_trainer", "lightning", "plain"])
    base_setup(run, 1, gpn, rng.choice(["gpu", "ec2", "plain", "fqdn"]), fw, {"node_group"})
    run.meta["ansi_noise"] = True


def render_single(run: Run, plan):
    rng = run.rng
    nd = run.nodes[0]
    items = node_stream(run, nd)
    head = []
    if rng.random() < 0.7:
        head.append((-1, "The following values were not passed to `accelerate launch` and had defaults used instead:\n\t`--num_machines` was set to a value of `1`\n\t`--mixed_precision` was set to a value of `'no'`\n\t`--dynamo_backend` was set to a value of `'no'`\nTo avoid this warning pass in values for each of the problematic parameters or run `accelerate config`."))
    txt = join([x for (_, x) in head + items])
    run.add_file(rng.choice(["train.log", "nohup.out", "run_%s.log" % run.meta["expname"]]), truncate_tail(run, txt, 0.2))
    got_merged(run, range(run.world))
    coll(run)["launcher_ranks"].update(agent_reports_rank(run, nd))
    coll(run)["pid_ranks"].update(agent_reports_rank(run, nd))
    coll(run)["launcher"] = True
    sel_r, sel_k, sel_x = apply_must(run, set(), set(), set(), True)
    if rng.random() < 0.35:
        sel_k.add(0)
    for k in sorted(sel_k):
        kernel_file(run, nd, rng.choice(["dmesg.txt", "sudo_dmesg_T.txt", "kern.log"]) if not nd.sys else rng.choice(["journalctl.txt", "syslog.txt"]),
                    style=rng.choice(["dmesg", "dmesg_T", "syslog", "dmesg_T_de"]) if not nd.sys else rng.choice(["journal", "syslog"]),
                    window=(-rng.uniform(3600, 50000), job_end(run) + 600))
    write_extras(run, sel_x)
    maybe_decoy_smi(run)


# ================================================================== Kubernetes: Kubeflow PyTorchJob
def setup_k8s(run: Run):
    rng = run.rng
    nn, gpn = sizes(rng, [2, 2, 3, 4, 4, 8], [8, 8, 4])
    fw = rng.choice(["torchtitan", "plain", "hf_trainer", "composer", "deepspeed", "megatron"])
    job = rng.choice(["llm-sft", "pretrain-7b", "dpo-run", "ft-job"]) + "-" + pod_suffix(rng, 4)
    cloud = rng.choice(["gke", "eks", "aks", "onprem"])
    hosts = []
    for i in range(nn):
        pod = "%s-master-0" % job if i == 0 else "%s-worker-%d" % (job, i - 1)
        if cloud == "gke":
            kn = "gke-%s-a3-highgpu-pool-%s-%s" % (rng.choice(["prod", "ml", "train"]), hexid(rng, 8), pod_suffix(rng, 4))
        elif cloud == "eks":
            kn = "ip-10-%d-%d-%d.ec2.internal" % (rng.randint(0, 9), rng.randint(0, 255), rng.randint(2, 250))
        elif cloud == "aks":
            kn = "aks-gpupool-%d-vmss%06d" % (rng.randint(10000000, 99999999), rng.randint(0, 40))
        else:
            kn = "gpu-worker-%02d" % rng.randint(1, 60)
        ip = "10.%d.%d.%d" % (rng.randint(0, 60), rng.randint(0, 255), rng.randint(2, 250))
        hosts.append((pod, [kn, ip], ip))
    base_setup(run, nn, gpn, "plain", fw, {"node_group", "job_kill"}, hosts=hosts)
    for nd in run.nodes:
        nd.k8s_node = nd.aliases[0]
    run.meta["k8s_job"] = job
    run.meta["cloud"] = cloud
    run.meta["ns"] = rng.choice(["default", "ml-training", "team-llm", "kubeflow-user"])
    for nd in run.nodes:
        nd.k8s_ip = "10.%d.%d.%d" % (rng.randint(0, 9), rng.randint(0, 255), rng.randint(2, 250))
    if cloud == "eks":
        run.meta["transport"] = rng.choice(["ofi", "ofi", "socket"])
        if run.meta["transport"] == "ofi":
            run.meta["net_plugin"] = "ofi"
    elif cloud == "gke":
        run.meta["transport"] = "socket"


def k8s_ts(run: Run, t: float, nd) -> str:
    e = run.e(t, nd)
    return ts_iso(e, 9)


def describe_pod(run: Run, nd, reason: str, code: int, t_start: float, t_end: float, msg: str = "") -> str:
    rng = run.rng
    job = run.meta["k8s_job"]
    role = "master" if nd.host.endswith("master-0") else "worker"
    img = rng.choice(["nvcr.io/nvidia/pytorch:24.10-py3", "us-docker.pkg.dev/%s/train/llm:%s" % (run.meta["expname"], hexid(rng, 7)),
                      "ghcr.io/acme/trainer:v%d.%d.%d" % (rng.randint(0, 3), rng.randint(0, 20), rng.randint(0, 9))])
    out = ["Name:             %s" % nd.host, "Namespace:        %s" % run.meta["ns"], "Priority:         0", "Service Account:  default",
           "Node:             %s/%s" % (nd.k8s_node, getattr(nd, "k8s_ip", nd.ip)),
           "Start Time:       %s" % dt_k8s(run.e(t_start - 60, nd)),
           "Labels:           training.kubeflow.org/job-name=%s" % job, "                  training.kubeflow.org/operator-name=pytorchjob-controller",
           "                  training.kubeflow.org/replica-index=%d" % (0 if role == "master" else int(nd.host.rsplit("-", 1)[1])),
           "                  training.kubeflow.org/replica-type=%s" % role,
           "Status:           %s" % ("Failed" if code else "Succeeded"),
           "IP:               %s" % nd.ip, "Containers:", "  pytorch:", "    Container ID:   containerd://%s" % hexid(rng, 64),
           "    Image:          %s" % img, "    Command:", "      torchrun", "    Args:", "      --nnodes=%d" % len(run.nodes), "      --nproc-per-node=%d" % run.gpn,
           "      %s" % SCRIPTS.get(run.meta["fw"], "train.py"),
           "    State:          Terminated", "      Reason:       %s" % reason]
    if msg:
        out.append("      Message:      %s" % msg)
    out += ["      Exit Code:    %d" % code, "      Started:      %s" % dt_k8s(run.e(t_start, nd)), "      Finished:     %s" % dt_k8s(run.e(t_end, nd)),
            "    Ready:          False", "    Restart Count:  0", "    Limits:", "      memory:          %dGi" % pickn(run, [900, 1200, 1600, 1800]),
            "      nvidia.com/gpu:  %d" % run.gpn, {"eks": "      vpc.amazonaws.com/efa:  32", "gke": "      networking.gke.io.networks/gpu-nic0:  1"}.get(run.meta.get("cloud"), "      rdma/ib:  8"),
            "    Environment:", "      NCCL_DEBUG:  %s" % ("INFO" if run.meta.get("nccl_info") else "WARN"), "      TORCH_NCCL_ASYNC_ERROR_HANDLING:  1",
            "Conditions:", "  Type                        Status", "  PodReadyToStartContainers   False", "  Initialized                 True",
            "  Ready                       False", "  ContainersReady             False", "  PodScheduled                True",
            "QoS Class:                   Burstable", "Events:                      <none>"]
    return "\n".join(out) + "\n"


def dt_k8s(e: float) -> str:
    from b4_common import dt as _dt
    d = _dt(e)
    return d.strftime("%a, %d %b %Y %H:%M:%S +0000")


def render_k8s(run: Run, plan):
    rng = run.rng
    job = run.meta["k8s_job"]
    cause = run.truth.get("cause")
    bad = run.truth.get("node_obj")
    ts_mode = rng.random() < 0.4
    d = rng.choice(["", "logs/", "kubectl/"])
    pick = set(range(len(run.nodes)))
    if len(run.nodes) > 2 and rng.random() < 0.5:
        pick = {0} | set(rng.sample(range(1, len(run.nodes)), max(1, (len(run.nodes) - 1) // 2)))
    sel_r = set()
    for k in pick:
        sel_r.update(x.r for x in run.ranks_on(run.nodes[k]))
    sel_r, sel_k, sel_x = apply_must(run, sel_r, set(), set(), True, can_kernel=False)
    for r in sel_r:
        pick.add(run.ranks[r].node.idx)
    for k in sorted(pick):
        nd = run.nodes[k]
        items = node_stream(run, nd)
        if ts_mode:
            lines = [("%s %s" % (k8s_ts(run, t, nd), x)) if not x.startswith("\r") else x for (t, x) in items]
        else:
            lines = [x for (_, x) in items]
        run.add_file("%s%s.log" % (d, nd.host), truncate_tail(run, join(lines), 0.3))
        got_merged(run, [x.r for x in run.ranks_on(nd)])
        coll(run)["launcher_ranks"].update(agent_reports_rank(run, nd))
        coll(run)["pid_ranks"].update(agent_reports_rank(run, nd))
    # pod descriptions + events
    events = []
    first_bad_pod = None
    t_ff = first_fail_time(run)
    for nd in run.nodes:
        rks = run.ranks_on(nd)
        t_end = max(rk.exit[0] for rk in rks) + 1
        if all(rk.exit[1] == "code" and rk.exit[2] == 0 for rk in rks):
            reason, code, msg = "Completed", 0, ""
        elif run.meta.get("k8s_oom_pod") is nd:
            reason, code, msg = "OOMKilled", 137, ""
        elif run.meta.get("preempt_node") is nd:
            reason, code, msg = "Error", 143, ""
        elif natural_failures(run, nd):
            reason, code, msg = "Error", 1, ""
        else:
            reason, code, msg = "Error", 143, ""
        if code and first_bad_pod is None and (natural_failures(run, nd) or reason == "OOMKilled") and (t_ff is None or min(rk.exit[0] for rk in rks) <= t_ff + 2):
            first_bad_pod = nd
        if code and (nd is bad or rng.random() < 0.3 or reason == "OOMKilled"):
            txt = describe_pod(run, nd, reason, code, 0, t_end, msg)
            if run.meta.get("preempt_node") is nd:
                txt = txt.replace("Status:           Failed", "Status:           Failed\nReason:           Terminated\nMessage:          Pod was terminated in response to imminent node shutdown.")
            run.add_file("%sdescribe-%s.txt" % (d, nd.host), txt)
        if code:
            events.append((t_end, "Warning", "Failed", "pod/%s" % nd.host, "Error: container pytorch exited with %d" % code))
    if run.meta.get("preempt_node") is not None:
        nd = run.meta["preempt_node"]
        tp = min(rk.exit[0] for rk in run.ranks_on(nd)) - 2
        events.append((tp - 25, "Warning", "NodeNotReady", "pod/%s" % nd.host, "Node is not ready"))
        events.append((tp - 30, "Normal", "Preempted" if run.meta.get("cloud") == "gke" else "SpotInterruption", "node/%s" % nd.k8s_node,
                       "Preemption notice received, node will be shut down" if run.meta.get("cloud") == "gke" else "EC2 Spot Instance interruption notice: instance will be reclaimed in 2 minutes"))
        events.append((tp, "Normal", "Killing", "pod/%s" % nd.host, "Stopping container pytorch"))
    if run.meta.get("preempt_job"):
        tp = run.meta.get("preempt_t", job_end(run)) - 1
        events.append((tp, "Normal", "Preempted", "workload/pytorchjob-%s-%s" % (job, hexid(rng, 5)),
                       "Preempted to accommodate a workload (UID: %s-%s-%s-%s-%s) due to prioritization in the ClusterQueue" % (hexid(rng, 8), hexid(rng, 4), hexid(rng, 4), hexid(rng, 4), hexid(rng, 12))))
        events.append((tp + 0.5, "Normal", "Stopped", "pytorchjob/%s" % job, "PyTorchJob %s is suspended." % job))
        for nd in run.nodes:
            events.append((tp + 1, "Normal", "Killing", "pod/%s" % nd.host, "Stopping container pytorch"))
    if run.meta.get("k8s_oom_pod") is not None:
        nd = run.meta["k8s_oom_pod"]
        events.append((min(rk.exit[0] for rk in run.ranks_on(nd)) + 1, "Warning", "OOMKilling", "node/%s" % nd.k8s_node,
                       "Memory cgroup out of memory: Killed process %d (python) total-vm:%dkB, anon-rss:%dkB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:%dkB oom_score_adj:%d" % (
                           run.ranks[nd.first_rank].pid + rng.randint(0, 7), rng.randint(10 ** 8, 4 * 10 ** 8), rng.randint(10 ** 8, 2 * 10 ** 8), rng.randint(10 ** 5, 10 ** 6), rng.choice([-997, 999, 1000]))))
    if cause is None:
        events.append((job_end(run) + 2, "Normal", "PyTorchJobSucceeded", "pytorchjob/%s" % job, "PyTorchJob %s/%s successfully completed." % (run.meta["ns"], job)))
    else:
        failed_role = "Master" if (first_bad_pod is not None and first_bad_pod.idx == 0) else "Worker"
        events.append((job_end(run) + 2, "Normal", "PyTorchJobFailed", "pytorchjob/%s" % job,
                       "PyTorchJob %s/%s has failed because 1 %s replica(s) failed." % (run.meta["ns"], job, failed_role)))
        for nd in run.nodes:
            events.append((job_end(run) + 3, "Normal", "SuccessfulDeletePod", "pytorchjob/%s" % job, "Deleted pod: %s" % nd.host))
    events.sort(key=lambda z: z[0])
    now = job_end(run) + rng.uniform(300, 4000)
    lines = ["LAST SEEN   TYPE      REASON                 OBJECT                                   MESSAGE"]
    for (t, ty, rs, ob, m) in events:
        age = int(now - t)
        ag = "%dm" % (age // 60) if age >= 120 else "%ds" % age
        lines.append("%-11s %-9s %-22s %-40s %s" % (ag, ty, rs, ob, m))
    run.add_file(d + "events.txt", "\n".join(lines) + "\n")
    coll(run)["launcher"] = True
    if run.meta.get("k8s_oom_pod") is not None:
        coll(run)["extras"].add("k8s_oom")
    if rng.random() < 0.6:
        st = {"conditions": [{"type": "Created", "status": "True", "reason": "PyTorchJobCreated", "message": "PyTorchJob %s is created." % job},
                             {"type": "Running", "status": "False", "reason": "PyTorchJobRunning"},
                             ({"type": "Succeeded", "status": "True", "reason": "PyTorchJobSucceeded", "message": "PyTorchJob %s is successfully completed." % job} if cause is None else
                              {"type": "Failed", "status": "True", "reason": "PyTorchJobFailed", "message": "PyTorchJob %s is failed because 1 %s replica(s) failed." % (job, "Master" if (first_bad_pod is not None and first_bad_pod.idx == 0) else "Worker")})],
              "replicaStatuses": {"Master": {"failed" if cause else "succeeded": 1}, "Worker": {"failed" if cause else "succeeded": len(run.nodes) - 1}},
              "startTime": ts_iso(run.e(-60), 0), "completionTime": ts_iso(run.e(job_end(run) + 2), 0)}
        y = ["apiVersion: kubeflow.org/v1", "kind: PyTorchJob", "metadata:", "  name: %s" % job, "  namespace: %s" % run.meta["ns"], "spec:",
             "  pytorchReplicaSpecs:", "    Master:", "      replicas: 1", "      restartPolicy: Never", "    Worker:", "      replicas: %d" % (len(run.nodes) - 1),
             "      restartPolicy: Never", "  runPolicy:", "    cleanPodPolicy: None", "status:"]
        y += ["  " + ln for ln in json.dumps(st, indent=2).split("\n")]
        run.add_file(d + "pytorchjob.yaml", "\n".join(y) + "\n")
    for k in sorted(sel_k):
        nd = run.nodes[k]
        kernel_file(run, nd, "node-%s-dmesg.txt" % nd.k8s_node, style=rng.choice(["dmesg_T", "journal", "iso"]), window=(-rng.uniform(3600, 30000), job_end(run) + 300))
    write_extras(run, sel_x, d)


# ================================================================== GKE JobSet, Cloud Logging JSON export
def setup_gke_json(run: Run):
    rng = run.rng
    nn, gpn = sizes(rng, [2, 4, 4, 8, 16], [8])
    fw = rng.choice(["torchtitan", "plain", "megatron", "nemo2"])
    js = rng.choice(["llama3-pt", "mixtral-ft", "gemma-sft"]) + "-" + pod_suffix(rng, 3)
    hosts = []
    for i in range(nn):
        pod = "%s-workers-0-%d-%s" % (js, i, pod_suffix(rng, 5))
        kn = "gke-%s-a3mega-%s-%s" % (rng.choice(["ml", "prod"]), hexid(rng, 8), pod_suffix(rng, 4))
        ip = "10.%d.%d.%d" % (rng.randint(64, 127), rng.randint(0, 255), rng.randint(2, 250))
        hosts.append((pod, [kn, ip, "%s-workers-0-%d.%s" % (js, i, js)], ip))
    base_setup(run, nn, gpn, "plain", fw, {"node_group", "job_kill"}, hosts=hosts)
    for nd in run.nodes:
        nd.k8s_node = nd.aliases[0]
    run.meta["k8s_job"] = js
    run.meta["ns"] = "default"
    run.meta["project"] = rng.choice(["ml-prod-4471", "research-gpu", "acme-llm"])
    run.meta["cloud"] = "gke"
    run.meta["transport"] = "socket"


def render_gke_json(run: Run, plan):
    rng = run.rng
    proj = run.meta["project"]
    js = run.meta["k8s_job"]
    loc = rng.choice(["us-central1", "us-east5", "europe-west4"])
    ents = []
    sel_r, sel_k, sel_x = apply_must(run, set(), set(), set(), True, can_kernel=True)
    t_ff = first_fail_time(run) or job_end(run)
    lo = min(t_ff - rng.uniform(600, 3600), run.meta.get("t_fault", t_ff) - rng.uniform(60, 600))
    for nd in run.nodes:
        items = node_stream(run, nd)
        for (t, x) in items:
            is_step = ("step" in x and "loss" in x) or "iteration" in x
            keep_always = any(k in x for k in ("| INFO | dist | rank", "[host ", "hostname=", "Init COMPLETE", "MnRtt", "comm_wait="))
            if t < lo and not (rng.random() < 0.02) and not keep_always:
                continue
            if is_step and rng.random() < 0.6:
                continue
            sev = "ERROR" if any(k in x for k in ("Error", "error", "E1", "F1", "Traceback", "WARN", "[E", "[F")) else "INFO"
            ents.append((t, nd, {"textPayload": x, "insertId": hexid(rng, 16), "resource": {"type": "k8s_container", "labels": {
                "project_id": proj, "location": loc, "cluster_name": "a3-%s" % rng.choice(["cluster", "mega"]), "namespace_name": "default",
                "pod_name": nd.host, "container_name": "trainer"}}, "timestamp": None, "severity": sev,
                "labels": {"k8s-pod/jobset_sigs_k8s_io/jobset-name": js, "compute.googleapis.com/resource_name": nd.k8s_node},
                "logName": "projects/%s/logs/%s" % (proj, "stderr" if sev == "ERROR" else "stdout"), "receiveTimestamp": None}))
        got_merged(run, [x.r for x in run.ranks_on(nd)])
        coll(run)["launcher_ranks"].update(agent_reports_rank(run, nd))
        coll(run)["pid_ranks"].update(agent_reports_rank(run, nd))
    bad = run.truth.get("node_obj")
    kn = set(sel_k)
    if bad is not None and rng.random() < 0.5:
        kn.add(bad.idx)
    for k in sorted(kn):
        nd = run.nodes[k]
        for (t, m) in nd.kernel:
            if t < lo - 86400:
                continue
            ents.append((t, nd, {"textPayload": m, "insertId": hexid(rng, 16), "resource": {"type": "k8s_node", "labels": {
                "project_id": proj, "location": loc, "cluster_name": "a3-cluster", "node_name": nd.k8s_node}}, "timestamp": None,
                "severity": "WARNING" if "NVRM" in m or "mlx5" in m else "INFO", "logName": "projects/%s/logs/kernel" % proj, "receiveTimestamp": None}))
        got_kernel(run, nd.idx)
    on = run.meta.get("k8s_oom_pod")
    if on is not None:
        to = min(rk.exit[0] for rk in run.ranks_on(on)) + 1
        ents.append((to, on, {"jsonPayload": {"reason": "OOMKilling", "type": "Warning", "source": {"component": "kernel-monitor", "host": on.k8s_node},
                                               "message": "Memory cgroup out of memory: Killed process %d (python) total-vm:%dkB, anon-rss:%dkB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:%dkB oom_score_adj:%d" % (
                                                   run.ranks[on.first_rank].pid + rng.randint(0, 7), rng.randint(10 ** 8, 4 * 10 ** 8), rng.randint(10 ** 8, 2 * 10 ** 8), rng.randint(10 ** 5, 10 ** 6), rng.choice([-997, 999])),
                                               "involvedObject": {"kind": "Node", "name": on.k8s_node}},
                              "insertId": hexid(rng, 12), "resource": {"type": "k8s_node", "labels": {"project_id": proj, "location": loc, "cluster_name": "a3-cluster", "node_name": on.k8s_node}},
                              "timestamp": None, "severity": "WARNING", "logName": "projects/%s/logs/events" % proj, "receiveTimestamp": None}))
        ents.append((to + 2, on, {"textPayload": "Container trainer in pod %s was OOMKilled (exit code 137)" % on.host, "insertId": hexid(rng, 12),
                                  "resource": {"type": "k8s_pod", "labels": {"project_id": proj, "location": loc, "cluster_name": "a3-cluster", "namespace_name": "default", "pod_name": on.host}},
                                  "timestamp": None, "severity": "WARNING", "logName": "projects/%s/logs/events" % proj, "receiveTimestamp": None}))
    pn = run.meta.get("preempt_node")
    if pn is not None or run.meta.get("preempt_job"):
        tgt = [pn] if pn is not None else []
        tp = (min(rk.exit[0] for rk in run.ranks_on(pn)) - 20) if pn is not None else run.meta.get("preempt_t", job_end(run)) - 2
        for nd in tgt:
            ents.append((tp, nd, {"protoPayload": {"@type": "type.googleapis.com/google.cloud.audit.AuditLog", "status": {"message": "Instance was preempted."},
                                                   "authenticationInfo": {"principalEmail": "system@google.com"}, "serviceName": "compute.googleapis.com",
                                                   "methodName": "compute.instances.preempted", "resourceName": "projects/%s/zones/%s-a/instances/%s" % (proj, loc, nd.k8s_node),
                                                   "request": {"@type": "type.googleapis.com/compute.instances.preempted"}},
                                  "insertId": hexid(rng, 12), "resource": {"type": "gce_instance", "labels": {"instance_id": str(rng.randint(10 ** 18, 9 * 10 ** 18)), "project_id": proj, "zone": loc + "-a"}},
                                  "timestamp": None, "severity": "INFO", "logName": "projects/%s/logs/cloudaudit.googleapis.com%%2Fsystem_event" % proj, "receiveTimestamp": None}))
        if pn is None:
            nd0 = run.nodes[0]
            ents.append((tp, nd0, {"jsonPayload": {"reason": "Preempted", "message": "Preempted to accommodate a workload (UID: %s-%s-%s-%s-%s) due to prioritization in the ClusterQueue" % (hexid(rng, 8), hexid(rng, 4), hexid(rng, 4), hexid(rng, 4), hexid(rng, 12)),
                                                   "involvedObject": {"kind": "Workload", "namespace": "default", "name": "jobset-%s-%s" % (js, hexid(rng, 5))}, "source": {"component": "kueue-admission"}, "type": "Normal"},
                                   "insertId": hexid(rng, 12), "resource": {"type": "k8s_cluster", "labels": {"project_id": proj, "location": loc, "cluster_name": "a3-cluster"}},
                                   "timestamp": None, "severity": "INFO", "logName": "projects/%s/logs/events" % proj, "receiveTimestamp": None}))
        coll(run)["launcher"] = True
    ents.sort(key=lambda z: z[0], reverse=True)   # console export is newest first
    keep = [e for e in ents if any(k in e[2].get("textPayload", "") for k in ("| INFO | dist | rank", "[host ", "hostname=", "Init COMPLETE"))]
    ents = ents[:1400]
    ents += [e for e in keep if e not in ents]
    ents.sort(key=lambda z: z[0], reverse=True)
    out = []
    for (t, nd, e) in ents:
        e["timestamp"] = ts_iso(run.e(t, nd), 9)
        e["receiveTimestamp"] = ts_iso(run.e(t + rng.uniform(0.5, 4), nd), 9)
        out.append(e)
    run.add_file("downloaded-logs-%s.json" % ts_sec(run.e(job_end(run) + rng.uniform(600, 7200))).replace("-", "").replace(" ", "-").replace(":", ""),
                 json.dumps(out, indent=2, ensure_ascii=False))
    coll(run)["launcher"] = True
    js_lines = ["Name:         %s" % js, "Namespace:    default", "API Version:  jobset.x-k8s.io/v1alpha2", "Kind:         JobSet", "Status:", "  Conditions:"]
    if run.truth.get("cause") is None:
        js_lines += ["    Message:  jobset completed successfully", "    Reason:   AllJobsCompleted", "    Status:   True", "    Type:     Completed"]
    else:
        js_lines += ["    Message:  jobset failed due to one or more job failures", "    Reason:   FailedJobs", "    Status:   True", "    Type:     Failed"]
    run.add_file("kubectl-describe-jobset.txt", "\n".join(js_lines) + "\n")
    write_extras(run, sel_x)


# ================================================================== PBS Pro + Cray PALS mpiexec
def setup_pbs(run: Run):
    rng = run.rng
    nn = rng.choice([2, 4, 8, 16, 32])
    base_setup(run, nn, 4, "polaris", rng.choice(["megatron", "deepspeed", "plain"]), {"job_kill"})
    run.meta["host_lines"] = True
    run.meta["srun_per_gpu"] = True
    run.meta["pbs_label"] = rng.random() < 0.5


def render_pbs(run: Run, plan):
    rng = run.rng
    jid = "%d.%s" % (rng.randint(1000000, 6000000), rng.choice(["polaris-pbs-01.hsn.cm.polaris.alcf.anl.gov", "pbs01", "sched"]))
    name = run.meta["expname"][:15]
    lab = run.meta.get("pbs_label")
    out_items, err_items = [], []
    for rk in run.ranks:
        p = "%d: " % rk.r if lab else ""
        for (t, s, x) in run.rank_lines(rk.r):
            (out_items if s == "out" else err_items).append((t, p + x))
    if lab:
        got_rank(run, *range(run.world))
    else:
        got_merged(run, range(run.world))
    jk = run.meta.get("job_kill_t")
    for rk in run.ranks:
        t, kind, v = rk.exit
        if getattr(rk, "meta_killed", False) and jk is not None and t > jk + 0.01:
            continue
        if kind == "code" and v == 0:
            continue
        fq = rk.node.aliases[0]
        if kind == "signal":
            err_items.append((t + 0.2, "%s: rank %d died from signal %d%s" % (fq, rk.r, v, " and dumped core" if v in (6, 11) else "")))
        else:
            err_items.append((t + 0.2, "%s: rank %d exited with code %d" % (fq, rk.r, v)))
        coll(run)["launcher_ranks"].add(rk.r)
    if run.meta.get("preempt_job") or run.meta.get("hit_limit"):
        tl = job_end(run)
        err_items.append((tl, "=>> PBS: job killed: walltime %d exceeded limit %d" % (int(tl + 60), int(tl + 45))))
    out_items.sort(key=lambda z: z[0])
    err_items.sort(key=lambda z: z[0])
    run.add_file("%s.o%s" % (name, jid.split(".")[0]), join([x for (_, x) in out_items]))
    run.add_file("%s.e%s" % (name, jid.split(".")[0]), join([x for (_, x) in err_items]))
    coll(run)["launcher"] = True
    sel_r, sel_k, sel_x = apply_must(run, set(), set(), set(), True)
    for k in sorted(sel_k):
        nd = run.nodes[k]
        kernel_file(run, nd, "console-%s.log" % short(nd.host), style=rng.choice(["iso", "syslog"]), window=(-rng.uniform(3600, 20000), job_end(run) + 300))
    write_extras(run, sel_x)


# ================================================================== LSF + jsrun (Summit-like, 6 GPUs per node)
def setup_lsf(run: Run):
    rng = run.rng
    nn = rng.choice([2, 4, 8, 16])
    base_setup(run, nn, 6 if rng.random() < 0.6 else 4, "summit", rng.choice(["megatron", "deepspeed", "plain"]), {"job_kill"})
    run.meta["host_lines"] = True
    run.meta["gpuname"] = "Tesla V100-SXM2-16GB" if run.gpn == 6 else "Tesla V100-SXM2-32GB"
    run.meta["srun_per_gpu"] = True


def render_lsf(run: Run, plan):
    rng = run.rng
    jid = rng.randint(1000000, 3999999)
    name = run.meta["expname"][:12]
    items = []
    for rk in run.ranks:
        items += [(t, "%d: %s" % (rk.r, x)) for (t, x) in rank_texts(run, rk.r)]
    got_rank(run, *range(run.world))
    jk = run.meta.get("job_kill_t")
    bad = [rk for rk in run.ranks if not (rk.exit[1] == "code" and rk.exit[2] == 0) and not getattr(rk, "meta_killed", False)]
    if bad:
        f = min(bad, key=lambda x: x.exit[0])
        t, kind, v = f.exit
        if kind == "signal":
            items.append((t + 1, "ERROR:  One or more process (first noticed rank %d) terminated with signal %d%s" % (f.r, v, " (core dumped)" if v in (6, 11) else "")))
        else:
            items.append((t + 1, "ERROR:  One or more process (first noticed rank %d) exited with code %d" % (f.r, v)))
        coll(run)["launcher_ranks"].add(f.r)
    items.sort(key=lambda z: z[0])
    body = [x for (_, x) in items]
    t_sub = -rng.uniform(60, 40000)
    cause = run.truth.get("cause")
    term = None
    if run.meta.get("preempt_job") or run.meta.get("hit_limit"):
        term = "TERM_RUNLIMIT: job killed after reaching LSF run time limit." if (run.meta.get("preempt_job") in (None, "TIME LIMIT")) else "TERM_PREEMPT: job killed after preemption."
        ec = 140
    elif cause is None:
        ec = 0
    else:
        ec = 1
    te = job_end(run) + 2
    cl = rng.choice(["summit", "lassen", "sierra"])
    bh = rng.randint(1, 5)
    rep = ["", "------------------------------------------------------------", "Sender: LSF System <lsfadmin@batch%d>" % bh,
           "Subject: Job %d: <%s> in cluster <%s> %s" % (jid, name, cl, "Done" if ec == 0 else "Exited"), "",
           "Job <%s> was submitted from host <login%d> by user <%s> in cluster <%s> at %s" % (name, rng.randint(1, 5), run.meta["user"], cl, ts_ctime(run.e(t_sub))),
           "Job was executed on host(s) <1*batch%d>, in queue <%s>, as user <%s> in cluster <%s> at %s" % (bh, rng.choice(["batch", "pbatch"]), run.meta["user"], cl, ts_ctime(run.e(-5)))]
    for nd in run.nodes:
        rep.append("                            <42*%s>" % nd.host)
    rep += ["</ccs/home/%s> was used as the home directory." % run.meta["user"], "</gpfs/alpine/%s/proj-shared/%s> was used as the working directory." % (rng.choice(["csc123", "stf011"]), run.meta["user"]),
            "Started at %s" % ts_ctime(run.e(-5)), "Terminated at %s" % ts_ctime(run.e(te)), "Results reported at %s" % ts_ctime(run.e(te + 1)), "",
            "Your job looked like:", "", "------------------------------------------------------------", "# LSBATCH: User input",
            "#!/bin/bash", "#BSUB -P %s" % rng.choice(["CSC123", "STF011"]), "#BSUB -W 2:00", "#BSUB -nnodes %d" % len(run.nodes), "#BSUB -J %s" % name,
            "jsrun --smpiargs=\"-disable_gpu_hooks\" -n %d -a %d -c 42 -g %d -r 1 --stdio_mode prepended --bind=proportional-packed:7 python -u train.py" % (len(run.nodes), run.gpn, run.gpn),
            "------------------------------------------------------------", ""]
    if term:
        rep.append(term)
    rep.append("Exited with exit code %d." % ec if ec else "Successfully completed.")
    rep += ["", "Resource usage summary:", "", "    CPU time :                                   %.2f sec." % rng.uniform(10, 900),
            "    Max Memory :                                 %d MB" % rng.randint(90, 900), "    Average Memory :                             %.2f MB" % rng.uniform(60, 500),
            "    Total Requested Memory :                     -", "    Delta Memory :                               -", "    Max Swap :                                   -",
            "    Max Processes :                              %d" % rng.randint(3, 9), "    Max Threads :                                %d" % rng.randint(10, 60),
            "    Run time :                                   %d sec." % int(te + 5), "    Turnaround time :                            %d sec." % int(te - t_sub), "",
            "The output (if any) is above this job summary.", ""]
    run.add_file("%s.%d" % (name, jid), join(body) + "\n".join(rep))
    coll(run)["launcher"] = True
    sel_r, sel_k, sel_x = apply_must(run, set(), set(), set(), True)
    for k in sorted(sel_k):
        nd = run.nodes[k]
        kernel_file(run, nd, "%s_messages.txt" % nd.host, style=rng.choice(["syslog", "journal"]), window=(-rng.uniform(3600, 20000), job_end(run) + 300))
    write_extras(run, sel_x)


# ================================================================== Open MPI --tag-output --timestamp-output
def setup_mpi(run: Run):
    rng = run.rng
    nn, gpn = sizes(rng, [1, 2, 4, 4, 8], [8, 4])
    base_setup(run, nn, gpn, rng.choice(["gpu", "cn", "plain", "dgx"]), rng.choice(["plain", "deepspeed", "megatron"]), {"job_kill"})
    run.meta["srun_per_gpu"] = True


def render_mpi(run: Run, plan):
    rng = run.rng
    fam = rng.randint(1, 1)
    stamp = rng.random() < 0.7
    items = []
    for rk in run.ranks:
        for (t, s, x) in run.rank_lines(rk.r):
            tag = "[%d,%d]<%s>:" % (fam, rk.r, "stdout" if s == "out" else "stderr")
            pre = (ts_ctime(run.e(t, run.nodes[0])) + tag) if stamp else tag
            items.append((t, pre + x.replace("\r", "")))
    got_rank(run, *range(run.world))
    if rng.random() < 0.7:
        for rk in run.ranks:
            sock = 0 if rk.local < run.gpn // 2 else 1
            core = rk.local * 12
            items.append((-0.5 + rk.r * 1e-4, "[%s:%d] MCW rank %d bound to socket %d[core %d[hwt 0-1]]: [%s]" % (
                short(rk.node.host), rk.node.first_rank * 17 + 90000 + rk.node.idx, rk.r, sock, core, "/".join(("BB" if (i // 12) == rk.local else "..") for i in range(0, 12 * run.gpn, 12)))))
    else:
        for nd in run.nodes:
            items.append((-0.5, " Data for node: %s\tNum slots: %d\tMax slots: 0\tNum procs: %d" % (short(nd.host), run.gpn, run.gpn)))
            for rk in run.ranks_on(nd):
                items.append((-0.5 + rk.r * 1e-4, " \tProcess OMPI jobid: [%d,1] App: 0 Process rank: %d Bound: N/A" % (rng.randint(10000, 60000) if rk.r == 0 else 40000 + nd.idx, rk.r)))
    if run.meta.get("preempt_job"):
        tp = run.meta.get("preempt_t", job_end(run))
        items.append((tp - 0.4, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (run.meta["jobid"], short(run.nodes[0].host), ts_slurm(run.e(tp - 0.4)), run.meta["preempt_job"])))
        items.append((tp - 0.3, "mpirun: Forwarding signal 15 to job"))
    bad = [rk for rk in run.ranks if not (rk.exit[1] == "code" and rk.exit[2] == 0) and not getattr(rk, "meta_killed", False)]
    if run.meta.get("preempt_job"):
        bad = []
    if bad:
        f = min(bad, key=lambda x: x.exit[0])
        t, kind, v = f.exit
        sep = "-" * 74
        if kind == "code":
            blk = [sep, "Primary job  terminated normally, but 1 process returned", "a non-zero exit code. Per user-direction, the job has been aborted.", sep,
                   sep, "mpirun detected that one or more processes exited with non-zero status, thus causing", "the job to be terminated. The first process to do so was:", "",
                   "  Process name: [[%d,%d],%d]" % (rng.randint(10000, 60000), fam, f.r), "  Exit code:    %d" % v, sep]
        else:
            blk = [sep, "Primary job  terminated normally, but 1 process returned", "a non-zero exit code. Per user-direction, the job has been aborted.", sep,
                   sep, "mpirun noticed that process rank %d with PID %d on node %s exited on signal %d (%s)." % (
                       f.r, f.pid, short(f.node.host), v, {9: "Killed", 11: "Segmentation fault", 6: "Aborted", 15: "Terminated", 7: "Bus error"}.get(v, "Signal")), sep]
        for i, ln in enumerate(blk):
            items.append((t + 1 + i * 1e-4, ln))
        coll(run)["launcher_ranks"].add(f.r)
        coll(run)["pid_ranks"].add(f.r)
    items.sort(key=lambda z: z[0])
    run.add_file(rng.choice(["mpirun.log", "job_output.txt", "horovod_run.log"]), join([x for (_, x) in items]))
    coll(run)["launcher"] = True
    sel_r, sel_k, sel_x = apply_must(run, set(), set(), set(), True)
    bad_n = run.truth.get("node_obj")
    if bad_n is not None and rng.random() < 0.3:
        sel_k.add(bad_n.idx)
    for k in sorted(sel_k):
        nd = run.nodes[k]
        kernel_file(run, nd, "%s-dmesg.log" % short(nd.host), window=(-rng.uniform(3600, 20000), job_end(run) + 300))
    write_extras(run, sel_x)


# ================================================================== SageMaker (CloudWatch streams per host)
def setup_sagemaker(run: Run):
    rng = run.rng
    nn = rng.choice([1, 2, 2, 4, 8])
    hosts = []
    for i in range(nn):
        ip = "10.%d.%d.%d" % (rng.randint(0, 3), rng.randint(0, 255), rng.randint(2, 250))
        hosts.append(("algo-%d" % (i + 1), ["ip-%s" % ip.replace(".", "-"), ip], ip))
    base_setup(run, nn, 8, "plain", rng.choice(["plain", "hf_trainer", "deepspeed"]), {"job_kill"}, hosts=hosts)
    run.meta["sm_mpi"] = rng.random() < 0.5
    run.meta["srun_per_gpu"] = run.meta["sm_mpi"]
    if not run.meta["sm_mpi"]:
        run.meta["policy"] = {"node_group", "job_kill"}
    run.meta["net_plugin"] = "ofi"
    run.meta["transport"] = "ofi"


def render_sagemaker(run: Run, plan):
    rng = run.rng
    job = "%s-%s" % (run.meta["expname"], ts_sec(run.e(-300)).replace("-", "").replace(" ", "-").replace(":", "")[:15])
    cw = rng.random() < 0.5
    cause = run.truth.get("cause")
    for nd in run.nodes:
        tsm = lambda tt: ts_py(run.e(tt, nd))
        head = [(-20, "%s sagemaker-training-toolkit INFO     Imported framework sagemaker_pytorch_container.training" % tsm(-20)),
                (-19.9, "%s sagemaker-training-toolkit INFO     No Neurons detected (normal if no neurons installed)" % tsm(-19.9)),
                (-19, "%s sagemaker_pytorch_container.training INFO     Block until all host DNS lookups succeed." % tsm(-19)),
                (-18, "%s sagemaker_pytorch_container.training INFO     Invoking %s" % (tsm(-18), "SMDataParallel" if run.meta["sm_mpi"] else "TorchDistributed")),
                (-17, "%s sagemaker-training-toolkit INFO     Invoking user script" % tsm(-17))]
        items = list(head)
        if run.meta["sm_mpi"]:
            for rk in run.ranks_on(nd):
                items += [(t, "[1,mpirank:%d,algo-%d]<%s>:%s" % (rk.r, nd.idx + 1, "stdout" if s == "out" else "stderr", x)) for (t, s, x) in run.rank_lines(rk.r)]
        else:
            items += node_stream(run, nd)
            coll(run)["launcher_ranks"].update(agent_reports_rank(run, nd))
            coll(run)["pid_ranks"].update(agent_reports_rank(run, nd))
        if nd.idx == 0 and cause is not None and not run.meta.get("preempt_job"):
            te = job_end(run) + 1
            fails = [rk for rk in run.ranks if not getattr(rk, "meta_killed", False) and not (rk.exit[1] == "code" and rk.exit[2] == 0)]
            f = min(fails, key=lambda z: z.exit[0]) if fails else None
            em = "\"\"" if f is None else "\"%s\"" % (next((x for (_, x) in reversed(rank_texts(run, f.r)) if "Error" in x), "exit")[:300].replace('"', "'"))
            run.meta["sm_errmsg"] = em
            for i, ln in enumerate(["%s sagemaker-training-toolkit ERROR    Reporting training FAILURE" % tsm(te), "%s sagemaker-training-toolkit ERROR    ExecuteUserScriptError:" % tsm(te),
                                    "ExitCode 1", "ErrorMessage %s" % em,
                                    "Command \"%s\"" % ("mpirun --host %s -np %d --allow-run-as-root --tag-output --oversubscribe -mca btl_tcp_if_include eth0 -mca oob_tcp_if_include eth0 -x NCCL_DEBUG -x FI_PROVIDER=efa smddprun /opt/conda/bin/python3.11 -m mpi4py train.py" % (",".join("algo-%d:8" % (i + 1) for i in range(len(run.nodes))), run.world)
                                                        if run.meta["sm_mpi"] else "torchrun --nnodes %d --nproc_per_node 8 --master_addr algo-1 --master_port 7777 --node_rank 0 train.py" % len(run.nodes)),
                                    "%s sagemaker-training-toolkit ERROR    Encountered exit_code 1" % tsm(te + 0.01)]):
                items.append((te + i * 1e-3, ln))
        items.sort(key=lambda z: z[0])
        stream = "%s/algo-%d-%d" % (job, nd.idx + 1, int(run.e(-30)))
        if cw:
            txt = "".join("%s\t%s\n" % (ts_iso(run.e(t, nd), 3), x.replace("\r", "")) for (t, x) in items)
        else:
            txt = join([x for (_, x) in items])
        run.add_file("cloudwatch/%s.log" % stream.replace("/", "_"), txt)
        if run.meta["sm_mpi"]:
            got_rank(run, *[x.r for x in run.ranks_on(nd)])
        else:
            got_merged(run, [x.r for x in run.ranks_on(nd)])
    desc = {"TrainingJobName": job, "TrainingJobStatus": "Completed" if cause is None else ("Stopped" if run.meta.get("preempt_job") else "Failed"),
            "SecondaryStatus": "Completed" if cause is None else ("MaxRuntimeExceeded" if run.meta.get("preempt_job") else "Failed"),
            "ResourceConfig": {"InstanceType": rng.choice(["ml.p4d.24xlarge", "ml.p5.48xlarge"]), "InstanceCount": len(run.nodes), "VolumeSizeInGB": 500},
            "StoppingCondition": {"MaxRuntimeInSeconds": int(job_end(run)) if run.meta.get("preempt_job") else 432000},
            "TrainingStartTime": ts_iso(run.e(-60), 3), "TrainingEndTime": ts_iso(run.e(job_end(run) + 30), 3)}
    if cause is not None and not run.meta.get("preempt_job"):
        desc["FailureReason"] = "AlgorithmError: ExecuteUserScriptError:\nExitCode 1\nErrorMessage %s\nCommand \"...\", exit code: 1" % run.meta.get("sm_errmsg", '""')
    desc["SecondaryStatusTransitions"] = [{"Status": "Starting", "StartTime": ts_iso(run.e(-600), 3), "StatusMessage": "Preparing the instances for training"},
                                          {"Status": "Training", "StartTime": ts_iso(run.e(-60), 3), "StatusMessage": "Training image download completed. Training in progress."},
                                          {"Status": desc["SecondaryStatus"], "StartTime": ts_iso(run.e(job_end(run) + 30), 3),
                                           "StatusMessage": {"Completed": "Training job completed", "Failed": "Training job failed", "MaxRuntimeExceeded": "Training job exceeded MaxRuntimeInSeconds provided"}[desc["SecondaryStatus"]]}]
    run.add_file("describe-training-job.json", json.dumps(desc, indent=4))
    coll(run)["launcher"] = True
    sel_r, sel_k, sel_x = apply_must(run, set(), set(), set(), True, can_kernel=False)
    for k in sorted(sel_k):
        nd = run.nodes[k]
        kernel_file(run, nd, "cloudwatch/%s_algo-%d_dmesg.log" % (job, k + 1), style="dmesg_T", window=(-rng.uniform(600, 3600), job_end(run) + 120))
    write_extras(run, sel_x)


# ================================================================== Azure ML: user_logs/std_log_process_N.txt
def setup_azureml(run: Run):
    rng = run.rng
    nn, gpn = sizes(rng, [1, 2, 2, 4], [8, 4])
    hosts = []
    for i in range(nn):
        h = "%s%06d" % (hexid(rng, 32), i)
        ip = "10.0.0.%d" % (4 + i)
        hosts.append((h, [ip], ip))
    base_setup(run, nn, gpn, "plain", rng.choice(["hf_trainer", "deepspeed", "plain", "lightning"]), {"job_kill"}, hosts=hosts)
    run.meta["host_lines"] = True
    run.meta["srun_per_gpu"] = True


def render_azureml(run: Run, plan):
    rng = run.rng
    W = run.world
    pick = set(range(W)) if W <= 16 or rng.random() < 0.4 else set(rng.sample(range(W), max(2, W // 4)))
    sel_r, sel_k, sel_x = apply_must(run, pick, set(), set(), False, can_kernel=False)
    for r in sorted(sel_r):
        txt = join([x for (_, x) in rank_texts(run, r)])
        run.add_file("user_logs/std_log_process_%d.txt" % r, truncate_tail(run, txt, 0.2))
        got_rank(run, r)
    cause = run.truth.get("cause")
    if cause is not None and not run.meta.get("preempt_job"):
        bad = [rk for rk in run.ranks if not getattr(rk, "meta_killed", False) and not (rk.exit[1] == "code" and rk.exit[2] == 0)]
        if bad:
            f = min(bad, key=lambda z: z.exit[0])
            code = exit_code(f)
            msg = "Execution failed. User process '%s' exited with status code %d. Please check log file 'user_logs/std_log_process_%d.txt' for error details." % (
                run.meta["pybin"], code if code > 0 else 128 - code, f.r)
            import re as _re
            last = [x for (_, x) in rank_texts(run, f.r) if _re.search(r"\b\w+(Error|Exception)\b", x) and not x.startswith(" ")]
            if last:
                msg += " Error: " + last[-1][:400]
            run.add_file("error_summary.json", json.dumps({"error": {"code": "UserError", "message": msg, "messageFormat": "", "details": []},
                                                           "correlation": {"operation": hexid(rng, 32), "request": hexid(rng, 16)},
                                                           "time": ts_iso(run.e(job_end(run) + 20), 6)}, indent=2))
            coll(run)["launcher_ranks"].add(f.r)
            coll(run)["launcher"] = True
    if run.meta.get("preempt_job"):
        run.add_file("system_logs/lifecycler/lifecycler.log", "%s INFO Received preemption notice for low priority compute, terminating job processes\n%s INFO Sent SIGTERM to %d processes\n" % (
            ts_iso(run.e(job_end(run) - 30), 6), ts_iso(run.e(job_end(run) - 29), 6), W))
        coll(run)["launcher"] = True
    for k in sorted(sel_k):
        nd = run.nodes[k]
        kernel_file(run, nd, "system_logs/hosttools_capability/dmesg_%d.txt" % k, style="dmesg", window=(-rng.uniform(600, 3600), job_end(run) + 120))
    write_extras(run, sel_x)


# ================================================================== Ray (verl / OpenRLHF) RL job
def setup_ray(run: Run):
    rng = run.rng
    nn, gpn = sizes(rng, [1, 2, 2, 4], [8])
    hosts = host_names(rng, rng.choice(["gpu", "ec2", "plain"]), nn)
    base_setup(run, nn, gpn, "plain", "plain", {"job_kill"}, hosts=hosts)
    run.meta["fw"] = "verl" if rng.random() < 0.6 else "openrlhf"
    run.meta["ray_actor"] = "WorkerDict" if run.meta["fw"] == "verl" else rng.choice(["PolicyModelActor", "ReferenceModelActor"])


def render_ray(run: Run, plan):
    rng = run.rng
    sub = "raysubmit_%s" % "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz123456789") for _ in range(16))
    actor = run.meta["ray_actor"]
    col = run.meta.get("ansi")
    items = []

    def pref(rk):
        p = "(%s pid=%d, ip=%s)" % (actor, rk.pid, rk.node.ip)
        return ("\x1b[36m%s\x1b[0m " % p) if col else p + " "
    seen = {}
    cr = run.truth.get("rank")
    if cr is not None and not any(("[rank%d]" % cr) in x for (_, x) in rank_texts(run, cr)) and run.meta.get("culprit_attrib") == "raw":
        run.meta["culprit_attrib"] = "none"
    for rk in run.ranks:
        for (t, x) in rank_texts(run, rk.r):
            # Ray dedups identical lines coming from different workers
            if x in seen and seen[x][2] != rk.r and seen[x][1] < 8 and len(x) > 20:
                seen[x] = (seen[x][0], seen[x][1] + 1, seen[x][2])
                continue
            if x not in seen:
                seen[x] = (t, 1, rk.r)
            items.append((t, pref(rk) + x))
    dedup = [(t, "%s[repeated %dx across cluster] (Ray deduplicates logs by default. Set RAY_DEDUP_LOGS=0 to disable log deduplication, or see https://docs.ray.io/en/master/ray-observability/user-guides/configure-logging.html#log-deduplication for more options.)" % ("", n))
             for k, (t, n, _r) in seen.items() if n > 1][:20]
    items += [(t + 0.5, x) for (t, x) in dedup]
    # Ray prefixes carry pid/ip only; the culprit is tied to its rank if any of its lines say [rankN]
    if cr is not None and any(("[rank%d]" % cr) in x for (_, x) in rank_texts(run, cr)):
        got_rank(run, *range(run.world))
    else:
        got_merged(run, range(run.world))
    # driver-side step lines
    li = max(plan.log_interval, 1)
    t = plan.t_train0
    s = plan.start_step
    t_stop = first_fail_time(run) or job_end(run)
    cnt = 0
    while t < t_stop and cnt < 2500:
        if run.meta["fw"] == "verl":
            items.append((t, "step:%d - global_seqlen/mean:%d - actor/entropy:%.3f - actor/pg_loss:%.4f - actor/pg_clipfrac:%.4f - actor/ppo_kl:%.5f - actor/grad_norm:%.3f - critic/score/mean:%.3f - critic/rewards/mean:%.3f - response_length/mean:%.1f - timing_s/gen:%.2f - timing_s/old_log_prob:%.2f - timing_s/update_actor:%.2f - timing_s/step:%.2f" % (
                s, rng.randint(200000, 900000), rng.uniform(0.3, 1.2), rng.uniform(-0.05, 0.05), rng.uniform(0, 0.01), rng.uniform(0, 0.002), rng.uniform(0.1, 1), rng.uniform(0, 1), rng.uniform(-1, 1), rng.uniform(200, 1800), plan.dt * 0.5, plan.dt * 0.1, plan.dt * 0.35, plan.dt)))
        else:
            items.append((t, "Episode [1/1]:  %d%%|%s| %d/%d [%s]" % (int(100 * s / plan.total_steps), "█" * int(10 * s / plan.total_steps), s, plan.total_steps, ts_sec(run.e(t)))))
        t += plan.dt * li
        s += li
        cnt += 1
    cause = run.truth.get("cause")
    if cause is not None:
        f = [rk for rk in run.ranks if not getattr(rk, "meta_killed", False) and not (rk.exit[1] == "code" and rk.exit[2] == 0)]
        if f:
            f = min(f, key=lambda z: z.exit[0])
            te = f.exit[0] + rng.uniform(0.5, 5)
            sig = f.exit[1] == "signal"
            if sig:
                detail = "Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors."
                tb = ["Traceback (most recent call last):", '  File "/workspace/verl/verl/trainer/main_ppo.py", line 64, in main', "    run_ppo(config)",
                      '  File "%s/ray/_private/worker.py", line 2771, in get' % site(run), "    values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)",
                      "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
                      "\tclass_name: create_colocated_worker_cls.<locals>.%s" % actor, "\tactor_id: %s" % hexid(rng, 32), "\tpid: %d" % f.pid,
                      "\tname: %s%s_0:%d" % (pod_suffix(rng, 6), actor, f.r), "\tnamespace: %s-%s-%s-%s-%s" % (hexid(rng, 8), hexid(rng, 4), hexid(rng, 4), hexid(rng, 4), hexid(rng, 12)),
                      "\tip: %s" % f.node.ip,
                      "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: %s" % detail]
            else:
                import re as _re
                last = [x.replace("[rank%d]: " % f.r, "") for (_, x) in rank_texts(run, f.r)]
                last = [x for x in last if _re.match(r"^[A-Za-z_][\w.]*(Error|Exception)\b", x)]
                tb = ["Traceback (most recent call last):", '  File "/workspace/verl/verl/trainer/main_ppo.py", line 64, in main', "    run_ppo(config)",
                      "ray.exceptions.RayTaskError(%s): \x1b[36mray::%s.actor_rollout_update_actor()\x1b[39m (pid=%d, ip=%s, actor_id=%s, repr=<verl.single_controller.ray.base.%s object at 0x7f%s>)" % (
                          last[-1].split(":")[0].split(".")[-1] if last else "RuntimeError", actor, f.pid, f.node.ip, hexid(rng, 32), actor, hexid(rng, 9)),
                      "  File \"/workspace/verl/verl/single_controller/ray/base.py\", line 466, in func", "    return getattr(self.worker_dict[key], name)(*args, **kwargs)",
                      (last[-1].replace("[rank%d]: " % f.r, "") if last else "RuntimeError")]
            for i, x in enumerate(tb):
                items.append((te + i * 1e-4, x))
    items.sort(key=lambda z: z[0])
    run.add_file("job-driver-%s.log" % sub, join([x for (_, x) in items]))
    coll(run)["launcher"] = True
    bad = run.truth.get("node_obj")
    if run.meta.get("ray_oom") and bad is not None:
        tt = run.ranks[run.truth["rank"]].exit[0]
        run.add_file("session_latest/logs/raylet.out" if bad.idx == 0 else "worker-node-%s/raylet.out" % bad.ip,
                     "[%s %d] (raylet) node_manager.cc:%d: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: %s, IP: %s) over the last time period. To see more information about the Workers killed on this node, use `ray logs raylet.out -ip %s`\n" % (
                         ts_py(run.e(tt + 2, bad)), rng.randint(100, 999), pickn(run, [3060, 3181]), hexid(rng, 56), bad.ip, bad.ip))
        coll(run)["extras"].add("raylet")
    sel_r, sel_k, sel_x = apply_must(run, set(), set(), set(), True)
    for k in sorted(sel_k):
        nd = run.nodes[k]
        kernel_file(run, nd, "dmesg_%s.txt" % nd.ip.replace(".", "_"), window=(-rng.uniform(3600, 20000), job_end(run) + 300))
    write_extras(run, sel_x)


SPECS = {
    "slurm_srun_l": (setup_slurm, render_slurm_single, ALL_CAUSES),
    "slurm_per_task": (setup_slurm, render_slurm_per_task, ALL_CAUSES),
    "slurm_attempts": (setup_slurm, render_slurm_attempts, [c for c in ALL_CAUSES if c != "preemption"]),
    "torchrun_logdir": (setup_torchrun, render_torchrun_logdir, ALL_CAUSES),
    "user_bundle": (setup_user_bundle, render_user_bundle, ALL_CAUSES),
    "deepspeed_pdsh": (setup_deepspeed, render_deepspeed, [c for c in ALL_CAUSES if c != "preemption"]),
    "single_node": (setup_single, render_single, [c for c in ALL_CAUSES if c != "network"]),
    "k8s_pytorchjob": (setup_k8s, render_k8s, ALL_CAUSES),
    "gke_jobset_json": (setup_gke_json, render_gke_json, ALL_CAUSES),
    "pbs_pals": (setup_pbs, render_pbs, ALL_CAUSES),
    "lsf_jsrun": (setup_lsf, render_lsf, [c for c in ALL_CAUSES if c not in ("nvlink",)]),
    "openmpi_tagged": (setup_mpi, render_mpi, ALL_CAUSES),
    "sagemaker": (setup_sagemaker, render_sagemaker, [c for c in ALL_CAUSES if c not in ("straggler",)]),
    "azureml": (setup_azureml, render_azureml, ALL_CAUSES),
    "ray_rl": (setup_ray, render_ray, [c for c in ALL_CAUSES if c not in ("straggler", "collective_mismatch", "preemption")]),
}
