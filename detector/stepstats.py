"""Step lines and GPU metrics of a run -> statistical findings (stalls, stragglers, outliers)."""

from __future__ import annotations

from collections.abc import Sequence

from detector.pipeline import RunIndex
from detector.sources.reader import FileScan
from detector.sources.runs import LogFile
from detector.types import Finding


def stats_findings(scans: Sequence[FileScan], idx: RunIndex, metric_files: Sequence[LogFile]) -> tuple[list[Finding], float | None, list[str]]:
    """Findings of the statistical detectors, the median step time (s) and warnings."""
    return [], None, []
