"""Statistical detectors over step times and GPU metrics (issue #5).

Public API (see docs/architecture.md for where it sits in the pipeline):

- parsing step lines: :class:`Preset`, :data:`PRESETS`, :func:`parse_step`, :func:`parse_steps`,
  :func:`choose_preset`, :func:`custom_preset`, :func:`preset_by_name`, :func:`parse_note`,
  :func:`make_note`, :class:`StepResolver` (record -> StepSample);
- analysis: :func:`analyze` (replay and periodic live checks), :func:`analyze_table`
  (columnar input), :class:`StallTracker` (incremental stall detection for the sidecar);
- values: :class:`StepRecord`, :class:`StepSample`, :class:`LogNote`, :class:`NoteKind`,
  :class:`StatsConfig`, :class:`StepTable`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from detector.support.lazy import lazy_exports

if TYPE_CHECKING:
    from .analyze import analyze, analyze_table
    from .config import StatsConfig
    from .model import LogNote, NoteKind, StepRecord, StepSample
    from .stall_live import StallTracker
    from .steps import (
        PRESETS,
        Preset,
        StepResolver,
        choose_preset,
        custom_preset,
        make_note,
        parse_note,
        parse_step,
        parse_steps,
        preset_by_name,
    )
    from .table import StepTable, table_from_samples

# Imported on first use (PEP 562): parsing step lines needs no numpy, and numpy's import is
# 0.07-0.2 s of every short replay that only parses a few step lines.
_HOME = {
    "analyze": "analyze", "analyze_table": "analyze", "StatsConfig": "config",
    "LogNote": "model", "NoteKind": "model", "StepRecord": "model", "StepSample": "model",
    "StallTracker": "stall_live", "StepTable": "table", "table_from_samples": "table",
    **{name: "steps" for name in ("PRESETS", "Preset", "StepResolver", "choose_preset", "custom_preset",
                                  "make_note", "parse_note", "parse_step", "parse_steps", "preset_by_name")},
}


__getattr__ = lazy_exports(__name__, _HOME, globals())


__all__ = [
    "PRESETS",
    "LogNote",
    "NoteKind",
    "Preset",
    "StallTracker",
    "StatsConfig",
    "StepRecord",
    "StepResolver",
    "StepSample",
    "StepTable",
    "analyze",
    "analyze_table",
    "choose_preset",
    "custom_preset",
    "make_note",
    "parse_note",
    "parse_step",
    "parse_steps",
    "preset_by_name",
    "table_from_samples",
]
