"""Layouts of the third independent generator (bench/blind3) that the replay misread: a
Kubernetes pod's log, named after the pod ("...-worker-4.log"), holds every rank of that node."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

_POD = "bert-pretrain-rbcv-worker-4"


def _pod_log() -> str:
    init = "".join(
        f"{_POD}:84368{r}:84449{r} [{r - 40}] NCCL INFO comm 0x5868ed2f2eb{r - 40} rank {r} nranks 64 cudaDev {r - 40} "
        f"nvmlDev {r - 40} busId {(r - 40) * 16 + 0x1a:x}000 commId 0xf7995f3cee3d8118 - Init COMPLETE\n" for r in range(40, 44))
    return (init
            + "Traceback (most recent call last):\n"
            + '  File "/workspace/pretrain_gpt.py", line 318, in train_step\n'
            + "    scaler.scale(loss).backward()\n"
            + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 15.62 GiB. GPU 1 has a total capacity of "
              "79.11 GiB of which 1597.36 MiB is free. Including non-PyTorch memory, this process has 77.55 GiB memory in use.\n"
            + "E0928 04:42:58.374000 140000050281937 torch/distributed/elastic/multiprocessing/api.py:826] failed "
              "(exitcode: 1) local_rank: 1 (pid: 843682) of binary: /usr/bin/python\n"
            + "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
            + "============================================================\n"
            + "pretrain_gpt.py FAILED\n"
            + "------------------------------------------------------------\n"
            + "Root Cause (first observed failure):\n"
            + "[0]:\n"
            + "  time      : 2024-09-28_04:42:54\n"
            + f"  host      : {_POD}.bert-pretrain-rbcv.default.svc.cluster.local\n"
            + "  rank      : 41 (local_rank: 1)\n"
            + "  exitcode  : 1 (pid: 843682)\n"
            + "  error_file: <N/A>\n"
            + "============================================================\n")


def test_a_pods_log_named_after_its_pod_is_the_nodes_and_its_oom_is_the_global_rank_torchrun_names(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {f"pods/{_POD}.log": _pod_log(),
                                  "pods/bert-pretrain-rbcv-master-0.log": "I0928 04:38:43 starting\n"}, ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.CUDA_OOM, 41)]
    assert got[0].node is not None and got[0].node.startswith(_POD)
