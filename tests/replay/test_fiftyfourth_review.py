"""Run folders helper reviewers built against the fifty-fourth session's changes, where a new
reading had turned a right diagnosis wrong (each mended): the run's one named host was filled in
as the node of a failure that names no rank, where the job ran on more hosts than its logs name -
a Ray driver's log whose local actors print no address (an ECC fault placed on the other node, and
drained), a two-node job's combined output beside one node's kernel log (the ECC fault placed on
that node, and drained), the master pod's console of a two-pod job (a hang and a remote death
placed on the master)."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.types import Cause

DATA = Path(__file__).parent / "data" / "review54"


@pytest.mark.parametrize(("run", "cause"), [
    # Ray's driver log: the actor that hit the ECC error runs on the driver's node (no ip= in its
    # prefix); the other node's actors (ip=10.0.0.7) only time out
    ("s6_ray_local_actor_ecc", Cause.ECC_MEMORY),
    # a two-node job's combined output (no host named) and gpu-a07's kernel log, which shows no fault
    ("s2_ecc_kernlog_other_node", Cause.ECC_MEMORY),
    # the master pod's console of a two-pod job (nranks 8, ranks 0-3 here)
    ("s1_master_pod_hang", Cause.HANG),
    ("s7_master_pod_remote_exited", Cause.UNKNOWN),
])
def test_a_job_on_more_hosts_than_its_logs_name_places_no_unranked_failure_on_the_named_one(
        run: str, cause: Cause, ruleset: RuleSet) -> None:
    report = replay_path(DATA / run, ruleset)
    first = report.incidents[0]
    assert first.cause is cause and first.initiator.rank is None
    assert first.initiator.node is None


@pytest.mark.parametrize(("run", "cause", "rank"), [
    # rank 3's traceback cut before its exception line, then the wrapper's CalledProcessError of
    # torchrun: the rank's cut traceback says more than the wrapper (it read unknown, no rank)
    ("f_wrap_cut", Cause.PYTHON_EXCEPTION, 3),
    # a CalledProcessError of 'python train.py --output_dir /checkpoints/deepspeed ...': no launcher
    # (a path's last word is not the program)
    ("wrap_python_script", Cause.PYTHON_EXCEPTION, None),
])
def test_a_wrappers_word_is_the_last_of_the_last_words(run: str, cause: Cause, rank: int | None,
                                                       ruleset: RuleSet) -> None:
    report = replay_path(DATA / run, ruleset)
    assert (report.incidents[0].cause, report.incidents[0].initiator.rank) == (cause, rank)
