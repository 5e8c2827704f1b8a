"""The forty-third session's failures told from what the logs give: a task slurmstepd could not
start, a Ray daemon's line naming its node, Open MPI's backtrace frames without their header, and
a rank's SIGKILL read together with the OOM killer's line for its process (dmesg -x in a folder of
node logs, a kernel clock in another zone)."""

from __future__ import annotations

from pathlib import Path

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of, write_run


def test_a_task_that_never_started_is_the_jobs_setup_error(tmp_path: Path, ruleset: RuleSet) -> None:
    # the module loaded in the batch script has no torchrun: slurmstepd cannot start the task
    out = [
        "NOTE: This module uses Singularity. Some commands execute inside the container",
        "slurmstepd: error: execve(): torchrun: No such file or directory",
        "srun: error: g1301: task 0: Exited with exit code 2",
        "srun: launch/slurm: _step_signal: Terminating StepId=3022331.0",
    ]
    report = replay_path(write_run(tmp_path / "run", {"slurm.out": "\n".join(out) + "\n"}), ruleset)
    first = report.incidents[0]
    assert first.cause is Cause.PYTHON_EXCEPTION and first.initiator.node == "g1301", first
    assert "failing to start (torchrun: No such file or directory)" in first.explanation, first.explanation
    assert not first.remediation.drain_node and "could not start torchrun" in first.remediation.fix


def test_a_raylet_line_forwarded_to_the_driver_names_its_node(tmp_path: Path, ruleset: RuleSet) -> None:
    out = [
        "(EngineCore_DP0 pid=322563) (RayWorkerWrapper pid=322780) [2025-12-12 15:10:48,710 E 322780 345750] "
        "raylet_client.cc:199: Error pushing mutable object: RpcError: RPC Error message: Socket closed; RPC Error "
        "details:  rpc_code: 14",
        "(EngineCore_DP0 pid=322563) (raylet, ip=172.27.221.101) [2025-12-12 15:10:48,697 C 42791 42791] (raylet) "
        "experimental_mutable_object_provider.cc:153:  An unexpected system state has occurred. You have likely "
        "discovered a bug in Ray. Please report this issue at https://github.com/ray-project/ray/issues and we'll "
        "work with you to fix it. Check failed: object_manager_->WriteAcquire(info.local_object_id, total_data_size, "
        "nullptr, total_metadata_size, info.num_readers, object_backing_store) Status not OK: ChannelError: Channel "
        "closed.",
    ]
    seen = incidents_of(tmp_path, {"vllm_serve.log": "\n".join(out) + "\n"}, ruleset)
    assert seen and seen[0].node == "172.27.221.101", seen


def test_open_mpi_backtrace_frames_alone_are_a_crash(tmp_path: Path, ruleset: RuleSet) -> None:
    # a paste cut before the signal handler's header: only the frames of two processes, interleaved
    out = [
        "[ip-172-16-146-215:00572] [ip-172-16-146-215:00574] [16] /lib/x86_64-linux-gnu/libc.so.6"
        "(_dl_catch_exception+0x6f)[0x7f7555ea651f]",
        "[ip-172-16-146-215:00572] [11] /lib64/ld-linux-x86-64.so.2(+0x10783)[0x7f97303aa783]",
        "[ip-172-16-146-215:00574] [18] /lib/x86_64-linux-gnu/libdl.so.2(+0x1745)[0x7f755591d745]",
        "[ip-172-16-146-215:00574] [19] /lib/x86_64-linux-gnu/libdl.so.2(dlopen+0x71)[0x7f755591d051]",
    ]
    seen = incidents_of(tmp_path, {"console.log": "\n".join(out) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.CRASH_SIGNAL and seen[0].node == "ip-172-16-146-215", seen


def _oom_lines(prefix: str, stamp: str, pid: int) -> list[str]:
    return [
        f"{prefix}{stamp} python invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, "
        "oom_score_adj=0",
        f"{prefix}{stamp} oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,"
        f"task_memcg=/,task=python,pid={pid},uid=1000",
        f"{prefix}{stamp} Out of memory: Killed process {pid} (python) total-vm:187764708kB, anon-rss:125176472kB, "
        "file-rss:71786kB, shmem-rss:0kB, UID:1000 pgtables:1043137kB oom_score_adj:0",
    ]


def test_a_decoded_dmesg_in_a_folder_of_node_logs_places_the_oom_kill(tmp_path: Path, ruleset: RuleSet) -> None:
    # dmesg -x (facility and level before each line) saved as dmesg/<node>.log; mpirun names the
    # killed process's pid, the one the kernel's OOM killer names
    out = [f"[1,0]<stdout>:[2024-03-05 06:4{s // 6}:{(s * 10) % 60:02d},573] [INFO] step={10 * s}, skipped=0"
           for s in range(1, 12)]
    out += [
        "--------------------------------------------------------------------------",
        "mpirun noticed that process rank 52 with PID 1147562 on node hgx051 exited on signal 9 (Killed).",
        "--------------------------------------------------------------------------",
    ]
    boot = ["kern  :info  : [Tue Mar  5 01:00:00 2024] nvidia: loading out-of-tree module taints kernel."]
    files = {"mpirun.log": "\n".join(out) + "\n",
             "dmesg/hgx051.log": "\n".join(boot + _oom_lines("kern  :err   : ", "[Tue Mar  5 06:43:44 2024]",
                                                             1147562)) + "\n",
             "dmesg/hgx050.log": "\n".join(boot) + "\n"}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen[0].cause is Cause.HOST_OOM_KILL and seen[0].rank == 52 and seen[0].node == "hgx051", seen


def test_an_oom_kill_logged_on_the_kernels_clock_in_another_zone(tmp_path: Path, ruleset: RuleSet) -> None:
    # the launcher's lines in UTC, the node's kernel log in local time eight hours behind: the
    # process the OOM killer names is the one torchrun saw die by SIGKILL
    out = [f"[2026-11-14 07:18:{s * 4:02d},000] [rank1]: step {s} loss 2.1" for s in range(12)]
    out += [
        "E1114 07:18:56.101000 3412300 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) "
        "local_rank: 1 (pid: 3412355) of binary: /usr/bin/python3",
    ]
    kernel = _oom_lines("", "Nov 13 23:18:56 ip-10-168-36-59 kernel:", 3412355)
    files = {"cell_output.txt": "\n".join(out) + "\n", "dmesg_ip-10-168-36-59.txt": "\n".join(kernel) + "\n"}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen[0].cause is Cause.HOST_OOM_KILL and seen[0].rank == 1, seen


def test_a_sigkill_with_an_oom_kill_of_another_node_stays_unknown(tmp_path: Path, ruleset: RuleSet) -> None:
    out = [f"[2026-11-14 07:1{s // 6}:{(s * 10) % 60:02d},000] [rank1]: step {s} loss 2.1" for s in range(12)]
    out += ["srun: error: node07: task 1: Killed"]
    kernel = _oom_lines("", "Nov 14 07:18:56 node09 kernel:", 3412355)
    files = {"slurm-77.out": "\n".join(out) + "\n", "dmesg_node09.txt": "\n".join(kernel) + "\n"}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen[0].cause is not Cause.HOST_OOM_KILL or seen[0].node == "node09", seen


def test_a_ray_tasks_unhandled_error_cut_before_its_exception_is_a_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    # the paste stops inside the traceback Ray printed for the actor's error: the job failed,
    # though nothing says with what
    out = [
        "(WorkerDict pid=29197) NCCL version 2.21.5+cuda12.4",
        "(Runner pid=28043) Unhandled error (suppress with 'RAY_IGNORE_UNHANDLED_ERRORS=1'): "
        "ray::WorkerDict.ref_init_model() (pid=29553, ip=33.138.51.184, actor_id=0c3a364985088d7067d3e18f01000000)",
        '(Runner pid=28043)   File "/ws/verl/single_controller/ray/base.py", line 432, in func',
        "(Runner pid=28043)     return getattr(self.worker_dict[key], name)(*args, **kwargs)",
        '(Runner pid=28043)   File "/ws/verl/workers/fsdp_workers.py", line 230, in _build_model_optimizer',
        "(Runner pid=28043)     dist.barrier()",
    ]
    seen = incidents_of(tmp_path, {"ray_driver.log": "\n".join(out) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.UNKNOWN, seen


def test_a_launcher_that_names_the_crashed_rank_places_the_kill(tmp_path: Path, ruleset: RuleSet) -> None:
    out = [f"[batch={s}/3000]: Train loss/train/total: 1.2{s % 10}" for s in range(1, 40)]
    out += ["ERROR:composer.cli.launcher:Rank 7 crashed with exit code -9.",
            "ERROR:composer.cli.launcher:Global rank 0 (PID 904) exited with code -15"]
    seen = incidents_of(tmp_path, {"console.txt": "\n".join(out) + "\n"}, ruleset)
    assert seen and seen[0].rank == 7, seen


def test_a_ranks_own_fault_and_the_kernels_on_an_unplaced_node_are_one_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    # mpirun's tagged lines name rank 31 but no host; the kernel log of gpu-a100-111 (a folder of
    # node logs, dmesg -x) holds the Xid of the same moment
    out = [f"[1,{r}]<stdout>:[2025-03-25 23:5{s // 6}:{(s * 10) % 60:02d},000] [INFO] step={s}" for s in range(30) for r in (0, 31)]
    out[:0] = ["[1,0]<stdout>:gpu-a100-108:1753001:1753001 [0] NCCL INFO cudaDriverVersion 12020",
               "[1,8]<stdout>:gpu-a100-109:1753101:1753101 [0] NCCL INFO cudaDriverVersion 12020"]
    out += ["[1,31]<stderr>:[2025-03-25 23:55:25,039] [rank31]: RuntimeError: CUDA error: uncorrectable NVLink error "
            "detected during the execution"]
    kernel = ["kern  :info  : [Tue Mar 25 20:00:00 2025] nvidia-nvlink: Nvlink Core is being initialized",
              "kern  :info  : [Tue Mar 25 20:00:01 2025] nvidia 0000:bd:00.0: enabling device (0000 -> 0002)",
              "kern  :warn  : [Tue Mar 25 23:55:25 2025] NVRM: Xid (PCI:0000:bd:00): 74, pid=1753926, name=python, NVLink: "
              "fatal error detected on link 14(0x0, 0x0, 0x100000, 0x0, 0x0, 0x0, 0x0)"]
    files = {"mpirun.log": "\n".join(out) + "\n", "dmesg/gpu-a100-111.log": "\n".join(kernel) + "\n",
             "dmesg/gpu-a100-108.log": "\n".join(kernel[:2]) + "\n"}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen[0].cause is Cause.NVLINK and seen[0].rank == 31 and seen[0].node == "gpu-a100-111", seen
    assert len([s for s in seen if s.cause is Cause.NVLINK]) == 1, seen
