"""The twenty-third session's cases: Ray Train's controller retrying a worker group that could not
start and then training on; NCCL failing to free a communicator as vLLM's workers destroy their
process groups after the work finished."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import causes_of

RAY = "\x1b[36m(TrainController pid=152042)\x1b[0m "
WORKER = "\x1b[36m(RayTrainWorker pid=3684, ip=10.0.103.116)\x1b[0m "


def _ray_train(after: str) -> str:
    head = [RAY + "[State Transition] INITIALIZING -> SCHEDULING.",
            RAY + "[FailurePolicy] RETRY",
            RAY + "  Source: controller",
            RAY + "Error: Training failed due to controller error:",
            RAY + "The worker group startup timed out after 60.0 seconds waiting for 2 workers.",
            RAY + "Traceback (most recent call last):",
            RAY + '  File "/opt/ray/train/v2/_internal/execution/controller/controller.py", line 414, in _start_worker_group',
            RAY + "    self._worker_group = self.worker_group_cls.create(",
            RAY + '  File "/opt/ray/train/v2/_internal/execution/worker_group/worker_group.py", line 299, in _start_impl',
            RAY + "    raise WorkerGroupStartupTimeoutError(",
            RAY + "ray.train.ControllerError: Training failed due to controller error:",
            RAY + "The worker group startup timed out after 60.0 seconds waiting for 2 workers.",
            after,
            RAY + "[State Transition] RESCHEDULING -> SCHEDULING.",
            RAY + "[State Transition] SCHEDULING -> RUNNING."]
    steps = [WORKER + f"{{'loss': {2.0 - i / 100:.3f}, 'learning_rate': 1e-05, 'epoch': {i / 40:.3f}}}" for i in range(40)]
    return "\n".join(head + steps) + "\n"


def test_ray_train_retrying_a_worker_group_that_then_trains_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    log = _ray_train(RAY + "[State Transition] SCHEDULING -> RESCHEDULING.")
    assert causes_of(tmp_path / "retried", {"train.log": log}, ruleset) == []
    # (without the controller's retry, the same error is the run's failure)
    got = causes_of(tmp_path / "failed", {"train.log": _ray_train(RAY + "[State Transition] SCHEDULING -> ERRORED.")}, ruleset)
    assert got[:1] == [Cause.PYTHON_EXCEPTION]


VLLM = "\x1b[36m(MapWorker(MapBatches(vLLMEngineStageUDF)) pid=3192, ip=10.0.49.196)\x1b[0m "


def _teardown(rank: int, frames: list[str]) -> list[str]:
    me = VLLM + f"\x1b[1;36m(VllmWorker rank={rank} pid={3400 + rank})\x1b[0;0m "
    return [me + "Traceback (most recent call last):",
            me + '  File "/opt/vllm/v1/executor/multiproc_executor.py", line 287, in shutdown',
            me + "    destroy_model_parallel()",
            *[me + f for f in frames],
            me + "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:133, "
                 "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
            me + "ncclUnhandledCudaError: Call to CUDA function failed.",
            me + "Last error:",
            me + "Cuda failure 'out of memory'"]


def test_nccl_failing_as_the_process_groups_are_destroyed_is_the_shutdown_s(tmp_path: Path, ruleset: RuleSet) -> None:
    destroy = ['  File "/opt/torch/distributed/distributed_c10d.py", line 2168, in destroy_process_group',
               "    _shutdown_backend(pg)",
               '  File "/opt/torch/distributed/distributed_c10d.py", line 1815, in _shutdown_backend',
               "    backend._shutdown()"]
    done = ["2025-04-29 15:42:40,080\tINFO streaming_executor.py:218 -- Dataset dataset_36_0 execution finished in 686.56 seconds",
            VLLM + "Shutting down vLLM engine"]
    log = "\n".join(done + _teardown(3, destroy) + _teardown(2, destroy)) + "\n"
    assert causes_of(tmp_path / "teardown", {"train.log": log}, ruleset) == []
    # (the same error in a collective of the work itself stays the cause)
    working = ['  File "/opt/torch/distributed/distributed_c10d.py", line 2501, in all_reduce',
               "    work = group.allreduce([tensor], opts)"]
    log = "\n".join(done[:1] + _teardown(3, working)) + "\n"
    assert causes_of(tmp_path / "working", {"train.log": log}, ruleset)[:1] == [Cause.CUDA_OOM]
