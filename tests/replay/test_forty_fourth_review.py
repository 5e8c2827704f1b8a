"""Runs the forty-fourth session's review built, where a new reading had turned a right diagnosis
wrong: each must keep the diagnosis the earlier code gave, or name no host that is a word
(tests/replay/data/review44/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

DATA = Path(__file__).parent / "data" / "review44"
DATA_B = Path(__file__).parent / "data" / "review44b"  # (the second review's)
DATA_C = Path(__file__).parent / "data" / "review44c"  # (the third's)

# the run -> its first incident's (cause, rank, node), or None where it raises none
EXPECTED: dict[str, tuple[Cause, int | None, str | None] | None] = {
    # a weight broadcast to inference engines: rank 3 two broadcasts behind the root and its peers,
    # of another size - a broadcast's root runs ahead of a stuck receiver by itself: a hang
    "bcast_eager_ahead": (Cause.HANG, 3, None),
    # the same with a reduce whose root is behind
    "reduce_root_behind": (Cause.HANG, 0, None),
    # "slowest rank 14 (node gpu63)": the word in the parentheses is no host
    "slowest_node_word": (Cause.STRAGGLER, 14, None),
    # rank 2 slow for nine lines, then back to its peers' time while two of them had stopped
    # logging (and, in the second, while it alone logged): recovered, no straggler at the end
    "straggler_recovered_two": None,
    "straggler_recovered_tail": None,
}

# the second review's runs
EXPECTED_B: dict[str, tuple[Cause, int | None, str | None] | None] = {
    # rank 0's KeyError, then its buffered stdout's loss lines flushed at exit, stamped only with
    # kubectl's (or Cloud Logging's) collection time: not a caught exception
    "c2_kubectl_ts_flushed_stdout": (Cause.PYTHON_EXCEPTION, 0, "llama-ft-master-0"),
    "c4_gcloud_json_flushed_stdout": (Cause.PYTHON_EXCEPTION, 0, "llama-ft-master-0"),
    # srun runs one torchrun agent a node: its task 1 is a node's agent, terminated with the rest
    "e3_srun_torchrun_filter0": (Cause.HANG, None, None),
    # a slowest-rank report's host before a colon; one that mentions the data wait after its median
    "r1_slowest_report_hostcolon": (Cause.STRAGGLER, 14, "gpu63"),
    "r2_slowest_report_datawait": (Cause.STRAGGLER, 37, None),
    # submitit requeued the job on SIGUSR2 and the requeued task completed: healthy
    "s5_submitit_requeued_then_completed": None,
    # a gcloud YAML export whose Lightning traceback holds ", *args,": no YAML alias, still read
    "y1_gcloud_yaml_ray_args": (Cause.CUDA_OOM, 1, "10.8.4.22"),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_review_runs_keep_their_diagnosis(name: str, tmp_path: Path, ruleset: RuleSet) -> None:
    files = {str(p.relative_to(DATA / name)): p.read_text() for p in sorted((DATA / name).rglob("*")) if p.is_file()}
    seen = incidents_of(tmp_path, files, ruleset)
    want = EXPECTED[name]
    if want is None:
        assert not seen, seen[:2]
    else:
        assert seen and (seen[0].cause, seen[0].rank, seen[0].node) == want, seen[:2]


@pytest.mark.parametrize("name", sorted(EXPECTED_B))
def test_the_second_review_runs_keep_their_diagnosis(name: str, tmp_path: Path, ruleset: RuleSet) -> None:
    files = {str(p.relative_to(DATA_B / name)): p.read_text() for p in sorted((DATA_B / name).rglob("*")) if p.is_file()}
    seen = incidents_of(tmp_path, files, ruleset)
    want = EXPECTED_B[name]
    if want is None:
        assert not seen, seen[:2]
    else:
        assert seen and (seen[0].cause, seen[0].rank, seen[0].node) == want, seen[:2]


def test_a_json_logger_s_file_with_a_result_field_and_a_traceback_is_no_export(tmp_path: Path, ruleset: RuleSet) -> None:
    # a JSON logger's records, one of them with a "result" field of its own, and Python's traceback
    # written into the same file as plain text: read line by line, the out-of-memory error kept
    name = "j2_jsonlogger_result_field"
    files = {str(p.relative_to(DATA_C / name)): p.read_text() for p in sorted((DATA_C / name).rglob("*")) if p.is_file()}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen and seen[0].cause is Cause.CUDA_OOM, seen[:2]
