"""The fifty-first session's runs: a job whose torchrun agents on every node say their worker
groups finished well, with the py-spy dumps an operator took while it ran (snapshots of a live
job, no hang); TensorRT-LLM's words for a custom all-reduce on GPUs that cannot reach each
other's memory; dates written with slashes (Hugging Face's example scripts', MMEngine's) read as
the times they are; and a log attached twice read once."""

from __future__ import annotations

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

_AGENT = (
    "I0908 08:51:17.961000 {pid} torch/distributed/elastic/agent/server/api.py:685] [default] Starting worker group\n"
    "{middle}"
    "I0908 09:07:03.938000 {pid} torch/distributed/elastic/agent/server/api.py:879] [default] worker group successfully"
    " finished. Waiting 300 seconds for other agents to finish.\n"
    "I0908 09:07:03.938000 {pid} torch/distributed/elastic/agent/server/api.py:932] Local worker group finished"
    " (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish\n"
    "I0908 09:07:05.138000 {pid} torch/distributed/elastic/agent/server/api.py:946] Done waiting for other agents."
    " Elapsed: 1.0586 seconds\n")

_RESTART = ("W0908 08:58:01.000000 {pid} torch/distributed/elastic/agent/server/api.py:889] [default] Worker group FAILED."
            " 2/3 attempts left; will restart worker group\n")

_PYSPY = (
    "$ py-spy dump --native --pid {pid}\n"
    "Process {pid}: /usr/bin/python3 -u main.py --config configs/llama-7b.yaml\n"
    "Python v3.10.12 (/usr/bin/python3.10)\n"
    "\n"
    'Thread {pid} (idle): "MainThread"\n'
    "    c10::cuda::CUDAStream::synchronize (libc10_cuda.so)\n"
    "    synchronize (/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py:954)\n"
    "    train_step (/workspace/trainer.py:388)\n"
    "    main (/workspace/main.py:511)\n")


def _steps(rank: int) -> str:
    return "".join(f"2025-09-08 09:0{k}:57,961 | INFO | trainer | step {k * 100}/500 | loss 5.{k} | step_time 1.766s\n"
                   for k in range(1, 6))


def _run(agents: dict[str, str]) -> dict[str, str]:
    files: dict[str, str] = {}
    for n, (node, agent) in enumerate(agents.items()):
        files[f"launcher/{node}.log"] = agent
        for local in range(2):
            rank = 2 * n + local
            files[f"torchelastic/{node}/run1/attempt_0/{local}/stdout.log"] = _steps(rank)
            files[f"py-spy/{node}_rank{rank}.txt"] = _PYSPY.format(pid=700100 + rank)
    return files


def test_stack_dumps_of_a_job_whose_agents_all_finished_well_are_no_hang(tmp_path, ruleset: RuleSet) -> None:
    ok = {node: _AGENT.format(pid=765811 + i, middle="") for i, node in enumerate(("gpu-h100-004", "gpu-h100-006"))}
    assert incidents_of(tmp_path / "ok", _run(ok), ruleset) == []
    # one node's agent never said so: the dumps may be of its hung workers
    one = dict(ok, **{"gpu-h100-006": ok["gpu-h100-006"].split("I0908 09:07:03")[0]})
    seen = incidents_of(tmp_path / "one", _run(one), ruleset)
    assert seen and seen[0].cause is Cause.HANG


def test_a_group_that_an_agent_restarted_is_no_clean_finish(tmp_path, ruleset: RuleSet) -> None:
    # the agent restarted its workers once before they finished: what failed then is still read
    agents = {node: _AGENT.format(pid=765811 + i, middle=_RESTART.format(pid=765811 + i))
              for i, node in enumerate(("gpu-h100-004", "gpu-h100-006"))}
    seen = incidents_of(tmp_path, _run(agents), ruleset)
    assert seen and seen[0].cause is Cause.HANG


def test_tensorrt_llm_custom_all_reduce_without_peer_access(tmp_path, ruleset: RuleSet) -> None:
    out = (" ]# mpirun -n 2 --allow-run-as-root /app/tensorrt_llm/benchmarks/cpp/gptSessionBenchmark --engine_dir"
           " ./trt/fp16 --batch_size 8\n"
           "[TensorRT-LLM][ERROR] [TensorRT-LLM][ERROR] CUDA runtime error in error: peer access is not supported"
           " between these two devices\n")
    seen = incidents_of(tmp_path, {"console.log": out}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION
    assert any("peer access is not supported" in e for e in seen[0].evidence) and not seen[0].drain


def test_dates_with_slashes_are_times() -> None:
    from detector.sources.timestamps import parse_timestamp

    # Hugging Face's example scripts (month first; a first number past 12 is a day) and MMEngine's
    hf = parse_timestamp("07/14/2024 15:49:32 - INFO - __main__ - Distributed environment: MULTI_GPU")
    assert hf is not None and hf.time is not None and (hf.time.month, hf.time.day, hf.time.hour) == (7, 14, 15)
    day_first = parse_timestamp("25/12/2024 10:11:12 - INFO - __main__ - x")
    assert day_first is not None and day_first.time is not None and (day_first.time.month, day_first.time.day) == (12, 25)
    mm = parse_timestamp("2024/01/24 02:46:39 - mmengine - INFO - Epoch(train)  [83][  50/2693]")
    assert mm is not None and mm.time is not None and (mm.time.year, mm.time.month, mm.time.day) == (2024, 1, 24)
    assert parse_timestamp("13/13/2024 10:11:12 - INFO - x") is None
    # 5 March or 3 May: read only where the file's other dates say which number is the day
    assert parse_timestamp("05/03/2025 10:00:00 - INFO - train - x") is None
    march = parse_timestamp("05/03/2025 10:00:00 - INFO - train - x", day_first=True)
    assert march is not None and march.time is not None and (march.time.month, march.time.day) == (3, 5)


def test_an_earlier_process_app_fault_days_before_a_hugging_face_run(tmp_path, ruleset: RuleSet) -> None:
    # the run's lines carry Hugging Face's dates: the kernel's Xid 13, two days before its first
    # line and of another process, is the node's history
    kern = ("Jul 12 22:44:50 den-pc kernel: nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver\n"
            "Jul 12 22:44:56 den-pc kernel: NVRM: Xid (PCI:0000:01:00): 13, pid=215456, name=python, Graphics SM Warp"
            " Exception on (GPC 1, TPC 0, SM 0): Out Of Range Address\n")
    run = ("07/14/2024 15:49:32 - INFO - __main__ - Distributed environment: MULTI_GPU  Backend: nccl\n"
           "den-pc:169763:169823 [0] NCCL INFO comm 0x5581 rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE\n"
           "den-pc:169775:169830 [1] NCCL INFO comm 0x5582 rank 1 nranks 2 cudaDev 1 busId 2000 - Init COMPLETE\n"
           + "".join(f"07/14/2024 15:{50 + k}:10 - INFO - __main__ - epoch 0 step {k * 200} loss 1.{9 - k}\n"
                     for k in range(6)))
    assert incidents_of(tmp_path, {"syslog-kernel.txt": kern, "run.log": run}, ruleset) == []


def test_a_log_attached_twice_is_read_once(tmp_path, ruleset: RuleSet) -> None:
    from detector.replay import replay_path
    from tests.support.replaying import write_run

    # the same rank log under two names: read twice, its steps would stand still (each stamped
    # twice) and the run would read as stalled; it is read once, and the report says so
    steps = "".join(f"2024-10-11 22:{30 + k // 6:02d}:{(k % 6) * 10:02d},000 INFO step {2000 + k * 10} loss 2.{k % 10}"
                    f" step_time 10.0s\n" for k in range(40))
    files = {"gpu-node-022.log": steps, "copy_of_gpu-node-022.log": steps,
             "gpu-node-024.log": steps.replace("INFO", "INFO ")}
    report = replay_path(write_run(tmp_path, files), ruleset)
    assert any("copy_of_gpu-node-022.log: the same bytes as gpu-node-022.log" in w for w in report.warnings)
    assert list(report.incidents) == []


def test_a_hugging_face_stamp_is_its_own_lines_only(tmp_path, ruleset: RuleSet) -> None:
    from detector.replay import replay_path
    from tests.support.replaying import write_run

    # the logger stamps the setup; an hour of progress bars later the rank fails untimed: the
    # failure is not placed at the setup's minute
    log = ("10/22/2023 07:58:06 - WARNING - __main__ - Process rank: 0, device: cuda:0, n_gpu: 1\n"
           + "".join(f"{{'loss': 7.{k}, 'learning_rate': 1.000e-04, 'epoch': 0.0{k}}}\n" for k in range(9))
           + "  1%|          | 1300/129683 [0:54:58<90:28:27,  2.46s/it]\n"
           "[rank0]:[E ProcessGroupNCCL.cpp:565] [Rank 0] Watchdog caught collective operation timeout:"
           " WorkNCCL(SeqNum=63635, OpType=BROADCAST, NumelIn=4096, NumelOut=4096, Timeout(ms)=600000) ran for"
           " 600621 milliseconds before timing out.\n")
    report = replay_path(write_run(tmp_path, {"4802803-0.out": log}), ruleset)
    assert report.incidents
    assert all(e.time is None for i in report.incidents for e in i.evidence if "Watchdog" in e.text)


def test_a_build_without_libuv(tmp_path, ruleset: RuleSet) -> None:
    # (fresh51's Windows paste, behind a full-width colon: read healthy when it was scored)
    seen = incidents_of(tmp_path, {"console.log": "Error： RuntimeError: use_libuv was requested but PyTorch was build"
                                                  " without libuv support\n"}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION and not seen[0].drain


def test_nccl_s_last_error_names_a_network_transport(tmp_path, ruleset: RuleSet) -> None:
    # torch's DistBackendError with NCCL's internal error, then NCCL's last error echoed on its own
    # line: the GPUDirect-TCPX network plugin failed (a GKE A3 run; the paste cut the line)
    out = ("[5]:torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317,"
           " internal error - please report this issue to the NCCL developers, NCCL version 2.21.5\n"
           "[5]:ncclInternalError: Internal check failed.\n"
           "[5]:Last error:\n"
           "[5]:NET/GPUDirectTCPX failed t\n")
    seen = incidents_of(tmp_path, {"console.log": out}, ruleset)
    assert seen and seen[0].cause is Cause.NETWORK
