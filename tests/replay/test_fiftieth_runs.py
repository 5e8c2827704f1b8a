"""The fiftieth session's runs: a job its orchestrator says ended well (a Kubernetes training
operator's word that it completed successfully, Slurm's accounting of every step COMPLETED 0:0)
whose pods or ranks printed alarming lines on the way; and an out-of-memory error a program caught
and retried with a smaller batch, read on the exception's own line as much as the allocator's."""

from __future__ import annotations

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

_CAUGHT_OOM = (
    "{p}[2024-05-03 22:05:14] eval: CUDA OOM at eval batch size 128; emptying cache and retrying with 64\n"
    "{p}Traceback (most recent call last):\n"
    '{p}  File "/workspace/eval_utils.py", line 108, in run_eval\n'
    "{p}    logits = model(batch)\n"
    "{p}torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 6; 79.15 GiB total"
    " capacity; 74.37 GiB already allocated; 1.06 GiB free; 78.26 GiB reserved in total by PyTorch)\n")


def _steps(prefix: str, first: int, last: int, minute: int) -> str:
    return "".join(f"{prefix} [2024-05-03 22:{minute + k:02d}:16] iteration {it:8d}/   16600 | elapsed time per iteration"
                   f" (ms): 578.1 | lm loss: 2.{k}\n" for k, it in enumerate(range(first, last + 1, 200)))


def test_an_oom_caught_and_retried_with_a_smaller_batch_is_no_failure(tmp_path, ruleset: RuleSet) -> None:
    # the exception's own line (torch.cuda.OutOfMemoryError: ...) is read as well as the
    # allocator's; training went on for steps after it and completed
    out = (_steps("0:", 15400, 15800, 0) + _CAUGHT_OOM.format(p="0: ") + _steps("0:", 16000, 16600, 6)
           + "0: [after training is done] datetime: 2024-05-03 22:11:04\n"
           + "0:   successfully saved checkpoint from iteration    16600 to /checkpoints/gpt\n")
    assert incidents_of(tmp_path, {"slurm-2209017.out": out}, ruleset) == []


def test_an_oom_caught_then_the_run_stopping_is_still_the_failure(tmp_path, ruleset: RuleSet) -> None:
    # the same words, but nothing ran after it: the retry did not save the run
    out = _steps("0:", 15400, 15800, 0) + _CAUGHT_OOM.format(p="0: ")
    seen = incidents_of(tmp_path, {"slurm-2209017.out": out}, ruleset)
    assert seen and seen[0].cause is Cause.CUDA_OOM
