"""The twenty-sixth session's cases: a benchmark that said it succeeded and then kept one rank
alive at its exit until the scheduler stopped it (a hang at exit, on that rank, while the same
ending without the wait, or with every rank still running, stays no failure), and NVIDIA Fabric
Manager's own report of an NVSwitch error."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import causes_of, incidents_of

SUCCESS = ('0: :::MLLOG {"namespace": "", "time_ms": 1745977418094, "event_type": "INTERVAL_END", '
           '"key": "run_stop", "value": null, "metadata": {"file": "/workspace/ssd/engine.py", "lineno": 315, '
           '"status": "success"}}\n')


def _run(cancelled_at: str, tasks: str = "task 0") -> str:
    body = "".join(f"0: :::MLLOG {{\"namespace\": \"\", \"time_ms\": {1745976000000 + i * 60000}, "
                   f"\"event_type\": \"POINT_IN_TIME\", \"key\": \"eval_accuracy\", \"value\": 0.{30 + i}, "
                   f"\"metadata\": {{\"epoch_num\": {i}}}}}\n" for i in range(20))
    return (body + SUCCESS
            + "0: [rank0]:[W430 01:43:43.006177095 ProcessGroupNCCL.cpp:1477] Warning: WARNING: destroy_process_group()"
              " was not called before program exit, which can leak resources. (function operator())\n"
            + f"0: slurmstepd: error: *** STEP 152.13 ON gpu-153 CANCELLED AT 2025-04-30T{cancelled_at} DUE TO TIME LIMIT ***\n"
            + f"srun: error: gpu-153: {tasks}: Terminated\n"
            + "srun: Force Terminated StepId=152.13\n")


def test_one_rank_held_open_for_minutes_after_success_is_a_hang_on_it(tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path / "held", {"result_0.txt": _run("01:52:49")}, ruleset)
    assert seen and seen[0].cause is Cause.HANG and seen[0].rank == 0 and seen[0].node == "gpu-153", seen


def test_the_time_limit_right_after_the_success_stays_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    # the allocation ran out seconds after the run ended: not a rank holding its exit
    assert causes_of(tmp_path / "end", {"result_0.txt": _run("01:43:50")}, ruleset) == []


def test_every_rank_stopped_after_the_success_stays_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    # the whole step was still running: no one rank held it
    assert causes_of(tmp_path / "all", {"result_0.txt": _run("01:52:49", "tasks 0-7")}, ruleset) == []


def test_fabric_managers_fatal_nvswitch_error_is_an_nvlink_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("[Jul 23 2024 07:53:00] [INFO] [tid 841] multicast group 0 is allocated.\n"
            "[Jul 23 2024 07:53:55] [ERROR] [tid 841] detected NVSwitch fatal error 20034 on fid 0 on NVSwitch "
            "pci bus id 00000000:86:00.0 physical id 3 port 33\n")
    assert causes_of(tmp_path / "fm", {"fabricmanager.log": text}, ruleset)[:1] == [Cause.NVLINK]


def test_fabric_managers_non_fatal_nvswitch_error_alone_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("[Feb 27 2025 15:10:02] [ERROR] [tid 12727] detected NVSwitch non-fatal error 12028 on fid 0 on "
            "NVSwitch pci bus id 00000000:86:00.0 physical id 3 port 61\n")
    assert causes_of(tmp_path / "fm", {"fabricmanager.log": text}, ruleset) == []


def _mllog(key: str, ms: int, value: str = "null", extra: str = "") -> str:
    return (f':::MLLOG {{"namespace": "", "time_ms": {ms}, "event_type": "POINT_IN_TIME", "key": "{key}", '
            f'"value": {value}, "metadata": {{"file": "/workspace/unet3d/runtime/training.py", "lineno": 80{extra}}}}}\n')


def _started(evals: int) -> str:
    return (_mllog("init_start", 1621350000000) + _mllog("run_start", 1621350100000)
            + "".join(_mllog("eval_accuracy", 1621350200000 + i * 60000, f"0.{80 + i}", f', "epoch_num": {20 * i}')
                      for i in range(evals)))


def test_a_benchmark_run_that_started_and_never_stopped_is_an_unknown_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path / "cut", {"result_40.txt": _started(12)}, ruleset)
    assert [i.cause for i in seen] == [Cause.UNKNOWN] and seen[0].rank is None, seen


def test_the_same_run_with_its_run_stop_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    text = _started(12) + _mllog("run_stop", 1621351000000, "null", ', "status": "success"')
    assert causes_of(tmp_path / "done", {"result_40.txt": text}, ruleset) == []
    aborted = _started(12) + _mllog("run_stop", 1621351000000, "null", ', "status": "aborted"')
    assert causes_of(tmp_path / "aborted", {"result_40.txt": aborted}, ruleset) == []


def test_a_run_cut_by_a_terminals_ctrl_c_is_stopped_from_outside(tmp_path: Path, ruleset: RuleSet) -> None:
    assert causes_of(tmp_path / "ctrl-c", {"result_0.txt": _started(12) + "^C^Z\n"}, ruleset) == [Cause.PREEMPTION]


def test_an_unfinished_run_that_failed_is_told_by_its_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    text = _started(12) + ("Traceback (most recent call last):\n  File \"/workspace/unet3d/main.py\", line 40, in <module>\n"
                           "    main()\nKeyError: 'packed_input_len'\n")
    assert causes_of(tmp_path / "raised", {"result_0.txt": text}, ruleset)[:1] == [Cause.PYTHON_EXCEPTION]


def test_a_time_limit_that_came_before_the_success_is_what_ended_the_job(tmp_path: Path, ruleset: RuleSet) -> None:
    # the scheduler was ending the step while the run still ran; its success came in the grace period
    text = (_started(12)
            + " 0: slurmstepd: error: *** STEP 364.20 ON worker-3 CANCELLED AT 2025-09-30T10:11:26 DUE TO TIME LIMIT ***\n"
            + _mllog("run_stop", 1621351000000, "null", ', "status": "success"')
            + "srun: error: worker-3: tasks 0-7: Terminated\nsrun: error: worker-1: tasks 8-15: Terminated\n")
    assert causes_of(tmp_path / "grace", {"result_2.txt": text}, ruleset)[:1] == [Cause.PREEMPTION]
    after = (_started(12) + _mllog("run_stop", 1621351000000, "null", ', "status": "success"')
             + "slurmstepd: error: *** STEP 364.20 ON worker-3 CANCELLED AT 2025-09-30T10:11:26 DUE TO TIME LIMIT ***\n")
    assert causes_of(tmp_path / "after", {"result_2.txt": after}, ruleset) == []


def _exception(prefix: str = "") -> str:
    return (f"{prefix}Traceback (most recent call last):\n{prefix}  File \"/workspace/bert/run_pretraining.py\", line 40, in <module>\n"
            f"{prefix}    files = os.listdir(args.input_dir)\n"
            f"{prefix}FileNotFoundError: [Errno 2] No such file or directory: '/workspace/data_phase2'\n")


def _table(failures: list[int], root: int, host: str = "node049.cm.cluster") -> str:
    def entry(i: int, rank: int) -> str:
        return (f"[{i}]:\n  time      : 2023-04-19_22:12:36\n  host      : {host}\n  rank      : {rank} (local_rank: {rank})\n"
                f"  exitcode  : 1 (pid: {250 + rank})\n  error_file: <N/A>\n"
                "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n")
    return ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n" + "=" * 60 + "\n"
            "./run_and_time.sh FAILED\n" + "-" * 60 + "\nFailures:\n"
            + "".join(entry(i + 1, r) for i, r in enumerate(failures)) + "-" * 60 + "\n"
            "Root Cause (first observed failure):\n" + entry(0, root) + "=" * 60 + "\n")


def test_the_same_exception_on_every_rank_is_the_root_cause_ranks(tmp_path: Path, ruleset: RuleSet) -> None:
    # every rank printed it, the lines name none; torchelastic's table lists its root cause last
    text = _exception() * 4 + _table([1, 2, 3], root=0)
    seen = incidents_of(tmp_path / "table", {"output.txt": text}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION and seen[0].rank == 0, seen


def test_ranked_copies_of_one_exception_go_to_the_root_cause_rank_even_alone_in_the_table(tmp_path: Path,
                                                                                        ruleset: RuleSet) -> None:
    # ranks 1, 3 and 2 printed it in that order; the table's only entry (the others were stopped) is rank 2
    text = "".join(_exception(f"[rank{r}]: ") for r in (1, 3, 2, 0)) + _table([], root=2, host="7ef2312ba661")
    seen = incidents_of(tmp_path / "alone", {"train.log": text}, ruleset)
    assert seen and seen[0].rank == 2, seen


def test_srun_refusing_a_step_the_allocation_cannot_hold_is_a_configuration_error(tmp_path: Path,
                                                                                 ruleset: RuleSet) -> None:
    text = ("+ srun --mpi=pmix --ntasks=8 --ntasks-per-node=8 all_reduce_perf_mpi -b 51.2M -e 51.2M -d half -G 1\n"
            "srun: error: Unable to create step for job 551: More processors requested than permitted\n")
    assert causes_of(tmp_path / "step", {"nccl.log": text}, ruleset) == [Cause.PYTHON_EXCEPTION]


def test_condas_activate_error_in_a_batch_script_is_not_the_jobs_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    bars = "".join(f"{i * 2}%|▏         | {i}/50 [{i * 10}:31<8:35:20, 631.04s/it]" for i in range(1, 12))
    text = ("\nCommandNotFoundError: Your shell has not been properly configured to use 'conda activate'.\n"
            "To initialize your shell, run\n\n    $ conda init <SHELL_NAME>\n\n"
            + bars + "slurmstepd: error: *** JOB 42221 ON clr1247 CANCELLED AT 2022-04-14T16:20:46 DUE TO TIME LIMIT ***\n")
    seen = incidents_of(tmp_path / "conda", {"SOAP_42.e": text}, ruleset)
    assert [i.cause for i in seen] == [Cause.PREEMPTION] and seen[0].node == "clr1247", seen


def test_rays_unhandled_error_header_places_the_traceback_under_it_on_its_node(tmp_path: Path,
                                                                             ruleset: RuleSet) -> None:
    text = ("(pid=9454, ip=10.164.0.9) jax runtime initialization starting\n"
            "2021-07-09 12:11:59,794 ERROR worker.py:78 -- Unhandled error (suppress with RAY_IGNORE_UNHANDLED_ERRORS=1): "
            "ray::NetworkRunner.run() (pid=9454, ip=10.164.0.9)\n"
            '  File "python/ray/_raylet.pyx", line 501, in ray._raylet.execute_task\n'
            '  File "/home/user/mesh-transformer-jax/mesh_transformer/train_actor.py", line 24, in run\n'
            "TypeError: __new__() missing 1 required positional argument: 'loops'\n")
    seen = incidents_of(tmp_path / "ray", {"issue-log.txt": text}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION and seen[0].node == "10.164.0.9", seen


def test_without_a_table_the_ranks_pointed_at_still_decide_among_copies(tmp_path: Path, ruleset: RuleSet) -> None:
    init = "".join(f"[rank{r}]:node07:{100 + r}:{100 + r} [{r}] NCCL INFO comm 0x55d0c8a{r} rank {r} nranks 4 cudaDev {r} "
                   f"busId {r + 1}8000 - Init COMPLETE\n" for r in range(4))
    closed = "".join(f"[rank{r}]:node07:{100 + r}:{200 + r} [{r}] NCCL INFO [Service thread] Connection closed by localRank 2\n"
                     for r in (0, 1, 3))
    copies = "".join(f"[rank{r}]: Traceback (most recent call last):\n[rank{r}]:   File \"train.py\", line 10, in <module>\n"
                     f"[rank{r}]:     step()\n[rank{r}]: ValueError: expected a tensor of shape 4 but got 5\n" for r in (1, 3, 2, 0))
    seen = incidents_of(tmp_path / "vote", {"train.log": init + closed + copies}, ruleset)
    assert seen and seen[0].rank == 2, seen


def test_a_table_cut_after_its_header_does_not_read_an_srun_task_as_its_root(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("".join(_exception(f"[rank{r}]: ") for r in (5, 1, 6, 0, 2, 3, 4, 7))
            + "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n" + "=" * 60 + "\n"
            + "./run_and_time.sh FAILED\n" + "-" * 60 + "\nFailures:\n  <NO_OTHER_FAILURES>\n" + "-" * 60 + "\n"
            + "Root Cause (first observed failure):\n"
            + "srun: error: nodeB: task 1: Exited with exit code 1\nsrun: error: nodeA: task 0: Terminated\n")
    seen = incidents_of(tmp_path / "cut", {"train.log": text}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION and seen[0].node != "nodeB", seen


def test_two_agents_tables_the_first_printed_root_cause_wins_a_tie(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("".join(_exception(f"[rank{r}]: ") for r in (0, 2, 1, 3))
            + _table([0], root=1, host="nodeA") + _table([2], root=3, host="nodeB"))
    seen = incidents_of(tmp_path / "two", {"train.log": text}, ruleset)
    assert seen and seen[0].rank == 1, seen


def test_a_time_limit_seconds_after_the_success_stamp_stays_no_failure_without_other_stamps(tmp_path: Path,
                                                                                          ruleset: RuleSet) -> None:
    # nothing after the success carries a stamp but the success itself (time_ms, 01:43:38 UTC)
    text = _run("01:43:43").replace(
        "0: [rank0]:[W430 01:43:43.006177095 ProcessGroupNCCL.cpp:1477] Warning: WARNING: destroy_process_group()"
        " was not called before program exit, which can leak resources. (function operator())\n", "")
    assert "destroy_process_group" not in text
    assert causes_of(tmp_path / "soon", {"result_0.txt": text}, ruleset) == []
    later = text.replace("CANCELLED AT 2025-04-30T01:43:43", "CANCELLED AT 2025-04-30T01:52:49")
    assert causes_of(tmp_path / "later", {"result_0.txt": later}, ruleset) == [Cause.HANG]


def test_a_file_without_run_stop_beside_one_that_holds_it_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    done = _started(12) + _mllog("run_stop", 1621351000000, "null", ', "status": "success"')
    assert causes_of(tmp_path / "two", {"result_0.txt": done, "result_1.txt": _started(3)}, ruleset) == []


def test_dcgm_diags_failed_memory_test_is_a_memory_fault_and_a_pass_is_not(tmp_path: Path, ruleset: RuleSet) -> None:
    row = "| {:<25} | {:<46} |\n"
    failed = (row.format("GPU Memory", "Pass - GPUs: 1, 2, 3, 4, 5, 6, 7") + row.format("", "Fail - GPU: 0")
              + row.format("Warning", "GPU 0 Thermal violations totaling 13.3 second"))
    assert causes_of(tmp_path / "fail", {"dcgmi-diag.txt": failed}, ruleset) == [Cause.ECC_MEMORY]
    passed = row.format("GPU Memory", "Pass - All") + row.format("PCIe", "Pass - All")
    assert causes_of(tmp_path / "pass", {"dcgmi-diag.txt": passed}, ruleset) == []


def test_dcgm_nvlink_status_with_links_down_is_an_nvlink_fault(tmp_path: Path, ruleset: RuleSet) -> None:
    head = "dcgmi nvlink --link-status\n+----------------------+\n|  NvLink Link Status  |\n+----------------------+\nGPUs:\n"
    tail = "NvSwitches:\n    No NvSwitches found.\n\nKey: Up=U, Down=D, Disabled=X, Not Supported=_\n"
    down = head + "    gpuId 0:\n        U U U U D U U U U U U U U U U U U U\n    gpuId 1:\n        " + "U " * 17 + "U\n" + tail
    assert causes_of(tmp_path / "down", {"links.txt": down}, ruleset) == [Cause.NVLINK]
    up = head + "".join(f"    gpuId {g}:\n        " + "U " * 17 + "U\n" for g in range(2)) + tail
    assert causes_of(tmp_path / "up", {"links.txt": up}, ruleset) == []


def test_a_software_rdma_devices_missing_sysfs_path_is_not_a_network_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    pre = "[2025-11-04 14:03:26] DESKTOP-M211L3D:{pid}:{pid} [0] "
    text = "".join((pre + "transport/net_ib.cc:472 NCCL WARN Could not find real path of bluerdma{d} "
                    "(/sys/class/infiniband/bluerdma{d}/device)\n").format(pid=47227 + r, d=d) for r in (0, 1) for d in (0, 1))
    text += "".join((pre + "init.cc:737 NCCL WARN Duplicate GPU detected : rank {r} and rank {p} both on CUDA device 1000\n")
                    .format(pid=47227 + r, r=r, p=1 - r) for r in (1, 0))
    text += "Failed, NCCL error example.cpp:62 'invalid usage (run with NCCL_DEBUG=WARN for details)'\n"
    assert causes_of(tmp_path / "dup", {"test_two.log": text}, ruleset)[:1] == [Cause.PYTHON_EXCEPTION]


def test_pals_refused_by_a_nodes_slingshot_nic_is_that_nodes_network(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("start failed on x3006c0s1b1n0: CXI alloc failed on cxi0: request exceeds ACs limits\n"
            "CXI alloc failed on cxi1: request exceeds ACs limits\n")
    seen = incidents_of(tmp_path / "cxi", {"allgather.out": text}, ruleset)
    assert seen and seen[0].cause is Cause.NETWORK and seen[0].node == "x3006c0s1b1n0", seen
