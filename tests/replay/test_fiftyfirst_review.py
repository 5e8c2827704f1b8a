"""Run folders helper reviewers built against the fifty-first session's changes, where a new
reading had turned a right diagnosis wrong (each mended): a Neuron rank's only failure, XRT's
"Bad StatusOr access" exception over a runtime status no rule names (bad input, NaN, a plain
failure), read as no exception of its own; an HCCL collective's failure with a result that is the
rank's own (a driver's, a parameter's) read as a peer's; dates a logger writes day first read
month first; and torchrun's agents' word that their workers finished taken for a later hang, a
second launch's or a later program's failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.types import Cause

DATA = Path(__file__).parent / "data" / "review51"


@pytest.mark.parametrize(("run", "cause", "rank"), [
    # torch-neuronx 1.13 (XRT): rank 5's exception over status 1003 (NaN), then torchrun's teardown
    ("neuron_xrt_torch113", Cause.PYTHON_EXCEPTION, 5),
    # rank 2's status 1002 (bad input) two minutes before the others' collectives give up
    ("neuron_bad_input_ranks", Cause.PYTHON_EXCEPTION, 2),
    # rank 2's status 1 (a failure) first
    ("neuron_status1_ranks", Cause.PYTHON_EXCEPTION, 2),
    # rank 2's HCCL call fails with result 16 (the driver), the others time out half an hour later
    ("hccl_drv_rank2", Cause.PYTHON_EXCEPTION, 2),
    # every rank's HCCL call fails with result 1 (a parameter): the program's, read from rank 0
    ("hccl_para_all_ranks", Cause.PYTHON_EXCEPTION, 0),
    # a logger that writes the day first ("05/03/2025": 5 March), every date's day 12 or less: the
    # dates are not read as 3 May, which had put the Xid 79 two months before the run
    ("dayfirst_xid", Cause.GPU_HARDWARE, 2),
    ("dayfirst_xid_torch21", Cause.GPU_HARDWARE, 2),
    # one node's agent finished, then waited at the exit barrier in vain: another's workers had not
    ("exit_barrier_hang", Cause.HANG, None),
    # a first torchrun finished, a second one in the same console hung (stopped with Ctrl-C)
    ("two_launches_second_hung", Cause.HANG, 2),
    # the training's torchrun finished; an evaluation run after it ran out of GPU memory
    ("train_ok_eval_crash", Cause.CUDA_OOM, 0),
])
def test_review51_runs(run: str, cause: Cause, rank: int | None, ruleset: RuleSet) -> None:
    report = replay_path(DATA / run, ruleset)
    assert report.incidents, run
    first = report.incidents[0]
    assert first.cause is cause and first.initiator.rank == rank, (run, first.cause, first.initiator.rank)


def test_hugging_face_dates_and_a_teardown_proxy_warning_are_no_failure(ruleset: RuleSet) -> None:
    # (blind38's run: Hugging Face's dated lines, then "Training completed", then NCCL's proxy
    # service complaining as the ranks exit; the dates now read give a pause of the progress bar
    # that training resumed after, which is no failure beside the proxy's words either)
    assert list(replay_path(DATA / "hf_dates_proxy_teardown", ruleset).incidents) == []
