"""What one rank's Flight Recorder dump holds, checked and normalised (:class:`FrDump`), the
error a file that is not one raises (:class:`FrDumpError`), and the limits a dump must keep."""

from __future__ import annotations

from dataclasses import dataclass

from detector.errors import InputError
from detector.sources.flight_recorder.names import MAX_DUMP_BYTES as MAX_DUMP_BYTES
from detector.sources.flight_recorder.names import MAX_RANK as MAX_RANK
from detector.sources.flight_recorder.names import DumpFormat as DumpFormat

MAX_ENTRIES = 100_000
"""Most entries one dump may hold (TORCH_FR_BUFFER_SIZE is 2,000 by default on NCCL)."""
MAX_GROUPS = 100_000
MAX_TENSORS = 4_096  # tensors of one op (coalesced ops list many)
MAX_DIMS = 32
MAX_FRAMES = 64  # frames kept per entry (the innermost first, as torch writes them)
MAX_TEXT = 1_024  # longest name, path or dtype string kept (longer ones are cut)


class FrDumpError(InputError):
    """A file is not a readable Flight Recorder dump (or is one that is unsafe or too big)."""


@dataclass(frozen=True, slots=True)
class FrFrame:
    name: str
    filename: str
    line: int


@dataclass(frozen=True, slots=True)
class FrEntry:
    """One recorded op of one rank."""

    record_id: int
    pg_id: int | None
    pg_name: str
    pg_desc: str
    collective_seq_id: int
    p2p_seq_id: int
    op_id: int | None
    profiling_name: str  # as recorded: "nccl:all_reduce", "gloo:broadcast", "nccl:send 0->1"
    backend: str  # "nccl", "gloo", ... ("" when the name has no prefix)
    op: str  # "all_reduce", "send", "coalesced", ...
    is_p2p: bool
    input_sizes: tuple[tuple[int, ...], ...]
    output_sizes: tuple[tuple[int, ...], ...]
    input_dtypes: tuple[str, ...]
    output_dtypes: tuple[str, ...]
    state: str  # scheduled | started | completed (gloo leaves every entry "scheduled")
    retired: bool | None
    time_created_ns: int | None
    time_started_ns: int | None
    time_completed_ns: int | None
    timeout_ms: int | None
    frames: tuple[FrFrame, ...] = ()


@dataclass(frozen=True, slots=True)
class FrGroupConfig:
    name: str
    desc: str
    ranks: tuple[int, ...] | None  # global ranks; None when the dump does not say (or says "[]")


@dataclass(frozen=True, slots=True)
class FrGroupStatus:
    pg_id: str
    last_enqueued: int | None
    last_started: int | None
    last_completed: int | None


@dataclass(frozen=True, slots=True)
class FrDump:
    """One rank's dump, checked and normalised."""

    path: str
    rank: int
    format: DumpFormat
    version: str
    comm_lib_version: str
    configs: tuple[FrGroupConfig, ...]
    status: tuple[FrGroupStatus, ...]
    entries: tuple[FrEntry, ...]
    warnings: tuple[str, ...] = ()
