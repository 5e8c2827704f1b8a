"""A real torchrun job (gloo, CPU, 4 ranks): one rank slowed by an injected sleep is flagged as
a straggler from its rank logs alone; the same job without the fault gives no finding."""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from detector.stats import (
    LogNote,
    StatsConfig,
    StepResolver,
    StepSample,
    analyze,
    choose_preset,
    make_note,
)
from detector.types import Role

JOB = Path(__file__).parents[1] / "jobs" / "train_ddp.py"
STEPS = 60
SLOW_RANK = 2
_TIME = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) ")
_RANK = re.compile(r"\[rank(\d+)\]")


def _run_job(log_dir: Path, *fault: str) -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    for key in ("RANKDOCTOR_FAULT", "RANKDOCTOR_FAULT_RANK", "RANKDOCTOR_FAULT_STEP"):
        env.pop(key, None)
    command = [
        sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=4",
        "--log-dir", str(log_dir), "--redirects", "3",
        str(JOB), "--steps", str(STEPS), "--step-sleep", "0.02", *fault,
    ]  # fmt: skip
    done = subprocess.run(
        command, env=env, capture_output=True, text=True, timeout=150, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]


def _load(log_dir: Path) -> tuple[list[StepSample], list[LogNote], float]:
    """The rank logs of a torchrun --log-dir, read with the presets as the replay does."""
    samples: list[StepSample] = []
    notes: list[LogNote] = []
    end = 0.0
    logs = sorted(log_dir.glob("*/attempt_*/*/stderr.log"))
    assert len(logs) == 4
    for path in logs:
        lines = path.read_text().splitlines()
        preset = choose_preset(lines[:200])
        assert preset is not None
        assert preset.name == "generic"
        resolver = StepResolver()
        for number, line in enumerate(lines, start=1):
            stamp, rank = _TIME.match(line), _RANK.search(line)
            if stamp is None or rank is None:
                continue
            moment = (
                datetime.strptime(stamp.group(1), "%Y-%m-%d %H:%M:%S,%f")
                .replace(tzinfo=UTC)
                .timestamp()
            )
            end = max(end, moment)
            record = preset.parse(line)
            if record is not None:
                samples.append(
                    resolver.sample(
                        record,
                        rank=int(rank.group(1)),
                        node="localhost",
                        time=moment,
                        file=str(path),
                        line=number,
                        text=line,
                        local_rank=int(path.parent.name),
                    )
                )
            elif (
                note := make_note(
                    line, rank=int(rank.group(1)), time=moment, file=str(path), line=number
                )
            ) is not None:
                notes.append(note)
    return samples, notes, end


@pytest.fixture(scope="module")
def job_logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("torchrun")
    slow, healthy = base / "slow", base / "healthy"
    _run_job(
        slow,
        "--fault",
        "slow",
        "--fault-rank",
        str(SLOW_RANK),
        "--fault-step",
        "3",
        "--slow-ms",
        "30",
    )
    _run_job(healthy)
    return {"slow": slow, "healthy": healthy}


def test_slowed_rank_is_flagged(job_logs: dict[str, Path]) -> None:
    samples, notes, end = _load(job_logs["slow"])
    assert {s.rank for s in samples} == {0, 1, 2, 3}
    assert len(samples) == 4 * STEPS
    assert {k for s in samples for k, _ in s.local} == {"fwd", "bwd", "data"}
    findings = analyze(samples, [], end_time=end, notes=notes)
    stragglers = [f for f in findings if f.rule == "stats.straggler"]
    assert [f.rank for f in stragglers] == [SLOW_RANK], [f.text for f in findings]
    f = stragglers[0]
    assert f.field("metric") == "fwd_s"
    assert float(f.field("value") or 0) > 0.025  # the 30 ms sleep
    assert f.local_rank == SLOW_RANK
    assert f.file is not None
    assert f.file.endswith(f"/{SLOW_RANK}/stderr.log")
    assert [x.rule for x in findings if x.rule == "stats.stall"] == []


def test_same_job_without_the_fault_gives_nothing(job_logs: dict[str, Path]) -> None:
    """No rank is blamed and nothing could make an incident. The job's step time (about 7 ms of
    CPU work a step here) can truly rise when other work shares the machine, as the suite's own
    services do: a job slowdown, a context finding, is allowed only where the steps after its
    change point really are slower by the detector's smallest change (10 %)."""
    samples, notes, end = _load(job_logs["healthy"])
    assert len(samples) == 4 * STEPS
    findings = analyze(samples, [], end_time=end, notes=notes)
    blamed = [f for f in findings if f.rule != "stats.slowdown" or f.role is not Role.CONTEXT or f.rank is not None]
    assert blamed == [], [f.text for f in findings]
    # (measured as the detector measures the job: each step's median over the ranks, the steps
    # after the change point those of its confirmation window - a burst of load that passed
    # later is still a true rise, which the whole tail's median hid: CI failed once so)
    by_step: dict[int, list[float]] = {}
    for x in samples:
        if x.duration_s is not None:
            by_step.setdefault(x.step, []).append(x.duration_s)
    job = {step: statistics.median(v) for step, v in by_step.items()}
    confirm = StatsConfig().slowdown_confirm
    for f in findings:
        start = int(f.field("step") or 0)
        before = [t for step, t in job.items() if 5 < step < start]
        after = [t for step, t in job.items() if start <= step < start + confirm]
        assert before and after and statistics.median(after) >= 1.1 * statistics.median(before), f.text
