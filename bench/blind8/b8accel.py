"""Non-CUDA stacks and MPI-style launchers:
xpu-oneccl-pbs (Intel PVC, PBS Pro + Cray PALS mpiexec), ascend-npu-torchrun (HCCL, plog),
neuron-trn-slurm (AWS Trainium NRT), gaudi-mpijob-k8s (Intel Gaudi HCCL on Kubernetes),
horovod-openmpi (Open MPI --tag-output)."""
from b8common import (T, Out, EvList, make_nodes, kernel_render, oom_kill_lines, segfault_kernel, mlx5_down_lines,
                      tb, faulthandler_dump, hexid, alnum, PCI_GAUDI, PCI_PVC, IB_PCI, nccl_prefix, ib_completion_warn,
                      dist_backend_error, xid_lines, cuda_rt_error, oom_text)
import b8common as C
from b8train import Job


def _truth(cause):
    return {"cause": cause, "healthy": cause is None, "rank": None, "node": None, "drain": False,
            "rank_inferable": True, "node_aliases": []}


def _set(tr, job, r=None, ni=None, drain=False, inferable=True):
    if r is not None:
        tr["rank"] = r
        ni = job.ni(r) if ni is None else ni
    if ni is not None:
        tr["node"] = job.nodes[ni].name
        tr["node_aliases"] = job.nodes[ni].aliases
    tr["drain"] = drain
    tr["rank_inferable"] = inferable


class Res:
    pass


def _kern(rng, out, job, kern, t0, t1, prefix, fname=None, style=None, extra_nodes=1):
    style = style or rng.choice(["dmesg", "dmesgT", "kernlog", "journal", "journal-iso"])
    fname = fname or {"dmesg": "dmesg.txt", "dmesgT": "dmesg-T.txt", "kernlog": "kern.log", "journal": "journalctl-k.txt", "journal-iso": "journal-kernel.log"}[style]
    nis = sorted(set(list(kern.keys()) + rng.sample(range(len(job.nodes)), min(extra_nodes, len(job.nodes)))))
    for ni in nis:
        nd = job.nodes[ni]
        out.add("%s/%s/%s" % (prefix, nd.name.split(".")[0], fname), kernel_render(nd, kern.get(ni, []), style, rng, t0, t1))


# =========================================================================== Intel XPU / PBS / PALS
def layout_xpu_pbs(rng, cause, run):
    out = Out()
    nn = rng.choice([2, 4, 8, 16, 32, 64])
    tiles = 12
    nodes = make_nodes(rng, nn, "plain", gpus=6, pci=PCI_PVC)
    for i, nd in enumerate(nodes):
        nd.name = "x%04dc%ds%db0n0" % (rng.choice([4000, 4102, 4211, 4306]) + i // 16, (i // 8) % 8, i % 8)
        nd.aliases = [nd.name + ".hostmgmt2000.cm.aurora.alcf.anl.gov", nd.ip]
    job = Job(rng, nodes, tiles)
    W = job.world
    t0 = C.pick_base_time(rng)
    jobid = rng.randint(1000000, 9999999)
    pbs = "%d.aurora-pbs-0001.hostmgmt.cm.aurora.alcf.anl.gov" % jobid
    jname = rng.choice(["llm_pt", "ft_xpu", "vit_scale", "gpt_xpu_bench"])
    step_s = rng.uniform(0.8, 5)
    n_ok = rng.randint(20, 300)
    t_fail = t0 + 120 + n_ok * step_s
    tr = _truth(cause)
    c = rng.randrange(W)
    cn = job.ni(c)
    host_c = job.host(c)
    O = EvList()   # stdout file (.o)
    Er = EvList()  # stderr file (.e)
    py = "/lus/flare/projects/%s/envs/frameworks/lib/python3.10/site-packages" % rng.choice(["datascience", "LLM_Alpha", "AuroraGPT"])
    kern = {}
    O.add(t0, "Job %s started on %s" % (pbs, T.pbs(t0)) if rng.random() < 0 else "+ mpiexec -n %d --ppn %d --depth=8 --cpu-bind depth --label python3 train.py --backend %s" % (W, tiles, rng.choice(["ccl", "xccl"])))
    for r in range(W):
        if r % tiles == 0 or r < 2:
            Er.add(t0 + 10 + r * 0.001, "%d: %s:(%d) |CCL_WARN| did not find MPI-launcher specific variables, switch to ATL/OFI, to force enable ATL/MPI set CCL_ATL_TRANSPORT=mpi" % (r, T.oneccl(t0 + 10), job.pid[r]))
        if r < 3:
            Er.add(t0 + 11, "%d: %s:(%d) |CCL_WARN| value of CCL_KVS_MODE changed to be mpi (default:pmi)" % (r, T.oneccl(t0 + 11), job.pid[r]))
    O.add(t0 + 30, "0: [%s][INFO][train.py:88] world_size=%d backend=ccl device=xpu torch=2.%d.0+xpu" % (T.sec(t0 + 30), W, rng.choice([3, 5, 7])))
    tt = t0 + 120
    step = 0
    while tt < (t_fail if cause else t0 + 120 + n_ok * step_s):
        step += 1
        tt += step_s * rng.uniform(0.96, 1.04)
        if step % 10 == 0:
            O.add(tt, "0: [%s][INFO][train.py:141] step=%d loss=%.4f dt=%.3fs tflops=%.1f" % (T.sec(tt), step, 2.5 + 6 * 0.5 ** (step / 80.0), step_s, rng.uniform(90, 110)))
    fin = t_fail + 5
    pals = []  # (t, line) to stderr
    if cause is None:
        O.add(tt + 1, "0: [%s][INFO][train.py:170] training complete" % T.sec(tt + 1))
        if rng.random() < 0.6:
            for r in rng.sample(range(W), min(W, 4)):
                Er.add(tt + 2, "%d: %s:(%d) |CCL_WARN| pidfd is not supported, fallbacks to drmfd exchange mode" % (r, T.oneccl(tt + 2), job.pid[r]))
        tr["notes"] = "Healthy run with oneCCL fallback warnings."
    elif cause == "cuda_oom":
        _set(tr, job, c)
        msg = "torch.OutOfMemoryError: XPU out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of 64.00 GiB. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. Please use `empty_cache` to release all unoccupied cached memory." % (rng.choice([2.0, 4.0, 1.5]), job.lr(c) % 12, rng.uniform(55, 60), rng.uniform(0.5, 2))
        for l in tb([("/home/user/proj/train.py", 212, "<module>", "main()"), ("/home/user/proj/train.py", 160, "main", "loss = model(batch).loss"),
                     (py + "/torch/nn/modules/module.py", 1751, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)")], [msg]):
            Er.add(t_fail, "%d: %s" % (c, l))
        pals.append((t_fail + 2, "%s: rank %d exited with code 1" % (host_c, c)))
        tr["notes"] = "XPU OOM on rank %d (%s)." % (c, host_c)
    elif cause == "gpu_hardware":
        _set(tr, job, c, drain=True)
        pci = nodes[cn].pci[(job.lr(c)) // 2]
        kern[cn] = [(t_fail - 1, "i915 0000:%s:00.0: [drm] GPU HANG: ecode 12:%d:%s, in python [%d]" % (pci, job.lr(c) % 2, hexid(rng, 8), job.pid[c])),
                    (t_fail - 0.9, "i915 0000:%s:00.0: [drm] GT%d: Resetting chip for stopped heartbeat on ccs%d" % (pci, job.lr(c) % 2, rng.randint(0, 3))),
                    (t_fail - 0.5, "i915 0000:%s:00.0: [drm] *ERROR* GT%d: GUC: Engine reset failed on %d:%d (ccs%d) because 0x00000000" % (pci, job.lr(c) % 2, rng.randint(0, 4), rng.randint(0, 3), rng.randint(0, 3))),
                    (t_fail - 0.4, "i915 0000:%s:00.0: [drm] *ERROR* GT%d: Device is non-operational; MMIO access returns 0xFFFFFFFF!" % (pci, job.lr(c) % 2))]
        for l in tb([("/home/user/proj/train.py", 160, "main", "loss.backward()"), (py + "/torch/_tensor.py", 626, "backward", "torch.autograd.backward(")],
                    ["RuntimeError: level_zero backend failed with error: 20 (UR_RESULT_ERROR_DEVICE_LOST)"]):
            Er.add(t_fail, "%d: %s" % (c, l))
        pals.append((t_fail + 2, "%s: rank %d exited with code 1" % (host_c, c)))
        tr["notes"] = "PVC tile lost on %s (i915 GPU HANG / chip reset); rank %d got UR_RESULT_ERROR_DEVICE_LOST." % (host_c, c)
    elif cause == "network":
        _set(tr, job, job.lowest(cn), drain=True)
        nic = rng.randint(0, 7)
        kern[cn] = [(t_fail - 2, "cxi_core 0000:%s:00.0: cxi%d[hsn%d] link down" % (rng.choice(["21", "31", "95", "a5"]), nic, nic)),
                    (t_fail - 1.9, "cxi_core 0000:%s:00.0: cxi%d[hsn%d] PCS_LINK_DOWN pcs_status=0x%s" % (rng.choice(["21", "31"]), nic, nic, hexid(rng, 4))),
                    (t_fail + 40, "cxi_core 0000:%s:00.0: cxi%d[hsn%d] link up" % (rng.choice(["21", "31"]), nic, nic))]
        for r in [x for x in range(W) if job.ni(x) == cn][:rng.randint(1, 4)] + [x for x in range(W) if job.ni(x) != cn and rng.random() < 0.05][:3]:
            tt2 = t_fail + rng.uniform(0, 3)
            Er.add(tt2, "%d: MPICH ERROR [Rank %d] [job id %s] [%s] [%s] - Abort(%d) (rank %d in comm 0): Fatal error in PMPI_Allreduce: Other MPI error, error stack:" % (r, r, pbs.split(".")[0] + ".0", T.dmesg_T(tt2), job.host(r), rng.randint(10**8, 10**9), r))
            Er.add(tt2, "%d: MPIDI_OFI_handle_cq_error(1075): OFI poll failed (ofi_events.c:1077:MPIDI_OFI_handle_cq_error:Input/output error - %s)" % (r, rng.choice(["UNDELIVERABLE", "PTLTE_NOT_FOUND", "CANCELED"])))
            Er.add(tt2 + 0.01, "%d: %s:(%d) |CCL_ERROR| atl_ofi.cpp:%d atl_ofi_wait: fi_cq_readerr: err: %d (Input/output error), prov_err: %s (cxi)" % (r, T.oneccl(tt2), job.pid[r], rng.choice([512, 611]), 5, rng.choice(["UNDELIVERABLE", "RC_CANCELED"])))
        pals.append((t_fail + 4, "%s: rank %d died from signal 6 and dumped core" % (host_c, job.lowest(cn) + rng.randrange(tiles))))
        tr["notes"] = "Slingshot NIC hsn%d on %s went down; MPICH/oneCCL OFI errors on its ranks." % (nic, host_c)
    elif cause == "crash_signal":
        _set(tr, job, c)
        th = [(hexid(rng, 12), True, [(py + "/oneccl_bindings_for_pytorch/__init__.py", 39, "allreduce"), (py + "/torch/distributed/distributed_c10d.py", 2806, "all_reduce"), ("/home/user/proj/train.py", 171, "main")])]
        for l in faulthandler_dump(th, "Segmentation fault"):
            Er.add(t_fail, "%d: %s" % (c, l))
        kern[cn] = [(t_fail, segfault_kernel(rng, "python3", job.pid[c], rng.choice(["libccl.so.1.0", "libze_intel_gpu.so.1.3.29735", "libsycl.so.7"])))]
        pals.append((t_fail + 1, "%s: rank %d died from signal 11 and dumped core" % (host_c, c)))
        tr["notes"] = "Rank %d segfaulted in the oneCCL/Level Zero stack on %s." % (c, host_c)
    elif cause == "python_exception":
        _set(tr, job, c)
        for l in tb([("/home/user/proj/train.py", 212, "<module>", "main()"), ("/home/user/proj/train.py", 148, "main", "batch = next(it)"),
                     ("/home/user/proj/data.py", 77, "__next__", "return self._collate(self.buf.pop())")], ["IndexError: pop from empty list"]):
            Er.add(t_fail, "%d: %s" % (c, l))
        pals.append((t_fail + 1, "%s: rank %d exited with code 1" % (host_c, c)))
        tr["notes"] = "IndexError raised by rank %d's data iterator." % c
    elif cause == "preemption":
        _set(tr, job, None)
        tr["rank_inferable"] = False
        fin = t_fail
        pals.append((t_fail, "=>> PBS: job killed: walltime %d exceeded limit %d" % (int(t_fail - t0) + 15, int(t_fail - t0))))
        for ni in range(min(nn, 3)):
            pals.append((t_fail + 0.5, "%s: rank %d died from signal 15" % (nodes[ni].name, ni * tiles)))
        tr["notes"] = "PBS walltime limit reached; job killed."
    elif cause == "hang":
        _set(tr, job, c)
        fin = t_fail + 3600
        pals.append((fin, "=>> PBS: job killed: walltime %d exceeded limit %d" % (int(fin - t0) + 15, int(fin - t0))))
        dumps = []
        is_data = rng.random() < 0.5
        for r in sorted(set(range(min(W, 48))) | {c}):
            stuck = r == c
            dumps += ["%d: Thread 0x%s (most recent call first):" % (r, hexid(rng, 12))]
            if stuck and is_data:
                dumps += ['%d:   File "/home/user/proj/data.py", line 52 in _fetch_shard' % r, '%d:   File "%s/fsspec/implementations/local.py", line 377 in read' % (r, py), '%d:   File "/home/user/proj/train.py", line 148 in main' % r]
            elif stuck:
                dumps += ['%d:   File "/usr/lib/python3.10/threading.py", line 320 in wait' % r, '%d:   File "/usr/lib/python3.10/queue.py", line 171 in get' % r,
                          '%d:   File "/home/user/proj/async_ckpt.py", line 64 in wait_for_previous_save' % r, '%d:   File "/home/user/proj/train.py", line 186 in main' % r]
            else:
                dumps += ['%d:   File "%s/torch/distributed/distributed_c10d.py", line 2806 in all_reduce' % (r, py), '%d:   File "/home/user/proj/train.py", line 171 in main' % r]
        for i, l in enumerate(dumps):
            Er.add(t_fail + 1800 + i * 1e-4, l)
        tr["notes"] = "Rank %d stuck %s (faulthandler SIGUSR1 dump of the ranks shows it outside the allreduce every other rank waits in); job hit walltime. oneCCL has no watchdog." % (c, "in a Lustre read of its data shard" if is_data else "waiting on its previous async checkpoint thread")
        tr["cause"] = "data_loader_stall" if is_data else "hang"
    for t, l in pals:
        Er.add(t, l)
    if cause is not None and cause not in ("preemption",):
        Er.add(max(t_fail, fin) + 5, "x%s: PALS: job %s terminating (%d ranks)" % (nodes[0].name[1:], pbs.split(".")[0], W) if rng.random() < 0 else "")
    o = O.lines()
    e = [l for l in Er.lines() if l]
    if rng.random() < 0.4:
        out.add("%s.o%d" % (jname, jobid), o + e)
    else:
        out.add("%s.o%d" % (jname, jobid), o)
        out.add("%s.e%d" % (jname, jobid), e)
    out.add("submit.pbs", ["#!/bin/bash -l", "#PBS -N %s" % jname, "#PBS -l select=%d" % nn, "#PBS -l walltime=%02d:00:00" % rng.choice([1, 2, 6]), "#PBS -l filesystems=home:flare", "#PBS -q prod", "#PBS -A %s" % rng.choice(["datascience", "AuroraGPT"]),
                           "module load frameworks", "export CCL_PROCESS_LAUNCHER=pmix", "export FI_CXI_DEFAULT_CQ_SIZE=131072", "mpiexec -n %d --ppn 12 --depth=8 --cpu-bind depth --label python3 train.py" % W])
    _kern(rng, out, job, kern, t0, fin, "nodes")
    R = Res()
    R.truth = tr
    if tr.get("cause") in ("hang", "data_loader_stall") and cause == "hang":
        pass
    return out, R


# =========================================================================== Ascend NPU
def layout_ascend(rng, cause, run):
    out = Out()
    nn = rng.choice([1, 2, 4, 8])
    gpn = 8 if rng.random() < 0.5 else 16
    nodes = make_nodes(rng, nn, rng.choice(["plain", "fqdn", "gpu-h100"]), gpus=gpn)
    for i, nd in enumerate(nodes):
        if nd.name.startswith(("gpu", "hgx", "h200")):
            nd.name = "ascend-910b-%03d" % (i + 11)
    job = Job(rng, nodes, gpn)
    W = job.world
    t0 = C.pick_base_time(rng)
    step_s = rng.uniform(1, 6)
    n_ok = rng.randint(30, 300)
    t_fail = t0 + 200 + n_ok * step_s
    tr = _truth(cause)
    if cause == "network" and nn == 1:
        cause = "hang"
        tr["cause"] = "hang"
    c = rng.randrange(W)
    cn = job.ni(c)
    py = "/usr/local/python3.10.14/lib/python3.10/site-packages"
    ev = {r: [] for r in range(W)}
    plogs = {}   # r -> lines
    kern = {}
    exits = {}

    def pta_err(r, t, code, ec_lines):
        return ["[ERROR] %s (PID:%d, Device:%d, RankID:%d) %s" % (T.ascend_short(t), job.pid[r], job.lr(r), r, code)] + ec_lines

    for r in range(W):
        ev[r].append((t0 + 20, "[W%s compiler_depend.ts:%d] Warning: Device do not support double dtype now, dtype cast repalce with float. (function operator())" % (T.c10d(t0 + 20, "")[1:], rng.choice([1431, 164]))) if r % gpn == 0 else (t0, ""))
    tt = t0 + 200
    step = 0
    while tt < (t_fail if cause else t0 + 200 + n_ok * step_s):
        step += 1
        tt += step_s * rng.uniform(0.96, 1.04)
        if step % 5 == 0:
            ev[W - 1].append((tt, " iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: %E | global batch size: %5d | lm loss: %E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |" % (step, 5000, step * 256, step_s * 1000, 1e-5, 256, 2.1 + 4 * 0.5 ** (step / 90.0), rng.uniform(0.5, 2))))
    if cause is None:
        if rng.random() < 0.5:
            for r in rng.sample(range(W), min(3, W)):
                ev[r].append((t0 + 60, "[W%s compiler_depend.ts:%d] Warning: EI0006: Getting socket times out. Reason: Remote Rank did not send the data in time. Please check the reason for the rank being stuck (retrying, attempt 1/3)" % (T.c10d(t0 + 60, "")[1:], 97)))
        tr["notes"] = "Healthy Ascend run; early HCCL socket retry warnings that recovered."
    elif cause == "hang" or cause == "data_loader_stall":
        _set(tr, job, c)
        # HCCL ring: neighbours of c report c as the missing remote rank; others report their own neighbour
        for r in range(W):
            if r == c:
                continue
            tt2 = t_fail + 1836 + rng.uniform(0, 5)
            prev = (r - 1) % W
            rem = c if prev == c or (r + 1) % W == c else prev
            lines = tb([("/workspace/MindSpeed-LLM/pretrain_gpt.py", 246, "<module>", "pretrain("), (py + "/torch/distributed/distributed_c10d.py", 2501, "all_reduce", "work = group.allreduce([tensor], opts)")],
                       ["RuntimeError: InnerRunOpApi:torch_npu/csrc/framework/OpParamMaker.cpp:%d OPS function error: HcclAllreduce, error code is 7" % rng.choice([281, 292])])
            lines += pta_err(r, tt2, "ERR01100 OPS call acl api failed.", [
                "EI0002: [PID: %d] %s The wait execution of the Notify register times out. Reason: The Notify register has not received the Notify record from remote rank: [%d]. base information: [streamID:[%d], taskID[%d], taskType[Notify Wait], tag[AllReduce_%s%%enp189s0f0_60000_0_%d]]. task information: [notify id:[0x%016x], stage:[0], remote rank:[%d]]. group information: [group:[%s%%enp189s0f0_60000_0_%d], user define information[Unspecified], rankSize[%d], rankId[%d]]" % (
                    job.pid[r], T.ascend(tt2), rem, rng.randint(1, 9), rng.randint(1000, 10**6), nodes[0].ip, rng.randint(10**15, 10**16), rng.randint(0, 2000), rem, nodes[0].ip, rng.randint(10**15, 10**16), W, r),
                "        Possible Cause: 1. An exception occurs during the execution on some NPUs in the cluster. As a result, collective communication operation failed.2. The execution speed on some NPU in the cluster is too slow to complete a communication operation within the timeout interval. (default 1800s, You can set the interval by using HCCL_EXEC_TIMEOUT.)3. The number of training samples of each NPU is inconsistent.4. Packet loss or other connectivity problems occur on the communication link.",
                "        Solution: 1. If this error is reported on part of these ranks, check other ranks to see whether other errors have been reported earlier.2. If this error is reported for all ranks, check whether the error reporting time is consistent (the maximum difference must not exceed 1800s). If not, locate the cause or adjust the locate the cause or set the HCCL_EXEC_TIMEOUT environment variable to a larger value.3. Check whether the completion queue element (CQE) of the error exists in the plog(grep -rn 'error cqe'). If so, check the network connection status. (For details, see the TLS command and HCCN connectivity check examples.)4. Ensure that the number of training samples of each NPU is consistent.",
                "        TraceBack (most recent call last):",
                "        The error from device(chipId:%d, dieId:0), serial number is %d, hccl fftsplus task timeout occurred during task execution, stream_id:%d, sq_id:%d, task_id:%d, stuck notify num:1, timeout:1836.[FUNC:ProcessStarsHcclFftsPlusTimeoutErrorInfo][FILE:device_error_proc.cc][LINE:1657]" % (job.lr(r), rng.randint(1, 30), rng.randint(1, 9), rng.randint(1, 9), rng.randint(1000, 99999))])
            for i, l in enumerate(lines):
                ev[r].append((tt2 + i * 1e-4, l))
            exits[r] = (tt2 + 1, 1)
        if cause == "data_loader_stall":
            ev[c].append((t_fail + 900, "Timeout (0:15:00)!"))
            ev[c].append((t_fail + 900, "Thread 0x%s (most recent call first):" % hexid(rng, 12)))
            for f, ln, fn in [("/usr/lib/python3.10/multiprocessing/connection.py", 384, "_recv"), ("/usr/lib/python3.10/multiprocessing/queues.py", 113, "get"),
                              (py + "/torch/utils/data/dataloader.py", 1256, "_try_get_data"), (py + "/torch/utils/data/dataloader.py", 1448, "_next_data"), ("/workspace/MindSpeed-LLM/pretrain_gpt.py", 142, "get_batch")]:
                ev[c].append((t_fail + 900, '  File "%s", line %d in %s' % (f, ln, fn)))
            tr["notes"] = "Rank %d stuck in its DataLoader (faulthandler dump); HCCL notify-wait timeouts (EI0002) on the others; ring neighbours name it as remote rank." % c
        else:
            tr["notes"] = "Rank %d stopped issuing collectives; others hit EI0002 notify-wait timeout after 1836 s, its ring neighbours name remote rank %d." % (c, c)
    elif cause == "network":
        _set(tr, job, job.lowest(cn), drain=True)
        port = rng.randrange(gpn)
        kern[cn] = [(t_fail - 3, "hns3 0000:%s:00.0 enp189s0f%d: link down" % (rng.choice(["bd", "3d"]), rng.randint(0, 3))) if rng.random() < 0.3 else (t_fail - 3, "[devdrv] roce port %d of dev %d link status changed to DOWN" % (0, port))]
        for r in [x for x in range(W) if job.ni(x) == cn]:
            tt2 = t_fail + rng.uniform(0, 2)
            plogs[r] = ["[ERROR] HCCP(%d,python3):%s [rs_roce.c:%d]tid:%d,rs_roce_poll_cq(%d) : error cqe status[12], qpn[%d], local ip[%s], remote ip[%s]" % (job.pid[r], T.ascend(tt2), rng.choice([1288, 1311]), job.pid[r] + 30, rng.randint(1000, 9000), rng.randint(100, 900), "192.168.%d.%d" % (cn, job.lr(r) + 10), "192.168.%d.%d" % ((cn + 1) % nn, job.lr(r) + 10)),
                        "[ERROR] HCCL(%d,python3):%s [transport_roce.cc:%d] [%d][TransportRoce][GetCqeError]error cqe found, status[12], remote rank[%d]" % (job.pid[r], T.ascend(tt2), rng.choice([512, 701]), job.pid[r], (r + gpn) % W)]
        for r in range(W):
            if r in exits:
                continue
            tt2 = t_fail + 1836 + rng.uniform(0, 4)
            lines = pta_err(r, tt2, "ERR01100 OPS call acl api failed.", ["EI0002: [PID: %d] %s The wait execution of the Notify register times out. Reason: The Notify register has not received the Notify record from remote rank: [unknown]. base information: [streamID:[1], taskID[%d], taskType[Notify Wait], tag[AllReduce_group_name_%d]]" % (job.pid[r], T.ascend(tt2), rng.randint(1000, 10**6), rng.randint(0, 99))])
            for i, l in enumerate(lines):
                ev[r].append((tt2 + i * 1e-4, l))
            exits[r] = (tt2 + 1, 1)
        tr["notes"] = "RoCE port failure on %s: 'error cqe' in that node's plogs, all ranks later time out with EI0002 (remote rank unknown)." % nodes[cn].name
    elif cause == "cuda_oom":
        _set(tr, job, c)
        lines = tb([("/workspace/MindSpeed-LLM/pretrain_gpt.py", 246, "<module>", "pretrain("), (py + "/torch/nn/modules/module.py", 1532, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)")],
                   ["RuntimeError: NPU out of memory. Tried to allocate %.2f GiB (NPU %d; 60.96 GiB total capacity; %.2f GiB already allocated; %.2f GiB current active; %.2f MiB free; %.2f GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation." % (rng.choice([1.0, 2.0, 3.5]), job.lr(c), rng.uniform(55, 58), rng.uniform(55, 58), rng.uniform(10, 900), rng.uniform(58, 60))])
        for i, l in enumerate(lines):
            ev[c].append((t_fail + i * 1e-4, l))
        exits[c] = (t_fail + 1, 1)
        tr["notes"] = "NPU OOM on rank %d." % c
    elif cause in ("gpu_hardware", "ecc_memory"):
        _set(tr, job, c, drain=True)
        if cause == "ecc_memory":
            detail = ["EZ9999: Inner Error!", "EZ9999: [PID: %d] %s The error from device(chipId:%d, dieId:0), serial number is %d, there is an HBM multi-bit ECC error (UCE), address 0x%s.[FUNC:ProcessHbmUceErrorInfo][FILE:device_error_proc.cc][LINE:%d]" % (job.pid[c], T.ascend(t_fail), job.lr(c), rng.randint(1, 30), hexid(rng, 12), rng.choice([981, 1012])),
                      "        TraceBack (most recent call last):", "        rtStreamSynchronize execute failed, reason=[hbm Multi-bit ECC error][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]"]
            code = 507054
            tr["notes"] = "HBM multi-bit ECC (UCE) on NPU %d of %s; rank %d failed in stream synchronize." % (job.lr(c), nodes[cn].name, c)
        else:
            detail = ["EL0004: Inner Error!", "EL0004: [PID: %d] %s Device heartbeat lost, device id %d.[FUNC:ReportDeviceHeartbeatLost][FILE:device_monitor.cc][LINE:%d]" % (job.pid[c], T.ascend(t_fail), job.lr(c), rng.choice([201, 233])),
                      "        TraceBack (most recent call last):", "        rtStreamSynchronize execute failed, reason=[device lost][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]"]
            code = 507033
            kern[cn] = [(t_fail - 1, "[ascend] [devdrv] [devdrv_heart_beat_timer_func %d] <swapper/%d:0> device %d heartbeat lost" % (rng.randint(500, 700), rng.randint(0, 90), job.lr(c)))]
            tr["notes"] = "NPU %d of %s lost its heartbeat (driver); rank %d failed." % (job.lr(c), nodes[cn].name, c)
        lines = tb([("/workspace/MindSpeed-LLM/pretrain_gpt.py", 246, "<module>", "pretrain("), (py + "/torch_npu/npu/utils.py", 60, "synchronize", "return torch_npu._C._npu_synchronize()")],
                   ["RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:%d NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is %d" % (rng.choice([467, 479]), code)])
        lines += pta_err(c, t_fail, "ERR00100 PTA call acl api failed", detail)
        for i, l in enumerate(lines):
            ev[c].append((t_fail + i * 1e-4, l))
        exits[c] = (t_fail + 1, 1)
    elif cause == "python_exception":
        _set(tr, job, c)
        lines = tb([("/workspace/MindSpeed-LLM/pretrain_gpt.py", 246, "<module>", "pretrain("), ("/workspace/MindSpeed-LLM/mindspeed_llm/tasks/preprocess/decoder_packed_mtf_dataset.py", 188, "__getitem__", "item = self._get_item(idx)")],
                   ["ValueError: cannot reshape array of size 8191 into shape (8192,)"])
        for i, l in enumerate(lines):
            ev[c].append((t_fail + i * 1e-4, l))
        exits[c] = (t_fail + 1, 1)
        tr["notes"] = "ValueError in rank %d's dataset." % c
    # ---- torchrun per node console
    for ni, nd in enumerate(nodes):
        E = EvList()
        agent = job.tpid[ni]
        E.add(t0, "%s %d torch/distributed/run.py:792] *****************************************" % (T.elastic(t0, "W"), agent))
        for r in range(ni * gpn, ni * gpn + gpn):
            for t, l in ev[r]:
                if l:
                    E.add(t, "[rank%d]: %s" % (r, l) if rng.random() < 0.0 else l)
        loc = [(exits[r][0], r) for r in range(ni * gpn, ni * gpn + gpn) if r in exits]
        if loc:
            tf, rf = min(loc)
            E.add(tf + 1, "%s %d torch/distributed/elastic/multiprocessing/api.py:897] Sending process %d closing signal SIGTERM" % (T.elastic(tf + 1, "W"), agent, job.pid[ni * gpn + (1 if job.lr(rf) == 0 else 0)]))
            E.add(tf + 2, "%s %d torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: %d (pid: %d) of binary: /usr/local/python3.10.14/bin/python3" % (T.elastic(tf + 2, "E"), agent, job.lr(rf), job.pid[rf]))
        out.add("logs/%s/train_%s.log" % (nd.name.split(".")[0], T.dt(t0).strftime("%Y%m%d%H%M%S")), E.lines())
    for r, pl in plogs.items():
        out.add("logs/%s/ascend/log/debug/plog/plog-%d_%s.log" % (job.host(r), job.pid[r], T.dt(t0).strftime("%Y%m%d%H%M%S") + "%03d" % rng.randint(0, 999)), pl)
    # some harmless plogs
    for r in rng.sample(range(W), min(W, 2)):
        if r in plogs:
            continue
        out.add("logs/%s/ascend/log/debug/plog/plog-%d_%s.log" % (job.host(r), job.pid[r], T.dt(t0).strftime("%Y%m%d%H%M%S") + "%03d" % rng.randint(0, 999)),
                ["[WARNING] HCCL(%d,python3):%s [hccl_communicator.cc:%d] [%d] HCCL_BUFFSIZE is not set, use default 200 MB" % (job.pid[r], T.ascend(t0 + 30), rng.randint(300, 900), job.pid[r]),
                 "[INFO] GE(%d,python3):%s [ge_api.cc:%d]%d GEInitialize:GE initialize success." % (job.pid[r], T.ascend(t0 + 25), rng.randint(100, 400), job.pid[r])])
    _kern(rng, out, job, kern, t0, t_fail + 2000, "logs", fname="dmesg.txt", style="dmesgT")
    R = Res()
    R.truth = tr
    return out, R


# =========================================================================== AWS Trainium
def layout_neuron(rng, cause, run):
    out = Out()
    nn = rng.choice([2, 4, 8, 16])
    gpn = 32
    nodes = make_nodes(rng, nn, "aws", gpus=0)
    job = Job(rng, nodes, gpn)
    W = job.world
    t0 = C.pick_base_time(rng)
    step_s = rng.uniform(2, 9)
    n_ok = rng.randint(20, 200)
    t_fail = t0 + 600 + n_ok * step_s
    tr = _truth(cause)
    c = rng.randrange(W)
    cn = job.ni(c)
    dev = job.lr(c) // 2
    ncid = job.lr(c) % 2
    E = EvList()
    jobid = rng.randint(1000, 99999)
    kern = {}
    py = "/home/ubuntu/aws_neuronx_venv_pytorch/lib/python3.10/site-packages"
    nrt = lambda t, pid, lvl, mod, msg: "%s %d:%d %5s %s:%-40s %s" % (T.neuron(t), pid, pid + rng.randint(1, 300), lvl, mod.split(":")[0], mod.split(":")[1], msg)
    for ni, nd in enumerate(nodes):
        E.add(t0 + ni * 0.01, "%s %d torch/distributed/run.py:792] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed." % (T.elastic(t0, "W"), job.tpid[ni]))
    for r in range(0, W, gpn):
        E.add(t0 + 30, "%s:  %d  INFO ||NEURON_CC_WRAPPER||: Using a cached neff at /fsx/neuron_cache/neuronxcc-2.%d.0+%s/MODULE_%d+%s/model.neff. Exiting with a successfully compiled graph." % (T.tf(t0 + 30), job.pid[r], rng.randint(14, 19), hexid(rng, 8), rng.randint(10**17, 10**18), hexid(rng, 8)))
    E.add(t0 + 40, "[2/%d] Neuron Runtime %s initialized, %d NeuronCores" % (nn, rng.choice(["2.22.14.0", "2.23.112.0"]), W) if rng.random() < 0 else "step 0 | compile warmup done")
    tt = t0 + 600
    step = 0
    while tt < (t_fail if cause else t0 + 600 + n_ok * step_s):
        step += 1
        tt += step_s * rng.uniform(0.97, 1.03)
        if step % 5 == 0:
            E.add(tt, "LOG %s - (%d, %d) step_loss : %.4f learning_rate : %.2e throughput : %.2f" % (T.dt(tt).strftime("%a %b %d %H:%M:%S %Y"), 0, step, 2.4 + 5 * 0.5 ** (step / 60.0), 1.5e-4, 4096 * 1024 / step_s / 1000))
    if cause is None:
        if rng.random() < 0.7:
            E.add(t0 + 35, nrt(t0 + 35, job.pid[0], "WARN", "NRT:nrt_allocate_neuron_cores", "NEURON_RT_VISIBLE_CORES is not set, using all 32 cores"))
            E.add(t0 + 36, "%s:  %d  WARNING ||NEURON_CC_WRAPPER||: Could not find cached neff in /fsx/neuron_cache; compiling..." % (T.tf(t0 + 36), job.pid[1]))
        tr["notes"] = "Healthy Trainium run with cache-miss and NRT warnings."
    elif cause in ("ecc_memory", "gpu_hardware"):
        _set(tr, job, c, drain=True)
        if cause == "ecc_memory":
            st, nm = 1201, "NRT_EXEC_HW_ERR_HBM_UE"
            detail = "Uncorrectable memory error is detected, HBM %d on Neuron Device %d" % (rng.randint(0, 3), dev)
        else:
            st, nm = rng.choice([(1202, "NRT_EXEC_HW_ERR_NC_UE"), (1203, "NRT_EXEC_HW_ERR_DMA_ABORT")])
            detail = "Hardware error detected on Neuron Device %d NC %d (%s)" % (dev, ncid, nm)
        E.add(t_fail, nrt(t_fail, job.pid[c], "ERROR", "TDRV:exec_consume_infer_status_notifications", "%s; model %d on nd%d nc%d" % (detail, rng.randint(10000, 10099), dev, ncid)))
        E.add(t_fail + 0.001, nrt(t_fail, job.pid[c], "ERROR", "NMGR:dlr_infer", "Inference completed with err: %d (%s)" % (st, nm)))
        E.add(t_fail + 0.002, nrt(t_fail, job.pid[c], "ERROR", "NRT:nrt_infodump", "Neuron runtime information - please include in any support request:"))
        E.add(t_fail + 0.003, nrt(t_fail, job.pid[c], "ERROR", "NRT:nrt_infodump", "Nodename: %s" % job.host(c)))
        E.add(t_fail + 0.004, nrt(t_fail, job.pid[c], "ERROR", "NRT:nrt_infodump", "Instance ID: i-0%s" % hexid(rng, 16)))
        for l in tb([("/fsx/nxd/examples/training/llama/tp_zero1_llama_hf_pretrain.py", 512, "<module>", "_mp_fn(0, args)"), (py + "/torch_xla/core/xla_model.py", 1173, "mark_step", "torch_xla._XLAC._xla_step_marker(")],
                    ["RuntimeError: Bad StatusOr access: INTERNAL: RunNeuronCCImpl: error condition nrt_execute status=%d (%s)" % (st, nm)]):
            E.add(t_fail + 0.01, "[rank%d]: %s" % (c, l))
        if cause == "ecc_memory":
            kern[cn] = [(t_fail - 0.2, "neuron:ndhal_... nd%d: HBM uncorrectable error (UE) reported by firmware, count %d" % (dev, rng.randint(1, 3)))]
        tr["notes"] = "%s on %s device %d core %d (rank %d)." % (nm, job.host(c), dev, ncid, c)
    elif cause == "network":
        _set(tr, job, job.lowest(cn), drain=True)
        kern[cn] = [(t_fail - 2, "efa 0000:%s:00.0: ... Admin command %d timed out, status 0x%x" % (rng.choice(["10", "20", "4f"]), rng.randint(1, 20), rng.randint(1, 9)) if rng.random() < 0 else "efa 0000:%s:00.0: Device reset requested by firmware" % rng.choice(["10", "20", "4f"]))]
        for r in [x for x in range(W) if job.ni(x) == cn][:rng.randint(2, 6)]:
            tt2 = t_fail + rng.uniform(0, 1)
            E.add(tt2, "%s %d:%d [%d] nccl_net_ofi_rdma_... NCCL WARN NET/OFI Request %s completed with error. RC: 21. Error: 4126 (Unresponsive receiver (reachable by EFA device but handshake failed)). Completed length: 0, Request: { dev: %d, size: 0, state: CREATED, type: RECV }" % (job.host(r), job.pid[r], job.pid[r] + 90, job.lr(r), "0x" + hexid(rng, 12), rng.randint(0, 15)) if rng.random() < 0 else
                  nrt(tt2, job.pid[r], "ERROR", "ENC:enc_proxy_progress", "[nec_dev %d ch %d] NET/OFI Request completed with error. RC: 21. Error: 4126 (Unresponsive receiver (reachable by EFA device but handshake failed)). Completed length: 0" % (job.lr(r), rng.randint(0, 3))))
            E.add(tt2 + 0.01, nrt(tt2, job.pid[r], "ERROR", "NRT:nrt_cc_progress", "collective operation failed on nd%d, status=1200 (NRT_EXEC_HW_ERR_COLLECTIVES)" % (job.lr(r) // 2)))
        tr["notes"] = "EFA device on %s reset; Neuron collectives report OFI handshake failures on that node's ranks." % job.host(c)
    elif cause == "hang":
        _set(tr, job, c)
        for r in range(W):
            if r == c:
                continue
            tt2 = t_fail + 600 + rng.uniform(0, 3)
            E.add(tt2, "[rank%d]: " % r + nrt(tt2, job.pid[r], "ERROR", "TDRV:exec_consume_infer_status_notifications", "(FATAL-RT-UNDEFINED-STATE) inference timeout (600000 ms) on Neuron Device %d NC %d, model %d" % (job.lr(r) // 2, job.lr(r) % 2, rng.randint(10000, 10099))))
        tr["rank_inferable"] = W <= 64
        tr["notes"] = "Rank %d stopped entering collectives; every other rank reports an NRT execution timeout (%d of %d ranks), the culprit is the one that does not." % (c, W - 1, W)
    elif cause == "host_oom_kill":
        _set(tr, job, c)
        kern[cn] = [(t_fail + i * 0.0005, l) for i, l in enumerate(oom_kill_lines(rng, job.pid[c], "python3", rng.randint(200, 700) * 1024 * 1024))]
        E.add(t_fail + 1, "%s %d torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) local_rank: %d (pid: %d) of binary: %s/../../bin/python3" % (T.elastic(t_fail + 1, "E"), job.tpid[cn], job.lr(c), job.pid[c], py))
        E.add(t_fail + 1.5, "srun: error: %s: task %d: Exited with exit code 1" % (job.host(c), cn))
        tr["notes"] = "Host OOM killer killed local rank %d (global %d) on %s (XLA host-side buffers)." % (job.lr(c), c, job.host(c))
    elif cause == "crash_signal":
        _set(tr, job, c)
        E.add(t_fail, "Fatal Python error: Segmentation fault")
        E.add(t_fail, "")
        E.add(t_fail, "Current thread 0x%s (most recent call first):" % hexid(rng, 12))
        E.add(t_fail, '  File "%s/torch_xla/core/xla_model.py", line 1173 in mark_step' % py)
        E.add(t_fail, '  File "/fsx/nxd/examples/training/llama/tp_zero1_llama_hf_pretrain.py", line 388 in train_llama')
        kern[cn] = [(t_fail, segfault_kernel(rng, "python3", job.pid[c], rng.choice(["libnrt.so.1", "_XLAC.cpython-310-x86_64-linux-gnu.so", "libncfw.so.2"])))]
        E.add(t_fail + 1, "%s %d torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -11) local_rank: %d (pid: %d) of binary: %s/../../bin/python3" % (T.elastic(t_fail + 1, "E"), job.tpid[cn], job.lr(c), job.pid[c], py))
        tr["rank_inferable"] = True
        tr["notes"] = "Segfault in the XLA/NRT host code on local rank %d of %s." % (job.lr(c), job.host(c))
    if cause not in (None, "host_oom_kill") and rng.random() < 0.8:
        E.add(t_fail + 5, "srun: error: %s: task %d: Exited with exit code 1" % (job.host(c), cn))
    out.add("slurm-%d.out" % jobid, E.lines())
    out.add("run.slurm", ["#!/bin/bash", "#SBATCH --nodes=%d" % nn, "#SBATCH --exclusive", "#SBATCH --output=slurm-%j.out", "export FI_EFA_USE_DEVICE_RDMA=1", "export FI_PROVIDER=efa", "export NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS=3",
                          "srun torchrun --nproc_per_node=32 --nnodes=%d --rdzv_backend=c10d --rdzv_endpoint=$MASTER_ADDR:29500 tp_zero1_llama_hf_pretrain.py --tensor_parallel_size 8" % nn])
    _kern(rng, out, job, kern, t0, t_fail + 700, "nodes", style=rng.choice(["journal", "kernlog"]))
    R = Res()
    R.truth = tr
    return out, R


# =========================================================================== Gaudi MPIJob on k8s
def layout_gaudi_k8s(rng, cause, run):
    out = Out()
    nw = rng.choice([2, 2, 4, 8])
    gpn = 8
    jn = rng.choice(["llama2-70b-ft", "mixtral-pt", "gaudi-bert-lrg"])
    knodes = make_nodes(rng, nw, "plain", gpus=gpn, pci=PCI_GAUDI)
    for i, nd in enumerate(knodes):
        kn = "gaudi2-%s-%d" % (alnum(rng, 5), i)
        pod = "%s-worker-%d" % (jn, i)
        nd.k8s_node = kn
        nd.aliases = [kn, nd.ip]
        nd.name = pod
    job = Job(rng, knodes, gpn)
    W = job.world
    t0 = C.pick_base_time(rng)
    step_s = rng.uniform(1, 7)
    n_ok = rng.randint(30, 300)
    t_fail = t0 + 300 + n_ok * step_s
    tr = _truth(cause)
    c = rng.randrange(W)
    cn = job.ni(c)
    L = EvList()
    launcher = "%s-launcher-%s" % (jn, alnum(rng, 5))
    L.add(t0, "+ mpirun --npernode 8 --tag-output --allow-run-as-root --bind-to core --map-by socket:PE=6 -x PT_HPU_LAZY_MODE=1 -x HCCL_OVER_OFI=0 python3 run_clm.py --use_habana --use_lazy_mode --gaudi_config_name Habana/llama --deepspeed ds_config.json")
    banner = ["============================= HABANA PT BRIDGE CONFIGURATION ===========================", " PT_HPU_LAZY_MODE = 1", " PT_RECIPE_CACHE_PATH = ", " PT_CACHE_FOLDER_DELETE = 0",
              " PT_HPU_RECIPE_CACHE_CONFIG = ", " PT_HPU_MAX_COMPOUND_OP_SIZE = 9223372036854775807", " PT_HPU_LAZY_ACC_PAR_MODE = 1", " PT_HPU_ENABLE_REFINE_DYNAMIC_SHAPES = 0",
              "---------------------------: System Configuration :---------------------------", "Num CPU Cores : 160", "CPU RAM       : 1056375308 KB", "------------------------------------------------------------------------------"]
    for r in range(W):
        if job.lr(r) == 0:
            for i, b in enumerate(banner):
                L.add(t0 + 20 + i * 1e-3, "[1,%d]<stdout>:%s" % (r, b))
    tt = t0 + 300
    step = 0
    while tt < (t_fail if cause else t0 + 300 + n_ok * step_s):
        step += 1
        tt += step_s * rng.uniform(0.96, 1.04)
        if step % 10 == 0:
            L.add(tt, "[1,0]<stderr>:{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.2e, 'epoch': %.2f, 'memory_allocated (GB)': %.2f, 'max_memory_allocated (GB)': %.2f, 'total_memory_available (GB)': 94.62}" % (2 + 3 * 0.5 ** (step / 100.0), rng.uniform(0.3, 2), 2e-5, step / 1000.0, rng.uniform(60, 80), rng.uniform(80, 90)))
    kern = {}
    events = []
    pod_status = {}
    if cause is None:
        if rng.random() < 0.6:
            L.add(t0 + 30, "[1,%d]<stderr>:Warning: The ProcessGroupHCCL API hostBarrier is deprecated and will be removed soon" % rng.randrange(W))
        L.add(tt + 1, "[1,0]<stderr>:{'train_runtime': %.2f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.4f, 'epoch': 1.0, 'memory_allocated (GB)': 70.1, 'max_memory_allocated (GB)': 88.2, 'total_memory_available (GB)': 94.62}" % (tt - t0, W * 4 / step_s, 1 / step_s, 2.3))
        events.append((t0 - 30, "Normal", "Scheduled", "pod/%s-worker-0" % jn, "Successfully assigned default/%s-worker-0 to %s" % (jn, knodes[0].k8s_node)))
        if rng.random() < 0.5:
            events.append((t0 - 20, "Warning", "FailedMount", "pod/%s-launcher-%s" % (jn, alnum(rng, 5)), "MountVolume.SetUp failed for volume \"mpi-job-config\" : configmap \"%s-config\" not found" % jn))
        tr["notes"] = "Healthy Gaudi MPIJob; a transient FailedMount event and HCCL deprecation warnings."
    elif cause == "gpu_hardware":
        _set(tr, job, c, drain=True)
        hl = job.lr(c)
        pci = knodes[cn].pci[hl]
        kern[cn] = [(t_fail - 0.5, "habanalabs hl%d: Received H/W interrupt %d, reason %s" % (hl, rng.choice([183, 197, 221]), rng.choice(["TPC%d_QM_SW_ERR" % rng.randint(0, 23), "PSOC_AXI_ERR_RSP", "DMA_IF_SEI_0"]))),
                    (t_fail - 0.4, "habanalabs hl%d: Critical error %s, going to hard reset" % (hl, rng.choice(["EVENT_CPU_PKT_QUEUE_OUT_SYNC", "device CPU heartbeat timeout", "GIC_TPC_QM_SEI"]))),
                    (t_fail - 0.3, "habanalabs %s:00.0: Going to reset device" % ("0000:" + pci)),
                    (t_fail + 5, "habanalabs hl%d: Failed to reset device, device is NOT usable" % hl)]
        lines = tb([("/optimum-habana/examples/language-modeling/run_clm.py", 690, "main", "train_result = trainer.train(resume_from_checkpoint=checkpoint)"),
                    ("/usr/local/lib/python3.10/dist-packages/habana_frameworks/torch/hpu/__init__.py", 159, "synchronize", "return _hpu_C.synchronize_device()")],
                   ["RuntimeError: synStatus=8 [Device reset] Device synchronize failed."])
        for l in lines:
            L.add(t_fail, "[1,%d]<stderr>:%s" % (c, l))
        tr["notes"] = "Gaudi device hl%d in pod %s (k8s node %s) hit a critical H/W error and hard reset; rank %d failed." % (hl, knodes[cn].name, knodes[cn].k8s_node, c)
        L.add(t_fail + 3, "--------------------------------------------------------------------------")
        L.add(t_fail + 3, "Primary job  terminated normally, but 1 process returned")
        L.add(t_fail + 3, "a non-zero exit code. Per user-direction, the job has been aborted.")
        L.add(t_fail + 3, "--------------------------------------------------------------------------")
        L.add(t_fail + 4, "--------------------------------------------------------------------------")
        L.add(t_fail + 4, "mpirun detected that one or more processes exited with non-zero status, thus causing")
        L.add(t_fail + 4, "the job to be terminated. The first process to do so was:")
        L.add(t_fail + 4, "")
        L.add(t_fail + 4, "  Process name: [[%d,1],%d]" % (rng.randint(10000, 60000), c))
        L.add(t_fail + 4, "  Exit code:    1")
        L.add(t_fail + 4, "--------------------------------------------------------------------------")
    elif cause == "host_oom_kill":
        _set(tr, job, c)
        L.add(t_fail + 2, "--------------------------------------------------------------------------")
        L.add(t_fail + 2, "mpirun noticed that process rank %d with PID %d on node %s exited on signal 9 (Killed)." % (c, job.pid[c], knodes[cn].name))
        L.add(t_fail + 2, "--------------------------------------------------------------------------")
        kern[cn] = [(t_fail + i * 0.0005, l) for i, l in enumerate(oom_kill_lines(rng, job.pid[c], "python3", rng.randint(300, 900) * 1024 * 1024, cgroup="/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice" % hexid(rng, 32).replace("", "")[:32]))]
        events.append((t_fail + 3, "Warning", "OOMKilling", "node/%s" % knodes[cn].k8s_node, "Memory cgroup out of memory: Killed process %d (python3) total-vm:%dkB, anon-rss:%dkB" % (job.pid[c], rng.randint(10**9, 2 * 10**9), rng.randint(5 * 10**8, 9 * 10**8))))
        pod_status[cn] = ("OOMKilled", 137)
        tr["notes"] = "Pod %s's memory limit was hit; cgroup OOM killed rank %d (pid %d)." % (knodes[cn].name, c, job.pid[c])
    elif cause == "network":
        _set(tr, job, job.lowest(cn), drain=True)
        port = rng.randint(0, 23)
        kern[cn] = [(t_fail - 1, "habanalabs hl%d: Port %d link down" % (rng.randrange(8), port)), (t_fail - 0.8, "habanalabs hl%d: port %d: Auto-negotiation failed, retrying" % (rng.randrange(8), port))]
        for r in [x for x in range(W) if job.ni(x) == cn][:3] + [x for x in range(W) if job.ni(x) != cn][:2]:
            tt2 = t_fail + rng.uniform(0, 5)
            L.add(tt2, "[1,%d]<stderr>:[%s][HCL       ][error][tid:%s] hcl/src/platform/gaudi2/hcl_device_gaudi2.cpp::%d(openQps): The condition [ rc == 0 ] failed. Failed to open QP for remote rank %d on scaleout port %d" % (r, T.tf(tt2), hexid(rng, 4).upper(), rng.randint(100, 400), (r + gpn) % W, port) if job.ni(r) == cn else
                  "[1,%d]<stderr>:RuntimeError: Collective call returned error (hcclInternalError): communication with rank %d (pod %s) timed out" % (r, job.lowest(cn), knodes[cn].name))
        tr["notes"] = "Gaudi scale-out port %d went down in pod %s; HCCL QP errors there, peers time out naming it." % (port, knodes[cn].name)
        L.add(t_fail + 8, "mpirun noticed that process rank %d with PID %d on node %s exited on signal 6 (Aborted)." % (job.lowest(cn), job.pid[job.lowest(cn)], knodes[cn].name))
    elif cause == "python_exception":
        _set(tr, job, c)
        lines = tb([("/optimum-habana/examples/language-modeling/run_clm.py", 690, "main", "train_result = trainer.train(resume_from_checkpoint=checkpoint)"),
                    ("/usr/local/lib/python3.10/dist-packages/optimum/habana/transformers/trainer.py", 1432, "_inner_training_loop", "for step, inputs in enumerate(epoch_iterator):"),
                    ("/optimum-habana/examples/language-modeling/run_clm.py", 588, "group_texts", "result = {k: [t[i : i + block_size] for i in range(0, total_length, block_size)] for k, t in concatenated_examples.items()}")],
                   ["TypeError: 'NoneType' object is not subscriptable"])
        for l in lines:
            L.add(t_fail, "[1,%d]<stderr>:%s" % (c, l))
        L.add(t_fail + 3, "mpirun detected that one or more processes exited with non-zero status, thus causing")
        L.add(t_fail + 3, "the job to be terminated. The first process to do so was:")
        L.add(t_fail + 3, "")
        L.add(t_fail + 3, "  Process name: [[%d,1],%d]" % (rng.randint(10000, 60000), c))
        L.add(t_fail + 3, "  Exit code:    1")
        tr["notes"] = "TypeError on rank %d." % c
    out.add("pods/%s.log" % launcher, L.lines())
    for ni, nd in enumerate(knodes):
        lines = ["Server listening on 0.0.0.0 port 3022.", "Server listening on :: port 3022.", "Accepted publickey for root from %s port %d ssh2: RSA SHA256:%s" % (knodes[0].ip, rng.randint(30000, 60000), alnum(rng, 43, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"))]
        out.add("pods/%s.log" % nd.name, lines)
    desc = []
    for ni, nd in enumerate(knodes):
        st = pod_status.get(ni)
        desc += ["Name:             %s" % nd.name, "Namespace:        default", "Node:             %s/%s" % (nd.k8s_node, nd.ip), "Status:           %s" % ("Failed" if st else ("Succeeded" if cause is None else "Running")),
                 "Containers:", "  worker:", "    Image:          vault.habana.ai/gaudi-docker/1.%d.0/ubuntu22.04/habanalabs/pytorch-installer-2.%d.%d:latest" % (rng.choice([17, 18, 19]), rng.choice([3, 4, 5]), rng.randint(0, 1)),
                 "    State:          %s" % ("Terminated" if st else "Running")]
        if st:
            desc += ["      Reason:       %s" % st[0], "      Exit Code:    %d" % st[1], "      Started:      %s" % T.dt(t0 - 60).strftime("%a, %d %b %Y %H:%M:%S +0000"), "      Finished:     %s" % T.dt(t_fail).strftime("%a, %d %b %Y %H:%M:%S +0000")]
        desc += ["    Limits:", "      cpu:                 152", "      habana.ai/gaudi:     8", "      hugepages-2Mi:       %dGi" % rng.choice([9, 18]), "      memory:              %dGi" % rng.choice([400, 700, 900]), ""]
    out.add("kubectl-describe-pods.txt", desc)
    evl = ["LAST SEEN   TYPE      REASON       OBJECT                          MESSAGE"]
    for t, ty, rs, ob, ms in sorted(events):
        evl.append("%-11s %-9s %-12s %-31s %s" % (T.k8s_age(max(1, t_fail + 600 - t)), ty, rs, ob, ms))
    out.add("events.txt", evl)
    _kern(rng, out, job, kern, t0, t_fail + 60, "node-dmesg", style="dmesgT")
    # node-dmesg folder named by k8s node (not pod) — rename
    for k in list(out.files.keys()):
        if k.startswith("node-dmesg/"):
            pod = k.split("/")[1]
            kn = [n.k8s_node for n in knodes if n.name == pod]
            if kn:
                out.files[k.replace("/" + pod + "/", "/" + kn[0] + "/", 1)] = out.files.pop(k)
    R = Res()
    R.truth = tr
    return out, R


# =========================================================================== Horovod / Open MPI
def layout_horovod(rng, cause, run):
    out = Out()
    nn = rng.choice([2, 4, 4, 8])
    gpn = rng.choice([4, 8])
    nodes = make_nodes(rng, nn, rng.choice(["gpu-h100", "plain", "fqdn"]), gpus=gpn, pci=C.PCI_A100)
    job = Job(rng, nodes, gpn)
    W = job.world
    t0 = C.pick_base_time(rng)
    step_s = rng.uniform(0.3, 2)
    n_ok = rng.randint(100, 800)
    t_fail = t0 + 60 + n_ok * step_s
    tr = _truth(cause)
    c = rng.randrange(W)
    cn = job.ni(c)
    tsout = rng.random() < 0.4
    jid = rng.randint(10000, 60000)
    L = EvList()
    kern = {}
    py = "/opt/conda/lib/python3.10/site-packages"

    def tag(r, stream, t, text):
        p = "[1,%d]<%s>:" % (r, stream)
        if tsout:
            p = T.openmpi_ts(t) + p
        L.add(t, p + text)

    L.add(t0, "+ horovodrun -np %d -H %s python train_hvd.py --epochs 90" % (W, ",".join("%s:%d" % (n.name.split(".")[0], gpn) for n in nodes)) if rng.random() < 0.5 else
          "+ mpirun -np %d -H %s -bind-to none -map-by slot -x NCCL_DEBUG=WARN -x LD_LIBRARY_PATH -mca pml ob1 -mca btl ^openib --tag-output%s python train_hvd.py" % (W, ",".join("%s:%d" % (n.name.split(".")[0], gpn) for n in nodes), " --timestamp-output" if tsout else ""))
    for r in range(W):
        if r == 0:
            tag(0, "stdout", t0 + 10, "Horovod size: %d, local size: %d" % (W, gpn))
    epoch_steps = rng.choice([50, 100, 200])
    tt = t0 + 60
    step = 0
    slow0 = t0 + 60 + n_ok * step_s * 0.3 if cause == "straggler" else None
    tend = t_fail if cause else t0 + 60 + n_ok * step_s
    while tt < tend:
        step += 1
        st = step_s * rng.uniform(0.95, 1.05) * (1.8 if slow0 and tt > slow0 else 1)
        tt += st
        if step % 20 == 0 and tt < tend:
            tag(0, "stdout", tt, "Epoch %d iter %d/%d loss=%.4f top1=%.3f img/sec/gpu=%.1f" % (step // epoch_steps, step % epoch_steps, epoch_steps, 1.8 + 4 * 0.5 ** (step / 300.0), min(0.76, step / 1000.0), 256 / st))
        if cause == "straggler" and step % 60 == 0 and tt < tend:
            for r in range(W):
                slow = slow0 and tt > slow0 and r == S_c[0]
                tag(r, "stdout", tt + 0.01, "[timing] rank %d fwd_bwd=%.1fms allreduce_wait=%.1fms" % (r, st * 1000 * (0.9 if slow else 0.5), st * 1000 * (0.04 if slow else (0.45 if slow0 and tt > slow0 else 0.1))))
        if step == 1:
            S_c = [c]
    if cause is None:
        if rng.random() < 0.5:
            hv = T.hvd(t0 + 400)
            tag(0, "stderr", t0 + 400, "[%s: W /tmp/pip-install-%s/horovod_%s/horovod/common/stall_inspector.cc:107] One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than 60 seconds. This may indicate that different ranks are trying to submit different tensors or that only subset of ranks is submitting tensors, which will cause deadlock. " % (hv, alnum(rng, 8), hexid(rng, 8)))
            tag(0, "stderr", t0 + 400, "Missing ranks:")
            tag(0, "stderr", t0 + 400, "%d: [broadcast.resnet50.checkpoint_epoch]" % rng.randrange(1, W))
        tr["notes"] = "Healthy Horovod run; a stall-inspector warning during a slow checkpoint broadcast that resolved itself."
    elif cause in ("hang", "collective_mismatch"):
        _set(tr, job, c)
        if cause == "hang" or rng.random() < 0.5:
            for k in range(rng.randint(2, 5)):
                t2 = t_fail + 60 * (k + 1)
                hv = T.hvd(t2)
                tag(0, "stderr", t2, "[%s: W /tmp/pip-install-%s/horovod_%s/horovod/common/stall_inspector.cc:107] One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than 60 seconds. This may indicate that different ranks are trying to submit different tensors or that only subset of ranks is submitting tensors, which will cause deadlock. " % (hv, alnum(rng, 8), hexid(rng, 8)))
                tag(0, "stderr", t2, "Missing ranks:")
                names = ", ".join("DistributedSGD_Allreduce/cond_%d/HorovodAllreduce_gradients_%s_0" % (i, nm) for i, nm in enumerate(["conv2d_%d/Conv2D_grad/Conv2DBackpropFilter" % rng.randint(1, 50), "dense/MatMul_grad/MatMul_1"]))
                tag(0, "stderr", t2, "%d: [%s ...]" % (c, names))
            if cause == "collective_mismatch":
                tag(c, "stdout", t_fail - 5, "rank %d: optimizer param groups=%d (expected 161) -- aux head enabled by env AUX_LOSS=1" % (c, 163))
                tr["notes"] = "Rank %d built an extra parameter group (aux head) and submitted differently named tensors; the stall inspector lists it as missing." % c
            else:
                tr["notes"] = "Rank %d stopped submitting tensors (stall inspector: missing rank %d); job later killed." % (c, c)
            fin = t_fail + 60 * 8
        else:
            for r in range(W):
                tag(r, "stderr", t_fail + rng.uniform(0, 0.5), "horovod.common.exceptions.HorovodInternalError: Mismatched allreduce tensor shapes: One rank sent a tensor of shape [2048, 1000], but another rank sent a tensor of shape [2048, 1001].")
            tr["rank_inferable"] = False
            tag(c, "stdout", t0 + 12, "num_classes=1001 (from dataset metadata /data/imagenet/meta_v2.json)")
            for r in range(W):
                if r != c and r < 4:
                    tag(r, "stdout", t0 + 12, "num_classes=1000 (from dataset metadata /data/imagenet/meta.json)")
            tr["rank_inferable"] = c < 4 or W <= 4
            tr["notes"] = "Rank %d built a 1001-class head (different metadata file); Horovod reports shape mismatch without naming the rank; only a startup print shows it." % c
            fin = t_fail + 2
        L.add(fin, "--------------------------------------------------------------------------")
        L.add(fin, "mpirun noticed that process rank %d with PID %d on node %s exited on signal 15 (Terminated)." % (0, job.pid[0], nodes[0].name.split(".")[0]) if cause == "hang" else "mpirun detected that one or more processes exited with non-zero status, thus causing")
    elif cause == "network":
        _set(tr, job, job.lowest(cn), drain=True)
        k = rng.randrange(4)
        kern[cn] = [(t_fail - 1 + i * 0.2, l) for i, l in enumerate(mlx5_down_lines(rng, IB_PCI[k], "mlx5_%d" % k, "ibp%ds0" % (12 + k)))]
        for r in range(W):
            if job.ni(r) == cn or rng.random() < 0.3:
                t2 = t_fail + rng.uniform(0, 3)
                peer = nodes[(cn + 1) % nn] if job.ni(r) == cn else nodes[cn]
                tag(r, "stderr", t2, ib_completion_warn(rng, job.node(r).name, job.pid[r], job.lr(r), peer.ip, job.node(r).ip, "mlx5_%d" % k))
                tag(r, "stderr", t2 + 0.1, "horovod.common.exceptions.HorovodInternalError: ncclAllReduce failed: remote process exited or there was a network error")
        L.add(t_fail + 4, "mpirun detected that one or more processes exited with non-zero status, thus causing")
        L.add(t_fail + 4, "the job to be terminated. The first process to do so was:")
        L.add(t_fail + 4, "")
        L.add(t_fail + 4, "  Process name: [[%d,1],%d]" % (jid, job.lowest(cn) + rng.randrange(gpn)))
        L.add(t_fail + 4, "  Exit code:    1")
        tr["notes"] = "IB HCA failure on %s; NCCL completion errors there and at its peers." % job.host(c)
    elif cause == "host_oom_kill":
        _set(tr, job, c)
        kern[cn] = [(t_fail + i * 0.0005, l) for i, l in enumerate(oom_kill_lines(rng, job.pid[c], "python", rng.randint(100, 400) * 1024 * 1024))]
        L.add(t_fail + 1, "--------------------------------------------------------------------------")
        L.add(t_fail + 1, "Primary job  terminated normally, but 1 process returned")
        L.add(t_fail + 1, "a non-zero exit code. Per user-direction, the job has been aborted.")
        L.add(t_fail + 1, "--------------------------------------------------------------------------")
        L.add(t_fail + 1.1, "--------------------------------------------------------------------------")
        L.add(t_fail + 1.1, "mpirun noticed that process rank %d with PID %d on node %s exited on signal 9 (Killed)." % (c, job.pid[c], job.host(c)))
        L.add(t_fail + 1.1, "--------------------------------------------------------------------------")
        tr["notes"] = "Kernel OOM killer killed rank %d on %s (DALI CPU pipeline growth)." % (c, job.host(c))
    elif cause == "crash_signal":
        _set(tr, job, c)
        tag(c, "stderr", t_fail, "[%s:%d :0:%d] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x%s)" % (job.host(c), job.pid[c], job.pid[c] + 40, hexid(rng, 8)))
        tag(c, "stderr", t_fail, "==== backtrace (tid:%7d) ====" % (job.pid[c] + 40))
        for i, fr in enumerate(["0 0x0000000000042520 __sigaction()  ???:0", "1 0x00000000000a1d4e horovod::common::TensorQueue::GetTensorEntriesFromResponse()  ???:0",
                                "2 0x000000000008c9a1 horovod::common::(anonymous namespace)::RunLoopOnce()  operations.cc:0", "3 0x00000000000dc253 execute_native_thread_routine()  ???:0"]):
            tag(c, "stderr", t_fail, fr)
        tag(c, "stderr", t_fail, "=================================")
        kern[cn] = [(t_fail, segfault_kernel(rng, "python", job.pid[c], "mpi_lib.cpython-310-x86_64-linux-gnu.so"))]
        L.add(t_fail + 1, "mpirun noticed that process rank %d with PID %d on node %s exited on signal 11 (Segmentation fault)." % (c, job.pid[c], job.host(c)))
        tr["notes"] = "UCX caught SIGSEGV inside Horovod's background thread on rank %d." % c
    elif cause == "python_exception":
        _set(tr, job, c)
        for l in tb([("/workspace/train_hvd.py", 201, "<module>", "train(epoch)"), ("/workspace/train_hvd.py", 140, "train", "for batch_idx, (data, target) in enumerate(train_loader):"),
                     (py + "/torch/utils/data/dataloader.py", 1465, "_process_data", "data.reraise()"), (py + "/torch/_utils.py", 733, "reraise", "raise exception")],
                    ["PIL.UnidentifiedImageError: Caught UnidentifiedImageError in DataLoader worker process 3.", "Original Traceback (most recent call last):",
                     "PIL.UnidentifiedImageError: cannot identify image file '/data/imagenet/train/n02105855/n02105855_2933.JPEG'"]):
            tag(c, "stderr", t_fail, l)
        L.add(t_fail + 2, "mpirun detected that one or more processes exited with non-zero status, thus causing")
        L.add(t_fail + 2, "the job to be terminated. The first process to do so was:")
        L.add(t_fail + 2, "")
        L.add(t_fail + 2, "  Process name: [[%d,1],%d]" % (jid, c))
        L.add(t_fail + 2, "  Exit code:    1")
        tr["notes"] = "Corrupt JPEG raised in rank %d's DataLoader." % c
    elif cause == "straggler":
        _set(tr, job, c)
        fin = t_fail
        L.add(fin, "mpirun: Forwarding signal 2 to job" if rng.random() < 0.5 else "mpirun: abort is already in progress...hit ctrl-c again to forcibly terminate")
        tr["notes"] = "Rank %d's fwd/bwd time is ~1.8x the others (per-rank timing lines); everyone else waits in allreduce; user interrupted the run." % c
    out.add(rng.choice(["horovod_%d.log" % jid, "mpirun.out", "train_hvd.log"]), L.lines())
    _kern(rng, out, job, kern, t0, t_fail + 600, "syslog", style=rng.choice(["kernlog", "journal", "journal-iso"]))
    R = Res()
    R.truth = tr
    return out, R


LAYOUTS = {
    "xpu-oneccl-pbs": (layout_xpu_pbs, ["cuda_oom", "gpu_hardware", "network", "crash_signal", "python_exception", "preemption", "hang"]),
    "ascend-npu-torchrun": (layout_ascend, ["hang", "data_loader_stall", "network", "cuda_oom", "gpu_hardware", "ecc_memory", "python_exception"]),
    "neuron-trn-slurm": (layout_neuron, ["ecc_memory", "gpu_hardware", "network", "hang", "host_oom_kill", "crash_signal"]),
    "gaudi-mpijob-k8s": (layout_gaudi_k8s, ["gpu_hardware", "host_oom_kill", "network", "python_exception"]),
    "horovod-openmpi": (layout_horovod, ["hang", "collective_mismatch", "network", "host_oom_kill", "crash_signal", "python_exception", "straggler"]),
}
