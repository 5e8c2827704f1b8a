"""PyTorch Flight Recorder dumps -> which rank never entered the collective the others wait in,
and which rank issued a different collective.

A Flight Recorder dump is one rank's ring buffer of its recent collectives, written by torch
(``ProcessGroupNCCL``'s watchdog on a timeout, or on request through
``torch._C._distributed_c10d._dump_fr_trace()`` / ``_dump_fr_trace_json()``, which the gloo/CPU
build has too) to ``${TORCH_FR_DUMP_TEMP_FILE}<rank>`` (older name
``TORCH_NCCL_DEBUG_INFO_TEMP_FILE``; default base names ``comm_lib_trace_rank_`` and, before,
``nccl_trace_rank_``). The file holds no rank: it is the number the file name ends with.

Format (version "2.x", the one torch's ``fr_trace`` analyser reads): a dict with ``version``,
``pg_config`` (pg name -> ``{name, desc, ranks: "[0, 1]"}``), ``pg_status`` (pg id ->
``last_enqueued_collective`` / ``last_started_collective`` / ``last_completed_collective``),
``comm_lib_version`` and ``entries``: one dict per recorded op (``process_group`` (name, desc),
``collective_seq_id``, ``p2p_seq_id``, ``profiling_name`` like ``nccl:all_reduce`` or
``gloo:all_reduce``, ``input_sizes``/``output_sizes``/``input_dtypes``/``output_dtypes``,
``state`` scheduled|started|completed, ``retired``, ``time_created_ns``, ``frames``...). Written
as a pickle (torch's own pickler: only dicts, lists, tuples, strings, numbers, booleans, None)
or as JSON (the same keys; numbers in ``pg_status`` as strings).

Dumps are untrusted input. A pickle is never given to ``pickle.load``: its opcodes are checked
first against the few that torch's pickler emits (no GLOBAL/REDUCE/BUILD/..., so nothing can be
imported or called), container nesting and memo indexes are bounded, and only then is it
unpickled by an unpickler that refuses every class and persistent id. Files are capped in size
(:data:`MAX_DUMP_BYTES`) and entries in number (:data:`MAX_ENTRIES`); every field is checked for
its type. Anything else raises :class:`FrDumpError` naming the file and the problem.

Pure API, importable from this package (each name imported on first use): :func:`read_dump` (path -> :class:`FrDump`),
:func:`analyse` (dumps -> :class:`FrAnalysis`), :func:`findings` (analysis ->
:class:`~detector.types.Finding`); :func:`looks_like_fr_dump` tells run discovery which files
are dumps. The modules:

- :mod:`.names`: recognising dump files by name and first bytes (all that run discovery needs);
- :mod:`.dump`: what a dump holds, checked and normalised (:class:`FrDump`), and the limits;
- :mod:`.read`: recognising dump files and reading them (:func:`read_dump`);
- :mod:`.decode`: bytes -> plain values, safely (the pickle prescan, the unpickler that refuses
  every class, JSON);
- :mod:`.schema`: plain values -> :class:`FrDump`, every field checked for its type;
- :mod:`.collectives`: what one collective call is, and when two ranks' calls disagree;
- :mod:`.analysis`: where each rank stands per process group, the hang and the mismatch
  (:func:`analyse`);
- :mod:`.evidence`: the analysis in words, as findings (:func:`findings`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from detector.support.lazy import lazy_exports

if TYPE_CHECKING:
    from detector.sources.flight_recorder.analysis import FrAnalysis, analyse
    from detector.sources.flight_recorder.dump import FrDump, FrDumpError
    from detector.sources.flight_recorder.evidence import findings, summarise
    from detector.sources.flight_recorder.names import is_fr_dump_name, looks_like_fr_dump, rank_from_dump_name
    from detector.sources.flight_recorder.read import read_dump, read_dumps

# Imported on first use (PEP 562): run discovery asks only whether a file is a dump
# (:mod:`.names`), and the decoder and the analysis cost ~20 ms to import.
_HOME = {
    "FrAnalysis": "analysis",
    "analyse": "analysis",
    "FrDump": "dump",
    "FrDumpError": "dump",
    "findings": "evidence",
    "summarise": "evidence",
    "is_fr_dump_name": "names",
    "looks_like_fr_dump": "names",
    "rank_from_dump_name": "names",
    "read_dump": "read",
    "read_dumps": "read",
}


__getattr__ = lazy_exports(__name__, _HOME, globals())


__all__ = [
    "FrAnalysis",
    "FrDump",
    "FrDumpError",
    "analyse",
    "findings",
    "is_fr_dump_name",
    "looks_like_fr_dump",
    "rank_from_dump_name",
    "read_dump",
    "read_dumps",
    "summarise",
]
