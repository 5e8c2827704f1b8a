"""The thirty-first session's reading: a log platform's records one per line (Cloud Logging's
sinks write JSON lines whose text is ``textPayload`` or ``jsonPayload.message``), a logger's own
rank field ("stamp - LEVEL - logger - [rank N]", "[stamp][rankN]", "stamp rank=N"), a straggler in
a log that prints its timings too rarely for windows of steps, a node's torchrun log whose
"[defaultN]:" lines are global ranks past the node's first, and the lines of a process's exit
that are no failure."""

from __future__ import annotations

import json
from pathlib import Path

from detector.rules.engine import RuleSet
from detector.sources.prefixes import strip_prefix
from detector.types import Cause
from tests.support.replaying import incidents_of


def _record(text: str, *, pod: str, node: str, when: str, structured: bool = False) -> str:
    record: dict[str, object] = {
        "insertId": "22fa5924691d5109",
        "labels": {"compute.googleapis.com/resource_name": node},
        "logName": "projects/acme/logs/stderr",
        "resource": {"labels": {"cluster_name": "gpu-cluster-1", "container_name": "trainer",
                                "pod_name": pod}, "type": "k8s_container"},
        "severity": "ERROR",
        "timestamp": when,
    }
    if structured:
        record["jsonPayload"] = {"message": text, "python_logger": "train"}
    else:
        record["textPayload"] = text
    return json.dumps(record)


def test_a_cloud_logging_record_per_line_is_read_as_its_text(tmp_path: Path, ruleset: RuleSet) -> None:
    """Before, a JSON line with neither "log" nor "message" at its top was no record: the rank
    prefix inside textPayload was never read, nor the record's time (the run had 0 ranks)."""
    line = _record("[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
                   "GPU 3 has a total capacity of 79.10 GiB of which 1.06 GiB is free.",
                   pod="job-workers-0-1-abcde", node="gke-pool-7e9ef7f1-gf8m", when="2025-04-21T09:04:53.571581840Z")
    pre = strip_prefix(line)
    assert pre.rank == 3, pre
    assert pre.message.startswith("2025-04-21T09:04:53.571581Z torch.OutOfMemoryError"), pre.message
    assert pre.host == "gke-pool-7e9ef7f1-gf8m", pre
    rows = [_record(f"[rank{r}]:[W421 09:00:0{r}.1 ProcessGroupNCCL.cpp:4115] [PG 0 Rank {r}] using GPU {r} to perform "
                    "barrier as devices used by this process are currently unknown.",
                    pod="job-workers-0-0-xyz", node="gke-pool-2057be12-jltc", when=f"2025-04-21T09:00:0{r}.1Z")
            for r in range(3)]
    seen = incidents_of(tmp_path / "oom", {"export/logs.jsonl": "\n".join([*rows, line]) + "\n"}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.CUDA_OOM, 3), seen
    # a structured logger's record: the text is jsonPayload's message
    structured = _record("ValueError: labels must be a list", pod="p-0", node="n-1", when="2025-04-21T09:04:53Z",
                         structured=True)
    assert strip_prefix(structured).message == "2025-04-21T09:04:53.000000Z ValueError: labels must be a list"
    # a JSON line that is no log record stays as it is
    plain = '{"epoch": 3, "loss": 0.25}'
    assert strip_prefix(plain).message == plain


def test_python_logging_s_rank_field_names_the_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    line = "2025-04-21 09:04:53,571 - INFO - __main__ - [rank 28] step 50 | loss 2.7671 | fwd_bwd 1.902s"
    pre = strip_prefix(line)
    assert (pre.rank, pre.hinted) == (28, True), pre
    # behind a collector's stamp too
    assert strip_prefix("2025-04-21T09:04:53.571581Z " + line).rank == 28
    # a rank named further into the message is no field of the line's
    assert strip_prefix("2025-04-21 09:04:53,571 - INFO - __main__ - waiting for [rank 28] to join").rank is None
    # a bracketed stamp and rank, and a key=value logger's first field
    assert strip_prefix("[2024-12-21 23:46:57][rank5] it=96 loss=7.1178 data_time=0.015s").rank == 5
    assert strip_prefix("2025-07-23 11:40:14,954 rank=4 step=8600 fwd_bwd=10.586s comm_wait=9.220s").rank == 4
    assert strip_prefix("2025-07-23 11:40:14,954 training done, rank=4 exits").rank is None
    # behind torchrun's local-rank prefix, the logger's field is the global rank
    pre = strip_prefix("[default1]:[2024-12-21 23:46:57][rank5] it=96 loss=7.1178")
    assert (pre.rank, pre.local_rank) == (5, 1), pre
    pre = strip_prefix("[default2]:2024-06-30 08:17:52,334 | INFO | rank  10 | step 8010 | loss 2.4")
    assert (pre.rank, pre.local_rank) == (10, 2), pre
    assert strip_prefix("[default2]: waiting for rank 3").rank is None
