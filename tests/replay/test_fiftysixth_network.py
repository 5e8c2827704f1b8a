"""Network-looking lines that something else explains (found by a helper classifying the misses of
a blind generator of network-fabric failures, seeds 1-3):

- an InfiniBand port that NCCL saw go down and come straight back ("Got async event : port error",
  then "port active") in a log without times, with training going on after it for many steps, was
  taken for the initiator of a failure that came later (and the node drained) where a rank's own
  exception said what failed;
- with no line timed, peers' "completed with error ... (Remote unknown address)" from the network
  plugin outranked the CUDA OOM of the rank whose death they report."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

FLAP = [
    "30: dgx-b7:926292:927565 [6] transport/net_ib.cc:131 NCCL WARN NET/IB : mlx5_6:1 Got async event : port error",
    "30: dgx-b7:926292:927565 [6] transport/net_ib.cc:97 NCCL WARN NET/IB : mlx5_6:1 Got async event : port active",
]
KEYERROR = [
    " 9: [rank9]: Traceback (most recent call last):",
    ' 9: [rank9]:   File "/workspace/train.py", line 811, in <module>',
    " 9: [rank9]:     mask = batch['attention_mask']",
    " 9: [rank9]: KeyError: 'attention_mask'",
    "srun: error: dgx-b6: task 9: Exited with exit code 1",
    "srun: Job step aborted: Waiting up to 122 seconds for job step to finish.",
]


def _bar(step: int) -> str:
    return f" 0: Training:  {step // 120:2d}%|##        | {step}/12000 [1:{step % 60:02d}:58<15:20:00, 5.12s/it]"


def test_a_port_that_flapped_and_was_trained_through_is_not_the_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    lines = [_bar(1200), *FLAP, *(_bar(1210 + 10 * i) for i in range(9)), *KEYERROR]
    seen = incidents_of(tmp_path, {"slurm-8079110.out": "\n".join(lines) + "\n"}, ruleset)
    assert [(i.cause, i.rank, i.drain) for i in seen[:1]] == [(Cause.PYTHON_EXCEPTION, 9, False)], seen


def test_a_port_error_right_before_the_failure_still_counts(tmp_path: Path, ruleset: RuleSet) -> None:
    lines = [_bar(1200), *FLAP, _bar(1210), *KEYERROR]
    seen = incidents_of(tmp_path, {"slurm-8079110.out": "\n".join(lines) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.NETWORK, seen


NODE_A = """[default0]:[rank0]: step 4410 | loss 2.117 | lr 3.0e-04
[default2]:[rank2]: Traceback (most recent call last):
[default2]:[rank2]:   File "/opt/train/train.py", line 412, in <module>
[default2]:[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 2 has a total capacity of 44.39 GiB of which 1.27 GiB is free.
"""
NODE_B = """[default3]:libfabric:433998:1777841450::efa:cq:efa_rdm_txe_handle_error():737<warn> err: 21, message: Remote unknown address (peer lost or was restarted)
[default3]:ip-10-200-126-177:433998:434985 [3] nccl_net_ofi_rdma.cpp:2377 NCCL WARN NET/OFI Request 0x7fcf87c5c3e completed with error. RC: 21. Error: 21 (Remote unknown address). Completed length: 0
[default1]:ip-10-200-126-177:433992:434911 [1] nccl_net_ofi_rdma.cpp:2104 NCCL WARN NET/OFI Request 0x7f1e1989d59 completed with error. RC: 21. Error: 21 (Remote unknown address). Completed length: 0
"""


def test_untimed_peers_losses_do_not_outrank_the_death_they_report(tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path, {"logs/ip-10-200-126-176/torchrun.log": NODE_A,
                                   "logs/ip-10-200-126-177/torchrun.log": NODE_B}, ruleset)
    assert [(i.cause, i.rank, i.node) for i in seen[:1]] == [(Cause.CUDA_OOM, 2, "ip-10-200-126-176")], seen


DATA = Path(__file__).parent / "data" / "review56"


def test_a_node_whose_ranks_only_lost_their_peer_names_none_of_them(ruleset: RuleSet) -> None:
    """One node's console of a two-node torchrun job (a real run, gloo) whose failing rank was on the
    other node: its rank 0's all_reduce saw "Connection closed by peer", torchrun then sent SIGTERM
    to rank 1 only. A per-node sidecar named rank 0 at 0.75 ("the launcher ... not to this one: it
    had already ended"), above the remediation threshold (a sidecar tester); it ended first because
    its peer had."""
    from detector.replay import replay_path

    report = replay_path(DATA / "peer_on_another_node", ruleset)
    assert report.incidents, "the job failed"
    first = report.incidents[0]
    assert first.initiator.rank is None and first.confidence < 0.6, (first.initiator, first.confidence)


@pytest.mark.parametrize(("case", "cause", "rank"), [
    # two concurrent steps of a sweep: one's OOM and srun's exit, the other trained on to its end -
    # no restart between (no word of one, no line of the exited rank after it)
    ("sweep", Cause.CUDA_OOM, 0),
    # an InfiniBand error its own file printed before the exception of another rank there
    ("pp1_4", Cause.NETWORK, 1),
    # a cluster's events list a spot interruption of a node the job never ran on
    ("spot3", Cause.CUDA_OOM, 0),
    # a port's flap, one step of eight ranks (eight lines), then the network error of a rank
    ("flap8b", Cause.NETWORK, None),
])
def test_what_reviewers_found_the_changes_misread(ruleset: RuleSet, case: str, cause: Cause, rank: int | None) -> None:
    from detector.replay import replay_path

    report = replay_path(DATA / case, ruleset)
    assert report.incidents and report.incidents[0].cause is cause, [(i.cause, i.initiator) for i in report.incidents]
    if rank is not None:
        assert report.incidents[0].initiator.rank == rank
