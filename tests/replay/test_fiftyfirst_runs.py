"""The fifty-first session's runs: a job whose torchrun agents on every node say their worker
groups finished well, with the py-spy dumps an operator took while it ran (snapshots of a live
job, no hang); and TensorRT-LLM's words for a custom all-reduce on GPUs that cannot reach each
other's memory."""

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

