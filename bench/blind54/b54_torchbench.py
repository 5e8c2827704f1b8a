"""torch.distributed all-reduce sanity scripts (bench.log) and PyTorch
distributed unit-test runs under pytest (pytest.log)."""
from b54_common import (Ctx, nccl_info_lines, py_warnings, kfile, render_kernel, kernel_noise,
                        xid_line, oom_kill_lines, kline)
from b54_torchfail import compose, render, py_tb, CUDA_HINT

SANITY_CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
                 "illegal_memory_access", "python_exception", "host_oom_kill",
                 "crash_signal", "preemption", "hang", "collective_mismatch",
                 "straggler", "unknown"]
PYTEST_CAUSES = ["gpu_hardware", "cuda_oom", "illegal_memory_access", "python_exception",
                 "host_oom_kill", "crash_signal", "hang", "collective_mismatch", "unknown"]


def gen_sanity(rng, cause):
    ctx = Ctx(rng, nnodes=rng.choice([1, 2, 2, 4]))
    script = rng.choice(["allreduce_test.py", "nccl_sanity.py", "dist_check.py"])
    sizes = [1 << 20, 16 << 20, 256 << 20, 1 << 30]
    ev = []
    pre = ["+ torchrun --nnodes=%d --nproc_per_node=%d --rdzv-endpoint=%s:29400 --tee 3 %s --iters 50" % (
        ctx.nnodes, ctx.gpn, ctx.hosts[0], script)]
    for w in py_warnings(ctx, rng.randint(0, 2)):
        ev.append((rng.uniform(0, 3), rng.randint(0, ctx.world - 1), w))
    for r in ctx.ranks[:: max(1, ctx.world // 3)]:
        if rng.random() < 0.4:
            ev.append((rng.uniform(3, 6), r.rank, "\n".join(nccl_info_lines(ctx, r, rng.randint(1, 3), ib=ctx.nnodes > 1))))
    for r in ctx.ranks:
        ev.append((5 + r.rank * 0.001, r.rank, "rank %d/%d on %s cuda:%d init ok" % (r.rank, ctx.world, r.host, r.local)))
    slow = ctx.pick_rank() if cause == "straggler" else None
    base = 360.0 if ctx.nnodes > 1 else 460.0
    if "A100" in ctx.gpu_name:
        base /= 2
    t = 10.0
    res = None
    nrounds = rng.randint(3, 6)
    fail_round = rng.randint(1, nrounds - 1) if cause and cause != "straggler" else None
    for rd in range(nrounds):
        if rd == fail_round:
            res = compose(ctx, cause, t + rng.uniform(1, 5), script, "torchrun", "bench",
                          rng.choice(["syslog", "dmesg"]))
            break
        for s in sizes:
            shown = ctx.ranks if (rng.random() < 0.3 or slow) else [ctx.ranks[0]]
            for r in shown:
                f = 1.0
                if slow is not None:
                    # the late rank sees a short collective; the others wait in it
                    f = rng.uniform(0.97, 1.03) if r is slow else rng.uniform(1.7, 2.2)
                bw = base * rng.uniform(0.95, 1.02) / f
                ms = s * 2 * (ctx.world - 1) / ctx.world / (bw * 1e6) + rng.uniform(0.02, 0.04) * f
                ev.append((t, r.rank, "[rank %d] allreduce %5d MB: avg %.3f ms  busbw %.1f GB/s" % (r.rank, s >> 20, ms, bw)))
            t += rng.uniform(2, 6)
        if slow is None:
            ev.append((t, 0, "round %d: allreduce ok on rank 0 (sum check %d == %d)" % (rd, ctx.world * (ctx.world - 1) // 2, ctx.world * (ctx.world - 1) // 2)))
        else:
            for r in ctx.ranks:
                ev.append((t + r.rank * 1e-4, r.rank, "allreduce ok on rank %d  step_time %.1f ms" % (r.rank, (41.0 if r is slow else 22.0) * rng.uniform(0.97, 1.04))))
        t += 1
    files, truth = {}, {}
    if res is None:
        tail = ["ALL RANKS PASSED (%d rounds)" % nrounds]
        ev.append((t + 1, 0, tail[0]))
        if slow:
            truth["initiator"] = {"rank": slow.rank, "node": slow.host}
            truth["notes"] = "all-reduce completes but rank %d (%s) is ~2x slower every round; everyone else waits" % (slow.rank, slow.host)
        else:
            truth["initiator"] = None
            truth["notes"] = "sanity all-reduce passes on all ranks"
        files["bench.log"] = "\n".join(pre) + "\n" + render(ctx, ev, "torchrun_tee")
        return files, truth
    ev += res["ev"]
    files["bench.log"] = "\n".join(pre) + "\n" + render(ctx, ev, "torchrun_tee", tail=res["tail"])
    if res["kern"]:
        ks = "syslog" if " kernel: " in res["kern"][0][1] else "dmesg"
        files[kfile(ks, res["kern_host"])] = render_kernel(res["kern"])
    truth["initiator"] = res["initiator"]
    truth["notes"] = res["note"]
    return files, truth


TESTS = ["test_allreduce_ops", "test_allgather_ops", "test_broadcast_coalesced_nccl", "test_reduce_scatter_ops",
         "test_nccl_barrier", "test_send_recv", "test_all_to_all_single", "test_ddp_uneven_inputs",
         "test_fsdp_shard_grad_op", "test_batch_isend_irecv_nccl", "test_nccl_dist_backend_error",
         "test_comm_split_optimization", "test_abort_pg", "test_allreduce_coalesced"]
FILES = ["test/distributed/test_c10d_nccl.py", "test/distributed/test_c10d_common.py",
         "test/distributed/fsdp/test_fsdp_core.py", "test/distributed/test_distributed_spawn.py"]


def gen_pytest(rng, cause):
    ctx = Ctx(rng, nnodes=1, gpn=rng.choice([2, 4, 8]))
    f = rng.choice(FILES)
    cls = {"test/distributed/test_c10d_nccl.py": "ProcessGroupNCCLTest",
           "test/distributed/test_c10d_common.py": "CommTest",
           "test/distributed/fsdp/test_fsdp_core.py": "TestParityWithDDP",
           "test/distributed/test_distributed_spawn.py": "TestDistBackendWithSpawn"}[f]
    ws = min(ctx.gpn, rng.choice([2, 4]))
    out = ["============================= test session starts ==============================",
           "platform linux -- Python 3.10.12, pytest-7.4.4, pluggy-1.5.0 -- /usr/bin/python",
           "cachedir: .pytest_cache",
           "rootdir: /opt/pytorch/pytorch",
           "configfile: pytest.ini",
           "plugins: hypothesis-6.98.0, xdist-3.5.0, rerunfailures-13.0, flakefinder-1.1.0",
           "collecting ... collected %d items" % rng.randint(60, 200), ""]
    tests = list(TESTS)
    rng.shuffle(tests)
    n = rng.randint(8, 13)
    fail_at = rng.randint(2, n - 1) if cause else None
    passed = skipped = 0
    failed = []
    details = []
    kern = []
    truth = {"initiator": None, "notes": ""}
    bad = rng.randint(0, ws - 1)
    pid0 = ctx.ranks[0].pid
    dur = 0.0
    for i in range(n):
        t = tests[i % len(tests)] + ("" if i < len(tests) else "_%d" % i)
        nid = "%s::%s::%s" % (f, cls, t)
        pct = int(100 * (i + 1) / n)
        if i != fail_at:
            if rng.random() < 0.15:
                out.append("%s SKIPPED (Need at least %d CUDA devices)%s[%3d%%]" % (nid, 8 if ws < 8 else 16, " " * 4, pct))
                skipped += 1
            else:
                out.append("%s PASSED%s[%3d%%]" % (nid, " " * 4, pct))
                passed += 1
            dur += rng.uniform(3, 40)
            if cause is None and rng.random() < 0.2:
                out.append("[rank%d]:[W%s ProcessGroupNCCL.cpp:1168] Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the job. (function operator())" % (
                    rng.randint(0, ws - 1), ctx.glog_ts(dur)))
            continue
        out.append("%s FAILED%s[%3d%%]" % (nid, " " * 4, pct))
        failed.append(nid)
        err, short, bad = pytest_failure(ctx, rng, cause, bad, ws, t, dur, kern)
        details.append((nid, err, short))
        dur += rng.uniform(3, 310)
        truth["notes"] = "%s in %s (process %d of %d)" % (cause, t, bad, ws)
        if cause in ("hang", "unknown"):
            truth["initiator"] = {"rank": bad, "node": None} if cause == "hang" and "Process %d timed out with traceback" % bad in err else None
        else:
            truth["initiator"] = {"rank": bad, "node": ctx.hosts[0] if kern else None}
        if cause == "collective_mismatch":
            truth["initiator"] = {"rank": bad, "node": None}
    if cause is None:
        truth["notes"] = "healthy distributed unit-test run; harmless ProcessGroupNCCL destructor warnings and skips"
    out.append("")
    if details:
        out.append("=================================== FAILURES ===================================")
        for nid, err, _ in details:
            out.append("_" * 10 + " %s.%s " % (nid.split("::")[1], nid.split("::")[2]) + "_" * 10)
            out += err.split("\n")
    out.append("=========================== short test summary info ============================")
    for nid, _, short in details:
        out.append("FAILED %s - %s" % (nid, short))
    bits = (["%d failed" % len(failed)] if failed else []) + ["%d passed" % passed] + (["%d skipped" % skipped] if skipped else [])
    out.append("=========== %s, %d warnings in %.2fs (%d:%02d:%02d) ===========" % (
        ", ".join(bits), rng.randint(0, 9), dur, dur // 3600, dur % 3600 // 60, dur % 60))
    files = {"pytest.log": "\n".join(out) + "\n"}
    if kern:
        files[kfile("dmesg", ctx.hosts[0])] = render_kernel(kern + kernel_noise(ctx, ctx.hosts[0], dur - 600, "dmesg", 4))
    return files, truth


def pytest_failure(ctx, rng, cause, bad, ws, t, dur, kern):
    sp = "/opt/pytorch/pytorch/torch/testing/_internal/common_distributed.py"
    head = ["self = <%s testMethod=%s>" % ("test_c10d_nccl.ProcessGroupNCCLTest", t), "",
            "    def wrapper(self):",
            "        if self.rank == self.MAIN_PROCESS_RANK:",
            ">           self._join_processes(fn)", "",
            "%s:%d: " % (sp, 542), "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _", ""]
    if cause == "collective_mismatch" and bad == 0:
        bad = 1
    r = ctx.ranks[bad]
    if cause in ("gpu_hardware", "cuda_oom", "illegal_memory_access", "python_exception", "collective_mismatch"):
        last = {"gpu_hardware": "RuntimeError: CUDA error: unspecified launch failure\n" + CUDA_HINT,
                "cuda_oom": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU %d has a total capacity of 79.11 GiB of which 2.19 GiB is free. Process 812233 has 61.02 GiB memory in use. Of the allocated memory 12.00 GiB is allocated by PyTorch, and 12.12 MiB is reserved by PyTorch but unallocated." % bad,
                "illegal_memory_access": "RuntimeError: CUDA error: an illegal memory access was encountered\n" + CUDA_HINT,
                "python_exception": "AssertionError: Tensor-likes are not close!\n\nMismatched elements: 3 / 1024 (0.3%)\nGreatest absolute difference: 0.0625 at index (17,) (up to 1e-05 allowed)",
                "collective_mismatch": "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: CollectiveFingerPrint(SequenceNumber=7, OpType=ALLGATHER, TensorShape=[16], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda)), but Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=7, OpType=ALLREDUCE, TensorShape=[16], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda))." % bad,
                }[cause]
        if cause == "gpu_hardware":
            kern.append((dur, xid_line(ctx, r, rng.choice([79, 119]), dur, "pt_main_thread", "dmesg")))
        if cause == "illegal_memory_access" and rng.random() < 0.5:
            kern.append((dur, xid_line(ctx, r, 31, dur, "pt_main_thread", "dmesg")))
        tb = py_tb([(sp, 657, "run_test", "getattr(self, test_name)()"),
                    ("/opt/pytorch/pytorch/" + "test/distributed/test_c10d_nccl.py", rng.randint(300, 4000), t, "dist.all_reduce(tensor)")], last)
        msg = "RuntimeError: Process %d exited with error code 10 and exception:\n%s" % (bad, tb)
        body = head + ["E   " + l for l in msg.split("\n")]
        return "\n".join(body), "RuntimeError: Process %d exited with error code 10 and exception:" % bad, bad
    if cause in ("crash_signal", "host_oom_kill"):
        code = -11 if cause == "crash_signal" else -9
        if cause == "host_oom_kill":
            kern += oom_kill_lines(ctx, ctx.hosts[0], dur, r.pid, "pt_main_thread", "dmesg", cgroup=False)
        msg = "AssertionError: Expect process %d exit code to match Process 0 exit code of 0, but got %d" % (bad, code) if bad else \
            "AssertionError: Expected zero exit code but got %d for pid: %d" % (code, r.pid)
        if bad == 0 and cause == "crash_signal" and rng.random() < 0.5:
            kern.append((dur, kline(ctx, ctx.hosts[0], dur, "pt_main_thread[%d]: segfault at 0 ip %012x sp %012x error 4 in libtorch_cuda.so[%x+%x]" % (
                r.pid, 0x7f0000000000 + rng.getrandbits(36), 0x7ffc00000000 + rng.getrandbits(32), 0x7f0000000000 + rng.getrandbits(36), rng.getrandbits(24)), "dmesg")))
        return "\n".join(head + ["E   " + msg]), msg, bad
    if cause == "hang":
        named = rng.random() < 0.6
        lines = ["Timing out after 300 seconds and killing subprocesses."]
        if named:
            lines += ["Process %d timed out with traceback: " % bad, "",
                      "Current thread 0x00007f%08x (most recent call first):" % rng.getrandbits(32),
                      '  File "/opt/pytorch/pytorch/torch/distributed/distributed_c10d.py", line 3872 in barrier',
                      '  File "/opt/pytorch/pytorch/test/distributed/test_c10d_nccl.py", line %d in %s' % (rng.randint(300, 4000), t)]
        msg = "RuntimeError: Process 0 terminated or timed out after 300.%02d seconds" % rng.randint(0, 99)
        return "\n".join(lines + head + ["E   " + msg]), msg, bad
    # unknown
    msg = "AssertionError: Expect process %d exit code to match Process 0 exit code of 0, but got 1" % max(bad, 1)
    return "\n".join(head + ["E   " + msg]), msg, bad
