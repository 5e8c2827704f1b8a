"""The façade: step samples, marker lines and GPU metrics in, findings out."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from detector.sources.metrics import MetricSeries
from detector.types import Finding

from .config import StatsConfig
from .findings import gpu_findings, slowdown_findings, straggler_findings
from .gpu_outliers import detect_gpu_outliers
from .model import LogNote, NoteKind, StepSample
from .series import build_grid, job_step_seconds, job_wall_per_step
from .slowdown import detect_slowdowns
from .stall import stall_findings
from .stall_replay import detect_stalls
from .straggler import detect_stragglers
from .table import StepTable, table_from_samples

_DEFAULT = StatsConfig()


def analyze(
    samples: Sequence[StepSample],
    metrics: Sequence[MetricSeries],
    *,
    end_time: float | None,
    config: StatsConfig = _DEFAULT,
    notes: Sequence[LogNote] = (),
    rank_gpus: Mapping[int, str] | None = None,
) -> list[Finding]:
    """Stall, straggler, slowdown and GPU-outlier findings for one run.

    ``end_time`` is the end of the logs (replay) or now (live); ``notes`` are the checkpoint /
    evaluation / end-of-training lines (steps.make_note); ``rank_gpus`` maps a rank to its GPU's
    PCI id where the logs tell it (NCCL's busId), else GPUs are joined by host and local rank.
    """
    return analyze_table(
        table_from_samples(samples),
        metrics,
        end_time=end_time,
        config=config,
        notes=[*notes, *reached_the_last_step(samples, notes)],
        rank_gpus=rank_gpus,
        samples=samples,
    )


def reached_the_last_step(samples: Sequence[StepSample], notes: Sequence[LogNote]) -> list[LogNote]:
    """An end-of-training note for each rank whose last step line reached the step count it gives
    ("step 10000/10000") and that printed no end line of its own: it finished training, as a
    rank that says so did (its silence after it, an upload or an evaluation of rank 0's, is no
    stall of the others). Not a progress bar's count: an epoch's bar reaches its total at every
    epoch's end (a hang in the validation after it is a hang)."""
    said = {n.rank for n in notes if n.kind is NoteKind.END}
    last: dict[int, StepSample] = {}
    for sample in samples:
        if sample.rank not in said and (sample.rank not in last or sample.time >= last[sample.rank].time):
            last[sample.rank] = sample
    return [LogNote(rank, sample.time, NoteKind.END, sample.text, sample.file, sample.line)
            for rank, sample in sorted(last.items())
            if sample.total is not None and sample.total > 0 and sample.step >= sample.total
            and not _PROGRESS_BAR.search(sample.text or "")]


_PROGRESS_BAR = re.compile(r"%\||\bit/s\b|\bs/it\b|\bEpoch \d")


def analyze_table(
    table: StepTable,
    metrics: Sequence[MetricSeries],
    *,
    end_time: float | None,
    config: StatsConfig = _DEFAULT,
    notes: Sequence[LogNote] = (),
    rank_gpus: Mapping[int, str] | None = None,
    samples: Sequence[StepSample] | None = None,
) -> list[Finding]:
    """:func:`analyze` on samples already in columns (the benchmark, bulk replays).
    ``samples``, when given, are the table's rows, to quote the evidence lines."""
    gpus = dict(rank_gpus or {})
    grid = build_grid(table)
    job_step = job_step_seconds(grid, config.job_ranks_sample)
    stalls = detect_stalls(grid, notes, end_time=end_time, config=config)
    stragglers = detect_stragglers(grid, job_wall_per_step(grid, config.job_ranks_sample), config)
    slowdowns = detect_slowdowns(grid, job_step, config)
    window = None
    if slowdowns and end_time is not None:
        window = (slowdowns[0].start_time, end_time)
    outliers = detect_gpu_outliers(metrics, config, window)
    findings: list[Finding] = []
    for event in stalls:
        source = (
            samples[event.sample_index]
            if samples is not None and event.sample_index is not None
            else None
        )
        findings.extend(stall_findings(event, source))
    findings.extend(straggler_findings(stragglers, grid, samples, outliers, gpus, config))
    findings.extend(slowdown_findings(slowdowns, grid, samples, outliers))
    findings.extend(gpu_findings(outliers, grid, gpus))
    return findings
