"""torchrun makes "<run_id>_<random>/" in its --log-dir; a log dir named after the run id itself
("ip-172-31-30-37/logs/llama-1266/llama-1266_rdvprcs7/attempt_0/3/stderr.log") names the run, not
a host: the node is the host folder above it (it was "llama-1266", which a drain would have
targeted; a blind generator's runs, three times)."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.types import Cause

LINE = "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered\n"


@pytest.mark.parametrize(("folders", "node"), [
    ("ip-172-31-30-37/logs/llama-1266/llama-1266_rdvprcs7", "ip-172-31-30-37"),
    ("node07/llama-1266_rdvprcs7", "node07"),  # (torchrun's folder right under the host's)
])
def test_the_run_ids_folder_is_no_host(tmp_path: Path, ruleset: RuleSet, folders: str, node: str) -> None:
    rank = tmp_path / "run" / folders / "attempt_0" / "3"
    rank.mkdir(parents=True)
    (rank / "stderr.log").write_text(LINE)
    (rank / "stdout.log").write_text("")
    report = replay_path(tmp_path / "run", ruleset)
    first = report.incidents[0]
    assert first.cause is Cause.ILLEGAL_MEMORY_ACCESS and first.initiator.node == node, first.initiator
